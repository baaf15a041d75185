//! Findings for machines: one sorted list ([`collect`]) rendered as JSON (the schema is
//! `book/src/findings.schema.json`, described in the guide's "Machine output" page), GitHub
//! workflow annotations and SARIF 2.1.0.

use std::path::{Path, PathBuf};

use ra_ap_syntax::TextRange;
use serde::Serialize;
use serde_json::{json, Value};
use similar::DiffOp;

use crate::util::lines::{line_column, LineIndex};

use super::book::{page_path, GUIDE_URL};
use crate::migrate::Report;
use crate::rules::{Applicability, RuleKey, RuleSet, Severity};

/// The rule id of files (and manifests) that could not be migrated at all: not a rule of
/// `burn-migrate rules`; the message says why.
pub const NOT_MIGRATED: &str = "not-migrated";

/// A place in a file: 1-based line and column (in characters) and the 0-based byte offset.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Edit {
    pub start: Position,
    pub end: Position,
    pub replacement: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Fix {
    /// `safe`: `--apply` makes the edits; `manual`: they are a suggestion for a person.
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Relative to the project root, `/`-separated.
    pub file: String,
    /// `start.line` and `start.column`, kept for readers of the first JSON format.
    pub line: usize,
    pub column: usize,
    pub start: Position,
    pub end: Position,
    pub rule: String,
    /// The rule's severity: `error` where the port does not compile with the site as it is,
    /// `warning` where it compiles but may behave differently (`fixable` says whether
    /// `--apply` fixes it).
    pub severity: &'static str,
    /// The rule's applicability: `safe` (applied by `--apply`) or `manual`.
    pub applicability: String,
    /// Whether `--apply` fixes it.
    pub fixable: bool,
    pub message: String,
    /// The edits that fix it, when the rule knows them (also a `manual` rule's suggestion).
    pub fix: Option<Fix>,
    #[serde(skip)]
    pub path: PathBuf,
    /// The directory `file` is named from, as people read it: the project's root, or the
    /// current directory where several projects are named from it; `None` where `file` is
    /// absolute. SARIF's `PROJECTROOT`.
    #[serde(skip)]
    pub base: Option<PathBuf>,
}

/// Every finding of the report, files and manifests, sorted by file and position.
pub fn collect(report: &Report, rules: &RuleSet) -> Vec<Finding> {
    let mut out = Vec::new();
    let applicability = |rule: &str| {
        rules
            .get(rule)
            .map_or("manual".to_string(), |r| r.applicability.to_string())
    };
    let severity = |rule: &str| rules.get(rule).map_or(Severity::Error, |r| r.severity());
    for file in &report.files {
        let text = &file.original;
        let lines = LineIndex::new(text);
        let first = out.len();
        for change in &file.changes {
            let rule = change.rule.to_string();
            let fixable = change.is_applied();
            let fix = change.fix.as_ref().map(|fix| Fix {
                applicability: fix.applicability,
                edits: vec![Edit {
                    start: position(&lines, text, change.range.start().into()),
                    end: position(&lines, text, change.range.end().into()),
                    replacement: fix.replacement.clone(),
                }],
            });
            out.push(finding(
                &file.display,
                &file.path,
                (text, &lines),
                change.range,
                (applicability(&rule), severity(&rule), rule),
                fixable,
                &change.message,
                fix,
            ));
        }
        if let Some(error) = &file.error {
            out.push(not_migrated(
                &file.display,
                &file.path,
                (text, &lines),
                error,
            ));
        }
        if file.bom {
            // Byte offsets are the file's, as rustc's are; the text the rules read starts
            // after the byte-order mark (lines and columns do not count it).
            out[first..].iter_mut().for_each(after_bom);
        }
    }
    for manifest in &report.manifests {
        let text = &manifest.original;
        let lines = LineIndex::new(text);
        let hunks = line_edits(text, &manifest.migrated);
        for change in &manifest.changes {
            let rule = change.rule.to_string();
            let range = super::emit::change_range(text, change);
            let fix = change.fix.map(|applicability| {
                let line = position(&lines, text, range.start().into()).line;
                let near: Vec<Edit> = hunks
                    .iter()
                    .filter(|e| e.start.line <= line + 1 && line <= e.end.line.max(e.start.line))
                    .cloned()
                    .collect();
                Fix {
                    applicability,
                    edits: if near.is_empty() { hunks.clone() } else { near },
                }
            });
            out.push(finding(
                &manifest.display,
                &manifest.path,
                (text, &lines),
                range,
                (applicability(&rule), severity(&rule), rule),
                change.is_applied(),
                &change.message,
                fix,
            ));
        }
        if let Some(error) = &manifest.error {
            out.push(not_migrated(
                &manifest.display,
                &manifest.path,
                (text, &lines),
                error,
            ));
        }
    }
    for finding in &mut out {
        finding.base = Some(report.root.clone());
    }
    sort(&mut out);
    out
}

/// Sorts findings by file, then start and end position, then rule: the order of every
/// format's document.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.file, a.start, a.end, &a.rule).cmp(&(&b.file, b.start, b.end, &b.rule))
    });
}

#[allow(clippy::too_many_arguments)]
fn finding(
    display: &str,
    path: &Path,
    (text, lines): (&str, &LineIndex),
    range: TextRange,
    (applicability, severity, rule): (String, Severity, String),
    fixable: bool,
    message: &str,
    fix: Option<Fix>,
) -> Finding {
    let start = position(lines, text, range.start().into());
    Finding {
        file: display.replace('\\', "/"),
        line: start.line,
        column: start.column,
        start,
        end: position(lines, text, range.end().into()),
        rule,
        severity: match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        applicability,
        fixable,
        message: message.to_string(),
        fix,
        path: path.to_path_buf(),
        base: None,
    }
}

fn not_migrated(display: &str, path: &Path, text: (&str, &LineIndex), error: &str) -> Finding {
    finding(
        display,
        path,
        text,
        TextRange::default(),
        (
            "manual".to_string(),
            Severity::Error,
            NOT_MIGRATED.to_string(),
        ),
        false,
        &format!("{display}: {error}"),
        None,
    )
}

/// `finding`, with its byte offsets moved past a byte-order mark that its text left out.
fn after_bom(finding: &mut Finding) {
    let edits = finding.fix.iter_mut().flat_map(|f| &mut f.edits);
    let positions = edits.flat_map(|e| [&mut e.start, &mut e.end]);
    for position in positions.chain([&mut finding.start, &mut finding.end]) {
        position.offset += crate::util::layout::BOM.len();
    }
}

/// The position of a byte offset (clamped to the text and to a character boundary);
/// `lines` is `text`'s index.
pub fn position(lines: &LineIndex, text: &str, offset: usize) -> Position {
    let (line, column, offset) = line_column(lines, text, offset);
    Position {
        line,
        column,
        offset,
    }
}

/// The line-level edits that turn `old` into `new`.
fn line_edits(old: &str, new: &str) -> Vec<Edit> {
    let diff = crate::util::diff::lines(old, new);
    let new_lines: Vec<&str> = diff.new_slices().to_vec();
    // The byte offset where each old line starts.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(diff.old_slices().iter().scan(0, |end, line| {
            *end += line.len();
            Some(*end)
        }))
        .collect();
    let offset_of = |line: usize| starts[line];
    let lines = LineIndex::new(old);
    diff.ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (old_range, new_range) = (op.old_range(), op.new_range());
            Edit {
                start: position(&lines, old, offset_of(old_range.start)),
                end: position(&lines, old, offset_of(old_range.end)),
                replacement: new_lines[new_range].concat(),
            }
        })
        .collect()
}

/// Writes the findings as a JSON array and a line break, streamed: of a file written as one
/// line, 231,000 findings are 180 MB of JSON, which a string would hold (and copy) whole.
pub fn write_json(findings: &[Finding], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, findings)?;
    writeln!(out)
}

/// How many findings one rule has (`--statistics`), and how many of them `--apply` fixes.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RuleCount {
    pub rule: String,
    pub count: usize,
    pub fixable: usize,
}

/// The findings counted per rule, most first (then by rule id), as `ruff --statistics` does.
pub fn statistics(findings: &[Finding]) -> Vec<RuleCount> {
    let mut counts: std::collections::BTreeMap<&str, RuleCount> = Default::default();
    for finding in findings {
        let entry = counts.entry(&finding.rule).or_insert_with(|| RuleCount {
            rule: finding.rule.clone(),
            count: 0,
            fixable: 0,
        });
        entry.count += 1;
        entry.fixable += usize::from(finding.fixable);
    }
    let mut counts: Vec<RuleCount> = counts.into_values().collect();
    // Stable: equal counts stay in rule id order.
    counts.sort_by_key(|c| std::cmp::Reverse(c.count));
    counts
}

/// `--statistics` for people: one row per rule, with a header; nothing without findings.
pub fn statistics_table(findings: &[Finding]) -> String {
    let counts = statistics(findings);
    if counts.is_empty() {
        return String::new();
    }
    let mut out = format!("{:>6} {:>6}  rule\n", "count", "fixed");
    for RuleCount {
        rule,
        count,
        fixable,
    } in counts
    {
        out.push_str(&format!("{count:>6} {fixable:>6}  {rule}\n"));
    }
    out
}

/// `--statistics --format json`: the rows as a JSON array of `{rule, count, fixable}`.
pub fn statistics_json(findings: &[Finding]) -> String {
    serde_json::to_string_pretty(&statistics(findings)).unwrap_or_else(|_| "[]".to_string())
}

/// Where GitHub finds a finding's file: it reads an annotation's `file` from the repository's
/// root, which is `$GITHUB_WORKSPACE` in a workflow (whatever the step's working directory),
/// so the path is relative to it; outside a workflow, or for a file outside it, relative to the
/// current directory (where workflows run by default), else absolute. Each distinct file is
/// resolved once.
struct GithubPaths {
    bases: Vec<PathBuf>,
    known: std::collections::HashMap<PathBuf, String>,
}

impl GithubPaths {
    fn new() -> Self {
        let workspace = std::env::var_os("GITHUB_WORKSPACE")
            .filter(|w| !w.is_empty())
            .and_then(|w| std::fs::canonicalize(w).ok());
        let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
        GithubPaths {
            bases: workspace.into_iter().chain(cwd).collect(),
            known: Default::default(),
        }
    }

    fn of(&mut self, finding: &Finding) -> &str {
        let bases = &self.bases;
        self.known.entry(finding.path.clone()).or_insert_with(|| {
            let path =
                std::fs::canonicalize(&finding.path).unwrap_or_else(|_| finding.path.clone());
            let relative = (bases.iter()).find_map(|base| path.strip_prefix(base).ok());
            relative
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/")
        })
    }
}

/// GitHub workflow commands, one `::warning` or `::error` annotation per finding.
pub fn github(findings: &[Finding]) -> String {
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let mut paths = GithubPaths::new();
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            f.severity,
            property(paths.of(f)),
            f.start.line,
            f.start.column,
            f.end.line,
            f.end.column,
            property(&format!("burn-migrate {}", f.rule)),
            data(&f.message),
        ));
    }
    out
}

/// The base id of the `n`th directory SARIF paths are named from: `PROJECTROOT`, then
/// `PROJECTROOT2`, ...
fn base_id(n: usize) -> String {
    match n {
        0 => "PROJECTROOT".to_string(),
        n => format!("PROJECTROOT{}", n + 1),
    }
}

/// The directory a finding's `file` is relative to, where it is.
fn relative_base(finding: &Finding) -> Option<&Path> {
    (!Path::new(&finding.file).is_absolute())
        .then_some(finding.base.as_deref())
        .flatten()
}

/// A SARIF region: lines and columns (in Unicode code points) and bytes.
fn region(start: Position, end: Position) -> Value {
    json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
        "byteOffset": start.offset,
        "byteLength": end.offset.saturating_sub(start.offset),
    })
}

/// A SARIF 2.1.0 log: the rules (all of them, and `not-migrated` when used; each built-in
/// rule's `helpUri` is its page of the guide) and one result per finding, columns counted in
/// Unicode code points. Files are named as people read them (relative to the project, or to
/// the current directory among several projects): a relative URI on the base id
/// `PROJECTROOT`, which `originalUriBaseIds` gives as an absolute `file://` URI; a file named
/// by an absolute path is an absolute URI. A finding whose fix `--apply` makes carries it as
/// a SARIF fix: the replacements of its edits.
pub fn sarif(findings: &[Finding], rules: &RuleSet) -> String {
    let mut descriptors: Vec<Value> = rules
        .iter()
        .map(|rule| {
            let mut descriptor = json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": { "text": rule.title },
                "fullDescription": { "text": rule.why.trim() },
                "help": { "text": rule.hint },
                "defaultConfiguration": { "level": rule.severity().to_string() },
                "properties": { "applicability": rule.applicability.to_string() },
            });
            // A user's rule has no page in the guide.
            if matches!(rule.key, RuleKey::Builtin(_)) {
                descriptor["helpUri"] = json!(format!("{GUIDE_URL}{}", page_path(rule)));
            }
            descriptor
        })
        .collect();
    let mut ids: Vec<String> = rules.iter().map(|r| r.id.clone()).collect();
    if findings.iter().any(|f| f.rule == NOT_MIGRATED) {
        ids.push(NOT_MIGRATED.to_string());
        descriptors.push(json!({
            "id": NOT_MIGRATED,
            "name": NOT_MIGRATED,
            "shortDescription": { "text": "A file burn-migrate could not migrate" },
            "defaultConfiguration": { "level": "error" },
        }));
    }
    // The directories files are named from, in order of first use.
    let mut bases: Vec<&Path> = Vec::new();
    for base in findings.iter().filter_map(relative_base) {
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    let artifact = |f: &Finding| -> Value {
        let base = relative_base(f).and_then(|b| bases.iter().position(|known| *known == b));
        match base {
            Some(n) => json!({ "uri": uri_reference(&f.file), "uriBaseId": base_id(n) }),
            None if Path::new(&f.file).is_absolute() => {
                json!({ "uri": file_uri(Path::new(&f.file), false) })
            }
            None => json!({ "uri": file_uri(&f.path, false) }),
        }
    };
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut result = json!({
                "ruleId": f.rule,
                "level": f.severity,
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": artifact(f),
                        "region": region(f.start, f.end),
                    },
                }],
            });
            if let Some(index) = ids.iter().position(|id| *id == f.rule) {
                result["ruleIndex"] = json!(index);
            }
            let machine_applicable = f
                .fix
                .as_ref()
                .filter(|fix| fix.applicability == Applicability::Safe);
            if let Some(fix) = machine_applicable {
                let replacements: Vec<Value> = (fix.edits.iter())
                    .map(|edit| {
                        json!({
                            "deletedRegion": region(edit.start, edit.end),
                            "insertedContent": { "text": edit.replacement },
                        })
                    })
                    .collect();
                result["fixes"] = json!([{
                    "description": { "text": format!("burn-migrate --apply: {}", f.message) },
                    "artifactChanges": [{
                        "artifactLocation": artifact(f),
                        "replacements": replacements,
                    }],
                }]);
            }
            result
        })
        .collect();
    let base_uris: serde_json::Map<String, Value> = (bases.iter().enumerate())
        .map(|(n, base)| (base_id(n), json!({ "uri": file_uri(base, true) })))
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "burn-migrate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": descriptors,
                },
            },
            "originalUriBaseIds": base_uris,
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

/// `path`'s bytes percent-encoded but for unreserved characters and `/` (and `:` where
/// `colon`: a drive letter in a `file://` URI; in a relative reference, a `:` in the first
/// segment would read as a scheme).
fn percent_encoded(path: &str, colon: bool) -> String {
    let mut encoded = String::new();
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(byte as char)
            }
            b':' if colon => encoded.push(':'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// A relative path (`/`-separated) as a relative URI reference.
fn uri_reference(path: &str) -> String {
    percent_encoded(path, false)
}

/// An absolute path as a `file://` URI (`file:///C:/..` on Windows), ending in `/` where it
/// is a `directory` (as a base URI must, for relative references to resolve inside it).
fn file_uri(path: &Path, directory: bool) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut uri = String::from("file://");
    if !text.starts_with('/') {
        uri.push('/');
    }
    uri.push_str(&percent_encoded(&text, true));
    if directory && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// `burn-migrate rules --format json`: every rule with its id, title, category,
/// applicability and hint.
pub fn rules_json(rules: &RuleSet) -> String {
    let list: Vec<Value> = rules
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "title": rule.title,
                "category": super::book::category_name(rule.category),
                "applicability": rule.applicability.to_string(),
                "severity": rule.severity().to_string(),
                "hint": rule.hint,
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_bytes() {
        let text = "ab\nçd x";
        let p = position(&LineIndex::new(text), text, text.find('x').unwrap());
        assert_eq!((p.line, p.column, p.offset), (2, 4, 7));
    }

    #[test]
    fn line_edits_replace_whole_lines() {
        let edits = line_edits("a\nb = 1\nc\n", "a\nb = 2\nc\n");
        assert_eq!(edits.len(), 1);
        assert_eq!((edits[0].start.line, edits[0].end.line), (2, 3));
        assert_eq!(edits[0].replacement, "b = 2\n");
    }

    #[test]
    fn github_escapes_properties_and_data() {
        let f = Finding {
            file: "a,b.rs".into(),
            line: 1,
            column: 1,
            start: position(&LineIndex::new(""), "", 0),
            end: position(&LineIndex::new(""), "", 0),
            rule: "r".into(),
            severity: "warning",
            applicability: "safe".into(),
            fixable: true,
            message: "50% done\nnext".into(),
            fix: None,
            path: "a,b.rs".into(),
            base: None,
        };
        let line = github(&[f]);
        assert!(
            line.starts_with("::warning file=a%2Cb.rs,line=1,col=1,"),
            "{line}"
        );
        assert!(line.ends_with("::50%25 done%0Anext\n"), "{line}");
    }
}
