//! Findings that need nobody's attention once the port is made: those inside text an applied
//! edit rewrites whole.

use ra_ap_syntax::{ast, AstNode};

use std::collections::HashMap;

use crate::edit::Change;
use crate::migrate::source::SourceFile;
use crate::migrate::transforms;
use crate::rules::RuleKey;

/// A finding inside text that an applied edit rewrites whole (a recorder argument that
/// `save_file`'s rewrite drops, say) needs nobody's attention.
/// A finding in an import that the port rewrites whole (`use burn::{backend::Wgpu, tensor::
/// TensorPrimitive}` without its backend part) stays when its name survives in the new import.
pub fn drop_moot_findings(changes: Vec<Change>, file: &SourceFile) -> Vec<Change> {
    let text = &*file.text;
    let root = file.tree();
    let mut edited: Vec<(ra_ap_syntax::TextRange, &str)> = changes
        .iter()
        .filter(|c| !c.range.is_empty() && c.is_applied())
        .map(|c| (c.range, c.replacement().unwrap_or_default()))
        .collect();
    // By start, with the furthest end so far: a finding no edit starting at or before it
    // reaches past is inside none, found without looking at each edit (a large file has
    // tens of thousands of edits and thousands of findings).
    edited.sort_by_key(|(range, _)| range.start());
    let furthest_end: Vec<ra_ap_syntax::TextSize> = (edited.iter())
        .scan(ra_ap_syntax::TextSize::from(0), |end, (range, _)| {
            *end = (*end).max(range.end());
            Some(*end)
        })
        .collect();
    let may_be_inside_an_edit = |range: ra_ap_syntax::TextRange| {
        let starting_before = edited.partition_point(|(edit, _)| edit.start() <= range.start());
        starting_before > 0 && furthest_end[starting_before - 1] >= range.end()
    };
    let survives = |finding: &Change, (range, replacement): &(ra_ap_syntax::TextRange, &str)| {
        // The edit starts inside a `use` item, wherever the item is written.
        let an_import = root
            .syntax()
            .token_at_offset(range.start())
            .right_biased()
            .is_some_and(|token| {
                token
                    .parent_ancestors()
                    .any(|node| ast::Use::can_cast(node.kind()))
            });
        let name = text.get(usize::from(finding.range.start())..usize::from(finding.range.end()));
        an_import && name.is_some_and(|n| !n.is_empty() && replacement.contains(n))
    };
    let kept: Vec<Change> = changes
        .iter()
        .filter(|c| {
            c.fix.is_some()
                || transforms::findings_outlive_edits(c.rule)
                || !may_be_inside_an_edit(c.range)
                || !edited.iter().any(|edit| {
                    edit.0 != c.range && edit.0.contains_range(c.range) && !survives(c, edit)
                })
        })
        .cloned()
        .collect();
    drop_findings_inside_their_rules_own(kept, &root)
}

/// A finding for a person inside another of the same rule is part of that one's site
/// (`NamedMpkFileRecorder::<FullPrecisionSettings>::new`, both removed recorder types; the
/// graphics API of an `init_setup::<AutoGraphicsApi>` call): whoever rewrites the outer text
/// rewrites it. A finding over a whole item (an impl a person ports by hand) holds no other
/// site this way: the item's own findings are the steps of its port, which the item's rule
/// names (`FileCtx::hands_off`).
fn drop_findings_inside_their_rules_own(
    changes: Vec<Change>,
    root: &ast::SourceFile,
) -> Vec<Change> {
    let is_an_item = |range: ra_ap_syntax::TextRange| {
        crate::util::syntax::node_spanning(root.syntax(), range)
            .is_some_and(|node| ast::Item::can_cast(node.kind()))
    };
    // Per rule, by start: the findings that may hold one start at or before it, and unless the
    // furthest end among them reaches its end none does (found without looking at each: a
    // large file has thousands of findings of one rule).
    let mut by_rule: HashMap<RuleKey, Vec<ra_ap_syntax::TextRange>> = HashMap::new();
    for c in changes
        .iter()
        .filter(|c| c.fix.is_none() && !c.range.is_empty())
    {
        by_rule.entry(c.rule).or_default().push(c.range);
    }
    if by_rule.values().all(|ranges| ranges.len() < 2) {
        return changes;
    }
    let by_rule: HashMap<RuleKey, (Vec<ra_ap_syntax::TextRange>, Vec<ra_ap_syntax::TextSize>)> =
        (by_rule.into_iter())
            .map(|(rule, mut ranges)| {
                ranges.sort_by_key(|r| r.start());
                let furthest_end = (ranges.iter())
                    .scan(ra_ap_syntax::TextSize::from(0), |end, r| {
                        *end = (*end).max(r.end());
                        Some(*end)
                    })
                    .collect();
                (rule, (ranges, furthest_end))
            })
            .collect();
    let held = |c: &Change| {
        let Some((ranges, furthest_end)) = by_rule.get(&c.rule) else {
            return false;
        };
        let starting_before = ranges.partition_point(|o| o.start() <= c.range.start());
        starting_before > 0
            && furthest_end[starting_before - 1] >= c.range.end()
            && ranges[..starting_before]
                .iter()
                .any(|&o| o != c.range && o.contains_range(c.range) && !is_an_item(o))
    };
    (changes.iter())
        .filter(|c| c.fix.is_some() || !held(c))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;
    use ra_ap_syntax::TextRange;

    /// Outside imports a finding goes exactly where an applied edit other than itself holds
    /// it, or another finding of its rule does: checked against every edit and finding, on
    /// edits and findings of pseudo-random ranges (nested, overlapping, empty, shared starts)
    /// over text without a `use` or an item.
    #[test]
    fn findings_inside_applied_edits_go() {
        let text = "x".repeat(400);
        let mut numbers = crate::util::test_random::numbers(7);
        let mut next = |below: u32| numbers(below as usize) as u32;
        let range = |next: &mut dyn FnMut(u32) -> u32| {
            let start = next(380);
            TextRange::at(start.into(), next(40).into())
        };
        let mut changes = Vec::new();
        for _ in 0..300 {
            let edit = Change::edit(range(&mut next), "y", RuleId::BackendGenericParam, "edit");
            let kept = Change::edit(
                range(&mut next),
                "z",
                RuleId::BackendExtensionTrait,
                "manual edit",
            );
            let finding =
                Change::manual(range(&mut next), RuleId::BackendExtensionTrait, "finding");
            changes.extend([edit, kept, finding]);
        }
        assert!(changes[0].is_applied() && !changes[1].is_applied());
        let edits: Vec<TextRange> = (changes.iter())
            .filter(|c| !c.range.is_empty() && c.is_applied())
            .map(|c| c.range)
            .collect();
        let outside_edits: Vec<Change> = (changes.iter())
            .filter(|c| {
                c.fix.is_some()
                    || !edits
                        .iter()
                        .any(|&e| e != c.range && e.contains_range(c.range))
            })
            .cloned()
            .collect();
        // Nor inside another finding of its rule (every finding here is of one rule).
        let expected: Vec<Change> = (outside_edits.iter())
            .filter(|c| {
                c.fix.is_some()
                    || !outside_edits.iter().any(|o| {
                        o.fix.is_none()
                            && !o.range.is_empty()
                            && o.range != c.range
                            && o.range.contains_range(c.range)
                    })
            })
            .cloned()
            .collect();
        let findings_left = expected.iter().filter(|c| c.fix.is_none()).count();
        assert!(
            findings_left > 20 && findings_left < 280,
            "{findings_left} of 300 left"
        );
        let file = SourceFile::from_text(
            "x.rs".into(),
            "x.rs".to_string(),
            text,
            0,
            ra_ap_syntax::Edition::Edition2021,
        );
        assert_eq!(drop_moot_findings(changes, &file), expected);
    }
}
