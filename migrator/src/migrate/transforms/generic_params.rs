//! Drops backend type parameters from generic parameter lists and where clauses:
//! `struct Model<B: Backend>` -> `struct Model`, `impl<B: Backend> Model<B>` -> `impl Model<B>`
//! (the argument goes in `generic_args`), `where B: Backend` -> nothing.

use ra_ap_syntax::ast::{self, HasGenericParams, HasName};
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
            None => ctx.push(Change::delete(
                list.syntax().text_range(),
                RuleId::BackendGenericParam,
                message.clone(),
            )),
            Some(ranges) => {
                for range in ranges {
                    ctx.push(Change::delete(
                        range,
                        RuleId::BackendGenericParam,
                        message.clone(),
                    ));
                }
            }
        }

        if let Some(where_clause) = owner.where_clause() {
            remove_where_predicates(ctx, &where_clause, &names, &message);
        }
    }
}

/// Removes the predicates that constrain a backend parameter; the whole clause when none stay.
fn remove_where_predicates(
    ctx: &mut FileCtx,
    clause: &ast::WhereClause,
    names: &[String],
    message: &str,
) {
    let predicates: Vec<ast::WherePred> = clause.predicates().collect();
    let remove: Vec<bool> = predicates
        .iter()
        .map(|p| {
            p.ty()
                .is_some_and(|ty| names.iter().any(|n| mentions_ident(ty.syntax(), n)))
        })
        .collect();
    if !remove.iter().any(|r| *r) {
        return;
    }
    let elements: Vec<_> = predicates.iter().map(|p| p.syntax().clone()).collect();
    match remove_list_elements(&elements, &remove) {
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(range, RuleId::BackendGenericParam, message));
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
                RuleId::BackendGenericParam,
                message,
            ));
        }
    }
}
