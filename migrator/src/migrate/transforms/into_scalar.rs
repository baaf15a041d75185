//! `x.into_scalar().elem::<f32>()` -> `x.into_scalar::<f32>()`: in Burn 0.22 `into_scalar`
//! is generic over the element type the caller wants. A bare `into_scalar()` whose type
//! nothing pins down is reported.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::IntoScalar),
    run,
    emits: &[RuleId::IntoScalarElem, RuleId::IntoScalarType],
    emits_data_rules: false,
    order: Order::Rank(180),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        if !is_plain_call(&call, "into_scalar") {
            continue;
        }
        let Some(name) = call.name_ref() else {
            continue;
        };
        let parent = call.syntax().parent().and_then(ast::MethodCallExpr::cast);
        let elem = parent.filter(|p| {
            p.name_ref().is_some_and(|n| n.text() == "elem")
                && p.arg_list().is_some_and(|a| a.args().next().is_none())
        });
        if let Some(elem) = elem {
            let target = match elem.generic_arg_list() {
                Some(list) => Some(
                    ctx.file
                        .slice(list.syntax().text_range())
                        .trim_start_matches("::")
                        .to_string(),
                ),
                None => let_type(ctx, elem.syntax()).map(|t| format!("<{t}>")),
            };
            match target {
                Some(target) => ctx.push(Change::edit(
                    TextRange::new(
                        name.syntax().text_range().start(),
                        elem.syntax().text_range().end(),
                    ),
                    format!("into_scalar::{target}()"),
                    RuleId::IntoScalarElem,
                    "`into_scalar` takes the element type in Burn 0.22",
                )),
                None => ctx.push(Change::manual(
                    elem.syntax().text_range(),
                    RuleId::IntoScalarType,
                    "name the element type: `into_scalar::<f32>()` (or the type this value needs)",
                )),
            }
            continue;
        }
        if let_type(ctx, call.syntax()).is_none() {
            ctx.push(Change::manual(
                call.syntax().text_range(),
                RuleId::IntoScalarType,
                "`into_scalar` is generic over the element type in Burn 0.22: write `into_scalar::<f32>()` (or the type this value needs)",
            ));
        }
    }
}

/// A method call `recv.name()` with no turbofish and no arguments.
fn is_plain_call(call: &ast::MethodCallExpr, name: &str) -> bool {
    call.name_ref().is_some_and(|n| n.text() == name)
        && call.generic_arg_list().is_none()
        && call.arg_list().is_some_and(|a| a.args().next().is_none())
}

/// The annotated type of the `let` an expression initializes, if any.
fn let_type(ctx: &FileCtx, expr: &ra_ap_syntax::SyntaxNode) -> Option<String> {
    let let_stmt = expr.parent().and_then(ast::LetStmt::cast)?;
    Some(
        ctx.file
            .slice(let_stmt.ty()?.syntax().text_range())
            .to_string(),
    )
}
