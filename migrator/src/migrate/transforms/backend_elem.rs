//! Conversions to the backend's element type disappear: `.convert::<B::FloatElem>()` on
//! `TensorData` (`Tensor::from_data` casts to the device's float type in Burn 0.22) and
//! `.elem::<B::IntElem>()` on Rust scalars (plain `i64`/`f32` values go into `TensorData`),
//! and `B::FloatElem::from_elem(x)` / `B::FloatElem::from(x)` become `x` (Burn 0.22 scalar
//! arguments take plain numbers); `data.iter::<B::IntElem>()` asks for a plain type.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{path_as_ident, segment_names};

const ELEMENT_TYPES: &[&str] = &["FloatElem", "IntElem", "BoolElem"];

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendElem),
    run,
    emits: &[
        RuleId::ConvertBackendElem,
        RuleId::ElemBackendElem,
        RuleId::FromBackendElem,
        RuleId::IterBackendElem,
    ],
    emits_data_rules: false,
    order: Order::Rank(120),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    from_elem_calls(ctx);
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        let Some(name) = call.name_ref() else {
            continue;
        };
        let rule = match name.text() {
            "convert" => RuleId::ConvertBackendElem,
            "elem" => RuleId::ElemBackendElem,
            "iter" => RuleId::IterBackendElem,
            _ => continue,
        };
        if call.arg_list().is_none_or(|a| a.args().next().is_some()) {
            continue;
        }
        let Some(list) = call.generic_arg_list() else {
            continue;
        };
        let args: Vec<ast::GenericArg> = list.generic_args().collect();
        let [ast::GenericArg::TypeArg(arg)] = args.as_slice() else {
            continue;
        };
        let Some(ty) = arg.ty() else { continue };
        let scope = ctx.backends_in_scope(call.syntax());
        if !is_backend_element(ctx, &ty, &scope) {
            continue;
        }
        if rule == RuleId::IterBackendElem {
            // `data.iter::<B::IntElem>()`: `TensorData::iter` converts whatever it holds to
            // the type asked for, and every 0.21 element converts to `i64` (`f32` for floats)
            // without loss; generic code used the items only through the element traits,
            // which those types implement.
            let Some(plain) = plain_element(&ty) else {
                continue;
            };
            // The whole list, which holds the finding `backend-associated-item` would make
            // of `B::IntElem` (an edit drops the findings inside it).
            ctx.push(Change::edit(
                list.syntax().text_range(),
                format!("::<{plain}>"),
                rule,
                "Burn 0.22 has no backend element types: `TensorData::iter` converts to the type it is asked for",
            ));
            continue;
        }
        let Some(receiver) = call.receiver() else {
            continue;
        };
        // From the end of the receiver to the end of the call: `.convert::<B::FloatElem>()`.
        let range = TextRange::new(
            receiver.syntax().text_range().end(),
            call.syntax().text_range().end(),
        );
        ctx.push(Change::delete(
            range,
            rule,
            "Burn 0.22 has no backend element types; the conversion is no longer needed",
        ));
    }
}

/// The plain type that holds every 0.21 element of a backend element type's kind:
/// `FloatElem` `f32` (the float element of every 0.21 backend that names none), `IntElem`
/// `i64`, `BoolElem` `bool`.
fn plain_element(ty: &ast::Type) -> Option<&'static str> {
    let ast::Type::PathType(path_type) = ty else {
        return None;
    };
    let names = segment_names(&path_type.path()?);
    match names.last()?.as_str() {
        "FloatElem" => Some("f32"),
        "IntElem" => Some("i64"),
        "BoolElem" => Some("bool"),
        _ => None,
    }
}

/// `B::FloatElem`, `<B as Backend>::IntElem`, `FloatElem<B>` for a backend `B` (or an alias).
fn is_backend_element(
    ctx: &FileCtx,
    ty: &ast::Type,
    scope: &[crate::migrate::index::BackendParam],
) -> bool {
    let ast::Type::PathType(path_type) = ty else {
        return false;
    };
    let Some(path) = path_type.path() else {
        return false;
    };
    let names = segment_names(&path);
    let Some(last) = names.last() else {
        return false;
    };
    if !ELEMENT_TYPES.contains(&last.as_str()) {
        return false;
    }
    let is_backend = |ty: &ast::Type| ctx.is_backend_type(ty, scope);
    if let Some(qualifier) = path.qualifier() {
        if let Some(anchor) = qualifier
            .segment()
            .and_then(|s| s.type_anchor())
            .and_then(|a| a.ty())
        {
            return is_backend(&anchor);
        }
        return path_as_ident(&qualifier).is_some_and(|n| scope.iter().any(|b| b.name == n))
            || is_backend(&ast::make::ty_path(qualifier));
    }
    // `FloatElem<B>`
    path.segment()
        .and_then(|s| s.generic_arg_list())
        .and_then(|l| l.generic_args().next())
        .is_some_and(
            |a| matches!(a, ast::GenericArg::TypeArg(t) if t.ty().is_some_and(|t| is_backend(&t))),
        )
}

/// `B::FloatElem::from_elem(x)`, `<B as Backend>::IntElem::from_elem(x)`,
/// `B::FloatElem::from(x)` -> `x`, in parentheses where the call's place needs them.
fn from_elem_calls(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let Some(function) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        if function.text() != "from_elem" && function.text() != "from" {
            continue;
        }
        let Some(owner) = path.qualifier() else {
            continue;
        };
        let Some(args) = call.arg_list() else {
            continue;
        };
        let args: Vec<ast::Expr> = args.args().collect();
        let [arg] = args.as_slice() else { continue };
        let scope = ctx.backends_in_scope(call.syntax());
        if !is_backend_element(ctx, &ast::make::ty_path(owner), &scope) {
            continue;
        }
        let text = arg.syntax().text().to_string();
        let replacement = if needs_parentheses(arg, &call) {
            format!("({text})")
        } else {
            text
        };
        ctx.push(Change::edit(
            call.syntax().text_range(),
            replacement,
            RuleId::FromBackendElem,
            "Burn 0.22 has no backend element types; scalar arguments take the plain number",
        ));
    }
}

/// Whether `arg`, written where `call` was, would bind differently without parentheses.
fn needs_parentheses(arg: &ast::Expr, call: &ast::CallExpr) -> bool {
    let atomic = matches!(
        arg,
        ast::Expr::Literal(_)
            | ast::Expr::PathExpr(_)
            | ast::Expr::CallExpr(_)
            | ast::Expr::MethodCallExpr(_)
            | ast::Expr::FieldExpr(_)
            | ast::Expr::IndexExpr(_)
            | ast::Expr::ParenExpr(_)
            | ast::Expr::TupleExpr(_)
            | ast::Expr::ArrayExpr(_)
            | ast::Expr::MacroExpr(_)
            | ast::Expr::BlockExpr(_)
    );
    if atomic {
        return false;
    }
    let Some(parent) = call.syntax().parent() else {
        return false;
    };
    // Places that take any expression whole.
    let whole = ast::ArgList::can_cast(parent.kind())
        || ast::LetStmt::can_cast(parent.kind())
        || ast::ExprStmt::can_cast(parent.kind())
        || ast::StmtList::can_cast(parent.kind())
        || ast::ParenExpr::can_cast(parent.kind())
        || ast::ArrayExpr::can_cast(parent.kind())
        || ast::TupleExpr::can_cast(parent.kind())
        || ast::RecordExprField::can_cast(parent.kind())
        || ast::ReturnExpr::can_cast(parent.kind())
        || ast::MatchArm::can_cast(parent.kind());
    !whole
}
