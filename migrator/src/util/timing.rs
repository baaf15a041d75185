//! Stage timings on stderr, for finding where a run spends its time: set
//! `BURN_MIGRATE_TIMINGS=1` and each timed stage prints `timing: STAGE 12.3 ms (cpu 20.1 ms)`
//! when it ends: wall time, and the CPU time of all the process's threads meanwhile (a stage
//! that keeps both cores busy shows twice its wall time).

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
    let (start, cpu_start) = (Instant::now(), process_cpu());
    let value = f();
    let wall = start.elapsed().as_secs_f64() * 1000.0;
    match (cpu_start, process_cpu()) {
        (Some(before), Some(after)) => eprintln!(
            "timing: {stage} {wall:.1} ms (cpu {:.1} ms)",
            (after - before) * 1000.0
        ),
        _ => eprintln!("timing: {stage} {wall:.1} ms"),
    }
    value
}

/// CPU seconds (user and system) used so far by all the process's threads.
#[cfg(target_os = "linux")]
fn process_cpu() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` fills the struct it is given and reads nothing else.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: a zero return means the struct was filled.
    let usage = unsafe { usage.assume_init() };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

#[cfg(not(target_os = "linux"))]
fn process_cpu() -> Option<f64> {
    None
}

/// Prints `message` when timings are on (what a timed stage worked on).
pub fn note(message: impl FnOnce() -> String) {
    if enabled() {
        eprintln!("timing: {}", message());
    }
}
