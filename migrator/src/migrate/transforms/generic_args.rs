//! Drops the backend argument wherever generic arguments are written: `Tensor<B, 2>` ->
//! `Tensor<2>`, `Linear<B>` -> `Linear`, `init::<B>(..)` -> `init(..)`,
//! `train::<MyBackend, Ds>(..)` -> `train::<Ds>(..)`, and `_` at a project item's backend
//! position; also in a type an attribute passes as a string for a procedural macro to emit.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, TextRange};

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
        drop_backend_args(ctx, &list, &scope, &|range| range);
    }
    // The input of `vec![..]` (and of std's expression macros called through a path), which the
    // parse leaves as tokens, judged with the backends in scope at the call.
    // And a type an attribute passes as a string for a procedural macro to emit
    // (`server_type = "Server<InferenceBackend>"`), judged with the backends in scope there.
    let inputs = super::macro_input::expression_macro_inputs(ctx, "<")
        .into_iter()
        .chain(super::macro_input::attribute_type_strings(ctx));
    for input in inputs {
        let scope = ctx.backends_in_scope(&input.call);
        for list in (input.root.syntax().descendants()).filter_map(ast::GenericArgList::cast) {
            drop_backend_args(ctx, &list, &scope, &|range| input.in_file(range));
        }
    }
}

/// Drops the backend arguments of one generic argument list, judged with `scope`; `in_file`
/// takes the list's ranges to the file's (from a macro's parsed input).
fn drop_backend_args(
    ctx: &mut FileCtx,
    list: &ast::GenericArgList,
    scope: &[BackendParam],
    in_file: &dyn Fn(TextRange) -> TextRange,
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
            in_file(list.syntax().text_range()),
            RuleId::BackendGenericArg,
            message,
        )),
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(
                    in_file(range),
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
