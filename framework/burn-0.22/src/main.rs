//! Smoke test and device probe of the pinned Burn 0.22 toolchain: one gradient on the device
//! named by the first argument (`flex`, the default, or `vulkan` when built with that feature),
//! then the device's memory-pool usage where it has pools (CubeCL devices).
//!
//! `burn-migrate` runs this in a child process, so a driver that crashes on CubeCL's kernels
//! takes the probe down, not the tool.

use burn::tensor::{Device, Tensor};

/// Exit code for a device this build does not include.
const NOT_BUILT: i32 = 3;

fn main() {
    let kind = std::env::args().nth(1).unwrap_or_else(|| "flex".to_string());
    let device = match kind.as_str() {
        "flex" => Device::flex(),
        #[cfg(feature = "vulkan")]
        "vulkan" => Device::vulkan(burn::tensor::DeviceKind::DefaultDevice),
        other => {
            eprintln!("device `{other}` is not built into this probe (build it with `--features {other}`)");
            std::process::exit(NOT_BUILT);
        }
    };
    let autodiff = device.clone().autodiff();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &autodiff).require_grad();
    let grads = x.clone().powf_scalar(2.0).sum().backward();
    let grad = x.grad(&grads).expect("x is tracked").sum().into_scalar::<f32>();
    println!("ok {kind}: d/dx sum(x^2) summed = {grad}");
    match device.memory_pool_usage() {
        Some(usage) => println!("memory pool: {usage:?}"),
        None => println!("memory pool: none (not a CubeCL device)"),
    }
}
