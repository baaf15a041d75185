//! A project that names Burn's crates otherwise (`nn = { package = "burn" }`, `nd = { package =
//! "burn-ndarray" }`, `extern crate nn as burn;`, `use ::nn as bn;`, a workspace dependency or
//! a target table) is ported as the same project with plain `burn` / `burn-ndarray` is: the
//! same findings under the same rules, and the same port, written with the project's names.
//! Each pair is generated from one template, so nothing but the names differs. (An alias of a
//! backend crate is a line of its own to port, so the aliases here name Burn itself.)

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::burn_migrate;

/// One way of naming Burn's crates: what code writes for `burn` and `burn_ndarray`, the
/// lines above each module's code, and the manifests.
struct Naming {
    burn: &'static str,
    ndarray: &'static str,
    /// Lines at the top of the crate root (`extern crate ..`).
    root: &'static str,
    /// Lines at the top of every module, the root included (`use ::nn as bn;`).
    module: &'static str,
    /// The manifests, as (path, text).
    manifests: &'static [(&'static str, &'static str)],
    /// Where the package's sources are (`.`, or a member's directory).
    package: &'static str,
}

const PLAIN_PACKAGE: &[(&str, &str)] = &[(
    "Cargo.toml",
    "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"autodiff\"] }\nburn-ndarray = \"0.21.0\"\n",
)];

const RENAMED_PACKAGE: &[(&str, &str)] = &[(
    "Cargo.toml",
    "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nnn = { package = \"burn\", version = \"0.21.0\", features = [\"autodiff\"] }\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n",
)];

const PLAIN_WORKSPACE: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[workspace]\nmembers = [\"app\"]\nresolver = \"2\"\n\n[workspace.dependencies]\nburn = { version = \"0.21.0\" }\n",
    ),
    (
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[target.'cfg(not(target_family = \"wasm\"))'.dependencies]\nburn = { workspace = true, features = [\"autodiff\"] }\n\n[dev-dependencies]\nburn-ndarray = \"0.21.0\"\n\n[dependencies]\nburn-ndarray = \"0.21.0\"\n",
    ),
];

/// Burn from `[workspace.dependencies]` under another key, inherited in a target table.
const RENAMED_WORKSPACE: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[workspace]\nmembers = [\"app\"]\nresolver = \"2\"\n\n[workspace.dependencies]\nnn = { package = \"burn\", version = \"0.21.0\" }\n",
    ),
    (
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[target.'cfg(not(target_family = \"wasm\"))'.dependencies]\nnn = { workspace = true, features = [\"autodiff\"] }\n\n[dev-dependencies]\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n\n[dependencies]\nnd = { package = \"burn-ndarray\", version = \"0.21.0\" }\n",
    ),
];

const PLAIN: Naming = Naming {
    burn: "burn",
    ndarray: "burn_ndarray",
    root: "",
    module: "",
    manifests: PLAIN_PACKAGE,
    package: ".",
};

/// Pairs of (the plain project, one that names the crates otherwise).
fn pairs() -> Vec<(&'static str, Naming, Naming)> {
    vec![
        (
            "dependency keys",
            PLAIN,
            Naming {
                burn: "nn",
                ndarray: "nd",
                root: "",
                module: "",
                manifests: RENAMED_PACKAGE,
                package: ".",
            },
        ),
        (
            "an extern crate alias at the root",
            PLAIN,
            Naming {
                burn: "burn",
                ndarray: "nd",
                root: "extern crate nn as burn;\n",
                module: "",
                manifests: RENAMED_PACKAGE,
                package: ".",
            },
        ),
        (
            "use aliases in each module",
            PLAIN,
            Naming {
                burn: "bn",
                ndarray: "nd",
                root: "",
                module: "use ::nn as bn;\n",
                manifests: RENAMED_PACKAGE,
                package: ".",
            },
        ),
        (
            "a workspace dependency in a target table",
            Naming {
                manifests: PLAIN_WORKSPACE,
                package: "app",
                ..PLAIN
            },
            Naming {
                burn: "nn",
                ndarray: "nd",
                root: "",
                module: "",
                manifests: RENAMED_WORKSPACE,
                package: "app",
            },
        ),
    ]
}

/// The sources, with `{burn}`, `{nd}`, `{root}` and `{module}` to fill.
const SOURCES: &[(&str, &str)] = &[
    (
        "src/main.rs",
        r#"//! Fits a one-layer model on the CPU and saves it.
{root}{module}
mod ext;
mod model;
mod train;

use {burn}::backend::Autodiff;

/// The CPU backend.
type Cpu = {nd}::NdArray<f32>;

fn main() {
    let device = {nd}::NdArrayDevice::Cpu;
    let model = train::fit::<Autodiff<Cpu>>(device);
    println!("{} weights", model.weight_count());
    model::save(model).expect("the model is written");
}
"#,
    ),
    (
        "src/ext.rs",
        r#"{module}use {burn}::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use {burn}::backend::{Autodiff, Flex};
use {burn}::tensor::ops::FloatTensor;
use {burn}::tensor::{Tensor, TensorPrimitive};

/// `x + x`, a custom operation.
pub trait Doubled: {burn}::tensor::backend::Backend {
    fn doubled(x: FloatTensor<Self>) -> FloatTensor<Self> {
        Self::float_add(x.clone(), x)
    }
}

impl Doubled for Flex {}
impl<B: Doubled, C: CheckpointStrategy> Doubled for Autodiff<B, C> {}

pub fn doubled<B: Doubled>(x: Tensor<B, 1>) -> Tensor<B, 1> {
    Tensor::from_primitive(TensorPrimitive::Float(B::doubled(x.into_primitive().tensor())))
}
"#,
    ),
    (
        "src/model.rs",
        r#"{module}use {burn}::nn::{Linear, LinearConfig};
use {burn}::prelude::*;
use {burn}::record::{CompactRecorder, RecorderError};

#[derive(Module, Debug)]
pub struct Model<B: Backend> {
    linear: Linear<B>,
}

impl<B: Backend> Model<B> {
    pub fn new(device: &B::Device) -> Self {
        Self {
            linear: LinearConfig::new(3, 1).init(device),
        }
    }

    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 2> {
        self.linear.forward(inputs)
    }

    pub fn weight_count(&self) -> usize {
        self.linear.weight.dims().iter().product()
    }
}

pub fn save<B: Backend>(model: Model<B>) -> Result<(), RecorderError> {
    model.save_file("model", &CompactRecorder::new())
}

/// Waits for the device's queued work.
pub fn wait<B: Backend>(device: &B::Device) -> Result<(), {burn}::tensor::backend::ExecutionError> {
    B::sync(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_output_per_row() {
        let device = {nd}::NdArrayDevice::default();
        let model = Model::<{nd}::NdArray>::new(&device);
        let inputs = Tensor::<{nd}::NdArray, 2>::ones([2, 3], &device);
        assert_eq!(model.forward(inputs).dims(), [2, 1]);
    }
}
"#,
    ),
    (
        "src/train.rs",
        r#"{module}use {burn}::module::AutodiffModule;
use {burn}::nn::loss::{MseLoss, Reduction};
use {burn}::optim::{GradientsParams, Optimizer, SgdConfig};
use {burn}::tensor::backend::AutodiffBackend;
use {burn}::tensor::{ElementConversion, Tensor};

use crate::model::Model;

pub fn fit<B: AutodiffBackend>(device: B::Device) -> Model<B::InnerBackend> {
    B::seed(&device, 3);
    let mut model = Model::<B>::new(&device);
    let mut optim = SgdConfig::new().init();
    let inputs = Tensor::<B, 2>::ones([4, 3], &device);
    for _ in 0..5 {
        let outputs = model.forward(inputs.clone());
        let loss = MseLoss::new().forward(outputs, inputs.clone().narrow(1, 0, 1), Reduction::Mean);
        println!("loss {:.4}", loss.clone().into_scalar().elem::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(0.1, model, grads);
    }
    model.valid()
}
"#,
    ),
];

/// Writes the project `naming` makes into `dir`.
fn write_project(dir: &Path, naming: &Naming) {
    for (path, text) in naming.manifests {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    for (path, template) in SOURCES {
        let text = template
            .replace("{root}", naming.root)
            .replace("{module}", naming.module)
            .replace("{burn}", naming.burn)
            .replace("{nd}", naming.ndarray);
        let path = dir.join(naming.package).join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// `--check --format json`'s findings as (file, rule), sorted, and the exit code.
fn findings(dir: &Path) -> (Vec<(String, String)>, Option<i32>) {
    let output = burn_migrate(&["--check", "--format", "json"], dir);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON findings ({e}):\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut out: Vec<(String, String)> = (json.as_array().unwrap().iter())
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap().to_string();
            (field("file"), field("rule"))
        })
        .collect();
    out.sort();
    (out, output.status.code())
}

/// `text` with every path that starts with `from::` starting with `to::` instead (`nn::nn::X`
/// becomes `burn::nn::X`: only a path's first segment is a crate). An import that names the
/// crate absolutely (`use ::nn::tensor::IntDType;`, written where a glob could also bring a
/// `nn`) names the same crate.
fn rename_crate(text: &str, from: &str, to: &str) -> String {
    let text = text.replace(&format!("use ::{from}::"), &format!("use {from}::"));
    let needle = format!("{from}::");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&needle) {
        out.push_str(&rest[..at]);
        let before = out.chars().next_back();
        let starts_path = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        out.push_str(if starts_path { to } else { from });
        out.push_str("::");
        rest = &rest[at + needle.len()..];
    }
    out.push_str(rest);
    out
}

/// The ported sources (`.rs` files) of the project at `dir`, by path, read back into the
/// plain project's names: `naming`'s alias lines left out, its crate names made Burn's.
fn ported_sources(dir: &Path, naming: &Naming) -> BTreeMap<String, String> {
    let rules = burn_migrate::rules::RuleSet::embedded().unwrap();
    let report = burn_migrate::migrate::run(dir, &rules).unwrap();
    let alias_lines: Vec<&str> = naming.root.lines().chain(naming.module.lines()).collect();
    (report.files.iter())
        .map(|file| {
            let kept: String = (file.migrated.split_inclusive('\n'))
                .filter(|line| !alias_lines.contains(&line.trim_end()))
                .collect();
            let text = rename_crate(&kept, naming.burn, "burn");
            (
                file.display.clone(),
                rename_crate(&text, naming.ndarray, "burn_ndarray"),
            )
        })
        .collect()
}

#[test]
fn renamed_burn_crates_are_found_and_ported_as_plain_ones_are() {
    for (what, plain, renamed) in pairs() {
        let scratch = tempfile::tempdir().unwrap();
        let (plain_dir, renamed_dir) =
            (scratch.path().join("plain"), scratch.path().join("renamed"));
        write_project(&plain_dir, &plain);
        write_project(&renamed_dir, &renamed);

        let (plain_found, plain_code) = findings(&plain_dir);
        let (renamed_found, renamed_code) = findings(&renamed_dir);
        assert!(
            plain_found.len() > 20,
            "{what}: the template exercises the rules: {plain_found:?}"
        );
        assert_eq!(
            renamed_found.len(),
            plain_found.len(),
            "{what}: as many findings as with plain names"
        );
        assert_eq!(
            renamed_found, plain_found,
            "{what}: the same rules in the same files"
        );
        assert_eq!(renamed_code, plain_code, "{what}: --check's exit code");

        let plain_port = ported_sources(&plain_dir, &PLAIN);
        let renamed_port = ported_sources(&renamed_dir, &renamed);
        assert_eq!(plain_port.len(), SOURCES.len(), "{what}");
        for (file, plain_text) in &plain_port {
            assert_eq!(
                renamed_port.get(file),
                Some(plain_text),
                "{what}: {file} is ported as with plain names, in the project's names"
            );
        }
    }
}

/// Code that writes `nn::..` after `nn = { package = "burn" }` gets its new imports as
/// `nn::..` too, and the manifest keeps the key: the port builds with the project's names.
#[test]
fn the_port_writes_the_projects_names_for_burn() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("renamed");
    let naming = &pairs()[0].2;
    write_project(&dir, naming);
    let rules = burn_migrate::rules::RuleSet::embedded().unwrap();
    let report = burn_migrate::migrate::run(&dir, &rules).unwrap();
    let main = (report.files.iter())
        .find(|f| f.display == "src/main.rs")
        .expect("main.rs is ported");
    assert!(
        main.migrated
            .contains("use nn::tensor::{Device, IntDType};\n"),
        "{}",
        main.migrated
    );
    assert!(!main.migrated.contains("burn::"), "{}", main.migrated);
    let model = (report.files.iter())
        .find(|f| f.display == "src/model.rs")
        .unwrap();
    // Its test module globs `super::*`, which brings the prelude's `nn` module: the new
    // import names the renamed crate absolutely (E0659 otherwise).
    assert!(
        model
            .migrated
            .contains("mod tests {\n    use ::nn::tensor::IntDType;\n    use super::*;"),
        "{}",
        model.migrated
    );
    assert!(
        model.migrated.contains("nn::tensor::ExecutionError"),
        "{}",
        model.migrated
    );
    let manifest = &report.manifests[0].migrated;
    assert!(
        manifest.contains("nn = { package = \"burn\", version = \"0.22.0\", features = [\"autodiff\", \"flex\", \"extension\"] }\n")
            && !manifest.contains("nd ="),
        "{manifest}"
    );
}
