//! Helpers every wing shares: nothing here knows about rules, Burn or the pipeline.

pub mod cargo;
pub mod files;
pub mod syntax;
pub mod timing;
pub mod toolchain;
