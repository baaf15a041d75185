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
pub struct Scorer {
    hidden: Linear,
    output: Linear,
    activation: Relu,
}

impl ScorerConfig {
    pub fn init(&self, device: &Device) -> Scorer {
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

fn ripple(shape: [usize; 2], phase: f32, device: &Device) -> Tensor<2> {
    let count = (shape[0] * shape[1]) as i64;
    Tensor::<1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .cos()
        .mul_scalar(0.4)
        .reshape(shape)
}

impl Scorer {
    /// One logit per row.
    pub fn forward(&self, inputs: Tensor<2>) -> Tensor<1> {
        let x = self.activation.forward(self.hidden.forward(inputs));
        self.output.forward(x).flatten(0, 1)
    }
}
