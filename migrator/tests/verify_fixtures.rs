//! Slow tier: `burn-migrate verify` passes on every fixture. Its `before/` builds and runs
//! against Burn 0.21.0, the live migration against Burn 0.22 (Flex, unless the original chose
//! another backend), the same tests pass and the binaries print the same words and the same
//! numbers within 1e-4. Burn is built once per version and feature set, in the shared target
//! directory outside the checkout (`$BURN_MIGRATE_CACHE/target`).
//!
//! Run with `cargo test -- --include-ignored` (what `.ci/run` does).

mod common;

use std::path::Path;
use std::time::Duration;

use burn_migrate::prove::compare::{first_difference, Tolerance};
use burn_migrate::prove::verify::{verify, VerifyOptions};
use burn_migrate::rules::RuleSet;
use common::*;

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
#[ignore = "slow: builds and runs every fixture on Burn 0.21 and 0.22; run with --include-ignored"]
fn verify_passes_on_every_fixture() {
    let rules = RuleSet::embedded().unwrap();
    let options = VerifyOptions {
        run_limit: Duration::from_secs(300),
        ..VerifyOptions::default()
    };
    let mut failures = Vec::new();
    for project in projects() {
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        let verdict = verify(&project.join("before"), &rules, &options, &mut |step| {
            eprintln!("{name}: {step}")
        })
        .unwrap_or_else(|e| panic!("{name}: verify failed to run: {e}"));
        assert!(verdict.after.built, "{name}: {}", verdict.after.build_log);
        // Packages are skipped only for a device that does not work here, and say so.
        for (package, why) in &verdict.skipped {
            assert!(
                why.contains("vulkan") || why.contains("Device::"),
                "{name}/{package}: {why}"
            );
        }

        if before_builds(&project) {
            failures.extend(verdict.problems.iter().map(|p| format!("{name}: {p}")));
            assert!(verdict.before.built, "{name}: {}", verdict.before.build_log);
            assert!(
                !verdict.before.runs.is_empty(),
                "{name} has no binary that ran"
            );
            assert_eq!(
                verdict
                    .before
                    .runs
                    .iter()
                    .map(|(b, _)| b)
                    .collect::<Vec<_>>(),
                verdict
                    .after
                    .runs
                    .iter()
                    .map(|(b, _)| b)
                    .collect::<Vec<_>>(),
                "{name}: the same binaries run on both sides"
            );
            for (binary, stdout) in &verdict.before.runs {
                assert!(
                    stdout.chars().any(|c| c.is_ascii_digit()),
                    "{name}/{binary} printed no numbers:\n{stdout}"
                );
            }
        } else {
            // The 0.21 side cannot build here (LibTorch downloads at build time): verify says
            // it compared nothing, and the port is compared with the recorded 0.21 output of
            // the same computation.
            assert!(
                matches!(verdict.problems.as_slice(), [only] if only.starts_with("the original does not build")),
                "{name}: {:?}",
                verdict.problems
            );
            let expected = std::fs::read_to_string(project.join("expected-output.txt"))
                .unwrap_or_else(|_| {
                    panic!("{name}: before/ does not build, so expected-output.txt is needed")
                });
            assert!(
                !verdict.after.runs.is_empty(),
                "{name}: the port ran nothing"
            );
            for (binary, stdout) in &verdict.after.runs {
                if let Some(difference) = first_difference(&expected, stdout, Tolerance::default())
                {
                    failures.push(format!("{name}/{binary}: {difference}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
