//! Associated items of a backend parameter that Burn 0.22 removed (`B::FloatElem`,
//! `B::name()`, ...): no rule can rewrite them from syntax alone, so they are reported
//! and `--check` fails on them.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::backend_calls;
use super::backend_extension_port;
use super::context::FileCtx;
use super::dispatch_primitives;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{path_as_ident, segment_name};

/// Associated items other rules rewrite, besides the device methods of `backend_calls`.
const HANDLED: &[&str] = &["Device", "InnerBackend", "Gradients"];

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendAssociatedItem),
    run,
    emits: &[RuleId::BackendAssociatedItem],
    emits_data_rules: false,
    order: Order::Rank(220),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.nodes::<ast::Path>() {
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let Some(segment) = path.segment() else {
            continue;
        };
        let item = segment_name(&segment);
        if HANDLED.contains(&item.as_str())
            || backend_calls::is_device_method(&item)
            || dispatch_primitives::dispatch_operation(ctx, &path).is_some()
            || backend_extension_port::dispatch_call(ctx, &path).is_some()
        {
            continue;
        }
        // Cheap tests first: an anchor (`<X as Backend>`), a module path to a name the
        // workspace aliases (`crate::InferenceBackend`), a backend type the file imports.
        let ident = path_as_ident(&qualifier);
        let last_name = qualifier.segment().map(|s| segment_name(&s));
        let through_a_backend = qualifier.segment().and_then(|s| s.type_anchor()).is_some()
            || (qualifier.qualifier().is_some()
                && last_name
                    .as_deref()
                    .is_some_and(|n| ctx.index.aliases.contains_key(n)))
            || (ident.as_ref()).is_some_and(|n| ctx.index.names_backend_type(ctx.file_id, n));
        let device_qualifier =
            last_name.as_deref() == Some("Device") && qualifier.qualifier().is_some();
        // A backend parameter is a type parameter the file declares: a path that is not
        // through a backend, nor a device type's function, nor on such a name, is left
        // before the scope lookup (most paths: `Tensor::zeros`, `Self::new`).
        let may_be_parameter = (ident.as_ref()).is_some_and(|n| ctx.declares_type_param(n));
        if !through_a_backend && !device_qualifier && !may_be_parameter {
            continue;
        }
        // `B::FloatElem`, and through a concrete backend: `<crate::InferenceBackend as
        // Backend>::memory_cleanup(..)`, `NdArray::name(..)`.
        let scope = ctx.backends_in_scope(path.syntax());
        let plain_parameter = (ident.as_ref()).is_some_and(|n| scope.iter().any(|b| &b.name == n));
        // A parameter behind an anchor (`<B as BackendTypes>::IntElem`) is the dangling
        // check's: it reports the use where the parameter went.
        let anchored_parameter = qualifier
            .segment()
            .and_then(|s| s.type_anchor())
            .and_then(|a| a.ty())
            .as_ref()
            .and_then(crate::util::syntax::type_as_ident)
            .is_some_and(|n| scope.iter().any(|b| b.name == n));
        let concrete = through_a_backend
            && !anchored_parameter
            && ctx.qualifier_is_backend(&qualifier, &scope);
        // `B::Device::from_id(DeviceId::new(..))`: a function of the backend's device type,
        // which `Device` does not have (0.22 enumerates devices with `Device::enumerate`).
        let device_function = device_qualifier
            && qualifier
                .qualifier()
                .is_some_and(|base| ctx.qualifier_is_backend(&base, &scope));
        // `B::Device::default()` is `Device::default()` in 0.22, and `default-device` ports
        // or reports that call (`device_values::default_device`): one finding for one site.
        let default_call = item == "default"
            && (path.syntax().parent())
                .filter(|callee| ast::PathExpr::can_cast(callee.kind()))
                .and_then(|callee| callee.parent())
                .is_some_and(|call| ast::CallExpr::can_cast(call.kind()));
        if device_function && default_call {
            continue;
        }
        if device_function {
            let base = ctx.file.slice(qualifier.syntax().text_range());
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::BackendAssociatedItem,
                format!("`{base}::{item}` has no counterpart on Burn 0.22's `Device`: list devices with `Device::enumerate(DeviceType::..)`"),
            ));
            continue;
        }
        if plain_parameter || concrete {
            let base = ctx.file.slice(qualifier.syntax().text_range());
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::BackendAssociatedItem,
                format!("`{base}::{item}` has no backend to refer to in Burn 0.22; see the guide page for its replacement"),
            ));
        }
    }
}
