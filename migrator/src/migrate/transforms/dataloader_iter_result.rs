//! Data loader iterators yield `Result<Batch, DatasetError>` in Burn 0.22: iteration gets
//! `.map(Result::unwrap)`, what Burn's own examples do.
//!
//! `loader.iter()` where `loader` is a function parameter typed with `DataLoader`, or a `let`
//! bound to a `DataLoaderBuilder` chain, in the same function.

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::path_as_ident;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DataloaderIterResult),
    run,
    emits: &[RuleId::DataloaderIterResult],
    emits_data_rules: false,
    order: Order::Rank(150),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    // Where the file names Burn's loader types: resolved once per path, not once per
    // function around it.
    let loader_types = burn_item_ranges(ctx, "DataLoader");
    let builders = burn_item_ranges(ctx, "DataLoaderBuilder");
    // Asked only where there is something to port: a step that does not ask is not run
    // again for the other answer (`Reusable`).
    if (loader_types.is_empty() && builders.is_empty()) || ctx.targets_0_22() {
        return;
    }
    for function in ctx.nodes::<ast::Fn>() {
        // A loader is a parameter or `let` typed or built with one of those paths: a function
        // without one inside is not walked.
        if !contains_any(&loader_types, function.syntax())
            && !contains_any(&builders, function.syntax())
        {
            continue;
        }
        let mut loaders: Vec<String> = Vec::new();
        if let Some(params) = function.param_list() {
            for param in params.params() {
                let typed_loader = param
                    .ty()
                    .is_some_and(|t| contains_any(&loader_types, t.syntax()));
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
                .is_some_and(|init| contains_any(&builders, init.syntax()));
            let typed = stmt
                .ty()
                .is_some_and(|t| contains_any(&loader_types, t.syntax()));
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

/// The ranges of the paths that name Burn's item `name` (a project's own `DataLoader` trait
/// is not Burn's), in file order.
fn burn_item_ranges(ctx: &FileCtx, name: &str) -> Vec<TextRange> {
    (ctx.paths_named(&[name]).into_iter())
        .filter(|path| ctx.index.burn_name(ctx.file_id, path).as_deref() == Some(name))
        .map(|path| path.syntax().text_range())
        .collect()
}

/// Whether one of `ranges` (in file order) lies inside `node`.
fn contains_any(ranges: &[TextRange], node: &SyntaxNode) -> bool {
    let within = node.text_range();
    let first = ranges.partition_point(|r| r.start() < within.start());
    ranges[first..]
        .iter()
        .take_while(|r| r.start() <= within.end())
        .any(|r| within.contains_range(*r))
}
