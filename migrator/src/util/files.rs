//! Walking and copying project trees. Build outputs (`target`) and version control (`.git`)
//! are never part of a project's sources.

use std::path::{Path, PathBuf};

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
