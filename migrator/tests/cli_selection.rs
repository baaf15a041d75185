//! The command line a cargo, clippy or ruff user expects (issue 35): cargo's options
//! (`--manifest-path`, `-p`, the feature options, `cargo burn-migrate` in usage lines), rule
//! selection and the project's settings, and the output modes (`--quiet`, `--statistics`,
//! findings sorted by file and position).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

const PACKAGE: &str = "[package]\nname = \"NAME\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

/// A backend-generic helper: `backend-generic-param`, `backend-generic-arg` and
/// `backend-imports` findings.
const GENERIC: &str = "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n";

/// The default NdArray device: ported to the device `--ndarray-to` chooses.
const NDARRAY_MAIN: &str = "use burn::backend::NdArray;\nuse burn::prelude::*;\n\nfn main() {\n    let device = burn::backend::ndarray::NdArrayDevice::default();\n    let x = Tensor::<NdArray, 1>::ones([2], &device);\n    println!(\"{}\", x);\n}\n";

/// A one-package project named `demo` with `src/lib.rs` and any `extra` manifest text.
fn project(lib_rs: &str, extra_manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = PACKAGE.replace("NAME", "demo") + extra_manifest;
    write(&dir.path().join("Cargo.toml"), &manifest);
    write(&dir.path().join("src/lib.rs"), lib_rs);
    dir
}

/// A workspace of two Burn packages, `alpha` and `beta`, each with the generic helper.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\"]\nresolver = \"2\"\n",
    );
    for name in ["alpha", "beta"] {
        let package = dir.path().join(name);
        write(&package.join("Cargo.toml"), &PACKAGE.replace("NAME", name));
        write(&package.join("src/lib.rs"), GENERIC);
    }
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn exit(out: &Output) -> Option<i32> {
    out.status.code()
}

/// The rule ids of `--check --format json` (with `args` added), in order.
fn rules_found(args: &[&str], dir: &Path) -> Vec<String> {
    let mut all = vec!["--check", "--format", "json"];
    all.extend(args);
    let out = burn_migrate(&all, dir);
    assert!(
        matches!(exit(&out), Some(0 | 1)),
        "{all:?}: {}",
        text(&out.stderr)
    );
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (findings.as_array().unwrap().iter())
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// The files of `--check --format json` (with `args` added), each once.
fn files_found(args: &[&str], dir: &Path) -> Vec<String> {
    let mut all = vec!["--check", "--format", "json"];
    all.extend(args);
    let out = burn_migrate(&all, dir);
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut files: Vec<String> = (findings.as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    files.dedup();
    files
}

/// burn-migrate with `args` only (no PATH), in `dir`.
fn burn_migrate_in(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// cargo runs `cargo-burn-migrate burn-migrate ARGS`.
fn as_cargo_subcommand(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-burn-migrate"))
        .arg("burn-migrate")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn usage_and_help_say_cargo_burn_migrate_when_cargo_runs_it() {
    let dir = project(GENERIC, "");
    let out = as_cargo_subcommand(&["--no-such-option"], dir.path());
    assert_eq!(exit(&out), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("Usage: cargo burn-migrate ") && !stderr.contains("cargo-burn-migrate"),
        "{stderr}"
    );
    let out = as_cargo_subcommand(&["--help"], dir.path());
    assert!(
        text(&out.stdout).contains("Usage: cargo burn-migrate "),
        "{}",
        text(&out.stdout)
    );
    // Run by its own name, it is burn-migrate.
    let out = burn_migrate_in(&["--no-such-option"], dir.path());
    assert!(text(&out.stderr).contains("Usage: burn-migrate "));
}

#[test]
fn manifest_path_names_the_project_as_in_cargo() {
    let dir = project(GENERIC, "");
    let elsewhere = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let out = as_cargo_subcommand(&["--check", "--manifest-path", manifest], elsewhere.path());
    let stderr = text(&out.stderr);
    assert_eq!(exit(&out), Some(1), "{stderr}");
    assert!(stderr.contains("backend-generic-param"), "{stderr}");
    assert!(stderr.contains("src/lib.rs:3"), "{stderr}");

    // A directory is not a manifest path (cargo refuses it too): say what to give instead.
    let directory = dir.path().to_str().unwrap();
    let out = burn_migrate_in(&["--check", "--manifest-path", directory], elsewhere.path());
    let stderr = text(&out.stderr);
    assert_eq!(exit(&out), Some(2), "{stderr}");
    assert!(
        stderr.contains("not a path to a Cargo.toml file") && stderr.contains(manifest),
        "{stderr}"
    );
    // Both a path and --manifest-path: which one?
    let out = burn_migrate_in(
        &["--check", "--manifest-path", manifest, directory],
        elsewhere.path(),
    );
    assert_eq!(exit(&out), Some(2), "{}", text(&out.stderr));
}

#[test]
fn package_narrows_the_run_to_members_of_the_workspace() {
    let dir = workspace();
    assert_eq!(
        files_found(&[], dir.path()),
        [
            "alpha/Cargo.toml",
            "alpha/src/lib.rs",
            "beta/Cargo.toml",
            "beta/src/lib.rs"
        ]
    );
    assert_eq!(
        files_found(&["-p", "beta"], dir.path()),
        ["beta/Cargo.toml", "beta/src/lib.rs"]
    );
    assert_eq!(
        files_found(&["--package", "alpha@0.1.0", "-p", "beta"], dir.path()).len(),
        4
    );

    // As cargo: --workspace is every package, --exclude leaves some out.
    assert_eq!(files_found(&["--workspace"], dir.path()).len(), 4);
    assert_eq!(
        files_found(&["--workspace", "--exclude", "alpha"], dir.path()),
        ["beta/Cargo.toml", "beta/src/lib.rs"]
    );
    let out = burn_migrate(
        &["--check", "--workspace", "--exclude", "gamma"],
        dir.path(),
    );
    assert_eq!(exit(&out), Some(2));
    assert!(text(&out.stderr).contains("--exclude gamma: the workspace at"));

    let out = burn_migrate(&["--check", "-p", "betta"], dir.path());
    let stderr = text(&out.stderr);
    assert_eq!(exit(&out), Some(2), "{stderr}");
    assert!(
        stderr.contains("-p betta") && stderr.contains("did you mean `beta`?"),
        "{stderr}"
    );

    // The root manifest belongs to no member: where the port changes it, -p says so.
    common::write(
        &dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"alpha\", \"beta\"]\nresolver = \"2\"\n\n[workspace.dependencies]\nburn = \"0.21.0\"\n",
    );
    let out = burn_migrate(&["--check", "-p", "beta"], dir.path());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("note: -p leaves out Cargo.toml, which the port changes"),
        "{stderr}"
    );
    assert!(!stderr.contains("┌─ Cargo.toml"), "{stderr}");

    // --apply writes the selected package only.
    let out = burn_migrate(&["--apply", "--allow-no-vcs", "-p", "alpha"], dir.path());
    assert_eq!(exit(&out), Some(0), "{}", text(&out.stderr));
    let alpha = std::fs::read_to_string(dir.path().join("alpha/src/lib.rs")).unwrap();
    assert!(alpha.contains("pub fn double(x: Tensor<1>)"), "{alpha}");
    let beta = std::fs::read_to_string(dir.path().join("beta/src/lib.rs")).unwrap();
    assert_eq!(beta, GENERIC);
}

#[test]
fn cargo_feature_options_are_accepted_and_said_to_change_nothing() {
    let dir = project(
        "#[cfg(feature = \"gpu\")]\npub mod gpu {\n    use burn::prelude::*;\n    pub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n        x\n    }\n}\n",
        "\n[features]\ngpu = []\n",
    );
    let plain = rules_found(&[], dir.path());
    assert!(plain.contains(&"backend-generic-param".to_string()));
    for options in [
        &["--features", "gpu"][..],
        &["-F", "gpu", "--no-default-features"],
        &["--all-features"],
    ] {
        assert_eq!(rules_found(options, dir.path()), plain, "{options:?}");
        let mut args = vec!["--check"];
        args.extend(options);
        let stderr = text(&burn_migrate(&args, dir.path()).stderr);
        assert!(
            stderr.contains("changes nothing: burn-migrate ports the code behind every `#[cfg]`"),
            "{stderr}"
        );
    }
}

#[test]
fn select_and_ignore_choose_the_rules_that_run() {
    let dir = project(GENERIC, "");
    let all = rules_found(&[], dir.path());
    assert!(all.contains(&"backend-generic-arg".to_string()), "{all:?}");

    let selected = rules_found(&["--select", "backend-generic-param"], dir.path());
    assert!(!selected.is_empty() && selected.iter().all(|r| r == "backend-generic-param"));

    let ignored = rules_found(
        &["--ignore", "backend-generic-param,cargo-burn-version"],
        dir.path(),
    );
    assert!(!ignored.is_empty());
    assert!(!ignored
        .iter()
        .any(|r| r == "backend-generic-param" || r == "cargo-burn-version"));

    // An ignored rule's fixes are not made either: the parameter stays, its uses are ported.
    let out = burn_migrate(&["--diff", "--ignore", "backend-generic-param"], dir.path());
    let diff = text(&out.stdout);
    assert!(
        diff.contains("+pub fn double<B: Backend>(x: Tensor<1>) -> Tensor<1> {"),
        "{diff}"
    );

    // A manifest is ported whole: a cargo rule left out still edits it, and the run says so.
    let out = burn_migrate(&["--diff", "--ignore", "cargo-burn-version"], dir.path());
    assert!(
        text(&out.stdout).contains("+burn = { version = \"0.22"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("rules left out by --select/--ignore still edit manifests, which are ported whole: Cargo.toml (`cargo-burn-version`)"),
        "{}",
        text(&out.stderr)
    );

    let out = burn_migrate_in(&["explain", "backend_generic_arg"], dir.path());
    assert_eq!(exit(&out), Some(2));
    assert!(
        text(&out.stderr)
            .contains("no rule `backend_generic_arg` (did you mean `backend-generic-arg`?)"),
        "{}",
        text(&out.stderr)
    );

    let out = burn_migrate(&["--check", "--ignore", "backend_generic_arg"], dir.path());
    let stderr = text(&out.stderr);
    assert_eq!(exit(&out), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "--ignore: no rule `backend_generic_arg` (did you mean `backend-generic-arg`?)"
        ),
        "{stderr}"
    );
}

#[test]
fn the_project_configures_rules_and_devices_and_the_command_line_wins() {
    // The package's own table.
    let dir = project(
        GENERIC,
        "\n[package.metadata.burn-migrate]\nignore = [\"backend-generic-param\"]\n",
    );
    let rules = rules_found(&[], dir.path());
    assert!(!rules.is_empty() && !rules.iter().any(|r| r == "backend-generic-param"));
    // `--ignore` replaces the project's list.
    let rules = rules_found(&["--ignore", "backend-imports"], dir.path());
    assert!(
        rules.iter().any(|r| r == "backend-generic-param"),
        "{rules:?}"
    );
    assert!(!rules.iter().any(|r| r == "backend-imports"), "{rules:?}");

    // `burn-migrate.toml` wins over the manifest; the workspace's table comes last.
    let dir = project(
        GENERIC,
        "\n[workspace.metadata.burn-migrate]\nselect = [\"backend-imports\"]\n",
    );
    assert!(rules_found(&[], dir.path())
        .iter()
        .all(|r| r == "backend-imports"));
    write(
        &dir.path().join("burn-migrate.toml"),
        "select = [\"backend-generic-arg\"]\n\n[verify]\nrun_limit_s = 30\n",
    );
    let rules = rules_found(&[], dir.path());
    assert!(
        !rules.is_empty() && rules.iter().all(|r| r == "backend-generic-arg"),
        "{rules:?}"
    );

    // Devices: the project's choice, unless the command line makes another.
    let dir = project(
        "",
        "\n[workspace.metadata.burn-migrate]\nndarray-to = \"cpu\"\n",
    );
    write(&dir.path().join("src/main.rs"), NDARRAY_MAIN);
    let diff = text(&burn_migrate(&["--diff"], dir.path()).stdout);
    assert!(diff.contains("Device::cpu()"), "{diff}");
    let diff = text(&burn_migrate(&["--diff", "--ndarray-to", "flex"], dir.path()).stdout);
    assert!(
        diff.contains("Device::flex()") && !diff.contains("Device::cpu()"),
        "{diff}"
    );
    // NdArray computed integers in i64: Flex and CubeCL's CPU device default to i32 and are
    // configured; 0.22's NdArray device still defaults to i64 and is not.
    assert!(
        diff.contains("let _ = device.configure(IntDType::I64);"),
        "{diff}"
    );
    let diff = text(&burn_migrate(&["--diff", "--ndarray-to", "ndarray"], dir.path()).stdout);
    assert!(
        diff.contains("+    let device = Device::ndarray();") && !diff.contains("IntDType"),
        "{diff}"
    );
}

/// What `--check` says on the project in `dir`, which it refuses (exit 2).
fn refusal(dir: &Path) -> String {
    let out = burn_migrate(&["--check"], dir);
    let stderr = text(&out.stderr);
    assert_eq!(exit(&out), Some(2), "{stderr}");
    stderr
}

#[test]
fn mistakes_in_the_settings_say_where_and_what_to_write() {
    let dir = project(
        GENERIC,
        "\n[package.metadata.burn-migrate]\nignored = [\"nan-extrema\"]\n",
    );
    let stderr = refusal(dir.path());
    assert!(
        stderr.contains("Cargo.toml: [package.metadata.burn-migrate] `ignored`: unknown setting (did you mean `ignore`?)"),
        "{stderr}"
    );

    let dir = project(GENERIC, "");
    let settings = dir.path().join("burn-migrate.toml");
    write(&settings, "ignore = [\"nan-extrem\"]\n");
    let stderr = refusal(dir.path());
    let wrong_rule =
        "burn-migrate.toml: `ignore`: no rule `nan-extrem` (did you mean `nan-extrema`?)";
    assert!(stderr.contains(wrong_rule), "{stderr}");
    // verify ports with the same settings: read (and refused) before anything is built.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .arg("verify")
        .arg(dir.path())
        .env("BURN_MIGRATE_CACHE", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(exit(&out), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(wrong_rule),
        "{}",
        text(&out.stderr)
    );

    write(&settings, "ndarray-to = \"gpu\"\n");
    let stderr = refusal(dir.path());
    assert!(
        stderr.contains("`ndarray-to`: `gpu` is not a device it takes")
            && stderr.contains("flex, cpu, ndarray"),
        "{stderr}"
    );
}

/// The places of the human diagnostics, as codespan prints them (`┌─ src/model.rs:12:5`).
fn diagnostic_places(stderr: &str) -> Vec<(String, usize, usize)> {
    stderr
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("┌─ "))
        .map(|place| {
            let mut parts = place.rsplitn(3, ':');
            let column = parts.next().unwrap().parse().unwrap();
            let line = parts.next().unwrap().parse().unwrap();
            (parts.next().unwrap().to_string(), line, column)
        })
        .collect()
}

#[test]
fn findings_are_sorted_by_file_and_position() {
    for project in projects() {
        let out = burn_migrate(&["--check", "--color", "never"], &project.join("before"));
        let places = diagnostic_places(&text(&out.stderr));
        let mut sorted = places.clone();
        sorted.sort();
        // One diagnostic per place: the findings that start there are merged.
        sorted.dedup();
        assert_eq!(places, sorted, "{}", project.display());
    }
    // Module order is not path order: `zeta` is declared first.
    let dir = project("mod zeta;\nmod alpha;\n", "");
    write(&dir.path().join("src/zeta.rs"), GENERIC);
    write(&dir.path().join("src/alpha.rs"), GENERIC);
    let out = burn_migrate(&["--check", "--color", "never"], dir.path());
    let files: Vec<String> = diagnostic_places(&text(&out.stderr))
        .into_iter()
        .map(|(file, _, _)| file)
        .collect();
    let first = |name: &str| files.iter().position(|f| f == name).unwrap();
    assert!(
        first("Cargo.toml") < first("src/alpha.rs") && first("src/alpha.rs") < first("src/zeta.rs"),
        "{files:?}"
    );
}

/// `burn = ..` moves to 0.22 and its `ndarray` feature becomes `flex`: two findings at one
/// place, one diagnostic.
#[test]
fn findings_at_one_place_are_one_diagnostic() {
    let dir = project(GENERIC, "");
    let out = burn_migrate(&["--check", "--color", "never"], dir.path());
    let stderr = text(&out.stderr);
    let at_burn: Vec<_> = diagnostic_places(&stderr)
        .into_iter()
        .filter(|(file, _, _)| file == "Cargo.toml")
        .collect();
    assert_eq!(at_burn, [("Cargo.toml".to_string(), 7, 1)], "{stderr}");
    assert!(
        stderr.contains("error[cargo-burn-features]: Burn feature `ndarray` becomes `flex`")
            && stderr.contains("= also cargo-burn-version: `burn` moves to 0.22"),
        "{stderr}"
    );
    // Counted as two.
    let rules = rules_found(&[], dir.path());
    assert_eq!(
        rules
            .iter()
            .filter(|r| r.starts_with("cargo-burn-"))
            .count(),
        2
    );
}

#[test]
fn quiet_prints_the_summary_only_and_nothing_when_clean() {
    let dir = project(GENERIC, "");
    for mode in ["--check", "--diff"] {
        let out = burn_migrate(&[mode, "-q"], dir.path());
        assert_eq!(exit(&out), Some(1));
        assert!(out.stdout.is_empty(), "{mode}: {}", text(&out.stdout));
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{mode}: {stderr}");
        assert!(stderr.starts_with("burn-migrate: "), "{stderr}");
    }
    let out = burn_migrate(&["--apply", "--allow-no-vcs", "--quiet"], dir.path());
    assert_eq!(exit(&out), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
    let out = burn_migrate(&["--check", "-q"], dir.path());
    assert_eq!(exit(&out), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn statistics_count_the_findings_of_each_rule() {
    let project = repo_root().join("testdata/projects/mlp-regression/before");
    let rules = rules_found(&[], &project);
    let out = burn_migrate(&["--check", "--statistics", "--format", "json"], &project);
    assert_eq!(exit(&out), Some(1));
    let counts: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts = counts.as_array().unwrap();
    let count_of = |rule: &str| rules.iter().filter(|r| *r == rule).count();
    for row in counts {
        let rule = row["rule"].as_str().unwrap();
        assert_eq!(
            row["count"].as_u64().unwrap() as usize,
            count_of(rule),
            "{rule}"
        );
        assert!(row["fixable"].as_u64().unwrap() <= row["count"].as_u64().unwrap());
    }
    let total: u64 = counts.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total as usize, rules.len());
    // Most first.
    let first = counts[0]["count"].as_u64().unwrap();
    assert!(counts.iter().all(|r| r["count"].as_u64().unwrap() <= first));

    let out = burn_migrate(&["--check", "--statistics", "--color", "never"], &project);
    let stderr = text(&out.stderr);
    assert!(stderr.contains(" count  fixed  rule\n"), "{stderr}");
    let number = |key: &str| counts[0][key].as_u64().unwrap();
    let row = format!("{:>6} {:>6}  ", number("count"), number("fixable"));
    assert!(
        stderr.contains(&(row + counts[0]["rule"].as_str().unwrap())),
        "{stderr}"
    );
    assert!(
        diagnostic_places(&stderr).is_empty(),
        "no diagnostics: {stderr}"
    );

    let out = burn_migrate(&["--check", "--statistics", "--format", "sarif"], &project);
    assert_eq!(exit(&out), Some(2));
}

/// A workspace package without Burn that depends on one with it names Burn's items through
/// it: its sources are read too, and a use of what the port removes from its dependency (a
/// backend alias in an attribute's string, read by a procedural macro) is reported there.
#[test]
fn a_package_that_reads_burn_through_another_is_read() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"engine\", \"registry\"]\nresolver = \"2\"\n",
    );
    write(
        &dir.path().join("engine/Cargo.toml"),
        &PACKAGE.replace("NAME", "engine"),
    );
    write(
        &dir.path().join("engine/src/lib.rs"),
        "pub type Inference = burn::backend::NdArray;\n",
    );
    write(
        &dir.path().join("registry/Cargo.toml"),
        "[package]\nname = \"registry\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nengine = { path = \"../engine\" }\n",
    );
    write(
        &dir.path().join("registry/src/lib.rs"),
        "use engine::*;\n\n#[registry(server_type = \"Server<Inference>\")]\npub struct Registry;\n",
    );
    let files = files_found(&[], dir.path());
    assert!(
        files.contains(&"registry/src/lib.rs".to_string()),
        "{files:?}"
    );
}
