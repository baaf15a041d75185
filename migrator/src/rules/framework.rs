//! The pinned Burn releases' lockfiles (`framework/burn-*/Cargo.lock`): the dependency
//! versions each release is known to build with. The proof builds against them; the port
//! raises a project's lockfile to them (see `migrate::lockfile`).

pub const BURN_0_21_LOCK: &str = include_str!("../../../framework/burn-0.21/Cargo.lock");
pub const BURN_0_22_LOCK: &str = include_str!("../../../framework/burn-0.22/Cargo.lock");
