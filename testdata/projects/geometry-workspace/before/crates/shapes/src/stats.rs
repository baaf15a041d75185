use std::marker::PhantomData;

use burn::prelude::*;

/// Mean of every value seen so far, accumulated on the host.
pub struct RunningMean<B: Backend> {
    sum: f64,
    count: usize,
    _backend: PhantomData<B>,
}

impl<B: Backend> RunningMean<B> {
    pub fn new() -> Self {
        Self {
            sum: 0.0,
            count: 0,
            _backend: PhantomData,
        }
    }

    pub fn update(&mut self, values: Tensor<B, 1>) {
        self.count += values.dims()[0];
        self.sum += values.sum().into_scalar().elem::<f64>();
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
}

impl<B: Backend> Default for RunningMean<B> {
    fn default() -> Self {
        Self::new()
    }
}
