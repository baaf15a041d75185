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
    /// Write into a git work tree with uncommitted changes (or one git cannot read).
    pub allow_dirty: bool,
    /// Write into a tree under no version control.
    pub allow_no_vcs: bool,
    /// Write the files that could be migrated even when others could not.
    pub partial: bool,
    pub format: Format,
    /// Only the summary line, and that only when there is something to act on.
    pub quiet: bool,
    /// Counts per rule instead of each finding.
    pub statistics: bool,
}

/// What the command line says of the project: where it is, which of its packages, and its
/// settings as the command line gives them (the project's own fill in the rest).
#[derive(Debug)]
pub struct Project<'a> {
    /// A directory or a manifest (`--manifest-path`).
    pub path: &'a Path,
    /// `-p`: only these packages (all when empty).
    pub packages: &'a [String],
    /// `--workspace --exclude`: all packages but these.
    pub excluded: &'a [String],
    pub settings: migrate::config::Settings,
    /// Cargo's feature options as given (`--features gpu`): they change nothing, which the
    /// run says.
    pub feature_options: Vec<String>,
}

/// Migrates `project` (its selected packages, with its settings under the command line's)
/// as `mode` asks, reporting to `out` (stdout) and `err` (stderr). Returns the exit status: `--check` [`Exit::Found`] when anything is found,
/// `--diff` when there is a diff (or a file it cannot migrate), `--apply` when `--partial`
/// left files unmigrated (findings that need a person are listed, but the port was written).
pub fn command(
    project: &Project,
    rules: &RuleSet,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> Result<Exit, Error> {
    let path = project.path;
    if mode.statistics {
        mode.format.human_or_json("--statistics")?;
    }
    let read = |path: &Path| {
        let mut metadata = migrate::discover::read_metadata(path)?;
        metadata.select_packages(project.packages, project.excluded)?;
        Ok::<_, Error>(metadata)
    };
    let metadata = time("cargo metadata", || read(path))?;
    let root = metadata.root();
    // Held to the end: another run on this tree waits until this one is done.
    let _lock = migrate::write::lock_root(&root, mode.apply, || {
        let _ = writeln!(
            err,
            "burn-migrate: another burn-migrate run is working on {}; waiting for it to finish",
            root.display()
        );
    })?;
    let metadata = match migrate::write::resume(&root, mode.apply)? {
        Some(note) => {
            writeln!(err, "{note}").map_err(Error::Output)?;
            // The interrupted run may have moved manifests.
            read(path)?
        }
        None => metadata,
    };
    // The rules and devices as the command line and the project's settings choose them.
    let settings = migrate::config::resolve(project.settings.clone(), &metadata, rules)?;
    let mut configured = rules.clone();
    migrate::config::apply(&settings, &mut configured)?;
    let rules = &configured;
    if !project.feature_options.is_empty() && !mode.quiet {
        writeln!(
            err,
            "note: `{}` changes nothing: burn-migrate ports the code behind every `#[cfg]`, whatever the features, so that the port builds with each of them",
            project.feature_options.join(" ")
        )
        .map_err(Error::Output)?;
    }
    // `--check` prints findings only: the port's to-do markers are for the text it writes.
    let output = if mode.apply || mode.diff {
        migrate::Output::Port
    } else {
        migrate::Output::Findings
    };
    let report = migrate::run_on(metadata, rules, output)?;
    if !report.uses_burn {
        if !mode.quiet {
            let which = match project.packages {
                [] if project.excluded.is_empty() => "no package".to_string(),
                [] => format!("no package but `{}`", project.excluded.join("`, `")),
                packages => format!("no package of `{}`", packages.join("`, `")),
            };
            writeln!(
                err,
                "burn-migrate: {which} in {} depends on `burn` or a `burn-*` crate; nothing to do",
                report.root.display()
            )
            .map_err(Error::Output)?;
        }
        return Ok(Exit::Success);
    }
    let mut machine = |render: fn(&[findings::Finding], &RuleSet) -> String| {
        let list = findings::collect(&report, rules);
        write!(out, "{}", render(&list, rules))
    };
    match mode.format {
        Format::Json if mode.statistics => {
            machine(|list, _| findings::statistics_json(list) + "\n")
        }
        Format::Json => machine(|list, _| findings::json(list) + "\n"),
        Format::Github => machine(|list, _| findings::github(list)),
        Format::Sarif => machine(|list, rules| findings::sarif(list, rules) + "\n"),
        Format::Human if mode.quiet => Ok(()),
        Format::Human if mode.statistics => {
            let list = findings::collect(&report, rules);
            write!(err, "{}", findings::statistics_table(&list))
        }
        Format::Human if mode.check => {
            time("diagnostics", || emit::diagnostics(&report, rules, err))
        }
        Format::Human => Ok(()),
    }
    .map_err(Error::Output)?;
    let human = mode.format == Format::Human;
    let mut diff = None;
    let mut lock_left_behind = false;
    if mode.apply {
        // The lockfile is worked out while the diff renders: cargo keeps one core busy.
        let (written, rendered) = rayon::join(
            || apply(&report, mode),
            || (human && !mode.quiet).then(|| emit::diff(&report)),
        );
        let written = written?;
        let said = String::from_utf8_lossy(written.said.get_ref());
        if !mode.quiet {
            write!(err, "{said}").map_err(Error::Output)?;
        }
        // Quiet keeps the warnings: what was left undone, and what to run about it.
        for warning in (said.lines()).filter(|line| mode.quiet && line.starts_with("warning:")) {
            writeln!(err, "{warning}").map_err(Error::Output)?;
        }
        lock_left_behind = written.lock_left_behind;
        diff = rendered;
    }
    let unmigrated = report.files.iter().any(|f| f.error.is_some())
        || report.manifests.iter().any(|m| m.error.is_some());
    let exit = if mode.check {
        Exit::found_unless(report.finding_count() == 0)
    } else if mode.apply {
        Exit::found_unless(!unmigrated && !lock_left_behind)
    } else {
        let changes = report.changed_files().next().is_some()
            || report.manifests.iter().any(|m| m.migrated != m.original);
        Exit::found_unless(!changes && !unmigrated)
    };
    if mode.quiet {
        // Something to act on: what fails the run, or what `--apply` left for a person.
        if exit != Exit::Success || (mode.apply && report.unresolved_count() > 0) {
            writeln!(err, "{}", emit::summary(&report)).map_err(Error::Output)?;
        }
        return Ok(exit);
    }
    time("diff and summary", || {
        outcome(&report, rules, mode, diff, out, err)
    })
    .map_err(Error::Output)?;
    Ok(exit)
}

/// What `apply` wrote and said.
struct Written {
    /// What it says (the lockfile's update, a warning), printed before the diff as if
    /// written in turn; plain text.
    said: NoColor<Vec<u8>>,
    /// `--partial` wrote the port without the lockfile, which could not be worked out.
    lock_left_behind: bool,
}

/// Writes the port (all of it, or with `--partial` what could be migrated), `Cargo.lock`
/// included, where the user can undo it.
fn apply(report: &Report, mode: Mode) -> Result<Written, Error> {
    let mut said = NoColor::new(Vec::new());
    let mut lock_left_behind = false;
    let changes = report.changed_files().next().is_some()
        || report.manifests.iter().any(|m| m.migrated != m.original);
    if !changes {
        return Ok(Written {
            said,
            lock_left_behind,
        });
    }
    let allowed = migrate::write::guard::Allowed {
        dirty: mode.allow_dirty,
        no_vcs: mode.allow_no_vcs,
    };
    let targets = migrate::write::source_targets(report)?;
    migrate::write::guard::ensure_undoable(&report.root, &targets, allowed)?;
    let plan = match time("plan Cargo.lock", || migrate::lockfile::plan(report)) {
        Ok(plan) => plan,
        Err(error) if mode.partial => {
            writeln!(
                said,
                "warning: Cargo.lock left as it was ({error}); run `cargo update -p burn` before building"
            )
            .map_err(Error::Output)?;
            lock_left_behind = true;
            None
        }
        Err(error) => return Err(error),
    };
    let lock = plan.as_ref().and_then(|p| p.text.as_deref());
    time("write files", || {
        migrate::write::port(report, lock, mode.partial)
    })?;
    if let Some(plan) = &plan {
        write!(said, "{}", emit::lockfile_summary(&plan.update)).map_err(Error::Output)?;
    }
    Ok(Written {
        said,
        lock_left_behind,
    })
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
    if !mode.check && mode.format == Format::Human && mode.statistics {
        // In place of the list of what is left.
        write!(
            err,
            "{}",
            findings::statistics_table(&findings::collect(report, rules))
        )?;
    } else if !mode.check && mode.format == Format::Human {
        // `--check` shows them as diagnostics; `--diff` and `--apply` list them, place first.
        let left = emit::left_for_a_person(report);
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
    writeln!(err, "{}", emit::summary(report))
}
