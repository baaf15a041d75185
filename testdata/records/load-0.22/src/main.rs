//! Loads the converted (and burn-store 0.21) burnpack files into the module of
//! `save-0.21`, ported to Burn 0.22, and prints the same lines.

use std::path::PathBuf;

use burn::module::{Module, Param};
use burn::nn::{LayerNorm, Linear, LinearConfig};
use burn::store::ModuleRecord;
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};

#[derive(Module, Debug)]
pub enum Head {
    Project(Linear),
    Normalize(LayerNorm),
}

#[derive(Module, Debug)]
pub struct Net {
    input: Linear,
    hidden: Vec<Linear>,
    skip: Option<Linear>,
    unused: Option<Linear>,
    head: Head,
    scale: Param<Tensor<1>>,
}

impl Net {
    fn new(device: &Device) -> Self {
        Self {
            input: LinearConfig::new(4, 8).init(device),
            hidden: vec![
                LinearConfig::new(8, 8).init(device),
                LinearConfig::new(8, 8).init(device),
            ],
            skip: Some(LinearConfig::new(4, 8).init(device)),
            unused: None,
            head: Head::Project(LinearConfig::new(8, 3).init(device)),
            scale: Param::from_tensor(Tensor::from_floats([0.0, 0.0, 0.0], device)),
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
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

fn values(tensor: Tensor<2>) -> Vec<f32> {
    tensor.into_data().to_vec::<f32>().expect("f32 data")
}

fn linear(name: &str, layer: &Linear) -> String {
    let bias = layer.bias.as_ref().map(|b| values(b.val().unsqueeze()));
    format!("{name}.weight {:?} {name}.bias {:?}", values(layer.weight.val()), bias)
}

fn report(name: &str, model: &Net, device: &Device) {
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
    let x = Tensor::<2>::from_floats([[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0]], device);
    println!("{name} output: {:?}", values(model.forward(x)));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().expect("usage: records-load DIR NAME..."));
    let device = Device::flex();
    for name in args {
        // Half-precision records hold f16 data; cast it to the module's f32 parameters, as
        // Burn 0.21 did when it loaded them.
        let record = ModuleRecord::load(dir.join(format!("{name}.bpk")))
            .unwrap_or_else(|e| panic!("{name}.bpk: {e:?}"))
            .cast_to_module_dtype();
        let model = Net::new(&device)
            .try_load_record(record)
            .unwrap_or_else(|e| panic!("{name}.bpk: {e:?}"));
        report(&name, &model, &device);
    }
}
