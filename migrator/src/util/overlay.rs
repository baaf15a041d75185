//! A scratch view of the file system in which a few files have other contents: cargo can
//! resolve a port's manifests there before anything of the project is written.
//!
//! The view lives in a temporary directory `S` and mirrors absolute paths: the real `/a/b`
//! is `S/a/b`. Every directory on the way to a replaced file is a real directory in `S`;
//! each of its other entries is a symlink to the real entry; the replaced files are real
//! files. So relative paths between the project, its path dependencies outside it, a
//! parent workspace and the `.cargo/config.toml` files of its ancestors resolve as they do
//! in the real tree, and a file cargo writes beside a replaced one (the `Cargo.lock` at the
//! workspace root, itself replaced or created there) lands in `S`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::error::Error;

pub struct Overlay {
    dir: tempfile::TempDir,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Overlay {
    /// A view where each absolute, canonical path of `files` has the given text (created
    /// where it does not exist) and everything else is the real file system.
    pub fn new(files: &BTreeMap<PathBuf, String>) -> Result<Self, Error> {
        let dir = tempfile::Builder::new()
            .prefix("burn-migrate-overlay.")
            .tempdir()
            .map_err(io(&std::env::temp_dir()))?;
        let overlay = Overlay { dir };
        let mut real_dirs: BTreeSet<PathBuf> = BTreeSet::new();
        for path in files.keys() {
            if !path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
                return Err(Error::Internal(format!(
                    "overlay path {} is not absolute and normal",
                    path.display()
                )));
            }
            real_dirs.extend(path.ancestors().skip(1).map(Path::to_path_buf));
        }
        // Parents sort before their children.
        for real in &real_dirs {
            let mirrored = overlay.path(real);
            std::fs::create_dir_all(&mirrored).map_err(io(&mirrored))?;
            // An ancestor we may not list (another user's home) holds only the way down.
            let Ok(entries) = std::fs::read_dir(real) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if real_dirs.contains(&path) || files.contains_key(&path) {
                    continue;
                }
                let link = overlay.path(&path);
                symlink(&path, &link).map_err(io(&link))?;
            }
        }
        for (path, text) in files {
            let mirrored = overlay.path(path);
            std::fs::write(&mirrored, text).map_err(io(&mirrored))?;
        }
        Ok(overlay)
    }

    /// The directory the view mirrors `/` in.
    pub fn base(&self) -> &Path {
        self.dir.path()
    }

    /// Where the real, absolute `path` is in the view.
    pub fn path(&self, path: &Path) -> PathBuf {
        let relative: PathBuf = path
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        self.dir.path().join(relative)
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    if target.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_view_replaces_the_given_files_and_links_the_rest_and_goes_without_touching_them() {
        let real = tempfile::tempdir().unwrap();
        let root = real.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ws/member/src")).unwrap();
        std::fs::create_dir_all(root.join("dep")).unwrap();
        std::fs::write(root.join("ws/Cargo.toml"), "old root").unwrap();
        std::fs::write(root.join("ws/member/Cargo.toml"), "old member").unwrap();
        std::fs::write(root.join("ws/member/src/lib.rs"), "code").unwrap();
        std::fs::write(root.join("dep/Cargo.toml"), "dep").unwrap();
        let files = BTreeMap::from([
            (root.join("ws/Cargo.toml"), "new root".to_string()),
            (root.join("ws/Cargo.lock"), "new lock".to_string()),
        ]);
        let overlay = Overlay::new(&files).unwrap();
        let read = |p: &str| std::fs::read_to_string(overlay.path(&root.join(p))).unwrap();
        assert_eq!(read("ws/Cargo.toml"), "new root");
        assert_eq!(read("ws/Cargo.lock"), "new lock");
        assert_eq!(read("ws/member/Cargo.toml"), "old member");
        assert_eq!(read("ws/member/src/lib.rs"), "code");
        // Relative paths out of the project resolve as in the real tree.
        let up = overlay.path(&root.join("ws")).join("../dep/Cargo.toml");
        assert_eq!(std::fs::read_to_string(up).unwrap(), "dep");
        assert!(overlay.path(&root.join("ws/member")).is_symlink());
        // Written in the view, a linked file is the real one; a replaced one is not.
        std::fs::write(overlay.path(&root.join("ws/Cargo.toml")), "changed").unwrap();
        let scratch = overlay.dir.path().to_path_buf();
        drop(overlay);
        assert!(!scratch.exists());
        let real_read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        assert_eq!(real_read("ws/Cargo.toml"), "old root");
        assert_eq!(real_read("ws/member/src/lib.rs"), "code");
        assert_eq!(real_read("dep/Cargo.toml"), "dep");
        assert!(!root.join("ws/Cargo.lock").exists());
    }
}
