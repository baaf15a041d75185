//! Where places of a text went in the text a port made of it, line by line (the line diff of
//! the two): for findings that stay with code the port kept, and for to-do markers.

use ra_ap_syntax::TextRange;

use crate::edit::Change;
use crate::util::lines::LineIndex;

/// Places in a text moved to the text an edit made of it, line by line: a site on a line the
/// edit kept keeps its column and moves with its line (what markers and kept code need).
pub struct LinesMoved<'a> {
    old_lines: LineIndex,
    new_lines: LineIndex,
    map: Vec<usize>,
    new: &'a str,
}

impl<'a> LinesMoved<'a> {
    pub fn new(old: &str, new: &'a str) -> Self {
        LinesMoved {
            old_lines: LineIndex::new(old),
            new_lines: LineIndex::new(new),
            map: line_map(old, new),
            new,
        }
    }

    pub fn offset(&self, offset: ra_ap_syntax::TextSize) -> ra_ap_syntax::TextSize {
        let offset = usize::from(offset);
        let line = self.old_lines.line(offset);
        let column = offset - self.old_lines.line_start(offset);
        let start = (self.map.get(line)).and_then(|l| self.new_lines.start_of_line(*l));
        let at = start.map_or(offset, |s| s + column).min(self.new.len());
        ra_ap_syntax::TextSize::try_from(at).unwrap_or_default()
    }

    pub fn apply(&self, changes: &mut [Change]) {
        for change in changes {
            let (start, end) = (
                self.offset(change.range.start()),
                self.offset(change.range.end()),
            );
            change.range = TextRange::new(start, end.max(start));
        }
    }
}

/// For each line of `old`, the line of `new` it became (or where it would be, when the port
/// removed it).
pub fn line_map(old: &str, new: &str) -> Vec<usize> {
    use similar::DiffOp;
    let diff = crate::util::diff::lines(old, new);
    let mut map = Vec::new();
    for op in diff.ops() {
        match *op {
            DiffOp::Equal { new_index, len, .. } => map.extend(new_index..new_index + len),
            DiffOp::Delete {
                old_len, new_index, ..
            } => map.extend(std::iter::repeat_n(new_index, old_len)),
            DiffOp::Insert { .. } => {}
            DiffOp::Replace {
                old_len,
                new_index,
                new_len,
                ..
            } => map.extend((0..old_len).map(|k| new_index + k.min(new_len.saturating_sub(1)))),
        }
    }
    map
}
