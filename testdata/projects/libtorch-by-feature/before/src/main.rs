//! Fits a linear scorer with LibTorch, on the CPU or (with `--features cuda`) the first GPU.

mod scorer;

use burn::backend::libtorch::{LibTorch, LibTorchDevice};
use burn::backend::Autodiff;

type Torch = Autodiff<LibTorch<f32>>;

#[cfg(feature = "cuda")]
fn device() -> LibTorchDevice {
    LibTorchDevice::Cuda(0)
}

#[cfg(not(feature = "cuda"))]
fn device() -> LibTorchDevice {
    LibTorchDevice::Cpu
}

fn main() {
    let losses = scorer::fit::<Torch>(device(), 12);
    for (step, loss) in losses.iter().enumerate().step_by(4) {
        println!("step {step:>2}  loss {loss:.5}");
    }
}
