//! `burn-migrate verify`: proves a port by building and running both sides. The original is
//! built against Burn 0.21 and the port against Burn 0.22, each in a scratch copy (the user's
//! tree is never touched), with one shared target directory so Burn compiles once per machine.
//! Both sides' tests and binaries run, for the packages and features the options select
//! ([`CargoSelection`], cargo's own `-p`, `-F`, `--no-default-features`); the verdict holds
//! when the original built and everything that built, passed or printed before still does,
//! with numbers equal within a tolerance.
//!
//! The stages, a module each: [`copy`] the project twice (migrating the second copy),
//! [`placement`] of the port on devices that work here (each device the port's packages
//! construct is probed in a child process ([`devices`]); packages whose device does not work
//! here are built but not run, and the verdict says why; which calls are compiled is decided
//! by their `cfg` ([`cfg`]); `--device` moves the port to one
//! device first ([`retarget`])), [`build`] and [`run`] each side (on CubeCL devices each binary
//! reports its peak memory-pool usage ([`memory_watch`]); `--fix` applies rustc's suggestions
//! ([`diagnose`])), and [`compare`] them. This file drives them; [`types`] holds what verify is
//! asked and what it finds.

mod build;
mod cfg;
mod compare;
pub mod config;
mod copy;
mod devices;
pub mod diagnose;
mod memory_watch;
mod placement;
mod retarget;
mod run;
mod targets;
mod types;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crate::error::Error;
use crate::rules::RuleSet;

pub use crate::prove::framework::default_cache;
pub use copy::prepare;
pub use targets::{binaries, runnables, Runnable};
pub use types::{CargoSelection, SideResult, Verdict, VerifyOptions};

/// Verifies the port of `project` (see the module docs); `progress` hears of each step.
pub fn verify(
    project: &Path,
    rules: &RuleSet,
    options: &VerifyOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Verdict, Error> {
    let (old, new) = prepare(project, "verify", rules, options, progress)?;
    let placement::Placement {
        natural_skips,
        skipped,
        used_by_package,
        mut notes,
    } = placement::place(
        &new,
        &options.selection,
        options.device.as_deref(),
        rules,
        &options.cache,
        progress,
    )?;

    if options.selection != CargoSelection::default() {
        notes.push(format!(
            "both sides were built, tested and run with `{}`",
            options.selection.cargo_args().join(" ")
        ));
    }
    let table = config::load(&old)?;
    let commands = run::run_commands(&old, &table, &options.selection)?;
    let known = devices::constructors(rules);
    let watch = memory_watch::install_for_devices(&new, &used_by_package, &known)?;
    let target = options.cache.join("target");
    let plan = run::Plan {
        target: &target,
        rules,
        options,
        commands: &commands,
        run_limit: table
            .run_limit_s
            .map(Duration::from_secs)
            .unwrap_or(options.run_limit),
        skipped: &skipped,
    };
    let runs_dir = new.parent().unwrap_or(&new).join("runs");
    let before = run::run_side(
        &old,
        "Burn 0.21",
        &run::Plan {
            skipped: &natural_skips,
            ..plan
        },
        progress,
    );
    let after = run::run_port(&new, &plan, watch, &mut notes, progress)?;
    run::save_runs(&runs_dir.join("before"), &before)?;
    run::save_runs(&runs_dir.join("after"), &after)?;
    // Packages the port could not run here but the original could (`--device` on a device
    // this machine lacks): their outputs are saved for a run elsewhere, not compared.
    let unverified: BTreeSet<&String> = skipped
        .keys()
        .filter(|p| !natural_skips.contains_key(*p))
        .collect();
    if !unverified.is_empty() {
        notes.push(format!(
            "not compared here (the port's device does not work on this machine): the tests and runs of {}; the original's output is saved under {} for a comparison with a run where the device works (`burn-migrate compare`)",
            unverified.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
            runs_dir.join("before").display()
        ));
    }
    let problems = compare::problems(&before, &after, &commands, &unverified, options.tolerance);
    Ok(Verdict {
        before,
        after,
        problems,
        skipped,
        notes,
        runs_dir,
    })
}
