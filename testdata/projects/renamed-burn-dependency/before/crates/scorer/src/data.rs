use burn::prelude::*;

/// Values per row.
pub const FEATURES: usize = 4;

/// Rows of `FEATURES` values in [-1, 1] and a 0/1 label per row: 1 where the first two
/// values outweigh the last two.
pub struct Samples<B: Backend> {
    pub inputs: Tensor<B, 2>,
    pub labels: Tensor<B, 2>,
}

impl<B: Backend> Samples<B> {
    /// `rows` rows, starting at row `offset` of a fixed sequence.
    pub fn generate(offset: usize, rows: usize, device: &B::Device) -> Self {
        let start = (offset * FEATURES) as i64;
        let end = start + (rows * FEATURES) as i64;
        let inputs = Tensor::<B, 1, Int>::arange(start..end, device)
            .float()
            .mul_scalar(0.73)
            .sin()
            .reshape([rows, FEATURES]);
        let signs = Tensor::<B, 2>::from_floats([[1.0], [1.0], [-1.0], [-1.0]], device);
        let labels = inputs.clone().matmul(signs).greater_elem(0.0).float();
        Self { inputs, labels }
    }

    pub fn rows(&self) -> usize {
        self.inputs.dims()[0]
    }
}
