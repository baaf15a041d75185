//! Running cargo: the one place that spawns it, so every caller gets the same environment.

use std::path::Path;
use std::process::{Command, Output};

use crate::error::Error;

/// The cargo that runs us (`$CARGO` under `cargo run`/`cargo test`), else the one on `PATH`.
pub fn program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Runs `cargo ARGS` in `dir` with its outputs in `target` (shared across runs, so Burn
/// builds once per machine), and waits for it.
pub fn run(dir: &Path, target: &Path, args: &[&str]) -> Result<Output, Error> {
    Command::new(program())
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .map_err(|source| Error::Spawn {
            program: "cargo".to_string(),
            dir: dir.to_path_buf(),
            source,
        })
}
