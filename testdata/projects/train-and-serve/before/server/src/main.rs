//! Serves predictions on the GPU through wgpu.

use burn::backend::wgpu::{Wgpu, WgpuDevice};
use burn::prelude::*;
use model::{samples, ClassifierConfig};

type Gpu = Wgpu<f32, i32>;

fn main() {
    let device = WgpuDevice::default();
    let classifier = ClassifierConfig::new(3, 3).init::<Gpu>(&device);
    let (inputs, _) = samples::<Gpu>(4, &device);
    let predictions = classifier.forward(inputs).argmax(1).flatten::<1>(0, 1);
    let classes: Vec<i64> = predictions.into_data().iter::<i64>().collect();
    println!("predicted classes {classes:?}");
}
