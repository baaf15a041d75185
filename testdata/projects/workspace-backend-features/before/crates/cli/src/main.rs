//! Scales a vector on the CPU, or with `--features gpu` on the default WebGPU adapter.

use burn::tensor::Tensor;

#[cfg(not(feature = "gpu"))]
fn run() {
    type B = burn::backend::NdArray;
    let device = burn::backend::ndarray::NdArrayDevice::Cpu;
    let x = Tensor::<B, 1>::from_floats([1.0, 2.0, 4.0], &device);
    println!("{}", model::scale(x, 0.5).into_data());
}

#[cfg(feature = "gpu")]
fn run() {
    type B = burn_wgpu::Wgpu;
    let device = burn_wgpu::WgpuDevice::default();
    let x = Tensor::<B, 1>::from_floats([1.0, 2.0, 4.0], &device);
    println!("{}", model::scale(x, 0.5).into_data());
}

fn main() {
    run();
}
