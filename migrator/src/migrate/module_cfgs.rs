//! The `cfg` predicates code is compiled under: its own `#[cfg(..)]` attributes, those of the
//! items around it, and those of the `mod` declarations that bring its file into the crate
//! (`#[cfg(feature = "gpu")] mod gpu;` puts `gpu.rs`, and every module it declares, under
//! `feature = "gpu"`). `#[backend_extension(..)]` names a backend under the `cfg` its impls
//! are compiled under, which the macro reads with the crate's own features.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ra_ap_syntax::ast::{self, HasAttrs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use crate::migrate::source::SourceFile;

/// The predicates of the `#[cfg(..)]` attributes on `node` and the items around it in its
/// file, outermost first.
pub fn cfg_predicates(node: &SyntaxNode) -> Vec<String> {
    let mut predicates: Vec<String> = Vec::new();
    for item in node.ancestors().filter_map(ast::Item::cast) {
        let own: Vec<String> = (item.attrs())
            .filter_map(|attr| match attr.meta()? {
                ast::Meta::CfgMeta(cfg) => Some(cfg.cfg_predicate()?.syntax().text().to_string()),
                _ => None,
            })
            .collect();
        predicates.splice(0..0, own);
    }
    predicates
}

/// One predicate for all of `predicates` (`all(..)` of several), `None` for none.
pub fn all_of(mut predicates: Vec<String>) -> Option<String> {
    predicates.dedup();
    match predicates.len() {
        0 => None,
        1 => predicates.pop(),
        _ => Some(format!("all({})", predicates.join(", "))),
    }
}

/// For each of `files`, the predicates of the `mod` declarations (and the items around them)
/// that bring it into its crate, through every file on the way from the crate root.
pub fn file_predicates<F: Borrow<SourceFile>>(files: &[F]) -> Vec<Vec<String>> {
    let by_path: HashMap<&Path, usize> = (files.iter().enumerate())
        .map(|(i, f)| (f.borrow().path.as_path(), i))
        .collect();
    // Each file's declaring file and the predicates of its declaration.
    let mut declared_by: Vec<Option<(usize, Vec<String>)>> = vec![None; files.len()];
    for (parent, file) in files.iter().enumerate() {
        let file = file.borrow();
        if !file.text.contains("mod ") {
            continue;
        }
        let root = file.tree().syntax().clone();
        for module in root.descendants().filter_map(ast::Module::cast) {
            if module.item_list().is_some() {
                continue;
            }
            let Some(child) = module_file(&file.path, &module, &by_path) else {
                continue;
            };
            declared_by[child].get_or_insert((parent, cfg_predicates(module.syntax())));
        }
    }
    (0..files.len())
        .map(|file| {
            // Up the chain of declarations, outermost predicates first; a cycle stops it.
            let mut predicates: Vec<String> = Vec::new();
            let mut seen = vec![false; files.len()];
            let mut at = file;
            while let Some((parent, own)) = declared_by[at].as_ref().filter(|_| !seen[at]) {
                seen[at] = true;
                predicates.splice(0..0, own.iter().cloned());
                at = *parent;
            }
            predicates
        })
        .collect()
}

/// The file of the out-of-line module `module` declared in the file at `declaring`, among the
/// workspace's files: its `#[path]`, else `name.rs` or `name/mod.rs` in the declaring file's
/// module directory (its own directory for a crate root or `mod.rs`, a directory of its name
/// otherwise), under the inline modules around the declaration.
fn module_file(
    declaring: &Path,
    module: &ast::Module,
    by_path: &HashMap<&Path, usize>,
) -> Option<usize> {
    let dir = declaring.parent()?;
    let explicit = module.attrs().find_map(|attr| match attr.meta()? {
        ast::Meta::KeyValueMeta(kv) if kv.path()?.syntax().text() == "path" => {
            let value = kv.expr()?.syntax().text().to_string();
            Some(value.trim_matches('"').to_string())
        }
        _ => None,
    });
    if let Some(path) = explicit {
        return by_path.get(dir.join(path).as_path()).copied();
    }
    let name = module.name()?.text().to_string();
    let inline: Vec<String> = (module.syntax().ancestors().skip(1))
        .filter_map(ast::Module::cast)
        .filter_map(|m| Some(m.name()?.text().to_string()))
        .collect();
    let stem = declaring.file_stem()?.to_string_lossy().to_string();
    // A crate root or `mod.rs` declares into its own directory; `foo.rs` into `foo/`. Which
    // one a file is (a `src/bin/x.rs` is a root) is left to which candidate exists.
    let bases: Vec<PathBuf> = if stem == "mod" {
        vec![dir.to_path_buf()]
    } else {
        vec![dir.to_path_buf(), dir.join(&stem)]
    };
    bases.into_iter().find_map(|base| {
        let base = inline.iter().rev().fold(base, |path, m| path.join(m));
        [
            base.join(format!("{name}.rs")),
            base.join(&name).join("mod.rs"),
        ]
        .iter()
        .find_map(|candidate| by_path.get(candidate.as_path()).copied())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile::from_text(
            PathBuf::from(path),
            path.to_string(),
            text.to_string(),
            0,
            ra_ap_syntax::Edition::Edition2021,
        )
    }

    #[test]
    fn a_file_is_under_the_cfg_of_every_mod_declaration_on_its_way_from_the_root() {
        let files = [
            file(
                "/p/src/lib.rs",
                "#[cfg(feature = \"gpu\")]\nmod gpu;\nmod cpu;\n",
            ),
            file("/p/src/gpu.rs", "#[cfg(unix)]\nmod kernels;\n"),
            file("/p/src/gpu/kernels/mod.rs", "mod fused;\n"),
            file("/p/src/gpu/kernels/fused.rs", ""),
            file(
                "/p/src/cpu.rs",
                "#[cfg(test)]\nmod tests {\n    #[cfg(feature = \"slow\")]\n    mod big;\n}\n",
            ),
            file("/p/src/cpu/tests/big.rs", ""),
        ];
        let predicates = file_predicates(&files);
        let gpu = vec!["feature = \"gpu\"".to_string()];
        let kernels = vec!["feature = \"gpu\"".to_string(), "unix".to_string()];
        assert_eq!(predicates[0], Vec::<String>::new());
        assert_eq!(predicates[1], gpu);
        assert_eq!(predicates[2], kernels);
        assert_eq!(predicates[3], kernels);
        assert_eq!(predicates[4], Vec::<String>::new());
        assert_eq!(predicates[5], ["test", "feature = \"slow\""]);
        assert_eq!(
            all_of(predicates[2].clone()).as_deref(),
            Some("all(feature = \"gpu\", unix)")
        );
    }
}
