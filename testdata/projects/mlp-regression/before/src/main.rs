//! Fits a small multi-layer perceptron to a synthetic regression target and prints the loss
//! curve and a few predictions.

mod data;
mod model;
mod training;

use burn::backend::ndarray::NdArrayDevice;
use burn::backend::{Autodiff, NdArray};

/// The backend the example trains on.
type TrainingBackend = Autodiff<NdArray<f32>>;

fn main() {
    let device = NdArrayDevice::Cpu;
    let config = training::TrainingConfig::new(model::MlpConfig::new(3, 8));
    training::run::<TrainingBackend>(&config, device);
}
