//! The migrate wing, and its driver: discover -> parse -> index -> rewrite (to a fixed point)
//! -> validate. Produces a `Report`; printing it is the report wing's job.
//!
//! Stages, one module each: [`discover`] (cargo metadata, module files; [`includes`] for the
//! files `include!` pulls in), [`source`] (lossless parsing), [`index`] (workspace-wide
//! facts), [`transforms`] (rules to edits), [`doc_tests`] (doc-comment code blocks, ported as
//! files of their own), `dangling` (after the fixed point: uses of a removed backend parameter
//! no rule rewrote), [`suppress`] (allow comments), [`manifest`] (Cargo.toml;
//! [`burn_patches`] for `[patch]` entries of Burn crates), [`lockfile`] (Cargo.lock),
//! [`write`] (the transactional `--apply`).

pub mod burn_patches;
pub mod crate_names;
mod dangling;
mod device_features;
pub mod discover;
pub mod doc_tests;
pub mod feature_refs;
pub mod homes;
pub mod includes;
pub mod index;
mod line_map;
pub mod lockfile;
pub mod manifest;
pub mod markers;
mod moot;
pub mod old_burn_deps;
mod outcome;
pub mod records;
pub mod rust_version;
pub mod source;
pub mod suppress;
pub mod transforms;
pub mod write;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::edit::{self, Change};
use crate::error::Error;
use crate::migrate::index::Index;
use crate::rules::{RuleKey, RuleSet};
use crate::util::layout;
use crate::util::lines::LineIndex;
use crate::util::timing::{self, time};
use discover::Workspace;
use source::SourceFile;

/// A file's package's names for Burn's crates (`SourceFile::dependency_names`).
type DependencyNamesOf = std::sync::Arc<crate_names::DependencyNames>;
use transforms::FileCtx;

pub use outcome::{is_applied, FileOutcome, ManifestOutcome, Report};

/// Rules run again on their own output until nothing changes; a rule set that keeps
/// changing its own output past this many passes has a bug.
const MAX_PASSES: usize = 5;

/// Ports the workspace at `path` in memory: findings, and the text `--apply` writes.
pub fn run(path: &Path, rules: &RuleSet) -> Result<Report, Error> {
    run_as(path, rules, Output::Port)
}

/// What a run is for: the findings only (`--check`), or the port's text too (`--diff`,
/// `--apply`), which needs one more look at the port (`keep_findings_visible`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Findings,
    Port,
}

pub fn run_as(path: &Path, rules: &RuleSet, output: Output) -> Result<Report, Error> {
    run_on(discover::read_metadata(path)?, rules, output)
}

/// [`run_as`] on a workspace whose metadata was read already.
pub fn run_on(
    metadata: discover::Metadata,
    rules: &RuleSet,
    output: Output,
) -> Result<Report, Error> {
    let mut workspace = time("discover", || discover::from_metadata(metadata))?;
    let mut report = Report {
        root: workspace.root.clone(),
        direct_dependencies: workspace
            .packages
            .iter()
            .flat_map(|p| p.dependencies.iter().cloned())
            .collect(),
        already_migrated: !workspace.targets_old_burn(),
        uses_burn: workspace.packages.iter().any(|p| p.uses_burn),
        files: Vec::new(),
        manifests: Vec::new(),
        notes: Vec::new(),
    };
    report
        .notes
        .extend(workspace.toolchain_note.iter().cloned());
    for (file, module) in &workspace.missing_modules {
        report.notes.push(format!(
            "{file}: module `{module}` has no file (skipped; is it generated at build time?)"
        ));
    }
    if !report.uses_burn {
        return Ok(report);
    }
    let passes = match output {
        Output::Findings => Passes::AsFindingsNeed,
        Output::Port => Passes::ToFixedPoint,
    };
    // The rewrite holds the only trees of the files as read, so that each goes once the
    // pass after it no longer needs it; the stages after it need the files' text and facts.
    let sources = workspace.files.clone();
    workspace
        .files
        .iter_mut()
        .for_each(SourceFile::release_tree);
    let (files, ported) = time("rewrite", || {
        rewrite_sources_parsed(sources, rules, report.already_migrated, passes, None)
    })?;
    report.files = files;
    leave_unparsable(&workspace.files, &mut report.files);
    report.manifests = time("manifests", || {
        rewrite_manifests(&workspace, rules, &report.files)
    });
    report
        .manifests
        .extend(rust_version::toolchain_files(&workspace.root));
    write::keep_inside(&mut report);
    device_features::findings(&mut report, rules, &workspace);
    old_burn_deps::findings(&mut report, &workspace);
    burn_patches::findings(&mut report, &workspace);
    markers::findings(&mut report, rules);
    if output == Output::Findings {
        // The findings are all `--check` wanted of the trees. Dropped, they would go to
        // rust-analyzer's dropper thread, which frees them while the findings render, on the
        // same cores; the process's exit frees them instead.
        std::mem::forget(ported);
    } else {
        if !report.already_migrated {
            time("keep findings visible", || {
                keep_findings_visible(&mut report, &workspace.files, ported, rules)
            })?;
        }
        // Last: what is written is laid out as the file was (line endings).
        time("layout", || {
            (report.files.par_iter_mut())
                .filter(|f| *f.migrated != *f.original)
                .for_each(|f| {
                    let migrated = std::mem::take(&mut f.migrated);
                    f.migrated = layout::keep_layout(&f.original, migrated);
                })
        });
    }
    // After the markers: discover finds these again on the port (the call stays), so a marker
    // would report them twice.
    includes::unfollowed_findings(
        &mut report,
        std::mem::take(&mut workspace.unfollowed_includes),
    );
    Ok(report)
}

/// What `--apply` leaves for a person, `--check` on the port must still list. Checks the
/// ported workspace as 0.22 code (in memory) and, for each manual finding of a changed file
/// that the check no longer sees (its site went with the backend parameter, say), writes a
/// to-do marker (`markers`) above the line where the site now is.
fn keep_findings_visible(
    report: &mut Report,
    files: &[SourceFile],
    parsed: Ported,
    rules: &RuleSet,
) -> Result<(), Error> {
    let manual = |c: &&Change| !is_applied(c, rules);
    // Unchanged files too: what code on 0.22 is not checked for (macro input naming
    // `burn::backend::Wgpu`) would vanish from `--check` after `--apply`.
    let candidate = |f: &FileOutcome| f.error.is_none() && f.changes.iter().any(|c| manual(&c));
    if !report.files.iter().any(candidate) || files.len() != report.files.len() {
        return Ok(());
    }
    // The whole workspace as ported: the index needs every file. The rewrite's last pass
    // parsed it already, and indexed it where it changed nothing; a file whose text it does
    // not hold (left unchanged after an error) is parsed here, and the index built again.
    // Where every text is the last pass's, that pass's step outputs that did not depend on
    // the file being 0.22 code are reused rather than run again (`transforms::Reusable`).
    let as_parsed = (parsed.files.iter().zip(&report.files)).all(|(p, o)| *p.text == *o.migrated);
    let last_pass = parsed.last_pass.filter(|_| as_parsed);
    let ported: Vec<SourceFile> = (files.par_iter().zip(parsed.files).zip(&report.files))
        .map(|((f, parsed), o)| {
            if *parsed.text == *o.migrated {
                return parsed;
            }
            SourceFile::from_text(
                f.path.clone(),
                f.display.clone(),
                o.migrated.clone(),
                f.package,
                f.edition,
            )
            .in_scope(f.scope.clone())
            .with_dependency_names(f.dependency_names.clone())
        })
        .collect();
    let (rechecked, _) =
        rewrite_sources_parsed(ported, rules, true, Passes::AsFindingsNeed, last_pass)?;
    (report.files.par_iter_mut().zip(&rechecked).zip(files)).for_each(
        |((outcome, rechecked), file)| {
            if candidate(outcome) {
                add_missing_markers(outcome, rechecked, file.edition, rules);
            }
            if outcome.error.is_none() {
                outcome.port_findings = Some(port_findings(outcome, rechecked, rules));
            }
        },
    );
    Ok(())
}

/// What `--check` will list in `outcome`'s port once written: the manual findings of the
/// check of the port (`rechecked`, made on the port before its to-do markers went in, so
/// moved down by the lines they added) and a finding per marker, as `marker_findings` makes
/// them from the text on disk.
fn port_findings(outcome: &FileOutcome, rechecked: &FileOutcome, rules: &RuleSet) -> Vec<Change> {
    let checked: &str = &rechecked.original;
    let written = outcome.migrated.as_str();
    let mut out: Vec<Change> = rechecked
        .changes
        .iter()
        .filter(|c| !is_applied(c, rules))
        .cloned()
        .collect();
    if checked != written {
        // Markers add whole lines.
        line_map::LinesMoved::new(checked, written).apply(&mut out);
    }
    for marker in markers::find(written, "//", rules) {
        for _ in 0..marker.count {
            out.push(Change::manual(marker.range, marker.rule, &marker.message));
        }
    }
    out.sort_by_key(|c| c.range.start());
    out
}

/// Writes a to-do marker into `outcome`'s port for each manual finding of it that the check
/// of the port (`rechecked`) does not list.
fn add_missing_markers(
    outcome: &mut FileOutcome,
    rechecked: &FileOutcome,
    edition: ra_ap_syntax::Edition,
    rules: &RuleSet,
) {
    let manual = |c: &&Change| !is_applied(c, rules);
    let new_lines = LineIndex::new(&outcome.migrated);
    // What the check of the port sees, by rule: its findings and the markers already there.
    let mut seen: Vec<(RuleKey, usize)> = rechecked
        .changes
        .iter()
        .filter(manual)
        .map(|c| (c.rule, new_lines.line(c.range.start().into())))
        .collect();
    seen.extend(
        markers::find(&outcome.migrated, "//", rules)
            .into_iter()
            .flat_map(|m| {
                let line = new_lines.line(m.range.start().into());
                std::iter::repeat_n((m.rule, line), m.count)
            }),
    );
    // One finding of the same rule in the port answers for one here: with as many of each
    // rule as the file has, none is missing, whichever answers for which, and the line diff
    // below (the costly part on a large file) is not needed.
    let mut short: HashMap<RuleKey, isize> = HashMap::new();
    for change in outcome.changes.iter().filter(manual) {
        *short.entry(change.rule).or_default() += 1;
    }
    for (rule, _) in &seen {
        *short.entry(*rule).or_default() -= 1;
    }
    if short.values().all(|&n| n <= 0) {
        return;
    }
    let old_lines = LineIndex::new(&outcome.original);
    let lines = line_map::line_map(&outcome.original, &outcome.migrated);
    let changes: Vec<(&Change, usize)> = (outcome.changes.iter().filter(manual))
        .map(|change| {
            let old = old_lines.line(change.range.start().into());
            (change, lines.get(old).copied().unwrap_or(old))
        })
        .collect();
    // First the findings the port shows on their own line (or the marker line above), then
    // any of the same rule for the rest: a finding the port lost must not take the entry of
    // one it kept, or the marker would name the wrong finding.
    let mut answered = vec![false; changes.len()];
    for (i, (change, new)) in changes.iter().enumerate() {
        let on_its_line = |(rule, line): &(RuleKey, usize)| {
            *rule == change.rule && (*line == *new || *line + 1 == *new)
        };
        if let Some(at) = seen.iter().position(on_its_line) {
            seen.remove(at);
            answered[i] = true;
        }
    }
    let mut missing = Vec::new();
    for ((change, new), answered) in changes.iter().zip(answered) {
        if answered {
            continue;
        }
        match seen.iter().position(|(rule, _)| *rule == change.rule) {
            Some(at) => {
                seen.remove(at);
            }
            None => missing.push((*new, markers::text(change.rule, &change.message))),
        }
    }
    if missing.is_empty() {
        return;
    }
    let (text, _unplaced) = markers::insert_above(&outcome.migrated, missing, edition);
    outcome.migrated = text;
}

/// How far `rewrite_sources` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passes {
    /// To the fixed point, with the rewritten files validated: the port's text.
    ToFixedPoint,
    /// As far as the findings need. They are the first pass's (later passes only finish the
    /// text), except the dangling uses of removed backend parameters, which are decided on the
    /// final text: when the first pass leaves no use that may dangle (`dangling::may_dangle`),
    /// it is the only pass and its output is not parsed again. `migrated` then holds the
    /// first pass's text, unvalidated.
    AsFindingsNeed,
}

/// Runs the rules over a set of source files (one workspace) to a fixed point and validates
/// the result, or as far as `passes` says. `migrated`: the files already target Burn 0.22, so
/// only regressions count.
///
/// Each pass builds the workspace index once and shares it read-only while files are
/// rewritten in parallel (rayon); a file's rewrite reads only its own text and the index.
pub fn rewrite_sources(
    files: &[SourceFile],
    rules: &RuleSet,
    migrated: bool,
    passes: Passes,
) -> Result<Vec<FileOutcome>, Error> {
    rewrite_sources_parsed(files.to_vec(), rules, migrated, passes, None)
        .map(|(outcomes, _)| outcomes)
}

/// What the rewrite's last pass read: each file's parse (the port's text, where the port
/// changed it and the passes reached a fixed point; the file's own otherwise), and what that
/// pass left when it changed nothing.
struct Ported {
    files: Vec<SourceFile>,
    last_pass: Option<LastPass>,
}

/// What a pass that changed nothing leaves a later rewrite of the same files: their index,
/// and per file the step outputs it may take (`transforms::Reusable`).
struct LastPass {
    index: Index,
    reusable: Vec<transforms::Reusable>,
}

/// `rewrite_sources`, also returning what the last pass read (`Ported`). Takes the files: a
/// file's tree as read goes once the first pass rewrote it. `given` is what an earlier
/// rewrite's last pass left over `files` (the index, which the first pass then need not
/// build, and the step outputs it takes).
fn rewrite_sources_parsed(
    files: Vec<SourceFile>,
    rules: &RuleSet,
    migrated: bool,
    passes: Passes,
    mut given: Option<LastPass>,
) -> Result<(Vec<FileOutcome>, Ported), Error> {
    let file_count = files.len();
    let syntax_errors_before: Vec<usize> = files.iter().map(|f| f.syntax_errors).collect();
    let mut outcomes: Vec<FileOutcome> = files.par_iter().map(unchanged_outcome).collect();
    let mut current: Vec<SourceFile> = files;
    // Per file: the uses of backend parameters the first pass saw, and each pass's edits.
    let mut backend_uses: Vec<Vec<dangling::Use>> = vec![Vec::new(); file_count];
    let mut pass_edits: Vec<Vec<Vec<(ra_ap_syntax::TextRange, usize)>>> =
        vec![Vec::new(); file_count];

    let mut fixed_point = None;
    // A pass of a rewrite to the fixed point keeps what the next rewrite may reuse, in case
    // it is the last.
    let keep = passes == Passes::ToFixedPoint;
    for pass in 0..MAX_PASSES {
        let (index, mut reuse) = match given.take() {
            Some(LastPass { index, reusable }) => (index, reusable),
            None => (
                time(&format!("pass {pass}: index"), || {
                    Index::build(&current, rules)
                }),
                Vec::new(),
            ),
        };
        reuse.resize_with(file_count, Default::default);
        let mut doc_changes = doc_tests::changes(&current, rules, migrated)?;
        let mut rewritten: Vec<Rewritten> = time(&format!("pass {pass}: rewrite"), || {
            outcomes
                .par_iter_mut()
                .zip(current.par_iter().zip(doc_changes.par_iter_mut()))
                .zip(reuse.into_par_iter())
                .enumerate()
                .map(|(file_id, ((outcome, (file, doc)), reuse))| {
                    let mut ctx = FileCtx::new(&index, rules, file_id, file, migrated);
                    ctx.changes = std::mem::take(doc);
                    if pass == 0 {
                        // Findings, no edits: a file's findings are its first pass's.
                        ctx.changes.extend(includes::computed_path_findings(file));
                    }
                    rewrite_file(pass, ctx, rules, file, outcome, reuse, keep)
                })
                .collect::<Result<_, Error>>()
        })?;
        let reusable: Vec<transforms::Reusable> = (rewritten.iter_mut())
            .map(|r| std::mem::take(&mut r.reusable))
            .collect();
        if pass == 0 && passes == Passes::AsFindingsNeed {
            let may_dangle = (outcomes.par_iter().zip(&rewritten))
                .any(|(o, r)| dangling::may_dangle(&r.backend_uses, &o.changes, &r.edits));
            if !may_dangle {
                for (outcome, next) in outcomes.iter_mut().zip(rewritten) {
                    if let (None, Some(text)) = (&outcome.error, next.text) {
                        outcome.migrated = text;
                    }
                }
                let ported = Ported {
                    files: current,
                    last_pass: None,
                };
                return Ok((outcomes, ported));
            }
        }
        // A rewritten file's tree as the pass read it goes before the new text is parsed (on a
        // large file the parser's buffers and the two trees would be the run's peak memory),
        // but for the items the parse reuses.
        (current.par_iter_mut().zip(&mut rewritten))
            .filter(|(_, next)| next.text.is_some())
            .for_each(|(file, next)| {
                next.untouched = file.untouched_items(&next.edits);
                file.release_tree();
            });
        source::forget_built_nodes();
        let rewritten: Vec<Rewritten> = time(&format!("pass {pass}: parse"), || {
            rewritten.into_par_iter().map(Rewritten::parsed).collect()
        });
        let mut any_edit = false;
        let mut any_reset = false;
        let changed = rewritten.iter().filter(|r| r.file.is_some()).count();
        timing::note(|| format!("pass {pass}: {changed} of {file_count} files changed"));
        for (file_id, next) in rewritten.into_iter().enumerate() {
            if pass == 0 {
                backend_uses[file_id] = next.backend_uses;
            }
            if outcomes[file_id].error.is_some() {
                // Left unchanged: the original text, whatever earlier passes made of it
                // (parsed again where an earlier pass let its tree go).
                let original = &outcomes[file_id].original;
                if current[file_id].text != *original {
                    any_reset = true;
                    let file = &current[file_id];
                    current[file_id] = SourceFile::from_text(
                        file.path.clone(),
                        file.display.clone(),
                        original.clone(),
                        file.package,
                        file.edition,
                    )
                    .in_scope(file.scope.clone())
                    .with_dependency_names(file.dependency_names.clone());
                }
            } else if let Some(text) = next.file {
                current[file_id] = text;
                pass_edits[file_id].push(next.edits);
                any_edit = true;
            }
        }
        if !any_edit {
            // The pass read `current` as it now is, unless it put a file back.
            fixed_point = (!any_reset).then_some(LastPass { index, reusable });
            break;
        }
        if pass + 1 == MAX_PASSES {
            return Err(Error::Internal(format!(
                "rules still changed the code after {MAX_PASSES} passes"
            )));
        }
    }

    outcomes
        .par_iter_mut()
        .zip(current.par_iter().zip(&syntax_errors_before))
        .for_each(|(outcome, (current, &errors_before))| {
            if outcome.error.is_some() {
                return;
            }
            // `from_text` counted the rewritten text's syntax errors already.
            let errors = current.syntax_errors;
            if errors > errors_before {
                outcome.error = Some(format!(
                    "left unchanged: the rewrite would not parse ({errors} syntax errors, {errors_before} before); a bug in burn-migrate, please report it"
                ));
                return;
            }
            outcome.migrated = current.text.to_string();
        });
    // Uses of a removed backend parameter that no rule rewrote or reported.
    outcomes
        .par_iter_mut()
        .zip(current.par_iter())
        .zip(backend_uses.par_iter().zip(pass_edits.par_iter()))
        .for_each(|((outcome, current), (uses, passes))| {
            if outcome.error.is_some() || uses.is_empty() {
                return;
            }
            let found = dangling::findings(uses, &outcome.changes, passes, current);
            let found = crate::migrate::suppress::apply(found, &mut outcome.suppressions);
            outcome.changes.extend(found);
        });
    let ported = Ported {
        files: current,
        last_pass: fixed_point,
    };
    Ok((outcomes, ported))
}

/// A file that does not parse is left as it is: rules cannot know what its broken part
/// means. Its first syntax error is reported, so the person can fix it and run again; so is
/// the place where a file nests too deep to parse (`source::MAX_NESTING`).
fn leave_unparsable(files: &[SourceFile], outcomes: &mut [FileOutcome]) {
    for (file, outcome) in files.iter().zip(outcomes) {
        let Some(failure) = file.first_syntax_error() else {
            continue;
        };
        let source::SyntaxFailure {
            line,
            column,
            message,
            too_deep,
        } = failure;
        let place = format!("{}:{line}:{column}", file.display);
        outcome.error = Some(if too_deep {
            format!(
                "left unchanged: it does not parse ({place}: {message}); take the inner levels out into `let` bindings or functions, or port this file by hand, and run again"
            )
        } else {
            format!(
                "left unchanged: it does not parse ({place}: {message}); fix the syntax error and run again"
            )
        });
        outcome.migrated = outcome.original.to_string();
    }
}

/// The outcome of `file` before any pass: its text unchanged, nothing found.
fn unchanged_outcome(file: &SourceFile) -> FileOutcome {
    FileOutcome {
        path: file.path.clone(),
        display: file.display.clone(),
        original: file.text.clone(),
        migrated: file.text.to_string(),
        changes: Vec::new(),
        error: None,
        device_choices: Vec::new(),
        suppressions: crate::migrate::suppress::find(file),
        port_findings: None,
        bom: file.bom,
    }
}

/// What one pass made of one file.
#[derive(Default)]
struct Rewritten {
    /// The rewritten text, if the pass changed the file.
    text: Option<String>,
    /// The rewritten file, parsed (`parsed`).
    file: Option<SourceFile>,
    /// What the rewritten file keeps of the file the pass read: path, display name, package,
    /// edition, scope, the package's names for Burn's crates.
    #[allow(clippy::type_complexity)]
    read: Option<(
        PathBuf,
        String,
        usize,
        ra_ap_syntax::Edition,
        Option<std::sync::Arc<Path>>,
        DependencyNamesOf,
    )>,
    /// What the pass replaced in the text it read, and the length put in (`edit::applied_ranges`).
    edits: Vec<(ra_ap_syntax::TextRange, usize)>,
    /// The items of the tree the pass read that the parse of the rewritten text reuses (found
    /// once the pass is done, if a parse follows).
    untouched: source::Untouched,
    /// In the first pass: the uses of backend parameters (for the `dangling` check).
    backend_uses: Vec<dangling::Use>,
    /// What a later run of the steps over the file may take, if the pass changed nothing.
    reusable: transforms::Reusable,
}

/// One pass of the rules over one file: records the first pass's findings in `outcome` and
/// returns the rewritten file, if the pass changed it.
/// `ctx` holds the changes of the file's doc tests (`doc_test_changes`) already. The steps
/// take the outputs `reuse` holds; with `keep`, what they leave for reuse comes back where
/// the pass changes nothing.
fn rewrite_file(
    pass: usize,
    mut ctx: FileCtx,
    rules: &RuleSet,
    file: &SourceFile,
    outcome: &mut FileOutcome,
    reuse: transforms::Reusable,
    keep: bool,
) -> Result<Rewritten, Error> {
    if outcome.error.is_some() {
        return Ok(Rewritten::default());
    }
    // The uses of backend parameters read the file as read, whatever the steps find: on a
    // large file this thread collects them while others run steps.
    let find_uses = pass == 0 && !ctx.migrated();
    let (reusable, backend_uses) = transforms::run_all_reusing(&mut ctx, reuse, keep, |ctx| {
        if find_uses {
            dangling::uses(ctx)
        } else {
            Vec::new()
        }
    })?;
    if pass == 0 {
        outcome.device_choices = std::mem::take(&mut ctx.device_choices);
    }
    let changes = if pass == 0 {
        crate::migrate::suppress::apply(ctx.changes, &mut outcome.suppressions)
    } else {
        // Later passes see rewritten text: suppressed sites keep their original form,
        // so a rule that skipped them in the first pass finds them again; keep the
        // first pass's decision by suppressing the same rules by comment again.
        let mut again = crate::migrate::suppress::find(file);
        crate::migrate::suppress::apply(ctx.changes, &mut again)
    };
    for change in &changes {
        rules.rule(change.rule)?;
    }
    let changes = moot::drop_moot_findings(changes, rules, &file.text);
    if pass == 0 {
        outcome.changes = changes.clone();
    }
    let applicable: Vec<Change> = changes
        .into_iter()
        .filter(|c| is_applied(c, rules))
        .collect();
    let edits = match edit::normalize(applicable) {
        Ok(edits) => edits,
        Err(overlap) => {
            outcome.error = Some(format!(
                "left unchanged: {overlap} (a bug in burn-migrate; please report it)"
            ));
            return Ok(Rewritten::default());
        }
    };
    let unchanged = Rewritten {
        backend_uses,
        reusable,
        ..Rewritten::default()
    };
    if edits.is_empty() {
        return Ok(unchanged);
    }
    let text = edit::apply(&file.text, &edits);
    if *text == *file.text {
        return Ok(unchanged);
    }
    let applied = edit::applied_ranges(&file.text, &edits);
    Ok(Rewritten {
        text: Some(text),
        file: None,
        read: Some((
            file.path.clone(),
            file.display.clone(),
            file.package,
            file.edition,
            file.scope.clone(),
            file.dependency_names.clone(),
        )),
        edits: applied,
        untouched: source::Untouched::default(),
        backend_uses: unchanged.backend_uses,
        reusable: transforms::Reusable::default(),
    })
}

impl Rewritten {
    /// With the rewritten text parsed, for the next pass (the costly part of a pass that
    /// changed a file, left out when `--check` needs no next pass).
    fn parsed(mut self) -> Self {
        if let (Some(text), Some((path, display, package, edition, scope, names))) =
            (self.text.take(), self.read.take())
        {
            self.file = Some(
                SourceFile::from_edited_text(
                    path,
                    display,
                    text,
                    package,
                    edition,
                    std::mem::take(&mut self.untouched),
                    &self.edits,
                )
                .in_scope(scope)
                .with_dependency_names(names),
            );
        }
        self
    }
}

/// Whether code names `path` (`burn::train::RLTraining`): written out, or its last segment as
/// a word in a file that names the module (`use burn::train::{RLTraining, ..}`).
fn names_path(text: &str, path: &str) -> bool {
    // `nd::`: a path through the crate the package calls `nd`, which a longer name ending
    // in it (`and::`) is not.
    if let Some(krate) = path.strip_suffix("::").filter(|k| !k.contains("::")) {
        return crate::util::syntax::word_offsets(text, krate)
            .any(|at| text[at + krate.len()..].starts_with("::"));
    }
    if text.contains(path) {
        return true;
    }
    let Some((module, name)) = path.rsplit_once("::") else {
        return false;
    };
    text.contains(&format!("{module}::"))
        && crate::util::syntax::word_offsets(text, name)
            .next()
            .is_some()
}

fn rewrite_manifests(
    workspace: &Workspace,
    rules: &RuleSet,
    sources: &[FileOutcome],
) -> Vec<ManifestOutcome> {
    let maps: Vec<_> = rules.feature_maps().cloned().collect();
    let adds: Vec<_> = rules.feature_adds().cloned().collect();
    let backend_crates = rules.backend_table().crate_features();
    // What a package's ported code names decides which features its manifest needs (one
    // member's `linalg` is no other member's business); a workspace root's, what the whole
    // workspace's code names. Each question is answered once per manifest.
    // A package's files, found once: a package asks dozens of questions, each of which would
    // otherwise walk every file of the workspace.
    let mut files_of_package: Vec<Vec<usize>> = vec![Vec::new(); workspace.packages.len()];
    for (i, file) in workspace.files.iter().enumerate() {
        if let Some(files) = files_of_package.get_mut(file.package) {
            files.push(i);
        }
    }
    let mut paths: Vec<PathBuf> = workspace
        .packages
        .iter()
        .filter(|p| p.uses_burn)
        .map(|p| p.manifest.clone())
        .collect();
    if !paths.contains(&workspace.root_manifest) && workspace.root_manifest.is_file() {
        paths.push(workspace.root_manifest.clone());
    }
    // Manifests are migrated in parallel: each asks its own questions of its own files.
    paths
        .into_par_iter()
        .map(|path| {
            let display = path
                .strip_prefix(&workspace.root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let original = std::fs::read_to_string(&path).unwrap_or_default();
            // A package's manifest answers for its own code; one with `[workspace]` also
            // declares what every member inherits (a backend crate a member still names
            // stays there), so it answers for all of it.
            let declares_workspace = original
                .parse::<toml_edit::DocumentMut>()
                .is_ok_and(|doc| doc.contains_key("workspace"));
            let package = workspace
                .packages
                .iter()
                .position(|p| p.manifest == path)
                .filter(|_| !declares_workspace);
            let answers: RefCell<HashMap<String, bool>> = RefCell::new(HashMap::new());
            // A path of Burn's (`burn::optim`, or a crate: `burn_ndarray`) as each file
            // writes it too (`nn::optim`, `nd::` where its package calls the crates so).
            let names_in = |file: usize, needle: &str| {
                let text = &sources[file].migrated;
                if names_path(text, needle) {
                    return true;
                }
                let krate = needle.split("::").next().unwrap_or(needle);
                let rest = &needle[krate.len()..];
                let names = &workspace.files[file].dependency_names;
                (names.keys_of(krate).filter(|key| key != &krate)).any(|key| {
                    let local = if rest.is_empty() {
                        format!("{key}::")
                    } else {
                        format!("{key}{rest}")
                    };
                    names_path(text, &local)
                })
            };
            let code_uses = |needle: &str| {
                *(answers.borrow_mut())
                    .entry(needle.to_string())
                    .or_insert_with(|| match package {
                        Some(p) => (files_of_package.get(p).into_iter().flatten())
                            .any(|&f| names_in(f, needle)),
                        None => (0..sources.len())
                            .into_par_iter()
                            .any(|f| names_in(f, needle)),
                    })
            };
            let renamed = workspace.renamed_dependencies(&path);
            let features = manifest::FeatureRules {
                maps: &maps,
                adds: &adds,
                backend_crates: &backend_crates,
                code_uses: &code_uses,
                renamed: &renamed,
            };
            match manifest::migrate(&original, &features) {
                Ok(result) => ManifestOutcome {
                    path,
                    display,
                    migrated: layout::keep_layout(&original, result.text),
                    original,
                    changes: result.changes,
                    error: None,
                },
                Err(syntax) => ManifestOutcome {
                    path,
                    display,
                    migrated: original.clone(),
                    original,
                    changes: Vec::new(),
                    error: Some(syntax.to_string()),
                },
            }
        })
        .collect()
}

/// Migrates one piece of Rust text on its own, as a one-file 0.21 project: for rule examples
/// and tests.
pub fn migrate_text(text: &str, rules: &RuleSet) -> Result<FileOutcome, Error> {
    let file = SourceFile::from_text(
        PathBuf::from("example.rs"),
        "example.rs".to_string(),
        text.to_string(),
        0,
        ra_ap_syntax::Edition::Edition2021,
    );
    let mut outcomes = rewrite_sources(&[file], rules, false, Passes::ToFixedPoint)?;
    outcomes
        .pop()
        .ok_or_else(|| Error::Internal("no outcome for the example".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;
    use ra_ap_syntax::{AstNode, Edition, TextRange, TextSize};

    /// The parse of a rewritten file that takes the items no edit touched from the old tree
    /// is the parse of the whole new text: on every source file of the test projects, with
    /// the first pass's own edits.
    #[test]
    fn parse_reusing_untouched_items_is_the_whole_parse() {
        let rules = RuleSet::embedded().unwrap();
        let projects = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/projects");
        let edition = Edition::Edition2021;
        let (mut rewritten, mut reused) = (0, 0);
        for path in crate::util::files::rust_files(projects.as_ref(), true) {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = SourceFile::from_text(path.clone(), "src/lib.rs".into(), text, 0, edition);
            let index = Index::build(std::slice::from_ref(&file), &rules);
            let ctx = FileCtx::new(&index, &rules, 0, &file, false);
            let mut outcome = unchanged_outcome(&file);
            let reuse = transforms::Reusable::default();
            let next = rewrite_file(0, ctx, &rules, &file, &mut outcome, reuse, false).unwrap();
            let Some(text) = next.text else {
                continue;
            };
            rewritten += 1;
            let whole =
                SourceFile::from_text(path.clone(), String::new(), text.clone(), 0, edition);
            let untouched = file.untouched_items(&next.edits);
            if let Some(green) = source::parse_reusing(&text, edition, untouched, &next.edits) {
                reused += 1;
                assert_eq!(whole.syntax_errors, 0, "{}", path.display());
                assert!(
                    green == whole.tree().syntax().green().to_owned(),
                    "{}: the trees differ",
                    path.display()
                );
            }
        }
        // Most rewritten files keep an item or more.
        assert!(
            rewritten > 20 && reused * 2 > rewritten,
            "{reused} of {rewritten} reused"
        );
    }

    /// The port kept one of two findings of a rule (the second) and lost the first: the marker
    /// names the lost one, not the one the port still shows.
    #[test]
    fn the_marker_names_the_finding_the_port_lost() {
        let rules = RuleSet::embedded().unwrap();
        let rule = RuleId::BackendExtensionTrait;
        let text = "use a::Lost;\nfn f() {}\nimpl Kept for X {}\n";
        let at = |needle: &str| {
            let start = TextSize::from(text.find(needle).unwrap() as u32);
            TextRange::at(start, TextSize::from(needle.len() as u32))
        };
        let outcome = |changes| FileOutcome {
            path: PathBuf::from("lib.rs"),
            display: "lib.rs".into(),
            original: text.into(),
            migrated: text.into(),
            changes,
            error: None,
            device_choices: Vec::new(),
            suppressions: Vec::new(),
            port_findings: None,
            bom: false,
        };
        let mut ported = outcome(vec![
            Change::manual(at("use a::Lost;"), rule, "lost import"),
            Change::manual(at("impl Kept for X {}"), rule, "kept impl"),
        ]);
        let rechecked = outcome(vec![Change::manual(
            at("impl Kept for X {}"),
            rule,
            "kept impl",
        )]);
        add_missing_markers(&mut ported, &rechecked, Edition::Edition2021, &rules);
        assert!(
            ported.migrated.starts_with(&format!(
                "// {}\nuse a::Lost;",
                markers::text(rule.into(), "lost import")
            )),
            "{}",
            ported.migrated
        );
        assert!(
            !ported.migrated.contains("kept impl"),
            "{}",
            ported.migrated
        );
    }

    #[test]
    fn a_path_is_named_written_out_or_by_its_module_and_name() {
        let path = "burn::train::RLTraining";
        assert!(names_path("let t = burn::train::RLTraining::new();", path));
        assert!(names_path("use burn::train::{Learner, RLTraining};", path));
        assert!(!names_path(
            "use burn::train::{Learner, RLTrainingExt};",
            path
        ));
        assert!(!names_path("use other::RLTraining;", path));
    }
}
