//! The devices a port runs on: the `Device::<constructor>(..)` calls in its code, what each
//! needs (a Cargo feature of `burn`), and which of them work on this machine. The constructors
//! are the 0.22 devices of the backend table (`rules/tables/backends.toml`), so verify knows
//! exactly the devices the migration can write.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ra_ap_syntax::ast::{self, HasArgList, HasAttrs};
use ra_ap_syntax::{AstNode, Edition, TextRange};

use crate::error::Error;
use crate::prove::probe::{self, Probe};
use crate::rules::backends::ProbeSpec;
use crate::rules::RuleSet;
use crate::util::syntax::segment_names;

/// One device constructor of Burn 0.22.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constructor {
    /// `vulkan` for `Device::vulkan(..)`.
    pub name: String,
    /// The expression for the default device of that kind (`Device::vulkan(DeviceKind::DefaultDevice)`).
    pub default_expression: String,
    /// The `burn` feature that provides it.
    pub feature: String,
    /// The device keeps tensors in CubeCL's memory pools (`memory_pool_usage()` answers).
    pub memory_pools: bool,
    /// Pure Rust on the CPU: it works wherever the port builds.
    pub pure_rust: bool,
    /// How to find out whether it works here.
    pub probe: Option<ProbeSpec>,
    /// Its feature builds CubeCL's LLVM bundle, downloaded at build time.
    pub llvm_bundle: bool,
}

/// The 0.22 devices of the rule set's backend table, by constructor name.
pub fn constructors(rules: &RuleSet) -> BTreeMap<String, Constructor> {
    let mut out = BTreeMap::new();
    for backend in rules.backends() {
        let Some((device, feature)) = backend.own_device() else {
            continue;
        };
        let name = &device.constructor;
        out.insert(
            name.to_string(),
            Constructor {
                name: name.to_string(),
                default_expression: device.to_string(),
                feature: feature.to_string(),
                memory_pools: backend.memory_pools,
                pure_rust: backend.pure_rust,
                probe: backend.probe.clone(),
                llvm_bundle: backend.llvm_bundle,
            },
        );
    }
    out
}

/// A constructor call found in a file: its name, the range of the name and its argument list
/// (`vulkan(DeviceKind::DefaultDevice)`), and the `#[cfg(feature = ..)]` conditions around it.
pub struct ConstructorCall {
    pub name: String,
    pub name_and_args: TextRange,
    /// (feature, whether it must be on) for each feature condition on an enclosing item.
    pub feature_conditions: Vec<(String, bool)>,
}

impl ConstructorCall {
    /// Whether the call is compiled when the package is built with `features` on.
    pub fn compiled_with(&self, features: &BTreeSet<String>) -> bool {
        self.feature_conditions
            .iter()
            .all(|(feature, on)| features.contains(feature) == *on)
    }
}

/// `#[cfg(feature = "x")]` -> ("x", true); `#[cfg(not(feature = "x"))]` -> ("x", false).
/// Other conditions are not features and are taken as true.
fn feature_condition(attr: &ast::Attr) -> Option<(String, bool)> {
    let text: String = attr
        .syntax()
        .text()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let inner = text.strip_prefix("#[cfg(")?.strip_suffix(")]")?;
    let (inner, on) = match inner.strip_prefix("not(").and_then(|i| i.strip_suffix(')')) {
        Some(negated) => (negated, false),
        None => (inner, true),
    };
    let feature = inner.strip_prefix("feature=\"")?.strip_suffix('"')?;
    (!feature.contains('"')).then(|| (feature.to_string(), on))
}

/// The features a package's default build turns on: `default` and what it enables in turn.
pub fn default_features(manifest: &Path) -> BTreeSet<String> {
    let mut on = BTreeSet::new();
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return on;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return on;
    };
    let Some(table) = doc.get("features").and_then(|f| f.as_table_like()) else {
        return on;
    };
    let mut queue = vec!["default".to_string()];
    while let Some(feature) = queue.pop() {
        if !on.insert(feature.clone()) {
            continue;
        }
        let enables = table.get(&feature).and_then(|v| v.as_array());
        for entry in enables.into_iter().flatten().filter_map(|v| v.as_str()) {
            if !entry.contains('/') && !entry.starts_with("dep:") {
                queue.push(entry.to_string());
            }
        }
    }
    on
}

/// Every `Device::<constructor>(..)` call (also `burn::tensor::Device::..`) in `text`.
pub fn constructor_calls(
    text: &str,
    known: &BTreeMap<String, Constructor>,
) -> Vec<ConstructorCall> {
    // Parsed as the port parses (bounded nesting, trees dropped here, see `source::parse`).
    let root = crate::migrate::source::parse(text, Edition::Edition2021).0;
    let mut out = Vec::new();
    for call in root.syntax().descendants().filter_map(ast::CallExpr::cast) {
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let names = segment_names(&path);
        let [.., ty, name] = names.as_slice() else {
            continue;
        };
        if ty != "Device" || !known.contains_key(name.as_str()) {
            continue;
        }
        let (Some(segment), Some(args)) = (path.segment(), call.arg_list()) else {
            continue;
        };
        let feature_conditions = call
            .syntax()
            .ancestors()
            .filter_map(ast::AnyHasAttrs::cast)
            .flat_map(|node| {
                node.attrs()
                    .filter_map(|a| feature_condition(&a))
                    .collect::<Vec<_>>()
            })
            .collect();
        out.push(ConstructorCall {
            name: name.clone(),
            name_and_args: segment
                .syntax()
                .text_range()
                .cover(args.syntax().text_range()),
            feature_conditions,
        });
    }
    out
}

/// Constructor names called in the package at `dir` (not in packages nested in it) when it is
/// built with its default features, with the text of each call from the name on
/// (`vulkan(DeviceKind::DefaultDevice)`).
pub fn devices_used(
    dir: &Path,
    known: &BTreeMap<String, Constructor>,
) -> BTreeMap<String, BTreeSet<String>> {
    let defaults = default_features(&dir.join("Cargo.toml"));
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in crate::util::files::rust_files(dir, false) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for call in constructor_calls(&text, known) {
            if !call.compiled_with(&defaults) {
                continue;
            }
            out.entry(call.name)
                .or_default()
                .insert(text[call.name_and_args].to_string());
        }
    }
    out
}

/// Whether a device works here, probed in a child process; `Err` says why not.
pub fn check_device(device: &Constructor, cache: &Path) -> Result<(), Error> {
    let name = &device.name;
    if device.pure_rust {
        return Ok(());
    }
    if device.llvm_bundle {
        return Err(Error::DeviceNeedsDownload {
            device: name.clone(),
            feature: device.feature.clone(),
        });
    }
    let Some(spec) = &device.probe else {
        return Err(Error::DeviceNotProbed {
            device: name.clone(),
            probed: probe::devices()
                .iter()
                .map(|p| p.device.as_str())
                .collect::<Vec<_>>()
                .join(" and "),
        });
    };
    let probe_name = &spec.device;
    let probe = probe_name.clone();
    match probe::probe(probe_name, cache) {
        Ok(Probe::Works(_)) => Ok(()),
        Ok(Probe::Crashed(why)) => Err(Error::DeviceCrashed { probe, why }),
        Ok(Probe::Failed(why)) => Err(Error::DeviceFails { probe, why }),
        Ok(Probe::NotBuilt(why)) => Err(Error::ProbeNotBuilt { probe, why }),
        Err(error) => Err(Error::ProbeRun {
            probe,
            source: Box::new(error),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::backends::BackendTable;

    #[test]
    fn a_backend_added_to_the_table_is_a_known_device() {
        let photon = "[[backend]]\ntypes = [\"Photon\"]\ncrate = \"burn-photon\"\nburn_feature = \"photon\"\nrule = \"device-cuda\"\ndevice = \"Device::photon(0)\"\nfeature = \"photon\"\nmemory_pools = true\n";
        let table = BackendTable::parse(photon).unwrap();
        let rules = RuleSet::embedded()
            .unwrap()
            .with_backend_table(table)
            .unwrap();
        let known = constructors(&rules);
        let device = &known["photon"];
        assert_eq!(device.default_expression, "Device::photon(0)");
        assert_eq!(device.feature, "photon");
        assert!(device.memory_pools);
        let why = check_device(device, Path::new("/nonexistent")).unwrap_err();
        assert!(why.to_string().contains("cannot be probed"), "{why}");
        let calls = constructor_calls("fn f() { let d = Device::photon(3); }", &known);
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn calls_compiled_out_by_default_features_do_not_count() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"p\"\n\n[features]\ndefault = [\"gpu\"]\ngpu = [\"vk\"]\nvk = []\ncuda = []\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("src/main.rs"),
            "#[cfg(feature = \"cuda\")]\nfn device() -> Device { Device::cuda(0) }\n\n#[cfg(not(feature = \"cuda\"))]\nfn device() -> Device {\n    #[cfg(feature = \"vk\")]\n    let d = Device::vulkan(DeviceKind::DefaultDevice);\n    d\n}\n\n#[cfg(test)]\nmod tests { fn t() { let _ = Device::flex(); } }\n",
        )
        .unwrap();
        let known = constructors(&RuleSet::embedded().unwrap());
        let used = devices_used(dir.path(), &known);
        assert_eq!(used.keys().collect::<Vec<_>>(), ["flex", "vulkan"]);
        assert_eq!(
            default_features(&dir.path().join("Cargo.toml")),
            ["default", "gpu", "vk"].map(String::from).into()
        );
    }
}
