//! A helper crate built on Burn 0.21.

/// The number of values in a shape.
pub fn volume(dims: &[usize]) -> usize {
    burn::tensor::Shape::new([dims.iter().product::<usize>()]).num_elements()
}
