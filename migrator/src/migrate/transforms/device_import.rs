//! Imports `burn::tensor::Device` (and `DeviceKind`) where the other rules brought them into
//! use and the file does not import them yet.

use ra_ap_syntax::ast::{self, HasModuleItem};
use ra_ap_syntax::AstNode;

use super::imports::imports_name;
use super::FileCtx;
use crate::edit::Change;

pub const RULE: &str = "device-import";

pub fn run(ctx: &mut FileCtx) {
    if ctx.needed_imports.is_empty() {
        return;
    }
    let root = ctx.root();
    let missing: Vec<&str> = ctx
        .needed_imports
        .iter()
        .copied()
        .filter(|name| !imports_name(&root, name, globs_providing(name)))
        .collect();
    if missing.is_empty() {
        return;
    }
    let line = match missing.as_slice() {
        [one] => format!("use burn::tensor::{one};\n"),
        many => format!("use burn::tensor::{{{}}};\n", many.join(", ")),
    };
    ctx.push(Change::insert(
        import_anchor(ctx),
        line,
        RULE,
        format!("import `{}` from `burn::tensor`", missing.join("`, `")),
    ));
}

/// Where new imports go: before the first `use` (or the first item), a position no other rule
/// deletes across.
pub fn import_anchor(ctx: &FileCtx) -> ra_ap_syntax::TextSize {
    let file = ctx.file.tree();
    let items: Vec<ast::Item> = file.items().collect();
    let anchor = items
        .iter()
        .find(|i| matches!(i, ast::Item::Use(_)))
        .or_else(|| items.first());
    match anchor {
        Some(item) => crate::util::syntax::line_removal_range(item.syntax()).start(),
        None => file.syntax().text_range().end(),
    }
}

/// The glob imports that bring a `burn::tensor` name into scope: the prelude has `Device` and
/// `DeviceKind`, not `Gradients`.
fn globs_providing(name: &str) -> &'static [&'static [&'static str]] {
    match name {
        "Device" | "DeviceKind" => &[&["burn", "prelude"], &["burn", "tensor"]],
        _ => &[&["burn", "tensor"]],
    }
}
