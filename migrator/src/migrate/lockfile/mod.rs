//! The port's `Cargo.lock`: the user's lockfile is kept, never re-resolved from scratch (a
//! fresh resolution drags unrelated crates to new versions that can break a build that
//! worked), and every package of Burn 0.22's graph gets the version Burn's pinned lockfile
//! (`framework/burn-0.22/Cargo.lock`) has, whether or not the project's lock held it: a
//! release published after the pin can break Burn's own build on a machine with a fresh
//! registry index (`systemstat` 0.2.8 and burn-train 0.22.1). `merge` writes that lockfile;
//! cargo reads it back (`cargo update --workspace`, which unlocks only the workspace's own
//! packages), keeping what the ported manifests allow and dropping what nothing uses. A
//! project without a lockfile starts from the pinned one. What moved is reported.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use crate::error::Error;
use crate::migrate::outcome::Report;

mod conflict;
pub mod merge;

/// What the lockfile update changed.
#[derive(Debug, Default)]
pub struct LockUpdate {
    /// Burn crates, as `name old -> new`.
    pub burn: Vec<String>,
    /// The project's own direct dependencies whose version changed.
    pub others: Vec<String>,
    /// How many of Burn's own dependencies changed version.
    pub transitive: usize,
    /// Packages the project had locked that moved to Burn 0.22's pinned version, as
    /// `name old -> new`.
    pub aligned: Vec<String>,
    /// Direct dependencies of the project locked newer than the pinned version, kept.
    pub not_aligned: Vec<String>,
    /// The project had no lockfile: one was written, seeded from Burn 0.22's pinned lock.
    pub seeded: bool,
}

/// The port's `Cargo.lock`, worked out before anything is written.
#[derive(Debug)]
pub struct LockPlan {
    /// The new text, `None` when the lockfile stays as it is.
    pub text: Option<String>,
    pub update: LockUpdate,
}

/// Works out the port's `Cargo.lock` in a scratch view of the file system where the
/// manifests have their ported text (`util::overlay`), so that cargo resolves the port while
/// the project is untouched, and the new lockfile is written with the sources, under the
/// same journal (a kill while cargo runs leaves nothing half-done, and a port whose workspace
/// does not resolve writes nothing). `Ok(None)` when no manifest changes.
pub fn plan(report: &Report) -> Result<Option<LockPlan>, Error> {
    plan_with(report, crate::rules::framework::BURN_0_22_LOCK)
}

/// [`plan`] against the given pinned lockfile.
pub fn plan_with(report: &Report, pinned: &str) -> Result<Option<LockPlan>, Error> {
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
    let mut files = std::collections::BTreeMap::new();
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
            Some(text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&lock_path)(e)),
    };
    check_parses(&lock_path, before.as_deref())?;
    // A file of the view's own, not a link to the project's: cargo and `resolve` write it.
    files.insert(lock_path, before.clone().unwrap_or_default());
    let overlay = crate::util::overlay::Overlay::new(&files)?;
    let (after, update) = resolve(&overlay.path(&root), before.as_deref(), pinned, report)
        .map_err(|error| name_lines(error.outside_overlay(overlay.base()), report))?;
    Ok(Some(LockPlan {
        text: (before.as_deref() != Some(after.as_str())).then_some(after),
        update,
    }))
}

/// Cargo's resolution error, with the manifest lines it points at (a dependency key or a
/// feature it names in backquotes), in the ported manifests and in the manifests of the
/// workspace's packages it names (`package \`x v0.1.0 (/path)\``), so the user sees which line
/// of theirs to change.
fn name_lines(error: Error, report: &Report) -> Error {
    let Error::Unresolvable { dir, stderr } = error else {
        return error;
    };
    let named: BTreeSet<&str> = stderr.split('`').skip(1).step_by(2).collect();
    // The ported manifests as they will be, the others as they are.
    let mut manifests: Vec<(String, String)> = (report.manifests.iter())
        .filter(|m| m.migrated != m.original)
        .map(|m| (m.display.clone(), m.migrated.clone()))
        .collect();
    for path in conflict::package_dirs(&stderr) {
        let manifest = path.join("Cargo.toml");
        let display = manifest
            .strip_prefix(&report.root)
            .map(|p| p.display().to_string());
        let (Ok(display), Ok(text)) = (display, std::fs::read_to_string(&manifest)) else {
            continue;
        };
        if !manifests.iter().any(|(d, _)| *d == display) {
            manifests.push((display, text));
        }
    }
    let mut lines = Vec::new();
    for (display, text) in &manifests {
        for (number, line) in text.lines().enumerate() {
            let key = line
                .split(['=', ' ', '.'])
                .next()
                .unwrap_or_default()
                .trim();
            // A feature it names, in a features list.
            let quotes_one = line.contains("features")
                && named.iter().any(|n| line.contains(&format!("\"{n}\"")));
            if !line.trim_start().starts_with('#') && (named.contains(key) || quotes_one) {
                lines.push(format!("  {display}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    if lines.is_empty() {
        return Error::Unresolvable { dir, stderr };
    }
    lines.truncate(10);
    Error::Unresolvable {
        dir,
        stderr: format!(
            "{stderr}\nthe manifest lines it names:\n{}",
            lines.join("\n")
        ),
    }
}

/// Pins Burn's graph in the `Cargo.lock` of the workspace at `root` as [`plan`] does, in
/// place (for a scratch copy of a project, as `verify` makes).
pub fn update(root: &Path, report: &Report) -> Result<LockUpdate, Error> {
    let lock_path = root.join("Cargo.lock");
    let before = std::fs::read_to_string(&lock_path).ok();
    let pinned = crate::rules::framework::BURN_0_22_LOCK;
    check_parses(&lock_path, before.as_deref())?;
    resolve(root, before.as_deref(), pinned, report).map(|(_, update)| update)
}

/// A project's lockfile must parse to be merged with the pinned one.
fn check_parses(lock_path: &Path, before: Option<&str>) -> Result<(), Error> {
    match before.map(|text| text.parse::<toml_edit::DocumentMut>()) {
        Some(Err(e)) => Err(Error::Manifest {
            path: lock_path.to_path_buf(),
            message: format!("it is not valid TOML ({e}); fix it or delete it, then run again"),
        }),
        _ => Ok(()),
    }
}

/// Writes at `root` the project's lockfile `before` merged with `pinned` and lets cargo read
/// it back, and says what moved. Where cargo finds a conflict, the packages it names give way
/// and the round starts again: a package moved to its pinned release goes back to the
/// project's version (the project's requirements come first: `wasm-bindgen-cli-support` asks
/// for the exact `wasm-bindgen-shared` the project locked), and the locked entries of the
/// package cargo could not select, and of the one it had selected, are unlocked for cargo to
/// resolve afresh (a sibling Burn does not use, left at the project's older version next to
/// a moved one that needs it newer: `futures-sink` 0.3.32 beside the pinned
/// `futures-channel` 0.3.34). A conflict where nothing gives way is the manifests', and
/// reported. Returns the lockfile as cargo left it.
fn resolve(
    root: &Path,
    before: Option<&str>,
    pinned: &str,
    report: &Report,
) -> Result<(String, LockUpdate), Error> {
    let lock_path = root.join("Cargo.lock");
    let direct = &report.direct_dependencies;
    let mut keep: BTreeSet<String> = BTreeSet::new();
    let mut unlocked: BTreeSet<(String, String)> = BTreeSet::new();
    let mut resolved = None;
    for _ in 0..MAX_ROUNDS {
        let merged = merge::merge(before, pinned, direct, &keep);
        let mut lock = merged.text.clone();
        for (name, version) in &unlocked {
            lock = merge::without_entry(&lock, name, version).unwrap_or(lock);
        }
        std::fs::write(&lock_path, &lock).map_err(|source| Error::Io {
            path: lock_path.clone(),
            source,
        })?;
        // Offline first: every package the pinned lock names needs no look-up.
        let read_back = ["update", "--workspace", "--quiet"];
        let mut output = cargo(root, &[&read_back[..], &["--offline"]].concat())?;
        if !output.status.success() {
            output = cargo(root, &read_back)?;
        }
        if output.status.success() {
            resolved = Some(merged);
            break;
        }
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        let mut moved_back = false;
        for name in conflict::packages_named(&stderr).filter(|name| merged.moved(name)) {
            moved_back |= keep.insert(name.to_string());
        }
        let locked = merge::locked_versions(&lock);
        let to_unlock: Vec<(String, String)> = (conflict::previously_selected(&stderr))
            .map(|(name, version)| (name.to_string(), version.to_string()))
            .chain(conflict::not_selected(&stderr).flat_map(|name| {
                (locked.get(name).into_iter().flatten())
                    .map(move |version| (name.to_string(), version.clone()))
            }))
            .filter(|entry| locked.get(&entry.0).is_some_and(|v| v.contains(&entry.1)))
            .collect();
        let mut unlocked_more = false;
        for entry in to_unlock {
            unlocked_more |= unlocked.insert(entry);
        }
        if !moved_back && !unlocked_more {
            let dir = report.root.clone();
            return Err(if stderr.contains("failed to select a version") {
                Error::Unresolvable { dir, stderr }
            } else {
                Error::LockUpdate { dir, stderr }
            });
        }
    }
    let Some(merged) = resolved else {
        return Err(Error::LockUpdate {
            dir: report.root.clone(),
            stderr: format!("{MAX_ROUNDS} rounds of cargo's conflicts did not end in a lockfile"),
        });
    };
    let after = std::fs::read_to_string(&lock_path).map_err(|source| Error::Io {
        path: lock_path,
        source,
    })?;
    let update = summarize(before, &after, &merged, direct);
    Ok((after, update))
}

/// How many times cargo's conflicts may send the lockfile back before it is given up on.
const MAX_ROUNDS: usize = 20;

/// What moved between the lockfile `before` (`None`: there was none) and `after`.
fn summarize(
    before: Option<&str>,
    after: &str,
    merged: &merge::Merged,
    direct: &BTreeSet<String>,
) -> LockUpdate {
    let Some(before) = before else {
        return LockUpdate {
            seeded: true,
            ..LockUpdate::default()
        };
    };
    let (old, new) = (
        merge::locked_versions(before),
        merge::locked_versions(after),
    );
    let mut update = LockUpdate {
        not_aligned: merged.kept_newer.clone(),
        ..LockUpdate::default()
    };
    // A move to the pinned release counts where the port still uses the package.
    update.aligned = (merged.pinned.iter())
        .filter(|line| {
            let mut words = line.split_whitespace();
            let (name, pinned) = (words.next(), words.last());
            name.and_then(|n| new.get(n))
                .is_some_and(|versions| pinned.is_some_and(|p| versions.contains(p)))
        })
        .cloned()
        .collect();
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
        let aligned = (update.aligned.iter()).any(|a| a.starts_with(&format!("{name} ")));
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
    update
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
