//! Slow tier: `burn-migrate verify` passes on a fixture, and fails with a clear message on a
//! port that prints another number or loses a test; `burn-migrate bench` measures both sides.

mod common;

use std::process::Command;

use burn_migrate::rules::RuleId;
use common::*;

fn verify(project: &std::path::Path, migrated: Option<&std::path::Path>) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_burn-migrate"));
    command.arg("verify").arg(project);
    if let Some(port) = migrated {
        command.arg("--migrated").arg(port);
    }
    let out = command.output().expect("burn-migrate runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
#[ignore = "slow: builds and runs a fixture on Burn 0.21 and 0.22; run with --include-ignored"]
fn verify_and_bench_on_a_fixture() {
    let project = projects()
        .into_iter()
        .find(|p| p.ends_with("mlp-regression"))
        .expect("fixture");
    let (code, stderr) = verify(&project.join("before"), None);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("1 test(s) passed"), "{stderr}");

    // A port that trains with another learning rate prints other numbers.
    let scratch = tempfile::tempdir().unwrap();
    let port = scratch.path().join("port");
    copy_project(&project.join("after"), &port);
    let training = port.join("src/training.rs");
    let text = std::fs::read_to_string(&training).unwrap();
    std::fs::write(
        &training,
        text.replace("#[config(default = 0.05)]", "#[config(default = 0.07)]"),
    )
    .unwrap();
    let (code, stderr) = verify(&project.join("before"), Some(&port));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("`mlp-regression` prints something else"),
        "{stderr}"
    );

    // A port that lost its test.
    copy_project(&project.join("after"), &port);
    let data = port.join("src/data.rs");
    let text = std::fs::read_to_string(&data).unwrap();
    let without_tests = &text[..text.find("#[cfg(test)]").expect("the fixture has tests")];
    std::fs::write(&data, without_tests).unwrap();
    let (code, stderr) = verify(&project.join("before"), Some(&port));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("test `data::tests::one_target_per_row` passed before and does not after"),
        "{stderr}"
    );

    // A port that does not build: the error is shown with the rule that covers it.
    copy_project(&project.join("after"), &port);
    let main = port.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        text.replacen(
            "\nfn main",
            "\nuse burn::record::CompactRecorder;\n\nfn main",
            1,
        ),
    )
    .unwrap();
    let (code, stderr) = verify(&project.join("before"), Some(&port));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the port does not build"), "{stderr}");
    assert!(stderr.contains("E0432"), "{stderr}");
    assert!(
        stderr.contains("covered by rule `recorder-types`"),
        "{stderr}"
    );
    // The same verdict for tools.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["verify", "--format", "json", "--migrated"])
        .arg(&port)
        .arg(project.join("before"))
        .output()
        .expect("burn-migrate runs");
    assert_eq!(out.status.code(), Some(1));
    let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(verdict["verified"], false);
    assert_eq!(verdict["before"]["built"], true);
    assert_eq!(verdict["after"]["errors"][0]["code"], "E0432");
    assert_eq!(
        verdict["after"]["errors"][0]["rule"],
        RuleId::RecorderTypes.as_str()
    );

    bench_reports_both_rebuild_times_and_their_ratio();
}

/// Runs after the verify checks, in the same test: verify and bench build the same fixture
/// into the shared target directory, and binaries of one name must not be rebuilt under a run.
fn bench_reports_both_rebuild_times_and_their_ratio() {
    let project = projects()
        .into_iter()
        .find(|p| p.ends_with("mlp-regression"))
        .expect("fixture");
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .arg("bench")
        .arg(project.join("before"))
        .output()
        .expect("burn-migrate runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Timings are noisy: the test checks that both were measured, not how they compare.
    eprintln!("{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("dev") && l.contains("Burn 0.21")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("dev") && l.contains("Burn 0.22")),
        "{stdout}"
    );
    assert!(
        stdout.contains("rebuild ratio 0.21/0.22:") && stdout.contains("src/model.rs"),
        "{stdout}"
    );
}
