//! The command line's contract: exit codes, refusals and messages on bad input.

mod common;

use std::path::Path;
use std::process::Command;

use burn_migrate::rules::RuleId;
use common::*;

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A one-crate Burn 0.21 project with the given `src/main.rs`.
fn project(main_rs: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("Cargo.toml"),
        b"[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n",
    );
    write(&dir.path().join("src/main.rs"), main_rs);
    dir
}

const GENERIC_MAIN: &[u8] = b"use burn::prelude::*;\n\nfn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n\nfn main() {}\n";

#[test]
fn check_exit_codes() {
    let dir = project(GENERIC_MAIN);
    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(RuleId::BackendGenericParam.as_str()),
        "diagnostics name the rule:\n{stderr}"
    );
    assert!(
        stderr.contains("src/main.rs:3"),
        "diagnostics give file and line:\n{stderr}"
    );

    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.contains("-fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {"),
        "{diff}"
    );
    assert!(
        diff.contains("+fn double(x: Tensor<1>) -> Tensor<1> {"),
        "{diff}"
    );

    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn diff_writes_nothing() {
    let dir = project(GENERIC_MAIN);
    let out = burn_migrate(&["--diff"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("@@"));
    let main = std::fs::read(dir.path().join("src/main.rs")).unwrap();
    assert_eq!(main, GENERIC_MAIN);
}

#[test]
fn usage_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "no mode given");
    let out = burn_migrate(&["--check", "--apply"], Path::new("."));
    assert_eq!(out.status.code(), Some(2), "two modes given");
}

#[test]
fn missing_manifest_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = burn_migrate(&["--check"], &empty);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no Cargo.toml"), "{stderr}");
    let out = burn_migrate(&["--check"], &dir.path().join("does-not-exist"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn package_without_burn_is_reported_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("Cargo.toml"),
        b"[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&dir.path().join("src/main.rs"), b"fn main() {}\n");
    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no package"));
}

#[test]
fn non_utf8_source_names_the_file() {
    let dir = project(b"mod bad;\nfn main() {}\n");
    write(&dir.path().join("src/bad.rs"), b"// caf\xe9\nfn f() {}\n");
    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.rs") && stderr.contains("UTF-8"),
        "{stderr}"
    );
}

#[test]
fn apply_refuses_a_dirty_git_tree() {
    let dir = project(GENERIC_MAIN);
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "init"]);
    write(
        &dir.path().join("src/main.rs"),
        b"use burn::prelude::*;\n// edited\nfn main() {}\n",
    );

    let out = burn_migrate(&["--apply"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-dirty"));

    let out = burn_migrate(&["--apply", "--allow-dirty"], dir.path());
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--apply` that wrote the port exits 0 and lists, place first, what it leaves for a person.
#[test]
fn manual_findings_are_listed_after_apply_and_keep_check_failing() {
    let dir = project(b"use burn::prelude::*;\n\nfn zero<B: Backend>() -> B::FloatElem {\n    0.0f32.elem()\n}\n\nfn main() {}\n");
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the port was written:\n{stderr}"
    );
    assert!(stderr.contains("need a person"), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.trim_start().starts_with("src/main.rs:") && l.contains(": backend-")),
        "each finding left is listed with file:line:column and rule:\n{stderr}"
    );
    // The port has no `B` left to see `B::FloatElem` by; a to-do marker keeps the finding, and
    // `--check` lists it until a person deletes the marker.
    let main = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(
        main.contains("// burn-migrate: todo(backend-associated-item) "),
        "{main}"
    );
    let check = burn_migrate(&["--check"], dir.path());
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(RuleId::BackendAssociatedItem.as_str()),
        "{stderr}"
    );
    let without_marker: String = main
        .lines()
        .filter(|l| !l.contains("burn-migrate: todo("))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("src/main.rs"), without_marker).unwrap();
    let check = burn_migrate(&["--check"], dir.path());
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

/// `--apply` on the one-file project at `dir`, which must write the port: what it printed, the
/// findings it lists as left in `src/main.rs`, and that file's port.
fn apply_and_list(dir: &Path) -> (String, Vec<String>, String) {
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let left = (stderr.lines())
        .filter(|l| l.trim_start().starts_with("src/main.rs:"))
        .map(str::to_string)
        .collect();
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    (stderr, left, main)
}

/// An import the port keeps because a macro body still names it is reported, on the port,
/// under the rule that kept it, so it does not stand in for another site's finding: each
/// recorder use `--apply` leaves is still listed by `--check` (the bound on `R` lost its
/// import, and only a to-do marker keeps it visible).
#[test]
fn a_kept_import_does_not_hide_another_finding_of_the_port() {
    let dir = project(b"use burn::{\n    prelude::*,\n    record::{FileRecorder, FullPrecisionSettings, HalfPrecisionSettings},\n};\n\nmacro_rules! settings {\n    () => {\n        FullPrecisionSettings::default()\n    };\n}\n\npub fn save<B: Backend, R: FileRecorder<B>>() {\n    let _ = settings!();\n    let _ = HalfPrecisionSettings::default();\n}\n\nfn main() {}\n");
    let (stderr, left, main) = apply_and_list(dir.path());
    assert!(left.iter().any(|l| l.contains("FileRecorder")), "{stderr}");
    assert!(main.contains("record::FullPrecisionSettings,"), "{main}");
    let check = burn_migrate(&["--check", "--format", "json"], dir.path());
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(findings.len(), left.len(), "{findings:#?}\n{stderr}");
    let line_of = |needle: &str| main.lines().position(|l| l.contains(needle)).unwrap() + 1;
    for line in [
        line_of("R: FileRecorder") - 1,
        line_of("record::FullPrecisionSettings"),
    ] {
        assert!(
            findings.iter().any(|f| f["line"] == line),
            "line {line}: {findings:#?}\n{main}"
        );
    }
}

/// A function left whole to a person (it uses kernel API 0.22.1 keeps) holds the findings
/// inside it. The port is 0.22 code, where only the to-do marker says the function is a
/// person's: `--check` on it lists what `--apply` listed, and the marker names what it holds.
#[test]
fn check_on_the_port_lists_code_left_whole_as_apply_did() {
    let dir = project(b"use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;\nuse burn::backend::autodiff::ops::{Backward, OpsKind};\nuse burn::backend::Autodiff;\nuse burn::prelude::*;\nuse burn::tensor::TensorPrimitive;\n\npub fn op<B: Backend>(x: Tensor<Autodiff<B>, 1>) {\n    #[derive(Debug)]\n    struct Identity;\n\n    impl<B: Backend> Backward<B, 1> for Identity {\n        type State = ();\n        fn backward(self, _: burn::backend::autodiff::ops::Ops<(), 1>, _: &mut burn::backend::autodiff::grads::Gradients, _: &mut burn::backend::autodiff::checkpoint::base::Checkpointer) {}\n    }\n\n    let TensorPrimitive::Float(p) = x.into_primitive() else {\n        return;\n    };\n    let _ = matches!(Identity.prepare::<NoCheckpointing>([p.node.clone()]).compute_bound().stateful(), OpsKind::Tracked(_));\n}\n\nfn main() {}\n");
    let (stderr, left, main) = apply_and_list(dir.path());
    let marker = main
        .lines()
        .find(|l| l.contains("todo(backend-extension-trait)") && l.contains("this function uses"))
        .unwrap_or_else(|| panic!("{main}"));
    assert!(marker.contains("1 `tensor-primitive`"), "{marker}");
    assert!(!main.contains("todo(tensor-primitive)"), "{main}");
    let check = burn_migrate(&["--check", "--format", "json"], dir.path());
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&check.stdout).unwrap();
    let in_main: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["file"] == "src/main.rs")
        .collect();
    assert_eq!(in_main.len(), left.len(), "{findings:#?}\n{stderr}");
    assert!(
        in_main
            .iter()
            .all(|f| f["rule"] == "backend-extension-trait"),
        "{findings:#?}"
    );
}

/// Exit codes: 0 nothing to do; `--diff` 1 when there is a diff, 0 when not; 2 for errors,
/// each error message saying its cause once.
#[test]
fn exit_codes_of_each_mode() {
    let dir = project(GENERIC_MAIN);
    for mode in ["--check", "--diff"] {
        let out = burn_migrate(&[mode], dir.path());
        assert_eq!(out.status.code(), Some(1), "{mode} before the port");
    }
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    for mode in ["--check", "--diff", "--apply"] {
        let out = burn_migrate(&[mode], dir.path());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{mode} after the port: nothing to do\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{mode}: no diff left");
    }

    let missing = dir.path().join("does-not-exist");
    let out = burn_migrate(&["--check"], &missing);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.starts_with("error:")).unwrap();
    assert!(
        line.matches("os error").count() <= 1 && line.contains("does-not-exist"),
        "the path, and the cause once: {line}"
    );
}

#[test]
fn check_on_migrated_code_catches_backend_generics_that_come_back() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("Cargo.toml"),
        b"[package]\nname = \"ported\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n",
    );
    write(&dir.path().join("src/main.rs"), b"use burn::prelude::*;\n\nfn main() {\n    let x = Tensor::<1>::ones([2], &Device::flex());\n    println!(\"{}\", x.sum().into_scalar::<f32>());\n}\n");
    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("clean"));

    // Someone pastes a 0.21-style helper (with the extension feature's `Backend` trait).
    write(
        &dir.path().join("src/helper.rs"),
        b"use burn::backend::Backend;\nuse burn::tensor::Tensor;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n",
    );
    write(
        &dir.path().join("src/main.rs"),
        b"mod helper;\n\nfn main() {}\n",
    );
    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(RuleId::BackendGenericParam.as_str()) && stderr.contains("src/helper.rs:4"),
        "{stderr}"
    );
}

#[test]
fn json_output_lists_findings_with_positions() {
    let dir = project(GENERIC_MAIN);
    let out = burn_migrate(&["--check", "--format", "json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let findings = findings.as_array().unwrap();
    assert!(findings
        .iter()
        .any(|f| f["rule"] == RuleId::BackendGenericParam.as_str()
            && f["file"] == "src/main.rs"
            && f["line"] == 3));
    assert!(findings
        .iter()
        .any(|f| f["rule"] == RuleId::CargoBurnVersion.as_str() && f["file"] == "Cargo.toml"));
}

#[test]
fn rules_lists_and_explain_prints_a_page() {
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .arg("rules")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.lines().count() >= 60, "{listing}");
    assert!(listing
        .lines()
        .any(|l| l.starts_with(RuleId::BackendGenericParam.as_str()) && l.contains("safe")));

    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["explain", RuleId::BackendSeed.as_str()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.contains("device.seed(42)") && page.contains("\nWhy\n---\n"),
        "{page}"
    );
    assert!(
        !page.contains("<!--") && !page.contains("](") && !page.contains("```"),
        "explain prints for a terminal, not Markdown: {page}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["explain", "no-such-rule"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("burn-migrate rules"));
}

#[test]
fn user_rules_extend_the_built_in_set_and_duplicates_are_refused() {
    let rules = tempfile::tempdir().unwrap();
    write(
        &rules.path().join("team-helper-rename.toml"),
        br#"id = "team-helper-rename"
title = "Our helper moved"
category = "tensors"
applicability = "safe"
hint = "call `helpers::v2::scale`"
why = "Our own helper moved with the port."

[[rewrite]]
kind = "rewrite-call"
function = "scale_v1"
to = "scale_v2"

[[example]]
before = "fn f() { scale_v1(1.0); }"
after = "fn f() { scale_v2(1.0); }"
"#,
    );
    let dir = project(b"fn scale_v1(x: f32) -> f32 { x }\nfn scale_v2(x: f32) -> f32 { x }\n\nfn main() {\n    scale_v1(2.0);\n}\n");
    let rules_arg = rules.path().to_string_lossy().to_string();
    let out = burn_migrate(
        &["--apply", "--allow-no-vcs", "--rules", &rules_arg],
        dir.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let main = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert!(main.contains("    scale_v2(2.0);"), "{main}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("team-helper-rename"));

    write(&rules.path().join("backend-seed.toml"), b"id = \"backend-seed\"\ntitle = \"t\"\ncategory = \"tensors\"\napplicability = \"safe\"\nhint = \"h\"\nwhy = \"w\"\n");
    let out = burn_migrate(&["--check", "--rules", &rules_arg], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already defined"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn suppressions_skip_sites_and_unused_ones_are_reported() {
    let dir = project(
        b"use burn::prelude::*;\n\n// burn-migrate: allow(backend-generic-param, backend-generic-arg)\nfn kept<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x\n}\n\nfn main() {\n    // burn-migrate: allow(nan-extrema)\n    let _ = 1;\n}\n",
    );
    let out = burn_migrate(&["--check"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("[backend-generic-param]"), "{stderr}");
    assert!(
        stderr.contains("src/main.rs:3: `backend-generic-param` suppressed by comment"),
        "{stderr}"
    );
    assert!(
        stderr.contains("src/main.rs:9: unused suppression `allow(nan-extrema)`"),
        "{stderr}"
    );
}

#[test]
fn a_pin_to_a_toolchain_that_is_not_installed_is_read_with_ours_and_raised() {
    let project = repo_root().join("testdata/projects/toolchain-pin/before");
    // Through rustup's `cargo` proxy, as a user runs it (not the toolchain's own cargo,
    // which `cargo test` passes in `$CARGO` and which ignores pins).
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(proxy) = cargo_home
        .map(|h| h.join("bin/cargo"))
        .filter(|p| p.is_file())
    else {
        eprintln!("skipped: no rustup cargo proxy");
        return;
    };
    let rustup_has = |toolchain: &str| {
        Command::new("rustup")
            .args(["run", toolchain, "rustc", "--version"])
            .env_remove("RUSTUP_TOOLCHAIN")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !rustup_has("stable") || rustup_has("1.94.1") {
        eprintln!("skipped: needs rustup without toolchain 1.94.1");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .arg("--check")
        .arg(&project)
        .env("CARGO", &proxy)
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("RUSTUP_AUTO_INSTALL", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("pins a toolchain cargo could not run"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the toolchain file pinned 1.94.1"),
        "{stderr}"
    );
}

/// Runs the tool on `dir` with `args`, the color variables of the test's environment
/// removed and `env` set.
fn run_with_color_env(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_burn-migrate"));
    command.args(args).arg(dir);
    for name in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

/// Colors: none into a pipe (tests run with pipes) or under `NO_COLOR`, always with
/// `--color always` or `CLICOLOR_FORCE`, never with `--color never`.
#[test]
fn colors_only_where_asked() {
    let dir = project(GENERIC_MAIN);
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let out = run_with_color_env(args, dir.path(), env);
        assert_eq!(out.status.code(), Some(1));
        let mut all = out.stdout;
        all.extend(out.stderr);
        String::from_utf8_lossy(&all).contains("\x1b[")
    };
    assert!(!run(&["--check"], &[]), "piped output is plain");
    assert!(!run(&["--diff"], &[]), "piped output is plain");
    assert!(run(&["--check", "--color", "always"], &[]));
    assert!(run(&["--check"], &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(
        &["--check", "--color", "auto"],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]
    ));
    assert!(!run(
        &["--check", "--color", "never"],
        &[("CLICOLOR_FORCE", "1")]
    ));
    assert!(run(&["--check", "--color", "always"], &[("NO_COLOR", "1")]));
}

/// The JSON Schema subset `book/src/findings.schema.json` uses: `type` (one or a list),
/// `enum`, `required`, `properties`, `additionalProperties: false`, `items`, `minimum`, `$ref`.
fn check_schema(
    value: &serde_json::Value,
    schema: &serde_json::Value,
    root: &serde_json::Value,
    at: &str,
) {
    use serde_json::Value;
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.strip_prefix("#/$defs/").expect("local $ref");
        return check_schema(value, &root["$defs"][name], root, at);
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
            _ => panic!("bad type in schema"),
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        assert!(
            types.contains(&actual),
            "{at}: {actual}, schema says {types:?}"
        );
    }
    if let Some(options) = schema["enum"].as_array() {
        assert!(options.contains(value), "{at}: {value} not in {options:?}");
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), value.as_i64()) {
        assert!(n >= min, "{at}: {n} < {min}");
    }
    if let Value::Object(object) = value {
        for key in schema["required"].as_array().into_iter().flatten() {
            assert!(object.contains_key(key.as_str().unwrap()), "{at}: no {key}");
        }
        for (key, field) in object {
            match schema["properties"].get(key) {
                Some(sub) => check_schema(field, sub, root, &format!("{at}.{key}")),
                None => assert!(
                    schema["additionalProperties"] != false,
                    "{at}: `{key}` is not in the schema"
                ),
            }
        }
    }
    if let (Value::Array(items), Some(sub)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            check_schema(item, sub, root, &format!("{at}[{i}]"));
        }
    }
}

fn findings_of(args: &[&str], dir: &Path) -> String {
    let out = burn_migrate(args, dir);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `--format json` matches its documented schema, carries positions, applicability and
/// fixes, and is sorted by file and position; `--diff` adds no diff to the document.
#[test]
fn json_findings_match_the_documented_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("book/src/findings.schema.json")).unwrap(),
    )
    .unwrap();
    let project = repo_root().join("testdata/projects/mlp-regression/before");
    for mode in ["--check", "--diff"] {
        let text = findings_of(&[mode, "--format", "json"], &project);
        let findings: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
        check_schema(&findings, &schema, &schema, "$");
        let list = findings.as_array().unwrap();
        assert!(list.len() > 5);
        let keys: Vec<(String, u64)> = list
            .iter()
            .map(|f| {
                (
                    f["file"].as_str().unwrap().to_string(),
                    f["start"]["offset"].as_u64().unwrap(),
                )
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "sorted by file and position");
        let param = list
            .iter()
            .find(|f| f["rule"] == RuleId::BackendGenericParam.as_str())
            .unwrap();
        // It does not compile under Burn 0.22 as it is (that --apply fixes it is `fixable`).
        assert_eq!(param["severity"], "error");
        assert_eq!(param["applicability"], "safe");
        assert_eq!(param["fix"]["edits"][0]["replacement"], "");
        // Each fix says how far `--apply` goes with it, as `fixable` does.
        assert_eq!(param["fix"]["applicability"], "safe");
        for finding in list {
            let fix = &finding["fix"];
            let safe_fix = fix.is_object() && fix["applicability"] == "safe";
            assert_eq!(finding["fixable"], safe_fix, "{finding}");
        }
        let manifest = list.iter().find(|f| f["file"] == "Cargo.toml").unwrap();
        assert_eq!(manifest["fix"]["applicability"], "safe");
        assert!(param["end"]["offset"].as_u64() > param["start"]["offset"].as_u64());
    }
}

#[test]
fn github_annotations_and_sarif() {
    let dir = project(GENERIC_MAIN);
    let text = findings_of(&["--check", "--format", "github"], dir.path());
    assert!(!text.is_empty());
    for line in text.lines() {
        assert!(
            line.starts_with("::warning file=") || line.starts_with("::error file="),
            "{line}"
        );
        assert!(
            line.contains(",line=") && line.contains(",col=") && line.contains(",title="),
            "{line}"
        );
    }
    assert!(
        text.lines()
            .any(|l| l.contains("main.rs,line=3,") && l.contains("backend-generic-param::")),
        "{text}"
    );

    let text = findings_of(&["--check", "--format", "sarif"], dir.path());
    let log: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().all(|r| r["id"].is_string()));
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(["warning", "error"].contains(&result["level"].as_str().unwrap()));
        assert!(result["message"]["text"].is_string());
        let location = &result["locations"][0]["physicalLocation"];
        assert!(
            location["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .ends_with(".rs")
                || location["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with("Cargo.toml")
        );
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(location["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn rules_as_json_and_formats_verify_cannot_print() {
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rules = rules.as_array().unwrap();
    assert!(rules.len() >= 60);
    assert!(rules
        .iter()
        .any(|r| r["id"] == RuleId::BackendGenericParam.as_str()
            && r["applicability"] == "safe"
            && r["title"].is_string()));

    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["verify", "--format", "sarif", "does-not-matter"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("for findings"));
}

/// `cargo burn-migrate --check`: cargo runs `cargo-burn-migrate burn-migrate --check`.
#[test]
fn runs_as_a_cargo_subcommand() {
    let dir = project(GENERIC_MAIN);
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-burn-migrate"))
        .args(["burn-migrate", "--check"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(RuleId::BackendGenericParam.as_str()),
        "{stderr}"
    );
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains("burn-migrate")
                && script.contains("check")
                && script.contains("ndarray-to"),
            "{shell}: {script}"
        );
        // `explain <TAB>` offers the rule ids (clap_complete's fish script completes no
        // positional values, rule ids or other).
        let offers_ids = script.contains(RuleId::BackendGenericParam.as_str())
            && script.contains(RuleId::BackendAssociatedType.as_str());
        assert!(
            offers_ids || shell == "fish",
            "{shell}: no rule ids to complete"
        );
    }
}

/// Issue 28 item 11: `--apply` lists what it leaves for a person at the places the written
/// files have them (the marker it writes above a site moves every site below it), the same
/// places `--check` gives afterwards.
#[test]
fn apply_lists_what_is_left_where_the_written_file_has_it() {
    let dir = project(b"use burn::prelude::*;\n\nfn zero<B: Backend>() -> B::FloatElem {\n    0.0f32.elem()\n}\n\nfn one<B: Backend>() -> B::FloatElem {\n    1.0f32.elem()\n}\n\nfn main() {}\n");
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let mut listed: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.trim().strip_prefix("src/main.rs:"))
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let (line, column, rule) = (parts.next()?, parts.next()?, parts.next()?);
            Some(format!("{line}:{column} {}", rule.trim()))
        })
        .collect();
    listed.sort();
    let check = burn_migrate(&["--check", "--format", "json"], dir.path());
    let findings: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    let mut after: Vec<String> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{} {}",
                f["line"],
                f["column"],
                f["rule"].as_str().unwrap()
            )
        })
        .collect();
    after.sort();
    assert_eq!(listed.len(), 2, "{stderr}");
    assert_eq!(listed, after, "{stderr}");
}

/// A `[patch]` that puts a fork of Burn 0.21 in place of a Burn crate (renamed with `package`
/// too) is a manual finding at its key: in the root manifest, at the patch and not at the
/// dependency of the same name above it, and in `.cargo/config.toml`. It stays once the
/// project is on 0.22, until the fork is. A patch of another crate, or of a crate of the
/// project's whose name starts with `burn`, is none.
#[test]
fn burn_patches_are_findings_at_their_key_until_the_fork_is_on_0_22() {
    let manifest = |burn: &str, features: &str| {
        format!(
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = {{ version = \"{burn}\", features = [\"{features}\"] }}\nburn-core = \"{burn}\"\nserde = \"1\"\n\n[patch.crates-io]\nserde = {{ path = \"patches/serde\" }}\nburn-core = {{ path = \"patches/burn-core\" }}\nburnish = {{ path = \"patches/burnish\" }}\nnn-fork = {{ path = \"patches/nn\", package = \"burn-nn\" }}\n"
        )
    };
    let dir = project(GENERIC_MAIN);
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        manifest("0.21.0", "ndarray").as_bytes(),
    );
    let fork = |dir: &str, name: &str, version: &str| {
        write(
            &root.join(dir).join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\n")
                .as_bytes(),
        );
    };
    fork("patches/burn-core", "burn-core", "0.21.0");
    fork("patches/nn", "burn-nn", "0.21.0");
    fork("patches/burn-tensor", "burn-tensor", "0.21.0");
    fork("patches/serde", "serde", "1.0.0");
    fork("patches/burnish", "burnish", "0.21.0");
    write(
        &root.join(".cargo/config.toml"),
        b"[patch.crates-io]\nburn-tensor = { path = \"patches/burn-tensor\" }\n",
    );
    let patch_findings = || -> Vec<(String, u64, u64)> {
        let json: serde_json::Value =
            serde_json::from_str(&findings_of(&["--check", "--format", "json"], root)).unwrap();
        (json.as_array().unwrap().iter())
            .filter(|f| f["rule"] == RuleId::CargoBurnPatch.as_str())
            .map(|f| {
                let at = |k: &str| f[k].as_u64().unwrap();
                (
                    f["file"].as_str().unwrap().to_string(),
                    at("line"),
                    at("column"),
                )
            })
            .collect()
    };
    let old_forks = vec![
        (".cargo/config.toml".to_string(), 2, 1),
        ("Cargo.toml".to_string(), 13, 1),
        ("Cargo.toml".to_string(), 15, 1),
    ];
    assert_eq!(patch_findings(), old_forks);
    let out = burn_migrate(&["--check"], root);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the fork is burn-core 0.21.0") && stderr.contains("or drop the patch"),
        "{stderr}"
    );

    // On 0.22, with forks of 0.21: the patches still do nothing.
    write(
        &root.join("Cargo.toml"),
        manifest("0.22.0", "flex").as_bytes(),
    );
    write(
        &root.join("src/main.rs"),
        b"use burn::prelude::*;\n\nfn double(x: Tensor<1>) -> Tensor<1> {\n    x.mul_scalar(2.0)\n}\n\nfn main() {}\n",
    );
    assert_eq!(patch_findings(), old_forks);

    // The forks on 0.22: nothing left.
    fork("patches/burn-core", "burn-core", "0.22.1");
    fork("patches/nn", "burn-nn", "0.22.1");
    fork("patches/burn-tensor", "burn-tensor", "0.22.1");
    let out = burn_migrate(&["--check"], root);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 35 item 5: a command's help lists the options it takes and no others: `records`
/// reads no rules and prints no findings, `explain` prints no findings.
#[test]
fn each_command_lists_only_its_own_options() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let options = ["--rules", "--format", "--color"];
    for (args, takes) in [
        (&[][..], &options[..]),
        (&["records"], &[]),
        (&["records", "convert"], &[]),
        (&["compare"], &[]),
        (&["probe"], &[]),
        (&["framework"], &[]),
        (&["explain"], &["--rules"]),
        (&["book"], &["--rules"]),
        (&["completions"], &["--rules"]),
        (&["rules"], &["--rules", "--format"]),
        (&["bench"], &["--rules", "--format"]),
        (&["verify"], &options[..]),
    ] {
        let text = help(args);
        for option in options {
            assert_eq!(
                text.contains(&format!("{option} <")),
                takes.contains(&option),
                "`{}` and {option}:\n{text}",
                args.join(" ")
            );
        }
        if !args.is_empty() {
            for option in ["--apply", "--ndarray-to", "--select", "--manifest-path"] {
                assert!(!text.contains(option), "{args:?}: {option}\n{text}");
            }
        }
    }
    // An option a command does not take is refused, not ignored.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["records", "convert", "model.mpk", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Where it is taken, it still works.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args([
            "explain",
            "backend-seed",
            "--rules",
            "/nonexistent-rules-dir",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("loading rules from"), "{stderr}");
}

/// Issue 35 item 5: `--diff` and `--apply` color their diff as git does (removed lines red,
/// added green, hunk headers cyan) where colors are on, as the diagnostics are: with
/// `--color always` or `CLICOLOR_FORCE`, never into a pipe under `auto`, nor under `NO_COLOR`
/// or `--color never`. Without its escapes the colored diff is the plain one.
#[test]
fn diffs_are_colored_like_git_where_colors_are_on() {
    let dir = project(GENERIC_MAIN);
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let out = run_with_color_env(args, dir.path(), env);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(&["--diff"], &[]);
    assert!(!plain.contains('\x1b'), "{plain}");
    let colored = run(&["--diff", "--color", "always"], &[]);
    for expected in [
        "\x1b[31m-fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\x1b[0m\n",
        "\x1b[32m+fn double(x: Tensor<1>) -> Tensor<1> {\x1b[0m\n",
        "\x1b[1m--- a/src/main.rs\x1b[0m\n",
        "\x1b[36m@@ -1,6 +1,6 @@\x1b[0m backend-generic-arg, backend-generic-param\n",
    ] {
        assert!(colored.contains(expected), "{expected:?} in\n{colored}");
    }
    // Context lines stay plain.
    assert!(colored.contains("\n     x.mul_scalar(2.0)\n"), "{colored}");
    let stripped = colored
        .replace("\x1b[0m", "")
        .replace("\x1b[1m", "")
        .replace("\x1b[31m", "")
        .replace("\x1b[32m", "")
        .replace("\x1b[36m", "");
    assert_eq!(stripped, plain);
    assert_eq!(run(&["--diff"], &[("CLICOLOR_FORCE", "1")]), colored);
    assert_eq!(
        run(&["--diff"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
        plain
    );
    assert_eq!(
        run(&["--diff", "--color", "never"], &[("CLICOLOR_FORCE", "1")]),
        plain
    );
    // --apply prints the same diff, colored alike.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["--apply", "--allow-no-vcs", "--color", "always"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), colored);
}

/// Runs burn-migrate in `cwd` with `GITHUB_WORKSPACE` as given (unset when `None`).
fn run_in(cwd: &Path, args: &[&str], workspace: Option<&Path>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_burn-migrate"));
    command.args(args).current_dir(cwd);
    match workspace {
        Some(workspace) => command.env("GITHUB_WORKSPACE", workspace),
        None => command.env_remove("GITHUB_WORKSPACE"),
    };
    command.output().unwrap()
}

/// Issue 35 item 5: the machine formats name files as people read them. SARIF's URIs are
/// relative to the project, as the diagnostics' and JSON's paths are, on the base id
/// `PROJECTROOT` that `originalUriBaseIds` gives as the project's `file://` URI (among several
/// projects: the current directory, as people read them then). GitHub annotations are read
/// from the repository's root: relative to `$GITHUB_WORKSPACE` where it is set, else to the
/// current directory.
#[test]
fn machine_formats_name_files_as_people_read_them() {
    let repo = tempfile::tempdir().unwrap();
    let repo_path = std::fs::canonicalize(repo.path()).unwrap();
    for name in ["ml", "other"] {
        let dir = project(GENERIC_MAIN);
        copy_project(dir.path(), &repo_path.join(name));
    }
    let ml = repo_path.join("ml");
    let stdout = |out: std::process::Output| {
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Human output and JSON: relative to the project, wherever it is run from.
    let out = run_in(&repo_path, &["--check", "ml"], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("src/main.rs:3") && !stderr.contains("ml/src"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(run_in(
        &repo_path,
        &["--check", "--format", "json", "ml"],
        None,
    )))
    .unwrap();
    let json_files: Vec<&str> = (json.as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(json_files.contains(&"src/main.rs"), "{json_files:?}");

    // SARIF: the same names, on the project's root.
    let sarif = |cwd: &Path, paths: &[&str]| -> serde_json::Value {
        let mut args = vec!["--check", "--format", "sarif"];
        args.extend(paths);
        serde_json::from_str(&stdout(run_in(cwd, &args, None))).unwrap()
    };
    let log = sarif(&repo_path, &["ml"]);
    let run = &log["runs"][0];
    let root_uri = format!("file://{}/", ml.display());
    assert_eq!(
        run["originalUriBaseIds"]["PROJECTROOT"]["uri"],
        root_uri.as_str()
    );
    let uris: Vec<&str> = (run["results"].as_array().unwrap().iter())
        .map(|r| {
            let artifact = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(artifact["uriBaseId"], "PROJECTROOT", "{r}");
            artifact["uri"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        uris, json_files,
        "SARIF names the files JSON names, in its order"
    );
    // Run from inside the project: the same log.
    assert_eq!(sarif(&ml, &["."]), log);
    // Several projects: named from the current directory, as people read them then.
    let log = sarif(&repo_path, &["ml", "other"]);
    let run = &log["runs"][0];
    let cwd_uri = format!("file://{}/", repo_path.display());
    assert_eq!(
        run["originalUriBaseIds"]["PROJECTROOT"]["uri"],
        cwd_uri.as_str()
    );
    let uris: std::collections::BTreeSet<&str> = (run["results"].as_array().unwrap().iter())
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        uris.contains("ml/src/main.rs") && uris.contains("other/src/main.rs"),
        "{uris:?}"
    );

    // GitHub: from the repository's root, whatever the current directory.
    let github = |cwd: &Path, workspace: Option<&Path>| {
        let text = stdout(run_in(
            cwd,
            &["--check", "--format", "github", "."],
            workspace,
        ));
        let files: std::collections::BTreeSet<String> = text
            .lines()
            .map(|line| {
                line.split(',')
                    .next()
                    .unwrap()
                    .split("file=")
                    .nth(1)
                    .unwrap()
                    .to_string()
            })
            .collect();
        files
    };
    let repo_names: std::collections::BTreeSet<String> =
        ["ml/Cargo.toml", "ml/src/main.rs"].map(String::from).into();
    assert_eq!(
        github(&ml, Some(&repo_path)),
        repo_names,
        "a step with working-directory: ml"
    );
    let project_names: std::collections::BTreeSet<String> =
        ["Cargo.toml", "src/main.rs"].map(String::from).into();
    assert_eq!(
        github(&ml, None),
        project_names,
        "outside a workflow: the current directory"
    );
    let outside = tempfile::tempdir().unwrap();
    assert_eq!(
        github(&ml, Some(outside.path())),
        project_names,
        "a project outside the workspace: the current directory"
    );
}

/// Issue 35 item 5: SARIF's rules link their guide pages (`helpUri`), and a finding that
/// `--apply` fixes carries the fix (`fixes`: replacements of regions); applied, the fixes of a
/// file make what `--apply` writes. A finding that needs a person has none.
#[test]
fn sarif_links_guide_pages_and_carries_fixes() {
    let dir = project(b"use burn::prelude::*;\n\nfn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n\nfn best<B: Backend>(x: Tensor<B, 2>) -> Tensor<B, 2, Int> {\n    x.argmax(1)\n}\n\nfn main() {}\n");
    let log: serde_json::Value =
        serde_json::from_str(&findings_of(&["--check", "--format", "sarif"], dir.path())).unwrap();
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for rule in rules {
        let uri = rule["helpUri"].as_str().unwrap();
        let page = uri.split("/book/src/").nth(1).unwrap();
        assert!(uri.starts_with("https://"), "{uri}");
        assert!(
            page.starts_with("rules/")
                && page.ends_with(&format!("/{}.md", rule["id"].as_str().unwrap())),
            "{uri}"
        );
        assert!(
            repo_root().join("book/src").join(page).is_file(),
            "{uri}: no such page"
        );
    }
    let results = run["results"].as_array().unwrap();
    let manual = (results.iter())
        .find(|r| r["ruleId"] == RuleId::NanExtrema.as_str())
        .expect("a nan-extrema finding");
    assert!(manual.get("fixes").is_none(), "{manual}");
    // Each file's fixes, applied from the last, make the file `--apply` writes.
    let mut replacements: std::collections::BTreeMap<String, Vec<(u64, u64, String)>> =
        Default::default();
    for result in results {
        let Some(fixes) = result.get("fixes") else {
            continue;
        };
        let change = &fixes[0]["artifactChanges"][0];
        assert_eq!(
            change["artifactLocation"],
            result["locations"][0]["physicalLocation"]["artifactLocation"]
        );
        for replacement in change["replacements"].as_array().unwrap() {
            let region = &replacement["deletedRegion"];
            assert!(region["startLine"].as_u64().unwrap() >= 1);
            let edit = (
                region["byteOffset"].as_u64().unwrap(),
                region["byteLength"].as_u64().unwrap(),
                replacement["insertedContent"]["text"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
            let file = change["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_string();
            let edits = replacements.entry(file).or_default();
            // Findings that share a fix (a manifest line two rules rewrite) carry it alike.
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        }
    }
    assert!(replacements.contains_key("src/main.rs") && replacements.contains_key("Cargo.toml"));
    let fixed: Vec<(String, String)> = (replacements.into_iter())
        .map(|(file, mut edits)| {
            let mut text = std::fs::read_to_string(dir.path().join(&file)).unwrap();
            edits.sort();
            for (offset, length, inserted) in edits.into_iter().rev() {
                text.replace_range(offset as usize..(offset + length) as usize, &inserted);
            }
            (file, text)
        })
        .collect();
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (file, text) in fixed {
        let written = std::fs::read_to_string(dir.path().join(&file)).unwrap();
        // `--apply` also marks the site it leaves for a person.
        let written: String = written
            .lines()
            .filter(|line| !line.contains("burn-migrate: todo("))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(text, written, "{file}");
    }
}

/// Issue 35 item 4: a finding's severity says what the site does to the port: `error` where
/// the port does not compile with it as it is (`Tensor<B, 2>`, fixable or not), `warning` where
/// it compiles and may behave differently (`argmax` propagating NaN), in every format, and the
/// rule list says each rule's.
#[test]
fn severities_say_whether_the_port_compiles() {
    let dir = project(b"use burn::prelude::*;\n\nfn best<B: Backend>(x: Tensor<B, 2>) -> Tensor<B, 2, Int> {\n    x.argmax(1)\n}\n\nfn main() {}\n");
    let json: serde_json::Value =
        serde_json::from_str(&findings_of(&["--check", "--format", "json"], dir.path())).unwrap();
    let severity_of = |rule: RuleId| {
        let list = json.as_array().unwrap();
        let found = list.iter().find(|f| f["rule"] == rule.as_str()).unwrap();
        found["severity"].as_str().unwrap().to_string()
    };
    assert_eq!(severity_of(RuleId::NanExtrema), "warning");
    assert_eq!(severity_of(RuleId::BackendGenericParam), "error");
    let out = burn_migrate(&["--check", "--color", "never"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning[nan-extrema]"), "{stderr}");
    assert!(stderr.contains("error[backend-generic-param]"), "{stderr}");
    let github = findings_of(&["--check", "--format", "github"], dir.path());
    assert!(
        github
            .lines()
            .any(|l| l.starts_with("::warning ") && l.contains("nan-extrema::")),
        "{github}"
    );
    let log: serde_json::Value =
        serde_json::from_str(&findings_of(&["--check", "--format", "sarif"], dir.path())).unwrap();
    let run = &log["runs"][0];
    let level = |rule: RuleId| {
        let results = run["results"].as_array().unwrap();
        let result = results
            .iter()
            .find(|r| r["ruleId"] == rule.as_str())
            .unwrap();
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        let descriptor = &run["tool"]["driver"]["rules"][index];
        assert_eq!(descriptor["defaultConfiguration"]["level"], result["level"]);
        result["level"].as_str().unwrap().to_string()
    };
    assert_eq!(level(RuleId::NanExtrema), "warning");
    assert_eq!(level(RuleId::BackendGenericParam), "error");
    // After the port, what is left compiles: a warning.
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let out = burn_migrate(&["--check", "--color", "never"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning[nan-extrema]") && !stderr.contains("error["),
        "{stderr}"
    );
    // The rule list says each rule's severity.
    let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let severity = |id: RuleId| {
        let list = rules.as_array().unwrap();
        list.iter().find(|r| r["id"] == id.as_str()).unwrap()["severity"].clone()
    };
    assert_eq!(severity(RuleId::NanExtrema), "warning");
    assert_eq!(severity(RuleId::DatasetGetResult), "error");
}
