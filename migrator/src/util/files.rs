//! Walking and copying project trees. Build outputs (`target`) and version control (`.git`)
//! are never part of a project's sources.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::Error;

fn is_skipped_dir(name: &std::ffi::OsStr) -> bool {
    name == "target" || name == ".git"
}

/// The Rust files under `dir`, leaving out build outputs, and packages nested in it unless
/// `into_nested_packages`.
pub fn rust_files(dir: &Path, into_nested_packages: bool) -> Vec<PathBuf> {
    files_under(dir, into_nested_packages, &|path| {
        path.extension().is_some_and(|e| e == "rs")
    })
}

/// The files under `dir` that `keep` accepts, sorted; build outputs and version control are
/// left out, and so are packages nested in `dir` unless `into_nested_packages`.
pub fn files_under(
    dir: &Path,
    into_nested_packages: bool,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            let skip_package = !into_nested_packages && path.join("Cargo.toml").is_file();
            if !skip_package && !is_skipped_dir(&entry.file_name()) {
                out.extend(files_under(&path, into_nested_packages, keep));
            }
        } else if keep(&path) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Copies a project, leaving out build outputs and version control.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let name = entry.file_name();
        if is_skipped_dir(&name) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name))?;
        } else {
            std::fs::copy(&path, to.join(&name)).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// `Path::canonicalize` for the many files of a few directories: each directory is resolved
/// once, and a file that is no symlink itself resolves to its directory's resolved path and
/// its name (one `lstat` instead of a `readlink` per component of the path).
#[derive(Debug, Default)]
pub struct Canonical {
    dirs: Mutex<HashMap<PathBuf, PathBuf>>,
}

impl Canonical {
    pub fn of(&self, path: &Path) -> std::io::Result<PathBuf> {
        let (Some(dir), Some(Component::Normal(name))) =
            (path.parent(), path.components().next_back())
        else {
            return path.canonicalize();
        };
        let not_a_link = std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_symlink());
        if dir.as_os_str().is_empty() || !not_a_link {
            return path.canonicalize();
        }
        let known = self.dirs().get(dir).cloned();
        let dir_resolved = match known {
            Some(resolved) => resolved,
            None => {
                let resolved = dir.canonicalize()?;
                self.dirs().insert(dir.to_path_buf(), resolved.clone());
                resolved
            }
        };
        Ok(dir_resolved.join(name))
    }

    fn dirs(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, PathBuf>> {
        // A panic while the map was locked leaves entries that are each whole.
        self.dirs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn canonical_paths_are_what_canonicalize_gives() {
        let dir = std::env::temp_dir().join(format!("bm-canonical-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real/src")).unwrap();
        std::fs::write(dir.join("real/src/lib.rs"), "").unwrap();
        std::fs::write(dir.join("real/other.rs"), "").unwrap();
        std::os::unix::fs::symlink(dir.join("real"), dir.join("linked")).unwrap();
        std::os::unix::fs::symlink(dir.join("real/other.rs"), dir.join("real/src/link.rs"))
            .unwrap();
        let canonical = Canonical::default();
        for path in [
            "real/src/lib.rs",
            "linked/src/lib.rs",
            "linked/src/link.rs",
            "real/src/../other.rs",
            "real/src/./lib.rs",
            "real/src",
            "linked",
            "real/src/missing.rs",
            "missing/lib.rs",
        ] {
            let path = dir.join(path);
            // Twice: from the cache the second time.
            for _ in 0..2 {
                let ours = canonical.of(&path).map_err(|e| e.kind());
                assert_eq!(
                    ours,
                    path.canonicalize().map_err(|e| e.kind()),
                    "{}",
                    path.display()
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
