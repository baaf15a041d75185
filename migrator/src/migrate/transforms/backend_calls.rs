//! Calls of backend functions that became device methods: `B::seed(&device, seed)` ->
//! `device.seed(seed)` and `B::sync(&device)` -> `device.sync()`.

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;
use crate::util::syntax::{path_as_ident, segment_names};

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
            _ => continue,
        };
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let scope = ctx.backends_in_scope(call.syntax());
        let is_backend = path_as_ident(&qualifier)
            .is_some_and(|n| scope.iter().any(|b| b.name == n))
            || ctx
                .index
                .resolve_backend_type(ctx.file_id, &ast::make::ty_path(qualifier.clone()))
                .is_some()
            || anchored_backend(&qualifier, &scope);
        if !is_backend {
            continue;
        }
        let Some(args) = call.arg_list() else {
            continue;
        };
        let args: Vec<ast::Expr> = args.args().collect();
        let (device, rest) = match (method, args.as_slice()) {
            ("seed", [device, seed]) => (device, Some(seed)),
            ("sync", [device]) => (device, None),
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

/// `<B as Backend>::seed`
fn anchored_backend(qualifier: &ast::Path, scope: &[crate::migrate::index::BackendParam]) -> bool {
    qualifier
        .segment()
        .and_then(|s| s.type_anchor())
        .and_then(|a| a.ty())
        .as_ref()
        .and_then(crate::util::syntax::type_as_ident)
        .is_some_and(|n| scope.iter().any(|b| b.name == n))
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
