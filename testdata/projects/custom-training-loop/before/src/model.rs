use burn::module::Param;
use burn::nn::{Initializer, Linear, LinearConfig, Relu};
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct ScorerConfig {
    pub features: usize,
    pub hidden: usize,
}

/// Two linear layers producing one logit per row.
#[derive(Module, Debug)]
pub struct Scorer<B: Backend> {
    hidden: Linear<B>,
    output: Linear<B>,
    activation: Relu,
}

impl ScorerConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Scorer<B> {
        let mut hidden = LinearConfig::new(self.features, self.hidden)
            .with_initializer(Initializer::Zeros)
            .init(device);
        hidden.weight = Param::from_tensor(ripple([self.features, self.hidden], 0.9, device));
        let mut output = LinearConfig::new(self.hidden, 1)
            .with_initializer(Initializer::Zeros)
            .init(device);
        output.weight = Param::from_tensor(ripple([self.hidden, 1], 1.7, device));
        Scorer {
            hidden,
            output,
            activation: Relu::new(),
        }
    }
}

fn ripple<B: Backend>(shape: [usize; 2], phase: f32, device: &B::Device) -> Tensor<B, 2> {
    let count = (shape[0] * shape[1]) as i64;
    Tensor::<B, 1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .cos()
        .mul_scalar(0.4)
        .reshape(shape)
}

impl<B: Backend> Scorer<B> {
    /// One logit per row.
    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 1> {
        let x = self.activation.forward(self.hidden.forward(inputs));
        self.output.forward(x).flatten(0, 1)
    }
}
