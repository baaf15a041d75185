//! Trains a binary scorer with a hand-written loop: Adam, gradients per parameter, and a
//! validation pass on the inner (non-autodiff) backend after every epoch.

mod data;
mod model;
mod training;

use burn::tensor::{Device, IntDType};

fn main() {
    let config = training::LoopConfig::new(5, 8);
    training::run(&config, { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device });
}
