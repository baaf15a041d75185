//! Helpers every wing shares: nothing here knows about rules, Burn or the pipeline.

pub mod cargo;
pub mod diff;
pub mod files;
pub mod kinds_walk;
pub mod layout;
pub mod lines;
pub mod overlay;
pub mod suggest;
pub mod syntax;
#[cfg(test)]
pub mod test_random;
pub mod timing;
pub mod toolchain;
