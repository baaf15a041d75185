//! A feature normalizer that keeps no tensor of its own: it holds the backend only through a
//! marker field, and builds its scalars in the backend's element types.

use std::marker::PhantomData;

use burn::prelude::*;

/// Shifts and scales every feature, then clamps the result to a band.
pub struct Normalizer {
    mean: f32,
    spread: f32,
    band: f32,
}

impl Normalizer {
    pub fn new(mean: f32, spread: f32, band: f32) -> Self {
        Self {
            mean,
            spread,
            band,
        }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let mean = self.mean;
        let scale = 1.0 / self.spread;
        let low = -self.band;
        let high = self.band;
        x.sub_scalar(mean).mul_scalar(scale).clamp(low, high)
    }
}

/// Counts the features of a batch that the normalizer clamped.
pub struct ClampCounter<const N: usize> {
    band: f32,
    _marker: PhantomData<[f32; N]>,
}

impl<const N: usize> ClampCounter<N> {
    pub fn new(band: f32) -> Self {
        Self {
            band,
            _marker: PhantomData,
        }
    }

    pub fn count(&self, normalized: Tensor<2>) -> Tensor<1, Int> {
        let edge = self.band - 1e-6;
        normalized
            .abs()
            .greater_equal_elem(edge)
            .int()
            .sum_dim(1)
            .reshape([N])
    }
}
