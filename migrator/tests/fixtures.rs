//! Golden tests over the fixture projects: `--apply` turns each `before/` into exactly its
//! `after/`, a second run changes nothing, and `--check` fails on `before/` and passes on
//! `after/`.

mod common;

use common::*;

#[test]
fn apply_turns_every_before_into_its_after() {
    let mut failures = Vec::new();
    for project in projects() {
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        let scratch = tempfile::tempdir().unwrap();
        let work = scratch.path().join(&name);
        copy_project(&project.join("before"), &work);

        let manual = manual_findings(&work);
        let expected_manual =
            std::fs::read_to_string(project.join("manual-findings.txt")).unwrap_or_default();
        assert_eq!(
            manual, expected_manual,
            "{name}: the findings left for a person (manual-findings.txt)"
        );
        let output = burn_migrate(&["--apply", "--allow-no-vcs"], &work);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // --apply that wrote the port exits 0; what it leaves for a person is listed.
        assert_eq!(output.status.code(), Some(0), "{name}: --apply:\n{stderr}");
        // Listed at their places in the files as written: what `--check` lists afterwards.
        let mut listed: Vec<String> = stderr
            .lines()
            .skip_while(|l| !l.starts_with("left for a person"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| {
                let (place, rest) = l.trim().split_once(": ")?;
                let (rule, _) = rest.split_once(": ")?;
                let (file_line, _column) = place.rsplit_once(':')?;
                Some(format!("{rule} {file_line}\n"))
            })
            .collect();
        listed.sort();
        assert_eq!(
            listed.concat(),
            manual_findings(&work),
            "{name}: --apply lists what --check lists after it, place for place:\n{stderr}"
        );
        let expected = tree_files(&project.join("after"));
        let actual = tree_files(&work);
        let expected_names: Vec<_> = expected.iter().map(|(n, _)| n.clone()).collect();
        let actual_names: Vec<_> = actual.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(actual_names, expected_names, "{name}: file sets differ");
        for ((file, want), (_, got)) in expected.iter().zip(&actual) {
            if want != got {
                let diff = similar::TextDiff::from_lines(want, got)
                    .unified_diff()
                    .header("expected", "actual")
                    .to_string();
                failures.push(format!("{name}/{file}:\n{diff}"));
            }
        }

        let again = burn_migrate(&["--apply", "--allow-no-vcs"], &work);
        assert_eq!(again.status.code(), Some(0), "{name}: second --apply");
        assert!(
            again.stdout.is_empty(),
            "{name}: second --apply changed something:\n{}",
            String::from_utf8_lossy(&again.stdout)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_fails_on_before_and_passes_on_after() {
    for project in projects() {
        let before = burn_migrate(&["--check"], &project.join("before"));
        assert_eq!(
            before.status.code(),
            Some(1),
            "{}: --check on before/",
            project.display()
        );
        let after = burn_migrate(&["--check"], &project.join("after"));
        let remaining = remaining_findings(&project);
        assert_eq!(
            after.status.code(),
            Some(if remaining.is_empty() { 0 } else { 1 }),
            "{}: --check on after/:\n{}",
            project.display(),
            String::from_utf8_lossy(&after.stderr)
        );
        assert_eq!(
            manual_findings(&project.join("after")),
            remaining,
            "{}: what --check still reports on after/ (remaining-findings.txt)",
            project.display()
        );
        // What needs a person before the port still does after it: the same rules in the same
        // files (lines move), nothing lost with the code the port rewrote.
        let before_manual =
            std::fs::read_to_string(project.join("manual-findings.txt")).unwrap_or_default();
        assert_eq!(
            rules_and_files(&remaining),
            rules_and_files(&before_manual),
            "{}: --check after the port lists other manual findings than --apply printed",
            project.display()
        );
    }
}

/// `rule file` of each line of a findings list (`rule file:line`), sorted.
fn rules_and_files(findings: &str) -> Vec<String> {
    let mut out: Vec<String> = findings
        .lines()
        .map(|l| l.rsplit_once(':').map_or(l, |(head, _)| head).to_string())
        .collect();
    out.sort();
    out
}

/// What the port cannot fix and `--check` keeps reporting after it (a dependency built on
/// Burn 0.21, say): `remaining-findings.txt`, in `manual-findings.txt`'s format.
fn remaining_findings(project: &std::path::Path) -> String {
    std::fs::read_to_string(project.join("remaining-findings.txt")).unwrap_or_default()
}

#[test]
fn no_backend_generics_remain_in_any_after() {
    for project in projects() {
        for (file, text) in tree_files(&project.join("after")) {
            for needle in [
                "Tensor<B,",
                "<B: Backend>",
                "<B: AutodiffBackend>",
                "B::Device",
            ] {
                assert!(
                    !text.contains(needle),
                    "{}/after/{file} still contains `{needle}`",
                    project.display()
                );
            }
        }
    }
}

/// The findings `--check` leaves for a person, one `rule file:line` per line.
fn manual_findings(project: &std::path::Path) -> String {
    let output = burn_migrate(&["--check", "--format", "json"], project);
    let findings: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("JSON findings");
    let mut lines: Vec<String> = findings
        .as_array()
        .expect("a list")
        .iter()
        .filter(|f| f["fixable"] == false)
        .map(|f| {
            format!(
                "{} {}:{}\n",
                f["rule"].as_str().unwrap(),
                f["file"].as_str().unwrap(),
                f["line"]
            )
        })
        .collect();
    lines.sort();
    lines.concat()
}

#[test]
fn device_tables_name_every_device_choice() {
    let rules = burn_migrate::rules::RuleSet::embedded().unwrap();
    for project in projects() {
        let report = burn_migrate::migrate::run(&project.join("before"), &rules).unwrap();
        let table = burn_migrate::report::emit::device_table(&report).unwrap_or_default();
        let expected =
            std::fs::read_to_string(project.join("device-table.txt")).unwrap_or_default();
        assert_eq!(table, expected, "{}: device-table.txt", project.display());
    }
}

#[test]
fn apply_keeps_the_lockfile_and_raises_what_burn_0_22_shares() {
    let crate_lock_0_22 = || burn_migrate::rules::framework::BURN_0_22_LOCK;
    let project = projects()
        .into_iter()
        .find(|p| p.ends_with("mlp-regression"))
        .expect("fixture");
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("mlp");
    copy_project(&project.join("before"), &work);
    // The project also uses `combine`, locked at 4.6.7, older than Burn 0.22 builds with
    // (`pliron` 0.19, under CubeCL, needs a newer one) though within its requirement, and
    // `hashbrown` 0.12, which `pliron`'s `hashbrown = "0"` takes when it is added, unless the
    // port points it at the release Burn 0.22 builds with (0.12 does not build pliron); the
    // 0.17 series is locked behind the pinned release too, as in an older lockfile.
    let manifest = std::fs::read_to_string(work.join("Cargo.toml")).unwrap();
    std::fs::write(
        work.join("Cargo.toml"),
        manifest.replacen(
            "[dependencies]\n",
            "[dependencies]\ncombine = \"4\"\nhashbrown = \"0.12\"\n",
            1,
        ),
    )
    .unwrap();
    std::fs::copy(
        repo_root().join("framework/burn-0.21/Cargo.lock"),
        work.join("Cargo.lock"),
    )
    .unwrap();
    // Offline first (fast, and CI's registry cache usually has these), then online: a fresh
    // machine has not downloaded Burn 0.21's graph yet.
    for args in [
        &["tree", "--quiet", "-p", "combine"][..],
        &["update", "--quiet", "-p", "combine", "--precise", "4.6.7"],
        &[
            "update",
            "--quiet",
            "-p",
            "hashbrown@0.17.2",
            "--precise",
            "0.17.1",
        ],
    ] {
        let cargo = |offline: bool| {
            let mut command = std::process::Command::new(env!("CARGO"));
            command.args(args).current_dir(&work);
            command.stdout(std::process::Stdio::null());
            if offline {
                // Its "not downloaded" error is expected on a fresh machine.
                command.arg("--offline").stderr(std::process::Stdio::null());
            }
            command.status().unwrap().success()
        };
        assert!(cargo(true) || cargo(false), "cargo {args:?}");
    }
    let before = std::fs::read_to_string(work.join("Cargo.lock")).unwrap();
    assert!(before.contains("name = \"burn\"\nversion = \"0.21.0\""));

    let out = burn_migrate(&["--apply", "--allow-no-vcs"], &work);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Cargo.lock updated in place"), "{stderr}");
    let after = std::fs::read_to_string(work.join("Cargo.lock")).unwrap();
    assert!(
        after.contains("name = \"burn\"\nversion = \"0.22."),
        "burn moved to 0.22"
    );
    let version_of = |lock: &str, name: &str| {
        lock.split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{name}\"\n")))
            .and_then(|p| p.lines().find(|l| l.starts_with("version")))
            .map(str::to_string)
    };
    // A crate locked at least as new as Burn 0.22's pinned lockfile keeps its version ...
    assert_eq!(
        version_of(&before, "serde"),
        version_of(&after, "serde"),
        "serde stays as locked"
    );
    // ... and one locked older moves to the pinned version, and the summary says so.
    let version = |line: Option<String>| {
        let line = line.expect("combine is locked");
        semver::Version::parse(line.trim_start_matches("version = ").trim_matches('"')).unwrap()
    };
    let pinned = version(version_of(crate_lock_0_22(), "combine"));
    let raised = version(version_of(&after, "combine"));
    assert_eq!(raised, pinned, "combine");
    assert!(
        stderr.contains(&format!("combine 4.6.7 -> {raised}")),
        "{stderr}"
    );
    // A package Burn 0.22 brings in depends on what the pinned lockfile gives it, not on an
    // older release of the same crate the project had locked.
    let pliron = after
        .split("[[package]]")
        .find(|p| p.contains("name = \"pliron\"\n"))
        .expect("pliron is locked");
    let pinned_hashbrown = crate_lock_0_22()
        .split("[[package]]")
        .find(|p| p.contains("name = \"pliron\"\n"))
        .and_then(|p| p.lines().find(|l| l.contains("\"hashbrown")))
        .expect("the pinned pliron depends on hashbrown");
    assert!(
        pliron.lines().any(|l| l == pinned_hashbrown),
        "pliron keeps {pinned_hashbrown}:\n{pliron}"
    );
    assert!(stderr.contains("hashbrown 0.17.1 -> 0.17.2"), "{stderr}");
    assert!(
        !stderr.contains("[[package]]") && stderr.lines().count() < 40,
        "the lockfile is summarised, not printed:\n{stderr}"
    );
}

/// `--check` stops after the first pass when no use of a removed backend parameter may dangle
/// (`Passes::AsFindingsNeed`): it must find exactly what the full port finds, on every fixture
/// and every rule example.
#[test]
fn check_finds_what_the_full_port_finds() {
    use burn_migrate::migrate::source::SourceFile;
    use burn_migrate::migrate::{rewrite_sources, run_as, CodeTarget, Output, Passes};
    use burn_migrate::rules::RuleSet;

    fn findings(files: &[burn_migrate::migrate::FileOutcome]) -> Vec<String> {
        files
            .iter()
            .flat_map(|f| {
                f.changes.iter().map(move |c| {
                    format!(
                        "{} {:?} {} {} {:?}",
                        f.display,
                        c.range,
                        c.rule,
                        c.message,
                        c.replacement()
                    )
                })
            })
            .collect()
    }
    let rules = RuleSet::embedded().unwrap();
    for project in projects() {
        let name = project.file_name().unwrap().to_string_lossy().to_string();
        let scratch = tempfile::tempdir().unwrap();
        let work = scratch.path().join(&name);
        copy_project(&project.join("before"), &work);
        let check = run_as(&work, &rules, Output::Findings).unwrap();
        let port = run_as(&work, &rules, Output::Port).unwrap();
        assert_eq!(findings(&check.files), findings(&port.files), "{name}");
        let manifest_findings = |report: &burn_migrate::migrate::Report| -> Vec<String> {
            (report.manifests.iter())
                .flat_map(|m| {
                    m.changes
                        .iter()
                        .map(move |c| format!("{} {} {}", m.display, c.rule, c.message))
                })
                .collect()
        };
        assert_eq!(
            manifest_findings(&check),
            manifest_findings(&port),
            "{name}: manifests"
        );
    }
    for rule in rules.iter() {
        for (i, example) in rule.examples.iter().enumerate() {
            let file = SourceFile::from_text(
                "example.rs".into(),
                "example.rs".to_string(),
                example.before.clone(),
                0,
                ra_ap_syntax::Edition::Edition2021,
            );
            let files = std::slice::from_ref(&file);
            let check = rewrite_sources(files, &rules, CodeTarget::Burn021, Passes::AsFindingsNeed)
                .unwrap();
            let port =
                rewrite_sources(files, &rules, CodeTarget::Burn021, Passes::ToFixedPoint).unwrap();
            assert_eq!(
                findings(&check),
                findings(&port),
                "{}::{}",
                rule.id,
                example.name(i)
            );
        }
    }
}
