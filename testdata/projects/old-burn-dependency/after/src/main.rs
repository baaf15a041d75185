//! Averages a vector; the helper crate counts the values.

use burn::tensor::{Device, IntDType};
use burn::tensor::Tensor;

fn mean(x: Tensor<1>) -> Tensor<1> {
    x.mean()
}

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let x = Tensor::<1>::from_floats([1.0, 2.0, 6.0], &device);
    println!("{} values, mean {}", old_burn_ext::volume(&[3]), mean(x).into_data());
}
