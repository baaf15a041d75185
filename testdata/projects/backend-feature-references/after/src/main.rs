//! Doubles a vector on the backend the package's features pick.

use burn::tensor::{Device, DeviceKind, IntDType};
use burn::tensor::Tensor;

fn double(x: Tensor<1>) -> Tensor<1> {
    x.clone() + x
}

#[cfg(not(feature = "gpu"))]
fn run() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device);
    println!("{}", double(x).into_data());
}

#[cfg(feature = "gpu")]
fn run() {
    let device = Device::wgpu(DeviceKind::DefaultDevice);
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device);
    println!("{}", double(x).into_data());
}

fn main() {
    run();
}
