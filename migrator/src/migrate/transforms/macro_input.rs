//! The input of the standard library's expression macros that the parse leaves as tokens,
//! read as the expressions it is. The parse opens `println!(..)`, `assert_eq!(..)` and the
//! other parenthesized ones into calls (`source::open_expression_macros`), but not
//! `vec![..]`, whose brackets no same-length spelling turns into an expression, nor a call
//! through a path (`std::println!(..)`): rules that rewrite expressions would not see
//! `Tensor::<B, 3>::ones(..)` in a `vec![..]`. Each such input is parsed on its own, as an
//! array (`vec![x; n]`) or a tuple of expressions, nested macros too; a transform reads the
//! parsed input and shifts the ranges of its edits back into the file.

use ra_ap_syntax::ast;
use std::sync::Arc;

use ra_ap_syntax::{AstNode, SyntaxNode, TextRange, TextSize};

use super::context::FileCtx;

/// One expression macro's input, parsed on its own.
pub struct MacroInput {
    /// The outermost macro call around it, or the attribute whose string it is, in the file
    /// (the place its scope is read at).
    pub call: SyntaxNode,
    /// The parsed input: `fn f(){(<input>,);}`, or `fn f(){[<input>];}` for `vec!`.
    pub root: ast::SourceFile,
    /// What takes the parsed input's offsets to the file's.
    shift: TextSize,
}

impl MacroInput {
    /// `range` of the parsed input, in the file.
    pub fn in_file(&self, range: TextRange) -> TextRange {
        range + self.shift
    }
}

/// The input of every expression macro of the file whose text contains `needle` (the nested
/// ones too, each parsed on its own), skipping input that does not parse as expressions.
pub fn expression_macro_inputs(ctx: &FileCtx, needle: &str) -> Vec<MacroInput> {
    if !ctx.file.text.contains(needle) {
        return Vec::new();
    }
    let calls: Vec<ast::MacroCall> = (ctx.nodes::<ast::TokenTree>())
        .filter_map(|tree| tree.syntax().parent().and_then(ast::MacroCall::cast))
        .collect();
    // Each call's input, then the expression macros inside it (parsed from that input, so
    // their ranges index its text): (call, the text its ranges index, what takes that text's
    // offsets to the file's, how deep).
    let mut inputs = Vec::new();
    for call in calls {
        let outer = call.syntax().clone();
        let mut pending = vec![(call, Arc::clone(&ctx.file.text), TextSize::from(0), 0)];
        while let Some((call, text, shift, depth)) = pending.pop() {
            let Some((root, fragment, shift)) = parse_input(ctx, &call, &text, shift, needle)
            else {
                continue;
            };
            if depth < 8 {
                let inner = root.syntax().descendants().filter_map(ast::MacroCall::cast);
                pending.extend(inner.map(|call| (call, Arc::clone(&fragment), shift, depth + 1)));
            }
            inputs.push(MacroInput {
                call: outer.clone(),
                root,
                shift,
            });
        }
    }
    inputs
}

/// `call`'s input parsed on its own, when it is an expression macro's and holds `needle`:
/// the tree, its text, and what takes its offsets to the file's (`text`'s ranges are `call`'s,
/// `shift` takes them to the file's).
fn parse_input(
    ctx: &FileCtx,
    call: &ast::MacroCall,
    text: &str,
    shift: TextSize,
    needle: &str,
) -> Option<(ast::SourceFile, Arc<str>, TextSize)> {
    let name = expression_macro_name(call)?;
    let tree = call.token_tree()?;
    let (open, close) = (tree.left_delimiter_token()?, tree.right_delimiter_token()?);
    let (start, end) = (open.text_range().end(), close.text_range().start());
    if start > end || !text[TextRange::new(start, end)].contains(needle) {
        return None;
    }
    let (open_wrap, close_wrap) = match name == "vec" {
        true => ("[", "]"),
        false => ("(", ",)"),
    };
    let prefix = format!("fn f(){{{open_wrap}");
    let input = &text[TextRange::new(start, end)];
    let fragment = format!("{prefix}{input}{close_wrap};}}");
    let parse = ast::SourceFile::parse(&fragment, ctx.file.edition);
    if !parse.errors().is_empty() {
        return None;
    }
    // The input starts where the prefix ends.
    let at = (u32::from(shift) + u32::from(start)).checked_sub(prefix.len() as u32)?;
    Some((parse.tree(), Arc::from(fragment), TextSize::from(at)))
}

/// The name of a standard-library expression macro (`vec`, `std::assert_eq`), else `None`.
fn expression_macro_name(call: &ast::MacroCall) -> Option<String> {
    let names = crate::util::syntax::segment_names(&call.path()?);
    let name = match names.as_slice() {
        [name] => name,
        [root, name] if matches!(root.as_str(), "std" | "core" | "alloc") => name,
        _ => return None,
    };
    (name == "vec" || crate::migrate::source::EXPRESSION_MACROS.contains(&name.as_str()))
        .then(|| name.clone())
}

/// A string an attribute passes as a named value that holds a Rust type
/// (`#[registry(server_type = "Server<InferenceBackend>")]`): a procedural macro parses the
/// type out of it and emits it as code, which the parse of the file leaves as a string. Not a
/// positional string (`#[case("Server<B>")]` test data), nor a label (`"Flex (CPU)"`).
pub fn is_a_named_type_string(
    token: &ra_ap_syntax::SyntaxToken,
    edition: ra_ap_syntax::Edition,
) -> bool {
    is_a_named_attribute_string(token) && string_type(token.text(), edition).is_some()
}

/// A string an attribute passes as a named value (`name = ".."`), whatever it holds.
fn is_a_named_attribute_string(token: &ra_ap_syntax::SyntaxToken) -> bool {
    use crate::util::syntax::prev_significant;
    use ra_ap_syntax::SyntaxKind;
    let a_named_value = prev_significant(token).is_some_and(|eq| {
        eq.text() == "=" && prev_significant(&eq).is_some_and(|n| n.kind() == SyntaxKind::IDENT)
    });
    let in_an_attribute = (token.parent_ancestors())
        .find(|node| {
            ast::TokenTree::can_cast(node.kind())
                && !node
                    .parent()
                    .is_some_and(|p| ast::TokenTree::can_cast(p.kind()))
        })
        .and_then(|tree| tree.parent())
        .is_some_and(|p| ast::Meta::can_cast(p.kind()));
    token.kind() == SyntaxKind::STRING && a_named_value && in_an_attribute
}

/// The prefix under which `string_type` parses a string's content.
const TYPE_PREFIX: &str = "type T = ";

/// A string literal's content (`"Server<B>"`, quotes included) parsed as the type of an alias,
/// where it is one (a plain string: an escape would shift the offsets).
fn string_type(literal: &str, edition: ra_ap_syntax::Edition) -> Option<ast::SourceFile> {
    let content = (literal.strip_prefix('"')).and_then(|l| l.strip_suffix('"'))?;
    if content.contains('\\') {
        return None;
    }
    let parse = ast::SourceFile::parse(&format!("{TYPE_PREFIX}{content};"), edition);
    parse.errors().is_empty().then(|| parse.tree())
}

/// The types the file's attributes pass as named string values (`is_a_named_type_string`),
/// each parsed on its own, with the attribute as the place its scope is read at.
pub fn attribute_type_strings(ctx: &FileCtx) -> Vec<MacroInput> {
    let mut out = Vec::new();
    for tree in ctx.nodes::<ast::TokenTree>() {
        let Some(meta) = tree
            .syntax()
            .parent()
            .filter(|p| ast::Meta::can_cast(p.kind()))
        else {
            continue;
        };
        let strings = (tree.syntax().descendants_with_tokens())
            .filter_map(|element| element.into_token())
            .filter(is_a_named_attribute_string);
        for token in strings {
            let Some(root) = string_type(token.text(), ctx.file.edition) else {
                continue;
            };
            // The content starts after the quote, where the prefix ends in the parse.
            let content = u32::from(token.text_range().start()) + 1;
            let Some(shift) = content.checked_sub(TYPE_PREFIX.len() as u32) else {
                continue;
            };
            out.push(MacroInput {
                call: meta.clone(),
                root,
                shift: TextSize::from(shift),
            });
        }
    }
    out
}
