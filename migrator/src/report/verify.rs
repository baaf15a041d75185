//! What `burn-migrate verify` prints: for people, each side's build, tests and runs, a line per
//! binary and the verdict (on stderr, compile errors as diagnostics naming their rule); for
//! tools, the verdict as JSON.

use std::collections::BTreeSet;

use codespan_reporting::term::termcolor::WriteColor;

use crate::prove::compare::Tolerance;
use crate::prove::verify::{SideResult, Verdict};
use crate::report::emit;
use crate::rules::RuleSet;

/// The verdict for people: notes, each side's summary, the target table, then either the
/// verdict line or the compile errors and problems.
pub fn write_human(
    verdict: &Verdict,
    rules: &RuleSet,
    out: &mut dyn WriteColor,
) -> std::io::Result<()> {
    for note in &verdict.notes {
        writeln!(out, "note: {note}")?;
    }
    for (label, side) in [
        ("Burn 0.21", &verdict.before),
        ("Burn 0.22", &verdict.after),
    ] {
        writeln!(
            out,
            "{label}: build {} in {:.1?}, {} test(s) passed, {} failed, {} binary run(s)",
            if side.built { "ok" } else { "FAILED" },
            side.build_time,
            side.passed_tests.len(),
            side.failed_tests.len(),
            side.runs.len()
        )?;
    }
    write!(out, "{}", target_table(verdict))?;
    writeln!(out, "outputs saved under {}", verdict.runs_dir.display())?;
    if verdict.problems.is_empty() {
        let skipped = if verdict.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({} package(s) built but not run: their device does not work here)",
                verdict.skipped.len()
            )
        };
        return writeln!(
            out,
            "burn-migrate verify: everything that worked on Burn 0.21 works on Burn 0.22{skipped}"
        );
    }
    if !verdict.after.errors.is_empty() {
        emit::compile_errors(&verdict.after.errors, rules, out)?;
    }
    for problem in &verdict.problems {
        writeln!(out, "error: {problem}")?;
    }
    writeln!(
        out,
        "burn-migrate verify: {} problem(s)",
        verdict.problems.len()
    )
}

/// What `burn-migrate compare` says: the outputs agree within `tolerance`, or the first
/// difference.
pub fn comparison(difference: Option<&str>, tolerance: Tolerance) -> String {
    match difference {
        None => format!(
            "same words, numbers within rtol {} / atol {}",
            tolerance.rtol, tolerance.atol
        ),
        Some(difference) => format!("different: {difference}"),
    }
}

/// The verdict for tools (`--format json`).
pub fn json(verdict: &Verdict) -> serde_json::Value {
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
fn target_table(verdict: &Verdict) -> String {
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
