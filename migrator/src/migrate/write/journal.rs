//! The journal of one `--apply`: which temporary file becomes which target, and whether the
//! renames may go ahead. It is read from an untrusted tree (a repository may commit a file
//! of this name, or a tree may be copied or moved after a crash), so reading it validates
//! every path before anything is touched:
//! - paths are relative to the project root, `/`-separated, made of plain names only (no
//!   `..`, no root, no `.`), and name no version-control directory (`.git`, ...);
//! - every directory on the way is a real directory inside the root, never a symlink;
//! - a target is a kind of file burn-migrate writes (`*.rs`, `Cargo.toml`, `Cargo.lock`,
//!   `rust-toolchain[.toml]`), and its temporary file sits beside it under a name of ours
//!   (`.NAME.RANDOM.burn-migrate.tmp`);
//! - a temporary file that exists is a regular file, not a symlink.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The journal's file name, at the workspace root (only there).
pub const FILE: &str = ".burn-migrate-journal";

/// The ending of every temporary file burn-migrate creates.
pub const TEMP_SUFFIX: &str = ".burn-migrate.tmp";

/// Bumped when the format changes: a journal of another version is not read.
const VERSION: u32 = 2;

/// Names of version-control directories: nothing under them is ever touched (a rename into
/// `.git/hooks` would run code at the next commit).
const VCS_DIRS: [&str; 7] = [
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".pijul",
    "_darcs",
    ".fslckout",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    pub version: u32,
    /// Every temporary file is complete: the renames may (and on resume must) go ahead.
    pub committed: bool,
    /// The temporary file the committed journal is written to before it replaces this one
    /// (removed on resume if a kill left it).
    pub journal_temp: String,
    pub renames: Vec<Rename>,
}

/// Root-relative, `/`-separated paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    pub temp: String,
    pub target: String,
}

/// A journal's rename, checked: absolute paths inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedRename {
    pub temp: PathBuf,
    pub target: PathBuf,
}

impl Journal {
    pub fn new(journal_temp: String, renames: Vec<Rename>) -> Self {
        Journal {
            version: VERSION,
            committed: false,
            journal_temp,
            renames,
        }
    }

    pub fn to_text(&self) -> String {
        // A struct of strings and a bool: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parses a journal's text; `Err` says why it is not a journal of this version.
    pub fn parse(text: &str) -> Result<Journal, String> {
        let journal: Journal = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if journal.version != VERSION {
            return Err(format!(
                "it is version {}; this burn-migrate reads version {VERSION}",
                journal.version
            ));
        }
        Ok(journal)
    }

    /// Every path of the journal, checked against `root` (canonical). `Err` names the first
    /// path that is not one burn-migrate would have written there.
    pub fn checked(&self, root: &Path) -> Result<(Vec<CheckedRename>, PathBuf), String> {
        let journal_temp = checked_path(root, &self.journal_temp)?;
        let temp_name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().to_string());
        if journal_temp.parent() != Some(root)
            || !temp_name(&journal_temp).is_some_and(|n| is_temp_name(&n))
        {
            return Err(format!(
                "`{}` is not a temporary file of the journal",
                self.journal_temp
            ));
        }
        let mut out = Vec::new();
        for rename in &self.renames {
            let temp = checked_path(root, &rename.temp)?;
            let target = checked_path(root, &rename.target)?;
            if !target
                .file_name()
                .is_some_and(|n| is_written_kind(&n.to_string_lossy()))
            {
                return Err(format!(
                    "`{}` is not a kind of file burn-migrate writes",
                    rename.target
                ));
            }
            if temp.parent() != target.parent()
                || !temp_name(&temp).is_some_and(|n| is_temp_name(&n))
            {
                return Err(format!(
                    "`{}` is not a temporary file beside `{}`",
                    rename.temp, rename.target
                ));
            }
            if out.iter().any(|r: &CheckedRename| r.target == target) {
                return Err(format!("`{}` is named twice", rename.target));
            }
            out.push(CheckedRename { temp, target });
        }
        Ok((out, journal_temp))
    }
}

/// `root` joined with the relative, `/`-separated `path`, where every part is a plain name
/// that names no version-control directory and every directory on the way exists as a
/// real directory (no symlink) or does not exist at all.
pub fn checked_path(root: &Path, path: &str) -> Result<PathBuf, String> {
    let parts: Vec<&str> = path.split('/').collect();
    let plain = |part: &&str| {
        !part.is_empty()
            && *part != "."
            && *part != ".."
            && !part.contains(['\\', '\0', ':'])
            && !VCS_DIRS.iter().any(|v| part.eq_ignore_ascii_case(v))
    };
    if !parts.iter().all(plain) {
        return Err(format!("`{path}` is not a plain path inside the project"));
    }
    let mut full = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        full.push(part);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&full) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "`{path}` goes through a symlink ({})",
                    full.display()
                ))
            }
            Ok(meta) if !last && !meta.is_dir() => {
                return Err(format!("`{path}`: {} is not a directory", full.display()))
            }
            Ok(meta) if last && !meta.is_file() => {
                return Err(format!("`{path}` is not a regular file"))
            }
            _ => {}
        }
    }
    Ok(full)
}

/// The root-relative, `/`-separated form of `path` (inside the canonical `root`).
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
    let joined = parts?.join("/");
    (!joined.is_empty()).then_some(joined)
}

/// A file name burn-migrate gives a temporary file.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMP_SUFFIX) && name.len() > TEMP_SUFFIX.len() + 1
}

/// A file name burn-migrate may write: Rust sources, manifests, the lockfile, toolchain pins.
pub fn is_written_kind(name: &str) -> bool {
    name.ends_with(".rs")
        || [
            "Cargo.toml",
            "Cargo.lock",
            "rust-toolchain",
            "rust-toolchain.toml",
        ]
        .contains(&name)
}

/// A fresh temporary file name beside a target called `target_name`:
/// `.NAME.RANDOM.burn-migrate.tmp`, with at most 100 bytes of the name (file names are
/// limited to 255) and 64 random bits, so that no name can be guessed ahead of the run.
pub fn temp_name(target_name: &str) -> String {
    let mut end = target_name.len().min(100);
    while !target_name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}.{:016x}{TEMP_SUFFIX}", &target_name[..end], random())
}

/// 64 unpredictable bits: std's `RandomState` keys come from the operating system's random
/// source, and SipHash keyed with them scatters a counter (no dependency needed for this).
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(renames: &[(&str, &str)]) -> Journal {
        Journal::new(
            temp_name(FILE),
            renames
                .iter()
                .map(|(temp, target)| Rename {
                    temp: temp.to_string(),
                    target: target.to_string(),
                })
                .collect(),
        )
    }

    #[test]
    fn paths_outside_the_root_or_not_ours_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/", root.join("up")).unwrap();
        let ok = journal(&[(
            "src/.main.rs.0123456789abcdef.burn-migrate.tmp",
            "src/main.rs",
        )]);
        assert!(ok.checked(&root).is_ok());
        for (temp, target) in [
            ("/etc/.passwd.x.burn-migrate.tmp", "/etc/passwd.rs"),
            ("../.x.rs.a.burn-migrate.tmp", "../x.rs"),
            ("src/../../.x.rs.a.burn-migrate.tmp", "src/../../x.rs"),
            (
                ".git/hooks/.pre-commit.a.burn-migrate.tmp",
                ".git/hooks/pre-commit",
            ),
            (".GIT/hooks/.x.rs.a.burn-migrate.tmp", ".GIT/hooks/x.rs"),
            ("src/.main.rs.a.burn-migrate.tmp", "src/notes.txt"),
            ("src/main.rs.tmp", "src/main.rs"),
            ("src/.main.rs.a.burn-migrate.tmp", "other/main.rs"),
            ("up/tmp/.x.rs.a.burn-migrate.tmp", "up/tmp/x.rs"),
            ("src//.x.rs.a.burn-migrate.tmp", "src//x.rs"),
            ("./.x.rs.a.burn-migrate.tmp", "./x.rs"),
            ("src\\..\\..\\.x.rs.a.burn-migrate.tmp", "src\\..\\..\\x.rs"),
            ("", ""),
        ] {
            let bad = journal(&[(temp, target)]);
            assert!(bad.checked(&root).is_err(), "{temp} -> {target}");
        }
        let mut outside_temp = journal(&[]);
        outside_temp.journal_temp = "../.burn-migrate-journal.a.burn-migrate.tmp".into();
        assert!(outside_temp.checked(&root).is_err());
    }

    #[test]
    fn temp_names_are_ours_distinct_and_short_enough() {
        let long = "é".repeat(200);
        let name = temp_name(&long);
        assert!(name.len() < 255 && is_temp_name(&name));
        assert_ne!(temp_name("main.rs"), temp_name("main.rs"));
        assert!(is_temp_name(&temp_name("main.rs")));
    }
}
