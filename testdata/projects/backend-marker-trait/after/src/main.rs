//! Standardizes a few samples and prints their statistics before and after.

mod backend;
mod stats;

use burn::tensor::{Device, IntDType};

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let x = backend::samples(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], &device);
    let (mean, std) = stats::mean_std(x.clone());
    println!("before: mean {mean:.3} std {std:.3}");
    let z = stats::standardize(x);
    let (mean, std) = stats::mean_std(z.clone());
    println!("after: mean {mean:.3} std {std:.3}");
    println!("values: {:?}", z.into_data().try_to_vec::<f32>().unwrap());
}
