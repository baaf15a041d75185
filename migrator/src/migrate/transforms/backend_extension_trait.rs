//! User traits that extend Burn's `Backend` (backend extensions) are reported: Burn 0.22
//! ports them with `#[backend_extension]`, which no syntax rewrite can write for a person.

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;

pub fn run(ctx: &mut FileCtx) {
    for (file, range, name) in &ctx.index.user_backend_traits {
        if *file == ctx.file_id {
            ctx.push(Change::manual(
                *range,
                RuleId::BackendExtensionTrait,
                format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
            ));
        }
    }
}
