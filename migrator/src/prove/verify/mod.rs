//! `burn-migrate verify`: proves a port by building and running both sides. The original is
//! built against Burn 0.21 and the port against Burn 0.22, each in a scratch copy (the user's
//! tree is never touched), with one shared target directory so Burn compiles once per machine.
//! Both sides' tests and binaries run; the verdict holds when everything that built, passed or
//! printed before still does, with numbers equal within a tolerance.
//!
//! Before anything runs, each device the port's packages construct is probed in a child
//! process ([`devices`]); packages whose device does not work here are built but not run, and
//! the verdict says why. `--device` moves the port to one device first ([`retarget`]); on
//! CubeCL devices each binary reports its peak memory-pool usage ([`memory_watch`]).

pub mod config;
mod devices;
pub mod diagnose;
mod memory_watch;
mod retarget;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::migrate::{self, Options};
use crate::prove::compare::{first_difference, Tolerance};
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
    /// Run the port on this device (`flex`, `vulkan`, `wgpu`, ...) instead of the one the
    /// migration chose for the original backend.
    pub device: Option<String>,
    /// Build and run in the release profile.
    pub release: bool,
    /// When the port does not build, apply rustc's machine-applicable suggestions and build
    /// again, up to this many times.
    pub fix_passes: usize,
}

/// One side's results.
#[derive(Debug, Default)]
pub struct SideResult {
    pub built: bool,
    pub build_log: String,
    /// The compile errors, each with the rule that covers it (when the build failed).
    pub errors: Vec<diagnose::CompileError>,
    /// rustc's messages of a failed build, suggestions included (for `--fix`).
    pub diagnostics: Vec<cargo_metadata::diagnostic::Diagnostic>,
    pub build_time: Duration,
    pub passed_tests: BTreeSet<String>,
    pub failed_tests: BTreeSet<String>,
    /// (binary, what it printed), for binaries that finished successfully in time.
    pub runs: Vec<(String, String)>,
    /// (binary, why it did not finish successfully in time).
    pub failed_runs: Vec<(String, String)>,
    /// (binary, peak memory-pool usage), for binaries that ran on a CubeCL device.
    pub memory: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Verdict {
    pub before: SideResult,
    pub after: SideResult,
    /// Everything that worked before and does not after, in words. Empty: verified.
    pub problems: Vec<String>,
    /// Packages built but not run on either side, with the reason (a device that does not
    /// work here).
    pub skipped: BTreeMap<String, String>,
    /// Notes on how the port was run (device moves, the memory watch).
    pub notes: Vec<String>,
    /// Where each side's binary output was saved (`runs/{before,after}/<binary>.stdout`).
    pub runs_dir: PathBuf,
}

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
            let report = migrate::run(&new, rules, &Options::default())?;
            migrate::write(&report)?;
            if new.join("Cargo.lock").is_file() {
                // Keep the copy's lockfile, moving only Burn (what `--apply` does).
                if let Err(error) =
                    crate::migrate::lockfile::update(&new, &report.direct_dependencies)
                {
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

pub fn verify(
    project: &Path,
    rules: &RuleSet,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Verdict, Error> {
    let (old, new) = prepare(project, "verify", rules, options, progress)?;
    let mut notes = Vec::new();
    let known = devices::constructors(rules);
    let mut probes = BTreeMap::new();
    // The original runs where the migration's own device choice runs: what does not work
    // here is skipped on both sides, since the original would fail (or crash) there too.
    let (natural_skips, natural_devices) =
        device_skips(&new, &known, &options.cache, &mut probes, progress);
    let (skipped, used_by_package) = match &options.device {
        None => (natural_skips.clone(), natural_devices),
        Some(name) => {
            let Some(target) = known.get(name) else {
                return Err(Error::Usage(format!(
                    "`--device {name}` is not a Burn 0.22 device; use one of: {}",
                    known.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            };
            let moved = retarget::retarget(&new, target, &known)?;
            notes.push(format!(
                "the port runs on `Device::{name}`: {} constructor call(s) moved, feature `{}` enabled in {} manifest(s)",
                moved.calls, target.feature, moved.manifests
            ));
            device_skips(&new, &known, &options.cache, &mut probes, progress)
        }
    };

    let table = config::load(&old)?;
    let commands = run_commands(&old, &table)?;
    let watch = install_memory_watch(&new, &used_by_package, &known)?;
    let target = options.cache.join("target");
    let plan = Plan {
        target: &target,
        rules,
        options,
        commands: &commands,
        run_limit: table
            .run_limit_s
            .map(Duration::from_secs)
            .unwrap_or(options.run_limit),
        skipped: &skipped,
    };
    let runs_dir = new.parent().unwrap_or(&new).join("runs");
    let before = run_side(
        &old,
        "Burn 0.21",
        &Plan {
            skipped: &natural_skips,
            ..plan
        },
        progress,
    );
    let mut after = run_side(&new, "Burn 0.22", &plan, progress);
    if !after.built && !watch.is_empty() {
        // Never let the watch cost a verdict: without it, the port gets its fair build.
        notes.push("the memory-pool watch kept the port from building; ran without it".into());
        watch.remove()?;
        after = run_side(&new, "Burn 0.22", &plan, progress);
    }
    for pass in 1..=options.fix_passes {
        if after.built {
            break;
        }
        let applied = diagnose::apply_suggestions(&after.diagnostics, &new)?;
        notes.push(format!(
            "--fix pass {pass}: applied {applied} machine-applicable suggestion(s) from rustc"
        ));
        if applied == 0 {
            break;
        }
        after = run_side(&new, "Burn 0.22", &plan, progress);
    }
    save_runs(&runs_dir.join("before"), &before)?;
    save_runs(&runs_dir.join("after"), &after)?;
    // Packages the port could not run here but the original could (`--device` on a device
    // this machine lacks): their outputs are saved for a run elsewhere, not compared.
    let unverified: BTreeSet<&String> = skipped
        .keys()
        .filter(|p| !natural_skips.contains_key(*p))
        .collect();
    let problems = if unverified.is_empty() {
        compare(&before, &after, options.tolerance)
    } else {
        let mut comparable = SideResult {
            built: before.built,
            ..SideResult::default()
        };
        comparable.runs = before
            .runs
            .iter()
            .filter(|(label, _)| {
                commands
                    .iter()
                    .any(|c| c.label == *label && !unverified.contains(&c.package))
            })
            .cloned()
            .collect();
        notes.push(format!(
            "not compared here (the port's device does not work on this machine): the tests and runs of {}; the original's output is saved under {} for a comparison with a run where the device works (`burn-migrate compare`)",
            unverified.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
            runs_dir.join("before").display()
        ));
        compare(&comparable, &after, options.tolerance)
    };
    Ok(Verdict {
        before,
        after,
        problems,
        skipped,
        notes,
        runs_dir,
    })
}

/// The devices each package of the port at `dir` constructs, and the packages to skip
/// because one of them does not work here (each device probed once, `probes` remembers).
#[allow(clippy::type_complexity)]
fn device_skips(
    dir: &Path,
    known: &BTreeMap<String, devices::Constructor>,
    cache: &Path,
    probes: &mut BTreeMap<String, Result<(), String>>,
    progress: &mut dyn FnMut(&str),
) -> (
    BTreeMap<String, String>,
    BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
) {
    let mut skipped = BTreeMap::new();
    let mut used_by_package = BTreeMap::new();
    for (package, package_dir) in packages(dir) {
        let used = devices::devices_used(&package_dir, known);
        for name in used.keys() {
            let verdict = probes.entry(name.clone()).or_insert_with(|| {
                progress(&format!("checking that `Device::{name}` works here"));
                let verdict = match known.get(name) {
                    Some(device) => devices::check_device(device, cache),
                    None => Err(format!("`Device::{name}` is not a Burn 0.22 device")),
                };
                match &verdict {
                    Ok(()) => progress(&format!("`Device::{name}` works here")),
                    Err(why) => progress(&format!("`Device::{name}` is skipped: {why}")),
                }
                verdict
            });
            if let Err(why) = verdict {
                skipped
                    .entry(package.clone())
                    .or_insert_with(|| why.clone());
            }
        }
        used_by_package.insert(package, used);
    }
    (skipped, used_by_package)
}

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
fn packages(dir: &Path) -> Vec<(String, PathBuf)> {
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

/// Adds the memory-pool watch to the binaries of packages that run on one CubeCL device.
fn install_memory_watch(
    dir: &Path,
    used_by_package: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    known: &BTreeMap<String, devices::Constructor>,
) -> Result<memory_watch::Installed, Error> {
    let mut installed = memory_watch::Installed::default();
    // Skipped packages get the watch too: their binaries may run on another machine.
    for binary in runnables(dir) {
        let Some(used) = used_by_package.get(&binary.package) else {
            continue;
        };
        let pooled: Vec<&String> = used
            .iter()
            .filter(|(name, _)| known.get(*name).is_some_and(|c| c.memory_pools))
            .flat_map(|(_, calls)| calls)
            .collect();
        let [call] = pooled.as_slice() else { continue };
        if let Some(device) = memory_watch::standalone_device(call) {
            memory_watch::install(&binary.main, &device, &mut installed)?;
        }
    }
    Ok(installed)
}

fn save_runs(dir: &Path, side: &SideResult) -> Result<(), Error> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for (binary, stdout) in &side.runs {
        let path = dir.join(format!("{binary}.stdout"));
        std::fs::write(&path, stdout).map_err(|source| Error::Io { path, source })?;
    }
    Ok(())
}

/// How one side is built and run.
struct Plan<'a> {
    target: &'a Path,
    rules: &'a RuleSet,
    options: &'a VerifyOptions,
    commands: &'a [RunCommand],
    run_limit: Duration,
    skipped: &'a BTreeMap<String, String>,
}

fn run_side(dir: &Path, label: &str, plan: &Plan, progress: &mut dyn FnMut(&str)) -> SideResult {
    let Plan {
        target,
        rules,
        options,
        commands,
        run_limit,
        skipped,
    } = *plan;
    let profile: &[&str] = if options.release { &["--release"] } else { &[] };
    let mut side = SideResult::default();
    progress(&format!("{label}: building all targets"));
    let started = Instant::now();
    let build = build(dir, target, profile);
    side.build_time = started.elapsed();
    side.built = build.as_ref().is_ok_and(|(ok, _, _)| *ok);
    match build {
        Ok((_, log, diagnostics)) => {
            side.build_log = log;
            if !side.built {
                side.errors = diagnose::errors(&diagnostics, dir, rules);
                side.diagnostics = diagnostics;
            }
        }
        Err(why) => side.build_log = why.to_string(),
    }
    progress(&format!(
        "{label}: built in {:.1?} ({})",
        side.build_time,
        if side.built { "ok" } else { "failed" }
    ));
    if !side.built {
        return side;
    }
    progress(&format!("{label}: running the tests"));
    run_tests(dir, target, profile, skipped, &mut side);
    let profile_dir = if options.release { "release" } else { "debug" };
    for command in commands {
        if skipped.contains_key(&command.package) {
            continue;
        }
        progress(&format!("{label}: running {}", command.label));
        let path = target.join(profile_dir).join(&command.executable);
        let label = command.label.clone();
        match run_binary(dir, &path, &command.args, run_limit) {
            Ok((stdout, stderr)) => {
                if let Some(report) = memory_watch::report(&stderr) {
                    side.memory.push((label.clone(), report));
                }
                side.runs.push((label, stdout));
            }
            Err(why) => side.failed_runs.push((label, why)),
        }
    }
    side
}

/// The verdict for tools (`--format json`).
pub fn verdict_json(verdict: &Verdict) -> serde_json::Value {
    let side = |side: &SideResult| {
        serde_json::json!({
            "built": side.built,
            "build_s": side.build_time.as_secs_f64(),
            "passed_tests": side.passed_tests,
            "failed_tests": side.failed_tests,
            "runs": side.runs.iter().map(|(b, _)| b).collect::<Vec<_>>(),
            "failed_runs": side.failed_runs.iter().map(|(binary, why)| serde_json::json!({"binary": binary, "why": why})).collect::<Vec<_>>(),
            "memory_pool_peaks": side.memory.iter().map(|(binary, peak)| serde_json::json!({"binary": binary, "peak": peak})).collect::<Vec<_>>(),
            "errors": side.errors.iter().map(|e| serde_json::json!({
                "file": e.file,
                "byte_range": [e.range.start, e.range.end],
                "code": e.code,
                "message": e.message,
                "rule": e.rule,
            })).collect::<Vec<_>>(),
        })
    };
    serde_json::json!({
        "verified": verdict.problems.is_empty(),
        "problems": verdict.problems,
        "skipped_packages": verdict.skipped,
        "notes": verdict.notes,
        "runs_dir": verdict.runs_dir,
        "before": side(&verdict.before),
        "after": side(&verdict.after),
    })
}

/// One line per binary: how it ran on each side, its memory-pool peak, and the verdict; then
/// the packages that were not run and why.
pub fn target_table(verdict: &Verdict) -> String {
    use std::fmt::Write;
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for side in [&verdict.before, &verdict.after] {
        names.extend(side.runs.iter().map(|(b, _)| b.as_str()));
        names.extend(side.failed_runs.iter().map(|(b, _)| b.as_str()));
    }
    let state = |side: &SideResult, name: &str| {
        if side.runs.iter().any(|(b, _)| b == name) {
            "ran".to_string()
        } else if let Some((_, why)) = side.failed_runs.iter().find(|(b, _)| b == name) {
            format!("failed ({why})")
        } else {
            "not run".to_string()
        }
    };
    let after_ran = |name: &str| verdict.after.runs.iter().any(|(b, _)| b == name);
    let mut out = String::new();
    for name in names {
        let problem = verdict
            .problems
            .iter()
            .any(|p| p.starts_with(&format!("`{name}`")));
        let _ = writeln!(
            out,
            "  {name}: 0.21 {}, 0.22 {} -> {}",
            state(&verdict.before, name),
            state(&verdict.after, name),
            match (problem, after_ran(name)) {
                (true, _) => "DIFFERS",
                (false, true) => "ok",
                (false, false) => "not compared",
            }
        );
        if let Some((_, peak)) = verdict.after.memory.iter().find(|(b, _)| b == name) {
            let _ = writeln!(out, "    memory pool (0.22): {peak}");
        }
    }
    for (package, why) in &verdict.skipped {
        let _ = writeln!(out, "  package {package}: built, not run: {why}");
    }
    out
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

/// Builds every target of the workspace: (success, rendered diagnostics, compiler messages).
fn build(
    dir: &Path,
    target: &Path,
    profile: &[&str],
) -> Result<(bool, String, Vec<cargo_metadata::diagnostic::Diagnostic>), Error> {
    let args = [
        &[
            "build",
            "--workspace",
            "--all-targets",
            "--quiet",
            "--message-format=json",
        ],
        profile,
    ]
    .concat();
    let output = crate::util::cargo::run(dir, target, &args)?;
    let diagnostics = diagnose::diagnostics(&String::from_utf8_lossy(&output.stdout));
    // The log reads as cargo would print it: rustc's rendered messages, then cargo's own.
    let mut log: String = diagnostics
        .iter()
        .filter_map(|d| d.rendered.as_deref())
        .collect();
    log.push_str(&String::from_utf8_lossy(&output.stderr));
    Ok((output.status.success(), log, diagnostics))
}

/// Runs the workspace's tests into `side`. Tests always run for the whole workspace, as the
/// build did: selecting packages would resolve Burn's features for them alone and rebuild it.
/// When packages are skipped, their test binaries are left out by running the others
/// directly (without doctests, which only `cargo test` runs).
fn run_tests(
    dir: &Path,
    target: &Path,
    profile: &[&str],
    skipped: &BTreeMap<String, String>,
    side: &mut SideResult,
) {
    let mut record = |stdout: &str| {
        for line in stdout.lines() {
            if let Some(rest) = line.strip_prefix("test ") {
                if let Some(name) = rest.strip_suffix(" ... ok") {
                    side.passed_tests.insert(name.to_string());
                } else if let Some(name) = rest.strip_suffix(" ... FAILED") {
                    side.failed_tests.insert(name.to_string());
                }
            }
        }
    };
    if skipped.is_empty() {
        let args = [&["test", "--workspace", "--no-fail-fast"], profile].concat();
        if let Ok(output) = crate::util::cargo::run(dir, target, &args) {
            record(&String::from_utf8_lossy(&output.stdout));
        }
        return;
    }
    let args = [
        &[
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ],
        profile,
    ]
    .concat();
    let Ok(output) = crate::util::cargo::run(dir, target, &args) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let packages = packages(dir);
    for message in cargo_metadata::Message::parse_stream(stdout.as_bytes()).flatten() {
        let cargo_metadata::Message::CompilerArtifact(artifact) = message else {
            continue;
        };
        let (Some(executable), true) = (&artifact.executable, artifact.profile.test) else {
            continue;
        };
        // The innermost package directory holding the test's source.
        let source = artifact.target.src_path.as_std_path();
        let package = packages
            .iter()
            .filter(|(_, package_dir)| source.starts_with(package_dir))
            .max_by_key(|(_, package_dir)| package_dir.as_os_str().len())
            .map(|(name, _)| name);
        if package.is_some_and(|p| skipped.contains_key(p)) {
            continue;
        }
        let cwd = artifact
            .target
            .src_path
            .as_std_path()
            .ancestors()
            .find(|a| a.join("Cargo.toml").is_file())
            .unwrap_or(dir)
            .to_path_buf();
        if let Ok(run) = Command::new(executable.as_std_path())
            .current_dir(cwd)
            .output()
        {
            record(&String::from_utf8_lossy(&run.stdout));
        }
    }
}

/// Runs one binary (already built) with a time limit, in `dir`: (stdout, stderr) when it
/// succeeded in time, else why not.
fn run_binary(
    dir: &Path,
    binary: &Path,
    args: &[String],
    limit: Duration,
) -> Result<(String, String), String> {
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    // Read both pipes while the child runs, so a chatty program cannot fill one and stall.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {limit:.0?} (--run-limit)"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("lost the process: {e}")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if status.success() {
        Ok((stdout, stderr))
    } else {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        Err(format!("{status}: {last}"))
    }
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

/// One command verify runs on both sides.
#[derive(Debug, Clone)]
struct RunCommand {
    /// How the verdict names it: `train`, `example infer --fast`.
    label: String,
    package: String,
    /// The executable, relative to the profile's directory (`train`, `examples/infer`).
    executable: PathBuf,
    args: Vec<String>,
}

/// What to run: the `[verify]` table's commands, else every binary and example of the
/// original without arguments.
fn run_commands(original: &Path, table: &config::VerifyTable) -> Result<Vec<RunCommand>, Error> {
    let targets = runnables(original);
    let command = |target: &Runnable, args: &[String]| {
        let mut label = if target.example {
            format!("example {}", target.name)
        } else {
            target.name.clone()
        };
        for arg in args {
            label.push(' ');
            label.push_str(arg);
        }
        RunCommand {
            label,
            package: target.package.clone(),
            executable: if target.example {
                PathBuf::from("examples").join(&target.name)
            } else {
                PathBuf::from(&target.name)
            },
            args: args.to_vec(),
        }
    };
    let Some(specs) = &table.run else {
        return Ok(targets.iter().map(|t| command(t, &[])).collect());
    };
    let mut out = Vec::new();
    for spec in specs {
        let (name, example) = match (&spec.bin, &spec.example) {
            (Some(bin), _) => (bin, false),
            (None, Some(example)) => (example, true),
            (None, None) => continue,
        };
        let Some(target) = targets
            .iter()
            .find(|t| t.name == *name && t.example == example)
        else {
            let kind = if example { "example" } else { "bin" };
            return Err(Error::Config {
                path: original.join("burn-migrate.toml"),
                message: format!(
                    "`[verify] run` names {kind} `{name}`, which the workspace does not have; the targets are: {}",
                    targets.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            });
        };
        out.push(command(target, &spec.args));
    }
    Ok(out)
}
