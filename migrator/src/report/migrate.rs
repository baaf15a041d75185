//! The migrate command (`--check`, `--diff`, `--apply`): runs the migration, writes it when
//! asked, and reports what it found and did. Findings go to stderr as diagnostics (or to stdout
//! as JSON, GitHub annotations or SARIF, then alone there), the diff to stdout, the lockfile update, device table, suppressions and summary
//! to stderr. Several projects run in turn and report as one (one machine document, one exit
//! code), each narrowed to the paths given inside it.

use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Color the diff (`--color`, and whether standard output is a terminal:
    /// `color::stdout_colored`).
    pub diff_color: bool,
}

/// What the command line says of the run: where the projects are, which of their packages,
/// and the settings as the command line gives them (each project's own fill in the rest).
#[derive(Debug)]
pub struct Projects<'a> {
    /// Directories, manifests (`--manifest-path`), or files and folders inside a project.
    pub paths: &'a [PathBuf],
    /// `-p`: only these packages (all when empty).
    pub packages: &'a [String],
    /// `--workspace --exclude`: all packages but these.
    pub excluded: &'a [String],
    pub settings: migrate::config::Settings,
    /// Cargo's feature options as given (`--features gpu`): they change nothing, which the
    /// run says.
    pub feature_options: Vec<String>,
}

/// Migrates the projects at `asked.paths` (their selected packages, with their settings under
/// the command line's) as `mode` asks, reporting to `out` (stdout) and `err` (stderr). A
/// path inside a project narrows the run to it (`migrate::scope`); several
/// projects run one after the other, each its own transaction under `--apply`, and report as
/// one: the machine formats print one document of all their findings, and the exit status is
/// the worst of theirs. Each project's: `--check` [`Exit::Found`] when anything is found,
/// `--diff` when there is a diff (or a file it cannot migrate), `--apply` when `--partial`
/// left files unmigrated (findings that need a person are listed, but the port was written);
/// [`Exit::Error`] when it failed, which is said on `err` and does not stop the others.
pub fn command(
    asked: &Projects,
    rules: &RuleSet,
    mode: Mode,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> Result<Exit, Error> {
    if mode.statistics {
        mode.format.human_or_json("--statistics")?;
    }
    let projects = time("cargo metadata", || migrate::scope::projects(asked.paths))?;
    if !asked.feature_options.is_empty() && !mode.quiet {
        writeln!(
            err,
            "note: `{}` changes nothing: burn-migrate ports the code behind every `#[cfg]`, whatever the features, so that the port builds with each of them",
            asked.feature_options.join(" ")
        )
        .map_err(Error::Output)?;
    }
    let several = projects.len() > 1;
    let mut machine: Option<Vec<findings::Finding>> = None;
    let mut exit = Exit::Success;
    let mut total = Total::default();
    let mut report_one = |name: Option<&str>,
                          said: &[u8],
                          worked: Result<Worked, Error>,
                          out: &mut dyn Write,
                          err: &mut dyn WriteColor|
     -> Result<(), Error> {
        err.write_all(said).map_err(Error::Output)?;
        let mut seen = |report: &Report| {
            total.add(report);
            if mode.format != Format::Human {
                let mut list = findings::collect(report, rules);
                if let Some(name) = &name {
                    // Named from the current directory (`name_files_from`), or absolute.
                    let base = names_base(&report.root, name);
                    list.iter_mut().for_each(|f| f.base = base.clone());
                }
                (machine.get_or_insert_with(Vec::new)).extend(list);
            }
        };
        let ran = worked
            .and_then(|worked| report_project(worked, asked, name, mode, &mut seen, out, err));
        match ran {
            Ok(code) => exit = exit.max(code),
            Err(Error::Output(error)) => return Err(Error::Output(error)),
            Err(error) => {
                writeln!(err, "error: {}", super::error_text(&error)).map_err(Error::Output)?;
                exit = Exit::Error;
                total.failed += 1;
            }
        }
        Ok(())
    };
    if several && mode.check {
        // `--check` writes nothing: the projects are worked out at once, on the threads the
        // projects' own stages leave idle (a workspace's index rounds, its manifests, the
        // small projects' few files), and reported in the order given as each is ready
        // (with those before it).
        let names: Vec<String> = (projects.iter())
            .map(|p| name_from_current_dir(&p.metadata.root()))
            .collect();
        let (sender, received) = std::sync::mpsc::channel();
        std::thread::scope(|threads| -> Result<(), Error> {
            // The largest first: its stages that run on one thread then overlap the small
            // projects, rather than ending the run with the second core idle.
            let mut projects: Vec<(usize, migrate::scope::Project)> =
                projects.into_iter().enumerate().collect();
            projects.sort_by_key(|(_, p)| std::cmp::Reverse(p.metadata.target_count()));
            threads.spawn(|| {
                rayon::scope_fifo(|scope| {
                    for (i, project) in projects {
                        let sender = sender.clone();
                        scope.spawn_fifo(move |_| {
                            let mut said = Vec::new();
                            // Said now: the wait is now, whatever is reported before it.
                            let waiting = |root: &Path| {
                                eprintln!("{}", waiting_line(root));
                            };
                            let worked = work_out(project, asked, rules, mode, &mut said, waiting);
                            // The receiver goes only on an output error, which ends the run.
                            let _ = sender.send((i, said, worked));
                        });
                    }
                });
                drop(sender);
            });
            let mut ready = std::collections::BTreeMap::new();
            let mut next = 0;
            for (i, said, worked) in received {
                ready.insert(i, (said, worked));
                while let Some((said, worked)) = ready.remove(&next) {
                    report_one(Some(&names[next]), &said, worked, out, err)?;
                    next += 1;
                }
            }
            Ok(())
        })?;
    } else {
        for project in projects {
            let name = several.then(|| name_from_current_dir(&project.metadata.root()));
            let mut said = Vec::new();
            let worked = work_out(project, asked, rules, mode, &mut said, |root: &Path| {
                let _ = writeln!(err, "{}", waiting_line(root));
            });
            report_one(name.as_deref(), &said, worked, out, err)?;
        }
    }
    if let Some(mut list) = machine {
        findings::sort(&mut list);
        match mode.format {
            Format::Json if mode.statistics => {
                writeln!(out, "{}", findings::statistics_json(&list))
            }
            Format::Json => findings::write_json(&list, out),
            Format::Github => write!(out, "{}", findings::github(&list)),
            Format::Sarif => writeln!(out, "{}", findings::sarif(&list, rules)),
            Format::Human => Ok(()),
        }
        .map_err(Error::Output)?;
    }
    if several && (!mode.quiet || exit != Exit::Success) {
        writeln!(err, "{}", total.line()).map_err(Error::Output)?;
    }
    Ok(exit)
}

/// What the line says when another run holds the lock on the project at `root`.
fn waiting_line(root: &Path) -> String {
    format!(
        "burn-migrate: another burn-migrate run is working on {}; waiting for it to finish",
        root.display()
    )
}

/// One project of [`command`], its port worked out: the report, the rules it ran under, what
/// of the paths given it covers, and the lock on its tree (held until it is reported and
/// written: another run on this tree waits until this one is done).
struct Worked {
    report: Report,
    rules: RuleSet,
    scope: migrate::scope::Scope,
    _lock: migrate::write::RootLock,
}

/// Works out the port of one project of [`command`]: `said` gets what is said on the way (an
/// interrupted `--apply` finished), `waiting` is called before waiting for another run's lock.
fn work_out(
    project: migrate::scope::Project,
    asked: &Projects,
    rules: &RuleSet,
    mode: Mode,
    said: &mut Vec<u8>,
    waiting: impl FnOnce(&Path),
) -> Result<Worked, Error> {
    // `-p` and `--exclude`, on the metadata read for the project and on any read again.
    let select = |mut metadata: migrate::discover::Metadata| {
        metadata.select_packages(asked.packages, asked.excluded)?;
        Ok::<_, Error>(metadata)
    };
    let metadata = select(project.metadata)?;
    let root = metadata.root();
    let lock = migrate::write::lock_root(&root, mode.apply, || waiting(&root))?;
    let metadata = match migrate::write::resume(&root, mode.apply)? {
        Some(note) => {
            writeln!(said, "{note}").map_err(Error::Output)?;
            // The interrupted run may have moved manifests.
            select(migrate::discover::read_metadata(&project.path)?)?
        }
        None => metadata,
    };
    // The rules and devices as the command line and the project's settings choose them.
    let settings = migrate::config::resolve(asked.settings.clone(), &metadata, rules)?;
    let mut configured = rules.clone();
    migrate::config::apply(&settings, &mut configured)?;
    // `--check` prints findings only: the port's to-do markers are for the text it writes.
    let output = if mode.apply || mode.diff {
        migrate::Output::Port
    } else {
        migrate::Output::Findings
    };
    let report = migrate::run_on(metadata, &configured, output)?;
    Ok(Worked {
        report,
        rules: configured,
        scope: project.scope,
        _lock: lock,
    })
}

/// Reports one project of [`command`] (writes it, under `--apply`), named `name` among
/// several: `seen` gets its report, narrowed to the paths given, once the port is worked out
/// and before anything is written.
fn report_project(
    worked: Worked,
    asked: &Projects,
    name: Option<&str>,
    mode: Mode,
    seen: &mut dyn FnMut(&Report),
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> Result<Exit, Error> {
    let Worked {
        mut report,
        rules,
        scope,
        _lock,
    } = worked;
    let rules = &rules;
    if !report.uses_burn {
        if !mode.quiet {
            let which = match asked.packages {
                [] if asked.excluded.is_empty() => "no package".to_string(),
                [] => format!("no package but `{}`", asked.excluded.join("`, `")),
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
    if let Some(name) = name {
        name_files_from(&mut report, name);
    }
    // After the naming: the notes it adds name files.
    scope.narrow(&mut report);
    seen(&report);
    match mode.format {
        Format::Human if mode.quiet => Ok(()),
        Format::Human if mode.statistics => {
            let list = findings::collect(&report, rules);
            write!(err, "{}", findings::statistics_table(&list))
        }
        Format::Human if mode.check => {
            time("diagnostics", || emit::diagnostics(&report, rules, err))
        }
        // The machine formats print one document of every project's findings (`seen`).
        _ => Ok(()),
    }
    .map_err(Error::Output)?;
    let human = mode.format == Format::Human;
    let mut diff = None;
    let mut lock_left_behind = false;
    if mode.apply {
        // The lockfile is worked out while the diff renders: cargo keeps one core busy.
        let (written, rendered) = rayon::join(
            || apply(&report, mode),
            || (human && !mode.quiet).then(|| emit::diff(&report, mode.diff_color)),
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
            writeln!(err, "{}", emit::summary(&report, name)).map_err(Error::Output)?;
        }
        return Ok(exit);
    }
    time("diff and summary", || {
        outcome(&report, rules, mode, name, diff, out, err)
    })
    .map_err(Error::Output)?;
    Ok(exit)
}

/// How a project's files are named among several: from the current directory, as the shell
/// names them (`a/src/lib.rs`), or absolute when the project is not below it.
fn name_from_current_dir(root: &Path) -> String {
    let below = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .ok()
        .and_then(|cwd| root.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match below {
        Some(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Some(relative) => relative.display().to_string(),
        None => root.display().to_string(),
    }
}

/// The directory the files of the project at `root`, named `name` among several, are named
/// from (`name_files_from`): the current directory, or the root itself where it is the current
/// directory; `None` where they are named by absolute paths.
fn names_base(root: &Path, name: &str) -> Option<PathBuf> {
    if name == "." {
        return Some(root.to_path_buf());
    }
    if Path::new(name).is_absolute() {
        return None;
    }
    std::env::current_dir().and_then(std::fs::canonicalize).ok()
}

/// Names `report`'s files from the current directory, where the project is `name`: with
/// several projects, `src/lib.rs` would not say whose it is.
fn name_files_from(report: &mut Report, name: &str) {
    if name == "." {
        return;
    }
    let files = report.files.iter_mut().map(|f| &mut f.display);
    for display in files.chain(report.manifests.iter_mut().map(|m| &mut m.display)) {
        *display = format!("{name}/{display}");
    }
}

/// The findings of several projects, for the line that ends their report.
#[derive(Default)]
struct Total {
    projects: usize,
    findings: usize,
    unresolved: usize,
    failed: usize,
}

impl Total {
    fn add(&mut self, report: &Report) {
        self.projects += 1;
        self.findings += report.finding_count();
        self.unresolved += report.unresolved_count();
    }

    fn line(&self) -> String {
        let failed = match self.failed {
            0 => String::new(),
            n => format!("; {n} project(s) stopped with an error (above)"),
        };
        format!(
            "burn-migrate: {} finding(s) in {} project(s): {} fixed by --apply, {} need a person{failed}",
            self.findings,
            self.projects,
            self.findings.saturating_sub(self.unresolved),
            self.unresolved
        )
    }
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
    name: Option<&str>,
    diff: Option<String>,
    out: &mut dyn Write,
    err: &mut dyn WriteColor,
) -> std::io::Result<()> {
    if (mode.apply || mode.diff) && mode.format == Format::Human {
        // The other formats print one document on stdout: the findings.
        let diff = diff.unwrap_or_else(|| emit::diff(report, mode.diff_color));
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
    writeln!(err, "{}", emit::summary(report, name))
}
