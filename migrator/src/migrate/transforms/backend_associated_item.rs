//! Associated items of a backend parameter that Burn 0.22 removed (`B::FloatElem`,
//! `B::ad_enabled()`, ...): no rule can rewrite them from syntax alone, so they are reported
//! and `--check` fails on them.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;
use crate::util::syntax::{path_as_ident, segment_name};

/// Associated items other rules rewrite.
const HANDLED: &[&str] = &["Device", "InnerBackend", "seed", "sync", "Gradients"];

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.nodes::<ast::Path>() {
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let Some(base) = path_as_ident(&qualifier) else {
            continue;
        };
        let Some(segment) = path.segment() else {
            continue;
        };
        let item = segment_name(&segment);
        if HANDLED.contains(&item.as_str()) {
            continue;
        }
        let scope = ctx.backends_in_scope(path.syntax());
        if scope.iter().any(|b| b.name == base) {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::BackendAssociatedItem,
                format!("`{base}::{item}` has no backend to refer to in Burn 0.22; see the guide page for its replacement"),
            ));
        }
    }
}
