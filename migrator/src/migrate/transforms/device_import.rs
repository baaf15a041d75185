//! Imports `burn::tensor::Device` (and `DeviceKind`, `Gradients`) where the other rules
//! brought them into use and the module does not import them yet: in the file, or in the
//! inline module (`#[cfg(feature = "gpu")] mod gpu { .. }`) around the edits.

use std::collections::{BTreeMap, BTreeSet};

use ra_ap_syntax::ast::HasModuleItem;
use ra_ap_syntax::{ast, AstNode, SyntaxNode, TextRange, TextSize};

use super::context::FileCtx;
use super::use_items::{full_use_path, import_anchor, imports_name};
use crate::edit::Change;
use crate::rules::RuleId;

pub fn run(ctx: &mut FileCtx) {
    if ctx.needed_imports.is_empty() {
        return;
    }
    let root = ctx.root();
    // Imports do not reach into inline modules (`#[cfg(..)] mod gpu { .. }`): each name goes
    // to the innermost module around the edits that wrote it, under that module's `cfg`.
    let mut scopes: BTreeMap<TextSize, (SyntaxNode, BTreeSet<&'static str>)> = BTreeMap::new();
    for change in &ctx.changes {
        let Some(text) = change.replacement.as_deref() else {
            continue;
        };
        for name in ctx.needed_imports.iter().copied() {
            if names_unqualified(text, name) {
                let scope = scope_at(&root, change.range.start());
                let key = scope.text_range().start();
                scopes
                    .entry(key)
                    .or_insert_with(|| (scope, BTreeSet::new()))
                    .1
                    .insert(name);
            }
        }
    }
    if scopes.is_empty() {
        scopes.insert(
            root.text_range().start(),
            (root.clone(), ctx.needed_imports.clone()),
        );
    }
    for (scope, names) in scopes.into_values() {
        let missing: Vec<&str> = names
            .into_iter()
            .filter(|name| !scope_imports(&scope, name))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let line = match missing.as_slice() {
            [one] => format!("use burn::tensor::{one};\n"),
            many => format!("use burn::tensor::{{{}}};\n", many.join(", ")),
        };
        let (anchor, line) = match ast::ItemList::cast(scope.clone()) {
            Some(list) => module_anchor(ctx, &list, line),
            None => file_anchor(ctx, line),
        };
        ctx.push(Change::insert(
            anchor,
            line,
            RuleId::DeviceImport,
            format!("import `{}` from `burn::tensor`", missing.join("`, `")),
        ));
    }
}

/// The file's import position; the import at the anchor may be going, with the blank line
/// after it (`imports` removes a line between two blank lines that way): the new import
/// stands in its place, so the blank line stays.
fn file_anchor(ctx: &FileCtx, line: String) -> (TextSize, String) {
    let anchor = import_anchor(ctx);
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
    (anchor, line)
}

/// Before the first `use` of an inline module (or its first item), indented like it.
fn module_anchor(ctx: &FileCtx, list: &ast::ItemList, line: String) -> (TextSize, String) {
    let items: Vec<ast::Item> = list.items().collect();
    let first = items
        .iter()
        .find(|i| matches!(i, ast::Item::Use(_)))
        .or_else(|| items.first());
    match first {
        Some(item) => {
            let start = crate::util::syntax::line_removal_range(item.syntax()).start();
            let indent_end = item.syntax().text_range().start();
            let indent = ctx.file.slice(TextRange::new(start, indent_end));
            let indent = if indent.trim().is_empty() { indent } else { "" };
            (start, format!("{indent}{line}"))
        }
        None => {
            let after_brace = list
                .l_curly_token()
                .map_or(list.syntax().text_range().start(), |t| t.text_range().end());
            (after_brace, format!("\n{line}"))
        }
    }
}

/// The innermost inline module's item list around `offset`, or the file.
fn scope_at(root: &SyntaxNode, offset: TextSize) -> SyntaxNode {
    root.token_at_offset(offset)
        .right_biased()
        .and_then(|token| {
            token
                .parent_ancestors()
                .filter_map(ast::ItemList::cast)
                .find(|list| list.syntax().parent().and_then(ast::Module::cast).is_some())
        })
        .map_or_else(|| root.clone(), |list| list.syntax().clone())
}

/// Whether the `use` items of the scope itself (not of modules inside it) bring `name` in,
/// directly, through a Burn glob, or through `use super::*` from the enclosing scope.
fn scope_imports(scope: &SyntaxNode, name: &str) -> bool {
    let uses = scope.children().filter_map(ast::Use::cast);
    for item in uses {
        let Some(tree) = item.use_tree() else {
            continue;
        };
        let trees = tree.syntax().descendants().filter_map(ast::UseTree::cast);
        if imports_name(trees, name, globs_providing(name)) {
            return true;
        }
        let is_super_glob = tree
            .syntax()
            .descendants()
            .filter_map(ast::UseTree::cast)
            .any(|t| t.star_token().is_some() && full_use_path(&t) == ["super"]);
        if is_super_glob {
            let parent = scope
                .ancestors()
                .skip(1)
                .find(|n| ast::ItemList::can_cast(n.kind()) || ast::SourceFile::can_cast(n.kind()));
            if parent.is_some_and(|p| scope_imports(&p, name)) {
                return true;
            }
        }
    }
    false
}

/// Whether `text` names `name` on its own (`Device::flex()`), not as part of a longer name or
/// a qualified path (`burn::tensor::Device`).
fn names_unqualified(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The glob imports that bring a `burn::tensor` name into scope: the prelude has `Device` and
/// `DeviceKind`, not `Gradients`.
fn globs_providing(name: &str) -> &'static [&'static [&'static str]] {
    match name {
        "Device" | "DeviceKind" => &[&["burn", "prelude"], &["burn", "tensor"]],
        _ => &[&["burn", "tensor"]],
    }
}
