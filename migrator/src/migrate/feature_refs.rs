//! Cargo's rules for what a `[features]` entry may name, checked on a rewritten manifest
//! before it is written: `dep:X` and `X?/f` need an optional dependency `X`, `X/f` a
//! dependency `X`, and a bare name a feature of the table or the implicit feature of an
//! optional dependency that no `dep:` names. (Checked in code rather than by running
//! `cargo metadata` on a scratch copy: it needs no copy of the workspace's sources and no
//! toolchain.)

use toml_edit::{DocumentMut, Item};

use crate::migrate::toml_entries::{dependency_tables, is_optional};

/// Every dependency key of the package (all kinds, all targets) with whether it is optional.
fn dependencies(doc: &DocumentMut) -> Vec<(String, bool)> {
    (dependency_tables(doc.as_table()).into_iter())
        .flat_map(|t| t.iter())
        .map(|(key, item)| (key.to_string(), is_optional(item)))
        .collect()
}

/// The `[features]` references cargo would reject, as `feature `name`: `reference`: why`.
pub fn dangling(doc: &DocumentMut) -> Vec<String> {
    let Some(features) = doc.get("features").and_then(Item::as_table_like) else {
        return Vec::new();
    };
    let deps = dependencies(doc);
    let optional = |name: &str| deps.iter().any(|(d, o)| d == name && *o);
    let exists = |name: &str| deps.iter().any(|(d, _)| d == name);
    let references: Vec<(String, String)> = features
        .iter()
        .filter_map(|(name, item)| Some((name, item.as_array()?)))
        .flat_map(|(name, array)| {
            array
                .iter()
                .filter_map(|v| v.as_str())
                .map(move |r| (name.to_string(), r.to_string()))
        })
        .collect();
    let named_by_dep = |dep: &str| {
        references
            .iter()
            .any(|(_, r)| r.strip_prefix("dep:") == Some(dep))
    };
    let mut problems = Vec::new();
    for (feature, reference) in &references {
        let why = if let Some(dep) = reference.strip_prefix("dep:") {
            (!optional(dep)).then_some("`dep:` needs an optional dependency of that name")
        } else if let Some((dep, _)) = reference.split_once('/') {
            match dep.strip_suffix('?') {
                Some(dep) => (!optional(dep)).then_some("`?/` needs an optional dependency"),
                None => (!exists(dep)).then_some("no dependency of that name"),
            }
        } else {
            let implicit = optional(reference) && !named_by_dep(reference);
            (!features.contains_key(reference) && !implicit)
                .then_some("no feature or optional dependency of that name")
        };
        if let Some(why) = why {
            problems.push(format!("feature `{feature}`: `{reference}`: {why}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Vec<String> {
        dangling(&text.parse().unwrap())
    }

    #[test]
    fn references_follow_cargo_rules() {
        let ok = "[dependencies]\nburn = { version = \"0.22\", optional = true }\nserde = \"1\"\n\n[features]\ngpu = [\"dep:burn\", \"burn?/cuda\", \"serde/std\"]\nall = [\"gpu\"]\n";
        assert!(check(ok).is_empty(), "{:?}", check(ok));
        let implicit = "[dependencies]\nburn = { version = \"0.22\", optional = true }\n\n[features]\nall = [\"burn\"]\n";
        assert!(check(implicit).is_empty());
        let bad = "[dependencies]\nburn = \"0.22\"\n\n[features]\na = [\"dep:burn-flex\"]\nb = [\"burn-flex?/rayon\"]\nc = [\"burn?/cuda\"]\nd = [\"burn-flex/std\"]\ne = [\"burn-flex\"]\n";
        assert_eq!(check(bad).len(), 5, "{:?}", check(bad));
    }
}
