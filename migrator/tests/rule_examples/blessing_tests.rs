//! Tests of `BLESS=1`, on copies of rule files: blessing puts back what a wrong rule file
//! lost and touches nothing else, and writes a correct file's values as the file spells them.

use std::path::Path;

use burn_migrate::rules::{Rule, RuleSet};
use libtest_mimic::Failed;

use crate::bless::{self, Blessing};
use crate::{example_check, failures_to_result, SetCheck};

/// The tests, by name.
pub const TESTS: [(&str, SetCheck); 5] = [
    (
        "a_wrong_after_is_restored_and_the_rest_of_the_file_kept",
        a_wrong_after_is_restored_and_the_rest_of_the_file_kept,
    ),
    (
        "a_wrong_list_of_rules_is_restored",
        a_wrong_list_of_rules_is_restored,
    ),
    (
        "wrong_lines_of_a_manual_rule_are_restored",
        wrong_lines_of_a_manual_rule_are_restored,
    ),
    (
        "writing_every_examples_own_values_changes_no_byte",
        writing_every_examples_own_values_changes_no_byte,
    ),
    (
        "a_blessed_value_keeps_its_spacing_comment_and_string_style",
        a_blessed_value_keeps_its_spacing_comment_and_string_style,
    ),
];

fn a_wrong_after_is_restored_and_the_rest_of_the_file_kept(rules: &RuleSet) -> Result<(), Failed> {
    // The first example's `after`; the `before` texts say `B::seed(device, 42)`.
    bless_a_wrong_copy(
        rules,
        "backend-seed",
        "device.seed(42);",
        "device.seed(41);",
    )
}

fn a_wrong_list_of_rules_is_restored(rules: &RuleSet) -> Result<(), Failed> {
    let right = r#"rules = ["backend-device-type", "backend-generic-param", "backend-seed"]"#;
    let wrong = r#"rules = ["backend-generic-param", "backend-seed"]"#;
    bless_a_wrong_copy(rules, "backend-seed", right, wrong)
}

fn wrong_lines_of_a_manual_rule_are_restored(rules: &RuleSet) -> Result<(), Failed> {
    bless_a_wrong_copy(rules, "reinitializer", "lines = [1, 5]", "lines = [5]")
}

/// Copies rule `id`'s file, blesses the copy to have the file as the port makes it (the
/// rule file itself, unless this very run blesses it), makes the first `right` in it
/// `wrong`, and expects blessing to give that text back byte for byte; blessing it again
/// must find nothing to write.
fn bless_a_wrong_copy(rules: &RuleSet, id: &str, right: &str, wrong: &str) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let copy = dir.path().join(format!("{id}.toml"));
    std::fs::copy(bless::rule_file(id), &copy)?;
    bless_every_example(rules, &copy)?;
    let ported = std::fs::read_to_string(&copy)?;
    let spoiled = ported.replacen(right, wrong, 1);
    if spoiled == ported {
        return Err(format!("the test needs `{right}` in rules/{id}.toml").into());
    }
    std::fs::write(&copy, &spoiled)?;

    if bless_every_example(rules, &copy)? == 0 {
        return Err("the wrong copy passed its checks".into());
    }
    let blessed = std::fs::read_to_string(&copy)?;
    if blessed != ported {
        return Err(format!("blessing did not restore rules/{id}.toml:\n{blessed}").into());
    }
    match bless_every_example(rules, &copy)? {
        0 => Ok(()),
        n => Err(format!("{n} examples of the blessed file still differ").into()),
    }
}

/// Checks every example of the rule file at `path` against the port, and writes what differs
/// into the file; how many examples differed.
fn bless_every_example(rules: &RuleSet, path: &Path) -> Result<usize, Failed> {
    let rule: Rule = toml_edit::de::from_str(&std::fs::read_to_string(path)?)?;
    let check = example_check(&rule).ok_or("the rule's examples are tested elsewhere")?;
    let mut differed = 0;
    for index in 0..rule.examples.len() {
        let differences = check(rules, &rule, index)?;
        if !differences.blessing.is_empty() {
            differed += 1;
            bless::bless_file(path, index, &differences.blessing)?;
        }
    }
    Ok(differed)
}

/// Every rule file keeps every byte when each example's `after`, `lines` and `rules` are
/// written back with the values it has: blessing writes values as the files spell them.
fn writing_every_examples_own_values_changes_no_byte(_: &RuleSet) -> Result<(), Failed> {
    let mut failures = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let mut text = std::fs::read_to_string(&path)?;
        let original = text.clone();
        let rule: Rule = toml_edit::de::from_str(&text)?;
        for (index, example) in rule.examples.iter().enumerate() {
            let own_values = Blessing {
                after: example.after.clone(),
                lines: Some(example.lines.clone()).filter(|lines| !lines.is_empty()),
                rules: example.rules.clone(),
            };
            text = bless::bless_text(&text, index, &own_values)?;
        }
        if text != original {
            failures.push(format!("{} changes:\n{text}", path.display()));
        }
    }
    failures_to_result(failures)
}

/// What no rule file shows yet: spacing around `=`, a comment after a value, a literal
/// string, text that needs escapes, a key the example did not have.
fn a_blessed_value_keeps_its_spacing_comment_and_string_style(_: &RuleSet) -> Result<(), Failed> {
    let text = r#"id = "x" # kept

[[example]]
lines  =  [1]   # why these lines
before = '''
a
'''
after =   '''
b
'''

[[example]]
before = """
c
"""
after = """
d
"""
"#;
    let first = Blessing {
        after: Some("e\n".to_string()),
        lines: Some(vec![2, 3]),
        rules: None,
    };
    let second = Blessing {
        // Literal strings cannot hold `'''`; a quote before the closing `"""` is escaped.
        after: Some(r#"say """\'''""#.to_string()),
        lines: None,
        rules: Some(vec!["x".to_string(), "y".to_string()]),
    };
    let blessed = bless::bless_text(&bless::bless_text(text, 0, &first)?, 1, &second)?;
    let expected = r#"id = "x" # kept

[[example]]
lines  =  [2, 3]   # why these lines
before = '''
a
'''
after =   '''
e
'''

[[example]]
before = """
c
"""
after = """
say \"\""\\'''\""""
rules = ["x", "y"]
"#;
    if blessed != expected {
        return Err(format!("--- expected\n{expected}\n--- got\n{blessed}").into());
    }
    let reread: toml_edit::DocumentMut = blessed.parse()?;
    let after = reread["example"][1]["after"].as_str();
    if after != second.after.as_deref() {
        return Err(format!("the blessed text reads back as {after:?}").into());
    }
    Ok(())
}
