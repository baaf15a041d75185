use burn::tensor::{Device, IntDType};
use burn::tensor::Tensor;
use shapes::encoder::EncoderConfig;
use shapes::ops::{centered, pairwise_sq_distances, stack_rows};
use shapes::stats::RunningMean;

/// Prints a matrix row by row with four decimals.
fn describe(label: &str, values: Tensor<2>) {
    let [rows, cols] = values.dims();
    let flat: Vec<f32> = values.into_data().iter::<f32>().collect();
    println!("{label} ({rows}x{cols}):");
    for row in flat.chunks(cols) {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:8.4}")).collect();
        println!("  {}", cells.join(" "));
    }
}

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    device.seed(11);

    let points = shapes::make_points(5, &device);
    let points = centered(points);
    describe("centered points", points.clone());

    let distances = pairwise_sq_distances(points.clone(), points.clone());
    let mut mean = RunningMean::new();
    for row in 0..5 {
        mean.update(distances.clone().slice([row..row + 1]).flatten(0, 1));
    }
    println!("mean squared distance {:.5}", mean.mean());

    let encoder = EncoderConfig::new(2, 3).init(&device);
    describe("encoded", encoder.forward(points));

    let stacked = stack_rows::<3>([
        Tensor::ones([2], &device),
        Tensor::zeros([2], &device),
        Tensor::full([2], 0.5, &device),
    ]);
    describe("stacked", stacked);
}
