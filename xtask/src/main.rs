//! Developer tasks for burn-migrate.
//!
//! ```text
//! cargo run -p xtask -- api-diff [--json-dir DIR]
//! cargo run -p xtask -- docs-rs-lists --json-dir DIR
//! cargo run -p xtask -- features
//! ```
//! `api-diff` lists the public API of the pinned Burn releases (`framework/burn-*/Cargo.lock`)
//! and writes `framework/api/{VERSION.txt, diff.tsv}`; see `framework/api/README.md`.
//! The benchmark workspace generator is the separate binary `gen-workspace`.

mod api_diff;
mod features;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("api-diff") => api_diff::main(&args[1..]),
        Some("docs-rs-lists") => api_diff::docs_rs::main(&args[1..]),
        Some("features") => features::main(&args[1..]),
        Some(other) => Err(format!("unknown task `{other}`\n{USAGE}")),
        None => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo run -p xtask -- api-diff [--json-dir DIR] [--repo DIR]
  api-diff   list the public API of Burn 0.21/0.22 from rustdoc JSON files
             (DIR/<version>/<crate>.json) into framework/api/<version>.txt, then
             write framework/api/diff.tsv; without --json-dir only the diff is
             regenerated from the checked-in lists
  docs-rs-lists --json-dir DIR
             list what docs.rs shows for each Burn crate version the guide links
             to (DIR from framework/api/docsrs-json.sh) into framework/api/docsrs/
  features   write the Cargo features of Burn's crates in each pinned release
             and their docs.rs tables (framework/api/features-<version>.tsv,
             docs-rs-<version>.tsv, from cargo metadata)
  (the benchmark workspace generator: cargo run -p xtask --bin gen-workspace)";
