//! Fits the scorer on the CPU, then scores held-out rows without tracking gradients. This
//! crate writes Burn's paths with the workspace's names for its crates: `nn` and `nd`.

mod report;

use nn::tensor::{Device, IntDType};
use scorer::data::{Samples, FEATURES};
use scorer::training::{fit, FitConfig};

fn main() {
    let mut device = Device::flex();
    let _ = device.configure(IntDType::I64);
    let held_out = Samples::generate(64, 8, &device);
    let scorer = fit(&FitConfig::new(FEATURES), device);
    report::print_scores(&scorer, &held_out);
}
