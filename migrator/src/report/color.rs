//! When diagnostics (standard error) and diffs (standard output) are colored: `--color auto|always|never`, and in `auto` the conventions
//! of <https://no-color.org> and <https://bixense.com/clicolors/>, in the order anstream
//! (cargo's terminal layer) reads them: `NO_COLOR` (set, not empty) turns colors off;
//! `CLICOLOR_FORCE` (set, not `0`) turns them on, also into pipes; `CLICOLOR=0` turns them
//! off; otherwise colors go to a terminal that is not `TERM=dumb`, never into a pipe or file.

use std::ffi::OsString;

use codespan_reporting::term::termcolor::ColorChoice;

/// `--color`.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum, PartialEq, Eq)]
pub enum ColorWhen {
    /// Color a terminal, as `NO_COLOR`, `CLICOLOR` and `CLICOLOR_FORCE` allow.
    #[default]
    Auto,
    /// Always color, into pipes and files too.
    Always,
    /// Never color.
    Never,
}

/// The choice for standard error.
pub fn stderr_choice(when: ColorWhen) -> ColorChoice {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    choice(when, terminal, |name| std::env::var_os(name))
}

/// Whether standard output (the diff) is colored: as standard error, deciding for its own
/// stream (`--diff > port.patch` writes a plain diff while the diagnostics are colored).
pub fn stdout_colored(when: ColorWhen) -> bool {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    choice(when, terminal, |name| std::env::var_os(name)) == ColorChoice::Always
}

/// The choice for a stream that is (or is not) a terminal, reading the environment through
/// `env`.
pub fn choice(
    when: ColorWhen,
    terminal: bool,
    env: impl Fn(&str) -> Option<OsString>,
) -> ColorChoice {
    let on = |yes: bool| {
        if yes {
            ColorChoice::Always
        } else {
            ColorChoice::Never
        }
    };
    match when {
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
        ColorWhen::Auto => {
            let set = |name: &str| env(name).filter(|v| !v.is_empty());
            if set("NO_COLOR").is_some() {
                ColorChoice::Never
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                ColorChoice::Always
            } else if set("CLICOLOR").is_some_and(|v| v == "0") {
                ColorChoice::Never
            } else {
                on(terminal && set("TERM").is_none_or(|t| t != "dumb"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(terminal: bool, vars: &[(&str, &str)]) -> ColorChoice {
        choice(ColorWhen::Auto, terminal, |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn auto_colors_a_terminal_only_as_the_environment_allows() {
        assert_eq!(auto(true, &[]), ColorChoice::Always);
        assert_eq!(auto(false, &[]), ColorChoice::Never, "a pipe");
        assert_eq!(auto(true, &[("NO_COLOR", "1")]), ColorChoice::Never);
        assert_eq!(auto(true, &[("NO_COLOR", "")]), ColorChoice::Always);
        assert_eq!(auto(true, &[("CLICOLOR", "0")]), ColorChoice::Never);
        assert_eq!(auto(true, &[("TERM", "dumb")]), ColorChoice::Never);
        assert_eq!(auto(false, &[("CLICOLOR_FORCE", "1")]), ColorChoice::Always);
        assert_eq!(auto(false, &[("CLICOLOR_FORCE", "0")]), ColorChoice::Never);
        assert_eq!(
            auto(false, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]),
            ColorChoice::Never,
            "NO_COLOR wins"
        );
    }

    #[test]
    fn the_flag_overrides_the_environment() {
        let env = |name: &str| (name == "NO_COLOR").then(|| OsString::from("1"));
        assert_eq!(choice(ColorWhen::Always, false, env), ColorChoice::Always);
        let env = |name: &str| (name == "CLICOLOR_FORCE").then(|| OsString::from("1"));
        assert_eq!(choice(ColorWhen::Never, true, env), ColorChoice::Never);
    }
}
