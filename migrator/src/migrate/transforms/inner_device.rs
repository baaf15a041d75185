//! Calls that named `B::InnerBackend` ran on the inner (non-autodiff) backend with the same
//! device value: `Split::<B::InnerBackend>::generate(.., &device)`,
//! `MyBatcher::<B::InnerBackend>::new(device.clone())`. Once the function turns its device into
//! an autodiff device (rule `autodiff-device`), those calls get the plain device back with
//! `.inner()`, so validation and inference data stay off the autodiff graph as in 0.21.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::{is_inner_backend_of, FileCtx};
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::is_backend_device_type;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::path_as_ident;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::InnerDevice),
    run,
    emits: &[RuleId::InnerBackendDevice],
    emits_data_rules: false,
    order: Order::Rank(100),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for function in ctx.nodes::<ast::Fn>() {
        let scope = ctx.backends_in_scope(function.syntax());
        let autodiff: Vec<_> = scope.iter().filter(|b| b.autodiff).cloned().collect();
        if autodiff.is_empty() {
            continue;
        }
        let Some(params) = function.param_list() else {
            continue;
        };
        // (name, passed by reference)
        let devices: Vec<(String, bool)> = params
            .params()
            .filter(|p| {
                p.ty()
                    .is_some_and(|t| is_backend_device_type(&t, &autodiff))
            })
            .filter_map(|p| match p.pat()? {
                ast::Pat::IdentPat(pat) => Some((
                    pat.name()?.text().to_string(),
                    matches!(p.ty(), Some(ast::Type::RefType(_))),
                )),
                _ => None,
            })
            .collect();
        if devices.is_empty() {
            continue;
        }
        let Some(body) = function.body() else {
            continue;
        };
        for call in body.syntax().descendants() {
            if !names_inner_backend(&call, &autodiff) {
                continue;
            }
            let args = match (
                ast::CallExpr::cast(call.clone()),
                ast::MethodCallExpr::cast(call.clone()),
            ) {
                (Some(c), _) => c.arg_list(),
                (_, Some(m)) => m.arg_list(),
                _ => None,
            };
            let Some(args) = args else { continue };
            for arg in args.args() {
                if let Some(replacement) = plain_device(&arg, &devices) {
                    ctx.push(Change::edit(
                        arg.syntax().text_range(),
                        replacement,
                        RuleId::InnerBackendDevice,
                        "this call ran on the inner backend: give it the device without autodiff",
                    ));
                }
            }
        }
    }
}

/// Whether a call's callee path or turbofish names `B::InnerBackend`.
fn names_inner_backend(call: &SyntaxNode, scope: &[crate::migrate::index::BackendParam]) -> bool {
    let lists: Vec<ast::GenericArgList> = if let Some(c) = ast::CallExpr::cast(call.clone()) {
        match c.expr() {
            Some(ast::Expr::PathExpr(p)) => p
                .syntax()
                .descendants()
                .filter_map(ast::GenericArgList::cast)
                .collect(),
            _ => Vec::new(),
        }
    } else if let Some(m) = ast::MethodCallExpr::cast(call.clone()) {
        m.generic_arg_list().into_iter().collect()
    } else {
        Vec::new()
    };
    lists
        .iter()
        .flat_map(|l| l.generic_args())
        .any(|a| match a {
            ast::GenericArg::TypeArg(t) => match t.ty() {
                Some(ast::Type::PathType(p)) => {
                    p.path().is_some_and(|p| is_inner_backend_of(&p, scope))
                }
                _ => false,
            },
            _ => false,
        })
}

/// `device`, `&device` or `device.clone()` for a device parameter, rewritten to the plain
/// device.
fn plain_device(arg: &ast::Expr, devices: &[(String, bool)]) -> Option<String> {
    let param = |e: &ast::Expr| match e {
        ast::Expr::PathExpr(p) => {
            let name = p.path().and_then(|p| path_as_ident(&p))?;
            devices.iter().find(|(n, _)| *n == name).cloned()
        }
        _ => None,
    };
    let is_device = |e: &ast::Expr| param(e).map(|(n, _)| n);
    match arg {
        ast::Expr::RefExpr(r) => {
            let name = is_device(&r.expr()?)?;
            Some(format!("&{name}.clone().inner()"))
        }
        ast::Expr::MethodCallExpr(m) if m.name_ref().is_some_and(|n| n.text() == "clone") => {
            let name = is_device(&m.receiver()?)?;
            Some(format!("{name}.clone().inner()"))
        }
        other => match param(other)? {
            // A `&Device` parameter passed on as it is.
            (name, true) => Some(format!("&{name}.clone().inner()")),
            (name, false) => Some(format!("{name}.inner()")),
        },
    }
}
