//! The prove wing: builds and runs the original against Burn 0.21 and the port against the
//! pinned Burn 0.22, and measures what the migration is for.
//!
//! [`verify`] compares outputs and tests, [`bench`] rebuild times, [`probe`] which devices work
//! here, [`framework`] the pinned Burn crates they all build against, [`compare`] printed
//! numbers within a tolerance.

pub mod bench;
pub mod compare;
pub mod framework;
pub mod probe;
pub mod verify;
