//! Reading `use` items: the helpers the transforms that remove, rewrite and add imports
//! (`imports`, `device-import` and the data rules) share.

use ra_ap_syntax::ast::{self, HasModuleItem, HasName};
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use crate::migrate::crate_names::CrateNames;
use crate::util::syntax::segment_names;

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
