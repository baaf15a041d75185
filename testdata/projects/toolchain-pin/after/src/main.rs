//! Sums a vector with the toolchain the project pins.

use burn::tensor::{Device, IntDType};
use burn::tensor::Tensor;

fn total(x: Tensor<1>) -> Tensor<1> {
    x.sum()
}

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.5], &device);
    println!("{}", total(x).into_data());
}
