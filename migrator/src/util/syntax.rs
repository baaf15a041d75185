//! Small helpers over `ra_ap_syntax` trees shared by the index and the transforms.

use ra_ap_syntax::ast::{self, HasGenericArgs};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

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

pub fn segment_name(segment: &ast::PathSegment) -> String {
    match segment.name_ref() {
        Some(name) => name.text().to_string(),
        None => segment.syntax().text().to_string(),
    }
}

/// The single identifier a type is, if it is a plain one-segment path without arguments.
pub fn type_as_ident(ty: &ast::Type) -> Option<String> {
    let ast::Type::PathType(path_type) = ty else {
        return None;
    };
    path_as_ident(&path_type.path()?)
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
pub fn remove_list_elements(elements: &[SyntaxNode], remove: &[bool]) -> Option<Vec<TextRange>> {
    let last_kept = remove.iter().rposition(|r| !r)?;
    let mut ranges = Vec::new();
    for (i, element) in elements.iter().enumerate() {
        if !remove[i] {
            continue;
        }
        if i < last_kept {
            let end = elements[i + 1].text_range().start();
            ranges.push(TextRange::new(element.text_range().start(), end));
        }
    }
    if last_kept + 1 < elements.len() {
        let start = elements[last_kept].text_range().end();
        let end = elements[elements.len() - 1].text_range().end();
        ranges.push(TextRange::new(start, end));
    }
    Some(ranges)
}

/// The range that removes a whole item or statement: the node (its attributes and doc
/// comments are part of it), the indentation before it and the line break after it.
pub fn line_removal_range(node: &SyntaxNode) -> TextRange {
    let range = node.text_range();
    let mut start = range.start();
    if let Some(prev) = node.first_token().and_then(|t| t.prev_token()) {
        if prev.kind() == SyntaxKind::WHITESPACE {
            let text = prev.text();
            if let Some(newline) = text.rfind('\n') {
                start = prev.text_range().start() + TextSize::from((newline + 1) as u32);
            }
        }
    }
    let blank_line_before = match node.first_token().and_then(|t| t.prev_token()) {
        None => true,
        Some(prev) => {
            prev.kind() == SyntaxKind::WHITESPACE && prev.text().matches('\n').count() >= 2
        }
    };
    let mut end = range.end();
    if let Some(next) = node.last_token().and_then(|t| t.next_token()) {
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

/// Whether `node` mentions the identifier `name` as a path segment anywhere inside it.
pub fn mentions_ident(node: &SyntaxNode, name: &str) -> bool {
    node.descendants()
        .filter_map(ast::NameRef::cast)
        .any(|n| n.text() == name)
}
