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
pub struct Classifier<B: Backend> {
    hidden: Linear<B>,
    output: Linear<B>,
    activation: Relu,
}

impl ClassifierConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Classifier<B> {
        Classifier {
            hidden: patterned_linear(self.features, self.hidden, 0.7, device),
            output: patterned_linear(self.hidden, self.classes, 1.9, device),
            activation: Relu::new(),
        }
    }
}

fn patterned_linear<B: Backend>(inputs: usize, outputs: usize, phase: f32, device: &B::Device) -> Linear<B> {
    let mut linear = LinearConfig::new(inputs, outputs)
        .with_initializer(Initializer::Zeros)
        .init(device);
    let count = (inputs * outputs) as i64;
    let weights = Tensor::<B, 1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .sin()
        .mul_scalar(0.6)
        .reshape([inputs, outputs]);
    linear.weight = Param::from_tensor(weights);
    linear
}

impl<B: Backend> Classifier<B> {
    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 2> {
        self.output.forward(self.activation.forward(self.hidden.forward(inputs)))
    }
}

/// `rows` samples of 3 features; the label is the index of the largest feature.
pub fn samples<B: Backend>(rows: usize, device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 1, Int>) {
    let inputs = Tensor::<B, 1, Int>::arange(0..(rows * 3) as i64, device)
        .float()
        .mul_scalar(1.37)
        .sin()
        .reshape([rows, 3]);
    let labels = inputs.clone().argmax(1).flatten(0, 1);
    (inputs, labels)
}
