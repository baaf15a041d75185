//! Scales a vector on the CPU, or with `--features gpu` on the default WebGPU adapter.

use burn::tensor::Tensor;
use burn::tensor::{Device, DeviceKind, IntDType};

#[cfg(not(feature = "gpu"))]
fn run() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
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
