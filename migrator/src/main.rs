//! The `burn-migrate` command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use burn_migrate::migrate::{self, Options};
use burn_migrate::report::{book, emit, progress};
use burn_migrate::rules::{BackendPolicy, CpuTarget, RuleSet};
use clap::{Parser, Subcommand, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

/// Port a Burn 0.21 project to Burn 0.22.
#[derive(Parser, Debug)]
#[command(name = "burn-migrate", version, about, long_about = None)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["check", "apply", "diff"])))]
#[command(subcommand_negates_reqs = true, args_conflicts_with_subcommands = true)]
struct Cli {
    /// List what still needs migrating (or brings backend generics back); exit 1 if anything.
    #[arg(long)]
    check: bool,
    /// Rewrite sources and manifests in place and print the diff.
    #[arg(long)]
    apply: bool,
    /// Print the diff `--apply` would write, without writing.
    #[arg(long)]
    diff: bool,
    /// With --apply: also apply rules marked `review`.
    #[arg(long = "unsafe")]
    allow_review: bool,
    /// With --apply: edit a git work tree that has uncommitted changes.
    #[arg(long)]
    allow_dirty: bool,
    /// Add the rule files of this directory to the built-in rules.
    #[arg(long, value_name = "DIR", global = true)]
    rules: Option<PathBuf>,
    /// Where NdArray devices go (the NdArray backend is deprecated in Burn 0.22).
    #[arg(long, value_enum, default_value_t = Target::Flex)]
    ndarray_to: Target,
    /// Where LibTorch CPU devices go (CUDA, MPS and Vulkan devices move to their CubeCL device).
    #[arg(long, value_enum, default_value_t = Target::Flex)]
    libtorch_to: Target,
    /// Output format of findings, and of verify's and bench's results.
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    format: Format,
    /// The project or workspace (a directory or its Cargo.toml).
    #[arg(default_value = ".")]
    path: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the rules: id, category, applicability, title.
    Rules,
    /// Print the guide page of one rule.
    Explain {
        /// The rule id, as diagnostics show it.
        id: String,
    },
    /// Build and run the project against Burn 0.21 and its port against Burn 0.22, and compare.
    Verify {
        /// The project or workspace.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Verify this port (a hand-written one, say) instead of migrating a copy.
        #[arg(long, value_name = "DIR")]
        migrated: Option<PathBuf>,
        /// Relative tolerance for printed numbers.
        #[arg(long, default_value_t = 1e-4)]
        rtol: f64,
        /// Absolute tolerance for printed numbers.
        #[arg(long, default_value_t = 1e-4)]
        atol: f64,
        /// Longest a binary may run, in seconds.
        #[arg(long, default_value_t = 120)]
        run_limit: u64,
        /// Run the port on this device (flex, vulkan, wgpu, cpu, cuda, ...) instead of the one
        /// the migration chose for the original backend.
        #[arg(long, value_name = "NAME")]
        device: Option<String>,
        /// Build and run both sides in the release profile.
        #[arg(long)]
        release: bool,
        /// If the port does not build, apply rustc's machine-applicable suggestions and
        /// build again (at most 3 passes).
        #[arg(long)]
        fix: bool,
    },
    /// Compare two saved outputs the way verify does: same words, numbers within a tolerance.
    Compare {
        /// What the original printed (verify saves it under runs/before/).
        old: PathBuf,
        /// What the port printed.
        new: PathBuf,
        /// Relative tolerance for printed numbers.
        #[arg(long, default_value_t = 1e-4)]
        rtol: f64,
        /// Absolute tolerance for printed numbers.
        #[arg(long, default_value_t = 1e-4)]
        atol: f64,
    },
    /// Pre-build the pinned Burn 0.21 and 0.22 into the shared cache, so verify, bench and
    /// probe start from compiled Burn.
    Framework {
        /// Extra features of the Burn 0.22 crate (`vulkan`).
        #[arg(long, value_delimiter = ',')]
        features: Vec<String>,
        /// Build the release profile (what `verify --release` and `bench --release` use).
        #[arg(long)]
        release: bool,
    },
    /// Check which devices work here (each in a child process, so a crashing driver is caught).
    Probe {
        /// Devices to probe (default: all known).
        devices: Vec<String>,
    },
    /// Measure build and one-line-edit rebuild times before and after the port.
    Bench {
        /// The project or workspace.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Measure the release profile (default: dev).
        #[arg(long)]
        release: bool,
    },
    /// Regenerate the migration guide's rule pages from the rule files.
    Book {
        /// Only check that the generated pages are up to date; exit 1 if not.
        #[arg(long)]
        check: bool,
        /// The mdBook directory (with book.toml).
        #[arg(long, default_value = "book")]
        dir: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Target {
    /// `Device::flex()`, Burn's pure-Rust CPU backend.
    Flex,
    /// `Device::cpu()`, CubeCL's CPU backend (needs CubeCL's LLVM bundle to build).
    Cpu,
    /// Keep the deprecated backend (`Device::ndarray()`, NdArray only).
    Ndarray,
}

impl Target {
    fn policy(self) -> CpuTarget {
        match self {
            Target::Flex => CpuTarget::Flex,
            Target::Cpu => CpuTarget::Cpu,
            Target::Ndarray => CpuTarget::Keep,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let mut rules = RuleSet::embedded()?;
    if let Some(dir) = &cli.rules {
        rules
            .add_dir(dir)
            .with_context(|| format!("loading rules from {}", dir.display()))?;
    }
    if cli.libtorch_to == Target::Ndarray {
        anyhow::bail!("--libtorch-to takes `flex` or `cpu`");
    }
    rules.apply_policy(BackendPolicy {
        ndarray_to: cli.ndarray_to.policy(),
        libtorch_cpu_to: cli.libtorch_to.policy(),
    });
    match &cli.command {
        Some(Command::Rules) => {
            list_rules(&rules);
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Explain { id }) => explain(&rules, id),
        Some(Command::Book { check, dir }) => regenerate_book(&rules, dir, *check),
        Some(Command::Probe { devices }) => {
            let cache = burn_migrate::prove::verify::default_cache();
            let names: Vec<String> = if devices.is_empty() {
                burn_migrate::prove::probe::DEVICES
                    .iter()
                    .map(|(d, _)| d.to_string())
                    .collect()
            } else {
                devices.clone()
            };
            for device in names {
                eprintln!(
                    "probing {device} (builds the Burn 0.22 probe with its feature the first time)"
                );
                let line = match burn_migrate::prove::probe::probe(&device, &cache)? {
                    burn_migrate::prove::probe::Probe::Works(report) => {
                        format!("{device}: works\n  {}", report.replace('\n', "\n  "))
                    }
                    burn_migrate::prove::probe::Probe::Crashed(how) => {
                        format!("{device}: the driver crashed ({how}); runs on it are skipped")
                    }
                    burn_migrate::prove::probe::Probe::Failed(why) => {
                        format!("{device}: does not work here: {why}")
                    }
                    burn_migrate::prove::probe::Probe::NotBuilt(why) => {
                        format!("{device}: the probe could not be built: {why}")
                    }
                };
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Framework { features, release }) => {
            let cache = burn_migrate::prove::verify::default_cache();
            let mut steps = progress::Steps::new();
            let mut built = Vec::new();
            for (pinned, features) in [
                (&burn_migrate::prove::framework::BURN_0_21, &[][..]),
                (&burn_migrate::prove::framework::BURN_0_22, &features[..]),
            ] {
                steps.step(&format!("building the pinned Burn {}", pinned.version));
                built.push((pinned.version, pinned.build(&cache, features, *release)?));
            }
            drop(steps);
            for (version, took) in built {
                println!("Burn {version}: built in {:.1}s", took.as_secs_f64());
            }
            println!("cache: {}", cache.display());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench { path, release }) => {
            let options = burn_migrate::prove::verify::VerifyOptions {
                cache: burn_migrate::prove::verify::default_cache(),
                migrated: None,
                tolerance: burn_migrate::prove::compare::Tolerance::default(),
                run_limit: std::time::Duration::from_secs(120),
                device: None,
                release: *release,
                fix_passes: 0,
            };
            let mut steps = progress::Steps::new();
            let timings =
                burn_migrate::prove::bench::bench(path, &rules, &options, *release, &mut |s| {
                    steps.step(s)
                })?;
            drop(steps);
            if cli.format == Format::Json {
                let rows: Vec<serde_json::Value> = timings
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "profile": t.profile,
                            "side": t.side,
                            "project_build_s": t.cold.as_secs_f64(),
                            "rebuild_s": t.rebuild.as_secs_f64(),
                            "edited": t.edited,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&rows)?);
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{:<8} {:<10} {:>14} {:>26}",
                "profile", "side", "project build", "rebuild after 1-line edit"
            );
            for t in &timings {
                println!(
                    "{:<8} {:<10} {:>13.2}s {:>25.2}s",
                    t.profile,
                    t.side,
                    t.cold.as_secs_f64(),
                    t.rebuild.as_secs_f64()
                );
            }
            if let [old, new] = timings.as_slice() {
                println!(
                    "rebuild ratio 0.21/0.22: {:.1}x (edited {})",
                    old.rebuild.as_secs_f64() / new.rebuild.as_secs_f64().max(1e-9),
                    new.edited.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Verify {
            path,
            migrated,
            rtol,
            atol,
            run_limit,
            device,
            release,
            fix,
        }) => {
            let options = burn_migrate::prove::verify::VerifyOptions {
                cache: burn_migrate::prove::verify::default_cache(),
                migrated: migrated.clone(),
                tolerance: burn_migrate::prove::compare::Tolerance {
                    atol: *atol,
                    rtol: *rtol,
                },
                run_limit: std::time::Duration::from_secs(*run_limit),
                device: device.clone(),
                release: *release,
                fix_passes: if *fix { 3 } else { 0 },
            };
            verify(path, &rules, &options, cli.format)
        }
        Some(Command::Compare {
            old,
            new,
            rtol,
            atol,
        }) => {
            let read = |path: &Path| {
                std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))
            };
            let tolerance = burn_migrate::prove::compare::Tolerance {
                atol: *atol,
                rtol: *rtol,
            };
            match burn_migrate::prove::compare::first_difference(
                &read(old)?,
                &read(new)?,
                tolerance,
            ) {
                None => {
                    println!("same words, numbers within rtol {rtol} / atol {atol}");
                    Ok(ExitCode::SUCCESS)
                }
                Some(difference) => {
                    println!("different: {difference}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        None => migrate_project(cli, &rules),
    }
}

fn verify(
    path: &Path,
    rules: &RuleSet,
    options: &burn_migrate::prove::verify::VerifyOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let mut steps = progress::Steps::new();
    let verdict =
        burn_migrate::prove::verify::verify(path, rules, options, &mut |s| steps.step(s))?;
    drop(steps);
    let code = if verdict.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&burn_migrate::prove::verify::verdict_json(&verdict))?
        );
        return Ok(code);
    }
    for note in &verdict.notes {
        eprintln!("note: {note}");
    }
    for (label, side) in [
        ("Burn 0.21", &verdict.before),
        ("Burn 0.22", &verdict.after),
    ] {
        eprintln!(
            "{label}: build {} in {:.1?}, {} test(s) passed, {} failed, {} binary run(s)",
            if side.built { "ok" } else { "FAILED" },
            side.build_time,
            side.passed_tests.len(),
            side.failed_tests.len(),
            side.runs.len()
        );
    }
    eprint!("{}", burn_migrate::prove::verify::target_table(&verdict));
    eprintln!("outputs saved under {}", verdict.runs_dir.display());
    if verdict.problems.is_empty() {
        let skipped = if verdict.skipped.is_empty() {
            String::new()
        } else {
            format!(
                " ({} package(s) built but not run: their device does not work here)",
                verdict.skipped.len()
            )
        };
        eprintln!(
            "burn-migrate verify: everything that worked on Burn 0.21 works on Burn 0.22{skipped}"
        );
        return Ok(code);
    }
    if !verdict.after.errors.is_empty() {
        let mut stderr = StandardStream::stderr(ColorChoice::Auto);
        emit::compile_errors(&verdict.after.errors, rules, &mut stderr)?;
    }
    for problem in &verdict.problems {
        eprintln!("error: {problem}");
    }
    eprintln!("burn-migrate verify: {} problem(s)", verdict.problems.len());
    Ok(code)
}

fn list_rules(rules: &RuleSet) {
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for rule in rules.iter() {
        println!(
            "{:<width$}  {:<9}  {:<7}  {}",
            rule.id,
            book::category_name(rule.category),
            rule.applicability.to_string(),
            rule.title
        );
    }
}

fn explain(rules: &RuleSet, id: &str) -> anyhow::Result<ExitCode> {
    match rules.get(id) {
        Some(rule) => {
            print!("{}", book::rule_page(rule));
            Ok(ExitCode::SUCCESS)
        }
        None => anyhow::bail!("no rule `{id}`; `burn-migrate rules` lists them"),
    }
}

fn regenerate_book(rules: &RuleSet, dir: &Path, check: bool) -> anyhow::Result<ExitCode> {
    let changes = book::plan(dir, rules)?;
    if check {
        if changes.is_empty() {
            eprintln!("burn-migrate: the guide's rule pages are up to date");
            return Ok(ExitCode::SUCCESS);
        }
        for (path, text) in &changes {
            let what = if text.is_some() {
                "stale"
            } else {
                "no rule generates it"
            };
            eprintln!("{}: {what}", path.display());
        }
        eprintln!("burn-migrate: run `burn-migrate book` to regenerate the guide's rule pages");
        return Ok(ExitCode::from(1));
    }
    book::write(&changes)?;
    eprintln!(
        "burn-migrate: {} file(s) of the guide regenerated",
        changes.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn migrate_project(cli: &Cli, rules: &RuleSet) -> anyhow::Result<ExitCode> {
    let options = Options {
        allow_review: cli.allow_review,
    };
    let report = migrate::run(&cli.path, rules, &options)?;
    if !report.uses_burn {
        eprintln!(
            "burn-migrate: no package in {} depends on `burn` or a `burn-*` crate; nothing to do",
            report.root.display()
        );
        return Ok(ExitCode::SUCCESS);
    }

    let mut stderr = StandardStream::stderr(ColorChoice::Auto);
    match cli.format {
        Format::Json => println!("{}", emit::json(&report, rules, &options)),
        Format::Human if cli.check => emit::diagnostics(&report, rules, &options, &mut stderr)?,
        Format::Human => {}
    }

    if cli.apply {
        if !cli.allow_dirty {
            migrate::ensure_clean_tree(&report.root)?;
        }
        migrate::write(&report)?;
        let manifests_changed = report.manifests.iter().any(|m| m.migrated != m.original);
        if manifests_changed {
            match burn_migrate::migrate::lockfile::update(&report.root, &report.direct_dependencies) {
                Ok(Some(update)) => eprint!("{}", emit::lockfile_summary(&update)),
                Ok(None) => {}
                Err(error) => eprintln!(
                    "warning: Cargo.lock not updated ({error}); run `cargo update -p burn` before building"
                ),
            }
        }
    }
    if cli.apply || cli.diff {
        print!("{}", emit::diff(&report));
    }
    if !cli.check && cli.format == Format::Human {
        // `--check` prints them with the diagnostics.
        for note in &report.notes {
            eprintln!("note: {note}");
        }
    }
    if cli.diff && !cli.apply {
        eprint!("{}", emit::lockfile_plan(&report).unwrap_or_default());
    }
    if cli.format == Format::Human {
        if let Some(table) = emit::device_table(&report) {
            eprint!("{table}");
        }
    }
    for line in emit::suppression_report(&report, rules) {
        eprintln!("{line}");
    }
    eprintln!("{}", emit::summary(&report, rules, &options));

    let remaining = if cli.apply {
        report.unresolved_count(rules, &options)
    } else {
        report.finding_count()
    };
    Ok(if remaining == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
