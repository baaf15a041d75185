//! Element types a project chose through its backend type (`NdArray<f64>`, `Wgpu<f16, i32>`):
//! the type's defaults (the backend table's `elements`) need nothing, anything else is a device
//! configuration in 0.22. The device rules write it where they build a device for such a type
//! (`ElementDTypes`); this transform reports the type, since a device built elsewhere (passed
//! in from code that chose no backend) gets none.

use ra_ap_syntax::ast::{self, HasGenericArgs};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendElementGenerics),
    run,
    emits: &[RuleId::BackendElementGenerics],
    emits_data_rules: false,
    order: Order::Rank(250),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: true,
};

pub fn run(ctx: &mut FileCtx) {
    // A path names one of Burn's backend types (`burn_backend_name`) only with the type's
    // name written, in the path or in the file's import of it.
    if !ctx.spells_any(ctx.index.backends.iter().flat_map(|b| &b.types)) {
        return;
    }
    for path_type in ctx.nodes::<ast::PathType>() {
        let Some(path) = path_type.path() else {
            continue;
        };
        let Some(name) = ctx.index.burn_backend_name(ctx.file_id, &path) else {
            continue;
        };
        let Some(backend) = ctx.index.backends.iter().find(|b| b.types.contains(&name)) else {
            continue;
        };
        let Some(args) = path.segment().and_then(|s| s.generic_arg_list()) else {
            continue;
        };
        // `type Cpu<E, I> = Flex<E, I>;` passes its own parameters on: the choice is made
        // where `Cpu<..>` is used.
        let own_params: Vec<String> = path_type
            .syntax()
            .ancestors()
            .filter_map(ast::AnyHasGenericParams::cast)
            .filter_map(|o| ra_ap_syntax::ast::HasGenericParams::generic_param_list(&o))
            .flat_map(|l| {
                l.generic_params().filter_map(|p| match p {
                    ast::GenericParam::TypeParam(t) => {
                        ra_ap_syntax::ast::HasName::name(&t).map(|n| n.text().to_string())
                    }
                    _ => None,
                })
            })
            .collect();
        let unusual = args
            .generic_args()
            .filter(|a| !matches!(a, ast::GenericArg::LifetimeArg(_)))
            .zip(&backend.elements)
            .any(|(a, (_, default))| match a {
                ast::GenericArg::TypeArg(t) => t
                    .ty()
                    .and_then(|t| crate::util::syntax::type_as_ident(&t))
                    .is_some_and(|n| n != *default && !own_params.contains(&n)),
                _ => false,
            });
        if unusual {
            ctx.push(Change::manual(
                path_type.syntax().text_range(),
                RuleId::BackendElementGenerics,
                format!(
                    "element types are a device setting in Burn 0.22: the devices the port builds for `{}` are configured with them (`device.configure(..)`); a device built elsewhere needs the same `configure` before its first tensor",
                    path_type.syntax().text()
                ),
            ));
        }
    }
}
