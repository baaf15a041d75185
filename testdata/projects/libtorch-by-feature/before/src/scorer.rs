use burn::module::Param;
use burn::nn::{Initializer, Linear, LinearConfig};
use burn::optim::{GradientsParams, Optimizer, SgdConfig};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

#[derive(Module, Debug)]
pub struct Scorer<B: Backend> {
    linear: Linear<B>,
}

impl<B: Backend> Scorer<B> {
    pub fn new(device: &B::Device) -> Self {
        let mut linear = LinearConfig::new(2, 1)
            .with_initializer(Initializer::Zeros)
            .init(device);
        linear.weight = Param::from_tensor(Tensor::from_floats([[0.5], [-0.25]], device));
        Self { linear }
    }

    pub fn forward(&self, inputs: Tensor<B, 2>) -> Tensor<B, 1> {
        self.linear.forward(inputs).flatten(0, 1)
    }
}

/// Losses of `steps` SGD steps on y = x0 - 2 x1.
pub fn fit<B: AutodiffBackend>(device: B::Device, steps: usize) -> Vec<f32> {
    let inputs = Tensor::<B, 1, Int>::arange(0..16, &device)
        .float()
        .div_scalar(16.0)
        .reshape([8, 2]);
    let targets = inputs.clone().narrow(1, 0, 1).sub(inputs.clone().narrow(1, 1, 1).mul_scalar(2.0)).flatten(0, 1);
    let mut model = Scorer::<B>::new(&device);
    let mut optim = SgdConfig::new().init();
    let mut losses = Vec::new();
    for _ in 0..steps {
        let loss = model.forward(inputs.clone()).sub(targets.clone()).powf_scalar(2.0).mean();
        losses.push(loss.clone().into_scalar().elem::<f32>());
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(0.5, model, grads);
    }
    losses
}
