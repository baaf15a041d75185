//! What one run covers: the paths of the command line, grouped into projects (one per Cargo
//! workspace), and within each project the files and folders a run is narrowed to.
//!
//! A project is always read and ported whole, so that what one file says of another (which
//! items take a backend parameter, what a backend alias expands to) holds; narrowing then
//! keeps the findings, the diff and the writes of the files under the paths given, as
//! `ruff check FILE` does.

use std::path::{Component, Path, PathBuf};

use crate::error::Error;
use crate::migrate::discover::{self, Metadata};
use crate::migrate::Report;
use crate::util::files::Canonical;

/// One workspace named on the command line, with what of it the run covers.
pub struct Project {
    /// The first path given inside this workspace, as given: its metadata is read again
    /// from it when an interrupted `--apply` moved manifests.
    pub path: PathBuf,
    pub metadata: Metadata,
    pub scope: Scope,
}

/// What of a workspace a run covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// All of it: a path given was its root, or its root's `Cargo.toml`.
    Workspace,
    /// The files under these canonical paths (files or folders; a package's `Cargo.toml`
    /// stands for its folder).
    Paths(Vec<PathBuf>),
}

/// The projects the command-line paths name, in the order first named. Every path is
/// resolved before any project runs, so that a path that does not exist, or that lies in no
/// Cargo project, stops the run before anything is printed or written. Paths inside one
/// workspace make one project, narrowed to all of them.
pub fn projects(paths: &[PathBuf]) -> Result<Vec<Project>, Error> {
    // Several projects' folders (or manifests): their metadata is read at once, cargo taking a
    // core each; read in turn, 20 corpus projects waited 0.5 s on it. Only paths that name a
    // project's own folder or manifest, each manifest once: files and folders inside a
    // project are read below as before, once per workspace. What is read here and not needed
    // below (a folder of a workspace read already, a path after one that fails) is dropped.
    let mut early: Vec<Option<Result<Metadata, Error>>> = (0..paths.len()).map(|_| None).collect();
    if paths.len() > 1 {
        use rayon::prelude::*;
        let mut seen = std::collections::HashSet::new();
        let names_project = |given: &PathBuf| {
            let path = given.canonicalize().ok()?;
            let manifest = discover::find_manifest(&path).ok()?;
            (manifest == path || manifest.parent() == Some(path.as_path())).then_some(manifest)
        };
        let read: Vec<usize> = (paths.iter().enumerate())
            .filter(|(_, given)| names_project(given).is_some_and(|m| seen.insert(m)))
            .map(|(i, _)| i)
            .collect();
        let metadata: Vec<(usize, Result<Metadata, Error>)> = read
            .into_par_iter()
            .map(|i| (i, discover::read_metadata(&paths[i])))
            .collect();
        for (i, metadata) in metadata {
            early[i] = Some(metadata);
        }
    }
    let mut projects: Vec<Project> = Vec::new();
    for (given, early) in paths.iter().zip(early) {
        let path = given.canonicalize().map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => Error::PathNotFound {
                path: given.clone(),
                looked_in: (given.is_relative())
                    .then(|| std::env::current_dir().ok())
                    .flatten(),
            },
            _ => Error::Io {
                path: given.clone(),
                source,
            },
        })?;
        let manifest = discover::find_manifest(&path)?;
        // A package of a workspace read already needs no second `cargo metadata`.
        let known = (projects.iter()).position(|p| p.metadata.has_package(&manifest));
        let index = match known {
            Some(index) => index,
            None => {
                // From the path as given, not from `manifest`: a manifest that links outside
                // the project is read where the link is, and found outside it when written.
                let metadata = match early {
                    Some(read) => read?,
                    None => discover::read_metadata(given)?,
                };
                let root = metadata.root();
                match projects.iter().position(|p| p.metadata.root() == root) {
                    Some(index) => index,
                    None => {
                        projects.push(Project {
                            path: given.clone(),
                            metadata,
                            scope: Scope::Paths(Vec::new()),
                        });
                        projects.len() - 1
                    }
                }
            }
        };
        let project = &mut projects[index];
        let scope = Scope::of(&path, &project.metadata.root());
        project.scope = std::mem::replace(&mut project.scope, Scope::Workspace).with(scope);
    }
    Ok(projects)
}

impl Scope {
    /// What a canonical `path` inside the workspace at `root` covers.
    fn of(path: &Path, root: &Path) -> Scope {
        let path = match path.file_name() {
            Some(name) if name == "Cargo.toml" => path.parent().unwrap_or(path),
            _ => path,
        };
        if root.starts_with(path) {
            Scope::Workspace
        } else {
            Scope::Paths(vec![path.to_path_buf()])
        }
    }

    /// Both scopes together.
    fn with(self, other: Scope) -> Scope {
        match (self, other) {
            (Scope::Paths(mut paths), Scope::Paths(more)) => {
                paths.extend(more);
                Scope::Paths(paths)
            }
            _ => Scope::Workspace,
        }
    }

    /// Keeps the files and manifests of `report` that this scope covers, and notes what it
    /// left out that the port would change (the manifests, whose port the sources need) and
    /// each path that covers nothing burn-migrate reads.
    pub fn narrow(&self, report: &mut Report) {
        let Scope::Paths(paths) = self else {
            return;
        };
        let canonical = Canonical::default();
        let covered_by = |file: &Path, path: &Path| {
            // A file reached through `..` (`#[path = "../x.rs"]`) is where it resolves to.
            let plain = !file.components().any(|c| c == Component::ParentDir);
            (plain && file.starts_with(path))
                || canonical.of(file).is_ok_and(|real| real.starts_with(path))
        };
        let covered = |file: &Path| paths.iter().any(|path| covered_by(file, path));
        let used: Vec<&PathBuf> = (paths.iter())
            .filter(|path| {
                let files = report.files.iter().map(|f| &f.path);
                let manifests = report.manifests.iter().map(|m| &m.path);
                files.chain(manifests).any(|file| covered_by(file, path))
            })
            .collect();
        report.files.retain(|f| covered(&f.path));
        let (kept, left_out): (Vec<_>, Vec<_>) =
            (std::mem::take(&mut report.manifests).into_iter()).partition(|m| covered(&m.path));
        report.manifests = kept;
        let changed: Vec<&str> = (left_out.iter())
            .filter(|m| m.migrated != m.original || !m.changes.is_empty())
            .map(|m| m.display.as_str())
            .collect();
        if !changed.is_empty() {
            let (are, them, they, paths) = match changed.len() {
                1 => ("is", "it", "it is", "its path"),
                _ => ("are", "them", "they are", "their paths"),
            };
            report.notes.push(format!(
                "{} {are} outside the paths given, so this run neither lists nor ports {them}, nor Cargo.lock, which moves with the manifests; the ported sources build against Burn 0.22 once {they} ported too: give {paths}, or the project's folder",
                changed.join(", "),
            ));
        }
        for path in paths.iter().filter(|path| !used.contains(path)) {
            report.notes.push(format!(
                "{}: no source file of a package that uses Burn is there (burn-migrate follows `mod` declarations from each target of such a package); nothing to check there",
                path.display()
            ));
        }
    }
}
