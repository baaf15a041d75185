//! Text edits on the original source: the only way rules change code, so everything they do
//! not touch stays byte for byte.

use ra_ap_syntax::{TextRange, TextSize};

use crate::rules::{Applicability, RuleKey};

/// How a to-do marker starts (`migrate::markers`): a comment `--apply` writes where a finding
/// for a person would otherwise vanish from the port.
pub const TODO_MARKER: &str = "burn-migrate: todo(";

/// How every to-do marker of `rule` starts (`burn-migrate: todo(rule-id)`).
pub fn todo_marker(rule: RuleKey) -> String {
    format!("{TODO_MARKER}{rule})")
}

/// What a rule found at one site, with the fix where the rule knows one: an edit, or (with
/// `fix: None`) a finding that needs a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub range: TextRange,
    pub rule: RuleKey,
    pub message: String,
    pub fix: Option<Fix>,
}

/// The fix of a finding, decided where the finding is made: the text that replaces the
/// finding's range, and whether `--apply` makes the edit (`Safe`) or only shows it
/// (`Manual`). A fix is one edit, at its finding's range: every fix the rules make is
/// (`report::findings` lists it as the fix's one edit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub replacement: String,
    pub applicability: Applicability,
}

impl Change {
    /// A finding with its fix, as safe as the rule's file says (`RuleKey::applicability`).
    pub fn edit(
        range: TextRange,
        replacement: impl Into<String>,
        rule: impl Into<RuleKey>,
        message: impl Into<String>,
    ) -> Self {
        let rule = rule.into();
        Change {
            range,
            rule,
            message: message.into(),
            fix: Some(Fix {
                replacement: replacement.into(),
                applicability: rule.applicability(),
            }),
        }
    }

    pub fn manual(range: TextRange, rule: impl Into<RuleKey>, message: impl Into<String>) -> Self {
        Change {
            range,
            rule: rule.into(),
            message: message.into(),
            fix: None,
        }
    }

    pub fn delete(range: TextRange, rule: impl Into<RuleKey>, message: impl Into<String>) -> Self {
        Self::edit(range, "", rule, message)
    }

    pub fn insert(
        at: TextSize,
        text: impl Into<String>,
        rule: impl Into<RuleKey>,
        message: impl Into<String>,
    ) -> Self {
        Self::edit(TextRange::empty(at), text, rule, message)
    }

    /// `open` before the text at `range` and `close` after it (`Ok(` .. `)`), as two
    /// insertions, so that edits inside the text still apply.
    pub fn wrap(
        range: TextRange,
        open: impl Into<String>,
        close: impl Into<String>,
        rule: impl Into<RuleKey> + Copy,
        message: &str,
    ) -> [Self; 2] {
        [
            Self::insert(range.start(), open, rule, message),
            Self::insert(range.end(), close, rule, message),
        ]
    }

    /// The change with its fix (if it has one) as safe as `applicability` says: a fix the
    /// code making it knows to be more or less safe than its rule's usual one.
    pub fn with_applicability(mut self, applicability: Applicability) -> Self {
        if let Some(fix) = &mut self.fix {
            fix.applicability = applicability;
        }
        self
    }

    /// The fix's replacement, if it has one.
    pub fn replacement(&self) -> Option<&str> {
        self.fix.as_ref().map(|fix| fix.replacement.as_str())
    }

    /// Whether `--apply` makes this change's fix.
    pub fn is_applied(&self) -> bool {
        self.fix
            .as_ref()
            .is_some_and(|fix| fix.applicability == Applicability::Safe)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("rules `{first}` and `{second}` edit overlapping text at bytes {start}..{end}")]
pub struct OverlapError {
    pub first: RuleKey,
    pub second: RuleKey,
    pub start: usize,
    pub end: usize,
}

/// Orders edits, drops exact duplicates and edits nested inside a larger edit (the larger one
/// rewrites that text as a whole; the next fixed-point pass sees the result), and rejects
/// edits that partly overlap: those are bugs in a rule, never merged silently.
pub fn normalize(mut edits: Vec<Change>) -> Result<Vec<Change>, OverlapError> {
    edits.retain(|c| c.fix.is_some());
    // Among equal starts: insertions first (they go before the text an edit there replaces),
    // then larger ranges, so a container precedes what it contains.
    edits.sort_by(|a, b| {
        a.range
            .start()
            .cmp(&b.range.start())
            .then(b.range.is_empty().cmp(&a.range.is_empty()))
            .then(b.range.end().cmp(&a.range.end()))
    });
    edits.dedup_by(|later, earlier| {
        later.range == earlier.range && later.replacement() == earlier.replacement()
    });
    let mut out: Vec<Change> = Vec::with_capacity(edits.len());
    for edit in edits {
        if let Some(last) = out.last() {
            let nested = !last.range.is_empty()
                && last.range.contains_range(edit.range)
                && !(edit.range.is_empty()
                    && (edit.range.start() == last.range.start()
                        || edit.range.start() == last.range.end()));
            if nested {
                continue;
            }
            if edit.range.start() < last.range.end() {
                return Err(OverlapError {
                    first: last.rule,
                    second: edit.rule,
                    start: edit.range.start().into(),
                    end: last.range.end().into(),
                });
            }
        }
        out.push(edit);
    }
    Ok(out)
}

/// Applies normalized edits to `text`.
pub fn apply(text: &str, edits: &[Change]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0usize;
    for span in spans(text, edits) {
        out.push_str(&text[cursor..span.start]);
        out.push_str(span.replacement);
        cursor = span.end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// What `apply` replaced: for each edit, the text it took out of the old text (which may be
/// one newline longer than the edit's range) and the length it put in.
pub fn applied_ranges(text: &str, edits: &[Change]) -> Vec<(TextRange, usize)> {
    spans(text, edits)
        .map(|s| {
            let range =
                TextRange::new(TextSize::from(s.start as u32), TextSize::from(s.end as u32));
            (range, s.replacement.len())
        })
        .collect()
}

struct Span<'a> {
    start: usize,
    end: usize,
    replacement: &'a str,
}

fn spans<'a>(text: &'a str, edits: &'a [Change]) -> impl Iterator<Item = Span<'a>> + 'a {
    // Whether the output so far ends with a blank line, which `apply` needs to know; tracked
    // from the pieces so that the ranges and the text always agree.
    let mut cursor = 0usize;
    let mut tail = String::new();
    edits.iter().map(move |edit| {
        let start = usize::from(edit.range.start());
        let mut end = usize::from(edit.range.end());
        let replacement = edit.replacement().unwrap_or_default();
        remember_tail(&mut tail, &text[cursor..start]);
        remember_tail(&mut tail, replacement);
        // Deleting whole lines between two blank lines would leave a double gap (two aliases
        // in a row, say): keep one blank line.
        let deletes_lines = replacement.is_empty() && start < end && text[..end].ends_with('\n');
        if deletes_lines && tail.ends_with("\n\n") && text[end..].starts_with('\n') {
            end += 1;
        }
        cursor = end;
        Span {
            start,
            end,
            replacement,
        }
    })
}

/// Keeps the last two characters of the output `apply` writes.
fn remember_tail(tail: &mut String, piece: &str) {
    tail.push_str(piece);
    let keep = tail.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
    tail.drain(..keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(a: u32, b: u32) -> TextRange {
        TextRange::new(a.into(), b.into())
    }

    #[test]
    fn applies_in_order_and_keeps_the_rest() {
        let edits = normalize(vec![
            Change::edit(range(6, 11), "there", RuleKey::Tool("b"), ""),
            Change::edit(range(0, 5), "hi", RuleKey::Tool("a"), ""),
        ])
        .unwrap();
        assert_eq!(apply("hello world!", &edits), "hi there!");
    }

    #[test]
    fn nested_edits_yield_to_the_container() {
        let edits = normalize(vec![
            Change::edit(range(2, 4), "X", RuleKey::Tool("inner"), ""),
            Change::delete(range(0, 6), RuleKey::Tool("outer"), ""),
        ])
        .unwrap();
        assert_eq!(edits.len(), 1);
        assert_eq!(apply("abcdefg", &edits), "g");
    }

    #[test]
    fn partial_overlap_is_an_error() {
        let err = normalize(vec![
            Change::delete(range(0, 4), RuleKey::Tool("first"), ""),
            Change::delete(range(2, 6), RuleKey::Tool("second"), ""),
        ])
        .unwrap_err();
        assert_eq!(
            (err.first, err.second),
            (RuleKey::Tool("first"), RuleKey::Tool("second"))
        );
    }

    #[test]
    fn insertions_at_a_deletion_boundary_are_kept() {
        let edits = normalize(vec![
            Change::delete(range(2, 4), RuleKey::Tool("del"), ""),
            Change::insert(4.into(), "Z", RuleKey::Tool("ins"), ""),
        ])
        .unwrap();
        assert_eq!(apply("abcdef", &edits), "abZef");
    }

    #[test]
    fn insertion_where_a_deletion_starts_goes_before_it() {
        let edits = normalize(vec![
            Change::delete(range(0, 3), RuleKey::Tool("del"), ""),
            Change::insert(0.into(), "use x;\n", RuleKey::Tool("ins"), ""),
        ])
        .unwrap();
        assert_eq!(apply("abcdef", &edits), "use x;\ndef");
    }

    #[test]
    fn deleting_lines_between_blank_lines_keeps_one_blank_line() {
        let text = "use a;\n\ntype X = A;\ntype Y = B;\n\nfn main() {}\n";
        let edits = normalize(vec![Change::delete(range(8, 32), RuleKey::Tool("d"), "")]).unwrap();
        assert_eq!(&text[8..32], "type X = A;\ntype Y = B;\n");
        assert_eq!(apply(text, &edits), "use a;\n\nfn main() {}\n");
    }

    #[test]
    fn applied_ranges_say_what_apply_took_out() {
        let text = "use a;\n\ntype X = A;\ntype Y = B;\n\nfn main() {}\n";
        let edits = normalize(vec![
            Change::edit(range(0, 5), "use bb", RuleKey::Tool("e"), ""),
            Change::delete(range(8, 32), RuleKey::Tool("d"), ""),
        ])
        .unwrap();
        // The deletion takes the blank line after it too.
        assert_eq!(
            applied_ranges(text, &edits),
            vec![(range(0, 5), 6), (range(8, 33), 0)]
        );
        // Rebuilding the text from the ranges gives what `apply` wrote.
        let mut rebuilt = String::new();
        let mut cursor = 0;
        for ((taken, _), edit) in applied_ranges(text, &edits).iter().zip(&edits) {
            rebuilt.push_str(&text[cursor..usize::from(taken.start())]);
            rebuilt.push_str(edit.replacement().unwrap_or_default());
            cursor = usize::from(taken.end());
        }
        rebuilt.push_str(&text[cursor..]);
        assert_eq!(rebuilt, apply(text, &edits));
    }

    /// A fix is as safe as its rule's file says, unless the code making it says otherwise;
    /// `--apply` makes only safe ones.
    #[test]
    fn a_fix_carries_its_own_applicability() {
        let safe = crate::rules::RuleId::BackendSeed;
        let manual = crate::rules::RuleId::BackendExtensionTrait;
        assert!(Change::delete(range(0, 1), safe, "").is_applied());
        assert!(!Change::delete(range(0, 1), manual, "").is_applied());
        let lowered =
            Change::delete(range(0, 1), safe, "").with_applicability(Applicability::Manual);
        assert_eq!(
            lowered.fix.as_ref().unwrap().applicability,
            Applicability::Manual
        );
        assert!(!lowered.is_applied());
        let finding = Change::manual(range(0, 1), safe, "").with_applicability(Applicability::Safe);
        assert!(finding.fix.is_none() && !finding.is_applied());
    }

    #[test]
    fn manual_findings_are_not_edits() {
        let edits = normalize(vec![Change::manual(
            range(0, 1),
            RuleKey::Tool("m"),
            "look here",
        )])
        .unwrap();
        assert!(edits.is_empty());
    }
}
