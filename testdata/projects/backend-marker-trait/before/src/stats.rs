//! Summary statistics over 1-d tensors.

use burn::tensor::{ElementConversion, Tensor};

use crate::backend::Compute;

/// Mean and (population) standard deviation of `x`.
///
/// ```
/// # use burn::backend::NdArray;
/// # use burn::tensor::{ElementConversion, Tensor};
/// let device = Default::default();
/// let x = Tensor::<NdArray, 1>::from_floats([1.0, 2.0, 3.0], &device);
/// let mean = x.mean().into_scalar().elem::<f32>();
/// assert_eq!(mean, 2.0);
/// ```
pub fn mean_std<B: Compute>(x: Tensor<B, 1>) -> (f32, f32) {
    let mean = x.clone().mean().into_scalar().elem::<f32>();
    let var = x.sub_scalar(mean).powf_scalar(2.0).mean();
    (mean, var.sqrt().into_scalar().elem::<f32>())
}

/// `x` scaled to zero mean and unit variance.
pub fn standardize<B>(x: Tensor<B, 1>) -> Tensor<B, 1>
where
    B: Compute,
{
    let (mean, std) = mean_std(x.clone());
    x.sub_scalar(mean).div_scalar(std)
}
