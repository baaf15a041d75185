//! Reads of a dataset (`dataset.get(i)`, `dataset.iter()`) return `Result`s in Burn 0.22: each
//! read of a value the file shows to be a dataset is reported where it is. A file that names
//! Burn's `Dataset` and reads something else that may be one (`self.items.get(i)`) is reported
//! once more, at the import, for a look at those reads.
//!
//! A `get(i)` unwrapped on the spot (`.unwrap()`, `.expect(..)`) reads the `Result` as it read
//! the `Option`, and is no site.
//!
//! A dataset, as far as syntax and the workspace index can tell: a function parameter or a
//! `let` whose type is one of Burn's datasets (`InMemDataset<I>`), a project type that
//! implements Burn's `Dataset`, `impl Dataset<..>` or `dyn Dataset<..>` (behind `&` or not),
//! or a `let` bound to such a type's constructor (`Houses::new(..)`, `Houses(..)`,
//! `Houses { .. }`).

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use std::collections::HashMap;

use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::dataset_types::{is_dataset_type, names_dataset};
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::outermost_segment_name;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DatasetReads),
    run,
    emits: &[RuleId::DatasetResults],
    emits_data_rules: false,
    order: Order::Rank(170),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if ctx.index.dataset_types.is_empty() && !ctx.file.text.contains("Dataset") {
        return;
    }
    // The `let`s of each function body a read is in, found once per function.
    let mut lets_of = HashMap::new();
    // Whether some `get(i)` or `iter()` is on a value the file does not show to be a dataset
    // or anything else (a field, a call's result): it may read one.
    let mut unplaced_reads = false;
    let handed_on = super::dataset_get_result::handed_on_reads(ctx);
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        if (handed_on.iter()).any(|tail| tail.contains_range(call.syntax().text_range())) {
            continue;
        }
        let Some(name) = call.name_ref() else {
            continue;
        };
        let arity = match name.text() {
            "iter" => 0,
            "get" => 1,
            _ => continue,
        };
        if call.arg_list().map_or(0, |a| a.args().count()) != arity {
            continue;
        }
        if arity == 1 && unwrapped(&call) {
            continue;
        }
        let read = if arity == 0 {
            "`iter` yields `Result<I, DatasetError>`s in Burn 0.22"
        } else {
            "`get` returns `Result<I, DatasetError>` in Burn 0.22 (and panics past `len()`)"
        };
        let variable = match call.receiver() {
            Some(ast::Expr::PathExpr(receiver)) => receiver
                .path()
                .filter(|p| p.qualifier().is_none())
                .and_then(|p| p.segment()?.name_ref()),
            _ => None,
        };
        let is_dataset = variable.is_some_and(|variable| {
            is_dataset_binding(ctx, &mut lets_of, call.syntax(), variable.text())
        });
        if !is_dataset {
            unplaced_reads = true;
            continue;
        }
        let range = name.syntax().text_range().cover(
            call.arg_list()
                .map_or(name.syntax().text_range(), |a| a.syntax().text_range()),
        );
        ctx.push(Change::manual(
            range,
            RuleId::DatasetResults,
            format!("{read}: read it with `?`, `.ok()` or `.map(Result::unwrap)`"),
        ));
    }
    if unplaced_reads {
        if let Some(range) = dataset_mention(ctx) {
            ctx.push(Change::manual(
                range,
                RuleId::DatasetResults,
                "`Dataset::get` returns `Result` and `iter` yields `Result`s in Burn 0.22: check this file's dataset reads",
            ));
        }
    }
}

/// Whether `read` (a `get(i)`) is unwrapped on the spot: `.unwrap()` and `.expect(..)` read
/// 0.22's `Result<I, DatasetError>` (`DatasetError` is `Debug`) as they read 0.21's `Option<I>`,
/// panicking where there is no item.
fn unwrapped(read: &ast::MethodCallExpr) -> bool {
    let Some(outer) = read.syntax().parent().and_then(ast::MethodCallExpr::cast) else {
        return false;
    };
    let arguments = outer.arg_list().map_or(0, |list| list.args().count());
    matches!(
        (
            outer.name_ref().map(|n| n.text().to_string()).as_deref(),
            arguments
        ),
        (Some("unwrap"), 0) | (Some("expect"), 1)
    )
}

/// Where the file names Burn's `Dataset` first: its import, or else a path to it. A file that
/// never does reads datasets only through the values the reads above place.
fn dataset_mention(ctx: &FileCtx) -> Option<TextRange> {
    let names_dataset =
        |path: &ast::Path| ctx.index.burn_name(ctx.file_id, path).as_deref() == Some("Dataset");
    // The whole path of an import, in a group or not (`use burn::{data::dataset::Dataset}`),
    // as Burn's facade names it (`burn_dataset::Dataset` too).
    let imported = ctx.nodes::<ast::UseTree>().find(|tree| {
        let full = ctx
            .crates()
            .canonical(super::use_items::full_use_path(tree));
        tree.use_tree_list().is_none()
            && [
                "burn::data::dataset::Dataset",
                "burn::data::dataloader::Dataset",
            ]
            .iter()
            .any(|burn| super::use_items::path_matches_via_crates(&full, burn))
    });
    match imported {
        Some(tree) => Some(tree.syntax().text_range()),
        // A whole path (not the qualifier inside a longer one).
        // Burn's path written out, or the name a glob brings; not a path through the
        // project (`crate::event::Phase::Dataset` may be anything).
        None => (ctx.nodes::<ast::Path>())
            .find(|path| {
                let through_project = outermost_segment_name(path)
                    .is_some_and(|first| ["crate", "self", "super"].contains(&first.as_str()));
                path.syntax().parent().and_then(ast::Path::cast).is_none()
                    && !through_project
                    && names_dataset(path)
            })
            .map(|path| path.syntax().text_range()),
    }
}

/// Whether `name`, used at `at`, is bound in the function around it to a dataset.
/// `lets_of` holds the `let`s of the function bodies seen so far, by function.
fn is_dataset_binding(
    ctx: &FileCtx,
    lets_of: &mut HashMap<TextRange, Vec<ast::LetStmt>>,
    at: &SyntaxNode,
    name: &str,
) -> bool {
    let Some(function) = at.ancestors().find_map(ast::Fn::cast) else {
        return false;
    };
    let parameter = function
        .param_list()
        .into_iter()
        .flat_map(|l| l.params())
        .any(|p| binds(p.pat(), name) && p.ty().is_some_and(|ty| is_dataset_type(ctx, &ty)));
    if parameter {
        return true;
    }
    let Some(body) = function.body() else {
        return false;
    };
    let lets = lets_of
        .entry(function.syntax().text_range())
        .or_insert_with(|| {
            (body.syntax().descendants())
                .filter_map(ast::LetStmt::cast)
                .collect()
        });
    // The last `let` of that name before the read decides.
    lets.iter()
        .rev()
        .filter(|l| l.syntax().text_range().end() <= at.text_range().start())
        .find(|l| binds(l.pat(), name))
        .is_some_and(|l| {
            l.ty().is_some_and(|ty| is_dataset_type(ctx, &ty))
                || l.initializer().is_some_and(|e| constructs_dataset(ctx, &e))
        })
}

fn binds(pat: Option<ast::Pat>, name: &str) -> bool {
    matches!(pat, Some(ast::Pat::IdentPat(p)) if p.name().is_some_and(|n| n.text() == name))
}

/// `Houses::new(..)`, `Houses(..)`, `Houses { .. }`, `InMemDataset::new(..)`.
fn constructs_dataset(ctx: &FileCtx, expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::CallExpr(call) => match call.expr() {
            Some(ast::Expr::PathExpr(callee)) => callee.path().is_some_and(|path| {
                let owner = path.qualifier().unwrap_or_else(|| path.clone());
                names_dataset(ctx, &owner)
            }),
            _ => false,
        },
        ast::Expr::RecordExpr(record) => record.path().is_some_and(|p| names_dataset(ctx, &p)),
        _ => false,
    }
}
