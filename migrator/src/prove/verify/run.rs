//! The run stage: one side's tests and binaries (the `[verify]` table's commands, else every
//! binary and example), each with a time limit; what they print is saved for the comparison.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::prove::verify::targets::{packages, runnables, Runnable};
use crate::prove::verify::types::{CargoSelection, SideResult, VerifyOptions};
use crate::prove::verify::{build, config, diagnose, memory_watch};
use crate::rules::RuleSet;

/// How one side is built and run.
pub struct Plan<'a> {
    pub target: &'a Path,
    pub rules: &'a RuleSet,
    pub options: &'a VerifyOptions,
    pub commands: &'a [RunCommand],
    pub run_limit: Duration,
    /// Packages built but not run (their device does not work here), with the reason.
    pub skipped: &'a BTreeMap<String, String>,
}

/// Builds one side, then runs its tests and commands (unless the build failed).
pub fn run_side(
    dir: &Path,
    label: &str,
    plan: &Plan,
    progress: &mut dyn FnMut(&str),
) -> SideResult {
    let Plan {
        target,
        rules,
        options,
        commands,
        run_limit,
        skipped,
    } = *plan;
    let mut selection = options.selection.cargo_args();
    if options.release {
        selection.push("--release".to_string());
    }
    progress(&format!("{label}: building all targets"));
    let mut side = build::build(dir, target, &selection, rules);
    progress(&format!(
        "{label}: built in {:.1?} ({})",
        side.build_time,
        if side.built { "ok" } else { "failed" }
    ));
    if !side.built {
        return side;
    }
    progress(&format!("{label}: running the tests"));
    run_tests(dir, target, &selection, skipped, &mut side);
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
            Err(why) => side.failed_runs.push((label, why.to_string())),
        }
    }
    side
}

/// Builds and runs the port. When the memory watch keeps it from building, the watch comes
/// out and the port builds again; with `--fix`, rustc's suggestions go in until it builds (or
/// none are left). What happened goes into `notes`.
pub fn run_port(
    dir: &Path,
    plan: &Plan,
    watch: memory_watch::Installed,
    notes: &mut Vec<String>,
    progress: &mut dyn FnMut(&str),
) -> Result<SideResult, Error> {
    let mut after = run_side(dir, "Burn 0.22", plan, progress);
    if !after.built && !watch.is_empty() {
        // Never let the watch cost a verdict: without it, the port gets its fair build.
        notes.push("the memory-pool watch kept the port from building; ran without it".into());
        watch.remove()?;
        after = run_side(dir, "Burn 0.22", plan, progress);
    }
    for pass in 1..=plan.options.fix_passes {
        if after.built {
            break;
        }
        let fixed = diagnose::apply_suggestions(&after.diagnostics, dir)?;
        notes.push(format!(
            "--fix pass {pass}: applied {} machine-applicable suggestion(s) from rustc",
            fixed.applied
        ));
        for (file, why) in &fixed.unchanged {
            notes.push(format!(
                "--fix pass {pass}: {} left unchanged: {why}",
                file.display()
            ));
        }
        if fixed.applied == 0 {
            break;
        }
        after = run_side(dir, "Burn 0.22", plan, progress);
    }
    Ok(after)
}

/// Saves what each binary printed under `dir` (`<binary>.stdout`), replacing earlier runs.
pub fn save_runs(dir: &Path, side: &SideResult) -> Result<(), Error> {
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

/// Runs the workspace's tests into `side`, for the packages and features the build used
/// (`selection`; a narrower choice would resolve Burn's features anew and rebuild it): what
/// `cargo test` runs, and the tests of examples, which it only builds (a tutorial's
/// exercises are examples with tests). When packages are skipped, their test binaries are
/// left out by running the others directly (without doctests, which only `cargo test` runs).
fn run_tests(
    dir: &Path,
    target: &Path,
    selection: &[String],
    skipped: &BTreeMap<String, String>,
    side: &mut SideResult,
) {
    let mut seen = BTreeMap::new();
    if skipped.is_empty() {
        for targets in [&[][..], &["--examples"][..]] {
            let mut args = vec!["test", "--no-fail-fast"];
            args.extend(targets);
            args.extend(selection.iter().map(String::as_str));
            if let Ok(output) = crate::util::cargo::run(dir, target, &args) {
                let stdout = String::from_utf8_lossy(&output.stdout);
                // A failed `cargo test` that ran no test binary did not build them: say so,
                // or every test would silently read as gone.
                if !output.status.success() && !stdout.contains("test result:") {
                    let stderr = String::from_utf8_lossy(&output.stderr);
                    let errors: Vec<&str> = (stderr.lines())
                        .filter(|l| l.starts_with("error"))
                        .take(5)
                        .collect();
                    side.tests_not_built.push(format!(
                        "`cargo {}` built no tests:\n{}",
                        args.join(" "),
                        errors.join("\n")
                    ));
                }
                record_tests(&stdout, &mut seen, side);
            }
        }
        return;
    }
    let mut args = vec![
        "test",
        "--no-run",
        "--tests",
        "--examples",
        "--message-format=json-render-diagnostics",
    ];
    args.extend(selection.iter().map(String::as_str));
    let Ok(output) = crate::util::cargo::run(dir, target, &args) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let packages = packages(dir);
    let mut record = |stdout: &str| record_tests(stdout, &mut seen, side);
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

/// Records the outcome of each test `stdout` lists into `side`. Test binaries print bare test
/// names, and several may have a test of one name (each exercise of a tutorial its `check`):
/// the second one `seen` is `check (2)`, and so on. Both sides run the binaries in the same
/// order, so the same test gets the same name.
fn record_tests(stdout: &str, seen: &mut BTreeMap<String, usize>, side: &mut SideResult) {
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let (name, passed) = match (
            rest.strip_suffix(" ... ok"),
            rest.strip_suffix(" ... FAILED"),
        ) {
            (Some(name), _) => (name, true),
            (None, Some(name)) => (name, false),
            (None, None) => continue,
        };
        let count = seen.entry(name.to_string()).or_default();
        *count += 1;
        let name = match *count {
            1 => name.to_string(),
            n => format!("{name} ({n})"),
        };
        if passed {
            side.passed_tests.insert(name);
        } else {
            side.failed_tests.insert(name);
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
) -> Result<(String, String), Error> {
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| Error::StartBinary {
            binary: binary.to_path_buf(),
            source,
        })?;
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
                return Err(Error::RunLimit {
                    binary: binary.to_path_buf(),
                    limit,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(source) => {
                return Err(Error::ProcessLost {
                    binary: binary.to_path_buf(),
                    source,
                })
            }
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
        Err(Error::RunFailed {
            binary: binary.to_path_buf(),
            status,
            last_line: last.to_string(),
        })
    }
}

/// One command verify runs on both sides.
#[derive(Debug, Clone)]
pub struct RunCommand {
    /// How the verdict names it: `train`, `example infer --fast`.
    pub label: String,
    pub package: String,
    /// The executable, relative to the profile's directory (`train`, `examples/infer`).
    executable: PathBuf,
    args: Vec<String>,
}

/// What to run: the `[verify]` table's commands, else every binary and example of the
/// original's selected packages, without arguments.
pub fn run_commands(
    original: &Path,
    table: &config::VerifyTable,
    selection: &CargoSelection,
) -> Result<Vec<RunCommand>, Error> {
    let mut targets = runnables(original);
    targets.retain(|target| selection.includes(&target.package));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_of_one_name_in_several_binaries_are_told_apart() {
        let mut side = SideResult::default();
        let mut seen = BTreeMap::new();
        record_tests("running 1 test\ntest check ... ok\n", &mut seen, &mut side);
        record_tests(
            "running 2 tests\ntest check ... FAILED\ntest other ... ok\n",
            &mut seen,
            &mut side,
        );
        assert_eq!(
            side.passed_tests,
            ["check", "other"].map(String::from).into()
        );
        assert_eq!(side.failed_tests, ["check (2)".to_string()].into());
    }
}
