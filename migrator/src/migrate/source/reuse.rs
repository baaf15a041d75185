//! A rewritten file parsed again, reusing the trees of the items no edit touched.
//!
//! A pass rewrites a few spans of a file; the next pass needs the whole file's tree. Parsing
//! the new text from scratch was a third of `--apply`'s work on a large workspace, though on
//! real ports a third to a half of a changed file's bytes are items (helpers, impls without a
//! backend, constants) that no edit went near. Their green trees do not depend on where they
//! stand, so the new tree takes them as they are and parses only the text between them
//! ("regions"), each as a file of its own, as `pieces` does. The items of an inline module
//! whose header and braces no edit touched are taken the same way: its item list is built
//! again from its kept items and regions.
//!
//! A region's parse is the whole file's parse of that text when:
//! - the old file parsed without error, so every kept item is an item of a clean parse;
//! - no edit touched a kept item, nor the trivia between it and its neighbours, and the
//!   trivia before it still follow a token that is not trivia (an edit before them did not
//!   make the item before a comment): the comments an item takes (rust-analyzer attaches them
//!   by looking back over all the trivia before it) and the token after it (an item macro's
//!   optional `;`) are those of the old parse;
//! - the region parses without error, and one before a kept item ends with the `}` or `;` of a
//!   complete item, so that the parser meets the kept item between items, as it met it
//!   before;
//! - a region that does not end the file does not end in a line comment, which in the whole
//!   file would take the `}` after it;
//! - a region holds only items and trivia, and inner attributes where it starts a file or an
//!   item list: what only a file's start may hold (a shebang, front matter) is an error
//!   anywhere else. An item list's items parse as a file's do, up to its `}`;
//! - each region's expression macros open from its tokens alone (else the caller's
//!   `parse_cleanly` declines), which start between items, after a `}`, `;` or `{`, as in the
//!   whole file.
//!
//! Anything else parses the whole text (`parse_opened`): reuse is never required, and the
//! tests compare it with the whole parse on every test project's real edits and on random
//! edits.

use ra_ap_syntax::ast::{self, AstNode};
use ra_ap_syntax::{
    GreenNode, NodeOrToken, RustLanguage, SyntaxKind, SyntaxNode, TextRange, TextSize, T,
};
use rayon::prelude::*;
use rowan::{GreenNodeData, GreenTokenData, Language};

/// A green node or token, as `GreenNode::new` takes its children.
type GreenElement = NodeOrToken<GreenNode, rowan::GreenToken>;
type GreenChildren = Vec<GreenElement>;

/// What of a file's tree a pass's edits left alone, by ranges of the text the pass read.
#[derive(Debug, Default)]
pub struct Untouched {
    items: Vec<Element>,
}

/// A top-level item, or an item of a kept module's list, reused by the next parse.
#[derive(Debug)]
struct Element {
    range: TextRange,
    /// The length of the trivia between the item and the token before it.
    trivia_before: TextSize,
    tree: Tree,
}

#[derive(Debug)]
enum Tree {
    Whole(GreenNode),
    /// A module an edit touched between its braces only: its node without its item list, the
    /// range between the braces, and the items in there that are kept.
    Module(ModuleShell, TextRange, Vec<Element>),
}

/// A module's node without its item list's items: all the old tree keeps of it, so that the
/// items edits touched go with the rest of the old tree.
#[derive(Debug)]
struct ModuleShell {
    kind: rowan::SyntaxKind,
    /// The module's children other than its item list, which goes at `list_index`.
    others: GreenChildren,
    list_index: usize,
    list_kind: rowan::SyntaxKind,
    braces: [GreenElement; 2],
}

impl ModuleShell {
    /// The module's node with `items` between its item list's braces.
    fn with_items(self, items: GreenChildren) -> GreenNode {
        let [open, close] = self.braces;
        let list = std::iter::once(open).chain(items).chain([close]);
        let list = GreenNode::new(self.list_kind, list.collect::<Vec<_>>());
        let mut children = self.others;
        children.insert(self.list_index, NodeOrToken::Node(list));
        GreenNode::new(self.kind, children)
    }
}

/// The items of the tree `green` of a file without syntax errors that `edits`
/// (`edit::applied_ranges`: sorted ranges of the file's text and the length put in each)
/// leave alone, trivia around them included. Read from the green tree: a cursor per item
/// of a 10 MB file would add to the pass's peak memory.
pub fn untouched_items(green: &GreenNode, edits: &[(TextRange, usize)]) -> Untouched {
    let bounds = TextRange::up_to(green.text_len());
    Untouched {
        items: kept_elements(&children_of(green, bounds.start()), bounds, edits),
    }
}

/// A child in a green tree.
type GreenRef<'g> = NodeOrToken<&'g GreenNodeData, &'g GreenTokenData>;

fn kind_of(element: GreenRef) -> SyntaxKind {
    RustLanguage::kind_from_raw(match element {
        NodeOrToken::Node(node) => node.kind(),
        NodeOrToken::Token(token) => token.kind(),
    })
}

/// The children of `node`, which starts at `offset`, with their ranges.
fn children_of(node: &GreenNodeData, offset: TextSize) -> Vec<(GreenRef<'_>, TextRange)> {
    let mut at = offset;
    node.children()
        .map(|child| {
            let range = TextRange::at(at, child.text_len());
            at = range.end();
            (child, range)
        })
        .collect()
}

/// Whether an edit reaches into `from..=to` (an insertion at either end does).
fn touches(edits: &[(TextRange, usize)], from: TextSize, to: TextSize) -> bool {
    // Edits are sorted and do not overlap, so their ends are sorted too.
    let first_reaching = edits.partition_point(|(range, _)| range.end() < from);
    edits
        .get(first_reaching)
        .is_some_and(|(range, _)| range.start() <= to)
}

/// The kept items among `children`, the elements of a file or an item list between `bounds`.
fn kept_elements(
    children: &[(GreenRef, TextRange)],
    bounds: TextRange,
    edits: &[(TextRange, usize)],
) -> Vec<Element> {
    let is_trivia = |i: usize| kind_of(children[i].0).is_trivia();
    // The end of the last non-trivia element before each child, and the start of the first
    // after it: an edit anywhere in between touches the item.
    let mut guard_start = vec![bounds.start(); children.len()];
    let mut last_end = bounds.start();
    for (i, (_, range)) in children.iter().enumerate() {
        guard_start[i] = last_end;
        if !is_trivia(i) {
            last_end = range.end();
        }
    }
    let mut elements = Vec::new();
    let mut next_start = bounds.end();
    for (i, &(child, range)) in children.iter().enumerate().rev() {
        let guard = TextRange::new(guard_start[i], next_start);
        if !is_trivia(i) {
            next_start = range.start();
        }
        let NodeOrToken::Node(node) = child else {
            continue;
        };
        if !ast::Item::can_cast(kind_of(child)) {
            continue;
        }
        let tree = if touches(edits, guard.start(), guard.end()) {
            match module_list(node, range, guard, edits) {
                Some(tree) => tree,
                None => continue,
            }
        } else {
            Tree::Whole(node.to_owned())
        };
        elements.push(Element {
            range,
            trivia_before: range.start() - guard.start(),
            tree,
        });
    }
    elements.reverse();
    elements
}

/// For an inline module (`node` at `range`) that edits touch only between its braces (and
/// not its trivia around, `guard`): the module without its items, the range between the
/// braces, and the items in there that are kept; `None` if none is.
fn module_list(
    node: &GreenNodeData,
    range: TextRange,
    guard: TextRange,
    edits: &[(TextRange, usize)],
) -> Option<Tree> {
    if RustLanguage::kind_from_raw(node.kind()) != SyntaxKind::MODULE
        || touches(edits, guard.start(), range.start())
        || touches(edits, range.end(), guard.end())
    {
        return None;
    }
    let children = children_of(node, range.start());
    let list_index = (children.iter()).position(|(c, _)| kind_of(*c) == SyntaxKind::ITEM_LIST)?;
    let (NodeOrToken::Node(list), list_range) = children[list_index] else {
        return None;
    };
    let in_list = children_of(list, list_range.start());
    let (&(open, open_range), &(close, close_range)) = (in_list.first()?, in_list.last()?);
    if kind_of(open) != T!['{'] || kind_of(close) != T!['}'] || in_list.len() < 2 {
        return None;
    }
    let content = TextRange::new(open_range.end(), close_range.start());
    let first = edits.partition_point(|(r, _)| r.end() < range.start());
    let last = edits.partition_point(|(r, _)| r.start() <= range.end());
    let inside = &edits[first..last];
    if !inside.iter().all(|(r, _)| content.contains_range(*r)) {
        return None;
    }
    let items = kept_elements(&in_list[1..in_list.len() - 1], content, inside);
    if items.is_empty() {
        return None;
    }
    let others = (children.iter().enumerate())
        .filter(|&(i, _)| i != list_index)
        .map(|(_, &(child, _))| child.to_owned())
        .collect();
    let shell = ModuleShell {
        kind: node.kind(),
        others,
        list_index,
        list_kind: list.kind(),
        braces: [open.to_owned(), close.to_owned()],
    };
    Some(Tree::Module(shell, content, items))
}

/// The place of old offsets in the new text, asked in increasing order.
struct Shift<'e> {
    edits: std::iter::Peekable<std::slice::Iter<'e, (TextRange, usize)>>,
    by: i64,
}

impl Shift<'_> {
    /// The new offset of `old`. Text put in at `old` itself comes before it, unless
    /// `after_insertions_at_old` is false (the offset just past an item list's `{`).
    fn map(&mut self, old: TextSize, after_insertions_at_old: bool) -> Option<usize> {
        while let Some((range, put_in)) = self.edits.next_if(|(r, _)| {
            r.end() < old || r.end() == old && (after_insertions_at_old || !r.is_empty())
        }) {
            self.by += *put_in as i64 - i64::from(u32::from(range.len()));
        }
        usize::try_from(i64::from(u32::from(old)) + self.by).ok()
    }
}

/// What the new tree is made of, in the new text's order.
enum Piece<'a> {
    Region(Region<'a>),
    Kept(GreenNode),
    /// A kept module, its item list made again of these pieces.
    Module(ModuleShell, Vec<Piece<'a>>),
}

/// What a region of the new text is, for the checks its parse must pass (see the module).
struct Region<'a> {
    text: &'a str,
    at_file_start: bool,
    /// At the start of a file or an item list: inner attributes may come first.
    at_list_start: bool,
    /// Before a kept item: the length its trivia before had.
    trivia_before_kept_item: Option<TextSize>,
    /// At the end of the file; else a `}` or a kept item follows.
    at_file_end: bool,
}

/// The tree of `text`, the text `edits` made of a file whose `untouched` items are reused;
/// `None` where the conditions of the module do not hold (parse the whole text then).
/// `parse_cleanly` parses a region as a file, expression macros opened, where that parse has
/// no error and opening the macros needs no tree.
pub fn parse(
    text: &str,
    untouched: Untouched,
    edits: &[(TextRange, usize)],
    parse_cleanly: impl Fn(&str) -> Option<GreenNode> + Sync,
) -> Option<GreenNode> {
    if untouched.items.is_empty() {
        return None;
    }
    let mut shift = Shift {
        edits: edits.iter().peekable(),
        by: 0,
    };
    let (pieces, end) = plan(text, untouched.items, 0, None, &mut shift)?;
    if end != text.len() {
        return None;
    }
    let mut regions = Vec::new();
    collect_regions(&pieces, &mut regions);
    let parse = |region: &&Region| parse_region(region, &parse_cleanly);
    // Small files are many: their regions are parsed on the thread that has the file.
    let parsed: Vec<GreenChildren> = if text.len() >= super::pieces::PIECE_BYTES {
        regions.par_iter().map(parse).collect::<Option<_>>()?
    } else {
        regions.iter().map(parse).collect::<Option<_>>()?
    };
    let mut parsed = parsed.into_iter();
    let children = assemble(pieces, &mut parsed);
    Some(GreenNode::new(
        rowan::SyntaxKind(SyntaxKind::SOURCE_FILE.into()),
        children,
    ))
}

/// The pieces of a file (`end_old` `None`) or of an item list from `start` in the new text
/// to the new place of `end_old`, with that place.
fn plan<'a>(
    text: &'a str,
    elements: Vec<Element>,
    start: usize,
    end_old: Option<TextSize>,
    shift: &mut Shift,
) -> Option<(Vec<Piece<'a>>, usize)> {
    let mut pieces = Vec::new();
    let mut cursor = start;
    for element in elements {
        let old = element.range;
        let at = shift.map(old.start(), true)?;
        if at > cursor {
            pieces.push(Piece::Region(Region {
                text: text.get(cursor..at)?,
                at_file_start: cursor == 0,
                at_list_start: cursor == start,
                trivia_before_kept_item: Some(element.trivia_before),
                at_file_end: false,
            }));
        } else if at < cursor || element.trivia_before != 0.into() {
            return None;
        }
        let (piece, end) = match element.tree {
            Tree::Whole(green) => {
                if green.text_len() != old.len() {
                    return None;
                }
                (Piece::Kept(green), at + usize::from(old.len()))
            }
            Tree::Module(shell, content, items) => {
                let header = usize::from(content.start() - old.start());
                if shift.map(content.start(), false)? != at + header {
                    return None;
                }
                let (inner, end) = plan(text, items, at + header, Some(content.end()), shift)?;
                let module = Piece::Module(shell, inner);
                (module, end + usize::from(old.end() - content.end()))
            }
        };
        pieces.push(piece);
        cursor = end;
        if cursor > text.len() {
            return None;
        }
    }
    let end = match end_old {
        Some(old) => shift.map(old, true)?,
        None => text.len(),
    };
    if end < cursor {
        return None;
    }
    if end > cursor {
        pieces.push(Piece::Region(Region {
            text: text.get(cursor..end)?,
            at_file_start: cursor == 0,
            at_list_start: cursor == start,
            trivia_before_kept_item: None,
            at_file_end: end == text.len(),
        }));
    }
    Some((pieces, end))
}

fn collect_regions<'p, 'a>(pieces: &'p [Piece<'a>], into: &mut Vec<&'p Region<'a>>) {
    for piece in pieces {
        match piece {
            Piece::Region(region) => into.push(region),
            Piece::Kept(_) => {}
            Piece::Module(_, inner) => collect_regions(inner, into),
        }
    }
}

/// The green children `pieces` make, the regions' parses taken from `parsed` in order.
fn assemble(pieces: Vec<Piece>, parsed: &mut impl Iterator<Item = GreenChildren>) -> GreenChildren {
    let mut children = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Region(_) => children.extend(parsed.next().into_iter().flatten()),
            Piece::Kept(green) => children.push(NodeOrToken::Node(green)),
            Piece::Module(shell, inner) => {
                let items = assemble(inner, parsed);
                children.push(NodeOrToken::Node(shell.with_items(items)));
            }
        }
    }
    children
}

/// The top-level children of `region`'s parse, if it is the whole file's parse of that text
/// (see the module).
fn parse_region(
    region: &Region,
    parse_cleanly: impl Fn(&str) -> Option<GreenNode>,
) -> Option<GreenChildren> {
    let green = parse_cleanly(region.text)?;
    let root = SyntaxNode::new_root(green.clone());
    let allowed = root.children_with_tokens().all(|child| match child {
        NodeOrToken::Node(node) => {
            ast::Item::can_cast(node.kind())
                || region.at_list_start && node.kind() == SyntaxKind::ATTR
        }
        NodeOrToken::Token(token) => token.kind().is_trivia(),
    });
    if !region.at_file_start && !allowed {
        return None;
    }
    // A line comment would take what follows on its line (the `}` of an item list) in the
    // whole file.
    let line_comment = root
        .last_token()
        .is_some_and(|t| t.kind() == SyntaxKind::COMMENT && t.text().starts_with("//"));
    if line_comment && !region.at_file_end {
        return None;
    }
    if let Some(trivia) = region.trivia_before_kept_item {
        if !ends_between_items(&root) || trailing_trivia(&root) != trivia {
            return None;
        }
    }
    Some(green.children().map(|child| child.to_owned()).collect())
}

/// Whether the parser is between items at the end of `root`: after the `}` or `;` that ends
/// an item, after inner attributes, or where it has met nothing but trivia (what comes
/// before is a kept item, or the start of the file or item list).
fn ends_between_items(root: &SyntaxNode) -> bool {
    let last = root
        .children_with_tokens()
        .filter(|child| !child.kind().is_trivia())
        .last();
    match last {
        None => true,
        Some(NodeOrToken::Node(attribute)) if attribute.kind() == SyntaxKind::ATTR => true,
        Some(NodeOrToken::Node(item)) => {
            let mut token = item.last_token();
            while let Some(trivia) = token.as_ref().filter(|t| t.kind().is_trivia()) {
                token = trivia.prev_token();
            }
            token.is_some_and(|t| matches!(t.kind(), T!['}'] | T![;]))
        }
        Some(NodeOrToken::Token(_)) => false,
    }
}

/// The length of the trivia at the end of `root`.
fn trailing_trivia(root: &SyntaxNode) -> TextSize {
    let end = root.text_range().end();
    let last = root
        .children_with_tokens()
        .filter(|child| !child.kind().is_trivia())
        .last();
    end - last.map_or(0.into(), |child| child.text_range().end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::source::{parse_opened, parse_reusing, SourceFile};
    use ra_ap_syntax::Edition;
    use std::path::PathBuf;

    /// Items of many shapes, with what makes a region's parse differ from the whole file's if
    /// done carelessly: comments an item takes or leaves, a brace macro that may take a `;`,
    /// inner attributes, expression macros to open, and modules whose items are kept.
    const FILE: &str = r#"#![allow(unused)]
//! The file's doc.
use burn::prelude::*;

/// Documented.
#[derive(Module, Debug)]
pub struct Model<B: Backend> {
    linear: Linear<B>,
}
// A comment above, taken by the item.
fn helper(x: u8) -> u8 { println!("{}", x); x }

// A comment left alone (blank line after it).

impl<B: Backend> Model<B> {
    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        assert_eq!(x.dims()[0], 2, "/* {} */", 1);
        self.linear.forward(x)
    }
} // trailing
made! {}
const SIZES: [usize; 3] = [1, 2, 3];
macro_rules! twice { ($x:expr) => { $x * 2 }; }
mod inner {
    fn nested() { dbg!(1); }
}
#[cfg(test)]
mod tests {
    #![allow(dead_code)]
    use super::*;

    // Above a test.
    #[test]
    fn one() { assert_eq!(1, 1); }
    fn two() -> u8 { 2 } // after two
    pub mod deeper {
        const D: u8 = 4;

        fn deep() {}
    }
    made! {}
    struct Unit;
}
static NAME: &str = "model";
fn main() { println!("{}", twice!(2)); }
"#;

    /// Replacements an edit may put in: nothing, trivia, closers, item starts, and what
    /// would mean something else away from a file's start.
    const PUT_IN: &[&str] = &[
        "",
        " ",
        "\n",
        "// c\n",
        ";",
        "}",
        "{",
        "fn g() {}\n",
        "x",
        "println!(\"a\")",
        "#![inner]\n",
        "#!",
        "\"",
        "/*",
        "<B>",
        "\n\n",
        "/// doc\n",
        "m! {}",
        "#[test]\n",
        "\n\n/// d",
        "extern \"C\" {}\n",
        "fn f() {} // t\n",
        "'a",
        "r#\"",
    ];

    fn file(text: &str) -> SourceFile {
        let edition = Edition::Edition2021;
        SourceFile::from_text(PathBuf::new(), String::new(), text.to_string(), 0, edition)
    }

    /// Wherever a parse reusing untouched items is made, it is the whole new text's parse,
    /// for edits anywhere, around items' ends and starts above all.
    #[test]
    fn parse_reusing_items_under_random_edits_is_the_whole_parse() {
        // A shebang is the first region's: its tokens do not tell which macros open.
        let with_shebang = format!("#!/usr/bin/env run-cargo-script\n{FILE}");
        let (mut reused, mut differs_from_old) = (0, 0);
        for original in [FILE, with_shebang.as_str()] {
            let (r, d) = reuse_under_random_edits(original);
            reused += r;
            differs_from_old += d;
        }
        assert!(reused > 300 && differs_from_old > 300, "{reused} reused");
    }

    /// How many of 2000 random edit sets of `original` a parse reused items for, and how
    /// many of those changed the text; panics where that parse is not the whole parse.
    fn reuse_under_random_edits(original: &str) -> (usize, usize) {
        let old = file(original);
        assert_eq!(old.syntax_errors, 0);
        // Where items and item lists start and end, at any depth.
        let bounds: Vec<usize> = (old.tree().syntax().descendants())
            .filter(|n| ast::Item::can_cast(n.kind()) || n.kind() == SyntaxKind::ITEM_LIST)
            .flat_map(|item| [item.text_range().start(), item.text_range().end()])
            .map(usize::from)
            .collect();
        let mut next = crate::util::test_random::numbers(11);
        let (mut reused, mut differs_from_old) = (0, 0);
        for _ in 0..3000 {
            // One to three edits, in order, not overlapping; half of them at an item's edge.
            let mut edits: Vec<(usize, usize, &str)> = Vec::new();
            let mut from = 0;
            for _ in 0..1 + next(3) {
                let start = if next(2) == 0 {
                    bounds[next(bounds.len())]
                } else {
                    next(original.len())
                };
                if start < from || !original.is_char_boundary(start) {
                    continue;
                }
                let end = (start + next(4)).min(original.len());
                if !original.is_char_boundary(end) {
                    continue;
                }
                edits.push((start, end, PUT_IN[next(PUT_IN.len())]));
                from = end + 1;
            }
            let mut text = String::new();
            let mut cursor = 0;
            for &(start, end, put_in) in &edits {
                text.push_str(&original[cursor..start]);
                text.push_str(put_in);
                cursor = end;
            }
            text.push_str(&original[cursor..]);
            let applied: Vec<(TextRange, usize)> = (edits.iter())
                .map(|&(s, e, put_in)| {
                    (
                        TextRange::new((s as u32).into(), (e as u32).into()),
                        put_in.len(),
                    )
                })
                .collect();
            let edition = Edition::Edition2021;
            let untouched = old.untouched_items(&applied);
            if let Some(green) = parse_reusing(&text, edition, untouched, &applied) {
                reused += 1;
                let (whole, errors) = parse_opened(&text, edition);
                assert_eq!(errors, 0, "{text}");
                assert!(green == whole, "the trees differ:\n{text}");
                differs_from_old += usize::from(text != original);
            }
        }
        (reused, differs_from_old)
    }

    /// An edit in the trivia between two items, or next to one, keeps neither's tree; one
    /// inside an item keeps the others'.
    #[test]
    fn items_next_to_an_edit_are_parsed_again() {
        let text = "fn a() {}\n\nfn b() {}\nfn c() { 1 }\n";
        let old = file(text);
        let kept = |start: usize, end: usize| {
            let range = TextRange::new((start as u32).into(), (end as u32).into());
            let untouched = old.untouched_items(&[(range, 1)]);
            let ranges: Vec<_> = untouched.items.iter().map(|k| k.range.start()).collect();
            ranges.into_iter().map(usize::from).collect::<Vec<_>>()
        };
        let (b, c) = (text.find("fn b").unwrap(), text.find("fn c").unwrap());
        // In the blank line between `a` and `b`.
        assert_eq!(kept(10, 10), [c]);
        // At `b`'s end: `b` and `c`, whose trivia it is in.
        assert_eq!(kept(b + 9, b + 9), [0]);
        // Inside `c`'s body.
        assert_eq!(kept(c + 9, c + 10), [0, b]);
    }

    /// An edit that makes the item before a kept one part of a comment leaves a comment right
    /// above the kept item, which takes it: the kept item's old tree would not have it.
    #[test]
    fn an_item_that_gains_a_comment_above_is_parsed_again() {
        let text = "fn a() {} // note\nm! {}\nconst C: u8 = 1;\n";
        let old = file(text);
        let note_end = text.find("note").unwrap() + 4;
        let range = TextRange::new((note_end as u32).into(), (note_end as u32 + 1).into());
        let edits = [(range, 1)];
        let new = text.replacen("note\n", "note}", 1);
        let untouched = old.untouched_items(&edits);
        // `fn a` and `const C` are kept (the old tree gave `// note` to `m!`); the parse that
        // reuses them cannot be the whole parse.
        assert_eq!(untouched.items.len(), 2);
        let edition = Edition::Edition2021;
        assert_eq!(parse_reusing(&new, edition, untouched, &edits), None);
        let (whole, _) = parse_opened(&new, edition);
        let constant = SyntaxNode::new_root(whole).children().last().unwrap();
        assert!(constant.text().to_string().starts_with("// note}m! {}"));
    }

    /// A file with a syntax error, or whose tree was let go, reuses nothing.
    #[test]
    fn files_with_errors_reuse_nothing() {
        let broken = file("fn a() {}\nfn b( {}\nfn c() {}\n");
        assert!(broken.syntax_errors > 0);
        assert!(broken.untouched_items(&[]).items.is_empty());
        let mut released = file("fn a() {}\n");
        released.release_tree();
        assert!(released.untouched_items(&[]).items.is_empty());
    }
}
