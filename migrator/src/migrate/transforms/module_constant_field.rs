//! `#[derive(Module)]` fields that burn-derive 0.21 kept as constants. 0.21's derive
//! (`parse_module_field_type`, burn-derive 0.21.0 `module/codegen_struct.rs`) made a field a
//! module only when its type named the backend `B` or another type parameter of the struct,
//! or was a `Tensor` or a `Param`; any other field (`config: MyConfig`, `padding:
//! PaddingConfig2d`) was a constant, cloned along. burn-derive 0.22.1 has no `B` to go by:
//! every field is a module unless it is a primitive (`usize`, `String`, `Option<f64>`, ...) or
//! marked `#[module(skip)]`, so a constant whose type is no `Module` stops compiling. Such a
//! field gets `#[module(skip)]`, which is what it was. Types that are modules in 0.22
//! (`Dropout`, the workspace's own modules) stay fields as they are; a type the tool cannot
//! place is reported.

use std::collections::HashSet;

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericArgs, HasGenericParams, HasName, HasVisibility};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::derives_module;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{indentation, segment_name};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::ModuleConstantField),
    run,
    emits: &[RuleId::ModuleConstantField],
    emits_data_rules: false,
    order: Order::Rank(15),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// What a field's type is in Burn 0.22, as far as the tool can tell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `Module`, or a type burn-derive 0.22.1 keeps as a constant itself (a primitive).
    Fine,
    /// No `Module`: the field needs `#[module(skip)]`.
    NotAModule,
    Unknown,
}

pub fn run(ctx: &mut FileCtx) {
    // A later pass reads the struct without its `B`, so 0.21's judgement can be made on the
    // file as read only.
    if !ctx.file.text.contains("Module") || ctx.targets_0_22() || !ctx.is_first_pass() {
        return;
    }
    let structs: Vec<ast::Struct> = (ctx.root().descendants())
        .filter_map(ast::Struct::cast)
        .filter(|s| derives_module(&ast::Adt::Struct(s.clone())))
        .collect();
    for strukt in structs {
        // The names 0.21's derive counted as generic: the struct's type parameters, and `B`.
        let mut generic: HashSet<String> = (strukt.generic_param_list().into_iter())
            .flat_map(|list| list.type_or_const_params())
            .filter_map(|param| Some(param.name()?.text().to_string()))
            .collect();
        generic.insert("B".to_string());
        let Some(ast::FieldList::RecordFieldList(fields)) = strukt.field_list() else {
            continue;
        };
        for field in fields.fields() {
            let Some(ty) = field.ty() else { continue };
            if skipped(&field) || module_in_0_21(&ty, &generic) {
                continue;
            }
            let at = match field.visibility() {
                Some(visibility) => visibility.syntax().text_range().start(),
                None => match field.name() {
                    Some(name) => name.syntax().text_range().start(),
                    None => continue,
                },
            };
            let written = ctx.file.slice(ty.syntax().text_range()).to_string();
            match kind_in_0_22(ctx, &ty) {
                Kind::Fine => {}
                Kind::NotAModule => ctx.push(Change::insert(
                    at,
                    format!("#[module(skip)]\n{}", indentation(field.syntax())),
                    RuleId::ModuleConstantField,
                    format!("`{written}` was a constant of the module in Burn 0.21 and is no `Module`: Burn 0.22 keeps it with `#[module(skip)]`"),
                )),
                Kind::Unknown => ctx.push(Change::manual(
                    field.syntax().text_range(),
                    RuleId::ModuleConstantField,
                    format!("`{written}` was a constant of the module in Burn 0.21; Burn 0.22 needs it to implement `Module`: mark the field `#[module(skip)]` unless it does"),
                )),
            }
        }
    }
}

/// `#[module(skip)]` on the field already.
fn skipped(field: &ast::RecordField) -> bool {
    field.attrs().any(|attr| {
        let text = attr.syntax().text().to_string();
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        compact == "#[module(skip)]"
    })
}

/// Whether burn-derive 0.21.0 made the field a module: its type names one of `generic`, or its
/// last segment is `Tensor` or `Param` (and it is not one of 0.21's primitive names).
fn module_in_0_21(ty: &ast::Type, generic: &HashSet<String>) -> bool {
    const PRIMITIVES_0_21: [&str; 14] = [
        "bool", "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32",
        "f64", "String",
    ];
    let last = last_segment(ty);
    if last
        .as_deref()
        .is_some_and(|n| PRIMITIVES_0_21.contains(&n))
    {
        return false;
    }
    let names_generic = (ty.syntax().descendants())
        .filter_map(ast::PathType::cast)
        .filter_map(|p| p.path())
        .filter(|p| p.qualifier().is_none())
        .any(|p| {
            p.segment()
                .is_some_and(|s| generic.contains(&segment_name(&s)))
        });
    names_generic
        || last
            .as_deref()
            .is_some_and(|n| n == "Tensor" || n == "Param")
}

fn last_segment(ty: &ast::Type) -> Option<String> {
    match ty {
        ast::Type::PathType(p) => Some(segment_name(&p.path()?.segment()?)),
        _ => None,
    }
}

/// What `ty` is to burn-derive 0.22.1 and to Burn 0.22's `Module` implementations.
fn kind_in_0_22(ctx: &FileCtx, ty: &ast::Type) -> Kind {
    let all = |types: Vec<ast::Type>| {
        let kinds: Vec<Kind> = types.iter().map(|t| kind_in_0_22(ctx, t)).collect();
        if kinds.contains(&Kind::NotAModule) {
            Kind::NotAModule
        } else if kinds.contains(&Kind::Unknown) || kinds.is_empty() {
            Kind::Unknown
        } else {
            Kind::Fine
        }
    };
    match ty {
        ast::Type::ArrayType(array) => array.ty().map_or(Kind::Unknown, |t| all(vec![t])),
        ast::Type::TupleType(tuple) => all(tuple.fields().collect()),
        ast::Type::PathType(path_type) => {
            let Some(path) = path_type.path() else {
                return Kind::Unknown;
            };
            let Some(segment) = path.segment() else {
                return Kind::Unknown;
            };
            let name = segment_name(&segment);
            let args: Vec<ast::Type> = (segment.generic_arg_list().into_iter())
                .flat_map(|list| list.generic_args())
                .filter_map(|arg| match arg {
                    ast::GenericArg::TypeArg(arg) => arg.ty(),
                    _ => None,
                })
                .collect();
            // burn-derive 0.22.1's primitives (`is_primitive_type`), and the containers
            // burn-core 0.22.1 implements `Module` for over modules (`module/param/
            // primitive.rs`: `Option<T>`, `Vec<T>`, arrays and tuples, read above).
            const PRIMITIVES: [&str; 17] = [
                "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
                "i64", "i128", "isize", "f32", "f64", "String",
            ];
            if PRIMITIVES.contains(&name.as_str()) && args.is_empty() {
                return Kind::Fine;
            }
            if matches!(name.as_str(), "Option" | "Vec") && args.len() == 1 {
                return all(args);
            }
            if path.qualifier().is_none() && ctx.index.modules.contains(&name) {
                return Kind::Fine;
            }
            if path.qualifier().is_none() && ctx.index.non_modules.contains(&name) {
                return Kind::NotAModule;
            }
            // Burn's wrappers that are modules whatever they hold (burn-core 0.22.1
            // `module/param`: `Param`, `RunningState`, `Tensor` as a constant; `Ignored`,
            // which `module-ignored` reports), and Burn 0.22's layers, whose `forward` the
            // listing has.
            const MODULE_WRAPPERS: [&str; 4] = ["Param", "RunningState", "Ignored", "Tensor"];
            match ctx.index.burn_name(ctx.file_id, &path) {
                Some(burn) if MODULE_WRAPPERS.contains(&burn.as_str()) => Kind::Fine,
                Some(burn) if burn_layer_0_22(&burn) => Kind::Fine,
                Some(_) => Kind::NotAModule,
                // A path the index does not resolve to Burn (`nn::Dropout` through the
                // prelude's glob) that ends in the name of one of Burn's layers is taken as
                // that layer: reporting it would send a person to a field that is fine.
                None if burn_layer_0_22(&name) => Kind::Fine,
                None => Kind::Unknown,
            }
        }
        _ => Kind::Unknown,
    }
}

/// Whether Burn 0.22.1's public API has a `forward` method on an item named `name`: its layers
/// (modules), `Dropout` and the activations among them.
fn burn_layer_0_22(name: &str) -> bool {
    static LAYERS: std::sync::LazyLock<HashSet<&'static str>> = std::sync::LazyLock::new(|| {
        (crate::rules::framework::BURN_0_22_API.lines())
            .filter_map(|line| line.split_once(' ')?.0.strip_suffix("::forward"))
            .filter_map(|owner| owner.rsplit("::").next())
            .collect()
    });
    LAYERS.contains(name)
}
