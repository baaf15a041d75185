//! Sums a vector with the toolchain the project pins.

use burn::tensor::Device;
use burn::tensor::Tensor;

fn total(x: Tensor<1>) -> Tensor<1> {
    x.sum()
}

fn main() {
    let device = Device::flex();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.5], &device);
    println!("{}", total(x).into_data());
}
