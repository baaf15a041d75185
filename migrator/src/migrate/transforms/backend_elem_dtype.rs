//! `B::FloatElem::dtype()` (or `<B::FloatElem as Element>::dtype()`): the data type of the
//! backend's float elements. Burn 0.22 keeps the element types on the device, as settings
//! (burn-std 0.22.1 `DeviceSettings { float_dtype, int_dtype, .. }`, read with
//! `Device::settings`), and the port configures each device it builds with the element types
//! the 0.21 backend type named. So the dtype is the setting of the device the function works
//! on: `DType::from(device.settings().float_dtype)`, with the device taken from a parameter
//! of the function (a device of `B`, or a tensor of `B` through `device()`).

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::{is_backend_device_type, BackendParam};
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{segment_name, segment_names, type_as_ident};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendElemDtype),
    run,
    emits: &[RuleId::BackendElemDtype],
    emits_data_rules: false,
    order: Order::Rank(121),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("dtype") {
        return;
    }
    let mut sites = Vec::new();
    for call in ctx.nodes::<ast::CallExpr>() {
        let Some((backend, setting)) = element_dtype_call(ctx, &call) else {
            continue;
        };
        let Some(device) = device_of(&call, &backend) else {
            continue;
        };
        sites.push((call, setting, device));
    }
    if sites.is_empty() || ctx.targets_0_22() {
        return;
    }
    for (call, setting, device) in sites {
        ctx.push(Change::edit(
            call.syntax().text_range(),
            format!("DType::from({device}.settings().{setting})"),
            RuleId::BackendElemDtype,
            format!("the backend's element type is the device's `{setting}` setting in Burn 0.22"),
        ));
        ctx.need_import("burn::tensor::DType");
    }
}

/// For `B::FloatElem::dtype()` or `<B::IntElem as Element>::dtype()`, where `B` is a backend
/// type parameter in scope: `B`, and the device setting that holds the element's dtype.
fn element_dtype_call(ctx: &FileCtx, call: &ast::CallExpr) -> Option<(BackendParam, &'static str)> {
    if call.arg_list()?.args().next().is_some() {
        return None;
    }
    let ast::Expr::PathExpr(callee) = call.expr()? else {
        return None;
    };
    let path = callee.path()?;
    if segment_name(&path.segment()?) != "dtype" {
        return None;
    }
    let qualifier = path.qualifier()?;
    // `<B::FloatElem as Element>`: the element type is the anchor's.
    let element = match qualifier.segment()?.type_anchor() {
        Some(anchor) => match anchor.ty()? {
            ast::Type::PathType(ty) => ty.path()?,
            _ => return None,
        },
        None => qualifier,
    };
    let names = segment_names(&element);
    let [backend, element] = names.as_slice() else {
        return None;
    };
    let setting = match element.as_str() {
        "FloatElem" => "float_dtype",
        "IntElem" => "int_dtype",
        _ => return None,
    };
    let scope = ctx.backends_in_scope(call.syntax());
    let backend = scope.into_iter().find(|b| b.name == *backend)?;
    Some((backend, setting))
}

/// The device the function around `call` works on, as an expression: its parameter of
/// `backend`'s device type, or else its parameter of a tensor of `backend` (`x.device()`). A
/// parameter taken by value must not be named before the call, which could have moved it.
fn device_of(call: &ast::CallExpr, backend: &BackendParam) -> Option<String> {
    let function = call.syntax().ancestors().find_map(ast::Fn::cast)?;
    let body = function.body()?;
    let params: Vec<(String, ast::Type)> = (function.param_list()?.params())
        .filter_map(|param| match (param.pat()?, param.ty()?) {
            (ast::Pat::IdentPat(pat), ty) => Some((pat.name()?.text().to_string(), ty)),
            _ => None,
        })
        .collect();
    let backends = std::slice::from_ref(backend);
    let unmoved = |name: &str, ty: &ast::Type| {
        matches!(ty, ast::Type::RefType(_))
            || !named_before(&body, name, call.syntax().text_range().start())
    };
    if let Some((name, _)) =
        (params.iter()).find(|(name, ty)| is_backend_device_type(ty, backends) && unmoved(name, ty))
    {
        return Some(name.clone());
    }
    (params.iter())
        .find(|(name, ty)| tensor_of(ty, &backend.name) && unmoved(name, ty))
        .map(|(name, _)| format!("{name}.device()"))
}

/// Whether `ty` is `Tensor<backend, ..>` or a reference to one.
fn tensor_of(ty: &ast::Type, backend: &str) -> bool {
    let ty = match ty {
        ast::Type::RefType(reference) => match reference.ty() {
            Some(inner) => inner,
            None => return false,
        },
        other => other.clone(),
    };
    let ast::Type::PathType(path_type) = ty else {
        return false;
    };
    let Some(segment) = path_type.path().and_then(|p| p.segment()) else {
        return false;
    };
    let first_argument = (segment.generic_arg_list())
        .and_then(|list| list.generic_args().next())
        .and_then(|arg| match arg {
            ast::GenericArg::TypeArg(arg) => arg.ty(),
            _ => None,
        });
    segment_name(&segment) == "Tensor"
        && first_argument.is_some_and(|arg| type_as_ident(&arg).as_deref() == Some(backend))
}

/// Whether `body` names `name` before `offset`.
fn named_before(body: &ast::BlockExpr, name: &str, offset: TextSize) -> bool {
    (body.syntax().descendants_with_tokens())
        .filter_map(|element| element.into_token())
        .take_while(|token| token.text_range().start() < offset)
        .any(|token| token.kind() == SyntaxKind::IDENT && token.text() == name)
}
