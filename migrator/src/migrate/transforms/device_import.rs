//! Imports `burn::tensor::Device` (and `DeviceKind`) where the other rules brought them into
//! use and the file does not import them yet.

use super::context::FileCtx;
use super::use_items::{import_anchor, imports_name};
use crate::edit::Change;
use crate::rules::RuleId;

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
    let anchor = import_anchor(ctx);
    // The import at the anchor may be going, with the blank line after it (`imports` removes
    // a line between two blank lines that way): the new import stands in its place, so the
    // blank line stays.
    let takes_blank_line = ctx.changes.iter().any(|c| {
        c.range.start() == anchor
            && c.replacement.as_deref() == Some("")
            && ctx.file.slice(c.range).ends_with("\n\n")
    });
    let line = if takes_blank_line {
        format!("{line}\n")
    } else {
        line
    };
    ctx.push(Change::insert(
        anchor,
        line,
        RuleId::DeviceImport,
        format!("import `{}` from `burn::tensor`", missing.join("`, `")),
    ));
}

/// The glob imports that bring a `burn::tensor` name into scope: the prelude has `Device` and
/// `DeviceKind`, not `Gradients`.
fn globs_providing(name: &str) -> &'static [&'static [&'static str]] {
    match name {
        "Device" | "DeviceKind" => &[&["burn", "prelude"], &["burn", "tensor"]],
        _ => &[&["burn", "tensor"]],
    }
}
