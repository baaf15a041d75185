//! Whether `--apply` may write where it stands: like `cargo fix`, only where the user can
//! review and undo the port. The guard fails closed: when git cannot answer (not installed,
//! a repository owned by another user, a broken `.git`), it refuses and says why, rather
//! than take the tree for one without uncommitted work.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::error::Error;

/// What the user allowed on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allowed {
    /// Uncommitted changes, untracked targets, and a git that cannot answer.
    pub dirty: bool,
    /// A tree under no version control.
    pub no_vcs: bool,
}

/// Version-control systems other than git, by the directory that marks their trees: their
/// state cannot be read here, so a tree under one is written only with `--allow-dirty`.
const OTHER_VCS: [(&str, &str); 5] = [
    (".hg", "Mercurial"),
    (".jj", "Jujutsu"),
    (".svn", "Subversion"),
    (".pijul", "Pijul"),
    ("_darcs", "Darcs"),
];

/// Refuses to write `targets` (absolute paths) under `root` where the user could not review
/// or revert the port: tracked files with uncommitted changes anywhere in the project (listed),
/// a target git does not track, a tree git cannot read, or no version control at all.
pub fn ensure_undoable(root: &Path, targets: &[PathBuf], allowed: Allowed) -> Result<(), Error> {
    let git = |args: &[&str], paths: &[PathBuf]| {
        let mut command = std::process::Command::new("git");
        command.arg("-C").arg(root).args(args);
        if !paths.is_empty() {
            command.arg("--").args(paths);
        }
        command.output()
    };
    let cannot_answer = |why: String| {
        if allowed.dirty {
            Ok(())
        } else {
            Err(Error::VcsUnknown {
                path: root.to_path_buf(),
                why,
            })
        }
    };
    let inside = match git(&["rev-parse", "--is-inside-work-tree"], &[]) {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return cannot_answer("git is not installed (not on PATH)".to_string())
        }
        Err(e) => return cannot_answer(format!("git could not run: {e}")),
    };
    if !inside.status.success() || inside.stdout.trim_ascii() != b"true" {
        let said = first_line(&inside);
        if let Some(marker) = version_control_marker(root) {
            return match marker {
                (dir, "git") => cannot_answer(format!(
                    "git cannot read the repository at {} ({said})",
                    dir.display()
                )),
                (dir, name) => cannot_answer(format!(
                    "it is under {name} ({}), whose state burn-migrate cannot read; commit your work there first",
                    dir.display()
                )),
            };
        }
        if said.contains("not a git repository") && !allowed.no_vcs {
            return Err(Error::NoVcs {
                path: root.to_path_buf(),
            });
        }
        if said.contains("not a git repository") {
            return Ok(());
        }
        return cannot_answer(format!("git says: {said}"));
    }
    if allowed.dirty {
        return Ok(());
    }
    let status = git(
        &["status", "--porcelain", "-z", "--untracked-files=no"],
        &[PathBuf::from(".")],
    )
    .map_err(|e| Error::VcsUnknown {
        path: root.to_path_buf(),
        why: format!("git could not run: {e}"),
    })?;
    if !status.status.success() {
        return cannot_answer(format!("`git status` failed: {}", first_line(&status)));
    }
    // `XY path` entries, NUL-separated; a rename or copy (`R`, `C`) is followed by an entry
    // that is only its old path.
    let mut dirty: Vec<String> = Vec::new();
    let mut entries = nul_separated(&status.stdout);
    while let Some(entry) = entries.next() {
        dirty.extend(entry.get(3..).map(str::to_string));
        if entry.starts_with(['R', 'C']) {
            entries.next();
        }
    }
    if !dirty.is_empty() {
        return Err(Error::DirtyTree {
            path: root.to_path_buf(),
            files: listed(&dirty),
        });
    }
    if targets.is_empty() {
        return Ok(());
    }
    // `--others` without `--exclude-standard`: an ignored file has no undo either.
    let untracked =
        git(&["ls-files", "-z", "--others"], targets).map_err(|e| Error::VcsUnknown {
            path: root.to_path_buf(),
            why: format!("git could not run: {e}"),
        })?;
    let files: Vec<String> = nul_separated(&untracked.stdout)
        .map(str::to_string)
        .collect();
    if files.is_empty() {
        Ok(())
    } else {
        Err(Error::UntrackedFiles {
            path: root.to_path_buf(),
            files: listed(&files),
        })
    }
}

/// Whether git tracks `path` (inside `root`). `None` when git cannot say.
pub fn is_tracked(root: &Path, path: &Path) -> Option<bool> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z", "--"])
        .arg(path)
        .output()
        .ok()?;
    out.status.success().then_some(!out.stdout.is_empty())
}

/// The nearest directory at or above `root` that marks a version-controlled tree, and the
/// system's name.
fn version_control_marker(root: &Path) -> Option<(PathBuf, &'static str)> {
    root.ancestors().find_map(|dir| {
        let git = dir.join(".git");
        if std::fs::symlink_metadata(&git).is_ok() {
            return Some((git, "git"));
        }
        OTHER_VCS.iter().find_map(|(marker, name)| {
            let path = dir.join(marker);
            path.is_dir().then_some((path, *name))
        })
    })
}

fn nul_separated(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes
        .split(|&b| b == 0)
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| std::str::from_utf8(entry).ok())
}

fn first_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(|l| l.trim_start_matches("fatal: ").trim())
        .find(|l| !l.is_empty())
        .unwrap_or("no answer")
        .to_string()
}

/// At most ten names, then how many more.
fn listed(files: &[String]) -> String {
    let mut out: Vec<String> = files.iter().take(10).map(|f| format!("  {f}")).collect();
    if files.len() > 10 {
        out.push(format!("  ... and {} more", files.len() - 10));
    }
    out.join("\n")
}
