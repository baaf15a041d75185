//! Writes a large, deterministic Burn 0.21 Cargo workspace for benchmarking burn-migrate:
//! library crates of models (`<B: Backend>`), batchers and datasets, training loops over
//! `AutodiffBackend`, recorders, backend aliases chosen by `cfg`, and binary crates that call
//! into the libraries with turbofish (`train::<Cpu>(..)`). No network, no randomness beyond
//! the seed: the same arguments write the same bytes.
//!
//! ```text
//! gen-workspace OUT [--lines N] [--seed S] [--huge-mb M]
//! ```
//! `--lines` (default 320000) is the workspace size in lines of Rust; `--huge-mb M` instead
//! writes a one-crate workspace whose single generated module is M megabytes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Library crates per binary crate.
const LIBS_PER_APP: usize = 4;
/// Model/data/train/record module groups per library crate.
const GROUPS_PER_LIB: usize = 6;

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1).collect()) {
        Ok(args) => match generate(&args) {
            Ok(lines) => {
                eprintln!("wrote {lines} lines of Rust under {}", args.out.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("gen-workspace: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!(
                "gen-workspace: {e}\nusage: gen-workspace OUT [--lines N] [--seed S] [--huge-mb M]"
            );
            ExitCode::from(2)
        }
    }
}

struct Args {
    out: PathBuf,
    lines: usize,
    seed: u64,
    huge_mb: Option<usize>,
}

fn parse_args(raw: Vec<String>) -> Result<Args, String> {
    let mut out = None;
    let mut lines = 320_000;
    let mut seed = 21;
    let mut huge_mb = None;
    let mut it = raw.into_iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--lines" => lines = value("--lines")? as usize,
            "--seed" => seed = value("--seed")?,
            "--huge-mb" => huge_mb = Some(value("--huge-mb")? as usize),
            _ if out.is_none() && !arg.starts_with('-') => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument `{arg}`")),
        }
    }
    Ok(Args {
        out: out.ok_or("missing the output directory")?,
        lines,
        seed,
        huge_mb,
    })
}

/// splitmix64: small, seeded, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn write(path: &Path, text: &str) -> Result<usize, String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text.lines().count())
}

fn generate(args: &Args) -> Result<usize, String> {
    if args.out.exists() {
        return Err(format!(
            "{} exists; remove it first (the generator never overwrites)",
            args.out.display()
        ));
    }
    let mut rng = Rng(args.seed);
    if let Some(mb) = args.huge_mb {
        return generate_huge(&args.out, mb, &mut rng);
    }
    let mut members = Vec::new();
    let mut lines = 0;
    let mut libs: Vec<String> = Vec::new();
    while lines < args.lines {
        let lib = format!("net_{:03}", libs.len());
        lines += write_lib(&args.out.join(&lib), &lib, &mut rng)?;
        members.push(lib.clone());
        libs.push(lib);
        if libs.len().is_multiple_of(LIBS_PER_APP) {
            let app = format!("app_{:03}", libs.len() / LIBS_PER_APP - 1);
            let uses = &libs[libs.len() - LIBS_PER_APP..];
            lines += write_app(&args.out.join(&app), &app, uses, &mut rng)?;
            members.push(app);
        }
    }
    let mut root = String::from("[workspace]\nmembers = [\n");
    for m in &members {
        let _ = writeln!(root, "    \"{m}\",");
    }
    root.push_str("]\nresolver = \"2\"\n\n[workspace.package]\nedition = \"2021\"\npublish = false\n\n[workspace.dependencies]\nburn = \"0.21.0\"\n");
    for lib in &libs {
        let _ = writeln!(root, "{lib} = {{ path = \"{lib}\" }}");
    }
    write(&args.out.join("Cargo.toml"), &root)?;
    Ok(lines)
}

fn manifest(name: &str, features: &str, deps: &[String], gpu_feature: bool) -> String {
    let mut out = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition.workspace = true\npublish.workspace = true\n\n"
    );
    if gpu_feature {
        out.push_str("[features]\n# Run on the GPU through wgpu instead of the CPU.\ngpu = [\"burn/wgpu\"]\n\n");
    }
    let _ = writeln!(
        out,
        "[dependencies]\nburn = {{ workspace = true, features = [{features}] }}"
    );
    for dep in deps {
        let _ = writeln!(out, "{dep}.workspace = true");
    }
    out
}

fn write_lib(dir: &Path, name: &str, rng: &mut Rng) -> Result<usize, String> {
    write(
        &dir.join("Cargo.toml"),
        &manifest(name, "\"ndarray\", \"autodiff\", \"train\"", &[], true),
    )?;
    let mut lines = 0;
    let mut lib = format!("//! Models, data and training loops of `{name}`.\n\npub mod backend;\n");
    lines += write(&dir.join("src/backend.rs"), &backend_module())?;
    for group in 0..GROUPS_PER_LIB {
        for kind in ["block", "data", "train", "record"] {
            let _ = writeln!(lib, "pub mod {kind}_{group};");
        }
        let text = model_module(group, rng);
        lines += write(&dir.join(format!("src/block_{group}.rs")), &text)?;
        lines += write(
            &dir.join(format!("src/data_{group}.rs")),
            &data_module(group, rng),
        )?;
        lines += write(
            &dir.join(format!("src/train_{group}.rs")),
            &train_module(group, rng),
        )?;
        lines += write(
            &dir.join(format!("src/record_{group}.rs")),
            &record_module(group),
        )?;
    }
    lines += write(&dir.join("src/lib.rs"), &lib)?;
    Ok(lines)
}

fn write_app(dir: &Path, name: &str, libs: &[String], rng: &mut Rng) -> Result<usize, String> {
    write(
        &dir.join("Cargo.toml"),
        &manifest(name, "\"ndarray\", \"autodiff\"", libs, false),
    )?;
    let mut main = String::from(
        "//! Trains every model of its libraries on the CPU and prints their scores.\n\n\
         use burn::backend::ndarray::NdArrayDevice;\n\
         use burn::backend::{Autodiff, NdArray};\n\
         use burn::prelude::*;\n\n\
         type Cpu = Autodiff<NdArray>;\n\
         type Inference = NdArray<f32>;\n\n\
         fn main() {\n    let device = NdArrayDevice::Cpu;\n",
    );
    for lib in libs {
        for group in 0..GROUPS_PER_LIB {
            let epochs = 1 + rng.below(4);
            let _ = write!(
                main,
                "    let model = {lib}::train_{group}::run::<Cpu>(&device, {epochs});\n\
                 \x20   let inputs = Tensor::<Inference, 2>::zeros([2, 4], &device);\n\
                 \x20   let score = model.forward(inputs).sum().into_scalar().elem::<f32>();\n\
                 \x20   println!(\"{lib} block {group}: {{score:.4}}\");\n\
                 \x20   {lib}::record_{group}::save::<Inference>(model, \"{lib}-{group}.mpk\");\n"
            );
        }
    }
    main.push_str("}\n");
    write(&dir.join("src/main.rs"), &main)
}

fn backend_module() -> String {
    r#"//! The backend the crate's binaries and tests use, chosen at build time.

use burn::backend::Autodiff;
#[cfg(not(feature = "gpu"))]
use burn::backend::ndarray::{NdArray, NdArrayDevice};
#[cfg(feature = "gpu")]
use burn::backend::wgpu::{Wgpu, WgpuDevice};

#[cfg(not(feature = "gpu"))]
pub type Inference = NdArray<f32>;
#[cfg(feature = "gpu")]
pub type Inference = Wgpu<f32, i32>;

/// Inference plus gradients.
pub type Training = Autodiff<Inference>;

#[cfg(not(feature = "gpu"))]
pub fn device() -> NdArrayDevice {
    NdArrayDevice::Cpu
}

#[cfg(feature = "gpu")]
pub fn device() -> WgpuDevice {
    WgpuDevice::default()
}
"#
    .to_string()
}

/// Plain Rust helpers without Burn, as real model files have: most lines of a project are
/// not Burn API.
fn plain_helpers(out: &mut String, prefix: &str, count: usize, rng: &mut Rng) {
    for j in 0..count {
        let a = 1 + rng.below(9);
        let b = 2 + rng.below(7);
        let _ = write!(
            out,
            r#"
/// Schedule value {j} of `{prefix}`: a warm-up, then a slow decay.
pub fn {prefix}_schedule_{j}(step: usize, total: usize) -> f64 {{
    let warmup = total / {b};
    if step < warmup {{
        return step as f64 / warmup.max(1) as f64;
    }}
    let progress = (step - warmup) as f64 / (total - warmup).max(1) as f64;
    let value = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
    // Never fully zero: the last steps still learn a little.
    value.max(0.0{a})
}}

/// Renders a metric line for the logs.
pub fn {prefix}_describe_{j}(name: &str, values: &[f32]) -> String {{
    let mean = values.iter().sum::<f32>() / values.len().max(1) as f32;
    let max = values.iter().cloned().fold(f32::MIN, f32::max);
    format!("{{name}}: mean {{mean:.4}}, max {{max:.4}}, {{}} values", values.len())
}}
"#
        );
    }
}

fn model_module(k: usize, rng: &mut Rng) -> String {
    let hidden = 8 + rng.below(56);
    let phase = rng.below(90) as f32 / 100.0 + 0.1;
    let activation = rng.pick(&["Relu", "Gelu", "Tanh", "Sigmoid"]);
    let mut out = format!(
        r#"use burn::module::Param;
use burn::nn::conv::{{Conv2d, Conv2dConfig}};
use burn::nn::{{{activation}, Dropout, DropoutConfig, Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig, PaddingConfig2d}};
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct Block{k}Config {{
    pub features: usize,
    pub outputs: usize,
    #[config(default = {hidden})]
    pub hidden: usize,
    #[config(default = 0.1)]
    pub dropout: f64,
}}

/// Two linear layers around a normalisation, and a convolution for image inputs.
#[derive(Module, Debug)]
pub struct Block{k}<B: Backend> {{
    input: Linear<B>,
    norm: LayerNorm<B>,
    output: Linear<B>,
    conv: Conv2d<B>,
    activation: {activation},
    dropout: Dropout,
}}

impl Block{k}Config {{
    pub fn init<B: Backend>(&self, device: &B::Device) -> Block{k}<B> {{
        let mut input = LinearConfig::new(self.features, self.hidden)
            .with_initializer(Initializer::Zeros)
            .init(device);
        input.weight = Param::from_tensor(pattern_{k}::<B>([self.features, self.hidden], {phase}, device));
        Block{k} {{
            input,
            norm: LayerNormConfig::new(self.hidden).init(device),
            output: LinearConfig::new(self.hidden, self.outputs).init(device),
            conv: Conv2dConfig::new([1, 4], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device),
            activation: {activation}::new(),
            dropout: DropoutConfig::new(self.dropout).init(),
        }}
    }}
}}

impl<B: Backend> Block{k}<B> {{
    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 2> {{
        let x = self.input.forward(inputs);
        let x = self.norm.forward(x);
        let x = self.activation.forward(x);
        let x = self.dropout.forward(x);
        self.output.forward(x)
    }}

    pub fn forward_images(&self, images: Tensor<B, 4>) -> Tensor<B, 2> {{
        let x = self.conv.forward(images);
        let [batch, channels, height, width] = x.dims();
        x.reshape([batch, channels * height * width])
    }}

    /// The mean output, as a plain number for the logs.
    pub fn score(&self, inputs: Tensor<B, 2>) -> f32 {{
        self.forward(inputs).mean().into_scalar().elem::<f32>()
    }}

    pub fn device(&self) -> B::Device {{
        self.input.weight.device()
    }}
}}

/// Deterministic weights: a sine over the flattened positions.
fn pattern_{k}<B: Backend>(shape: [usize; 2], phase: f32, device: &B::Device) -> Tensor<B, 2> {{
    let count = (shape[0] * shape[1]) as i64;
    Tensor::<B, 1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .sin()
        .reshape(shape)
}}
"#
    );
    for j in 0..4 + rng.below(4) {
        let scale = 1 + rng.below(9);
        let _ = write!(
            out,
            r#"
/// Feature transform {j}: scaled, shifted and squashed.
pub fn feature_{k}_{j}<B: Backend>(x: Tensor<B, 2>, device: &B::Device) -> Tensor<B, 2> {{
    let [rows, cols] = x.dims();
    let shift = Tensor::<B, 2>::ones([rows, cols], device).mul_scalar(0.{scale});
    let y = x.clone().mul_scalar({scale}.0).add(shift);
    let total: f32 = y.clone().sum().into_scalar().elem();
    y.tanh().add(x).div_scalar(total.abs().max(1.0))
}}
"#
        );
    }
    plain_helpers(&mut out, &format!("block_{k}"), 3 + rng.below(4), rng);
    out
}

fn data_module(k: usize, rng: &mut Rng) -> String {
    let features = 2 + rng.below(6);
    let mut out = format!(
        r#"use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::Dataset;
use burn::prelude::*;

pub const FEATURES: usize = {features};

#[derive(Clone, Debug)]
pub struct Item{k} {{
    pub features: [f32; FEATURES],
    pub label: usize,
}}

/// A fixed, deterministic dataset.
pub struct Items{k} {{
    items: Vec<Item{k}>,
}}

impl Items{k} {{
    pub fn synthetic(count: usize) -> Self {{
        let items = (0..count)
            .map(|i| {{
                let mut features = [0.0; FEATURES];
                for (j, f) in features.iter_mut().enumerate() {{
                    *f = ((i * FEATURES + j) as f32 * 0.37).sin();
                }}
                Item{k} {{ features, label: i % 3 }}
            }})
            .collect();
        Self {{ items }}
    }}
}}

impl Dataset<Item{k}> for Items{k} {{
    fn get(&self, index: usize) -> Option<Item{k}> {{
        self.items.get(index).cloned()
    }}

    fn len(&self) -> usize {{
        self.items.len()
    }}
}}

#[derive(Clone, Debug)]
pub struct Batch{k}<B: Backend> {{
    pub inputs: Tensor<B, 2>,
    pub targets: Tensor<B, 1, Int>,
}}

#[derive(Clone, Debug, Default)]
pub struct Batcher{k};

impl<B: Backend> Batcher<B, Item{k}, Batch{k}<B>> for Batcher{k} {{
    fn batch(&self, items: Vec<Item{k}>, device: &B::Device) -> Batch{k}<B> {{
        let rows = items.len();
        let values: Vec<f32> = items.iter().flat_map(|item| item.features).collect();
        let labels: Vec<i64> = items.iter().map(|item| item.label as i64).collect();
        Batch{k} {{
            inputs: Tensor::<B, 2>::from_data(TensorData::new(values, [rows, FEATURES]), device),
            targets: Tensor::from_data(TensorData::new(labels, [rows]), device),
        }}
    }}
}}

/// The labels of a batch, back on the host.
pub fn labels_{k}<B: Backend>(batch: &Batch{k}<B>) -> Vec<i64> {{
    batch.targets.clone().into_data().iter::<i64>().collect()
}}
"#
    );
    plain_helpers(&mut out, &format!("data_{k}"), 3 + rng.below(4), rng);
    out
}

fn train_module(k: usize, rng: &mut Rng) -> String {
    let lr = rng.pick(&["1e-2", "5e-3", "2e-2", "1e-3"]);
    let mut out = format!(
        r#"use burn::module::AutodiffModule;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{{AdamConfig, GradientsParams, Optimizer}};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

use crate::block_{k}::{{Block{k}, Block{k}Config}};
use crate::data_{k}::{{Batch{k}, Batcher{k}, Items{k}, FEATURES}};
use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::Dataset;

/// Trains block {k} for `epochs` epochs and returns it without autodiff.
pub fn run<B: AutodiffBackend>(device: &B::Device, epochs: usize) -> Block{k}<B::InnerBackend> {{
    B::seed(device, {k});
    let mut model = Block{k}Config::new(FEATURES, 3).init::<B>(device);
    let mut optim = AdamConfig::new().init::<B, Block{k}<B>>();
    let loss_fn = CrossEntropyLossConfig::new().init(device);
    let items = Items{k}::synthetic(48);
    let batcher = Batcher{k};
    for epoch in 1..=epochs {{
        let mut loss_sum = 0.0;
        for start in (0..items.len()).step_by(12) {{
            let chunk: Vec<_> = (start..start + 12).filter_map(|i| items.get(i)).collect();
            let batch: Batch{k}<B> = batcher.batch(chunk, device);
            let logits = model.forward(batch.inputs);
            let loss = loss_fn.forward(logits, batch.targets);
            loss_sum += loss.clone().into_scalar().elem::<f32>();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optim.step({lr}, model, grads);
        }}
        println!("block {k} epoch {{epoch}}: loss {{:.5}}", loss_sum / 4.0);
    }}
    let valid: Batch{k}<B::InnerBackend> = batcher.batch(Items{k}::synthetic(6).items(), device);
    let valid_model = model.valid();
    let accuracy = evaluate::<B::InnerBackend>(&valid_model, &valid);
    println!("block {k} accuracy {{accuracy:.3}}");
    valid_model
}}

/// The share of correct predictions on one batch.
pub fn evaluate<B: Backend>(model: &Block{k}<B>, batch: &Batch{k}<B>) -> f32 {{
    let predicted = model.forward(batch.inputs.clone()).argmax(1).flatten::<1>(0, 1);
    let correct = predicted.equal(batch.targets.clone()).int().sum().into_scalar().elem::<i64>();
    correct as f32 / batch.targets.dims()[0] as f32
}}

impl Items{k} {{
    pub fn items(&self) -> Vec<crate::data_{k}::Item{k}> {{
        (0..self.len()).filter_map(|i| self.get(i)).collect()
    }}
}}
"#
    );
    plain_helpers(&mut out, &format!("train_{k}"), 2 + rng.below(3), rng);
    out
}

fn record_module(k: usize) -> String {
    format!(
        r#"use burn::prelude::*;
use burn::record::{{CompactRecorder, FullPrecisionSettings, NamedMpkFileRecorder, Recorder}};

use crate::block_{k}::{{Block{k}, Block{k}Config}};
use crate::data_{k}::FEATURES;

/// Saves block {k} with full precision.
pub fn save<B: Backend>(model: Block{k}<B>, path: &str) {{
    model
        .save_file(path, &NamedMpkFileRecorder::<FullPrecisionSettings>::new())
        .expect("saved");
}}

/// Loads block {k} saved by `save` or by the compact recorder.
pub fn load<B: Backend>(path: &str, device: &B::Device) -> Block{k}<B> {{
    let record = CompactRecorder::new()
        .load(path.into(), device)
        .expect("loaded");
    Block{k}Config::new(FEATURES, 3)
        .init::<B>(device)
        .load_record(record)
}}
"#
    )
}

/// One crate whose `generated.rs` (inline modules of models, data and training loops, as a
/// code generator writes them) is `mb` megabytes.
fn generate_huge(out: &Path, mb: usize, rng: &mut Rng) -> Result<usize, String> {
    write(
        &out.join("Cargo.toml"),
        "[package]\nname = \"generated\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nburn = { version = \"0.21.0\", features = [\"ndarray\", \"autodiff\", \"train\"] }\n",
    )?;
    let mut lines = write(
        &out.join("src/lib.rs"),
        "//! Models written by a code generator.\n\npub mod generated;\n",
    )?;
    let mut text = String::from("// @generated by a model exporter; do not edit.\n");
    let mut part = 0;
    while text.len() < mb * 1_000_000 {
        let _ = writeln!(text, "\npub mod part_{part} {{");
        for module in [
            model_module(part, rng),
            data_module(part, rng),
            train_module(part, rng),
        ] {
            let _ = writeln!(text, "pub mod {} {{", module_name(&module, part));
            // `crate::block_3` is a sibling module here.
            text.push_str(&module.replace("crate::", "super::"));
            text.push_str("}\n");
        }
        text.push_str("}\n");
        part += 1;
    }
    lines += write(&out.join("src/generated.rs"), &text)?;
    Ok(lines)
}

/// The module name a generated module goes by (`block_3`, `data_3`, `train_3`), from what it
/// defines.
fn module_name(module: &str, part: usize) -> String {
    let kind = if module.contains(&format!("pub struct Block{part}Config")) {
        "block"
    } else if module.contains("impl<B: Backend> Batcher<") {
        "data"
    } else {
        "train"
    };
    format!("{kind}_{part}")
}
