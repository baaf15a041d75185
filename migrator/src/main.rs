//! The `burn-migrate` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use burn_migrate::emit;
use burn_migrate::migrate::{self, Options};
use burn_migrate::rules::RuleSet;
use clap::{Parser, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

/// Port a Burn 0.21 project to Burn 0.22.
#[derive(Parser, Debug)]
#[command(name = "burn-migrate", version, about, long_about = None)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["check", "apply", "diff"])))]
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
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
    /// Output format of findings.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The project or workspace (a directory or its Cargo.toml).
    #[arg(default_value = ".")]
    path: PathBuf,
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
    let options = Options {
        allow_review: cli.allow_review,
    };
    let report = migrate::run(&cli.path, &rules, &options)?;
    if !report.uses_burn {
        eprintln!(
            "burn-migrate: no package in {} depends on `burn` or a `burn-*` crate; nothing to do",
            report.root.display()
        );
        return Ok(ExitCode::SUCCESS);
    }

    let mut stderr = StandardStream::stderr(ColorChoice::Auto);
    match cli.format {
        Format::Json => println!("{}", emit::json(&report, &rules, &options)),
        Format::Human if cli.check => emit::diagnostics(&report, &rules, &options, &mut stderr)?,
        Format::Human => {}
    }

    if cli.apply {
        if !cli.allow_dirty {
            migrate::ensure_clean_tree(&report.root)?;
        }
        migrate::write(&report)?;
    }
    if cli.apply || cli.diff {
        print!("{}", emit::diff(&report));
    }
    eprintln!("{}", emit::summary(&report, &rules, &options));

    let remaining = if cli.apply {
        report.unresolved_count(&rules, &options)
    } else {
        report.finding_count()
    };
    Ok(if remaining == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
