//! Byte offsets to lines and columns. Counting the newlines before each offset costs the
//! text's length per lookup, which made reports of large files quadratic; a `LineIndex`
//! answers in a binary search.

/// The line starts of a text.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
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
}

/// The 1-based line and column (in characters) of a byte offset of `text`, clamped to the
/// text and to a character boundary; `lines` is `text`'s index. A byte-order mark at the start
/// is no column, as rustc and cargo count.
pub fn line_column(lines: &LineIndex, text: &str, offset: usize) -> (usize, usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let mut start = lines.line_start(offset);
    if start == 0 && offset >= super::layout::BOM.len() {
        start = text.len() - super::layout::strip_bom(text).0.len();
    }
    (
        lines.line(offset) + 1,
        text[start..offset].chars().count() + 1,
        offset,
    )
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
}
