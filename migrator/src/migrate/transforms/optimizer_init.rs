//! `SgdConfig::new().init::<B, Model<B>>()` -> `SgdConfig::new().init()`: optimizer configs
//! build a type-erased `ModuleOptimizer` in Burn 0.22, with no type parameters at all.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::OptimizerInit),
    run,
    emits: &[RuleId::OptimizerInit],
    emits_data_rules: false,
    order: Order::Rank(200),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        if call.name_ref().is_none_or(|n| n.text() != "init") {
            continue;
        }
        // Module configs take a device (`init(&device)`); optimizer configs take nothing.
        if call.arg_list().is_none_or(|a| a.args().next().is_some()) {
            continue;
        }
        let Some(list) = call.generic_arg_list() else {
            continue;
        };
        // Only when the turbofish names a backend, so a user's own `init::<T>()` is left alone.
        let scope = ctx.backends_in_scope(call.syntax());
        let names_backend = list.generic_args().any(|a| match a {
            ast::GenericArg::TypeArg(t) => {
                t.ty().is_some_and(|ty| ctx.is_backend_type(&ty, &scope))
            }
            _ => false,
        });
        if names_backend {
            ctx.push(Change::delete(
                list.syntax().text_range(),
                RuleId::OptimizerInit,
                "optimizer configs build a `ModuleOptimizer` without type parameters in Burn 0.22",
            ));
        }
    }
}
