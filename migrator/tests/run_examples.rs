//! Slow tier: the running proof that safe rewrites keep what a program computes (issue 30).
//!
//! - Every example of a safe rule that has a `main` and needs only what this machine runs
//!   runs on both versions: `before` against Burn 0.21.0 on the backend its code names, its
//!   `after` (the tool's output: `rule_examples` checks that) against Burn 0.22 on the device
//!   the port chose. They must print the same words and numbers, integer and float dtypes
//!   included.
//! - A differential test of the backend mapping: small tensor programs generated from a fixed
//!   seed (float, int and bool tensors; arithmetic, reductions, `argmax` with NaN, casts, each
//!   kind's `into_data`) run on 0.21's NdArray and, ported by the tool, on the 0.22 device it
//!   chose. Each case prints its dtype and values; a case may differ only where
//!   `book/src/behaviour-changes.md` lists the change (`KNOWN_CHANGES`).
//!
//! Both run through `burn-migrate verify` (`VerifyOptions::migrated`: the examples' `after`
//! and the tool's port are the port), as binaries of one crate per version, so Burn is built
//! once per version with the features of the `mlp-regression` fixture plus 0.21's Flex.
//!
//! Run with `cargo test -- --include-ignored` (what `.ci/run` does).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use burn_migrate::migrate::migrate_text;
use burn_migrate::prove::compare::{first_difference, Tolerance};
use burn_migrate::prove::verify::{default_cache, verify, VerifyOptions};
use burn_migrate::rules::{Applicability, Category, RuleSet, Severity};
use common::*;

const FEATURES_0_21: &[&str] = &["ndarray", "flex", "autodiff"];
const FEATURES_0_22: &[&str] = &["flex", "autodiff"];

/// The binary that runs the generated cases.
const DIFFERENTIAL: &str = "differential";

/// Operations whose result may change on NaN input between 0.21's NdArray and 0.22, each with
/// the heading of `behaviour-changes.md` that says so. Measured by this test: `argmax`,
/// `argmin`, `max`, `min` and `min_dim` changed on the generated NaN inputs, and `int()`
/// panicked on 0.21 and gives 0 on 0.22.
const KNOWN_CHANGES: &[(&str, &str)] = &[
    ("argmax", "## NaN in `argmax`, `max` and the other extrema"),
    ("argmin", "## NaN in `argmax`, `max` and the other extrema"),
    ("max", "## NaN in `argmax`, `max` and the other extrema"),
    ("min", "## NaN in `argmax`, `max` and the other extrema"),
    ("max_dim", "## NaN in `argmax`, `max` and the other extrema"),
    ("min_dim", "## NaN in `argmax`, `max` and the other extrema"),
    ("float_to_int", "## NaN cast to integers no longer panics"),
];

/// A crate with one binary per `(name, source)`.
fn write_crate(dir: &Path, burn: &str, features: &[&str], binaries: &[(String, String)]) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    std::fs::create_dir_all(dir.join("src/bin")).unwrap();
    let features: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"run-examples\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nburn = {{ version = \"{burn}\", features = [{}] }}\n",
            features.join(", ")
        ),
    )
    .unwrap();
    for (name, source) in binaries {
        let text = format!("#![allow(warnings)]\n{source}");
        std::fs::write(dir.join("src/bin").join(format!("{name}.rs")), text).unwrap();
    }
}

/// The examples that run here: safe rules' examples with a `main` and an `after`, needing no
/// feature beyond the crates' own. (binary name, before, after).
fn runnable_examples(rules: &RuleSet) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for rule in rules.iter() {
        if rule.category == Category::Cargo || rule.applicability != Applicability::Safe {
            continue;
        }
        for (i, example) in rule.examples.iter().enumerate() {
            let Some(after) = &example.after else {
                continue;
            };
            let runs_here = (example.needs.iter()).all(|n| FEATURES_0_21.contains(&n.as_str()));
            if !example.before.contains("fn main()") || !runs_here {
                continue;
            }
            let name = format!("{}-{}", rule.id, example.name(i));
            out.push((name, example.before.clone(), after.clone()));
        }
    }
    out
}

/// A small deterministic generator (an LCG: the cases must be the same on every run).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A float in [-3, 3) with two decimals.
    fn float(&mut self) -> f32 {
        (self.next() % 600) as f32 / 100.0 - 3.0
    }

    fn int(&mut self) -> i64 {
        (self.next() % 41) as i64 - 20
    }
}

/// One result kind of a case: how the program prints it.
#[derive(Clone, Copy)]
enum Kind {
    Float,
    Int,
    Bool,
}

/// The operations cases apply to the inputs `a`, `b` (float), `i`, `j` (int) and `m` (bool),
/// each `[2, 3]`: (name, expression, result kind, whether it reads `a`).
const OPERATIONS: &[(&str, &str, Kind, bool)] = &[
    ("add", "a.clone().add(b.clone())", Kind::Float, true),
    ("mul_scalar", "a.clone().mul_scalar(2.5)", Kind::Float, true),
    ("div", "a.clone().div(b.clone())", Kind::Float, true),
    ("exp", "a.clone().exp()", Kind::Float, true),
    ("abs_sqrt", "a.clone().abs().sqrt()", Kind::Float, true),
    ("powf_scalar", "a.clone().powf_scalar(2.0)", Kind::Float, true),
    ("clamp", "a.clone().clamp(-1.0, 1.0)", Kind::Float, true),
    ("sum", "a.clone().sum()", Kind::Float, true),
    ("mean", "a.clone().mean()", Kind::Float, true),
    ("sum_dim", "a.clone().sum_dim(1)", Kind::Float, true),
    ("mean_dim", "a.clone().mean_dim(0)", Kind::Float, true),
    ("max", "a.clone().max()", Kind::Float, true),
    ("min", "a.clone().min()", Kind::Float, true),
    ("max_dim", "a.clone().max_dim(1)", Kind::Float, true),
    ("min_dim", "a.clone().min_dim(0)", Kind::Float, true),
    (
        "matmul",
        "a.clone().matmul(b.clone().transpose())",
        Kind::Float,
        true,
    ),
    (
        "softmax",
        "burn::tensor::activation::softmax(a.clone(), 1)",
        Kind::Float,
        true,
    ),
    ("mask_fill", "a.clone().mask_fill(m.clone(), 0.5)", Kind::Float, true),
    ("int_to_float", "i.clone().float()", Kind::Float, false),
    ("argmax", "a.clone().argmax(1)", Kind::Int, true),
    ("argmin", "a.clone().argmin(0)", Kind::Int, true),
    ("float_to_int", "a.clone().int()", Kind::Int, true),
    ("int_add", "i.clone().add(j.clone())", Kind::Int, false),
    ("int_mul_scalar", "i.clone().mul_scalar(3)", Kind::Int, false),
    ("int_sum", "i.clone().sum()", Kind::Int, false),
    ("int_div_scalar", "i.clone().div_scalar(2)", Kind::Int, false),
    ("int_remainder", "i.clone().remainder_scalar(3)", Kind::Int, false),
    ("int_max_dim", "i.clone().max_dim(1)", Kind::Int, false),
    (
        "arange",
        "Tensor::<NdArray, 1, Int>::arange(0..5, &device)",
        Kind::Int,
        false,
    ),
    (
        "beyond_i32",
        "Tensor::<NdArray, 1, Int>::from_data(TensorData::from([3_000_000_000i64, -5]), &device).mul_scalar(2)",
        Kind::Int,
        false,
    ),
    ("bool_to_int", "m.clone().int()", Kind::Int, false),
    ("greater", "a.clone().greater(b.clone())", Kind::Bool, true),
    ("int_equal", "i.clone().equal(j.clone())", Kind::Bool, false),
    ("bool_not", "m.clone().bool_not()", Kind::Bool, false),
    ("is_nan", "a.clone().is_nan()", Kind::Bool, true),
];

/// The generated 0.21 program: every operation on inputs drawn from `seed`, and each that
/// reads `a` once more with a NaN in `a`. Returns the source and each case's operation.
fn differential_program(seed: u64) -> (String, BTreeMap<String, &'static str>) {
    let mut numbers = Numbers(seed);
    let mut cases = BTreeMap::new();
    let mut body = String::new();
    for (round, with_nan) in [(0, false), (1, true)] {
        for (operation, expression, kind, reads_a) in OPERATIONS {
            if with_nan && !reads_a {
                continue;
            }
            let floats = |n: &mut Numbers| -> Vec<String> {
                (0..6).map(|_| format!("{:.2}", n.float())).collect()
            };
            let mut a = floats(&mut numbers);
            if with_nan {
                a[(numbers.next() % 6) as usize] = "f32::NAN".into();
            }
            let b = floats(&mut numbers);
            let i: Vec<String> = (0..6).map(|_| format!("{}", numbers.int())).collect();
            let j: Vec<String> = (0..6).map(|_| format!("{}", numbers.int())).collect();
            let m: Vec<String> = (0..6)
                .map(|_| numbers.next().is_multiple_of(2).to_string())
                .collect();
            let grid = |v: &[String], suffix: &str| {
                format!(
                    "[[{}], [{}]]",
                    (v[..3].iter().map(|x| format!("{x}{suffix}")))
                        .collect::<Vec<_>>()
                        .join(", "),
                    (v[3..].iter().map(|x| format!("{x}{suffix}")))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let name = format!("{operation}-{round}");
            let show = match kind {
                Kind::Float => "show_float",
                Kind::Int => "show_int",
                Kind::Bool => "show_bool",
            };
            body.push_str(&format!(
                "    case(\"{name}\", || {{
        let a = Tensor::<NdArray, 2>::from_data(TensorData::from({a}), &device);
        let b = Tensor::<NdArray, 2>::from_data(TensorData::from({b}), &device);
        let i = Tensor::<NdArray, 2, Int>::from_data(TensorData::from({i}), &device);
        let j = Tensor::<NdArray, 2, Int>::from_data(TensorData::from({j}), &device);
        let m = Tensor::<NdArray, 2, Bool>::from_data(TensorData::from({m}), &device);
        {show}({expression})
    }});
",
                a = grid(&a, "f32").replace("f32::NANf32", "f32::NAN"),
                b = grid(&b, "f32"),
                i = grid(&i, "i64"),
                j = grid(&j, "i64"),
                m = grid(&m, ""),
            ));
            cases.insert(name, *operation);
        }
    }
    let source = format!(
        "use burn::backend::ndarray::NdArrayDevice;
use burn::backend::NdArray;
use burn::prelude::*;
use burn::tensor::TensorData;

fn case(name: &str, run: impl FnOnce() -> String) {{
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .unwrap_or_else(|_| \"panicked\".to_string());
    println!(\"{{name}}: {{out}}\");
}}

fn show_float<const D: usize>(t: Tensor<NdArray, D>) -> String {{
    let (dims, dtype) = (t.dims(), t.dtype());
    let values: Vec<f64> = t.into_data().iter::<f64>().collect();
    format!(\"{{dtype:?}} {{dims:?}} {{values:?}}\")
}}

fn show_int<const D: usize>(t: Tensor<NdArray, D, Int>) -> String {{
    let (dims, dtype) = (t.dims(), t.dtype());
    let data = t.into_data();
    let values = match data.to_vec::<i64>() {{
        Ok(values) => format!(\"{{values:?}}\"),
        Err(_) => \"not i64\".to_string(),
    }};
    format!(\"{{dtype:?}} {{dims:?}} {{values}}\")
}}

fn show_bool<const D: usize>(t: Tensor<NdArray, D, Bool>) -> String {{
    let dims = t.dims();
    let values: Vec<bool> = t.into_data().iter::<bool>().collect();
    format!(\"{{dims:?}} {{values:?}}\")
}}

fn main() {{
    std::panic::set_hook(Box::new(|_| {{}}));
    let device = NdArrayDevice::Cpu;
{body}}}
"
    );
    (source, cases)
}

/// `name: output` lines, by name.
fn case_lines(stdout: &str) -> BTreeMap<&str, &str> {
    stdout
        .lines()
        .filter_map(|line| line.split_once(": "))
        .collect()
}

#[test]
#[ignore = "slow: builds and runs rule examples and generated programs on Burn 0.21 and 0.22; run with --include-ignored"]
fn examples_and_generated_programs_compute_the_same_on_both_versions() {
    let rules = RuleSet::embedded().unwrap();
    let examples = runnable_examples(&rules);
    assert!(
        examples.len() >= 8,
        "only {} examples run; the filter is wrong",
        examples.len()
    );
    let (program, cases) = differential_program(0x5eed_2026);
    let port = migrate_text(&program, &rules).unwrap();
    assert!(port.error.is_none(), "{:?}", port.error);
    // Ported whole: what is left are notices of behaviour changes (`nan-extrema`), which
    // compile and are what the comparison below checks.
    let left: Vec<_> = (port.changes.iter())
        .filter(|c| c.fix.is_none())
        .map(|c| rules.rule(c.rule).unwrap())
        .filter(|rule| rule.severity() != Severity::Warning)
        .map(|rule| rule.id.clone())
        .collect();
    assert!(
        left.is_empty(),
        "the generated program is ported whole: {left:?}"
    );

    let root = default_cache().join("run-examples");
    let mut before: Vec<(String, String)> = (examples.iter())
        .map(|(name, before, _)| (name.clone(), before.clone()))
        .collect();
    let mut after: Vec<(String, String)> = (examples.iter())
        .map(|(name, _, after)| (name.clone(), after.clone()))
        .collect();
    before.push((DIFFERENTIAL.into(), program));
    after.push((DIFFERENTIAL.into(), port.migrated.clone()));
    write_crate(&root.join("before"), "=0.21.0", FEATURES_0_21, &before);
    write_crate(&root.join("after"), "0.22.0", FEATURES_0_22, &after);

    let options = VerifyOptions {
        migrated: Some(root.join("after")),
        run_limit: Duration::from_secs(300),
        ..VerifyOptions::default()
    };
    let verdict = verify(&root.join("before"), &rules, &options, &mut |step| {
        eprintln!("run-examples: {step}")
    })
    .unwrap();
    assert!(verdict.before.built, "{}", verdict.before.build_log);
    assert!(verdict.after.built, "{}", verdict.after.build_log);
    let ran: Vec<&String> = verdict.after.runs.iter().map(|(b, _)| b).collect();
    assert_eq!(ran.len(), before.len(), "every binary ran: {ran:?}");

    // The examples: what verify compares, all of it.
    let example_problems: Vec<&String> = (verdict.problems.iter())
        .filter(|p| !p.contains(DIFFERENTIAL))
        .collect();
    assert!(example_problems.is_empty(), "{example_problems:#?}");

    // The generated cases, one line each.
    let output = |side: &burn_migrate::prove::verify::SideResult| {
        (side.runs.iter())
            .find(|(binary, _)| binary.contains(DIFFERENTIAL))
            .map(|(_, stdout)| stdout.clone())
            .expect("the differential program ran")
    };
    let (old, new) = (output(&verdict.before), output(&verdict.after));
    let (old_lines, new_lines) = (case_lines(&old), case_lines(&new));
    assert_eq!(old_lines.len(), cases.len(), "{old}");
    assert_eq!(new_lines.len(), cases.len(), "{new}");
    let guide = std::fs::read_to_string(repo_root().join("book/src/behaviour-changes.md")).unwrap();
    let mut unexplained = Vec::new();
    let mut changed = Vec::new();
    for (name, operation) in &cases {
        let (was, is) = (old_lines[name.as_str()], new_lines[name.as_str()]);
        let Some(difference) = first_difference(was, is, Tolerance::default()) else {
            continue;
        };
        changed.push(format!("{name}: {was} -> {is}"));
        let known = KNOWN_CHANGES
            .iter()
            .find(|(op, _)| op == operation)
            .filter(|(_, heading)| guide.contains(heading));
        if known.is_none() || name.ends_with("-0") {
            unexplained.push(format!("{name}: {difference}\n  0.21: {was}\n  0.22: {is}"));
        }
    }
    eprintln!("cases that changed, as behaviour-changes.md lists:\n{changed:#?}");
    assert!(
        unexplained.is_empty(),
        "cases computed differently with no entry in book/src/behaviour-changes.md:\n{}",
        unexplained.join("\n")
    );
}
