//! The Burn 0.21 -> 0.22 API catalogue derived from rustdoc JSON (`framework/api/`, made by
//! `cargo run -p xtask -- api-diff`): every removed or changed public item must be mapped to
//! existing rules or to `none: <reason>`. Reads the checked-in files only.

use std::collections::BTreeSet;
use std::path::PathBuf;

use burn_migrate::rules::framework::public_api;
use burn_migrate::rules::RuleSet;

fn api_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../framework/api")
}

struct Row {
    path: String,
    change: String,
    mapping: String,
}

fn rows() -> Vec<Row> {
    let file = api_dir().join("diff.tsv");
    let text = std::fs::read_to_string(&file).expect("framework/api/diff.tsv is checked in");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                cols.len(),
                6,
                "diff.tsv row with {} columns: {l}",
                cols.len()
            );
            Row {
                path: cols[0].to_string(),
                change: cols[1].to_string(),
                mapping: cols[4].to_string(),
            }
        })
        .collect()
}

/// The rule ids a mapping names (`a,b`); none for `none: ..` and `unmapped`.
fn rule_ids(mapping: &str) -> Vec<&str> {
    if mapping == "unmapped" || mapping.starts_with("none") {
        return vec![];
    }
    mapping.split(',').map(str::trim).collect()
}

#[test]
fn every_mapped_rule_exists() {
    let rules = RuleSet::embedded().expect("embedded rules load");
    let mut missing = BTreeSet::new();
    for r in rows() {
        for id in rule_ids(&r.mapping) {
            if rules.get(id).is_none() {
                missing.insert(format!("{} -> {id}", r.path));
            }
        }
    }
    let decisions = std::fs::read_to_string(api_dir().join("decisions.tsv")).unwrap_or_default();
    for l in decisions
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (path, mapping) = l.split_once('\t').expect("decisions.tsv: PATH<TAB>MAPPING");
        for id in rule_ids(mapping.trim()) {
            if rules.get(id).is_none() {
                missing.insert(format!("decisions.tsv {path} -> {id}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "mapped to rules that do not exist: {missing:#?}"
    );
}

#[test]
fn none_mappings_give_a_reason() {
    for r in rows() {
        if let Some(reason) = r.mapping.strip_prefix("none") {
            assert!(
                reason
                    .strip_prefix(':')
                    .is_some_and(|x| !x.trim().is_empty()),
                "{}: `none` needs `none: <reason>`",
                r.path
            );
        }
    }
}

#[test]
fn diff_agrees_with_the_lists() {
    let old = public_api("0.21");
    let new = public_api("0.22");
    assert!(
        old.contains("burn::tensor::Tensor"),
        "0.21 list lacks burn::tensor::Tensor"
    );
    assert!(
        new.contains("burn::tensor::Tensor"),
        "0.22 list lacks burn::tensor::Tensor"
    );
    for r in rows() {
        assert!(
            old.contains(&r.path),
            "{}: a diff row not in the 0.21 list",
            r.path
        );
        match r.change.as_str() {
            "removed" => assert!(
                !new.contains(&r.path),
                "{}: removed but listed in 0.22",
                r.path
            ),
            // a changed member may be listed under another path of its type in 0.22
            "changed" => {}
            other => panic!("{}: unknown change `{other}`", r.path),
        }
    }
}

#[test]
fn lists_are_sorted_and_unique() {
    for v in ["0.21", "0.22"] {
        let text = burn_migrate::rules::framework::public_api_lines(v).expect("pinned version");
        let lines: Vec<&str> = text.lines().collect();
        let mut sorted = lines.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            lines, sorted,
            "framework/api list of {v} is not sorted and unique"
        );
    }
}

/// Every removed or changed item is mapped: to the rules that port it, or to `none: <reason>`.
/// A new rule, a changed rule or regenerated lists that leave an item `unmapped` fail here.
#[test]
fn no_item_is_unmapped() {
    let unmapped: Vec<String> = rows()
        .into_iter()
        .filter(|r| r.mapping == "unmapped")
        .map(|r| format!("  {} ({})", r.path, r.change))
        .collect();
    assert!(
        unmapped.is_empty(),
        "{} removed or changed Burn 0.21 item(s) map to no rule in framework/api/diff.tsv:\n{}\n\
         For each: write or extend a rule in rules/ that ports it (the generator maps an item to \
         a rule whose `[[rewrite]]` tables name it: a `removed-item` path, a `rename-path` \
         `from`, a call's Burn path or method, a `report-field` field; xtask/src/api_diff/map.rs), \
         or add a line `PATH<TAB>rule-id` or `PATH<TAB>none: <reason>` to \
         framework/api/decisions.tsv, with a reason a reader can check against the Burn sources; \
         then rerun `cargo run -p xtask -- api-diff` and commit the regenerated diff.tsv \
         (framework/api/README.md).",
        unmapped.len(),
        unmapped.join("\n")
    );
}

#[test]
fn public_api_knows_what_each_release_offers() {
    let (old, new) = (public_api("0.21"), public_api("0.22.1"));
    for gone in [
        "burn::record::CompactRecorder",
        "burn::tensor::backend::Backend",
    ] {
        assert!(old.contains(gone), "0.21 offers {gone}");
        assert!(!new.contains(gone), "0.22 has no {gone}");
    }
    for both in [
        "burn::tensor::Device",
        "burn::nn::Linear",
        "burn::module::Module",
    ] {
        assert!(
            old.contains(both) && new.contains(both),
            "{both} is in both releases"
        );
    }
    assert!(
        public_api("0.20").is_empty(),
        "an unpinned release has no list"
    );
}
