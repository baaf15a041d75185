//! The safety net after the rewrite: a use of a backend parameter that the port removes must
//! be removed or rewritten by some rule, or reported by one. A use that survives every pass
//! while its parameter is gone would not compile, so it becomes a finding of
//! `dangling-backend-param` at its place in the original file.
//!
//! Cheap by construction: the candidates are collected in the first pass, where the index
//! proves which parameters are backends; afterwards each candidate is only followed through
//! the edits of every pass and looked up once in the rewritten tree.

use ra_ap_syntax::ast::{self, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, TextRange, TextSize};

use crate::edit::Change;
use crate::migrate::source::SourceFile;
use crate::migrate::transforms::FileCtx;
use crate::rules::{ModuleId, RuleHome, RuleId};
use crate::util::syntax::prev_significant;

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::Dangling,
    emits: &[RuleId::DanglingBackendParam],
};

/// A use of a backend parameter in the original text: where, and its name.
#[derive(Debug, Clone)]
pub struct Use {
    pub range: TextRange,
    pub name: String,
    /// A backend type (`Flex`, an alias the port deletes) named in macro input rather than a
    /// parameter: it goes with its import or alias, whatever the scope declares.
    pub backend_type: bool,
    /// The type parameters of that name declared around the use, in the original text.
    pub declarations: Vec<TextRange>,
}

/// The type parameters named `name` that the items around `node` declare.
fn declarations_around(node: &ra_ap_syntax::SyntaxNode, name: &str) -> Vec<TextRange> {
    node.ancestors()
        .filter_map(ast::AnyHasGenericParams::cast)
        .filter_map(|owner| owner.generic_param_list())
        .flat_map(|list| list.generic_params())
        .filter_map(|p| match p {
            ast::GenericParam::TypeParam(t) if t.name().is_some_and(|n| n.text() == name) => {
                Some(t.syntax().text_range())
            }
            _ => None,
        })
        .collect()
}

/// Whether, after the first pass alone, a use may outlive its parameter: it is neither
/// rewritten nor reported by that pass, and every declaration of its parameter went (or it is
/// a backend type in macro input). When no use of any file may, later passes cannot make one
/// dangle without removing a parameter the first pass kept, and `--check` (whose findings
/// are the first pass's) needs no further pass. `edits`: what the first pass replaced.
pub fn may_dangle(uses: &[Use], recorded: &[Change], edits: &[(TextRange, usize)]) -> bool {
    if uses.is_empty() {
        return false;
    }
    let cover = Cover::new(
        recorded
            .iter()
            .map(|c| c.range)
            .chain(edits.iter().map(|(r, _)| *r)),
    );
    uses.iter().any(|u| {
        !cover.contains(u.range)
            && (u.backend_type || u.declarations.iter().all(|d| cover.contains(*d)))
    })
}

/// Non-empty ranges, asked whether one of them contains a given range: sorted by start, with
/// the furthest end so far, so that a large file's thousands of uses and changes are not
/// compared pairwise.
struct Cover {
    /// (start, furthest end of the ranges up to this one), by start.
    starts: Vec<(TextSize, TextSize)>,
}

impl Cover {
    fn new(ranges: impl Iterator<Item = TextRange>) -> Cover {
        let mut ranges: Vec<TextRange> = ranges.filter(|r| !r.is_empty()).collect();
        ranges.sort_unstable_by_key(|r| r.start());
        let starts = ranges
            .iter()
            .scan(TextSize::from(0), |furthest, r| {
                *furthest = r.end().max(*furthest);
                Some((r.start(), *furthest))
            })
            .collect();
        Cover { starts }
    }

    /// Whether a range starts at or before `range` and ends at or after it.
    fn contains(&self, range: TextRange) -> bool {
        let before = self
            .starts
            .partition_point(|(start, _)| *start <= range.start());
        before > 0 && self.starts[before - 1].1 >= range.end()
    }
}

/// Every path that starts with a backend parameter in scope (`B`, `B::FloatElem`,
/// `<B as Backend>::IntElem`, `helper::<B>`), imports aside, and every identifier naming one
/// in a macro's arguments (`format!("{}", type_name::<B>())`), which are not parsed as paths.
pub fn uses(ctx: &FileCtx) -> Vec<Use> {
    let mut out = macro_uses(ctx);
    for path in ctx.nodes::<ast::Path>() {
        if path.qualifier().is_some() {
            continue;
        }
        let Some(name) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        // Cheap filter before the scope lookup: a backend parameter is a type parameter some
        // item of the file declares.
        let text = name.text().to_string();
        if !ctx.declares_type_param(&text) {
            continue;
        }
        if path
            .syntax()
            .ancestors()
            .any(|a| ast::Use::can_cast(a.kind()))
        {
            continue;
        }
        let scope = ctx.backends_in_scope(path.syntax());
        if scope.iter().any(|b| b.name == text) {
            out.push(Use {
                range: name.syntax().text_range(),
                declarations: declarations_around(path.syntax(), &text),
                name: text,
                backend_type: false,
            });
        }
    }
    out
}

fn macro_uses(ctx: &FileCtx) -> Vec<Use> {
    let mut out = Vec::new();
    for tree in ctx.nodes::<ast::TokenTree>() {
        // Only the outermost tree of a macro call; nested trees are its tokens' parents too.
        if tree
            .syntax()
            .parent()
            .is_some_and(|p| ast::TokenTree::can_cast(p.kind()))
        {
            continue;
        }
        let mut scope = None;
        let tokens: Vec<ra_ap_syntax::SyntaxToken> = (tree.syntax().descendants_with_tokens())
            .filter_map(|e| e.into_token())
            .collect();
        // An attribute's arguments: a procedural macro may read a type out of a string there.
        let attribute = (tree.syntax().parent()).is_some_and(|p| ast::Meta::can_cast(p.kind()));
        if attribute && !ctx.targets_0_22() {
            out.extend(
                tokens
                    .iter()
                    .flat_map(|token| backend_types_in_a_string(ctx, token)),
            );
        }
        for token in tokens.into_iter().filter(|t| t.kind() == SyntaxKind::IDENT) {
            let previous = prev_significant(&token);
            // `$B` in a `macro_rules!` body is a metavariable: whatever the call passes.
            if previous.as_ref().is_some_and(|p| p.text() == "$") {
                continue;
            }
            // `Letter::B`, `x.B` name something else; `burn::backend::Flex` is Burn's backend
            // type written out (`cfg_if! { .. start::<burn::backend::Flex>(..) .. }`).
            if previous.is_some_and(|p| matches!(p.text(), "::" | ":" | ".")) {
                if !ctx.targets_0_22() && names_burn_backend_type(ctx, &token) {
                    out.push(Use {
                        range: token.text_range(),
                        name: token.text().to_string(),
                        backend_type: true,
                        declarations: Vec::new(),
                    });
                }
                continue;
            }
            let scope = scope.get_or_insert_with(|| ctx.backends_in_scope(tree.syntax()));
            let parameter = scope.iter().any(|b| b.name == token.text());
            // `thread_local! { static S: RefCell<State<Flex>> = .. }`: the port removes the
            // import of `Flex` (or the alias), and nothing rewrites macro input.
            let backend_type = !parameter
                && !ctx.targets_0_22()
                && ctx.index.names_backend_type(ctx.file_id, token.text());
            if parameter || backend_type {
                out.push(Use {
                    range: token.text_range(),
                    name: token.text().to_string(),
                    backend_type,
                    declarations: declarations_around(tree.syntax(), token.text()),
                });
            }
        }
    }
    out
}

/// The backend types (aliases the port deletes, Burn's backend types the file imports) that
/// a string literal in an attribute's arguments names as a word: a procedural macro that
/// parses a type out of a string (`#[registry(server_type = "Server<InferenceBackend>")]`)
/// emits that name, which nothing rewrites. (Strings in `format!` and the like are text, and
/// so is a positional string in an attribute: test data.)
fn backend_types_in_a_string(ctx: &FileCtx, token: &ra_ap_syntax::SyntaxToken) -> Vec<Use> {
    // The value of a `name = ".."` pair (`server_type = "Server<B>"`, serde's `bound = ".."`),
    // not a positional string (`#[case("Server<B>")]` test data).
    if !crate::migrate::transforms::is_a_named_type_string(token, ctx.file.edition) {
        return Vec::new();
    }
    let text = token.text();
    let start = token.text_range().start();
    let mut out = Vec::new();
    let mut word_start = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let in_word = c.is_alphanumeric() || c == '_';
        match (in_word, word_start) {
            (true, None) => word_start = Some(at),
            (false, Some(from)) => {
                word_start = None;
                let word = &text[from..at];
                // Where a type names a type: alone, or as an argument (`<B>`, `(B, C)`, `&B`),
                // not a word of a label (`Flex (CPU)` parses as a type too).
                let before = text[..from].trim_end().chars().last();
                let after = text[at..].trim_start().chars().next();
                let placed = matches!(before, Some('"' | '<' | ',' | '&' | ':' | '('))
                    && matches!(after, Some('"' | '>' | ',' | ':' | ')'));
                let starts_a_name = placed && word.starts_with(|c: char| c.is_ascii_uppercase());
                // An alias with a definition per `cfg` branch (`alias_branches`) goes too.
                let branch_alias = ctx.index.alias_branches.contains_key(word)
                    && ctx.index.may_name_in_file(ctx.file_id, word);
                if starts_a_name
                    && (ctx.index.names_backend_type(ctx.file_id, word) || branch_alias)
                {
                    let offset = TextSize::from(u32::try_from(from).unwrap_or(u32::MAX));
                    out.push(Use {
                        range: TextRange::at(start + offset, TextSize::of(word)),
                        name: word.to_string(),
                        backend_type: true,
                        declarations: Vec::new(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether an identifier in macro input is a Burn backend type written out:
/// `burn::backend::Flex`, `burn::backend::Autodiff`.
fn names_burn_backend_type(ctx: &FileCtx, token: &ra_ap_syntax::SyntaxToken) -> bool {
    let name = token.text();
    let known = (ctx.index.backends.iter()).any(|b| b.types.iter().any(|t| t == name))
        || (ctx.index.wrappers.iter()).any(|w| w.types.iter().any(|t| t == name));
    if !known {
        return false;
    }
    // Macro input lexes `::` as one token or as two `:`.
    let before_separator = |token: &ra_ap_syntax::SyntaxToken| {
        let mut at = prev_significant(token)?;
        let mut colons = 0;
        while at.text() == ":" || at.text() == "::" {
            colons += at.text().len();
            at = prev_significant(&at)?;
        }
        (colons == 2).then_some(at)
    };
    let mut path = Vec::new();
    let mut at = before_separator(token);
    while let Some(segment) = at.filter(|t| t.kind() == SyntaxKind::IDENT) {
        path.push(segment.text().to_string());
        at = before_separator(&segment);
    }
    path.reverse();
    ctx.crates().canonical(path) == ["burn", "backend"]
}

/// The findings for the uses that outlive their parameter. `recorded`: the first pass's
/// changes (edits and findings) on the original text; `passes`: what each pass replaced
/// (`edit::applied_ranges`), each on the text the pass before produced; `last`: the
/// rewritten file.
pub fn findings(
    uses: &[Use],
    recorded: &[Change],
    passes: &[Vec<(TextRange, usize)>],
    last: &SourceFile,
) -> Vec<Change> {
    let root = last.tree().syntax().clone();
    // A use inside a range some rule changed or reported is that rule's. Non-empty ranges by
    // start, with the largest end so far: a binary search per use, not a scan.
    let mut covering: Vec<TextRange> = (recorded.iter().map(|c| c.range))
        .filter(|r| !r.is_empty())
        .collect();
    covering.sort_by_key(|r| r.start());
    let max_end: Vec<TextSize> = (covering.iter())
        .scan(TextSize::from(0), |max, r| {
            *max = (*max).max(r.end());
            Some(*max)
        })
        .collect();
    let recorded_covers = |range: TextRange| {
        let before = covering.partition_point(|r| r.start() <= range.start());
        before > 0 && max_end[before - 1] >= range.end()
    };
    // Each pass's edits are in text order and do not overlap (`edit::applied_ranges`): how
    // far the text before an offset moved is a prefix sum.
    let shifts: Vec<Vec<i64>> = (passes.iter())
        .map(|edits| {
            let mut sum = 0i64;
            let mut out = vec![0];
            for (replaced, added) in edits {
                sum += *added as i64 - i64::from(u32::from(replaced.len()));
                out.push(sum);
            }
            out
        })
        .collect();
    let mut out = Vec::new();
    'uses: for used in uses {
        if recorded_covers(used.range) {
            continue;
        }
        let mut range = used.range;
        for (edits, shift) in passes.iter().zip(&shifts) {
            let before = edits.partition_point(|(replaced, _)| replaced.end() <= range.start());
            let replaced_here = edits[before..]
                .iter()
                .take_while(|(replaced, _)| replaced.start() < range.end())
                .any(|(replaced, _)| replaced.intersect(range).is_some_and(|r| !r.is_empty()));
            if replaced_here {
                continue 'uses;
            }
            let Some(start) =
                u32::try_from(i64::from(u32::from(range.start())) + shift[before]).ok()
            else {
                continue 'uses;
            };
            range = TextRange::at(TextSize::from(start), range.len());
        }
        if last.text.get(range.start().into()..range.end().into()) != Some(used.name.as_str()) {
            continue;
        }
        let Some(token) = root.token_at_offset(range.start()).right_biased() else {
            continue;
        };
        let declared = token
            .parent_ancestors()
            .filter_map(ast::AnyHasGenericParams::cast)
            .filter_map(|owner| owner.generic_param_list())
            .flat_map(|list| list.generic_params())
            .any(|p| match p {
                ast::GenericParam::TypeParam(t) => {
                    t.name().is_some_and(|n| n.text() == used.name.as_str())
                }
                _ => false,
            });
        // A type parameter of that name in scope is what the name means there.
        if declared {
            continue;
        }
        let message = if used.backend_type {
            format!(
                "`{}` is a Burn 0.21 backend type, which the port removes; burn-migrate rewrites the input of std's expression macros only: write this without it by hand (a `Device` value picks the backend)",
                used.name
            )
        } else {
            format!(
                "`{}` was the backend type parameter, which the port removes; no rule rewrites this use of it: write it without the backend by hand",
                used.name
            )
        };
        out.push(Change::manual(
            used.range,
            RuleId::DanglingBackendParam,
            message,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Cover::contains` answers as comparing with every range does, empty ranges never
    /// containing anything.
    #[test]
    fn cover_is_any_range_containing() {
        let range = |start: u32, end: u32| TextRange::new(start.into(), end.into());
        let ranges: Vec<TextRange> = (0..40u32)
            .map(|i| range((i * 7) % 50, (i * 7) % 50 + (i * 3) % 11))
            .collect();
        let cover = Cover::new(ranges.iter().copied());
        for start in 0..60 {
            for len in 0..12 {
                let query = range(start, start + len);
                let expected = ranges
                    .iter()
                    .any(|r| !r.is_empty() && r.contains_range(query));
                assert_eq!(cover.contains(query), expected, "{query:?}");
            }
        }
    }

    fn file(text: &str) -> SourceFile {
        SourceFile::from_text(
            "lib.rs".into(),
            "lib.rs".to_string(),
            text.to_string(),
            0,
            ra_ap_syntax::Edition::Edition2021,
        )
    }

    fn range(a: u32, b: u32) -> TextRange {
        TextRange::new(a.into(), b.into())
    }

    const ORIGINAL: &str = "fn f<B: Backend>() { let x: B = 1; }";

    fn use_of_b() -> Use {
        let at = ORIGINAL.find(": B =").unwrap() as u32 + 2;
        Use {
            range: range(at, at + 1),
            name: "B".to_string(),
            backend_type: false,
            declarations: vec![range(5, 15)],
        }
    }

    #[test]
    fn a_use_that_outlives_its_parameter_through_every_pass_is_reported() {
        // Pass 1 removes `<B: Backend>` (5..16); pass 2 puts a line above the function.
        let passes = vec![vec![(range(4, 16), 0)], vec![(range(0, 0), 6)]];
        let last = file("// f\n\nfn f() { let x: B = 1; }");
        let found = findings(&[use_of_b()], &[], &passes, &last);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].range, use_of_b().range);
        assert_eq!(found[0].rule, RuleId::DanglingBackendParam);
    }

    #[test]
    fn a_use_a_later_pass_rewrites_is_not_reported() {
        let passes = vec![vec![(range(4, 16), 0)], vec![(range(14, 18), 4)]];
        let last = file("fn f() { let x: i64 = 1; }");
        assert!(findings(&[use_of_b()], &[], &passes, &last).is_empty());
    }

    #[test]
    fn a_use_whose_parameter_stays_or_another_rule_reports_is_not_reported() {
        let last = file(ORIGINAL);
        assert!(findings(&[use_of_b()], &[], &[], &last).is_empty());
        let reported = Change::manual(
            use_of_b().range,
            RuleId::BackendAssociatedItem,
            "reported already",
        );
        let passes = vec![vec![(range(4, 16), 0)]];
        let last = file("fn f() { let x: B = 1; }");
        assert!(findings(&[use_of_b()], &[reported], &passes, &last).is_empty());
    }
}
