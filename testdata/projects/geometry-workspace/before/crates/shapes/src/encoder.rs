use burn::module::Param;
use burn::nn::{Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct EncoderConfig {
    pub input: usize,
    pub output: usize,
}

/// Projects points into a feature space and normalizes each row.
#[derive(Module, Debug)]
pub struct Encoder<B: Backend> {
    project: Linear<B>,
    norm: LayerNorm<B>,
}

impl EncoderConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Encoder<B> {
        let mut project = LinearConfig::new(self.input, self.output)
            .with_initializer(Initializer::Constant { value: 0.25 })
            .init(device);
        let count = (self.input * self.output) as i64;
        let weights = Tensor::<B, 1, Int>::arange(0..count, device)
            .float()
            .mul_scalar(1.1)
            .cos()
            .reshape([self.input, self.output]);
        project.weight = Param::from_tensor(weights);
        Encoder {
            project,
            norm: LayerNormConfig::new(self.output).init(device),
        }
    }
}

impl<B: Backend> Encoder<B> {
    pub fn forward(&self, points: Tensor<B, 2>) -> Tensor<B, 2> {
        self.norm.forward(self.project.forward(points))
    }
}
