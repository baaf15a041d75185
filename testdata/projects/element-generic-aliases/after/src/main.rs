//! A two-layer regressor trained with Adam, then evaluated on a separate inference backend.

mod backends;

use burn::module::Param;
use burn::nn::{Initializer, Linear, LinearConfig, Tanh};
use burn::tensor::IntDType;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;

#[derive(Module, Debug)]
struct Regressor {
    first: Linear,
    second: Linear,
    activation: Tanh,
}

impl Regressor {
    fn new(device: &Device) -> Self {
        let layer = |inputs: usize, outputs: usize, phase: f32| {
            let mut linear = LinearConfig::new(inputs, outputs)
                .with_initializer(Initializer::Zeros)
                .init(device);
            let count = (inputs * outputs) as i64;
            let weights = Tensor::<1, Int>::arange(0..count, device)
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

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.second.forward(self.activation.forward(self.first.forward(x)))
    }
}

/// Points on y = sin(2x) for x in [0, 1).
fn curve(points: usize, device: &Device) -> (Tensor<2>, Tensor<2>) {
    let x = Tensor::<1, Int>::arange(0..points as i64, device)
        .float()
        .div_scalar(points as f32)
        .reshape([points, 1]);
    let y = x.clone().mul_scalar(2.0).sin();
    (x, y)
}

fn train(device: &Device) -> Regressor {
    let device = &device.clone().autodiff();
    let (x, y) = curve(16, device);
    let mut model = Regressor::new(device);
    let mut optim = AdamConfig::new().init();
    for step in 0..30 {
        let loss = model.forward(x.clone()).sub(y.clone()).powf_scalar(2.0).mean();
        if step % 10 == 0 {
            println!("step {step:>2}  loss {:.5}", loss.clone().into_scalar::<f32>());
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(0.05, model, grads);
    }
    model
}

fn evaluate(model: &Regressor, device: &Device) -> f32 {
    let (x, y) = curve(7, device);
    model.forward(x).sub(y).abs().mean().into_scalar::<f32>()
}

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let model = train(&device);
    let error = evaluate(&model.valid(), &device);
    println!("mean absolute error {error:.5}");
}
