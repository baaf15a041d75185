//! Third-party crates built on Burn 0.21: a dependency outside the workspace that itself
//! depends on `burn` (or a `burn-*` crate) older than 0.22 keeps a second Burn in the graph,
//! whose tensors and modules do not mix with the port's. The port cannot fix someone else's
//! crate, so each is a finding for a person. Found in `Cargo.lock` (registry, git and path
//! packages) and, without a lockfile, in the manifests of path dependencies.

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{DocumentMut, Item};

use crate::migrate::discover::{requirement_is_migrated, Workspace};
use crate::migrate::outcome::{ManifestChange, Report};
use crate::rules::framework::is_burn_package;
use crate::rules::{ModuleId, RuleHome, RuleId};

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::OldBurnDeps,
    emits: &[RuleId::CargoOldBurnDependency],
};

/// One third-party crate built on an older Burn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OldBurnDependency {
    pub krate: String,
    pub version: String,
    /// The Burn crate and version (or requirement) it depends on, as `burn 0.21.0`.
    pub burn: String,
    /// The workspace packages that depend on it directly (empty: only through other crates).
    pub users: Vec<String>,
}

/// Every third-party crate in the workspace's graph that depends on Burn before 0.22.
pub fn find(workspace: &Workspace) -> Vec<OldBurnDependency> {
    let members: Vec<&str> = workspace.packages.iter().map(|p| p.name.as_str()).collect();
    let mut found = match std::fs::read_to_string(workspace.root.join("Cargo.lock")) {
        Ok(lock) => in_lockfile(&lock, &members),
        Err(_) => Vec::new(),
    };
    for package in &workspace.packages {
        for (key, dir) in &package.path_dependencies {
            if members.contains(&key.as_str()) || found.iter().any(|f| f.krate == *key) {
                continue;
            }
            if let Some(mut dependency) = in_manifest(dir) {
                dependency.users.push(package.name.clone());
                found.push(dependency);
            }
        }
    }
    for dependency in &mut found {
        for package in &workspace.packages {
            if package.dependencies.contains(&dependency.krate)
                && !dependency.users.contains(&package.name)
            {
                dependency.users.push(package.name.clone());
            }
        }
    }
    found
}

/// A path dependency's own manifest asks for Burn before 0.22.
fn in_manifest(dir: &Path) -> Option<OldBurnDependency> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let doc: DocumentMut = text.parse().ok()?;
    let package = doc.get("package")?;
    let name = package.get("name")?.as_str()?;
    if is_burn_package(name) {
        return None;
    }
    let version = package
        .get("version")
        .and_then(Item::as_str)
        .unwrap_or("0.0.0");
    let dependencies = doc.get("dependencies")?.as_table_like()?;
    let (burn, requirement) = dependencies.iter().find_map(|(key, item)| {
        let dep = item.as_table_like();
        let name = dep
            .and_then(|d| d.get("package"))
            .and_then(Item::as_str)
            .unwrap_or(key);
        let requirement = item
            .as_str()
            .or_else(|| dep.and_then(|d| d.get("version")).and_then(Item::as_str))?;
        (is_burn_package(name) && !requirement_is_migrated(requirement))
            .then(|| (name.to_string(), requirement.to_string()))
    })?;
    Some(OldBurnDependency {
        krate: name.to_string(),
        version: version.to_string(),
        burn: format!("{burn} {requirement}"),
        users: Vec::new(),
    })
}

/// Lockfile packages outside the workspace (and outside Burn) whose dependencies include a
/// Burn crate before 0.22.
fn in_lockfile(lock: &str, members: &[&str]) -> Vec<OldBurnDependency> {
    let Ok(doc) = lock.parse::<DocumentMut>() else {
        return Vec::new();
    };
    let Some(packages) = doc.get("package").and_then(Item::as_array_of_tables) else {
        return Vec::new();
    };
    let field =
        |p: &toml_edit::Table, key: &str| p.get(key).and_then(Item::as_str).map(str::to_string);
    let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in packages.iter() {
        if let (Some(name), Some(version)) = (field(package, "name"), field(package, "version")) {
            versions.entry(name).or_default().push(version);
        }
    }
    // What the workspace's packages reach in the lock: a lockfile can hold entries of members
    // that were since removed (cargo prunes them at its next resolution), which are not in
    // the build.
    let key = |name: &str, version: &str| format!("{name} {version}");
    let edges: BTreeMap<String, Vec<String>> = packages
        .iter()
        .filter_map(|p| {
            let (name, version) = (field(p, "name")?, field(p, "version")?);
            let deps = p
                .get("dependencies")
                .and_then(Item::as_array)
                .into_iter()
                .flat_map(|a| a.iter())
                .filter_map(|v| v.as_str())
                .filter_map(|entry| {
                    let mut parts = entry.split_whitespace();
                    let dep = parts.next()?;
                    let version = match parts.next() {
                        Some(version) => version.to_string(),
                        None => versions.get(dep)?.first()?.clone(),
                    };
                    Some(key(dep, &version))
                })
                .collect();
            Some((key(&name, &version), deps))
        })
        .collect();
    let mut reachable: std::collections::BTreeSet<String> = edges
        .keys()
        .filter(|k| members.iter().any(|m| k.split(' ').next() == Some(*m)))
        .cloned()
        .collect();
    let mut queue: Vec<String> = reachable.iter().cloned().collect();
    while let Some(next) = queue.pop() {
        for dep in edges.get(&next).into_iter().flatten() {
            if reachable.insert(dep.clone()) {
                queue.push(dep.clone());
            }
        }
    }
    // No member in the lock (another layout): every entry counts, as before.
    let in_build = |name: &str, version: &str| {
        !members
            .iter()
            .any(|m| edges.keys().any(|k| k.split(' ').next() == Some(*m)))
            || reachable.contains(&key(name, version))
    };
    let mut found = Vec::new();
    for package in packages.iter() {
        let (Some(name), Some(version)) = (field(package, "name"), field(package, "version"))
        else {
            continue;
        };
        if is_burn_package(&name) || members.contains(&name.as_str()) || !in_build(&name, &version)
        {
            continue;
        }
        let dependencies = package
            .get("dependencies")
            .and_then(Item::as_array)
            .into_iter()
            .flat_map(|a| a.iter())
            .filter_map(|v| v.as_str());
        // An entry is `name` when the lock holds one version of it, else `name version`.
        let old_burn = dependencies.filter_map(|entry| {
            let mut parts = entry.split_whitespace();
            let dep = parts.next()?;
            let version = match parts.next() {
                Some(version) => version.to_string(),
                None => versions.get(dep)?.first()?.clone(),
            };
            (is_burn_package(dep) && !requirement_is_migrated(&version))
                .then(|| format!("{dep} {version}"))
        });
        if let Some(burn) = old_burn.into_iter().next() {
            found.push(OldBurnDependency {
                krate: name,
                version,
                burn,
                users: Vec::new(),
            });
        }
    }
    found
}

/// The finding's text: what, which of the project's packages use it, what to do.
pub fn message(dependency: &OldBurnDependency) -> String {
    let users = if dependency.users.is_empty() {
        "pulled in through other dependencies".to_string()
    } else {
        format!("used by {}", dependency.users.join(", "))
    };
    format!(
        "`{} {}` depends on `{}` ({users}): it keeps Burn 0.21 in the build next to 0.22, and their types do not mix; move to a release of it built on Burn 0.22, port it (`burn-migrate --apply` on its source), or drop it",
        dependency.krate, dependency.version, dependency.burn
    )
}

/// Third-party crates built on Burn 0.21 (`old_burn_deps`), reported on the manifest of each
/// package that depends on them, at the dependency's key.
pub fn findings(report: &mut Report, workspace: &Workspace) {
    for dependency in find(workspace) {
        let manifest = workspace
            .packages
            .iter()
            .find(|p| dependency.users.contains(&p.name))
            .map(|p| p.manifest.clone())
            .unwrap_or_else(|| workspace.root_manifest.clone());
        let index = report.manifests.iter().position(|m| m.path == manifest);
        let Some(target) = report.manifests.get_mut(index.unwrap_or(0)) else {
            continue;
        };
        target.changes.push(ManifestChange {
            rule: RuleId::CargoOldBurnDependency.into(),
            fix: None,
            key: dependency.krate.clone(),
            span: None,
            message: message(&dependency),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lockfile_packages_on_old_burn_are_found_but_not_burn_or_members() {
        let lock = r#"
[[package]]
name = "burn"
version = "0.21.0"

[[package]]
name = "burn-core"
version = "0.21.0"
dependencies = ["burn-tensor 0.21.0"]

[[package]]
name = "burn"
version = "0.22.1"

[[package]]
name = "old-ext"
version = "0.3.1"
dependencies = ["burn 0.21.0", "serde"]

[[package]]
name = "new-ext"
version = "1.0.0"
dependencies = ["burn 0.22.1"]

[[package]]
name = "app"
version = "0.1.0"
dependencies = ["burn 0.22.1", "old-ext"]
"#;
        let found = in_lockfile(lock, &["app"]);
        assert_eq!(
            found,
            vec![OldBurnDependency {
                krate: "old-ext".into(),
                version: "0.3.1".into(),
                burn: "burn 0.21.0".into(),
                users: Vec::new(),
            }]
        );
    }

    /// A stale entry (a member removed from the workspace, not yet pruned by cargo) is not in
    /// the build, nor is what only it pulled in.
    #[test]
    fn lock_entries_no_member_reaches_are_not_in_the_build() {
        let lock = r#"
[[package]]
name = "burn"
version = "0.21.0"

[[package]]
name = "old-ext"
version = "0.3.1"
dependencies = ["burn"]

[[package]]
name = "removed-member"
version = "0.1.0"
dependencies = ["old-ext"]

[[package]]
name = "app"
version = "0.1.0"
dependencies = ["burn"]
"#;
        assert!(in_lockfile(lock, &["app"]).is_empty());
        assert_eq!(in_lockfile(lock, &["app", "removed-member"]).len(), 1);
    }
}
