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
/// changes grows with the product of its length and the changes; so does Myers over every
/// once-occurring line (`similar`'s patience, where a port's changed lines are mostly such
/// lines; both timed in `testdata/measurements/speed.md`), so only the lines that occur
/// once in both texts take part in the anchoring: in a port those are nearly all in the same
/// order, which Myers finds in linear time. Otherwise as `similar`'s `Algorithm::Patience`.
pub fn lines<'a>(old: &'a str, new: &'a str) -> LineDiff<'a> {
    lines_compacted_in_pieces_of(old, new, COMPACTED_OPS)
}

/// How many operations `similar`'s `Compact` takes at once: it moves operations in a vector
/// one insert or remove at a time, quadratic in the operations (on a large file, longer than
/// the diff itself: `testdata/measurements/speed.md`).
const COMPACTED_OPS: usize = 256;

/// `lines`, compacting the operations in pieces of about `piece_ops`. A piece ends in a line
/// that occurs once in each text, kept equal: `Compact` moves a change only past equal lines
/// that the change's own lines equal, which no other line of either text does, so each
/// piece compacts as it would within the whole.
fn lines_compacted_in_pieces_of<'a>(old: &'a str, new: &'a str, piece_ops: usize) -> LineDiff<'a> {
    slices_compacted_in_pieces_of(old.tokenize_lines(), new.tokenize_lines(), piece_ops)
}

/// `lines` of texts already cut into lines, however they were cut (`util::layout` compares
/// lines without their endings).
pub fn line_slices<'a>(old_lines: Vec<&'a str>, new_lines: Vec<&'a str>) -> LineDiff<'a> {
    slices_compacted_in_pieces_of(old_lines, new_lines, COMPACTED_OPS)
}

/// `lines_compacted_in_pieces_of` of texts cut into lines.
fn slices_compacted_in_pieces_of<'a>(
    old_lines: Vec<&'a str>,
    new_lines: Vec<&'a str>,
    piece_ops: usize,
) -> LineDiff<'a> {
    use rayon::prelude::*;
    let ids = IdentifyDistinct::<u32>::new(
        &old_lines[..],
        0..old_lines.len(),
        &new_lines[..],
        0..new_lines.len(),
    );
    let (old_ids, new_ids) = (ids.old_lookup(), ids.new_lookup());
    let old_range = ids.old_range();
    let unique = UniqueLines::new(
        old_range.clone().map(|i| old_ids[i]),
        ids.new_range().map(|i| new_ids[i]),
    );
    let mut capture = Capture::new();
    let Ok(()) = patience(
        &mut capture,
        old_ids,
        old_range,
        new_ids,
        ids.new_range(),
        &unique,
    );
    let pieces = cut_at_unique_lines(capture.into_ops(), piece_ops, |old_line| {
        unique.in_both(old_ids[old_line])
    });
    let compacted: Vec<Vec<DiffOp>> = pieces
        .into_par_iter()
        .map(|piece| {
            let mut compact = Compact::new(Capture::new(), old_ids, new_ids);
            for op in piece {
                let Ok(()) = op.apply_to_hook(&mut compact);
            }
            let Ok(()) = compact.finish();
            compact.into_inner().into_ops()
        })
        .collect();
    // `Replace` joins the equal lines on either side of a cut again.
    let mut replace = Replace::new(Capture::new());
    for op in compacted.iter().flatten() {
        let Ok(()) = op.apply_to_hook(&mut replace);
    }
    let Ok(()) = replace.finish();
    LineDiff {
        ops: replace.into_inner().into_ops(),
        old: old_lines,
        new: new_lines,
    }
}

/// `ops` in pieces of at least `piece_ops` operations (but the last), each ending with an
/// equal line of the old text that `cut_after` accepts.
fn cut_at_unique_lines(
    ops: Vec<DiffOp>,
    piece_ops: usize,
    cut_after: impl Fn(usize) -> bool,
) -> Vec<Vec<DiffOp>> {
    let mut pieces = Vec::new();
    let mut piece = Vec::new();
    for op in ops {
        if let (
            true,
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            },
        ) = (piece.len() >= piece_ops, op)
        {
            if let Some(at) = (0..len).find(|&k| cut_after(old_index + k)) {
                piece.push(DiffOp::Equal {
                    old_index,
                    new_index,
                    len: at + 1,
                });
                pieces.push(std::mem::take(&mut piece));
                if at + 1 < len {
                    piece.push(DiffOp::Equal {
                        old_index: old_index + at + 1,
                        new_index: new_index + at + 1,
                        len: len - at - 1,
                    });
                }
                continue;
            }
        }
        piece.push(op);
    }
    pieces.push(piece);
    pieces
}

/// Which line ids occur exactly once in the old text and once in the new.
struct UniqueLines {
    once: HashMap<u32, (bool, bool)>,
}

impl UniqueLines {
    fn new(old: impl Iterator<Item = u32>, new: impl Iterator<Item = u32>) -> Self {
        let mut counts: HashMap<u32, (u8, u8)> = HashMap::new();
        for id in old {
            let count = &mut counts.entry(id).or_default().0;
            *count = count.saturating_add(1);
        }
        for id in new {
            let count = &mut counts.entry(id).or_default().1;
            *count = count.saturating_add(1);
        }
        let once = counts
            .into_iter()
            .map(|(id, (o, n))| (id, (o == 1, n == 1)))
            .collect();
        UniqueLines { once }
    }

    fn in_both(&self, id: u32) -> bool {
        self.once.get(&id) == Some(&(true, true))
    }
}

/// Patience diff of two sequences of line ids into `d`; `unique` tells the lines that occur
/// once in both.
fn patience<Old, New, D>(
    d: &mut D,
    old: &Old,
    old_range: Range<usize>,
    new: &New,
    new_range: Range<usize>,
    unique: &UniqueLines,
) -> Result<(), Infallible>
where
    Old: Index<usize, Output = u32> + ?Sized,
    New: Index<usize, Output = u32> + ?Sized,
    D: DiffHook<Error = Infallible>,
{
    let (old_anchors, old_anchor_ids) = anchors(old, old_range.clone(), unique);
    let (new_anchors, new_anchor_ids) = anchors(new, new_range.clone(), unique);
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

/// The anchors of a patience diff among the lines `range` of `ids`: their positions, and
/// their ids for Myers to match.
fn anchors<Ids>(ids: &Ids, range: Range<usize>, unique: &UniqueLines) -> (Vec<usize>, Vec<u32>)
where
    Ids: Index<usize, Output = u32> + ?Sized,
{
    range
        .filter(|&i| unique.in_both(ids[i]))
        .map(|i| (i, ids[i]))
        .unzip()
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
    use super::{cut_at_unique_lines, lines, lines_compacted_in_pieces_of};
    use similar::DiffOp;
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

    /// Compacting in pieces cut at lines that occur once in both texts gives what compacting
    /// all operations at once gives, on texts with many repeated lines (which `Compact`
    /// moves changes past) and a few unique ones, cut wherever it can be.
    #[test]
    fn compacting_in_pieces_is_compacting_the_whole() {
        let mut next = crate::util::test_random::numbers(5);
        let mut with_changes = 0;
        for round in 0..400 {
            let line = |next: &mut dyn FnMut(usize) -> usize, unique: usize| match next(4) {
                0 => format!("unique {round} {unique}\n"),
                _ => ["}\n", "\n", "x\n", "    }\n"][next(4)].to_string(),
            };
            let old: Vec<String> = (0..60).map(|i| line(&mut next, i)).collect();
            let mut new = Vec::new();
            for (i, kept) in old.iter().enumerate() {
                match next(6) {
                    0 => {}
                    1 => new.push(line(&mut next, 100 + i)),
                    2 => {
                        new.push(line(&mut next, 200 + i));
                        new.push(kept.clone());
                    }
                    _ => new.push(kept.clone()),
                }
            }
            let (old, new) = (old.concat(), new.concat());
            let whole = lines_compacted_in_pieces_of(&old, &new, usize::MAX);
            let pieces = lines_compacted_in_pieces_of(&old, &new, 1);
            assert_eq!(pieces.ops(), whole.ops(), "{old:?} -> {new:?}");
            with_changes += usize::from(whole.ops().len() > 2);
        }
        assert!(with_changes > 300, "{with_changes}");
    }

    /// Pieces hold at least the asked number of operations, each but the last ends with an
    /// accepted equal line (an equal run is split after it), and together they are the
    /// operations given.
    #[test]
    fn pieces_end_after_an_accepted_equal_line() {
        let equal = |old_index, new_index, len| DiffOp::Equal {
            old_index,
            new_index,
            len,
        };
        let delete = |old_index, old_len, new_index| DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        };
        let ops = vec![
            equal(0, 0, 3),
            delete(3, 1, 3),
            equal(4, 3, 5),
            delete(9, 2, 8),
            equal(11, 8, 4),
        ];
        // Old lines 6 and 12 are accepted: the first full piece is cut after line 6.
        let pieces = cut_at_unique_lines(ops.clone(), 2, |line| line == 6 || line == 12);
        assert_eq!(
            pieces,
            vec![
                vec![equal(0, 0, 3), delete(3, 1, 3), equal(4, 3, 3)],
                vec![equal(7, 6, 2), delete(9, 2, 8), equal(11, 8, 2)],
                vec![equal(13, 10, 2)],
            ]
        );
        // Nothing accepted: one piece, the operations as given.
        assert_eq!(cut_at_unique_lines(ops.clone(), 2, |_| false), vec![ops]);
    }
}
