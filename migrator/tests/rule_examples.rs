//! Every example of every rule is a test: the migrator turns `before` into exactly `after`,
//! and running it again on `after` changes nothing.

use std::collections::BTreeSet;

use burn_migrate::migrate::transforms::{RULE_IDS, TRANSFORMS};
use burn_migrate::migrate::{migrate_text, Options};
use burn_migrate::rules::{Applicability, Category, RuleSet};

fn rules() -> RuleSet {
    RuleSet::embedded().expect("embedded rules load")
}

#[test]
fn every_rust_example_migrates_to_its_after() {
    let rules = rules();
    let options = Options::default();
    let mut failures = Vec::new();
    for rule in rules.iter().filter(|r| r.category != Category::Cargo) {
        for (i, example) in rule.examples.iter().enumerate() {
            let outcome =
                migrate_text(&example.before, &rules, &options).expect("example migrates");
            assert!(
                outcome.error.is_none(),
                "{} example {i}: {:?}",
                rule.id,
                outcome.error
            );
            if rule.applicability == Applicability::Manual {
                // A person writes `after`; the tool must point at the site.
                if !outcome.changes.iter().any(|c| c.rule == rule.id) {
                    failures.push(format!(
                        "manual rule {} example {i}: not reported on `before`",
                        rule.id
                    ));
                }
                continue;
            }
            if outcome.migrated != example.after {
                failures.push(format!(
                    "rule {} example {i}:\n--- expected\n{}\n--- got\n{}",
                    rule.id, example.after, outcome.migrated
                ));
            }
            if !outcome.changes.iter().any(|c| c.rule == rule.id) {
                failures.push(format!(
                    "rule {} example {i}: the rule itself does not fire",
                    rule.id
                ));
            }
            let again = migrate_text(&outcome.migrated, &rules, &options).expect("second run");
            if again.migrated != outcome.migrated {
                failures.push(format!(
                    "rule {} example {i} is not idempotent:\n{}",
                    rule.id, again.migrated
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_manifest_example_migrates_to_its_after() {
    let rules = rules();
    let maps: Vec<_> = rules.feature_maps().cloned().collect();
    for rule in rules.iter().filter(|r| r.category == Category::Cargo) {
        // A Cargo example stands for a project whose code uses what this rule asks about, and
        // nothing else.
        let features = burn_migrate::migrate::manifest::FeatureRules {
            maps: &maps,
            adds: &rule.feature_adds,
            code_uses: &|path| rule.feature_adds.iter().any(|a| a.when_path == path),
        };
        for example in &rule.examples {
            // Manual Cargo findings need the whole workspace (which devices the code uses);
            // fixtures and CLI tests cover them.
            if rule.applicability == burn_migrate::rules::Applicability::Manual {
                continue;
            }
            let out = burn_migrate::migrate::manifest::migrate(&example.before, &features)
                .expect("valid TOML");
            assert_eq!(out.text, example.after, "rule {}", rule.id);
            assert!(
                out.changes.iter().any(|c| c.rule == rule.id),
                "rule {} does not fire on its example",
                rule.id
            );
        }
    }
}

#[test]
fn every_rule_has_an_example_and_every_emitted_rule_has_a_file() {
    let rules = rules();
    for rule in rules.iter() {
        assert!(!rule.examples.is_empty(), "rule {} has no example", rule.id);
    }
    use burn_migrate::migrate::manifest;
    let manifest_rules = [
        &manifest::RULE_VERSION,
        &manifest::RULE_FEATURES,
        &manifest::RULE_BACKEND_CRATES,
        &manifest::RULE_RUST_VERSION,
        &manifest::RULE_DEVICE_FEATURES,
        &burn_migrate::migrate::old_burn_deps::RULE_DEPENDENCY_ON_OLD_BURN,
    ];
    for id in RULE_IDS.iter().chain(manifest_rules) {
        assert!(
            rules.get(id).is_some(),
            "rule `{id}` is emitted but has no file in rules/"
        );
    }
    let transforms: BTreeSet<&str> = TRANSFORMS.iter().map(|(name, _)| *name).collect();
    for rule in rules.iter() {
        if let Some(t) = &rule.transform {
            assert!(
                transforms.contains(t.as_str()),
                "rule {} names unknown transform {t}",
                rule.id
            );
        }
    }
}

#[test]
fn the_guide_is_up_to_date_with_the_rules() {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
    let stale =
        burn_migrate::report::book::plan(&book, &rules()).expect("book/src/SUMMARY.md exists");
    let names: Vec<_> = stale.iter().map(|(p, _)| p.display().to_string()).collect();
    assert!(
        names.is_empty(),
        "stale guide pages (run `burn-migrate book`): {names:?}"
    );
}

#[test]
fn every_row_of_the_api_change_catalogue_is_ported_by_a_rule_or_needs_no_change() {
    let rules = rules();
    let rows = burn_migrate::report::book::api_change_rows();
    let known: BTreeSet<&str> = rows.iter().map(|(row, _)| *row).collect();
    assert_eq!(known.len(), rows.len(), "a row is listed twice");
    for (row, note) in &rows {
        let covering: Vec<&str> = rules
            .iter()
            .filter(|r| r.covers.iter().any(|c| c == row))
            .map(|r| r.id.as_str())
            .collect();
        match note {
            Some(note) => assert!(
                covering.is_empty() && note.starts_with("no change"),
                "row {row} is noted ({note}) but also covered by {covering:?}"
            ),
            None => assert!(!covering.is_empty(), "no rule covers row {row}"),
        }
    }
    for rule in rules.iter() {
        for row in &rule.covers {
            assert!(
                known.contains(row.as_str()),
                "rule {} covers unknown row {row}",
                rule.id
            );
        }
    }
}
