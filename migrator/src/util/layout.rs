//! The bytes of a text file that say how it is laid out rather than what it says: a leading
//! byte-order mark and the line endings. Rules and the manifest stage work on text (the parser
//! wants no byte-order mark; `toml_edit` writes its documents with `\n`; inserted lines are
//! written with `\n`), so every text the tool writes goes through [`keep_layout`] with the
//! file as read: the untouched lines keep their bytes, new and changed lines take the file's
//! own line ending, and the byte-order mark stays.

use std::borrow::Cow;

/// The byte-order mark some Windows editors put at the start of a UTF-8 file. rustc and cargo
/// ignore it there; columns on the first line are counted without it.
pub const BOM: &str = "\u{feff}";

/// `text` without its leading byte-order mark, and whether it had one.
pub fn strip_bom(text: &str) -> (&str, bool) {
    match text.strip_prefix(BOM) {
        Some(rest) => (rest, true),
        None => (text, false),
    }
}

/// `text` with a byte-order mark in front where `bom` says the file had one.
pub fn with_bom(text: &str, bom: bool) -> Cow<'_, str> {
    if bom {
        Cow::Owned(format!("{BOM}{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// `new`, a new version of `original`, laid out as `original` is: each line whose text (the
/// line without its ending) a line diff finds unchanged keeps the bytes it has in `original`,
/// its own ending included (a file of mixed endings keeps each); every other line ends as most
/// of `original`'s lines do (`\r\n` or `\n`); a byte-order mark `original` starts with stays,
/// whether or not `new` has it. A line without an ending in `new` (the last) gets none.
pub fn keep_layout(original: &str, new: String) -> String {
    let (old_body, bom) = strip_bom(original);
    // A file of `\n` lines without a mark is laid out as the tool writes: nothing to do, and
    // no line diff (the costly part) for the common case.
    if !bom && !original.contains('\r') && !new.contains('\r') && !new.starts_with(BOM) {
        return new;
    }
    let new_body = strip_bom(&new).0;
    let old_lines = lines(old_body);
    let new_lines = lines(new_body);
    let ending = dominant_ending(&old_lines);
    let diff = super::diff::line_slices(
        old_lines.iter().map(|l| l.text).collect(),
        new_lines.iter().map(|l| l.text).collect(),
    );
    let mut out = String::with_capacity(new.len() + new.len() / 16 + BOM.len());
    if bom {
        out.push_str(BOM);
    }
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            for (old, new) in old_lines[old_range].iter().zip(&new_lines[new_range]) {
                out.push_str(old.text);
                out.push_str(match (new.ending, old.ending) {
                    ("", _) => "",
                    (_, "") => ending,
                    (_, own) => own,
                });
            }
            continue;
        }
        for new in &new_lines[new_range] {
            out.push_str(new.text);
            if !new.ending.is_empty() {
                out.push_str(ending);
            }
        }
    }
    out
}

/// A line of a text: what it says, and its ending (`\r\n`, `\n`, or nothing at the end of a
/// text that does not end in a newline).
struct Line<'a> {
    text: &'a str,
    ending: &'a str,
}

/// The lines of `text`, cut after each `\n` (a `\r` before it belongs to the ending; any other
/// `\r` is text, as rustc and cargo read it).
fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = match rest.find('\n') {
            Some(at) => (&rest[..=at], &rest[at + 1..]),
            None => (rest, ""),
        };
        let text = line
            .strip_suffix("\r\n")
            .or_else(|| line.strip_suffix('\n'))
            .unwrap_or(line);
        out.push(Line {
            text,
            ending: &line[text.len()..],
        });
        rest = after;
    }
    out
}

/// The ending most lines of a text have: `\r\n` where more end so than in a lone `\n`, else
/// `\n` (also for a text without any).
fn dominant_ending(lines: &[Line<'_>]) -> &'static str {
    let crlf = lines.iter().filter(|l| l.ending == "\r\n").count();
    let lf = lines.iter().filter(|l| l.ending == "\n").count();
    if crlf > lf {
        "\r\n"
    } else {
        "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(original: &str, new: &str) -> String {
        keep_layout(original, new.to_string())
    }

    #[test]
    fn lf_text_without_a_mark_is_the_new_text() {
        assert_eq!(kept("a\nb\n", "a\nc\nd\n"), "a\nc\nd\n");
        assert_eq!(kept("", "x"), "x");
    }

    /// Untouched lines keep their `\r\n`, inserted and changed lines take it.
    #[test]
    fn crlf_text_keeps_crlf_on_every_line() {
        let original = "use a;\r\n\r\nfn f<B>() {}\r\nfn g() {}\r\n";
        let new = "use a;\nuse b;\n\r\nfn f() {}\r\nfn g() {}\n";
        assert_eq!(
            kept(original, new),
            "use a;\r\nuse b;\r\n\r\nfn f() {}\r\nfn g() {}\r\n"
        );
    }

    /// A file of mixed endings: each untouched line keeps its own; new lines take the ending
    /// most lines have.
    #[test]
    fn mixed_endings_stay_where_lines_are_untouched() {
        let original = "a\r\nb\nc\r\nd\r\n";
        let new = "a\nb\nx\nc\nd\n";
        assert_eq!(kept(original, new), "a\r\nb\nx\r\nc\r\nd\r\n");
        // A tie goes to `\n`.
        assert_eq!(kept("a\r\nb\n", "a\nb\nc\n"), "a\r\nb\nc\n");
    }

    #[test]
    fn the_byte_order_mark_stays() {
        assert_eq!(kept("\u{feff}a\nb\n", "a\nc\n"), "\u{feff}a\nc\n");
        assert_eq!(
            kept("\u{feff}a\r\nb\r\n", "\u{feff}a\nc\n"),
            "\u{feff}a\r\nc\r\n"
        );
        assert_eq!(strip_bom("\u{feff}x"), ("x", true));
        assert_eq!(strip_bom("x\u{feff}"), ("x\u{feff}", false));
        assert_eq!(with_bom("x", true), "\u{feff}x");
    }

    /// The last line keeps having no ending, or gets the file's where the new text ends in one.
    #[test]
    fn a_missing_final_newline_is_as_the_new_text_says() {
        assert_eq!(kept("a\r\nb", "a\nb"), "a\r\nb");
        assert_eq!(kept("a\r\nb", "a\nb\n"), "a\r\nb\r\n");
        assert_eq!(kept("a\r\nb\r\n", "a\nc"), "a\r\nc");
    }

    /// A `\r` not before `\n` is text: it stays where the line is untouched, and a line of
    /// `\r\r\n` keeps both.
    #[test]
    fn a_lone_carriage_return_is_text() {
        assert_eq!(
            kept("a\rb\r\nc\r\r\n", "a\rb\nc\r\r\nd\n"),
            "a\rb\r\nc\r\r\nd\r\n"
        );
    }

    /// On random texts of mixed endings and edits: the port's text with endings taken out is
    /// the new text's, and every line of the original whose text survives in the same order
    /// keeps its bytes where only endings differ.
    #[test]
    fn only_endings_change() {
        let mut next = crate::util::test_random::numbers(11);
        for _ in 0..300 {
            let ending = |next: &mut dyn FnMut(usize) -> usize| ["\n", "\r\n"][next(2)];
            let line = |next: &mut dyn FnMut(usize) -> usize| ["a", "b", "", "c d"][next(4)];
            let original: String = (0..next(12))
                .map(|_| format!("{}{}", line(&mut next), ending(&mut next)))
                .collect();
            let mut new = String::new();
            for l in lines(&original) {
                match next(5) {
                    0 => {}
                    1 => new.push_str(&format!("new {}\n", l.text)),
                    _ => new.push_str(&format!("{}\n", l.text)),
                }
            }
            let out = kept(&original, &new);
            let strip = |t: &str| t.replace("\r\n", "\n");
            assert_eq!(strip(&out), new, "{original:?} -> {new:?}");
            if !original.contains("\r\n") {
                assert_eq!(out, new);
            }
            if strip(&original) == new {
                assert_eq!(out, original);
            }
        }
    }
}
