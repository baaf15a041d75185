//! `Optimizer<M, B>` (0.21's two-parameter trait) in bounds and types: 0.22's optimizers are
//! the concrete `ModuleOptimizer`, and `Optimizer` names another trait.

use ra_ap_syntax::ast::HasGenericArgs;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::OptimizerBounds),
    run,
    emits: &[RuleId::OptimizerBounds],
    emits_data_rules: false,
    order: Order::Rank(230),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.paths_named(&["Optimizer", "OptimizerAdaptor"]) {
        let Some(segment) = path.segment() else {
            continue;
        };
        let arity = segment
            .generic_arg_list()
            .map(|l| l.generic_args().count())
            .unwrap_or(0);
        if arity >= 2 {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::OptimizerBounds,
                "optimizers are the concrete `burn::optim::ModuleOptimizer` in Burn 0.22: take `&mut ModuleOptimizer` instead of a generic `O: Optimizer<M, B>`",
            ));
        }
    }
}
