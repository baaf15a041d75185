//! User traits that extend Burn's `Backend` (backend extensions) are reported: Burn 0.22
//! ports them with `#[backend_extension]`, which no syntax rewrite can write for a person.
//! Traits that only mark a backend are no extensions: `backend-marker-trait` removes them.
//!
//! The trait and every impl of it are a person's to port as a whole: they are reported over
//! their whole text and left as they are (`FileCtx::hands_off`), since half a rewrite of a
//! custom backend operation (the backend parameter gone from `Backward<B, 1>`, its `B::`
//! primitives left) helps nobody and reads worse than the original.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_names;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendExtensionTrait),
    run,
    emits: &[RuleId::BackendExtensionTrait],
    emits_data_rules: false,
    order: Order::Rank(270),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    let extensions: Vec<&String> = (ctx.index.user_backend_traits.iter())
        .map(|(_, _, name)| name)
        // Marker traits (no items of their own) go instead (rule `backend-marker-trait`).
        .filter(|name| !ctx.index.marker_traits.contains(*name))
        .collect();
    report_backend_api_impls(ctx);
    if extensions.is_empty() {
        return;
    }
    for item in ctx.nodes::<ast::Trait>() {
        let Some(name) = item.name().map(|n| n.text().to_string()) else {
            continue;
        };
        let defined_here = (ctx.index.user_backend_traits.iter()).any(|(file, range, _)| {
            *file == ctx.file_id && item.syntax().text_range().contains_range(*range)
        });
        if !defined_here || !extensions.contains(&&name) {
            continue;
        }
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
        );
    }
    for item in ctx.nodes::<ast::Impl>() {
        let Some(ast::Type::PathType(trait_type)) = item.trait_() else {
            continue;
        };
        let Some(name) = trait_type.path().and_then(|p| segment_names(&p).pop()) else {
            continue;
        };
        if !extensions.contains(&&name) {
            continue;
        }
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("an implementation of the backend extension `{name}`: port it with the trait (`#[backend_extension]`)"),
        );
    }
}

/// Impls of backend-extension API traits a backend module exported (`impl KernelSource for
/// MyKernel` after `use burn::backend::wgpu::KernelSource;`): custom kernel code, whose 0.22
/// form is a person's, reported whole and left as written like the extension itself.
fn report_backend_api_impls(ctx: &mut FileCtx) {
    for item in ctx.nodes::<ast::Impl>() {
        let Some(ast::Type::PathType(trait_type)) = item.trait_() else {
            continue;
        };
        let Some(path) = trait_type.path() else {
            continue;
        };
        let Some(name) = ctx.index.burn_backend_name(ctx.file_id, &path) else {
            continue;
        };
        if ctx.index.replaces_backend_name(&name) {
            continue;
        }
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("an implementation of `{name}`, backend-extension API: port this kernel code with the `extension` feature"),
        );
    }
}

/// Reports `item` over its whole text and keeps every edit out of it.
fn leave_to_a_person(ctx: &mut FileCtx, item: &ra_ap_syntax::SyntaxNode, message: String) {
    let range = item.text_range();
    ctx.hands_off.push(range);
    ctx.push(Change::manual(
        range,
        RuleId::BackendExtensionTrait,
        message,
    ));
}
