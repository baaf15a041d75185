//! Drops the backend argument wherever generic arguments are written: `Tensor<B, 2>` ->
//! `Tensor<2>`, `Linear<B>` -> `Linear`, `init::<B>(..)` -> `init(..)`,
//! `train::<MyBackend, Ds>(..)` -> `train::<Ds>(..)`, and `_` at a project item's backend
//! position.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, TextRange, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::BackendParam;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::remove_list_elements;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::GenericArgs),
    run,
    emits: &[RuleId::BackendGenericArg],
    emits_data_rules: false,
    order: Order::Rank(20),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for list in ctx.nodes::<ast::GenericArgList>() {
        let scope = ctx.backends_in_scope(list.syntax());
        drop_backend_args(ctx, &list, &scope, TextSize::from(0));
    }
    let calls: Vec<ast::MacroCall> = (ctx.nodes::<ast::TokenTree>())
        .filter_map(|tree| tree.syntax().parent().and_then(ast::MacroCall::cast))
        .collect();
    for call in calls {
        let scope = ctx.backends_in_scope(call.syntax());
        let text = ctx.file.text.clone();
        port_macro_input(ctx, &call, &text, TextSize::from(0), &scope, 0);
    }
}

/// The standard library's macros whose input is Rust expressions (the format macros' first
/// argument a literal): `vec![Tensor::<B, 2>::zeros(..), ..]`, `assert_eq!(x, Tensor::<B, 1>::..)`.
/// The parser leaves any macro's input as tokens; these are read as the expressions they are.
/// (`matches!` takes a pattern, so it is not one of them.)
const EXPRESSION_MACROS: &[&str] = &[
    "vec",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "format",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "panic",
    "dbg",
];

/// Drops the backend arguments written in the input of an expression macro (and of the
/// expression macros inside it): the input is parsed on its own, as an array (`vec![x; n]`) or
/// a tuple of expressions, and each argument list in it is judged with `scope`, the backends
/// in scope at the outermost call. Input that does not parse as such is left alone. `text` is
/// what `call`'s ranges index (the file, or the parsed input of the macro around it); `shift`
/// takes its offsets to the file's.
fn port_macro_input(
    ctx: &mut FileCtx,
    call: &ast::MacroCall,
    text: &str,
    shift: TextSize,
    scope: &[BackendParam],
    depth: usize,
) {
    let Some(path) = call.path() else { return };
    let names = crate::util::syntax::segment_names(&path);
    let is_std = match names.as_slice() {
        [name] => EXPRESSION_MACROS.contains(&name.as_str()),
        [root, name] => {
            matches!(root.as_str(), "std" | "core" | "alloc")
                && EXPRESSION_MACROS.contains(&name.as_str())
        }
        _ => false,
    };
    let Some(tree) = call.token_tree() else {
        return;
    };
    let (Some(open), Some(close)) = (tree.left_delimiter_token(), tree.right_delimiter_token())
    else {
        return;
    };
    if !is_std || depth > 8 || open.text_range().end() > close.text_range().start() {
        return;
    }
    let input = &text[TextRange::new(open.text_range().end(), close.text_range().start())];
    if !input.contains('<') {
        return;
    }
    let (open_wrap, close_wrap) = match names.last().is_some_and(|n| n == "vec") {
        true => ("[", "]"),
        false => ("(", ",)"),
    };
    let prefix = format!("fn input() {{ {open_wrap}");
    let fragment = format!("{prefix}{input}{close_wrap}; }}");
    let parse = ast::SourceFile::parse(&fragment, ctx.file.edition);
    if !parse.errors().is_empty() {
        return;
    }
    // The fragment's offsets to the file's: the input starts where the prefix ends.
    let Some(start) =
        (u32::from(shift) + u32::from(open.text_range().end())).checked_sub(prefix.len() as u32)
    else {
        return;
    };
    let shift = TextSize::from(start);
    let root = parse.tree();
    for list in root
        .syntax()
        .descendants()
        .filter_map(ast::GenericArgList::cast)
    {
        drop_backend_args(ctx, &list, scope, shift);
    }
    for inner in root.syntax().descendants().filter_map(ast::MacroCall::cast) {
        port_macro_input(ctx, &inner, &fragment, shift, scope, depth + 1);
    }
}

/// Drops the backend arguments of one generic argument list, judged with `scope`; `shift`
/// takes the list's offsets to the file's (a macro's parsed input, or zero).
fn drop_backend_args(
    ctx: &mut FileCtx,
    list: &ast::GenericArgList,
    scope: &[BackendParam],
    shift: TextSize,
) {
    if in_std_path(list) || owner_is_phantom_data(list) {
        // `std::any::type_name::<B>()`, `core::mem::size_of::<B>()`: the standard library
        // takes no backend argument; what it is given goes by hand (`dangling-backend-param`).
        return;
    }
    let owner = list
        .syntax()
        .parent()
        .and_then(ast::PathSegment::cast)
        .and_then(|s| s.name_ref())
        .or_else(|| {
            // Method-call turbofish: `x.init::<B>()`.
            list.syntax()
                .parent()
                .and_then(ast::MethodCallExpr::cast)
                .and_then(|m| m.name_ref())
        })
        .map(|n| n.text().to_string());
    let callee_backend_positions: Vec<bool> = owner
        .as_ref()
        .and_then(|o| ctx.index.items.get(o))
        .map(|item| item.backend.clone())
        .unwrap_or_default();
    // A project item's arguments go only at the positions the index proved to be its
    // backend; Burn's items and others are judged argument by argument.
    let proven_only = owner
        .as_ref()
        .and_then(|o| ctx.index.project_backend_positions(ctx.file_id, o))
        .is_some();

    let args: Vec<ast::GenericArg> = list.generic_args().collect();
    // Fewer arguments than the item has parameters: the list may already be in 0.22 form
    // (`Harness::<_>` after `Harness<B, M>` lost `B`, in a tree migrated file by file), so
    // only a backend type is dropped; a `_` or another type is the non-backend argument.
    let written = args
        .iter()
        .filter(|a| !matches!(a, ast::GenericArg::LifetimeArg(_)))
        .count();
    let maybe_migrated = proven_only && written < callee_backend_positions.len();
    let mut position = 0usize;
    let mut remove = Vec::with_capacity(args.len());
    for arg in &args {
        let is_lifetime = matches!(arg, ast::GenericArg::LifetimeArg(_));
        let at_backend_position = callee_backend_positions
            .get(position)
            .copied()
            .unwrap_or(false);
        let drop = match arg {
            ast::GenericArg::TypeArg(t) => t.ty().is_some_and(|ty| {
                if maybe_migrated {
                    at_backend_position && ctx.is_backend_type(&ty, scope)
                } else if proven_only {
                    at_backend_position
                } else {
                    ctx.is_backend_type(&ty, scope)
                        || (matches!(ty, ast::Type::InferType(_)) && at_backend_position)
                }
            }),
            _ => false,
        };
        if !is_lifetime {
            position += 1;
        }
        remove.push(drop);
    }
    if !remove.iter().any(|r| *r) {
        return;
    }
    let owner_text = owner.unwrap_or_else(|| "this item".to_string());
    let message = format!("`{owner_text}` no longer takes a backend argument in Burn 0.22");
    let elements: Vec<_> = args.iter().map(|a| a.syntax().clone()).collect();
    match remove_list_elements(&elements, &remove) {
        // The list goes whole, `::` of a turbofish included (it is part of the list node).
        None => ctx.push(Change::delete(
            list.syntax().text_range() + shift,
            RuleId::BackendGenericArg,
            message,
        )),
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(
                    range + shift,
                    RuleId::BackendGenericArg,
                    message.clone(),
                ));
            }
        }
    }
}

/// `PhantomData<B>`: the marker takes one type, never a backend-less form; the `phantom`
/// transform removes the fields it can, and what is left is reported.
fn owner_is_phantom_data(list: &ast::GenericArgList) -> bool {
    list.syntax()
        .parent()
        .and_then(ast::PathSegment::cast)
        .and_then(|s| s.name_ref())
        .is_some_and(|n| n.text() == "PhantomData")
}

/// Whether the argument list belongs to a path into the standard library (`std::..`,
/// `core::..`, `alloc::..`), which never takes a Burn backend.
fn in_std_path(list: &ast::GenericArgList) -> bool {
    let Some(path) = list
        .syntax()
        .parent()
        .and_then(ast::PathSegment::cast)
        .map(|s| s.parent_path().top_path())
    else {
        return false;
    };
    crate::util::syntax::segment_names(&path)
        .first()
        .is_some_and(|first| matches!(first.as_str(), "std" | "core" | "alloc"))
}
