//! The devices a port runs on: the `Device::<constructor>(..)` calls in its code, what each
//! needs (a Cargo feature of `burn`), and which of them work on this machine. The constructors
//! are the 0.22 devices of the backend table (`rules/tables/backends.toml`), so verify knows
//! exactly the devices the migration can write.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ra_ap_syntax::ast::{self, HasArgList, HasAttrs, HasName};
use ra_ap_syntax::{AstNode, Edition, TextRange};

use crate::error::Error;
use crate::prove::probe::{self, Probe};
use crate::prove::verify::cfg;
use crate::prove::verify::types::CargoSelection;
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
/// (`vulkan(DeviceKind::DefaultDevice)`), and the `#[cfg(..)]` predicates around it.
pub struct ConstructorCall {
    pub name: String,
    pub name_and_args: TextRange,
    /// The predicate of each `#[cfg(..)]` on an enclosing item (`feature = "wgpu"`).
    pub conditions: Vec<String>,
}

impl ConstructorCall {
    /// Whether the call is compiled when its file is (under `file_conditions`) and the package
    /// is built with `features` on.
    pub fn compiled_with(&self, file_conditions: &[String], features: &BTreeSet<String>) -> bool {
        (self.conditions.iter().chain(file_conditions)).all(|p| cfg::holds(p, features))
    }
}

/// The predicate of a `#[cfg(..)]` (or inner `#![cfg(..)]`) attribute, whitespace left out.
fn cfg_predicate(attr: &ast::Attr) -> Option<String> {
    let text: String = (attr.syntax().text().to_string().chars())
        .filter(|c| !c.is_whitespace())
        .collect();
    let inner = (text
        .strip_prefix("#[cfg(")
        .or_else(|| text.strip_prefix("#![cfg(")))?;
    Some(inner.strip_suffix(")]")?.to_string())
}

/// The features on when the package of `manifest` (named `package`) is built as `selection`
/// says: its defaults unless left out, the selection's features for it (`bert`, or
/// `esp/bert` when `package` is `esp`), and what each of them enables in turn.
pub fn enabled_features(
    manifest: &Path,
    package: &str,
    selection: &CargoSelection,
) -> BTreeSet<String> {
    let mut on = BTreeSet::new();
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return on;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return on;
    };
    let table = doc.get("features").and_then(|f| f.as_table_like());
    let mut queue: Vec<String> = (selection.features.iter())
        .filter_map(|f| match f.split_once('/') {
            Some((owner, feature)) => (owner == package).then(|| feature.to_string()),
            None => Some(f.clone()),
        })
        .collect();
    if !selection.no_default_features {
        queue.push("default".to_string());
    }
    while let Some(feature) = queue.pop() {
        if !on.insert(feature.clone()) {
            continue;
        }
        let enables = table
            .and_then(|t| t.get(&feature))
            .and_then(|v| v.as_array());
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
        let conditions = call
            .syntax()
            .ancestors()
            .filter_map(ast::AnyHasAttrs::cast)
            .flat_map(|node| {
                node.attrs()
                    .filter_map(|a| cfg_predicate(&a))
                    .collect::<Vec<_>>()
            })
            .collect();
        out.push(ConstructorCall {
            name: name.clone(),
            name_and_args: segment
                .syntax()
                .text_range()
                .cover(args.syntax().text_range()),
            conditions,
        });
    }
    out
}

/// Constructor names called in the package at `dir` (named `package`; not in packages nested
/// in it) when it is built as `selection` says, with the text of each call from the name on
/// (`vulkan(DeviceKind::DefaultDevice)`). A call counts where its file and the items around it
/// are compiled: the `cfg` of each `mod` declaration on the way to the file counts too
/// (`#[cfg(feature = "wasm")] mod wasm;` keeps `wasm.rs` out without the feature).
pub fn devices_used(
    dir: &Path,
    package: &str,
    selection: &CargoSelection,
    known: &BTreeMap<String, Constructor>,
) -> BTreeMap<String, BTreeSet<String>> {
    let features = enabled_features(&dir.join("Cargo.toml"), package, selection);
    let files: BTreeMap<PathBuf, String> = crate::util::files::rust_files(dir, false)
        .into_iter()
        .filter_map(|file| Some((file.clone(), std::fs::read_to_string(&file).ok()?)))
        .collect();
    let declared = module_conditions(&files);
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in &files {
        let file_conditions = conditions_of_file(file, &declared);
        for call in constructor_calls(text, known) {
            if !call.compiled_with(&file_conditions, &features) {
                continue;
            }
            out.entry(call.name)
                .or_default()
                .insert(text[call.name_and_args].to_string());
        }
    }
    out
}

/// For each file a `mod name;` declares: the declaring file and the `cfg` predicates on the
/// declaration. A file is `name.rs` or `name/mod.rs` beside a `lib.rs`, `main.rs` or `mod.rs`,
/// else in the folder named after the declaring file (`#[path]` is not followed).
fn module_conditions(
    files: &BTreeMap<PathBuf, String>,
) -> BTreeMap<PathBuf, (PathBuf, Vec<String>)> {
    let mut out = BTreeMap::new();
    for (file, text) in files {
        let Some(parent) = file.parent() else {
            continue;
        };
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let base = match stem {
            "lib" | "main" | "mod" => parent.to_path_buf(),
            _ => parent.join(stem),
        };
        let root = crate::migrate::source::parse(text, Edition::Edition2021).0;
        for module in root.syntax().descendants().filter_map(ast::Module::cast) {
            // Inline modules (`mod m { .. }`) are in this file; their items carry their `cfg`.
            if module.item_list().is_some() {
                continue;
            }
            let Some(name) = module.name().map(|n| n.text().to_string()) else {
                continue;
            };
            let conditions: Vec<String> = module
                .syntax()
                .ancestors()
                .filter_map(ast::AnyHasAttrs::cast)
                .flat_map(|node| {
                    node.attrs()
                        .filter_map(|a| cfg_predicate(&a))
                        .collect::<Vec<_>>()
                })
                .collect();
            for child in [
                base.join(format!("{name}.rs")),
                base.join(&name).join("mod.rs"),
            ] {
                if files.contains_key(&child) {
                    out.insert(child, (file.clone(), conditions.clone()));
                }
            }
        }
    }
    out
}

/// The `cfg` predicates of the `mod` declarations from the crate root down to `file`.
fn conditions_of_file(
    file: &Path,
    declared: &BTreeMap<PathBuf, (PathBuf, Vec<String>)>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = file.to_path_buf();
    // Bounded: a file declared by its own descendant (a cycle) must not loop.
    for _ in 0..declared.len() {
        let Some((parent, conditions)) = declared.get(&current) else {
            break;
        };
        out.extend(conditions.iter().cloned());
        current = parent.clone();
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

    /// A package `p` with these features and files (paths under the package).
    fn package(features: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let manifest = format!("[package]\nname = \"p\"\n\n[features]\n{features}");
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn calls_compiled_out_by_default_features_do_not_count() {
        let dir = package(
            "default = [\"gpu\"]\ngpu = [\"vk\"]\nvk = []\ncuda = []\n",
            &[(
                "src/main.rs",
                "#[cfg(feature = \"cuda\")]\nfn device() -> Device { Device::cuda(0) }\n\n#[cfg(not(feature = \"cuda\"))]\nfn device() -> Device {\n    #[cfg(feature = \"vk\")]\n    let d = Device::vulkan(DeviceKind::DefaultDevice);\n    d\n}\n\n#[cfg(test)]\nmod tests { fn t() { let _ = Device::flex(); } }\n",
            )],
        );
        let known = constructors(&RuleSet::embedded().unwrap());
        let defaults = CargoSelection::default();
        let used = devices_used(dir.path(), "p", &defaults, &known);
        assert_eq!(used.keys().collect::<Vec<_>>(), ["flex", "vulkan"]);
        assert_eq!(
            enabled_features(&dir.path().join("Cargo.toml"), "p", &defaults),
            ["default", "gpu", "vk"].map(String::from).into()
        );
        // Built as verify's selection says: `--no-default-features -F p/cuda`.
        let cuda = CargoSelection {
            packages: vec!["p".into()],
            features: vec!["p/cuda".into(), "other/vk".into()],
            no_default_features: true,
        };
        let used = devices_used(dir.path(), "p", &cuda, &known);
        assert_eq!(used.keys().collect::<Vec<_>>(), ["cuda", "flex"]);
    }

    #[test]
    fn a_file_counts_only_where_its_mod_declaration_is_compiled() {
        let dir = package(
            "default = [\"ndarray\"]\nndarray = []\nwasm = []\n",
            &[
                (
                    "src/lib.rs",
                    "#[cfg(all(target_arch = \"wasm32\", feature = \"wasm\"))]\nmod web;\nmod cpu;\n",
                ),
                ("src/cpu.rs", "pub fn device() -> Device { Device::flex() }\n"),
                ("src/web/mod.rs", "mod gpu;\n"),
                (
                    "src/web/gpu.rs",
                    "pub fn device() -> Device { Device::wgpu(DeviceKind::DefaultDevice) }\n",
                ),
            ],
        );
        let known = constructors(&RuleSet::embedded().unwrap());
        let wasm = CargoSelection {
            features: vec!["wasm".into()],
            ..CargoSelection::default()
        };
        let used = devices_used(dir.path(), "p", &wasm, &known);
        assert_eq!(
            used.keys().collect::<Vec<_>>(),
            ["flex"],
            "not built for wasm32"
        );
        std::fs::write(dir.path().join("src/lib.rs"), "mod web;\nmod cpu;\n").unwrap();
        let used = devices_used(dir.path(), "p", &wasm, &known);
        assert_eq!(used.keys().collect::<Vec<_>>(), ["flex", "wgpu"]);
    }
}
