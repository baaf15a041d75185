//! Line diffs of a file's two versions, for the diff `--apply` and `--diff` show, the edits
//! machine output lists, and where a line went in the port.

use std::collections::HashMap;
use std::convert::Infallible;
use std::ops::{Index, Range};

use similar::algorithms::Replace;
use similar::algorithms::{myers, Capture, Compact, DiffHook, IdentifyDistinct, NoFinishHook};
use similar::{Change, DiffOp, DiffableStr};

/// A line diff: both texts' lines and the operations that turn the old into the new.
pub struct LineDiff<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    ops: Vec<DiffOp>,
}

impl<'a> LineDiff<'a> {
    pub fn old_slices(&self) -> &[&'a str] {
        &self.old
    }

    pub fn new_slices(&self) -> &[&'a str] {
        &self.new
    }

    pub fn ops(&self) -> &[DiffOp] {
        &self.ops
    }

    /// The operations grouped into unified diff hunks, `context` unchanged lines around
    /// each change.
    pub fn hunks(&self, context: usize) -> Vec<Vec<DiffOp>> {
        let mut hunks = similar::group_diff_ops(self.ops.clone(), context);
        hunks.retain(|hunk| !hunk.is_empty());
        hunks
    }

    /// The lines of a hunk, each kept, removed or added.
    pub fn changes<'d>(&'d self, hunk: &'d [DiffOp]) -> impl Iterator<Item = Change<&'a str>> + 'd {
        hunk.iter()
            .flat_map(|op| op.iter_changes(&self.old[..], &self.new[..]))
    }
}

/// The line diff of `old` and `new`, by patience: lines that occur once in each text anchor
/// the diff, and Myers runs only between anchors. Myers over a whole large file with many
/// changes grows with the product of its length and the changes (21 s for a 10 MB file with
/// 100k changed lines); so does Myers over every once-occurring line (`similar`'s patience,
/// 1.9 s on that file, its changed lines being mostly such lines), so only the lines that occur
/// once in both texts take part in the anchoring: in a port those are nearly all in the same
/// order, which Myers finds in linear time. Otherwise as `similar`'s `Algorithm::Patience`.
pub fn lines<'a>(old: &'a str, new: &'a str) -> LineDiff<'a> {
    let old_lines = old.tokenize_lines();
    let new_lines = new.tokenize_lines();
    let ids = IdentifyDistinct::<u32>::new(
        &old_lines[..],
        0..old_lines.len(),
        &new_lines[..],
        0..new_lines.len(),
    );
    let (old_ids, new_ids) = (ids.old_lookup(), ids.new_lookup());
    let mut capture = Compact::new(Replace::new(Capture::new()), old_ids, new_ids);
    let Ok(()) = patience(
        &mut capture,
        old_ids,
        ids.old_range(),
        new_ids,
        ids.new_range(),
    );
    LineDiff {
        ops: capture.into_inner().into_inner().into_ops(),
        old: old_lines,
        new: new_lines,
    }
}

/// Patience diff of two sequences of line ids into `d`.
fn patience<Old, New, D>(
    d: &mut D,
    old: &Old,
    old_range: Range<usize>,
    new: &New,
    new_range: Range<usize>,
) -> Result<(), Infallible>
where
    Old: Index<usize, Output = u32> + ?Sized,
    New: Index<usize, Output = u32> + ?Sized,
    D: DiffHook<Error = Infallible>,
{
    let old_ids: Vec<u32> = old_range.clone().map(|i| old[i]).collect();
    let new_ids: Vec<u32> = new_range.clone().map(|i| new[i]).collect();
    let once = |ids: &[u32]| {
        let mut once: HashMap<u32, bool> = HashMap::new();
        for id in ids {
            once.entry(*id).and_modify(|o| *o = false).or_insert(true);
        }
        once
    };
    let (old_once, new_once) = (once(&old_ids), once(&new_ids));
    let in_both = |id: &u32| old_once.get(id) == Some(&true) && new_once.get(id) == Some(&true);
    // The anchors: their positions in the texts, and their ids for Myers to match.
    let anchors = |ids: &[u32], start: usize| -> (Vec<usize>, Vec<u32>) {
        (ids.iter().enumerate())
            .filter(|(_, id)| in_both(id))
            .map(|(i, id)| (start + i, *id))
            .unzip()
    };
    let (old_anchors, old_anchor_ids) = anchors(&old_ids, old_range.start);
    let (new_anchors, new_anchor_ids) = anchors(&new_ids, new_range.start);
    let mut anchored = Anchored {
        d,
        old,
        old_current: old_range.start,
        old_end: old_range.end,
        old_anchors: &old_anchors,
        new,
        new_current: new_range.start,
        new_end: new_range.end,
        new_anchors: &new_anchors,
    };
    myers::diff(
        &mut anchored,
        &old_anchor_ids[..],
        0..old_anchor_ids.len(),
        &new_anchor_ids[..],
        0..new_anchor_ids.len(),
    )
}

/// Turns the anchors Myers matched into the diff of the whole texts: equal lines run on from
/// where the last anchor left off, Myers diffs what lies between, then the anchor itself.
struct Anchored<'s, 'd, Old: ?Sized, New: ?Sized, D> {
    d: &'d mut D,
    old: &'s Old,
    old_current: usize,
    old_end: usize,
    old_anchors: &'s [usize],
    new: &'s New,
    new_current: usize,
    new_end: usize,
    new_anchors: &'s [usize],
}

impl<Old, New, D> DiffHook for Anchored<'_, '_, Old, New, D>
where
    Old: Index<usize, Output = u32> + ?Sized,
    New: Index<usize, Output = u32> + ?Sized,
    D: DiffHook<Error = Infallible>,
{
    type Error = Infallible;

    fn equal(&mut self, old: usize, new: usize, len: usize) -> Result<(), Infallible> {
        for (old, new) in (old..old + len).zip(new..new + len) {
            let (old_anchor, new_anchor) = (self.old_anchors[old], self.new_anchors[new]);
            let (old_start, new_start) = (self.old_current, self.new_current);
            while self.old_current < old_anchor
                && self.new_current < new_anchor
                && self.new[self.new_current] == self.old[self.old_current]
            {
                self.old_current += 1;
                self.new_current += 1;
            }
            if self.old_current > old_start {
                self.d
                    .equal(old_start, new_start, self.old_current - old_start)?;
            }
            myers::diff(
                &mut NoFinishHook::new(&mut *self.d),
                self.old,
                self.old_current..old_anchor,
                self.new,
                self.new_current..new_anchor,
            )?;
            self.old_current = old_anchor;
            self.new_current = new_anchor;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), Infallible> {
        myers::diff(
            self.d,
            self.old,
            self.old_current..self.old_end,
            self.new,
            self.new_current..self.new_end,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::lines;
    use similar::{Algorithm, TextDiff};

    /// The diff as `similar`'s own patience gives it, where the lines that occur once in both
    /// texts are in the same order on both sides.
    #[test]
    fn ops_are_similars_patience_where_anchors_keep_their_order() {
        let old = "fn a() {}\n}\n}\nlet x = 1;\nuse burn::prelude::*;\n}\nfn b() {}\nlast";
        let cases = [
            (
                old,
                "fn a() {}\n}\nlet x = 2;\n}\nuse burn::prelude::*;\n}\nfn b() {}\nlast\n",
            ),
            (old, old),
            ("", "a\nb\n"),
            ("a\nb\n", ""),
            ("x\ny\nx\ny\n", "y\nx\ny\nx\nz\n"),
            ("a\r\nb\r\nc\n", "a\r\nB\r\nc\n"),
        ];
        for (old, new) in cases {
            let ours = lines(old, new);
            let theirs = TextDiff::configure()
                .algorithm(Algorithm::Patience)
                .diff_lines(old, new);
            assert_eq!(ours.ops(), theirs.ops(), "{old:?} -> {new:?}");
            assert_eq!(ours.old_slices(), theirs.old_slices());
            assert_eq!(ours.new_slices(), theirs.new_slices());
        }
    }

    /// Applying the diff's operations to the old lines gives the new text.
    #[test]
    fn ops_rebuild_the_new_text() {
        let old: String = (0..2000)
            .map(|i| format!("line {}\n}}\n", i % 700))
            .collect();
        let new: String = (0..2000)
            .map(|i| match i % 9 {
                0 => format!("changed {i}\n}}\n"),
                4 => String::new(),
                _ => format!("line {}\n}}\n", i % 700),
            })
            .collect();
        let diff = lines(&old, &new);
        let mut rebuilt = String::new();
        for op in diff.ops() {
            for change in op.iter_changes(diff.old_slices(), diff.new_slices()) {
                if change.tag() != similar::ChangeTag::Delete {
                    rebuilt.push_str(change.value());
                }
            }
        }
        assert_eq!(rebuilt, new);
    }
}
