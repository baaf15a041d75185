//! `Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22: reported, since the body
//! needs a person.
//!
//! `fn get(&self, index: usize) -> Option<I>` in an `impl Dataset<I> for ..`.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_names;

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
            if ret.syntax().text().to_string().starts_with("Option") {
                ctx.push(Change::manual(
                    ret.syntax().text_range(),
                    RuleId::DatasetGetResult,
                    "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22 (and panics past `len()`)",
                ));
            }
        }
    }
}
