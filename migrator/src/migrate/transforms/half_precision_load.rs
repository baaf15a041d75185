//! `model.load_file(path, &CompactRecorder::new(), &device)`: 0.21's `CompactRecorder`
//! (`DefaultFileRecorder<HalfPrecisionSettings>`) saved f16 and cast the values back to the
//! backend's float type on load (burn-core 0.21.0 `record/recorder.rs`, `record/tensor.rs`).
//! A converted file keeps the f16, and 0.22.1's `try_load_file` applies a record in its own
//! dtype (`DTypePolicy::FromRecord`, burn-core 0.22.1 `store/mod.rs`): the port of the call
//! as `load-file-recorder` writes it would run the model in f16. Where the recorder argument
//! is one of 0.21's half-precision recorders, the call loads the record and casts it to the
//! module's dtype instead, which is `try_load_file` (`ModuleRecord::load` then
//! `try_load_record`, burn-core 0.22.1 `module/base.rs`) with the cast between.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::data_rules::binding_of;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_name;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::HalfPrecisionLoad),
    run,
    emits: &[RuleId::HalfPrecisionLoad],
    emits_data_rules: false,
    order: Order::Rank(187),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// burn-core 0.21.0's recorder aliases over `HalfPrecisionSettings` (`record/recorder.rs`).
const HALF_PRECISION_RECORDERS: [&str; 2] = ["CompactRecorder", "SensitiveCompactRecorder"];

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("load_file") {
        return;
    }
    let mut sites = Vec::new();
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        let named_load_file = call.name_ref().is_some_and(|n| n.text() == "load_file");
        let Some(arg_list) = call
            .arg_list()
            .filter(|list| list.r_paren_token().is_some())
        else {
            continue;
        };
        let args: Vec<ast::Expr> = arg_list.args().collect();
        if !named_load_file || args.len() != 3 {
            continue;
        }
        if saves_half_precision(ctx, &args[1]) {
            sites.push((call, args[0].clone(), HALF_PRECISION));
        } else if callers_recorder(ctx, &call, &args[1]) {
            sites.push((call, args[0].clone(), CALLERS_RECORDER));
        }
    }
    if sites.is_empty() || ctx.targets_0_22() {
        return;
    }
    for (call, path, why) in sites {
        let (Some(receiver), Some(name), Some(arg_list)) =
            (call.receiver(), call.name_ref(), call.arg_list())
        else {
            continue;
        };
        // Two edits around the module expression rather than one over the whole call: the
        // module expression's own edits (`init::<B>(..)` losing its `B`) stay theirs, and the
        // port needs no second pass.
        let path = ctx.file.slice(path.syntax().text_range()).to_string();
        // The closure's parameter must not shadow a name the module expression uses.
        let names_in_receiver: Vec<String> = (receiver.syntax().descendants())
            .filter_map(ast::NameRef::cast)
            .map(|n| n.text().to_string())
            .collect();
        let record = ["record", "loaded_record", "module_record"]
            .into_iter()
            .find(|name| !names_in_receiver.iter().any(|used| used == name))
            .unwrap_or("record");
        ctx.push(Change::insert(
            receiver.syntax().text_range().start(),
            format!("ModuleRecord::load({path}).and_then(|{record}| "),
            RuleId::HalfPrecisionLoad,
            why,
        ));
        let tail = TextRange::new(
            name.syntax().text_range().start(),
            arg_list.syntax().text_range().end(),
        );
        ctx.push(Change::edit(
            tail,
            format!("try_load_record({record}.cast_to_module_dtype()))"),
            RuleId::HalfPrecisionLoad,
            "the record is applied with `try_load_record`, cast to the module's dtype",
        ));
        ctx.need_import("burn::store::ModuleRecord");
    }
}

/// Why a load casts: the recorder saved f16.
const HALF_PRECISION: &str = "this recorder saved f16, which 0.21 cast back on load: the port loads the converted record cast to the module's dtype, not in f16";
/// Why a load casts: the caller picks the recorder.
const CALLERS_RECORDER: &str = "the caller picked this recorder, and 0.21 cast what it loaded to the backend's float type whatever it saved: the port loads the record cast to the module's dtype";

/// Whether a recorder argument is the recorder parameter of the function around `call`
/// (`recorder-parameter` removes it): the caller picked the recorder, so what the record holds
/// (f16 from a half-precision recorder) is not known here.
fn callers_recorder(ctx: &FileCtx, call: &ast::MethodCallExpr, argument: &ast::Expr) -> bool {
    let argument = crate::util::syntax::without_borrow(argument);
    let Some(ast::Expr::PathExpr(variable)) = argument else {
        return false;
    };
    let Some(function) = call.syntax().ancestors().find_map(ast::Fn::cast) else {
        return false;
    };
    let parameter = ctx.index.recorder_parameter(ctx.file_id, &function);
    let name = parameter.and_then(|p| match p.param.pat()? {
        ast::Pat::IdentPat(pattern) => Some(pattern.name()?.text().to_string()),
        _ => None,
    });
    name.is_some_and(|name| variable.path().is_some_and(|p| p.to_string() == name))
}

/// Whether a recorder argument (`&CompactRecorder::new()`, `&recorder` bound to one, or a
/// recorder over `HalfPrecisionSettings`) is one of Burn 0.21's half-precision recorders.
fn saves_half_precision(ctx: &FileCtx, argument: &ast::Expr) -> bool {
    let mut value = argument.clone();
    if let ast::Expr::RefExpr(reference) = &value {
        match reference.expr() {
            Some(inner) => value = inner,
            None => return false,
        }
    }
    if let ast::Expr::PathExpr(variable) = &value {
        let binding = binding_of(variable);
        // `let recorder: NamedMpkFileRecorder<HalfPrecisionSettings> = ..::new();`: the
        // annotation names the settings the initializer leaves to inference.
        let annotated = (binding.as_ref().and_then(|b| b.ty())).and_then(|ty| match ty {
            ast::Type::PathType(ty) => ty.path(),
            _ => None,
        });
        if let Some(path) = annotated {
            return half_precision_recorder(ctx, &path);
        }
        if let Some(init) = binding.and_then(|b| b.initializer()) {
            value = init;
        }
    }
    let path = match &value {
        ast::Expr::CallExpr(call) => match call.expr() {
            Some(ast::Expr::PathExpr(callee)) => callee.path().and_then(|p| p.qualifier()),
            _ => None,
        },
        ast::Expr::PathExpr(unit) => unit.path(),
        _ => None,
    };
    path.is_some_and(|path| half_precision_recorder(ctx, &path))
}

/// Whether `path` names one of Burn 0.21's half-precision recorder types.
fn half_precision_recorder(ctx: &FileCtx, path: &ast::Path) -> bool {
    let Some(name) = ctx.index.burn_name(ctx.file_id, path) else {
        return false;
    };
    // `NamedMpkFileRecorder::<HalfPrecisionSettings>::new()`: the settings as a type argument.
    let half_settings = (path.segments())
        .filter_map(|segment| segment.generic_arg_list())
        .flat_map(|list| list.generic_args())
        .any(|arg| match arg {
            ast::GenericArg::TypeArg(arg) => match arg.ty() {
                Some(ast::Type::PathType(ty)) => (ty.path().and_then(|p| p.segment()))
                    .is_some_and(|s| segment_name(&s) == "HalfPrecisionSettings"),
                _ => false,
            },
            _ => false,
        });
    name.ends_with("Recorder")
        && (HALF_PRECISION_RECORDERS.contains(&name.as_str()) || half_settings)
}
