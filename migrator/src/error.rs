//! Errors of the library. Each says what went wrong, where, and what to do next.

use std::path::PathBuf;

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
    #[error("no Cargo.toml in {path} or above it: run burn-migrate inside a Cargo project or pass its path")]
    NoManifest { path: PathBuf },
    #[error("`cargo metadata` failed for {manifest}: {message}\nfix the manifest so that `cargo metadata --no-deps` succeeds, then run burn-migrate again")]
    Metadata { manifest: PathBuf, message: String },
    #[error("cannot edit {path}: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("rule file {path}: {message}")]
    Rule { path: PathBuf, message: String },
    #[error("{path} has uncommitted changes; commit or stash them first, or pass --allow-dirty")]
    DirtyTree { path: PathBuf },
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
    #[error("{0}")]
    Usage(String),
    #[error("internal error: {0}; please report it with the input that caused it")]
    Internal(String),
}
