//! The migrate command (`--check`, `--diff`, `--apply`): runs the migration, writes it when
//! asked, and reports what it found and did. Findings go to stderr as diagnostics (or to stdout
//! as JSON), the diff to stdout, the lockfile update, device table, suppressions and summary
//! to stderr.

use std::io::Write;
use std::path::Path;

use codespan_reporting::term::termcolor::WriteColor;

use crate::error::Error;
use crate::migrate::{self, Report};
use crate::report::{emit, Format};
use crate::rules::RuleSet;

/// What the command line asked for.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    /// List the findings (as diagnostics, in the human format).
    pub check: bool,
    /// Write the port.
    pub apply: bool,
    /// Print the diff without writing.
    pub diff: bool,
    /// Write into a git work tree with uncommitted changes.
    pub allow_dirty: bool,
    /// Write the files that could be migrated even when others could not.
    pub partial: bool,
    pub format: Format,
}

/// Migrates the project at `path` as `mode` asks, reporting to `out` (stdout) and `err`
/// (stderr). Returns how many findings remain: after `--apply`, those it could not resolve;
/// otherwise every finding (the exit code is 1 when any remain).
pub fn command(
    path: &Path,
    rules: &RuleSet,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> Result<usize, Error> {
    if let Some(note) = migrate::write::resume(path, mode.apply)? {
        writeln!(err, "{note}").map_err(Error::Output)?;
    }
    let report = migrate::run(path, rules)?;
    if !report.uses_burn {
        writeln!(
            err,
            "burn-migrate: no package in {} depends on `burn` or a `burn-*` crate; nothing to do",
            report.root.display()
        )
        .map_err(Error::Output)?;
        return Ok(0);
    }
    match mode.format {
        Format::Json => writeln!(out, "{}", emit::json(&report, rules)),
        Format::Human if mode.check => emit::diagnostics(&report, rules, err),
        Format::Human => Ok(()),
    }
    .map_err(Error::Output)?;
    if mode.apply {
        apply(&report, mode, err)?;
    }
    outcome(&report, rules, mode, out, err).map_err(Error::Output)?;
    Ok(if mode.apply {
        report.unresolved_count(rules)
    } else {
        report.finding_count()
    })
}

/// Writes the port (all of it, or with `--partial` what could be migrated) where the user
/// can undo it, then moves Burn in the lockfile.
fn apply(report: &Report, mode: Mode, err: &mut dyn WriteColor) -> Result<(), Error> {
    if !mode.allow_dirty {
        if let Some(note) = migrate::write::ensure_undoable(report)? {
            writeln!(err, "{note}").map_err(Error::Output)?;
        }
    }
    migrate::write::port(report, mode.partial)?;
    if report.manifests.iter().any(|m| m.migrated != m.original) {
        update_lockfile(report, err).map_err(Error::Output)?;
    }
    Ok(())
}

/// After the findings: the diff (`--apply`, `--diff`), the device table, the suppressions and
/// the summary.
fn outcome(
    report: &Report,
    rules: &RuleSet,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> std::io::Result<()> {
    if mode.apply || mode.diff {
        write!(out, "{}", emit::diff(report))?;
    }
    if !mode.check && mode.format == Format::Human {
        // `--check` prints them with the diagnostics.
        for note in &report.notes {
            writeln!(err, "note: {note}")?;
        }
    }
    if mode.diff && !mode.apply {
        write!(err, "{}", emit::lockfile_plan(report).unwrap_or_default())?;
    }
    if mode.format == Format::Human {
        if let Some(table) = emit::device_table(report) {
            write!(err, "{table}")?;
        }
    }
    for line in emit::suppression_report(report, rules) {
        writeln!(err, "{line}")?;
    }
    writeln!(err, "{}", emit::summary(report, rules))
}

/// Moves Burn in the project's `Cargo.lock` after its manifests moved, and says what moved; a
/// failed update is a warning (the port is written; `cargo update -p burn` finishes it).
fn update_lockfile(report: &Report, err: &mut dyn WriteColor) -> std::io::Result<()> {
    match migrate::lockfile::update(&report.root, &report.direct_dependencies) {
        Ok(Some(update)) => write!(err, "{}", emit::lockfile_summary(&update))?,
        Ok(None) => {}
        Err(error) => writeln!(
            err,
            "warning: Cargo.lock not updated ({error}); run `cargo update -p burn` before building"
        )?,
    }
    Ok(())
}
