//! What no rule can rewrite from syntax alone is reported, so `--check` fails on it:
//! associated items of a backend parameter that Burn 0.22 removed (`B::FloatElem`,
//! `B::ad_enabled()`, ...) and user traits that extend `Backend` (backend extensions).

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::FileCtx;
use crate::edit::Change;
use crate::syntax_util::{path_as_ident, segment_name};

pub const RULE_PATH: &str = "backend-associated-item";
pub const RULE_TRAIT: &str = "backend-extension-trait";

/// Associated items other rules rewrite.
const HANDLED: &[&str] = &["Device", "InnerBackend", "seed"];

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
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
                RULE_PATH,
                format!("`{base}::{item}` has no backend to refer to in Burn 0.22; see the guide page for its replacement"),
            ));
        }
    }
    for (file, range, name) in &ctx.index.user_backend_traits {
        if *file == ctx.file_id {
            ctx.changes.push(Change::manual(
                *range,
                RULE_TRAIT,
                format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
            ));
        }
    }
}
