//! Element types a project chose through its backend type (`NdArray<f64>`, `Wgpu<f16, i32>`):
//! the type's defaults (the backend table's `elements`) need nothing, anything else is a device
//! configuration in 0.22. The device rules write it where they build a device for such a type
//! (`ElementDTypes`); this transform reports the type, since a device built elsewhere (passed
//! in from code that chose no backend) gets none. A type that only picks the backend of one
//! call whose devices are all built in the same function (`launch::<Wgpu<ElemType,
//! i32>>(WgpuDevice::default())`) is no such site: the port builds, and configures, them all.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_name;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendElementGenerics),
    run,
    emits: &[RuleId::BackendElementGenerics],
    emits_data_rules: false,
    order: Order::Rank(250),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: true,
};

pub fn run(ctx: &mut FileCtx) {
    // A path names one of Burn's backend types (`burn_backend_name`) only with the type's
    // name written, in the path or in the file's import of it.
    if !ctx.spells_any(ctx.index.backends.iter().flat_map(|b| &b.types)) {
        return;
    }
    for path_type in ctx.nodes::<ast::PathType>() {
        let Some(path) = path_type.path() else {
            continue;
        };
        let Some(name) = ctx.index.burn_backend_name(ctx.file_id, &path) else {
            continue;
        };
        let Some(backend) = ctx.index.backends.iter().find(|b| b.types.contains(&name)) else {
            continue;
        };
        let Some(args) = path.segment().and_then(|s| s.generic_arg_list()) else {
            continue;
        };
        // `type Cpu<E, I> = Flex<E, I>;` passes its own parameters on: the choice is made
        // where `Cpu<..>` is used.
        let own_params: Vec<String> = path_type
            .syntax()
            .ancestors()
            .filter_map(ast::AnyHasGenericParams::cast)
            .filter_map(|o| ra_ap_syntax::ast::HasGenericParams::generic_param_list(&o))
            .flat_map(|l| {
                l.generic_params().filter_map(|p| match p {
                    ast::GenericParam::TypeParam(t) => {
                        ra_ap_syntax::ast::HasName::name(&t).map(|n| n.text().to_string())
                    }
                    _ => None,
                })
            })
            .collect();
        let unusual = args
            .generic_args()
            .filter(|a| !matches!(a, ast::GenericArg::LifetimeArg(_)))
            .zip(&backend.elements)
            .any(|(a, (_, default))| match a {
                ast::GenericArg::TypeArg(t) => t
                    .ty()
                    .and_then(|t| crate::util::syntax::type_as_ident(&t))
                    .is_some_and(|n| n != *default && !own_params.contains(&n)),
                _ => false,
            });
        // Where the port read every element the type names, the devices it builds for the
        // type are configured with them.
        let read = || {
            let ty = ast::Type::PathType(path_type.clone());
            ctx.index
                .resolve_backend_type(ctx.file_id, &ty)
                .is_some_and(|spec| {
                    let elements = args
                        .generic_args()
                        .filter(|a| !matches!(a, ast::GenericArg::LifetimeArg(_)));
                    elements.zip(&backend.elements).enumerate().all(
                        |(i, (arg, (name, default)))| {
                            let written = arg.syntax().text().to_string();
                            written.trim() == default
                                || (i == 0 && spec.elements.float.is_some())
                                || (name == "I" && spec.elements.int.is_some())
                        },
                    )
                })
        };
        if unusual && !(read() && devices_built_here(path_type.syntax())) {
            ctx.push(Change::manual(
                path_type.syntax().text_range(),
                RuleId::BackendElementGenerics,
                format!(
                    "element types are a device setting in Burn 0.22: the devices the port builds for `{}` are configured with them (`device.configure(..)`); a device built elsewhere needs the same `configure` before its first tensor",
                    path_type.syntax().text()
                ),
            ));
        }
    }
}

/// Whether `ty` is a turbofish argument of a call (`launch::<Wgpu<f16>>(..)`) whose arguments
/// are built in the function around it: no parameter of the function, no `self`, field,
/// constant or static reaches them, directly or through the function's `let` bindings. The
/// devices among them are then constructions the port rewrites for this backend type, each
/// configured with its elements.
fn devices_built_here(ty: &SyntaxNode) -> bool {
    let Some(call) = ty
        .ancestors()
        .take_while(|node| !ast::ArgList::can_cast(node.kind()))
        .find_map(|node| {
            ast::CallExpr::cast(node.clone())
                .and_then(|call| call.arg_list())
                .or_else(|| ast::MethodCallExpr::cast(node).and_then(|call| call.arg_list()))
        })
    else {
        return false;
    };
    let Some(function) = call.syntax().ancestors().find_map(ast::Fn::cast) else {
        return false;
    };
    built_here(&function, call.syntax(), 0)
}

/// Whether every value `expr` reads is built inside `function` (see `devices_built_here`).
fn built_here(function: &ast::Fn, expr: &SyntaxNode, depth: usize) -> bool {
    // A field's value, or a macro's input (tokens, not paths), may come from anywhere.
    let opaque =
        |n: &SyntaxNode| ast::FieldExpr::can_cast(n.kind()) || ast::MacroCall::can_cast(n.kind());
    if depth > 4 || expr.descendants().any(|n| opaque(&n)) {
        return false;
    }
    expr.descendants()
        .filter_map(ast::PathExpr::cast)
        .filter_map(|path| path.path())
        .filter(|path| path.qualifier().is_none())
        .all(|path| {
            let Some(name) = path.segment().map(|s| segment_name(&s)) else {
                return false;
            };
            if name == "self" || name.starts_with(char::is_uppercase) {
                // `self`, or a constant or static (`INFERENCE_DEVICE`): built elsewhere.
                return false;
            }
            let bindings: Vec<ast::Expr> = (function.syntax().descendants())
                .filter_map(ast::LetStmt::cast)
                .filter(|binding| {
                    matches!(binding.pat(), Some(ast::Pat::IdentPat(p))
                        if p.name().is_some_and(|n| n.text() == name.as_str()))
                })
                .filter_map(|binding| binding.initializer())
                .collect();
            // A parameter, or a name the function does not bind: from elsewhere.
            !bindings.is_empty()
                && (bindings.iter()).all(|init| built_here(function, init.syntax(), depth + 1))
        })
}
