//! `--apply` never loses work: the bad-input matrix. Each test names the input, the exit code,
//! the message, and which files change (all of the port, or none of it).

mod common;

use std::path::Path;
use std::process::Command;

use burn_migrate::rules::RuleId;
use common::*;

const MANIFEST: &str = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\"] }\n";

const GENERIC: &str = "use burn::prelude::*;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.mul_scalar(2.0)\n}\n";

const GENERIC_PORTED: &str = "pub fn double(x: Tensor<1>) -> Tensor<1> {";

/// A one-crate Burn 0.21 project: `src/main.rs` declares `modules`, each written by the test.
fn project(modules: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Cargo.toml"), MANIFEST);
    let mut main = String::new();
    for module in modules {
        main.push_str(&format!("mod {module};\n"));
    }
    main.push_str("\nfn main() {}\n");
    write(&dir.path().join("src/main.rs"), &main);
    dir
}

fn manifest_untouched(dir: &Path) -> bool {
    read(&dir.join("Cargo.toml")) == MANIFEST
}

/// Item 2: a kill at any rename, then `--apply` again, gives the bytes of a clean run; the
/// interrupted tree is never read by the rules (`--check` refuses it until it is finished).
#[test]
fn apply_killed_at_any_rename_resumes_to_the_clean_result() {
    let fixture = repo_root().join("testdata/projects/cnn-classifier/before");
    let clean = tempfile::tempdir().unwrap();
    copy_project(&fixture, clean.path());
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], clean.path());
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&out)
    );
    let expected = tree_files(clean.path());
    let written = expected
        .iter()
        .zip(tree_files(&fixture))
        .filter(|(after, before)| *after != before)
        .count();
    assert!(written >= 3, "the fixture rewrites several files");

    // Already in 0.22 form: apply again changes nothing.
    burn_migrate(
        &["--apply", "--allow-dirty", "--allow-no-vcs"],
        clean.path(),
    );
    assert_eq!(tree_files(clean.path()), expected, "apply is idempotent");

    for kill_at in 1..=written {
        let dir = tempfile::tempdir().unwrap();
        copy_project(&fixture, dir.path());
        let out = Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
            .args(["--apply", "--allow-no-vcs"])
            .arg(dir.path())
            .env("BURN_MIGRATE_TEST_KILL_AT_RENAME", kill_at.to_string())
            .output()
            .unwrap();
        assert!(!out.status.success(), "killed at rename {kill_at}");
        assert!(dir.path().join(".burn-migrate-journal").is_file());

        let out = burn_migrate(&["--check"], dir.path());
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("was interrupted"), "{}", stderr(&out));

        let out = burn_migrate(&["--apply", "--allow-dirty", "--allow-no-vcs"], dir.path());
        assert!(
            stderr(&out).contains("finished an interrupted --apply"),
            "{}",
            stderr(&out)
        );
        assert!(!dir.path().join(".burn-migrate-journal").exists());
        assert_eq!(
            tree_files(dir.path()),
            expected,
            "killed at rename {kill_at}, resumed"
        );
    }
}

/// A journal that was never committed (the kill came while temporary files were written) is
/// rolled back: the originals stay, and the run migrates them.
#[test]
fn uncommitted_journal_is_rolled_back() {
    let dir = project(&["model"]);
    write(&dir.path().join("src/model.rs"), GENERIC);
    let temp = dir
        .path()
        .join("src/.model.rs.0123456789abcdef.burn-migrate.tmp");
    write(&temp, "half a fi");
    let journal = serde_json::json!({
        "version": 2,
        "committed": false,
        "journal_temp": "..burn-migrate-journal.0123456789abcdef.burn-migrate.tmp",
        "renames": [{
            "temp": "src/.model.rs.0123456789abcdef.burn-migrate.tmp",
            "target": "src/model.rs",
        }],
    });
    write(
        &dir.path().join(".burn-migrate-journal"),
        &journal.to_string(),
    );
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("rolled back"), "{}", stderr(&out));
    assert!(!temp.exists());
    assert!(read(&dir.path().join("src/model.rs")).contains(GENERIC_PORTED));
}

/// Items 3 and 4: a file that does not parse is reported at its first syntax error and left
/// as it is; nothing else is written either (the manifest keeps 0.21), unless `--partial`.
#[test]
fn unparsable_file_blocks_the_port_unless_partial() {
    let dir = project(&["model", "broken"]);
    write(&dir.path().join("src/model.rs"), GENERIC);
    let broken = "use burn::prelude::*;\n\nfn f<B: Backend>() {\n    let x = foo(;\n}\n";
    write(&dir.path().join("src/broken.rs"), broken);

    let out = burn_migrate(&["--check"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("src/broken.rs:4:17"),
        "names the first syntax error:\n{}",
        stderr(&out)
    );

    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(message.contains("wrote nothing"), "{message}");
    assert!(message.contains("src/broken.rs:4:17"), "{message}");
    assert!(message.contains("--partial"), "{message}");
    assert_eq!(read(&dir.path().join("src/model.rs")), GENERIC);
    assert_eq!(read(&dir.path().join("src/broken.rs")), broken);
    assert!(manifest_untouched(dir.path()));

    let out = burn_migrate(&["--apply", "--partial", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(read(&dir.path().join("src/model.rs")).contains(GENERIC_PORTED));
    assert_eq!(read(&dir.path().join("src/broken.rs")), broken);
    assert!(!manifest_untouched(dir.path()));
}

/// Item 3: a rewrite that would not parse (here from a user rule file that renames a path to
/// something that is not one) leaves its file and every other file, the manifest included,
/// as they were.
#[test]
fn rewrite_that_would_not_parse_writes_nothing() {
    let dir = project(&["model", "odd"]);
    write(&dir.path().join("src/model.rs"), GENERIC);
    let odd = "use demo_dep::Thing;\n\npub fn make() -> Thing {\n    Thing\n}\n";
    write(&dir.path().join("src/odd.rs"), odd);
    let rules = tempfile::tempdir().unwrap();
    write(
        &rules.path().join("broken-rename.toml"),
        "id = \"broken-rename\"\ntitle = \"A rename whose target is not a path\"\ncategory = \"tensors\"\napplicability = \"safe\"\nhint = \"h\"\nwhy = \"w\"\n\n[[rewrite]]\nkind = \"rename-path\"\nfrom = \"demo_dep::Thing\"\nto = \"demo_dep::{{\"\n",
    );
    let rules_arg = rules.path().to_string_lossy().to_string();
    let out = burn_migrate(
        &["--apply", "--allow-no-vcs", "--rules", &rules_arg],
        dir.path(),
    );
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("src/odd.rs"), "{message}");
    assert!(message.contains("would not parse"), "{message}");
    assert_eq!(read(&dir.path().join("src/odd.rs")), odd);
    assert_eq!(read(&dir.path().join("src/model.rs")), GENERIC);
    assert!(manifest_untouched(dir.path()));
}

/// Item 5: a module that is a symlink to a file inside the project is migrated through the
/// link (the link stays a link); one that points outside the project is never written.
#[cfg(unix)]
#[test]
fn symlinked_modules_are_written_through_or_refused() {
    let dir = project(&["model"]);
    write(&dir.path().join("shared/model_impl.rs"), GENERIC);
    std::os::unix::fs::symlink("../shared/model_impl.rs", dir.path().join("src/model.rs")).unwrap();
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let link = dir.path().join("src/model.rs");
    assert!(link.is_symlink(), "the link stays a link");
    assert!(read(&dir.path().join("shared/model_impl.rs")).contains(GENERIC_PORTED));

    let outside = tempfile::tempdir().unwrap();
    let foreign = outside.path().join("model.rs");
    write(&foreign, GENERIC);
    let dir = project(&["model", "local"]);
    write(&dir.path().join("src/local.rs"), GENERIC);
    std::os::unix::fs::symlink(&foreign, dir.path().join("src/model.rs")).unwrap();
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("outside the project"), "{message}");
    assert_eq!(read(&foreign), GENERIC);
    assert_eq!(read(&dir.path().join("src/local.rs")), GENERIC);

    let out = burn_migrate(&["--apply", "--partial", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(read(&foreign), GENERIC);
    assert!(dir.path().join("src/model.rs").is_symlink());
    assert!(read(&dir.path().join("src/local.rs")).contains(GENERIC_PORTED));
}

/// Item 6: a module file git does not track would be rewritten with no way back: refused
/// without `--allow-dirty`. Outside version control, refused without `--allow-no-vcs`.
#[test]
fn untracked_module_is_refused_without_allow_dirty() {
    let dir = project(&["model"]);
    write(&dir.path().join("src/model.rs"), GENERIC);
    let out = burn_migrate(&["--diff"], dir.path());
    assert_eq!(out.status.code(), Some(1));

    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "Cargo.toml", "src/main.rs"]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("src/model.rs") && message.contains("--allow-dirty"),
        "{message}"
    );
    assert_eq!(read(&dir.path().join("src/model.rs")), GENERIC);
    assert!(manifest_untouched(dir.path()));

    let out = burn_migrate(&["--apply", "--allow-dirty", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&dir.path().join("src/model.rs")).contains(GENERIC_PORTED));

    // Outside version control, as `cargo fix`: only with `--allow-no-vcs`.
    let plain = project(&["model"]);
    write(&plain.path().join("src/model.rs"), GENERIC);
    let out = burn_migrate(&["--apply"], plain.path());
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("not under version control") && message.contains("--allow-no-vcs"),
        "{message}"
    );
    assert_eq!(read(&plain.path().join("src/model.rs")), GENERIC);
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], plain.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(read(&plain.path().join("src/model.rs")).contains(GENERIC_PORTED));
}

/// Item 8: a symlink loop through `mod` (a directory linking to itself) is one file, read
/// and reported once.
#[cfg(unix)]
#[test]
fn module_symlink_loop_counts_each_file_once() {
    let dir = project(&["a"]);
    write(
        &dir.path().join("src/a/mod.rs"),
        &format!("mod inner;\n\n{GENERIC}"),
    );
    std::os::unix::fs::symlink(".", dir.path().join("src/a/inner")).unwrap();
    let out = burn_migrate(&["--check", "--format", "json"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        json.matches(RuleId::BackendGenericParam.as_str()).count(),
        1,
        "one finding, not one per loop turn:\n{json}"
    );
}

/// Item 7: a comment heading imports stays when one of them goes, a comment on a removed
/// line goes with it, one on a kept line stays there, and the comment of a kept bound stays
/// when the bound above it is removed (with its own comment).
#[test]
fn comments_that_document_kept_code_stay() {
    let dir = project(&["model"]);
    let before = "// Tensor types used below.\nuse burn::tensor::backend::Backend;\nuse burn::tensor::Tensor; // the tensor\nuse burn::backend::NdArray; // cpu backend, for tests\n\n/// The backend.\ntype B = NdArray; // remove me\n\npub fn run<B, M>(m: M, x: Tensor<B, 1>) -> Tensor<B, 1>\nwhere\n    // B runs the model\n    B: Backend,\n    // M is the model, kept\n    M: Clone,\n{\n    x\n}\n";
    let after = "// Tensor types used below.\nuse burn::tensor::Tensor; // the tensor\n\npub fn run<M>(m: M, x: Tensor<1>) -> Tensor<1>\nwhere\n    // M is the model, kept\n    M: Clone,\n{\n    x\n}\n";
    write(&dir.path().join("src/model.rs"), before);
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&dir.path().join("src/model.rs")), after);
}

/// Item 2, the rules' side: a caller already in 0.22 form (`Harness::<_>`) next to a callee
/// that still has its backend parameter loses nothing more; the callee is migrated.
#[test]
fn caller_already_in_new_form_is_left_alone() {
    let dir = project(&["harness", "caller"]);
    let harness = "use burn::prelude::*;\nuse core::marker::PhantomData;\n\npub struct Harness<B: Backend, M> {\n    pub m: M,\n    _b: PhantomData<B>,\n}\n\nimpl<B: Backend, M> Harness<B, M> {\n    pub fn new(m: M) -> Self {\n        Self { m, _b: PhantomData }\n    }\n}\n";
    write(&dir.path().join("src/harness.rs"), harness);
    let caller = "use crate::harness::Harness;\n\npub fn make() -> Harness<usize> {\n    Harness::<_>::new(4usize)\n}\n";
    write(&dir.path().join("src/caller.rs"), caller);
    let out = burn_migrate(&["--apply", "--allow-no-vcs"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(&dir.path().join("src/caller.rs")), caller);
    assert!(read(&dir.path().join("src/harness.rs")).contains("impl<M> Harness<M> {"));
}

/// Item 12: a large file costs in proportion to its size. Four times the modules give four
/// times the findings and the diff, in well under sixteen times the time, which is what a
/// cost quadratic in the file's size gives (the 10 MB file once took 129 s).
#[test]
fn a_large_file_costs_in_proportion_to_its_size() {
    let module = |i: usize| {
        format!(
            "pub mod m{i} {{\n    use burn::prelude::*;\n\n    pub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {{\n        x.mul_scalar(2.0)\n    }}\n}}\n\n"
        )
    };
    let run = |copies: usize| {
        let dir = project(&["big"]);
        write(
            &dir.path().join("src/big.rs"),
            &(0..copies).map(module).collect::<String>(),
        );
        let start = std::time::Instant::now();
        let check = burn_migrate(&["--check", "--format", "json"], dir.path());
        let diff = burn_migrate(&["--diff", "--color", "never"], dir.path());
        let took = start.elapsed();
        assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
        assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
        let findings: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
        let findings = findings.as_array().unwrap().len();
        let diff = String::from_utf8_lossy(&diff.stdout).to_string();
        let diff_lines = diff.lines().count();
        (took, findings, diff_lines)
    };
    let (small_took, small_findings, small_diff) = run(400);
    let (_, middle_findings, middle_diff) = run(800);
    let (large_took, large_findings, large_diff) = run(1600);
    // Each module has the same sites and the same hunk: linear, whatever the manifest adds.
    assert!(small_findings >= 400, "{small_findings} findings");
    assert_eq!(
        large_findings - middle_findings,
        2 * (middle_findings - small_findings)
    );
    assert!(small_diff >= 400, "{small_diff} diff lines");
    assert_eq!(large_diff - middle_diff, 2 * (middle_diff - small_diff));
    assert!(
        large_took < small_took * 10,
        "4x the file took {:.1}x the time ({large_took:?} against {small_took:?})",
        large_took.as_secs_f64() / small_took.as_secs_f64()
    );
}

/// Issue 34 item 3: cost is linear in bytes whatever the layout. A file written as one line
/// (minified or generated: every function on it) costs in proportion to its size in every
/// output, each timed on its own: the human diagnostics, which once printed the whole line
/// for each of its findings and took minutes on 320 KB; `--format json`; and `--diff`. JSON
/// counted each finding's column from the line's start and ran for minutes on 5 MB, which
/// only shows at sizes too large for this test: `util::lines`'s own test times that lookup.
#[test]
fn a_file_on_one_line_costs_in_proportion_to_its_size() {
    let modes: [&[&str]; 3] = [
        &["--check", "--color", "never"],
        &["--check", "--format", "json"],
        &["--diff", "--color", "never"],
    ];
    let run = |functions: usize| {
        let dir = project(&["flat"]);
        let text: String = (0..functions)
            .map(|i| format!("pub fn f{i}<B: burn::prelude::Backend>(x: burn::tensor::Tensor<B, 1>) -> burn::tensor::Tensor<B, 1> {{ x }} "))
            .collect();
        write(&dir.path().join("src/flat.rs"), &text);
        modes.map(|args| {
            let start = std::time::Instant::now();
            let out = burn_migrate(args, dir.path());
            let took = start.elapsed();
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
            (took, out)
        })
    };
    let small = run(500);
    let large = run(2000);
    let findings = |out: &std::process::Output| {
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        findings.as_array().unwrap().len()
    };
    let (small_findings, large_findings) = (findings(&small[1].1), findings(&large[1].1));
    assert!(
        large_findings >= 4 * small_findings - 8,
        "{small_findings} -> {large_findings}"
    );
    // The output grows with the findings, not with findings times the line.
    let (small_bytes, large_bytes) = (small[0].1.stderr.len(), large[0].1.stderr.len());
    assert!(
        large_bytes < small_bytes * 5,
        "4x the line gave {:.1}x the output",
        large_bytes as f64 / small_bytes as f64
    );
    for ((args, (small_took, _)), (large_took, _)) in modes.iter().zip(&small).zip(&large) {
        assert!(
            *large_took < *small_took * 10,
            "{args:?}: 4x the line took {:.1}x the time ({large_took:?} against {small_took:?})",
            large_took.as_secs_f64() / small_took.as_secs_f64()
        );
    }
}
