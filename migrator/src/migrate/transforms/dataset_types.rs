//! Which types are datasets, as far as syntax and the workspace index can tell: Burn's dataset
//! types (`InMemDataset<I>`), the project's types that implement Burn's `Dataset`, `impl
//! Dataset<..>` and `dyn Dataset<..>`, behind `&` or a smart pointer. Shared by the rules that
//! read datasets (`dataset_reads`) and implement them (`dataset_get_result`).

use ra_ap_syntax::ast;

use super::context::FileCtx;
use crate::util::syntax::{segment_names, single_type_argument};

/// `Houses`, `&Houses`, `InMemDataset<I>`, `impl Dataset<I>`, `&dyn Dataset<I>`, and any of
/// these in a `Box`, `Arc` or `Rc`.
pub fn is_dataset_type(ctx: &FileCtx, ty: &ast::Type) -> bool {
    match ty {
        ast::Type::RefType(r) => r.ty().is_some_and(|t| is_dataset_type(ctx, &t)),
        ast::Type::PathType(p) => p.path().is_some_and(|p| {
            names_dataset(ctx, &p)
                || ["Box", "Arc", "Rc"].iter().any(|pointer| {
                    single_type_argument(ty, pointer).is_some_and(|t| is_dataset_type(ctx, &t))
                })
        }),
        ast::Type::ImplTraitType(t) => bound_is_dataset(ctx, t.type_bound_list()),
        ast::Type::DynTraitType(t) => bound_is_dataset(ctx, t.type_bound_list()),
        _ => false,
    }
}

fn bound_is_dataset(ctx: &FileCtx, bounds: Option<ast::TypeBoundList>) -> bool {
    bounds
        .into_iter()
        .flat_map(|b| b.bounds())
        .any(|bound| match bound.ty() {
            Some(ast::Type::PathType(p)) => p.path().is_some_and(|p| {
                ctx.index.burn_name(ctx.file_id, &p).as_deref() == Some("Dataset")
            }),
            _ => false,
        })
}

/// A project type that implements Burn's `Dataset`, or one of Burn's dataset types.
pub fn names_dataset(ctx: &FileCtx, path: &ast::Path) -> bool {
    let Some(last) = segment_names(path).pop() else {
        return false;
    };
    if ctx.index.dataset_types.contains(&last) {
        return true;
    }
    last.ends_with("Dataset")
        && ctx
            .index
            .burn_name(ctx.file_id, path)
            .is_some_and(|burn| burn.ends_with("Dataset"))
}
