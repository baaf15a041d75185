//! Fits a small multi-layer perceptron to a synthetic regression target and prints the loss
//! curve and a few predictions.

mod data;
mod model;
mod training;

use burn::tensor::Device;

fn main() {
    let device = Device::flex();
    let config = training::TrainingConfig::new(model::MlpConfig::new(3, 8));
    training::run(&config, device);
}
