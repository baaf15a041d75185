//! The paths of the command line: a file or folder inside a project narrows the run to it,
//! several projects make one report with one exit code, and a path that names no project is
//! a clear error before anything runs (`book/src/running.md`, "Paths").

use std::path::Path;
use std::process::{Command, Output};

use burn_migrate::rules::RuleId;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

/// A backend-generic helper named `name`: one `backend-generic-param` finding on line 3.
fn generic_helper(name: &str) -> String {
    format!("use burn::prelude::*;\n\npub fn {name}<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {{\n    x.mul_scalar(2.0)\n}}\n")
}

/// A Burn 0.21 project at `dir` whose every module has a backend-generic helper:
/// `src/main.rs`, `src/model.rs`, `src/data.rs` and the folder `src/nn/` (`mod.rs`,
/// `layer.rs`).
fn project_at(dir: &Path) {
    write(&dir.join("Cargo.toml"), MANIFEST);
    write(
        &dir.join("src/main.rs"),
        &format!(
            "mod data;\nmod model;\nmod nn;\n{}\nfn main() {{}}\n",
            generic_helper("in_main")
        ),
    );
    write(&dir.join("src/model.rs"), &generic_helper("in_model"));
    write(&dir.join("src/data.rs"), &generic_helper("in_data"));
    write(
        &dir.join("src/nn/mod.rs"),
        &format!("pub mod layer;\n{}", generic_helper("in_nn")),
    );
    write(&dir.join("src/nn/layer.rs"), &generic_helper("in_layer"));
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    project_at(dir.path());
    dir
}

/// burn-migrate with `args`, run in `cwd`.
fn run_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("burn-migrate runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files named by `--format json` findings.
fn json_files(out: &Output) -> Vec<String> {
    let findings: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON document");
    let mut files: Vec<String> = (findings.as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    files.dedup();
    files
}

#[test]
fn a_file_narrows_check_diff_and_apply_to_it() {
    let dir = project();
    let root = dir.path();
    let out = run_in(root, &["--check", "src/model.rs"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("src/model.rs:3"), "{stderr}");
    for other in ["src/data.rs", "src/main.rs", "src/nn/", "Cargo.toml:"] {
        assert!(!stderr.contains(other), "{other} is not checked:\n{stderr}");
    }
    assert!(
        stderr.contains("3 finding(s) in 1 file(s)"),
        "the summary counts the file's findings only:\n{stderr}"
    );

    let out = run_in(root, &["--check", "--format", "json", "src/model.rs"]);
    assert_eq!(json_files(&out), ["src/model.rs"]);

    let out = run_in(root, &["--diff", "src/model.rs"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let diff = text(&out.stdout);
    assert!(diff.contains("+++ b/src/model.rs"), "{diff}");
    assert_eq!(diff.matches("+++ ").count(), 1, "one file's diff:\n{diff}");

    let before: Vec<_> = ["Cargo.toml", "src/main.rs", "src/data.rs", "src/nn/mod.rs"]
        .map(|f| (f, std::fs::read_to_string(root.join(f)).unwrap()))
        .into();
    let out = run_in(root, &["--apply", "--allow-no-vcs", "src/model.rs"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let model = std::fs::read_to_string(root.join("src/model.rs")).unwrap();
    assert!(
        model.contains("pub fn in_model(x: Tensor<1>) -> Tensor<1>"),
        "{model}"
    );
    for (file, text) in before {
        let now = std::fs::read_to_string(root.join(file)).unwrap();
        assert_eq!(now, text, "{file} is outside the path given: not written");
    }
    assert!(
        !root.join("Cargo.lock").exists(),
        "no manifest was ported, so no lockfile is made"
    );
    assert!(
        stderr.contains("Cargo.toml is outside the paths given"),
        "what happens to the manifest is said:\n{stderr}"
    );
}

#[test]
fn a_folder_narrows_the_run_to_the_files_under_it() {
    let dir = project();
    let root = dir.path();
    let out = run_in(root, &["--check", "--format", "json", "src/nn"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(json_files(&out), ["src/nn/layer.rs", "src/nn/mod.rs"]);

    // Given as an absolute path, from another directory: the same files.
    let elsewhere = tempfile::tempdir().unwrap();
    let folder = root.join("src/nn");
    let out = run_in(elsewhere.path(), &["--check", folder.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("src/nn/layer.rs:3") && stderr.contains("src/nn/mod.rs:4"),
        "{stderr}"
    );
    assert!(!stderr.contains("src/model.rs"), "{stderr}");

    // The project's folder, or its Cargo.toml, is all of it, manifest included.
    for whole in [".", "Cargo.toml"] {
        let out = run_in(root, &["--check", "--format", "json", whole]);
        let files = json_files(&out);
        assert!(
            files.contains(&"Cargo.toml".to_string()),
            "{whole}: {files:?}"
        );
        assert_eq!(files.len(), 6, "{whole}: {files:?}");
    }
}

/// Two files of one project make one project narrowed to both; a file git would keep is
/// named where nothing is found in it.
#[test]
fn paths_inside_one_project_narrow_it_together() {
    let dir = project();
    let root = dir.path();
    let out = run_in(
        root,
        &["--check", "--format", "json", "src/data.rs", "src/model.rs"],
    );
    assert_eq!(json_files(&out), ["src/data.rs", "src/model.rs"]);

    write(&root.join("notes/readme.txt"), "not Rust\n");
    let out = run_in(root, &["--check", "notes"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "nothing found there:\n{stderr}");
    assert!(
        stderr.contains("notes: no source file of a package that uses Burn is there"),
        "{stderr}"
    );
}

/// Two projects side by side, `a` with findings and `b` already on Burn 0.22 and clean.
fn two_projects() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    project_at(&dir.path().join("a"));
    write(
        &dir.path().join("b/Cargo.toml"),
        &MANIFEST
            .replace("0.21.0", "0.22.0")
            .replace("ndarray", "flex"),
    );
    write(&dir.path().join("b/src/main.rs"), "fn main() {}\n");
    dir
}

#[test]
fn several_projects_make_one_report_and_one_exit_code() {
    let dir = two_projects();
    let out = run_in(dir.path(), &["--check", "a", "b"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a has findings:\n{stderr}");
    assert!(
        stderr.contains("a/src/model.rs:3") && stderr.contains("a/Cargo.toml"),
        "files are named from the current directory:\n{stderr}"
    );
    assert!(stderr.contains("burn-migrate: b: clean"), "{stderr}");
    assert!(
        stderr.contains("finding(s) in 2 project(s)"),
        "one line ends the report:\n{stderr}"
    );

    let out = run_in(dir.path(), &["--check", "b", "a/src/model.rs"]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("a/Cargo.toml is outside the paths given"),
        "{stderr}"
    );

    let out = run_in(dir.path(), &["--check", "b"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = run_in(dir.path(), &["--check", "b", "b/src/main.rs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // One JSON document, the findings of both projects sorted together.
    project_at(&dir.path().join("c"));
    let out = run_in(dir.path(), &["--check", "--format", "json", "c", "b", "a"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let files = json_files(&out);
    assert!(files.contains(&"a/src/model.rs".to_string()), "{files:?}");
    assert!(
        files.contains(&"c/src/nn/layer.rs".to_string()),
        "{files:?}"
    );
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    for format in ["sarif", "github"] {
        let out = run_in(dir.path(), &["--check", "--format", format, "a", "c"]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        if format == "sarif" {
            let log: serde_json::Value = serde_json::from_str(&stdout).expect("one SARIF log");
            let results = log["runs"][0]["results"].as_array().unwrap();
            let uris: Vec<&str> = (results.iter())
                .map(|r| {
                    r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                        .as_str()
                        .unwrap()
                })
                .collect();
            assert!(uris.contains(&"a/src/data.rs") && uris.contains(&"c/src/data.rs"));
        } else {
            assert!(
                stdout.contains("file=a/src/data.rs,") && stdout.contains("file=c/src/data.rs,")
            );
        }
    }
}

/// `--apply` with several projects: each is its own transaction, and one that fails leaves
/// the others written.
#[test]
fn apply_ports_each_project_on_its_own() {
    let dir = two_projects();
    project_at(&dir.path().join("c"));
    // `c` cannot be read: a module that is not UTF-8.
    std::fs::write(dir.path().join("c/src/data.rs"), b"// caf\xe9\n").unwrap();
    let out = run_in(
        dir.path(),
        &["--apply", "--allow-no-vcs", "c", "a/src/model.rs", "b"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "c failed:\n{stderr}");
    assert!(
        stderr.contains("c/src/data.rs") && stderr.contains("UTF-8"),
        "{stderr}"
    );
    let model = std::fs::read_to_string(dir.path().join("a/src/model.rs")).unwrap();
    assert!(
        model.contains("pub fn in_model(x: Tensor<1>)"),
        "a was written:\n{model}"
    );
    let layer = std::fs::read_to_string(dir.path().join("c/src/nn/layer.rs")).unwrap();
    assert_eq!(layer, generic_helper("in_layer"), "c was not");
    assert!(
        text(&out.stdout).contains("+++ b/a/src/model.rs"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_path_that_does_not_exist_is_a_clear_error_before_anything_runs() {
    let dir = project();
    let out = run_in(dir.path(), &["--check", "src/modle.rs"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no such file or folder: src/modle.rs")
            && stderr.contains(&format!("looked for in {}", dir.path().display()))
            && stderr.contains("check the path"),
        "what, where and what to do next:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    // With a good path first: nothing runs, nothing is written.
    let out = run_in(dir.path(), &["--apply", "--allow-no-vcs", ".", "missing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("no such file or folder: missing"));
    let model = std::fs::read_to_string(dir.path().join("src/model.rs")).unwrap();
    assert_eq!(model, generic_helper("in_model"));
}

#[test]
fn a_path_outside_any_cargo_project_is_a_clear_error() {
    let dir = project();
    let loose = tempfile::tempdir().unwrap();
    write(&loose.path().join("scratch.rs"), &generic_helper("loose"));
    let scratch = loose.path().join("scratch.rs");
    let out = run_in(dir.path(), &["--check", ".", scratch.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("no Cargo.toml in {}", scratch.display()))
            && stderr.contains("run burn-migrate inside a Cargo project"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(RuleId::BackendGenericParam.as_str()),
        "the good project is not checked either:\n{stderr}"
    );
}
