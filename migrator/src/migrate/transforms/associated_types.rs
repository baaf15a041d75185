//! `B::Device`, `&B::Device`, `<B as Backend>::Device`, `Device<B>` and `MyBackend::Device`
//! become Burn 0.22's one `Device` type, and `B::Gradients` its one `Gradients` type: associated
//! types of the backend become the one type 0.22 has.

use ra_ap_syntax::ast::{self, HasGenericArgs};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::backend_device_path;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::AssociatedTypes),
    run,
    emits: &[RuleId::AutodiffGradientsType, RuleId::BackendDeviceType],
    emits_data_rules: false,
    order: Order::Rank(30),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    // Device types by their name (`is_burn_device_type`) only where the file names one:
    // elsewhere only paths ending in `Gradients` or `Device` can be ported.
    if ctx.spells_a_device_type() {
        for path in ctx.nodes::<ast::Path>() {
            port_path(ctx, &path);
        }
    } else {
        for path in ctx.paths_named(&["Gradients", "Device"]) {
            port_path(ctx, &path);
        }
    }
}

/// `..::Gradients` and device types (`B::Device`, `NdArrayDevice`) become Burn 0.22's.
fn port_path(ctx: &mut FileCtx, path: &ast::Path) {
    // Only `..::Gradients` and `..::Device` need the backend scope (its lookup walks every
    // item around the path) and the tests that look at the last segment again: most paths
    // are neither, and take the one test that needs no such name.
    let last = path.segment().and_then(|s| s.name_ref());
    let gradients = last.as_ref().is_some_and(|n| n.text() == "Gradients");
    let device = last.as_ref().is_some_and(|n| n.text() == "Device");
    let scope = if gradients || device {
        ctx.backends_in_scope(path.syntax())
    } else {
        Vec::new()
    };
    let replacement = if gradients
        && (is_backend_gradients(path, &scope) || concrete_gradients_owner(ctx, path))
    {
        Some((
            "Gradients",
            RuleId::AutodiffGradientsType,
            "gradients are `burn::tensor::Gradients` for every backend in Burn 0.22",
        ))
    } else if is_burn_device_type(ctx, path)
        || (device
            && (backend_device_path(path, &scope)
                || super::context::concrete_device_owner(ctx, path).is_some()))
    {
        Some((
            "Device",
            RuleId::BackendDeviceType,
            "the device type is `burn::tensor::Device` for every backend in Burn 0.22",
        ))
    } else {
        None
    };
    if let Some((name, rule, message)) = replacement {
        ctx.push(Change::edit(
            path.syntax().text_range(),
            name,
            rule,
            message,
        ));
        ctx.need_import(&format!("burn::tensor::{name}"));
    } else if device {
        report_device_variant(ctx, path);
    }
}

/// `burn::tensor::Device::<Backend>::Mps`: a variant of the backend's own device type, through
/// 0.21's `Device<B>` alias. Burn 0.22's `Device` has no variants, only constructors
/// (`Device::libtorch(..)`), and which one the variant means is a person's to say.
fn report_device_variant(ctx: &mut FileCtx, alias: &ast::Path) {
    let Some(value) = alias.syntax().parent().and_then(ast::Path::cast) else {
        return;
    };
    let names_variant = (value.segment().and_then(|s| s.name_ref()))
        .is_some_and(|n| n.text().starts_with(|c: char| c.is_ascii_uppercase()));
    let with_backend = alias
        .segment()
        .is_some_and(|s| s.generic_arg_list().is_some());
    if !names_variant
        || !with_backend
        || ctx.index.burn_name(ctx.file_id, alias).as_deref() != Some("Device")
        || ctx.targets_0_22()
    {
        return;
    }
    ctx.push(Change::manual(
        value.syntax().text_range(),
        RuleId::BackendDeviceType,
        "a variant of the backend's own device type has no counterpart on Burn 0.22's `Device`, which is built by its constructors (`Device::cuda(0)`, `Device::libtorch(..)`): write the one this variant means",
    ));
}

/// `B::Gradients` or `<B as AutodiffBackend>::Gradients` for a backend `B`.
fn is_backend_gradients(path: &ast::Path, scope: &[crate::migrate::index::BackendParam]) -> bool {
    let Some(segment) = path.segment() else {
        return false;
    };
    if segment.name_ref().is_none_or(|n| n.text() != "Gradients") {
        return false;
    }
    let Some(qualifier) = path.qualifier() else {
        return false;
    };
    let base = match qualifier.segment().and_then(|s| s.type_anchor()) {
        Some(anchor) => anchor
            .ty()
            .as_ref()
            .and_then(crate::util::syntax::type_as_ident),
        None => crate::util::syntax::path_as_ident(&qualifier),
    };
    base.is_some_and(|b| scope.iter().any(|p| p.name == b))
}

/// `Train::Gradients` or `<Train as AutodiffBackend>::Gradients` for a backend type or alias
/// `Train`.
fn concrete_gradients_owner(ctx: &FileCtx, path: &ast::Path) -> bool {
    let Some(segment) = path.segment() else {
        return false;
    };
    if segment.name_ref().is_none_or(|n| n.text() != "Gradients") {
        return false;
    }
    let Some(qualifier) = path.qualifier() else {
        return false;
    };
    let owner = match qualifier.segment().and_then(|s| s.type_anchor()) {
        Some(anchor) => anchor.ty(),
        None => Some(ast::make::ty_path(qualifier)),
    };
    owner.is_some_and(|ty| ctx.index.resolve_backend_type(ctx.file_id, &ty).is_some())
}

/// A backend's own device type written as a type (`fn device() -> LibTorchDevice`); values
/// (`NdArrayDevice::Cpu`) are the device rules' business.
fn is_burn_device_type(ctx: &FileCtx, path: &ast::Path) -> bool {
    let in_type = path
        .syntax()
        .parent()
        .is_some_and(|p| ast::PathType::can_cast(p.kind()));
    in_type
        && ctx
            .index
            .burn_backend_name(ctx.file_id, path)
            .is_some_and(|name| ctx.index.backend_of_device_type(&name).is_some())
}
