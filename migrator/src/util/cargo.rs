//! Running cargo: the one place that spawns it, so every caller gets the same environment.

use std::path::Path;
use std::process::{Command, Output};

use crate::error::Error;

/// The cargo that runs us (`$CARGO` under `cargo run`/`cargo test`), else the one on `PATH`.
pub fn program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Debug info for the builds we run in the shared target directory: line tables only, so a
/// panic's backtrace still names file and line. Full debug info (the dev profile's default)
/// makes each build of Burn's crates about twice as large, and the cache holds one build per
/// Burn version, feature set and lockfile: with full debug info a cold run of the test suite
/// filled CI's disk (the sizes are in `testdata/measurements/speed.md` and the README).
/// Nothing we measure reads debug info. A caller who
/// sets `CARGO_PROFILE_DEV_DEBUG` keeps their value.
pub const DEV_DEBUG_INFO: &str = "line-tables-only";

/// `cargo` set up to build in `dir` with its outputs in `target` (shared across runs, so
/// Burn builds once per machine).
pub fn command(dir: &Path, target: &Path) -> Command {
    let mut command = Command::new(program());
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never");
    if std::env::var_os("CARGO_PROFILE_DEV_DEBUG").is_none() {
        command.env("CARGO_PROFILE_DEV_DEBUG", DEV_DEBUG_INFO);
    }
    command
}

/// Makes the program `command` starts die with this process (Linux; elsewhere a no-op): a
/// cargo still resolving when `--apply` is killed would hold cargo's package lock for the
/// next run, and an orphan must not go on writing.
pub fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `prctl` is async-signal-safe and touches no memory of the parent; it runs
        // in the child between fork and exec. The signal comes when the thread that spawned
        // the child ends, and callers wait for the child on that thread.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Runs `cargo ARGS` as [`command`] sets it up, and waits for it.
pub fn run(dir: &Path, target: &Path, args: &[&str]) -> Result<Output, Error> {
    command(dir, target)
        .args(args)
        .output()
        .map_err(|source| Error::Spawn {
            program: "cargo".to_string(),
            dir: dir.to_path_buf(),
            source,
        })
}
