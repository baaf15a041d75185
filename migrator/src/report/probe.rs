//! What `burn-migrate probe` and `burn-migrate framework` print.

use std::path::Path;
use std::time::Duration;

use crate::prove::probe::Probe;

/// How one device fared, in words (the probe's report indented under a working device).
pub fn line(device: &str, probe: &Probe) -> String {
    match probe {
        Probe::Works(report) => format!("{device}: works\n  {}", report.replace('\n', "\n  ")),
        Probe::Crashed(how) => {
            format!("{device}: the driver crashed ({how}); runs on it are skipped")
        }
        Probe::Failed(why) => format!("{device}: does not work here: {why}"),
        Probe::NotBuilt(why) => format!("{device}: the probe could not be built: {why}"),
    }
}

/// The pre-built framework: each pinned Burn's build time, then the cache.
pub fn framework_built(built: &[(&str, Duration)], cache: &Path) -> String {
    let mut out = String::new();
    for (version, took) in built {
        out.push_str(&format!(
            "Burn {version}: built in {:.1}s\n",
            took.as_secs_f64()
        ));
    }
    out.push_str(&format!("cache: {}\n", cache.display()));
    out
}
