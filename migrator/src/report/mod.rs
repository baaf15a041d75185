//! The report wing: what people and tools read. [`emit`] renders migration reports (diffs,
//! diagnostics, JSON), [`book`] generates the guide from the rules (its docs.rs links from [`docs_rs`]), [`progress`] shows the
//! steps of long commands. The renderers of the other commands: [`migrate`] (the flow of
//! `--check`, `--diff` and `--apply`), [`verify`], [`bench`] and [`probe`] (with `framework`).
//! [`color`] decides when diagnostics are colored. [`Exit`] and [`error_text`] are the command line's exit codes and error messages.

pub mod bench;
pub mod book;
pub mod color;
pub mod docs_rs;
pub mod emit;
pub mod findings;
pub mod migrate;
mod plain;
pub mod probe;
pub mod progress;
pub mod verify;
mod window;

/// How a command reports: for people, or for tools.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Diagnostics and diffs for people.
    Human,
    /// JSON (findings: the schema in the guide's "Machine output" page).
    Json,
    /// GitHub workflow annotations (findings only).
    Github,
    /// A SARIF 2.1.0 log, for code scanning (findings only).
    Sarif,
}

impl Format {
    /// Commands whose results are not findings (verify, bench) speak human and JSON only.
    pub fn human_or_json(self, command: &str) -> Result<Self, crate::error::Error> {
        match self {
            Format::Human | Format::Json => Ok(self),
            Format::Github | Format::Sarif => Err(crate::error::Error::Usage(format!(
                "`{command}` prints --format human or json; github and sarif are for findings (--check, --diff, --apply)"
            ))),
        }
    }
}

/// The exit codes, as cargo, rustfmt and ruff users expect them; ordered from best to worst,
/// so that a run of several projects exits with the worst (`max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: nothing to do, or the command did what was asked (`--apply` wrote the port, even
    /// when findings that need a person remain: they are listed).
    Success = 0,
    /// 1: `--check` found something; `--diff` has a diff (or a file it cannot migrate);
    /// `--apply --partial` left files unmigrated; verify or compare found a difference.
    Found = 1,
    /// 2: the command could not do its work (usage errors, unreadable input, refusals).
    Error = 2,
}

impl Exit {
    /// `Success` when `ok`, else `Found`.
    pub fn found_unless(ok: bool) -> Self {
        if ok {
            Exit::Success
        } else {
            Exit::Found
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit as u8)
    }
}

/// An error and its causes on one line, each cause once: a cause whose text its error's
/// message already includes (`cannot read X: No such file or directory`, with the io error
/// as the source too) is not repeated.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let message = error.to_string();
        if !message.is_empty() && !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = error.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let io_text = io.to_string();
        let error = crate::error::Error::Io {
            path: "/nonexistent".into(),
            source: io,
        };
        let text = error_text(&error);
        assert_eq!(text.matches(&io_text).count(), 1, "{text}");
        let wrapped = anyhow::Error::new(error).context("loading rules from /x");
        let text = error_text(wrapped.as_ref());
        assert_eq!(text.matches(&io_text).count(), 1, "{text}");
        assert!(text.starts_with("loading rules from /x: cannot read or write /nonexistent"));
    }
}
