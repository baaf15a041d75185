//! Rule `cargo-crate-backend-features`: a Burn crate the project depends on itself (not
//! through `burn`'s feature for it), such as `burn-vision`, gets the backend features the
//! manifest turns on for `burn`. burn-vision 0.21 implemented its ops for every CubeCL
//! runtime under its default features; 0.22.1 implements them per backend feature of its own
//! (`ops/base.rs`: `Flex: cfg(feature = "flex")`, `Cube: cfg(any(feature = "wgpu", ..))`) and
//! turns none on by default, so the port's `burn-vision = "0.22"` had no `Nms` at all. Which
//! features go where is read from `burn`'s own manifest: what its features pass on to the crate
//! when `burn` owns it (`wgpu = [.., "burn-vision?/wgpu"]`, `framework::burn_forwards_to`).

use toml_edit::{Array, DocumentMut, Item};

use crate::migrate::outcome::ManifestChange;
use crate::migrate::toml_entries::{
    dependency_tables, feature_list_mut, for_each_dependency_table_mut, is_optional, package_of,
    push_keeping_layout, workspace_dependencies,
};
use crate::rules::framework::{burn_forwards_to, default_features_0_22, is_burn_0_22_package};
use crate::rules::{Applicability, ModuleId, RuleHome, RuleId};

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::CrateBackends,
    emits: &[RuleId::CargoCrateBackendFeatures],
};

/// Adds, on each Burn crate `burn` passes features on to, the features that `burn`'s entries
/// and the `[features]` entries that name `burn/F` would have passed on.
pub(crate) fn add(
    doc: &mut DocumentMut,
    burn: &str,
    renamed: &[(String, String)],
    changes: &mut Vec<ManifestChange>,
) {
    let burn_features = burn_features(doc, burn, renamed);
    let root = doc.as_table_mut();
    // The package's own entries of such crates: (key, package, optional).
    let mut crates: Vec<(String, String, bool)> = Vec::new();
    for_each_dependency_table_mut(root, |table| {
        add_to_table(table, &burn_features, renamed, &mut crates, changes);
    });
    if let Some(table) = (root.get_mut("workspace"))
        .and_then(Item::as_table_like_mut)
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(Item::as_table_like_mut)
    {
        add_to_table(table, &burn_features, renamed, &mut Vec::new(), changes);
    }
    if let Some(table) = root.get_mut("features").and_then(Item::as_table_like_mut) {
        add_to_feature_table(table, burn, &crates, changes);
    }
}

/// The features the manifest's `burn` entries list (after the feature map), package tables
/// and `[workspace.dependencies]` alike.
fn burn_features(doc: &DocumentMut, burn: &str, renamed: &[(String, String)]) -> Vec<String> {
    let root = doc.as_table();
    let mut tables = dependency_tables(root);
    tables.extend(workspace_dependencies(root));
    let mut features: Vec<String> = (tables.iter())
        .flat_map(|t| t.iter())
        .filter(|(key, item)| *key == burn || package_of(key, item, renamed) == "burn")
        .filter_map(|(_, item)| item.get("features").and_then(Item::as_array))
        .flat_map(Array::iter)
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    features.sort();
    features.dedup();
    features
}

/// One dependency table: each Burn crate that `burn` passes features on to gets those of
/// `burn_features` it lacks (its 0.22 defaults count where they are on). Every such crate's
/// key, package and optionality go to `crates`, for the `[features]` table.
fn add_to_table(
    table: &mut dyn toml_edit::TableLike,
    burn_features: &[String],
    renamed: &[(String, String)],
    crates: &mut Vec<(String, String, bool)>,
    changes: &mut Vec<ManifestChange>,
) {
    for (key, item) in table.iter_mut() {
        let key = key.get().to_string();
        let package = package_of(&key, item, renamed);
        let from_path = item.as_table_like().is_some_and(|t| t.contains_key("path"));
        let forwards = burn_forwards_to(&package);
        if package == "burn" || from_path || forwards.is_empty() || !is_burn_0_22_package(&package)
        {
            continue;
        }
        crates.push((key.clone(), package.clone(), is_optional(item)));
        let mut have = listed_features(item);
        if item.get("default-features").and_then(Item::as_bool) != Some(false) {
            have.extend(default_features_0_22(&package));
        }
        let mut missing: Vec<&str> = (forwards.iter())
            .filter(|(from, to)| burn_features.contains(from) && !have.contains(to))
            .map(|(_, to)| to.as_str())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            continue;
        }
        let Some(array) = feature_list_mut(item) else {
            continue;
        };
        for feature in &missing {
            push_keeping_layout(array, *feature);
        }
        changes.push(ManifestChange {
            rule: RuleId::CargoCrateBackendFeatures.into(),
            fix: Some(Applicability::Safe),
            key: key.clone(),
            span: None,
            message: format!(
                "`{key}` 0.22 implements its ops per backend feature of its own: it gets {}, as `burn` has",
                quoted_list(&missing)
            ),
        });
    }
}

/// `[features]`: an entry that turns on `burn/F` also turns on what `burn` would pass on to
/// each such crate (`crate/G`, or `crate?/G` where the crate is optional, so the entry does
/// not turn the crate on).
fn add_to_feature_table(
    table: &mut dyn toml_edit::TableLike,
    burn: &str,
    crates: &[(String, String, bool)],
    changes: &mut Vec<ManifestChange>,
) {
    for (name, item) in table.iter_mut() {
        let Some(array) = item.as_array_mut() else {
            continue;
        };
        let enabled: Vec<String> = (array.iter())
            .filter_map(|v| v.as_str())
            .filter_map(|s| {
                (s.strip_prefix(&format!("{burn}/")))
                    .or_else(|| s.strip_prefix(&format!("{burn}?/")))
                    .map(str::to_string)
            })
            .collect();
        let mut added = Vec::new();
        for (key, package, optional) in crates {
            let prefix = if *optional {
                format!("{key}?/")
            } else {
                format!("{key}/")
            };
            for (from, to) in burn_forwards_to(package) {
                let entry = format!("{prefix}{to}");
                let present = (array.iter()).any(|v| v.as_str() == Some(entry.as_str()));
                if enabled.contains(&from) && !present && !added.contains(&entry) {
                    push_keeping_layout(array, entry.as_str());
                    added.push(entry);
                }
            }
        }
        if !added.is_empty() {
            changes.push(ManifestChange {
                rule: RuleId::CargoCrateBackendFeatures.into(),
                fix: Some(Applicability::Safe),
                key: "features".to_string(),
                span: None,
                message: format!(
                    "feature `{}` turns on {} as well, which `burn` turns on only in the `burn-*` crates it owns",
                    name.get(),
                    quoted_list(&added)
                ),
            });
        }
    }
}

fn listed_features(item: &Item) -> Vec<String> {
    (item.get("features").and_then(Item::as_array).into_iter())
        .flat_map(Array::iter)
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    (items.iter())
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
