//! Sums a vector with the toolchain the project pins.

use burn::backend::NdArray;
use burn::tensor::{backend::Backend, Tensor};

fn total<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {
    x.sum()
}

fn main() {
    let device = Default::default();
    let x = Tensor::<NdArray, 1>::from_floats([1.0, 2.0, 3.5], &device);
    println!("{}", total(x).into_data());
}
