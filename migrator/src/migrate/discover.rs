//! The discover stage: which packages of a workspace use Burn, and which source files belong
//! to their targets (found by following `mod` declarations and `include!` calls from each
//! target root, so code behind `#[cfg]` and features is included: it is text, not
//! configuration).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cargo_metadata::MetadataCommand;
use rayon::prelude::*;

use crate::error::Error;
use crate::migrate::crate_names::DependencyNames;
use crate::migrate::includes::{self, Position, Target, Unfollowed};
use crate::migrate::source::{edition_of, module_declarations, SourceFile};
use crate::rules::framework::is_burn_crate_name;
use crate::util::files::Canonical;

#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub manifest: PathBuf,
    /// Version requirement of the `burn` dependency, when the package has one.
    pub burn_requirement: Option<String>,
    pub uses_burn: bool,
    /// Names of the package's direct dependencies.
    pub dependencies: Vec<String>,
    /// Direct dependencies on a local path, as (dependency key, directory).
    pub path_dependencies: Vec<(String, PathBuf)>,
    /// Dependencies under a key other than their package's name (cargo metadata's
    /// `rename`, from any table: target-specific, dev, inherited from the workspace), as
    /// (key, package): `nn = { package = "burn" }` is `("nn", "burn")`.
    pub renamed_dependencies: Vec<(String, String)>,
    /// How the package's code names Burn's crates, which each of its files carries.
    pub dependency_names: Arc<DependencyNames>,
}

#[derive(Debug)]
pub struct Workspace {
    pub root: PathBuf,
    /// The manifest of the workspace root (may be a virtual manifest).
    pub root_manifest: PathBuf,
    pub packages: Vec<Package>,
    pub files: Vec<SourceFile>,
    /// Module declarations whose file could not be found, as (declaring file, module name).
    pub missing_modules: Vec<(String, String)>,
    /// `include!` calls whose file is not ported (missing, outside the project, an expression
    /// burn-migrate cannot port), as (path of the file with the call, why): findings at the
    /// call. Calls whose path only the build knows are the rewrite's findings
    /// (`includes::computed_path_findings`): they need no disk.
    pub unfollowed_includes: Vec<(PathBuf, Unfollowed)>,
    /// Set when the workspace's pinned toolchain could not run cargo and another was used.
    pub toolchain_note: Option<String>,
    /// The packages (indices into `packages`) the run ports and reports (`-p`); `None`: all.
    pub selected: Option<Vec<usize>>,
}

impl Workspace {
    /// Whether the run ports and reports the package at `index` of `packages`.
    pub fn is_selected(&self, index: usize) -> bool {
        self.selected.as_ref().is_none_or(|s| s.contains(&index))
    }

    /// Whether any Burn-using package still asks for Burn 0.21 or older.
    pub fn targets_old_burn(&self) -> bool {
        self.packages
            .iter()
            .filter_map(|p| p.burn_requirement.as_deref())
            .any(|req| !requirement_is_migrated(req))
    }

    /// The dependencies of the package whose manifest is `manifest` that cargo metadata found
    /// under a key other than their package's name (`manifest::FeatureRules::renamed`).
    pub fn renamed_dependencies(&self, manifest: &Path) -> Vec<(String, String)> {
        (self.packages.iter())
            .find(|p| p.manifest == manifest)
            .map(|p| p.renamed_dependencies.clone())
            .unwrap_or_default()
    }
}

/// Whether a `burn` version requirement already points at 0.22 or later.
pub fn requirement_is_migrated(req: &str) -> bool {
    let trimmed = req.trim_start_matches(['^', '=', '~', ' ']);
    let mut parts = trimmed.split('.');
    let major = parts.next().and_then(|p| p.parse::<u64>().ok());
    let minor = parts.next().and_then(|p| {
        p.trim_end_matches(|c: char| !c.is_ascii_digit())
            .parse::<u64>()
            .ok()
    });
    matches!((major, minor), (Some(0), Some(m)) if m >= 22) || matches!(major, Some(m) if m >= 1)
}

/// Finds the manifest for `path`: the file itself, `path/Cargo.toml`, or the nearest one above.
pub fn find_manifest(path: &Path) -> Result<PathBuf, Error> {
    if path.is_file() && path.file_name().is_some_and(|n| n == "Cargo.toml") {
        return Ok(path.to_path_buf());
    }
    let start = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| Error::NoManifest {
            path: path.to_path_buf(),
        })
}

/// What `cargo metadata --no-deps` says of the workspace at a path: read first, so that a
/// run can lock the workspace root and finish an interrupted `--apply` there before any
/// source file is read.
pub struct Metadata {
    metadata: cargo_metadata::Metadata,
    /// Set when the workspace's pinned toolchain could not run cargo and another was used.
    toolchain_note: Option<String>,
    /// The manifest the run was given (or found above the path it was given): the project's,
    /// whose `[package.metadata.burn-migrate]` configures the run.
    manifest: PathBuf,
    /// The packages the run ports and reports (`-p`), by name; `None`: all of them.
    selected: Option<Vec<String>>,
}

impl Metadata {
    /// The workspace root.
    pub fn root(&self) -> PathBuf {
        self.metadata.workspace_root.clone().into()
    }

    /// The manifest the run was given, or found above the path it was given.
    pub fn manifest(&self) -> &Path {
        &self.manifest
    }

    /// `[workspace.metadata]` of the workspace root's manifest (`Null` when it has none).
    pub fn workspace_metadata(&self) -> &serde_json::Value {
        &self.metadata.workspace_metadata
    }

    /// The workspace's packages, as (manifest, `[package.metadata]`).
    pub fn package_metadata(&self) -> impl Iterator<Item = (&Path, &serde_json::Value)> {
        (self.metadata.workspace_packages().into_iter())
            .map(|p| (p.manifest_path.as_std_path(), &p.metadata))
    }

    /// Ports and reports only the packages `included` names (`-p NAME`, as cargo takes it:
    /// `NAME` or `NAME@VERSION`), or, with none named, all but those `excluded` names
    /// (`--workspace --exclude NAME`); the whole workspace is still read, so that what one
    /// package knows of another holds. A name no package of the workspace has is an error
    /// that lists them.
    pub fn select_packages(
        &mut self,
        included: &[String],
        excluded: &[String],
    ) -> Result<(), Error> {
        if included.is_empty() && excluded.is_empty() {
            return Ok(());
        }
        let packages = self.metadata.workspace_packages();
        let named = |specs: &[String], option: &str| -> Result<Vec<String>, Error> {
            let mut found = Vec::new();
            for spec in specs {
                let (name, version) = match spec.split_once('@') {
                    Some((name, version)) => (name, Some(version)),
                    None => (spec.as_str(), None),
                };
                let package = packages.iter().find(|p| {
                    p.name.as_str() == name
                        && version
                            .is_none_or(|v| p.version.to_string() == v.trim_start_matches('='))
                });
                let Some(package) = package else {
                    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
                    return Err(Error::Usage(format!(
                        "{option} {spec}: the workspace at {} has no such package{}; its packages: {}",
                        self.metadata.workspace_root,
                        crate::util::suggest::did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    )));
                };
                found.push(package.name.to_string());
            }
            Ok(found)
        };
        let selected = match included {
            [] => {
                let excluded = named(excluded, "--exclude")?;
                (packages.iter())
                    .map(|p| p.name.to_string())
                    .filter(|name| !excluded.contains(name))
                    .collect()
            }
            _ => named(included, "-p")?,
        };
        self.selected = Some(selected);
        Ok(())
    }

    /// Whether the package of `manifest` (a canonical path) is one of this workspace's.
    /// How many targets the workspace's packages have: a guess, before any file is read, at
    /// how much work the workspace is (Burn's repository has hundreds, a model crate a few).
    pub fn target_count(&self) -> usize {
        (self.metadata.workspace_packages().iter())
            .map(|p| p.targets.len())
            .sum()
    }

    pub fn has_package(&self, manifest: &Path) -> bool {
        (self.metadata.packages.iter()).any(|p| p.manifest_path.as_std_path() == manifest)
    }
}

pub fn discover(path: &Path) -> Result<Workspace, Error> {
    from_metadata(read_metadata(path)?)
}

pub fn read_metadata(path: &Path) -> Result<Metadata, Error> {
    let path = path.canonicalize().map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let manifest = find_manifest(&path)?;
    // `--no-deps`: nothing is resolved or downloaded, so discovery is fast and works offline.
    let read = |toolchain: Option<&str>| {
        let mut command = MetadataCommand::new();
        command.manifest_path(&manifest).no_deps();
        // rustup picks the toolchain from the directory cargo runs in: the project's, as
        // for its builds.
        if let Some(dir) = manifest.parent() {
            command.current_dir(dir);
        }
        if let Some(toolchain) = toolchain {
            command.env("RUSTUP_TOOLCHAIN", toolchain);
        }
        command.exec()
    };
    let mut toolchain_note = None;
    let metadata = match read(None) {
        Ok(metadata) => metadata,
        Err(first) => {
            // A `rust-toolchain` pin to a Rust that is not installed (often one below what
            // Burn 0.22 needs, which the port raises) stops rustup's cargo before it reads
            // anything: read the workspace with the toolchain we run under instead.
            let pinned = manifest.parent().and_then(crate::util::toolchain::pin_file);
            let fallback = pinned
                .as_ref()
                .and_then(|_| crate::util::toolchain::running());
            let retried = fallback.as_deref().and_then(|t| read(Some(t)).ok());
            match (retried, pinned, fallback) {
                (Some(metadata), Some(pin), Some(toolchain)) => {
                    toolchain_note = Some(format!(
                        "{} pins a toolchain cargo could not run ({}); read the workspace with {toolchain}, the toolchain burn-migrate runs under",
                        pin.display(),
                        first.to_string().lines().next().unwrap_or_default().trim()
                    ));
                    metadata
                }
                _ => {
                    return Err(Error::Metadata {
                        manifest: manifest.clone(),
                        message: first.to_string(),
                    })
                }
            }
        }
    };
    Ok(Metadata {
        metadata,
        toolchain_note,
        manifest,
        selected: None,
    })
}

/// The workspace `metadata` describes, with every source file of its Burn-using packages.
pub fn from_metadata(read: Metadata) -> Result<Workspace, Error> {
    let Metadata {
        metadata,
        toolchain_note,
        selected,
        ..
    } = read;
    let root: PathBuf = metadata.workspace_root.clone().into();

    let mut workspace = Workspace {
        root_manifest: root.join("Cargo.toml"),
        root: root.clone(),
        packages: Vec::new(),
        files: Vec::new(),
        missing_modules: Vec::new(),
        unfollowed_includes: Vec::new(),
        toolchain_note,
        selected: None,
    };
    let mut targets: Vec<Visit> = Vec::new();
    let mut packages: Vec<_> = metadata.workspace_packages();
    packages.sort_by(|a, b| a.manifest_path.cmp(&b.manifest_path));
    for package in &packages {
        let burn_requirement = package
            .dependencies
            .iter()
            .find(|d| d.name == "burn")
            .map(|d| d.req.to_string());
        let uses_burn = package
            .dependencies
            .iter()
            .any(|d| is_burn_crate_name(&d.name));
        workspace.packages.push(Package {
            name: package.name.to_string(),
            manifest: package.manifest_path.clone().into(),
            burn_requirement,
            uses_burn,
            dependencies: package
                .dependencies
                .iter()
                .map(|d| d.name.to_string())
                .collect(),
            path_dependencies: package
                .dependencies
                .iter()
                .filter_map(|d| {
                    let key = d.rename.as_deref().unwrap_or(&d.name).to_string();
                    Some((key, d.path.clone()?.into()))
                })
                .collect(),
            renamed_dependencies: renamed_dependencies(&package.dependencies),
            dependency_names: Arc::new(DependencyNames::new(
                (package.dependencies.iter())
                    .map(|d| (d.rename.as_deref().unwrap_or(&d.name), d.name.as_str())),
            )),
        });
    }
    // A package that depends on a workspace package using Burn, without Burn itself, names
    // Burn's items through it (`use burn_lm_inference::*;` of a crate whose `pub type
    // InferenceBackend = ..` the port deletes): its sources are read too.
    let reads_burn = packages_reading_burn(&workspace.packages);
    for (index, package) in packages.iter().enumerate() {
        if !reads_burn[index] {
            continue;
        }
        let edition = edition_of(package.edition.as_str());
        for target in &package.targets {
            // A target root resolves `mod foo;` next to itself, whatever its file name.
            targets.push(Visit {
                file: target.src_path.clone().into(),
                owns_directory: true,
                package: index,
                edition,
                scope: None,
            });
        }
    }
    workspace.selected = selected.map(|names| {
        (workspace.packages.iter().enumerate())
            .filter(|(_, p)| names.contains(&p.name))
            .map(|(i, _)| i)
            .collect()
    });
    let canonical = Canonical::default();
    let reader = Reader {
        inside: root.canonicalize().unwrap_or_else(|_| root.clone()),
        root,
        canonical,
        names: (workspace.packages.iter())
            .map(|p| p.dependency_names.clone())
            .collect(),
    };
    let mut read = read_module_trees(&reader, &targets);
    let mut seen = BTreeSet::new();
    for target in &targets {
        assemble(&mut workspace, target, &mut read, &mut seen, &reader)?;
    }
    for file in &mut workspace.files {
        if let Some(package) = workspace.packages.get(file.package) {
            file.dependency_names = package.dependency_names.clone();
        }
    }
    Ok(workspace)
}

/// What reading module files needs to know of the workspace.
struct Reader {
    /// The workspace root, as cargo gave it: displayed paths are relative to it.
    root: PathBuf,
    /// The workspace root with links resolved: an included file must be inside it.
    inside: PathBuf,
    canonical: Canonical,
    /// How each package (by index) names Burn's crates.
    names: Vec<Arc<DependencyNames>>,
}

/// Which of `packages` (the workspace's) use Burn, directly or through a workspace package
/// they depend on that does.
fn packages_reading_burn(packages: &[Package]) -> Vec<bool> {
    let mut reads: Vec<bool> = packages.iter().map(|p| p.uses_burn).collect();
    loop {
        let mut changed = false;
        for (index, package) in packages.iter().enumerate() {
            if reads[index] {
                continue;
            }
            let through = (package.dependencies.iter()).any(|dependency| {
                (packages.iter().zip(&reads))
                    .any(|(other, reads)| *reads && other.name == *dependency)
            });
            if through {
                reads[index] = true;
                changed = true;
            }
        }
        if !changed {
            return reads;
        }
    }
}

/// The dependencies under a key other than their package's name, as (key, package), each
/// once (a package may name one crate in several tables).
fn renamed_dependencies(dependencies: &[cargo_metadata::Dependency]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = dependencies
        .iter()
        .filter_map(|d| Some((d.rename.clone()?, d.name.to_string())))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A module file as reached from its parent (or as a target root, or through `include!`): the
/// same file reached in another way resolves its own `mod` declarations differently.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Visit {
    file: PathBuf,
    /// `mod foo;` resolves next to the file (a target root, a `mod.rs`, an included file), not
    /// in a directory named after it.
    owns_directory: bool,
    package: usize,
    edition: ra_ap_syntax::Edition,
    /// For an included file, whose names it shares (`SourceFile::scope`).
    scope: Option<Arc<Path>>,
}

/// A module file, read and parsed, with the files it pulls in: the file each `mod`
/// declaration resolved to (or the name of one that has none) and each `include!` it follows;
/// and the `include!` calls it cannot follow.
struct ReadModule {
    source: Result<SourceFile, Error>,
    children: Vec<Result<Visit, String>>,
    unfollowed: Vec<Unfollowed>,
}

/// Reads and parses every module file reachable from `targets` through `mod` declarations
/// and `include!` calls, in parallel level by level (which files come next depends on the
/// declarations found).
/// A file is read once, under the first way a level reaches it (a symlink loop through `mod`
/// reaches one file under ever longer paths); `assemble` reads what module order reaches
/// in another way.
fn read_module_trees(reader: &Reader, targets: &[Visit]) -> HashMap<Visit, ReadModule> {
    let mut read: HashMap<Visit, ReadModule> = HashMap::new();
    let mut canonical_seen: HashSet<PathBuf> = HashSet::new();
    let mut level: Vec<Visit> = targets.to_vec();
    while !level.is_empty() {
        let found: Vec<(PathBuf, Visit, ReadModule)> = level
            .into_par_iter()
            .map(|visit| {
                let canonical = canonical_or_as_is(&reader.canonical, &visit.file);
                let module = read_module(reader, &visit);
                (canonical, visit, module)
            })
            .collect();
        level = Vec::new();
        for (canonical, visit, module) in found {
            if !canonical_seen.insert(canonical) {
                continue;
            }
            level.extend(module.children.iter().flatten().cloned());
            read.insert(visit, module);
        }
        level.retain(|v| !read.contains_key(v));
        level.sort_by(|a, b| a.file.cmp(&b.file).then(a.package.cmp(&b.package)));
        level.dedup();
    }
    read
}

fn canonical_or_as_is(canonical: &Canonical, file: &Path) -> PathBuf {
    canonical.of(file).unwrap_or_else(|_| file.to_path_buf())
}

fn read_module(reader: &Reader, visit: &Visit) -> ReadModule {
    let file = &visit.file;
    let display = file
        .strip_prefix(&reader.root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/");
    let source = match SourceFile::read(file, display, visit.package, visit.edition) {
        Ok(source) => source.in_scope(visit.scope.clone()),
        Err(e) => {
            return ReadModule {
                source: Err(e),
                children: Vec::new(),
                unfollowed: Vec::new(),
            }
        }
    };
    let owns_directory = file.file_name().is_some_and(|n| n == "mod.rs") || visit.owns_directory;
    let base = match (owns_directory, file.parent()) {
        (true, Some(dir)) => dir.to_path_buf(),
        (false, Some(dir)) => dir.join(file.file_stem().unwrap_or_default()),
        (_, None) => PathBuf::new(),
    };
    let mut children: Vec<Result<Visit, String>> = module_declarations(&source.tree())
        .into_iter()
        .map(|decl| {
            let mut dir = base.clone();
            for parent in &decl.inline_parents {
                dir.push(parent);
            }
            let candidates = match &decl.path_attr {
                // `#[path]` is relative to the directory of the declaring file for top-level
                // declarations (the common case); nested inline modules are rare enough to
                // follow the same rule.
                Some(p) => vec![file.parent().unwrap_or(Path::new("")).join(p)],
                None => vec![
                    dir.join(format!("{}.rs", decl.name)),
                    dir.join(&decl.name).join("mod.rs"),
                ],
            };
            match candidates.into_iter().find(|c| c.is_file()) {
                Some(found) => Ok(Visit {
                    file: found,
                    owns_directory: false,
                    scope: None,
                    ..visit.clone()
                }),
                None => Err(decl.name),
            }
        })
        .collect();
    let mut unfollowed = Vec::new();
    for call in includes::calls(&source) {
        // A path only the build knows is the rewrite's finding: it needs no disk.
        let Target::Literal(literal) = &call.target else {
            continue;
        };
        let target = includes::resolve(file, literal, &reader.canonical);
        if let Err(message) = includes::followable(
            &target,
            literal,
            (&reader.root, &reader.inside),
            &reader.canonical,
        ) {
            unfollowed.push(Unfollowed {
                range: call.range,
                message,
            });
            continue;
        }
        if call.position == Position::Expression {
            let names = reader.names.get(visit.package).cloned().unwrap_or_default();
            match includes::expression_file(&target, visit.edition, &names) {
                includes::ExpressionFile::Items => {}
                includes::ExpressionFile::NoBurn => continue,
                includes::ExpressionFile::Burn => {
                    unfollowed.push(Unfollowed {
                        range: call.range,
                        message: includes::expression_message(literal),
                    });
                    continue;
                }
            }
        }
        // rustc resolves `mod` declarations of an included file next to it; the file is
        // pasted into the includer, whose names it sees (and the includer its).
        children.push(Ok(Visit {
            file: target,
            owns_directory: true,
            scope: Some(
                visit
                    .scope
                    .clone()
                    .unwrap_or_else(|| Arc::from(file.as_path())),
            ),
            ..visit.clone()
        }));
    }
    ReadModule {
        source: Ok(source),
        children,
        unfollowed,
    }
}

/// Puts the files read from `visit` down into the workspace in module order (each file,
/// then its modules, depth first), each once.
fn assemble(
    workspace: &mut Workspace,
    visit: &Visit,
    read: &mut HashMap<Visit, ReadModule>,
    seen: &mut BTreeSet<PathBuf>,
    reader: &Reader,
) -> Result<(), Error> {
    // Keyed by the canonical path: a module reached twice through symlinks (a loop through
    // `mod`, or a link next to its target), or both declared and included, is one file, read
    // and rewritten once.
    if !seen.insert(canonical_or_as_is(&reader.canonical, &visit.file)) {
        return Ok(());
    }
    let module = read
        .remove(visit)
        .unwrap_or_else(|| read_module(reader, visit));
    let source = module.source?;
    let declaring = source.display.clone();
    (workspace.unfollowed_includes).extend(
        module
            .unfollowed
            .into_iter()
            .map(|u| (source.path.clone(), u)),
    );
    workspace.files.push(source);
    for child in module.children {
        match child {
            Ok(child) => assemble(workspace, &child, read, seen, reader)?,
            Err(name) => workspace.missing_modules.push((declaring.clone(), name)),
        }
    }
    Ok(())
}
