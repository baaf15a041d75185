//! `data.shape` / `data.dtype` on tensor data (a `to_data()`/`into_data()` call, a `let`
//! bound to one in the same function, or a parameter or `let` typed `TensorData` or
//! `&TensorData`): the fields are private in 0.22.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

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
                            matches!(pat, Some(ast::Pat::IdentPat(p)) if p.syntax().text() == var.as_str())
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
        if is_data {
            ctx.push(Change::manual(
                field.syntax().text_range(),
                RuleId::TensordataFields,
                format!("`TensorData::{name}` is private in Burn 0.22: call `{name}()`"),
            ));
        }
    }
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
