//! `BLESS=1 cargo test -p burn-migrate --test rule_examples`: an example whose port no longer
//! matches its rule file gets the port written into the file, for review in `git diff`,
//! instead of failing. What is written is only what the port decides: `after` (for `safe`
//! rules; a `manual` rule's `after` is a person's port), `lines` and `rules`. A failure the
//! file cannot absorb (the rule does not fire, a second run changes the text, the migrator
//! fails, code to be left alone is changed) still fails.
//!
//! The file is edited with `toml_edit`, value by value, so that everything else in it
//! (comments, blank lines, key order, how other strings are written) stays byte for byte:
//! a blessed file differs from the old one only inside the values blessing replaced.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

/// Whether this run blesses (`BLESS` set to anything but empty or `0`).
pub fn requested() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The rule file a built-in rule was read from (the build embeds `rules/<id>.toml`).
pub fn rule_file(id: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rules")
        .join(format!("{id}.toml"))
}

/// What the port makes of one example, for each value of it that differs from the file;
/// `None` leaves that value as the file has it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Blessing {
    pub after: Option<String>,
    pub lines: Option<Vec<usize>>,
    pub rules: Option<Vec<String>>,
}

impl Blessing {
    pub fn is_empty(&self) -> bool {
        *self == Blessing::default()
    }

    /// The keys it writes, for the log: `after, rules`.
    pub fn keys(&self) -> String {
        let written = [
            ("after", self.after.is_some()),
            ("lines", self.lines.is_some()),
            ("rules", self.rules.is_some()),
        ];
        let keys: Vec<&str> = written
            .iter()
            .filter(|(_, w)| *w)
            .map(|(k, _)| *k)
            .collect();
        keys.join(", ")
    }
}

/// Writes `blessing` into the example at `index` (counting from 0, in file order) of the rule
/// file at `path`.
pub fn bless_file(path: &Path, index: usize, blessing: &Blessing) -> Result<(), String> {
    // Examples of one file are tests that run in parallel: one read-edit-write at a time.
    static ONE_WRITER: Mutex<()> = Mutex::new(());
    let _writing = ONE_WRITER.lock().unwrap_or_else(PoisonError::into_inner);
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let blessed = bless_text(&text, index, blessing)
        .map_err(|e| format!("cannot bless {}: {e}", path.display()))?;
    if blessed != text {
        // Through a new file renamed over the old: the tests that read every rule file while
        // others are blessed see the old text or the new, never half of one.
        let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut new = tempfile::NamedTempFile::new_in(dir).map_err(|e| cannot(&e))?;
        // A temporary file is made private; the rule file keeps its own mode.
        let mode = std::fs::metadata(path)
            .map_err(|e| cannot(&e))?
            .permissions();
        new.as_file()
            .set_permissions(mode)
            .map_err(|e| cannot(&e))?;
        std::io::Write::write_all(&mut new, blessed.as_bytes()).map_err(|e| cannot(&e))?;
        new.persist(path).map_err(|e| cannot(&e))?;
    }
    Ok(())
}

/// A rule file's text with `blessing` written into its example at `index`.
pub fn bless_text(text: &str, index: usize, blessing: &Blessing) -> Result<String, String> {
    let mut document: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let example = document
        .get_mut("example")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|examples: &mut ArrayOfTables| examples.get_mut(index))
        .ok_or_else(|| format!("the file has no example {}", index + 1))?;
    if let Some(after) = &blessing.after {
        let literal = example
            .get("after")
            .and_then(Item::as_value)
            .and_then(raw_text)
            .is_some_and(|raw| raw.starts_with("'''"));
        set_value(example, "after", &multi_line_string(after, literal))?;
    }
    if let Some(lines) = &blessing.lines {
        let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
        set_value(example, "lines", &format!("[{}]", lines.join(", ")))?;
    }
    if let Some(rules) = &blessing.rules {
        let rules: Vec<String> = rules.iter().map(|id| format!("{id:?}")).collect();
        set_value(example, "rules", &format!("[{}]", rules.join(", ")))?;
    }
    Ok(document.to_string())
}

/// How the file spells a value, when it was read from a file.
fn raw_text(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => s.as_repr()?.as_raw().as_str(),
        _ => None,
    }
}

/// Replaces the value of `key` with the TOML text `raw`, spaced as the old value was; a key
/// the example does not have yet goes after its other keys.
fn set_value(example: &mut Table, key: &str, raw: &str) -> Result<(), String> {
    // A value parsed from text keeps that text as its representation; one built from a Rust
    // value would be written in toml_edit's own style.
    let mut value: Value = raw
        .parse()
        .map_err(|e| format!("`{raw}` is not a TOML value: {e}"))?;
    match example.get_mut(key).and_then(Item::as_value_mut) {
        Some(old) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        None => {
            example.insert(key, Item::Value(value));
        }
    }
    Ok(())
}

/// `text` as the rule files write code: a multi-line string that opens with a line break,
/// literal (`'''`) where the example used one and the text allows it, otherwise basic
/// (`"""`), escaping only what must be escaped.
pub fn multi_line_string(text: &str, literal: bool) -> String {
    let literal_can_hold = !text.contains("'''")
        && !text.ends_with('\'')
        && !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t');
    if literal && literal_can_hold {
        return format!("'''\n{text}'''");
    }
    let mut out = String::from("\"\"\"\n");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            // A quote followed by a quote, or the last one, could close the string.
            '"' if matches!(chars.peek(), Some('"') | None) => out.push_str("\\\""),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    out.push_str("\"\"\"");
    out
}
