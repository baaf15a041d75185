//! `M: AutodiffModule<B>` -> `M: Module` and `M::InnerModule` -> `M`: the released Burn 0.22
//! has no `AutodiffModule`; `valid()` returns the module's own type. (Its import is handled
//! with the other imports, in `imports`.)

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{path_as_ident, segment_name};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::AutodiffModule),
    run,
    emits: &[RuleId::AutodiffModule],
    emits_data_rules: false,
    order: Order::Rank(110),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.paths_named(&["AutodiffModule", "from_inner", "InnerModule"]) {
        let Some(last) = path.segment().map(|s| segment_name(&s)) else {
            continue;
        };
        if path
            .syntax()
            .ancestors()
            .any(|a| ast::UseTree::can_cast(a.kind()))
        {
            continue;
        }
        if last == "AutodiffModule"
            && ast::PathType::can_cast(
                path.syntax()
                    .parent()
                    .map_or(ra_ap_syntax::SyntaxKind::ERROR, |p| p.kind()),
            )
        {
            // The last segment only (`AutodiffModule<B>`, its one argument the backend): a
            // qualified bound (`burn::module::AutodiffModule<B>`) keeps its qualifier, so
            // `Module` resolves the way `AutodiffModule` did.
            let segment = path
                .segment()
                .map_or(path.syntax().text_range(), |s| s.syntax().text_range());
            ctx.push(Change::edit(
                segment,
                "Module",
                RuleId::AutodiffModule,
                "`AutodiffModule` is gone in Burn 0.22: bound by `Module`",
            ));
        } else if last == "from_inner" && path.syntax().text().contains_char('<') && {
            let text = path.syntax().text().to_string();
            text.contains("AutodiffModule")
        } {
            // `<M as AutodiffModule<B>>::from_inner(inner)` lifted an inner-backend module into
            // the autodiff backend; 0.22 modules have no backend, and `train()` turns gradient
            // tracking back on: whether that is what the code meant is a person's call.
            let call = path
                .syntax()
                .ancestors()
                .find_map(ast::CallExpr::cast)
                .map_or(path.syntax().text_range(), |c| c.syntax().text_range());
            ctx.push(Change::manual(
                call,
                RuleId::AutodiffModule,
                "`AutodiffModule::from_inner` is gone in Burn 0.22: the module is usable as it is (`inner.train()` turns gradient tracking back on)",
            ));
        } else if last == "InnerModule" {
            let Some(base) = path.qualifier().as_ref().and_then(path_as_ident) else {
                continue;
            };
            ctx.push(Change::edit(
                path.syntax().text_range(),
                base,
                RuleId::AutodiffModule,
                "`valid()` returns the module's own type in Burn 0.22",
            ));
        }
    }
}
