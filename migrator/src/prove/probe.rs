//! Which devices work on this machine. Each probe builds the pinned Burn 0.22 toolchain's probe
//! program (`framework/burn-0.22`, embedded here) with the device's feature and runs it in a
//! child process: a driver that crashes compiling CubeCL's kernels (Debian's Mesa 22.3 Vulkan
//! driver does) is reported, not hit as a segfault in the middle of a verification.

use std::path::Path;
use std::process::Command;

use crate::error::Error;

/// The probe program's exit code for a device its build does not include.
const NOT_BUILT: i32 = 3;

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// The device ran a gradient; the probe's report (result, memory-pool usage).
    Works(String),
    /// The probe died from a signal: the driver crashed.
    Crashed(String),
    /// The probe ran and failed (no adapter, no driver): its error output.
    Failed(String),
    /// The probe program could not be built with this device's feature.
    NotBuilt(String),
}

impl Probe {
    pub fn works(&self) -> bool {
        matches!(self, Probe::Works(_))
    }
}

/// Devices the probe knows, with the Cargo feature each needs (`None`: always built).
pub const DEVICES: &[(&str, Option<&str>)] = &[("flex", None), ("vulkan", Some("vulkan"))];

/// The devices to probe: those asked for, else every device the probe knows.
pub fn requested(devices: &[String]) -> Vec<String> {
    if devices.is_empty() {
        DEVICES.iter().map(|(d, _)| d.to_string()).collect()
    } else {
        devices.to_vec()
    }
}

/// Probes one device (`flex`, `vulkan`), building under `cache`.
pub fn probe(device: &str, cache: &Path) -> Result<Probe, Error> {
    let Some((_, feature)) = DEVICES.iter().find(|(name, _)| *name == device) else {
        return Ok(Probe::NotBuilt(format!(
            "no probe for `{device}`; known: flex, vulkan"
        )));
    };
    let features: Vec<String> = feature.iter().map(|f| f.to_string()).collect();
    match crate::prove::framework::BURN_0_22.build(cache, &features, false) {
        Ok(_) => {}
        Err(Error::FrameworkBuild { errors, .. }) => return Ok(Probe::NotBuilt(errors)),
        Err(other) => return Err(other),
    }
    let target = cache.join("target");
    let binary = target.join("debug").join("burn-framework-0-22");
    let run = Command::new(&binary)
        .arg(device)
        .env("RUST_BACKTRACE", "0")
        .output()
        .map_err(|source| Error::Io {
            path: binary.clone(),
            source,
        })?;
    let stdout = String::from_utf8_lossy(&run.stdout).trim().to_string();
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The panic message (the line after "thread .. panicked at .."), else the last line.
    let tail = stderr
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with("thread ") && !l.starts_with("note:"))
        .or_else(|| stderr.lines().last())
        .unwrap_or_default()
        .to_string();
    Ok(match run.status.code() {
        Some(0) => Probe::Works(stdout),
        Some(NOT_BUILT) => Probe::NotBuilt(tail),
        Some(code) => Probe::Failed(format!("exit code {code}: {tail}")),
        None => Probe::Crashed(signal_of(&run.status)),
    })
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(11) => "segmentation fault (signal 11)".to_string(),
        Some(6) => "abort (signal 6)".to_string(),
        Some(n) => format!("signal {n}"),
        None => "killed".to_string(),
    }
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> String {
    "terminated abnormally".to_string()
}
