//! The backend table, `rules/tables/backends.toml`: every Burn 0.21 backend (type names, crate,
//! element generics, device types), what replaces it in 0.22 (device constructor, Cargo
//! feature), how verify probes that device, and the command-line choices for deprecated
//! backends. The index, the manifest rewrite, the device rules, verify and the probes all read
//! it, so adding a backend is adding an entry there. The file lives in a subfolder of `rules/`
//! because `build.rs` embeds the top-level files as rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Deserialize;

use crate::error::Error;
use crate::rules::device_expr::{DeviceExpr, FloatElement};
use crate::rules::registry::{RuleId, RuleKey};

/// Where the table is, relative to the repository root (for error messages).
pub const TABLE_PATH: &str = "rules/tables/backends.toml";

const EMBEDDED_TABLE: &str = include_str!("../../../rules/tables/backends.toml");

/// One 0.21 backend and what replaces it in 0.22.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backend {
    /// Type names of the backend (`NdArray`, `Wgpu`, ...), as exported by `burn::backend`.
    pub types: Vec<String>,
    /// The crate that provides it (`burn-ndarray`).
    #[serde(rename = "crate")]
    pub crate_name: String,
    /// The 0.21 feature of `burn` that enables it.
    pub burn_feature: String,
    /// Element generic parameters of the type and their defaults, in order (`F = f32`).
    #[serde(default)]
    pub elements: Vec<(String, String)>,
    /// The element of its `Int` tensors in 0.21 where `elements` has no `I` (LibTorch's are
    /// always `i64`).
    #[serde(default)]
    int_elem: Option<String>,
    /// The `IntDType` its own 0.22 device defaults to (`DeviceOps::defaults`), when not `I32`.
    #[serde(default)]
    device_int_dtype: Option<String>,
    /// The CubeCL runtime whose `CubeBackend<Runtime, F, I, B>` the type is in 0.21
    /// (`WgpuRuntime` for `Wgpu`).
    #[serde(default)]
    pub runtime: Option<String>,
    /// Device types whose values select this backend (`NdArrayDevice`, ...).
    #[serde(default)]
    pub device_types: Vec<String>,
    /// The rule whose rewrites carry this backend's device changes.
    #[serde(rename = "rule")]
    rule_id: String,
    /// `rule_id` as findings name it (set by the loader; an id without a rule file is caught
    /// by `check_rules`).
    #[serde(skip, default = "crate::rules::registry::unset_rule")]
    pub rule: RuleKey,
    /// The backend's own 0.22 default device, when 0.22 has one (`Device::ndarray()`).
    #[serde(default, rename = "device")]
    own_device: Option<DeviceExpr>,
    /// The Cargo feature of `burn` that provides `own_device`.
    #[serde(default, rename = "feature")]
    own_feature: Option<String>,
    /// The 0.22 expression for the backend's default device: its own device, or the one
    /// `goes_to` chose (set by the loader and by `choose`; empty until then).
    #[serde(skip)]
    pub device: DeviceExpr,
    /// The Cargo feature of `burn` that `device` needs.
    #[serde(skip)]
    pub feature: String,
    /// Template for a device variant: `{variant}` is the text after `DeviceType::`
    /// (`DiscreteGpu(0)`).
    #[serde(default)]
    pub device_variant: Option<DeviceExpr>,
    /// Template for `DeviceType::new(..)`: `{args}` are its arguments.
    #[serde(default)]
    pub device_new: Option<DeviceExpr>,
    /// Per-variant replacements, checked before `device_variant` (`Cuda = "Device::cuda({args})"`).
    #[serde(default)]
    pub variants: BTreeMap<String, DeviceExpr>,
    /// The device keeps tensors in CubeCL's memory pools (`memory_pool_usage()` answers).
    #[serde(default)]
    pub memory_pools: bool,
    /// The device is pure Rust on the CPU: it works wherever the port builds.
    #[serde(default)]
    pub pure_rust: bool,
    /// How verify finds out whether the device works on this machine.
    #[serde(default)]
    pub probe: Option<ProbeSpec>,
    /// Burn's feature for the device builds CubeCL's LLVM bundle, downloaded at build time.
    #[serde(default)]
    pub llvm_bundle: bool,
    /// The 0.22 devices that replace a deprecated or removed backend.
    #[serde(default)]
    pub goes_to: Option<GoesTo>,
}

impl Backend {
    /// The name of the backend's own 0.22 constructor (`ndarray` for `Device::ndarray()`).
    pub fn own_constructor(&self) -> Option<&str> {
        Some(self.own_device.as_ref()?.constructor.as_str())
    }

    /// The backend's own 0.22 device and its feature, when 0.22 has one.
    pub fn own_device(&self) -> Option<(&DeviceExpr, &str)> {
        Some((self.own_device.as_ref()?, self.own_feature.as_deref()?))
    }

    /// The element 0.21 computed its `Int` tensors in (`i64`): the default of its `I`
    /// generic, else `int_elem`; unknown for an entry that gives neither, whose devices are
    /// then left at their defaults.
    fn int_elem(&self) -> Option<&str> {
        (self.elements.iter())
            .find(|(name, _)| name == "I")
            .map(|(_, default)| default.as_str())
            .or(self.int_elem.as_deref())
    }

    /// The `IntDType` its own 0.22 device defaults to: `I32` unless the table says otherwise
    /// (burn-flex 0.22.1 `backend.rs` and burn-backend 0.22.1's CubeCL `DeviceOps` give `I32`;
    /// burn-ndarray and burn-tch give `I64`).
    fn device_int_dtype(&self) -> &str {
        self.device_int_dtype.as_deref().unwrap_or("I32")
    }
}

/// A backend of the table, by its place there: what the index's facts and the device edits
/// name a backend by. `Backends` gives the entry; a key is only made by looking one up, so it
/// always names an entry of the table it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BackendKey(usize);

/// The table's backends in table order, each reached by its `BackendKey`.
#[derive(Debug, Clone, Default)]
pub struct Backends(Vec<Backend>);

impl Backends {
    pub fn iter(&self) -> std::slice::Iter<'_, Backend> {
        self.0.iter()
    }

    /// The key of the first backend, in table order, that `matches`.
    pub fn find_key(&self, matches: impl FnMut(&Backend) -> bool) -> Option<BackendKey> {
        self.0.iter().position(matches).map(BackendKey)
    }

    /// Configures `device`, one backend `key`'s values become, for the element generics the
    /// 0.21 type was `written` with (`configure_dtypes`).
    pub fn configure(&self, key: BackendKey, device: &mut DeviceExpr, written: &ElementDTypes) {
        let owner = self
            .iter()
            .find(|b| b.own_constructor() == Some(&device.constructor));
        let int_default = owner.map(Backend::device_int_dtype);
        configure_dtypes(device, self[key].int_elem(), written, int_default);
    }
}

impl FromIterator<Backend> for Backends {
    fn from_iter<I: IntoIterator<Item = Backend>>(backends: I) -> Self {
        Backends(backends.into_iter().collect())
    }
}

impl std::ops::Index<BackendKey> for Backends {
    type Output = Backend;

    fn index(&self, key: BackendKey) -> &Backend {
        &self.0[key.0]
    }
}

/// How a device is probed: the probe program (`framework/burn-0.22`) runs `device`, built with
/// `feature`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    /// The probe program's argument (`flex`, `vulkan`).
    pub device: String,
    /// The probe program's Cargo feature for it; absent: always built in.
    #[serde(default)]
    pub feature: Option<String>,
}

/// The replacements of a deprecated or removed backend.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoesTo {
    /// Constructor names of 0.22 devices; the first is the default. The backend's own
    /// constructor among them keeps it.
    pub choices: Vec<String>,
    /// The command-line option (without `--`) that chooses; absent: the default is the port.
    #[serde(default)]
    pub flag: Option<String>,
}

/// A backend that wraps another (`Autodiff<B>`, `Fusion<B>`): the device is the inner one's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wrapper {
    pub types: Vec<String>,
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub burn_feature: String,
    /// The wrapped backend differentiates: its device gets `.autodiff()`.
    #[serde(default)]
    pub autodiff: bool,
    /// Checkpointing strategy types (`BalancedCheckpointing`) that also give the device
    /// `.gradient_checkpointing()`.
    #[serde(default)]
    pub checkpointing: Vec<String>,
}

/// The whole table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendTable {
    /// Backend crates user code may import from that no entry ports (`burn-remote`).
    #[serde(default)]
    other_crates: Vec<String>,
    #[serde(rename = "backend")]
    pub backends: Vec<Backend>,
    #[serde(default, rename = "wrapper")]
    pub wrappers: Vec<Wrapper>,
}

/// A command-line choice the table offers (`--ndarray-to flex|cpu|ndarray`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub flag: String,
    /// The backend types it is for, for the option's help.
    pub types: Vec<String>,
    /// The first is the default.
    pub choices: Vec<String>,
}

fn invalid(message: String) -> Error {
    Error::Rule {
        path: PathBuf::from(TABLE_PATH),
        message,
    }
}

impl BackendTable {
    /// The table compiled into the binary.
    pub fn embedded() -> Result<Self, Error> {
        Self::parse(EMBEDDED_TABLE)
    }

    /// Reads and checks a table; every backend gets its default port.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut table: BackendTable =
            toml_edit::de::from_str(text).map_err(|e| invalid(e.to_string()))?;
        table.check()?;
        for backend in &mut table.backends {
            // A rule of a user's file is found when the table joins a rule set
            // (`check_rules`); its file has the applicability.
            backend.rule = match RuleId::from_id(&backend.rule_id) {
                Some(id) => RuleKey::Builtin(id),
                None => crate::rules::registry::unset_rule(),
            };
        }
        let defaults: BTreeMap<String, String> = table
            .policies()
            .into_iter()
            .map(|p| (p.flag, p.choices[0].clone()))
            .collect();
        table.choose(&defaults)?;
        Ok(table)
    }

    fn check(&self) -> Result<(), Error> {
        let mut types = BTreeSet::new();
        let all_types = self
            .backends
            .iter()
            .flat_map(|b| &b.types)
            .chain(self.wrappers.iter().flat_map(|w| &w.types));
        for name in all_types {
            if !types.insert(name) {
                return Err(invalid(format!(
                    "backend type `{name}` has two entries; merge them into one"
                )));
            }
        }
        let mut owners = BTreeSet::new();
        if self.backends.iter().any(|b| b.types.is_empty())
            || self.wrappers.iter().any(|w| w.types.is_empty())
        {
            return Err(invalid(
                "an entry has no `types`; name its 0.21 type".to_string(),
            ));
        }
        for backend in &self.backends {
            let name = &backend.types[0];
            match (&backend.own_device, &backend.own_feature) {
                (Some(device), Some(_)) => {
                    let constructor = &device.constructor;
                    if !owners.insert(constructor) {
                        return Err(invalid(format!(
                            "`{name}`: constructor `Device::{constructor}` belongs to another entry too; each 0.22 device has one entry"
                        )));
                    }
                }
                (None, None) if backend.goes_to.is_some() => {}
                _ => {
                    return Err(invalid(format!(
                        "`{name}` needs `device` and `feature` (its 0.22 device), or `goes_to` when 0.22 has none"
                    )))
                }
            }
        }
        let probes: Vec<&ProbeSpec> = self
            .backends
            .iter()
            .filter_map(|b| b.probe.as_ref())
            .collect();
        for probe in &probes {
            if probes
                .iter()
                .any(|p| p.device == probe.device && p.feature != probe.feature)
            {
                return Err(invalid(format!(
                    "probe device `{}` is given different features; the probe program builds it with one",
                    probe.device
                )));
            }
        }
        for backend in &self.backends {
            let Some(goes_to) = &backend.goes_to else {
                continue;
            };
            let name = &backend.types[0];
            if goes_to.choices.is_empty() {
                return Err(invalid(format!("`{name}`: `goes_to.choices` is empty")));
            }
            for choice in &goes_to.choices {
                let target = self.owner(choice);
                let is_self = backend.own_constructor() == Some(choice.as_str());
                if target.is_none() || (!is_self && target.is_some_and(|t| t.goes_to.is_some())) {
                    return Err(invalid(format!(
                        "`{name}`: `goes_to` choice `{choice}` is not the device of an entry that stays in 0.22"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Checks that every entry's rule has a file, and takes the key findings name it by
    /// from the rule set (`key_of`).
    pub fn check_rules(&mut self, key_of: impl Fn(&str) -> Option<RuleKey>) -> Result<(), Error> {
        for b in &mut self.backends {
            match key_of(&b.rule_id) {
                Some(key) => b.rule = key,
                None => {
                    return Err(invalid(format!(
                        "`{}` names rule `{}`, which has no file in rules/; add rules/{}.toml or fix the name",
                        b.types[0], b.rule_id, b.rule_id
                    )))
                }
            }
        }
        Ok(())
    }

    /// The entry whose own 0.22 device is `Device::<constructor>`.
    pub fn owner(&self, constructor: &str) -> Option<&Backend> {
        self.backends
            .iter()
            .find(|b| b.own_constructor() == Some(constructor))
    }

    /// The wrapper of a type name (`Autodiff`), if it is one.
    pub fn wrapper(&self, name: &str) -> Option<&Wrapper> {
        self.wrappers
            .iter()
            .find(|w| w.types.iter().any(|t| t == name))
    }

    /// Burn's backend crates a project may depend on, each with the `burn` feature that
    /// provides the same backend, in table order (the first entry of a crate gives it).
    pub fn crate_features(&self) -> Vec<(String, String)> {
        let rows = self
            .backends
            .iter()
            .map(|b| (&b.crate_name, &b.burn_feature))
            .chain(
                self.wrappers
                    .iter()
                    .map(|w| (&w.crate_name, &w.burn_feature)),
            );
        let mut out: Vec<(String, String)> = Vec::new();
        for (krate, feature) in rows {
            if !out.iter().any(|(k, _)| k == krate) {
                out.push((krate.clone(), feature.clone()));
            }
        }
        out
    }

    /// Every backend crate's name as a Rust path segment (`burn_ndarray`).
    pub fn crate_modules(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let names = self
            .crate_features()
            .into_iter()
            .map(|(k, _)| k)
            .chain(self.other_crates.iter().cloned());
        for name in names {
            let module = name.replace('-', "_");
            if !out.contains(&module) {
                out.push(module);
            }
        }
        out
    }

    /// The `burn` features that build CubeCL's LLVM bundle.
    pub fn llvm_bundle_features(&self) -> Vec<String> {
        self.backends
            .iter()
            .filter(|b| b.llvm_bundle)
            .filter_map(|b| Some(b.own_device()?.1.to_string()))
            .collect()
    }

    /// The probe program's devices, each once, in table order.
    pub fn probes(&self) -> Vec<ProbeSpec> {
        let mut out: Vec<ProbeSpec> = Vec::new();
        for probe in self.backends.iter().filter_map(|b| b.probe.as_ref()) {
            if !out.iter().any(|p| p.device == probe.device) {
                out.push(probe.clone());
            }
        }
        out
    }

    /// The command-line choices, in table order.
    pub fn policies(&self) -> Vec<Policy> {
        self.backends
            .iter()
            .filter_map(|b| {
                let goes_to = b.goes_to.as_ref()?;
                Some(Policy {
                    flag: goes_to.flag.clone()?,
                    types: b.types.clone(),
                    choices: goes_to.choices.clone(),
                })
            })
            .collect()
    }

    /// Ports each backend with `goes_to` to the device chosen for its flag (`chosen`: flag ->
    /// constructor name), or to its first choice.
    pub fn choose(&mut self, chosen: &BTreeMap<String, String>) -> Result<(), Error> {
        let mut ports = Vec::new();
        for backend in &self.backends {
            let port = match &backend.goes_to {
                None => backend.own_device(),
                Some(goes_to) => {
                    let choice = goes_to
                        .flag
                        .as_ref()
                        .and_then(|f| chosen.get(f))
                        .unwrap_or(&goes_to.choices[0]);
                    if !goes_to.choices.contains(choice) {
                        return Err(Error::Usage(format!(
                            "`--{}` takes one of: {}",
                            goes_to.flag.as_deref().unwrap_or_default(),
                            goes_to.choices.join(", ")
                        )));
                    }
                    self.owner(choice).and_then(Backend::own_device)
                }
            };
            let (device, feature) = port.ok_or_else(|| {
                Error::Internal(format!("backend `{}` has no 0.22 device", backend.types[0]))
            })?;
            ports.push((device.clone(), feature.to_string()));
        }
        for (backend, (device, feature)) in self.backends.iter_mut().zip(ports) {
            backend.device = device;
            backend.feature = feature;
        }
        self.configure_int_dtypes();
        Ok(())
    }

    /// Gives every device a backend's values become the int dtype 0.21 computed in, where that
    /// device's 0.22 default differs (NdArray's `i64` on `Device::flex()`, whose default is
    /// `I32`): the port then computes in the same dtypes (rule `device-ndarray`'s fix safety).
    fn configure_int_dtypes(&mut self) {
        let defaults: BTreeMap<String, String> = (self.backends.iter())
            .filter_map(|b| {
                let constructor = b.own_constructor()?.to_string();
                Some((constructor, b.device_int_dtype().to_string()))
            })
            .collect();
        for backend in &mut self.backends {
            let int_elem = backend.int_elem().map(str::to_string);
            let templates = (backend.variants.values_mut())
                .chain(backend.device_variant.as_mut())
                .chain(backend.device_new.as_mut());
            for device in std::iter::once(&mut backend.device).chain(templates) {
                let int_default = defaults.get(&device.constructor).map(String::as_str);
                configure_dtypes(
                    device,
                    int_elem.as_deref(),
                    &ElementDTypes::default(),
                    int_default,
                );
            }
        }
    }
}

/// The element generics a 0.21 backend type was written with, as 0.22 dtype variants:
/// `NdArray<f64>` has float `F64`. `None` where the type left the generic at its default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ElementDTypes {
    pub float: Option<FloatElement>,
    pub int: Option<String>,
}

/// Rust's element types and the `FloatDType` / `IntDType` variants that hold them.
const FLOAT_DTYPES: &[(&str, &str)] = &[
    ("f64", "F64"),
    ("f32", "F32"),
    ("f16", "F16"),
    ("bf16", "BF16"),
    ("flex32", "Flex32"),
];
const INT_DTYPES: &[(&str, &str)] = &[
    ("i64", "I64"),
    ("i32", "I32"),
    ("i16", "I16"),
    ("i8", "I8"),
    ("u64", "U64"),
    ("u32", "U32"),
    ("u16", "U16"),
    ("u8", "U8"),
];

impl ElementDTypes {
    /// The dtypes of a backend type's generic arguments (`["f64"]` for `NdArray<f64>`), by the
    /// positions `elements` gives them (the first is the float element, `I` the int one), each
    /// read by its last name (`half::f16` is `f16`); an argument that is no element type (a
    /// generic parameter) says nothing. An argument that names one of `element_aliases` (the
    /// workspace's aliases for a float element type) is that alias, as written.
    pub fn of_arguments(
        backend: &Backend,
        arguments: &[String],
        element_aliases: &std::collections::HashSet<String>,
    ) -> Self {
        let written = |position: Option<usize>| Some(arguments.get(position?)?.trim());
        // `half::f16`, `burn::tensor::bf16`: an element type by its path is that type.
        fn last_name(written: &str) -> &str {
            written.rsplit("::").next().unwrap_or(written).trim()
        }
        let argument = |position: Option<usize>| written(position).map(last_name);
        let dtype = |argument: &str, table: &[(&str, &'static str)]| {
            (table.iter())
                .find(|(element, _)| *element == argument)
                .map(|(_, variant)| variant.to_string())
        };
        let int_position = backend.elements.iter().position(|(n, _)| n == "I");
        // The device is configured where the type was written: the alias as written there
        // (`crate::ElemType`) names it.
        let float = written((!backend.elements.is_empty()).then_some(0)).and_then(|written| {
            match dtype(last_name(written), FLOAT_DTYPES) {
                Some(variant) => Some(FloatElement::DType(variant)),
                None => (element_aliases.contains(last_name(written)))
                    .then(|| FloatElement::Alias(written.to_string())),
            }
        });
        ElementDTypes {
            float,
            int: argument(int_position).and_then(|argument| dtype(argument, INT_DTYPES)),
        }
    }
}

/// Whether `element` (a type's last name: `f16`, `bf16`) is a float element type of Burn.
pub fn is_float_element(element: &str) -> bool {
    FLOAT_DTYPES.iter().any(|(name, _)| *name == element)
}

/// Configures `device`, one a 0.21 backend's values become, to compute in the dtypes 0.21 did
/// where they are not the 0.22 device's defaults (`F32` floats on every device;
/// `int_default` ints): the `written` element generics, else the backend's own int element
/// (`int_elem`). A device of unknown defaults is left alone.
fn configure_dtypes(
    device: &mut DeviceExpr,
    int_elem: Option<&str>,
    written: &ElementDTypes,
    int_default: Option<&str>,
) {
    device.float_dtype =
        (written.float.clone()).filter(|f| *f != FloatElement::DType("F32".to_string()));
    let int_of_elem = |elem: &str| {
        (INT_DTYPES.iter())
            .find(|(element, _)| *element == elem)
            .map(|(_, variant)| variant.to_string())
    };
    let int = (written.int.clone()).or_else(|| int_of_elem(int_elem?));
    device.int_dtype = match (int, int_default) {
        (Some(int), Some(default)) if int != default => Some(int),
        _ => None,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One backend entry; `RULE` stands for its device rule (`one` fills it in).
    const ENTRY: &str = r#"
[[backend]]
types = ["Flex"]
crate = "burn-flex"
burn_feature = "flex"
rule = "RULE"
device = "Device::flex()"
feature = "flex"
"#;

    fn one() -> String {
        ENTRY.replace("RULE", RuleId::DeviceFlex.as_str())
    }

    #[test]
    fn the_embedded_table_loads_with_its_default_ports() {
        let table = BackendTable::embedded().unwrap();
        for backend in &table.backends {
            assert!(
                table.owner(&backend.device.constructor).is_some(),
                "{:?}",
                backend.types
            );
        }
        assert!(table.policies().iter().all(|p| !p.choices.is_empty()));
    }

    #[test]
    fn unknown_keys_are_errors() {
        let error = BackendTable::parse(&format!("{}colour = \"red\"\n", one())).unwrap_err();
        assert!(error.to_string().contains("colour"), "{error}");
        assert!(error.to_string().contains(TABLE_PATH), "{error}");
    }

    #[test]
    fn duplicate_types_are_errors() {
        let twice = one().replace("Device::flex()", "Device::other()");
        let error = BackendTable::parse(&format!("{}{twice}", one())).unwrap_err();
        assert!(
            error.to_string().contains("`Flex` has two entries"),
            "{error}"
        );
    }

    #[test]
    fn a_device_that_is_no_constructor_call_is_an_error() {
        let error = BackendTable::parse(&one().replace("Device::flex()", "flex()")).unwrap_err();
        assert!(error.to_string().contains("device `flex()`"), "{error}");
    }

    #[test]
    fn a_device_with_two_entries_is_an_error() {
        let other = one().replace("[\"Flex\"]", "[\"Other\"]");
        let error = BackendTable::parse(&format!("{}{other}", one())).unwrap_err();
        assert!(error.to_string().contains("Device::flex"), "{error}");
    }

    #[test]
    fn a_rule_without_a_file_is_an_error() {
        let mut table = BackendTable::parse(&one()).unwrap();
        let rule = RuleId::DeviceFlex.as_str();
        let key = |id: &str| (id == rule).then_some(RuleKey::Builtin(RuleId::DeviceFlex));
        assert!(table.check_rules(key).is_ok());
        let error = table.check_rules(|_| None).unwrap_err();
        assert!(error.to_string().contains(&format!("`{rule}`")), "{error}");
    }

    #[test]
    fn choices_must_name_a_device_that_stays() {
        let old = r#"
[[backend]]
types = ["Old"]
crate = "burn-old"
burn_feature = "old"
rule = "device-old"
goes_to = { choices = ["nowhere"] }
"#;
        let error = BackendTable::parse(&format!("{}{old}", one())).unwrap_err();
        assert!(error.to_string().contains("`nowhere`"), "{error}");
        let table =
            BackendTable::parse(&format!("{}{}", one(), old.replace("nowhere", "flex"))).unwrap();
        assert_eq!(table.backends[1].device.to_string(), "Device::flex()");
        assert_eq!(table.backends[1].feature, "flex");
    }

    #[test]
    fn a_flag_chooses_among_the_choices_only() {
        let mut table = BackendTable::embedded().unwrap();
        let policy = table.policies().remove(0);
        let last = policy.choices.last().unwrap().clone();
        let chosen = BTreeMap::from([(policy.flag.clone(), last.clone())]);
        table.choose(&chosen).unwrap();
        let ported = table
            .backends
            .iter()
            .find(|b| b.types == policy.types)
            .unwrap();
        assert_eq!(ported.device.constructor, last);
        let wrong = BTreeMap::from([(policy.flag, "no-such-device".to_string())]);
        assert!(table.choose(&wrong).is_err());
    }
}
