//! The compare stage: what worked on Burn 0.21 and does not on Burn 0.22, in words.

use std::collections::BTreeSet;

use crate::prove::compare::{first_difference, Tolerance};
use crate::prove::verify::run::RunCommand;
use crate::prove::verify::types::SideResult;

/// Everything that worked on the original (`before`) and does not on the port (`after`), in
/// words. The tests and commands of `unverified` packages (their device does not work here)
/// are not compared.
pub fn problems(
    before: &SideResult,
    after: &SideResult,
    commands: &[RunCommand],
    unverified: &BTreeSet<&String>,
    tolerance: Tolerance,
) -> Vec<String> {
    if unverified.is_empty() {
        return compare(before, after, tolerance);
    }
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
    compare(&comparable, after, tolerance)
}

fn compare(before: &SideResult, after: &SideResult, tolerance: Tolerance) -> Vec<String> {
    let errors = |side: &SideResult| -> String {
        let lines: Vec<&str> = (side.build_log.lines())
            .filter(|l| l.starts_with("error"))
            .take(10)
            .collect();
        lines.join("\n")
    };
    // Nothing to compare against is no proof: a port is verified only against an original
    // that built (fix its build on Burn 0.21 first, or choose its packages and features).
    if !before.built {
        return vec![format!(
            "the original does not build against Burn 0.21, so nothing was compared:\n{}",
            errors(before)
        )];
    }
    let mut problems = Vec::new();
    if !after.built {
        problems.push(format!("the port does not build:\n{}", errors(after)));
    }
    for (side, failures) in [
        ("original", &before.tests_not_built),
        ("port", &after.tests_not_built),
    ] {
        for failure in failures {
            problems.push(format!(
                "the {side}'s tests did not build, so they were not compared: {failure}"
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_original_that_does_not_build_verifies_nothing() {
        let broken = SideResult {
            built: false,
            build_log: "error: toolchain '1.97.1' is not installed\n".into(),
            ..SideResult::default()
        };
        let problems = compare(&broken, &SideResult::default(), Tolerance::default());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("the original does not build"),
            "{}",
            problems[0]
        );
        assert!(problems[0].contains("toolchain"), "{}", problems[0]);

        let built = SideResult {
            built: true,
            ..SideResult::default()
        };
        assert!(compare(&built, &built, Tolerance::default()).is_empty());
        assert!(
            compare(&built, &broken, Tolerance::default())[0].contains("the port does not build")
        );
    }

    /// Tests that did not build (a full disk) are a problem in their own words, not only a
    /// list of tests that "passed before and do not after".
    #[test]
    fn tests_that_did_not_build_are_said_so() {
        let before = SideResult {
            built: true,
            passed_tests: ["check".to_string()].into(),
            ..SideResult::default()
        };
        let after = SideResult {
            built: true,
            tests_not_built: vec![
                "`cargo test --no-fail-fast` built no tests:\nerror: No space left on device"
                    .into(),
            ],
            ..SideResult::default()
        };
        let problems = compare(&before, &after, Tolerance::default());
        assert!(
            problems
                .iter()
                .any(|p| p.contains("the port's tests did not build")
                    && p.contains("No space left on device")),
            "{problems:?}"
        );
    }
}
