//! What no rule can rewrite from syntax alone is reported, so `--check` fails on it:
//! associated items of a backend parameter that Burn 0.22 removed (`B::FloatElem`,
//! `B::ad_enabled()`, ...) and user traits that extend `Backend` (backend extensions).

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::FileCtx;
use crate::edit::Change;
use crate::util::syntax::{path_as_ident, segment_name};

pub const RULE_PATH: &str = "backend-associated-item";
pub const RULE_TRAIT: &str = "backend-extension-trait";
pub const RULE_OPTIMIZER_BOUND: &str = "optimizer-bounds";
pub const RULE_RECORD_TYPE: &str = "module-record-type";
pub const RULE_ELEMENT_GENERICS: &str = "backend-element-generics";
pub const RULE_DATA_FIELDS: &str = "tensordata-fields";

/// Associated items other rules rewrite.
const HANDLED: &[&str] = &["Device", "InnerBackend", "seed", "sync", "Gradients"];

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let Some(base) = path_as_ident(&qualifier) else {
            continue;
        };
        let Some(segment) = path.segment() else {
            continue;
        };
        let item = segment_name(&segment);
        if HANDLED.contains(&item.as_str()) {
            continue;
        }
        let scope = ctx.backends_in_scope(path.syntax());
        if scope.iter().any(|b| b.name == base) {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RULE_PATH,
                format!("`{base}::{item}` has no backend to refer to in Burn 0.22; see the guide page for its replacement"),
            ));
        }
    }
    if !ctx.migrated {
        optimizer_bounds(ctx);
        record_types(ctx);
        element_generics(ctx);
        tensordata_fields(ctx);
    }
    for (file, range, name) in &ctx.index.user_backend_traits {
        if *file == ctx.file_id {
            ctx.changes.push(Change::manual(
                *range,
                RULE_TRAIT,
                format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
            ));
        }
    }
}

/// `Optimizer<M, B>` (0.21's two-parameter trait) in bounds and types: 0.22's optimizers are
/// the concrete `ModuleOptimizer`, and `Optimizer` names another trait.
fn optimizer_bounds(ctx: &mut FileCtx) {
    use ra_ap_syntax::ast::HasGenericArgs;
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
        let Some(segment) = path.segment() else {
            continue;
        };
        let is_optimizer = segment
            .name_ref()
            .is_some_and(|n| n.text() == "Optimizer" || n.text() == "OptimizerAdaptor");
        let arity = segment
            .generic_arg_list()
            .map(|l| l.generic_args().count())
            .unwrap_or(0);
        if is_optimizer && arity >= 2 {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RULE_OPTIMIZER_BOUND,
                "optimizers are the concrete `burn::optim::ModuleOptimizer` in Burn 0.22: take `&mut ModuleOptimizer` instead of a generic `O: Optimizer<M, B>`",
            ));
        }
    }
}

/// `ModelRecord<B>`: the record type `derive(Module)` generated for a module of the
/// workspace. Burn 0.22 has one non-generic `burn::store::ModuleRecord`.
fn record_types(ctx: &mut FileCtx) {
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
        let Some(name) = path
            .segment()
            .and_then(|s| s.name_ref())
            .map(|n| n.text().to_string())
        else {
            continue;
        };
        let Some(module) = name.strip_suffix("Record") else {
            continue;
        };
        if ctx.index.modules.contains(module) {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RULE_RECORD_TYPE,
                format!("`{name}` is not generated in Burn 0.22: records are `burn::store::ModuleRecord`"),
            ));
        }
    }
}

/// Element types a project chose through its backend type (`NdArray<f64>`, `Wgpu<f16, i32>`):
/// the type's defaults (the backend table's `elements`) need nothing, anything else is a device
/// configuration in 0.22.
fn element_generics(ctx: &mut FileCtx) {
    use ra_ap_syntax::ast::HasGenericArgs;
    for path_type in ctx.root().descendants().filter_map(ast::PathType::cast) {
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
                RULE_ELEMENT_GENERICS,
                "element types are a device setting in Burn 0.22: `device.configure(DeviceConfig::default().float_dtype(..))`",
            ));
        }
    }
}

/// `data.shape` / `data.dtype` on tensor data (a `to_data()`/`into_data()` call, or a `let`
/// bound to one in the same function): the fields are private in 0.22.
fn tensordata_fields(ctx: &mut FileCtx) {
    const FIELDS: &[&str] = &["shape", "dtype", "bytes"];
    let is_data_call = |expr: &ast::Expr| match expr {
        ast::Expr::MethodCallExpr(m) => m
            .name_ref()
            .is_some_and(|n| n.text() == "to_data" || n.text() == "into_data"),
        _ => false,
    };
    for field in ctx.root().descendants().filter_map(ast::FieldExpr::cast) {
        let Some(name) = field.name_ref().map(|n| n.text().to_string()) else {
            continue;
        };
        if !FIELDS.contains(&name.as_str()) {
            continue;
        }
        let Some(receiver) = field.expr() else {
            continue;
        };
        let is_data = is_data_call(&receiver)
            || match &receiver {
                ast::Expr::PathExpr(p) => p.path().and_then(|p| path_as_ident(&p)).is_some_and(|var| {
                    field.syntax().ancestors().find_map(ast::Fn::cast).is_some_and(|f| {
                        f.syntax().descendants().filter_map(ast::LetStmt::cast).any(|l| {
                            let binds = matches!(l.pat(), Some(ast::Pat::IdentPat(p)) if p.syntax().text() == var.as_str());
                            binds && l.initializer().is_some_and(|i| is_data_call(&i))
                        })
                    })
                }),
                _ => false,
            };
        if is_data {
            ctx.push(Change::manual(
                field.syntax().text_range(),
                RULE_DATA_FIELDS,
                format!("`TensorData::{name}` is private in Burn 0.22: call `{name}()`"),
            ));
        }
    }
}
