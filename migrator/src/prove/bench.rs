//! `burn-migrate bench`: the rebuild time the migration exists for. For the original (Burn
//! 0.21) and the port (Burn 0.22) it measures a build of the project's own crates with Burn
//! already compiled ("cold" for the project), and the rebuild after a one-line edit of the file
//! that defines a module, in the dev or release profile.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::prove::verify::{prepare, VerifyOptions};
use crate::rules::RuleSet;
use crate::util::cargo;

#[derive(Debug, Clone)]
pub struct Timing {
    pub side: &'static str,
    pub profile: &'static str,
    pub cold: Duration,
    pub rebuild: Duration,
    /// The file the one-line edit went into.
    pub edited: PathBuf,
}

pub fn bench(
    project: &Path,
    rules: &RuleSet,
    options: &VerifyOptions,
    release: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Timing>, Error> {
    let (old, new) = prepare(project, "bench", rules, options, progress)?;
    let target = options.cache.join("target");
    let profile = if release { "release" } else { "dev" };
    let mut timings = Vec::new();
    for (side, dir) in [("Burn 0.21", &old), ("Burn 0.22", &new)] {
        let build = |args: &[&str]| -> Result<Duration, Error> {
            let mut all = vec!["build", "--quiet"];
            if release {
                all.push("--release");
            }
            all.extend_from_slice(args);
            let started = Instant::now();
            let output = cargo::run(dir, &target, &all)?;
            if !output.status.success() {
                return Err(Error::ProjectBuild {
                    side: side.to_string(),
                    dir: dir.to_path_buf(),
                    stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            Ok(started.elapsed())
        };
        progress(&format!("{side}: building dependencies ({profile})"));
        build(&[])?;
        let packages = crate::prove::verify::binaries(dir)
            .into_iter()
            .map(|binary| binary.package)
            .collect::<std::collections::BTreeSet<_>>();
        for package in &packages {
            let mut clean = vec!["clean", "--quiet", "--package", package.as_str()];
            if release {
                clean.push("--release");
            }
            // A failed clean only makes the "cold" number smaller; the rebuild still counts.
            let _ = cargo::run(dir, &target, &clean);
        }
        progress(&format!("{side}: building the project's crates"));
        let cold = build(&[])?;
        let edited = model_file(dir).ok_or_else(|| Error::NoSourceToEdit {
            side: side.to_string(),
            dir: dir.to_path_buf(),
        })?;
        edit_one_line(&edited)?;
        progress(&format!(
            "{side}: rebuilding after a one-line edit of {}",
            edited.display()
        ));
        let rebuild = build(&[])?;
        timings.push(Timing {
            side,
            profile,
            cold,
            rebuild,
            edited: edited.strip_prefix(dir).unwrap_or(&edited).to_path_buf(),
        });
    }
    Ok(timings)
}

/// The file to edit: the first that derives `Module` (a model), else any Rust file.
fn model_file(dir: &Path) -> Option<PathBuf> {
    let workspace = crate::migrate::discover::discover(dir).ok()?;
    workspace
        .files
        .iter()
        .find(|f| f.text.contains("derive(Module"))
        .or_else(|| workspace.files.first())
        .map(|f| f.path.clone())
}

/// Appends one line of code (a function nobody calls): enough for cargo and rustc to rebuild
/// the crate and everything that depends on it, as a real model edit would.
fn edit_one_line(file: &Path) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: file.to_path_buf(),
        source,
    };
    let mut text = std::fs::read_to_string(file).map_err(io)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    text.push_str(&format!(
        "\n#[allow(dead_code)]\nfn burn_migrate_bench_edit() -> u128 {{ {stamp} }}\n"
    ));
    std::fs::write(file, text).map_err(io)
}
