//! burn-migrate ports projects written against Burn 0.21 to Burn 0.22, and proves the port.
//!
//! Three wings, each only using the ones listed before it:
//! - [`migrate`]: discover, parse, index, rewrite (transforms), manifests and the lockfile;
//! - [`prove`]: build and run both sides (verify), rebuild times (bench), device probes and
//!   the pinned framework;
//! - [`report`]: diffs, diagnostics, the guide, and the renderers of every command's output.
//!
//! Under them sit what all wings share: [`rules`] (the rule set and the backend table),
//! [`edit`] (text edits on lossless trees), [`util`] (running cargo, walking files, syntax
//! helpers) and [`error`].

pub mod edit;
pub mod error;
pub mod migrate;
pub mod prove;
pub mod report;
pub mod rules;
pub mod util;

pub use error::Error;
