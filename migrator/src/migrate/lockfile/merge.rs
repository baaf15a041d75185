//! The lockfile a port starts from, written directly: the project's own entries, with every
//! package of Burn 0.22's graph at the version Burn's pinned lockfile has, whether or not the
//! project's lock held it. Cargo then reads it back (`super::resolve`): it keeps what the
//! manifests allow, resolves what they do not, and drops what nothing uses any more.
//!
//! Why written rather than asked of cargo: `cargo update -p burn` resolves Burn 0.22's new
//! dependencies against the registry as it is today, and a release published after the pin
//! breaks Burn's own build (`systemstat` 0.2.8 does not compile with burn-train 0.22.1;
//! the pinned lock has 0.2.7). Cargo prefers a locked version to any other, so a lock that
//! already names the pinned release of each package is resolved to it, offline.

use std::collections::{BTreeMap, BTreeSet};

use semver::Version;
use toml_edit::{Array, DocumentMut, Item, Table};

/// What the merge changed, for the summary.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    /// `name old -> pinned` for each entry of the project's lock moved to the pinned release.
    pub pinned: Vec<String>,
    /// `name locked (Burn 0.22 builds with pinned)`: packages kept at the project's version
    /// although the pinned lock has another in its series: direct dependencies of the project
    /// locked newer (the project may need what the newer one has), and those `merge` was told
    /// to keep.
    pub kept_newer: Vec<String>,
    /// The names of the packages moved (those of `pinned`).
    moved_names: BTreeSet<String>,
}

impl Merged {
    /// Whether the merge moved a package of this name to its pinned release.
    pub fn moved(&self, name: &str) -> bool {
        self.moved_names.contains(name)
    }
}

/// A `[[package]]` entry of a lockfile.
struct Entry {
    table: Table,
    name: String,
    version: String,
    source: Option<String>,
}

fn entries(lock: &str) -> (Option<DocumentMut>, Vec<Entry>) {
    let Ok(doc) = lock.parse::<DocumentMut>() else {
        return (None, Vec::new());
    };
    let mut out = Vec::new();
    if let Some(packages) = doc.get("package").and_then(Item::as_array_of_tables) {
        for table in packages.iter() {
            let field = |key| table.get(key).and_then(|v| v.as_str()).map(str::to_string);
            if let (Some(name), Some(version)) = (field("name"), field("version")) {
                out.push(Entry {
                    source: field("source"),
                    table: table.clone(),
                    name,
                    version,
                });
            }
        }
    }
    (Some(doc), out)
}

/// The semver-compatible series of a version: `4.x` is `(4, 0, 0)`, `0.19.x` `(0, 19, 0)`.
pub fn series(version: &str) -> Option<(u64, u64, u64)> {
    let v = Version::parse(version).ok()?;
    Some(match (v.major, v.minor) {
        (0, 0) => (0, 0, v.patch),
        (0, minor) => (0, minor, 0),
        (major, _) => (major, 0, 0),
    })
}

/// Every version of each name in `entries`.
fn versions_of(entries: &[Entry]) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for entry in entries {
        out.entry(&entry.name).or_default().insert(&entry.version);
    }
    out
}

/// `table`'s dependency edges, each naming the exact version it resolves to: a bare name is
/// the one version `versions` has of it, then mapped by `moved` (`(name, old)` -> new). An
/// edge naming a source is left as it is.
fn qualify_edges(
    table: &mut Table,
    versions: &BTreeMap<&str, BTreeSet<&str>>,
    moved: &BTreeMap<(String, String), String>,
) {
    let Some(edges) = table.get_mut("dependencies").and_then(Item::as_array_mut) else {
        return;
    };
    let mut qualified = Array::new();
    for edge in edges.iter() {
        let Some(text) = edge.as_str() else {
            qualified.push(edge.clone());
            continue;
        };
        let mut words = text.split_whitespace();
        let name = words.next().unwrap_or_default();
        let version = words.next().map(str::to_string).or_else(|| {
            let all = versions.get(name)?;
            (all.len() == 1).then(|| all.first().map(|v| v.to_string()))?
        });
        let rest: Vec<&str> = words.collect();
        let Some(version) = version.filter(|_| rest.is_empty()) else {
            qualified.push(text);
            continue;
        };
        let version = moved
            .get(&(name.to_string(), version.clone()))
            .cloned()
            .unwrap_or(version);
        qualified.push(format!("{name} {version}"));
    }
    for value in qualified.iter_mut() {
        value.decor_mut().set_prefix("\n ");
    }
    qualified.set_trailing("\n");
    qualified.set_trailing_comma(true);
    *edges = qualified;
}

/// The project's lockfile (`None`: it has none) with Burn 0.22's graph at the pinned
/// versions: each registry package the pinned lock has in the same semver series moves to the
/// pinned release (a direct dependency of the project locked newer stays, and so does every
/// package named in `keep`: one whose move cargo found in conflict with the project's own
/// requirements), and every other pinned entry is added for cargo to take where the port's
/// graph needs it.
pub fn merge(
    project: Option<&str>,
    pinned: &str,
    direct: &BTreeSet<String>,
    keep: &BTreeSet<String>,
) -> Merged {
    let (project_doc, project_entries) = entries(project.unwrap_or_default());
    let (pinned_doc, pinned_entries) = entries(pinned);
    // The pinned lock's own workspace packages (no source) are not Burn's graph.
    let pinned_entries: Vec<Entry> = pinned_entries
        .into_iter()
        .filter(|e| e.source.is_some())
        .collect();
    let pinned_by_series: BTreeMap<(&str, (u64, u64, u64)), &Entry> = pinned_entries
        .iter()
        .filter_map(|e| Some(((e.name.as_str(), series(&e.version)?), e)))
        .collect();
    let mut merged = Merged::default();
    let mut moved: BTreeMap<(String, String), String> = BTreeMap::new();
    // Names whose project version stays although the pinned lock has another in its series.
    let mut kept: BTreeSet<(String, (u64, u64, u64))> = BTreeSet::new();
    for entry in &project_entries {
        let Some(key) = series(&entry.version) else {
            continue;
        };
        let Some(pin) = pinned_by_series.get(&(entry.name.as_str(), key)) else {
            continue;
        };
        if pin.version == entry.version || entry.source.is_none() || pin.source != entry.source {
            continue;
        }
        let newer = Version::parse(&entry.version).ok() > Version::parse(&pin.version).ok();
        if newer && direct.contains(&entry.name) || keep.contains(&entry.name) {
            merged.kept_newer.push(format!(
                "{} {} (Burn 0.22 builds with {})",
                entry.name, entry.version, pin.version
            ));
            kept.insert((entry.name.clone(), key));
            continue;
        }
        merged.pinned.push(format!(
            "{} {} -> {}",
            entry.name, entry.version, pin.version
        ));
        moved.insert(
            (entry.name.clone(), entry.version.clone()),
            pin.version.clone(),
        );
        merged.moved_names.insert(entry.name.clone());
    }
    let project_versions = versions_of(&project_entries);
    let pinned_versions = versions_of(&pinned_entries);
    // The pinned release of a name the project keeps newer is not added: edges to it go to
    // the kept one.
    let mut to_kept: BTreeMap<(String, String), String> = BTreeMap::new();
    for entry in &project_entries {
        if let Some(key) = series(&entry.version) {
            if kept.contains(&(entry.name.clone(), key)) {
                if let Some(pin) = pinned_by_series.get(&(entry.name.as_str(), key)) {
                    to_kept.insert(
                        (entry.name.clone(), pin.version.clone()),
                        entry.version.clone(),
                    );
                }
            }
        }
    }
    let mut present: BTreeSet<(String, String)> = BTreeSet::new();
    let mut packages = toml_edit::ArrayOfTables::new();
    for entry in &project_entries {
        if moved.contains_key(&(entry.name.clone(), entry.version.clone())) {
            continue;
        }
        let mut table = entry.table.clone();
        qualify_edges(&mut table, &project_versions, &moved);
        present.insert((entry.name.clone(), entry.version.clone()));
        packages.push(table);
    }
    for entry in &pinned_entries {
        let key = (entry.name.clone(), entry.version.clone());
        let series_kept =
            series(&entry.version).is_some_and(|s| kept.contains(&(entry.name.clone(), s)));
        if present.contains(&key) || series_kept {
            continue;
        }
        let mut table = entry.table.clone();
        qualify_edges(&mut table, &pinned_versions, &to_kept);
        present.insert(key);
        packages.push(table);
    }
    let mut doc = project_doc
        .filter(|d| d.contains_key("version"))
        .or(pinned_doc)
        .unwrap_or_default();
    doc.remove("package");
    doc.insert("package", Item::ArrayOfTables(packages));
    merged.text = doc.to_string();
    merged
}

/// `lock` without its entry for `name` at `version`, `None` when it has none: what cargo then
/// resolves afresh. Edges that name it stay; cargo drops them if they no longer resolve.
pub fn without_entry(lock: &str, name: &str, version: &str) -> Option<String> {
    let mut doc = lock.parse::<DocumentMut>().ok()?;
    let packages = doc.get_mut("package")?.as_array_of_tables_mut()?;
    let before = packages.len();
    packages.retain(|table| {
        let field = |key| table.get(key).and_then(|v| v.as_str());
        (field("name"), field("version")) != (Some(name), Some(version))
    });
    (packages.len() < before).then(|| doc.to_string())
}

/// `name -> versions` of a lockfile's registry and git packages (not its workspace's own).
pub fn locked_versions(lock: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in entries(lock).1 {
        out.entry(entry.name).or_default().insert(entry.version);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, version: &str, deps: &[&str]) -> String {
        let mut out = format!(
            "[[package]]\nname = \"{name}\"\nversion = \"{version}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{name}-{version}\"\n"
        );
        if !deps.is_empty() {
            out.push_str("dependencies = [\n");
            for dep in deps {
                out.push_str(&format!(" \"{dep}\",\n"));
            }
            out.push_str("]\n");
        }
        out + "\n"
    }

    fn lock(packages: &[String]) -> String {
        format!("version = 4\n\n{}", packages.concat())
    }

    fn entry_of<'a>(text: &'a str, name: &str, version: &str) -> Option<&'a str> {
        text.split("[[package]]")
            .find(|p| p.contains(&format!("name = \"{name}\"\nversion = \"{version}\"")))
    }

    #[test]
    fn burns_graph_moves_to_the_pinned_releases_and_the_project_keeps_its_own() {
        let project = lock(&[
            "[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"burn\",\n \"serde\",\n \"hashbrown\",\n]\n\n".to_string(),
            package("burn", "0.21.0", &["systemstat"]),
            // Newer than pinned, a direct dependency: kept.
            package("serde", "1.0.230", &[]),
            // Newer than pinned (registry drift), only Burn's: moved down.
            package("systemstat", "0.2.8", &[]),
            // Another series than the pinned one: kept, and edges to it stay exact.
            package("hashbrown", "0.12.3", &[]),
            package("only-ours", "2.0.0", &[]),
        ]);
        let pinned = lock(&[
            "[[package]]\nname = \"framework\"\nversion = \"0.1.0\"\n\n".to_string(),
            package("burn", "0.22.1", &["systemstat", "serde", "pliron"]),
            package("systemstat", "0.2.7", &[]),
            package("serde", "1.0.228", &[]),
            package("pliron", "0.19.0", &["hashbrown"]),
            package("hashbrown", "0.17.2", &[]),
        ]);
        let direct = BTreeSet::from(["serde".to_string(), "burn".to_string()]);
        let merged = merge(Some(&project), &pinned, &direct, &BTreeSet::new());
        let text = &merged.text;
        assert!(entry_of(text, "systemstat", "0.2.7").is_some(), "{text}");
        assert!(entry_of(text, "systemstat", "0.2.8").is_none(), "{text}");
        assert!(entry_of(text, "serde", "1.0.230").is_some(), "{text}");
        assert!(entry_of(text, "serde", "1.0.228").is_none(), "{text}");
        assert!(entry_of(text, "burn", "0.22.1").is_some());
        assert!(entry_of(text, "burn", "0.21.0").is_some(), "cargo drops it");
        assert!(entry_of(text, "only-ours", "2.0.0").is_some());
        assert!(!text.contains("name = \"framework\""));
        // Edges name exact versions: two hashbrown series are locked now.
        let pliron = entry_of(text, "pliron", "0.19.0").unwrap();
        assert!(pliron.contains("\"hashbrown 0.17.2\""), "{pliron}");
        let app = entry_of(text, "app", "0.1.0").unwrap();
        assert!(app.contains("\"hashbrown 0.12.3\""), "{app}");
        // The pinned burn's edge to serde goes to the kept serde.
        let burn = entry_of(text, "burn", "0.22.1").unwrap();
        assert!(burn.contains("\"serde 1.0.230\""), "{burn}");
        // The old burn's edge follows systemstat's move.
        let old_burn = entry_of(text, "burn", "0.21.0").unwrap();
        assert!(old_burn.contains("\"systemstat 0.2.7\""), "{old_burn}");
        assert_eq!(merged.pinned, vec!["systemstat 0.2.8 -> 0.2.7".to_string()]);
        assert_eq!(
            merged.kept_newer,
            vec!["serde 1.0.230 (Burn 0.22 builds with 1.0.228)".to_string()]
        );
        assert!(text.starts_with("version = 4"), "{text}");
    }

    #[test]
    fn without_a_lockfile_the_pinned_graph_is_the_start() {
        let pinned = lock(&[
            "[[package]]\nname = \"framework\"\nversion = \"0.1.0\"\n\n".to_string(),
            package("burn", "0.22.1", &["systemstat"]),
            package("systemstat", "0.2.7", &[]),
        ]);
        let merged = merge(None, &pinned, &BTreeSet::new(), &BTreeSet::new());
        assert!(entry_of(&merged.text, "systemstat", "0.2.7").is_some());
        assert!(!merged.text.contains("framework"));
        assert!(merged.pinned.is_empty() && merged.kept_newer.is_empty());
    }
}
