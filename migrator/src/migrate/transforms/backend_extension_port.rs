//! Rule `backend-extension-port`: a project's backend extension that Burn 0.22.1's
//! `#[backend_extension(..)]` declares as it is (`Index::extension_port`) is ported:
//!
//! - the trait gets the attribute, naming the backends its crate implements it for (under the
//!   `cfg` their impls are compiled under), and extends `burn::backend::Backend`; a trait
//!   without items that gathers it and Burn's traits keeps them, under their 0.22 paths;
//! - each impl is for the backend as 0.22.1 has it: `CubeBackend<R, F, I, BT>` is
//!   `CubeBackend` (no parameters), an alias of a CubeCL runtime's backend (`Wgpu`) is
//!   `burn::backend::Cube`; the impl loses the parameters only the replaced text named;
//! - a call of the extension's function through a backend parameter bounded by it,
//!   `B::fused(..)` or `<B as Ext>::fused(..)`, goes through the one backend of user code:
//!   `<Dispatch as Ext>::fused(..)`;
//! - in an impl for `Autodiff<..>`, the fields of the autodiff tensors its functions take, which
//!   are private in burn-autodiff 0.22.1, are read through its methods: `lhs.node.clone()` is
//!   `lhs.node()` (the guard `prepare` takes), `lhs.node.id` is `lhs.id()`,
//!   `lhs.primitive.clone()` is `lhs.primitive().clone()`, and a moved `lhs.primitive` is
//!   `lhs.into_primitive()`.
//!
//! The rest of an impl's body (a CubeCL kernel launch, a custom backward step) stays a person's:
//! `backend-extension-trait` reports it whole and keeps the other rules out of it, but not this
//! rule's edits (`survives_hands_off`).

use ra_ap_syntax::ast::{
    self, HasArgList, HasAttrs, HasGenericArgs, HasGenericParams, HasName, HasTypeBounds,
};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode, TextRange, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::{bound_paths, supertrait_paths, TargetForm};
use crate::rules::{RuleId, RuleKey, TransformId};
use crate::util::syntax::{
    indentation, mentions_ident, path_as_ident, remove_list_elements, segment_name, segment_names,
};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendExtensionPort),
    run,
    emits: &[RuleId::BackendExtensionPort],
    emits_data_rules: false,
    order: Order::Rank(265),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

/// Where `Dispatch` lives in 0.22.
const DISPATCH: &str = "burn::backend::Dispatch";

pub fn run(ctx: &mut FileCtx) {
    if ctx.targets_0_22() || !ctx.index.has_extension_ports() {
        return;
    }
    port_traits(ctx);
    port_impl_headers(ctx);
    autodiff_tensor_accessors(ctx);
    for (backend, dispatch) in dispatch_calls(ctx) {
        ctx.push(Change::edit(
            backend,
            dispatch,
            RuleId::BackendExtensionPort,
            "a backend extension's function runs on `Dispatch` in Burn 0.22: `<Dispatch as Ext>::op(..)` (feature `extension`)",
        ));
        ctx.need_import(DISPATCH);
    }
}

/// Whether `change` is one this rule makes inside an item a person ports as a whole (its
/// header, an autodiff tensor's field): `FileCtx::hands_off` keeps the other rules out.
pub fn survives_hands_off(change: &Change) -> bool {
    change.rule == RuleKey::from(RuleId::BackendExtensionPort)
}

/// The ported traits defined in this file: the attribute and the supertraits' 0.22 paths.
fn port_traits(ctx: &mut FileCtx) {
    for tr in ctx.nodes::<ast::Trait>() {
        let Some(name) = tr.name() else { continue };
        let Some(port) = ctx.index.extension_port(ctx.file_id, name.text()) else {
            continue;
        };
        let defined_here = (ctx.index.user_backend_traits.iter())
            .any(|(file, range, _)| *file == ctx.file_id && *range == name.syntax().text_range());
        if !defined_here {
            continue;
        }
        // A later pass of the port reads the attribute written by an earlier one.
        let declared = tr.attrs().any(|attr| {
            attr.path()
                .and_then(|p| segment_names(&p).pop())
                .is_some_and(|last| last == "backend_extension")
        });
        if port.declares_operations && !declared {
            let selectors: Vec<String> = (port.selectors.iter())
                .map(|(name, gate)| match gate {
                    Some(predicate) => format!("{name}: cfg({predicate})"),
                    None => name.to_string(),
                })
                .collect();
            let start = first_token_after_attributes(tr.syntax());
            let indent = indentation(tr.syntax());
            let attribute = ctx.local_path("burn::backend::backend_extension");
            ctx.push(Change::edit(
                TextRange::empty(start),
                format!("#[{attribute}({})]\n{indent}", selectors.join(", ")),
                RuleId::BackendExtensionPort,
                format!("`{name}` is a backend extension in Burn 0.22: `#[backend_extension({})]`, the backends its crate implements it for (feature `extension`)", selectors.join(", ")),
            ));
        }
        for path in supertrait_paths(&tr) {
            let Some(burn) = ctx.index.burn_name(ctx.file_id, &path) else {
                continue;
            };
            let written = ctx
                .local_path(&format!("burn::backend::{burn}"))
                .into_owned();
            if !matches!(burn.as_str(), "Backend" | "AutodiffBackend")
                || path.syntax().text() == written.as_str()
            {
                continue;
            }
            ctx.push(Change::edit(
                path.syntax().text_range(),
                written,
                RuleId::BackendExtensionPort,
                format!("a backend extension extends `burn::backend::{burn}` in Burn 0.22 (feature `extension`)"),
            ));
        }
    }
}

/// The start of `item`'s first token that is not part of an attribute or doc comment.
fn first_token_after_attributes(item: &SyntaxNode) -> TextSize {
    (item.children_with_tokens())
        .find(|element| {
            !matches!(
                element.kind(),
                SyntaxKind::ATTR | SyntaxKind::COMMENT | SyntaxKind::WHITESPACE
            )
        })
        .map_or(item.text_range().start(), |element| {
            element.text_range().start()
        })
}

/// What the port changes in the header of an impl of a ported extension.
struct HeaderPort {
    /// The trait's name.
    name: String,
    /// The backend's type as 0.22 writes it: its generic argument lists deleted
    /// (`CubeBackend<R, F, I, BT>`), or an alias of a CubeCL runtime's backend replaced by
    /// `burn::backend::Cube` (`Wgpu`); as (range, replacement).
    backend: Vec<(TextRange, String)>,
    /// The impl's type parameters that only the replaced text named, as ranges to delete (the
    /// whole list where none is left).
    parameters: Vec<TextRange>,
}

/// The header ports of this file's impls of ported extensions.
fn header_ports(ctx: &FileCtx) -> Vec<HeaderPort> {
    let mut ports = Vec::new();
    for imp in ctx.nodes::<ast::Impl>() {
        let Some(name) = implemented_trait(&imp) else {
            continue;
        };
        if ctx.index.extension_port(ctx.file_id, &name).is_none() {
            continue;
        }
        let Some(self_ty) = imp.self_ty() else {
            continue;
        };
        let backend = backend_edits(ctx, &imp, &self_ty);
        if backend.is_empty() {
            continue;
        }
        let replaced: Vec<TextRange> = backend.iter().map(|(range, _)| *range).collect();
        let parameters = unused_params(&imp, &replaced);
        ports.push(HeaderPort {
            name,
            backend,
            parameters,
        });
    }
    ports
}

/// What the port changes in impl headers in this file (backends' arguments and aliases,
/// parameters with their bounds): an import that only that text named is no longer used
/// (`imports`).
pub fn dropped_from_headers(ctx: &FileCtx) -> Vec<TextRange> {
    if ctx.targets_0_22() || !ctx.index.has_extension_ports() {
        return Vec::new();
    }
    (header_ports(ctx).into_iter())
        .flat_map(|port| {
            let backend = port.backend.into_iter().map(|(range, _)| range);
            backend.chain(port.parameters)
        })
        .collect()
}

/// Each impl of a ported extension: its backend is written as 0.22 has it, and the impl loses
/// the parameters that nothing else in its header names.
fn port_impl_headers(ctx: &mut FileCtx) {
    for port in header_ports(ctx) {
        let message = format!("backends have no type parameters in Burn 0.22 (`CubeBackend`, `Flex`; `Cube` for every CubeCL runtime): this impl of `{}` is for the backend itself", port.name);
        let deleted = port
            .parameters
            .into_iter()
            .map(|range| (range, String::new()));
        for (range, text) in port.backend.into_iter().chain(deleted) {
            ctx.push(Change::edit(
                range,
                text,
                RuleId::BackendExtensionPort,
                message.clone(),
            ));
        }
    }
}

/// The edits that write the backend `ty` of an impl's self type as 0.22.1 has it
/// (`Index::extension_target`): `CubeBackend<R, F, I, BT>` without its arguments, `Wgpu` as
/// `burn::backend::Cube`, the backend inside `Autodiff<..>` likewise.
fn backend_edits(ctx: &FileCtx, imp: &ast::Impl, ty: &ast::Type) -> Vec<(TextRange, String)> {
    let Some(target) = ctx.index.extension_target(ctx.file_id, imp, ty) else {
        return Vec::new();
    };
    let ast::Type::PathType(path_type) = ty else {
        return Vec::new();
    };
    let args = (path_type.path().and_then(|p| p.segment())).and_then(|s| s.generic_arg_list());
    match target.form {
        TargetForm::Cube => {
            let cube = ctx.local_path("burn::backend::Cube").into_owned();
            vec![(path_type.syntax().text_range(), cube)]
        }
        TargetForm::Itself => args
            .map(|args| vec![(args.syntax().text_range(), String::new())])
            .unwrap_or_default(),
        TargetForm::Autodiff(_) => match args.and_then(|a| a.generic_args().next()) {
            Some(ast::GenericArg::TypeArg(arg)) => arg
                .ty()
                .map(|inner| backend_edits(ctx, imp, &inner))
                .unwrap_or_default(),
            _ => Vec::new(),
        },
    }
}

/// The ranges that delete the impl's type parameters that only the `dropped` text (the
/// backend's arguments, an alias) named: each parameter with its separator, or the whole list
/// where none is left.
fn unused_params(imp: &ast::Impl, dropped: &[TextRange]) -> Vec<TextRange> {
    let Some(list) = imp.generic_param_list() else {
        return Vec::new();
    };
    let params: Vec<ast::GenericParam> = list.generic_params().collect();
    // The header outside the parameter list and the dropped arguments.
    let header_end = (imp.assoc_item_list()).map_or(imp.syntax().text_range().end(), |items| {
        items.syntax().text_range().start()
    });
    let header: Vec<SyntaxNode> = (imp.syntax().children())
        .filter(|node| node.text_range().end() <= header_end)
        .filter(|node| node.text_range() != list.syntax().text_range())
        .collect();
    let named_elsewhere = |param_name: &str| {
        header.iter().any(|node| {
            (node.descendants().filter_map(ast::NameRef::cast))
                .filter(|name| {
                    !dropped
                        .iter()
                        .any(|d| d.contains_range(name.syntax().text_range()))
                })
                .any(|name| name.text() == param_name)
        }) || (params.iter())
            .filter_map(|p| match p {
                ast::GenericParam::TypeParam(t)
                    if t.name().is_some_and(|n| n.text() != param_name) =>
                {
                    t.type_bound_list()
                }
                _ => None,
            })
            .any(|bounds| mentions_ident(bounds.syntax(), param_name))
    };
    let remove: Vec<bool> = (params.iter())
        .map(|p| match p {
            ast::GenericParam::TypeParam(t) => t.name().is_some_and(|n| !named_elsewhere(n.text())),
            _ => false,
        })
        .collect();
    if !remove.iter().any(|r| *r) {
        return Vec::new();
    }
    if remove.iter().all(|r| *r) {
        return vec![list.syntax().text_range()];
    }
    let elements: Vec<SyntaxNode> = params.iter().map(|p| p.syntax().clone()).collect();
    remove_list_elements(&elements, &remove).unwrap_or_default()
}

/// The calls of a ported extension's function through a backend parameter bounded by it,
/// `B::op(..)` or `<B as Ext>::op(..)`: the text that names the backend and what replaces it
/// (`<Dispatch as Ext>`, with the bound as written in scope there; `Dispatch`).
pub fn dispatch_calls(ctx: &FileCtx) -> Vec<(TextRange, String)> {
    let mut found = Vec::new();
    for path in ctx.nodes::<ast::Path>() {
        if let Some(call) = dispatch_call(ctx, &path) {
            found.push(call);
        }
    }
    found
}

/// `dispatch_calls` for one path (`backend-associated-item` leaves these to this rule).
pub fn dispatch_call(ctx: &FileCtx, path: &ast::Path) -> Option<(TextRange, String)> {
    if !ctx.index.has_extension_ports() {
        return None;
    }
    let qualifier = path.qualifier()?;
    let function = segment_name(&path.segment()?);
    let declares = |port: Option<&crate::migrate::index::ExtensionPort>| {
        port.is_some_and(|port| port.methods.contains(&function))
    };
    // `<B as Ext>::op`: the anchor names the extension.
    if let Some(anchor) = qualifier.segment().and_then(|s| s.type_anchor()) {
        // `<B as Ext>`: the type, then the trait.
        let mut types = anchor.syntax().children().filter_map(ast::Type::cast);
        let (Some(ty), Some(ast::Type::PathType(as_trait))) = (types.next(), types.next()) else {
            return None;
        };
        let parameter = crate::util::syntax::type_as_ident(&ty)?;
        let extension = as_trait.path().and_then(|p| segment_names(&p).pop())?;
        let port = ctx.index.extension_port(ctx.file_id, &extension);
        let goes = ctx.declares_type_param(&parameter) && !in_an_extension_impl(ctx, path);
        return (goes && declares(port))
            .then(|| (ty.syntax().text_range(), "Dispatch".to_string()));
    }
    let parameter = path_as_ident(&qualifier)?;
    if !ctx.declares_type_param(&parameter) || in_an_extension_impl(ctx, path) {
        return None;
    }
    let bounds = bounds_of(path.syntax(), &parameter);
    let bound = bounds.into_iter().find(|bound| {
        let name = segment_names(bound).pop();
        declares(name.and_then(|name| ctx.index.extension_port(ctx.file_id, &name)))
    })?;
    let bound = bound.syntax().text().to_string();
    Some((
        qualifier.syntax().text_range(),
        format!("<Dispatch as {bound}>"),
    ))
}

/// Whether `path` is in an impl of an extension, which keeps its parameters (`impl<B: Ext, C>
/// Ext for Autodiff<B, C>` calls the inner backend's `B::op`).
fn in_an_extension_impl(ctx: &FileCtx, path: &ast::Path) -> bool {
    (path.syntax().ancestors().filter_map(ast::Impl::cast))
        .any(|imp| implemented_trait(&imp).is_some_and(|name| is_extension_trait(ctx, &name)))
}

/// The trait bounds of the type parameter `name` that is in scope at `node` (on the
/// parameter and in `where` clauses), from the innermost item that declares it.
fn bounds_of(node: &SyntaxNode, name: &str) -> Vec<ast::Path> {
    for owner in node.ancestors().filter_map(ast::AnyHasGenericParams::cast) {
        let Some(list) = owner.generic_param_list() else {
            continue;
        };
        let declared = list.type_or_const_params().find_map(|p| match p {
            ast::TypeOrConstParam::Type(t) if t.name().is_some_and(|n| n.text() == name) => Some(t),
            _ => None,
        });
        let Some(param) = declared else { continue };
        let mut lists: Vec<ast::TypeBoundList> = param.type_bound_list().into_iter().collect();
        for pred in owner.where_clause().iter().flat_map(|w| w.predicates()) {
            if pred.ty().is_some_and(|t| t.syntax().text() == name) {
                lists.extend(pred.type_bound_list());
            }
        }
        return lists
            .into_iter()
            .flat_map(|l| bound_paths(Some(l)))
            .collect();
    }
    Vec::new()
}

/// The fields of `AutodiffTensor` that an impl of a ported extension for `Autodiff<..>` reads
/// on its functions' `FloatTensor<Self>` parameters, through burn-autodiff 0.22.1's methods
/// (`tensor.rs`: `node()`, `primitive()`, `into_primitive()`).
fn autodiff_tensor_accessors(ctx: &mut FileCtx) {
    let mut edits: Vec<(TextRange, &'static str)> = Vec::new();
    for imp in ctx.nodes::<ast::Impl>() {
        let ported = implemented_trait(&imp)
            .is_some_and(|name| ctx.index.extension_port(ctx.file_id, &name).is_some());
        let for_autodiff = imp
            .self_ty()
            .and_then(|ty| ctx.index.extension_selector(ctx.file_id, &imp, &ty))
            == Some("Autodiff");
        if !ported || !for_autodiff {
            continue;
        }
        let functions = imp
            .assoc_item_list()
            .into_iter()
            .flat_map(|l| l.assoc_items());
        for function in functions.filter_map(|item| match item {
            ast::AssocItem::Fn(f) => Some(f),
            _ => None,
        }) {
            let tensors = autodiff_tensor_params(&function);
            let Some(body) = function.body() else {
                continue;
            };
            for field in body.syntax().descendants().filter_map(ast::FieldExpr::cast) {
                // Not in an item nested in the body (a `Backward` impl has names of its own).
                let owner = field.syntax().ancestors().find_map(ast::Fn::cast);
                if owner.as_ref() != Some(&function) {
                    continue;
                }
                let on_a_tensor = (field.expr())
                    .and_then(|e| match e {
                        ast::Expr::PathExpr(p) => p.path().and_then(|p| path_as_ident(&p)),
                        _ => None,
                    })
                    .is_some_and(|name| tensors.contains(&name));
                let Some(name) = field.name_ref().filter(|_| on_a_tensor) else {
                    continue;
                };
                if let Some(edit) = accessor(&field, &name) {
                    edits.push(edit);
                }
            }
        }
    }
    for (range, text) in edits {
        ctx.push(Change::edit(
            range,
            text,
            RuleId::BackendExtensionPort,
            "an autodiff tensor's fields are private in Burn 0.22.1: `node()` is the guard `prepare` takes, `primitive()` borrows the inner tensor and `into_primitive()` takes it",
        ));
    }
}

/// The names of `function`'s parameters of type `FloatTensor<Self>`.
fn autodiff_tensor_params(function: &ast::Fn) -> Vec<String> {
    let params = function.param_list().into_iter().flat_map(|l| l.params());
    params
        .filter(|param| {
            let written: String = (param.ty().map(|t| t.syntax().text().to_string()))
                .unwrap_or_default()
                .split_whitespace()
                .collect();
            written == "FloatTensor<Self>"
        })
        .filter_map(|param| match param.pat()? {
            ast::Pat::IdentPat(ident) => Some(ident.name()?.text().to_string()),
            _ => None,
        })
        .collect()
}

/// The edit that reads `field` (`node` or `primitive` of an autodiff tensor) through its
/// method: the range and what replaces it.
fn accessor(field: &ast::FieldExpr, name: &ast::NameRef) -> Option<(TextRange, &'static str)> {
    let parent = field.syntax().parent().and_then(ast::MethodCallExpr::cast);
    let receiver_of = parent.filter(|call| {
        call.receiver()
            .is_some_and(|r| r.syntax() == field.syntax())
    });
    let cloned = receiver_of.as_ref().filter(|call| {
        call.name_ref().is_some_and(|n| n.text() == "clone")
            && call.arg_list().is_some_and(|a| a.args().next().is_none())
    });
    let range = name.syntax().text_range();
    // `x.node.id` is `x.id()` (the node's identifier, without retaining the node).
    let node_id = (field.syntax().parent().and_then(ast::FieldExpr::cast))
        .filter(|outer| outer.name_ref().is_some_and(|n| n.text() == "id"));
    match name.text().to_string().as_str() {
        "node" if node_id.is_some() => node_id.map(|outer| {
            let end = outer.syntax().text_range().end();
            (TextRange::new(range.start(), end), "id()")
        }),
        "node" => Some(match cloned {
            Some(call) => (
                TextRange::new(range.start(), call.syntax().text_range().end()),
                "node()",
            ),
            None => (range, "node()"),
        }),
        "primitive" if receiver_of.is_some() => Some((range, "primitive()")),
        "primitive" => Some((range, "into_primitive()")),
        _ => None,
    }
}

/// Whether `name` is named in an impl of one of the project's backend extensions in this
/// file (`impl<B: Ext, C> Ext for Autodiff<B, C>`): the impl stays (ported or left to a
/// person), and so must the import of what it names.
pub fn named_in_extension_impls(ctx: &FileCtx, name: &str) -> bool {
    ctx.nodes::<ast::Impl>().into_iter().any(|imp| {
        implemented_trait(&imp).is_some_and(|t| is_extension_trait(ctx, &t))
            && (imp.syntax().descendants().filter_map(ast::NameRef::cast)).any(|n| n.text() == name)
    })
}

/// Whether `name` is one of the project's backend extension traits (not a marker trait).
pub fn is_extension_trait(ctx: &FileCtx, name: &str) -> bool {
    (ctx.index.user_backend_traits.iter()).any(|(_, _, n)| n == name)
        && !ctx.index.marker_traits.contains(name)
}

/// Whether this file names `name` as a trait: in a bound, or as the trait an impl implements.
pub fn used_as_a_trait(ctx: &FileCtx, name: &str) -> bool {
    ctx.name_refs(name).into_iter().any(|name_ref| {
        let mut ancestors = name_ref.syntax().ancestors();
        ancestors.any(|a| {
            ast::TypeBound::can_cast(a.kind())
                || (a.parent().and_then(ast::Impl::cast))
                    .and_then(|imp| imp.trait_())
                    .is_some_and(|t| t.syntax() == &a)
        })
    })
}

/// The name of the trait `imp` implements (`Backend` of `impl Backend for CubeBackend`).
fn implemented_trait(imp: &ast::Impl) -> Option<String> {
    match imp.trait_()? {
        ast::Type::PathType(t) => segment_names(&t.path()?).pop(),
        _ => None,
    }
}
