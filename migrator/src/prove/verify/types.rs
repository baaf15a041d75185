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
    /// The packages and features both sides build, test and run.
    pub selection: CargoSelection,
}

/// Which packages and features of the workspace both sides build, as cargo's own flags: a
/// workspace whose Burn code sits behind features (or in a few of many packages) is verified
/// on the feature set it is used with, not only on its defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CargoSelection {
    /// `-p` specs; empty: the whole workspace.
    pub packages: Vec<String>,
    /// `--features`, in cargo's syntax (`bert`, `esp/bert`).
    pub features: Vec<String>,
    pub no_default_features: bool,
}

impl CargoSelection {
    /// The flags for `cargo build` and `cargo test`: `--workspace` or `-p ..`, then features.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.packages.is_empty() {
            args.push("--workspace".to_string());
        }
        for package in &self.packages {
            args.extend(["-p".to_string(), package.clone()]);
        }
        if !self.features.is_empty() {
            args.extend(["--features".to_string(), self.features.join(",")]);
        }
        if self.no_default_features {
            args.push("--no-default-features".to_string());
        }
        args
    }

    /// Whether the package named `name` is built (every package when none is named).
    pub fn includes(&self, name: &str) -> bool {
        self.packages.is_empty() || self.packages.iter().any(|p| p == name)
    }
}

/// The shared cache, the default tolerance, two minutes per binary, the device the migration
/// chose, the dev profile, no `--fix`, the whole workspace on its default features.
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
            selection: CargoSelection::default(),
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
    /// Why a `cargo test` ran no test at all (its build failed: a full disk, a test target
    /// that does not compile), in cargo's words.
    pub tests_not_built: Vec<String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_is_cargo_s_own_flags() {
        let whole = CargoSelection::default();
        assert_eq!(whole.cargo_args(), ["--workspace"]);
        assert!(whole.includes("anything"));

        let some = CargoSelection {
            packages: vec!["esp".into(), "quint".into()],
            features: vec!["esp/bert".into(), "quint/field-burn".into()],
            no_default_features: true,
        };
        assert_eq!(
            some.cargo_args(),
            [
                "-p",
                "esp",
                "-p",
                "quint",
                "--features",
                "esp/bert,quint/field-burn",
                "--no-default-features"
            ]
        );
        assert!(some.includes("quint"));
        assert!(!some.includes("mere"));
    }
}
