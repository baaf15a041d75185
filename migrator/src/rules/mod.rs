//! The rule set: one TOML file per rule in `rules/`, embedded in the binary by `build.rs`.
//!
//! A rule file is the single source of a rule's id, documentation and examples. Rules that
//! code implements (`transform = "..."`) still have a file; data tables that transforms read
//! (the backend-to-device mapping, the Cargo feature map) live in the rule file that owns them.

pub mod framework;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;

include!(concat!(env!("OUT_DIR"), "/embedded_rules.rs"));

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Tensors,
    Modules,
    Devices,
    Autodiff,
    Data,
    Records,
    Optim,
    Training,
    Cargo,
    Kernels,
}

/// How far the tool may go on its own with a rule's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Applied by `--apply`.
    Safe,
    /// Applied only with `--apply --unsafe`.
    Review,
    /// Reported with guidance, never edited.
    Manual,
}

impl fmt::Display for Applicability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Applicability::Safe => "safe",
            Applicability::Review => "review",
            Applicability::Manual => "manual",
        })
    }
}

/// A before/after pair. For `safe` and `review` rules, `after` is exactly what the migrator
/// makes of `before`; for `manual` rules it is the port a person writes, and the migrator must
/// report the rule on `before`. Either way `before` compiles against Burn 0.21 and `after`
/// against Burn 0.22.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub before: String,
    pub after: String,
    /// Burn features the example needs beyond the CPU baseline (`wgpu`, `cuda`, `tch`, ...).
    #[serde(default)]
    pub needs: Vec<String>,
}

/// A rewrite declared entirely in a rule file.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum DataRule {
    /// Imports and fully qualified uses of `from` become `to`; without `to` the import goes.
    RenamePath {
        from: String,
        #[serde(default)]
        to: Option<String>,
    },
    /// Items Burn 0.22 removed: their imports and uses are reported with the rule's guidance.
    /// A path ending in `::*` stands for everything in that module.
    RemovedItem {
        paths: Vec<String>,
        /// What the report says instead of "removed" (for items that changed behaviour).
        #[serde(default)]
        message: Option<String>,
    },
    /// Calls a person has to look at (the method still exists, its meaning or result changed).
    ReportCall {
        #[serde(default)]
        method: Option<String>,
        #[serde(default)]
        function: Option<String>,
        #[serde(default)]
        arity: Option<usize>,
        /// Only in method chains that start with a call of one of these functions.
        #[serde(default)]
        chain_root: Vec<String>,
        message: String,
    },
    /// Trait methods whose signature changed: implementations of `trait` that define one of
    /// `functions` (overriding a provided method, say) are reported.
    ReportImplFn {
        #[serde(rename = "trait")]
        trait_name: String,
        functions: Vec<String>,
        message: String,
    },
    /// Calls of a method (`.name(..)`) or function (`Type::name(..)`) with `arity`
    /// arguments: renamed to `to` and/or given new arguments built from `args` templates,
    /// where `{0}`, `{1}`, ... are the original arguments.
    RewriteCall {
        #[serde(default)]
        method: Option<String>,
        #[serde(default)]
        function: Option<String>,
        #[serde(default)]
        arity: Option<usize>,
        /// Only when the receiver is a call of one of these methods (`to_data`, `into_data`).
        #[serde(default)]
        receiver_call: Vec<String>,
        /// Only when the method chain starts with a call of one of these functions
        /// (`SupervisedTraining::new`): for method names other types share.
        #[serde(default)]
        chain_root: Vec<String>,
        #[serde(default)]
        to: Option<String>,
        #[serde(default)]
        args: Option<Vec<String>>,
    },
}

/// One 0.21 backend type and what replaces it in 0.22.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendEntry {
    /// The rule that declares the entry: device rewrites for this backend carry its id.
    #[serde(skip)]
    pub rule: &'static str,
    /// Type names of the backend (`NdArray`, `Wgpu`, ...), as exported by `burn::backend`.
    pub types: Vec<String>,
    /// Device types whose values select this backend (`NdArrayDevice`, ...).
    #[serde(default)]
    pub device_types: Vec<String>,
    /// The 0.22 device expression for the backend's default device.
    pub device: String,
    /// Template for a device variant or constructor: `{variant}` is the text after
    /// `DeviceType::` (`DiscreteGpu(0)`), `{args}` the arguments of `DeviceType::new(..)`.
    #[serde(default)]
    pub device_variant: Option<String>,
    #[serde(default)]
    pub device_new: Option<String>,
    /// Per-variant replacements, checked before `device_variant` (`Cuda = "Device::cuda({args})"`).
    #[serde(default)]
    pub variants: BTreeMap<String, String>,
    /// The Cargo feature of `burn` that provides the device in 0.22.
    pub feature: String,
}

/// A Cargo feature of `burn` that 0.22 renamed or removed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureMap {
    pub from: String,
    /// The 0.22 name; absent when the feature is simply gone.
    #[serde(default)]
    pub to: Option<String>,
    /// Report the feature for a person instead of changing it (deprecated backends).
    #[serde(default)]
    pub manual: Option<String>,
    #[serde(skip)]
    pub rule: &'static str,
}

/// A Burn feature 0.22 needs where 0.21 did not: added when the code uses a path.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureAdd {
    pub feature: String,
    /// The feature is needed when the workspace's code names this path (`burn::tensor::linalg`).
    pub when_path: String,
    /// Only for dependencies with `default-features = false` (the feature is a default one).
    #[serde(default)]
    pub only_without_default_features: bool,
    #[serde(skip)]
    pub rule: &'static str,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    /// The id, interned for the life of the program, for findings to name.
    #[serde(skip)]
    pub key: &'static str,
    pub title: String,
    pub category: Category,
    pub applicability: Applicability,
    /// Markdown: what changed in Burn 0.22 and why the rewrite is right.
    pub why: String,
    /// One line shown under each diagnostic.
    pub hint: String,
    /// The Rust transform that implements the rule, for rules that data cannot express.
    #[serde(default)]
    pub transform: Option<String>,
    /// Rows of the API-change catalogue (`book/api-changes-rows.tsv`) this rule ports.
    #[serde(default)]
    pub covers: Vec<String>,
    #[serde(default, rename = "example")]
    pub examples: Vec<Example>,
    #[serde(default, rename = "backend")]
    pub backends: Vec<BackendEntry>,
    #[serde(default, rename = "feature")]
    pub features: Vec<FeatureMap>,
    #[serde(default, rename = "rewrite")]
    pub rewrites: Vec<DataRule>,
    #[serde(default, rename = "feature_add")]
    pub feature_adds: Vec<FeatureAdd>,
}

#[derive(Debug, Clone)]
pub struct RuleSet {
    rules: BTreeMap<String, Rule>,
}

impl RuleSet {
    /// The rules compiled into the binary.
    pub fn embedded() -> Result<Self, Error> {
        let mut set = RuleSet {
            rules: BTreeMap::new(),
        };
        for (name, text) in EMBEDDED_RULES {
            set.add(Path::new(name), text)?;
        }
        Ok(set)
    }

    /// Adds a user's rule files (`--rules DIR`).
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), Error> {
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            self.add(&path, &text)?;
        }
        Ok(())
    }

    fn add(&mut self, path: &Path, text: &str) -> Result<(), Error> {
        let mut rule: Rule = toml_edit::de::from_str(text).map_err(|e| Error::Rule {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if rule.id != stem {
            return Err(Error::Rule {
                path: path.to_path_buf(),
                message: format!(
                    "rule id `{}` must match the file name `{stem}.toml`",
                    rule.id
                ),
            });
        }
        if self.rules.contains_key(&rule.id) {
            return Err(Error::Rule {
                path: path.to_path_buf(),
                message: format!("a rule with id `{}` is already defined", rule.id),
            });
        }
        // Rule sets are loaded once per run; interning the id lets findings carry `&'static str`.
        rule.key = Box::leak(rule.id.clone().into_boxed_str());
        for backend in &mut rule.backends {
            backend.rule = rule.key;
        }
        for add in &mut rule.feature_adds {
            add.rule = rule.key;
        }
        for map in &mut rule.features {
            map.rule = rule.key;
        }
        self.rules.insert(rule.id.clone(), rule);
        Ok(())
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.get(id)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values()
    }

    /// The backend-to-device table, gathered from every rule that carries one.
    pub fn backends(&self) -> impl Iterator<Item = &BackendEntry> {
        self.rules.values().flat_map(|r| r.backends.iter())
    }

    /// Every data rewrite, with the id of the rule that declares it.
    pub fn data_rules(&self) -> impl Iterator<Item = (&'static str, &DataRule)> {
        self.rules
            .values()
            .flat_map(|r| r.rewrites.iter().map(move |d| (r.key, d)))
    }

    /// Cargo features to add where the code needs them.
    pub fn feature_adds(&self) -> impl Iterator<Item = &FeatureAdd> {
        self.rules.values().flat_map(|r| r.feature_adds.iter())
    }

    /// Cargo feature renames and removals, gathered from every rule that carries them.
    pub fn feature_maps(&self) -> impl Iterator<Item = &FeatureMap> {
        self.rules.values().flat_map(|r| r.features.iter())
    }

    /// Looks a rule up for a diagnostic. Transforms name their rules by constant ids, and a
    /// test checks that each of those ids has a file, so a miss is a bug in the tool.
    pub fn rule(&self, id: &str) -> Result<&Rule, Error> {
        self.get(id)
            .ok_or_else(|| Error::Internal(format!("rule `{id}` has no file in rules/")))
    }
}

/// Where the deprecated CPU backends go (`--ndarray-to`, `--libtorch-to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpuTarget {
    /// Burn's pure-Rust CPU backend.
    #[default]
    Flex,
    /// CubeCL's CPU backend (needs CubeCL's LLVM bundle at build time).
    Cpu,
    /// Keep the deprecated backend (NdArray only).
    Keep,
}

impl CpuTarget {
    /// (device expression, Cargo feature) for this target; `keep` is the deprecated backend's own.
    fn device(self, keep: (&str, &str)) -> (String, String) {
        let (device, feature) = match self {
            CpuTarget::Flex => ("Device::flex()", "flex"),
            CpuTarget::Cpu => ("Device::cpu()", "cpu"),
            CpuTarget::Keep => keep,
        };
        (device.to_string(), feature.to_string())
    }
}

/// The backend choices a user makes on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct BackendPolicy {
    pub ndarray_to: CpuTarget,
    pub libtorch_cpu_to: CpuTarget,
}

impl RuleSet {
    /// Points the NdArray and LibTorch-CPU rows of the device table, and the Cargo features
    /// that follow them, at the chosen targets.
    pub fn apply_policy(&mut self, policy: BackendPolicy) {
        for rule in self.rules.values_mut() {
            for backend in &mut rule.backends {
                if backend.types.iter().any(|t| t == "NdArray") {
                    let (device, feature) =
                        policy.ndarray_to.device(("Device::ndarray()", "ndarray"));
                    backend.device = device;
                    backend.feature = feature;
                }
                if backend.types.iter().any(|t| t == "LibTorch") {
                    let (device, feature) =
                        policy.libtorch_cpu_to.device(("Device::libtorch()", "tch"));
                    backend.variants.insert("Cpu".to_string(), device.clone());
                    backend.device = device;
                    backend.feature = feature;
                }
            }
            for map in &mut rule.features {
                let target = match map.from.as_str() {
                    "ndarray" => policy.ndarray_to.device(("", "ndarray")).1,
                    "tch" => policy.libtorch_cpu_to.device(("", "tch")).1,
                    _ => continue,
                };
                map.to = Some(target);
            }
            // A feature kept as it is needs no map (a rename to itself would drop it).
            rule.features
                .retain(|m| m.to.as_deref() != Some(m.from.as_str()));
        }
    }
}
