//! What one run found and made of each file and manifest: the `Report` that the driver
//! builds, the writer applies and the report wing prints.

use std::path::PathBuf;

use crate::edit::Change;
use crate::rules::{Applicability, RuleKey};

#[derive(Debug)]
pub struct FileOutcome {
    pub path: PathBuf,
    pub display: String,
    /// The text as read, shared with the file's `SourceFile::text`.
    pub original: std::sync::Arc<str>,
    pub migrated: String,
    /// What the rules found in the original text (edits and manual findings).
    pub changes: Vec<Change>,
    /// Why the file was left unchanged despite edits, if it was.
    pub error: Option<String>,
    /// The device values the port chose in this file.
    pub device_choices: Vec<crate::migrate::transforms::DeviceChoice>,
    /// `// burn-migrate: allow(..)` comments, with whether they suppressed anything.
    pub suppressions: Vec<crate::migrate::suppress::Suppression>,
    /// What `--check` lists in `migrated` once it is written (its manual findings and to-do
    /// markers, at their places in that text), where the check of the port ran.
    pub port_findings: Option<Vec<Change>>,
    /// The file starts with a byte-order mark, which `original` and `migrated` leave out (so
    /// offsets and columns are rustc's); the diff and the written file have it
    /// (`FileOutcome::on_disk`).
    pub bom: bool,
}

impl FileOutcome {
    /// A text of this file (`original` or `migrated`) as its bytes on disk are: with the
    /// byte-order mark it was read with.
    pub fn on_disk<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        crate::util::layout::with_bom(text, self.bom)
    }
}

/// One change to a manifest, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestChange {
    pub rule: RuleKey,
    /// The fix's applicability, where the manifest's rewrite made one (its edits are the
    /// rewritten lines near `key`: the manifest is rewritten as a whole); `None` for findings
    /// a person has to act on.
    pub fix: Option<Applicability>,
    /// The dependency key the change is about, to locate it in the text.
    pub key: String,
    /// Where the change is in the text, where `key` alone cannot say (a key that several
    /// tables hold, as a `[patch]` entry and a dependency do): else the first line naming
    /// `key` (`report::emit::key_range`).
    pub span: Option<ra_ap_syntax::TextRange>,
    pub message: String,
}

impl ManifestChange {
    /// Whether `--apply` makes this change's fix.
    pub fn is_applied(&self) -> bool {
        self.fix == Some(Applicability::Safe)
    }
}

#[derive(Debug)]
pub struct ManifestOutcome {
    pub path: PathBuf,
    pub display: String,
    pub original: String,
    pub migrated: String,
    pub changes: Vec<ManifestChange>,
    pub error: Option<String>,
}

#[derive(Debug)]
pub struct Report {
    pub root: PathBuf,
    /// Direct dependencies of the workspace's packages.
    pub direct_dependencies: std::collections::BTreeSet<String>,
    /// The project already targets Burn 0.22: findings are regressions.
    pub already_migrated: bool,
    pub uses_burn: bool,
    pub files: Vec<FileOutcome>,
    pub manifests: Vec<ManifestOutcome>,
    /// Facts for the user that are not findings (modules not found, packages skipped).
    pub notes: Vec<String>,
}

impl Report {
    pub fn changed_files(&self) -> impl Iterator<Item = &FileOutcome> {
        self.files.iter().filter(|f| *f.migrated != *f.original)
    }

    pub fn finding_count(&self) -> usize {
        self.files
            .iter()
            .map(|f| f.changes.len() + usize::from(f.error.is_some()))
            .sum::<usize>()
            + self
                .manifests
                .iter()
                .map(|m| m.changes.len() + usize::from(m.error.is_some()))
                .sum::<usize>()
    }

    /// Manual findings and failures: what `--apply` leaves for a person.
    pub fn unresolved_count(&self) -> usize {
        self.files
            .iter()
            .map(|f| {
                if f.error.is_some() {
                    return f.changes.len().max(1);
                }
                f.changes.iter().filter(|c| !c.is_applied()).count()
            })
            .sum::<usize>()
            + self
                .manifests
                .iter()
                .map(|m| {
                    usize::from(m.error.is_some())
                        + m.changes.iter().filter(|c| !c.is_applied()).count()
                })
                .sum::<usize>()
    }
}
