//! `data.shape` / `data.dtype` on tensor data (a `to_data()`/`into_data()` call, a `let`
//! bound to one in the same function, or a parameter or `let` typed `TensorData` or
//! `&TensorData`): the fields are private in 0.22. Reads become the accessors
//! (`data.shape()[0]`, `data.dtype()`); writes, moves and `bytes` are reported.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::path_as_ident;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::TensordataFields),
    run,
    emits: &[RuleId::TensordataFields],
    emits_data_rules: false,
    order: Order::Rank(260),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    const FIELDS: &[&str] = &["shape", "dtype", "bytes"];
    let is_data_call = |expr: &ast::Expr| match expr {
        ast::Expr::MethodCallExpr(m) => m
            .name_ref()
            .is_some_and(|n| n.text() == "to_data" || n.text() == "into_data"),
        _ => false,
    };
    for field in ctx.nodes::<ast::FieldExpr>() {
        let Some(name) = field.name_ref().map(|n| n.text().to_string()) else {
            continue;
        };
        if !FIELDS.contains(&name.as_str()) {
            continue;
        }
        let Some(receiver) = field.expr() else {
            continue;
        };
        let is_data = is_data_call(&receiver)
            || match &receiver {
                ast::Expr::PathExpr(p) => p.path().and_then(|p| path_as_ident(&p)).is_some_and(|var| {
                    field.syntax().ancestors().find_map(ast::Fn::cast).is_some_and(|f| {
                        let binds = |pat: Option<ast::Pat>| {
                            matches!(pat, Some(ast::Pat::IdentPat(p)) if p.name().is_some_and(|n| n.text() == var.as_str()))
                        };
                        // A parameter or `let` typed as tensor data (`data: &TensorData`).
                        let typed = (f.param_list().into_iter())
                            .flat_map(|list| list.params())
                            .any(|param| binds(param.pat()) && names_tensor_data(param.ty()));
                        typed
                            || f.syntax().descendants().filter_map(ast::LetStmt::cast).any(|l| {
                                binds(l.pat())
                                    && (names_tensor_data(l.ty())
                                        || l.initializer().is_some_and(|i| is_data_call(&i)))
                            })
                    })
                }),
                _ => false,
            };
        if !is_data {
            continue;
        }
        match accessor_rewrite(ctx, &field, &name) {
            Some((range, text)) => ctx.push(Change::edit(
                range,
                text,
                RuleId::TensordataFields,
                format!("`TensorData::{name}` is private in Burn 0.22: read through `{name}()`"),
            )),
            None => ctx.push(Change::manual(
                field.syntax().text_range(),
                RuleId::TensordataFields,
                format!("`TensorData::{name}` is private in Burn 0.22: call `{name}()`"),
            )),
        }
    }
}

/// The methods of `Shape` (cubecl-zspace 0.11.4 `shape.rs`, the `Shape` of burn 0.22.1) and of
/// the `[usize]` it dereferences to that take `&self`: called on the `&Shape` that
/// `TensorData::shape()` returns they read what they read on the field. (Those that take
/// `self` or `&mut self`, `flatten`, `permute`, `push`, .., are left to a person: the port
/// would need a clone, or the data cannot be changed that way any more.)
const SHAPE_READS: &[&str] = &[
    "num_elements",
    "num_dims",
    "rank",
    "dims",
    "ravel_index",
    "to_vec",
    "iter",
    "as_slice",
    "broadcast",
    "expand",
    "reshape",
    "clone",
    "len",
    "is_empty",
    "first",
    "last",
    "contains",
    "get",
    "to_string",
];

/// The edit that reads the field through its accessor, where that reads the same value:
/// `data.dtype` by value (a `DType` is `Copy`) -> `data.dtype()`; `data.shape[i]` and
/// `data.shape.dims()` (a `&self` method) -> `data.shape()[i]`, `data.shape().dims()`;
/// `&data.shape` -> `data.shape()`. `None` for a write (`data.shape = ..`, `&mut data.shape`,
/// `data.shape[0] = 2`), a move of the owned field, a borrow of a temporary's field, and
/// `bytes`.
fn accessor_rewrite(
    ctx: &FileCtx,
    field: &ast::FieldExpr,
    name: &str,
) -> Option<(TextRange, String)> {
    // The file's own text: the tree's has `dbg!(..)` & co. opened into calls.
    let text = format!("{}()", ctx.file.slice(field.syntax().text_range()));
    let parent = field.syntax().parent()?;
    // `&x.to_data().shape` (or `&..shape[0]`) in a `let` borrows a temporary that the `let`
    // keeps alive; `shape()` borrows it through a call, which does not: it stays a person's.
    let on_a_temporary = !matches!(field.expr(), Some(ast::Expr::PathExpr(_)));
    let borrowed = |expr: &SyntaxNode| {
        on_a_temporary
            && expr
                .parent()
                .is_some_and(|p| ast::RefExpr::can_cast(p.kind()))
    };
    match name {
        "dtype" if !is_written(field.syntax()) => Some((field.syntax().text_range(), text)),
        "shape" => {
            if let Some(index) = ast::IndexExpr::cast(parent.clone()) {
                let is_base = index.base().is_some_and(|b| b.syntax() == field.syntax());
                return (is_base && !is_written(index.syntax()) && !borrowed(index.syntax()))
                    .then(|| (field.syntax().text_range(), text));
            }
            if let Some(call) = ast::MethodCallExpr::cast(parent.clone()) {
                let method = call.name_ref()?.text().to_string();
                let is_receiver = call
                    .receiver()
                    .is_some_and(|r| r.syntax() == field.syntax());
                return (is_receiver && SHAPE_READS.contains(&method.as_str()))
                    .then(|| (field.syntax().text_range(), text));
            }
            let borrow = ast::RefExpr::cast(parent)?;
            let shared = borrow.mut_token().is_none() && borrow.raw_token().is_none();
            (shared && !borrowed(field.syntax())).then(|| (borrow.syntax().text_range(), text))
        }
        _ => None,
    }
}

/// Whether `expr` is a place the code writes: the left side of an assignment (`=`, `+=`, ..)
/// or borrowed mutably.
fn is_written(expr: &SyntaxNode) -> bool {
    let Some(parent) = expr.parent() else {
        return false;
    };
    if let Some(assignment) = ast::BinExpr::cast(parent.clone()) {
        let is_lhs = assignment.lhs().is_some_and(|l| l.syntax() == expr);
        return is_lhs && matches!(assignment.op_kind(), Some(ast::BinaryOp::Assignment { .. }));
    }
    ast::RefExpr::cast(parent).is_some_and(|r| r.mut_token().is_some())
}

/// Whether `ty` is `TensorData`, owned or behind references (`&TensorData`,
/// `&mut burn::tensor::TensorData`).
fn names_tensor_data(ty: Option<ast::Type>) -> bool {
    let mut ty = ty;
    while let Some(ast::Type::RefType(reference)) = ty {
        ty = reference.ty();
    }
    match ty {
        Some(ast::Type::PathType(path)) => (path.path().and_then(|p| p.segment()))
            .is_some_and(|segment| segment.syntax().text() == "TensorData"),
        _ => false,
    }
}
