//! The safety net after the rewrite: a use of a backend parameter that the port removes must
//! be removed or rewritten by some rule, or reported by one. A use that survives every pass
//! while its parameter is gone would not compile, so it becomes a finding of
//! `dangling-backend-param` at its place in the original file.
//!
//! Cheap by construction: the candidates are collected in the first pass, where the index
//! proves which parameters are backends; afterwards each candidate is only followed through
//! the edits of every pass and looked up once in the rewritten tree.

use ra_ap_syntax::ast::{self, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, TextRange, TextSize};

use crate::edit::Change;
use crate::migrate::source::SourceFile;
use crate::migrate::transforms::FileCtx;
use crate::rules::RuleId;

/// A use of a backend parameter in the original text: where, and its name.
#[derive(Debug, Clone)]
pub struct Use {
    pub range: TextRange,
    pub name: String,
}

/// Every path that starts with a backend parameter in scope (`B`, `B::FloatElem`,
/// `<B as Backend>::IntElem`, `helper::<B>`), imports aside.
pub fn uses(ctx: &FileCtx) -> Vec<Use> {
    let mut out = Vec::new();
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
        if path.qualifier().is_some() {
            continue;
        }
        let Some(name) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        if path
            .syntax()
            .ancestors()
            .any(|a| ast::Use::can_cast(a.kind()))
        {
            continue;
        }
        let text = name.text().to_string();
        // Cheap filter before the scope lookup: a backend parameter is declared somewhere
        // around the path, so some item above it has generic parameters.
        let scope = ctx.backends_in_scope(path.syntax());
        if scope.iter().any(|b| b.name == text) {
            out.push(Use {
                range: name.syntax().text_range(),
                name: text,
            });
        }
    }
    out
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
    let mut out = Vec::new();
    'uses: for used in uses {
        if recorded
            .iter()
            .any(|c| !c.range.is_empty() && c.range.contains_range(used.range))
        {
            continue;
        }
        let mut range = used.range;
        for edits in passes {
            let mut shift: i64 = 0;
            for (replaced, added) in edits {
                if replaced.intersect(range).is_some_and(|r| !r.is_empty()) {
                    continue 'uses;
                }
                if replaced.end() <= range.start() {
                    shift += *added as i64 - i64::from(u32::from(replaced.len()));
                }
            }
            let Some(start) = u32::try_from(i64::from(u32::from(range.start())) + shift).ok()
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
        if declared {
            continue;
        }
        out.push(Change::manual(
            used.range,
            RuleId::DanglingBackendParam,
            format!(
                "`{}` was the backend type parameter, which the port removes; no rule rewrites this use of it: write it without the backend by hand",
                used.name
            ),
        ));
    }
    out
}
