//! What `burn-migrate bench` prints: a table of build and rebuild times per side with the
//! rebuild ratio, or the timings as JSON.

use std::fmt::Write;

use crate::prove::bench::Timing;

/// The timings for tools (`--format json`).
pub fn json(timings: &[Timing]) -> serde_json::Value {
    timings
        .iter()
        .map(|t| {
            serde_json::json!({
                "profile": t.profile,
                "side": t.side,
                "project_build_s": t.cold.as_secs_f64(),
                "rebuild_s": t.rebuild.as_secs_f64(),
                "edited": t.edited,
            })
        })
        .collect()
}

/// The timings for people: a row per side, then the rebuild ratio of the two sides.
pub fn table(timings: &[Timing]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<8} {:<10} {:>14} {:>26}",
        "profile", "side", "project build", "rebuild after 1-line edit"
    );
    for t in timings {
        let _ = writeln!(
            out,
            "{:<8} {:<10} {:>13.2}s {:>25.2}s",
            t.profile,
            t.side,
            t.cold.as_secs_f64(),
            t.rebuild.as_secs_f64()
        );
    }
    if let [old, new] = timings {
        let _ = writeln!(
            out,
            "rebuild ratio 0.21/0.22: {:.1}x (edited {})",
            old.rebuild.as_secs_f64() / new.rebuild.as_secs_f64().max(1e-9),
            new.edited.display()
        );
    }
    out
}
