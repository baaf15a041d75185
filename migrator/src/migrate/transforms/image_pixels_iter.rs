//! `item.image.into_iter()` of a Burn `ImageDatasetItem` is `item.image.iter()`: 0.21's
//! `image` was a `Vec<PixelDepth>`; 0.22.1's is one `PixelData` buffer (burn-dataset 0.22.1
//! `vision/image_folder.rs`), whose `iter()` yields the same `PixelDepth` values, by value, that
//! the vector's `into_iter()` did. What reads them on (`p.try_into()`, `u8::try_from(p)`) reads
//! them as before: `PixelDepth` and its conversions stay.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{is_plain_call, parameter_type, path_as_ident};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::ImagePixelsIter),
    run,
    emits: &[RuleId::ImagePixelsIter],
    emits_data_rules: false,
    order: Order::Rank(175),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("ImageDatasetItem") || ctx.targets_0_22() {
        return;
    }
    for call in ctx.nodes::<ast::MethodCallExpr>() {
        if !is_plain_call(&call, "into_iter") || !of_an_image_item(ctx, &call) {
            continue;
        }
        let Some(name) = call.name_ref() else {
            continue;
        };
        // The whole call, so that the edit answers the finding `image-pixel-depth` makes at
        // the field; its text as written but for the method's name.
        let (range, method) = (call.syntax().text_range(), name.syntax().text_range());
        let before = ctx
            .file
            .slice(TextRange::new(range.start(), method.start()));
        let after = ctx.file.slice(TextRange::new(method.end(), range.end()));
        let text = format!("{before}iter{after}");
        ctx.push(Change::edit(
            range,
            text,
            RuleId::ImagePixelsIter,
            "an image item's pixels are one `PixelData` buffer in Burn 0.22, whose `iter()` yields the `PixelDepth` values",
        ));
    }
}

/// Whether `call`'s receiver is `item.image` of a parameter `item` the function takes as
/// Burn's `ImageDatasetItem` by value (a reference's vector gave references), and binds
/// nowhere else.
fn of_an_image_item(ctx: &FileCtx, call: &ast::MethodCallExpr) -> bool {
    let Some(ast::Expr::FieldExpr(field)) = call.receiver() else {
        return false;
    };
    let Some(ast::Expr::PathExpr(base)) = field.expr() else {
        return false;
    };
    let is_image = field.name_ref().is_some_and(|n| n.text() == "image");
    let Some(name) = base.path().and_then(|p| path_as_ident(&p)) else {
        return false;
    };
    let Some(ast::Type::PathType(ty)) = parameter_type(call.syntax(), &name) else {
        return false;
    };
    let bound_once = (call.syntax().ancestors().find_map(ast::Fn::cast)).is_some_and(|function| {
        (function.syntax().descendants())
            .filter_map(ast::IdentPat::cast)
            .filter(|pattern| pattern.name().is_some_and(|n| n.text() == name))
            .count()
            == 1
    });
    let image_item = ty.path().is_some_and(|path| {
        ctx.index.burn_name(ctx.file_id, &path).as_deref() == Some("ImageDatasetItem")
    });
    is_image && bound_once && image_item
}
