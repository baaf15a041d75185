//! Fields that only held the backend parameter (`_backend: PhantomData<B>`, or
//! `PhantomData<fn() -> B>`, `PhantomData<*const B>`, ...) disappear with it, and so do their
//! initializers in struct literals, in any file of the workspace. A marker of the backend and
//! other parameters (`PhantomData<(B, T)>`) keeps its field and loses the backend's elements.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::{is_phantom_of_backend, phantom_backend_tuple_elements};
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{remove_list_elements, segment_names};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::Phantom),
    run,
    emits: &[RuleId::BackendPhantomField],
    emits_data_rules: false,
    order: Order::Rank(50),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for fields in ctx.nodes::<ast::RecordFieldList>() {
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
        for field in all
            .iter()
            .zip(&remove)
            .filter(|(_, r)| !**r)
            .map(|(f, _)| f)
        {
            if let Some(ty) = field.ty() {
                drop_tuple_elements(ctx, &ty, &scope);
            }
        }
    }

    for literal in ctx.nodes::<ast::RecordExpr>() {
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

/// `PhantomData<(B, T)>` -> `PhantomData<T>`: the elements that marked only the backend go;
/// a single element left stands alone, without the parentheses of a one-element tuple.
fn drop_tuple_elements(
    ctx: &mut FileCtx,
    ty: &ast::Type,
    scope: &[crate::migrate::index::BackendParam],
) {
    let backend_only = phantom_backend_tuple_elements(ty, scope);
    let Some(tuple) = backend_only
        .first()
        .and_then(|t| t.syntax().parent())
        .and_then(ast::TupleType::cast)
    else {
        return;
    };
    let elements: Vec<ast::Type> = tuple.fields().collect();
    let remove: Vec<bool> = elements.iter().map(|e| backend_only.contains(e)).collect();
    let message = "the backend type parameter no longer exists; the marker keeps the others";
    let kept: Vec<&ast::Type> = elements
        .iter()
        .zip(&remove)
        .filter(|(_, r)| !**r)
        .map(|(e, _)| e)
        .collect();
    if let [only] = kept.as_slice() {
        ctx.push(Change::edit(
            tuple.syntax().text_range(),
            only.syntax().text().to_string(),
            RuleId::BackendPhantomField,
            message,
        ));
        return;
    }
    let nodes: Vec<_> = elements.iter().map(|e| e.syntax().clone()).collect();
    for range in remove_list_elements(&nodes, &remove).unwrap_or_default() {
        ctx.push(Change::delete(range, RuleId::BackendPhantomField, message));
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
            let (Some(first), Some(last)) = (nodes.first(), nodes.last()) else {
                return;
            };
            // Every field goes. With nothing but whitespace and commas around them, the
            // braces close: `struct Marker {}`, `Self {}`.
            if let Some(inside) = between_braces(first) {
                ctx.push(Change::delete(inside, RuleId::BackendPhantomField, message));
                return;
            }
            // Otherwise delete from the first to the last, a trailing comma included.
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

/// The text between the braces of the list `field` is in, when it holds only fields, commas
/// and whitespace (no comment, no `..base`).
fn between_braces(field: &ra_ap_syntax::SyntaxNode) -> Option<TextRange> {
    use ra_ap_syntax::SyntaxKind;
    let list = field.parent()?;
    let open = list
        .children_with_tokens()
        .find(|e| e.kind() == SyntaxKind::L_CURLY)?;
    let close = list
        .children_with_tokens()
        .find(|e| e.kind() == SyntaxKind::R_CURLY)?;
    let plain = list.children_with_tokens().all(|e| {
        matches!(
            e.kind(),
            SyntaxKind::L_CURLY | SyntaxKind::R_CURLY | SyntaxKind::WHITESPACE | SyntaxKind::COMMA
        ) || ast::RecordField::can_cast(e.kind())
            || ast::RecordExprField::can_cast(e.kind())
    });
    plain.then(|| TextRange::new(open.text_range().end(), close.text_range().start()))
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
