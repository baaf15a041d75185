//! To-do markers: `burn-migrate: todo(rule-id) message` comments that `--apply` writes where
//! it removes the place a manual finding pointed at (a `[features]` reference to a crate the
//! port folded into `burn`), so that the finding does not vanish with its site. `--check`
//! reports every marker as a finding of its rule until a person deletes the comment: the
//! counterpart of `burn-migrate: allow(rule-id)`, which records a decision instead.

use ra_ap_syntax::{TextRange, TextSize};

use crate::edit::Change;
use crate::migrate::outcome::{ManifestChange, Report};
use crate::rules::{RuleKey, RuleSet};

const MARKER: &str = crate::edit::TODO_MARKER;

/// One marker found in a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The comment, from its `//` or `#` to the end of its line.
    pub range: TextRange,
    pub rule: RuleKey,
    pub message: String,
    /// The text of the line below the comment (what the marker is about).
    pub next_line: String,
    /// How many findings it stands for: several of one rule on one line share a marker
    /// (`todo(rule) [2 sites] ..`).
    pub count: usize,
}

/// The count prefix of a marker that stands for several findings.
fn count_prefix(count: usize) -> String {
    format!("[{count} sites] ")
}

/// The comment text of a marker (without the comment leader).
pub fn text(rule: RuleKey, message: &str) -> String {
    format!(
        "{} {message}; delete this comment when done",
        crate::edit::todo_marker(rule)
    )
}

/// The markers in `text`, whose comments start with `leader` (`//` in Rust, `#` in TOML). A
/// marker naming a rule that does not exist is not one (it is left alone, as any comment).
pub fn find(text: &str, leader: &str, rules: &RuleSet) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        let Some(comment) = line.find(leader) else {
            continue;
        };
        let body = line[comment + leader.len()..].trim_start();
        let Some(rest) = body.strip_prefix(MARKER) else {
            continue;
        };
        let Some((id, message)) = rest.split_once(')') else {
            continue;
        };
        let Some(rule) = rules.get(id.trim()) else {
            continue;
        };
        let message = message.trim();
        let (count, message) = message
            .strip_prefix('[')
            .and_then(|m| m.split_once(" sites] "))
            .and_then(|(n, rest)| Some((n.parse::<usize>().ok()?, rest)))
            .unwrap_or((1, message));
        let end = start + line.trim_end_matches(['\n', '\r']).len();
        out.push(Marker {
            range: TextRange::new(
                TextSize::from((start + comment) as u32),
                TextSize::from(end as u32),
            ),
            rule: rule.key,
            message: message.to_string(),
            next_line: lines.peek().map_or(String::new(), |l| l.trim().to_string()),
            count,
        });
    }
    out
}

/// A marker's text (`text`) standing for `count` findings.
fn with_count(text: &str, count: usize) -> String {
    if count < 2 {
        return text.to_string();
    }
    match text.split_once(") ") {
        Some((head, rest)) => format!("{head}) {}{rest}", count_prefix(count)),
        None => text.to_string(),
    }
}

/// `text` with a marker comment above each of `lines` (0-based line, comment text), indented
/// like the line it is about. A line that starts inside a string literal or a block comment
/// gets none: a comment there would change the string. Returns the text and the markers that
/// could not be placed.
pub fn insert_above(
    text: &str,
    mut markers: Vec<(usize, String)>,
    edition: ra_ap_syntax::Edition,
) -> (String, Vec<String>) {
    use ra_ap_syntax::{AstNode, SyntaxKind};
    // Parsed as the port parses (bounded nesting, trees dropped here, see `source::parse`).
    let root = crate::migrate::source::parse(text, edition)
        .0
        .syntax()
        .clone();
    let inside_token = |offset: usize| {
        let at = TextSize::from(offset as u32);
        root.token_at_offset(at)
            .right_biased()
            .filter(|t| t.text_range().start() < at)
            .is_some_and(|t| {
                matches!(
                    t.kind(),
                    SyntaxKind::STRING
                        | SyntaxKind::BYTE_STRING
                        | SyntaxKind::C_STRING
                        | SyntaxKind::COMMENT
                )
            })
    };
    // Findings of one rule with one message on one line share a marker that counts them.
    markers.sort();
    let mut counted: Vec<(usize, String)> = Vec::with_capacity(markers.len());
    let mut run = 0usize;
    for (i, marker) in markers.iter().enumerate() {
        run += 1;
        if markers.get(i + 1) != Some(marker) {
            let (line, text) = marker.clone();
            counted.push((line, with_count(&text, run)));
            run = 0;
        }
    }
    let markers = counted;
    let mut out = String::with_capacity(text.len() + markers.len() * 80);
    let mut unplaced = Vec::new();
    let mut next = markers.into_iter().peekable();
    let mut offset = 0usize;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        while let Some((_, marker)) = next.next_if(|(at, _)| *at == number) {
            let indent = &line[..line.len() - line.trim_start().len()];
            let comment = format!("{indent}// {marker}\n");
            // Already there (a port of a port): not twice.
            if out.ends_with(&comment) {
                continue;
            }
            if inside_token(offset) {
                unplaced.push(marker);
            } else {
                out.push_str(&comment);
            }
        }
        out.push_str(line);
        offset += line.len();
    }
    // Markers past the last line (the site's line was removed at the end of the file).
    for (_, marker) in next {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("// {marker}\n"));
    }
    (out, unplaced)
}

/// The to-do markers an earlier `--apply` left (`markers`), each a finding of its rule where
/// it stands, until a person deletes it. Only the text on disk counts: the markers this run
/// writes go with findings of their own.
pub fn findings(report: &mut Report, rules: &RuleSet) {
    for file in &mut report.files {
        for marker in find(&file.original, "//", rules) {
            for _ in 0..marker.count {
                file.changes
                    .push(Change::manual(marker.range, marker.rule, &marker.message));
            }
        }
    }
    for manifest in &mut report.manifests {
        for marker in find(&manifest.original, "#", rules) {
            // The finding sits at the key the marker is about (the line below it).
            let key = marker
                .next_line
                .split(['=', ' '])
                .next()
                .unwrap_or_default()
                .to_string();
            for _ in 0..marker.count {
                manifest.changes.push(ManifestChange {
                    rule: marker.rule,
                    fix: None,
                    key: key.clone(),
                    span: None,
                    message: marker.message.clone(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_found_with_their_rule_message_and_next_line() {
        let rules = RuleSet::embedded().unwrap();
        let rule: RuleKey = crate::rules::RuleId::CargoBackendCrates.into();
        let toml = format!(
            "[features]\n# {}\nparallel = []\n# burn-migrate: todo(no-such-rule) x\nother = []\n",
            text(rule, "enable it by hand")
        );
        let found = find(&toml, "#", &rules);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, rule);
        assert_eq!(
            found[0].message,
            "enable it by hand; delete this comment when done"
        );
        assert_eq!(found[0].next_line, "parallel = []");
        assert_eq!(
            &toml[found[0].range],
            format!("# {}", text(rule, "enable it by hand"))
        );
    }

    #[test]
    fn findings_of_one_rule_on_one_line_share_a_marker_that_counts_them() {
        let rules = RuleSet::embedded().unwrap();
        let rule: RuleKey = crate::rules::RuleId::TensorPrimitive.into();
        let marker = text(rule, "work on the tensor");
        let code = "use a::{B, C};\nfn f() {}\n";
        let edition = ra_ap_syntax::Edition::Edition2021;
        let (out, _) = insert_above(code, vec![(0, marker.clone()), (0, marker)], edition);
        assert!(
            out.starts_with("// burn-migrate: todo(tensor-primitive) [2 sites] work"),
            "{out}"
        );
        let found = find(&out, "//", &rules);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].count, 2);
        assert_eq!(
            found[0].message,
            "work on the tensor; delete this comment when done"
        );
        let (again, _) = insert_above(&out, vec![(1, text(rule, "work on the tensor"))], edition);
        assert!(again.matches("todo(").count() >= 1);
    }

    #[test]
    fn markers_go_above_their_line_indented_never_twice_nor_into_strings() {
        let code = "fn f() {\n    let s = \"a\nb\";\n    g();\n}\n";
        let edition = ra_ap_syntax::Edition::Edition2021;
        let (out, unplaced) = insert_above(code, vec![(2, "m1".into()), (3, "m2".into())], edition);
        assert_eq!(
            out,
            "fn f() {\n    let s = \"a\nb\";\n    // m2\n    g();\n}\n"
        );
        assert_eq!(unplaced, vec!["m1".to_string()]);
        let (again, _) = insert_above(&out, vec![(4, "m2".into())], edition);
        assert_eq!(
            again, out,
            "a marker already above its line is not written twice"
        );
    }
}
