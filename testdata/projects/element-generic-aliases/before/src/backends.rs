//! Backend choices in one place, generic over the element types so experiments can switch
//! precision by changing the aliases' arguments.

use burn::backend::{Autodiff, NdArray};

/// CPU inference backend.
pub type Host<F, I> = NdArray<F, I>;

/// Training backend: the host backend with autodiff.
pub type Trainer<F, I> = Autodiff<Host<F, I>>;

/// What this program uses.
pub type Inference = Host<f32, i64>;
pub type Training = Trainer<f32, i64>;
