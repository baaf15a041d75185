//! Slow tier: device probes run in a child process. Flex always works; Vulkan, whose kernels
//! Debian's Mesa driver cannot compile (or which has no driver at all), is reported as crashed
//! or failing instead of taking the tool down.

use burn_migrate::prove::probe::{probe, Probe};
use burn_migrate::prove::verify::default_cache;

#[test]
#[ignore = "slow: builds the Burn 0.22 probe with flex and with vulkan; run with --include-ignored"]
fn flex_works_and_a_broken_vulkan_is_detected_in_a_child_process() {
    let cache = default_cache();
    let flex = probe("flex", &cache).expect("the probe builds");
    assert!(
        matches!(&flex, Probe::Works(report) if report.contains("ok flex") && report.contains("memory pool")),
        "{flex:?}"
    );

    let vulkan = probe("vulkan", &cache).expect("the probe builds");
    eprintln!("vulkan: {vulkan:?}");
    match vulkan {
        // On a machine with a working Vulkan driver (the GPU machine) the probe works and
        // reports CubeCL's memory pools.
        Probe::Works(report) => assert!(
            report.contains("ok vulkan") && !report.contains("memory pool: none"),
            "{report}"
        ),
        Probe::Crashed(how) => assert!(!how.is_empty()),
        Probe::Failed(why) => assert!(!why.is_empty()),
        Probe::NotBuilt(why) => panic!("the vulkan probe must build here: {why}"),
    }
}
