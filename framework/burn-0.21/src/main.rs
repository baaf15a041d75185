//! Smoke test of the pinned Burn 0.21 toolchain: one gradient on NdArray with autodiff.

use burn::backend::{Autodiff, NdArray};
use burn::tensor::{ElementConversion, Tensor};

fn main() {
    type B = Autodiff<NdArray>;
    let device = Default::default();
    let x = Tensor::<B, 1>::from_floats([1.0, 2.0, 3.0], &device).require_grad();
    let grads = x.clone().powf_scalar(2.0).sum().backward();
    let grad = x.grad(&grads).expect("x is tracked").sum().into_scalar().elem::<f32>();
    println!("burn 0.21 ndarray: d/dx sum(x^2) summed = {grad}");
}
