//! A two-layer regressor trained with Adam, then evaluated on a separate inference backend.

mod backends;

use burn::module::{AutodiffModule, Param};
use burn::nn::{Initializer, Linear, LinearConfig, Tanh};
use burn::optim::{AdamConfig, GradientsParams, Optimizer};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

use backends::{Inference, Training};

#[derive(Module, Debug)]
struct Regressor<B: Backend> {
    first: Linear<B>,
    second: Linear<B>,
    activation: Tanh,
}

impl<B: Backend> Regressor<B> {
    fn new(device: &B::Device) -> Self {
        let layer = |inputs: usize, outputs: usize, phase: f32| {
            let mut linear = LinearConfig::new(inputs, outputs)
                .with_initializer(Initializer::Zeros)
                .init(device);
            let count = (inputs * outputs) as i64;
            let weights = Tensor::<B, 1, Int>::arange(0..count, device)
                .float()
                .mul_scalar(phase)
                .cos()
                .mul_scalar(0.5)
                .reshape([inputs, outputs]);
            linear.weight = Param::from_tensor(weights);
            linear
        };
        Self {
            first: layer(1, 6, 0.9),
            second: layer(6, 1, 1.3),
            activation: Tanh::new(),
        }
    }

    fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        self.second.forward(self.activation.forward(self.first.forward(x)))
    }
}

/// Points on y = sin(2x) for x in [0, 1).
fn curve<B: Backend>(points: usize, device: &B::Device) -> (Tensor<B, 2>, Tensor<B, 2>) {
    let x = Tensor::<B, 1, Int>::arange(0..points as i64, device)
        .float()
        .div_scalar(points as f32)
        .reshape([points, 1]);
    let y = x.clone().mul_scalar(2.0).sin();
    (x, y)
}

fn train<B: AutodiffBackend>(device: &B::Device) -> Regressor<B> {
    let (x, y) = curve::<B>(16, device);
    let mut model = Regressor::<B>::new(device);
    let mut optim = AdamConfig::new().init::<B, Regressor<B>>();
    for step in 0..30 {
        let loss = model.forward(x.clone()).sub(y.clone()).powf_scalar(2.0).mean();
        if step % 10 == 0 {
            println!("step {step:>2}  loss {:.5}", loss.clone().into_scalar().elem::<f32>());
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(0.05, model, grads);
    }
    model
}

fn evaluate<B: Backend>(model: &Regressor<B>, device: &B::Device) -> f32 {
    let (x, y) = curve::<B>(7, device);
    model.forward(x).sub(y).abs().mean().into_scalar().elem::<f32>()
}

fn main() {
    let device = Default::default();
    let model = train::<Training>(&device);
    let error = evaluate::<Inference>(&model.valid(), &device);
    println!("mean absolute error {error:.5}");
}
