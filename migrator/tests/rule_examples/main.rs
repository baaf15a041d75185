//! Every example of every rule is its own test, named `<rule-id>::<example name>`, so
//! `cargo test --test rule_examples -- backend-generic-param` runs one rule's examples.
//!
//! - With `after`: the migrator turns `before` into exactly `after`, the rule itself fires,
//!   and running the migrator again changes nothing. A `manual` rule's example is instead
//!   reported at the lines it names.
//! - Without `after`: the rule must not fire. The migrator reports nothing and leaves the
//!   text byte for byte.
//! - With `rules = [..]`: the rules that report or edit anything on `before` are exactly those.
//!
//! `BLESS=1` writes the port into the rule file where `after`, `lines` or `rules` differ from
//! it (`bless`), for review in `git diff`; failures no value can fix still fail.
//!
//! The checks over the whole rule set (every rule has an example, every emitted rule has a
//! file, the guide is current, ...) are tests of their own, under `rules::`.

use std::collections::BTreeSet;
use std::sync::Arc;

use burn_migrate::migrate::manifest::{self, FeatureRules};
use burn_migrate::migrate::migrate_text;
use burn_migrate::rules::{Applicability, Category, Example, Rule, RuleKey, RuleSet};
use libtest_mimic::{Arguments, Failed, Trial};

mod bless;
mod blessing_tests;
use bless::Blessing;

/// A check over the whole rule set.
type SetCheck = fn(&RuleSet) -> Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    let rules = Arc::new(RuleSet::embedded().expect("embedded rules load"));
    let mut trials = Vec::new();
    for rule in rules.iter() {
        for (i, example) in rule.examples.iter().enumerate() {
            let name = format!("{}::{}", rule.id, example.name(i));
            let (rules, id) = (Arc::clone(&rules), rule.id.clone());
            let Some(check) = example_check(rule) else {
                continue;
            };
            trials.push(Trial::test(name, move || {
                let rule = rules.get(&id).expect("the rule is in the set");
                check(&rules, rule, i)?.settle(rule, i)
            }));
        }
    }
    let set_checks: [(&str, SetCheck); 9] = [
        (
            "every_rule_has_an_example_and_every_emitted_rule_has_a_file",
            every_rule_has_an_example_and_every_emitted_rule_has_a_file,
        ),
        (
            "every_rule_that_edits_code_has_an_example_it_leaves_alone",
            every_rule_that_edits_code_has_an_example_it_leaves_alone,
        ),
        (
            "every_fix_says_what_it_can_change",
            every_fix_says_what_it_can_change,
        ),
        (
            "every_rule_states_its_severity",
            every_rule_states_its_severity,
        ),
        (
            "every_api_item_a_rule_names_exists_in_its_release",
            every_api_item_a_rule_names_exists_in_its_release,
        ),
        (
            "every_manual_example_names_its_lines",
            every_manual_example_names_its_lines,
        ),
        (
            "every_example_that_names_its_rules_names_rules_it_can_show",
            every_example_that_names_its_rules_names_rules_it_can_show,
        ),
        (
            "the_guide_is_up_to_date_with_the_rules",
            the_guide_is_up_to_date_with_the_rules,
        ),
        (
            "every_row_of_the_api_change_catalogue_is_ported_by_a_rule_or_needs_no_change",
            every_row_of_the_api_change_catalogue_is_ported_by_a_rule_or_needs_no_change,
        ),
    ];
    for (name, check) in set_checks {
        let rules = Arc::clone(&rules);
        trials.push(Trial::test(format!("rules::{name}"), move || check(&rules)));
    }
    for (name, test) in blessing_tests::TESTS {
        let rules = Arc::clone(&rules);
        trials.push(Trial::test(format!("bless::{name}"), move || test(&rules)));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Checks an example of a rule: hard failures as `Err`, differences blessing can write as `Ok`.
type ExampleCheck = fn(&RuleSet, &Rule, usize) -> Result<Differences, Failed>;

/// The check for a rule's examples; `None` for those tested elsewhere.
fn example_check(rule: &Rule) -> Option<ExampleCheck> {
    match (rule.category, rule.applicability) {
        // Manual Cargo findings need the whole workspace (which devices the code uses);
        // fixtures and CLI tests cover them.
        (Category::Cargo, Applicability::Manual) => None,
        (Category::Cargo, _) => Some(check_manifest_example),
        _ => Some(check_rust_example),
    }
}

/// Line (counting from 1) of a byte offset in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Where an example's port differs from its file in what blessing can write: the messages,
/// and the values to write.
#[derive(Default)]
struct Differences {
    messages: Vec<String>,
    blessing: Blessing,
}

impl Differences {
    /// Passes when there are none; with `BLESS=1` writes them into the rule file and passes.
    fn settle(self, rule: &Rule, index: usize) -> Result<(), Failed> {
        if self.blessing.is_empty() {
            return Ok(());
        }
        if bless::requested() {
            let path = bless::rule_file(&rule.id);
            bless::bless_file(&path, index, &self.blessing)?;
            eprintln!(
                "blessed rules/{}.toml, example {}: {}",
                rule.id,
                index + 1,
                self.blessing.keys()
            );
            return Ok(());
        }
        Err(format!(
            "{}\n(if the new port is right: BLESS=1 cargo test -p burn-migrate --test \
             rule_examples, then review the rule file's diff)",
            self.messages.join("\n")
        )
        .into())
    }

    /// Compares the rules that fired with those the example names, if it names them.
    fn compare_rules<'c>(
        &mut self,
        example: &Example,
        fired: impl IntoIterator<Item = &'c RuleKey>,
    ) {
        let Some(named) = &example.rules else {
            return;
        };
        let fired: BTreeSet<&str> = fired.into_iter().map(|key| key.as_str()).collect();
        let named: BTreeSet<&str> = named.iter().map(String::as_str).collect();
        if fired != named {
            self.messages.push(format!(
                "the port fires rules {fired:?}, the example names {named:?}"
            ));
            self.blessing.rules = Some(fired.into_iter().map(str::to_string).collect());
        }
    }

    fn compare_after(&mut self, expected: &str, got: &str) {
        if expected != got {
            self.messages
                .push(format!("--- expected\n{expected}\n--- got\n{got}"));
            self.blessing.after = Some(got.to_string());
        }
    }
}

/// Checks one example of a rule about Rust code; what blessing could write is returned.
fn check_rust_example(rules: &RuleSet, rule: &Rule, index: usize) -> Result<Differences, Failed> {
    let example = &rule.examples[index];
    let outcome = migrate_text(&example.before, rules)?;
    if let Some(error) = &outcome.error {
        return Err(format!("the migrator failed: {error:?}").into());
    }
    let own: Vec<_> = outcome
        .changes
        .iter()
        .filter(|c| c.rule == rule.id)
        .collect();

    let Some(after) = &example.after else {
        // Code the rule must leave alone: nothing reported, not a byte changed.
        if !own.is_empty() {
            return Err(format!("the rule fires where it must not: {own:#?}").into());
        }
        if outcome.migrated != example.before || !outcome.changes.is_empty() {
            return Err(format!(
                "the migrator changes or reports code it must leave alone: {:#?}\n--- got\n{}",
                outcome.changes, outcome.migrated
            )
            .into());
        }
        return Ok(Differences::default());
    };

    let manual = rule.applicability == Applicability::Manual;
    if !manual {
        // Failures blessing cannot take away come first: nothing is written while one stands.
        if own.is_empty() {
            return Err("the rule itself does not fire".into());
        }
        let again = migrate_text(&outcome.migrated, rules)?;
        if again.migrated != outcome.migrated {
            return Err(format!("a second run changes the result:\n{}", again.migrated).into());
        }
    }
    let mut differences = Differences::default();
    if !example.lines.is_empty() || manual {
        // Where a person is sent: exactly the lines the example names.
        let reported: BTreeSet<usize> = own
            .iter()
            .filter(|c| c.fix.is_none())
            .map(|c| line_of(&example.before, usize::from(c.range.start())))
            .collect();
        let expected: BTreeSet<usize> = example.lines.iter().copied().collect();
        if reported != expected {
            differences.messages.push(format!(
                "reported at lines {reported:?}, the example names {expected:?}"
            ));
            differences.blessing.lines = Some(reported.into_iter().collect());
        }
    }
    differences.compare_rules(example, outcome.changes.iter().map(|c| &c.rule));
    // A manual rule's `after` is the port a person writes; the tool only points at the sites.
    if !manual {
        differences.compare_after(after, &outcome.migrated);
    }
    Ok(differences)
}

/// Checks one example of a Cargo rule; what blessing could write is returned.
fn check_manifest_example(
    rules: &RuleSet,
    rule: &Rule,
    index: usize,
) -> Result<Differences, Failed> {
    let example = &rule.examples[index];
    let maps: Vec<_> = rules.feature_maps().cloned().collect();
    let backend_crates = rules.backend_table().crate_features();
    // A Cargo example stands for a project whose code uses what this rule asks about, and
    // nothing else.
    let features = FeatureRules {
        maps: &maps,
        adds: &rule.feature_adds,
        code_uses: &|path| rule.feature_adds.iter().any(|a| a.when_path == path),
        backend_crates: &backend_crates,
        renamed: &[],
    };
    let out = manifest::migrate(&example.before, &features)?;
    let fired = out.changes.iter().any(|c| c.rule == rule.id);
    let Some(after) = &example.after else {
        if fired || out.text != example.before {
            return Err(format!(
                "the rule changes a manifest it must leave alone:\n{}",
                out.text
            )
            .into());
        }
        return Ok(Differences::default());
    };
    if !fired {
        return Err("the rule itself does not fire".into());
    }
    let mut differences = Differences::default();
    differences.compare_rules(example, out.changes.iter().map(|c| &c.rule));
    differences.compare_after(after, &out.text);
    Ok(differences)
}

fn every_rule_has_an_example_and_every_emitted_rule_has_a_file(
    rules: &RuleSet,
) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for rule in rules.iter() {
        if !rule.examples.iter().any(|e| e.after.is_some()) {
            failures.push(format!("rule {} has no example that it ports", rule.id));
        }
        for (i, example) in rule.examples.iter().enumerate() {
            let name = example.name(i);
            // Names become test names and, in compile_examples, module names.
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                failures.push(format!(
                    "rule {} example `{name}`: use a-z, 0-9 and -",
                    rule.id
                ));
            }
        }
        let names: BTreeSet<String> = (rule.examples.iter().enumerate())
            .map(|(i, e)| e.name(i))
            .collect();
        if names.len() != rule.examples.len() {
            failures.push(format!("rule {} has two examples of one name", rule.id));
        }
    }
    // Emitted ids need no check: they are `RuleId` variants, generated from the rule files,
    // and a rule naming an unknown transform does not compile.
    failures_to_result(failures)
}

/// A rule that edits Rust code on its own must show code it leaves alone (a look-alike that is
/// not Burn's), or say in its file why it cannot have one.
fn every_rule_that_edits_code_has_an_example_it_leaves_alone(
    rules: &RuleSet,
) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for rule in rules.iter() {
        let edits_code =
            rule.applicability == Applicability::Safe && rule.category != Category::Cargo;
        let has_negative = rule.examples.iter().any(|e| e.after.is_none());
        match (&rule.negative_example_exempt, edits_code, has_negative) {
            (None, true, false) => failures.push(format!(
                "rule {} edits code but has no example without `after` (code it must leave \
                 alone); add one, or `negative_example_exempt = \"why\"`",
                rule.id
            )),
            (Some(_), _, true) => failures.push(format!(
                "rule {} has a negative example and an exemption from it; drop the exemption",
                rule.id
            )),
            (Some(why), _, false) if why.trim().is_empty() => {
                failures.push(format!("rule {}: the exemption needs a reason", rule.id))
            }
            _ => {}
        }
    }
    failures_to_result(failures)
}

/// Every rule states its severity (`error`: the port does not compile with a site as it is;
/// `warning`: it compiles and may behave differently), decided rule by rule, not defaulted.
fn every_rule_states_its_severity(rules: &RuleSet) -> Result<(), Failed> {
    let failures = (rules.iter())
        .filter(|rule| rule.stated_severity.is_none())
        .map(|rule| {
            format!(
                "rule {} states no `severity`: `error` where the port does not compile with a \
                 site as it is, `warning` where it compiles and may behave differently",
                rule.id
            )
        })
        .collect();
    failures_to_result(failures)
}

/// A rule `--apply` carries out says on its page what the fix can change in behaviour
/// (`fix_safety`); a manual rule has no fix to describe.
fn every_fix_says_what_it_can_change(rules: &RuleSet) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for rule in rules.iter() {
        let text = rule.fix_safety.as_deref().map(str::trim);
        match (rule.applicability, text) {
            (Applicability::Safe, None | Some("")) => failures.push(format!(
                "rule {} is fixed by --apply but has no `fix_safety`: say what the fix can change \
                 in behaviour, or why it changes none",
                rule.id
            )),
            (Applicability::Manual, Some(_)) => failures.push(format!(
                "rule {} is manual: its page says there is no automatic fix; drop `fix_safety`",
                rule.id
            )),
            _ => {}
        }
    }
    failures_to_result(failures)
}

/// The Burn items a rule page names (`[api]`) are public items of that release, by the lists
/// rustdoc gave (`framework/api/`); every rule about code names what it ports.
fn every_api_item_a_rule_names_exists_in_its_release(rules: &RuleSet) -> Result<(), Failed> {
    use burn_migrate::rules::framework::public_api;
    let (old, new) = (public_api("0.21"), public_api("0.22"));
    let mut failures = Vec::new();
    for rule in rules.iter() {
        for (paths, api, release) in [
            (&rule.api.before, &old, "0.21"),
            (&rule.api.after, &new, "0.22"),
        ] {
            for path in paths.iter().filter(|p| !api.contains(p.as_str())) {
                failures.push(format!(
                    "rule {}: `{path}` is not a public item of Burn {release} (framework/api/)",
                    rule.id
                ));
            }
        }
        // The lists of 0.21 items its code reads.
        for path in rule.api_lists.paths().filter(|p| !old.contains(p.as_str())) {
            failures.push(format!(
                "rule {}: `{path}` in `[api_lists]` is not a public item of Burn 0.21 \
                 (framework/api/)",
                rule.id
            ));
        }
        let unlisted = rule.api.unlisted.as_deref().map(str::trim);
        match (rule.api.before.is_empty(), unlisted) {
            (true, None | Some("")) if rule.category != Category::Cargo => failures.push(format!(
                "rule {}: `[api] before` names none of the 0.21 items the rule ports (or \
                 `unlisted` says why it cannot)",
                rule.id
            )),
            (false, Some(_)) => failures.push(format!(
                "rule {}: `[api]` names items and says they are unlisted; drop `unlisted`",
                rule.id
            )),
            _ => {}
        }
    }
    failures_to_result(failures)
}

/// Manual rules' examples say where their findings go; examples of code left alone have none.
fn every_manual_example_names_its_lines(rules: &RuleSet) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for rule in rules.iter().filter(|r| r.category != Category::Cargo) {
        for (i, example) in rule.examples.iter().enumerate() {
            let name = format!("{}::{}", rule.id, example.name(i));
            let manual = rule.applicability == Applicability::Manual;
            match (&example.after, example.lines.is_empty()) {
                (Some(_), true) if manual => failures.push(format!(
                    "{name}: name the lines of its findings (`lines = [..]`)"
                )),
                (None, false) => failures.push(format!(
                    "{name}: an example the rule must leave alone has no findings to place"
                )),
                _ => {}
            }
        }
    }
    failures_to_result(failures)
}

/// `rules = [..]` names rules of the set, once each, the example's own among them, and only
/// on examples that are checked and port something (code left alone fires no rule).
fn every_example_that_names_its_rules_names_rules_it_can_show(
    rules: &RuleSet,
) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for rule in rules.iter() {
        for (i, example) in rule.examples.iter().enumerate() {
            let Some(named) = &example.rules else {
                continue;
            };
            let name = format!("{}::{}", rule.id, example.name(i));
            if example.after.is_none() || example_check(rule).is_none() {
                failures.push(format!(
                    "{name}: only an example that is checked and ports something names its rules"
                ));
            }
            if !named.contains(&rule.id) {
                failures.push(format!("{name}: `rules` leaves out the example's own rule"));
            }
            for id in named.iter().filter(|id| rules.get(id).is_none()) {
                failures.push(format!("{name}: `rules` names `{id}`, which is no rule"));
            }
            if named.iter().collect::<BTreeSet<_>>().len() != named.len() {
                failures.push(format!("{name}: `rules` names a rule twice"));
            }
        }
    }
    failures_to_result(failures)
}

fn the_guide_is_up_to_date_with_the_rules(rules: &RuleSet) -> Result<(), Failed> {
    let book = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book");
    let stale = burn_migrate::report::book::plan(&book, rules)?;
    let names: Vec<_> = stale.iter().map(|(p, _)| p.display().to_string()).collect();
    if names.is_empty() {
        Ok(())
    } else {
        Err(format!("stale guide pages (run `burn-migrate book`): {names:?}").into())
    }
}

fn every_row_of_the_api_change_catalogue_is_ported_by_a_rule_or_needs_no_change(
    rules: &RuleSet,
) -> Result<(), Failed> {
    let rows = burn_migrate::report::book::api_change_rows();
    let known: BTreeSet<&str> = rows.iter().map(|(row, _)| *row).collect();
    let mut failures = Vec::new();
    if known.len() != rows.len() {
        failures.push("a row is listed twice".to_string());
    }
    for (row, note) in &rows {
        let covering: Vec<&str> = rules
            .iter()
            .filter(|r| r.covers.iter().any(|c| c == row))
            .map(|r| r.id.as_str())
            .collect();
        match note {
            Some(note) if !(covering.is_empty() && note.starts_with("no change")) => failures.push(
                format!("row {row} is noted ({note}) but also covered by {covering:?}"),
            ),
            None if covering.is_empty() => failures.push(format!("no rule covers row {row}")),
            _ => {}
        }
    }
    for rule in rules.iter() {
        for row in &rule.covers {
            if !known.contains(row.as_str()) {
                failures.push(format!("rule {} covers unknown row {row}", rule.id));
            }
        }
    }
    failures_to_result(failures)
}

fn failures_to_result(failures: Vec<String>) -> Result<(), Failed> {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}
