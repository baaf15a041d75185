//! `Optimizer<M, B>` (0.21's two-parameter trait) in bounds and types: 0.22's optimizers are
//! the concrete `ModuleOptimizer`, and `Optimizer` names another trait. The type of a built
//! optimizer, `OptimizerAdaptor<O, M, B>` (what 0.21's `AdamConfig::init::<B, M>()` returned),
//! is that `ModuleOptimizer` (what 0.22.1's `AdamConfig::init()` returns), where nothing
//! generic but the backend is in it.

use std::collections::HashSet;

use ra_ap_syntax::ast::{self, HasGenericArgs, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::OptimizerBounds),
    run,
    emits: &[RuleId::OptimizerBounds, RuleId::OptimizerAdaptorType],
    emits_data_rules: false,
    order: Order::Rank(230),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.paths_named(&["Optimizer", "OptimizerAdaptor"]) {
        let Some(segment) = path.segment() else {
            continue;
        };
        let arity = segment
            .generic_arg_list()
            .map(|l| l.generic_args().count())
            .unwrap_or(0);
        if arity >= 2 && port_optimizer_type_param(ctx, &path) {
            continue;
        }
        if let Some(impl_trait) = (arity >= 2)
            .then(|| an_impl_optimizer(ctx, &path))
            .flatten()
        {
            ctx.need_import("burn::optim::ModuleOptimizer");
            ctx.push(Change::edit(
                impl_trait.syntax().text_range(),
                "ModuleOptimizer",
                RuleId::OptimizerAdaptorType,
                "an optimizer is a `ModuleOptimizer` in Burn 0.22, whatever it optimizes",
            ));
        } else if arity >= 2 && is_a_built_optimizer(ctx, &path) {
            let Some(ty) = path.syntax().parent() else {
                continue;
            };
            // From the space before the type where one leads it (`type Opt = ..`, `optim:
            // ..`), so that the edit holds the finding `simple-optimizer` makes at the type
            // and answers it.
            let lead = (ty.first_token().and_then(|t| t.prev_token()))
                .filter(|t| t.kind() == SyntaxKind::WHITESPACE)
                .filter(|_| {
                    ty.parent().is_some_and(|p| {
                        ast::TypeAlias::can_cast(p.kind())
                            || ast::RecordField::can_cast(p.kind())
                            || ast::Param::can_cast(p.kind())
                            || ast::LetStmt::can_cast(p.kind())
                            || ast::RefType::can_cast(p.kind())
                            || ast::RetType::can_cast(p.kind())
                    })
                });
            let (from, lead) = match lead {
                Some(space) => (space.text_range().start(), space.text().to_string()),
                None => (ty.text_range().start(), String::new()),
            };
            ctx.need_import("burn::optim::ModuleOptimizer");
            ctx.push(Change::edit(
                TextRange::new(from, ty.text_range().end()),
                format!("{lead}ModuleOptimizer"),
                RuleId::OptimizerAdaptorType,
                "an optimizer built from its config is a `ModuleOptimizer` in Burn 0.22",
            ));
        } else if arity >= 2
            && matches!(
                ctx.index.burn_name(ctx.file_id, &path).as_deref(),
                Some("Optimizer" | "OptimizerAdaptor")
            )
        {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::OptimizerBounds,
                "optimizers are the concrete `burn::optim::ModuleOptimizer` in Burn 0.22: take `&mut ModuleOptimizer` instead of a generic `O: Optimizer<M, B>`",
            ));
        }
    }
}

/// `impl Optimizer<M, B>` (Burn's trait, its one bound) taken or returned by a function
/// (`optim: &mut impl Optimizer<Model<B>, B>`, `-> impl Optimizer<M, B>`): the type is
/// 0.22's `ModuleOptimizer`, which every optimizer config builds, where no type parameter but
/// backends is in its arguments (one for the module would be left with nothing to infer it
/// from).
fn an_impl_optimizer(ctx: &FileCtx, path: &ast::Path) -> Option<ast::ImplTraitType> {
    let bound = path.syntax().ancestors().find_map(ast::TypeBound::cast)?;
    let impl_trait = bound
        .syntax()
        .ancestors()
        .find_map(ast::ImplTraitType::cast)?;
    let only_bound = impl_trait
        .type_bound_list()
        .is_some_and(|list| list.bounds().count() == 1);
    let taken_or_returned = (impl_trait.syntax().ancestors().skip(1))
        .find(|a| !ast::RefType::can_cast(a.kind()))
        .is_some_and(|a| ast::Param::can_cast(a.kind()) || ast::RetType::can_cast(a.kind()));
    let burn = ctx.index.burn_name(ctx.file_id, path).as_deref() == Some("Optimizer");
    (only_bound && taken_or_returned && burn && !names_a_non_backend_parameter(ctx, path))
        .then_some(impl_trait)
}

/// Whether `path` is Burn's `OptimizerAdaptor<O, M, B>` written as a type, with no type
/// parameter in scope in its arguments but backends (which the port removes): a parameter for
/// the module or the optimizer would be left unused by `ModuleOptimizer` (an error in an alias
/// or a struct, and nothing to infer it from in a function).
fn is_a_built_optimizer(ctx: &FileCtx, path: &ast::Path) -> bool {
    let in_type_position = path
        .syntax()
        .parent()
        .is_some_and(|p| ast::PathType::can_cast(p.kind()));
    if !in_type_position
        || ctx.index.burn_name(ctx.file_id, path).as_deref() != Some("OptimizerAdaptor")
    {
        return false;
    }
    !names_a_non_backend_parameter(ctx, path)
}

/// Whether `path`'s generic arguments name a type parameter in scope that is no backend.
fn names_a_non_backend_parameter(ctx: &FileCtx, path: &ast::Path) -> bool {
    let backends: HashSet<String> = (ctx.backends_in_scope(path.syntax()).into_iter())
        .map(|b| b.name)
        .collect();
    let parameters: HashSet<String> = (path.syntax().ancestors())
        .filter_map(ast::AnyHasGenericParams::cast)
        .filter_map(|owner| ast::HasGenericParams::generic_param_list(&owner))
        .flat_map(|list| list.type_or_const_params())
        .filter_map(|param| Some(param.name()?.text().to_string()))
        .filter(|name| !backends.contains(name))
        .collect();
    let Some(arguments) = path.segment().and_then(|s| s.generic_arg_list()) else {
        return false;
    };
    (arguments.syntax().descendants())
        .filter_map(ast::NameRef::cast)
        .any(|name| parameters.contains(name.text()))
}

/// `fn train<B: AutodiffBackend, O: Optimizer<Model<B>, B>>(optim: &mut O, ..)`: a function's
/// type parameter whose one bound is Burn's `Optimizer` (`path`), named nowhere but as the
/// type of its parameters (by value or behind a reference) and of what it returns, is 0.22.1's
/// `ModuleOptimizer`, which every optimizer config builds: those types become it, and the
/// parameter and its bound go. Not where a caller writes the function's generic arguments
/// (`train::<B, O>(..)`), which name the parameter by position; not where another type
/// parameter of the bound (the module's) is named nowhere else, which nothing could infer
/// then. Returns whether it did.
fn port_optimizer_type_param(ctx: &mut FileCtx, path: &ast::Path) -> bool {
    let Some(port) = optimizer_type_param(ctx, path) else {
        return false;
    };
    let message = "an optimizer is a `ModuleOptimizer` in Burn 0.22, whatever it optimizes";
    ctx.need_import("burn::optim::ModuleOptimizer");
    for ty in &port.types {
        ctx.push(Change::edit(
            ty.syntax().text_range(),
            "ModuleOptimizer",
            RuleId::OptimizerAdaptorType,
            message,
        ));
    }
    // With the backend parameters the port removes from the same lists (`generic-params`), so
    // that both compute the same ranges.
    let mut names: Vec<String> = (ctx
        .index
        .backend_params(ctx.file_id, &port.owner)
        .into_iter())
    .map(|b| b.name)
    .collect();
    names.push(port.name.clone());
    let rule = RuleId::OptimizerAdaptorType;
    if let Some(list) = port.function.generic_param_list() {
        super::generic_params::remove_type_params(ctx, &list, &names, rule, message);
    }
    if let Some(clause) = port.function.where_clause() {
        super::generic_params::remove_where_predicates(ctx, &clause, &names, rule, message);
    }
    true
}

/// What `port_optimizer_type_param` rewrites: the function, its parameter's name, and the
/// types that name it.
struct OptimizerTypeParam {
    function: ast::Fn,
    owner: ast::AnyHasGenericParams,
    name: String,
    types: Vec<ast::PathType>,
}

fn optimizer_type_param(ctx: &FileCtx, path: &ast::Path) -> Option<OptimizerTypeParam> {
    if ctx.index.burn_name(ctx.file_id, path).as_deref() != Some("Optimizer") {
        return None;
    }
    let bound = path.syntax().parent().and_then(ast::PathType::cast)?;
    let bound = bound.syntax().parent().and_then(ast::TypeBound::cast)?;
    let bounds = bound.syntax().parent().and_then(ast::TypeBoundList::cast)?;
    if bounds.bounds().count() != 1 {
        return None;
    }
    // `O: Optimizer<..>` in the parameter list or in the `where` clause.
    let holder = bounds.syntax().parent()?;
    let name = if let Some(param) = ast::TypeParam::cast(holder.clone()) {
        param.name()?.text().to_string()
    } else {
        let predicate = ast::WherePred::cast(holder)?;
        let ast::Type::PathType(ty) = predicate.ty()? else {
            return None;
        };
        crate::util::syntax::path_as_ident(&ty.path()?)?
    };
    let function = path.syntax().ancestors().find_map(ast::Fn::cast)?;
    let declared = (function.generic_param_list()?.type_or_const_params())
        .filter_map(|p| match p {
            ast::TypeOrConstParam::Type(t) => t.name(),
            ast::TypeOrConstParam::Const(_) => None,
        })
        .any(|n| n.text() == name);
    let called_with_arguments = function
        .name()
        .is_some_and(|f| ctx.index.named_with_turbofish(f.text()));
    if !declared || called_with_arguments {
        return None;
    }
    // Every other name of the parameter: the types of parameters and of the return value;
    // and its one bound (this one).
    let mut types = Vec::new();
    for name_ref in (function.syntax().descendants()).filter_map(ast::NameRef::cast) {
        if name_ref.text() != name.as_str() {
            continue;
        }
        if (name_ref.syntax().ancestors()).any(|a| a == *bounds.syntax()) {
            continue;
        }
        let predicate_of_it = (name_ref.syntax().ancestors())
            .find_map(ast::WherePred::cast)
            .is_some_and(|p| {
                p.ty().is_some_and(|t| {
                    t.syntax()
                        .text_range()
                        .contains_range(name_ref.syntax().text_range())
                })
            });
        if predicate_of_it {
            // Another predicate bounds it too (`where O: Optimizer<..>, O: Clone`).
            if !(bounds.syntax().ancestors()).any(|a| {
                ast::WherePred::can_cast(a.kind())
                    && a.text_range()
                        .contains_range(name_ref.syntax().text_range())
            }) {
                return None;
            }
            continue;
        }
        let ty = (name_ref.syntax().ancestors())
            .map_while(|a| {
                (!ast::Param::can_cast(a.kind()) && !ast::RetType::can_cast(a.kind())).then_some(a)
            })
            .find_map(ast::PathType::cast)?;
        let whole = ty.path().is_some_and(|p| {
            p.qualifier().is_none() && p.segment().is_some_and(|s| s.generic_arg_list().is_none())
        });
        let place = ty
            .syntax()
            .ancestors()
            .skip(1)
            .find(|a| !ast::RefType::can_cast(a.kind()))?;
        if !whole || !(ast::Param::can_cast(place.kind()) || ast::RetType::can_cast(place.kind())) {
            return None;
        }
        types.push(ty);
    }
    if types.is_empty() || !module_parameters_stay_inferable(ctx, &function, path) {
        return None;
    }
    Some(OptimizerTypeParam {
        owner: ast::AnyHasGenericParams::cast(function.syntax().clone())?,
        function,
        name,
        types,
    })
}

/// Whether each type parameter of the function that the bound's arguments name (the
/// module's, `M` of `Optimizer<M, B>`), backends aside, is also named by a parameter's type:
/// without the bound, callers' arguments are what infers it.
fn module_parameters_stay_inferable(ctx: &FileCtx, function: &ast::Fn, bound: &ast::Path) -> bool {
    let backends: HashSet<String> = (ctx.backends_in_scope(bound.syntax()).into_iter())
        .map(|b| b.name)
        .collect();
    let Some(arguments) = bound.segment().and_then(|s| s.generic_arg_list()) else {
        return true;
    };
    let parameters: HashSet<String> = (function.generic_param_list().into_iter())
        .flat_map(|list| list.type_or_const_params())
        .filter_map(|p| Some(p.name()?.text().to_string()))
        .filter(|n| !backends.contains(n))
        .collect();
    let taken: HashSet<String> = (function.param_list().into_iter())
        .flat_map(|list| list.params())
        .filter_map(|p| p.ty())
        .flat_map(|ty| {
            ty.syntax()
                .descendants()
                .filter_map(ast::NameRef::cast)
                .collect::<Vec<_>>()
        })
        .map(|n| n.text().to_string())
        .collect();
    (arguments.syntax().descendants())
        .filter_map(ast::NameRef::cast)
        .filter(|n| parameters.contains(n.text()))
        .all(|n| taken.contains(n.text()))
}
