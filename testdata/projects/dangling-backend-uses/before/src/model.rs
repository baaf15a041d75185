//! A feature normalizer that keeps no tensor of its own: it holds the backend only through a
//! marker field, and builds its scalars in the backend's element types.

use std::marker::PhantomData;

use burn::prelude::*;

/// Shifts and scales every feature, then clamps the result to a band.
pub struct Normalizer<B: Backend> {
    mean: f32,
    spread: f32,
    band: f32,
    _backend: PhantomData<fn() -> B>,
}

impl<B: Backend> Normalizer<B> {
    pub fn new(mean: f32, spread: f32, band: f32) -> Self {
        Self {
            mean,
            spread,
            band,
            _backend: PhantomData,
        }
    }

    pub fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> {
        let mean = B::FloatElem::from_elem(self.mean);
        let scale = <B as burn::tensor::backend::BackendTypes>::FloatElem::from_elem(1.0 / self.spread);
        let low = B::FloatElem::from_elem(-self.band);
        let high = B::FloatElem::from_elem(self.band);
        x.sub_scalar(mean).mul_scalar(scale).clamp(low, high)
    }
}

/// Counts the features of a batch that the normalizer clamped.
pub struct ClampCounter<B: Backend, const N: usize> {
    band: f32,
    _marker: PhantomData<(B, [f32; N])>,
}

impl<B: Backend, const N: usize> ClampCounter<B, N> {
    pub fn new(band: f32) -> Self {
        Self {
            band,
            _marker: PhantomData,
        }
    }

    pub fn count(&self, normalized: Tensor<B, 2>) -> Tensor<B, 1, Int> {
        let edge = B::FloatElem::from_elem(self.band - 1e-6);
        normalized
            .abs()
            .greater_equal_elem(edge)
            .int()
            .sum_dim(1)
            .reshape([N])
    }
}
