//! Slow tier: every fixture's `before/` builds against Burn 0.21.0 and runs, its `after/`
//! builds against Burn 0.22 (Flex) and runs, and both print the same words and the same
//! numbers within 1e-4. Burn is built once per version and feature set, in a target directory
//! outside the checkout (`$BURN_MIGRATE_CACHE/target`), with the versions `framework/` pins.
//!
//! Run with `cargo test -- --include-ignored` (what `.ci/run` does).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use burn_migrate::compare::{first_difference, Tolerance};
use burn_migrate::verify::{binaries, default_cache};
use common::*;

/// Copies one side of a fixture to scratch space with the framework's lockfile, builds it and
/// runs each binary; returns (binary, stdout) pairs or a description of what failed.
fn build_and_run(
    project: &Path,
    side: &str,
    framework: &str,
    target_dir: &Path,
) -> Result<Vec<(String, String)>, String> {
    let name = project.file_name().unwrap().to_string_lossy().to_string();
    let work = default_cache().join("fixtures").join(&name).join(side);
    if work.exists() {
        std::fs::remove_dir_all(&work).expect("clear scratch copy");
    }
    copy_project(&project.join(side), &work);
    std::fs::copy(
        repo_root()
            .join("framework")
            .join(framework)
            .join("Cargo.lock"),
        work.join("Cargo.lock"),
    )
    .expect("framework lockfile exists");

    let runnable = runnable_binaries(project);
    let mut outputs = Vec::new();
    for (package, binary) in binaries(&work) {
        let started = Instant::now();
        // A binary whose backend has no driver on this machine is built but not run.
        let run = runnable
            .as_ref()
            .is_none_or(|names| names.contains(&binary));
        let verb = if run { "run" } else { "build" };
        let output = Command::new(env!("CARGO"))
            .args([verb, "--quiet", "--package", &package, "--bin", &binary])
            .current_dir(&work)
            .env("CARGO_TARGET_DIR", target_dir)
            .env("CARGO_TERM_COLOR", "never")
            .output()
            .expect("cargo runs");
        eprintln!(
            "{name}/{side}: `cargo {verb}` {package}/{binary} took {:.0?}",
            started.elapsed()
        );
        if !output.status.success() {
            return Err(format!(
                "{name}/{side}: `cargo {verb} --bin {binary}` failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        if run {
            outputs.push((binary, String::from_utf8_lossy(&output.stdout).to_string()));
        }
    }
    Ok(outputs)
}

/// The binaries to run (`fixture.toml`: `[run] binaries = [..]`); `None` runs them all.
fn runnable_binaries(project: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(project.join("fixture.toml")).ok()?;
    let doc: toml_edit::DocumentMut = text.parse().expect("fixture.toml is TOML");
    let list = doc.get("run")?.get("binaries")?.as_array()?;
    Some(
        list.iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
    )
}

/// Whether a fixture's `before/` can build here (`fixture.toml`: `[before] builds = false`).
fn before_builds(project: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(project.join("fixture.toml")) else {
        return true;
    };
    let doc: toml_edit::DocumentMut = text.parse().expect("fixture.toml is TOML");
    doc.get("before")
        .and_then(|b| b.get("builds"))
        .and_then(|b| b.as_bool())
        .unwrap_or(true)
}

#[test]
#[ignore = "slow: builds Burn 0.21 and 0.22; run with --include-ignored"]
fn before_runs_on_burn_0_21_after_on_0_22_and_both_print_the_same() {
    let target_dir = default_cache().join("target");
    let mut failures = Vec::new();
    for project in projects() {
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        let after = build_and_run(&project, "after", "burn-0.22", &target_dir);
        let before = if before_builds(&project) {
            build_and_run(&project, "before", "burn-0.21", &target_dir)
        } else {
            // The 0.21 side cannot build here (LibTorch downloads at build time): compare with
            // the recorded 0.21 output of the same computation.
            let expected = std::fs::read_to_string(project.join("expected-output.txt"))
                .unwrap_or_else(|_| {
                    panic!("{name}: before/ does not build, so expected-output.txt is needed")
                });
            after
                .as_ref()
                .map(|runs| {
                    runs.iter()
                        .map(|(binary, _)| (binary.clone(), expected.clone()))
                        .collect()
                })
                .map_err(|e| e.clone())
        };
        let (before, after) = match (before, after) {
            (Ok(b), Ok(a)) => (b, a),
            (b, a) => {
                failures.extend(b.err());
                failures.extend(a.err());
                continue;
            }
        };
        assert!(!before.is_empty(), "{name} has no binary to run");
        assert_eq!(
            before.iter().map(|(b, _)| b).collect::<Vec<_>>(),
            after.iter().map(|(b, _)| b).collect::<Vec<_>>(),
            "{name}: binaries differ"
        );
        for ((binary, old), (_, new)) in before.iter().zip(&after) {
            assert!(
                old.chars().any(|c| c.is_ascii_digit()),
                "{name}/{binary} printed no numbers:\n{old}"
            );
            if let Some(difference) = first_difference(old, new, Tolerance::default()) {
                failures.push(format!(
                    "{name}/{binary}: {difference}\n--- 0.21\n{old}\n--- 0.22\n{new}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
