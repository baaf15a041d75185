//! Summary statistics over 1-d tensors.

use burn::tensor::{ElementConversion, Tensor};

/// Mean and (population) standard deviation of `x`.
///
/// ```
/// # use burn::tensor::{Device, IntDType};
/// # use burn::tensor::{ElementConversion, Tensor};
/// let mut device = Device::flex();
/// let _ = device.configure(IntDType::I64);
/// let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device);
/// let mean = x.mean().into_scalar::<f32>();
/// assert_eq!(mean, 2.0);
/// ```
pub fn mean_std(x: Tensor<1>) -> (f32, f32) {
    let mean = x.clone().mean().into_scalar::<f32>();
    let var = x.sub_scalar(mean).powf_scalar(2.0).mean();
    (mean, var.sqrt().into_scalar::<f32>())
}

/// `x` scaled to zero mean and unit variance.
pub fn standardize(x: Tensor<1>) -> Tensor<1> {
    let (mean, std) = mean_std(x.clone());
    x.sub_scalar(mean).div_scalar(std)
}
