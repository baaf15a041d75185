//! `#[cfg(..)]` predicates, evaluated as far as verify can know them: for the host it builds on
//! (`target_arch`, `target_os`, `target_family`, `unix`, `windows`) and the package's enabled
//! features. What differs between the builds verify runs (`test`) or it cannot know
//! (`debug_assertions`, a `--cfg` flag) is unknown, and code
//! under an unknown condition counts as compiled: a device constructor there is probed rather
//! than assumed away.

use std::collections::BTreeSet;

/// Whether code under `#[cfg(predicate)]` is compiled, with `features` enabled (unknown: yes).
/// `predicate` is the text inside `cfg( .. )`.
pub fn holds(predicate: &str, features: &BTreeSet<String>) -> bool {
    let compact: String = predicate.chars().filter(|c| !c.is_whitespace()).collect();
    evaluate(&compact, features).unwrap_or(true)
}

/// `Some(value)` where the predicate's value is known here, `None` where it is not.
fn evaluate(predicate: &str, features: &BTreeSet<String>) -> Option<bool> {
    if let Some(inner) = call_arguments(predicate, "not") {
        return evaluate(inner, features).map(|value| !value);
    }
    // `all` is decided by one false and `any` by one true; otherwise each is known only
    // where all of its predicates are.
    for (name, decisive) in [("all", false), ("any", true)] {
        if let Some(inner) = call_arguments(predicate, name) {
            let values: Vec<Option<bool>> = split_top_level(inner)
                .map(|p| evaluate(p, features))
                .collect();
            if values.contains(&Some(decisive)) {
                return Some(decisive);
            }
            return values
                .iter()
                .all(|v| *v == Some(!decisive))
                .then_some(!decisive);
        }
    }
    if let Some((key, value)) = predicate.split_once('=') {
        let value = value.strip_prefix('"')?.strip_suffix('"')?;
        return match key {
            "feature" => Some(features.contains(value)),
            "target_arch" => Some(value == std::env::consts::ARCH),
            "target_os" => Some(value == std::env::consts::OS),
            "target_family" => Some(value == std::env::consts::FAMILY),
            _ => None,
        };
    }
    match predicate {
        "unix" | "windows" => Some(predicate == std::env::consts::FAMILY),
        // `test` is on in the test builds verify runs and off in the binaries it runs: code
        // under `test` or `not(test)` is compiled in one of them.
        _ => None,
    }
}

/// `inner` of `name(inner)`.
fn call_arguments<'a>(predicate: &'a str, name: &str) -> Option<&'a str> {
    predicate
        .strip_prefix(name)?
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// The comma-separated predicates of a list, split at its top level only.
fn split_top_level(list: &str) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quoted) = (0usize, 0, false);
    for (i, c) in list.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth = depth.saturating_sub(1),
            ',' if !quoted && depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_and_the_host_decide_and_the_unknown_counts_as_compiled() {
        let features: BTreeSet<String> = ["ndarray".to_string()].into();
        assert!(holds("feature = \"ndarray\"", &features));
        assert!(!holds("feature = \"webgpu\"", &features));
        assert!(holds("not(feature = \"webgpu\")", &features));
        assert!(!holds(
            "all(target_arch = \"wasm32\", feature = \"wasm\")",
            &features
        ));
        assert!(holds(
            "any(feature = \"wgpu\", feature = \"ndarray\")",
            &features
        ));
        assert!(!holds(
            "any(feature = \"wgpu\", feature = \"webgpu\")",
            &features
        ));
        assert!(holds("test", &features) && holds("not(test)", &features));
        assert!(holds("debug_assertions", &features), "unknown");
        assert!(holds("not(debug_assertions)", &features), "still unknown");
        assert!(!holds(
            "all(debug_assertions, feature = \"cuda\")",
            &features
        ));
        assert_eq!(
            holds("target_arch = \"wasm32\"", &features),
            std::env::consts::ARCH == "wasm32"
        );
    }
}
