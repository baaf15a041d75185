//! A workspace function's recorder parameter (`crate::migrate::recorder_wrappers`) goes with
//! its type parameter, and the argument goes from every call that passes a Burn recorder
//! there: `llama.load(checkpoint, &recorder)` is `llama.load(checkpoint)`. The function's
//! `RecorderError` is Burn 0.22's `RecordError`, which `save_file` and `try_load_file` return
//! (burn-core 0.22.1 `module/base.rs`).

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::data_rules::binding_of;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::recorder_wrappers::RecorderParameter;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{prev_significant, remove_list_elements};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::RecorderParameter),
    run,
    emits: &[RuleId::RecorderParameter],
    emits_data_rules: false,
    order: Order::Rank(186),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if ctx.index.recorder_params.is_empty() || ctx.targets_0_22() {
        return;
    }
    for function in ctx.nodes::<ast::Fn>() {
        if let Some(recorder) = ctx.index.recorder_parameter(ctx.file_id, &function) {
            port_definition(ctx, &function, &recorder);
        }
    }
    let argument_lists = (ctx
        .nodes::<ast::CallExpr>()
        .filter_map(|call| call.arg_list()))
    .chain(
        ctx.nodes::<ast::MethodCallExpr>()
            .filter_map(|call| call.arg_list()),
    );
    for list in argument_lists.collect::<Vec<_>>() {
        let args: Vec<ast::Expr> = list.args().collect();
        let passed = args
            .iter()
            .map(|arg| passes_a_recorder(ctx, arg))
            .collect::<Vec<_>>();
        if !passed.iter().any(|p| *p) {
            continue;
        }
        let nodes: Vec<SyntaxNode> = args.iter().map(|a| a.syntax().clone()).collect();
        // Every argument goes only where the function takes nothing else: the list stays.
        let ranges = remove_list_elements(&nodes, &passed)
            .unwrap_or_else(|| args.iter().map(|a| a.syntax().text_range()).collect());
        for range in ranges {
            ctx.push(Change::delete(
                range,
                RuleId::RecorderParameter,
                "the function this calls no longer takes a recorder in Burn 0.22",
            ));
        }
    }
}

/// The recorder parameter and its type parameter go; `RecorderError` in the signature is
/// `RecordError`.
fn port_definition(ctx: &mut FileCtx, function: &ast::Fn, recorder: &RecorderParameter) {
    let Some(params) = function.param_list() else {
        return;
    };
    let message = "Burn 0.22 has no recorders: the parameter that carried one to `save_file`/`load_file` goes";
    ctx.push(Change::delete(
        recorder.generics.syntax().text_range(),
        RuleId::RecorderParameter,
        message,
    ));
    let mut nodes: Vec<SyntaxNode> = Vec::new();
    let mut remove = Vec::new();
    if let Some(receiver) = params.self_param() {
        nodes.push(receiver.syntax().clone());
        remove.push(false);
    }
    for param in params.params() {
        remove.push(param.syntax() == recorder.param.syntax());
        nodes.push(param.syntax().clone());
    }
    let ranges = remove_list_elements(&nodes, &remove)
        .unwrap_or_else(|| vec![recorder.param.syntax().text_range()]);
    for range in ranges {
        ctx.push(Change::delete(range, RuleId::RecorderParameter, message));
    }
    let errors: Vec<ast::Path> = (function.ret_type().into_iter())
        .flat_map(|ret| {
            ret.syntax()
                .descendants()
                .filter_map(ast::Path::cast)
                .collect::<Vec<_>>()
        })
        .filter(|path| path.syntax().parent().and_then(ast::Path::cast).is_none())
        .filter(|path| ctx.index.burn_name(ctx.file_id, path).as_deref() == Some("RecorderError"))
        .collect();
    for path in errors {
        // From the token before the name (`, RecorderError`), so that the edit holds the
        // finding `recorder-types` makes at the name and answers it.
        let range = path.syntax().text_range();
        let Some(before) = path
            .syntax()
            .first_token()
            .and_then(|t| prev_significant(&t))
        else {
            continue;
        };
        let from = before.text_range().start();
        let lead = ctx
            .file
            .slice(TextRange::new(from, range.start()))
            .to_string();
        ctx.push(Change::edit(
            TextRange::new(from, range.end()),
            format!("{lead}RecordError"),
            RuleId::RecorderParameter,
            "`save_file` and `try_load_file` fail with `burn::store::RecordError` in Burn 0.22",
        ));
        ctx.need_import("burn::store::RecordError");
    }
}

/// Whether `arg` is a Burn recorder (`&recorder` bound to one, or one built in place) passed
/// at a workspace function's recorder parameter.
fn passes_a_recorder(ctx: &FileCtx, arg: &ast::Expr) -> bool {
    let value = crate::util::syntax::without_borrow(arg);
    let Some(value) = value else {
        return false;
    };
    let built = match &value {
        ast::Expr::PathExpr(variable) => (binding_of(variable).and_then(|b| b.initializer()))
            .is_some_and(|init| ctx.index.builds_a_burn_recorder(ctx.file_id, &init)),
        other => ctx.index.builds_a_burn_recorder(ctx.file_id, other),
    };
    built && ctx.index.is_wrapper_recorder_argument(value.syntax())
}
