//! The pinned toolchain (`framework/`): a crate per Burn version whose `Cargo.lock` fixes the
//! exact release and dependencies, embedded in the binary. `burn-migrate framework` writes them
//! under the cache and builds them into the shared target directory, so later verify, bench and
//! probe runs reuse compiled Burn and CubeCL instead of building them first.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::rules::backends::BackendTable;

/// The shared cache: `$BURN_MIGRATE_CACHE`, else `~/.cache/burn-migrate`.
pub fn default_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("BURN_MIGRATE_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache/burn-migrate")
}

/// One pinned crate: its version label and files.
pub struct Pinned {
    pub version: &'static str,
    manifest: &'static str,
    main: &'static str,
    pub lock: &'static str,
}

pub const BURN_0_21: Pinned = Pinned {
    version: "0.21",
    manifest: include_str!("../../../framework/burn-0.21/Cargo.toml"),
    main: include_str!("../../../framework/burn-0.21/src/main.rs"),
    lock: crate::rules::framework::BURN_0_21_LOCK,
};

pub const BURN_0_22: Pinned = Pinned {
    version: "0.22",
    manifest: include_str!("../../../framework/burn-0.22/Cargo.toml"),
    main: include_str!("../../../framework/burn-0.22/src/main.rs"),
    lock: crate::rules::framework::BURN_0_22_LOCK,
};

impl Pinned {
    /// Writes the crate under `<cache>/framework/burn-<version>` and returns its directory.
    pub fn write(&self, cache: &Path) -> Result<PathBuf, Error> {
        let dir = cache
            .join("framework")
            .join(format!("burn-{}", self.version));
        for (relative, text) in [
            ("Cargo.toml", self.manifest),
            ("src/main.rs", self.main),
            ("Cargo.lock", self.lock),
        ] {
            let path = dir.join(relative);
            let parent = path.parent().unwrap_or(&dir).to_path_buf();
            std::fs::create_dir_all(&parent).map_err(|source| Error::Io {
                path: parent,
                source,
            })?;
            std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
        }
        Ok(dir)
    }

    /// Builds the crate into the shared target directory with extra `features` of its own
    /// (`vulkan` for 0.22), in dev or release.
    pub fn build(
        &self,
        cache: &Path,
        features: &[String],
        release: bool,
    ) -> Result<Duration, Error> {
        let dir = self.write(cache)?;
        let mut args = vec!["build".to_string(), "--quiet".to_string()];
        if release {
            args.push("--release".into());
        }
        if !features.is_empty() {
            args.push("--features".into());
            args.push(features.join(","));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = Instant::now();
        let output = crate::util::cargo::run(&dir, &cache.join("target"), &args)?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| l.contains("error"))
                .take(8)
                .collect();
            let bundled: Vec<String> = BackendTable::embedded()
                .map(|t| t.llvm_bundle_features())
                .unwrap_or_default()
                .into_iter()
                .filter(|f| features.contains(f))
                .collect();
            let hint = if bundled.is_empty() {
                String::new()
            } else {
                format!("\n`{}` build CubeCL's LLVM bundle, which is downloaded at build time: this fails without network access to its host", bundled.join("`, `"))
            };
            return Err(Error::FrameworkBuild {
                version: self.version.to_string(),
                dir,
                errors: format!("{}{hint}", errors.join("\n")),
            });
        }
        Ok(started.elapsed())
    }
}

/// Builds both pinned crates into the shared cache (`burn-migrate framework`): Burn 0.21 as
/// pinned, Burn 0.22 with `features`. Returns each version's build time.
pub fn build_all(
    cache: &Path,
    features: &[String],
    release: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<(&'static str, Duration)>, Error> {
    let mut built = Vec::new();
    for (pinned, features) in [(&BURN_0_21, &[][..]), (&BURN_0_22, features)] {
        progress(&format!("building the pinned Burn {}", pinned.version));
        built.push((pinned.version, pinned.build(cache, features, release)?));
    }
    Ok(built)
}
