//! Rule `cargo-rust-version`: Burn 0.22 needs Rust 1.95. A manifest's `rust-version` and a
//! `rust-toolchain` / `rust-toolchain.toml` file that pin an older Rust are raised.

use std::path::Path;

use toml_edit::{Item, Table, Value};

use crate::migrate::outcome::{ManifestChange, ManifestOutcome};
use crate::rules::{Applicability, ModuleId, RuleHome, RuleId};
use crate::util::layout;

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::RustVersion,
    emits: &[RuleId::CargoRustVersion],
};

/// Rust release Burn 0.22 needs.
pub const MIN_RUST: (u64, u64) = (1, 95);

/// `rust-version` below what Burn 0.22 needs is raised.
pub fn raise_in_manifest(root: &mut Table, table: &str, changes: &mut Vec<ManifestChange>) {
    let Some(section) = root.get_mut(table).and_then(Item::as_table_like_mut) else {
        return;
    };
    let section = if table == "workspace" {
        match section.get_mut("package").and_then(Item::as_table_like_mut) {
            Some(package) => package,
            None => return,
        }
    } else {
        section
    };
    let Some(item) = section.get_mut("rust-version") else {
        return;
    };
    let Some(current) = item.as_str().map(str::to_string) else {
        return;
    };
    if let Some(raised) = raised_toolchain(&current) {
        if let Some(Value::String(s)) = item.as_value_mut() {
            let decor = s.decor().clone();
            let mut new = toml_edit::Formatted::new(raised.clone());
            *new.decor_mut() = decor;
            *s = new;
        }
        changes.push(ManifestChange {
            rule: RuleId::CargoRustVersion.into(),
            fix: Some(Applicability::Safe),
            key: "rust-version".to_string(),
            span: None,
            message: format!("Burn 0.22 needs Rust {raised}; `rust-version` was {current}"),
        });
    }
}

/// The toolchain to write instead of `version` when it is older than Burn 0.22 needs
/// (`1.80`, `1.80.1`); `None` for newer versions and for channels (`stable`, `nightly-..`).
pub fn raised_toolchain(version: &str) -> Option<String> {
    let mut parts = version.trim().split('.');
    let major: u64 = parts.next()?.parse().ok()?;
    let minor: u64 = parts.next()?.parse().ok()?;
    ((major, minor) < MIN_RUST).then(|| format!("{}.{}", MIN_RUST.0, MIN_RUST.1))
}

/// `rust-toolchain` / `rust-toolchain.toml` files that pin a Rust older than Burn 0.22 needs.
pub fn toolchain_files(root: &Path) -> Vec<ManifestOutcome> {
    let mut out = Vec::new();
    for name in ["rust-toolchain", "rust-toolchain.toml"] {
        let path = root.join(name);
        let Ok(original) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut migrated = original.clone();
        let mut old = None;
        if let Ok(mut doc) = original.parse::<toml_edit::DocumentMut>() {
            if let Some(channel) = doc.get_mut("toolchain").and_then(|t| t.get_mut("channel")) {
                if let Some(raised) = channel.as_str().and_then(raised_toolchain) {
                    old = channel.as_str().map(str::to_string);
                    if let Some(value) = channel.as_value_mut() {
                        let decor = value.decor().clone();
                        *value = toml_edit::Value::from(raised);
                        *value.decor_mut() = decor;
                    }
                    migrated = doc.to_string();
                }
            }
        } else if let Some(raised) = raised_toolchain(layout::strip_bom(&original).0.trim()) {
            old = Some(original.trim().to_string());
            migrated = format!("{raised}\n");
        }
        let Some(old) = old else { continue };
        let migrated = layout::keep_layout(&original, migrated);
        out.push(ManifestOutcome {
            display: name.to_string(),
            changes: vec![ManifestChange {
                rule: RuleId::CargoRustVersion.into(),
                fix: Some(Applicability::Safe),
                key: "channel".to_string(),
                span: None,
                message: format!(
                    "Burn 0.22 needs Rust {}.{}; the toolchain file pinned {old}",
                    MIN_RUST.0, MIN_RUST.1
                ),
            }],
            path,
            original,
            migrated,
            error: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_toolchains_are_raised_and_channels_left() {
        assert_eq!(raised_toolchain("1.80"), Some("1.95".to_string()));
        assert_eq!(raised_toolchain("1.80.1"), Some("1.95".to_string()));
        assert_eq!(raised_toolchain("1.95.0"), None);
        assert_eq!(raised_toolchain("stable"), None);
    }
}
