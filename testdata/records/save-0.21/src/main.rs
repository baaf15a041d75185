//! Saves one module with every Burn 0.21 file recorder and with burn-store's BurnpackStore,
//! loads each file back and prints what the module holds and computes.

use std::path::{Path, PathBuf};

use burn::backend::ndarray::NdArrayDevice;
use burn::backend::NdArray;
use burn::module::{Module, Param};
use burn::nn::{LayerNorm, Linear, LinearConfig};
use burn::record::{
    BinFileRecorder, FileRecorder, FullPrecisionSettings, HalfPrecisionSettings,
    NamedMpkFileRecorder, NamedMpkGzFileRecorder, PrettyJsonFileRecorder,
};
use burn::tensor::activation::relu;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;
use burn_store::{BurnpackStore, ModuleSnapshot};

type B = NdArray<f32>;

#[derive(Module, Debug)]
pub enum Head<B: Backend> {
    Project(Linear<B>),
    Normalize(LayerNorm<B>),
}

#[derive(Module, Debug)]
pub struct Net<B: Backend> {
    input: Linear<B>,
    hidden: Vec<Linear<B>>,
    skip: Option<Linear<B>>,
    unused: Option<Linear<B>>,
    head: Head<B>,
    scale: Param<Tensor<B, 1>>,
}

impl<B: Backend> Net<B> {
    fn new(device: &B::Device) -> Self {
        Self {
            input: LinearConfig::new(4, 8).init(device),
            hidden: vec![
                LinearConfig::new(8, 8).init(device),
                LinearConfig::new(8, 8).init(device),
            ],
            skip: Some(LinearConfig::new(4, 8).init(device)),
            unused: None,
            head: Head::Project(LinearConfig::new(8, 3).init(device)),
            scale: Param::from_tensor(Tensor::from_floats([0.5, -2.0, 1.25], device)),
        }
    }

    fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let mut h = relu(self.input.forward(x.clone()));
        for layer in &self.hidden {
            h = relu(layer.forward(h));
        }
        if let Some(skip) = &self.skip {
            h = h + skip.forward(x);
        }
        let h = match &self.head {
            Head::Project(linear) => linear.forward(h),
            Head::Normalize(norm) => norm.forward(h),
        };
        h * self.scale.val().unsqueeze()
    }
}

fn values(tensor: Tensor<B, 2>) -> Vec<f32> {
    tensor.into_data().to_vec::<f32>().expect("f32 data")
}

fn linear(name: &str, layer: &Linear<B>) -> String {
    let bias = layer.bias.as_ref().map(|b| values(b.val().unsqueeze()));
    format!("{name}.weight {:?} {name}.bias {:?}", values(layer.weight.val()), bias)
}

/// Every parameter's values, then the output on a fixed input.
fn report(name: &str, model: &Net<B>, device: &NdArrayDevice) {
    let mut parts = vec![linear("input", &model.input)];
    for (i, layer) in model.hidden.iter().enumerate() {
        parts.push(linear(&format!("hidden.{i}"), layer));
    }
    if let Some(skip) = &model.skip {
        parts.push(linear("skip", skip));
    }
    if let Head::Project(head) = &model.head {
        parts.push(linear("head", head));
    }
    parts.push(format!("scale {:?}", values(model.scale.val().unsqueeze())));
    println!("{name} params: {}", parts.join(" "));
    let x = Tensor::<B, 2>::from_floats([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0]], device);
    println!("{name} output: {:?}", values(model.forward(x)));
}

fn save_and_load<R: FileRecorder<B>>(model: &Net<B>, dir: &Path, name: &str, recorder: R) {
    let device = Default::default();
    model
        .clone()
        .save_file(dir.join(name), &recorder)
        .expect("save");
    let loaded = Net::<B>::new(&device)
        .load_file(dir.join(name), &recorder, &device)
        .expect("load");
    report(name, &loaded, &device);
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).expect("usage: records-save DIR"));
    std::fs::create_dir_all(&dir).expect("output directory");
    let device = Default::default();
    let model = Net::<B>::new(&device);

    save_and_load(&model, &dir, "full-mpk", NamedMpkFileRecorder::<FullPrecisionSettings>::new());
    save_and_load(&model, &dir, "half-mpk", NamedMpkFileRecorder::<HalfPrecisionSettings>::new());
    save_and_load(&model, &dir, "full-mpk-gz", NamedMpkGzFileRecorder::<FullPrecisionSettings>::new());
    save_and_load(&model, &dir, "half-mpk-gz", NamedMpkGzFileRecorder::<HalfPrecisionSettings>::new());
    save_and_load(&model, &dir, "full-json", PrettyJsonFileRecorder::<FullPrecisionSettings>::new());
    save_and_load(&model, &dir, "half-json", PrettyJsonFileRecorder::<HalfPrecisionSettings>::new());
    save_and_load(&model, &dir, "full-bin", BinFileRecorder::<FullPrecisionSettings>::new());
    save_and_load(&model, &dir, "half-bin", BinFileRecorder::<HalfPrecisionSettings>::new());

    // burn-store 0.21's burnpack: Burn 0.22 loads it unchanged.
    model
        .save_into(&mut BurnpackStore::from_file(dir.join("store.bpk")))
        .expect("burnpack save");
    report("store", &model, &device);

    // Bincode, converted the way `burn-migrate records convert` says: load it under 0.21,
    // save it with BurnpackStore.
    for (name, half) in [("full-bin", false), ("half-bin", true)] {
        let fresh = Net::<B>::new(&device);
        let loaded = if half {
            fresh.load_file(dir.join(name), &BinFileRecorder::<HalfPrecisionSettings>::new(), &device)
        } else {
            fresh.load_file(dir.join(name), &BinFileRecorder::<FullPrecisionSettings>::new(), &device)
        }
        .expect("load bincode");
        loaded
            .save_into(&mut BurnpackStore::from_file(dir.join(format!("{name}.bpk"))))
            .expect("burnpack save");
    }
}
