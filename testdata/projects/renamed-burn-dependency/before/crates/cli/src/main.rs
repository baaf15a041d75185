//! Fits the scorer on the CPU, then scores held-out rows without tracking gradients. This
//! crate writes Burn's paths with the workspace's names for its crates: `nn` and `nd`.

mod report;

use nn::backend::Autodiff;
use scorer::data::{Samples, FEATURES};
use scorer::training::{fit, FitConfig};

/// The CPU backend.
type Cpu = nd::NdArray<f32>;

fn main() {
    let device = nd::NdArrayDevice::Cpu;
    let held_out = Samples::<Cpu>::generate(64, 8, &device);
    let scorer = fit::<Autodiff<Cpu>>(&FitConfig::new(FEATURES), device);
    report::print_scores(&scorer, &held_out);
}
