//! Which Rust toolchain cargo runs under: a workspace's `rust-toolchain` pin, and the
//! toolchain burn-migrate itself runs under, for when the pinned one is not installed.

use std::path::{Path, PathBuf};

/// The `rust-toolchain(.toml)` file rustup would honour for `dir`, nearest first.
pub fn pin_file(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .flat_map(|d| [d.join("rust-toolchain.toml"), d.join("rust-toolchain")])
        .find(|p| p.is_file())
}

/// The toolchain burn-migrate runs under: `RUSTUP_TOOLCHAIN` when rustup set it (under
/// `cargo run`), else rustup's default. `None` without rustup.
pub fn running() -> Option<String> {
    if let Ok(toolchain) = std::env::var("RUSTUP_TOOLCHAIN") {
        return Some(toolchain);
    }
    let output = std::process::Command::new("rustup")
        .arg("default")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let name = text.split_whitespace().next()?;
    (output.status.success() && !name.is_empty()).then(|| name.to_string())
}
