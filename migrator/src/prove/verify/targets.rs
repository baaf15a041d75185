//! The packages and runnable targets of a workspace, as `cargo metadata` sees them.

use std::path::{Path, PathBuf};

/// The workspace at `dir` as `cargo metadata --no-deps` sees it; `None` when cargo cannot
/// read it (the build step then reports why).
fn workspace_metadata(dir: &Path) -> Option<cargo_metadata::Metadata> {
    cargo_metadata::MetadataCommand::new()
        .current_dir(dir)
        .no_deps()
        .exec()
        .ok()
}

/// (package name, package directory) for every package of the workspace at `dir`.
pub fn packages(dir: &Path) -> Vec<(String, PathBuf)> {
    let Some(metadata) = workspace_metadata(dir) else {
        return Vec::new();
    };
    metadata
        .workspace_packages()
        .iter()
        .filter_map(|p| {
            let dir = p.manifest_path.parent()?.as_std_path().to_path_buf();
            Some((p.name.to_string(), dir))
        })
        .collect()
}

/// A binary or example target of the workspace.
#[derive(Debug, Clone)]
pub struct Runnable {
    pub package: String,
    pub name: String,
    pub example: bool,
    /// The file with its `main`.
    pub main: PathBuf,
}

/// Every binary and example target of the workspace at `dir`.
pub fn runnables(dir: &Path) -> Vec<Runnable> {
    let Some(metadata) = workspace_metadata(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for package in metadata.workspace_packages() {
        for target in &package.targets {
            let example = target.kind.contains(&cargo_metadata::TargetKind::Example);
            if example || target.kind.contains(&cargo_metadata::TargetKind::Bin) {
                out.push(Runnable {
                    package: package.name.to_string(),
                    name: target.name.clone(),
                    example,
                    main: target.src_path.as_std_path().to_path_buf(),
                });
            }
        }
    }
    out.sort_by(|a, b| (a.example, &a.package, &a.name).cmp(&(b.example, &b.package, &b.name)));
    out
}

/// Every binary target of the workspace at `dir`.
pub fn binaries(dir: &Path) -> Vec<Runnable> {
    runnables(dir).into_iter().filter(|r| !r.example).collect()
}
