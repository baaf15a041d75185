//! Averages a vector; the helper crate counts the values.

use burn::tensor::Device;
use burn::tensor::Tensor;

fn mean(x: Tensor<1>) -> Tensor<1> {
    x.mean()
}

fn main() {
    let device = Device::flex();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 6.0], &device);
    println!("{} values, mean {}", old_burn_ext::volume(&[3]), mean(x).into_data());
}
