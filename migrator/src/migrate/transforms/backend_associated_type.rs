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
        let Some(name) = alias.name().map(|n| n.text().to_string()) else {
            continue;
        };
        let declaring = names.get(&name);
        let owner = owning_trait(&alias);
        if declaring
            .zip(owner)
            .is_some_and(|(traits, owner)| traits.contains(&owner))
        {
            sites.push((
                alias.syntax().text_range(),
                format!("`type {name}` is a backend associated type, which Burn 0.22 has no use for: remove it here, in the trait and in each impl, and write its uses without it (`Tensor<Self::{name}, 1>` is `Tensor<1>`)"),
            ));
        }
    }
    // Its uses: `Self::Backend`, `M::Backend`, `<M as Mesh>::Backend`; not another trait's
    // associated type of the same name (`<LC as LearningComponentsTypes>::Backend`, which
    // Burn's own rules port).
    let named: Vec<&str> = names.keys().map(String::as_str).collect();
    for path in ctx.paths_named(&named) {
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        // A type's associated type: `Self::`, `M::` or `<M as Mesh>::`; not a module path
        // (`burn::tensor::backend::Backend` is Burn's trait).
        let of_a_type = qualifier.qualifier().is_none()
            && qualifier.segment().is_some_and(|segment| {
                segment.qualifying_trait().is_some()
                    || segment.self_type_token().is_some()
                    || segment.name_ref().is_some_and(|name| {
                        name.text().starts_with(|c: char| c.is_ascii_uppercase())
                    })
            });
        if !of_a_type {
            continue;
        }
        let qualifying_trait = (qualifier.segment())
            .and_then(|segment| segment.qualifying_trait())
            .and_then(|tr| tr.path())
            .and_then(|tr| crate::util::syntax::segment_names(&tr).pop());
        let declared_by = path
            .segment()
            .and_then(|s| s.name_ref())
            .and_then(|n| names.get(n.text().to_string().as_str()));
        if let (Some(tr), Some(traits)) = (qualifying_trait, declared_by) {
            if !traits.contains(&tr) {
                continue;
            }
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

/// The trait an associated type belongs to: the trait that declares it, or the trait an impl
/// defines it for.
fn owning_trait(alias: &ast::TypeAlias) -> Option<String> {
    let owner = alias.syntax().parent()?.parent()?;
    if let Some(tr) = ast::Trait::cast(owner.clone()) {
        return Some(tr.name()?.text().to_string());
    }
    let ast::Type::PathType(tr) = ast::Impl::cast(owner)?.trait_()? else {
        return None;
    };
    crate::util::syntax::segment_names(&tr.path()?).pop()
}
