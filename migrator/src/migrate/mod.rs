//! The migrate wing, and its driver: discover -> parse -> index -> rewrite (to a fixed point)
//! -> validate. Produces a `Report`; printing it is the report wing's job. This file only
//! drives the stages; what each does, and every rule, is in a module of its own.
//!
//! Stages, one module each: [`discover`] (cargo metadata, module files; [`includes`] for the
//! files `include!` pulls in), [`source`] (lossless parsing), [`index`] (workspace-wide
//! facts), `rewrite` (the passes to a fixed point), [`transforms`] (rules to edits, a file
//! each), [`doc_tests`] (doc-comment code blocks, ported as files of their own), `dangling`
//! (after the fixed point: uses of a removed backend parameter no rule rewrote), `moot`
//! (findings inside rewritten text), [`suppress`] (allow comments), `manifests` and
//! [`manifest`] (Cargo.toml; [`burn_patches`] for `[patch]` entries of Burn crates,
//! [`rust_version`] for the toolchain, `device_features`, [`old_burn_deps`]), [`markers`]
//! (to-do markers) and `port_check` (what `--check` lists in the written port), [`lockfile`]
//! (Cargo.lock), [`write`] (the transactional `--apply`). [`homes`] says where each rule's
//! code is; [`config`] reads the project's settings (the rules that run, the device choices),
//! which the driver applies at the end (`keep_selected_packages`, `keep_selected_rules`) as
//! the rewrite does to edits.

pub mod burn_patches;
pub mod config;
mod crate_backends;
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
mod manifests;
pub mod markers;
mod module_cfgs;
mod moot;
pub mod old_burn_deps;
mod outcome;
mod port_check;
pub mod recorder_wrappers;
pub mod records;
mod rewrite;
pub mod rust_version;
pub mod scope;
pub mod source;
pub mod suppress;
mod toml_entries;
pub mod transforms;
pub mod write;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::Error;
use crate::rules::{RuleKey, RuleSet};
use crate::util::layout;
use crate::util::timing::time;
use source::SourceFile;

pub use source::CodeTarget;

pub use outcome::{FileOutcome, ManifestChange, ManifestOutcome, Report};
pub use rewrite::{rewrite_sources, Passes};

/// Ports the workspace at `path` in memory: findings, and the text `--apply` writes.
pub fn run(path: &Path, rules: &RuleSet) -> Result<Report, Error> {
    run_as(path, rules, Output::Port)
}

/// What a run is for: the findings only (`--check`), or the port's text too (`--diff`,
/// `--apply`), which needs one more look at the port (`port_check`).
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
        uses_burn: (workspace.packages.iter().enumerate())
            .any(|(i, p)| p.uses_burn && workspace.is_selected(i)),
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
    let target = match report.already_migrated {
        true => CodeTarget::Burn022,
        false => CodeTarget::Burn021,
    };
    let (files, ported) = time("rewrite", || {
        rewrite::rewrite_sources_parsed(sources, rules, target, passes, None)
    })?;
    report.files = files;
    rewrite::leave_unparsable(&workspace.files, &mut report.files);
    report.manifests = time("manifests", || {
        manifests::rewrite_manifests(&workspace, rules, &report.files)
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
                port_check::keep_findings_visible(&mut report, &workspace.files, ported, rules)
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
    keep_selected_packages(&mut report, &workspace);
    keep_selected_rules(&mut report, rules, output);
    Ok(report)
}

/// With `-p`: the files and manifests of the selected packages only (the workspace root's
/// manifest where its package is selected). The whole workspace was read and ported, so that
/// what one package knows of another (a generic item it imports) holds; what is reported and
/// written is the selected packages'.
fn keep_selected_packages(report: &mut Report, workspace: &discover::Workspace) {
    if workspace.selected.is_none() {
        return;
    }
    // `report.files` are the outcomes of `workspace.files`, in order.
    let mut packages = workspace.files.iter().map(|f| f.package);
    report
        .files
        .retain(|_| packages.next().is_some_and(|p| workspace.is_selected(p)));
    let manifests: Vec<&Path> = (workspace.packages.iter().enumerate())
        .filter(|(i, _)| workspace.is_selected(*i))
        .map(|(_, p)| p.manifest.as_path())
        .collect();
    // The workspace's own files (its root manifest, a `rust-toolchain` pin) belong to no
    // selected package; where the port changes them, the person hears what is left.
    let mut left_out = Vec::new();
    report.manifests.retain(|m| {
        let kept = manifests.contains(&m.path.as_path());
        let owned_by_a_package = workspace.packages.iter().any(|p| p.manifest == m.path);
        if !kept && !owned_by_a_package && (m.migrated != m.original || !m.changes.is_empty()) {
            left_out.push(m.display.clone());
        }
        kept
    });
    if !left_out.is_empty() {
        report.notes.push(format!(
            "-p leaves out {}, which the port changes and no selected package owns (members that inherit `burn` from `[workspace.dependencies]` build against it): port them with a run without -p",
            left_out.join(", ")
        ));
    }
}

/// With `--select`/`--ignore`: the findings of the selected rules only. Their source edits
/// were left out as the rewrite ran (`rewrite`); a manifest is ported as a whole, so the
/// edits of a rule left out stay in it, which the port says (`output`: only where there is a
/// port to write).
fn keep_selected_rules(report: &mut Report, rules: &RuleSet, output: Output) {
    let selected = |rule: RuleKey| rules.is_selected(rule);
    for file in &mut report.files {
        file.changes.retain(|c| selected(c.rule));
        if let Some(found) = &mut file.port_findings {
            found.retain(|c| selected(c.rule));
        }
    }
    let mut kept_anyway = Vec::new();
    for manifest in &mut report.manifests {
        for change in manifest.changes.iter().filter(|c| !selected(c.rule)) {
            if change.is_applied() && output == Output::Port {
                kept_anyway.push(format!("{} (`{}`)", manifest.display, change.rule));
            }
        }
        manifest.changes.retain(|c| selected(c.rule));
    }
    kept_anyway.dedup();
    if !kept_anyway.is_empty() {
        report.notes.push(format!(
            "rules left out by --select/--ignore still edit manifests, which are ported whole: {}; undo those edits by hand if you do not want them",
            kept_anyway.join(", ")
        ));
    }
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
    let mut outcomes = rewrite_sources(&[file], rules, CodeTarget::Burn021, Passes::ToFixedPoint)?;
    outcomes
        .pop()
        .ok_or_else(|| Error::Internal("no outcome for the example".to_string()))
}
