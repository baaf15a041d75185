//! `Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22, and panics past `len()`
//! (burn-dataset 0.22.1's `Dataset` contract, which its own `InMemDataset` keeps: `Some(item)`
//! is `Ok(item)`, `None` a panic). `fn get(&self, index: usize) -> Option<I>` in an
//! `impl Dataset<I> for ..` whose body hands its `Option` back only as its tail gets that
//! signature and `Ok(<tail>.unwrap_or_else(|| panic!(..)))`; a body that leaves by `return`
//! or `?` is reported, as its `None`s need a person.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{leaves_other_than_by_tail, segment_names, single_type_argument};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DatasetGetResult),
    run,
    emits: &[RuleId::DatasetGetResult],
    emits_data_rules: false,
    order: Order::Rank(160),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for imp in ctx.nodes::<ast::Impl>() {
        // Burn's `Dataset`, as the file's imports resolve it: a project trait of that name is
        // none of this rule's business.
        let is_dataset = imp
            .trait_()
            .and_then(|t| match t {
                ast::Type::PathType(p) => p.path(),
                _ => None,
            })
            .is_some_and(|p| {
                segment_names(&p).last().is_some_and(|n| n == "Dataset")
                    && ctx.index.burn_name(ctx.file_id, &p).as_deref() == Some("Dataset")
            });
        if !is_dataset {
            continue;
        }
        let Some(items) = imp.assoc_item_list() else {
            continue;
        };
        for item in items.assoc_items() {
            let ast::AssocItem::Fn(function) = item else {
                continue;
            };
            if function.name().is_none_or(|n| n.text() != "get") {
                continue;
            }
            let Some(ret) = function.ret_type().and_then(|r| r.ty()) else {
                continue;
            };
            let Some(item) = single_type_argument(&ret, "Option") else {
                continue;
            };
            let tail = function.body().and_then(|b| b.tail_expr());
            let Some(tail) = tail.filter(|_| !leaves_other_than_by_tail(&function)) else {
                ctx.push(Change::manual(
                    ret.syntax().text_range(),
                    RuleId::DatasetGetResult,
                    "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22 (and panics past `len()`); this body returns early, so each `None` needs a person",
                ));
                continue;
            };
            let message = "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22, and panics past `len()` (`None` becomes that panic)";
            ctx.push(Change::edit(
                ret.syntax().text_range(),
                format!("Result<{}, DatasetError>", item.syntax().text()),
                RuleId::DatasetGetResult,
                message,
            ));
            let index = index_name(&function);
            let panic = match &index {
                Some(index) => format!("panic!(\"dataset index {{{index}}} out of range\")"),
                None => "panic!(\"dataset index out of range\")".to_string(),
            };
            let close = format!(".unwrap_or_else(|| {panic}))");
            let wrapped = tail.syntax().text_range();
            for change in Change::wrap(wrapped, "Ok(", close, RuleId::DatasetGetResult, message) {
                ctx.push(change);
            }
            ctx.need_import("burn::data::dataset::DatasetError");
        }
    }
}

/// The name of `get`'s index parameter, where it is a plain binding.
fn index_name(function: &ast::Fn) -> Option<String> {
    let param = function.param_list()?.params().next()?;
    match param.pat()? {
        ast::Pat::IdentPat(pat) if !pat.syntax().text().to_string().starts_with('_') => {
            Some(pat.name()?.text().to_string())
        }
        _ => None,
    }
}
