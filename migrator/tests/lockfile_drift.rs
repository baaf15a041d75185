//! Registry drift (issue 29 item 4), offline: a local registry (a `directory` source that
//! replaces crates.io) offers a newer release of one of Burn's dependencies than Burn's
//! pinned lockfile has, as crates.io did with `systemstat` 0.2.8, which burn-train 0.22.1
//! does not compile with. The port's `Cargo.lock` must take the pinned release; without the
//! pinned lock, the same resolution takes the newer one (so the fixture does offer it).

mod common;

use std::path::Path;

use burn_migrate::migrate::{lockfile, run};
use burn_migrate::rules::RuleSet;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

/// A package of the local registry, with the checksum the lockfile must name.
fn vendor(registry: &Path, name: &str, version: &str, manifest_rest: &str) -> String {
    let dir = registry.join(format!("{name}-{version}"));
    write(
        &dir.join("Cargo.toml"),
        &format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\n\n{manifest_rest}"),
    );
    write(&dir.join("src/lib.rs"), "");
    // Any 64 hex digits (cargo compares the lock's checksum with this one): the name and
    // version's bytes, padded.
    let mut checksum: String = format!("{name}-{version}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    checksum.truncate(64);
    while checksum.len() < 64 {
        checksum.push('0');
    }
    write(
        &dir.join(".cargo-checksum.json"),
        &format!("{{\"files\":{{}},\"package\":\"{checksum}\"}}"),
    );
    checksum
}

#[test]
fn the_pinned_release_wins_over_a_newer_one_offline() {
    let base = tempfile::tempdir().unwrap();
    let registry = base.path().join("registry");
    let features = "[features]\ndefault = []\nstd = []\nflex = []\nndarray = []\nautodiff = []\n";
    vendor(
        &registry,
        "burn",
        "0.21.0",
        &format!("{features}\n[dependencies]\nthermal-probe = \"0.2\"\n"),
    );
    let burn = vendor(
        &registry,
        "burn",
        "0.22.1",
        &format!("{features}\n[dependencies]\nthermal-probe = \"0.2\"\n"),
    );
    let pinned_probe = vendor(&registry, "thermal-probe", "0.2.7", "");
    vendor(&registry, "thermal-probe", "0.2.8", "");

    let project = base.path().join("project");
    write(
        &project.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n",
    );
    write(
        &project.join("src/main.rs"),
        "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x\n}\n\nfn main() {}\n",
    );
    write(
        &project.join(".cargo/config.toml"),
        &format!(
            "[source.crates-io]\nreplace-with = \"local\"\n\n[source.local]\ndirectory = \"{}\"\n\n[net]\noffline = true\n",
            registry.display()
        ),
    );
    let pinned = format!(
        "version = 4\n\n[[package]]\nname = \"framework\"\nversion = \"0.1.0\"\ndependencies = [\n \"burn\",\n]\n\n[[package]]\nname = \"burn\"\nversion = \"0.22.1\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{burn}\"\ndependencies = [\n \"thermal-probe\",\n]\n\n[[package]]\nname = \"thermal-probe\"\nversion = \"0.2.7\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{pinned_probe}\"\n"
    );
    let rules = RuleSet::embedded().unwrap();
    let report = run(&project, &rules).unwrap();
    assert!(
        report.manifests.iter().any(|m| m.migrated.contains("0.22")),
        "the port moves burn to 0.22"
    );
    let locked = |pinned: &str| {
        let plan = lockfile::plan_with(&report, pinned)
            .unwrap_or_else(|e| panic!("{e}"))
            .expect("the manifest changes");
        plan.text.expect("a lockfile is written")
    };
    let with_pin = locked(&pinned);
    assert!(
        with_pin.contains("name = \"thermal-probe\"\nversion = \"0.2.7\""),
        "{with_pin}"
    );
    assert!(!with_pin.contains("version = \"0.2.8\""), "{with_pin}");
    assert!(with_pin.contains("name = \"burn\"\nversion = \"0.22.1\""));
    // The control: with nothing pinned, cargo takes the newest release the registry offers.
    let without = locked("version = 4\n");
    assert!(
        without.contains("name = \"thermal-probe\"\nversion = \"0.2.8\""),
        "{without}"
    );
    // Nothing of the project was written: the plan worked in a scratch view.
    assert!(!project.join("Cargo.lock").exists());
}
