//! The write stage: puts a port on disk as one transaction, so a project is always either
//! all-old or all-new, even when the process dies half-way, and never writes outside it.
//!
//! `--apply` first lists every (temporary file, target) pair in a journal at the project
//! root (root-relative paths, `journal`), then creates each temporary file next to its
//! target exclusively (never through a link, under a name no one can guess) and writes the
//! new text there, `Cargo.lock` included. Once all temporary files are on disk the journal is
//! marked committed, and the renames follow in one short phase. A failure before that point
//! removes what was created: nothing is left behind. The next run that finds a journal
//! finishes it before reading anything: a committed journal is rolled forward (the
//! remaining renames are done), an uncommitted one is rolled back (its temporary files are
//! removed). Rules therefore never see a tree that is migrated in some files and not in
//! others. Runs on one tree take turns (`lock_root`).

use std::borrow::Cow;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::Error;
use crate::migrate::outcome::Report;
use crate::util::files::Canonical;

pub mod guard;
pub mod journal;

pub use journal::FILE as JOURNAL;
use journal::{CheckedRename, Journal, Rename};

/// Test hook: abort the process just before the rename with this 1-based number, as a kill
/// would. Read only by `--apply`'s rename phase; undocumented for users.
pub const KILL_AT_RENAME: &str = "BURN_MIGRATE_TEST_KILL_AT_RENAME";

/// How many file system calls (writes, renames) run at once: they wait on the disk, not the
/// CPU, so more than the machine's cores.
const WRITERS: usize = 16;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A lock on a project root, held while a run reads (shared) or writes (exclusive) it: two
/// `--apply` runs take turns, and `--check` never reads a tree another run is writing. It
/// is a `flock` of the root directory itself, so no file is left behind, and the system
/// releases it when the process dies, however it dies.
pub struct RootLock {
    _dir: std::fs::File,
}

/// Takes `root`'s lock; when another run holds it, calls `waiting` and waits. On a file
/// system without locks, goes on unlocked.
pub fn lock_root(root: &Path, exclusive: bool, waiting: impl FnOnce()) -> Result<RootLock, Error> {
    let dir = std::fs::File::open(root).map_err(io(root))?;
    let tried = if exclusive {
        dir.try_lock()
    } else {
        dir.try_lock_shared()
    };
    match tried {
        Ok(()) | Err(std::fs::TryLockError::Error(_)) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            waiting();
            if exclusive {
                dir.lock()
            } else {
                dir.lock_shared()
            }
            .map_err(io(root))?;
        }
    }
    Ok(RootLock { _dir: dir })
}

/// Writes every changed file of `report`, and `lock` as its `Cargo.lock`, as one
/// transaction. Unless `partial`, nothing is written when any file could not be migrated (a
/// file that does not parse, a rewrite that would not, a symlink out of the project): a
/// half-ported project builds against neither Burn. Returns how many files were written.
pub fn port(report: &Report, lock: Option<&str>, partial: bool) -> Result<usize, Error> {
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
    let root = report.root.canonicalize().map_err(io(&report.root))?;
    let lock_path = report.root.join("Cargo.lock");
    let planned = planned_writes(report).chain(lock.map(|text| (&lock_path, Cow::Borrowed(text))));
    let targets = write_targets(&root, planned)?;
    if targets.is_empty() {
        return Ok(0);
    }
    let renames = targets
        .iter()
        .map(|(target, _)| {
            let name = target.file_name().unwrap_or_default().to_string_lossy();
            let temp = target.with_file_name(journal::temp_name(&name));
            let relative = |p: &Path| {
                journal::relative(&root, p).ok_or_else(|| {
                    Error::Internal(format!("{} is not inside {}", p.display(), root.display()))
                })
            };
            Ok(Rename {
                temp: relative(&temp)?,
                target: relative(target)?,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut journal = Journal::new(journal::temp_name(JOURNAL), renames);
    let journal_path = root.join(JOURNAL);
    write_new(&journal_path, &journal.to_text(), None, true)?;
    let pairs: Vec<(&Rename, &str)> = journal
        .renames
        .iter()
        .zip(targets.iter().map(|t| t.1.as_ref()))
        .collect();
    let written = on_writers(&pairs, |(rename, text)| {
        let target = root.join(&rename.target);
        write_new(&root.join(&rename.temp), text, Some(&target), false)
    })
    .and_then(|()| sync_written(&root, &journal.renames));
    if let Err(error) = written {
        roll_back(&root, &journal);
        return Err(error);
    }
    journal.committed = true;
    let journal_temp = root.join(&journal.journal_temp);
    let committed = write_new(&journal_temp, &journal.to_text(), None, true)
        .and_then(|()| std::fs::rename(&journal_temp, &journal_path).map_err(io(&journal_path)));
    if let Err(error) = committed {
        // The journal on disk is still the uncommitted one.
        roll_back(&root, &journal);
        return Err(error);
    }
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
        let target = root.join(&rename.target);
        std::fs::rename(root.join(&rename.temp), &target).map_err(|source| Error::HalfWritten {
            path: target,
            source,
        })
    })?;
    std::fs::remove_file(&journal_path).map_err(io(&journal_path))?;
    Ok(journal.renames.len())
}

/// The files `--apply` rewrites, with their new bytes (a source's byte-order mark back in
/// front).
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

/// Where the port's sources and manifests land (not the lockfile, which a library often
/// leaves out of version control): the files the user must be able to undo.
pub fn source_targets(report: &Report) -> Result<Vec<PathBuf>, Error> {
    let root = report.root.canonicalize().map_err(io(&report.root))?;
    let targets = write_targets(&root, planned_writes(report))?;
    Ok(targets.into_iter().map(|(target, _)| target).collect())
}

/// Where each planned write lands, every symlink on the way resolved (a link inside the
/// project is written through; the link stays a link), refusing one that lands outside the
/// canonical `root`.
fn write_targets<'a>(
    root: &Path,
    planned: impl Iterator<Item = (&'a PathBuf, Cow<'a, str>)>,
) -> Result<Vec<(PathBuf, Cow<'a, str>)>, Error> {
    let canonical = Canonical::default();
    planned
        .map(|(path, text)| {
            let target = canonical.of(path).or_else(|e| match e.kind() {
                // A file to create (the lockfile of a project without one).
                std::io::ErrorKind::NotFound if std::fs::symlink_metadata(path).is_err() => {
                    let dir = path.parent().unwrap_or(path);
                    Ok(canonical
                        .of(dir)?
                        .join(path.file_name().unwrap_or_default()))
                }
                _ => Err(e),
            });
            let target = target.map_err(io(path))?;
            if !target.starts_with(root) {
                return Err(Error::OutsideProject {
                    path: path.clone(),
                    target,
                });
            }
            Ok((target, text))
        })
        .collect()
}

/// Creates `path`, which must not exist (a symlink there is not followed: the creation
/// fails), and writes `text`, with the permissions and owner of `like` where that exists;
/// `sync` makes it reach the disk before returning. What it created is removed when a later
/// step fails (a full disk, say).
fn write_new(path: &Path, text: &str, like: Option<&Path>, sync: bool) -> Result<(), Error> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Readable by no one else until it has the target's permissions.
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(io(path))?;
    let filled = (|| {
        file.write_all(text.as_bytes())?;
        match like.map(std::fs::metadata) {
            Some(Ok(meta)) => keep_permissions_and_owner(&file, &meta)?,
            // A file the port adds (a lockfile): the permissions files are usually made with.
            #[cfg(unix)]
            Some(Err(_)) => {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(0o644))?
            }
            _ => {}
        }
        if sync {
            file.sync_all()?;
        }
        Ok(())
    })();
    filled.map_err(|source| {
        drop(file);
        let _ = std::fs::remove_file(path);
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    })
}

/// Gives `file` the mode and owner of the file it replaces: a port run by root on another
/// user's checkout leaves each file theirs.
fn keep_permissions_and_owner(
    file: &std::fs::File,
    like: &std::fs::Metadata,
) -> std::io::Result<()> {
    file.set_permissions(like.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let own = file.metadata()?;
        if (own.uid(), own.gid()) != (like.uid(), like.gid()) {
            std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid()))?;
        }
    }
    Ok(())
}

/// Removes what an uncommitted transaction created: its temporary files and its journal.
/// Best effort: this runs after another error, which is the one reported.
fn roll_back(root: &Path, journal: &Journal) {
    for path in journal
        .renames
        .iter()
        .map(|r| &r.temp)
        .chain([&journal.journal_temp])
    {
        let _ = std::fs::remove_file(root.join(path));
    }
    let _ = std::fs::remove_file(root.join(JOURNAL));
}

/// Makes the temporary files of `renames` reach the disk before the journal says they did.
/// Linux: one `syncfs` per file system they are on (a port of thousands of files waited for
/// each file's own `fsync`); elsewhere, or where that fails, each file's `sync_all`.
fn sync_written(root: &Path, renames: &[Rename]) -> Result<(), Error> {
    let temps: Vec<PathBuf> = renames.iter().map(|r| root.join(&r.temp)).collect();
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let mut devices: Vec<(u64, &Path)> = Vec::new();
        for temp in &temps {
            let device = std::fs::metadata(temp).map_err(io(temp))?.dev();
            if !devices.iter().any(|(d, _)| *d == device) {
                devices.push((device, temp));
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
    on_writers(&temps, |temp| {
        std::fs::File::open(temp)
            .and_then(|file| file.sync_all())
            .map_err(io(temp))
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

/// Finishes the journal an interrupted `--apply` left at `root` (the workspace root, only
/// there), if any. Only `--apply` (`apply`) may do so; `--check` and `--diff` refuse to read
/// a half-written tree. A journal that is not one burn-migrate wrote (tracked by git, a
/// symlink, a path that is not one of ours inside the root) is reported and nothing is
/// touched. Returns what was done, for the user.
pub fn resume(root: &Path, apply: bool) -> Result<Option<String>, Error> {
    let root = root.canonicalize().map_err(io(root))?;
    let path = root.join(JOURNAL);
    let meta = match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        other => other.map_err(io(&path))?,
    };
    let foreign = |why: String| Error::ForeignJournal {
        journal: path.clone(),
        why,
    };
    if !meta.is_file() {
        return Err(foreign("it is not a regular file".into()));
    }
    if guard::is_tracked(&root, &path) == Some(true) {
        return Err(foreign(
            "git tracks it, and burn-migrate never commits its journal".into(),
        ));
    }
    resume_untracked(&root, apply)
}

/// [`resume`] past the question to git (the part that reads the journal and touches files;
/// public for the property test that feeds it journals by the million).
pub fn resume_untracked(root: &Path, apply: bool) -> Result<Option<String>, Error> {
    let path = root.join(JOURNAL);
    let foreign = |why: String| Error::ForeignJournal {
        journal: path.clone(),
        why,
    };
    if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        return Err(foreign("it is not a regular file".into()));
    }
    let text = std::fs::read(&path).map_err(io(&path))?;
    let text = String::from_utf8(text).map_err(|_| foreign("it is not UTF-8".into()))?;
    let journal = match Journal::parse(&text) {
        Ok(journal) => journal,
        // Cut short: a kill while the first journal was written, before any other file.
        Err(_) if truncated_json(&text) => {
            if !apply {
                return Err(Error::InterruptedApply { journal: path });
            }
            std::fs::remove_file(&path).map_err(io(&path))?;
            return Ok(Some(
                "burn-migrate: removed the journal of an --apply interrupted before it wrote anything".into(),
            ));
        }
        Err(why) => return Err(foreign(why)),
    };
    let (renames, journal_temp) = journal.checked(root).map_err(foreign)?;
    if !apply {
        return Err(Error::InterruptedApply { journal: path });
    }
    let done = finish(&renames, journal.committed)?;
    if journal_temp.is_file() {
        std::fs::remove_file(&journal_temp).map_err(io(&journal_temp))?;
    }
    std::fs::remove_file(&path).map_err(io(&path))?;
    Ok(Some(if journal.committed {
        format!(
            "burn-migrate: finished an interrupted --apply ({done} of {} files were still to be renamed)",
            renames.len()
        )
    } else {
        format!(
            "burn-migrate: rolled back an interrupted --apply that had not started renaming ({done} temporary files removed)"
        )
    }))
}

/// Rolls a checked journal's renames forward (`committed`) or back; returns how many
/// temporary files were still there.
fn finish(renames: &[CheckedRename], committed: bool) -> Result<usize, Error> {
    let mut done = 0;
    for rename in renames {
        // Checked: a regular file, not a link, or nothing.
        if !std::fs::symlink_metadata(&rename.temp).is_ok_and(|m| m.is_file()) {
            continue;
        }
        if committed {
            std::fs::rename(&rename.temp, &rename.target).map_err(|source| Error::HalfWritten {
                path: rename.target.clone(),
                source,
            })?;
        } else {
            std::fs::remove_file(&rename.temp).map_err(io(&rename.temp))?;
        }
        done += 1;
    }
    Ok(done)
}

/// Whether `text` is JSON cut short (the start of an object, ended before it closes).
fn truncated_json(text: &str) -> bool {
    text.trim().is_empty()
        || (text.trim_start().starts_with('{')
            && serde_json::from_str::<serde_json::Value>(text).is_err_and(|e| e.is_eof()))
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
