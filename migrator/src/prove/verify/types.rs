//! What verify is asked (the options) and what it finds (each side's results, the verdict).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use crate::prove::compare::Tolerance;
use crate::prove::verify::diagnose;

/// What a verification run needs to know.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Where scratch copies and the shared target directory live.
    pub cache: PathBuf,
    /// An existing port to verify instead of migrating a copy (a hand port, say).
    pub migrated: Option<PathBuf>,
    pub tolerance: Tolerance,
    /// Longest a binary may run.
    pub run_limit: Duration,
    /// Run the port on this device (`flex`, `vulkan`, `wgpu`, ...) instead of the one the
    /// migration chose for the original backend.
    pub device: Option<String>,
    /// Build and run in the release profile.
    pub release: bool,
    /// When the port does not build, apply rustc's machine-applicable suggestions and build
    /// again, up to this many times.
    pub fix_passes: usize,
}

/// The shared cache, the default tolerance, two minutes per binary, the device the migration
/// chose, the dev profile, no `--fix`.
impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            cache: crate::prove::framework::default_cache(),
            migrated: None,
            tolerance: Tolerance::default(),
            run_limit: Duration::from_secs(120),
            device: None,
            release: false,
            fix_passes: 0,
        }
    }
}

/// One side's results.
#[derive(Debug, Default)]
pub struct SideResult {
    pub built: bool,
    pub build_log: String,
    /// The compile errors, each with the rule that covers it (when the build failed).
    pub errors: Vec<diagnose::CompileError>,
    /// rustc's messages of a failed build, suggestions included (for `--fix`).
    pub diagnostics: Vec<cargo_metadata::diagnostic::Diagnostic>,
    pub build_time: Duration,
    pub passed_tests: BTreeSet<String>,
    pub failed_tests: BTreeSet<String>,
    /// (binary, what it printed), for binaries that finished successfully in time.
    pub runs: Vec<(String, String)>,
    /// (binary, why it did not finish successfully in time).
    pub failed_runs: Vec<(String, String)>,
    /// (binary, peak memory-pool usage), for binaries that ran on a CubeCL device.
    pub memory: Vec<(String, String)>,
}

#[derive(Debug)]
pub struct Verdict {
    pub before: SideResult,
    pub after: SideResult,
    /// Everything that worked before and does not after, in words. Empty: verified.
    pub problems: Vec<String>,
    /// Packages built but not run on either side, with the reason (a device that does not
    /// work here).
    pub skipped: BTreeMap<String, String>,
    /// Notes on how the port was run (device moves, the memory watch).
    pub notes: Vec<String>,
    /// Where each side's binary output was saved (`runs/{before,after}/<binary>.stdout`).
    pub runs_dir: PathBuf,
}
