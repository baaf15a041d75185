//! Suppression comments: `// burn-migrate: allow(rule-id)` (several ids separated by commas)
//! skips that rule on the comment's own line, on the line below it, and, when the comment
//! leads an item, on the whole item.

use ra_ap_syntax::{ast, AstNode, SyntaxKind, TextRange, TextSize};

use crate::edit::Change;
use crate::migrate::source::SourceFile;

const MARKER: &str = "burn-migrate: allow(";

#[derive(Debug, Clone)]
pub struct Suppression {
    /// 1-based line of the comment.
    pub line: usize,
    pub rule: String,
    /// The text the comment covers.
    range: TextRange,
    pub used: bool,
}

/// The suppression comments of a file.
pub fn find(file: &SourceFile) -> Vec<Suppression> {
    let mut out = Vec::new();
    // Every suppression comment contains the marker: without it in the text, no token walk.
    if !file.text.contains(MARKER) {
        return out;
    }
    for token in file
        .tree()
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
    {
        if token.kind() != SyntaxKind::COMMENT {
            continue;
        }
        let text = token.text();
        let Some(start) = text.find(MARKER) else {
            continue;
        };
        let rest = &text[start + MARKER.len()..];
        let Some(end) = rest.find(')') else { continue };
        let comment_line = file.line_of(token.text_range().start());
        let covered = match token.parent().and_then(ast::Item::cast) {
            // A comment inside an item's node before its first token leads that item.
            Some(item) => item.syntax().text_range(),
            None => lines_range(&file.text, comment_line, comment_line + 1),
        };
        let covered = covered.cover(lines_range(&file.text, comment_line, comment_line + 1));
        for rule in rest[..end]
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
        {
            out.push(Suppression {
                line: comment_line,
                rule: rule.to_string(),
                range: covered,
                used: false,
            });
        }
    }
    out
}

/// The byte range of lines `first..=last` (1-based) of `text`.
fn lines_range(text: &str, first: usize, last: usize) -> TextRange {
    let mut start = None;
    let mut offset = 0usize;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        if number == first {
            start = Some(offset);
        }
        offset += line.len();
        if number == last {
            break;
        }
    }
    let start = start.unwrap_or(offset);
    TextRange::new(TextSize::from(start as u32), TextSize::from(offset as u32))
}

/// Drops the changes a suppression covers, marking those suppressions used.
pub fn apply(changes: Vec<Change>, suppressions: &mut [Suppression]) -> Vec<Change> {
    changes
        .into_iter()
        .filter(|change| {
            let hit = suppressions
                .iter_mut()
                .find(|s| change.rule == s.rule && s.range.contains_range(change.range));
            match hit {
                Some(s) => {
                    s.used = true;
                    false
                }
                None => true,
            }
        })
        .collect()
}
