//! `[patch]` entries that replace a Burn crate with a fork (`[patch.crates-io] burn-core =
//! { path = "patches/burn-core" }`, or a git repository): a fork of Burn 0.21 stops being used
//! once the port asks for Burn 0.22, because a patch only applies where its version matches
//! the requirement. Cargo then only warns ("patch ... was not used in the crate graph") and
//! builds Burn from the registry, without the fork's changes. burn-migrate cannot port a fork
//! of Burn itself, so each such entry is a finding for a person, at its key, until the fork is
//! on Burn 0.22 (its own manifest, or the lockfile for a git fork, says so) or the patch goes.
//!
//! Cargo reads `[patch]` from the workspace root's manifest (other members' are ignored, on
//! 0.21 as on 0.22) and from cargo configuration (`.cargo/config.toml`).

use std::path::{Path, PathBuf};

use ra_ap_syntax::{TextRange, TextSize};
use toml_edit::{Document, Item, TableLike};

use crate::migrate::discover::{requirement_is_migrated, Workspace};
use crate::migrate::outcome::{ManifestChange, ManifestOutcome, Report};
use crate::rules::framework::{is_burn_package, locked_burn_version, BURN_0_22_LOCK};
use crate::rules::{ModuleId, RuleHome, RuleId};

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::BurnPatches,
    emits: &[RuleId::CargoBurnPatch],
};

/// One `[patch]` entry of a Burn crate whose fork does not provide Burn 0.22.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BurnPatch {
    /// The entry's key (the name it patches, or its own with `package = ".."`).
    pub key: String,
    /// The key's span in the text.
    pub span: TextRange,
    pub message: String,
}

/// The Burn patches of a manifest or cargo configuration whose fork is not on Burn 0.22.
/// `base` is the directory relative `path`s start from (the manifest's directory; for a
/// configuration file, the directory holding `.cargo/`); `lock` is the project's `Cargo.lock`,
/// which holds the version of a git fork. Text that is not TOML has none (the manifest stage
/// reports it).
pub fn find(text: &str, base: &Path, lock: Option<&str>) -> Vec<BurnPatch> {
    let Ok(doc) = Document::parse(text) else {
        return Vec::new();
    };
    let Some(patch) = doc.as_table().get("patch").and_then(Item::as_table_like) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (source, entries) in patch.iter() {
        let Some(entries) = entries.as_table_like() else {
            continue;
        };
        for (key, entry) in entries.iter() {
            let Some(entry) = entry.as_table_like() else {
                continue;
            };
            let krate = entry
                .get("package")
                .and_then(Item::as_str)
                .unwrap_or(key)
                .to_string();
            if !is_burn_package(&krate) {
                continue;
            }
            let fork = Fork::of(entry, base);
            let version = fork.version(&krate, lock);
            if version.as_deref().is_some_and(requirement_is_migrated) {
                continue;
            }
            let Some(span) = key_span(entries, key) else {
                continue;
            };
            out.push(BurnPatch {
                key: key.to_string(),
                span,
                message: message(source, &krate, &fork, version.as_deref()),
            });
        }
    }
    // In the order of the text: a table's entries may be written apart (`[patch.crates-io]`,
    // then `[patch.crates-io.burn-train]` further down).
    out.sort_by_key(|p| p.span.start());
    out
}

fn key_span(table: &dyn TableLike, key: &str) -> Option<TextRange> {
    let range = table.key(key)?.span()?;
    Some(TextRange::new(
        TextSize::try_from(range.start).ok()?,
        TextSize::try_from(range.end).ok()?,
    ))
}

/// Where a patch takes the crate from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fork {
    /// A directory, as written and as resolved.
    Path {
        written: String,
        dir: PathBuf,
    },
    /// A git repository, with the branch, tag or revision named.
    Git {
        url: String,
        reference: String,
    },
    /// A registry release matching a requirement (`version = "=0.21.0"`).
    Registry {
        requirement: String,
    },
    Unknown,
}

impl Fork {
    fn of(entry: &dyn TableLike, base: &Path) -> Fork {
        let text = |key: &str| entry.get(key).and_then(Item::as_str).map(str::to_string);
        if let Some(written) = text("path") {
            let dir = base.join(&written);
            return Fork::Path { written, dir };
        }
        if let Some(url) = text("git") {
            let reference = ["branch", "tag", "rev"]
                .iter()
                .find_map(|k| text(k).map(|v| format!(" ({k} `{v}`)")))
                .unwrap_or_default();
            return Fork::Git { url, reference };
        }
        match text("version") {
            Some(requirement) => Fork::Registry { requirement },
            None => Fork::Unknown,
        }
    }

    /// The version of `krate` the fork provides, where the project says it: the fork's own
    /// manifest, or for a git fork the lockfile (which also lists patches cargo did not use).
    fn version(&self, krate: &str, lock: Option<&str>) -> Option<String> {
        match self {
            Fork::Path { dir, .. } => package_version(dir),
            Fork::Git { url, .. } => lock.and_then(|lock| locked_git_version(lock, krate, url)),
            Fork::Registry { requirement } => Some(requirement.clone()),
            Fork::Unknown => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            Fork::Path { written, .. } => format!("the fork at `{written}`"),
            Fork::Git { url, reference } => format!("the fork at `{url}`{reference}"),
            Fork::Registry { requirement } => format!("the release `{requirement}`"),
            Fork::Unknown => "a fork".to_string(),
        }
    }
}

/// `package.version` of the manifest in `dir`; a version inherited from a workspace
/// (`version.workspace = true`, as Burn's own crates have it) is the nearest enclosing
/// workspace's `workspace.package.version`.
fn package_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let doc = Document::parse(text.as_str()).ok()?;
    let version = doc.as_table().get("package")?.get("version")?;
    if let Some(version) = version.as_str() {
        return Some(version.to_string());
    }
    let inherited = version
        .as_table_like()
        .and_then(|t| t.get("workspace"))
        .and_then(Item::as_bool)
        .unwrap_or(false);
    if !inherited {
        return None;
    }
    dir.ancestors().skip(1).find_map(|above| {
        let text = std::fs::read_to_string(above.join("Cargo.toml")).ok()?;
        let doc = Document::parse(text.as_str()).ok()?;
        let workspace = doc.as_table().get("workspace")?;
        Some(
            workspace
                .get("package")?
                .get("version")?
                .as_str()?
                .to_string(),
        )
    })
}

/// The version of `krate` from git repository `url` in a lockfile: a package it locked, or a
/// patch it records as unused (`[[patch.unused]]`).
fn locked_git_version(lock: &str, krate: &str, url: &str) -> Option<String> {
    let doc = Document::parse(lock).ok()?;
    let root = doc.as_table();
    let packages = root.get("package").and_then(Item::as_array_of_tables);
    let unused = root
        .get("patch")
        .and_then(|p| p.get("unused"))
        .and_then(Item::as_array_of_tables);
    let from_repository = |source: &str| {
        source
            .strip_prefix("git+")
            .and_then(|s| s.strip_prefix(url.trim_end_matches('/')))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['?', '#', '/']))
    };
    let version = packages
        .into_iter()
        .chain(unused)
        .flat_map(|tables| tables.iter())
        .find(|p| {
            p.get("name").and_then(Item::as_str) == Some(krate)
                && p.get("source")
                    .and_then(Item::as_str)
                    .is_some_and(from_repository)
        })
        .and_then(|p| p.get("version")?.as_str().map(str::to_string));
    version
}

fn message(source: &str, krate: &str, fork: &Fork, version: Option<&str>) -> String {
    let target = locked_burn_version(BURN_0_22_LOCK).unwrap_or("0.22");
    let which = match (version, fork) {
        (Some(version), _) => format!("the fork is {krate} {version}"),
        (None, Fork::Path { .. }) => "the fork's manifest does not say its release".to_string(),
        (None, _) => "Cargo.lock does not say the fork's release".to_string(),
    };
    format!(
        "`[patch.{source}]` puts {} in place of Burn's `{krate}`, and {which}: once the port asks for Burn {target}, cargo ignores the patch (it only warns that it was not used) and builds {krate} {target} from crates.io without the fork's changes; port the fork to {krate} {target}, or drop the patch",
        fork.describe()
    )
}

/// `[patch]` entries that put a fork of Burn 0.21 in place of a Burn crate (`burn_patches`),
/// in the workspace root's manifest and in the cargo configuration at the root, each a
/// finding at its key. A configuration file with such entries joins the report as a file the
/// port does not change.
pub fn findings(report: &mut Report, workspace: &Workspace) {
    let lock = std::fs::read_to_string(workspace.root.join("Cargo.lock")).ok();
    let finding = |patch: BurnPatch| ManifestChange {
        rule: RuleId::CargoBurnPatch.into(),
        fix: None,
        key: patch.key,
        span: Some(patch.span),
        message: patch.message,
    };
    if let Some(root) = (report.manifests.iter_mut()).find(|m| m.path == workspace.root_manifest) {
        let base = workspace.root.as_path();
        let found = find(&root.original, base, lock.as_deref());
        root.changes.extend(found.into_iter().map(finding));
    }
    // Cargo resolves the paths of a configuration's `[patch]` from the directory that holds
    // `.cargo/`; `config` is the name before `config.toml`, still read.
    for name in [".cargo/config.toml", ".cargo/config"] {
        let path = workspace.root.join(name);
        let Ok(original) = std::fs::read_to_string(&path) else {
            continue;
        };
        let found = find(&original, &workspace.root, lock.as_deref());
        if found.is_empty() {
            continue;
        }
        report.manifests.push(ManifestOutcome {
            path,
            display: name.to_string(),
            migrated: original.clone(),
            original,
            changes: found.into_iter().map(finding).collect(),
            error: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str, base: &Path, lock: Option<&str>) -> Vec<(String, String)> {
        find(text, base, lock)
            .into_iter()
            .map(|p| (p.key.clone(), text[p.span].to_string()))
            .collect()
    }

    /// Every form of a Burn patch is found at its key (not at the dependency of the same
    /// name); other crates' patches, and a fork already on 0.22, are not.
    #[test]
    fn burn_patches_are_found_at_their_keys() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "patches/burn-core/Cargo.toml",
            "[package]\nname = \"burn-core\"\nversion = \"0.21.0\"\n",
        );
        write(
            "ported/burn-tensor/Cargo.toml",
            "[package]\nname = \"burn-tensor\"\nversion = \"0.22.1\"\n",
        );
        write(
            "vendor/burn/Cargo.toml",
            "[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.package]\nversion = \"0.21.0\"\n",
        );
        write(
            "vendor/burn/crates/burn-nn/Cargo.toml",
            "[package]\nname = \"burn-nn\"\nversion.workspace = true\n",
        );
        let manifest = r#"[package]
name = "app"

[dependencies]
burn-core = "0.21"
burn = "0.21"

[patch.crates-io]
burn-core = { path = "patches/burn-core" }
burn-tensor = { path = "ported/burn-tensor" }
my-nn = { path = "vendor/burn/crates/burn-nn", package = "burn-nn" }
serde = { path = "patches/serde" }
burn-lm = { path = "patches/burn-lm" }

[patch."https://github.com/tracel-ai/burn"]
burn = { git = "https://github.com/me/burn", branch = "fix" }
burn-autodiff = { git = "https://github.com/me/burn", tag = "v0.22.1" }

[patch.crates-io.burn-train]
path = "missing/burn-train"
"#;
        let lock = "version = 4\n\n[[package]]\nname = \"burn\"\nversion = \"0.21.0\"\nsource = \"git+https://github.com/me/burn?branch=fix#abc\"\n\n[[patch.unused]]\nname = \"burn-autodiff\"\nversion = \"0.22.1\"\nsource = \"git+https://github.com/me/burn?tag=v0.22.1#def\"\n";
        let found = keys(manifest, dir.path(), Some(lock));
        let at = |k: &str| (k.to_string(), k.to_string());
        assert_eq!(
            found,
            vec![at("burn-core"), at("my-nn"), at("burn"), at("burn-train")]
        );
        let spans: Vec<usize> = find(manifest, dir.path(), Some(lock))
            .iter()
            .map(|p| usize::from(p.span.start()))
            .collect();
        // The patch's `burn-core`, not the dependency's above it.
        assert_eq!(spans[0], manifest.find("burn-core = { path").unwrap());
        let messages: Vec<String> = find(manifest, dir.path(), Some(lock))
            .into_iter()
            .map(|p| p.message)
            .collect();
        assert!(
            messages[0].contains("the fork is burn-core 0.21.0"),
            "{}",
            messages[0]
        );
        assert!(messages[1].contains("burn-nn 0.21.0"), "{}", messages[1]);
        assert!(messages[2].contains("(branch `fix`)"), "{}", messages[2]);
        assert!(
            messages[3].contains("manifest does not say its release"),
            "{}",
            messages[3]
        );
        // Without the lockfile a git fork's release is unknown: reported.
        let found = keys(manifest, dir.path(), None);
        assert!(found.contains(&at("burn-autodiff")), "{found:?}");
    }
}
