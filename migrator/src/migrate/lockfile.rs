//! Keeps the user's `Cargo.lock`: after the manifests move to Burn 0.22, only the Burn crates
//! (and what they need) are updated, with `cargo update -p burn`, never a fresh resolution that
//! would drag unrelated crates to new versions. Crates the project shares with Burn 0.22 then
//! move up to at least the versions Burn 0.22's pinned lockfile builds with (an older
//! `combine` or `systemstat` the project had locked breaks Burn's own build), and a crate Burn
//! 0.22 brings in depends on what the pinned lock gives it, not on an older release the project
//! happened to have locked (`pliron` 0.19 asks for `hashbrown = "0"` and does not build with the
//! 0.12 a project already had). What moved is reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use semver::Version;

use crate::error::Error;
use crate::migrate::outcome::Report;

/// What the lockfile update changed.
#[derive(Debug, Default)]
pub struct LockUpdate {
    /// Burn crates, as `name old -> new`.
    pub burn: Vec<String>,
    /// The project's own direct dependencies whose version changed.
    pub others: Vec<String>,
    /// How many of Burn's own dependencies changed version.
    pub transitive: usize,
    /// Packages raised to Burn 0.22's pinned version, as `name old -> new`, and dependency
    /// edges pointed at it, as `name old -> new (for package version, ..)`.
    pub aligned: Vec<String>,
    /// Packages older than the pinned version that cargo would not raise, with cargo's reason.
    pub not_aligned: Vec<String>,
    /// The project had no lockfile: one was written, seeded from Burn 0.22's pinned lock.
    pub seeded: bool,
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

/// Whether cargo may move a lock entry from `old` to `new` without a manifest change: same
/// semver-compatible series (`4.x`, `0.19.x`, `0.0.3`) and newer.
fn compatible_upgrade(old: &Version, new: &Version) -> bool {
    series(old) == series(new) && old < new
}

/// The semver-compatible series of a version: `4.x` is `(4, 0, 0)`, `0.19.x` `(0, 19, 0)`.
fn series(v: &Version) -> (u64, u64, u64) {
    match (v.major, v.minor) {
        (0, 0) => (0, 0, v.patch),
        (0, minor) => (0, minor, 0),
        (major, _) => (major, 0, 0),
    }
}

/// `(name, locked, pinned)` for every package locked older than the pinned lockfile has it
/// in the same semver series.
pub fn behind_pinned(project_lock: &str, pinned_lock: &str) -> Vec<(String, String, String)> {
    let pinned = versions(pinned_lock);
    let mut out = Vec::new();
    for (name, locked) in versions(project_lock) {
        let Some(pinned) = pinned.get(&name) else {
            continue;
        };
        for old in &locked {
            let Ok(old_version) = Version::parse(old) else {
                continue;
            };
            let target = pinned
                .iter()
                .filter_map(|p| Version::parse(p).ok())
                .filter(|p| compatible_upgrade(&old_version, p))
                .max();
            if let Some(target) = target {
                out.push((name.clone(), old.clone(), target.to_string()));
            }
        }
    }
    out
}

/// A dependency edge of a package that both lockfiles have at the same version, which the
/// project's lock resolves to an older release than the pinned lock does: cargo prefers a
/// version already locked when it adds a package, however old, if the requirement allows it.
#[derive(Debug, PartialEq, Eq)]
pub struct StaleEdge {
    /// The package whose dependency it is, as `name version`.
    pub package: String,
    pub dependency: String,
    pub locked: String,
    pub pinned: String,
}

/// Each package's dependency edges, `(name, version)` -> dependency name -> resolved versions
/// (more than one where a package renames a dependency to use two of its releases).
type Edges = BTreeMap<(String, String), BTreeMap<String, BTreeSet<String>>>;

/// The dependency edges of a lockfile. An edge names `dep`, `dep version` or
/// `dep version (source)`; a bare name is the one version of it the lock has.
fn edges(lock: &str) -> Edges {
    let all = versions(lock);
    let mut out = Edges::new();
    let Ok(doc) = lock.parse::<toml_edit::DocumentMut>() else {
        return out;
    };
    let Some(packages) = doc.get("package").and_then(|p| p.as_array_of_tables()) else {
        return out;
    };
    for package in packages.iter() {
        let field = |key| {
            package
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let (Some(name), Some(version)) = (field("name"), field("version")) else {
            continue;
        };
        let mut resolved: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let dependencies = package.get("dependencies").and_then(|d| d.as_array());
        for edge in dependencies
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str())
        {
            let mut words = edge.split_whitespace();
            let Some(dependency) = words.next() else {
                continue;
            };
            let version = match words.next() {
                Some(version) => Some(version.to_string()),
                None => all
                    .get(dependency)
                    .filter(|v| v.len() == 1)
                    .and_then(|v| v.first().cloned()),
            };
            if let Some(version) = version {
                resolved
                    .entry(dependency.to_string())
                    .or_default()
                    .insert(version);
            }
        }
        out.insert((name, version), resolved);
    }
    out
}

/// The one element of a set that has exactly one.
fn only(set: &BTreeSet<String>) -> Option<&String> {
    (set.len() == 1).then(|| set.first()).flatten()
}

/// Edges the project's lock resolves older than the pinned lock, for the same package at the
/// same version, where the project's lock also has the pinned release of the dependency (so
/// pointing the edge at it adds nothing to the graph).
pub fn stale_edges(project_lock: &str, pinned_lock: &str) -> Vec<StaleEdge> {
    let project_versions = versions(project_lock);
    let pinned_edges = edges(pinned_lock);
    let newer = |locked: &str, pinned: &str| match (Version::parse(locked), Version::parse(pinned))
    {
        (Ok(locked), Ok(pinned)) => locked < pinned,
        _ => false,
    };
    let mut out = Vec::new();
    for (key, resolved) in edges(project_lock) {
        let Some(pinned) = pinned_edges.get(&key) else {
            continue;
        };
        for (dependency, locked) in resolved {
            // One release on each side: a package that uses two releases of a crate is left
            // as cargo resolved it.
            let (Some(wanted), Some(locked)) =
                (pinned.get(&dependency).and_then(only), only(&locked))
            else {
                continue;
            };
            let available = project_versions
                .get(&dependency)
                .is_some_and(|v| v.contains(wanted));
            if available && newer(locked, wanted) {
                out.push(StaleEdge {
                    package: format!("{} {}", key.0, key.1),
                    locked: locked.clone(),
                    dependency,
                    pinned: wanted.clone(),
                });
            }
        }
    }
    out
}

/// Points each stale edge at the pinned release, in the lockfile's own text (cargo has no
/// command that moves one package's edge), then lets cargo read the result back: cargo keeps
/// an edge its requirement allows and rewrites the lockfile without what nothing uses any
/// more. The edges cargo kept are reported as aligned, the others as not; a lockfile cargo
/// rejects is put back as it was.
fn repoint_stale_edges(
    root: &Path,
    lock_path: &Path,
    update: &mut LockUpdate,
) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: lock_path.to_path_buf(),
        source,
    };
    let text = std::fs::read_to_string(lock_path).map_err(io)?;
    let stale = stale_edges(&text, crate::rules::framework::BURN_0_22_LOCK);
    if stale.is_empty() {
        return Ok(());
    }
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
        return Ok(());
    };
    if let Some(packages) = doc
        .get_mut("package")
        .and_then(|p| p.as_array_of_tables_mut())
    {
        for package in packages.iter_mut() {
            let field = |key| package.get(key).and_then(|v| v.as_str()).unwrap_or("");
            let key = format!("{} {}", field("name"), field("version"));
            let Some(dependencies) = package
                .get_mut("dependencies")
                .and_then(|d| d.as_array_mut())
            else {
                continue;
            };
            for edge in stale.iter().filter(|e| e.package == key) {
                let position = dependencies.iter().position(|d| {
                    d.as_str().is_some_and(|d| {
                        let mut words = d.split_whitespace();
                        words.next() == Some(edge.dependency.as_str())
                            && words.next().is_none_or(|v| v == edge.locked)
                    })
                });
                if let Some(position) = position {
                    dependencies.replace(position, format!("{} {}", edge.dependency, edge.pinned));
                }
            }
        }
    }
    std::fs::write(lock_path, doc.to_string()).map_err(io)?;
    let read_back = ["metadata", "--quiet", "--format-version", "1"];
    let mut output = cargo(root, &[&read_back[..], &["--offline"]].concat())?;
    if !output.status.success() {
        output = cargo(root, &read_back)?;
    }
    let now = std::fs::read_to_string(lock_path).map_err(io)?;
    let kept = edges(&now);
    // One line per move, naming every package that takes it (`windows-sys` moves for many).
    let mut moves: BTreeMap<(bool, &str, &str, &str), Vec<&str>> = BTreeMap::new();
    for edge in &stale {
        let (name, version) = edge.package.split_once(' ').unwrap_or_default();
        let moved = kept
            .get(&(name.to_string(), version.to_string()))
            .and_then(|d| d.get(&edge.dependency))
            .and_then(only)
            == Some(&edge.pinned);
        let key = (
            output.status.success() && moved,
            edge.dependency.as_str(),
            edge.locked.as_str(),
            edge.pinned.as_str(),
        );
        moves.entry(key).or_default().push(&edge.package);
    }
    let why = if output.status.success() {
        "cargo kept the old edge".to_string()
    } else {
        first_error_line(&output)
    };
    for ((moved, dependency, locked, pinned), packages) in moves {
        let packages = packages.join(", ");
        if moved {
            update.aligned.push(format!(
                "{dependency} {locked} -> {pinned} (for {packages})"
            ));
        } else {
            update.not_aligned.push(format!(
                "{dependency} {locked} for {packages} (Burn 0.22 builds with {pinned}): {why}"
            ));
        }
    }
    if !output.status.success() {
        std::fs::write(lock_path, text).map_err(io)?;
    }
    Ok(())
}

/// A project without a lockfile gets one, seeded from Burn 0.22's pinned lock: a fresh
/// resolution takes the newest releases, and Burn 0.22.1 does not build with some of them
/// (`systemstat` 0.2.8 breaks burn-train's CPU temperature metric; the pinned lock has 0.2.7).
/// Cargo keeps the pinned versions the project's graph can use and resolves the rest; a
/// graph that cannot resolve is reported and leaves no lockfile behind.
fn write_seeded(root: &Path, lock_path: &Path) -> Result<LockUpdate, Error> {
    let io = |source| Error::Io {
        path: lock_path.to_path_buf(),
        source,
    };
    std::fs::write(lock_path, crate::rules::framework::BURN_0_22_LOCK).map_err(io)?;
    let output = cargo(root, &["metadata", "--quiet", "--format-version", "1"])?;
    if !output.status.success() {
        let _ = std::fs::remove_file(lock_path);
        return Err(Error::Unresolvable {
            dir: root.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(LockUpdate {
        seeded: true,
        ..LockUpdate::default()
    })
}

/// Runs `cargo ARGS` in `root`; when the workspace pins a toolchain that cannot run (not
/// installed), again under the toolchain burn-migrate runs under.
fn cargo(root: &Path, args: &[&str]) -> Result<Output, Error> {
    let run = |toolchain: Option<&str>| {
        let mut command = Command::new(crate::util::cargo::program());
        command.args(args).current_dir(root);
        crate::util::cargo::die_with_parent(&mut command);
        if let Some(toolchain) = toolchain {
            command.env("RUSTUP_TOOLCHAIN", toolchain);
        }
        command.output().map_err(|source| Error::Spawn {
            program: "cargo".to_string(),
            dir: root.to_path_buf(),
            source,
        })
    };
    let output = run(None)?;
    if output.status.success() || crate::util::toolchain::pin_file(root).is_none() {
        return Ok(output);
    }
    match crate::util::toolchain::running() {
        Some(toolchain) => run(Some(&toolchain)),
        None => Ok(output),
    }
}

fn first_error_line(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    stderr
        .lines()
        .find(|l| l.starts_with("error"))
        .or_else(|| stderr.lines().next())
        .unwrap_or("cargo failed")
        .trim()
        .to_string()
}

/// The port's `Cargo.lock`, worked out before anything is written.
#[derive(Debug)]
pub struct LockPlan {
    /// The new text, `None` when the lockfile stays as it is.
    pub text: Option<String>,
    pub update: LockUpdate,
}

/// Works out the port's `Cargo.lock`: runs [`update`] in a scratch view of the file system
/// where the manifests have their ported text (`util::overlay`), so that cargo resolves the
/// port while the project is untouched, and the new lockfile is written with the sources,
/// under the same journal (a kill while cargo runs leaves nothing half-done, and a port whose
/// workspace does not resolve writes nothing). `Ok(None)` when no manifest changes.
pub fn plan(report: &Report) -> Result<Option<LockPlan>, Error> {
    let changed: Vec<_> = (report.manifests.iter())
        .filter(|m| m.migrated != m.original && m.error.is_none())
        .collect();
    if changed.is_empty() {
        return Ok(None);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let root = report.root.canonicalize().map_err(io(&report.root))?;
    let mut files = BTreeMap::new();
    for manifest in changed {
        let path = manifest.path.canonicalize().map_err(io(&manifest.path))?;
        files.insert(path, manifest.migrated.clone());
    }
    let lock_path = root.join("Cargo.lock");
    let before = match std::fs::read_to_string(&lock_path) {
        Ok(text) => {
            let target = lock_path.canonicalize().map_err(io(&lock_path))?;
            if !target.starts_with(&root) {
                return Err(Error::OutsideProject {
                    path: lock_path,
                    target,
                });
            }
            files.insert(lock_path.clone(), text.clone());
            Some(text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&lock_path)(e)),
    };
    let overlay = crate::util::overlay::Overlay::new(&files)?;
    let scratch_root = overlay.path(&root);
    let update = update(&scratch_root, &report.direct_dependencies)
        .map_err(|error| error.outside_overlay(overlay.base()))?
        .unwrap_or_default();
    let scratch_lock = scratch_root.join("Cargo.lock");
    let after = std::fs::read_to_string(&scratch_lock).map_err(io(&scratch_lock))?;
    Ok(Some(LockPlan {
        text: (before.as_deref() != Some(after.as_str())).then_some(after),
        update,
    }))
}

/// Runs `cargo update -p burn` in the workspace at `root` when it has a lockfile, then raises
/// what it shares with Burn 0.22's pinned lockfile. `Ok(None)`: no lockfile to keep.
pub fn update(root: &Path, direct: &BTreeSet<String>) -> Result<Option<LockUpdate>, Error> {
    let lock_path = root.join("Cargo.lock");
    let Ok(before) = std::fs::read_to_string(&lock_path) else {
        return write_seeded(root, &lock_path).map(Some);
    };
    let output = cargo(root, &["update", "--quiet", "-p", "burn"])?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        let dir = root.to_path_buf();
        // A version conflict is the manifests' (no later `cargo update` resolves it).
        return Err(if stderr.contains("failed to select a version") {
            Error::Unresolvable { dir, stderr }
        } else {
            Error::LockUpdate { dir, stderr }
        });
    }
    let read = || {
        std::fs::read_to_string(&lock_path).map_err(|source| Error::Io {
            path: lock_path.clone(),
            source,
        })
    };
    let mut update = LockUpdate::default();
    let pinned = crate::rules::framework::BURN_0_22_LOCK;
    let behind = behind_pinned(&read()?, pinned);
    if !behind.is_empty() {
        // One resolution raises them all to their newest compatible version (what a fresh
        // `cargo add burn@0.22` resolves to, at least the pinned one): one cargo run instead
        // of one per package (90 on a large workspace, ten minutes). `cargo update -p burn`
        // just refreshed the registry index for Burn's graph, so offline first.
        let specs: Vec<String> = behind
            .iter()
            .map(|(name, old, _)| format!("{name}@{old}"))
            .collect();
        let mut batch = vec!["update", "--quiet"];
        for spec in &specs {
            batch.extend(["-p", spec.as_str()]);
        }
        if !cargo(root, &[&batch[..], &["--offline"]].concat())?
            .status
            .success()
        {
            // A failed resolution writes nothing; the per-package steps below say why.
            cargo(root, &batch)?;
        }
    }
    for (name, old, new) in behind {
        let locked = versions(&read()?).remove(&name).unwrap_or_default();
        if !locked.contains(&old) {
            // Raised by the batch above (or along with its own package).
            let wanted = Version::parse(&new).ok().map(|v| series(&v));
            let now = locked
                .iter()
                .filter_map(|v| Version::parse(v).ok())
                .filter(|v| Some(series(v)) == wanted)
                .max()
                .map_or_else(|| "-".to_string(), |v| v.to_string());
            update.aligned.push(format!("{name} {old} -> {now}"));
            continue;
        }
        let spec = format!("{name}@{old}");
        let precise = ["update", "--quiet", "-p", &spec, "--precise", &new];
        let mut output = cargo(root, &[&precise[..], &["--offline"]].concat())?;
        if !output.status.success() {
            output = cargo(root, &precise)?;
        }
        if output.status.success() {
            update.aligned.push(format!("{name} {old} -> {new}"));
        } else {
            update.not_aligned.push(format!(
                "{name} {old} (Burn 0.22 builds with {new}): {}",
                first_error_line(&output)
            ));
        }
    }
    repoint_stale_edges(root, &lock_path, &mut update)?;
    let after = read()?;
    let (old, new) = (versions(&before), versions(&after));
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        let (was, now) = (old.get(name), new.get(name));
        // Crates Burn 0.22 adds or stops using are its business; a crate the project already
        // had that changed version is the user's (it may break their build).
        let moved = matches!((was, now), (Some(a), Some(b)) if a != b);
        let is_burn = crate::rules::framework::is_burn_package(name);
        if !(moved || is_burn && was != now) {
            continue;
        }
        let show = |v: Option<&BTreeSet<String>>| {
            v.map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
                .unwrap_or_else(|| "-".to_string())
        };
        let line = format!("{name} {} -> {}", show(was), show(now));
        let aligned = update
            .aligned
            .iter()
            .any(|a| a.starts_with(&format!("{name} ")));
        if is_burn {
            update.burn.push(line);
        } else if aligned {
            // Listed with the aligned packages.
        } else if direct.contains(name.as_str()) {
            update.others.push(line);
        } else {
            update.transitive += 1;
        }
    }
    Ok(Some(update))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock(packages: &[(&str, &str)]) -> String {
        packages
            .iter()
            .map(|(n, v)| format!("[[package]]\nname = \"{n}\"\nversion = \"{v}\"\n\n"))
            .collect()
    }

    #[test]
    fn edges_older_than_the_pinned_lock_are_stale_when_the_pinned_release_is_locked() {
        let project = r#"[[package]]
name = "pliron"
version = "0.19.0"
dependencies = [
 "combine",
 "hashbrown 0.12.3",
 "spin",
]

[[package]]
name = "tool"
version = "1.0.0"
dependencies = [
 "hashbrown 0.12.3",
]

[[package]]
name = "combine"
version = "4.6.9"

[[package]]
name = "spin"
version = "0.9.8"

[[package]]
name = "hashbrown"
version = "0.12.3"

[[package]]
name = "hashbrown"
version = "0.17.2"
"#;
        let pinned = r#"[[package]]
name = "pliron"
version = "0.19.0"
dependencies = [
 "combine",
 "hashbrown",
 "spin",
]

[[package]]
name = "tool"
version = "2.0.0"
dependencies = [
 "hashbrown",
]

[[package]]
name = "combine"
version = "4.6.9"

[[package]]
name = "spin"
version = "0.10.0"

[[package]]
name = "hashbrown"
version = "0.17.2"
"#;
        // `tool` is another version in the pinned lock, `combine` already agrees, and the
        // pinned `spin` is not in the project's lock (pointing at it would add a package).
        assert_eq!(
            stale_edges(project, pinned),
            vec![StaleEdge {
                package: "pliron 0.19.0".into(),
                dependency: "hashbrown".into(),
                locked: "0.12.3".into(),
                pinned: "0.17.2".into(),
            }]
        );
    }

    #[test]
    fn older_locked_versions_in_the_pinned_series_are_behind() {
        let project = lock(&[
            ("combine", "4.6.7"),
            ("combine", "3.8.1"),
            ("systemstat", "0.2.6"),
            ("serde", "1.0.230"),
            ("only-here", "1.0.0"),
            ("pliron", "0.18.0"),
        ]);
        let pinned = lock(&[
            ("combine", "4.6.8"),
            ("systemstat", "0.2.7"),
            ("serde", "1.0.228"),
            ("pliron", "0.19.0"),
        ]);
        assert_eq!(
            behind_pinned(&project, &pinned),
            vec![
                ("combine".into(), "4.6.7".into(), "4.6.8".into()),
                ("systemstat".into(), "0.2.6".into(), "0.2.7".into()),
            ]
        );
    }
}
