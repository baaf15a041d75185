//! User traits that extend Burn's `Backend` (backend extensions) are reported: Burn 0.22
//! ports them with `#[backend_extension]`, which no syntax rewrite can write for a person.
//! Traits that only mark a backend are no extensions: `backend-marker-trait` removes them.

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;

pub fn run(ctx: &mut FileCtx) {
    for (file, range, name) in &ctx.index.user_backend_traits {
        // Marker traits (no items of their own) go instead (rule `backend-marker-trait`).
        if *file == ctx.file_id && !ctx.index.marker_traits.contains(name) {
            ctx.push(Change::manual(
                *range,
                RuleId::BackendExtensionTrait,
                format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
            ));
        }
    }
}
