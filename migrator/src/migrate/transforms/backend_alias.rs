//! Type aliases that name a backend (`type MyBackend = Autodiff<NdArray<f32>>;`) go: Burn 0.22
//! selects the backend with a `Device` value, which `device-values` writes where the device
//! is made.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::{device_expression, FileCtx};
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::line_removal_range;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendAlias),
    run,
    emits: &[RuleId::BackendTypeAlias],
    emits_data_rules: false,
    order: Order::Rank(60),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for alias in ctx.nodes::<ast::TypeAlias>() {
        let Some(name) = alias.name() else { continue };
        let Some(ty) = alias.ty() else { continue };
        // `type G<IB> = Autodiff<IB>;`: a backend whatever it wraps; the device of each use
        // is written where the wrapped backend is known.
        let message = if ctx.index.defines_wrapper_alias(ctx.file_id, name.text()) {
            format!(
                "backend alias `{}` wraps a backend, which a `Device` value picks in Burn 0.22",
                name.text()
            )
        } else if let Some(branches) = inherited_branches(ctx, &alias, name.text()) {
            // Defined once over an alias chosen by `cfg`: each branch has its own device.
            format!(
                "backend alias `{}` is replaced by a device per `cfg` branch: {branches}",
                name.text()
            )
        } else {
            let Some(spec) = ctx.index.resolve_backend_type(ctx.file_id, &ty) else {
                continue;
            };
            let device = device_expression(ctx, &spec).summary();
            format!(
                "backend alias `{}` is replaced by the device `{device}`",
                name.text()
            )
        };
        ctx.push(Change::delete(
            line_removal_range(alias.syntax()),
            RuleId::BackendTypeAlias,
            message,
        ));
    }
}

/// The devices of an alias without its own `cfg` that inherits the branches of a `cfg`-chosen
/// alias it names (`Index::alias_branches`), each after its condition.
fn inherited_branches(ctx: &FileCtx, alias: &ast::TypeAlias, name: &str) -> Option<String> {
    let own_cfg =
        (ast::HasAttrs::attrs(alias)).any(|a| a.syntax().text().to_string().starts_with("#[cfg("));
    let branches = ctx.index.alias_branches.get(name).filter(|_| !own_cfg)?;
    let devices: Vec<String> = branches
        .iter()
        .map(|(cfg, spec)| format!("{cfg} `{}`", device_expression(ctx, spec).summary()))
        .collect();
    Some(devices.join(", "))
}
