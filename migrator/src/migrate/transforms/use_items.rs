//! Reading `use` items: the helpers the transforms that remove, rewrite and add imports
//! (`imports`, `device-import` and the data rules) share.

use ra_ap_syntax::ast::{self, HasAttrs, HasModuleItem, HasName, HasVisibility};
use ra_ap_syntax::{AstNode, SyntaxNode, TextSize};

use super::context::FileCtx;
use crate::migrate::crate_names::CrateNames;
use crate::util::syntax::{is_macro_body, segment_names, token_tree_paths};

/// Whether `full` (a path as segment names) matches `pattern` (`a::b::C` or `a::b::*`).
/// Called for every path against every rule's pattern, so it compares in place.
pub fn path_matches(full: &[String], pattern: &str) -> bool {
    if pattern == "*" {
        return !full.is_empty();
    }
    let (module, glob) = match pattern.strip_suffix("::*") {
        Some(module) => (module, true),
        None => (pattern, false),
    };
    let mut matched = 0;
    for part in crate::util::syntax::path_parts(module) {
        if full.get(matched).map(String::as_str) != Some(part) {
            return false;
        }
        matched += 1;
    }
    if glob {
        full.len() > matched
    } else {
        full.len() == matched
    }
}

/// The `burn` facade's modules and the Burn crates they re-export: a project that depends on
/// `burn-store` or `burn-tensor` directly names the same items through the crate
/// (`burn_store::TensorSnapshot` is `burn::store::TensorSnapshot`).
const FACADE_CRATES: &[(&str, &str)] = &[
    ("burn::store", "burn_store"),
    ("burn::tensor", "burn_tensor"),
    ("burn::nn", "burn_nn"),
    ("burn::optim", "burn_optim"),
    ("burn::lr_scheduler", "burn_optim::lr_scheduler"),
    ("burn::train", "burn_train"),
    ("burn::data::dataset", "burn_dataset"),
    ("burn::module", "burn_core::module"),
    ("burn::record", "burn_core::record"),
];

/// Whether `full` matches `pattern` (a facade path) written out or through the Burn crate the
/// facade re-exports it from; without allocating for the common paths (`burn::..`, not Burn).
pub fn path_matches_via_crates(full: &[String], pattern: &str) -> bool {
    if path_matches(full, pattern) {
        return true;
    }
    let through_a_crate = full.first().is_some_and(|f| f.starts_with("burn_"));
    through_a_crate
        && with_crate_paths(pattern)
            .iter()
            .skip(1)
            .any(|p| path_matches(full, p))
}

/// `pattern` (`burn::store::TensorSnapshot`) and the same item named through the Burn crate
/// the facade re-exports it from (`burn_store::TensorSnapshot`).
pub fn with_crate_paths(pattern: &str) -> Vec<String> {
    let mut out = vec![pattern.to_string()];
    for (facade, krate) in FACADE_CRATES {
        if let Some(rest) = pattern.strip_prefix(facade) {
            if rest.starts_with("::") {
                out.push(format!("{krate}{rest}"));
            }
        }
    }
    out
}

/// Whether one of `trees` (a file's or an item's use trees) imports `name` by a leaf import,
/// or by a glob of one of `globs` (Burn's paths, which the file's imports are read as through
/// `crates`).
pub fn imports_name(
    mut trees: impl Iterator<Item = ast::UseTree>,
    name: &str,
    globs: &[&[&str]],
    crates: &CrateNames,
) -> bool {
    trees.any(|tree| {
        let full = crates.canonical(full_use_path(&tree));
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
pub fn full_use_path(tree: &ast::UseTree) -> Vec<String> {
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

/// Where new imports go: before the first `use` (or the first item), a position no other rule
/// deletes across. A `use` that gives a crate another name (`use ::nn as burn;`) is no import
/// of items: the new ones go with those, where a file without the alias has them.
pub fn import_anchor(ctx: &FileCtx) -> ra_ap_syntax::TextSize {
    let file = ctx.file.tree();
    let items: Vec<ast::Item> = file.items().collect();
    let anchor = items
        .iter()
        .find(|i| matches!(i, ast::Item::Use(u) if !is_crate_alias(u)))
        .or_else(|| items.iter().find(|i| matches!(i, ast::Item::Use(_))))
        .or_else(|| items.first());
    match anchor {
        Some(item) => crate::util::syntax::line_removal_range(item.syntax()).start(),
        None => file.syntax().text_range().end(),
    }
}

/// `use nn as burn;` / `use ::nn as burn;`: a crate under another name.
fn is_crate_alias(item: &ast::Use) -> bool {
    let Some(tree) = item.use_tree() else {
        return false;
    };
    let single = tree
        .path()
        .is_some_and(|p| p.qualifier().is_none() && p.segment().is_some());
    single && tree.rename().is_some() && tree.use_tree_list().is_none()
}

pub fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// The innermost inline module's item list around `offset`, or the file.
pub fn scope_at(root: &SyntaxNode, offset: TextSize) -> SyntaxNode {
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

/// Whether the `use` items of a scope bring an item in.
pub enum Imported {
    /// Unconditionally.
    Always,
    /// Only under these `cfg` predicates (`#[cfg(feature = "pretrained")] use ..;`): code
    /// outside them needs an import of its own, under the negation, so that no configuration
    /// imports the name twice.
    Under(Vec<String>),
    Never,
}

/// Whether the `use` items of the scope itself (not of modules inside it) bring `path`'s
/// item in, directly, through a glob that provides it, or through `use super::*` from the
/// enclosing scope.
pub fn scope_imports(scope: &SyntaxNode, path: &str, crates: &CrateNames) -> Imported {
    let name = last_segment(path);
    let globs = globs_providing(path);
    let globs: Vec<&[&str]> = globs.iter().map(Vec::as_slice).collect();
    let mut conditions = Vec::new();
    for item in scope.children().filter_map(ast::Use::cast) {
        let Some(tree) = item.use_tree() else {
            continue;
        };
        let trees = tree.syntax().descendants().filter_map(ast::UseTree::cast);
        let mut imports = imports_name(trees, name, &globs, crates);
        let is_super_glob = tree
            .syntax()
            .descendants()
            .filter_map(ast::UseTree::cast)
            .any(|t| t.star_token().is_some() && full_use_path(&t) == ["super"]);
        if !imports && is_super_glob {
            let parent = scope
                .ancestors()
                .skip(1)
                .find(|n| ast::ItemList::can_cast(n.kind()) || ast::SourceFile::can_cast(n.kind()));
            imports =
                parent.is_some_and(|p| matches!(scope_imports(&p, path, crates), Imported::Always));
        }
        if !imports {
            continue;
        }
        match cfg_predicates(&item) {
            predicates if predicates.is_empty() => return Imported::Always,
            predicates => conditions.push(all_of(&predicates)),
        }
    }
    if conditions.is_empty() {
        Imported::Never
    } else {
        Imported::Under(conditions)
    }
}

/// The predicates of an item's `#[cfg(..)]` attributes (`feature = "pretrained"`).
fn cfg_predicates(item: &ast::Use) -> Vec<String> {
    item.attrs()
        .filter_map(|attr| match attr.meta()? {
            ast::Meta::CfgMeta(cfg) => Some(cfg.cfg_predicate()?.syntax().text().to_string()),
            _ => None,
        })
        .collect()
}

fn all_of(predicates: &[String]) -> String {
    match predicates {
        [one] => one.clone(),
        many => format!("all({})", many.join(", ")),
    }
}

/// The glob imports that bring Burn's item `path` into scope: its own module's, and the
/// prelude's for the items the prelude re-exports in 0.21 and 0.22 alike (`Device`, not
/// `Gradients`; `Module`).
fn globs_providing(path: &str) -> Vec<Vec<&str>> {
    const PRELUDE: &[&str] = &["Device", "DeviceKind", "Tensor", "TensorData", "Shape"];
    let segments: Vec<&str> = path.split("::").collect();
    let (name, module) = segments.split_last().unwrap_or((&"", &[]));
    let mut globs = vec![module.to_vec()];
    let in_prelude = match module {
        ["burn", "tensor"] => PRELUDE.contains(name),
        ["burn", "module"] => *name == "Module",
        _ => false,
    };
    if in_prelude {
        globs.push(vec!["burn", "prelude"]);
    }
    globs
}

/// Whether the import of a name Burn 0.22 no longer has (`full`) can go, leaving its uses
/// (each reported where it is, by a marker once the port loses the import) to a person. Not a
/// re-export (`pub use`), which other modules and crates may name; not a module's own name
/// (`use burn::collective::{self}`), whose members' uses are read through it; not a name a
/// macro body writes, which the parser leaves as tokens.
pub fn goes_with_its_uses(ctx: &FileCtx, tree: &ast::UseTree, full: &[String]) -> bool {
    let reexport = (tree.syntax().ancestors())
        .find_map(ast::Use::cast)
        .is_some_and(|item| item.visibility().is_some());
    let module_self = tree
        .path()
        .and_then(|p| p.segment())
        .is_some_and(|s| s.self_token().is_some());
    !reexport && !module_self && !import_named_in_a_macro_body(ctx, tree, full)
}

/// Whether the file still uses what `tree` imports (`full`) where the edits made so far leave
/// it: outside `use` items and outside every applied edit. Such a use is a person's to port,
/// and the import is where that port starts: it names the item's crate and module, and rustc
/// reports its failure once, there, rather than at every use.
pub fn used_where_the_port_leaves_it(ctx: &FileCtx, tree: &ast::UseTree, full: &[String]) -> bool {
    let Some(local) = local_name(tree, full) else {
        return false;
    };
    let applied: Vec<ra_ap_syntax::TextRange> = (ctx.changes.iter())
        .filter(|c| c.is_applied())
        .map(|c| c.range)
        .collect();
    (ctx.name_refs(&local).into_iter())
        .filter(|n| !n.syntax().ancestors().any(|a| ast::Use::can_cast(a.kind())))
        .any(|n| {
            let at = n.syntax().text_range();
            !applied.iter().any(|r| r.contains_range(at))
        })
}

/// The name an import leaf brings into scope: its rename, or the path's last segment.
fn local_name(tree: &ast::UseTree, full: &[String]) -> Option<String> {
    match tree.rename().and_then(|r| r.name()) {
        Some(name) => Some(name.text().to_string()),
        None => full.last().cloned(),
    }
}

/// Whether a macro body of the file (`util::syntax::is_macro_body`) names what `tree` imports
/// (`full`), by its local name.
pub fn import_named_in_a_macro_body(ctx: &FileCtx, tree: &ast::UseTree, full: &[String]) -> bool {
    let Some(local) = local_name(tree, full) else {
        return false;
    };
    (ctx.nodes::<ast::TokenTree>())
        .filter(is_macro_body)
        .any(|body| {
            token_tree_paths(&body)
                .iter()
                .any(|(names, _)| names[0] == local)
        })
}

#[cfg(test)]
mod tests {
    use super::path_matches;

    #[test]
    fn paths_match_exact_patterns_and_globs_of_their_module() {
        let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
        let tensor = path("burn::tensor::Tensor");
        assert!(path_matches(&tensor, "burn::tensor::Tensor"));
        assert!(path_matches(&tensor, "burn::tensor::*"));
        assert!(path_matches(&tensor, "burn::*"));
        assert!(path_matches(&tensor, "*"));
        assert!(!path_matches(&tensor, "burn::tensor"));
        assert!(!path_matches(&tensor, "burn::tensor::Tensor::*"));
        assert!(!path_matches(&tensor, "burn::tensor::Tensor::new"));
        assert!(!path_matches(&tensor, "burn::tensor::Tens*"));
        assert!(!path_matches(&tensor, "burn::nn::*"));
        assert!(!path_matches(&path("burn"), "burn::*"));
        assert!(!path_matches(&[], "*"));
    }
}
