use burn::prelude::*;

/// Inputs in [0, 1) laid out row by row, and a target that mixes them non-linearly.
pub struct RegressionData {
    pub inputs: Tensor<2>,
    pub targets: Tensor<2>,
}

impl RegressionData {
    pub fn generate(rows: usize, features: usize, device: &Device) -> Self {
        let count = (rows * features) as i64;
        let inputs = Tensor::<1, Int>::arange(0..count, device)
            .float()
            .div_scalar(count as f32)
            .reshape([rows, features]);
        // y = 2 x0 - x1 + sin(3 x2) + 0.5
        let weights = Tensor::<2>::from_floats([[2.0], [-1.0], [0.0]], device);
        let wave = inputs.clone().narrow(1, 2, 1).mul_scalar(3.0).sin();
        let targets = inputs.clone().matmul(weights).add(wave).add_scalar(0.5);
        Self { inputs, targets }
    }

    pub fn len(&self) -> usize {
        self.inputs.dims()[0]
    }
}

#[cfg(test)]
mod tests {
    use burn::tensor::IntDType;
    use super::*;

    #[test]
    fn one_target_per_row() {
        let mut device = Device::flex();
        let _ = device.configure(IntDType::I64);
        let data = RegressionData::generate(5, 3, &device);
        assert_eq!(data.inputs.dims(), [5, 3]);
        assert_eq!(data.targets.dims(), [5, 1]);
        assert_eq!(data.len(), 5);
    }
}
