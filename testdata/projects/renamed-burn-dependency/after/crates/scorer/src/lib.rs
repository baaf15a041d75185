//! A linear scorer with a sigmoid output, the samples it learns from and the loop that fits
//! it. The workspace calls Burn `nn`; this crate names it `burn` again, which Burn's derive
//! macros expect.

extern crate nn as burn;

pub mod data;
pub mod model;
pub mod training;
