//! Point clouds, distance helpers and a tiny encoder, generic over the Burn backend.

pub mod encoder;
pub mod ops;
pub mod stats;

pub use ops::make_points;
