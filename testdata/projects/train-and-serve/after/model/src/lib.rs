//! A small classifier shared by the training and the serving binaries.

use burn::module::Param;
use burn::nn::{Initializer, Linear, LinearConfig, Relu};
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct ClassifierConfig {
    pub features: usize,
    pub classes: usize,
    #[config(default = 8)]
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct Classifier {
    hidden: Linear,
    output: Linear,
    activation: Relu,
}

impl ClassifierConfig {
    pub fn init(&self, device: &Device) -> Classifier {
        Classifier {
            hidden: patterned_linear(self.features, self.hidden, 0.7, device),
            output: patterned_linear(self.hidden, self.classes, 1.9, device),
            activation: Relu::new(),
        }
    }
}

fn patterned_linear(inputs: usize, outputs: usize, phase: f32, device: &Device) -> Linear {
    let mut linear = LinearConfig::new(inputs, outputs)
        .with_initializer(Initializer::Zeros)
        .init(device);
    let count = (inputs * outputs) as i64;
    let weights = Tensor::<1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .sin()
        .mul_scalar(0.6)
        .reshape([inputs, outputs]);
    linear.weight = Param::from_tensor(weights);
    linear
}

impl Classifier {
    pub fn forward(&self, inputs: Tensor<2>) -> Tensor<2> {
        self.output.forward(self.activation.forward(self.hidden.forward(inputs)))
    }
}

/// `rows` samples of 3 features; the label is the index of the largest feature.
pub fn samples(rows: usize, device: &Device) -> (Tensor<2>, Tensor<1, Int>) {
    let inputs = Tensor::<1, Int>::arange(0..(rows * 3) as i64, device)
        .float()
        .mul_scalar(1.37)
        .sin()
        .reshape([rows, 3]);
    let labels = inputs.clone().argmax(1).flatten(0, 1);
    (inputs, labels)
}
