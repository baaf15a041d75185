//! Line diffs of a file's two versions, for the diff `--apply` and `--diff` show, the edits
//! machine output lists, and where a line went in the port.

use similar::{Algorithm, TextDiff};

/// The line diff of `old` and `new`. Patience: lines unique to both sides anchor the diff and
/// Myers runs only between anchors. Myers over a whole large file with many changes grows with
/// the product of its length and the changes (21 s for a 10 MB file with 100k changed lines).
pub fn lines<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, 'a, str> {
    TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_lines(old, new)
}
