//! The emit stage: unified diffs whose hunks name the rules that made them, compiler-style
//! diagnostics (codespan-reporting), and JSON for machines.

use std::collections::BTreeSet;
use std::io::Write;

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::{Files, SimpleFiles};
use codespan_reporting::term::termcolor::{Buffer, WriteColor};
use codespan_reporting::term::{self};
use ra_ap_syntax::TextRange;

use super::window::SourceView;
use crate::edit::Change;
use crate::migrate::ManifestChange;
use crate::migrate::{FileOutcome, Report};
use crate::rules::RuleSet;
use crate::util::lines::{line_column, LineIndex};

/// A unified diff of every changed file, manifests included. Each hunk header carries the ids
/// of the rules whose edits fall in it. In `color`, as git colors one: file headers bold, hunk
/// headers cyan, removed lines red, added lines green (each line's color ends before its line
/// break, so that the text without the escapes is the plain diff).
pub fn diff(report: &Report, color: bool) -> String {
    use rayon::prelude::*;
    let changed: Vec<&FileOutcome> = report.changed_files().collect();
    let files: Vec<String> = changed
        .par_iter()
        .map(|file| {
            let (old, new) = (file.on_disk(&file.original), file.on_disk(&file.migrated));
            file_diff(&file.display, &old, &new, file.bom, &file.changes, color)
        })
        .collect();
    let mut out = files.concat();
    for manifest in report.manifests.iter().filter(|m| m.migrated != m.original) {
        let rules: Vec<Change> = manifest
            .changes
            .iter()
            .map(|c| Change::edit(TextRange::default(), "", c.rule, ""))
            .collect();
        out.push_str(&file_diff(
            &manifest.display,
            &manifest.original,
            &manifest.migrated,
            false,
            &rules,
            color,
        ));
    }
    out
}

/// The escapes of a diff's colors (ANSI SGR codes, as git writes them).
#[derive(Clone, Copy)]
struct DiffPaint {
    color: bool,
}

impl DiffPaint {
    const BOLD: &'static str = "\x1b[1m";
    const CYAN: &'static str = "\x1b[36m";
    const RED: &'static str = "\x1b[31m";
    const GREEN: &'static str = "\x1b[32m";
    const RESET: &'static str = "\x1b[0m";

    /// Appends `text` (no line break in it) to `out` in `style`, when coloring.
    fn push(self, out: &mut String, style: &str, text: &str) {
        if self.color && !text.is_empty() {
            out.push_str(style);
            out.push_str(text);
            out.push_str(Self::RESET);
        } else {
            out.push_str(text);
        }
    }

    /// Appends a line (`text` may end with its line break, which stays outside the color).
    fn line(self, out: &mut String, style: &str, text: &str) {
        let body = text.strip_suffix('\n').unwrap_or(text);
        let body = body.strip_suffix('\r').unwrap_or(body);
        self.push(out, style, body);
        out.push_str(&text[body.len()..]);
    }
}

/// The unified diff of a file's `old` and `new` bytes; `changes` (edits to name in hunk
/// headers) have offsets into `old`, or, where `bom`, into `old` after its byte-order mark.
fn file_diff(
    display: &str,
    old: &str,
    new: &str,
    bom: bool,
    changes: &[Change],
    color: bool,
) -> String {
    let paint = DiffPaint { color };
    let diff = crate::util::diff::lines(old, new);
    let mut out = String::new();
    paint.line(&mut out, DiffPaint::BOLD, &format!("--- a/{display}\n"));
    paint.line(&mut out, DiffPaint::BOLD, &format!("+++ b/{display}\n"));
    // The mark is no line of its own: lines are the same with or without it.
    let lines = LineIndex::new(if bom {
        crate::util::layout::strip_bom(old).0
    } else {
        old
    });
    let line_of = |offset: usize| lines.line(offset);
    // The edits' old line spans (first, last), by first line, with the largest `last` so far:
    // each hunk looks only at the edits that can reach it, not at every edit of the file.
    let mut spans: Vec<(usize, usize, &str)> = changes
        .iter()
        .filter(|c| c.fix.is_some() && c.range != TextRange::default())
        .map(|c| {
            let first = line_of(c.range.start().into());
            let last = line_of(
                usize::from(c.range.end())
                    .saturating_sub(1)
                    .max(c.range.start().into()),
            );
            (first, last, c.rule.as_str())
        })
        .collect();
    spans.sort_unstable();
    let reach: Vec<usize> = spans
        .iter()
        .scan(0, |max, &(_, last, _)| {
            *max = last.max(*max);
            Some(*max)
        })
        .collect();
    // Manifest changes carry no range: they name every hunk of their file.
    let everywhere: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.fix.is_some() && c.range == TextRange::default())
        .map(|c| c.rule.as_str())
        .collect();
    for hunk in diff.hunks(3) {
        let old_lines = hunk
            .iter()
            .map(|op| op.old_range())
            .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end))
            .unwrap_or(0..0);
        let end = old_lines.end.max(old_lines.start + 1);
        let mut rules = everywhere.clone();
        let before_end = spans.partition_point(|&(first, _, _)| first < end);
        for i in (0..before_end).rev() {
            if reach[i] < old_lines.start {
                break;
            }
            if spans[i].1 >= old_lines.start {
                rules.insert(spans[i].2);
            }
        }
        let rules: Vec<&str> = rules.into_iter().collect();
        let header = similar::udiff::UnifiedHunkHeader::new(&hunk);
        // As git colors a hunk header's context: the `@@ .. @@` part only.
        paint.push(&mut out, DiffPaint::CYAN, &header.to_string());
        out.push_str(&format!(" {}\n", rules.join(", ")));
        for change in diff.changes(&hunk) {
            let (sign, style) = match change.tag() {
                similar::ChangeTag::Delete => ("-", DiffPaint::RED),
                similar::ChangeTag::Insert => ("+", DiffPaint::GREEN),
                similar::ChangeTag::Equal => (" ", ""),
            };
            match style {
                "" => {
                    out.push_str(sign);
                    out.push_str(change.value());
                }
                style => paint.line(&mut out, style, &format!("{sign}{}", change.value())),
            }
            if change.missing_newline() {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// Prints every finding as a diagnostic, sorted by file (source files and manifests by their
/// paths) and by position in each, then the notes.
pub fn diagnostics(
    report: &Report,
    rules: &RuleSet,
    writer: &mut dyn WriteColor,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let config = term::Config::default();
    let color = writer.supports_color();
    // Diagnostics are rendered in parallel, a file's in runs of `RUN` (a large workspace has
    // tens of thousands, and one generated file can have as many), then written in order.
    const RUN: usize = 256;
    // Each file with its findings in the order of their places.
    let mut sources: Vec<(&FileOutcome, SourceView, Vec<&Change>)> = report
        .files
        .par_iter()
        .filter(|file| !file.changes.is_empty() || file.error.is_some())
        .map(|file| {
            let source = SourceView::new(file.display.as_str(), &file.original);
            let mut changes: Vec<&Change> = file.changes.iter().collect();
            changes.sort_by_key(|c| (c.range.start(), c.range.end(), c.rule.as_str()));
            (file, source, changes)
        })
        .collect();
    sources.sort_by(|a, b| a.0.display.cmp(&b.0.display));
    // Each file's sites: the findings that start at one place, shown as one diagnostic.
    let sites: Vec<Vec<&[&Change]>> = (sources.iter())
        .map(|(_, _, changes)| {
            (changes.chunk_by(|a, b| a.range.start() == b.range.start())).collect()
        })
        .collect();
    // (file, a run of its sites, whether its error comes after them): the error goes after
    // its last run, or alone when the file has no findings.
    let runs: Vec<(usize, &[&[&Change]], bool)> = (sources.iter().enumerate())
        .flat_map(|(i, (file, _, _))| {
            let mut runs: Vec<&[&[&Change]]> = sites[i].chunks(RUN).collect();
            if runs.is_empty() {
                runs.push(&[]);
            }
            let last = runs.len() - 1;
            let with_error = file.error.is_some();
            (runs.into_iter().enumerate())
                .map(move |(run, changes)| (i, changes, with_error && run == last))
        })
        .collect();
    let rendered: Vec<Buffer> = runs
        .par_iter()
        .map(|&(i, sites, with_error)| {
            let (file, source, _) = &sources[i];
            let mut out = buffer(color);
            let mut plain = Vec::new();
            for site in sites {
                let (range, diagnostic) =
                    site_diagnostic(site.iter().map(|c| SiteFinding::of_change(c)), rules);
                let shown = source.around(range.start().into()..range.end().into());
                plain.clear();
                if !color && super::plain::render(&mut plain, &shown, &diagnostic)? {
                    out.write_all(&plain)?;
                } else {
                    emit_one(&mut out, &config, &shown, &diagnostic)?;
                }
            }
            if let (true, Some(error)) = (with_error, &file.error) {
                let diagnostic = Diagnostic::error()
                    .with_message(format!("{}: {error}", file.display))
                    .with_code("internal");
                emit_one(&mut out, &config, &source.around(0..0), &diagnostic)?;
            }
            Ok(out)
        })
        .collect::<std::io::Result<_>>()?;
    // Each manifest's diagnostics, in the order of their places.
    let mut manifests: Vec<(&str, Buffer)> = Vec::new();
    for manifest in &report.manifests {
        let mut out = buffer(color);
        let source = SourceView::new(manifest.display.as_str(), manifest.original.as_str());
        let mut changes: Vec<(TextRange, &ManifestChange)> = (manifest.changes.iter())
            .map(|change| (change_range(&manifest.original, change), change))
            .collect();
        changes.sort_by_key(|(range, change)| (range.start(), range.end(), change.rule.as_str()));
        for site in changes.chunk_by(|a, b| a.0.start() == b.0.start()) {
            let findings = site.iter().map(|(range, change)| SiteFinding {
                range: *range,
                rule: change.rule.as_str(),
                message: &change.message,
                fixable: change.is_applied(),
            });
            let (range, diagnostic) = site_diagnostic(findings, rules);
            let shown = source.around(range.start().into()..range.end().into());
            emit_one(&mut out, &config, &shown, &diagnostic)?;
        }
        if let Some(error) = &manifest.error {
            let diagnostic = Diagnostic::error()
                .with_message(format!("{}: {error}", manifest.display))
                .with_code("manifest");
            emit_one(&mut out, &config, &source.around(0..0), &diagnostic)?;
        }
        manifests.push((&manifest.display, out));
    }
    manifests.sort_by(|a, b| a.0.cmp(b.0));
    // The files' runs and the manifests, merged by path.
    let mut manifests = manifests.into_iter().peekable();
    for (&(i, _, _), out) in runs.iter().zip(&rendered) {
        let display = sources[i].0.display.as_str();
        while let Some((_, manifest)) = manifests.next_if(|(m, _)| *m < display) {
            writer.write_all(manifest.as_slice())?;
        }
        writer.write_all(out.as_slice())?;
    }
    for (_, manifest) in manifests {
        writer.write_all(manifest.as_slice())?;
    }
    for note in &report.notes {
        writeln!(writer, "note: {note}")?;
    }
    Ok(())
}

/// A buffer that keeps colors when the terminal takes them.
fn buffer(color: bool) -> Buffer {
    if color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    }
}

fn emit_one<'f, F: Files<'f>>(
    writer: &mut dyn WriteColor,
    config: &term::Config,
    files: &'f F,
    diagnostic: &Diagnostic<F::FileId>,
) -> std::io::Result<()> {
    term::emit(writer, config, files, diagnostic).map_err(|e| std::io::Error::other(e.to_string()))
}

/// One finding at a site, as a diagnostic shows it.
struct SiteFinding<'a> {
    range: TextRange,
    rule: &'a str,
    message: &'a str,
    fixable: bool,
}

impl<'a> SiteFinding<'a> {
    fn of_change(change: &'a Change) -> Self {
        SiteFinding {
            range: change.range,
            rule: change.rule.as_str(),
            message: &change.message,
            fixable: change.is_applied(),
        }
    }

    /// The rule's hint and what fixes it.
    fn help(&self, rules: &RuleSet) -> (String, String) {
        let hint = (rules.get(self.rule).map(|r| r.hint.clone())).unwrap_or_default();
        let fix = if self.fixable {
            "fixed by `burn-migrate --apply`".to_string()
        } else {
            format!(
                "no automatic fix: `burn-migrate explain {}` shows what to do",
                self.rule
            )
        };
        (hint, fix)
    }
}

/// One diagnostic for the findings that start at one place (a site often has two or three:
/// the manifest's `burn` key moves to 0.22 and renames a feature): the first finding's rule
/// and message, its hint and fix as notes, then a note for each other finding. An error when
/// any of their rules is (the port does not compile with the site as it is), else a warning
/// (it compiles, and may behave differently). Returns the range it marks: the first finding's (the shortest:
/// a longer one may reach over lines).
fn site_diagnostic<'a>(
    findings: impl Iterator<Item = SiteFinding<'a>>,
    rules: &RuleSet,
) -> (TextRange, Diagnostic<()>) {
    let findings: Vec<SiteFinding> = findings.collect();
    let Some(first) = findings.first() else {
        return (TextRange::default(), Diagnostic::bug());
    };
    let range = first.range;
    let compiles = |f: &SiteFinding| {
        rules
            .get(f.rule)
            .is_some_and(|rule| rule.severity() == crate::rules::Severity::Warning)
    };
    let severity = match findings.iter().all(compiles) {
        true => Severity::Warning,
        false => Severity::Error,
    };
    let (hint, fix) = first.help(rules);
    let mut notes = vec![hint, fix];
    for other in &findings[1..] {
        let (hint, fix) = other.help(rules);
        notes.push(format!(
            "also {}: {}; {hint}; {fix}",
            other.rule, other.message
        ));
    }
    let diagnostic = Diagnostic::new(severity)
        .with_code(first.rule)
        .with_message(first.message)
        .with_labels(vec![Label::primary(
            (),
            usize::from(range.start())..usize::from(range.end()),
        )])
        .with_notes(notes);
    (range, diagnostic)
}

/// Where a manifest change is: its own span, or the line of its key.
pub(crate) fn change_range(text: &str, change: &ManifestChange) -> TextRange {
    change.span.unwrap_or_else(|| key_range(text, &change.key))
}

/// The span of a dependency key in a manifest, for diagnostics about it.
pub(crate) fn key_range(text: &str, key: &str) -> TextRange {
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let matches = trimmed.starts_with(&format!("{key} "))
            || trimmed.starts_with(&format!("{key}="))
            || trimmed.contains(&format!(".{key}]"));
        if matches {
            let start = offset + (line.len() - trimmed.len());
            return TextRange::new((start as u32).into(), ((start + key.len()) as u32).into());
        }
        offset += line.len();
    }
    TextRange::default()
}

/// One-line summary for people; `project` names the project among several.
pub fn summary(report: &Report, project: Option<&str>) -> String {
    let who = project.map_or(String::new(), |name| format!("{name}: "));
    let findings = report.finding_count();
    let unresolved = report.unresolved_count();
    let files = report
        .files
        .iter()
        .filter(|f| !f.changes.is_empty())
        .count()
        + report
            .manifests
            .iter()
            .filter(|m| !m.changes.is_empty())
            .count();
    if findings == 0 {
        return if report.already_migrated {
            format!("burn-migrate: {who}clean: no backend generics and nothing left from Burn 0.21")
        } else {
            format!("burn-migrate: {who}nothing to migrate")
        };
    }
    format!(
        "burn-migrate: {who}{findings} finding(s) in {files} file(s): {} fixed by --apply, {unresolved} need a person",
        findings - unresolved
    )
}

/// What `--apply` leaves for a person, one line each: `file:line:column: rule-id: message`,
/// files that could not be migrated included; sorted by file and place.
pub fn left_for_a_person(report: &Report) -> Vec<String> {
    // (file, line, column, text): sorted by place before they are printed.
    let mut lines: Vec<(&str, usize, usize, String)> = Vec::new();
    for file in &report.files {
        if let Some(error) = &file.error {
            let text = format!("{}: not migrated: {error}", file.display);
            lines.push((&file.display, 0, 0, text));
        }
        // Where the check of the port ran, its findings at their places in the text written
        // (what `--check` lists afterwards); else the findings where they were.
        let (text, left): (&str, Vec<&Change>) = match &file.port_findings {
            Some(found) => (&file.migrated, found.iter().collect()),
            None => (
                &file.original,
                file.changes.iter().filter(|c| !c.is_applied()).collect(),
            ),
        };
        let index = LineIndex::new(text);
        for change in left {
            let (line, column) = line_col(&index, text, change.range.start().into());
            let text = format!(
                "{}:{line}:{column}: {}: {}",
                file.display, change.rule, change.message
            );
            lines.push((&file.display, line, column, text));
        }
    }
    for manifest in &report.manifests {
        if let Some(error) = &manifest.error {
            let text = format!("{}: not migrated: {error}", manifest.display);
            lines.push((&manifest.display, 0, 0, text));
        }
        // The key where the manifest as written has it (below its to-do marker, where
        // `--check` finds it afterwards), else where it was.
        let (old_index, new_index) = (
            LineIndex::new(&manifest.original),
            LineIndex::new(&manifest.migrated),
        );
        for change in manifest.changes.iter().filter(|c| !c.is_applied()) {
            // A finding with its own span (a `[patch]` entry) is placed by it in the text as
            // read; one about a key, where the written manifest has the key.
            let written = key_range(&manifest.migrated, &change.key);
            let (index, text, range) = match change.span {
                None if written != TextRange::default() => {
                    (&new_index, &manifest.migrated, written)
                }
                _ => (
                    &old_index,
                    &manifest.original,
                    change_range(&manifest.original, change),
                ),
            };
            let (line, column) = line_col(index, text, range.start().into());
            let text = format!(
                "{}:{line}:{column}: {}: {}",
                manifest.display, change.rule, change.message
            );
            lines.push((&manifest.display, line, column, text));
        }
    }
    // Stable: findings at one place keep the order the rules gave them.
    lines.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    lines.into_iter().map(|(_, _, _, text)| text).collect()
}

/// The 1-based line and column (in characters, as the diagnostics count) of a byte offset.
fn line_col(lines: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let (line, column, _) = line_column(lines, text, offset);
    (line, column)
}

/// One line per suppression comment: what it suppressed, or that it suppressed nothing.
pub fn suppression_report(report: &Report, rules: &RuleSet) -> Vec<String> {
    let mut lines = Vec::new();
    for file in &report.files {
        for s in &file.suppressions {
            let line = if rules.get(&s.rule).is_none() {
                format!(
                    "warning: {}:{}: `allow({})` names no rule",
                    file.display, s.line, s.rule
                )
            } else if s.used {
                format!(
                    "note: {}:{}: `{}` suppressed by comment",
                    file.display, s.line, s.rule
                )
            } else {
                format!(
                    "warning: {}:{}: unused suppression `allow({})`",
                    file.display, s.line, s.rule
                )
            };
            lines.push(line);
        }
    }
    lines
}

/// The device table: for each device value the port chose, where, what it was, what it is,
/// the Cargo feature it needs and the rule. `None` when the port chose no device.
pub fn device_table(report: &Report) -> Option<String> {
    let mut rows: Vec<[String; 6]> = Vec::new();
    for file in &report.files {
        let lines = LineIndex::new(&file.original);
        for choice in &file.device_choices {
            let (line, _) = line_col(&lines, &file.original, choice.range.start().into());
            rows.push([
                format!("{}:{line}", file.display),
                choice.backend.clone(),
                choice.value.clone(),
                choice.device.clone(),
                choice.feature.clone(),
                choice.rule.to_string(),
            ]);
        }
    }
    if rows.is_empty() {
        return None;
    }
    let header = [
        "site",
        "0.21 backend",
        "0.21 device",
        "0.22 device",
        "feature",
        "rule",
    ]
    .map(str::to_string);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::from("device choices:\n");
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    Some(out)
}

/// The port's compile errors as diagnostics, each naming the rule (and guide page) that
/// covers it, or saying that none does.
pub fn compile_errors(
    errors: &[crate::prove::verify::diagnose::CompileError],
    rules: &RuleSet,
    writer: &mut dyn WriteColor,
) -> std::io::Result<()> {
    let mut files = SimpleFiles::new();
    let mut ids = std::collections::BTreeMap::new();
    let config = term::Config::default();
    for error in errors {
        let id = match ids.get(&error.file) {
            Some(id) => *id,
            None => {
                let text = std::fs::read_to_string(&error.file).unwrap_or_default();
                let id = files.add(error.file.display().to_string(), text);
                ids.insert(error.file.clone(), id);
                id
            }
        };
        let note = match error.rule.and_then(|r| rules.get(r.as_str())) {
            Some(rule) => format!(
                "covered by rule `{}` ({}): {}; `burn-migrate explain {}` shows the guide page",
                rule.id, rule.applicability, rule.hint, rule.id
            ),
            None => {
                "no rule covers this error: port it by hand, and please report it so a rule can"
                    .to_string()
            }
        };
        let mut diagnostic = Diagnostic::error()
            .with_message(format!("the port does not build: {}", error.message))
            .with_labels(vec![Label::primary(id, error.range.clone())])
            .with_notes(vec![note]);
        if let Some(code) = &error.code {
            diagnostic = diagnostic.with_code(code);
        }
        emit_one(writer, &config, &files, &diagnostic)?;
    }
    Ok(())
}

/// What `--apply` did to `Cargo.lock`, in a few lines: the lockfile's own diff runs to
/// thousands of lines, so it is summarised, not printed.
pub fn lockfile_summary(update: &crate::migrate::lockfile::LockUpdate) -> String {
    if update.seeded {
        return "Cargo.lock written (the project had none): Burn 0.22 and its dependencies at the versions it is known to build with (a fresh resolution takes releases it does not build with, such as systemstat 0.2.8); commit it, or delete it to resolve afresh\n".to_string();
    }
    let burn = update
        .burn
        .iter()
        .find(|line| line.starts_with("burn "))
        .map(|line| format!(" ({line})"))
        .unwrap_or_default();
    let mut out = format!(
        "Cargo.lock updated in place, not re-resolved: {} Burn crate(s) moved{burn}, and {} of their dependencies, each to the version Burn 0.22 is known to build with\n",
        update.burn.len(),
        update.transitive
    );
    if !update.aligned.is_empty() {
        // The first few name the kind of move; a lockfile made months before has a hundred.
        const SHOWN: usize = 8;
        let more = update.aligned.len().saturating_sub(SHOWN);
        out.push_str(&format!(
            "{} of your locked packages moved to the versions Burn 0.22 is known to build with: {}{}\n",
            update.aligned.len(),
            update.aligned[..update.aligned.len().min(SHOWN)].join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    if !update.others.is_empty() {
        out.push_str("these dependencies of yours moved with Burn:\n");
        for line in &update.others {
            out.push_str(&format!("  {line}\n"));
        }
    }
    for line in &update.not_aligned {
        out.push_str(&format!(
            "note: Cargo.lock keeps your {line}; if Burn fails to build, move it to that version with `cargo update --precise`\n"
        ));
    }
    out
}

/// What `--apply` will do to `Cargo.lock`, for `--diff` (which writes nothing).
pub fn lockfile_plan(report: &Report) -> Option<String> {
    let manifests_change = report.manifests.iter().any(|m| m.migrated != m.original);
    (manifests_change && report.root.join("Cargo.lock").is_file()).then(|| {
        "Cargo.lock: --apply updates it in place (Burn 0.22 and every crate of its graph at the versions it is known to build with, the rest as locked) and summarises what moved\n".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;

    /// A colored diff is the plain one with escapes around lines, each line break (CRLF too)
    /// and the missing-newline marker outside them.
    #[test]
    fn a_colored_diff_without_its_escapes_is_the_plain_diff() {
        let old = "a\r\nb\r\n-- c\r\nd";
        let new = "a\r\nB\r\n-- c\r\ne";
        let plain = file_diff("x.rs", old, new, false, &[], false);
        let colored = file_diff("x.rs", old, new, false, &[], true);
        assert!(colored.contains("\x1b[31m-b\x1b[0m\r\n"), "{colored:?}");
        assert!(
            colored.contains("\x1b[32m+e\x1b[0m\n\\ No newline"),
            "{colored:?}"
        );
        let mut stripped = colored.clone();
        for escape in ["\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[36m"] {
            stripped = stripped.replace(escape, "");
        }
        assert_eq!(stripped, plain);
    }

    /// A file's findings, rendered in runs on several threads, come out in the file's order,
    /// its internal error after them, and a file that has only an error still shows it.
    #[test]
    fn diagnostics_keep_the_order_of_findings_across_runs() {
        let rules = RuleSet::embedded().unwrap();
        let lines = 700;
        let original: String = (0..lines).map(|i| format!("let v{i} = {i};\n")).collect();
        let mut at = 0;
        let mut changes = Vec::new();
        for (i, line) in original.lines().enumerate() {
            let range = TextRange::at((at as u32).into(), (line.len() as u32).into());
            changes.push(Change::manual(
                range,
                RuleId::BackendSeed,
                format!("finding <{i}>"),
            ));
            at += line.len() + 1;
        }
        let outcome = |display: &str, changes: Vec<Change>, error: &str| FileOutcome {
            path: display.into(),
            display: display.to_string(),
            original: original.as_str().into(),
            migrated: original.clone(),
            changes,
            error: Some(error.to_string()),
            device_choices: Vec::new(),
            suppressions: Vec::new(),
            port_findings: None,
            bom: false,
        };
        let report = Report {
            root: "/".into(),
            direct_dependencies: BTreeSet::new(),
            already_migrated: false,
            uses_burn: true,
            files: vec![
                outcome("src/a.rs", changes, "error of a"),
                outcome("src/b.rs", Vec::new(), "error of b"),
            ],
            manifests: Vec::new(),
            notes: Vec::new(),
        };
        let mut out = Buffer::no_color();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| diagnostics(&report, &rules, &mut out))
            .unwrap();
        let text = String::from_utf8(out.into_inner()).unwrap();
        let mut expected: Vec<String> = (0..lines).map(|i| format!("finding <{i}>")).collect();
        expected.push("src/a.rs: error of a".to_string());
        expected.push("src/b.rs: error of b".to_string());
        let mut from = 0;
        for message in &expected {
            let found = text[from..].find(message.as_str());
            let Some(offset) = found else {
                panic!("`{message}` is missing or out of order");
            };
            from += offset + message.len();
        }
    }
}
