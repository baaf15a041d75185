use burn::module::Param;
use burn::nn::{Initializer, Linear, LinearConfig, Sigmoid};
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct ScorerConfig {
    pub features: usize,
}

/// One weight per feature and a bias, squashed to a probability.
#[derive(Module, Debug)]
pub struct Scorer<B: Backend> {
    linear: Linear<B>,
    activation: Sigmoid,
}

impl ScorerConfig {
    /// Starts from fixed weights, so every run prints the same numbers.
    pub fn init<B: Backend>(&self, device: &B::Device) -> Scorer<B> {
        let mut linear = LinearConfig::new(self.features, 1)
            .with_initializer(Initializer::Zeros)
            .init(device);
        let weights = Tensor::<B, 1, Int>::arange(0..self.features as i64, device)
            .float()
            .mul_scalar(0.4)
            .cos()
            .mul_scalar(0.3)
            .reshape([self.features, 1]);
        linear.weight = Param::from_tensor(weights);
        Scorer {
            linear,
            activation: Sigmoid::new(),
        }
    }
}

impl<B: Backend> Scorer<B> {
    /// One score in (0, 1) per row.
    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 2> {
        self.activation.forward(self.linear.forward(inputs))
    }
}
