//! Stage timings on stderr, for finding where a run spends its time: set
//! `BURN_MIGRATE_TIMINGS=1` and each timed stage prints `timing: STAGE 12.3 ms` when it ends.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("BURN_MIGRATE_TIMINGS").is_some_and(|v| v != "0"))
}

/// Runs `f`, printing how long it took when timings are on.
pub fn time<T>(stage: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let value = f();
    eprintln!(
        "timing: {stage} {:.1} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );
    value
}

/// Prints `message` when timings are on (what a timed stage worked on).
pub fn note(message: impl FnOnce() -> String) {
    if enabled() {
        eprintln!("timing: {}", message());
    }
}
