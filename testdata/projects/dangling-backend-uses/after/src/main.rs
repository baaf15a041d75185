//! Normalizes a small batch of readings and prints the result and how many were clamped.

mod model;

use burn::tensor::IntDType;
use burn::prelude::*;

use model::{ClampCounter, Normalizer};

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let readings = Tensor::<2>::from_floats(
        [[1.0, 4.0, 7.0], [2.5, 3.0, 12.0], [-6.0, 5.0, 5.5]],
        &device,
    );
    let normalizer = Normalizer::new(4.0, 2.0, 2.5);
    let normalized = normalizer.forward(readings);
    for row in 0..3 {
        let values: Vec<String> = (0..3)
            .map(|column| {
                let value = normalized
                    .clone()
                    .slice([row..row + 1, column..column + 1])
                    .into_scalar::<f32>();
                format!("{value:.3}")
            })
            .collect();
        println!("row {row}: {}", values.join(" "));
    }
    let counter = ClampCounter::<3>::new(2.5);
    let clamped = counter.count(normalized);
    for row in 0..3 {
        let count = clamped.clone().slice([row..row + 1]).into_scalar::<i64>();
        println!("row {row}: {count} clamped");
    }
}
