//! Serves predictions on the GPU through wgpu.

use burn::prelude::*;
use model::{samples, ClassifierConfig};

fn main() {
    let device = Device::wgpu(DeviceKind::DefaultDevice);
    let classifier = ClassifierConfig::new(3, 3).init(&device);
    let (inputs, _) = samples(4, &device);
    let predictions = classifier.forward(inputs).argmax(1).flatten::<1>(0, 1);
    let classes: Vec<i64> = predictions.into_data().iter::<i64>().collect();
    println!("predicted classes {classes:?}");
}
