//! Files a crate compiles through `include!`: ported in place like module files, once each;
//! what burn-migrate cannot follow is a finding at the call, and nothing outside the project
//! is written.

mod common;

use std::path::Path;
use std::process::Command;

use burn_migrate::rules::RuleId;
use common::*;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

/// Code with a backend parameter and no imports of its own: an included file sees its
/// includer's.
const GENERIC: &str =
    "pub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n";
const GENERIC_PORTED: &str = "pub fn double(x: Tensor<1>) -> Tensor<1> {";

/// A one-crate Burn 0.21 project with the given files, committed to git (`--apply` wants a
/// tree it can undo).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Cargo.toml"), MANIFEST);
    for (path, text) in files {
        write(&dir.path().join(path), text);
    }
    commit(dir.path());
    dir
}

fn commit(dir: &Path) {
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "project"],
    ] {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@e"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    }
}

/// The findings of `--check --format json`, as (rule, file, line, column).
fn findings(dir: &Path) -> Vec<(String, String, u64, u64)> {
    let out = burn_migrate(&["--check", "--format", "json"], dir);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    json.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A generic fn in a file `include!` pulls in (at the top of the crate, and from inside an
/// inline module with a path that leaves `src/`) is ported in place by `--apply`, and
/// `--check` is clean after: before the fix the included files were never read, so `--check`
/// passed with `fn double<B: Backend>` still there.
#[test]
fn included_files_are_ported_in_place_and_check_is_clean_after() {
    let dir = project(&[
        (
            "src/main.rs",
            "use burn::prelude::*;\n\ninclude!(\"gen.rs\");\n\nmod shared {\n    use burn::prelude::*;\n    include!(\"../shared/half.rs\");\n}\n\nfn main() {}\n",
        ),
        ("src/gen.rs", GENERIC),
        (
            "shared/half.rs",
            "pub fn half<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.div_scalar(2.0)\n}\n",
        ),
    ]);
    let diff = burn_migrate(&["--diff"], dir.path());
    let text = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
    assert_eq!(text.matches("+++ b/src/gen.rs\n").count(), 1, "{text}");
    assert_eq!(text.matches("+++ b/shared/half.rs\n").count(), 1, "{text}");

    let out = burn_migrate(&["--apply"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&dir.path().join("src/gen.rs")).contains(GENERIC_PORTED));
    assert!(read(&dir.path().join("shared/half.rs"))
        .contains("pub fn half(x: Tensor<1>) -> Tensor<1> {"));
    let check = burn_migrate(&["--check"], dir.path());
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

/// What cannot be followed is a finding at the call, in the file that holds it: a path only
/// the build knows, a missing file, an expression file that mentions Burn. `include_str!`,
/// `include_bytes!` and an expression file of plain data are left alone. The findings stay
/// after `--apply` (the calls do), so `--check` keeps failing.
#[test]
fn unfollowable_includes_are_findings_at_the_call() {
    let main = "use burn::prelude::*;\n\nmod generated {\n    include!(concat!(env!(\"OUT_DIR\"), \"/model.rs\"));\n}\ninclude!(env!(\"MODEL_RS\"));\ninclude!(\"missing.rs\");\n\nfn main() {\n    let weights: [f32; 2] = include!(\"weights.in\");\n    let labels = include_str!(\"labels.txt\");\n    let bytes = include_bytes!(\"labels.txt\");\n    let zeros = include!(\"zeros.rs\");\n}\n";
    let dir = project(&[
        ("src/main.rs", main),
        ("src/weights.in", "[0.5, 1.5]\n"),
        ("src/labels.txt", "cat\ndog\n"),
        (
            "src/zeros.rs",
            "Tensor::<NdArray, 1>::zeros([2], &Default::default())\n",
        ),
    ]);
    let rule = RuleId::IncludeUnfollowed.as_str();
    let at = |line, column| (rule.to_string(), "src/main.rs".to_string(), line, column);
    let expected = vec![at(4, 5), at(6, 1), at(7, 1), at(13, 17)];
    let found: Vec<_> = (findings(dir.path()).into_iter())
        .filter(|f| f.0 == rule)
        .collect();
    assert_eq!(found, expected);

    let out = burn_migrate(&["--apply"], dir.path());
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{message}");
    assert!(
        message.contains("src/main.rs:4:5: include-unfollowed: `include!(concat!(env!(\"OUT_DIR\"), \"/model.rs\"))`"),
        "--apply lists what it leaves, with file:line:column:\n{message}"
    );
    assert!(
        message.contains(
            "src/main.rs:7:1: include-unfollowed: `include!(\"missing.rs\")` names no file"
        ),
        "{message}"
    );
    let main_after = read(&dir.path().join("src/main.rs"));
    assert!(!main_after.contains("burn-migrate: todo("), "{main_after}");
    let found: Vec<_> = (findings(dir.path()).into_iter())
        .filter(|f| f.0 == rule)
        .collect();
    assert_eq!(
        found, expected,
        "--check after --apply lists the same calls"
    );
}

/// An included path that leaves the project, through a symlink or through `..`, is reported
/// at the call and never written, while the rest of the port is.
#[cfg(unix)]
#[test]
fn an_include_outside_the_project_is_reported_and_never_written() {
    let outside = tempfile::tempdir().unwrap();
    let foreign = outside.path().join("model.rs");
    write(&foreign, GENERIC);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    write(&root.join("Cargo.toml"), MANIFEST);
    write(
        &root.join("src/main.rs"),
        "use burn::prelude::*;\n\ninclude!(\"linked.rs\");\ninclude!(\"../../sibling.rs\");\ninclude!(\"local.rs\");\n\nfn main() {}\n",
    );
    write(&dir.path().join("sibling.rs"), GENERIC);
    write(
        &root.join("src/local.rs"),
        &GENERIC.replace("double", "triple"),
    );
    std::os::unix::fs::symlink(&foreign, root.join("src/linked.rs")).unwrap();
    commit(&root);

    let rule = RuleId::IncludeUnfollowed.as_str();
    let found: Vec<_> = (findings(&root).into_iter())
        .filter(|f| f.0 == rule)
        .map(|f| (f.1, f.2, f.3))
        .collect();
    assert_eq!(
        found,
        vec![
            ("src/main.rs".to_string(), 3, 1),
            ("src/main.rs".to_string(), 4, 1)
        ]
    );
    let out = burn_migrate(&["--apply"], &root);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{message}");
    assert!(message.contains("outside the project"), "{message}");
    assert_eq!(read(&foreign), GENERIC);
    assert_eq!(read(&dir.path().join("sibling.rs")), GENERIC);
    assert!(root.join("src/linked.rs").is_symlink());
    assert!(read(&root.join("src/local.rs")).contains("pub fn triple(x: Tensor<1>)"));
}

/// A file that one target declares as a module and another includes, and a file two targets
/// include, are each one file: read, reported and rewritten once.
#[test]
fn a_file_both_declared_and_included_is_processed_once() {
    let dir = project(&[
        (
            "src/lib.rs",
            "use burn::prelude::*;\n\npub mod model;\ninclude!(\"common.rs\");\n",
        ),
        (
            "src/main.rs",
            "use burn::prelude::*;\n\ninclude!(\"model.rs\");\ninclude!(\"common.rs\");\n\nfn main() {}\n",
        ),
        ("src/model.rs", &format!("use burn::prelude::*;\n\n{GENERIC}")),
        ("src/common.rs", &GENERIC.replace("double", "triple")),
    ]);
    let generic_param = RuleId::BackendGenericParam.as_str();
    let found: Vec<_> = (findings(dir.path()).into_iter())
        .filter(|f| f.0 == generic_param)
        .map(|f| (f.1, f.2, f.3))
        .collect();
    assert_eq!(
        found,
        vec![
            ("src/common.rs".to_string(), 1, 14),
            ("src/model.rs".to_string(), 3, 14)
        ]
    );
    let diff = burn_migrate(&["--diff"], dir.path());
    let text = String::from_utf8_lossy(&diff.stdout);
    assert_eq!(text.matches("+++ b/src/model.rs\n").count(), 1, "{text}");
    assert_eq!(text.matches("+++ b/src/common.rs\n").count(), 1, "{text}");
    let out = burn_migrate(&["--apply"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&dir.path().join("src/model.rs")).contains(GENERIC_PORTED));
    assert!(read(&dir.path().join("src/common.rs")).contains("pub fn triple(x: Tensor<1>)"));
}
