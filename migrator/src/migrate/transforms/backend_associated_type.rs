//! A trait's associated type bounded by a backend trait (`trait Mesh { type Backend: Backend;
//! }`) and its uses (`Tensor<Self::Backend, 1>`): Burn 0.22 has no backend type for it to
//! name. Reported, declaration, definitions and uses, for a person to remove.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendAssociatedType),
    run,
    emits: &[RuleId::BackendAssociatedType],
    emits_data_rules: false,
    order: Order::Rank(275),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    let names = &ctx.index.backend_associated_types;
    if names.is_empty() {
        return;
    }
    let mut sites = Vec::new();
    // The declaration in the trait and the definitions in its impls.
    for alias in ctx.nodes::<ast::TypeAlias>() {
        let in_trait_or_impl = (alias.syntax().parent())
            .is_some_and(|parent| ast::AssocItemList::can_cast(parent.kind()));
        let Some(name) = alias.name().map(|n| n.text().to_string()) else {
            continue;
        };
        if in_trait_or_impl && names.contains(&name) {
            sites.push((
                alias.syntax().text_range(),
                format!("`type {name}` is a backend associated type, which Burn 0.22 has no use for: remove it here, in the trait and in each impl, and write its uses without it (`Tensor<Self::{name}, 1>` is `Tensor<1>`)"),
            ));
        }
    }
    // Its uses: `Self::Backend`, `M::Backend`, `<M as Mesh>::Backend`.
    let named: Vec<&str> = names.iter().map(String::as_str).collect();
    for path in ctx.paths_named(&named) {
        if path.qualifier().is_none() {
            continue;
        }
        sites.push((
            path.syntax().text_range(),
            format!("`{path}` names a backend associated type: Burn 0.22 types take no backend (`Tensor<{path}, 1>` is `Tensor<1>`)"),
        ));
    }
    for (range, message) in sites {
        ctx.push(Change::manual(
            range,
            RuleId::BackendAssociatedType,
            message,
        ));
    }
}
