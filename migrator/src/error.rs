//! Errors of the library. Each says what went wrong, where, and what to do next.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not valid UTF-8; burn-migrate only edits UTF-8 Rust sources (convert the file, or exclude it)")]
    NotUtf8 { path: PathBuf },
    #[error("no such file or folder: {}{}; check the path, then give a Cargo project (its folder or its Cargo.toml), or a folder or .rs file inside one", path.display(), looked_in.as_ref().map(|dir| format!(" (looked for in {})", dir.display())).unwrap_or_default())]
    PathNotFound {
        path: PathBuf,
        /// The current directory, where `path` is relative.
        looked_in: Option<PathBuf>,
    },
    #[error("no Cargo.toml in {path} or above it: run burn-migrate inside a Cargo project or pass its path")]
    NoManifest { path: PathBuf },
    #[error("`cargo metadata` failed for {manifest}: {message}\nfix the manifest so that `cargo metadata --no-deps` succeeds, then run burn-migrate again")]
    Metadata { manifest: PathBuf, message: String },
    #[error("cannot edit {path}: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("rule file {path}: {message}")]
    Rule { path: PathBuf, message: String },
    #[error("{path} has uncommitted changes:\n{files}\ncommit or stash them first, or pass --allow-dirty")]
    DirtyTree { path: PathBuf, files: String },
    #[error("{path}: --apply would rewrite files that git does not track, so it could not undo the port:\n{files}\nadd and commit them first, or pass --allow-dirty")]
    UntrackedFiles { path: PathBuf, files: String },
    #[error("cannot tell whether {path} has uncommitted work: {why}; fix that, or pass --allow-dirty to write anyway")]
    VcsUnknown { path: PathBuf, why: String },
    #[error("{path} is not under version control, so nothing could undo --apply; put it under git first (`git init && git add -A && git commit -m before-port`), or pass --allow-no-vcs to write anyway")]
    NoVcs { path: PathBuf },
    #[error("{path} links to {target}, outside the project; burn-migrate never writes outside the project: replace the link with a copy of the file, or run burn-migrate where the file lives")]
    OutsideProject { path: PathBuf, target: PathBuf },
    #[error("--apply wrote nothing, because these files could not be migrated:\n{files}\nfix them and run again, or pass --partial to write the files that could be migrated")]
    IncompletePort { files: String },
    #[error("{}: an earlier --apply was interrupted and left this journal; run --apply again to finish it (the tree is half-written until then)", journal.display())]
    InterruptedApply { journal: PathBuf },
    #[error("{}: not a journal burn-migrate wrote ({why}), so nothing was touched; delete the file (and take it out of version control) before running burn-migrate again", journal.display())]
    ForeignJournal { journal: PathBuf, why: String },
    #[error("cannot rename {} into place: {source}; the port is half-written: fix the cause, then run --apply again to finish it", path.display())]
    HalfWritten {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("building the pinned Burn {version} in {dir} failed:\n{errors}")]
    FrameworkBuild {
        version: String,
        dir: PathBuf,
        errors: String,
    },
    #[error("cannot run {program} in {dir}: {source}; is it installed and on PATH?")]
    Spawn {
        program: String,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the output: {0}; is the terminal or pipe still open?")]
    Output(#[source] std::io::Error),
    #[error("cargo could not work out the port's Cargo.lock in {dir} (`cargo update --workspace` on the ported manifests):\n{stderr}\ncheck that cargo can reach the registry, then run again, or pass --partial to write the port without its lockfile")]
    LockUpdate { dir: PathBuf, stderr: String },
    #[error("the ported workspace in {dir} does not resolve: a dependency of the project needs versions Burn 0.22's graph excludes; raise it to a release that works with Burn 0.22. cargo says:\n{stderr}")]
    Unresolvable { dir: PathBuf, stderr: String },
    #[error("`Device::{device}` is not probed: Burn's `{feature}` feature builds CubeCL's LLVM bundle, downloaded at build time; verify with `--device flex` here, or on a machine where that download works")]
    DeviceNeedsDownload { device: String, feature: String },
    #[error("`Device::{device}` cannot be probed on this machine (burn-migrate probes {probed})")]
    DeviceNotProbed { device: String, probed: String },
    #[error("the {probe} driver crashed in the probe: {why}")]
    DeviceCrashed { probe: String, why: String },
    #[error("{probe} does not work here: {why}")]
    DeviceFails { probe: String, why: String },
    #[error("the {probe} probe does not build here: {why}")]
    ProbeNotBuilt { probe: String, why: String },
    #[error("the {probe} probe could not run: {source}")]
    ProbeRun {
        probe: String,
        #[source]
        source: Box<Error>,
    },
    /// A program of the project under verification: these messages go into the verdict,
    /// next to the binary's name.
    #[error("cannot start {}: {source}", binary.display())]
    StartBinary {
        binary: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("still running after {limit:.0?} (--run-limit)")]
    RunLimit { binary: PathBuf, limit: Duration },
    #[error("lost the process: {source}")]
    ProcessLost {
        binary: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{status}: {last_line}")]
    RunFailed {
        binary: PathBuf,
        status: ExitStatus,
        /// The last non-empty line of its standard error.
        last_line: String,
    },
    #[error("{side}: building {dir} failed:\n{stderr}\nfix the build (`burn-migrate verify` lists the errors), then bench again")]
    ProjectBuild {
        side: String,
        dir: PathBuf,
        stderr: String,
    },
    #[error("{side}: {dir} has no Rust file to edit for the rebuild measurement; bench a project with Rust sources")]
    NoSourceToEdit { side: String, dir: PathBuf },
    #[error("{0}")]
    Usage(String),
    #[error("internal error: {0}; please report it with the input that caused it")]
    Internal(String),
}

impl Error {
    /// This error as it reads for the real tree, when it came from cargo run in a scratch
    /// view of it (`util::overlay`) that mirrors absolute paths under `base`.
    pub fn outside_overlay(self, base: &std::path::Path) -> Error {
        let from = base.to_string_lossy();
        let text = |s: String| s.replace(from.as_ref(), "");
        let path = |p: PathBuf| {
            p.strip_prefix(base)
                .map_or(p.clone(), |rest| std::path::Path::new("/").join(rest))
        };
        match self {
            Error::LockUpdate { dir, stderr } => Error::LockUpdate {
                dir: path(dir),
                stderr: text(stderr),
            },
            Error::Unresolvable { dir, stderr } => Error::Unresolvable {
                dir: path(dir),
                stderr: text(stderr),
            },
            Error::Spawn {
                program,
                dir,
                source,
            } => Error::Spawn {
                program,
                dir: path(dir),
                source,
            },
            Error::Io { path: p, source } => Error::Io {
                path: path(p),
                source,
            },
            other => other,
        }
    }
}
