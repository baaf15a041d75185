//! `let recorder = CompactRecorder::new();` whose every use was the recorder argument of a
//! `save_file`/`load_file` call: those calls lose the argument (`save-file-recorder`,
//! `load-file-recorder`), so the variable names nothing the port needs, and its type is gone
//! from Burn 0.22. The `let` goes with them, rather than staying for a person to delete. So
//! does one whose other uses are `record`/`load` calls that `recorder-calls` ports.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::recorder_calls;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::recorder_wrappers::is_recorder_argument;
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
            .is_some_and(|init| ctx.index.builds_a_burn_recorder(ctx.file_id, &init))
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

/// Whether every use of `name` after `binding`, in its block, is the recorder argument of a
/// `save_file(path, recorder)` or `load_file(path, recorder, device)` call, or of a workspace
/// function's recorder parameter that `recorder-parameter` removes (written `name` or
/// `&name`), and there is one.
fn only_recorder_arguments(ctx: &FileCtx, binding: &ast::LetStmt, name: &str) -> bool {
    let uses = recorder_calls::uses_after(binding, name);
    let handed_on = |name_ref: &SyntaxNode| {
        let plain = (name_ref.ancestors().find_map(ast::PathExpr::cast))
            .filter(|p| p.path().is_some_and(|p| p.qualifier().is_none()));
        is_recorder_argument(name_ref)
            || plain.is_some_and(|p| ctx.index.is_wrapper_recorder_argument(p.syntax()))
    };
    !uses.is_empty()
        && uses
            .iter()
            .all(|name_ref| handed_on(name_ref) || receives_a_ported_call(ctx, name_ref))
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
