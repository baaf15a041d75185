//! The manifests stage: the manifest of each Burn-using package, and the workspace root's,
//! ported (`manifest`) with the features its code needs, asked of the ported code of its
//! package (a workspace root's, of the whole workspace's).

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::migrate::crate_names::DeclaredAliases;
use crate::migrate::discover::Workspace;
use crate::migrate::manifest;
use crate::migrate::outcome::{FileOutcome, ManifestOutcome};
use crate::migrate::source;
use crate::rules::RuleSet;
use crate::util::layout;

/// Whether code names `path` (`burn::train::RLTraining`): written out, or its last segment as
/// a word in a file that names the module (`use burn::train::{RLTraining, ..}`). Comment lines
/// do not count: prose, and the port's own to-do markers, which quote Burn's paths.
fn names_path(text: &str, path: &str) -> bool {
    use crate::util::syntax::{find_all, word_offsets};
    let in_code = |at: &usize| !on_a_comment_line(text, *at);
    // `nd::`: a path through the crate the package calls `nd`, which a longer name ending
    // in it (`and::`) is not.
    if let Some(krate) = path.strip_suffix("::").filter(|k| !k.contains("::")) {
        return word_offsets(text, krate)
            .filter(in_code)
            .any(|at| text[at + krate.len()..].starts_with("::"));
    }
    if find_all(text, path).any(|at| in_code(&at)) {
        return true;
    }
    let Some((module, name)) = path.rsplit_once("::") else {
        return false;
    };
    if name.starts_with(|c: char| c.is_ascii_lowercase()) {
        // A module: `burn::optim::AdamConfig` is matched above; in a grouped import it is a
        // name inside the group (`use burn::{optim::AdamConfig, ..}`,
        // `use burn::tensor::{linalg, Tensor}`). The same word elsewhere (`the backend`, a
        // project module `backend::samples`) is not it.
        let open = format!("{module}::{{");
        return find_all(text, &open).filter(in_code).any(|at| {
            let group = &text[at + open.len()..];
            let mut depth = 1usize;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            word_offsets(&group[..end], name).next().is_some()
        });
    }
    find_all(text, &format!("{module}::")).any(|at| in_code(&at))
        && word_offsets(text, name).any(|at| in_code(&at))
}

/// Whether the line around byte `at` is a comment (`//`, `///`, `//!` after indentation).
fn on_a_comment_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    text[start..at].trim_start().starts_with("//")
}

/// The manifests of the Burn-using packages and of the workspace root, each ported with what
/// its code names (`manifest::migrate`).
pub fn rewrite_manifests(
    workspace: &Workspace,
    rules: &RuleSet,
    sources: &[FileOutcome],
) -> Vec<ManifestOutcome> {
    let maps: Vec<_> = rules.feature_maps().cloned().collect();
    let adds: Vec<_> = rules.feature_adds().cloned().collect();
    let backend_crates = rules.backend_table().crate_features();
    // What a package's ported code names decides which features its manifest needs (one
    // member's `linalg` is no other member's business); a workspace root's, what the whole
    // workspace's code names. Each question is answered once per manifest.
    // A package's files, found once: a package asks dozens of questions, each of which would
    // otherwise walk every file of the workspace.
    let mut files_of_package: Vec<Vec<usize>> = vec![Vec::new(); workspace.packages.len()];
    for (i, file) in workspace.files.iter().enumerate() {
        if let Some(files) = files_of_package.get_mut(file.package) {
            files.push(i);
        }
    }
    let mut paths: Vec<PathBuf> = workspace
        .packages
        .iter()
        .filter(|p| p.uses_burn)
        .map(|p| p.manifest.clone())
        .collect();
    if !paths.contains(&workspace.root_manifest) && workspace.root_manifest.is_file() {
        paths.push(workspace.root_manifest.clone());
    }
    // Manifests are migrated in parallel: each asks its own questions of its own files.
    paths
        .into_par_iter()
        .map(|path| {
            let display = path
                .strip_prefix(&workspace.root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let original = std::fs::read_to_string(&path).unwrap_or_default();
            // A package's manifest answers for its own code; one with `[workspace]` also
            // declares what every member inherits (a backend crate a member still names
            // stays there), so it answers for all of it.
            let declares_workspace = original
                .parse::<toml_edit::DocumentMut>()
                .is_ok_and(|doc| doc.contains_key("workspace"));
            let package = workspace
                .packages
                .iter()
                .position(|p| p.manifest == path)
                .filter(|_| !declares_workspace);
            let answers: RefCell<HashMap<String, bool>> = RefCell::new(HashMap::new());
            // A path of Burn's (`burn::optim`, or a crate: `burn_ndarray`) as each file
            // writes it too (`nn::optim`, `nd::` where its package calls the crates so).
            let names_in = |file: usize, needle: &str| {
                let text = &sources[file].migrated;
                if names_path(text, needle) {
                    return true;
                }
                let krate = needle.split("::").next().unwrap_or(needle);
                let rest = &needle[krate.len()..];
                let names = &workspace.files[file].dependency_names;
                let spelled = |key: &str| {
                    let local = if rest.is_empty() {
                        format!("{key}::")
                    } else {
                        format!("{key}{rest}")
                    };
                    names_path(text, &local)
                };
                if (names.keys_of(krate).filter(|key| key != &krate)).any(spelled) {
                    return true;
                }
                // Through an alias the file declares (`use ::nn as bn;`, `extern crate nn as
                // b;`) of one of the crate's names.
                if !DeclaredAliases::may_declare(text) {
                    return false;
                }
                let (parsed, _) = source::parse(text, workspace.files[file].edition);
                let declared = DeclaredAliases::of(&parsed, text);
                let crate_keys: Vec<&str> = names.keys_of(krate).chain([krate]).collect();
                (declared.extern_crates.iter().chain(&declared.uses))
                    .filter(|(_, target)| crate_keys.contains(&target.as_str()))
                    .any(|(alias, _)| spelled(alias))
            };
            let code_uses = |needle: &str| {
                *(answers.borrow_mut())
                    .entry(needle.to_string())
                    .or_insert_with(|| match package {
                        Some(p) => (files_of_package.get(p).into_iter().flatten())
                            .any(|&f| names_in(f, needle)),
                        None => (0..sources.len())
                            .into_par_iter()
                            .any(|f| names_in(f, needle)),
                    })
            };
            let renamed = workspace.renamed_dependencies(&path);
            let features = manifest::FeatureRules {
                maps: &maps,
                adds: &adds,
                backend_crates: &backend_crates,
                code_uses: &code_uses,
                renamed: &renamed,
            };
            match manifest::migrate(&original, &features) {
                Ok(result) => ManifestOutcome {
                    path,
                    display,
                    migrated: layout::keep_layout(&original, result.text),
                    original,
                    changes: result.changes,
                    error: None,
                },
                Err(syntax) => ManifestOutcome {
                    path,
                    display,
                    migrated: original.clone(),
                    original,
                    changes: Vec::new(),
                    error: Some(syntax.to_string()),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_named_written_out_or_by_its_module_and_name() {
        let path = "burn::train::RLTraining";
        assert!(names_path("let t = burn::train::RLTraining::new();", path));
        assert!(names_path("use burn::train::{Learner, RLTraining};", path));
        assert!(!names_path(
            "use burn::train::{Learner, RLTrainingExt};",
            path
        ));
        assert!(!names_path("use other::RLTraining;", path));

        // A module: named by a path into it, not by the word in prose beside `burn::`.
        let module = "burn::backend";
        assert!(names_path(
            "use burn::{backend::Dispatch, prelude::*};",
            module
        ));
        assert!(names_path("use burn::backend::Dispatch;", module));
        assert!(!names_path(
            "use burn::prelude::*;\n// no backend to refer to\n",
            module
        ));
        assert!(!names_path(
            "use burn::prelude::*;\nmod backend;\nfn f() { backend::samples(); }\n",
            module
        ));
        assert!(names_path(
            "use burn::{\n    prelude::*,\n    backend::{autodiff::NodeId},\n};\n",
            module
        ));
        assert!(names_path(
            "use burn::tensor::{Tensor, linalg};\nfn f() { linalg::vector_norm(); }\n",
            "burn::tensor::linalg"
        ));
        // The port's to-do markers quote Burn's paths; they are no code.
        assert!(!names_path(
            "use burn::prelude::*;\n    // burn-migrate: todo(remote-backend) `burn::backend::remote::RemoteDevice` was removed\n",
            module
        ));
        assert!(!names_path("// see burn::train::RLTraining\n", path));
    }
}
