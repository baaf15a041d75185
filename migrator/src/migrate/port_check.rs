//! The check of the port: what `--apply` leaves for a person, `--check` on the written port
//! must still list. The ported workspace is checked as 0.22 code (in memory); a manual
//! finding that check no longer sees (its site went with the backend parameter, say) gets a
//! to-do marker (`markers`) in the port, and each file's outcome learns what `--check` will
//! list in it (`FileOutcome::port_findings`).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::edit::Change;
use crate::error::Error;
use crate::migrate::line_map;
use crate::migrate::markers;
use crate::migrate::outcome::{FileOutcome, Report};
use crate::migrate::rewrite::{self, Passes, Ported};
use crate::migrate::source::{CodeTarget, SourceFile};
use crate::rules::{RuleKey, RuleSet};
use crate::util::lines::LineIndex;

/// What `--apply` leaves for a person, `--check` on the port must still list. Checks the
/// ported workspace as 0.22 code (in memory) and, for each manual finding of a changed file
/// that the check no longer sees (its site went with the backend parameter, say), writes a
/// to-do marker (`markers`) above the line where the site now is.
pub fn keep_findings_visible(
    report: &mut Report,
    files: &[SourceFile],
    parsed: Ported,
    rules: &RuleSet,
) -> Result<(), Error> {
    let manual = |c: &&Change| !c.is_applied();
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
            f.with_text(o.migrated.clone())
        })
        .collect();
    let (rechecked, _) = rewrite::rewrite_sources_parsed(
        ported,
        rules,
        CodeTarget::Burn022,
        Passes::AsFindingsNeed,
        last_pass,
    )?;
    (report.files.par_iter_mut().zip(&rechecked).zip(files)).for_each(
        |((outcome, rechecked), file)| {
            if candidate(outcome) {
                add_missing_markers(outcome, rechecked, file.edition, rules);
            }
            if outcome.error.is_none() {
                let findings = port_findings(outcome, rechecked, file.edition, rules);
                outcome.port_findings = Some(findings);
            }
        },
    );
    Ok(())
}

/// What `--check` will list in `outcome`'s port once written: the manual findings of the
/// check of the port (`rechecked`, made on the port before its to-do markers went in, so
/// moved down by the lines they added) and a finding per marker, as `markers::findings` makes
/// them from the text on disk. A marker over code left to a person holds the findings inside
/// it, as the check of the written port sees (`transforms::fold_into_marked_items`).
fn port_findings(
    outcome: &FileOutcome,
    rechecked: &FileOutcome,
    edition: ra_ap_syntax::Edition,
    rules: &RuleSet,
) -> Vec<Change> {
    let checked: &str = &rechecked.original;
    let written = outcome.migrated.as_str();
    let mut out: Vec<Change> = rechecked
        .changes
        .iter()
        .filter(|c| !c.is_applied())
        .cloned()
        .collect();
    if checked != written {
        // Markers add whole lines.
        line_map::LinesMoved::new(checked, written).apply(&mut out);
    }
    crate::migrate::transforms::fold_into_marked_items(&mut out, written, edition);
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
    let manual = |c: &&Change| !c.is_applied();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;
    use ra_ap_syntax::{Edition, TextRange, TextSize};
    use std::path::PathBuf;

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
}
