//! Fields that only held the backend parameter (`_backend: PhantomData<B>`) disappear with
//! it, and so do their initializers in struct literals, in any file of the workspace.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use crate::edit::Change;
use crate::migrate::index::is_phantom_of_backend;
use crate::rules::RuleId;
use crate::util::syntax::{remove_list_elements, segment_names};

pub fn run(ctx: &mut FileCtx) {
    for fields in ctx
        .root()
        .descendants()
        .filter_map(ast::RecordFieldList::cast)
    {
        let scope = ctx.backends_in_scope(fields.syntax());
        let all: Vec<ast::RecordField> = fields.fields().collect();
        let remove: Vec<bool> = all
            .iter()
            .map(|f| f.ty().is_some_and(|t| is_phantom_of_backend(&t, &scope)))
            .collect();
        let nodes: Vec<_> = all.iter().map(|f| f.syntax().clone()).collect();
        remove_elements(
            ctx,
            &nodes,
            &remove,
            "remove the field that held the backend type parameter",
        );
    }

    for literal in ctx.root().descendants().filter_map(ast::RecordExpr::cast) {
        let Some(name) = literal
            .path()
            .and_then(|p| struct_name(&p, literal.syntax()))
        else {
            continue;
        };
        let Some(removed) = ctx.index.phantom_fields.get(&name) else {
            continue;
        };
        let Some(list) = literal.record_expr_field_list() else {
            continue;
        };
        let all: Vec<ast::RecordExprField> = list.fields().collect();
        let remove: Vec<bool> = all
            .iter()
            .map(|f| field_name(f).is_some_and(|n| removed.contains(&n)))
            .collect();
        let nodes: Vec<_> = all.iter().map(|f| f.syntax().clone()).collect();
        remove_elements(
            ctx,
            &nodes,
            &remove,
            "the backend marker field no longer exists",
        );
    }
}

fn remove_elements(
    ctx: &mut FileCtx,
    nodes: &[ra_ap_syntax::SyntaxNode],
    remove: &[bool],
    message: &str,
) {
    if !remove.iter().any(|r| *r) {
        return;
    }
    match remove_list_elements(nodes, remove) {
        Some(ranges) => {
            for range in ranges {
                ctx.push(Change::delete(range, RuleId::BackendPhantomField, message));
            }
        }
        None => {
            // Every field goes: delete from the first to the last, a trailing comma included.
            let (Some(first), Some(last)) = (nodes.first(), nodes.last()) else {
                return;
            };
            let mut end = last.text_range().end();
            if let Some(comma) = last
                .last_token()
                .and_then(|t| crate::util::syntax::next_significant(&t))
                .filter(|t| t.text() == ",")
            {
                end = comma.text_range().end();
            }
            ctx.push(Change::delete(
                TextRange::new(first.text_range().start(), end),
                RuleId::BackendPhantomField,
                message,
            ));
        }
    }
}

fn field_name(field: &ast::RecordExprField) -> Option<String> {
    if let Some(name) = field.name_ref() {
        return Some(name.text().to_string());
    }
    // Shorthand `Model { phantom }`.
    match field.expr()? {
        ast::Expr::PathExpr(p) => crate::util::syntax::path_as_ident(&p.path()?),
        _ => None,
    }
}

/// The struct a literal builds: its last path segment, or the impl's type for `Self { .. }`.
pub(super) fn struct_name(path: &ast::Path, at: &ra_ap_syntax::SyntaxNode) -> Option<String> {
    let name = segment_names(path).pop()?;
    if name != "Self" {
        return Some(name);
    }
    let imp = at.ancestors().find_map(ast::Impl::cast)?;
    let ast::Type::PathType(self_ty) = imp.self_ty()? else {
        return None;
    };
    let segment = self_ty.path()?.segment()?;
    segment.name_ref().map(|n| n.text().to_string())
}
