//! `burn-migrate verify`: proves a port by building and running both sides. The original is
//! built against Burn 0.21 and the port against Burn 0.22, each in a scratch copy (the user's
//! tree is never touched), with one shared target directory so Burn compiles once per machine.
//! Both sides' tests and binaries run; the verdict holds when everything that built, passed or
//! printed before still does, with numbers equal within a tolerance.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::compare::{first_difference, Tolerance};
use crate::error::Error;
use crate::migrate::{self, Options};
use crate::rules::RuleSet;

/// What a verification run needs to know.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Where scratch copies and the shared target directory live.
    pub cache: PathBuf,
    /// An existing port to verify instead of migrating a copy (a hand port, say).
    pub migrated: Option<PathBuf>,
    pub tolerance: Tolerance,
    /// Longest a binary may run.
    pub run_limit: Duration,
}

/// One side's results.
#[derive(Debug, Default)]
pub struct SideResult {
    pub built: bool,
    pub build_log: String,
    pub build_time: Duration,
    pub passed_tests: BTreeSet<String>,
    pub failed_tests: BTreeSet<String>,
    /// (binary, what it printed), for binaries that finished successfully in time.
    pub runs: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Verdict {
    pub before: SideResult,
    pub after: SideResult,
    /// Everything that worked before and does not after, in words. Empty: verified.
    pub problems: Vec<String>,
}

/// The lockfiles `framework/` pins, for projects that bring none: both sides then resolve to
/// the exact Burn releases (and dependencies) the rules were tested with.
const LOCK_0_21: &str = include_str!("../../framework/burn-0.21/Cargo.lock");
const LOCK_0_22: &str = include_str!("../../framework/burn-0.22/Cargo.lock");

/// The shared cache: `$BURN_MIGRATE_CACHE`, else `~/.cache/burn-migrate`.
pub fn default_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("BURN_MIGRATE_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache/burn-migrate")
}

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
    let root = crate::discover::discover(project)?.root;
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "project".into());
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
    copy_tree(&root, &old)?;
    match &options.migrated {
        Some(port) => copy_tree(port, &new)?,
        None => {
            copy_tree(&root, &new)?;
            progress("migrating the copy");
            let report = migrate::run(&new, rules, &Options::default())?;
            migrate::write(&report)?;
            if new.join("Cargo.lock").is_file() {
                // Keep the copy's lockfile, moving only Burn (what `--apply` does).
                if let Err(error) = crate::lockfile::update(&new, &report.direct_dependencies) {
                    progress(&format!("Cargo.lock of the port not updated: {error}"));
                }
            }
        }
    }
    for (dir, lock) in [(&old, LOCK_0_21), (&new, LOCK_0_22)] {
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

pub fn verify(
    project: &Path,
    rules: &RuleSet,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Verdict, Error> {
    let (old, new) = prepare(project, "verify", rules, options, progress)?;
    let target = options.cache.join("target");
    let before = run_side(&old, "Burn 0.21", &target, options, progress);
    let after = run_side(&new, "Burn 0.22", &target, options, progress);
    let problems = compare(&before, &after, options.tolerance);
    Ok(Verdict {
        before,
        after,
        problems,
    })
}

fn run_side(
    dir: &Path,
    label: &str,
    target: &Path,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> SideResult {
    let mut side = SideResult::default();
    progress(&format!("{label}: building all targets"));
    let started = Instant::now();
    let build = cargo(dir, target, &["build", "--all-targets", "--quiet"]);
    side.build_time = started.elapsed();
    side.built = build.as_ref().is_ok_and(|o| o.status.success());
    side.build_log = build
        .map(|o| String::from_utf8_lossy(&o.stderr).to_string())
        .unwrap_or_else(|e| e);
    progress(&format!(
        "{label}: built in {:.1?} ({})",
        side.build_time,
        if side.built { "ok" } else { "failed" }
    ));
    if !side.built {
        return side;
    }
    progress(&format!("{label}: running tests"));
    if let Ok(output) = cargo(dir, target, &["test", "--no-fail-fast"]) {
        let stdout = String::from_utf8_lossy(&output.stdout);
        for line in stdout.lines() {
            if let Some(rest) = line.strip_prefix("test ") {
                if let Some(name) = rest.strip_suffix(" ... ok") {
                    side.passed_tests.insert(name.to_string());
                } else if let Some(name) = rest.strip_suffix(" ... FAILED") {
                    side.failed_tests.insert(name.to_string());
                }
            }
        }
    }
    for (package, binary) in binaries(dir) {
        progress(&format!("{label}: running {binary}"));
        if let Some(stdout) = run_binary(dir, target, &package, &binary, options.run_limit) {
            side.runs.push((binary, stdout));
        }
    }
    side
}

fn compare(before: &SideResult, after: &SideResult, tolerance: Tolerance) -> Vec<String> {
    let mut problems = Vec::new();
    if before.built && !after.built {
        let errors: Vec<&str> = after
            .build_log
            .lines()
            .filter(|l| l.starts_with("error"))
            .take(10)
            .collect();
        problems.push(format!("the port does not build:\n{}", errors.join("\n")));
    }
    for test in before.passed_tests.difference(&after.passed_tests) {
        problems.push(format!("test `{test}` passed before and does not after"));
    }
    for (binary, old) in &before.runs {
        match after.runs.iter().find(|(b, _)| b == binary) {
            None => problems.push(format!("`{binary}` ran before and does not run after")),
            Some((_, new)) => {
                if let Some(difference) = first_difference(old, new, tolerance) {
                    problems.push(format!("`{binary}` prints something else: {difference}"));
                }
            }
        }
    }
    problems
}

pub fn cargo(dir: &Path, target: &Path, args: &[&str]) -> Result<Output, String> {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))
}

/// Runs one binary (already built) with a time limit; its stdout when it succeeded in time.
fn run_binary(
    dir: &Path,
    target: &Path,
    package: &str,
    binary: &str,
    limit: Duration,
) -> Option<String> {
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--package", package, "--bin", binary])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut stdout = String::new();
                use std::io::Read;
                child.stdout.take()?.read_to_string(&mut stdout).ok()?;
                return status.success().then_some(stdout);
            }
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => return None,
        }
    }
}

/// (package, binary) for every binary target of the workspace at `dir`.
pub fn binaries(dir: &Path) -> Vec<(String, String)> {
    let Ok(metadata) = cargo_metadata::MetadataCommand::new()
        .current_dir(dir)
        .no_deps()
        .exec()
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for package in metadata.workspace_packages() {
        for target in &package.targets {
            if target.kind.contains(&cargo_metadata::TargetKind::Bin) {
                out.push((package.name.to_string(), target.name.clone()));
            }
        }
    }
    out.sort();
    out
}

/// Copies a project, leaving out build outputs and version control.
fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(to).map_err(io(to))?;
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let name = entry.file_name();
        if name == "target" || name == ".git" {
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
