//! The write stage: puts a port on disk as one transaction, so a project is always either
//! all-old or all-new, even when the process dies half-way.
//!
//! `--apply` first writes every new text to a temporary file next to its target, with a
//! journal at the project root that lists every (temporary, target) pair. Once all temporary
//! files are on disk the journal is marked committed, and the renames follow in one short
//! phase. The next run that finds a journal finishes it before reading anything: a committed
//! journal is rolled forward (the remaining renames are done), an uncommitted one is rolled
//! back (its temporary files are removed). Rules therefore never see a tree that is migrated
//! in some files and not in others.

use std::borrow::Cow;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::migrate::outcome::Report;
use crate::util::files::Canonical;

/// The journal's file name, at the workspace root.
pub const JOURNAL: &str = ".burn-migrate-journal";

/// Test hook: abort the process just before the rename with this 1-based number, as a kill
/// would. Read only by `--apply`'s rename phase; undocumented for users.
pub const KILL_AT_RENAME: &str = "BURN_MIGRATE_TEST_KILL_AT_RENAME";

/// How many file system calls (writes, renames) run at once: they wait on the disk, not the
/// CPU, so more than the machine's cores.
const WRITERS: usize = 16;

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    /// Every temporary file is complete: the renames may (and on resume must) go ahead.
    committed: bool,
    renames: Vec<Rename>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Rename {
    temp: PathBuf,
    target: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes every changed file of `report` as one transaction. Unless `partial`, nothing is
/// written when any file could not be migrated (a file that does not parse, a rewrite that
/// would not, a symlink out of the project): a half-ported project builds against neither
/// Burn. Returns how many files were written.
pub fn port(report: &Report, partial: bool) -> Result<usize, Error> {
    if !partial {
        let failed: Vec<String> = report
            .files
            .iter()
            .filter_map(|f| Some(format!("  {}: {}", f.display, f.error.as_ref()?)))
            .chain(
                report
                    .manifests
                    .iter()
                    .filter_map(|m| Some(format!("  {}: {}", m.display, m.error.as_ref()?))),
            )
            .collect();
        if !failed.is_empty() {
            return Err(Error::IncompletePort {
                files: failed.join("\n"),
            });
        }
    }
    let mut renames = Vec::new();
    let mut texts = Vec::new();
    let canonical = Canonical::default();
    for (path, text) in planned_writes(report) {
        let target = write_target(&canonical, path)?;
        let temp = temp_path(&target);
        renames.push(Rename { temp, target });
        texts.push(text);
    }
    if renames.is_empty() {
        return Ok(0);
    }
    let journal_path = report.root.join(JOURNAL);
    let mut journal = Journal {
        committed: false,
        renames,
    };
    save_journal(&journal_path, &journal)?;
    let pairs: Vec<(&Rename, Cow<str>)> = journal.renames.iter().zip(texts).collect();
    on_writers(&pairs, |(rename, text)| {
        write_unsynced(&rename.temp, text, &rename.target)
    })?;
    sync_written(&journal.renames)?;
    journal.committed = true;
    save_journal(&journal_path, &journal)?;
    let kill_at: Option<usize> = std::env::var(KILL_AT_RENAME)
        .ok()
        .and_then(|n| n.parse().ok());
    // In any order: an interrupted run's journal finishes whichever renames are left.
    let started = std::sync::atomic::AtomicUsize::new(0);
    on_writers(&journal.renames, |rename| {
        let number = started.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if kill_at == Some(number) {
            std::process::abort();
        }
        std::fs::rename(&rename.temp, &rename.target).map_err(io(&rename.target))
    })?;
    std::fs::remove_file(&journal_path).map_err(io(&journal_path))?;
    Ok(journal.renames.len())
}

/// The files `--apply` rewrites, with their new bytes (a source's byte-order mark back in front).
fn planned_writes(report: &Report) -> impl Iterator<Item = (&PathBuf, Cow<'_, str>)> {
    let sources = report
        .changed_files()
        .map(|f| (&f.path, f.on_disk(&f.migrated)));
    let manifests = report
        .manifests
        .iter()
        .filter(|m| m.migrated != m.original)
        .map(|m| (&m.path, Cow::Borrowed(m.migrated.as_str())));
    sources.chain(manifests)
}

fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.burn-migrate.tmp"))
}

/// Writes `text` to `path` with the permissions of `like`, where that exists (a new file
/// takes the process's defaults, which most files have: they are changed only if they
/// differ).
fn write_unsynced(path: &Path, text: &str, like: &Path) -> Result<(), Error> {
    let mut file = std::fs::File::create(path).map_err(io(path))?;
    file.write_all(text.as_bytes()).map_err(io(path))?;
    if let Ok(wanted) = std::fs::metadata(like).map(|m| m.permissions()) {
        if file.metadata().map_err(io(path))?.permissions() != wanted {
            file.set_permissions(wanted).map_err(io(path))?;
        }
    }
    Ok(())
}

/// Makes the temporary files of `renames` reach the disk before the journal says they did.
/// Linux: one `syncfs` per file system they are on (a port of thousands of files waited for
/// each file's own `fsync`); elsewhere, or where that fails, each file's `sync_all`.
fn sync_written(renames: &[Rename]) -> Result<(), Error> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let mut devices: Vec<(u64, &Path)> = Vec::new();
        for rename in renames {
            let device = std::fs::metadata(&rename.temp)
                .map_err(io(&rename.temp))?
                .dev();
            if !devices.iter().any(|(d, _)| *d == device) {
                devices.push((device, &rename.temp));
            }
        }
        let synced = devices.iter().all(|(_, path)| {
            std::fs::File::open(path)
                // SAFETY: `syncfs` reads only the descriptor, which the open file keeps valid.
                .is_ok_and(|file| unsafe { libc::syncfs(file.as_raw_fd()) } == 0)
        });
        if synced {
            return Ok(());
        }
    }
    on_writers(renames, |rename| {
        std::fs::File::open(&rename.temp)
            .and_then(|file| file.sync_all())
            .map_err(io(&rename.temp))
    })
}

/// Runs `work` on each of `items`, many at once: file system calls wait on the disk more
/// than on a core, and one at a time a port of thousands of files spent most of `--apply`
/// waiting in turn.
fn on_writers<T: Sync>(
    items: &[T],
    work: impl Fn(&T) -> Result<(), Error> + Sync + Send,
) -> Result<(), Error> {
    match rayon::ThreadPoolBuilder::new().num_threads(WRITERS).build() {
        Ok(pool) => pool.install(|| items.par_iter().try_for_each(&work)),
        Err(_) => items.iter().try_for_each(work),
    }
}

fn write_synced(path: &Path, text: &str) -> Result<(), Error> {
    let mut file = std::fs::File::create(path).map_err(io(path))?;
    file.write_all(text.as_bytes()).map_err(io(path))?;
    file.sync_all().map_err(io(path))
}

/// Replaces the journal in one rename, so it is never half-written.
fn save_journal(path: &Path, journal: &Journal) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(journal)
        .map_err(|e| Error::Internal(format!("cannot serialize the journal: {e}")))?;
    let temp = temp_path(path);
    write_synced(&temp, &text)?;
    std::fs::rename(&temp, path).map_err(io(path))
}

/// Finishes the journal an interrupted `--apply` left at or above `path`, if any. Only
/// `--apply` (`apply`) may do so; `--check` and `--diff` refuse to read a half-written tree.
/// Returns what was done, for the user.
pub fn resume(path: &Path, apply: bool) -> Result<Option<String>, Error> {
    let start = path.canonicalize().map_err(io(path))?;
    let Some(journal_path) = start
        .ancestors()
        .map(|dir| dir.join(JOURNAL))
        .find(|candidate| candidate.is_file())
    else {
        return Ok(None);
    };
    if !apply {
        return Err(Error::InterruptedApply {
            journal: journal_path,
        });
    }
    let text = std::fs::read_to_string(&journal_path).map_err(io(&journal_path))?;
    let journal: Journal = serde_json::from_str(&text).map_err(|e| Error::UnreadableJournal {
        journal: journal_path.clone(),
        message: e.to_string(),
    })?;
    let mut done = 0;
    for rename in &journal.renames {
        if !rename.temp.is_file() {
            continue;
        }
        if journal.committed {
            std::fs::rename(&rename.temp, &rename.target).map_err(io(&rename.target))?;
        } else {
            std::fs::remove_file(&rename.temp).map_err(io(&rename.temp))?;
        }
        done += 1;
    }
    std::fs::remove_file(&journal_path).map_err(io(&journal_path))?;
    Ok(Some(if journal.committed {
        format!(
            "burn-migrate: finished an interrupted --apply ({done} of {} files were still to be renamed)",
            journal.renames.len()
        )
    } else {
        format!(
            "burn-migrate: rolled back an interrupted --apply that had not started renaming ({done} temporary files removed)"
        )
    }))
}

/// The file a write to `path` lands in, with every symlink on the way resolved: a symlink is
/// written through to its target (the link stays a link).
fn write_target(canonical: &Canonical, path: &Path) -> Result<PathBuf, Error> {
    canonical.of(path).map_err(io(path))
}

/// Leaves unchanged every file whose write would land outside the project (a symlink to a
/// file of another project), saying so: burn-migrate never writes outside the project.
pub fn keep_inside(report: &mut Report) {
    let Ok(root) = report.root.canonicalize() else {
        return;
    };
    let canonical = Canonical::default();
    let sources = report
        .files
        .iter_mut()
        .map(|f| (&f.path, &*f.original, &mut f.migrated, &mut f.error));
    let manifests = report
        .manifests
        .iter_mut()
        .map(|m| (&m.path, m.original.as_str(), &mut m.migrated, &mut m.error));
    for (path, original, migrated, error) in sources.chain(manifests) {
        if migrated.as_str() == original || error.is_some() {
            continue;
        }
        let Ok(target) = canonical.of(path) else {
            continue;
        };
        if !target.starts_with(&root) {
            *error = Some(format!(
                "left unchanged: it links to {}, outside the project, and burn-migrate never writes outside it; migrate that file where it lives",
                target.display()
            ));
            *migrated = original.to_string();
        }
    }
}

/// Refuses to write into a git work tree where the user could not review or revert the
/// port: tracked files with uncommitted changes anywhere in the project, or a file the port
/// rewrites that git does not track. Outside git returns a note: nothing can undo the port.
pub fn ensure_undoable(report: &Report) -> Result<Option<String>, Error> {
    let root = &report.root;
    let git = |args: &[&str], paths: &[PathBuf]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .arg("--")
            .args(paths)
            .output()
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"], &[]);
    if !inside.is_ok_and(|out| out.status.success()) {
        return Ok(Some(format!(
            "note: {} is not in a git work tree: nothing can undo --apply; keep a copy of the project if you may want the original back",
            root.display()
        )));
    }
    let modified = git(
        &["status", "--porcelain", "--untracked-files=no"],
        &[PathBuf::from(".")],
    );
    if modified.is_ok_and(|out| out.status.success() && !out.stdout.is_empty()) {
        return Err(Error::DirtyTree { path: root.clone() });
    }
    let canonical = Canonical::default();
    let targets: Vec<PathBuf> = planned_writes(report)
        .map(|(path, _)| write_target(&canonical, path))
        .collect::<Result<_, _>>()?;
    if targets.is_empty() {
        return Ok(None);
    }
    // `--others` without `--exclude-standard`: an ignored file has no undo either.
    let untracked = git(&["ls-files", "-z", "--others"], &targets).map_err(io(root))?;
    let files: Vec<String> = untracked
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).to_string())
        .collect();
    if files.is_empty() {
        Ok(None)
    } else {
        Err(Error::UntrackedFiles {
            path: root.clone(),
            files: files.join(", "),
        })
    }
}
