use burn::nn::{Initializer, Linear, LinearConfig, Relu};
use burn::module::Param;
use burn::prelude::*;

#[derive(Config, Debug)]
pub struct MlpConfig {
    pub inputs: usize,
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct Mlp {
    hidden: Linear,
    output: Linear,
    activation: Relu,
}

/// Sets the biases; the weights are overwritten with a fixed pattern below.
const BIAS_INIT: Initializer = Initializer::Constant { value: 0.01 };

impl MlpConfig {
    /// Builds the model with fixed, asymmetric weights so every run starts from the same point.
    pub fn init(&self, device: &Device) -> Mlp {
        let mut hidden = LinearConfig::new(self.inputs, self.hidden)
            .with_initializer(BIAS_INIT)
            .init(device);
        hidden.weight = Param::from_tensor(patterned([self.inputs, self.hidden], 0.7, device));
        let mut output = LinearConfig::new(self.hidden, 1).with_initializer(BIAS_INIT).init(device);
        output.weight = Param::from_tensor(patterned([self.hidden, 1], 1.3, device));
        Mlp {
            hidden,
            output,
            activation: Relu::new(),
        }
    }
}

/// A deterministic weight pattern: 0.5 sin(phase * i) over the flattened positions.
fn patterned(shape: [usize; 2], phase: f32, device: &Device) -> Tensor<2> {
    let count = (shape[0] * shape[1]) as i64;
    Tensor::<1, Int>::arange(0..count, device)
        .float()
        .mul_scalar(phase)
        .sin()
        .mul_scalar(0.5)
        .reshape(shape)
}

impl Mlp {
    pub fn forward(&self, inputs: Tensor<2>) -> Tensor<2> {
        let x = self.hidden.forward(inputs);
        let x = self.activation.forward(x);
        self.output.forward(x)
    }
}
