//! Properties of the port over generated and mutated Burn code: no panic whatever the input; a
//! file that parses before the port parses after it; porting the port changes nothing (apply
//! twice = apply once).
//!
//! The inputs are every rule example and every fixture's source, each mutated the way code
//! is half-edited (lines dropped, doubled, swapped or spliced from another file, a span of
//! characters cut, the file truncated), from a deterministic generator: iteration `i` is the
//! same input on every machine. `BURN_MIGRATE_PROPERTY_ITERATIONS` sets how many (default
//! 300, what `.ci/run` runs); `BURN_MIGRATE_PROPERTY_START` the first iteration, to replay one.
//! The long run is recorded in `testdata/measurements/properties.md`.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use burn_migrate::migrate::migrate_text;
use burn_migrate::rules::RuleSet;
use common::*;

/// The seed texts: rule examples (before and after) and the fixtures' Rust sources.
fn seeds(rules: &RuleSet) -> Vec<String> {
    let mut out = Vec::new();
    for rule in rules.iter() {
        for example in &rule.examples {
            out.push(example.before.clone());
            out.extend(example.after.clone());
        }
    }
    for project in projects() {
        for (name, text) in tree_files(&project.join("before")) {
            if name.ends_with(".rs") {
                out.push(text);
            }
        }
    }
    out
}

/// The byte index of the char boundary at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Iteration `i`'s input: one seed, mutated one to three times.
fn input(i: u64, seeds: &[String]) -> String {
    let mut rng = Rng::new(i);
    let mut text = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(3) {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        match rng.below(7) {
            0 if !lines.is_empty() => {
                let at = rng.below(lines.len());
                lines.remove(at);
            }
            1 if !lines.is_empty() => {
                let at = rng.below(lines.len());
                let line = lines[at].clone();
                lines.insert(at, line);
            }
            2 if lines.len() > 1 => {
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
            }
            3 => {
                let other: Vec<&str> = seeds[rng.below(seeds.len())].lines().collect();
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let count = 1 + rng.below(8);
                    let at = rng.below(lines.len() + 1);
                    let spliced: Vec<String> = other[from..(from + count).min(other.len())]
                        .iter()
                        .map(|l| l.to_string())
                        .collect();
                    lines.splice(at..at, spliced);
                }
            }
            4 if !text.is_empty() => {
                let start = floor_boundary(&text, rng.below(text.len()));
                let end = floor_boundary(&text, start + 1 + rng.below(40));
                text.replace_range(start..end, "");
                continue;
            }
            5 if !text.is_empty() => {
                let at = floor_boundary(&text, rng.below(text.len()));
                text.truncate(at);
                continue;
            }
            _ => {
                // A Burn-looking token dropped in somewhere.
                const TOKENS: &[&str] = &[
                    "<B: Backend>",
                    "Tensor<B, 2>",
                    "B::Device",
                    "PhantomData<B>",
                    "::<B>",
                    "Default::default()",
                    "#[derive(Module, Debug)]",
                    "{",
                    "}",
                    "// burn-migrate: allow(backend-generic-param)",
                ];
                let at = floor_boundary(&text, rng.below(text.len() + 1));
                text.insert_str(at, TOKENS[rng.below(TOKENS.len())]);
                continue;
            }
        }
        text = lines.join("\n");
        text.push('\n');
    }
    text
}

fn parses(text: &str) -> bool {
    ra_ap_syntax::SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021)
        .errors()
        .is_empty()
}

/// What is wrong with the port of `text`, if anything.
fn check(text: &str, rules: &RuleSet) -> Option<String> {
    let once = match catch_unwind(AssertUnwindSafe(|| migrate_text(text, rules))) {
        Err(_) => return Some("the port panicked".to_string()),
        Ok(Err(error)) => return Some(format!("the port failed: {error}")),
        Ok(Ok(outcome)) => outcome.migrated,
    };
    if parses(text) && !parses(&once) {
        return Some(format!("parsed before the port, not after:\n{once}"));
    }
    let twice = match catch_unwind(AssertUnwindSafe(|| migrate_text(&once, rules))) {
        Err(_) => return Some("porting the port panicked".to_string()),
        Ok(Err(error)) => return Some(format!("porting the port failed: {error}")),
        Ok(Ok(outcome)) => outcome.migrated,
    };
    (twice != once).then(|| {
        let diff = similar::TextDiff::from_lines(&once, &twice)
            .unified_diff()
            .header("once", "twice")
            .to_string();
        format!("porting the port changed it:\n{diff}")
    })
}

#[test]
fn mutated_burn_code_never_panics_keeps_parsing_and_ports_once() {
    let rules = RuleSet::embedded().unwrap();
    let seeds = seeds(&rules);
    assert!(seeds.len() > 100, "too few seeds: {}", seeds.len());
    let start = env_number("BURN_MIGRATE_PROPERTY_START", 0);
    let count = env_number("BURN_MIGRATE_PROPERTY_ITERATIONS", 300);
    // Panics are caught and reported with their input; the default hook would print each.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    for i in start..start + count {
        let text = input(i, &seeds);
        if let Some(problem) = check(&text, &rules) {
            failures.push(format!(
                "iteration {i} (replay: BURN_MIGRATE_PROPERTY_START={i} BURN_MIGRATE_PROPERTY_ITERATIONS=1): {problem}\ninput:\n{text}"
            ));
            if failures.len() >= 3 {
                break;
            }
        }
    }
    let _ = std::panic::take_hook();
    assert!(
        failures.is_empty(),
        "{} failing input(s), the first ones:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
