//! `features`: every Cargo feature of Burn's crates in each pinned release, as cargo reads
//! them (explicit ones and the implicit feature of each optional dependency), from
//! `cargo metadata` on the framework crates (`framework/burn-*/`), written to
//! `framework/api/features-<version>.tsv`: `package<TAB>feature<TAB>what it enables`
//! (comma-separated). The port maps a feature of 0.21 that 0.22 lacks with these tables
//! (`migrate::manifest`).
//!
//! Next to them, `framework/api/docs-rs-<version>.tsv`: each package's
//! `[package.metadata.docs.rs]` table as JSON (`-` where it has none), the features docs.rs
//! builds its pages with; the guide's links are checked against lists built that way
//! (`docs-rs-lists`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn main(args: &[String]) -> Result<(), String> {
    let mut repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--repo" => repo = PathBuf::from(it.next().ok_or("--repo needs a directory")?),
            other => return Err(format!("features: unexpected argument `{other}`")),
        }
    }
    for framework in ["burn-0.21", "burn-0.22"] {
        let dir = repo.join("framework").join(framework);
        let (version, table, docs_rs) = features_of(&dir)?;
        for (name, text) in [("features", table), ("docs-rs", docs_rs)] {
            let out = repo.join(format!("framework/api/{name}-{version}.tsv"));
            std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            eprintln!("wrote {}", out.display());
        }
    }
    Ok(())
}

/// The version of `burn` the framework crate at `dir` pins, the feature table of every Burn
/// crate in its graph, and their docs.rs tables.
fn features_of(dir: &Path) -> Result<(String, String, String), String> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cargo metadata in {}: {e}", dir.display()))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata in {}: {e}", dir.display()))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let mut rows = Vec::new();
    let mut docs_rs_rows = Vec::new();
    let mut version = None;
    for package in &packages {
        let name = package["name"].as_str().unwrap_or_default();
        if package["source"].is_null() || !burn_migrate::rules::framework::is_burn_package(name) {
            continue;
        }
        if name == "burn" {
            version = package["version"].as_str().map(str::to_string);
        }
        let docs_rs = &package["metadata"]["docs"]["rs"];
        docs_rs_rows.push(match docs_rs.is_null() {
            true => format!("{name}\t-"),
            false => format!("{name}\t{docs_rs}"),
        });
        let Some(features) = package["features"].as_object() else {
            continue;
        };
        for (feature, enables) in features {
            let enables: Vec<&str> = (enables.as_array().into_iter().flatten())
                .filter_map(|e| e.as_str())
                .collect();
            rows.push(format!("{name}\t{feature}\t{}", enables.join(",")));
        }
    }
    rows.sort();
    let version = version.ok_or(format!("no burn package in {}", dir.display()))?;
    let mut table = format!(
        "# The Cargo features of Burn {version}'s crates, as `cargo metadata` on framework/ reads them\n# (`cargo run -p xtask -- features`): package, feature, what it enables.\n"
    );
    for row in rows {
        let _ = writeln!(table, "{row}");
    }
    docs_rs_rows.sort();
    let mut docs_rs = format!(
        "# The docs.rs table (`[package.metadata.docs.rs]`) of Burn {version}'s crates as JSON, `-` where\n# a crate has none (docs.rs then builds its default features), as `cargo metadata` on framework/\n# reads them (`cargo run -p xtask -- features`).\n"
    );
    for row in docs_rs_rows {
        let _ = writeln!(docs_rs, "{row}");
    }
    Ok((version, table, docs_rs))
}
