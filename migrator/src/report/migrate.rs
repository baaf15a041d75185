//! The migrate command (`--check`, `--diff`, `--apply`): runs the migration, writes it when
//! asked, and reports what it found and did. Findings go to stderr as diagnostics (or to stdout
//! as JSON, GitHub annotations or SARIF, then alone there), the diff to stdout, the lockfile update, device table, suppressions and summary
//! to stderr.

use std::io::Write;
use std::path::Path;

use codespan_reporting::term::termcolor::{NoColor, WriteColor};

use crate::error::Error;
use crate::migrate::{self, Report};
use crate::report::{emit, findings, Exit, Format};
use crate::rules::RuleSet;
use crate::util::timing::time;

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
/// (stderr). Returns the exit status: `--check` [`Exit::Found`] when anything is found,
/// `--diff` when there is a diff (or a file it cannot migrate), `--apply` when `--partial`
/// left files unmigrated (findings that need a person are listed, but the port was written).
pub fn command(
    path: &Path,
    rules: &RuleSet,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> Result<Exit, Error> {
    if let Some(note) = migrate::write::resume(path, mode.apply)? {
        writeln!(err, "{note}").map_err(Error::Output)?;
    }
    // `--check` prints findings only: the port's to-do markers are for the text it writes.
    let output = if mode.apply || mode.diff {
        migrate::Output::Port
    } else {
        migrate::Output::Findings
    };
    let report = migrate::run_as(path, rules, output)?;
    if !report.uses_burn {
        writeln!(
            err,
            "burn-migrate: no package in {} depends on `burn` or a `burn-*` crate; nothing to do",
            report.root.display()
        )
        .map_err(Error::Output)?;
        return Ok(Exit::Success);
    }
    let mut machine = |render: fn(&[findings::Finding], &RuleSet) -> String| {
        let list = findings::collect(&report, rules);
        write!(out, "{}", render(&list, rules))
    };
    match mode.format {
        Format::Json => machine(|list, _| findings::json(list) + "\n"),
        Format::Github => machine(|list, _| findings::github(list)),
        Format::Sarif => machine(|list, rules| findings::sarif(list, rules) + "\n"),
        Format::Human if mode.check => {
            time("diagnostics", || emit::diagnostics(&report, rules, err))
        }
        Format::Human => Ok(()),
    }
    .map_err(Error::Output)?;
    let human = mode.format == Format::Human;
    let mut diff = None;
    if mode.apply {
        // What the write says (a note, the lockfile's update) goes to a buffer, printed
        // before the diff as if written in turn; it is plain text.
        let mut said = NoColor::new(Vec::new());
        let written = apply(&report, mode, &mut said);
        // The lockfile's update waits on cargo, which keeps one core busy: the diff renders
        // meanwhile. (Beside the files' writes, which keep both busy, it slowed them.)
        let (locked, rendered) = match written {
            Ok(()) => rayon::join(
                || update_lockfile(&report, &mut said),
                || human.then(|| emit::diff(&report)),
            ),
            Err(error) => (Err(error), None),
        };
        err.write_all(said.get_ref()).map_err(Error::Output)?;
        locked?;
        diff = rendered;
    }
    time("diff and summary", || {
        outcome(&report, rules, mode, diff, out, err)
    })
    .map_err(Error::Output)?;
    let unmigrated = report.files.iter().any(|f| f.error.is_some())
        || report.manifests.iter().any(|m| m.error.is_some());
    Ok(if mode.check {
        Exit::found_unless(report.finding_count() == 0)
    } else if mode.apply {
        Exit::found_unless(!unmigrated)
    } else {
        let changes = report.changed_files().next().is_some()
            || report.manifests.iter().any(|m| m.migrated != m.original);
        Exit::found_unless(!changes && !unmigrated)
    })
}

/// Writes the port (all of it, or with `--partial` what could be migrated) where the user
/// can undo it.
fn apply(report: &Report, mode: Mode, err: &mut dyn WriteColor) -> Result<(), Error> {
    if !mode.allow_dirty {
        if let Some(note) = migrate::write::ensure_undoable(report)? {
            writeln!(err, "{note}").map_err(Error::Output)?;
        }
    }
    time("write files", || migrate::write::port(report, mode.partial))?;
    Ok(())
}

/// After the findings: the diff (`--apply`, `--diff`; `diff` when rendered already), the
/// device table, the suppressions and the summary.
fn outcome(
    report: &Report,
    rules: &RuleSet,
    mode: Mode,
    diff: Option<String>,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> std::io::Result<()> {
    if (mode.apply || mode.diff) && mode.format == Format::Human {
        // The other formats print one document on stdout: the findings.
        let diff = diff.unwrap_or_else(|| emit::diff(report));
        write!(out, "{diff}")?;
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
    if !mode.check && mode.format == Format::Human {
        // `--check` shows them as diagnostics; `--diff` and `--apply` list them, place first.
        let left = emit::left_for_a_person(report, rules);
        if !left.is_empty() {
            writeln!(
                err,
                "left for a person (`burn-migrate explain RULE` shows what to do):"
            )?;
            for line in left {
                writeln!(err, "  {line}")?;
            }
        }
    }
    writeln!(err, "{}", emit::summary(report, rules))
}

/// Moves Burn in the project's `Cargo.lock` after its manifests moved, and says what moved; a
/// failed update is a warning (the port is written; `cargo update -p burn` finishes it).
fn update_lockfile(report: &Report, err: &mut dyn WriteColor) -> Result<(), Error> {
    if report.manifests.iter().all(|m| m.migrated == m.original) {
        return Ok(());
    }
    let updated = time("update Cargo.lock", || {
        migrate::lockfile::update(&report.root, &report.direct_dependencies)
    });
    match updated {
        Ok(Some(update)) => write!(err, "{}", emit::lockfile_summary(&update)),
        Ok(None) => Ok(()),
        Err(error @ crate::error::Error::Unresolvable { .. }) => writeln!(err, "warning: {error}"),
        Err(error) => writeln!(
            err,
            "warning: Cargo.lock not updated ({error}); run `cargo update -p burn` before building"
        ),
    }
    .map_err(Error::Output)
}
