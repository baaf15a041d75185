use burn::backend::ndarray::NdArrayDevice;
use burn::backend::NdArray;
use burn::tensor::backend::Backend;
use burn::tensor::Tensor;
use shapes::encoder::EncoderConfig;
use shapes::ops::{centered, pairwise_sq_distances, stack_rows};
use shapes::stats::RunningMean;

type Host = NdArray<f32>;

/// Prints a matrix row by row with four decimals.
fn describe<B: Backend>(label: &str, values: Tensor<B, 2>) {
    let [rows, cols] = values.dims();
    let flat: Vec<f32> = values.into_data().iter::<f32>().collect();
    println!("{label} ({rows}x{cols}):");
    for row in flat.chunks(cols) {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:8.4}")).collect();
        println!("  {}", cells.join(" "));
    }
}

fn main() {
    let device = NdArrayDevice::default();
    Host::seed(&device, 11);

    let points = shapes::make_points::<Host>(5, &device);
    let points = centered(points);
    describe::<Host>("centered points", points.clone());

    let distances = pairwise_sq_distances(points.clone(), points.clone());
    let mut mean = RunningMean::<Host>::new();
    for row in 0..5 {
        mean.update(distances.clone().slice([row..row + 1]).flatten(0, 1));
    }
    println!("mean squared distance {:.5}", mean.mean());

    let encoder = EncoderConfig::new(2, 3).init::<Host>(&device);
    describe::<Host>("encoded", encoder.forward(points));

    let stacked = stack_rows::<Host, 3>([
        Tensor::ones([2], &device),
        Tensor::zeros([2], &device),
        Tensor::full([2], 0.5, &device),
    ]);
    describe::<Host>("stacked", stacked);
}
