//! `MetricState::Numeric(entry, value)`: burn-train 0.22.1 (`renderer/base.rs`) made the
//! second field an `Option<NumericEntry>`; `None` is a new event, a step with no value to
//! draw. Where the pattern only picks numeric states out (`if let`, `while let`, `let ..
//! else`, or a match arm with a catch-all arm after it), binding `Some(value)` keeps what the
//! code did with every 0.21 state and lets the new empty steps through to where non-numeric
//! states already went.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::MetricStateNumeric),
    run,
    emits: &[RuleId::MetricStateNumeric],
    emits_data_rules: false,
    order: Order::Rank(165),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("MetricState") {
        return;
    }
    let mut edits = Vec::new();
    for path in ctx.paths_named(&["Numeric"]) {
        // Burn's `MetricState`, as the file's imports resolve the qualifier.
        let is_burns = path.qualifier().is_some_and(|qualifier| {
            ctx.index.burn_name(ctx.file_id, &qualifier).as_deref() == Some("MetricState")
        });
        let Some(pattern) = path.syntax().parent().and_then(ast::TupleStructPat::cast) else {
            continue;
        };
        let fields: Vec<ast::Pat> = pattern.fields().collect();
        let [_, ast::Pat::IdentPat(value)] = fields.as_slice() else {
            continue;
        };
        if is_burns && value.pat().is_none() && only_picks_out(&pattern) {
            edits.push(value.clone());
        }
    }
    if edits.is_empty() || ctx.targets_0_22() {
        return;
    }
    for value in edits {
        let text = value.syntax().text().to_string();
        ctx.push(Change::edit(
            value.syntax().text_range(),
            format!("Some({text})"),
            RuleId::MetricStateNumeric,
            format!("`MetricState::Numeric` carries an `Option<NumericEntry>` in Burn 0.22: `{text}` binds the entry when there is one"),
        ));
    }
}

/// Whether code that does not match `pattern` goes on as if the state were not numeric: the
/// pattern of an `if let`/`while let` condition or of a `let .. else`, or a match arm
/// followed by a catch-all arm (`_`, or a plain binding).
fn only_picks_out(pattern: &ast::TupleStructPat) -> bool {
    let Some(parent) = pattern.syntax().parent() else {
        return false;
    };
    if ast::LetExpr::can_cast(parent.kind()) {
        return true;
    }
    if let Some(binding) = ast::LetStmt::cast(parent.clone()) {
        return binding.let_else().is_some();
    }
    let Some(arm) = ast::MatchArm::cast(parent) else {
        return false;
    };
    let catch_all = |arm: &ast::MatchArm| {
        arm.guard().is_none()
            && match arm.pat() {
                Some(ast::Pat::WildcardPat(_)) => true,
                Some(ast::Pat::IdentPat(binding)) => binding.pat().is_none(),
                _ => false,
            }
    };
    std::iter::successors(arm.syntax().next_sibling(), |node| node.next_sibling())
        .filter_map(ast::MatchArm::cast)
        .any(|later| catch_all(&later))
}
