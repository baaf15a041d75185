//! Inputs rustc and cargo accept that editors and generators write: byte-order marks, `\r\n`
//! and mixed line endings. The port keeps every byte it does not need to change and writes
//! what it adds in the file's own line ending.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

const BOM: &str = "\u{feff}";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> String {
    String::from_utf8(std::fs::read(path).unwrap()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Makes `dir` a git work tree with everything in it committed, as `--apply` wants.
fn commit_all(dir: &Path) {
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "before"],
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

/// `--apply` in a committed copy; returns its output.
fn apply(dir: &Path) -> Output {
    commit_all(dir);
    let out = burn_migrate(&["--apply"], dir);
    assert_eq!(out.status.code(), Some(0), "--apply:\n{}", stderr(&out));
    out
}

/// `text` with `\r\n` line endings.
fn crlf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', "\r\n")
}

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

/// A one-crate project with `src/main.rs` and the manifest given, as bytes.
fn project(manifest: &str, main_rs: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Cargo.toml"), manifest);
    write(&dir.path().join("src/main.rs"), main_rs);
    dir
}

/// rustc skips a byte-order mark: a file that starts with one is ported (not "does not parse
/// at 1:1"), its findings are where rustc puts them (columns without the mark, byte offsets
/// of the file), the diff shows the file as it is on disk, and the written file keeps it.
#[test]
fn a_byte_order_mark_is_skipped_and_kept() {
    let main = format!(
        "{BOM}pub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {{ x }}\nuse burn::prelude::*;\n\nfn main() {{}}\n"
    );
    let dir = project(MANIFEST, &main);

    let check = burn_migrate(&["--check"], dir.path());
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert!(
        !stderr(&check).contains("does not parse"),
        "{}",
        stderr(&check)
    );
    assert!(
        stderr(&check).contains("src/main.rs:1:14"),
        "the parameter `B` is at column 14 as rustc counts:\n{}",
        stderr(&check)
    );
    let json = burn_migrate(&["--check", "--format", "json"], dir.path());
    let findings: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let first = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "src/main.rs" && f["rule"] == "backend-generic-param")
        .expect("a finding at the backend parameter");
    assert_eq!(first["start"]["column"], 14);
    assert_eq!(
        first["start"]["offset"],
        main.find("<B").unwrap(),
        "byte offsets are the file's, mark included"
    );

    let diff = stdout(&burn_migrate(&["--diff"], dir.path()));
    assert!(
        diff.contains(&format!("\n-{BOM}pub fn double<B: Backend>"))
            && diff.contains(&format!("\n+{BOM}pub fn double(x: Tensor<1>)")),
        "{diff}"
    );

    apply(dir.path());
    assert_eq!(
        read(&dir.path().join("src/main.rs")),
        format!("{BOM}pub fn double(x: Tensor<1>) -> Tensor<1> {{ x }}\nuse burn::prelude::*;\n\nfn main() {{}}\n")
    );
}

/// Every fixture project, its sources and manifests given `\r\n` endings and a byte-order
/// mark, ports to its `after/` given the same: the lines the port adds or changes end in
/// `\r\n` like the rest, every line it leaves keeps its bytes, every mark stays.
#[test]
fn crlf_and_marked_fixtures_port_to_their_after_in_the_same_layout() {
    fn relayout(root: &Path) {
        for (name, text) in tree_files(root) {
            let layout_matters = name.ends_with(".rs")
                || name.ends_with("Cargo.toml")
                || name.starts_with("rust-toolchain");
            if layout_matters {
                write(&root.join(&name), &format!("{BOM}{}", crlf(&text)));
            }
        }
    }
    let mut failures = Vec::new();
    for project in projects() {
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        let scratch = tempfile::tempdir().unwrap();
        let (work, expected) = (scratch.path().join("work"), scratch.path().join("after"));
        copy_project(&project.join("before"), &work);
        copy_project(&project.join("after"), &expected);
        relayout(&work);
        relayout(&expected);
        apply(&work);
        std::fs::remove_dir_all(work.join(".git")).unwrap();
        let actual = tree_files(&work);
        let expected = tree_files(&expected);
        let names = |files: &[(String, String)]| -> Vec<String> {
            files.iter().map(|(n, _)| n.clone()).collect()
        };
        assert_eq!(names(&actual), names(&expected), "{name}: file sets differ");
        for ((file, want), (_, got)) in expected.iter().zip(&actual) {
            if want != got {
                failures.push(format!("{name}/{file}:\nwant {want:?}\ngot  {got:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A `\r\n` manifest with a mark: only the lines the port changes differ, each still ending in
/// `\r\n`; comments, blank lines and the mark stay byte for byte.
#[test]
fn a_crlf_manifest_with_a_mark_changes_only_its_changed_lines() {
    let manifest = crlf(&format!(
        "{BOM}# A demo.\n[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n# the framework\nburn = {{ version = \"0.21.0\", features = [\"ndarray\"] }} # pinned\nserde = \"1\"\n"
    ));
    let dir = project(
        &manifest,
        "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x\n}\n\nfn main() {}\n",
    );
    apply(dir.path());
    let written = read(&dir.path().join("Cargo.toml"));
    assert!(written.starts_with(BOM), "{written:?}");
    let (old, new): (Vec<&str>, Vec<&str>) = (
        manifest.split_inclusive('\n').collect(),
        written.split_inclusive('\n').collect(),
    );
    assert_eq!(old.len(), new.len(), "{written:?}");
    let changed: Vec<(&&str, &&str)> = old.iter().zip(&new).filter(|(o, n)| o != n).collect();
    assert_eq!(
        changed,
        [(
            &"burn = { version = \"0.21.0\", features = [\"ndarray\"] } # pinned\r\n",
            &"burn = { version = \"0.22.0\", features = [\"flex\"] } # pinned\r\n"
        )],
        "{written:?}"
    );
}

/// A file of mixed endings: each line the port leaves keeps its own ending; a line it changes
/// or adds takes the ending most of the file's lines have. `--diff` shows the same bytes.
#[test]
fn mixed_endings_stay_on_untouched_lines() {
    let main = "use burn::prelude::*;\r\nuse burn::backend::NdArray;\r\n\n// ported below\r\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x\r\n}\r\n\r\nfn main() {\r\n    let device = Default::default();\n    let x = double::<NdArray>(Tensor::zeros([2], &device));\r\n}\n";
    let manifest = MANIFEST.replacen("edition = \"2021\"\n", "edition = \"2021\"\r\n", 1);
    let dir = project(&manifest, main);
    let diff = stdout(&burn_migrate(&["--diff"], dir.path()));
    assert!(
        diff.contains("\n-use burn::backend::NdArray;\r\n")
            && diff.contains("\n+pub fn double(x: Tensor<1>) -> Tensor<1> {\r\n")
            && diff.contains("\n     x\r\n"),
        "{diff}"
    );
    apply(dir.path());
    assert_eq!(
        read(&dir.path().join("src/main.rs")),
        "use burn::tensor::IntDType;\r\nuse burn::prelude::*;\r\n\n// ported below\r\npub fn double(x: Tensor<1>) -> Tensor<1> {\r\n    x\r\n}\r\n\r\nfn main() {\r\n    let mut device = Device::flex();\r\n    let _ = device.configure(IntDType::I64);\r\n    let x = double(Tensor::zeros([2], &device));\r\n}\n"
    );
    // `\n` lines are most of the manifest: its changed line ends in `\n`, its `\r\n` line stays.
    assert_eq!(
        read(&dir.path().join("Cargo.toml")),
        manifest.replace(
            "\"0.21.0\", features = [\"ndarray\"]",
            "\"0.22.0\", features = [\"flex\"]"
        )
    );
}

/// A project whose `src/deep.rs` holds `code` after a function with a backend parameter (so
/// the file has something to port).
fn deep_project(code: &str) -> tempfile::TempDir {
    let dir = project(MANIFEST, "mod deep;\n\nfn main() {}\n");
    write(
        &dir.path().join("src/deep.rs"),
        &format!(
            "use burn::prelude::*;\npub fn f<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {{ x }}\n{code}"
        ),
    );
    dir
}

/// Code nested far deeper than people write, in every shape the parser or a walk down the
/// tree recurses on: `--check` ends with an exit code (0 or 1), never a signal (a stack
/// overflow aborted it). Delimiters nested past the limit are reported like a syntax error,
/// "nesting too deep" at the file, line and column of the delimiter that goes too deep.
#[test]
fn deep_code_is_checked_or_reported_never_a_crash() {
    let repeat = |s: &str, n: usize| s.repeat(n);
    let shapes: Vec<(&str, String, bool)> = vec![
        (
            "2,500 nested parentheses",
            format!(
                "fn g() -> i32 {{ {}1{} }}\n",
                repeat("(", 2500),
                repeat(")", 2500)
            ),
            true,
        ),
        (
            "2,000 nested blocks",
            format!(
                "fn g() -> i32 {{ {}1{} }}\n",
                repeat("{", 2000),
                repeat("}", 2000)
            ),
            true,
        ),
        (
            "2,000 nested closures with blocks",
            format!(
                "fn g() {{ let _ = {}1{}; }}\n",
                repeat("|x: i32| {", 2000),
                repeat("}", 2000)
            ),
            true,
        ),
        (
            "a 20,000-term sum",
            format!(
                "fn g(a: i32) -> i32 {{ {} }}\n",
                vec!["a"; 20_000].join(" + ")
            ),
            false,
        ),
        (
            "10,000 prefix minus signs",
            format!("fn g(x: i32) -> i32 {{ {}x }}\n", repeat("- ", 10_000)),
            false,
        ),
        (
            "10,000 prefix negations",
            format!("fn g(x: bool) -> bool {{ {}x }}\n", repeat("!", 10_000)),
            false,
        ),
        (
            "2,000 nested generic types",
            format!(
                "type T = {}u8{};\n",
                repeat("Vec<", 2000),
                repeat(">", 2000)
            ),
            false,
        ),
        (
            "10,000 nested closures",
            format!("fn g() {{ let _ = {}1; }}\n", repeat("|x: i32| ", 10_000)),
            false,
        ),
        (
            "10,000 chained else-ifs",
            format!(
                "fn g(x: bool) {{ if x {{}}{} }}\n",
                repeat(" else if x {}", 10_000)
            ),
            false,
        ),
        (
            // rust-analyzer drops the trees of its own parse on a thread with a 2 MiB
            // stack: the parse that found the error overflowed it dropping the deep sum.
            "a 20,000-term sum in a file with a syntax error",
            format!(
                "fn g(a: i32) -> i32 {{ {} }}\nfn broken( {{\n",
                vec!["a"; 20_000].join(" + ")
            ),
            false,
        ),
    ];
    for (name, code, too_deep) in shapes {
        let dir = deep_project(&code);
        let out = burn_migrate(&["--check"], dir.path());
        let err = stderr(&out);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: --check ended with {:?}:\n{}",
            out.status,
            &err[err.len().saturating_sub(2000)..]
        );
        assert_eq!(
            err.contains("nesting too deep"),
            too_deep,
            "{name}:\n{}",
            &err[..err.len().min(2000)]
        );
    }
}

/// Past the limit, the delimiter that goes too deep is named at its line and column (the
/// 256th parenthesis, inside the function's braces, is the 257th level), `--check` exits 1,
/// and `--apply` writes nothing (exit 2) unless `--partial`, which ports the other files, as
/// for a syntax error.
#[test]
fn nesting_too_deep_stops_the_port_as_a_syntax_error_does() {
    let code = format!(
        "fn g() -> i32 {{ {}1{} }}\n",
        "(".repeat(2500),
        ")".repeat(2500)
    );
    let dir = deep_project(&code);
    write(
        &dir.path().join("src/main.rs"),
        "mod deep;\nuse burn::prelude::*;\n\nfn twice<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> { x }\n\nfn main() {}\n",
    );
    let check = burn_migrate(&["--check"], dir.path());
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let column = "fn g() -> i32 { ".len() + 256;
    assert!(
        stderr(&check).contains(&format!("src/deep.rs:3:{column}: nesting too deep")),
        "{}",
        stderr(&check)
    );
    commit_all(dir.path());
    let main_before = read(&dir.path().join("src/main.rs"));
    let refused = burn_migrate(&["--apply"], dir.path());
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("nesting too deep"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(read(&dir.path().join("src/main.rs")), main_before);
    // 1: `--partial` left a file unmigrated.
    let partial = burn_migrate(&["--apply", "--partial"], dir.path());
    assert_eq!(partial.status.code(), Some(1), "{}", stderr(&partial));
    assert!(read(&dir.path().join("src/main.rs")).contains("fn twice(x: Tensor<1>) -> Tensor<1>"));
    assert!(read(&dir.path().join("src/deep.rs")).ends_with(&code));
}

/// Whether cargo reads the manifest of `dir` (`cargo metadata`, offline, no dependencies).
fn cargo_accepts(dir: &Path) -> Result<(), String> {
    let out = Command::new("cargo")
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    match out.status.success() {
        true => Ok(()),
        false => Err(stderr(&out)),
    }
}

/// Every TOML 1.1 form cargo reads (cargo 1.95: inline tables over several lines, with
/// comments and a trailing comma; a trailing comma on one line; the `\e` and `\xHH` escapes;
/// times without seconds) is ported, not refused as "not valid TOML": cargo accepts each
/// manifest before and after, and the port changes only what it has to, inside a multi-line
/// inline table too, where an added key takes a line of its own.
#[test]
fn toml_1_1_manifests_cargo_reads_are_ported_in_their_layout() {
    let package = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    let main = "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x\n}\n\nfn main() {}\n";
    let cases: [(&str, String, String); 6] = [
        (
            "a multi-line inline table with comments and trailing commas",
            format!("{package}\n[dependencies]\nburn = {{\n    # the framework\n    version = \"0.21.0\", # pinned\n    features = [\n        \"ndarray\",\n        \"autodiff\",\n    ],\n}}\nserde = {{\n    version = \"1\",\n    features = [\"derive\"],\n}}\n"),
            format!("{package}\n[dependencies]\nburn = {{\n    # the framework\n    version = \"0.22.0\", # pinned\n    features = [\n        \"flex\",\n        \"autodiff\",\n    ],\n}}\nserde = {{\n    version = \"1\",\n    features = [\"derive\"],\n}}\n"),
        ),
        (
            "a key added to multi-line inline tables, with and without a trailing comma",
            format!("{package}\n[dependencies]\nburn = {{\n    version = \"0.21.0\",\n    default-features = false, # lean\n}}\nburn-ndarray = {{\n    version = \"0.21.0\"\n}}\n\n[dev-dependencies]\nburn = {{\n    version = \"0.21.0\",\n    default-features = false # lean\n}}\nburn-ndarray = {{ version = \"0.21.0\" }}\n"),
            format!("{package}\n[dependencies]\nburn = {{\n    version = \"0.22.0\",\n    default-features = false, # lean\n    features = [\"flex\"],\n}}\n\n[dev-dependencies]\nburn = {{\n    version = \"0.22.0\",\n    default-features = false, # lean\n    features = [\"flex\"]\n}}\n"),
        ),
        (
            "a trailing comma in a one-line inline table",
            format!("{package}\n[dependencies]\nburn = {{ version = \"0.21.0\", features = [\"ndarray\"], }}\n"),
            format!("{package}\n[dependencies]\nburn = {{ version = \"0.22.0\", features = [\"flex\"], }}\n"),
        ),
        (
            "the \\e escape",
            format!("{package}description = \"red \\e[31m\"\n\n[dependencies]\nburn = \"0.21.0\"\n"),
            format!("{package}description = \"red \\e[31m\"\n\n[dependencies]\nburn = \"0.22.0\"\n"),
        ),
        (
            "the \\xHH escape",
            format!("{package}description = \"caf\\xE9\"\n\n[dependencies]\nburn = \"0.21.0\"\n"),
            format!("{package}description = \"caf\\xE9\"\n\n[dependencies]\nburn = \"0.22.0\"\n"),
        ),
        (
            "times without seconds",
            format!("{package}\n[package.metadata.release]\nat = 07:32\nwhen = 1979-05-27T07:32Z\n\n[dependencies]\nburn = \"0.21.0\"\n"),
            format!("{package}\n[package.metadata.release]\nat = 07:32\nwhen = 1979-05-27T07:32Z\n\n[dependencies]\nburn = \"0.22.0\"\n"),
        ),
    ];
    let mut failures = Vec::new();
    for (name, manifest, expected) in cases {
        let dir = project(&manifest, main);
        cargo_accepts(dir.path()).unwrap_or_else(|e| panic!("{name}: cargo rejects it: {e}"));
        commit_all(dir.path());
        let out = burn_migrate(&["--apply"], dir.path());
        let written = read(&dir.path().join("Cargo.toml"));
        if out.status.code() != Some(0) || written != expected {
            failures.push(format!(
                "{name}: exit {:?}\n{}\nwant {expected:?}\ngot  {written:?}",
                out.status.code(),
                stderr(&out)
            ));
        } else if let Err(e) = cargo_accepts(dir.path()) {
            failures.push(format!("{name}: cargo rejects the port: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
