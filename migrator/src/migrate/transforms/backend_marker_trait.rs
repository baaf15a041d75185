//! The project's backend marker traits (`pub trait MyBackend: Backend {}` with
//! `impl<B: Backend> MyBackend for B {}`) go: Burn 0.22 has no backend type left for them to
//! mark. Parameters bounded by them are backend parameters (`generic-params` removes them);
//! their imports go too (the `imports` transform, under this rule). The index decides what a
//! marker is (`Index::marker_traits`); a trait with items of its own is a backend extension.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{line_removal_range, segment_names};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendMarkerTrait),
    run,
    emits: &[RuleId::BackendMarkerTrait],
    emits_data_rules: false,
    order: Order::Rank(70),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if ctx.index.marker_traits.is_empty() {
        return;
    }
    for node in ctx.listed_nodes_but_paths() {
        if let Some(tr) = ast::Trait::cast(node.clone()) {
            let Some(name) = tr.name().map(|n| n.text().to_string()) else {
                continue;
            };
            if ctx.index.marker_traits.contains(&name) {
                ctx.push(Change::delete(
                    line_removal_range(tr.syntax()),
                    RuleId::BackendMarkerTrait,
                    format!("marker trait `{name}` only stood for a backend; Burn 0.22 has none in user code"),
                ));
            }
        } else if let Some(imp) = ast::Impl::cast(node) {
            let Some(ast::Type::PathType(trait_type)) = imp.trait_() else {
                continue;
            };
            let Some(name) = trait_type
                .path()
                .and_then(|p| segment_names(&p).last().cloned())
            else {
                continue;
            };
            if ctx.index.marker_traits.contains(&name) {
                ctx.push(Change::delete(
                    line_removal_range(imp.syntax()),
                    RuleId::BackendMarkerTrait,
                    format!("the blanket impl of marker trait `{name}` goes with it"),
                ));
            }
        }
    }
}
