//! Cargo manifests: the `burn` dependency (and `burn-*` crates) move to 0.22 and Burn features
//! follow the rule set's feature map (`ndarray` -> `flex`, removed features dropped), with
//! `toml_edit` so formatting and comments stay as they were.

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::migrate::toml_entries::{
    dependency_tables, feature_list_mut, for_each_dependency_table_mut, is_optional, package_of,
    push_keeping_layout, workspace_dependencies,
};

use crate::migrate::markers;
pub use crate::migrate::outcome::ManifestChange;
use crate::migrate::rust_version;
use crate::rules::framework::FeatureFate;
use crate::rules::{Applicability, FeatureAdd, FeatureMap, ModuleId, RuleHome, RuleId};

/// The rules of Cargo manifests: the version and crate moves, and the rules whose
/// `[[feature]]` and `[[feature_add]]` tables this module reads (`FeatureRules`).
pub const HOME: RuleHome = RuleHome {
    module: ModuleId::Manifest,
    emits: &[
        RuleId::CargoBackendCrates,
        RuleId::CargoBurnFeatures,
        RuleId::CargoBurnVersion,
        RuleId::CargoLinalgSignal,
        RuleId::CargoOptimFeature,
        RuleId::CargoRlSqliteFeatures,
        RuleId::CargoSqliteBundled,
        RuleId::CargoStoreFeatures,
        RuleId::CargoTchDeprecated,
    ],
};

/// The version written for `burn` itself and for Burn's sub-crates.
pub const BURN_VERSION: &str = "0.22.0";
pub const BURN_SUBCRATE_VERSION: &str = "0.22";

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
    /// Burn's backend crates a project may depend on directly, and the `burn` feature that
    /// provides the same backend (the feature map then applies, so `ndarray` becomes `flex`):
    /// `BackendTable::crate_features`.
    pub backend_crates: &'a [(String, String)],
    /// The manifest's dependencies under a key other than their package's name, as (key,
    /// package), as cargo metadata resolved them: `nn = { workspace = true }` is Burn where
    /// the workspace says `nn = { package = "burn", .. }`. Keys with a `package` field of
    /// their own need no entry.
    pub renamed: &'a [(String, String)],
}

/// Every dependency of a manifest, package tables and `[workspace.dependencies]` alike, as
/// (key, package).
fn dependency_packages(root: &Table, renamed: &[(String, String)]) -> Vec<(String, String)> {
    let mut tables = dependency_tables(root);
    if let Some(workspace) = workspace_dependencies(root) {
        tables.push(workspace);
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for table in tables {
        for (key, item) in table.iter() {
            let entry = (key.to_string(), package_of(key, item, renamed));
            if !out.contains(&entry) {
                out.push(entry);
            }
        }
    }
    out
}

/// The key a manifest names Burn itself with (`nn` for `nn = { package = "burn" }`):
/// `burn` where it is used, or where the manifest does not name Burn at all.
fn burn_key(dependencies: &[(String, String)]) -> String {
    let mut keys = dependencies.iter().filter(|(_, p)| p == "burn");
    match keys
        .clone()
        .find(|(key, _)| key == "burn")
        .or_else(|| keys.next())
    {
        Some((key, _)) => key.clone(),
        None => "burn".to_string(),
    }
}

/// Migrates one manifest's text. Errors (not TOML; a rewrite cargo would reject) are text
/// for the report.
/// Why a manifest is left as it is.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("not valid TOML: {0}")]
    NotToml(#[from] toml_edit::TomlError),
    #[error("the rewrite would leave a manifest cargo rejects ({0}); a bug in burn-migrate, please report it")]
    Rejected(String),
}

pub fn migrate(text: &str, features: &FeatureRules) -> Result<ManifestResult, ManifestError> {
    let mut doc: DocumentMut = text.parse().map_err(ManifestError::NotToml)?;
    let mut changes = Vec::new();
    let mut folded = Vec::new();
    let dependencies = dependency_packages(doc.as_table(), features.renamed);
    let names = Names {
        burn: burn_key(&dependencies),
        dependencies,
    };
    let root = doc.as_table_mut();
    for package in ["package", "workspace"] {
        rust_version::raise_in_manifest(root, package, &mut changes);
    }
    for_each_dependency_table_mut(root, |table| {
        migrate_dependency_table(
            table,
            features,
            &names,
            Scope::Package,
            &mut folded,
            &mut changes,
        );
    });
    if let Some(table) = root
        .get_mut("workspace")
        .and_then(Item::as_table_like_mut)
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(Item::as_table_like_mut)
    {
        // Members name what they use with `workspace = true`; their own folding carries the
        // backend's feature, so the workspace-wide `burn` does not turn it on for everyone.
        let mut workspace_folded = Vec::new();
        migrate_dependency_table(
            table,
            features,
            &names,
            Scope::Workspace,
            &mut workspace_folded,
            &mut changes,
        );
    }
    if !folded.is_empty() {
        let burn_optional = dependency_tables(root)
            .iter()
            .filter_map(|t| t.get(&names.burn))
            .any(is_optional);
        let table = root
            .entry("features")
            .or_insert_with(|| Item::Table(Table::new()));
        if let Some(table) = table.as_table_mut() {
            rewrite_removed_references(table, &folded, &names.burn, burn_optional, &mut changes);
        }
        if root
            .get("features")
            .and_then(Item::as_table)
            .is_some_and(Table::is_empty)
        {
            root.remove("features");
        }
    }
    if let Some(table) = root.get_mut("features").and_then(Item::as_table_mut) {
        migrate_feature_table(table, features, &names, &mut changes);
    }
    crate::migrate::crate_backends::add(&mut doc, &names.burn, features.renamed, &mut changes);
    let dangling = crate::migrate::feature_refs::dangling(&doc);
    if !dangling.is_empty() {
        return Err(ManifestError::Rejected(dangling.join("; ")));
    }
    Ok(ManifestResult {
        text: doc.to_string(),
        changes,
    })
}

/// Where a dependency table sits: a package's own, or `[workspace.dependencies]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Package,
    Workspace,
}

/// How a manifest names its dependencies.
struct Names {
    /// Every dependency as (key, package) (`dependency_packages`).
    dependencies: Vec<(String, String)>,
    /// The key of Burn itself (`burn_key`).
    burn: String,
}

impl Names {
    /// The keys that name `package` (the package's own name first, as features may name
    /// it even where no table does).
    fn keys_of<'a>(&'a self, package: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let renamed = (self.dependencies.iter())
            .filter(move |(key, p)| p == package && key != package)
            .map(|(key, _)| key.as_str());
        std::iter::once(package).chain(renamed)
    }
}

/// A backend crate dependency folded into a `burn` feature.
#[derive(Debug, Clone)]
struct Folded {
    /// The dependency's key, which `[features]` entries name (`nd` for
    /// `nd = { package = "burn-ndarray" }`).
    krate: String,
    /// The `burn` feature that replaces it, before the feature map.
    feature: String,
    /// An optional dependency is turned on by the package's features, not always.
    optional: bool,
}

fn migrate_dependency_table(
    table: &mut dyn toml_edit::TableLike,
    features: &FeatureRules,
    names: &Names,
    scope: Scope,
    folded: &mut Vec<Folded>,
    changes: &mut Vec<ManifestChange>,
) {
    folded.extend(fold_backend_crates(table, features, names, scope, changes));
    for (key, item) in table.iter_mut() {
        let key = key.get().to_string();
        let package = package_of(&key, item, features.renamed);
        let is_burn = package == "burn";
        // Burn's crates from the registry: a path dependency is the project's own crate or a
        // checkout it builds, whatever its name says (`burn-lm-inference`).
        let from_path = item.as_table_like().is_some_and(|t| t.contains_key("path"));
        // A Burn crate 0.22 does not have (`burn-candle`, `burn-tensor-testgen`) keeps its
        // version: other rules fold or report it.
        if !crate::rules::framework::is_burn_0_22_package(&package) || from_path {
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
                if let Some(array) = dep.get_mut("features").and_then(|f| f.as_array_mut()) {
                    let maps = maps_of(features.maps, &package);
                    map_feature_array(array, "", &package, &maps, &key, changes);
                }
                // Features the code needs go on the members that use it, not on the
                // workspace-wide dependency every member inherits.
                if is_burn && scope == Scope::Package {
                    add_features(other, features, &key, changes);
                }
            }
        }
    }
}

/// Adds the features 0.22 needs for what the code uses (`linalg`, `optim` without defaults).
fn add_features(
    item: &mut Item,
    features: &FeatureRules,
    key: &str,
    changes: &mut Vec<ManifestChange>,
) {
    let without_defaults = item.get("default-features").and_then(Item::as_bool) == Some(false);
    for add in features.adds {
        if add.only_without_default_features && !without_defaults {
            continue;
        }
        if !(features.code_uses)(&add.when_path) {
            continue;
        }
        // `burn = { workspace = true, default-features = false }` has no list yet: it gets one
        // (features on an inherited dependency add to the workspace's).
        let has_source = item.get("version").or(item.get("workspace")).is_some();
        if item.get("features").is_none() && !has_source {
            continue;
        }
        let Some(array) = feature_list_mut(item) else {
            continue;
        };
        if array
            .iter()
            .any(|v| v.as_str() == Some(add.feature.as_str()))
        {
            continue;
        }
        push_keeping_layout(array, add.feature.as_str());
        changes.push(ManifestChange {
            rule: add.rule,
            fix: Some(Applicability::Safe),
            key: key.to_string(),
            span: None,
            message: format!(
                "the code uses `{}`, which needs Burn feature `{}` in 0.22",
                add.when_path, add.feature
            ),
        });
    }
}

fn version_change(key: &str, target: &str) -> ManifestChange {
    ManifestChange {
        rule: RuleId::CargoBurnVersion.into(),
        fix: Some(Applicability::Safe),
        key: key.to_string(),
        span: None,
        message: format!("`{key}` moves to {target}"),
    }
}

/// Whether a version requirement is below 0.22.
fn needs_bump(req: &str) -> bool {
    !crate::migrate::discover::requirement_is_migrated(req)
}

/// `[features] gpu = ["burn/wgpu"]`: Burn features named from the package's own features.
fn migrate_feature_table(
    table: &mut Table,
    features: &FeatureRules,
    names: &Names,
    changes: &mut Vec<ManifestChange>,
) {
    let mut packages: Vec<&str> = features.maps.iter().map(|m| m.package.as_str()).collect();
    packages.sort_unstable();
    packages.dedup();
    for (_, item) in table.iter_mut() {
        if let Some(array) = item.as_array_mut() {
            for package in &packages {
                let maps = maps_of(features.maps, package);
                // Under each key the manifest gives the package (`nn/ndarray`).
                for key in names.keys_of(package) {
                    for prefix in [format!("{key}/"), format!("{key}?/")] {
                        map_feature_array(array, &prefix, package, &maps, "features", changes);
                    }
                }
            }
        }
    }
}

/// The feature map entry the crates' feature tables give a feature 0.22 lacks (renamed to its
/// counterpart, or removed), and, where several 0.22 features could stand in for a removed
/// one, a note for a person naming them.
fn table_feature_map(package: &str, name: &str, fate: FeatureFate) -> (FeatureMap, Option<String>) {
    let (to, note) = match fate {
        FeatureFate::Becomes(to) => (Some(to), None),
        FeatureFate::Gone { enabled_by } if !enabled_by.is_empty() => (
            None,
            Some(format!(
                "`{package}` feature `{name}` is gone in 0.22 and was removed; in 0.21 it came with {}: enable the one you need",
                enabled_by
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ),
        FeatureFate::Gone { .. } | FeatureFate::Keep => (None, None),
    };
    let map = FeatureMap {
        package: package.to_string(),
        from: name.to_string(),
        to,
        manual: None,
        rule: RuleId::CargoBurnFeatures.into(),
    };
    (map, note)
}

/// The feature maps of one package's features (`burn`, `burn-store`).
fn maps_of(maps: &[FeatureMap], package: &str) -> Vec<FeatureMap> {
    maps.iter()
        .filter(|m| m.package == package)
        .cloned()
        .collect()
}

/// Renames and removes the features of Burn's `package` in an array of feature names (with a
/// `burn/` style prefix for the `[features]` table), keeping each element's formatting: as
/// the rule set's feature map says, else as the crates' own feature tables say (a feature
/// 0.22 lacks, such as 0.21's implicit feature of an optional dependency, `burn-flex`,
/// becomes the 0.22 feature that turns on the same thing, or goes: a feature the crate does
/// not have stops the workspace from resolving).
fn map_feature_array(
    array: &mut Array,
    prefix: &str,
    package: &str,
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
        let from_tables;
        let map = match features.iter().find(|m| m.from == name) {
            Some(map) => map,
            None => match crate::rules::framework::feature_fate(package, &name) {
                FeatureFate::Keep => {
                    i += 1;
                    continue;
                }
                fate => {
                    let note;
                    (from_tables, note) = table_feature_map(package, &name, fate);
                    if let Some(message) = note {
                        changes.push(ManifestChange {
                            rule: from_tables.rule,
                            fix: None,
                            key: key.to_string(),
                            span: None,
                            message,
                        });
                    }
                    &from_tables
                }
            },
        };
        if let Some(message) = &map.manual {
            changes.push(ManifestChange {
                rule: map.rule,
                fix: None,
                key: key.to_string(),
                span: None,
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
                    fix: Some(Applicability::Safe),
                    key: key.to_string(),
                    span: None,
                    message: format!("Burn feature `{name}` becomes `{to}`"),
                });
                i += 1;
            }
            _ => {
                remove_keeping_layout(array, i);
                changes.push(ManifestChange {
                    rule: map.rule,
                    fix: Some(Applicability::Safe),
                    key: key.to_string(),
                    span: None,
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

/// Direct dependencies on Burn's backend crates become features of `burn` when the ported
/// code no longer names the crate (backend types and devices are `Device` values now). A
/// package's `burn` gets the feature (an optional crate's feature is left to the package's
/// `[features]`, which `rewrite_removed_references` rewrites); `[workspace.dependencies]`
/// only loses the crate, since the members that used it add the feature to their own entry.
fn fold_backend_crates(
    table: &mut dyn toml_edit::TableLike,
    features: &FeatureRules,
    names: &Names,
    scope: Scope,
    changes: &mut Vec<ManifestChange>,
) -> Vec<Folded> {
    let mut folded = Vec::new();
    let mut replacement_for_burn = None;
    // Burn's own entry here, by package: `nn = { package = "burn" }` takes the features.
    let burn = (table.iter())
        .find(|(key, item)| package_of(key, item, features.renamed) == "burn")
        .map_or_else(|| names.burn.clone(), |(key, _)| key.to_string());
    for (krate, feature) in features.backend_crates {
        // The crate under its own key or a key of the project's (`nd = { package =
        // "burn-ndarray" }`).
        let keys: Vec<String> = (table.iter())
            .filter(|(key, item)| package_of(key, item, features.renamed) == *krate)
            .map(|(key, _)| key.to_string())
            .collect();
        for key in keys {
            let Some(entry) = table.get(&key) else {
                continue;
            };
            // The ported code still naming the crate (`code_uses` knows the names the
            // packages give it) keeps it.
            if (features.code_uses)(&krate.replace('-', "_")) {
                continue;
            }
            let optional = is_optional(entry);
            if table.get(&burn).is_none() && replacement_for_burn.is_none() {
                replacement_for_burn = Some(burn_entry_like(entry, &burn));
            }
            table.remove(&key);
            folded.push(Folded {
                krate: key.clone(),
                feature: feature.clone(),
                optional,
            });
            changes.push(ManifestChange {
                rule: RuleId::CargoBackendCrates.into(),
                fix: Some(Applicability::Safe),
                key: key.clone(),
                span: None,
                message: match scope {
                    Scope::Package => format!("`{key}` becomes the `{feature}` feature of `{burn}`"),
                    Scope::Workspace => format!(
                        "`{key}` leaves the workspace's dependencies; the members that used it enable `{burn}` feature `{feature}` themselves"
                    ),
                },
            });
        }
    }
    if let Some(entry) = replacement_for_burn {
        table.insert(&burn, entry);
    }
    let always_on: Vec<&str> = folded
        .iter()
        .filter(|f| scope == Scope::Package && !f.optional)
        .map(|f| f.feature.as_str())
        .collect();
    if always_on.is_empty() {
        return folded;
    }
    if let Some(array) = table.get_mut(&burn).and_then(feature_list_mut) {
        for feature in always_on {
            if !array.iter().any(|v| v.as_str() == Some(feature)) {
                push_keeping_layout(array, feature);
            }
        }
    }
    folded
}

/// A `burn` entry for a table that named a backend crate but not `burn` itself: same source
/// (`workspace = true` or the crate's version, which the version rule then raises), same
/// optionality; under `key`, Burn's key in the manifest, with the `package` that key needs.
fn burn_entry_like(entry: &Item, key: &str) -> Item {
    let mut inline = toml_edit::InlineTable::new();
    let dep = entry.as_table_like();
    let inherited = dep
        .and_then(|d| d.get("workspace"))
        .and_then(Item::as_bool)
        .unwrap_or(false);
    if inherited {
        inline.insert("workspace", true.into());
    } else {
        let version = entry
            .as_str()
            .or_else(|| dep.and_then(|d| d.get("version")).and_then(Item::as_str))
            .unwrap_or(BURN_VERSION);
        if key != "burn" {
            // As such entries are usually written: the package first.
            inline.insert("package", "burn".into());
        }
        inline.insert("version", version.into());
    }
    if is_optional(entry) {
        inline.insert("optional", true.into());
    }
    Item::Value(Value::InlineTable(inline))
}

/// `[features]` entries that name a folded backend crate (`dep:burn-cuda`, `burn-cuda/f`,
/// `burn-cuda?/f`, or its implicit feature `burn-cuda`) name the `burn` feature instead, so
/// cargo still accepts the manifest and the package's features still pick the backend.
fn rewrite_removed_references(
    table: &mut Table,
    folded: &[Folded],
    burn: &str,
    burn_optional: bool,
    changes: &mut Vec<ManifestChange>,
) {
    // A bare name is the implicit feature of an optional crate only where no feature has
    // that name and no `dep:` turns the implicit feature off.
    let explicit_dep: Vec<String> = table
        .iter()
        .filter_map(|(_, item)| item.as_array())
        .flat_map(|array| array.iter())
        .filter_map(|v| v.as_str()?.strip_prefix("dep:").map(str::to_string))
        .collect();
    let own_features: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    let implicit = |name: &str| {
        !explicit_dep.iter().any(|d| d == name) && !own_features.iter().any(|f| f == name)
    };
    // Features that lose a reference a person has to replace get a to-do marker above them,
    // so `--check` keeps reporting it after the port.
    let mut markers: Vec<(String, String)> = Vec::new();
    for (feature_name, item) in table.iter_mut() {
        let Some(array) = item.as_array_mut() else {
            continue;
        };
        let mut i = 0;
        while i < array.len() {
            let Some(reference) = array.get(i).and_then(Value::as_str).map(str::to_string) else {
                i += 1;
                continue;
            };
            let bare = !reference.contains(['/', ':']);
            let replaced = replace_reference(&reference, folded, burn, burn_optional)
                .filter(|_| !bare || implicit(&reference));
            let Some((removed, replacement)) = replaced else {
                i += 1;
                continue;
            };
            let duplicate = replacement
                .as_ref()
                .is_some_and(|r| array.iter().any(|v| v.as_str() == Some(r.as_str())));
            let message = match (&replacement, reference.split_once('/')) {
                // `r` names the backend before the feature map renames it (`burn/ndarray`
                // ends as `burn/flex`), so the message does not quote it.
                (Some(_), Some((_, sub))) => format!(
                    "feature `{feature_name}`: `{reference}` now turns the backend on through `{burn}`; `{}` and its own `{sub}` are gone: enable Burn's counterpart, if any, by hand",
                    removed.krate
                ),
                (None, Some((_, sub))) => format!(
                    "feature `{feature_name}`: `{reference}` is removed with `{}`; enable Burn's counterpart of `{sub}`, if any, by hand",
                    removed.krate
                ),
                (Some(r), None) => format!("feature `{feature_name}`: `{reference}` becomes `{r}`"),
                (None, None) => format!("feature `{feature_name}`: `{reference}` is removed"),
            };
            // A crate's own feature (`burn-ndarray/blas-netlib`) has no sure counterpart.
            let fixable = !reference.contains('/');
            if !fixable {
                let rule = RuleId::CargoBackendCrates.into();
                markers.push((
                    feature_name.get().to_string(),
                    markers::text(rule, &message),
                ));
            }
            changes.push(ManifestChange {
                rule: RuleId::CargoBackendCrates.into(),
                fix: fixable.then_some(Applicability::Safe),
                key: feature_name.get().to_string(),
                span: None,
                message,
            });
            match replacement {
                Some(r) if !duplicate => {
                    let decor = array.get(i).map(|v| v.decor().clone()).unwrap_or_default();
                    let mut value = Value::from(r);
                    *value.decor_mut() = decor;
                    array.replace(i, value);
                    i += 1;
                }
                _ => remove_keeping_layout(array, i),
            }
        }
    }
    for (feature, marker) in markers {
        if let Some(mut key) = table.key_mut(&feature) {
            let decor = key.leaf_decor_mut();
            let above = decor.prefix().and_then(|p| p.as_str()).unwrap_or_default();
            let indent = &above[above.rfind('\n').map_or(0, |at| at + 1)..];
            decor.set_prefix(format!("{above}# {marker}\n{indent}"));
        }
    }
    // An optional crate that no `dep:` names had an implicit feature of its name, which
    // `cargo build --features burn-cuda` may use: it stays, now enabling the `burn` feature.
    for removed in folded.iter().filter(|f| f.optional) {
        if !implicit(&removed.krate) {
            continue;
        }
        let mut array = Array::new();
        array.push(format!("{burn}/{}", removed.feature));
        table.insert(&removed.krate, toml_edit::value(array));
        changes.push(ManifestChange {
            rule: RuleId::CargoBackendCrates.into(),
            fix: Some(Applicability::Safe),
            key: removed.krate.clone(),
            span: None,
            message: format!(
                "the optional `{}` is now feature `{}` of `{burn}`; the package feature `{}` keeps turning it on",
                removed.krate, removed.feature, removed.krate
            ),
        });
    }
}

/// What a `[features]` reference to a folded crate becomes: `None` to drop it (a weak
/// `crate?/f` asks for a feature of a crate that is gone).
fn replace_reference<'a>(
    reference: &str,
    folded: &'a [Folded],
    burn: &str,
    burn_optional: bool,
) -> Option<(&'a Folded, Option<String>)> {
    let (name, weak) = match reference.split_once('/') {
        Some((dep, _)) => match dep.strip_suffix('?') {
            Some(dep) => (dep, true),
            None => (dep, false),
        },
        None => (reference.strip_prefix("dep:").unwrap_or(reference), false),
    };
    let removed = folded.iter().find(|f| f.krate == name)?;
    let replacement = if weak {
        burn_optional.then(|| format!("{burn}?/{}", removed.feature))
    } else {
        Some(format!("{burn}/{}", removed.feature))
    };
    Some((removed, replacement))
}

/// Removes an array element; the first element carries no leading space, so its successor
/// inherits that.
fn remove_keeping_layout(array: &mut Array, i: usize) {
    let removed = array.remove(i);
    if i == 0 {
        let prefix = removed.decor().prefix().cloned();
        if let (Some(next), Some(prefix)) = (array.get_mut(0), prefix) {
            next.decor_mut().set_prefix(prefix);
        }
    }
}

/// The key a manifest names Burn with (`burn`, or `nn` for `nn = { package = "burn" }`);
/// `renamed` as `FeatureRules::renamed`.
pub fn burn_key_of(doc: &DocumentMut, renamed: &[(String, String)]) -> String {
    burn_key(&dependency_packages(doc.as_table(), renamed))
}

/// Whether a manifest enables a `burn` feature, in a dependency's feature list or through its
/// own `[features]` table (`gpu = ["burn/cuda"]`); `burn` is the key it names Burn with
/// (`burn_key_of`).
pub fn enables_burn_feature(doc: &DocumentMut, feature: &str, burn: &str) -> bool {
    let in_array = |array: &Array, prefixes: &[&str]| {
        array.iter().any(|v| {
            v.as_str()
                .is_some_and(|s| prefixes.iter().any(|p| s == format!("{p}{feature}")))
        })
    };
    let dep_enables = |table: &dyn toml_edit::TableLike| {
        table
            .get(burn)
            .and_then(Item::as_table_like)
            .and_then(|d| d.get("features"))
            .and_then(Item::as_array)
            .is_some_and(|a| in_array(a, &[""]))
    };
    let root = doc.as_table();
    let mut tables: Vec<&dyn toml_edit::TableLike> = Vec::new();
    for name in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(t) = root.get(name).and_then(Item::as_table_like) {
            tables.push(t);
        }
    }
    if let Some(t) = root
        .get("workspace")
        .and_then(Item::as_table_like)
        .and_then(|w| w.get("dependencies"))
        .and_then(Item::as_table_like)
    {
        tables.push(t);
    }
    if let Some(targets) = root.get("target").and_then(Item::as_table_like) {
        for (_, target) in targets.iter() {
            if let Some(t) = target
                .as_table_like()
                .and_then(|t| t.get("dependencies"))
                .and_then(Item::as_table_like)
            {
                tables.push(t);
            }
        }
    }
    tables.into_iter().any(dep_enables)
        || root
            .get("features")
            .and_then(Item::as_table_like)
            .is_some_and(|f| {
                f.iter().any(|(_, v)| {
                    v.as_array().is_some_and(|a| {
                        in_array(
                            a,
                            &[format!("{burn}/").as_str(), format!("{burn}?/").as_str()],
                        )
                    })
                })
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(from: &str, to: Option<&str>) -> FeatureMap {
        FeatureMap {
            package: "burn".into(),
            from: from.into(),
            to: to.map(Into::into),
            manual: None,
            rule: RuleId::CargoBurnFeatures.into(),
        }
    }

    fn run(text: &str) -> ManifestResult {
        run_renamed(text, &[])
    }

    /// `run` for a package whose dependencies cargo metadata found under other keys.
    fn run_renamed(text: &str, renamed: &[(String, String)]) -> ManifestResult {
        let maps = vec![map("ndarray", Some("flex")), map("dispatch", None)];
        let adds = vec![FeatureAdd {
            feature: "optim".into(),
            when_path: "burn::optim".into(),
            only_without_default_features: true,
            rule: RuleId::CargoOptimFeature.into(),
        }];
        let crates = crate::rules::backends::BackendTable::embedded()
            .unwrap()
            .crate_features();
        let rules = FeatureRules {
            maps: &maps,
            adds: &adds,
            code_uses: &|path| path == "burn::optim",
            backend_crates: &crates,
            renamed,
        };
        migrate(text, &rules).unwrap()
    }

    /// burn-vision gets `burn`'s backend features (after the feature map: `flex`, not
    /// `ndarray`) in each form of entry, keeping its comment and layout; its 0.22 defaults
    /// (`fusion`) and what it already lists are not added again, nor `burn`'s `std`.
    #[test]
    fn burn_vision_gets_the_backend_features_of_burn() {
        let text = "[dependencies]\nburn = { version = \"0.21.0\", features = [\"std\", \"ndarray\", \"fusion\", \"vulkan\"] }\nburn-vision = \"0.21.0\" # ops\n\n[dev-dependencies.bv]\npackage = \"burn-vision\"\nversion = \"0.21.0\" # same\n\n[target.'cfg(unix)'.dependencies]\nburn-vision = { version = \"0.21.0\", default-features = false, features = [\n    \"vulkan\",\n] }\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"std\", \"flex\", \"fusion\", \"vulkan\"] }\nburn-vision = { version = \"0.22\", features = [\"flex\", \"vulkan\"] } # ops\n\n[dev-dependencies.bv]\npackage = \"burn-vision\"\nversion = \"0.22\"\nfeatures = [\"flex\", \"vulkan\"] # same\n\n[target.'cfg(unix)'.dependencies]\nburn-vision = { version = \"0.22\", default-features = false, features = [\n    \"vulkan\",\n    \"flex\",\n    \"fusion\",\n] }\n"
        );
        let rule = RuleId::CargoCrateBackendFeatures;
        let keys: Vec<&str> = (out.changes.iter())
            .filter(|c| c.rule == rule)
            .map(|c| c.key.as_str())
            .collect();
        assert_eq!(keys, ["burn-vision", "bv", "burn-vision"]);
        // A project without burn-vision, or with it through `burn`'s `vision`, is left alone.
        let through_burn =
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"wgpu\", \"vision\"] }\n";
        assert_eq!(run(through_burn).text, through_burn);
    }

    /// Burn under a key of the project's (`nn = { package = "burn" }`) moves like `burn`,
    /// keeping its key; so do its features, in its entry and in `[features]`.
    #[test]
    fn a_renamed_burn_moves_under_its_own_key() {
        let text = "[dependencies]\nnn = { package = \"burn\", version = \"0.21.0\", default-features = false, features = [\"ndarray\"] }\n\n[features]\ncpu = [\"nn/ndarray\", \"nn?/dispatch\"]\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[dependencies]\nnn = { package = \"burn\", version = \"0.22.0\", default-features = false, features = [\"flex\", \"optim\"] }\n\n[features]\ncpu = [\"nn/flex\"]\n"
        );
        assert!(
            out.changes
                .iter()
                .all(|c| c.key == "nn" || c.key == "features"),
            "{:?}",
            out.changes
        );
    }

    /// A member's `nn = { workspace = true }` is Burn because cargo metadata says the
    /// workspace's `nn` is (`FeatureRules::renamed`): it gets the features the code needs.
    #[test]
    fn an_inherited_renamed_burn_is_known_from_cargo_metadata() {
        let text = "[dependencies]\nnn = { workspace = true, default-features = false }\n";
        let renamed = [("nn".to_string(), "burn".to_string())];
        assert_eq!(
            run_renamed(text, &renamed).text,
            "[dependencies]\nnn = { workspace = true, default-features = false, features = [\"optim\"] }\n"
        );
        // Without that fact `nn` is some other crate.
        assert_eq!(run(text).text, text);
    }

    /// A renamed backend crate (`nd = { package = "burn-ndarray" }`) folds into the renamed
    /// Burn: its feature goes on `nn`, and `[features]` references to `nd` follow.
    #[test]
    fn a_renamed_backend_crate_folds_into_the_renamed_burn() {
        let text = "[dependencies]\nnn = { package = \"burn\", version = \"0.21.0\", optional = true }\nnd = { package = \"burn-ndarray\", version = \"0.21.0\", optional = true }\n\n[features]\ncpu = [\"dep:nn\", \"dep:nd\"]\nfast = [\"nd?/std\"]\n";
        let out = run(text);
        assert!(
            out.text.starts_with("[dependencies]\nnn = { package = \"burn\", version = \"0.22.0\", optional = true }\n\n[features]\ncpu = [\"dep:nn\", \"nn/flex\"]\n"),
            "{}",
            out.text
        );
        assert!(out.text.contains("fast = [\"nn?/flex\"]"), "{}", out.text);
        // Alone, it becomes Burn under Burn's own key, with the package that key needs
        // where the manifest calls Burn otherwise.
        let alone =
            run("[dependencies]\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n");
        assert_eq!(
            alone.text,
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n"
        );
        // Where the manifest calls Burn `nn` elsewhere, the new entry is `nn` too.
        let elsewhere = run("[dependencies]\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n\n[dev-dependencies]\nnn = { package = \"burn\", version = \"0.21.0\" }\n");
        assert!(
            elsewhere.text.starts_with("[dependencies]\nnn = { package = \"burn\", version = \"0.22.0\", features = [\"flex\"] }\n"),
            "{}",
            elsewhere.text
        );
        let renamed = [("nn".to_string(), "burn".to_string())];
        let member = run_renamed(
            "[dependencies]\nnn = { workspace = true }\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n",
            &renamed,
        );
        assert_eq!(
            member.text,
            "[dependencies]\nnn = { workspace = true, features = [\"flex\"] }\n"
        );
    }

    /// A key spelled like Burn that names another package is that package's business.
    #[test]
    fn a_burn_key_of_another_package_is_left_alone() {
        let text = "[dependencies]\nburn = { package = \"burn-helpers\", version = \"0.3\", features = [\"ndarray\"] }\n";
        let out = run(text);
        assert_eq!(out.text, text);
        assert!(out.changes.is_empty(), "{:?}", out.changes);
    }

    /// In an array of one element a line, an added feature takes a line of its own, after
    /// the comma and comment of the line before, in a table of its own and in an inline table
    /// spread over lines, with a trailing comma or without.
    #[test]
    fn an_added_feature_takes_a_line_of_its_own_in_a_multi_line_array() {
        let cases = [
            (
                "[dependencies.burn]\nversion = \"0.21.0\"\ndefault-features = false\nfeatures = [\n    \"std\" # needed\n]\n",
                "[dependencies.burn]\nversion = \"0.22.0\"\ndefault-features = false\nfeatures = [\n    \"std\", # needed\n    \"optim\"\n]\n",
            ),
            (
                "[dependencies]\nburn = {\n  version = \"0.21.0\",\n  default-features = false,\n  features = [\n    \"std\", # needed\n    # more\n  ],\n}\n",
                "[dependencies]\nburn = {\n  version = \"0.22.0\",\n  default-features = false,\n  features = [\n    \"std\", # needed\n    # more\n    \"optim\",\n  ],\n}\n",
            ),
            // One line: as before.
            (
                "[dependencies]\nburn = { version = \"0.21.0\", default-features = false, features = [\"std\"] }\n",
                "[dependencies]\nburn = { version = \"0.22.0\", default-features = false, features = [\"std\", \"optim\"] }\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(run(text).text, expected, "{text}");
        }
    }

    /// An inherited `burn` with no feature list gets one when the code needs a feature;
    /// the optim feature here (default features off, the code names `burn::optim`).
    #[test]
    fn a_feature_the_code_needs_starts_a_list() {
        let out = run("[dependencies]\nburn = { workspace = true, default-features = false }\n");
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { workspace = true, default-features = false, features = [\"optim\"] }\n"
        );
    }

    #[test]
    fn features_the_code_needs_go_on_members_not_on_the_workspace_dependency() {
        // The code uses `burn::optim` (see `run`); the member that inherits `burn` gets the
        // feature, the workspace-wide dependency every member inherits does not.
        let text = "[workspace.dependencies]\nburn = { version = \"0.21.0\", default-features = false }\n\n[dependencies]\nburn = { workspace = true, default-features = false }\n";
        let out = run(text).text;
        assert!(
            out.contains("[workspace.dependencies]\nburn = { version = \"0.22.0\", default-features = false }\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "burn = { workspace = true, default-features = false, features = [\"optim\"] }"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_project_crate_named_like_burns_keeps_its_version() {
        // burn-lm's workspace: `burn-lm-inference` is a path crate of the project, and
        // `burn-extra` a third-party registry crate; neither is Burn's.
        let text = "[dependencies]\nburn = \"0.21.0\"\nburn-lm-inference = { path = \"../burn-lm-inference\", version = \"0.0.1\" }\nburn-extra = \"0.3\"\n";
        let out = run(text).text;
        assert!(out.contains("burn = \"0.22.0\""), "{out}");
        assert!(
            out.contains(
                "burn-lm-inference = { path = \"../burn-lm-inference\", version = \"0.0.1\" }"
            ),
            "{out}"
        );
        assert!(out.contains("burn-extra = \"0.3\""), "{out}");
    }

    /// Issue 29 item 3: 0.21's `burn` had a feature per optional dependency (`burn-flex`);
    /// 0.22's has none for them, and a feature the crate lacks stops the workspace from
    /// resolving. Each becomes the 0.22 feature that turns on the same backend, read from the
    /// crates' own feature tables; one with no single counterpart goes, with a note naming
    /// what could stand in for it. Features both releases have stay.
    #[test]
    fn implicit_features_of_burns_optional_dependencies_follow_the_crates_tables() {
        let text = "[dependencies]\nburn = { version = \"0.21.0\", features = [\"std\", \"burn-flex\", \"burn-autodiff\", \"burn-router\"] }\n\n[features]\ngpu = [\"burn/burn-wgpu\"]\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"std\", \"flex\", \"autodiff\"] }\n\n[features]\ngpu = [\"burn/wgpu\"]\n"
        );
        let manual: Vec<&str> = (out.changes.iter())
            .filter(|c| !c.is_applied())
            .map(|c| c.message.as_str())
            .collect();
        assert_eq!(manual.len(), 1, "{:?}", out.changes);
        assert!(
            manual[0].contains("`burn-router`") && manual[0].contains("`doc`"),
            "{manual:?}"
        );
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
        let text = "[workspace.dependencies]\nburn = \"0.21\"\nburn-ndarray = \"0.21.0\"\n\n[dependencies]\nburn = { workspace = true }\nburn-ndarray = { workspace = true }\n\n[features]\ncpu = [\"burn/ndarray\", \"burn/dispatch\"]\n";
        let out = run(text);
        // The workspace-wide `burn` stays featureless: the package that used the backend
        // crate carries its feature, in its own style.
        assert_eq!(
            out.text,
            "[workspace.dependencies]\nburn = \"0.22.0\"\n\n[dependencies]\nburn = { workspace = true, features = [\"flex\"] }\n\n[features]\ncpu = [\"burn/flex\"]\n"
        );
    }

    #[test]
    fn every_dependency_table_moves() {
        let text = "[dependencies]\nburn = { workspace = true, features = [\"ndarray\"] }\n\n[dev-dependencies]\nburn = { version = \"0.21.0\", optional = true }\n\n[target.'cfg(unix)'.dependencies]\nburn = { version = \"0.21\", default-features = false }\n\n[build-dependencies.burn]\nversion = \"0.21.0\"\nfeatures = [\"dispatch\"]\n";
        let out = run(text);
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { workspace = true, features = [\"flex\"] }\n\n[dev-dependencies]\nburn = { version = \"0.22.0\", optional = true }\n\n[target.'cfg(unix)'.dependencies]\nburn = { version = \"0.22.0\", default-features = false, features = [\"optim\"] }\n\n[build-dependencies.burn]\nversion = \"0.22.0\"\nfeatures = []\n"
        );
    }

    #[test]
    fn references_to_folded_crates_follow_them_into_burn() {
        let out = run("[dependencies]\nburn = { version = \"0.21.0\" , optional = true }\nburn-ndarray = { version = \"0.21.0\", optional = true }\nburn-cuda = { version = \"0.21.0\", optional = true }\n\n[features]\ncpu = [\"dep:burn\", \"dep:burn-ndarray\"]\nfast = [\"burn-ndarray?/blas-netlib\"]\n");
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { version = \"0.22.0\" , optional = true }\n\n[features]\ncpu = [\"dep:burn\", \"burn/flex\"]\n# burn-migrate: todo(cargo-backend-crates) feature `fast`: `burn-ndarray?/blas-netlib` now turns the backend on through `burn`; `burn-ndarray` and its own `blas-netlib` are gone: enable Burn's counterpart, if any, by hand; delete this comment when done\nfast = [\"burn?/flex\"]\nburn-cuda = [\"burn/cuda\"]\n"
        );
        let manual: Vec<_> = out.changes.iter().filter(|c| !c.is_applied()).collect();
        assert_eq!(manual.len(), 1, "{:?}", out.changes);
    }

    #[test]
    fn a_backend_crate_without_burn_becomes_burn() {
        let out = run("[dependencies]\nburn-ndarray = { workspace = true }\n");
        assert_eq!(
            out.text,
            "[dependencies]\nburn = { workspace = true, features = [\"flex\"] }\n"
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
    fn backend_crates_become_features_and_old_toolchains_are_raised() {
        let out = run("[package]\nname = \"x\"\nrust-version = \"1.80\"\n\n[dependencies]\nburn = \"0.21.0\"\nburn-ndarray = \"0.21.0\"\nburn-autodiff = { version = \"0.21.0\" }\n");
        assert_eq!(
            out.text,
            "[package]\nname = \"x\"\nrust-version = \"1.95\"\n\n[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\", \"autodiff\"] }\n"
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
