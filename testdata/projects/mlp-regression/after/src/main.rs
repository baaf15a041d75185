//! Fits a small multi-layer perceptron to a synthetic regression target and prints the loss
//! curve and a few predictions.

mod data;
mod model;
mod training;

use burn::tensor::{Device, IntDType};

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let config = training::TrainingConfig::new(model::MlpConfig::new(3, 8));
    training::run(&config, device);
}
