//! `init_setup::<AutoGraphicsApi>(&device, Default::default());` as a statement: 0.21's wgpu
//! runtime made exactly this setup on a device's first use when nothing set it up before
//! (cubecl-wgpu 0.10.0 `runtime.rs`, `DeviceService::init`: `AutoGraphicsApi::backend()` and
//! `RuntimeOptions::default()`), so the call only did early what would have happened anyway.
//! 0.22's runtime does the same on first use (cubecl-wgpu 0.11.3 `runtime.rs`: the device's
//! own graphics API, `RuntimeOptions::default()`), and `init_setup` is gone: the statement goes.
//! Other graphics APIs, other options, a setup the code keeps and the async variant (which
//! wasm needs, since the lazy setup is synchronous) stay with `wgpu-init-setup`.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{line_removal_range, segment_name};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::WgpuInitDefault),
    run,
    emits: &[RuleId::WgpuInitDefault],
    emits_data_rules: false,
    order: Order::Rank(105),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("init_setup") {
        return;
    }
    let mut statements = Vec::new();
    for call in ctx.nodes::<ast::CallExpr>() {
        if !default_setup(ctx, &call) {
            continue;
        }
        // The setup it returns is dropped: `init_setup::<..>(..);` or `let _ = ..;`.
        let parent = call.syntax().parent();
        let dropped = parent.clone().and_then(ast::ExprStmt::cast).is_some()
            || parent
                .clone()
                .and_then(ast::LetStmt::cast)
                .is_some_and(|binding| matches!(binding.pat(), Some(ast::Pat::WildcardPat(_))));
        if let (true, Some(statement)) = (dropped, parent) {
            statements.push(statement);
        }
    }
    if statements.is_empty() || ctx.targets_0_22() {
        return;
    }
    for statement in statements {
        ctx.push(Change::delete(
            line_removal_range(&statement),
            RuleId::WgpuInitDefault,
            "this set up the wgpu device with the graphics API and options its first use picks anyway; Burn 0.22 does the same without a call",
        ));
    }
}

/// `init_setup::<AutoGraphicsApi>(device, Default::default() | RuntimeOptions::default())`,
/// Burn's functions and types as the file's imports resolve them.
fn default_setup(ctx: &FileCtx, call: &ast::CallExpr) -> bool {
    let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
        return false;
    };
    let Some(path) = callee.path() else {
        return false;
    };
    if ctx.index.burn_name(ctx.file_id, &path).as_deref() != Some("init_setup") {
        return false;
    }
    let auto_api = (path.segment().and_then(|s| s.generic_arg_list()))
        .map(|list| list.generic_args().collect::<Vec<_>>())
        .is_some_and(|args| match args.as_slice() {
            [ast::GenericArg::TypeArg(arg)] => match arg.ty() {
                Some(ast::Type::PathType(ty)) => ty.path().is_some_and(|p| {
                    ctx.index.burn_name(ctx.file_id, &p).as_deref() == Some("AutoGraphicsApi")
                }),
                _ => false,
            },
            _ => false,
        });
    let args: Vec<ast::Expr> = call.arg_list().into_iter().flat_map(|l| l.args()).collect();
    let default_options = match args.get(1) {
        Some(ast::Expr::CallExpr(options)) => {
            let no_args = options
                .arg_list()
                .is_some_and(|l| l.args().next().is_none());
            let callee = match options.expr() {
                Some(ast::Expr::PathExpr(p)) => p.path(),
                _ => None,
            };
            no_args
                && callee.is_some_and(|callee| {
                    let is_default = callee
                        .segment()
                        .is_some_and(|s| segment_name(&s) == "default");
                    let owner = callee.qualifier();
                    let owner_name = owner
                        .as_ref()
                        .and_then(|q| q.segment())
                        .map(|s| segment_name(&s));
                    is_default
                        && (owner_name.as_deref() == Some("Default")
                            || owner.is_some_and(|q| {
                                ctx.index.burn_name(ctx.file_id, &q).as_deref()
                                    == Some("RuntimeOptions")
                            }))
                })
        }
        _ => false,
    };
    auto_api && args.len() == 2 && default_options
}
