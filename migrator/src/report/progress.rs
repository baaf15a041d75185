//! Progress of long steps (builds, runs) on stderr. On a terminal, a spinner shows the step in
//! progress and the time since the command started, and each finished step stays as a line;
//! elsewhere (CI logs, pipes) every step is one plain line with its start time.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub struct Steps {
    started: Instant,
    spinner: Option<ProgressBar>,
    current: Option<(String, Instant)>,
}

/// Runs `work`, showing each step it reports until it returns.
pub fn with_steps<T>(work: impl FnOnce(&mut dyn FnMut(&str)) -> T) -> T {
    let mut steps = Steps::new();
    work(&mut |message| steps.step(message))
}

impl Default for Steps {
    fn default() -> Self {
        Self::new()
    }
}

impl Steps {
    pub fn new() -> Self {
        let spinner = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Steps {
            started: Instant::now(),
            spinner,
            current: None,
        }
    }

    /// Starts a step; the previous one is done.
    pub fn step(&mut self, message: &str) {
        let at = self.started.elapsed().as_secs_f64();
        match &self.spinner {
            Some(bar) => {
                if let Some((previous, since)) = self.current.take() {
                    bar.println(format!(
                        "[{at:>6.1}s] {previous} ({:.1}s)",
                        since.elapsed().as_secs_f64()
                    ));
                }
                bar.set_message(message.to_string());
                self.current = Some((message.to_string(), Instant::now()));
            }
            None => eprintln!("[{at:>6.1}s] {message}"),
        }
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        if let Some(bar) = &self.spinner {
            if let Some((previous, since)) = self.current.take() {
                bar.println(format!(
                    "[{:>6.1}s] {previous} ({:.1}s)",
                    self.started.elapsed().as_secs_f64(),
                    since.elapsed().as_secs_f64()
                ));
            }
            bar.finish_and_clear();
        }
    }
}
