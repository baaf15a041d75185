//! The `burn-migrate` command line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use burn_migrate::migrate::{config, records};
use burn_migrate::prove::compare::{first_difference, Tolerance};
use burn_migrate::prove::verify::{self, VerifyOptions};
use burn_migrate::prove::{bench, framework, probe};
use burn_migrate::report::color::{self, ColorWhen};
use burn_migrate::report::{self, book, progress, Format};
use burn_migrate::rules::backends::{BackendTable, Policy};
use burn_migrate::rules::RuleSet;
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use codespan_reporting::term::termcolor::{BufferedStandardStream, StandardStream};

/// The allocator (why: `mimalloc` in `Cargo.toml`). Also `cargo-burn-migrate`'s, which
/// includes this file.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option: the index of `mi_option_purge_delay` in `mi_option_e`
/// of mimalloc 3's `mimalloc.h` (the bindings name options of mimalloc 2 only; the test
/// `purge_delay_is_the_purge_delay` checks the index against its default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Memory a stage frees goes back to the system after 10 ms rather than mimalloc 3's 1 s:
/// the trees, node lists and parser buffers of one stage are freed as the next fills its own,
/// and kept a second they add up to a peak well above what is ever live at once, while the
/// shorter delay costs no time (both measured in `testdata/measurements/speed.md`). 10 ms is
/// mimalloc 2's default.
fn return_freed_memory_soon() {
    // SAFETY: sets one of mimalloc's options, which it reads with atomics.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
}

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
    /// With --apply: edit a git work tree that has uncommitted changes (or that git cannot
    /// read: not installed, a repository owned by another user).
    #[arg(long)]
    allow_dirty: bool,
    /// With --apply: edit a tree that is under no version control (nothing could undo it).
    #[arg(long)]
    allow_no_vcs: bool,
    /// With --apply: write the files that could be migrated even when others could not
    /// (by default nothing is written then).
    #[arg(long, requires = "apply")]
    partial: bool,
    #[command(flatten)]
    user_rules: UserRules,
    /// The devices chosen for deprecated backends (`--ndarray-to cpu`): option -> constructor.
    /// The options come from the backend table (`policy_arg`).
    #[arg(skip)]
    backend_choices: BTreeMap<String, String>,
    /// When to color diagnostics and diffs: `auto` colors a terminal unless `NO_COLOR` or
    /// `CLICOLOR=0` is set (`CLICOLOR_FORCE` colors pipes too).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t)]
    color: ColorWhen,
    /// Output format of findings and diffs: for people, or for tools (json, github, sarif).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The project or workspace (a directory or its Cargo.toml), or files and folders inside
    /// one to narrow the run to them; several projects make one report.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Print only the summary line, and nothing when there is nothing to report (errors
    /// still print; the exit code says the rest).
    #[arg(short, long)]
    quiet: bool,
    /// Print how many findings each rule has instead of each finding (`--format json`: as
    /// JSON).
    #[arg(long, conflicts_with = "quiet")]
    statistics: bool,
    // Last: each group's help heading holds for the options after it.
    #[command(flatten)]
    cargo: CargoOptions,
    #[command(flatten)]
    selection: RuleSelection,
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--rules DIR`, for the commands that read the rules (the migrate modes, `rules`, `explain`,
/// `verify`, `bench`, `book`, `completions`); each command has only the options it uses.
#[derive(clap::Args, Debug)]
struct UserRules {
    /// Add the rule files of this directory to the built-in rules.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
}

/// `--format human|json`, for the commands whose results are not findings (`rules`, `verify`,
/// `bench`): github and sarif are refused with a message (`Format::human_or_json`).
#[derive(clap::Args, Debug)]
struct ResultFormat {
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human, hide_possible_values = true)]
    format: Format,
}

/// Cargo's options, as `cargo clippy` takes them.
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Cargo")]
struct CargoOptions {
    /// The project's Cargo.toml, as cargo takes it (the same as giving it as PATH).
    #[arg(long, value_name = "PATH", conflicts_with = "paths")]
    manifest_path: Option<PathBuf>,
    /// Port and report only this package of the workspace (repeatable; the whole workspace
    /// is still read, so what one package knows of another holds).
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    packages: Vec<String>,
    /// Every package of the workspace: what burn-migrate does without -p.
    #[arg(long, alias = "all", conflicts_with = "packages")]
    workspace: bool,
    /// With --workspace: leave this package out (repeatable).
    #[arg(long, value_name = "SPEC", requires = "workspace")]
    exclude: Vec<String>,
    /// Accepted as cargo takes it; changes nothing: the code behind every `#[cfg]` is ported,
    /// whatever the features.
    #[arg(short = 'F', long, value_name = "FEATURES")]
    features: Vec<String>,
    /// Accepted as cargo takes it; changes nothing (see --features).
    #[arg(long)]
    all_features: bool,
    /// Accepted as cargo takes it; changes nothing (see --features).
    #[arg(long)]
    no_default_features: bool,
}

/// Which rules run; the project's settings name them too (`migrate::config`).
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Rules")]
struct RuleSelection {
    /// Run only these rules (ids, separated by commas; `burn-migrate rules` lists them).
    #[arg(long, value_name = "RULE,..", value_delimiter = ',')]
    select: Vec<String>,
    /// Do not run these rules: neither reported nor applied, as under an `allow` comment.
    #[arg(long, value_name = "RULE,..", value_delimiter = ',')]
    ignore: Vec<String>,
}

impl Cli {
    /// `--rules DIR` of the command that takes it.
    fn user_rules(&self) -> Option<&Path> {
        let user_rules = match &self.command {
            None => &self.user_rules,
            Some(
                Command::Rules { user_rules, .. }
                | Command::Explain { user_rules, .. }
                | Command::Verify { user_rules, .. }
                | Command::Bench { user_rules, .. }
                | Command::Book { user_rules, .. }
                | Command::Completions { user_rules, .. },
            ) => user_rules,
            Some(
                Command::Compare { .. }
                | Command::Framework { .. }
                | Command::Probe { .. }
                | Command::Records(_),
            ) => return None,
        };
        user_rules.rules.as_deref()
    }

    /// What the migrate modes read: `--manifest-path`, else the PATHs.
    fn paths(&self) -> anyhow::Result<&[PathBuf]> {
        let Some(manifest) = &self.cargo.manifest_path else {
            return Ok(&self.paths);
        };
        // As cargo: a manifest path names the file, so that a directory is not taken for one.
        if manifest.file_name().is_none_or(|name| name != "Cargo.toml") {
            anyhow::bail!(
                "--manifest-path {}: not a path to a Cargo.toml file; give the file (`--manifest-path {}`), or the directory as PATH",
                manifest.display(),
                manifest.join("Cargo.toml").display()
            );
        }
        Ok(std::slice::from_ref(manifest))
    }

    /// What the command line sets of the project's settings (`migrate::config`).
    fn settings(&self) -> config::Settings {
        let ids = |ids: &[String]| {
            let ids: Vec<String> = (ids.iter().map(|id| id.trim()))
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .collect();
            (!ids.is_empty()).then_some(ids)
        };
        config::Settings {
            select: ids(&self.selection.select),
            ignore: ids(&self.selection.ignore),
            choices: self.backend_choices.clone(),
        }
    }

    /// The cargo feature options given, as written (for the note that they change nothing).
    fn feature_options(&self) -> Vec<String> {
        let CargoOptions {
            features,
            all_features,
            no_default_features,
            ..
        } = &self.cargo;
        let mut given: Vec<String> = features.iter().map(|f| format!("--features {f}")).collect();
        given.extend(all_features.then(|| "--all-features".to_string()));
        given.extend(no_default_features.then(|| "--no-default-features".to_string()));
        given
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the rules: id, category, applicability, title.
    Rules {
        #[command(flatten)]
        format: ResultFormat,
        #[command(flatten)]
        user_rules: UserRules,
    },
    /// Print the guide page of one rule.
    Explain {
        /// The rule id, as diagnostics show it.
        id: String,
        #[command(flatten)]
        user_rules: UserRules,
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
        /// Build, test and run only this package of the workspace (as cargo's `-p`;
        /// repeatable). Default: every package.
        #[arg(short = 'p', long = "package", value_name = "SPEC")]
        packages: Vec<String>,
        /// Features to enable on both sides (as cargo's `--features`: `bert`, `esp/bert`).
        #[arg(short = 'F', long, value_delimiter = ',', value_name = "FEATURES")]
        features: Vec<String>,
        /// Do not enable the default features, on either side.
        #[arg(long)]
        no_default_features: bool,
        #[command(flatten)]
        format: ResultFormat,
        /// When to color the port's compile errors: `auto` colors a terminal unless
        /// `NO_COLOR` or `CLICOLOR=0` is set (`CLICOLOR_FORCE` colors pipes too).
        #[arg(long, value_enum, value_name = "WHEN", default_value_t)]
        color: ColorWhen,
        #[command(flatten)]
        user_rules: UserRules,
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
        #[command(flatten)]
        format: ResultFormat,
        #[command(flatten)]
        user_rules: UserRules,
    },
    /// Regenerate the migration guide's rule pages from the rule files.
    Book {
        /// Only check that the generated pages are up to date; exit 1 if not.
        #[arg(long)]
        check: bool,
        /// The mdBook directory (with book.toml).
        #[arg(long, default_value = "book")]
        dir: PathBuf,
        #[command(flatten)]
        user_rules: UserRules,
    },
    /// Print a shell completion script (`burn-migrate completions bash > ~/.local/share/bash-completion/completions/burn-migrate`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
        #[command(flatten)]
        user_rules: UserRules,
    },
    /// Burn 0.21 record files (`.mpk`, `.mpk.gz`, `.json`, `.json.gz`).
    #[command(subcommand)]
    Records(RecordsCommand),
}

#[derive(Subcommand, Debug)]
enum RecordsCommand {
    /// Convert a 0.21 record file to one Burn 0.22 loads (burnpack by default).
    Convert {
        /// The record file a 0.21 recorder wrote.
        input: PathBuf,
        /// Where to write (default: beside the input, `model.mpk` -> `model.bpk`).
        output: Option<PathBuf>,
        /// The format to write.
        #[arg(long, value_enum, default_value_t)]
        to: records::Target,
        /// Replace the output file if it exists.
        #[arg(long)]
        force: bool,
    },
}

/// `--ndarray-to flex|cpu|ndarray`: an option for each backend-table entry that offers a
/// choice of 0.22 device.
fn policy_arg(policy: &Policy) -> clap::Arg {
    clap::Arg::new(policy.flag.clone())
        .long(policy.flag.clone())
        .value_name("DEVICE")
        .value_parser(clap::builder::PossibleValuesParser::new(
            policy.choices.clone(),
        ))
        .default_value(policy.choices[0].clone())
        .help(format!(
            "Where the default device of `{}` goes (a backend Burn 0.22 deprecated); default: the project's setting, else the first device",
            policy.types.join("`, `")
        ))
}

/// The command, with the backend table's options.
fn command() -> anyhow::Result<(clap::Command, Vec<Policy>)> {
    let policies = BackendTable::embedded()?.policies();
    Ok((
        (Cli::command().next_help_heading("Devices")).args(policies.iter().map(policy_arg)),
        policies,
    ))
}

/// The arguments, and whether they came from cargo: run as `cargo burn-migrate ..`, cargo
/// runs `cargo-burn-migrate burn-migrate ..`; the `burn-migrate` it passes first is dropped.
fn args() -> (Vec<std::ffi::OsString>, bool) {
    let mut args: Vec<_> = std::env::args_os().collect();
    let as_cargo_subcommand =
        args.first().and_then(|a| Path::new(a).file_stem()) == Some("cargo-burn-migrate".as_ref());
    let from_cargo = as_cargo_subcommand && args.get(1).is_some_and(|a| a == "burn-migrate");
    if from_cargo {
        args.remove(1);
    }
    (args, from_cargo)
}

/// The command line, with the backend table's options.
fn parse_cli() -> anyhow::Result<Cli> {
    let (command, policies) = command()?;
    let (args, from_cargo) = args();
    // Usage lines and help say what the person typed.
    let command = match from_cargo {
        true => command.bin_name("cargo burn-migrate"),
        false => command,
    };
    let matches = command.get_matches_from(args);
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Only the choices the command line makes: the project's settings fill in the rest, and
    // the backend table's defaults what neither sets.
    cli.backend_choices = policies
        .iter()
        .filter(|p| matches.value_source(&p.flag) == Some(ValueSource::CommandLine))
        .filter_map(|p| Some((p.flag.clone(), matches.get_one::<String>(&p.flag)?.clone())))
        .collect();
    Ok(cli)
}

/// The stack of the thread that runs the command and of every thread of rayon's pool, which
/// parse and walk the files. The parser recurses per nesting level of the code and the walks
/// down a tree per level of the tree: on the default stacks (8 MiB for the main thread, 2 MiB
/// for the pool's) 2,500 nested parentheses or 5,000 prefix `-` aborted the process with a
/// stack overflow. With this, a release build ports 100,000 nested closures or prefix `-`
/// and a million-term sum or chain of `else if`. Only the pages a thread touches take memory.
/// `burn_migrate::migrate::source::MAX_NESTING` bounds the nesting well below what this holds.
const STACK_BYTES: usize = 256 << 20;

pub fn main() -> ExitCode {
    return_freed_memory_soon();
    // Fails only where the threads cannot be made (a memory limit); rayon then makes its
    // default pool when first used, whose 2 MiB stacks still hold `MAX_NESTING` levels.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_BYTES)
        .build_global();
    let command = std::thread::Builder::new()
        .name("burn-migrate".to_string())
        .stack_size(STACK_BYTES)
        .spawn(run_command);
    match command {
        // A panic was printed on its thread; it ends the process as it would have here.
        Ok(thread) => thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(_) => run_command(),
    }
}

fn run_command() -> ExitCode {
    match parse_cli().and_then(|cli| run(&cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {}", report::error_text(error.as_ref()));
            report::Exit::Error.into()
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let mut rules = RuleSet::embedded()?;
    if let Some(dir) = cli.user_rules() {
        rules
            .add_dir(dir)
            .with_context(|| format!("loading rules from {}", dir.display()))?;
    }
    match &cli.command {
        // The migrate modes apply the command line's choices over the project's settings
        // once they have read the workspace (`report::migrate::command`).
        None => {}
        // verify and bench port the project as `--apply` would: with its settings
        // (`with_project_settings`, once their own options are checked).
        Some(Command::Verify { .. } | Command::Bench { .. }) => {}
        Some(_) => rules.apply_policy(&cli.backend_choices)?,
    }
    match &cli.command {
        Some(Command::Completions { shell, .. }) => {
            // `explain <TAB>` completes rule ids: the rules loaded, user rules included. Only
            // the script knows them; parsing accepts any id, so that `explain` can say which
            // id was meant.
            let ids: Vec<String> = rules.iter().map(|rule| rule.id.clone()).collect();
            let (command, _) = command()?;
            let mut command = command.mut_subcommand("explain", |explain| {
                explain.mut_arg("id", |id| {
                    id.value_parser(clap::builder::PossibleValuesParser::new(ids))
                })
            });
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut command, "burn-migrate", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script)
                .map_err(burn_migrate::error::Error::Output)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Rules { format, .. }) => {
            match format.format.human_or_json("rules")? {
                Format::Json => println!("{}", report::findings::rules_json(&rules)),
                _ => print!("{}", book::rule_list(&rules)),
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Explain { id, .. }) => {
            print!("{}", book::explain(&rules, id)?);
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Book { check, dir, .. }) => {
            let current = book::command(dir, &rules, *check, &mut std::io::stderr())?;
            Ok(exit_code(current))
        }
        Some(Command::Probe { devices }) => {
            let cache = framework::default_cache();
            for device in probe::requested(devices) {
                eprintln!(
                    "probing {device} (builds the Burn 0.22 probe with its feature the first time)"
                );
                let found = probe::probe(&device, &cache)?;
                println!("{}", report::probe::line(&device, &found));
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Framework { features, release }) => {
            let cache = framework::default_cache();
            let built = progress::with_steps(|step| {
                framework::build_all(&cache, features, *release, step)
            })?;
            print!("{}", report::probe::framework_built(&built, &cache));
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench {
            path,
            release,
            format,
            ..
        }) => {
            let format = format.format.human_or_json("bench")?;
            let rules = with_project_settings(path, cli, rules)?;
            let options = VerifyOptions {
                release: *release,
                ..VerifyOptions::default()
            };
            let timings =
                progress::with_steps(|step| bench::bench(path, &rules, &options, *release, step))?;
            match format {
                Format::Json => println!("{:#}", report::bench::json(&timings)),
                _ => print!("{}", report::bench::table(&timings)),
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
            packages,
            features,
            no_default_features,
            format,
            color,
            ..
        }) => {
            let format = format.format.human_or_json("verify")?;
            let rules = with_project_settings(path, cli, rules)?;
            let options = VerifyOptions {
                cache: framework::default_cache(),
                migrated: migrated.clone(),
                tolerance: Tolerance {
                    atol: *atol,
                    rtol: *rtol,
                },
                run_limit: Duration::from_secs(*run_limit),
                device: device.clone(),
                release: *release,
                fix_passes: if *fix { 3 } else { 0 },
                selection: verify::CargoSelection {
                    packages: packages.clone(),
                    features: features.clone(),
                    no_default_features: *no_default_features,
                },
            };
            let verdict =
                progress::with_steps(|step| verify::verify(path, &rules, &options, step))?;
            match format {
                Format::Json => println!("{:#}", report::verify::json(&verdict)),
                _ => report::verify::write_human(&verdict, &rules, &mut stderr(*color))?,
            }
            Ok(exit_code(verdict.problems.is_empty()))
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
            let tolerance = Tolerance {
                atol: *atol,
                rtol: *rtol,
            };
            let difference = first_difference(&read(old)?, &read(new)?, tolerance);
            println!(
                "{}",
                report::verify::comparison(difference.as_deref(), tolerance)
            );
            Ok(exit_code(difference.is_none()))
        }
        Some(Command::Records(RecordsCommand::Convert {
            input,
            output,
            to,
            force,
        })) => {
            let options = records::ConvertOptions {
                target: *to,
                force: *force,
            };
            let converted = records::convert(input, output.as_deref(), &options)?;
            eprintln!("{}", converted.summary());
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let mode = report::migrate::Mode {
                check: cli.check,
                apply: cli.apply,
                diff: cli.diff,
                allow_dirty: cli.allow_dirty,
                allow_no_vcs: cli.allow_no_vcs,
                partial: cli.partial,
                format: cli.format,
                quiet: cli.quiet,
                statistics: cli.statistics,
                diff_color: color::stdout_colored(cli.color),
            };
            let projects = report::migrate::Projects {
                paths: cli.paths()?,
                packages: &cli.cargo.packages,
                excluded: &cli.cargo.exclude,
                settings: cli.settings(),
                feature_options: cli.feature_options(),
            };
            // Buffered: tens of thousands of findings are millions of small writes otherwise.
            let mut err = BufferedStandardStream::stderr(color::stderr_choice(cli.color));
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let remaining = report::migrate::command(&projects, &rules, mode, &mut out, &mut err);
            std::io::Write::flush(&mut out)?;
            std::io::Write::flush(&mut err)?;
            Ok(remaining?.into())
        }
    }
}

/// `rules` with the settings of the project at `path` (and the command line's over them).
fn with_project_settings(path: &Path, cli: &Cli, mut rules: RuleSet) -> anyhow::Result<RuleSet> {
    let metadata = burn_migrate::migrate::discover::read_metadata(path)?;
    let settings = config::resolve(cli.settings(), &metadata, &rules)?;
    config::apply(&settings, &mut rules)?;
    Ok(rules)
}

/// 0 when the command found nothing wrong, else 1 (2 is for errors).
fn exit_code(success: bool) -> ExitCode {
    report::Exit::found_unless(success).into()
}

/// Standard error, in color as `--color` and the environment say (diagnostics use it).
fn stderr(when: ColorWhen) -> StandardStream {
    StandardStream::stderr(color::stderr_choice(when))
}

#[cfg(test)]
mod allocator_tests {
    use super::*;

    /// `MI_OPTION_PURGE_DELAY` names the option whose default is mimalloc 3's purge delay,
    /// 1000 ms (its neighbours default to 1 and 0).
    #[test]
    fn purge_delay_is_the_purge_delay() {
        // SAFETY: reads one of mimalloc's options.
        let get = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(get(), 1000);
        }
        return_freed_memory_soon();
        assert_eq!(get(), 10);
    }
}
