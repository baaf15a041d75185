//! The backends the statistics run on, and the tensors they start from.

use burn::tensor::backend::Backend;
use burn::tensor::Tensor;

/// Any backend the statistics support: a name for `Backend` that reads better in bounds.
pub trait Compute: Backend {}

impl<B: Backend> Compute for B {}

/// The samples, as a 1-d tensor on `device`.
pub fn samples<B: Compute>(values: &[f32], device: &B::Device) -> Tensor<B, 1> {
    Tensor::from_floats(values, device)
}
