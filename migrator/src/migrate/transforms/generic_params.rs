//! Drops backend type parameters from generic parameter lists and where clauses:
//! `struct Model<B: Backend>` -> `struct Model`, `impl<B: Backend> Model<B>` -> `impl Model<B>`
//! (the argument goes in `generic_args`), `where B: Backend` -> nothing, and so does a
//! predicate that names the backend only through its element types
//! (`f64: From<<B as BackendTypes>::FloatElem>`): 0.22 has no backend to have them.

use ra_ap_syntax::ast::{self, HasGenericParams, HasName, HasTypeBounds};
use ra_ap_syntax::{AstNode, SyntaxKind, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{
    mentions_ident, next_significant, prev_significant, remove_list_elements,
};

/// `impl<B: Backend> Marker for B {}` for one of the project's backend marker traits.
fn is_marker_impl(ctx: &FileCtx, node: &ra_ap_syntax::SyntaxNode) -> bool {
    let Some(ast::Type::PathType(trait_type)) =
        ast::Impl::cast(node.clone()).and_then(|i| i.trait_())
    else {
        return false;
    };
    trait_type
        .path()
        .and_then(|p| crate::util::syntax::segment_names(&p).pop())
        .is_some_and(|name| ctx.index.marker_traits.contains(&name))
}

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::GenericParams),
    run,
    emits: &[RuleId::BackendGenericParam],
    emits_data_rules: false,
    order: Order::Rank(10),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for node in ctx.listed_nodes_but_paths() {
        let Some(owner) = ast::AnyHasGenericParams::cast(node.clone()) else {
            continue;
        };
        let Some(list) = owner.generic_param_list() else {
            continue;
        };
        if is_marker_impl(ctx, &node) {
            // The whole impl goes (rule `backend-marker-trait`).
            continue;
        }
        let backends = ctx.index.backend_params(ctx.file_id, &owner);
        if backends.is_empty() {
            continue;
        }
        let names: Vec<String> = backends.iter().map(|b| b.name.clone()).collect();
        let message = format!("remove the backend type parameter `{}`", names.join("`, `"));

        remove_type_params(ctx, &list, &names, RuleId::BackendGenericParam, &message);
        if let Some(where_clause) = owner.where_clause() {
            remove_where_predicates(
                ctx,
                &where_clause,
                &names,
                RuleId::BackendGenericParam,
                &message,
            );
        }
    }
}

/// Removes the type parameters named `names` from `list`, their commas with them; the whole
/// list when none stay.
pub fn remove_type_params(
    ctx: &mut FileCtx,
    list: &ast::GenericParamList,
    names: &[String],
    rule: RuleId,
    message: &str,
) {
    let params: Vec<ast::GenericParam> = list.generic_params().collect();
    let remove: Vec<bool> = params
        .iter()
        .map(|p| match p {
            ast::GenericParam::TypeParam(t) => t
                .name()
                .is_some_and(|n| names.iter().any(|b| n.text() == b.as_str())),
            _ => false,
        })
        .collect();
    let elements: Vec<_> = params.iter().map(|p| p.syntax().clone()).collect();
    match remove_list_elements(&elements, &remove) {
        None => ctx.push(Change::delete(list.syntax().text_range(), rule, message)),
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(range, rule, message));
            }
        }
    }
}

/// The associated types of 0.21's backend that name its element types: a bound on a
/// conversion from them has nothing to bound in 0.22, where elements are a device setting.
const ELEMENT_TYPES: &[&str] = &["FloatElem", "IntElem", "BoolElem"];

/// Removes the predicates that constrain a backend parameter, or whose bounds name one only
/// through its element types; the whole clause when none stay. A value that relied on such a
/// conversion came from a backend-typed API, which its own rule reports.
pub fn remove_where_predicates(
    ctx: &mut FileCtx,
    clause: &ast::WhereClause,
    names: &[String],
    rule: RuleId,
    message: &str,
) {
    let predicates: Vec<ast::WherePred> = clause.predicates().collect();
    let remove: Vec<bool> = predicates
        .iter()
        .map(|p| {
            p.ty()
                .is_some_and(|ty| names.iter().any(|n| mentions_ident(ty.syntax(), n)))
                || p.type_bound_list()
                    .is_some_and(|bounds| names_backend_only_by_elements(bounds.syntax(), names))
        })
        .collect();
    if !remove.iter().any(|r| *r) {
        return;
    }
    let elements: Vec<_> = predicates.iter().map(|p| p.syntax().clone()).collect();
    match remove_list_elements(&elements, &remove) {
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(range, rule, message));
            }
        }
        None => {
            // From the end of what precedes `where` to what follows the clause, so
            // `fn f()\nwhere\n    B: Backend,\n{` becomes `fn f() {`.
            let syntax = clause.syntax();
            let (Some(first), Some(last)) = (syntax.first_token(), syntax.last_token()) else {
                return;
            };
            let start = prev_significant(&first)
                .map_or(syntax.text_range().start(), |t| t.text_range().end());
            let next = next_significant(&last);
            let end = next
                .as_ref()
                .map_or(syntax.text_range().end(), |t| t.text_range().start());
            let replacement = match next.map(|t| t.kind()) {
                Some(SyntaxKind::L_CURLY) => " ",
                _ => "",
            };
            ctx.push(Change::edit(
                TextRange::new(start, end),
                replacement,
                rule,
                message,
            ));
        }
    }
}

/// Whether `bounds` name a backend parameter of `names`, and only inside paths to one of its
/// element types (`B::FloatElem`, `<B as BackendTypes>::IntElem`).
fn names_backend_only_by_elements(bounds: &ra_ap_syntax::SyntaxNode, names: &[String]) -> bool {
    let mut uses = bounds
        .descendants()
        .filter_map(ast::NameRef::cast)
        .filter(|n| names.iter().any(|b| n.text() == b.as_str()))
        .peekable();
    uses.peek().is_some()
        && uses.all(|name| {
            // The outermost path the name qualifies (`B` in `B::FloatElem` and in
            // `<B as BackendTypes>::FloatElem`), not one it is a generic argument of
            // (`From<..>`).
            let outermost = name
                .syntax()
                .ancestors()
                .take_while(|a| a != bounds && !ast::GenericArgList::can_cast(a.kind()))
                .filter_map(ast::Path::cast)
                .last();
            outermost
                .and_then(|p| p.segment())
                .and_then(|s| s.name_ref())
                .is_some_and(|n| ELEMENT_TYPES.iter().any(|e| n.text() == *e))
        })
}
