//! Scales a vector on the CPU, or with `--features gpu` on the default WebGPU adapter.

use burn::tensor::Tensor;
use burn::tensor::{Device, DeviceKind};

#[cfg(not(feature = "gpu"))]
fn run() {
    let device = Device::flex();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 4.0], &device);
    println!("{}", model::scale(x, 0.5).into_data());
}

#[cfg(feature = "gpu")]
fn run() {
    let device = Device::wgpu(DeviceKind::DefaultDevice);
    let x = Tensor::<1>::from_floats([1.0, 2.0, 4.0], &device);
    println!("{}", model::scale(x, 0.5).into_data());
}

fn main() {
    run();
}
