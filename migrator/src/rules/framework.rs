//! The pinned Burn releases' lockfiles (`framework/burn-*/Cargo.lock`): the dependency
//! versions each release is known to build with. The proof builds against them; the port
//! raises a project's lockfile to them (see `migrate::lockfile`).

pub const BURN_0_21_LOCK: &str = include_str!("../../../framework/burn-0.21/Cargo.lock");
pub const BURN_0_22_LOCK: &str = include_str!("../../../framework/burn-0.22/Cargo.lock");

/// The public API of each pinned release as `cargo run -p xtask -- api-diff` listed it from
/// rustdoc JSON (`framework/api/<version>.txt`, one `path kind signature` line per item; see
/// `framework/api/README.md`).
pub const BURN_0_21_API: &str = include_str!("../../../framework/api/0.21.0.txt");
pub const BURN_0_22_API: &str = include_str!("../../../framework/api/0.22.1.txt");

/// The listing of a release: `"0.21"` or `"0.22"` (a full version such as `"0.22.1"` works too).
pub fn public_api_lines(version: &str) -> Option<&'static str> {
    match version.get(..4) {
        Some("0.21") => Some(BURN_0_21_API),
        Some("0.22") => Some(BURN_0_22_API),
        _ => None,
    }
}

/// Every public item path of a release (`burn::tensor::Tensor`, `burn::nn::Linear::forward`);
/// empty for a version that is not pinned.
pub fn public_api(version: &str) -> std::collections::BTreeSet<String> {
    public_api_lines(version)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// The exact `burn` version a pinned lockfile holds (`0.22.1`).
pub fn locked_burn_version(lock: &'static str) -> Option<&'static str> {
    let at = lock.find("name = \"burn\"\nversion = \"")? + "name = \"burn\"\nversion = \"".len();
    let rest = &lock[at..];
    Some(&rest[..rest.find('"')?])
}
