//! A project's settings for its port: which rules run (`select`, `ignore`) and where the
//! deprecated backends go (`ndarray-to`, `libtorch-to`: the backend table's options, as the
//! command line names them). Read from, first to last:
//!
//! 1. the command line (`--select`, `--ignore`, `--ndarray-to`, ..);
//! 2. `burn-migrate.toml` at the workspace root (beside its `[verify]` table);
//! 3. `[package.metadata.burn-migrate]` of the manifest the run was given;
//! 4. `[workspace.metadata.burn-migrate]` of the workspace root's manifest.
//!
//! Each key is taken from the first of them that sets it: a project's `ignore` still holds
//! under a `--select` given on the command line, and `--ignore` on the command line replaces
//! the project's `ignore` list.
//!
//! ```toml
//! [workspace.metadata.burn-migrate]
//! ignore = ["nan-extrema"]
//! ndarray-to = "cpu"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::migrate::discover::Metadata;
use crate::rules::RuleSet;
use crate::util::suggest::did_you_mean;

/// The file beside the workspace root's manifest.
pub const FILE_NAME: &str = "burn-migrate.toml";

/// The table of a manifest's `[package.metadata]` or `[workspace.metadata]` that holds them.
const METADATA_KEY: &str = "burn-migrate";

/// What one place (the command line, a file, a manifest table) sets; unset keys are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Only these rules run.
    pub select: Option<Vec<String>>,
    /// These rules do not run.
    pub ignore: Option<Vec<String>>,
    /// Backend table option -> device (`ndarray-to` -> `cpu`).
    pub choices: BTreeMap<String, String>,
}

/// Where a setting came from, for messages that name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    /// A file (`burn-migrate.toml`), or a manifest with the table in it.
    File {
        path: PathBuf,
        table: Option<String>,
    },
}

impl Origin {
    /// The error for a wrong `key` here: the command line's is a usage error (exit 2 with
    /// the option), a file's names the file and table.
    fn error(&self, key: &str, message: String) -> Error {
        match self {
            Origin::CommandLine => Error::Usage(format!("--{key}: {message}")),
            Origin::File { path, table } => Error::Config {
                path: path.clone(),
                message: match table {
                    Some(table) => format!("[{table}] `{key}`: {message}"),
                    None => format!("`{key}`: {message}"),
                },
            },
        }
    }
}

/// The settings of the run: the command line's over the project's (see the module's list),
/// each key checked against the rule set and the backend table.
pub fn resolve(
    command_line: Settings,
    metadata: &Metadata,
    rules: &RuleSet,
) -> Result<Settings, Error> {
    let options = policy_options(rules);
    let mut layers = vec![(Origin::CommandLine, command_line)];
    layers.extend(project_layers(metadata, &options)?);
    let mut resolved = Settings::default();
    for (origin, settings) in &layers {
        check(origin, settings, rules)?;
        if resolved.select.is_none() {
            resolved.select.clone_from(&settings.select);
        }
        if resolved.ignore.is_none() {
            resolved.ignore.clone_from(&settings.ignore);
        }
        for (option, choice) in &settings.choices {
            (resolved.choices)
                .entry(option.clone())
                .or_insert_with(|| choice.clone());
        }
    }
    Ok(resolved)
}

/// The rules the settings select, and the devices they choose, applied to `rules`.
pub fn apply(settings: &Settings, rules: &mut RuleSet) -> Result<(), Error> {
    rules.apply_policy(&settings.choices)?;
    rules.select(
        settings.select.as_deref(),
        settings.ignore.as_deref().unwrap_or_default(),
    );
    Ok(())
}

/// The backend table's options, with the devices each takes.
fn policy_options(rules: &RuleSet) -> BTreeMap<String, Vec<String>> {
    (rules.backend_table().policies().into_iter())
        .map(|p| (p.flag, p.choices))
        .collect()
}

/// Every rule id names a rule; every option a device it takes.
fn check(origin: &Origin, settings: &Settings, rules: &RuleSet) -> Result<(), Error> {
    for (key, ids) in [("select", &settings.select), ("ignore", &settings.ignore)] {
        for id in ids.iter().flatten() {
            if rules.get(id).is_none() {
                let message = format!(
                    "no rule `{id}`{}; `burn-migrate rules` lists them",
                    rules.did_you_mean(id)
                );
                return Err(origin.error(key, message));
            }
        }
    }
    let options = policy_options(rules);
    for (option, choice) in &settings.choices {
        let Some(devices) = options.get(option) else {
            continue;
        };
        if !devices.contains(choice) {
            let message = format!(
                "`{choice}` is not a device it takes{}; it takes one of: {}",
                did_you_mean(choice, devices.iter().map(String::as_str)),
                devices.join(", ")
            );
            return Err(origin.error(option, message));
        }
    }
    Ok(())
}

/// The project's places, in the order they win: `burn-migrate.toml`, the given manifest's
/// `[package.metadata.burn-migrate]`, the workspace's `[workspace.metadata.burn-migrate]`.
fn project_layers(
    metadata: &Metadata,
    options: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<(Origin, Settings)>, Error> {
    let root = metadata.root();
    let mut layers = Vec::new();
    let file = root.join(FILE_NAME);
    if let Ok(text) = std::fs::read_to_string(&file) {
        let origin = Origin::File {
            path: file.clone(),
            table: None,
        };
        let value: Value = toml_edit::de::from_str(&text).map_err(|e| Error::Config {
            path: file.clone(),
            message: e.to_string(),
        })?;
        // `[verify]` is verify's (`prove::verify::config`).
        layers.push(parse(&origin, &value, options, &["verify"])?);
    }
    let manifest = metadata.manifest();
    let package = metadata
        .package_metadata()
        .find(|(path, _)| same_file(path, manifest))
        .and_then(|(path, value)| Some((path.to_path_buf(), value.get(METADATA_KEY)?)));
    if let Some((path, value)) = package {
        let origin = Origin::File {
            path,
            table: Some(format!("package.metadata.{METADATA_KEY}")),
        };
        layers.push(parse(&origin, value, options, &[])?);
    }
    if let Some(value) = metadata.workspace_metadata().get(METADATA_KEY) {
        let origin = Origin::File {
            path: root.join("Cargo.toml"),
            table: Some(format!("workspace.metadata.{METADATA_KEY}")),
        };
        layers.push(parse(&origin, value, options, &[])?);
    }
    Ok(layers)
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok() == b.canonicalize().ok()
}

/// The settings of one table; `others`: keys that belong to someone else, passed over.
fn parse(
    origin: &Origin,
    value: &Value,
    options: &BTreeMap<String, Vec<String>>,
    others: &[&str],
) -> Result<(Origin, Settings), Error> {
    let table = value
        .as_object()
        .ok_or_else(|| origin.error(METADATA_KEY, "expected a table of settings".to_string()))?;
    let mut settings = Settings::default();
    for (key, value) in table {
        match key.as_str() {
            "select" | "ignore" => {
                let ids = rule_ids(value).ok_or_else(|| {
                    origin.error(
                        key,
                        "expected a list of rule ids, like `[\"nan-extrema\"]`".to_string(),
                    )
                })?;
                match key.as_str() {
                    "select" => settings.select = Some(ids),
                    _ => settings.ignore = Some(ids),
                }
            }
            option if options.contains_key(option) => {
                let choice = value.as_str().ok_or_else(|| {
                    let devices = options[option].join("\", \"");
                    origin.error(key, format!("expected a device name, one of \"{devices}\""))
                })?;
                settings.choices.insert(key.clone(), choice.to_string());
            }
            other if others.contains(&other) => {}
            other => {
                let mut known = vec!["select", "ignore"];
                known.extend(options.keys().map(String::as_str));
                known.extend(others);
                let message = format!(
                    "unknown setting{}; the settings are: {}",
                    did_you_mean(other, known.iter().copied()),
                    known.join(", ")
                );
                return Err(origin.error(other, message));
            }
        }
    }
    Ok((origin.clone(), settings))
}

/// A list of strings (`["a", "b"]`), or one string of ids separated by commas as the command
/// line takes them (`"a,b"`).
fn rule_ids(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::String(ids) => Some(split_ids(ids)),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::trim).map(str::to_string))
            .collect(),
        _ => None,
    }
}

/// `a, b` -> `[a, b]`.
fn split_ids(ids: &str) -> Vec<String> {
    (ids.split(','))
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> BTreeMap<String, Vec<String>> {
        policy_options(&RuleSet::embedded().unwrap())
    }

    fn origin() -> Origin {
        Origin::File {
            path: PathBuf::from("Cargo.toml"),
            table: Some("workspace.metadata.burn-migrate".into()),
        }
    }

    #[test]
    fn a_table_sets_rules_and_devices() {
        let value = serde_json::json!({
            "select": "nan-extrema, backend-seed",
            "ignore": ["backend-seed"],
            "ndarray-to": "cpu",
        });
        let (_, settings) = parse(&origin(), &value, &options(), &[]).unwrap();
        assert_eq!(
            settings.select.as_deref(),
            Some(&["nan-extrema".to_string(), "backend-seed".to_string()][..])
        );
        assert_eq!(
            settings.ignore.as_deref(),
            Some(&["backend-seed".to_string()][..])
        );
        assert_eq!(
            settings.choices.get("ndarray-to").map(String::as_str),
            Some("cpu")
        );
    }

    #[test]
    fn mistakes_name_the_table_and_the_key() {
        let error = parse(
            &origin(),
            &serde_json::json!({ "ignor": [] }),
            &options(),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("Cargo.toml: [workspace.metadata.burn-migrate] `ignor`")
                && error.contains("did you mean `ignore`"),
            "{error}"
        );
        let error = parse(
            &origin(),
            &serde_json::json!({ "select": 3 }),
            &options(),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("`select`: expected a list of rule ids"),
            "{error}"
        );
        let rules = RuleSet::embedded().unwrap();
        let settings = Settings {
            ignore: Some(vec!["nan_extrema".into()]),
            ..Settings::default()
        };
        let error = check(&Origin::CommandLine, &settings, &rules)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--ignore: no rule `nan_extrema` (did you mean `nan-extrema`?)"),
            "{error}"
        );
        let settings = Settings {
            choices: [("ndarray-to".to_string(), "cuda".to_string())].into(),
            ..Settings::default()
        };
        let error = check(&origin(), &settings, &rules).unwrap_err().to_string();
        assert!(
            error.contains("`ndarray-to`: `cuda` is not a device it takes"),
            "{error}"
        );
    }
}
