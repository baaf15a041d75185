//! The backends the statistics run on, and the tensors they start from.

use burn::tensor::Device;
use burn::tensor::Tensor;

/// The samples, as a 1-d tensor on `device`.
pub fn samples(values: &[f32], device: &Device) -> Tensor<1> {
    Tensor::from_floats(values, device)
}
