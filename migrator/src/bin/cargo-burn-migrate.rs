//! `cargo burn-migrate ..`: the same command line as `burn-migrate`, as a cargo subcommand
//! (cargo runs `cargo-burn-migrate burn-migrate ..`; the extra argument is dropped).

#[path = "../main.rs"]
mod burn_migrate_cli;

fn main() -> std::process::ExitCode {
    burn_migrate_cli::main()
}
