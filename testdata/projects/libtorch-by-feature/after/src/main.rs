//! Fits a linear scorer with LibTorch, on the CPU or (with `--features cuda`) the first GPU.

mod scorer;

use burn::tensor::{Device, IntDType};

#[cfg(feature = "cuda")]
fn device() -> Device {
    { let mut device = Device::cuda(0); let _ = device.configure(IntDType::I64); device }
}

#[cfg(not(feature = "cuda"))]
fn device() -> Device {
    { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device }
}

fn main() {
    let losses = scorer::fit(device(), 12);
    for (step, loss) in losses.iter().enumerate().step_by(4) {
        println!("step {step:>2}  loss {loss:.5}");
    }
}
