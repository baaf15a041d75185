//! Embeds every rule file of `../rules` in the binary, so an installed `burn-migrate`
//! needs no files beside it. Adding a rule is adding a file: no code changes here.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let rules_dir = Path::new(&manifest_dir).join("../rules");
    println!("cargo:rerun-if-changed={}", rules_dir.display());

    let mut files: Vec<_> = std::fs::read_dir(&rules_dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", rules_dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();

    let mut out = String::from("/// Every rule file of `rules/`, as (file name, contents).\n");
    out.push_str("pub const EMBEDDED_RULES: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let canonical = path.canonicalize().expect("rule file path resolves");
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("rule file names are UTF-8");
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            canonical.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");

    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out_dir).join("embedded_rules.rs"), out)
        .expect("write embedded_rules.rs");
}
