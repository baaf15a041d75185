use burn::module::Param;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{Initializer, Linear, LinearConfig, PaddingConfig2d, Relu};
use burn::prelude::*;

use crate::data::{BarBatch, SIDE};

#[derive(Config, Debug)]
pub struct BarNetConfig {
    pub channels: usize,
    pub classes: usize,
}

#[derive(Module, Debug)]
pub struct BarNet<B: Backend> {
    conv: Conv2d<B>,
    pool: MaxPool2d,
    activation: Relu,
    head: Linear<B>,
}

/// What one forward pass over a batch produced.
pub struct StepOutput<B: Backend> {
    pub loss: Tensor<B, 1>,
    pub correct: usize,
}

/// Sets the biases; the weights are overwritten with a fixed pattern.
const BIAS_INIT: Initializer = Initializer::Constant { value: 0.01 };

impl BarNetConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> BarNet<B> {
        let mut conv = Conv2dConfig::new([1, self.channels], [3, 3])
            .with_padding(PaddingConfig2d::Same)
            .with_initializer(BIAS_INIT)
            .init(device);
        conv.weight = Param::from_tensor(wave::<B, 4>([self.channels, 1, 3, 3], 0.9, device));
        let features = self.channels * (SIDE / 2) * (SIDE / 2);
        let mut head = LinearConfig::new(features, self.classes)
            .with_initializer(BIAS_INIT)
            .init(device);
        head.weight = Param::from_tensor(wave::<B, 2>([features, self.classes], 0.37, device));
        BarNet {
            conv,
            pool: MaxPool2dConfig::new([2, 2]).init(),
            activation: Relu::new(),
            head,
        }
    }
}

/// Deterministic weights: 0.3 sin(phase * i) over the flattened positions.
fn wave<B: Backend, const D: usize>(shape: [usize; D], phase: f32, device: &B::Device) -> Tensor<B, D> {
    let count: usize = shape.iter().product();
    Tensor::<B, 1, Int>::arange(0..count as i64, device)
        .float()
        .mul_scalar(phase)
        .sin()
        .mul_scalar(0.3)
        .reshape(shape)
}

impl<B: Backend> BarNet<B> {
    pub fn forward(&self, images: Tensor<B, 4>) -> Tensor<B, 2> {
        let x = self.conv.forward(images);
        let x = self.activation.forward(x);
        let x = self.pool.forward(x);
        self.head.forward(x.flatten(1, 3))
    }

    /// The training step's forward half: loss and number of correct predictions.
    pub fn step(&self, batch: &BarBatch<B>) -> StepOutput<B> {
        let logits = self.forward(batch.images.clone());
        let loss = CrossEntropyLossConfig::new()
            .init(&logits.device())
            .forward(logits.clone(), batch.targets.clone());
        let predicted = logits.argmax(1).squeeze::<1>();
        let correct = predicted.equal(batch.targets.clone()).int().sum().into_scalar().elem::<i64>();
        StepOutput {
            loss,
            correct: correct as usize,
        }
    }
}
