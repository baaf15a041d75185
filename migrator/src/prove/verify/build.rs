//! The build stage: every target of one side's workspace, with rustc's messages kept so a
//! failed build maps to rules (and `--fix` finds its suggestions).

use std::path::Path;
use std::time::Instant;

use crate::error::Error;
use crate::prove::verify::diagnose;
use crate::prove::verify::types::SideResult;
use crate::rules::RuleSet;

/// Builds every target of the workspace at `dir` (of the packages and features `selection`
/// names, with `--release` among them for that profile): the side's build results (whether it
/// built, the log, how long it took, and the errors of a failed build, each with its rule).
pub fn build(dir: &Path, target: &Path, selection: &[String], rules: &RuleSet) -> SideResult {
    let mut side = SideResult::default();
    let started = Instant::now();
    let build = cargo_build(dir, target, selection);
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
    side
}

/// `cargo build` of every target: (success, rendered diagnostics, compiler messages).
fn cargo_build(
    dir: &Path,
    target: &Path,
    selection: &[String],
) -> Result<(bool, String, Vec<cargo_metadata::diagnostic::Diagnostic>), Error> {
    let mut args = vec!["build", "--all-targets", "--quiet", "--message-format=json"];
    args.extend(selection.iter().map(String::as_str));
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
