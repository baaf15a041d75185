//! The copy stage: the project twice under the cache, the original as it is and the port
//! (migrated here, or the one the user gave), each with a lockfile.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::migrate;
use crate::prove::verify::types::VerifyOptions;
use crate::rules::RuleSet;

/// Copies the project twice under the cache (`<purpose>/<name>/{before,after}`), migrates the
/// second copy (or takes `options.migrated`), and gives both the framework's lockfile when
/// they have none. Returns (original copy, port).
pub fn prepare(
    project: &Path,
    purpose: &str,
    rules: &RuleSet,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<(PathBuf, PathBuf), Error> {
    let workspace = crate::migrate::discover::discover(project)?;
    let root = workspace.root;
    // The root package's name, else the folder's, and a hash of the path: two projects with
    // one name (`before/` folders, say) never share scratch space.
    let label = workspace
        .packages
        .iter()
        .find(|p| p.manifest == workspace.root_manifest)
        .map(|p| p.name.clone())
        .or_else(|| root.file_name().map(|n| n.to_string_lossy().to_string()))
        .unwrap_or_else(|| "project".into());
    let name = format!("{label}-{:08x}", path_hash(&root));
    let scratch = options.cache.join(purpose).join(&name);
    let old = scratch.join("before");
    let new = scratch.join("after");
    for dir in [&old, &new] {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|source| Error::Io {
                path: dir.clone(),
                source,
            })?;
        }
    }
    crate::util::files::copy_tree(&root, &old)?;
    match &options.migrated {
        Some(port) => crate::util::files::copy_tree(port, &new)?,
        None => {
            crate::util::files::copy_tree(&root, &new)?;
            progress("migrating the copy");
            let report = migrate::run(&new, rules)?;
            // Verify shows what the port does; files left unchanged show as build errors.
            migrate::write::port(&report, None, true)?;
            if new.join("Cargo.lock").is_file() {
                // Keep the copy's lockfile, moving only Burn (what `--apply` does).
                if let Err(error) = crate::migrate::lockfile::update(&new, &report) {
                    progress(&format!("Cargo.lock of the port not updated: {error}"));
                }
            }
        }
    }
    // Projects without a lockfile get the framework's: both sides then resolve to the exact
    // Burn releases (and dependencies) the rules were tested with.
    for (dir, lock) in [
        (&old, crate::prove::framework::BURN_0_21.lock),
        (&new, crate::prove::framework::BURN_0_22.lock),
    ] {
        let path = dir.join("Cargo.lock");
        if !path.exists() {
            std::fs::write(&path, lock).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        }
    }
    Ok((old, new))
}

fn path_hash(path: &Path) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.canonicalize()
        .unwrap_or_else(|_| path.to_path_buf())
        .hash(&mut hasher);
    hasher.finish() as u32
}
