//! `impl ItemLazy for Output { type ItemSync = Self; fn sync(self) -> Self::ItemSync { self } }`:
//! burn-train 0.21.0's `ItemLazy` had an associated `ItemSync` type that `sync` returned
//! (`metric/processor/base.rs`); 0.22.1's has none and `sync` returns
//! `Result<Self, ExecutionError>`. Where the item synced to itself, the port is mechanical:
//! the associated type goes, `sync` returns `Result<Self, ExecutionError>` and its value is
//! wrapped in `Ok(..)`. An item that synced to another type, or a `sync` whose value leaves by
//! `return`, is reported whole.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, TextRange, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{leaves_other_than_by_tail, line_removal_range};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::ItemLazySync),
    run,
    emits: &[RuleId::ItemLazySync],
    emits_data_rules: false,
    order: Order::Rank(192),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("ItemSync") || ctx.targets_0_22() {
        return;
    }
    for imp in ctx.nodes::<ast::Impl>() {
        let Some(ast::Type::PathType(tr)) = imp.trait_() else {
            continue;
        };
        let named_item_lazy = (tr.path())
            .and_then(|path| ctx.index.burn_name(ctx.file_id, &path))
            .is_some_and(|name| name == "ItemLazy");
        let Some(items) = imp.assoc_item_list().filter(|_| named_item_lazy) else {
            continue;
        };
        let mut item_sync = None;
        let mut sync = None;
        for item in items.assoc_items() {
            match item {
                ast::AssocItem::TypeAlias(alias)
                    if alias.name().is_some_and(|n| n.text() == "ItemSync") =>
                {
                    item_sync = Some(alias)
                }
                ast::AssocItem::Fn(function)
                    if function.name().is_some_and(|n| n.text() == "sync") =>
                {
                    sync = Some(function)
                }
                _ => {}
            }
        }
        // Without `ItemSync` the impl is 0.22's already.
        let Some(item_sync) = item_sync else { continue };
        let self_type = imp.self_ty().map(|ty| ty.syntax().text().to_string());
        let synced_to_itself = item_sync.ty().is_some_and(|ty| {
            let text = ty.syntax().text().to_string();
            text == "Self" || Some(text) == self_type
        });
        let port = sync
            .filter(|_| synced_to_itself)
            .and_then(|sync| Some((sync.ret_type()?.ty()?, sync.body()?.tail_expr()?, sync)))
            .filter(|(_, _, sync)| !leaves_other_than_by_tail(sync));
        let Some((returned, value, _)) = port else {
            ctx.push(Change::manual(
                imp.syntax().text_range(),
                RuleId::ItemLazySync,
                "`ItemLazy` changed in Burn 0.22: `fn sync(self) -> Result<Self, ExecutionError>`, no `ItemSync` (the item syncs to itself)",
            ));
            continue;
        };
        let message = "`ItemLazy::sync` returns `Result<Self, ExecutionError>` in Burn 0.22, which has no `ItemSync`";
        // The line, and the blank line that set it apart from `sync`.
        let mut removed = line_removal_range(item_sync.syntax());
        let after = &ctx.file.text[usize::from(removed.end())..];
        let blank = after.len() - after.trim_start_matches([' ', '\t']).len();
        if after[blank..].starts_with('\n') {
            removed = TextRange::new(
                removed.start(),
                removed.end() + TextSize::from(blank as u32 + 1),
            );
        }
        ctx.push(Change::delete(removed, RuleId::ItemLazySync, message));
        ctx.push(Change::edit(
            returned.syntax().text_range(),
            "Result<Self, ExecutionError>",
            RuleId::ItemLazySync,
            message,
        ));
        let wrapped = value.syntax().text_range();
        for change in Change::wrap(wrapped, "Ok(", ")", RuleId::ItemLazySync, message) {
            ctx.push(change);
        }
        ctx.need_import("burn::tensor::ExecutionError");
    }
}
