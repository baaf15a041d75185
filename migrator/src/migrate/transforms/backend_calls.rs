//! Calls of backend functions that became device methods: `B::seed(&device, seed)` ->
//! `device.seed(seed)`, `B::sync(&device)` -> `device.sync()` and `B::ad_enabled(&device)` ->
//! `device.is_autodiff()`.

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_names;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendCalls),
    run,
    emits: &[
        RuleId::BackendAdEnabled,
        RuleId::BackendSeed,
        RuleId::BackendSync,
    ],
    emits_data_rules: false,
    order: Order::Rank(40),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let names = segment_names(&path);
        let (rule, method) = match names.last().map(String::as_str) {
            Some("seed") => (RuleId::BackendSeed, "seed"),
            Some("sync") => (RuleId::BackendSync, "sync"),
            Some("ad_enabled") => (RuleId::BackendAdEnabled, "is_autodiff"),
            _ => continue,
        };
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let scope = ctx.backends_in_scope(call.syntax());
        if !ctx.qualifier_is_backend(&qualifier, &scope) {
            continue;
        }
        let Some(args) = call.arg_list() else {
            continue;
        };
        let args: Vec<ast::Expr> = args.args().collect();
        let (device, rest) = match (method, args.as_slice()) {
            ("seed", [device, seed]) => (device, Some(seed)),
            ("sync" | "is_autodiff", [device]) => (device, None),
            _ => {
                ctx.push(Change::manual(
                    call.syntax().text_range(),
                    rule,
                    format!("call `device.{method}(..)`"),
                ));
                continue;
            }
        };
        let receiver = match device {
            ast::Expr::RefExpr(r) => r.expr().map(|e| receiver_text(ctx, &e)),
            other => Some(receiver_text(ctx, other)),
        };
        let Some(receiver) = receiver else { continue };
        let argument = rest
            .map(|a| ctx.file.slice(a.syntax().text_range()).to_string())
            .unwrap_or_default();
        ctx.push(Change::edit(
            call.syntax().text_range(),
            format!("{receiver}.{method}({argument})"),
            rule,
            format!("`{method}` is a method of the device in Burn 0.22"),
        ));
    }
}

/// Text of an expression used as a method receiver, parenthesized when it needs to be.
fn receiver_text(ctx: &FileCtx, expr: &ast::Expr) -> String {
    let text = ctx.file.slice(expr.syntax().text_range()).to_string();
    match expr {
        ast::Expr::PathExpr(_)
        | ast::Expr::CallExpr(_)
        | ast::Expr::MethodCallExpr(_)
        | ast::Expr::FieldExpr(_)
        | ast::Expr::ParenExpr(_) => text,
        _ => format!("({text})"),
    }
}
