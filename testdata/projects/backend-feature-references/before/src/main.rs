//! Doubles a vector on the backend the package's features pick.

use burn::tensor::{backend::Backend, Tensor};

fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {
    x.clone() + x
}

#[cfg(not(feature = "gpu"))]
fn run() {
    type B = burn_ndarray::NdArray<f32>;
    let device = burn_ndarray::NdArrayDevice::Cpu;
    let x = Tensor::<B, 1>::from_floats([1.0, 2.0, 3.0], &device);
    println!("{}", double(x).into_data());
}

#[cfg(feature = "gpu")]
fn run() {
    type B = burn_wgpu::Wgpu;
    let device = burn_wgpu::WgpuDevice::default();
    let x = Tensor::<B, 1>::from_floats([1.0, 2.0, 3.0], &device);
    println!("{}", double(x).into_data());
}

fn main() {
    run();
}
