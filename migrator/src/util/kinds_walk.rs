//! The nodes of some kinds in a tree, found without a cursor per node.
//!
//! `SyntaxNode::descendants()` allocates a cursor (rowan's red node) for every node it visits
//! and frees those nobody keeps: on a large file several times the nodes a transform list
//! wants (measured in `testdata/measurements/speed.md`). This walk reads the green tree, which costs no allocation, and
//! makes cursors only for the nodes it returns and their ancestors, each once: where a node
//! of a wanted kind turns up, the cursors between it and the nearest ancestor that has one
//! are made top-down, each found in its parent by its range.

use ra_ap_syntax::{NodeOrToken, SyntaxKind, SyntaxNode, TextRange, TextSize};
use rowan::Language;

/// The nodes under `root` (itself included) whose kind `wanted` accepts, in the order
/// `root.descendants()` gives them.
pub fn descendants_of_kinds(
    root: &SyntaxNode,
    wanted: impl Fn(SyntaxKind) -> bool,
) -> Vec<SyntaxNode> {
    let mut found = Vec::new();
    if wanted(root.kind()) {
        found.push(root.clone());
    }
    let mut path = vec![Frame {
        children: root.green().children(),
        next_offset: root.text_range().start(),
        nodes_before: 0,
        range: root.text_range(),
        place: 0,
        kind: root.kind(),
        cursor: Some(root.clone()),
    }];
    while let Some(top) = path.last_mut() {
        let Some(child) = top.children.next() else {
            path.pop();
            continue;
        };
        let start = top.next_offset;
        top.next_offset += child.text_len();
        let NodeOrToken::Node(green) = child else {
            continue;
        };
        let place = top.nodes_before;
        top.nodes_before += 1;
        let kind = ra_ap_syntax::RustLanguage::kind_from_raw(green.kind());
        path.push(Frame {
            children: green.children(),
            next_offset: start,
            nodes_before: 0,
            range: TextRange::at(start, TextSize::from(u32::from(green.text_len()))),
            place,
            kind,
            cursor: None,
        });
        if wanted(kind) {
            found.push(make_cursors(&mut path));
        }
    }
    found
}

/// One node on the way from the root to where the walk is.
struct Frame<'g> {
    /// Its green children not yet visited.
    children: rowan::Children<'g>,
    /// Where the next of them starts.
    next_offset: TextSize,
    /// How many of its node children were visited.
    nodes_before: usize,
    range: TextRange,
    /// Its place among its parent's node children.
    place: usize,
    kind: SyntaxKind,
    cursor: Option<SyntaxNode>,
}

/// The cursor of the last node of `path`, made with those of its ancestors that have none.
fn make_cursors(path: &mut [Frame]) -> SyntaxNode {
    let first_missing = path
        .iter()
        .rposition(|frame| frame.cursor.is_some())
        .map_or(0, |i| i + 1);
    for i in first_missing..path.len() {
        let (done, rest) = path.split_at_mut(i);
        let parent = done
            .last()
            .and_then(|frame| frame.cursor.as_ref())
            .expect("the root has a cursor, and each frame after it gets one in turn");
        rest[0].cursor = Some(child_cursor(parent, &rest[0]));
    }
    path.last()
        .and_then(|frame| frame.cursor.clone())
        .expect("made above")
}

/// The cursor of `child`, a node child of `parent`: found by its range (a binary search over
/// the parent's children); an empty node, which that search cannot tell from its neighbours,
/// by its place.
fn child_cursor(parent: &SyntaxNode, child: &Frame) -> SyntaxNode {
    let by_range = (!child.range.is_empty())
        .then(|| parent.child_or_token_at_range(child.range))
        .flatten()
        .and_then(NodeOrToken::into_node)
        .filter(|node| node.kind() == child.kind && node.text_range() == child.range);
    by_range
        .or_else(|| parent.children().nth(child.place))
        .expect("a node the green tree holds has a cursor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ra_ap_syntax::{AstNode, Edition, SourceFile};

    /// The walk returns what `descendants()` filtered by kind returns, the same nodes in the
    /// same order, for several choices of kinds, on code with nested items, macros, empty
    /// nodes from syntax errors and a file that is one node.
    #[test]
    fn finds_what_descendants_find() {
        let texts = [
            "",
            "fn main() {}",
            r#"
use burn::{prelude::*, tensor::{backend::Backend, Tensor}};
mod inner {
    pub struct Model<B: Backend> { w: Tensor<B, 2>, f: fn(u8) -> u8 }
    impl<B: Backend> Model<B> {
        pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
            let y = x.clone().matmul(self.w.clone());
            println!("{}", y);
            match y.dims() { [a, b] if a > b => y, _ => <B as Backend>::name().into() }
        }
    }
}
"#,
            // Syntax errors leave empty error nodes and odd shapes behind.
            "fn broken( { let = ; struct { impl <> for } use ::{;",
            "fn f() { a::<>::b(); let _ = S { .. }; #[cfg(x)] {} }",
        ];
        let choices: [&dyn Fn(SyntaxKind) -> bool; 5] = [
            &|_| true,
            &|kind| kind == SyntaxKind::PATH,
            &|kind| {
                matches!(
                    kind,
                    SyntaxKind::FN | SyntaxKind::USE_TREE | SyntaxKind::ERROR
                )
            },
            &|kind| kind == SyntaxKind::SOURCE_FILE,
            &|_| false,
        ];
        for text in texts {
            let root = SourceFile::parse(text, Edition::Edition2021)
                .tree()
                .syntax()
                .clone();
            for wanted in choices {
                let walked: Vec<SyntaxNode> =
                    root.descendants().filter(|n| wanted(n.kind())).collect();
                assert_eq!(descendants_of_kinds(&root, wanted), walked, "{text}");
            }
            // From a node inside the tree too.
            if let Some(inner) = root.descendants().nth(3) {
                let walked: Vec<SyntaxNode> = inner.descendants().collect();
                assert_eq!(descendants_of_kinds(&inner, |_| true), walked, "{text}");
            }
        }
    }
}
