//! Byte offsets to lines and columns. Counting the newlines before each offset costs the
//! text's length per lookup, which made reports of large files quadratic; a `LineIndex`
//! answers in a binary search. Counting a column's characters from its line's start costs the
//! line's length, which made the reports of a file written as one line quadratic (a 5 MB line
//! with 231,000 findings ran for minutes in `--format json`); on long lines it counts from
//! the nearest checkpoint instead.

/// On lines longer than this many bytes, a checkpoint every this many bytes.
const CHECKPOINT: usize = 1024;

/// The line starts of a text, and checkpoints along its long lines.
pub struct LineIndex {
    starts: Vec<usize>,
    /// On long lines: (byte offset, characters from its line's start to it), by offset.
    checkpoints: Vec<(usize, usize)>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut checkpoints = Vec::new();
        let ends = starts.iter().skip(1).copied().chain([text.len()]);
        for (start, end) in starts.iter().copied().zip(ends) {
            if end - start <= CHECKPOINT {
                continue;
            }
            let mut next = CHECKPOINT;
            for (chars, (at, _)) in text[start..end].char_indices().enumerate() {
                if at >= next {
                    checkpoints.push((start + at, chars));
                    next = at + CHECKPOINT;
                }
            }
        }
        LineIndex {
            starts,
            checkpoints,
        }
    }

    /// The 0-based line of a byte offset: how many newlines come before it.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// The byte offset where the 0-based `line` starts, if the text has it.
    pub fn start_of_line(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The byte offset where the line of `offset` starts.
    pub fn line_start(&self, offset: usize) -> usize {
        self.starts[self.line(offset)]
    }

    /// The characters of `text[line_start..offset]`, where `line_start` is where the line
    /// of `offset` starts and `offset` is a character boundary of `text` (the indexed text).
    pub fn characters(&self, text: &str, line_start: usize, offset: usize) -> usize {
        let nearest = self.checkpoints.partition_point(|&(at, _)| at <= offset);
        let (from, chars) = match nearest.checked_sub(1).map(|i| self.checkpoints[i]) {
            Some((at, chars)) if at >= line_start => (at, chars),
            _ => (line_start, 0),
        };
        chars + text[from..offset].chars().count()
    }
}

/// The 1-based line and column (in characters) of a byte offset of `text`, clamped to the
/// text and to a character boundary; `lines` is `text`'s index. A byte-order mark at the start
/// is no column, as rustc and cargo count.
pub fn line_column(lines: &LineIndex, text: &str, offset: usize) -> (usize, usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let start = lines.line_start(offset);
    let mut column = lines.characters(text, start, offset) + 1;
    let bom = super::layout::BOM;
    if start == 0 && offset >= bom.len() && text.starts_with(bom) {
        // The mark is one character.
        column -= 1;
    }
    (lines.line(offset) + 1, column, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_newlines_and_characters_before() {
        let text = "ab\nçd\n\nx";
        let lines = LineIndex::new(text);
        assert_eq!(line_column(&lines, text, 0), (1, 1, 0));
        assert_eq!(line_column(&lines, text, 2), (1, 3, 2));
        assert_eq!(line_column(&lines, text, 3), (2, 1, 3));
        // Inside `ç` (two bytes): its start.
        assert_eq!(line_column(&lines, text, 4), (2, 1, 3));
        assert_eq!(line_column(&lines, text, 5), (2, 2, 5));
        assert_eq!(line_column(&lines, text, 8), (4, 1, 8));
        assert_eq!(line_column(&lines, text, 99), (4, 2, 9));
        let marked = "\u{feff}ab\nc";
        let lines = LineIndex::new(marked);
        assert_eq!(line_column(&lines, marked, 3), (1, 1, 3));
        assert_eq!(line_column(&lines, marked, 4), (1, 2, 4));
        assert_eq!(line_column(&lines, marked, 6), (2, 1, 6));
    }

    /// On long lines columns come from checkpoints: the same as counting from the line's
    /// start, across multi-byte characters, checkpoints of earlier lines and a byte-order mark.
    #[test]
    fn columns_of_long_lines_are_counted_characters() {
        let long = format!("{}é{}", "a".repeat(2500), "ü€".repeat(1500));
        for text in [
            format!("{long}\n{long}\nshort\n{long}"),
            format!("\u{feff}{long}\n{long}"),
        ] {
            let lines = LineIndex::new(&text);
            let mut offset = 0;
            while offset <= text.len() {
                let (line, column, at) = line_column(&lines, &text, offset);
                let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let counted = text[start..at]
                    .trim_start_matches('\u{feff}')
                    .chars()
                    .count();
                assert_eq!(
                    (line, column),
                    (text[..at].matches('\n').count() + 1, counted + 1),
                    "{offset}"
                );
                offset += 97;
            }
        }
    }

    /// Issue 34 item 3: a column on a 5 MB line costs about what one on a short line does.
    /// Counted from the line's start, the 20,000 lookups below read 50 GB (seconds; the
    /// 231,000 findings of such a file in `--format json` ran for minutes); from checkpoints,
    /// 20 MB. The whole run's test (`bad_input.rs`, one-line files) cannot see this: at
    /// sizes a test can port, the rest of the run hides it.
    #[test]
    fn a_column_on_a_long_line_costs_what_one_on_a_short_line_costs() {
        let unit = "pub fn f<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> { x }";
        let one_line = format!("{unit} ").repeat(80_000);
        let many_lines = format!("{unit}\n").repeat(80_000);
        let lookups = |text: &str| {
            let lines = LineIndex::new(text);
            let start = std::time::Instant::now();
            let mut sum = 0;
            for i in 0..20_000 {
                sum += line_column(&lines, text, i * (text.len() / 20_000)).1;
            }
            assert!(sum > 0);
            start.elapsed()
        };
        let long = lookups(&one_line);
        let short = lookups(&many_lines);
        assert!(
            long < short * 100 + std::time::Duration::from_millis(300),
            "{long:?} on one line against {short:?} on short lines"
        );
    }
}
