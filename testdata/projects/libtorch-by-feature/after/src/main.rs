//! Fits a linear scorer with LibTorch, on the CPU or (with `--features cuda`) the first GPU.

mod scorer;

use burn::tensor::Device;

#[cfg(feature = "cuda")]
fn device() -> Device {
    Device::cuda(0)
}

#[cfg(not(feature = "cuda"))]
fn device() -> Device {
    Device::flex()
}

fn main() {
    let losses = scorer::fit(device(), 12);
    for (step, loss) in losses.iter().enumerate().step_by(4) {
        println!("step {step:>2}  loss {loss:.5}");
    }
}
