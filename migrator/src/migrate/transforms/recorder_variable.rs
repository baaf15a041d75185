//! `let recorder = CompactRecorder::new();` whose every use was the recorder argument of a
//! `save_file`/`load_file` call: those calls lose the argument (`save-file-recorder`,
//! `load-file-recorder`), so the variable names nothing the port needs, and its type is gone
//! from Burn 0.22. The `let` goes with them, rather than staying for a person to delete. So
//! does one whose other uses are `record`/`load` calls that `recorder-calls` ports.

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::recorder_calls;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::line_removal_range;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::RecorderVariable),
    run,
    emits: &[RuleId::RecorderVariable],
    emits_data_rules: false,
    order: Order::Rank(185),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("Recorder") {
        return;
    }
    let mut unused = Vec::new();
    for binding in ctx.root().descendants().filter_map(ast::LetStmt::cast) {
        let Some(ast::Pat::IdentPat(pattern)) = binding.pat() else {
            continue;
        };
        let Some(name) = pattern.name().map(|n| n.text().to_string()) else {
            continue;
        };
        if binding
            .initializer()
            .is_some_and(|init| builds_a_burn_recorder(ctx, &init))
            && only_recorder_arguments(ctx, &binding, &name)
        {
            unused.push(binding);
        }
    }
    if unused.is_empty() || ctx.targets_0_22() {
        return;
    }
    for binding in unused {
        ctx.push(Change::delete(
            line_removal_range(binding.syntax()),
            RuleId::RecorderVariable,
            "the recorder served only `save_file`/`load_file` arguments and calls the port rewrites; Burn 0.22 has no recorders",
        ));
    }
}

/// Whether `init` makes one of Burn's recorders: `CompactRecorder::new()`,
/// `NamedMpkFileRecorder::<FullPrecisionSettings>::default()`, or the unit value itself.
fn builds_a_burn_recorder(ctx: &FileCtx, init: &ast::Expr) -> bool {
    let path = match init {
        ast::Expr::CallExpr(call) => match call.expr() {
            Some(ast::Expr::PathExpr(callee)) => callee.path().and_then(|p| p.qualifier()),
            _ => None,
        },
        ast::Expr::PathExpr(value) => value.path(),
        _ => None,
    };
    // Every item of Burn 0.21 named `..Recorder` is one of `burn::record`'s recorders.
    path.and_then(|path| ctx.index.burn_name(ctx.file_id, &path))
        .is_some_and(|name| name.ends_with("Recorder"))
}

/// Whether every use of `name` after `binding`, in its block, is the recorder argument of a
/// `save_file(path, recorder)` or `load_file(path, recorder, device)` call (written `name` or
/// `&name`), and there is one.
fn only_recorder_arguments(ctx: &FileCtx, binding: &ast::LetStmt, name: &str) -> bool {
    let uses = recorder_calls::uses_after(binding, name);
    !uses.is_empty()
        && uses
            .iter()
            .all(|name_ref| is_recorder_argument(name_ref) || receives_a_ported_call(ctx, name_ref))
}

/// `name_ref` is the receiver of a `record`/`load` call that `recorder-calls` ports.
fn receives_a_ported_call(ctx: &FileCtx, name_ref: &SyntaxNode) -> bool {
    let Some(receiver) = name_ref.ancestors().find_map(ast::PathExpr::cast) else {
        return false;
    };
    (receiver.syntax().parent())
        .and_then(ast::MethodCallExpr::cast)
        .filter(|call| {
            call.receiver()
                .is_some_and(|r| *r.syntax() == *receiver.syntax())
        })
        .is_some_and(|call| recorder_calls::is_ported(ctx, &call))
}

/// `name_ref` is the whole recorder argument of a `save_file`/`load_file` call.
fn is_recorder_argument(name_ref: &SyntaxNode) -> bool {
    let Some(path_expr) = name_ref.ancestors().find_map(ast::PathExpr::cast) else {
        return false;
    };
    let path_is_plain = path_expr.path().is_some_and(|p| p.qualifier().is_none());
    let mut argument = path_expr.syntax().clone();
    if let Some(reference) = argument
        .parent()
        .filter(|p| ast::RefExpr::can_cast(p.kind()))
    {
        argument = reference;
    }
    let Some(call) = (argument.parent())
        .filter(|p| ast::ArgList::can_cast(p.kind()))
        .and_then(|list| list.parent())
        .and_then(ast::MethodCallExpr::cast)
    else {
        return false;
    };
    let Some(args) = call.arg_list().map(|a| a.args().collect::<Vec<_>>()) else {
        return false;
    };
    let is_second = args
        .get(1)
        .is_some_and(|second| *second.syntax() == argument);
    let method = call.name_ref().map(|n| n.text().to_string());
    path_is_plain
        && is_second
        && matches!(
            (method.as_deref(), args.len()),
            (Some("save_file"), 2) | (Some("load_file"), 3)
        )
}
