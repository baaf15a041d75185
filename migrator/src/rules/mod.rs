//! The rule set: one TOML file per rule in `rules/`, embedded in the binary by `build.rs`.
//!
//! A rule file is the single source of a rule's id, documentation and examples. Rules that
//! code implements (`transform = "..."`) still have a file; data tables that transforms read
//! (the Cargo feature map) live in the rule file that owns them. The backend table, which
//! several stages read, is its own file (`backends`).
//!
//! `build.rs` also generates the registry from the files: `RuleId`, one variant per built-in
//! rule (code names rules only through it, so a wrong id does not compile), and `TransformId`,
//! one variant per transform name the files use. Findings carry a `RuleKey`: a `RuleId`, or
//! the id of a data rule from a user's rule file (`--rules DIR`), which names no transform.

pub mod backends;
pub mod data_words;
pub mod device_expr;
pub mod framework;
mod registry;

pub(crate) use registry::unset_rule;
use registry::EMBEDDED_RULES;
pub use registry::{
    Applicability, ModuleId, RuleHome, RuleId, RuleKey, Severity, TransformId, UserRule,
};

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;
use backends::{Backend, BackendTable};

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

/// One example of a rule, and a test of it (`cargo test --test rule_examples -- RULE-ID`).
///
/// With `after`, for `safe` rules `after` is exactly what the migrator makes of `before`; for
/// `manual` rules it is the port a person writes, and the migrator must report the rule on
/// `before` at `lines`. Either way `before` compiles against Burn 0.21 and `after` against
/// Burn 0.22.
///
/// Without `after`, the example is code the rule must leave alone: the migrator reports
/// nothing on it and leaves it byte for byte, so the same text is its own 0.22 port and
/// compiles against both versions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// The test's name after `<rule-id>::`; `example-<n>` (counting from 1) when absent.
    #[serde(default)]
    pub name: Option<String>,
    pub before: String,
    #[serde(default)]
    pub after: Option<String>,
    /// Lines of `before` (counting from 1) where the rule's findings for a person must be
    /// reported: every one of them, and no other. Required for `manual` rules' examples.
    #[serde(default)]
    pub lines: Vec<usize>,
    /// Burn features the example needs beyond the CPU baseline (`wgpu`, `cuda`, `tch`, ...).
    #[serde(default)]
    pub needs: Vec<String>,
    /// Every rule the port reports or edits on `before`, this example's own rule among them,
    /// when the example names them: `after` spells out what all of them make, so naming them
    /// says which rules' output the example holds (a change to `backend-generic-param` is a
    /// change to every example that names it), and the test fails when another rule starts or
    /// stops firing on it. Absent, only the example's own rule must fire.
    #[serde(default)]
    pub rules: Option<Vec<String>>,
}

impl Example {
    /// The example's test name within its rule.
    pub fn name(&self, position: usize) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("example-{}", position + 1))
    }
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
        /// Only in files that name one of these Burn items (`burn::store::ModuleSnapshot`):
        /// imported (by name, renamed, or by a glob of its module) or written as a path. For
        /// trait methods, whose calls need the trait in scope, and for method names other
        /// types share.
        #[serde(default)]
        in_files_naming: Vec<String>,
        message: String,
    },
    /// Trait methods whose signature changed: implementations of `trait` that define one of
    /// `functions` (overriding a provided method, say) are reported. With no `functions`, the
    /// trait itself changed (new supertraits): every implementation is reported.
    ReportImplFn {
        #[serde(rename = "trait")]
        trait_name: String,
        functions: Vec<String>,
        message: String,
    },
    /// Fields whose type changed: reads `expr.field` and struct literals `Type { field: .. }`
    /// of `fields`, in files that name Burn's `type_path` (imported, or written as a path that
    /// the file's imports resolve to Burn's type). A field of that name on another type in
    /// such a file is reported too; files that do not name the type are left alone.
    ReportField {
        type_path: String,
        fields: Vec<String>,
        message: String,
        /// Methods of the field's 0.22 type: in code on 0.22 (a port), a read that is the
        /// receiver of one (`item.image.iter()`) uses the new type and is not reported.
        #[serde(default)]
        ported_receiver_of: Vec<String>,
    },
    /// Calls of a method (`.name(..)`) or function (`Type::name(..)`) with `arity`
    /// arguments: renamed to `to` and/or given new arguments built from `args` templates,
    /// where `{0}`, `{1}`, ... are the original arguments. A `function` written as Burn's
    /// path (`burn::tensor::module::interpolate`) matches only calls whose callee the file's
    /// imports resolve to Burn's item of that name, so a project function of the same name
    /// is left alone (the same holds for `report-call`).
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
        /// Burn items the new arguments name by their last segment
        /// (`burn::tensor::ops::MaxPoolOptions`): imported where the file lacks them.
        #[serde(default)]
        imports: Vec<String>,
    },
}

impl DataRule {
    /// Words of which the text of a file must hold one for the rule to find anything there
    /// (`transforms::data_rules`); `None` when any file may do. Every site the rule finds
    /// spells one:
    /// - a renamed or removed path, written out or imported (the import spells it), ends in
    ///   its last segment, and a pattern `module::*` matches only paths through `module`;
    /// - a call is found by its method's name or its callee's last segment;
    /// - an implementation by its trait's last segment, a field by its name.
    ///
    /// An empty list: the rule finds nothing anywhere (a rename without a target is the
    /// imports step's, which drops the import).
    pub fn words(&self) -> Option<Vec<&str>> {
        fn last_part(path: &str) -> &str {
            path.rsplit("::").next().unwrap_or(path)
        }
        match self {
            DataRule::RenamePath { from, to } => {
                Some(to.as_ref().map(|_| last_part(from)).into_iter().collect())
            }
            DataRule::RemovedItem { paths, .. } => paths
                .iter()
                .map(|pattern| {
                    let module = pattern.strip_suffix("::*").unwrap_or(pattern);
                    Some(last_part(module)).filter(|word| *word != "*")
                })
                .collect(),
            DataRule::ReportCall {
                method, function, ..
            }
            | DataRule::RewriteCall {
                method, function, ..
            } => Some(
                (method.as_deref().into_iter())
                    .chain(function.as_deref().map(last_part))
                    .collect(),
            ),
            DataRule::ReportImplFn { trait_name, .. } => Some(vec![last_part(trait_name)]),
            DataRule::ReportField { fields, .. } => {
                Some(fields.iter().map(String::as_str).collect())
            }
        }
    }
}

/// A Cargo feature of `burn` that 0.22 renamed or removed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureMap {
    /// The package whose feature this is: `burn` unless said (`burn-store`).
    #[serde(default = "burn_package")]
    pub package: String,
    pub from: String,
    /// The 0.22 name; absent when the feature is simply gone.
    #[serde(default)]
    pub to: Option<String>,
    /// Report the feature for a person instead of changing it (deprecated backends).
    #[serde(default)]
    pub manual: Option<String>,
    #[serde(skip, default = "unset_rule")]
    pub rule: RuleKey,
}

fn burn_package() -> String {
    "burn".to_string()
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
    #[serde(skip, default = "unset_rule")]
    pub rule: RuleKey,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    /// The id as findings name it (set when the file is loaded).
    #[serde(skip, default = "unset_rule")]
    pub key: RuleKey,
    pub title: String,
    pub category: Category,
    pub applicability: Applicability,
    /// What the rule's findings mean for the port: `error` where a site left as it is keeps
    /// the port from compiling, `warning` where it compiles but may behave differently. Every
    /// built-in rule states it (the rule_examples test checks it); a user's rule that does
    /// not is an `error` ([`Rule::severity`]).
    #[serde(default, rename = "severity")]
    pub stated_severity: Option<Severity>,
    /// Markdown: what changed in Burn 0.22 and why the rewrite is right.
    pub why: String,
    /// One line shown under each diagnostic.
    pub hint: String,
    /// Markdown, for rules `--apply` fixes: what the fix can change in behaviour (numerics of
    /// another backend, a call that can now panic, another default device), or why it cannot.
    /// Every safe rule has one (the rule_examples test checks it).
    #[serde(default)]
    pub fix_safety: Option<String>,
    /// The Rust transform that implements the rule, for rules that data cannot express:
    /// `migrate/transforms/<name>.rs`, whose descriptor declares the rule.
    #[serde(default)]
    pub transform: Option<String>,
    /// The module of the migrate wing that implements the rule, for rules outside the
    /// transforms (Cargo files, doc tests, `include!` calls): `migrate/<name>.rs`, whose
    /// `HOME` declares the rule. A rule's home is this, its `transform`, or its `[[rewrite]]`
    /// tables.
    #[serde(default)]
    pub module: Option<String>,
    /// Rows of the API-change catalogue (`book/api-changes-rows.tsv`) this rule ports.
    #[serde(default)]
    pub covers: Vec<String>,
    /// The public items of Burn the rule maps, by path in each release (checked against the
    /// public API lists in `framework/api/`).
    #[serde(default)]
    pub api: ApiItems,
    /// Lists of Burn 0.21 items the rule's code reads (checked against the public API lists
    /// like `api`).
    #[serde(default)]
    pub api_lists: ApiLists,
    #[serde(default, rename = "example")]
    pub examples: Vec<Example>,
    /// Why a `safe` rule that edits Rust code has no example it must leave alone (every other
    /// such rule needs one; the rule_examples test checks it).
    #[serde(default)]
    pub negative_example_exempt: Option<String>,
    #[serde(default, rename = "feature")]
    pub features: Vec<FeatureMap>,
    #[serde(default, rename = "rewrite")]
    pub rewrites: Vec<DataRule>,
    #[serde(default, rename = "feature_add")]
    pub feature_adds: Vec<FeatureAdd>,
}

impl Rule {
    /// The rule's severity: as its file states it, else `error`.
    pub fn severity(&self) -> Severity {
        self.stated_severity.unwrap_or(Severity::Error)
    }
}

/// Paths of public Burn items (`burn::tensor::Tensor::argmax`): what a rule ports from 0.21
/// and what it ports to in 0.22 (empty when 0.22 has no counterpart).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiItems {
    #[serde(default)]
    pub before: Vec<String>,
    #[serde(default)]
    pub after: Vec<String>,
    /// Why `before` names nothing: the rule's 0.21 items are behind a Cargo feature the public
    /// API lists were made without, or the rule is about no item of Burn.
    #[serde(default)]
    pub unlisted: Option<String>,
}

/// Lists of public Burn 0.21 items, by path, that the code of a rule reads: facts about
/// Burn's API that belong with the rule files and the API check they get, not in Rust.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiLists {
    /// Types whose first generic argument is the backend (`burn::tensor::Tensor`): an
    /// unbounded parameter used there is a backend parameter too (`index`).
    #[serde(default)]
    pub backend_first_types: Vec<String>,
    /// Functions and methods that take a device argument (`burn::tensor::Tensor::zeros`):
    /// a `Default::default()` passed to one is a device (`transforms::device_values`).
    #[serde(default)]
    pub device_taking: Vec<String>,
}

impl ApiLists {
    /// Every path of every list.
    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.backend_first_types.iter().chain(&self.device_taking)
    }
}

/// Where a rule file comes from: built-in files get a `RuleId`, user files are data rules.
#[derive(Debug, Clone, Copy)]
enum Origin {
    Builtin,
    User,
}

#[derive(Debug, Clone)]
pub struct RuleSet {
    rules: BTreeMap<String, Rule>,
    backends: BackendTable,
    /// `data_rule_words`, made when first asked (after the last rule is added).
    data_words: std::sync::OnceLock<data_words::DataRuleWords>,
    /// The rules that run (`select`): all, unless a selection narrowed them.
    selection: Selection,
}

/// Which rules run: `--select` and `--ignore`, or a project's configuration of them.
#[derive(Debug, Clone, Default)]
struct Selection {
    /// Only these rule ids, when set.
    only: Option<std::collections::BTreeSet<String>>,
    ignored: std::collections::BTreeSet<String>,
}

impl RuleSet {
    /// The rules and the backend table compiled into the binary.
    pub fn embedded() -> Result<Self, Error> {
        let mut set = RuleSet {
            rules: BTreeMap::new(),
            backends: BackendTable::embedded()?,
            data_words: std::sync::OnceLock::new(),
            selection: Selection::default(),
        };
        for (name, text) in EMBEDDED_RULES {
            set.add(Path::new(name), text, Origin::Builtin)?;
        }
        set.backends
            .check_rules(|id| set.rules.get(id).map(|r| r.key))?;
        Ok(set)
    }

    /// The same rules with another backend table (checked against the rules).
    pub fn with_backend_table(mut self, mut table: BackendTable) -> Result<Self, Error> {
        table.check_rules(|id| self.rules.get(id).map(|r| r.key))?;
        self.backends = table;
        Ok(self)
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
            self.add(&path, &text, Origin::User)?;
        }
        Ok(())
    }

    fn add(&mut self, path: &Path, text: &str, origin: Origin) -> Result<(), Error> {
        self.data_words = std::sync::OnceLock::new();
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
        rule.key = match (origin, RuleId::from_id(&rule.id)) {
            (Origin::Builtin, Some(id)) => RuleKey::Builtin(id),
            (Origin::Builtin, None) => {
                return Err(Error::Internal(format!(
                    "embedded rule file {} has no RuleId: build.rs generates one per file",
                    path.display()
                )))
            }
            (Origin::User, _) if rule.transform.is_some() || rule.module.is_some() => {
                return Err(Error::Rule {
                    path: path.to_path_buf(),
                    message: "user rule files declare data rules only: remove `transform` and `module` (their code is built into burn-migrate)".to_string(),
                })
            }
            // Rule sets are loaded once per run; interning the id lets findings carry it by copy.
            (Origin::User, _) => RuleKey::User(UserRule {
                id: Box::leak(rule.id.clone().into_boxed_str()),
                applicability: rule.applicability,
            }),
        };
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

    /// The file of a built-in rule; every `RuleId` has one (build.rs generates them from the
    /// files embedded here).
    pub fn builtin(&self, id: RuleId) -> Result<&Rule, Error> {
        self.rule(RuleKey::Builtin(id))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values()
    }

    /// The backends of the backend table, each with its 0.22 port.
    pub fn backends(&self) -> impl Iterator<Item = &Backend> {
        self.backends.backends.iter()
    }

    pub fn backend_table(&self) -> &BackendTable {
        &self.backends
    }

    /// The words each data rule needs a file to spell (`DataRule::words`), in the order of
    /// `data_rules`.
    pub fn data_rule_words(&self) -> &data_words::DataRuleWords {
        (self.data_words).get_or_init(|| {
            data_words::DataRuleWords::new(self.data_rules().map(|(_, d)| d.words()))
        })
    }

    /// Every data rewrite, with the id of the rule that declares it.
    pub fn data_rules(&self) -> impl Iterator<Item = (RuleKey, &DataRule)> {
        self.rules
            .values()
            .flat_map(|r| r.rewrites.iter().map(move |d| (r.key, d)))
    }

    /// The last segments of the paths of one of the rules' `[api_lists]` (`list` picks it), as
    /// code matches them.
    pub fn api_list_names(
        &self,
        list: impl Fn(&ApiLists) -> &Vec<String>,
    ) -> std::collections::HashSet<String> {
        (self.api_list_paths(list))
            .map(|path| path.rsplit("::").next().unwrap_or(path).to_string())
            .collect()
    }

    /// The Burn 0.21 paths of an API list, from every rule that has one.
    pub fn api_list_paths<'a>(
        &'a self,
        list: impl Fn(&ApiLists) -> &Vec<String> + 'a,
    ) -> impl Iterator<Item = &'a String> + 'a {
        self.rules.values().flat_map(move |r| list(&r.api_lists))
    }

    /// Cargo features to add where the code needs them.
    pub fn feature_adds(&self) -> impl Iterator<Item = &FeatureAdd> {
        self.rules.values().flat_map(|r| r.feature_adds.iter())
    }

    /// Cargo feature renames and removals, gathered from every rule that carries them.
    pub fn feature_maps(&self) -> impl Iterator<Item = &FeatureMap> {
        self.rules.values().flat_map(|r| r.features.iter())
    }

    /// The rule id closest to `wrong`, as the end of a message: ` (did you mean `x`?)`, or
    /// nothing when no id is close.
    pub fn did_you_mean(&self, wrong: &str) -> String {
        crate::util::suggest::did_you_mean(wrong, self.rules.keys().map(String::as_str))
    }

    /// Runs only the rules `only` names (every rule when `None`), less those `ignored` names.
    /// The ids must be rules of the set ([`RuleSet::get`]); the caller says where a wrong one
    /// came from.
    pub fn select(&mut self, only: Option<&[String]>, ignored: &[String]) {
        self.selection = Selection {
            only: only.map(|ids| ids.iter().cloned().collect()),
            ignored: ignored.iter().cloned().collect(),
        };
    }

    /// Whether the rule's findings are reported and its fixes made: dropped like a site under
    /// an `allow` comment otherwise. The tool's own edits in scratch copies always are.
    pub fn is_selected(&self, rule: RuleKey) -> bool {
        if matches!(rule, RuleKey::Tool(_)) {
            return true;
        }
        let id = rule.as_str();
        let Selection { only, ignored } = &self.selection;
        only.as_ref().is_none_or(|only| only.contains(id)) && !ignored.contains(id)
    }

    /// Looks a rule up for a diagnostic. Built-in ids are generated from the embedded files and
    /// user ids come from loaded files, so a miss is a bug in the tool.
    pub fn rule(&self, key: RuleKey) -> Result<&Rule, Error> {
        self.get(key.as_str())
            .ok_or_else(|| Error::Internal(format!("rule `{key}` has no file in rules/")))
    }
}

impl RuleSet {
    /// Ports the backends the command line chooses for (`chosen`: option name -> constructor,
    /// `ndarray-to` -> `cpu`), and points the Cargo feature maps of those backends' 0.21
    /// features at the chosen devices' features.
    pub fn apply_policy(&mut self, chosen: &BTreeMap<String, String>) -> Result<(), Error> {
        self.backends.choose(chosen)?;
        let ported: BTreeMap<&str, &str> = self
            .backends
            .backends
            .iter()
            .filter(|b| b.goes_to.is_some())
            .map(|b| (b.burn_feature.as_str(), b.feature.as_str()))
            .collect();
        for rule in self.rules.values_mut() {
            for map in &mut rule.features {
                if let Some(feature) = ported.get(map.from.as_str()) {
                    map.to = Some(feature.to_string());
                }
            }
            // A feature kept as it is needs no map (a rename to itself would drop it).
            rule.features
                .retain(|m| m.to.as_deref() != Some(m.from.as_str()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_rule_words_are_the_names_each_site_spells() {
        let removed = |paths: &[&str]| DataRule::RemovedItem {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            message: None,
        };
        assert_eq!(
            removed(&["burn::record::Recorder", "burn::train::metric::*"]).words(),
            Some(vec!["Recorder", "metric"])
        );
        assert_eq!(removed(&["burn::a::B", "*"]).words(), None);
        let rename = |to: Option<&str>| DataRule::RenamePath {
            from: "burn::optim::Old".into(),
            to: to.map(str::to_string),
        };
        assert_eq!(rename(Some("burn::optim::New")).words(), Some(vec!["Old"]));
        assert_eq!(rename(None).words(), Some(vec![]));
        let call = DataRule::ReportCall {
            method: Some("iter".into()),
            function: Some("burn::data::Dataset::get".into()),
            arity: None,
            chain_root: vec![],
            in_files_naming: vec![],
            message: String::new(),
        };
        assert_eq!(call.words(), Some(vec!["iter", "get"]));
        let field = DataRule::ReportField {
            type_path: "burn::nn::conv::Conv2dConfig".into(),
            fields: vec!["padding".into(), "stride".into()],
            message: String::new(),
            ported_receiver_of: vec![],
        };
        assert_eq!(field.words(), Some(vec!["padding", "stride"]));
        let implementation = DataRule::ReportImplFn {
            trait_name: "burn::train::TrainStep".into(),
            functions: vec!["step".into()],
            message: String::new(),
        };
        assert_eq!(implementation.words(), Some(vec!["TrainStep"]));
        // Every embedded data rule has words: none reads every file.
        let rules = RuleSet::embedded().unwrap();
        assert!(rules.data_rules().all(|(_, d)| d.words().is_some()));
    }

    const USER_RULE: &str = "id = \"team-rule\"\ntitle = \"t\"\ncategory = \"tensors\"\napplicability = \"safe\"\nhint = \"h\"\nwhy = \"w\"\n";

    #[test]
    fn builtin_rules_get_their_generated_id_and_user_rules_their_own() {
        let mut rules = RuleSet::embedded().unwrap();
        for id in RuleId::ALL {
            assert_eq!(rules.builtin(*id).unwrap().key, RuleKey::Builtin(*id));
        }
        rules
            .add(Path::new("team-rule.toml"), USER_RULE, Origin::User)
            .unwrap();
        assert_eq!(
            rules.get("team-rule").unwrap().key,
            RuleKey::User(UserRule {
                id: "team-rule",
                applicability: Applicability::Safe,
            })
        );
    }

    /// The applicability a finding's key carries (the default of its fixes) is its rule
    /// file's: generated for built-in rules, taken from the file for a user's.
    #[test]
    fn keys_carry_their_rule_files_applicability() {
        let mut rules = RuleSet::embedded().unwrap();
        for rule in rules.iter() {
            assert_eq!(rule.key.applicability(), rule.applicability, "{}", rule.id);
        }
        let manual = USER_RULE.replace("\"safe\"", "\"manual\"");
        rules
            .add(Path::new("team-rule.toml"), &manual, Origin::User)
            .unwrap();
        let key = rules.get("team-rule").unwrap().key;
        assert_eq!(key.applicability(), Applicability::Manual);
    }

    #[test]
    fn user_rules_cannot_name_a_transform() {
        let mut rules = RuleSet::embedded().unwrap();
        let text = format!("{USER_RULE}transform = \"imports\"\n");
        let error = rules
            .add(Path::new("team-rule.toml"), &text, Origin::User)
            .unwrap_err();
        assert!(error.to_string().contains("data rules only"), "{error}");
    }
}
