//! A function that required `B: AutodiffBackend` received autodiff devices. In Burn 0.22
//! autodiff is a property of the device, so the migrated function turns its device parameters
//! into autodiff devices on entry (`device.autodiff()` is idempotent, so callers that already
//! pass one are unaffected).

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::is_backend_device_type;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::indentation;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::AutodiffEntry),
    run,
    emits: &[RuleId::AutodiffDevice],
    emits_data_rules: false,
    order: Order::Rank(90),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for function in ctx.nodes::<ast::Fn>() {
        let scope = ctx.backends_in_scope(function.syntax());
        let autodiff: Vec<_> = scope.into_iter().filter(|b| b.autodiff).collect();
        if autodiff.is_empty() {
            continue;
        }
        let Some(body) = function.body().and_then(|b| b.stmt_list()) else {
            continue;
        };
        let Some(open) = body.l_curly_token() else {
            continue;
        };
        let Some(params) = function.param_list() else {
            continue;
        };
        let indent = body
            .statements()
            .next()
            .map(|s| indentation(s.syntax()))
            .or_else(|| body.tail_expr().map(|e| indentation(e.syntax())))
            .unwrap_or_else(|| format!("{}    ", indentation(function.syntax())));
        let mut inserted = String::new();
        for param in params.params() {
            let Some(ty) = param.ty() else { continue };
            if !is_backend_device_type(&ty, &autodiff) {
                continue;
            }
            let Some(ast::Pat::IdentPat(pat)) = param.pat() else {
                continue;
            };
            let Some(name) = pat.name() else { continue };
            let name = name.text();
            let line = if matches!(ty, ast::Type::RefType(_)) {
                format!("let {name} = &{name}.clone().autodiff();")
            } else {
                format!("let {name} = {name}.autodiff();")
            };
            inserted.push_str(&format!("\n{indent}{line}"));
        }
        if !inserted.is_empty() {
            ctx.push(Change::insert(
                open.text_range().end(),
                inserted,
                RuleId::AutodiffDevice,
                "this function required an autodiff backend: enable autodiff on its device",
            ));
        }
    }
}
