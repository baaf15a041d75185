//! Imports `burn::tensor::Device` (and `DeviceKind`, `Gradients`) where the other rules
//! brought them into use and the module does not import them yet: in the file, or in the
//! inline module (`#[cfg(feature = "gpu")] mod gpu { .. }`) around the edits; and reports
//! the names the edits write that nothing imports (`introduced_names`).

use std::collections::{BTreeMap, BTreeSet};

use ra_ap_syntax::ast::{HasAttrs, HasModuleItem, HasVisibility};
use ra_ap_syntax::{ast, AstNode, SyntaxNode, TextRange, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use super::use_items::{import_anchor, last_segment, scope_at, scope_imports, Imported};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DeviceImport),
    run,
    emits: &[RuleId::DeviceImport],
    emits_data_rules: false,
    order: Order::Last,
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    // Names an edit writes that its module cannot resolve: imported where the rule that
    // wrote them says where they live (its `[api] after` paths), reported where it does not.
    for unresolved in super::introduced_names::unresolved(ctx) {
        let homes: Vec<Option<String>> = (unresolved.names.iter())
            .map(|name| super::introduced_names::home_of(ctx.rules, unresolved.rule, name))
            .collect();
        let unknown: Vec<&str> = (unresolved.names.iter().zip(&homes))
            .filter(|(_, home)| home.is_none())
            .map(|(name, _)| name.as_str())
            .collect();
        for home in homes.into_iter().flatten() {
            ctx.need_import(&home);
        }
        if unknown.is_empty() {
            continue;
        }
        let message = format!(
            "`{}` writes `{}` here, which nothing in this module declares or imports: import it (or write its path in full) before building",
            unresolved.rule,
            unknown.join("`, `")
        );
        ctx.push(Change::manual(
            unresolved.range,
            RuleId::DeviceImport,
            message,
        ));
    }
    if ctx.needed_imports.is_empty() {
        return;
    }
    let root = ctx.root();
    // Imports do not reach into inline modules (`#[cfg(feature = "gpu")] mod gpu { .. }`): each
    // item goes to the innermost module around the edits that named it, under that module's
    // `cfg`.
    let mut scopes: BTreeMap<TextSize, (SyntaxNode, BTreeSet<String>)> = BTreeMap::new();
    for change in &ctx.changes {
        let Some(text) = change.replacement() else {
            continue;
        };
        for path in &ctx.needed_imports {
            if names_unqualified(text, last_segment(path)) {
                let scope = scope_at(&root, change.range.start());
                let key = scope.text_range().start();
                scopes
                    .entry(key)
                    .or_insert_with(|| (scope, BTreeSet::new()))
                    .1
                    .insert(path.clone());
            }
        }
    }
    if scopes.is_empty() {
        scopes.insert(
            root.text_range().start(),
            (root.clone(), ctx.needed_imports.clone()),
        );
    }
    // An item no edit names (the ops trait whose method `Dispatch::float_matmul` calls) goes
    // where the items named beside it go.
    let unnamed: Vec<&String> = (ctx.needed_imports.iter())
        .filter(|path| !scopes.values().any(|(_, paths)| paths.contains(*path)))
        .collect();
    for (_, paths) in scopes.values_mut() {
        paths.extend(unnamed.iter().map(|path| path.to_string()));
    }
    for (scope, paths) in scopes.into_values() {
        // Missing items by the `cfg` the new import needs (`None`: unconditional), then by
        // module: one `use` line per module.
        let mut missing: BTreeMap<Option<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        for path in &paths {
            let condition = match scope_imports(&scope, path, ctx.crates()) {
                Imported::Always => continue,
                Imported::Never => None,
                Imported::Under(conditions) => Some(negation(&conditions)),
            };
            let (module, name) = path.rsplit_once("::").unwrap_or(("burn", path));
            // Written as the file names the crate (`use nn::tensor::Device;`).
            let local = ctx.local_path(module);
            let module = match crate_must_be_absolute(ctx, &scope, &local, module) {
                true => format!("::{local}"),
                false => local.into_owned(),
            };
            missing
                .entry(condition)
                .or_default()
                .entry(module)
                .or_default()
                .push(name.to_string());
        }
        for (condition, modules) in missing {
            let mut lines = String::new();
            let mut named = Vec::new();
            for (module, names) in &modules {
                if let Some(condition) = &condition {
                    lines.push_str(&format!("#[cfg({condition})]\n"));
                }
                match names.as_slice() {
                    [one] => lines.push_str(&format!("use {module}::{one};\n")),
                    many => lines.push_str(&format!("use {module}::{{{}}};\n", many.join(", "))),
                }
                named.extend(names.iter().map(|n| format!("{module}::{n}")));
            }
            let (anchor, text) = match ast::ItemList::cast(scope.clone()) {
                Some(list) => module_anchor(ctx, &list, lines),
                None => file_anchor(ctx, lines),
            };
            let why = match &condition {
                None => format!("import `{}`", named.join("`, `")),
                Some(condition) => format!(
                    "import `{}` where the existing import does not apply (`cfg({condition})`)",
                    named.join("`, `")
                ),
            };
            ctx.push(Change::insert(anchor, text, RuleId::DeviceImport, why));
        }
    }
}

/// Whether the import must name the crate of `local` (`nn::tensor`, Burn's `module` under the
/// project's name) as `::nn`: where the file spells it so itself (`use ::nn::prelude::*;`), or
/// where a renamed crate's name could also come from a glob import of the module
/// (`use super::*;` over `use ::nn::prelude::*;`, whose `nn` module makes `nn` ambiguous,
/// E0659).
fn crate_must_be_absolute(ctx: &FileCtx, scope: &SyntaxNode, local: &str, module: &str) -> bool {
    let krate = local.split("::").next().unwrap_or(local);
    let uses_of = |node: &SyntaxNode| -> Vec<ast::Use> {
        node.children().filter_map(ast::Use::cast).collect()
    };
    let spelled_absolute = (ctx.root().descendants().filter_map(ast::Use::cast)).any(|u| {
        let text = u.use_tree().map(|t| t.syntax().text().to_string());
        text.is_some_and(|t| t.starts_with(&format!("::{krate}::")))
    });
    let renamed = krate != module.split("::").next().unwrap_or(module);
    let glob_in_scope = uses_of(scope).iter().any(|u| {
        u.use_tree().is_some_and(|t| {
            t.syntax()
                .descendants_with_tokens()
                .any(|t| t.kind() == ra_ap_syntax::SyntaxKind::STAR)
        })
    });
    spelled_absolute || (renamed && glob_in_scope)
}

/// The `cfg` predicate under which none of `conditions` holds.
fn negation(conditions: &[String]) -> String {
    match conditions {
        [one] => format!("not({one})"),
        many => format!("not(any({}))", many.join(", ")),
    }
}

/// The file's import position; the import at the anchor may be going, with the blank line
/// after it (`imports` removes a line between two blank lines that way): the new import
/// stands in its place, so the blank line stays.
fn file_anchor(ctx: &FileCtx, line: String) -> (TextSize, String) {
    let anchor = burn_group_anchor(ctx, &line).unwrap_or_else(|| import_anchor(ctx));
    // A blank line ends the removed text in either line ending (`\r\n` files too).
    let takes_blank_line = ctx.changes.iter().any(|c| {
        let removed = ctx.file.slice(c.range);
        c.range.start() == anchor
            && c.replacement() == Some("")
            && (removed.ends_with("\n\n") || removed.ends_with("\n\r\n"))
    });
    let line = if takes_blank_line {
        format!("{line}\n")
    } else {
        line
    };
    (anchor, line)
}

/// Where `line` (`use burn::..;`) goes among the file's own unconditional `use burn::..`
/// items that the port keeps, in the order rustfmt keeps a group in: before the first one that
/// sorts after it, or after the last. `None` when the file has none.
fn burn_group_anchor(ctx: &FileCtx, line: &str) -> Option<TextSize> {
    let file = ctx.file.tree();
    let burn_uses: Vec<ast::Use> = file
        .items()
        .filter_map(|item| match item {
            ast::Item::Use(u) => Some(u),
            _ => None,
        })
        .filter(|u| u.attrs().next().is_none() && u.visibility().is_none())
        // Imports the port keeps: one it rewrites or removes is no place to put a line next to.
        .filter(|u| {
            let range = crate::util::syntax::line_removal_range(u.syntax());
            !ctx.changes
                .iter()
                .any(|c| c.is_applied() && c.range.intersect(range).is_some())
        })
        .filter(|u| {
            u.use_tree()
                .and_then(|t| t.path())
                .and_then(|p| p.first_segment())
                .is_some_and(|s| {
                    let first = s.syntax().text().to_string();
                    ctx.crates().burn_crate(&first) == Some("burn")
                })
        })
        .collect();
    let new_path = line.trim_start_matches("use ").trim_end();
    let after = burn_uses.iter().find(|u| {
        let path = u.syntax().text().to_string();
        path.trim_start_matches("use ") > new_path
    });
    match after {
        Some(u) => Some(crate::util::syntax::line_removal_range(u.syntax()).start()),
        None => {
            let last = burn_uses.last()?;
            let end = last.syntax().text_range().end();
            // After the line's end, so the new import starts a line of its own.
            let rest = &ctx.file.text[usize::from(end)..];
            let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
            Some(end + TextSize::from(line_end as u32))
        }
    }
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
            let indented: String = line.lines().map(|l| format!("{indent}{l}\n")).collect();
            (start, indented)
        }
        None => {
            let after_brace = list
                .l_curly_token()
                .map_or(list.syntax().text_range().start(), |t| t.text_range().end());
            (after_brace, format!("\n{line}"))
        }
    }
}

/// Whether `text` names `name` on its own (`Device::flex()`), not as part of a longer name or
/// a qualified path (`burn::tensor::Device`).
fn names_unqualified(text: &str, name: &str) -> bool {
    crate::util::syntax::word_offsets(text, name).any(|at| !text[..at].ends_with(':'))
}
