//! Diagnostics without color in the shape every finding has (one primary label without a
//! message, on one line, and notes), written byte for byte as codespan-reporting's
//! `term::emit` with the default config writes them. codespan writes the source line and the
//! carets a character at a time through `write!`: on a large workspace's tens of thousands of
//! findings that was a fifteenth of a `--check`. Anything else goes to codespan (`render`
//! answers `false`); the tests compare both on every case that differs in layout.

use std::io::Write;

use codespan_reporting::diagnostic::{Diagnostic, LabelStyle, Severity};
use codespan_reporting::files::Files;
use unicode_width::UnicodeWidthChar;

/// codespan's default `tab_width`.
const TAB_WIDTH: usize = 4;

/// Appends `diagnostic` to `out` as codespan renders it without color, when it has the
/// shape this renderer knows; `Ok(false)` (and nothing written) otherwise.
pub fn render<'f, F: Files<'f>>(
    out: &mut Vec<u8>,
    files: &'f F,
    diagnostic: &Diagnostic<F::FileId>,
) -> std::io::Result<bool> {
    let [label] = diagnostic.labels.as_slice() else {
        return Ok(false);
    };
    if label.style != LabelStyle::Primary || !label.message.is_empty() {
        return Ok(false);
    }
    let (file, range) = (label.file_id, label.range.clone());
    let lookup = || -> Result<_, codespan_reporting::files::Error> {
        let line_index = files.line_index(file, range.start)?;
        if files.line_index(file, range.end)? != line_index {
            return Ok(None);
        }
        Ok(Some((
            files.line_range(file, line_index)?,
            files.line_number(file, line_index)?,
            files.location(file, range.start)?,
            files.name(file)?.to_string(),
            files.source(file)?,
        )))
    };
    // codespan reports the same errors; let it.
    let Ok(Some((line_range, line_number, location, name, source))) = lookup() else {
        return Ok(false);
    };
    let line = source.as_ref()[line_range.clone()].trim_end_matches(['\n', '\r', '\0']);
    // The label's columns in the line: at least one, as codespan shows an empty range.
    let start = range.start - line_range.start;
    let end = (range.end - line_range.start).max(start + 1);

    let severity = match diagnostic.severity {
        Severity::Bug => "bug",
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Help => "help",
        Severity::Note => "note",
    };
    out.extend_from_slice(severity.as_bytes());
    if let Some(code) = diagnostic.code.as_deref().filter(|c| !c.is_empty()) {
        write!(out, "[{code}]")?;
    }
    writeln!(out, ": {}", diagnostic.message)?;
    let padding = line_number.ilog10() as usize + 1;
    let gutter = " ".repeat(padding);
    writeln!(
        out,
        "{gutter} ┌─ {name}:{}:{}",
        location.line_number, location.column_number
    )?;
    writeln!(out, "{gutter} │")?;
    // The source line, tabs to the next tab stop.
    write!(out, "{line_number} │ ")?;
    let mut column = 0;
    for ch in line.chars() {
        let width = char_width(ch, column);
        column += width;
        match ch {
            '\t' => out.resize(out.len() + width, b' '),
            _ => {
                let mut utf8 = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
            }
        }
    }
    out.push(b'\n');
    // The carets: each character the label overlaps, and a column past the line's end
    // (codespan's placeholder, so that a label at the end of a line shows).
    write!(out, "{gutter} │ ")?;
    let mut column = 0;
    let placeholder = (line.len(), '\0');
    for (at, ch) in line.char_indices().chain(std::iter::once(placeholder)) {
        let width = if at == line.len() {
            1
        } else {
            char_width(ch, column)
        };
        column += width;
        let overlaps = at.max(start) < (at + ch.len_utf8()).min(end);
        if overlaps {
            out.resize(out.len() + width, b'^');
        } else if at < end {
            out.resize(out.len() + width, b' ');
        }
    }
    out.push(b'\n');
    // codespan closes the snippet with a border only when notes follow.
    if !diagnostic.notes.is_empty() {
        writeln!(out, "{gutter} │")?;
    }
    for note in &diagnostic.notes {
        for (i, note_line) in note.lines().enumerate() {
            let bullet = if i == 0 { '=' } else { ' ' };
            writeln!(out, "{gutter} {bullet} {note_line}")?;
        }
    }
    out.push(b'\n');
    Ok(true)
}

/// The columns `ch` takes at `column`, as codespan counts them.
fn char_width(ch: char, column: usize) -> usize {
    match ch {
        '\t' => TAB_WIDTH - column % TAB_WIDTH,
        _ => ch.width().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::diagnostic::Label;
    use codespan_reporting::files::SimpleFile;
    use codespan_reporting::term::{self, termcolor::Buffer};

    fn codespan(file: &SimpleFile<&str, &str>, diagnostic: &Diagnostic<()>) -> String {
        let mut buffer = Buffer::no_color();
        term::emit(&mut buffer, &term::Config::default(), file, diagnostic).unwrap();
        String::from_utf8(buffer.into_inner()).unwrap()
    }

    fn ours(file: &SimpleFile<&str, &str>, diagnostic: &Diagnostic<()>) -> Option<String> {
        let mut out = Vec::new();
        render(&mut out, file, diagnostic)
            .unwrap()
            .then(|| String::from_utf8(out).unwrap())
    }

    fn finding(range: std::ops::Range<usize>, notes: &[&str]) -> Diagnostic<()> {
        Diagnostic::warning()
            .with_code("backend-generic-arg")
            .with_message("`Tensor` no longer takes a backend argument")
            .with_labels(vec![Label::primary((), range)])
            .with_notes(notes.iter().map(|n| n.to_string()).collect())
    }

    const NOTES: [&[&str]; 3] = [
        &["write it without `B`", "fixed by `burn-migrate --apply`"],
        &[],
        &["two\nlines", ""],
    ];

    /// Every label of `text` over a range that starts and ends within a line, at every
    /// start and length up to 6 bytes, with each of `NOTES`, as both render it.
    fn same_as_codespan_everywhere(text: &str) {
        let file = SimpleFile::new("src/model.rs", text);
        let mut rendered = 0;
        for start in 0..=text.len() {
            for end in start..=(start + 6).min(text.len()) {
                if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                    continue;
                }
                for notes in NOTES {
                    let diagnostic = finding(start..end, notes);
                    let expected = codespan(&file, &diagnostic);
                    match ours(&file, &diagnostic) {
                        Some(got) => {
                            assert_eq!(got, expected, "{start}..{end} of {text:?}");
                            rendered += 1;
                        }
                        // Only a range over a line break goes to codespan.
                        None => assert!(text[start..end].contains('\n'), "{start}..{end}"),
                    }
                }
            }
        }
        assert!(rendered > 0);
    }

    #[test]
    fn plain_lines() {
        same_as_codespan_everywhere("type Cpu = Autodiff<NdArray>;\nfn f() {}\n");
    }

    #[test]
    fn tabs_wide_characters_and_crlf() {
        same_as_codespan_everywhere("\tlet x = 1;\r\n  a\tb = \"日本語\"; // 🦀 é\r\nz");
    }

    #[test]
    fn no_newline_at_the_end_and_empty_lines() {
        same_as_codespan_everywhere("\n\nlet t: Tensor<B, 2>");
        same_as_codespan_everywhere("");
    }

    #[test]
    fn line_numbers_of_every_width() {
        let text: String = (1..=120).map(|i| format!("let x{i} = {i};\n")).collect();
        let file = SimpleFile::new("a.rs", text.as_str());
        for line in [1usize, 9, 10, 99, 100, 120] {
            let at = text.find(&format!("let x{line} ")).unwrap();
            let diagnostic = finding(at + 4..at + 6, &["one", "two\nlines"]);
            assert_eq!(
                ours(&file, &diagnostic).unwrap(),
                codespan(&file, &diagnostic)
            );
        }
    }

    #[test]
    fn other_shapes_are_left_to_codespan() {
        let file = SimpleFile::new("a.rs", "fn f() {}\nfn g() {}\n");
        let two_lines = finding(3..14, &[]);
        let with_message =
            Diagnostic::error().with_labels(vec![Label::primary((), 0..2).with_message("here")]);
        let secondary = Diagnostic::error().with_labels(vec![Label::secondary((), 0..2)]);
        let none = Diagnostic::error().with_message("internal");
        for diagnostic in [two_lines, with_message, secondary, none] {
            assert_eq!(ours(&file, &diagnostic), None);
        }
        // Without code or notes, as an error.
        let bare = Diagnostic::error().with_labels(vec![Label::primary((), 3..4)]);
        assert_eq!(ours(&file, &bare).unwrap(), codespan(&file, &bare));
    }
}
