//! Smoke test of the pinned Burn 0.22 toolchain: one gradient on Flex with autodiff.

use burn::tensor::{Device, Tensor};

fn main() {
    let device = Device::flex().autodiff();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device).require_grad();
    let grads = x.clone().powf_scalar(2.0).sum().backward();
    let grad = x.grad(&grads).expect("x is tracked").sum().into_scalar::<f32>();
    println!("burn 0.22 flex: d/dx sum(x^2) summed = {grad}");
}
