//! Calls of backend functions that became device methods: `B::seed(&device, seed)` ->
//! `device.seed(seed)`, `B::sync(&device)` -> `device.sync()` and `B::ad_enabled(&device)` ->
//! `device.is_autodiff()`, and the other functions of the backend that take a device and are
//! methods of 0.22's `Device` (`B::memory_cleanup(&device)` -> `device.memory_cleanup()`).

use ra_ap_syntax::ast::{self, HasArgList};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_names;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendCalls),
    run,
    emits: &[
        RuleId::BackendAdEnabled,
        RuleId::BackendDeviceMethods,
        RuleId::BackendSeed,
        RuleId::BackendSync,
    ],
    emits_data_rules: false,
    order: Order::Rank(40),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// 0.21's `Backend` functions that take a device and are methods of 0.22.1's `Device`
/// (burn-backend 0.21.0 `backend/base.rs`, burn-tensor 0.22.1 `device.rs`): the 0.21 name, the
/// 0.22 method, how many arguments the function takes and which one is the device. The other
/// arguments keep their order.
const DEVICE_METHODS: [(&str, &str, usize, usize, RuleId); 7] = [
    ("seed", "seed", 2, 0, RuleId::BackendSeed),
    ("sync", "sync", 1, 0, RuleId::BackendSync),
    ("ad_enabled", "is_autodiff", 1, 0, RuleId::BackendAdEnabled),
    (
        "memory_cleanup",
        "memory_cleanup",
        1,
        0,
        RuleId::BackendDeviceMethods,
    ),
    (
        "memory_persistent_allocations",
        "memory_persistent_allocations",
        3,
        0,
        RuleId::BackendDeviceMethods,
    ),
    (
        "supports_dtype",
        "supports_dtype",
        2,
        0,
        RuleId::BackendDeviceMethods,
    ),
    ("staging", "staging", 2, 1, RuleId::BackendDeviceMethods),
];

pub fn run(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let names = segment_names(&path);
        let Some(&(_, method, arity, device_at, rule)) =
            (names.last()).and_then(|name| DEVICE_METHODS.iter().find(|entry| entry.0 == name))
        else {
            continue;
        };
        let Some(qualifier) = path.qualifier() else {
            continue;
        };
        let scope = ctx.backends_in_scope(call.syntax());
        if !ctx.qualifier_is_backend(&qualifier, &scope) {
            continue;
        }
        let Some(args) = call.arg_list() else {
            continue;
        };
        let args: Vec<ast::Expr> = args.args().collect();
        if args.len() != arity {
            ctx.push(Change::manual(
                call.syntax().text_range(),
                rule,
                format!("call `device.{method}(..)`"),
            ));
            continue;
        }
        let receiver = match &args[device_at] {
            ast::Expr::RefExpr(r) => r.expr().map(|e| receiver_text(ctx, &e)),
            other => Some(receiver_text(ctx, other)),
        };
        let Some(receiver) = receiver else { continue };
        let arguments: Vec<&str> = (args.iter().enumerate())
            .filter(|(at, _)| *at != device_at)
            .map(|(_, arg)| ctx.file.slice(arg.syntax().text_range()))
            .collect();
        ctx.push(Change::edit(
            call.syntax().text_range(),
            format!("{receiver}.{method}({})", arguments.join(", ")),
            rule,
            format!("`{method}` is a method of the device in Burn 0.22"),
        ));
    }
}

/// Text of an expression used as a method receiver, parenthesized when it needs to be.
fn receiver_text(ctx: &FileCtx, expr: &ast::Expr) -> String {
    let text = ctx.file.slice(expr.syntax().text_range()).to_string();
    match expr {
        ast::Expr::PathExpr(_)
        | ast::Expr::CallExpr(_)
        | ast::Expr::MethodCallExpr(_)
        | ast::Expr::FieldExpr(_)
        | ast::Expr::ParenExpr(_) => text,
        _ => format!("({text})"),
    }
}

/// Whether `name` is a function of 0.21's `Backend` that this transform makes a device method.
pub(super) fn is_device_method(name: &str) -> bool {
    DEVICE_METHODS.iter().any(|entry| entry.0 == name)
}
