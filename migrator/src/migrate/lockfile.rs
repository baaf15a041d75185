//! Keeps the user's `Cargo.lock`: after the manifests move to Burn 0.22, only the Burn crates
//! (and what they need) are updated, with `cargo update -p burn`, never a fresh resolution that
//! would drag unrelated crates to new versions. What else had to move is reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::error::Error;

/// What `cargo update -p burn` changed in the lockfile.
#[derive(Debug, Default)]
pub struct LockUpdate {
    /// Burn crates, as `name old -> new`.
    pub burn: Vec<String>,
    /// The project's own direct dependencies whose version changed.
    pub others: Vec<String>,
    /// How many of Burn's own dependencies changed version.
    pub transitive: usize,
}

fn versions(lock: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let Ok(doc) = lock.parse::<toml_edit::DocumentMut>() else {
        return out;
    };
    let Some(packages) = doc.get("package").and_then(|p| p.as_array_of_tables()) else {
        return out;
    };
    for package in packages.iter() {
        let name = package.get("name").and_then(|v| v.as_str());
        let version = package.get("version").and_then(|v| v.as_str());
        if let (Some(name), Some(version)) = (name, version) {
            out.entry(name.to_string())
                .or_default()
                .insert(version.to_string());
        }
    }
    out
}

/// Runs `cargo update -p burn` in the workspace at `root` when it has a lockfile. `Ok(None)`:
/// no lockfile to keep.
pub fn update(root: &Path, direct: &BTreeSet<String>) -> Result<Option<LockUpdate>, Error> {
    let lock_path = root.join("Cargo.lock");
    let Ok(before) = std::fs::read_to_string(&lock_path) else {
        return Ok(None);
    };
    let program = crate::util::cargo::program();
    let output = Command::new(&program)
        .args(["update", "--quiet", "-p", "burn"])
        .current_dir(root)
        .output()
        .map_err(|source| Error::Spawn {
            program,
            dir: root.to_path_buf(),
            source,
        })?;
    if !output.status.success() {
        return Err(Error::LockUpdate {
            dir: root.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    let after = std::fs::read_to_string(&lock_path).map_err(|source| Error::Io {
        path: lock_path.clone(),
        source,
    })?;
    let (old, new) = (versions(&before), versions(&after));
    let mut update = LockUpdate::default();
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        let (was, now) = (old.get(name), new.get(name));
        // Crates Burn 0.22 adds or stops using are its business; a crate the project already
        // had that changed version is the user's (it may break their build).
        let moved = matches!((was, now), (Some(a), Some(b)) if a != b);
        let is_burn = name.as_str() == "burn" || name.starts_with("burn-");
        if !(moved || is_burn && was != now) {
            continue;
        }
        let show = |v: Option<&BTreeSet<String>>| {
            v.map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
                .unwrap_or_else(|| "-".to_string())
        };
        let line = format!("{name} {} -> {}", show(was), show(now));
        if is_burn {
            update.burn.push(line);
        } else if direct.contains(name.as_str()) {
            update.others.push(line);
        } else {
            update.transitive += 1;
        }
    }
    Ok(Some(update))
}
