//! The port's `Cargo.lock`, offline, against a local registry (a `directory` source that
//! replaces crates.io). Registry drift (issue 29 item 4): the registry offers a newer release
//! of one of Burn's dependencies than Burn's pinned lockfile has, as crates.io did with
//! `systemstat` 0.2.8, which burn-train 0.22.1 does not compile with; the port must take the
//! pinned release, and without the pinned lock the same resolution takes the newer one (so
//! the fixture does offer it). Features and resolution failures (item 3) too.

mod common;

use std::path::Path;

use burn_migrate::migrate::{lockfile, run};
use burn_migrate::rules::RuleSet;
use common::{read, stderr, write};

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

/// A project on Burn 0.21 (with `burn_features` and the extra `dependencies` lines) whose
/// crates.io is a local registry offering `burn` 0.21.0 and 0.22.1 (which needs
/// `thermal-probe` 0.2.7 or newer), and `thermal-probe` 0.2.5, 0.2.7 and 0.2.8; with the
/// pinned lockfile that names `burn` 0.22.1 and `thermal-probe` 0.2.7.
struct Fixture {
    _base: tempfile::TempDir,
    project: std::path::PathBuf,
    pinned: String,
}

fn fixture(burn_features: &str, dependencies: &str) -> Fixture {
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
        &format!("{features}\n[dependencies]\nthermal-probe = \"0.2.7\"\n"),
    );
    vendor(&registry, "thermal-probe", "0.2.5", "");
    let pinned_probe = vendor(&registry, "thermal-probe", "0.2.7", "");
    vendor(&registry, "thermal-probe", "0.2.8", "");
    let project = base.path().join("project");
    write(
        &project.join("Cargo.toml"),
        &format!("[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = {{ version = \"0.21.0\", features = [{burn_features}] }}\n{dependencies}"),
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
    Fixture {
        _base: base,
        project,
        pinned,
    }
}

#[test]
fn the_pinned_release_wins_over_a_newer_one_offline() {
    let Fixture {
        project, pinned, ..
    } = &fixture("\"ndarray\"", "");
    let rules = RuleSet::embedded().unwrap();
    let report = run(project, &rules).unwrap();
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
    let with_pin = locked(pinned);
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

/// Issue 29 item 3: features of 0.21's `burn` that 0.22's lacks (the implicit feature of an
/// optional dependency, `burn-flex`) move to their counterpart, so the port resolves.
#[test]
fn implicit_features_move_and_the_port_resolves() {
    let Fixture {
        project, pinned, ..
    } = &fixture("\"std\", \"burn-flex\"", "");
    let rules = RuleSet::embedded().unwrap();
    let report = run(project, &rules).unwrap();
    let manifest = &report.manifests[0].migrated;
    assert!(
        manifest.contains("features = [\"std\", \"flex\"]"),
        "{manifest}"
    );
    let plan = lockfile::plan_with(&report, pinned).unwrap_or_else(|e| panic!("{e}"));
    let text = plan.and_then(|p| p.text).expect("a lockfile");
    assert!(
        text.contains("name = \"burn\"\nversion = \"0.22.1\""),
        "{text}"
    );
}

/// Issue 29 item 3: a port whose workspace does not resolve (here the project pins a release
/// of a crate older than Burn 0.22 needs) is an error that names the manifest line.
#[test]
fn a_port_that_does_not_resolve_names_the_line() {
    let Fixture {
        project, pinned, ..
    } = &fixture("\"ndarray\"", "thermal-probe = \"=0.2.5\"\n");
    let rules = RuleSet::embedded().unwrap();
    let report = run(project, &rules).unwrap();
    let error = lockfile::plan_with(&report, pinned).expect_err("does not resolve");
    let message = error.to_string();
    assert!(message.contains("does not resolve"), "{message}");
    assert!(
        message.contains("Cargo.toml:8: thermal-probe = \"=0.2.5\""),
        "{message}"
    );
    assert!(!project.join("Cargo.lock").exists());
}

/// A family of crates released in lockstep, where a member needs its sibling at its own
/// version when a feature is on (`futures-channel` 0.3.34 with `sink` needs `futures-sink`
/// 0.3.34). Moving the member Burn's graph has to the pinned release leaves its sibling,
/// which Burn does not use, at the project's older version: cargo's conflict names the
/// sibling, and the port unlocks it rather than give up.
#[test]
fn a_sibling_left_behind_by_a_pinned_move_is_unlocked() {
    let base = tempfile::tempdir().unwrap();
    let registry = base.path().join("registry");
    let burn_features = "[features]\ndefault = []\nflex = []\nndarray = []\n";
    vendor(&registry, "burn", "0.21.0", burn_features);
    let burn = vendor(
        &registry,
        "burn",
        "0.22.1",
        &format!("{burn_features}\n[dependencies]\nfam-channel = \"0.3.34\"\n"),
    );
    // (name, version) -> the checksum the lock names.
    let mut checksums = std::collections::BTreeMap::new();
    for version in ["0.3.32", "0.3.34"] {
        let sink = vendor(&registry, "fam-sink", version, "");
        let channel = vendor(
            &registry,
            "fam-channel",
            version,
            &format!("[features]\nsink = [\"dep:fam-sink\"]\n\n[dependencies]\nfam-sink = {{ version = \"={version}\", optional = true }}\n"),
        );
        let fam = vendor(
            &registry,
            "fam",
            version,
            &format!("[dependencies]\nfam-channel = {{ version = \"{version}\", features = [\"sink\"] }}\nfam-sink = \"{version}\"\n"),
        );
        for (name, checksum) in [("fam-sink", sink), ("fam-channel", channel), ("fam", fam)] {
            checksums.insert((name, version), checksum);
        }
    }
    let project = base.path().join("project");
    write(
        &project.join("Cargo.toml"),
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\nfam = \"0.3\"\n",
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
    // The project's lock, from before 0.3.34: cargo's, with the family at 0.3.32.
    let out = std::process::Command::new(env!("CARGO"))
        .arg("generate-lockfile")
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut lock = read(&project.join("Cargo.lock"));
    for name in ["fam", "fam-channel", "fam-sink"] {
        lock = lock.replace(
            &format!(
                "name = \"{name}\"\nversion = \"0.3.34\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{}\"",
                checksums[&(name, "0.3.34")]
            ),
            &format!(
                "name = \"{name}\"\nversion = \"0.3.32\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{}\"",
                checksums[&(name, "0.3.32")]
            ),
        );
    }
    write(&project.join("Cargo.lock"), &lock);
    let channel = &checksums[&("fam-channel", "0.3.34")];
    let before = read(&project.join("Cargo.lock"));
    assert!(
        before.contains("name = \"fam-sink\"\nversion = \"0.3.32\""),
        "{before}"
    );
    let pinned = format!(
        "version = 4\n\n[[package]]\nname = \"burn\"\nversion = \"0.22.1\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{burn}\"\ndependencies = [\n \"fam-channel\",\n]\n\n[[package]]\nname = \"fam-channel\"\nversion = \"0.3.34\"\nsource = \"{CRATES_IO}\"\nchecksum = \"{channel}\"\n"
    );
    let rules = RuleSet::embedded().unwrap();
    let report = run(&project, &rules).unwrap();
    let plan = lockfile::plan_with(&report, &pinned).unwrap_or_else(|e| panic!("{e}"));
    let text = plan.and_then(|p| p.text).expect("a new lockfile");
    for name in ["fam-channel", "fam-sink"] {
        assert!(
            text.contains(&format!("name = \"{name}\"\nversion = \"0.3.34\"")),
            "{name}: {text}"
        );
    }
    assert_eq!(
        read(&project.join("Cargo.lock")),
        before,
        "the project is untouched"
    );
}
