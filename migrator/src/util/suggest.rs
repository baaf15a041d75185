//! "Did you mean": the closest of a list of names to one that matched none of them, for
//! messages about a mistyped rule id, configuration key or package name.

/// The candidate closest to `wrong` by edit distance, when it is close enough to be what was
/// meant: at most a third of the longer name's characters differ (`nan-extrem` ->
/// `nan-extrema`; `into_scalar_type` -> `into-scalar-type`). Ties go to the first candidate.
pub fn closest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wrong_chars: Vec<char> = wrong.chars().collect();
    candidates
        .into_iter()
        .map(|candidate| {
            let chars: Vec<char> = candidate.chars().collect();
            let allowed = wrong_chars.len().max(chars.len()).div_ceil(3);
            (edit_distance(&wrong_chars, &chars), allowed, candidate)
        })
        .filter(|(distance, allowed, _)| distance <= allowed)
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, _, candidate)| candidate)
}

/// ` (did you mean `x`?)` when a candidate is close to `wrong`, else nothing: the end of a
/// message that names a wrong name.
pub fn did_you_mean<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(wrong, candidates)
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default()
}

/// Levenshtein distance: insertions, deletions and substitutions of one character each.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let rules = ["nan-extrema", "into-scalar-type", "backend-seed"];
        assert_eq!(closest("nan-extrem", rules), Some("nan-extrema"));
        assert_eq!(closest("into_scalar_type", rules), Some("into-scalar-type"));
        assert_eq!(closest("backend_seed", rules), Some("backend-seed"));
        assert_eq!(closest("recorder", rules), None);
        assert_eq!(did_you_mean("xyz", rules), "");
        assert_eq!(
            did_you_mean("nan_extrema", rules),
            " (did you mean `nan-extrema`?)"
        );
    }
}
