//! A small convolutional classifier for synthetic 8x8 bar images.

pub mod data;
pub mod model;
pub mod train;
