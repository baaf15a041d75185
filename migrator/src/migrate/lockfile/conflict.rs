//! What a cargo resolution error names: the packages of the conflict, the one cargo could
//! not select and the one it had selected. Read from cargo's own words ("failed to select a
//! version for `x`", "previously selected package `x v1.2.3`", "required by package `y
//! v0.1.0`"), so the lockfile can give way where cargo says it is stuck.

/// The backquoted spans of `stderr`.
fn quoted(stderr: &str) -> impl Iterator<Item = &str> {
    stderr.split('`').skip(1).step_by(2)
}

/// A package as cargo names one, `name v1.2.3` (or `name v0.1.0 (/path)`): its name and
/// version.
fn package(quoted: &str) -> Option<(&str, &str)> {
    let (name, rest) = quoted.split_once(" v")?;
    let version = rest.split_whitespace().next()?;
    (version.starts_with(|c: char| c.is_ascii_digit()) && !name.contains(' '))
        .then_some((name, version))
}

/// Every package the error names, by name.
pub fn packages_named(stderr: &str) -> impl Iterator<Item = &str> {
    quoted(stderr).filter_map(package).map(|(name, _)| name)
}

/// The packages the error says were "previously selected" (the side of a conflict that a
/// lockfile may fix), as (name, version).
pub fn previously_selected(stderr: &str) -> impl Iterator<Item = (&str, &str)> {
    stderr
        .split("previously selected package `")
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .filter_map(package)
}

/// The packages cargo "failed to select a version for".
pub fn not_selected(stderr: &str) -> impl Iterator<Item = &str> {
    stderr
        .split("failed to select a version for `")
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .filter(|name| !name.contains(' '))
}

/// The directories of the local packages the error names (`package \`x v0.1.0 (/path)\``).
pub fn package_dirs(stderr: &str) -> impl Iterator<Item = std::path::PathBuf> + '_ {
    quoted(stderr).filter_map(|quoted| {
        let (_, rest) = quoted.split_once(" (")?;
        let path = rest.strip_suffix(')')?;
        path.starts_with('/')
            .then(|| std::path::PathBuf::from(path))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ERROR: &str = "error: failed to select a version for `futures-sink`.\n    ... required by package `futures-channel v0.3.34`\n    ... which satisfies dependency `futures-channel = \"^0.3.32\"` (locked to 0.3.34) of package `futures v0.3.32`\n    ... which satisfies dependency `futures = \"^0.3.30\"` of package `app v0.1.0 (/tmp/app)`\nversions that meet the requirements `^0.3.34` are: 0.3.34\n\nall possible versions conflict with previously selected packages.\n\n  previously selected package `futures-sink v0.3.32`\n    ... which satisfies dependency `futures-sink = \"^0.3.32\"` (locked to 0.3.32) of package `futures v0.3.32`\n\nfailed to select a version for `futures-sink` which could resolve this conflict\n";

    #[test]
    fn a_conflict_is_read_from_cargos_words() {
        assert_eq!(
            previously_selected(ERROR).collect::<Vec<_>>(),
            vec![("futures-sink", "0.3.32")]
        );
        assert_eq!(
            not_selected(ERROR).collect::<Vec<_>>(),
            vec!["futures-sink", "futures-sink"]
        );
        let named: Vec<&str> = packages_named(ERROR).collect();
        assert_eq!(
            named,
            vec![
                "futures-channel",
                "futures",
                "app",
                "futures-sink",
                "futures"
            ]
        );
        assert_eq!(previously_selected("error: no matching package").count(), 0);
        assert_eq!(
            package_dirs(ERROR).collect::<Vec<_>>(),
            vec![std::path::PathBuf::from("/tmp/app")]
        );
    }
}
