//! A tensor taken off (or put on) the autodiff backend through its primitive:
//! `Tensor::<B::InnerBackend, 2, Int>::from_primitive(B::int_inner(ids.into_primitive()))` is
//! 0.21's `ids.inner()` written out, and
//! `Tensor::from_primitive(TensorPrimitive::Float(B::from_inner(x.into_primitive().tensor())))`
//! is `Tensor::from_inner(x)`. Burn 0.22.1 keeps both methods, for every tensor kind
//! (burn-tensor 0.22.1 `tensor/api/autodiff.rs`, `impl<K: Autodiff> Tensor<D, K>`), while the
//! primitives and `B` are gone: the round trip becomes the method.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{segment_name, segment_names};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::AutodiffPrimitiveRoundTrip),
    run,
    emits: &[RuleId::AutodiffPrimitiveRoundTrip],
    emits_data_rules: false,
    order: Order::Rank(214),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// Which way a round trip goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// `B::inner`, `B::int_inner`, `B::bool_inner`: off the autodiff backend.
    Off,
    /// `B::from_inner`, `B::int_from_inner`, `B::bool_from_inner`: onto it.
    Onto,
}

/// One round trip: the `from_primitive` call, the path to `Tensor` it was called through,
/// the way it goes and the tensor it converts.
struct Site {
    call: ast::CallExpr,
    tensor_path: String,
    direction: Direction,
    tensor: ast::Expr,
}

pub fn run(ctx: &mut FileCtx) {
    let sites = sites(ctx);
    if sites.is_empty() || ctx.targets_0_22() {
        return;
    }
    for Site {
        call,
        tensor_path,
        direction,
        tensor,
    } in sites
    {
        let tensor = ctx.file.slice(tensor.syntax().text_range());
        let (replacement, method) = match direction {
            Direction::Off => (format!("{tensor}.inner()"), "inner()"),
            Direction::Onto => (format!("{tensor_path}::from_inner({tensor})"), "from_inner"),
        };
        ctx.push(Change::edit(
            call.syntax().text_range(),
            replacement,
            RuleId::AutodiffPrimitiveRoundTrip,
            format!("this round trip through the tensor's primitive is `{method}` (Burn 0.22 keeps the method, for every tensor kind)"),
        ));
    }
}

/// The text each round trip of the file takes, which the port rewrites whole: the names in it
/// (`TensorPrimitive`) go with it.
pub fn rewritten_ranges(ctx: &FileCtx) -> Vec<ra_ap_syntax::TextRange> {
    sites(ctx)
        .iter()
        .map(|site| site.call.syntax().text_range())
        .collect()
}

fn sites(ctx: &FileCtx) -> Vec<Site> {
    if !ctx.file.text.contains("from_primitive") || !ctx.file.text.contains("inner") {
        return Vec::new();
    }
    let mut sites = Vec::new();
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some(tensor_path) = called_path(&call).and_then(|p| tensor_from_primitive(&p)) else {
            continue;
        };
        let Some(argument) = only_argument(&call) else {
            continue;
        };
        if let Some((direction, tensor)) = round_trip(ctx, call.syntax(), &argument) {
            sites.push(Site {
                call,
                tensor_path,
                direction,
                tensor,
            });
        }
    }
    sites
}

/// The path a call calls (`Tensor::<B, 2>::from_primitive` in `Tensor::<B, 2>::from_primitive(p)`).
fn called_path(call: &ast::CallExpr) -> Option<ast::Path> {
    match call.expr()? {
        ast::Expr::PathExpr(callee) => callee.path(),
        _ => None,
    }
}

/// For `Tensor[::<..>]::from_primitive` (written with any qualifier before `Tensor`), the path
/// to `Tensor` without its generic arguments (`Tensor`, `burn::tensor::Tensor`).
fn tensor_from_primitive(path: &ast::Path) -> Option<String> {
    if segment_name(&path.segment()?) != "from_primitive" {
        return None;
    }
    let names = segment_names(&path.qualifier()?);
    (names.last()? == "Tensor").then(|| names.join("::"))
}

/// The one argument of a call, if it has exactly one.
fn only_argument(call: &ast::CallExpr) -> Option<ast::Expr> {
    let mut args = call.arg_list()?.args();
    let first = args.next()?;
    args.next().is_none().then_some(first)
}

/// The way and the tensor of a round trip's argument: `B::int_inner(t.into_primitive())`, or
/// `TensorPrimitive::Float(B::inner(t.into_primitive().tensor()))`, where `B` is a backend
/// type parameter in scope at `at`.
fn round_trip(
    ctx: &FileCtx,
    at: &SyntaxNode,
    argument: &ast::Expr,
) -> Option<(Direction, ast::Expr)> {
    let ast::Expr::CallExpr(call) = argument else {
        return None;
    };
    let path = called_path(call)?;
    let names = segment_names(&path);
    if names.len() == 2 && names[0] == "TensorPrimitive" && names[1] == "Float" {
        let ast::Expr::CallExpr(inner) = only_argument(call)? else {
            return None;
        };
        let (direction, kind) = backend_conversion(ctx, at, &called_path(&inner)?)?;
        let primitive = primitive_of(&only_argument(&inner)?, true)?;
        return kind.is_empty().then_some((direction, primitive));
    }
    let (direction, kind) = backend_conversion(ctx, at, &path)?;
    let primitive = primitive_of(&only_argument(call)?, false)?;
    (kind == "int" || kind == "bool").then_some((direction, primitive))
}

/// `B::inner`, `B::int_from_inner`, ..: the way and the kind (`""`, `int`, `bool`) of a
/// conversion of `AutodiffBackend`, called on a backend type parameter in scope at `at`.
fn backend_conversion(
    ctx: &FileCtx,
    at: &SyntaxNode,
    path: &ast::Path,
) -> Option<(Direction, &'static str)> {
    let names = segment_names(path);
    let [backend, function] = names.as_slice() else {
        return None;
    };
    if !ctx.backends_in_scope(at).iter().any(|b| b.name == *backend) {
        return None;
    }
    let (kind, direction) = match function.as_str() {
        "inner" => ("", Direction::Off),
        "from_inner" => ("", Direction::Onto),
        "int_inner" => ("int", Direction::Off),
        "int_from_inner" => ("int", Direction::Onto),
        "bool_inner" => ("bool", Direction::Off),
        "bool_from_inner" => ("bool", Direction::Onto),
        _ => return None,
    };
    Some((direction, kind))
}

/// The tensor `t` of `t.into_primitive()` (float: `t.into_primitive().tensor()`).
fn primitive_of(expr: &ast::Expr, float: bool) -> Option<ast::Expr> {
    let mut expr = expr.clone();
    if float {
        expr = bare_method_call(&expr, "tensor")?;
    }
    bare_method_call(&expr, "into_primitive")
}

/// The receiver of `receiver.method()` (no arguments, no turbofish).
fn bare_method_call(expr: &ast::Expr, method: &str) -> Option<ast::Expr> {
    let ast::Expr::MethodCallExpr(call) = expr else {
        return None;
    };
    let named = call.name_ref().is_some_and(|n| n.text() == method);
    let no_arguments = call
        .arg_list()
        .is_some_and(|list| list.args().next().is_none());
    (named && no_arguments && call.generic_arg_list().is_none()).then(|| call.receiver())?
}
