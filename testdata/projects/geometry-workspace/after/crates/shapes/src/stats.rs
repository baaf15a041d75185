use burn::prelude::*;

/// Mean of every value seen so far, accumulated on the host.
pub struct RunningMean {
    sum: f64,
    count: usize,
}

impl RunningMean {
    pub fn new() -> Self {
        Self {
            sum: 0.0,
            count: 0,
        }
    }

    pub fn update(&mut self, values: Tensor<1>) {
        self.count += values.dims()[0];
        self.sum += values.sum().into_scalar::<f64>();
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
}

impl Default for RunningMean {
    fn default() -> Self {
        Self::new()
    }
}
