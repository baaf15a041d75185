//! Imports that Burn 0.22 removed go: the backend traits (`burn::tensor::backend::Backend`,
//! `AutodiffBackend`, the prelude's `Backend`) and everything under `burn::backend` and the
//! backend crates, whose selections the other rules turned into `Device` values.
//! `AutodiffModule` is gone too: its methods are `Module` methods now, so its import becomes
//! `Module` (or goes, when `Module` is already imported).

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::FileCtx;
use crate::edit::Change;
use crate::index::is_backend_module_path;
use crate::syntax_util::{line_removal_range, remove_list_elements, segment_names};

pub const RULE: &str = "backend-imports";
pub const RULE_AUTODIFF_MODULE: &str = "autodiff-module";

pub fn run(ctx: &mut FileCtx) {
    if ctx.migrated {
        // Code on 0.22 may import `burn::backend` for backend extensions (feature `extension`).
        return;
    }
    let module_imported = imports_name(
        &ctx.root(),
        "Module",
        &[&["burn", "prelude"], &["burn", "module"]],
    );
    for use_item in ctx.root().descendants().filter_map(ast::Use::cast) {
        let Some(tree) = use_item.use_tree() else {
            continue;
        };
        if visit(ctx, &tree, &mut Vec::new(), module_imported) {
            ctx.push(Change::delete(
                line_removal_range(use_item.syntax()),
                RULE,
                "this import names items Burn 0.22 removed",
            ));
        }
    }
}

/// Plans edits for one use tree; returns true when the whole tree should go (the caller
/// removes it together with its comma, or the whole `use`).
fn visit(
    ctx: &mut FileCtx,
    tree: &ast::UseTree,
    prefix: &mut Vec<String>,
    module_imported: bool,
) -> bool {
    let depth = prefix.len();
    if let Some(path) = tree.path() {
        prefix.extend(segment_names(&path));
    }
    let remove = if let Some(list) = tree.use_tree_list() {
        let children: Vec<ast::UseTree> = list.use_trees().collect();
        let removed: Vec<bool> = children
            .iter()
            .map(|c| visit(ctx, c, prefix, module_imported))
            .collect();
        if removed.iter().all(|r| *r) && !children.is_empty() {
            true
        } else {
            let kept: Vec<&ast::UseTree> = children
                .iter()
                .zip(&removed)
                .filter(|(_, r)| !**r)
                .map(|(c, _)| c)
                .collect();
            let message = "this import names items Burn 0.22 removed";
            match kept.as_slice() {
                // `{backend::Backend, Tensor}` -> `Tensor`, the way it would have been written.
                [only] if removed.iter().any(|r| *r) && only.syntax().text() != "self" => {
                    let text = ctx.file.slice(only.syntax().text_range()).to_string();
                    ctx.push(Change::edit(
                        list.syntax().text_range(),
                        text,
                        RULE,
                        message,
                    ));
                }
                _ => {
                    let nodes: Vec<SyntaxNode> =
                        children.iter().map(|c| c.syntax().clone()).collect();
                    if let Some(ranges) = remove_list_elements(&nodes, &removed) {
                        for range in ranges {
                            ctx.push(Change::delete(range, RULE, message));
                        }
                    }
                }
            }
            false
        }
    } else if tree.star_token().is_some() {
        is_backend_module_path(prefix) || is_tensor_backend_module(prefix)
    } else {
        leaf_decision(ctx, tree, prefix, module_imported)
    };
    prefix.truncate(depth);
    remove
}

fn leaf_decision(
    ctx: &mut FileCtx,
    tree: &ast::UseTree,
    full: &[String],
    module_imported: bool,
) -> bool {
    let Some((last, module)) = full.split_last() else {
        return false;
    };
    if is_backend_module_path(module)
        || is_backend_module_path(full)
        || is_tensor_backend_module(module)
    {
        return true;
    }
    let from_burn = full.first().is_some_and(|f| f == "burn");
    if from_burn && (last == "Backend" || last == "AutodiffBackend") {
        return true;
    }
    if from_burn && last == "AutodiffModule" {
        if module_imported {
            return true;
        }
        let Some(name) = tree
            .path()
            .and_then(|p| p.segment())
            .and_then(|s| s.name_ref())
        else {
            return false;
        };
        ctx.push(Change::edit(
            name.syntax().text_range(),
            "Module",
            RULE_AUTODIFF_MODULE,
            "`AutodiffModule` is gone in Burn 0.22: `valid()` and `train()` are `Module` methods",
        ));
    }
    false
}

/// `burn::tensor::backend` (0.21's home of the backend traits; gone in 0.22).
fn is_tensor_backend_module(path: &[String]) -> bool {
    path.len() >= 3 && path[0] == "burn" && path[1] == "tensor" && path[2] == "backend"
}

/// Whether a file imports `name` by a leaf import, or by a glob of one of `globs`.
pub fn imports_name(root: &SyntaxNode, name: &str, globs: &[&[&str]]) -> bool {
    root.descendants()
        .filter_map(ast::UseTree::cast)
        .any(|tree| {
            let full = full_use_path(&tree);
            if tree.star_token().is_some() {
                return globs
                    .iter()
                    .any(|g| full.iter().map(String::as_str).eq(g.iter().copied()));
            }
            if tree.use_tree_list().is_some() {
                return false;
            }
            let local = tree
                .rename()
                .and_then(|r| r.name())
                .map(|n| n.text().to_string())
                .or_else(|| full.last().cloned());
            local.as_deref() == Some(name)
        })
}

/// The full path a use tree stands for, prefixes of enclosing trees included.
fn full_use_path(tree: &ast::UseTree) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = Some(tree.clone());
    while let Some(t) = current {
        if let Some(path) = t.path() {
            let mut names = segment_names(&path);
            names.append(&mut parts);
            parts = names;
        }
        current = t
            .syntax()
            .parent()
            .and_then(ast::UseTreeList::cast)
            .and_then(|l| l.syntax().parent())
            .and_then(ast::UseTree::cast);
    }
    parts
}

use ra_ap_syntax::ast::HasName;
