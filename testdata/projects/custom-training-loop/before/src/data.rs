use burn::prelude::*;

/// Rows of four features and a 0/1 label: is the first pair larger than the second?
#[derive(Clone, Debug)]
pub struct Split<B: Backend> {
    pub inputs: Tensor<B, 2>,
    pub labels: Tensor<B, 1, Int>,
}

impl<B: Backend> Split<B> {
    /// `rows` rows starting at `offset` of a fixed, deterministic sequence.
    pub fn generate(offset: usize, rows: usize, device: &B::Device) -> Self {
        let start = (offset * 4) as i64;
        let end = start + (rows * 4) as i64;
        let inputs = Tensor::<B, 1, Int>::arange(start..end, device)
            .float()
            .mul_scalar(0.61)
            .sin()
            .reshape([rows, 4]);
        let first = inputs.clone().narrow(1, 0, 2).sum_dim(1);
        let second = inputs.clone().narrow(1, 2, 2).sum_dim(1);
        let labels = first.greater(second).int().flatten(0, 1);
        Self { inputs, labels }
    }

    pub fn rows(&self) -> usize {
        self.inputs.dims()[0]
    }

    pub fn batch(&self, index: usize, size: usize) -> Self {
        let range = index * size..(index + 1) * size;
        Self {
            inputs: self.inputs.clone().slice([range.clone()]),
            labels: self.labels.clone().slice([range]),
        }
    }
}
