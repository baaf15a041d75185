//! Primitive code generic over the backend, ported to 0.22's one backend in user code,
//! `Dispatch` (feature `extension`): `x.into_primitive().tensor()` -> `x.into_dispatch()`,
//! `Tensor::from_primitive(TensorPrimitive::Float(p))` (or `Tensor::new(..)`) ->
//! `Tensor::from_dispatch(p)`, `FloatTensor<B>` -> `FloatTensor<Dispatch>`, and
//! `B::float_matmul(..)` -> `Dispatch::float_matmul(..)` for the operations 0.22.1's ops traits
//! list (the trait comes from the listing in `framework/api`). Only where the backend is a
//! type parameter: a concrete backend's primitives are its own (`CubeTensor`), which 0.22
//! reaches with `try_into_primitive::<..>()`, so `Tensor::from_primitive` there is reported.

use std::collections::HashMap;
use std::sync::LazyLock;

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{is_plain_call, path_as_ident, segment_name, type_as_ident};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DispatchPrimitives),
    run,
    emits: &[RuleId::DispatchPrimitives],
    emits_data_rules: false,
    order: Order::Rank(215),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// Where `Dispatch` lives in 0.22.
const DISPATCH: &str = "burn::backend::Dispatch";

/// The primitive type aliases of `burn::tensor::ops` (`burn::backend::tensor` in 0.22).
const PRIMITIVE_ALIASES: &[&str] = &["FloatTensor", "IntTensor", "BoolTensor"];

/// The trait of Burn 0.22.1's backend operations that declares `operation`, as a path
/// (`burn::backend::ops::FloatTensorOps`), read from the release's API listing.
pub fn ops_trait_of(operation: &str) -> Option<&'static str> {
    static TRAITS: LazyLock<HashMap<&'static str, &'static str>> = LazyLock::new(|| {
        let listing = crate::rules::framework::public_api_lines("0.22").unwrap_or("");
        let mut traits = HashMap::new();
        for line in listing.lines() {
            let mut words = line.split(' ');
            let (Some(path), Some("method")) = (words.next(), words.next()) else {
                continue;
            };
            let Some((trait_path, method)) = path.rsplit_once("::") else {
                continue;
            };
            if trait_path.starts_with("burn::backend::ops::") {
                traits.entry(method).or_insert(trait_path);
            }
        }
        traits
    });
    TRAITS.get(operation).copied()
}

pub fn run(ctx: &mut FileCtx) {
    if ctx.targets_0_22() {
        return;
    }
    let text = &ctx.file.text;
    let primitives = text.contains("into_primitive")
        || text.contains("TensorPrimitive")
        || PRIMITIVE_ALIASES.iter().any(|alias| text.contains(alias));
    if primitives {
        into_dispatch(ctx);
        from_dispatch(ctx);
        dispatch_aliases(ctx);
    }
    dispatch_operations(ctx);
}

/// Whether `node` sits in code generic over a backend whose tensors are all the parameter's:
/// there a tensor's primitive is the parameter's, which 0.22's `Dispatch` stands for. A
/// function (or the impl around it) that names any other backend, concrete (`NdArray`) or
/// built on the parameter (`Autodiff<I>`, `B::InnerBackend`), may hold that backend's
/// primitives, which are not `Dispatch`'s.
fn generic_over_a_backend(ctx: &FileCtx, node: &SyntaxNode) -> bool {
    let scope = ctx.backends_in_scope(node);
    if scope.is_empty() {
        return false;
    }
    let Some(function) = node.ancestors().find_map(ast::Fn::cast) else {
        return false;
    };
    let impl_header = (function.syntax().ancestors())
        .find_map(ast::Impl::cast)
        .into_iter()
        .flat_map(|imp| imp.self_ty().into_iter().chain(imp.trait_()));
    let other_backend = |ty: ast::Type| {
        let plain_parameter = type_as_ident(&ty).is_some_and(|n| scope.iter().any(|b| b.name == n));
        !plain_parameter && ctx.is_backend_type(&ty, &scope)
    };
    let mut named_types = (function.syntax().descendants())
        .chain(impl_header.flat_map(|ty| ty.syntax().descendants().collect::<Vec<_>>()))
        .filter_map(ast::Type::cast);
    !named_types.any(other_backend)
}

/// `x.into_primitive().tensor()` -> `x.into_dispatch()`.
fn into_dispatch(ctx: &mut FileCtx) {
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        if !is_plain_call(&call, "tensor") {
            continue;
        }
        let Some(ast::Expr::MethodCallExpr(inner)) = call.receiver() else {
            continue;
        };
        let Some(name) = inner
            .name_ref()
            .filter(|_| is_plain_call(&inner, "into_primitive"))
        else {
            continue;
        };
        if !generic_over_a_backend(ctx, call.syntax()) {
            continue;
        }
        let range = TextRange::new(
            name.syntax().text_range().start(),
            call.syntax().text_range().end(),
        );
        ctx.push(Change::edit(
            range,
            "into_dispatch()",
            RuleId::DispatchPrimitives,
            "`into_primitive().tensor()` is `into_dispatch()` in Burn 0.22 (feature `extension`)",
        ));
    }
}

/// A call that wraps a primitive into a tensor: `Tensor::from_primitive(..)` or `Tensor::new(..)`.
struct Wrapping {
    /// `from_primitive` or `new`.
    constructor: ast::NameRef,
    args: ast::ArgList,
    /// `TensorPrimitive::Float(p)` and `p`, where `Dispatch` takes the call: the argument is
    /// one and the code is generic over the backend.
    dispatched: Option<(ast::CallExpr, ast::Expr)>,
}

fn wrappings(ctx: &FileCtx) -> Vec<Wrapping> {
    let mut found = Vec::new();
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let Some(constructor) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        if !matches!(constructor.text(), "from_primitive" | "new") {
            continue;
        }
        let of_tensor = path
            .qualifier()
            .and_then(|q| ctx.index.burn_name(ctx.file_id, &q))
            .is_some_and(|burn| burn == "Tensor");
        let Some(args) = call.arg_list().filter(|_| of_tensor) else {
            continue;
        };
        let dispatched = (args.args().next())
            .filter(|_| args.args().count() == 1)
            .and_then(|arg| float_primitive(ctx, &arg))
            .filter(|_| generic_over_a_backend(ctx, call.syntax()));
        found.push(Wrapping {
            constructor,
            args,
            dispatched,
        });
    }
    found
}

/// The `TensorPrimitive::Float(..)` wrappers `from_dispatch` takes off: `imports` drops the
/// import of `TensorPrimitive` when they were all the file had.
pub fn dispatched_wrappers(ctx: &FileCtx) -> Vec<TextRange> {
    if !ctx.file.text.contains("TensorPrimitive") || ctx.targets_0_22() {
        return Vec::new();
    }
    (wrappings(ctx).into_iter())
        .filter_map(|w| Some(w.dispatched?.0.syntax().text_range()))
        .collect()
}

/// `Tensor::from_primitive(TensorPrimitive::Float(p))` and `Tensor::new(..)` of the same ->
/// `Tensor::from_dispatch(p)`; a `from_primitive` that cannot go this way is reported.
fn from_dispatch(ctx: &mut FileCtx) {
    for wrapping in wrappings(ctx) {
        let name = &wrapping.constructor;
        let Some((wrapper, value)) = wrapping.dispatched else {
            if name.text() == "from_primitive" {
                ctx.push(Change::manual(
                    name.syntax().text_range().cover(wrapping.args.syntax().text_range()),
                    RuleId::DispatchPrimitives,
                    "`Tensor::from_primitive` of a concrete backend's primitive needs the `extension` feature in Burn 0.22: `Tensor::from_primitive::<Backend>(p)`",
                ));
            }
            continue;
        };
        let message =
            "`Tensor::from_primitive(TensorPrimitive::Float(p))` is `Tensor::from_dispatch(p)` in Burn 0.22 (feature `extension`)";
        ctx.push(Change::edit(
            name.syntax().text_range(),
            "from_dispatch",
            RuleId::DispatchPrimitives,
            message,
        ));
        let wrapper = wrapper.syntax().text_range();
        let value = value.syntax().text_range();
        ctx.push(Change::delete(
            TextRange::new(wrapper.start(), value.start()),
            RuleId::DispatchPrimitives,
            message,
        ));
        ctx.push(Change::delete(
            TextRange::new(value.end(), wrapper.end()),
            RuleId::DispatchPrimitives,
            message,
        ));
    }
}

/// `TensorPrimitive::Float(p)`: the call and `p`.
fn float_primitive(ctx: &FileCtx, arg: &ast::Expr) -> Option<(ast::CallExpr, ast::Expr)> {
    let ast::Expr::CallExpr(call) = arg else {
        return None;
    };
    let ast::Expr::PathExpr(callee) = call.expr()? else {
        return None;
    };
    let path = callee.path()?;
    let variant = segment_name(&path.segment()?);
    let enum_name = ctx.index.burn_name(ctx.file_id, &path.qualifier()?)?;
    let mut args = call.arg_list()?.args();
    let value = args.next()?;
    (variant == "Float" && enum_name == "TensorPrimitive" && args.next().is_none())
        .then(|| (call.clone(), value))
}

/// `FloatTensor<B>` -> `FloatTensor<Dispatch>` for a backend parameter `B`. The whole type is
/// rewritten, so the edit holds `backend-generic-arg`'s removal of `B` (which would leave the
/// alias without its argument).
fn dispatch_aliases(ctx: &mut FileCtx) {
    for path_type in ctx.nodes::<ast::PathType>() {
        let Some(path) = path_type.path() else {
            continue;
        };
        let Some(segment) = path.segment() else {
            continue;
        };
        let alias = segment_name(&segment);
        if !PRIMITIVE_ALIASES.contains(&alias.as_str())
            || ctx.index.burn_name(ctx.file_id, &path).as_deref() != Some(alias.as_str())
        {
            continue;
        }
        let Some(args) = segment.generic_arg_list() else {
            continue;
        };
        let mut types = args.generic_args();
        let parameter = match (types.next(), types.next()) {
            (Some(ast::GenericArg::TypeArg(arg)), None) => {
                arg.ty().as_ref().and_then(type_as_ident)
            }
            _ => None,
        };
        let scope = ctx.backends_in_scope(path_type.syntax());
        if !parameter.is_some_and(|p| scope.iter().any(|b| b.name == p)) {
            continue;
        }
        let written = ctx.file.slice(TextRange::new(
            path_type.syntax().text_range().start(),
            args.syntax().text_range().start(),
        ));
        ctx.push(Change::edit(
            path_type.syntax().text_range(),
            format!("{written}<Dispatch>"),
            RuleId::DispatchPrimitives,
            format!("`{alias}<B>` of a backend parameter is `{alias}<Dispatch>` in Burn 0.22 (feature `extension`)"),
        ));
        ctx.need_import(DISPATCH);
    }
}

/// `B::float_matmul(..)` -> `Dispatch::float_matmul(..)`, with the ops trait in scope.
fn dispatch_operations(ctx: &mut FileCtx) {
    for path in ctx.nodes::<ast::Path>() {
        let Some((qualifier, trait_path)) = dispatch_operation(ctx, &path) else {
            continue;
        };
        let operation = path.segment().map(|s| segment_name(&s)).unwrap_or_default();
        ctx.push(Change::edit(
            qualifier.syntax().text_range(),
            "Dispatch",
            RuleId::DispatchPrimitives,
            format!("backend operations run on `Dispatch` in Burn 0.22: `Dispatch::{operation}` (feature `extension`)"),
        ));
        ctx.need_import(DISPATCH);
        ctx.need_import(trait_path);
    }
}

/// For `B::op` with `B` a backend parameter in scope and `op` an operation of 0.22.1's ops
/// traits: the qualifier and the trait's path. `backend-associated-item` leaves these paths
/// to this rule.
pub fn dispatch_operation(ctx: &FileCtx, path: &ast::Path) -> Option<(ast::Path, &'static str)> {
    let qualifier = path.qualifier()?;
    let parameter = path_as_ident(&qualifier)?;
    if !ctx.declares_type_param(&parameter) {
        return None;
    }
    let trait_path = ops_trait_of(&segment_name(&path.segment()?))?;
    let scope = ctx.backends_in_scope(path.syntax());
    scope
        .iter()
        .any(|b| b.name == parameter)
        .then_some((qualifier, trait_path))
}
