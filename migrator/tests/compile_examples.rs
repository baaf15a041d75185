//! Slow tier: every rule example compiles twice, `before` against Burn 0.21.0 and `after`
//! against Burn 0.22, as modules of one generated crate per version (so Burn is checked once
//! per version). Examples that need a backend this machine cannot build (`needs`) are listed
//! and skipped. An example without `after` (code a rule must leave alone) stays as it is, so
//! its `before` is checked against both versions: leaving it alone is right only if it
//! already compiles against 0.22.
//!
//! The hand-written pages' code blocks go into the same crates, as their fences say
//! (`book_code`).
//!
//! Run with `cargo test -- --include-ignored` (what `.ci/run` does).

mod common;

use burn_migrate::prove::verify::default_cache;
use burn_migrate::rules::{Category, RuleSet};
use common::*;

/// Burn features the example crates enable, per version.
const FEATURES_0_21: &[&str] = &["ndarray", "flex", "autodiff", "dataset", "train", "store"];
const FEATURES_0_22: &[&str] = &["flex", "autodiff", "dataset", "train", "extension", "store"];
/// What an example may `need` here (the baseline of each version covers these).
const AVAILABLE: &[&str] = &[
    "ndarray",
    "flex",
    "autodiff",
    "dataset",
    "train",
    "extension",
    "store",
];

/// Writes the example crate for one side and runs `cargo check`; returns the errors.
fn check_side(
    side: &str,
    burn: &str,
    framework: &str,
    features: &[&str],
    examples: &[(String, String)],
) -> Option<String> {
    let dir = default_cache().join("rule-examples").join(side);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let features: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"rule-examples-{side}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nburn = {{ version = \"{burn}\", features = [{}] }}\n",
            features.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(
        repo_root()
            .join("framework")
            .join(framework)
            .join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    let mut lib = String::from(
        "//! Generated from rules/*.toml by the compile_examples test.\n#![allow(warnings)]\n\n",
    );
    for (module, text) in examples {
        lib.push_str(&format!("mod {module};\n"));
        std::fs::write(dir.join("src").join(format!("{module}.rs")), text).unwrap();
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();

    // The same environment as verify's builds, so build scripts and proc macros compiled
    // for this check are the ones those builds reuse.
    let output = burn_migrate::util::cargo::command(&dir, &default_cache().join("target"))
        .args(["check", "--lib", "--message-format=short"])
        .output()
        .expect("cargo runs");
    if output.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    Some(format!(
        "{side}: {} error line(s):\n{}",
        errors.len(),
        errors.join("\n")
    ))
}

#[test]
#[ignore = "slow: checks every rule example against Burn 0.21 and 0.22; run with --include-ignored"]
fn before_compiles_on_burn_0_21_and_after_on_0_22() {
    let rules = RuleSet::embedded().unwrap();
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut skipped = Vec::new();
    for rule in rules.iter().filter(|r| r.category != Category::Cargo) {
        for (i, example) in rule.examples.iter().enumerate() {
            let module = format!(
                "{}_{}",
                rule.id.replace('-', "_"),
                example.name(i).replace('-', "_")
            );
            if let Some(missing) = example
                .needs
                .iter()
                .find(|n| !AVAILABLE.contains(&n.as_str()))
            {
                skipped.push(format!("{module} (needs `{missing}`)"));
                continue;
            }
            // An example without `after` is code the migrator leaves byte for byte
            // (rule_examples checks that), so its `before` is also its 0.22 port.
            let port = example.after.as_ref().unwrap_or(&example.before);
            before.push((module.clone(), example.before.clone()));
            after.push((module, port.clone()));
        }
    }
    // The guide's own code blocks, each as a module of the side its fence names (`book_code`);
    // blocks that need more `burn` features (CubeCL's `wgpu`) go into a crate of their own
    // per feature set, so the rest is not checked with them.
    let mut with_features: std::collections::BTreeMap<Vec<String>, Vec<(String, String)>> =
        Default::default();
    for block in book_blocks() {
        let module = format!(
            "book_{}_{}",
            block
                .page
                .trim_end_matches(".md")
                .replace(['/', '-', '.'], "_"),
            block.line
        );
        match block.check {
            BlockCheck::Burn021 => before.push((module, block.code)),
            BlockCheck::Burn022(extra) if extra.is_empty() => after.push((module, block.code)),
            BlockCheck::Burn022(extra) => {
                (with_features.entry(extra).or_default()).push((module, block.code))
            }
            _ => {}
        }
    }
    eprintln!(
        "checking {} examples and guide blocks before, {} after; skipped: {skipped:?}",
        before.len(),
        after.len()
    );
    let mut failures: Vec<String> = [
        check_side("before", "=0.21.0", "burn-0.21", FEATURES_0_21, &before),
        check_side("after", "0.22.0", "burn-0.22", FEATURES_0_22, &after),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (extra, blocks) in &with_features {
        let side = format!("after-{}", extra.join("-"));
        let features: Vec<&str> = (FEATURES_0_22.iter().copied())
            .chain(extra.iter().map(String::as_str))
            .collect();
        eprintln!("checking {} guide blocks with {extra:?}", blocks.len());
        failures.extend(check_side(&side, "0.22.0", "burn-0.22", &features, blocks));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
