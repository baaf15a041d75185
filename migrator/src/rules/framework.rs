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

/// Burn crates published beside the ones the pinned lockfiles hold (importers, test
/// generators and crates of earlier releases that 0.21 projects still name).
const OTHER_BURN_CRATES: &[&str] = &[
    "burn-import",
    "burn-tensor-testgen",
    "burn-common",
    "burn-jit",
    "burn-hip",
    "burn-onnx",
];

/// Burn's own crates, by package name (`burn`, `burn-tensor`, `burn-store`, ...): the `burn*`
/// packages of the pinned 0.21 and 0.22 lockfiles at Burn's version, and the few others
/// Burn publishes. A project's own crate whose name starts with `burn` (`burn-lm-inference`)
/// is not one.
pub fn burn_crates() -> &'static std::collections::BTreeSet<String> {
    static CRATES: std::sync::OnceLock<std::collections::BTreeSet<String>> =
        std::sync::OnceLock::new();
    CRATES.get_or_init(|| {
        let mut crates: std::collections::BTreeSet<String> =
            OTHER_BURN_CRATES.iter().map(|c| c.to_string()).collect();
        for lock in [BURN_0_21_LOCK, BURN_0_22_LOCK] {
            let Some(burn) = locked_burn_version(lock) else {
                continue;
            };
            // Burn's sub-crates carry its version (0.22.0 for burn, 0.22.1 for the rest).
            let release = burn.rsplit_once('.').map_or(burn, |(minor, _)| minor);
            for package in lock.split("[[package]]") {
                let field = |key: &str| {
                    let at = package.find(&format!("\n{key} = \""))? + key.len() + 5;
                    Some(&package[at..at + package[at..].find('"')?])
                };
                let (Some(name), Some(version)) = (field("name"), field("version")) else {
                    continue;
                };
                let registry = package.contains("\nsource = \"registry+");
                if name.starts_with("burn") && registry && version.starts_with(release) {
                    crates.insert(name.to_string());
                }
            }
        }
        crates
    })
}

/// Whether Burn 0.22 has a crate of that name (the pinned 0.22 lockfile holds it): the only
/// Burn crates a dependency can move to 0.22.
pub fn is_burn_0_22_package(name: &str) -> bool {
    BURN_0_22_LOCK.contains(&format!("\nname = \"{name}\"\n")) && is_burn_package(name)
}

/// Whether a package name is one of Burn's crates (see `burn_crates`).
pub fn is_burn_package(name: &str) -> bool {
    burn_crates().contains(name)
}

/// Whether the first name of a Rust path is one of Burn's crates (`burn`, `burn_tensor`).
pub fn is_burn_crate_name(name: &str) -> bool {
    name.starts_with("burn") && burn_crates().contains(&name.replace('_', "-"))
}

#[cfg(test)]
mod burn_crate_tests {
    use super::*;

    #[test]
    fn burn_crates_come_from_the_pinned_locks_not_from_names() {
        for burn in [
            "burn",
            "burn-tensor",
            "burn-store",
            "burn-ndarray",
            "burn-flex",
            "burn-cuda",
        ] {
            assert!(is_burn_package(burn), "{burn}");
        }
        assert!(is_burn_crate_name("burn_store"));
        for project in [
            "burn-lm-inference",
            "burn-framework-0-22",
            "burnlings",
            "burn_lm",
        ] {
            assert!(
                !is_burn_package(project) && !is_burn_crate_name(project),
                "{project}"
            );
        }
    }
}
