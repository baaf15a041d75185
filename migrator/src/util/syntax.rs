//! Small helpers over `ra_ap_syntax` trees shared by the index and the transforms.

use ra_ap_syntax::ast::{self, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

/// The byte offsets of `needle` in `text`, left to right and not overlapping, as
/// `text.match_indices(needle)` gives them (none for an empty needle): memchr's searcher, which
/// is several times faster than std's on the names the steps look for. A match of a UTF-8
/// needle in UTF-8 text starts and ends at character boundaries.
pub fn find_all<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let haystack = if needle.is_empty() { "" } else { text };
    memchr::memmem::find_iter(haystack.as_bytes(), needle.as_bytes())
        .filter(move |_| !needle.is_empty())
}

/// Whether `text` holds `needle`, as `text.contains(needle)` says, with memchr's searcher.
pub fn contains(text: &str, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

/// The byte offsets where `word` stands in `text` as a whole word: not preceded or followed by
/// a letter, digit or `_` (a name, not part of a longer one). Comments and strings count too.
pub fn word_offsets<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    find_all(text, word).filter(move |&at| {
        !word.is_empty()
            && !text[..at].chars().next_back().is_some_and(in_word)
            && !text[at + word.len()..].chars().next().is_some_and(in_word)
    })
}

/// The words of `text` (runs of letters, digits and `_`) that end with `suffix`, at each
/// place the text spells one.
pub fn words_ending_with<'a>(text: &'a str, suffix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    find_all(text, suffix).filter_map(move |at| {
        let end = at + suffix.len();
        if suffix.is_empty() || text[end..].chars().next().is_some_and(in_word) {
            return None;
        }
        let start = (text[..at].char_indices().rev())
            .take_while(|&(_, c)| in_word(c))
            .last()
            .map_or(at, |(i, _)| i);
        Some(&text[start..end])
    })
}

/// The parts of a path written as text (`burn::tensor::Tensor`), as `path.split("::")` gives
/// them, without the substring searcher `split` sets up on every call: rules' patterns are
/// split for every file, many times over.
pub fn path_parts(path: &str) -> impl Iterator<Item = &str> + '_ {
    let mut rest = Some(path);
    std::iter::from_fn(move || {
        let current = rest?;
        let bytes = current.as_bytes();
        match (0..bytes.len().saturating_sub(1)).find(|&i| bytes[i] == b':' && bytes[i + 1] == b':')
        {
            Some(at) => {
                rest = Some(&current[at + 2..]);
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// Names of a path's segments, outermost first (`burn::tensor::Tensor` -> three names).
/// A segment without a plain name (`<T as Trait>`, `Self`) yields its text.
pub fn segment_names(path: &ast::Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = Some(path.clone());
    while let Some(p) = current {
        if let Some(segment) = p.segment() {
            names.push(segment_name(&segment));
        }
        current = p.qualifier();
    }
    names.reverse();
    names
}

/// The name of a qualified path's outermost segment (`burn` of `burn::tensor::Tensor`), as
/// `segment_names(path)[0]` without collecting the others; `None` for a single segment.
pub fn outermost_segment_name(path: &ast::Path) -> Option<String> {
    let mut outermost = None;
    let mut current = path.qualifier();
    while let Some(p) = current {
        if let Some(segment) = p.segment() {
            outermost = Some(segment);
        }
        current = p.qualifier();
    }
    outermost.map(|segment| segment_name(&segment))
}

pub fn segment_name(segment: &ast::PathSegment) -> String {
    match segment.name_ref() {
        Some(name) => name.text().to_string(),
        None => segment.syntax().text().to_string(),
    }
}

/// The name a call calls: a method call's method, a function call's last path segment
/// (`None` for anything else).
pub fn callee_name(call: &SyntaxNode) -> Option<String> {
    if let Some(method) = ast::MethodCallExpr::cast(call.clone()) {
        return method.name_ref().map(|n| n.text().to_string());
    }
    match ast::CallExpr::cast(call.clone())?.expr()? {
        ast::Expr::PathExpr(p) => segment_names(&p.path()?).pop(),
        _ => None,
    }
}

/// The single identifier a type is, if it is a plain one-segment path without arguments.
pub fn type_as_ident(ty: &ast::Type) -> Option<String> {
    let ast::Type::PathType(path_type) = ty else {
        return None;
    };
    path_as_ident(&path_type.path()?)
}

/// The node of the tree at `root` whose text is exactly `range` (the innermost, as rowan's
/// `covering_element` finds it), if any; `None` for a range past the tree's end, where
/// `covering_element` would panic.
pub fn node_spanning(root: &SyntaxNode, range: TextRange) -> Option<SyntaxNode> {
    if !root.text_range().contains_range(range) {
        return None;
    }
    match root.covering_element(range) {
        ra_ap_syntax::NodeOrToken::Node(node) => (node.text_range() == range).then_some(node),
        ra_ap_syntax::NodeOrToken::Token(_) => None,
    }
}

/// The borrowed expression of `&expr`, else `expr` itself (`None` for a `&` with nothing
/// after it).
pub fn without_borrow(expr: &ast::Expr) -> Option<ast::Expr> {
    match expr {
        ast::Expr::RefExpr(reference) => reference.expr(),
        other => Some(other.clone()),
    }
}

pub fn path_as_ident(path: &ast::Path) -> Option<String> {
    if path.qualifier().is_some() {
        return None;
    }
    let segment = path.segment()?;
    if segment.generic_arg_list().is_some() || segment.type_anchor().is_some() {
        return None;
    }
    Some(segment.name_ref()?.text().to_string())
}

/// Ranges to delete so that the elements marked in `remove` disappear from a comma-separated
/// list, commas included. `None` when every element goes: the caller removes the list itself.
/// Comments document the element below them or, on its line, the one before: a removed
/// element takes those, a kept one keeps them.
pub fn remove_list_elements(elements: &[SyntaxNode], remove: &[bool]) -> Option<Vec<TextRange>> {
    let last_kept = remove.iter().rposition(|r| !r)?;
    let mut ranges = Vec::new();
    for (i, element) in elements.iter().enumerate() {
        if !remove[i] {
            continue;
        }
        if i < last_kept {
            let next = elements[i + 1].text_range().start();
            let end = own_line_comment_between(element, next).unwrap_or(next);
            ranges.push(TextRange::new(own_line_comments_above(element), end));
        }
    }
    if last_kept + 1 < elements.len() {
        let start = elements[last_kept].text_range().end();
        let end = elements[elements.len() - 1].text_range().end();
        ranges.push(TextRange::new(start, end));
    }
    Some(ranges)
}

/// The start of the comments on lines of their own right above `node`, or of `node`.
fn own_line_comments_above(node: &SyntaxNode) -> TextSize {
    let mut start = node.text_range().start();
    let mut token = node.first_token().and_then(|t| t.prev_token());
    while let Some(t) = token.filter(|t| t.kind() == SyntaxKind::WHITESPACE) {
        let comment = t.prev_token().filter(|c| c.kind() == SyntaxKind::COMMENT);
        let Some(comment) = comment.filter(|_| t.text().contains('\n')) else {
            break;
        };
        let own_line = comment
            .prev_token()
            .is_some_and(|w| w.kind() == SyntaxKind::WHITESPACE && w.text().contains('\n'));
        if !own_line {
            break;
        }
        start = comment.text_range().start();
        token = comment.prev_token();
    }
    start
}

/// The start of the first comment between `node` and `limit` that begins its own line.
fn own_line_comment_between(node: &SyntaxNode, limit: TextSize) -> Option<TextSize> {
    let mut line_break = false;
    let mut token = node.last_token()?.next_token();
    while let Some(t) = token.filter(|t| t.text_range().start() < limit) {
        match t.kind() {
            SyntaxKind::WHITESPACE => line_break |= t.text().contains('\n'),
            SyntaxKind::COMMENT if line_break => return Some(t.text_range().start()),
            _ => {}
        }
        token = t.next_token();
    }
    None
}

/// The range that removes a whole item or statement: the node (its attributes and doc
/// comments are part of it), the indentation before it, a comment after it on its line, and
/// the line break after it. Ordinary comments above a `use` head the imports below it and
/// stay; a comment the parser attached to the node from the end of the line before belongs
/// to that line and stays.
pub fn line_removal_range(node: &SyntaxNode) -> TextRange {
    let Some(first) = removed_start(node) else {
        return node.text_range();
    };
    let mut start = first.text_range().start();
    let prev = first.prev_token();
    if let Some(prev) = prev.as_ref().filter(|p| p.kind() == SyntaxKind::WHITESPACE) {
        if let Some(newline) = prev.text().rfind('\n') {
            start = prev.text_range().start() + TextSize::from((newline + 1) as u32);
        }
    }
    let blank_line_before = match prev {
        None => true,
        Some(prev) => {
            prev.kind() == SyntaxKind::WHITESPACE && prev.text().matches('\n').count() >= 2
        }
    };
    let mut end = node.text_range().end();
    let mut after = node.last_token().and_then(|t| t.next_token());
    // A comment after the node on its line comments the removed code.
    if let Some(space) = after.clone().filter(is_inline_space) {
        if let Some(comment) = space
            .next_token()
            .filter(|t| t.kind() == SyntaxKind::COMMENT)
        {
            end = comment.text_range().end();
            after = comment.next_token();
        }
    }
    if let Some(next) = after {
        if next.kind() == SyntaxKind::WHITESPACE {
            let text = next.text();
            if let Some(newline) = text.find('\n') {
                let mut cut = newline + 1;
                // Between two blank lines, take one along so no double gap is left behind.
                let rest = &text[cut..];
                if blank_line_before {
                    if let Some(second) = rest.find('\n').filter(|&i| rest[..i].trim().is_empty()) {
                        cut += second + 1;
                    }
                }
                end = next.text_range().start() + TextSize::from(cut as u32);
            }
        }
    }
    TextRange::new(start, end)
}

fn is_inline_space(token: &SyntaxToken) -> bool {
    token.kind() == SyntaxKind::WHITESPACE && !token.text().contains('\n')
}

/// The first token of `node` that its removal takes: leading comments that belong elsewhere
/// (see `line_removal_range`) are skipped.
fn removed_start(node: &SyntaxNode) -> Option<SyntaxToken> {
    let keeps_plain_comments = ast::Use::can_cast(node.kind());
    let first = node.first_token()?;
    let mut token = first.clone();
    // Still on the line of the code before the node: a trailing comment of that line.
    let mut same_line = first.prev_token().is_some_and(|p| is_inline_space(&p));
    loop {
        let keep = match token.kind() {
            SyntaxKind::COMMENT => {
                same_line || (keeps_plain_comments && !is_doc_comment(token.text()))
            }
            SyntaxKind::WHITESPACE => {
                same_line &= !token.text().contains('\n');
                true
            }
            _ => false,
        };
        match token.next_token() {
            Some(next) if keep && node.text_range().contains_range(next.text_range()) => {
                token = next;
            }
            _ => break,
        }
    }
    Some(if token.kind().is_trivia() {
        first
    } else {
        token
    })
}

/// `///`, `//!`, `/**` and `/*!` comments document an item; `////` and `/***` do not.
fn is_doc_comment(text: &str) -> bool {
    let outer = |marker: &str, not: &str| text.starts_with(marker) && !text.starts_with(not);
    outer("///", "////")
        || outer("/**", "/***")
        || text.starts_with("//!")
        || text.starts_with("/*!")
}
/// The indentation of the line a node starts on.
pub fn indentation(node: &SyntaxNode) -> String {
    let mut token = node.first_token().and_then(|t| t.prev_token());
    while let Some(t) = token {
        if t.kind() == SyntaxKind::WHITESPACE {
            if let Some(newline) = t.text().rfind('\n') {
                return t.text()[newline + 1..].to_string();
            }
        }
        if t.text().contains('\n') {
            return String::new();
        }
        token = t.prev_token();
    }
    String::new()
}

/// The previous token that is not whitespace or a comment.
pub fn prev_significant(token: &SyntaxToken) -> Option<SyntaxToken> {
    let mut t = token.prev_token();
    while let Some(tok) = t {
        if !tok.kind().is_trivia() {
            return Some(tok);
        }
        t = tok.prev_token();
    }
    None
}

/// The next token that is not whitespace or a comment.
pub fn next_significant(token: &SyntaxToken) -> Option<SyntaxToken> {
    let mut t = token.next_token();
    while let Some(tok) = t {
        if !tok.kind().is_trivia() {
            return Some(tok);
        }
        t = tok.next_token();
    }
    None
}

/// Whether `tree` is the body of a macro definition (`macro_rules! m { .. }`, `macro m(..)
/// { .. }`) or the input of a macro call the parser did not open (`thread_local! { .. }`, a
/// project's `m!(..)`): code the parser leaves as tokens, which `token_tree_paths` reads.
pub fn is_macro_body(tree: &ast::TokenTree) -> bool {
    tree.syntax().parent().is_some_and(|parent| {
        let kind = parent.kind();
        ast::MacroRules::can_cast(kind)
            || ast::MacroDef::can_cast(kind)
            || ast::MacroCall::can_cast(kind)
    })
}

/// The paths a macro body (`is_macro_body`) writes, which the parser leaves as tokens: each run `a::b::C` of names, as its segment names and range. A name after
/// `$` (a metavariable), `.` (a field or method) or `::` (the rest of a longer path) starts
/// none; a leading `::` or `$crate::` is not part of the names.
pub fn token_tree_paths(tree: &ast::TokenTree) -> Vec<(Vec<String>, TextRange)> {
    use ra_ap_syntax::SyntaxKind::{COLON, COLON2, DOLLAR, DOT, IDENT};
    let tokens: Vec<SyntaxToken> = (tree.syntax().descendants_with_tokens())
        .filter_map(|element| element.into_token())
        .filter(|token| !token.kind().is_trivia())
        .collect();
    let kind = |at: usize| tokens.get(at).map(SyntaxToken::kind);
    // The number of tokens of a `::` at `at`: the parser leaves it one token in some bodies
    // (a macro call's) and two `:` in others (a `macro_rules!` body's).
    let double_colon = |at: usize| match kind(at) {
        Some(COLON2) => Some(1),
        Some(COLON) if kind(at + 1) == Some(COLON) => {
            let (first, second) = (&tokens[at], &tokens[at + 1]);
            (first.text_range().end() == second.text_range().start()).then_some(2)
        }
        _ => None,
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let after_separator = at > 0
            && (matches!(kind(at - 1), Some(DOLLAR | DOT | COLON2))
                || (at >= 2 && double_colon(at - 2) == Some(2)));
        if kind(at) != Some(IDENT) || after_separator {
            at += 1;
            continue;
        }
        let start = tokens[at].text_range().start();
        let mut names = vec![tokens[at].text().to_string()];
        let mut end = tokens[at].text_range().end();
        at += 1;
        while let Some(width) = double_colon(at).filter(|&w| kind(at + w) == Some(IDENT)) {
            names.push(tokens[at + width].text().to_string());
            end = tokens[at + width].text_range().end();
            at += width + 1;
        }
        out.push((names, TextRange::new(start, end)));
    }
    out
}

/// Whether `node` mentions the identifier `name` as a path segment anywhere inside it.
pub fn mentions_ident(node: &SyntaxNode, name: &str) -> bool {
    node.descendants()
        .filter_map(ast::NameRef::cast)
        .any(|n| n.text() == name)
}

/// The one type argument of `ty` written as `name<T>` (`PhantomData<B>`, `Option<I>`), by its
/// last path segment.
pub fn single_type_argument(ty: &ast::Type, name: &str) -> Option<ast::Type> {
    let ast::Type::PathType(path_type) = ty else {
        return None;
    };
    let segment = path_type.path()?.segment()?;
    if segment.name_ref()?.text() != name {
        return None;
    }
    let args: Vec<_> = segment.generic_arg_list()?.generic_args().collect();
    match args.as_slice() {
        [ast::GenericArg::TypeArg(t)] => t.ty(),
        _ => None,
    }
}

/// Whether `function`'s body hands a value back other than as its tail: a `return` (outside
/// closures) or `?`, whose values a wrapper around the tail (`Ok(..)`) would not reach.
pub fn leaves_other_than_by_tail(function: &ast::Fn) -> bool {
    let Some(body) = function.body() else {
        return true;
    };
    body.syntax()
        .descendants()
        .filter(|node| {
            ast::ReturnExpr::can_cast(node.kind()) || ast::TryExpr::can_cast(node.kind())
        })
        .any(|node| {
            !node
                .ancestors()
                .take_while(|a| a != body.syntax())
                .any(|a| ast::ClosureExpr::can_cast(a.kind()))
        })
}

/// The type of the function's parameter `name`, where `name` is used at `at`.
pub fn parameter_type(at: &SyntaxNode, name: &str) -> Option<ast::Type> {
    let function = at.ancestors().find_map(ast::Fn::cast)?;
    function.param_list()?.params().find_map(|param| {
        let ast::Pat::IdentPat(pattern) = param.pat()? else {
            return None;
        };
        (pattern.name()?.text() == name)
            .then(|| param.ty())
            .flatten()
    })
}

/// A method call `recv.name()` with no turbofish and no arguments.
pub fn is_plain_call(call: &ast::MethodCallExpr, name: &str) -> bool {
    use ast::HasArgList;
    call.name_ref().is_some_and(|n| n.text() == name)
        && call.generic_arg_list().is_none()
        && call.arg_list().is_some_and(|a| a.args().next().is_none())
}

#[cfg(test)]
mod tests {
    use super::{
        is_macro_body, node_spanning, path_parts, token_tree_paths, word_offsets, words_ending_with,
    };
    use ra_ap_syntax::{ast, AstNode, Edition, SourceFile, TextRange};

    /// A range that is a node's gives the node; one inside a token, across two nodes or past
    /// the end of the tree gives none (and does not panic).
    #[test]
    fn node_spanning_a_range_is_that_nodes_or_none() {
        let parse = SourceFile::parse("fn f() {}\nstruct S;\n", Edition::Edition2021);
        let root = parse.tree().syntax().clone();
        let at =
            |start: u32, end: u32| node_spanning(&root, TextRange::new(start.into(), end.into()));
        assert!(at(0, 9).is_some_and(|n| ast::Fn::can_cast(n.kind())));
        assert!(at(10, 19).is_some_and(|n| ast::Struct::can_cast(n.kind())));
        assert!(at(1, 2).is_none());
        assert!(at(5, 12).is_none());
        assert!(at(10, 400).is_none());
    }

    #[test]
    fn macro_bodies_are_read_as_paths() {
        let text = "macro_rules! m { ($s:ident, $e:expr) => { type $s = burn::record::Full; \
                    let x = $e.field; $crate::a::B; Local::new(::std::vec::Vec::new()) }; }\n\
                    fn f() { thread_local!(static T: nn :: Kind = nn::Kind); }\n\
                    #[derive(Debug)] struct S;";
        let file = SourceFile::parse(text, Edition::Edition2021).tree();
        let bodies: Vec<ast::TokenTree> = (file.syntax().descendants())
            .filter_map(ast::TokenTree::cast)
            .filter(is_macro_body)
            .collect();
        // The derive's list is an attribute's, not a macro body.
        assert_eq!(bodies.len(), 2);
        let paths = |body: &ast::TokenTree| -> Vec<String> {
            (token_tree_paths(body).into_iter())
                .map(|(names, range)| {
                    assert_eq!(text[range].replace(' ', ""), names.join("::"));
                    names.join("::")
                })
                .collect()
        };
        // Metavariables, fields, the rest of `$crate::` and of a leading `::` start none.
        let definition = ["ident", "expr", "burn::record::Full", "x", "Local::new"];
        assert_eq!(paths(&bodies[0]), definition);
        // `::` written with spaces joins a path all the same; keywords are not names.
        assert_eq!(paths(&bodies[1]), ["T", "nn::Kind", "nn::Kind"]);
    }

    #[test]
    fn path_parts_are_what_split_gives() {
        for path in [
            "burn::tensor::Tensor",
            "Tensor",
            "",
            "::a",
            "a::",
            "a:::b",
            "a::::b",
            "a:b",
            ":",
        ] {
            assert_eq!(
                path_parts(path).collect::<Vec<_>>(),
                path.split("::").collect::<Vec<_>>(),
                "{path:?}"
            );
        }
    }

    #[test]
    fn a_word_is_found_alone_and_not_inside_longer_names() {
        let text = "Device MyDevice Device_ Device2 (Device) ::Device élanDevice";
        assert_eq!(
            word_offsets(text, "Device").collect::<Vec<_>>(),
            [0, 33, 43]
        );
        assert_eq!(word_offsets(text, "").count(), 0);
    }

    #[test]
    fn words_ending_with_a_suffix_are_whole_words() {
        let text = "ModelRecord<B> r#XRecord RecordRecord Record aRecordb élanRecord\n_Record";
        assert_eq!(
            words_ending_with(text, "Record").collect::<Vec<_>>(),
            [
                "ModelRecord",
                "XRecord",
                "RecordRecord",
                "Record",
                "élanRecord",
                "_Record"
            ]
        );
        assert_eq!(words_ending_with(text, "").count(), 0);
    }
}
