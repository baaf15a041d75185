//! burn-migrate ports projects written against Burn 0.21 to Burn 0.22.
//!
//! Stages, one module each: [`discover`] (cargo metadata, module files), [`source`] (lossless
//! parsing), [`index`] (workspace-wide facts), [`transforms`] (rules to edits), [`migrate`]
//! (the fixed-point driver and validation), [`emit`] (diffs and diagnostics). [`rules`] holds
//! the rule set, [`manifest`] the Cargo.toml rewrite.

pub mod bench;
pub mod book;
pub mod compare;
pub mod discover;
pub mod edit;
pub mod emit;
pub mod error;
pub mod framework;
pub mod index;
pub mod lockfile;
pub mod manifest;
pub mod migrate;
pub mod probe;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod syntax_util;
pub mod transforms;
pub mod verify;

pub use error::Error;
