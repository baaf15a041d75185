//! Data loader iterators yield `Result<Batch, DatasetError>` in Burn 0.22: iteration gets
//! `.map(Result::unwrap)`, what Burn's own examples do.
//!
//! `loader.iter()` where `loader` is a function parameter typed with `DataLoader`, or a `let`
//! bound to a `DataLoaderBuilder` chain, in the same function.

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;
use crate::util::syntax::path_as_ident;

pub fn run(ctx: &mut FileCtx) {
    if ctx.migrated {
        return;
    }
    for function in ctx.root().descendants().filter_map(ast::Fn::cast) {
        let mut loaders: Vec<String> = Vec::new();
        if let Some(params) = function.param_list() {
            for param in params.params() {
                let typed_loader = param
                    .ty()
                    .is_some_and(|t| names_burn_item(ctx, t.syntax(), "DataLoader"));
                if let (true, Some(ast::Pat::IdentPat(pat))) = (typed_loader, param.pat()) {
                    loaders.extend(pat.name().map(|n| n.text().to_string()));
                }
            }
        }
        let Some(body) = function.body() else {
            continue;
        };
        for stmt in body.syntax().descendants().filter_map(ast::LetStmt::cast) {
            let built = stmt
                .initializer()
                .is_some_and(|init| names_burn_item(ctx, init.syntax(), "DataLoaderBuilder"));
            let typed = stmt
                .ty()
                .is_some_and(|t| names_burn_item(ctx, t.syntax(), "DataLoader"));
            if let (true, Some(ast::Pat::IdentPat(pat))) = (built || typed, stmt.pat()) {
                loaders.extend(pat.name().map(|n| n.text().to_string()));
            }
        }
        if loaders.is_empty() {
            continue;
        }
        for call in body
            .syntax()
            .descendants()
            .filter_map(ast::MethodCallExpr::cast)
        {
            if call.name_ref().is_none_or(|n| n.text() != "iter")
                || call.arg_list().is_none_or(|a| a.args().next().is_some())
            {
                continue;
            }
            let receiver = match call.receiver() {
                Some(ast::Expr::PathExpr(p)) => p.path().and_then(|p| path_as_ident(&p)),
                _ => None,
            };
            if !receiver.is_some_and(|r| loaders.contains(&r)) {
                continue;
            }
            // Already handled (`.iter().map(Result::unwrap)`, `.iter().flatten()`)?
            let handled = call
                .syntax()
                .parent()
                .and_then(ast::MethodCallExpr::cast)
                .is_some_and(|m| m.syntax().text().to_string().contains("Result::unwrap"));
            if handled {
                continue;
            }
            ctx.push(Change::insert(
                call.syntax().text_range().end(),
                ".map(Result::unwrap)",
                RuleId::DataloaderIterResult,
                "data loader iterators yield `Result<_, DatasetError>` in Burn 0.22",
            ));
        }
    }
}

/// Whether a path inside `node` names Burn's item `name` (a project's own `DataLoader` trait
/// is not Burn's).
fn names_burn_item(ctx: &FileCtx, node: &SyntaxNode, name: &str) -> bool {
    node.descendants()
        .filter_map(ast::Path::cast)
        .any(|path| ctx.index.burn_name(ctx.file_id, &path).as_deref() == Some(name))
}
