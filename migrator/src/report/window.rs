//! A source file as a diagnostic shows it: a line longer than `LONG_LINE` bytes (minified or
//! generated code, a file written as one line) is shown as a window around the finding, and
//! columns are counted from checkpoints along it (`LineIndex`). Shown whole, each of a long
//! line's findings printed the whole line and counted its characters from the start: on a
//! 320 KB line with ten thousand findings, `--check` took minutes and its output gigabytes
//! (quadratic in the line's length). The header's `file:line:column` stays the true one.

use std::ops::Range;

use codespan_reporting::files::{Error, Files};

use crate::util::lines::LineIndex;

/// Lines up to this many bytes are shown whole.
const LONG_LINE: usize = 240;

/// How many bytes of a long line are shown on each side of a finding.
const MARGIN: usize = 80;

/// A file's text, indexed once for all its diagnostics.
pub struct SourceView<'a> {
    name: &'a str,
    text: &'a str,
    /// Its lines, with the checkpoints along long lines that columns are counted from.
    lines: LineIndex,
}

impl<'a> SourceView<'a> {
    pub fn new(name: &'a str, text: &'a str) -> Self {
        SourceView {
            name,
            text,
            lines: LineIndex::new(text),
        }
    }

    /// The file as a diagnostic about `focus` (a byte range) shows it.
    pub fn around(&self, focus: Range<usize>) -> Windowed<'_> {
        Windowed { view: self, focus }
    }

    /// The byte range of the 0-based `line`, its line break included.
    fn line(&self, line: usize) -> Option<Range<usize>> {
        let start = self.lines.start_of_line(line)?;
        let end = self
            .lines
            .start_of_line(line + 1)
            .unwrap_or(self.text.len());
        Some(start..end)
    }

    /// The characters from `line_start` to `byte` (at most the line's end), as codespan
    /// counts a column.
    fn column(&self, line: Range<usize>, byte: usize) -> usize {
        let byte = floor_char_boundary(self.text, byte.clamp(line.start, line.end));
        self.lines.characters(self.text, line.start, byte)
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// A [`SourceView`] for one diagnostic: the long line its finding is on is cut to a window
/// around the finding.
pub struct Windowed<'a> {
    view: &'a SourceView<'a>,
    focus: Range<usize>,
}

impl<'a> Files<'a> for Windowed<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.view.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.view.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self.view.lines.line(byte_index))
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let range = self.view.line(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.view.lines.line(self.view.text.len()),
        })?;
        let shows_focus = range.contains(&self.focus.start);
        if range.len() <= LONG_LINE || !shows_focus {
            return Ok(range);
        }
        let text = self.view.text;
        let start = floor_char_boundary(
            text,
            self.focus.start.saturating_sub(MARGIN).max(range.start),
        );
        let end = ceil_char_boundary(
            text,
            (self.focus.end.max(self.focus.start) + MARGIN).min(range.end),
        );
        Ok(start..end)
    }

    /// The true column, counted from the line's start, whatever part of it is shown.
    fn column_number(
        &'a self,
        (): (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        let line = self.view.line(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.view.lines.line(self.view.text.len()),
        })?;
        Ok(self.view.column(line, byte_index) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::files::SimpleFile;

    /// Short lines read as codespan's own `SimpleFile` reads them, columns of long ones too.
    #[test]
    fn lines_and_columns_are_simple_files_and_long_lines_are_windows() {
        let long = format!("{}é{}\n", "a".repeat(3000), "b".repeat(3000));
        let text = format!("fn a() {{}}\nlet x = 1;\n{long}last");
        let simple = SimpleFile::new("f.rs", text.as_str());
        let view = SourceView::new("f.rs", &text);
        for at in [
            0,
            5,
            11,
            15,
            30,
            1500,
            2999,
            3000,
            3002,
            5000,
            text.len() - 2,
        ] {
            let windowed = view.around(at..at + 1);
            let line = simple.line_index((), at).unwrap();
            assert_eq!(windowed.line_index((), at).unwrap(), line, "{at}");
            assert_eq!(
                windowed.column_number((), line, at).unwrap(),
                simple.column_number((), line, at).unwrap(),
                "{at}"
            );
            let shown = windowed.line_range((), line).unwrap();
            let whole = simple.line_range((), line).unwrap();
            if whole.len() <= LONG_LINE {
                assert_eq!(shown, whole, "{at}");
            } else {
                assert!(
                    shown.contains(&at) && shown.len() <= 2 * MARGIN + 4,
                    "{at}: {shown:?}"
                );
            }
        }
        assert!(view.around(0..1).line_range((), 9).is_err());
    }
}
