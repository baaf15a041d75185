//! A large file parsed in pieces, on several threads: the parser is the one stage that works
//! through a file alone, so a 10 MB file would keep one core busy while the other waits.
//!
//! A piece ends just after the `}` or `;` that closes a top-level item, where the next token
//! (past whitespace, at least one line break, and comments) starts another item. Every piece
//! is parsed as a file of its own. Where none has a syntax error, their items and trivia,
//! one after another, are the tree of the whole, as `join` builds it:
//! - each piece is whole items: a piece that parses cleanly closes every delimiter, string
//!   and comment it opens, so its end is a token boundary at top level in the whole text too,
//!   where the parser is between items, as it is at the start of a file;
//! - no item reaches into the next piece: the next piece starts with an item keyword or `#[`,
//!   which no complete item takes as a continuation (an inner attribute `#!` is no cut: it
//!   parses at the start of a file and is an error anywhere else);
//! - comments before an item attach to it by looking back over trivia only, which stops at
//!   the `}` or `;` that ends the piece before, so the trivia at a piece's start is attached
//!   as in the whole;
//! - the lexer starts a piece afresh on whitespace, never on a shebang or front matter.
//!
//! A piece with a syntax error (or a cut the lexer's view of the text got wrong) sends the
//! whole file to the parser in one piece: the error count and the tree are then the parser's
//! own.

use ra_ap_rustc_lexer::{tokenize, FrontmatterAllowed, TokenKind};
use ra_ap_syntax::GreenNode;

/// Below this, a file is parsed in one piece: the cut costs a lexer pass, and small files
/// already keep every thread busy.
pub const PIECE_BYTES: usize = 256 * 1024;

/// Up to `pieces - 1` byte offsets, in order, where `text` can be cut (see the module), each
/// the first such offset at or past the next `text.len() * k / pieces`.
pub fn cuts(text: &str, pieces: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    if pieces < 2 {
        return cuts;
    }
    let target = |k: usize| text.len() / pieces * k;
    let mut depth = 0usize;
    // Just past a `}` or `;` at top level, and whether a line break has followed it.
    let mut item_end: Option<(usize, bool)> = None;
    // A `#` at top level just after an item's end, waiting for its `[`.
    let mut pound_at: Option<usize> = None;
    let mut start = 0usize;
    for token in tokenize(text, FrontmatterAllowed::No) {
        let end = start + token.len as usize;
        let word = &text[start..end];
        let trivia = matches!(
            token.kind,
            TokenKind::Whitespace | TokenKind::LineComment { .. } | TokenKind::BlockComment { .. }
        );
        if trivia {
            if let (Some((_, broke)), TokenKind::Whitespace) = (&mut item_end, token.kind) {
                *broke |= word.contains('\n');
            }
            start = end;
            continue;
        }
        let after_item = pound_at.take().or_else(|| {
            item_end
                .take()
                .filter(|&(_, broke)| broke)
                .map(|(at, _)| at)
        });
        if let Some(cut) = after_item {
            let starts_item = match token.kind {
                TokenKind::Ident => ITEM_KEYWORDS.contains(&word),
                TokenKind::OpenBracket => text[cut..start].trim_end().ends_with('#'),
                TokenKind::Pound => {
                    pound_at = Some(cut);
                    false
                }
                _ => false,
            };
            if starts_item && cut >= target(cuts.len() + 1) {
                cuts.push(cut);
                if cuts.len() + 1 == pieces {
                    break;
                }
            }
        }
        match token.kind {
            TokenKind::OpenBrace | TokenKind::OpenParen | TokenKind::OpenBracket => depth += 1,
            TokenKind::CloseBrace | TokenKind::CloseParen | TokenKind::CloseBracket => {
                depth = depth.saturating_sub(1);
                if depth == 0 && token.kind == TokenKind::CloseBrace {
                    item_end = Some((end, false));
                }
            }
            TokenKind::Semi if depth == 0 => item_end = Some((end, false)),
            _ => {}
        }
        start = end;
    }
    cuts
}

/// Words that start an item and continue none: a cut before one of them is between items.
const ITEM_KEYWORDS: &[&str] = &[
    "pub", "fn", "struct", "enum", "impl", "mod", "use", "const", "static", "type", "trait",
    "extern",
];

/// The tree of the whole from the trees of its pieces: each piece's root's children, in order,
/// under one root of the same kind.
pub fn join(roots: &[GreenNode]) -> Option<GreenNode> {
    let kind = roots.first()?.kind();
    let children: Vec<_> = roots
        .iter()
        .flat_map(|root| root.children().map(|child| child.to_owned()))
        .collect();
    Some(GreenNode::new(kind, children))
}

/// How many pieces to parse `text` in on `threads` threads: two per thread, so that a thread
/// that finishes early takes another, each piece at least `PIECE_BYTES`.
pub fn piece_count(text: &str, threads: usize) -> usize {
    (text.len() / PIECE_BYTES).min(2 * threads).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::source::{parse_counting_errors, parse_in_pieces, parse_piece};
    use ra_ap_syntax::Edition;

    /// Every cut `cuts` may make in `text` (one piece per byte asks for all of them).
    fn all_cuts(text: &str) -> Vec<usize> {
        cuts(text, text.len())
    }

    /// The text after each cut, up to its line's end.
    fn cut_lines(text: &str) -> Vec<&str> {
        all_cuts(text)
            .into_iter()
            .map(|at| text[at..].trim_start().lines().next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn cuts_fall_only_between_top_level_items_before_an_item() {
        let text = "#![allow(unused)]\nuse a::b;\npub mod outer {\npub mod inner {\nfn nested() {}\n}\n}\n\
                    /// Doc.\n#[derive(Debug)]\nstruct S;\nconst C: [u8; 2] = [0; 2];\n\
                    fn f() { let s = \"}\nfn not_an_item() {}\"; }\n\
                    /* }\nfn in_a_comment() {} */\nfn g() {}\n\
                    m! {}\nfn after_macro() {}\n\
                    impl S {} fn same_line() {}\n\
                    fn h() {} // trailing\n// leading\ntrait T {}\n\
                    x! {}\n;\nfn after_stray_semicolon() {}\n\
                    fn k() {}\n#![inner_attribute_is_no_cut]\nenum E {}\n";
        assert_eq!(
            cut_lines(text),
            [
                "pub mod outer {",
                "/// Doc.",
                "const C: [u8; 2] = [0; 2];",
                "fn f() { let s = \"}",
                "/* }",
                "fn after_macro() {}",
                "impl S {} fn same_line() {}",
                "fn h() {} // trailing",
                "// trailing",
                "fn after_stray_semicolon() {}",
                "fn k() {}",
            ]
        );
        // Cut just past the `}` or `;`.
        for at in all_cuts(text) {
            assert!(text[..at].ends_with(['}', ';']), "{:?}", &text[..at]);
        }
    }

    #[test]
    fn cuts_are_spread_over_the_text() {
        let item = "fn f() { let x = 1; }\n";
        let text = item.repeat(1000);
        let cuts = cuts(&text, 4);
        assert_eq!(cuts.len(), 3);
        for (k, at) in cuts.iter().enumerate() {
            let target = text.len() / 4 * (k + 1);
            assert!(
                *at >= target && *at < target + item.len(),
                "{at} for {target}"
            );
        }
        assert!(super::cuts(&text, 1).is_empty());
    }

    /// Items of many shapes, each closing at top level in its own way, with the comments,
    /// attributes and unindented nesting that generated code has.
    const ITEMS: &str = r#"
// A comment of the file.
use burn::prelude::*;
use std::{collections::HashMap, fmt};

/// Documented.
#[derive(Module, Debug)]
pub struct Model<B: Backend> {
    linear: Linear<B>,
}
pub mod generated {
pub mod block {
use super::*;
pub fn run() -> u8 { 1 }
}
}
impl<B: Backend> Model<B> {
    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let s = "}\nfn not_an_item() {}";
        /* }
        fn in_a_comment() {} */
        self.linear.forward(x)
    }
} // the impl ends

macro_rules! twice { ($x:expr) => { $x * 2 }; }
twice! {}
const SIZES: [usize; 3] = [1, 2, 3];
static NAME: &str = "model";
type Alias = Model<NdArray>;
enum Kind { A, B(u8) }
trait Named { fn name(&self) -> &str; }
extern "C" { fn abs(x: i32) -> i32; }
#[cfg(test)]
mod tests {} // trailing
// leading
fn main() { println!("{}", twice!(2)); }
"#;

    #[test]
    fn a_file_parsed_in_pieces_is_the_file_parsed_whole() {
        let text = ITEMS.repeat(PIECE_BYTES * 3 / ITEMS.len());
        assert!(piece_count(&text, 2) > 1 && cuts(&text, 4).len() == 3);
        for edition in [
            Edition::Edition2015,
            Edition::Edition2021,
            Edition::Edition2024,
        ] {
            let (pieces, errors) = parse_counting_errors(&text, edition);
            let (whole, whole_errors) = parse_piece(&text, edition);
            assert_eq!(whole_errors, 0);
            assert_eq!(errors, 0);
            assert!(pieces == whole, "{edition:?}: the trees differ");
        }
    }

    #[test]
    fn a_file_parsed_at_every_cut_is_the_file_parsed_whole() {
        let text = ITEMS.repeat(2);
        assert!(all_cuts(&text).len() > 20);
        for edition in [
            Edition::Edition2015,
            Edition::Edition2021,
            Edition::Edition2024,
        ] {
            let (pieces, errors) = parse_in_pieces(&text, edition, &all_cuts(&text));
            assert_eq!(errors, 0);
            assert!(
                pieces == parse_piece(&text, edition).0,
                "{edition:?}: the trees differ"
            );
        }
    }

    #[test]
    fn a_file_with_an_error_is_parsed_whole() {
        let half = ITEMS.repeat(PIECE_BYTES * 2 / ITEMS.len());
        let text = format!("{half}fn broken( {{\n{half}");
        let (pieces, errors) = parse_counting_errors(&text, Edition::Edition2021);
        let (whole, whole_errors) = parse_piece(&text, Edition::Edition2021);
        assert!(whole_errors > 0);
        assert_eq!(errors, whole_errors);
        assert!(pieces == whole);
    }
}
