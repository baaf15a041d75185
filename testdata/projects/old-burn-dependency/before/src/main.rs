//! Averages a vector; the helper crate counts the values.

use burn::backend::NdArray;
use burn::tensor::{backend::Backend, Tensor};

fn mean<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {
    x.mean()
}

fn main() {
    let device = Default::default();
    let x = Tensor::<NdArray, 1>::from_floats([1.0, 2.0, 6.0], &device);
    println!("{} values, mean {}", old_burn_ext::volume(&[3]), mean(x).into_data());
}
