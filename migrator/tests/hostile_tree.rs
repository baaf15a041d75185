//! `--apply` on a hostile or broken tree (issue 28): it never writes outside the project,
//! whatever the repository holds; the whole port, `Cargo.lock` included, is one transaction
//! that a kill at any instant, a moved tree, a second run or a full disk cannot leave
//! half-done; and it writes only where the user can undo it. Each test names the case of the
//! issue it covers. Files outside the project are sentinels: their bytes are checked after.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

const MAIN: &str = "mod model;\n\nfn main() {}\n";

const GENERIC: &str = "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n";

const GENERIC_PORTED: &str = "pub fn double(x: Tensor<1>) -> Tensor<1> {";

/// A one-crate Burn 0.21 project with `src/model.rs`, committed to git.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Cargo.toml"), MANIFEST);
    write(&dir.path().join("src/main.rs"), MAIN);
    write(&dir.path().join("src/model.rs"), GENERIC);
    commit_all(dir.path());
    dir
}

fn commit_all(dir: &Path) {
    if !dir.join(".git").exists() {
        git(dir, &["init", "-q"]);
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "state", "--allow-empty"]);
}

/// A file outside any project, with its text, to check that nothing wrote to it.
struct Sentinel {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

const SENTINEL: &str = "outside the project: never written\n";

impl Sentinel {
    fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        write(&path, SENTINEL);
        Sentinel { _dir: dir, path }
    }

    fn assert_untouched(&self) {
        assert!(
            !self.path.is_symlink(),
            "{} became a link",
            self.path.display()
        );
        assert_eq!(
            read(&self.path),
            SENTINEL,
            "{} was written",
            self.path.display()
        );
    }
}

/// Every file of a tree (relative path, bytes), `.git` and `target` left out, hidden files
/// and `Cargo.lock` included: a journal or temporary file left behind shows here. Symlinks
/// are listed by where they point.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if name == ".git" || name == "target" {
                continue;
            }
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let to = std::fs::read_link(&path).unwrap();
                out.push((relative, format!("-> {}", to.display()).into_bytes()));
            } else if kind.is_dir() {
                walk(root, &path, out);
            } else {
                out.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn names(snapshot: &[(String, Vec<u8>)]) -> Vec<&str> {
    snapshot.iter().map(|(n, _)| n.as_str()).collect()
}

/// Fails naming the files that differ between two snapshots (not their bytes).
#[track_caller]
fn assert_same(actual: &[(String, Vec<u8>)], expected: &[(String, Vec<u8>)], what: &str) {
    let differing: Vec<&str> = expected
        .iter()
        .zip(actual)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.0.as_str())
        .collect();
    assert!(
        names(actual) == names(expected) && differing.is_empty(),
        "{what}: files {:?}, expected {:?}; differing: {differing:?}",
        names(actual),
        names(expected)
    );
}

/// Item 1: a committed symlink at a temporary file's path (the name earlier releases used)
/// to a file outside the project, or into `.git/hooks`, is never written through; the target
/// stays a regular file.
#[cfg(unix)]
#[test]
fn a_planted_link_at_a_temporary_path_is_never_followed() {
    let outside = Sentinel::new("victim.rs");
    let dir = project();
    let root = dir.path();
    std::os::unix::fs::symlink(&outside.path, root.join("src/.model.rs.burn-migrate.tmp")).unwrap();
    std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
    write(&root.join(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
    std::os::unix::fs::symlink(
        "../.git/hooks/pre-commit",
        root.join("src/.main.rs.burn-migrate.tmp"),
    )
    .unwrap();
    commit_all(root);

    let out = burn_migrate(&["--apply"], root);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    outside.assert_untouched();
    assert_eq!(
        read(&root.join(".git/hooks/pre-commit")),
        "#!/bin/sh\nexit 0\n"
    );
    let model = root.join("src/model.rs");
    assert!(!model.is_symlink(), "src/model.rs stays a file");
    assert!(read(&model).contains(GENERIC_PORTED));
    // The planted links are the repository's own files: left as they were.
    assert!(root.join("src/.model.rs.burn-migrate.tmp").is_symlink());
}

/// Item 2: a committed journal is not one of ours, whatever it names: reported, nothing
/// touched (the file it names outside the project, the files inside, the journal itself).
#[test]
fn a_committed_journal_is_reported_and_nothing_is_touched() {
    let outside = Sentinel::new("victim.txt");
    for committed in [false, true] {
        let dir = project();
        let root = dir.path();
        // The format of the release that read absolute paths, and of this one.
        let old_format = serde_json::json!({
            "committed": committed,
            "renames": [{ "temp": outside.path, "target": root.join("src/model.rs") }],
        });
        let new_format = serde_json::json!({
            "version": 2,
            "committed": committed,
            "journal_temp": "..burn-migrate-journal.0.burn-migrate.tmp",
            "renames": [{ "temp": "src/.model.rs.0.burn-migrate.tmp", "target": "src/model.rs" }],
        });
        write(&root.join("src/.model.rs.0.burn-migrate.tmp"), "planted");
        for journal in [old_format, new_format] {
            write(&root.join(".burn-migrate-journal"), &journal.to_string());
            commit_all(root);
            let before = snapshot(root);
            for mode in ["--apply", "--check", "--diff"] {
                let out = burn_migrate(&[mode], root);
                let message = stderr(&out);
                assert_eq!(out.status.code(), Some(2), "{mode}: {message}");
                assert!(
                    message.contains("not a journal burn-migrate wrote")
                        && message.contains("delete"),
                    "{mode}: {message}"
                );
                outside.assert_untouched();
                assert_same(
                    &snapshot(root),
                    &before,
                    &format!("{mode} touched the tree"),
                );
            }
        }
    }
}

/// Item 2: an untracked journal naming paths outside the root (absolute, `..`, through a
/// symlink, into `.git`) is refused before anything is touched.
#[cfg(unix)]
#[test]
fn a_journal_naming_paths_outside_the_root_is_refused() {
    let outside = Sentinel::new("victim.rs");
    let dir = project();
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path.parent().unwrap(), root.join("elsewhere")).unwrap();
    let victim_name = outside
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    write(&root.join("src/.model.rs.0.burn-migrate.tmp"), "planted");
    let entries = [
        (
            outside.path.to_string_lossy().to_string(),
            "src/model.rs".to_string(),
        ),
        (
            "src/.model.rs.0.burn-migrate.tmp".to_string(),
            format!("elsewhere/{victim_name}"),
        ),
        (
            "src/.model.rs.0.burn-migrate.tmp".to_string(),
            format!("../{victim_name}"),
        ),
        (
            "src/.model.rs.0.burn-migrate.tmp".to_string(),
            ".git/hooks/pre-commit".to_string(),
        ),
    ];
    for committed in [false, true] {
        for (temp, target) in &entries {
            let journal = serde_json::json!({
                "version": 2,
                "committed": committed,
                "journal_temp": "..burn-migrate-journal.0.burn-migrate.tmp",
                "renames": [{ "temp": temp, "target": target }],
            });
            write(&root.join(".burn-migrate-journal"), &journal.to_string());
            let before = snapshot(root);
            let out = burn_migrate(&["--apply", "--allow-dirty"], root);
            let message = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{temp} -> {target}: {message}");
            assert!(
                message.contains("not a journal burn-migrate wrote"),
                "{message}"
            );
            outside.assert_untouched();
            assert_same(&snapshot(root), &before, &format!("{temp} -> {target}"));
        }
    }
}

/// Item 2: a journal in a directory above the project belongs to no run on it: ignored,
/// the project is ported, and the files it names are not touched.
#[test]
fn a_journal_above_the_project_is_ignored() {
    let parent = tempfile::tempdir().unwrap();
    write(&parent.path().join("a.rs"), SENTINEL);
    write(&parent.path().join(".a.rs.0.burn-migrate.tmp"), "planted");
    let journal = serde_json::json!({
        "version": 2,
        "committed": true,
        "journal_temp": "..burn-migrate-journal.0.burn-migrate.tmp",
        "renames": [{ "temp": ".a.rs.0.burn-migrate.tmp", "target": "a.rs" }],
    });
    write(
        &parent.path().join(".burn-migrate-journal"),
        &journal.to_string(),
    );
    let root = parent.path().join("project");
    write(&root.join("Cargo.toml"), MANIFEST);
    write(&root.join("src/main.rs"), MAIN);
    write(&root.join("src/model.rs"), GENERIC);
    commit_all(&root);
    let out = burn_migrate(&["--apply"], &root);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&root.join("src/model.rs")).contains(GENERIC_PORTED));
    assert_eq!(read(&parent.path().join("a.rs")), SENTINEL);
    assert_eq!(
        read(&parent.path().join(".a.rs.0.burn-migrate.tmp")),
        "planted"
    );
    assert!(parent.path().join(".burn-migrate-journal").is_file());
}

/// Item 3: a `Cargo.lock` or a manifest that links to a file outside the project is never
/// written through: the port is refused (nothing written) and says why.
#[cfg(unix)]
#[test]
fn a_lockfile_or_manifest_linking_outside_is_never_written() {
    let lock = Sentinel::new("Cargo.lock");
    let dir = project();
    let root = dir.path();
    std::os::unix::fs::symlink(&lock.path, root.join("Cargo.lock")).unwrap();
    commit_all(root);
    let before = snapshot(root);
    let out = burn_migrate(&["--apply"], root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("outside the project"), "{message}");
    lock.assert_untouched();
    assert_same(&snapshot(root), &before, "the tree");

    let manifest = Sentinel::new("Cargo.toml");
    std::fs::write(&manifest.path, MANIFEST).unwrap();
    let dir = project();
    let root = dir.path();
    std::fs::remove_file(root.join("Cargo.toml")).unwrap();
    std::os::unix::fs::symlink(&manifest.path, root.join("Cargo.toml")).unwrap();
    commit_all(root);
    let before = snapshot(root);
    let out = burn_migrate(&["--apply"], root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("outside the project"), "{message}");
    assert_eq!(read(&manifest.path), MANIFEST);
    assert_same(&snapshot(root), &before, "the tree");
}

/// An uninterrupted `--apply` of a copy of `fixture` (committed to git), as the reference:
/// the tree it leaves, lockfile included.
fn clean_port(fixture: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    copy_project(fixture, dir.path());
    commit_all(dir.path());
    let out = burn_migrate(&["--apply"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let done = snapshot(dir.path());
    assert!(
        names(&done).contains(&"Cargo.lock"),
        "the port writes a lockfile"
    );
    done
}

/// A shell script `name` in `dir` that stands in for cargo: `body` runs first for a call for
/// the lockfile (anything but `metadata --no-deps`, which reads the workspace), with
/// `$CARGO_REAL` the real cargo.
#[cfg(unix)]
fn cargo_in_front(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join(name);
    write(
        &script,
        &format!(
            "#!/bin/sh\nCARGO_REAL='{}'\ncase \" $* \" in\n  *\" --no-deps \"*) exec \"$CARGO_REAL\" \"$@\" ;;\nesac\n{body}\n",
            env!("CARGO")
        ),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A cargo that marks `mark` and waits when called for the lockfile, so a test can kill
/// `--apply` there.
#[cfg(unix)]
fn slow_lock_cargo(dir: &Path, mark: &Path) -> PathBuf {
    let body = format!(
        "touch '{}'\nsleep 5\nexec \"$CARGO_REAL\" \"$@\"",
        mark.display()
    );
    cargo_in_front(dir, "slow-cargo", &body)
}

/// Item 4: a kill while cargo works out the lockfile leaves the tree as it was (no source,
/// manifest or lockfile written, no journal), and the next `--apply` ends byte-identical to an
/// uninterrupted run, lockfile included. An orphaned cargo cannot write the project either.
#[cfg(unix)]
#[test]
fn a_kill_during_the_lockfile_step_leaves_the_tree_as_it_was() {
    let fixture = repo_root().join("testdata/projects/mlp-regression/before");
    let expected = clean_port(&fixture);
    let dir = tempfile::tempdir().unwrap();
    copy_project(&fixture, dir.path());
    commit_all(dir.path());
    let original = snapshot(dir.path());
    let tools = tempfile::tempdir().unwrap();
    let mark = tools.path().join("in-the-lockfile-step");
    let cargo = slow_lock_cargo(tools.path(), &mark);
    let mut child = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["--apply"])
        .arg(dir.path())
        .env("CARGO", &cargo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !mark.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never reached the lockfile step"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Long enough for the wrapper's sleep to end: a cargo that outlived `--apply` would
    // write now.
    std::thread::sleep(Duration::from_secs(6));
    assert_same(
        &snapshot(dir.path()),
        &original,
        "killed in the lockfile step",
    );

    let out = burn_migrate(&["--apply"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_same(&snapshot(dir.path()), &expected, "rerun after the kill");
}

/// Item 5: a tree moved (or copied) after a kill mid-rename is finished where it now is,
/// and ends byte-identical to an uninterrupted run; the old place is not written.
#[test]
fn a_tree_moved_after_a_kill_is_finished_where_it_is() {
    let fixture = repo_root().join("testdata/projects/mlp-regression/before");
    let expected = clean_port(&fixture);
    let original = {
        let dir = tempfile::tempdir().unwrap();
        copy_project(&fixture, dir.path());
        snapshot(dir.path())
    };
    let written = expected.iter().filter(|f| !original.contains(f)).count();
    assert!(written >= 3, "the port writes several files");
    for kill_at in 1..=written {
        let place = tempfile::tempdir().unwrap();
        let first = place.path().join("first");
        copy_project(&fixture, &first);
        commit_all(&first);
        let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
            .args(["--apply"])
            .arg(&first)
            .env("BURN_MIGRATE_TEST_KILL_AT_RENAME", kill_at.to_string())
            .output()
            .unwrap();
        assert!(!out.status.success(), "killed at rename {kill_at}");
        assert!(first.join(".burn-migrate-journal").is_file());
        let moved = place.path().join("moved");
        std::fs::rename(&first, &moved).unwrap();
        let out = burn_migrate(&["--apply"], &moved);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{message}");
        // Renames run in parallel: some begun before the abort may be done, others not,
        // but the killed one at least was left to do, here where the tree now is.
        let left: usize = message
            .split("finished an interrupted --apply (")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("killed at rename {kill_at}: {message}"));
        assert!(
            (1..=written).contains(&left) && message.contains(&format!("of {written} files")),
            "killed at rename {kill_at}: {message}"
        );
        assert_same(
            &snapshot(&moved),
            &expected,
            &format!("killed at rename {kill_at}"),
        );
        assert!(!first.exists(), "nothing written where the tree was");
    }
}

/// Item 6: two `--apply` runs at once take turns: the second waits, then finds the port
/// done; the tree ends as one run leaves it, with no journal or temporary file behind.
#[test]
fn two_runs_at_once_take_turns() {
    let fixture = repo_root().join("testdata/projects/mlp-regression/before");
    let expected = clean_port(&fixture);
    for round in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        copy_project(&fixture, dir.path());
        commit_all(dir.path());
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
                .args(["--apply", "--allow-dirty"])
                .arg(dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        for out in [&a, &b] {
            assert_eq!(out.status.code(), Some(0), "round {round}: {}", stderr(out));
        }
        assert_same(&snapshot(dir.path()), &expected, &format!("round {round}"));
    }
}

/// Makes `dir` refuse new entries, as a read-only directory does for a user (root writes
/// through permissions: it gets the immutable attribute instead). Returns what undoes it.
#[cfg(unix)]
fn make_read_only(dir: &Path) -> impl FnOnce() + '_ {
    use std::os::unix::fs::PermissionsExt;
    let root = unsafe { libc_geteuid() } == 0;
    if root {
        let ok = Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "chattr +i {} (needs a file system with attributes)",
            dir.display()
        );
    } else {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    move || {
        if root {
            Command::new("chattr").arg("-i").arg(dir).status().unwrap();
        } else {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

#[cfg(unix)]
extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// Item 7: an `--apply` that fails while writing (a directory it may not write, a full disk)
/// writes nothing and leaves nothing behind: no journal, no temporary file, and `--check`
/// and `--diff` afterwards read the tree as they did before.
#[cfg(unix)]
#[test]
fn a_failed_apply_leaves_nothing_behind() {
    let dir = project();
    let root = dir.path();
    let before = snapshot(root);
    let src = root.join("src");
    let undo = make_read_only(&src);
    let out = burn_migrate(&["--apply"], root);
    undo();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("src/"),
        "names where it could not write: {message}"
    );
    assert_same(&snapshot(root), &before, "read-only src/");
    for mode in ["--check", "--diff"] {
        let out = burn_migrate(&[mode], root);
        assert_eq!(out.status.code(), Some(1), "{mode}: {}", stderr(&out));
    }
}

/// Item 7, a full disk: the project sits on a small tmpfs with too little room for the port
/// of its large file. Needs the right to mount (root on this machine and CI's); elsewhere it
/// says so and checks nothing.
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_nothing_behind() {
    let mount = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(mount.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (not root)");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(mount.path());
    let root = mount.path().join("project");
    write(&root.join("Cargo.toml"), MANIFEST);
    write(&root.join("src/main.rs"), MAIN);
    // 400 KB: its port does not fit in what is left.
    let padding =
        "// padding padding padding padding padding padding padding padding\n".repeat(6000);
    write(&root.join("src/model.rs"), &format!("{GENERIC}{padding}"));
    commit_all(&root);
    let free = |path: &Path| {
        let out = Command::new("df")
            .arg("--output=avail")
            .arg("-B1")
            .arg(path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    let fill = free(&root).saturating_sub(100 * 1024);
    std::fs::write(mount.path().join("filler"), vec![0u8; fill as usize]).unwrap();
    let before = snapshot(&root);
    let out = burn_migrate(&["--apply"], &root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("No space left"), "{message}");
    assert_same(&snapshot(&root), &before, "full disk");
    let out = burn_migrate(&["--check"], &root);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// Item 8: when git cannot answer (not installed), `--apply` refuses rather than take the
/// tree for one without uncommitted work, and says why; `--allow-dirty` writes anyway.
#[test]
fn a_git_that_cannot_answer_fails_closed() {
    let dir = project();
    let root = dir.path();
    write(
        &root.join("src/main.rs"),
        "mod model;\n\n// uncommitted work\nfn main() {}\n",
    );
    let before = snapshot(root);
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["--apply"])
        .arg(root)
        .env("PATH", empty.path())
        .env("CARGO", env!("CARGO"))
        .output()
        .unwrap();
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("git is not installed") && message.contains("--allow-dirty"),
        "{message}"
    );
    assert_same(&snapshot(root), &before, "the tree");
}

/// Item 8: a repository owned by another user ("dubious ownership": git will not read it)
/// is refused; with `--allow-dirty` the port keeps each file's owner and mode. Needs root
/// (to give the tree away); elsewhere it says so and checks nothing.
#[cfg(unix)]
#[test]
fn another_users_repository_is_refused_and_owners_are_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if unsafe { libc_geteuid() } != 0 {
        eprintln!("skipped: giving a tree to another user needs root");
        return;
    }
    let dir = project();
    let root = dir.path();
    let model = root.join("src/model.rs");
    std::fs::set_permissions(&model, std::fs::Permissions::from_mode(0o640)).unwrap();
    let chown = Command::new("chown")
        .args(["-R", "12345:12345"])
        .arg(root)
        .status()
        .unwrap();
    assert!(chown.success());
    let before = snapshot(root);
    let out = burn_migrate(&["--apply"], root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("cannot tell whether"), "{message}");
    assert!(message.contains("dubious ownership"), "{message}");
    assert_same(&snapshot(root), &before, "the tree");

    let out = burn_migrate(&["--apply", "--allow-dirty"], root);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&model).contains(GENERIC_PORTED));
    for path in [model.clone(), root.join("Cargo.toml")] {
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(
            (meta.uid(), meta.gid()),
            (12345, 12345),
            "{}",
            path.display()
        );
    }
    assert_eq!(
        std::fs::metadata(&model).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

/// Item 8: a dirty tree is refused with the dirty files listed.
#[test]
fn a_dirty_tree_is_refused_with_its_files() {
    let dir = project();
    let root = dir.path();
    write(
        &root.join("src/main.rs"),
        "mod model;\n\n// edited\nfn main() {}\n",
    );
    let out = burn_migrate(&["--apply"], root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("src/main.rs"), "{message}");
    assert_eq!(read(&root.join("src/model.rs")), GENERIC);
}

/// The done-when of issue 28: no journal makes `--apply`'s resume touch a path outside the
/// root. Journals are generated from pieces an attacker would use (absolute paths, `..`,
/// links out of the root, version-control directories, names of ours and not, empty and odd
/// parts, wrong versions, committed or not) and handed to the resume one after another in one
/// tree, with files outside it that each journal could name. After each, every file outside
/// the root is as it was. `BURN_MIGRATE_JOURNAL_CASES` sets how many (default 20,000, what
/// `.ci/run` runs; the long run is in `testdata/measurements/properties.md`).
#[cfg(unix)]
#[test]
fn no_journal_makes_the_resume_touch_a_path_outside_the_root() {
    use burn_migrate::migrate::write;
    let cases = env_number("BURN_MIGRATE_JOURNAL_CASES", 20_000);
    let base = tempfile::tempdir().unwrap();
    let base_path = base.path().canonicalize().unwrap();
    let root = base_path.join("root");
    let outside = base_path.join("outside");
    for name in ["victim.rs", "Cargo.toml", "Cargo.lock", "main.rs"] {
        write(&outside.join(name), SENTINEL);
        write(
            &outside.join(format!(".{name}.0123456789abcdef.burn-migrate.tmp")),
            SENTINEL,
        );
    }
    std::os::unix::fs::symlink(&outside, base_path.join("link-to-outside")).unwrap();
    let outside_before = snapshot(&base_path.join("outside"));
    let inside_files = [
        "src/main.rs",
        "src/.main.rs.0123456789abcdef.burn-migrate.tmp",
        "Cargo.toml",
        ".Cargo.toml.0123456789abcdef.burn-migrate.tmp",
        ".git/hooks/.pre-commit.0123456789abcdef.burn-migrate.tmp",
        ".git/hooks/main.rs",
        ".git/hooks/.main.rs.0123456789abcdef.burn-migrate.tmp",
    ];
    let set_up_inside = || {
        for name in inside_files {
            let path = root.join(name);
            if !path.is_file() {
                write(&path, "inside\n");
            }
        }
        for (link, to) in [
            ("out", outside.clone()),
            ("src/out.rs", outside.join("victim.rs")),
        ] {
            if std::fs::symlink_metadata(root.join(link)).is_err() {
                std::os::unix::fs::symlink(to, root.join(link)).unwrap();
            }
        }
    };
    set_up_inside();
    // Version control is outside the project's files too: a rename into `.git/hooks` would
    // run code at the next commit.
    let git_before = snapshot(&root.join(".git"));
    let outside_text = outside.to_string_lossy().to_string();
    // Directories a journal could name, inside the root or not, and file names.
    let dirs: Vec<String> = [
        "src",
        "..",
        ".",
        "",
        "out",
        "root",
        "outside",
        "link-to-outside",
        ".git",
        "hooks",
        ".GIT",
        ".git/hooks",
        ".GIT/hooks",
        "../outside",
        "..\\outside",
        "C:",
        "é",
        "\u{0}",
        "/",
    ]
    .iter()
    .map(|p| p.to_string())
    .chain([outside_text.clone()])
    .collect();
    let file_names = [
        "main.rs",
        "Cargo.toml",
        "Cargo.lock",
        "victim.rs",
        "pre-commit",
        "out.rs",
    ];
    let mut rng = Rng::new(28);
    let dir = |rng: &mut Rng| {
        let n = rng.below(3);
        let mut out: Vec<&str> = (0..n)
            .map(|_| dirs[rng.below(dirs.len())].as_str())
            .collect();
        if rng.below(4) == 0 {
            out.insert(0, "");
        }
        out
    };
    let in_dir = |dir: &[&str], name: &str| {
        let mut parts = dir.to_vec();
        parts.push(name);
        parts.join("/")
    };
    let mut touched_inside = 0u64;
    for case in 0..cases {
        set_up_inside();
        // Mostly a temporary file of ours beside its target, so that what is checked is
        // where they are; sometimes any path at all.
        let renames: Vec<serde_json::Value> = (0..1 + rng.below(2))
            .map(|_| {
                let at = dir(&mut rng);
                let name = file_names[rng.below(file_names.len())];
                let target = in_dir(&at, name);
                let temp = match rng.below(4) {
                    0 => {
                        let other = file_names[rng.below(file_names.len())];
                        let temp = format!(".{other}.0123456789abcdef.burn-migrate.tmp");
                        in_dir(&dir(&mut rng), &temp)
                    }
                    _ => in_dir(&at, &format!(".{name}.0123456789abcdef.burn-migrate.tmp")),
                };
                serde_json::json!({ "temp": temp, "target": target })
            })
            .collect();
        let journal_temp = in_dir(
            &if rng.below(4) == 0 {
                dir(&mut rng)
            } else {
                Vec::new()
            },
            "..burn-migrate-journal.0123456789abcdef.burn-migrate.tmp",
        );
        let journal = serde_json::json!({
            "version": if rng.below(10) == 0 { 1 } else { 2 },
            "committed": rng.below(2) == 0,
            "journal_temp": journal_temp,
            "renames": renames,
        });
        write(&root.join(".burn-migrate-journal"), &journal.to_string());
        let result = write::resume_untracked(&root, true);
        if result.is_ok() {
            touched_inside += 1;
        }
        let _ = std::fs::remove_file(root.join(".burn-migrate-journal"));
        let git_now = snapshot(&root.join(".git"));
        assert!(
            git_now == git_before,
            "case {case}: the resume of {journal} touched .git ({:?})",
            names(&git_now)
        );
        let now = snapshot(&base_path.join("outside"));
        assert!(
            now == outside_before,
            "case {case}: the resume of {journal} touched a file outside the root ({:?})",
            names(&now)
        );
        let entries: Vec<_> = std::fs::read_dir(&base_path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(entries.len(), 3, "case {case}: {journal} made {entries:?}");
    }
    // Journals that name only paths of ours inside the root do get resumed: the generator
    // reaches the code that touches files, not only its refusals.
    assert!(
        cases < 1000 || touched_inside > 0,
        "no journal was accepted"
    );
    eprintln!("{cases} journals, {touched_inside} accepted and resumed inside the root");
}

/// A cargo that logs when each call for the lockfile starts and ends, in nanoseconds since
/// the epoch.
#[cfg(unix)]
fn timing_cargo(dir: &Path, log: &Path) -> PathBuf {
    let log = log.display();
    let body = format!(
        "echo \"start $(date +%s%N)\" >> '{log}'\n\"$CARGO_REAL\" \"$@\"\nrc=$?\necho \"end $(date +%s%N)\" >> '{log}'\nexit $rc"
    );
    cargo_in_front(dir, "timing-cargo", &body)
}

fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// The done-when of issue 28: `--apply` killed (SIGKILL) at random instants spread over the
/// whole run, the lockfile step included, then run again, always ends byte-identical to an
/// uninterrupted run, lockfile included. Each kill is classed by where it landed: in a cargo
/// call for the lockfile (from a logging cargo in front of the real one), before the journal
/// (nothing written), while temporary files were written (journal not committed), while
/// renaming (journal committed), or after. Every other kill comes shortly after the lockfile
/// step, where the writes are. `BURN_MIGRATE_KILLS` sets how many must land while the run
/// is going (default 8, what `.ci/run` runs; the long run is in
/// `testdata/measurements/properties.md`).
#[cfg(unix)]
#[test]
fn kills_at_random_instants_end_like_an_uninterrupted_run() {
    let kills = env_number("BURN_MIGRATE_KILLS", 8);
    let fixture = repo_root().join("testdata/projects/mlp-regression/before");
    let tools = tempfile::tempdir().unwrap();
    let log = tools.path().join("cargo.log");
    let cargo = timing_cargo(tools.path(), &log);
    let apply = |dir: &Path| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_burn-migrate"));
        command
            .args(["--apply"])
            .arg(dir)
            .env("CARGO", &cargo)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        command
    };
    let fresh = || {
        let dir = tempfile::tempdir().unwrap();
        copy_project(&fixture, dir.path());
        commit_all(dir.path());
        dir
    };
    // The uninterrupted run, timed (three runs: the longest sets the window the kills fall
    // in).
    let mut longest = Duration::ZERO;
    let mut expected = Vec::new();
    for _ in 0..3 {
        let dir = fresh();
        let start = Instant::now();
        let out = apply(dir.path()).output().unwrap();
        longest = longest.max(start.elapsed());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        expected = snapshot(dir.path());
    }
    let original = snapshot(fresh().path());
    let mut rng = Rng::new(2028);
    let mut landed: std::collections::BTreeMap<&str, u64> = Default::default();
    // Kills that landed while the run was going; the others (it had ended) are counted apart
    // and do not count towards `kills`.
    let mut landed_in_run = 0;
    let mut kill = 0;
    while landed_in_run < kills {
        kill += 1;
        assert!(
            kill <= kills * 4,
            "too few kills landed in the run: {landed:?}"
        );
        let dir = fresh();
        let _ = std::fs::remove_file(&log);
        let mut child = apply(dir.path()).spawn().unwrap();
        let started = Instant::now();
        // Every other kill comes shortly after the lockfile step ends, where the journal is
        // written, the temporary files, the commit and the renames (a few milliseconds of a
        // run of seconds, which kills at uniform instants seldom reach); the others at a
        // uniform instant of the whole run.
        let delay = if kill % 2 == 0 {
            while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("end "))
                && started.elapsed() < longest * 2
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            Duration::from_micros(rng.below(25_000) as u64)
        } else {
            longest.mul_f64(rng.below(1000) as f64 / 1000.0)
        };
        std::thread::sleep(delay);
        let killed_at = now_ns();
        let finished_first = child.try_wait().unwrap().is_some();
        child.kill().unwrap();
        child.wait().unwrap();
        let in_cargo = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .collect::<Vec<_>>()
            .chunks(2)
            .any(|pair| {
                let at = |i: usize, word: &str| {
                    pair.get(i)
                        .and_then(|l| l.strip_prefix(word))
                        .and_then(|n| n.trim().parse::<u128>().ok())
                };
                let start = at(0, "start ").unwrap_or(u128::MAX);
                start <= killed_at && at(1, "end ").is_none_or(|end| killed_at <= end)
            });
        let journal = std::fs::read_to_string(dir.path().join(".burn-migrate-journal")).ok();
        let phase = match (finished_first, journal) {
            (true, _) => "after the run had ended",
            (false, Some(j)) if j.contains("\"committed\": true") => "renaming (journal committed)",
            (false, Some(_)) => "writing temporary files (journal not committed)",
            (false, None) if in_cargo => "in cargo, working out Cargo.lock",
            (false, None) if snapshot(dir.path()) == original => "before writing anything",
            (false, None) => "after the renames",
        };
        *landed.entry(phase).or_default() += 1;
        if !finished_first {
            landed_in_run += 1;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
            .args(["--apply"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "kill {kill} ({phase}, after {delay:?}): {}",
            stderr(&out)
        );
        assert_same(
            &snapshot(dir.path()),
            &expected,
            &format!("kill {kill} ({phase}, after {delay:?}), then --apply again"),
        );
    }
    eprintln!(
        "{kill} kills, {kills} of them while the run was going (runs of {longest:?} at most): {landed:?}"
    );
}
