//! Cargo manifests: the `burn` dependency (and `burn-*` crates) move to 0.22 and Burn features
//! follow the rule set's feature map (`ndarray` -> `flex`, removed features dropped), with
//! `toml_edit` so formatting and comments stay as they were.

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::rules::{FeatureAdd, FeatureMap};

pub const RULE_VERSION: &str = "cargo-burn-version";
pub const RULE_FEATURES: &str = "cargo-burn-features";

/// The version written for `burn` itself and for Burn's sub-crates.
pub const BURN_VERSION: &str = "0.22.0";
pub const BURN_SUBCRATE_VERSION: &str = "0.22";

/// One change to a manifest, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestChange {
    pub rule: &'static str,
    /// False for findings a person has to act on.
    pub fixable: bool,
    /// The dependency key the change is about, to locate it in the text.
    pub key: String,
    pub message: String,
}

pub struct ManifestResult {
    pub text: String,
    pub changes: Vec<ManifestChange>,
}

/// What a manifest rewrite needs to know besides the manifest.
pub struct FeatureRules<'a> {
    pub maps: &'a [FeatureMap],
    pub adds: &'a [FeatureAdd],
    /// Whether the workspace's code names a path (for `FeatureAdd::when_path`).
    pub code_uses: &'a dyn Fn(&str) -> bool,
}

/// Migrates one manifest's text. Errors are TOML parse errors, as text for the report.
pub fn migrate(text: &str, features: &FeatureRules) -> Result<ManifestResult, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    let mut changes = Vec::new();
    let root = doc.as_table_mut();
    for table_name in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(table) = root.get_mut(table_name).and_then(Item::as_table_like_mut) {
            migrate_dependency_table(table, features, &mut changes);
        }
    }
    if let Some(targets) = root.get_mut("target").and_then(Item::as_table_like_mut) {
        for (_, target) in targets.iter_mut() {
            let Some(target) = target.as_table_like_mut() else {
                continue;
            };
            for table_name in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(table) = target.get_mut(table_name).and_then(Item::as_table_like_mut) {
                    migrate_dependency_table(table, features, &mut changes);
                }
            }
        }
    }
    if let Some(table) = root
        .get_mut("workspace")
        .and_then(Item::as_table_like_mut)
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(Item::as_table_like_mut)
    {
        migrate_dependency_table(table, features, &mut changes);
    }
    if let Some(table) = root.get_mut("features").and_then(Item::as_table_mut) {
        migrate_feature_table(table, features, &mut changes);
    }
    Ok(ManifestResult {
        text: doc.to_string(),
        changes,
    })
}

fn migrate_dependency_table(
    table: &mut dyn toml_edit::TableLike,
    features: &FeatureRules,
    changes: &mut Vec<ManifestChange>,
) {
    for (key, item) in table.iter_mut() {
        let key = key.get().to_string();
        let package = item
            .as_table_like()
            .and_then(|t| t.get("package"))
            .and_then(Item::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| key.clone());
        let is_burn = package == "burn";
        if !(is_burn || package.starts_with("burn-")) {
            continue;
        }
        let target = if is_burn {
            BURN_VERSION
        } else {
            BURN_SUBCRATE_VERSION
        };
        match item {
            Item::Value(Value::String(s)) => {
                if needs_bump(s.value()) {
                    let decor = s.decor().clone();
                    let mut new = toml_edit::Formatted::new(target.to_string());
                    *new.decor_mut() = decor;
                    *s = new;
                    changes.push(version_change(&key, target));
                }
            }
            other => {
                let Some(dep) = other.as_table_like_mut() else {
                    continue;
                };
                if let Some(version) = dep.get_mut("version") {
                    if let Some(Value::String(s)) = version.as_value_mut() {
                        if needs_bump(s.value()) {
                            let decor = s.decor().clone();
                            let mut new = toml_edit::Formatted::new(target.to_string());
                            *new.decor_mut() = decor;
                            *s = new;
                            changes.push(version_change(&key, target));
                        }
                    }
                }
                if is_burn {
                    if let Some(array) = dep.get_mut("features").and_then(|f| f.as_array_mut()) {
                        map_feature_array(array, "", features.maps, &key, changes);
                    }
                    add_features(dep, features, &key, changes);
                }
            }
        }
    }
}

/// Adds the features 0.22 needs for what the code uses (`linalg`, `optim` without defaults).
fn add_features(
    dep: &mut dyn toml_edit::TableLike,
    features: &FeatureRules,
    key: &str,
    changes: &mut Vec<ManifestChange>,
) {
    let without_defaults = dep.get("default-features").and_then(Item::as_bool) == Some(false);
    for add in features.adds {
        if add.only_without_default_features && !without_defaults {
            continue;
        }
        if !(features.code_uses)(&add.when_path) {
            continue;
        }
        let Some(array) = dep.get_mut("features").and_then(|f| f.as_array_mut()) else {
            continue;
        };
        if array
            .iter()
            .any(|v| v.as_str() == Some(add.feature.as_str()))
        {
            continue;
        }
        array.push(add.feature.as_str());
        changes.push(ManifestChange {
            rule: add.rule,
            fixable: true,
            key: key.to_string(),
            message: format!(
                "the code uses `{}`, which needs Burn feature `{}` in 0.22",
                add.when_path, add.feature
            ),
        });
    }
}

fn version_change(key: &str, target: &str) -> ManifestChange {
    ManifestChange {
        rule: RULE_VERSION,
        fixable: true,
        key: key.to_string(),
        message: format!("`{key}` moves to {target}"),
    }
}

/// Whether a version requirement is below 0.22.
fn needs_bump(req: &str) -> bool {
    !crate::discover::requirement_is_migrated(req)
}

/// `[features] gpu = ["burn/wgpu"]`: Burn features named from the package's own features.
fn migrate_feature_table(
    table: &mut Table,
    features: &FeatureRules,
    changes: &mut Vec<ManifestChange>,
) {
    for (_, item) in table.iter_mut() {
        if let Some(array) = item.as_array_mut() {
            map_feature_array(array, "burn/", features.maps, "features", changes);
            map_feature_array(array, "burn?/", features.maps, "features", changes);
        }
    }
}

/// Renames and removes Burn features in an array of feature names (with a `burn/` style
/// prefix for the `[features]` table), keeping each element's formatting.
fn map_feature_array(
    array: &mut Array,
    prefix: &str,
    features: &[FeatureMap],
    key: &str,
    changes: &mut Vec<ManifestChange>,
) {
    let mut i = 0;
    while i < array.len() {
        let Some(name) = array
            .get(i)
            .and_then(Value::as_str)
            .and_then(|s| s.strip_prefix(prefix))
            .map(str::to_string)
        else {
            i += 1;
            continue;
        };
        let Some(map) = features.iter().find(|m| m.from == name) else {
            i += 1;
            continue;
        };
        if let Some(message) = &map.manual {
            changes.push(ManifestChange {
                rule: map.rule,
                fixable: false,
                key: key.to_string(),
                message: message.clone(),
            });
            i += 1;
            continue;
        }
        let already = |feature: &str, array: &Array| {
            array
                .iter()
                .any(|v| v.as_str() == Some(format!("{prefix}{feature}").as_str()))
        };
        match &map.to {
            Some(to) if !already(to, array) => {
                let decor = array.get(i).map(|v| v.decor().clone()).unwrap_or_default();
                let mut value = Value::from(format!("{prefix}{to}"));
                *value.decor_mut() = decor;
                array.replace(i, value);
                changes.push(ManifestChange {
                    rule: map.rule,
                    fixable: true,
                    key: key.to_string(),
                    message: format!("Burn feature `{name}` becomes `{to}`"),
                });
                i += 1;
            }
            _ => {
                let removed = array.remove(i);
                // The first element carries no leading space; its successor inherits that.
                if i == 0 {
                    let prefix = removed.decor().prefix().cloned();
                    if let (Some(next), Some(prefix)) = (array.get_mut(0), prefix) {
                        next.decor_mut().set_prefix(prefix);
                    }
                }
                changes.push(ManifestChange {
                    rule: map.rule,
                    fixable: true,
                    key: key.to_string(),
                    message: match &map.to {
                        Some(to) => {
                            format!("Burn feature `{name}` is covered by `{to}`, already listed")
                        }
                        None => format!("Burn feature `{name}` no longer exists"),
                    },
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(from: &str, to: Option<&str>) -> FeatureMap {
        FeatureMap {
            from: from.into(),
            to: to.map(Into::into),
            manual: None,
            rule: RULE_FEATURES,
        }
    }

    fn run(text: &str) -> ManifestResult {
        let maps = vec![map("ndarray", Some("flex")), map("dispatch", None)];
        let adds = vec![FeatureAdd {
            feature: "optim".into(),
            when_path: "burn::optim".into(),
            only_without_default_features: true,
            rule: "cargo-optim-feature",
        }];
        let rules = FeatureRules {
            maps: &maps,
            adds: &adds,
            code_uses: &|path| path == "burn::optim",
        };
        migrate(text, &rules).unwrap()
    }

    #[test]
    fn bumps_version_and_maps_features_keeping_comments() {
        let text = "[package]\nname = \"x\"\n\n[dependencies]\n# the framework\nburn = { version = \"0.21.0\", features = [\"ndarray\", \"autodiff\"] } # pinned\nserde = \"1\"\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[package]\nname = \"x\"\n\n[dependencies]\n# the framework\nburn = { version = \"0.22.0\", features = [\"flex\", \"autodiff\"] } # pinned\nserde = \"1\"\n"
        );
        assert_eq!(out.changes.len(), 2);
    }

    #[test]
    fn workspace_dependencies_plain_versions_and_feature_tables() {
        let text = "[workspace.dependencies]\nburn = \"0.21\"\nburn-ndarray = \"0.21.0\"\n\n[features]\ncpu = [\"burn/ndarray\", \"burn/dispatch\"]\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[workspace.dependencies]\nburn = \"0.22.0\"\nburn-ndarray = \"0.22\"\n\n[features]\ncpu = [\"burn/flex\"]\n"
        );
    }

    #[test]
    fn migrated_manifest_is_left_alone() {
        let text = "[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n";
        let out = run(text);
        assert_eq!(out.text, text);
        assert!(out.changes.is_empty());
    }

    #[test]
    fn duplicate_after_rename_is_removed() {
        let out = run(
            "[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\", \"flex\"] }\n",
        );
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n"
        );
    }

    #[test]
    fn features_the_code_needs_are_added_without_defaults_only() {
        let out = run("[dependencies]\nburn = { version = \"0.21.0\", default-features = false, features = [\"std\"] }\n");
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\", default-features = false, features = [\"std\", \"optim\"] }\n"
        );
        let out = run("[dependencies]\nburn = { version = \"0.21.0\", features = [\"std\"] }\n");
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"std\"] }\n"
        );
    }
}
