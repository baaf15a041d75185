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
    /// The outermost macro call around it, in the file (the place its scope is read at).
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
