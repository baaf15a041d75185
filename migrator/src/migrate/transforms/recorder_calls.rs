//! Calls through one of 0.21's recorders, `recorder.record(model.into_record(), path)` and
//! `recorder.load(path, &device)`, become `burn::store::ModuleRecord` calls: Burn 0.22 has no
//! recorders (burn-core 0.22.1 has no `record` module) and the record a module gives and takes
//! is a `ModuleRecord` (`Module::into_record`, `Module::load_record`, burn-core 0.22.1
//! `module/base.rs`) that saves, loads and serializes itself (`store/mod.rs`).
//!
//! A file recorder's `record(rec, path)` is `rec.save(path)` and its `load(path, &device)` is
//! `ModuleRecord::load(path)`; a bytes recorder's `record(rec, ())` is `rec.into_bytes()` as a
//! `Vec<u8>` and its `load(bytes, &device)` is `ModuleRecord::from_bytes(..)`. Every load is cast
//! to the module's dtype, as 0.21's recorders did through their precision settings (a record
//! saved in f16 loaded into the backend's float type); 0.22 would keep the record's dtype.
//!
//! Only calls whose meaning is certain are ported: the recorder is one of `burn::record`'s,
//! made in place or bound by a `let`; a saved record is a module's (`.into_record()`); a loaded
//! one reaches `load_record` and nothing else. Bytes a bytes recorder loads are ported only
//! where the same recorder wrote them in that function: bytes from anywhere else (a file,
//! `include_bytes!`) were written in 0.21's format, which `ModuleRecord` cannot read.

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::data_rules::binding_of;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::RecorderCalls),
    run,
    emits: &[RuleId::RecorderCalls],
    emits_data_rules: false,
    order: Order::Rank(184),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// How a 0.21 recorder stores a record (burn-core 0.21.0 `record/file.rs`, `record/memory.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Storage {
    /// A `FileRecorder`: `record(rec, path)`, `load(path, &device)`.
    File,
    /// A `BytesRecorder` over `Vec<u8>`: `record(rec, ()) -> Vec<u8>`, `load(bytes, &device)`.
    Bytes,
    /// A `BytesRecorder` that loads from `&'static [u8]` (`NoStdInferenceRecorder`, or
    /// `BinBytesRecorder<S, &'static [u8]>`).
    StaticBytes,
}

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("Recorder") {
        return;
    }
    let sites: Vec<(ast::MethodCallExpr, Port)> = (ctx.nodes::<ast::MethodCallExpr>())
        .filter_map(|call| port(ctx, &call).map(|port| (call, port)))
        .collect();
    if sites.is_empty() || ctx.targets_0_22() {
        return;
    }
    for (call, port) in sites {
        for import in port.imports {
            ctx.need_import(import);
        }
        ctx.push(Change::edit(
            call.syntax().text_range(),
            port.text,
            RuleId::RecorderCalls,
            "Burn 0.22 has no recorders: the record saves, loads and serializes itself as a `ModuleRecord`",
        ));
    }
}

/// Whether `call` is a recorder call this transform ports (for `recorder-variable`, which
/// deletes a recorder nothing else uses).
pub(super) fn is_ported(ctx: &FileCtx, call: &ast::MethodCallExpr) -> bool {
    port(ctx, call).is_some()
}

/// A recorder call's 0.22 text and the paths it names.
struct Port {
    text: String,
    imports: &'static [&'static str],
}

/// The 0.22 form of a `record`/`load` call through a Burn 0.21 recorder, where it is certain.
fn port(ctx: &FileCtx, call: &ast::MethodCallExpr) -> Option<Port> {
    let method = call.name_ref()?.text().to_string();
    if method != "record" && method != "load" {
        return None;
    }
    let list = call.arg_list().filter(|l| l.r_paren_token().is_some())?;
    let [first, second]: [ast::Expr; 2] = list.args().collect::<Vec<_>>().try_into().ok()?;
    let storage = recorder_storage(ctx, &call.receiver()?)?;
    let text = |expr: &ast::Expr| ctx.file.slice(expr.syntax().text_range()).to_string();
    let text = match (method.as_str(), storage) {
        ("record", _) if !is_into_record(&first) => return None,
        ("record", Storage::File) => {
            format!("{}.save({})", text(&first), path_text(ctx, &second))
        }
        ("record", Storage::Bytes | Storage::StaticBytes) => {
            let unit = matches!(&second, ast::Expr::TupleExpr(t) if t.fields().next().is_none());
            unit.then(|| format!("{}.into_bytes().map(|bytes| bytes.to_vec())", text(&first)))?
        }
        ("load", _) if !is_plain_device(&second) || !reaches_load_record_only(call) => return None,
        ("load", Storage::File) => format!(
            "ModuleRecord::load({}).map(ModuleRecord::cast_to_module_dtype)",
            path_text(ctx, &first)
        ),
        ("load", storage) => {
            recorded_here(ctx, call, &first)?;
            let bytes = match storage {
                Storage::StaticBytes => format!("{}.to_vec()", text(&first)),
                _ => text(&first),
            };
            format!(
                "ModuleRecord::from_bytes(Bytes::from_bytes_vec({bytes})).map(ModuleRecord::cast_to_module_dtype)"
            )
        }
        _ => return None,
    };
    let imports: &[&str] = match (method.as_str(), storage) {
        ("record", _) => &[],
        ("load", Storage::File) => &["burn::store::ModuleRecord"],
        _ => &["burn::store::ModuleRecord", "burn::tensor::Bytes"],
    };
    Some(Port { text, imports })
}

/// The storage of the Burn 0.21 recorder `receiver` is: a recorder made in place
/// (`CompactRecorder::new()`, `BinBytesRecorder::<S>::default()`), or a variable a `let` binds to
/// one. `None` for anything else (a parameter, a field, a project's own type).
fn recorder_storage(ctx: &FileCtx, receiver: &ast::Expr) -> Option<Storage> {
    let made = match receiver {
        ast::Expr::PathExpr(variable) => binding_of(variable)?.initializer()?,
        other => other.clone(),
    };
    let ast::Expr::CallExpr(constructor) = made else {
        return None;
    };
    let ast::Expr::PathExpr(callee) = constructor.expr()? else {
        return None;
    };
    let callee = callee.path()?;
    let function = callee.segment()?.name_ref()?;
    if !matches!(function.text(), "new" | "default")
        || constructor.arg_list()?.args().next().is_some()
    {
        return None;
    }
    let ty = callee.qualifier()?;
    let name = ctx.index.burn_name(ctx.file_id, &ty)?;
    storage_of(&name, &ty)
}

/// burn-core 0.21.0's recorders by name (`record/recorder.rs`, `record/file.rs`,
/// `record/memory.rs`); `BinBytesRecorder`'s second type argument is what it loads from.
fn storage_of(name: &str, ty: &ast::Path) -> Option<Storage> {
    match name {
        "CompactRecorder"
        | "DefaultRecorder"
        | "DefaultFileRecorder"
        | "SensitiveCompactRecorder"
        | "NoStdTrainingRecorder"
        | "DebugRecordSettings"
        | "BinFileRecorder"
        | "BinGzFileRecorder"
        | "JsonGzFileRecorder"
        | "PrettyJsonFileRecorder"
        | "NamedMpkFileRecorder"
        | "NamedMpkGzFileRecorder" => Some(Storage::File),
        "NamedMpkBytesRecorder" => Some(Storage::Bytes),
        "NoStdInferenceRecorder" => Some(Storage::StaticBytes),
        "BinBytesRecorder" => {
            let arguments = ty
                .segment()?
                .generic_arg_list()
                .map_or(0, |list| list.generic_args().count());
            // `BinBytesRecorder<S, I = Vec<u8>>`: a second argument is `&'static [u8]`, the
            // only other input a `BytesRecorder` has in 0.21.
            Some(if arguments == 2 {
                Storage::StaticBytes
            } else {
                Storage::Bytes
            })
        }
        _ => None,
    }
}

/// `x.into_record()`: the record of a module, which 0.22 gives as a `ModuleRecord`.
fn is_into_record(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::MethodCallExpr(call)
        if call.name_ref().is_some_and(|n| n.text() == "into_record")
            && call.arg_list().is_some_and(|l| l.args().next().is_none()))
}

/// A device argument the port may drop: `&device`, `device` or `&self.device`, which compute
/// nothing.
fn is_plain_device(expr: &ast::Expr) -> bool {
    let inner = crate::util::syntax::without_borrow(expr);
    matches!(
        inner,
        Some(ast::Expr::PathExpr(_) | ast::Expr::FieldExpr(_))
    )
}

/// The path argument as 0.22 takes it: `ModuleRecord::save`/`load` are generic over
/// `AsRef<Path>`, so 0.21's `path.into()` (to a `PathBuf`) would leave the type to infer;
/// the value before `.into()` is the path.
fn path_text(ctx: &FileCtx, path: &ast::Expr) -> String {
    let value = match path {
        ast::Expr::MethodCallExpr(into)
            if into.name_ref().is_some_and(|n| n.text() == "into")
                && into.arg_list().is_some_and(|l| l.args().next().is_none()) =>
        {
            into.receiver().unwrap_or_else(|| path.clone())
        }
        _ => path.clone(),
    };
    ctx.file.slice(value.syntax().text_range()).to_string()
}

/// Whether the loaded record goes to `load_record` and nowhere else: the call (through
/// `.expect(..)`, `.unwrap()` or `?`) is `load_record`'s argument, or the value of a `let`
/// whose every later use is. An optimizer's record, or a record read field by field, is not a
/// `ModuleRecord` in 0.22.
fn reaches_load_record_only(call: &ast::MethodCallExpr) -> bool {
    let mut value = call.syntax().clone();
    loop {
        let Some(parent) = value.parent() else {
            return false;
        };
        let unwraps = ast::MethodCallExpr::cast(parent.clone()).is_some_and(|outer| {
            outer.receiver().is_some_and(|r| *r.syntax() == value)
                && outer
                    .name_ref()
                    .is_some_and(|n| matches!(n.text(), "expect" | "unwrap"))
        });
        if unwraps || ast::TryExpr::can_cast(parent.kind()) {
            value = parent;
            continue;
        }
        if let Some(binding) = ast::LetStmt::cast(parent.clone()) {
            return binding.ty().is_none() && every_use_loads(&binding);
        }
        return is_load_record_argument(&value);
    }
}

/// Whether the variable `binding` introduces is used, and only as `load_record`'s argument.
fn every_use_loads(binding: &ast::LetStmt) -> bool {
    let Some(ast::Pat::IdentPat(pattern)) = binding.pat() else {
        return false;
    };
    let Some(name) = pattern.name() else {
        return false;
    };
    let uses = uses_after(binding, name.text());
    !uses.is_empty()
        && uses.iter().all(|name_ref| {
            name_ref
                .ancestors()
                .find_map(ast::PathExpr::cast)
                .is_some_and(|path| is_load_record_argument(path.syntax()))
        })
}

/// The names `name` after `binding` in its block.
pub(super) fn uses_after(binding: &ast::LetStmt, name: &str) -> Vec<SyntaxNode> {
    let Some(block) = binding.syntax().parent() else {
        return Vec::new();
    };
    let after = binding.syntax().text_range().end();
    (block.descendants())
        .filter_map(ast::NameRef::cast)
        .filter(|n| n.text() == name && n.syntax().text_range().start() >= after)
        .map(|n| n.syntax().clone())
        .collect()
}

/// `node` is the one argument of a `.load_record(..)` call.
fn is_load_record_argument(node: &SyntaxNode) -> bool {
    let Some(list) = node.parent().and_then(ast::ArgList::cast) else {
        return false;
    };
    list.args().count() == 1
        && list
            .syntax()
            .parent()
            .and_then(ast::MethodCallExpr::cast)
            .and_then(|call| call.name_ref())
            .is_some_and(|n| n.text() == "load_record")
}

/// For a bytes recorder's `load(bytes, ..)`: the bytes are a variable that a `let` binds to a
/// `record` call of the same recorder (the same variable, or a recorder made the same way)
/// that this transform ports. Some(()) where it is so.
fn recorded_here(ctx: &FileCtx, load: &ast::MethodCallExpr, bytes: &ast::Expr) -> Option<()> {
    let variable = match bytes {
        ast::Expr::PathExpr(variable) => variable.clone(),
        // `bytes.clone()`: the same bytes.
        ast::Expr::MethodCallExpr(clone)
            if clone.name_ref().is_some_and(|n| n.text() == "clone") =>
        {
            match clone.receiver()? {
                ast::Expr::PathExpr(variable) => variable,
                _ => return None,
            }
        }
        _ => return None,
    };
    let mut value = binding_of(&variable)?.initializer()?;
    // `recorder.record(..).expect(..)`, `.unwrap()` or `?`.
    loop {
        value = match value {
            ast::Expr::MethodCallExpr(outer)
                if outer
                    .name_ref()
                    .is_some_and(|n| matches!(n.text(), "expect" | "unwrap")) =>
            {
                outer.receiver()?
            }
            ast::Expr::TryExpr(tried) => tried.expr()?,
            _ => break,
        };
    }
    let ast::Expr::MethodCallExpr(record) = value else {
        return None;
    };
    let (recorded_by, loaded_by) = (record.receiver()?, load.receiver()?);
    let same_recorder = match (&recorded_by, &loaded_by) {
        (ast::Expr::PathExpr(a), ast::Expr::PathExpr(b)) => {
            binding_of(a).is_some_and(|binding| Some(binding) == binding_of(b))
        }
        // Two recorders made in place, the same way.
        _ => {
            ctx.file.slice(recorded_by.syntax().text_range())
                == ctx.file.slice(loaded_by.syntax().text_range())
        }
    };
    (same_recorder && record.name_ref()?.text() == "record" && is_ported(ctx, &record))
        .then_some(())
}
