//! `Quantizer { calibration, scheme }`: Burn 0.21's quantizer was a struct of two public
//! fields (burn-core 0.21.0 `module/quantize.rs`). Burn 0.22.1's has a private `path` and a
//! `group` of the parameters to quantize, and is built with `Quantizer::new(calibration,
//! scheme)`, whose group is every parameter (`ParamGroup::all()`), what 0.21's quantized.

use ra_ap_syntax::ast;
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::segment_names;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::QuantizerNew),
    run,
    emits: &[RuleId::QuantizerNew],
    emits_data_rules: false,
    order: Order::Rank(172),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("Quantizer") || ctx.targets_0_22() {
        return;
    }
    for literal in ctx.nodes::<ast::RecordExpr>() {
        let Some(path) = literal.path() else { continue };
        if ctx.index.burn_name(ctx.file_id, &path).as_deref() != Some("Quantizer") {
            continue;
        }
        let Some(fields) = literal.record_expr_field_list() else {
            continue;
        };
        if fields.spread().is_some() {
            continue;
        }
        let mut calibration = None;
        let mut scheme = None;
        let mut others = false;
        for field in fields.fields() {
            let Some(value) = field.expr() else {
                others = true;
                continue;
            };
            // `calibration: Calibration::MinMax`, or the shorthand `calibration`.
            let name = match (field.name_ref(), &value) {
                (Some(name), _) => Some(name.text().to_string()),
                (None, ast::Expr::PathExpr(shorthand)) => {
                    shorthand.path().map(|p| segment_names(&p).join("::"))
                }
                _ => None,
            };
            match name.as_deref() {
                Some("calibration") => calibration = Some(value),
                Some("scheme") => scheme = Some(value),
                _ => others = true,
            }
        }
        let (Some(calibration), Some(scheme), false) = (calibration, scheme, others) else {
            continue;
        };
        let message = "Burn 0.22's `Quantizer` has private fields: `Quantizer::new(calibration, scheme)` quantizes every parameter, as the literal did";
        let (calibration, scheme) = (
            calibration.syntax().text_range(),
            scheme.syntax().text_range(),
        );
        let whole = literal.syntax().text_range();
        let new = format!("{}::new(", path.syntax().text());
        if calibration.start() < scheme.start() {
            // Around the values, which keep their own edits.
            let edits = [
                (
                    TextRange::new(whole.start(), calibration.start()),
                    new.as_str(),
                ),
                (TextRange::new(calibration.end(), scheme.start()), ", "),
                (TextRange::new(scheme.end(), whole.end()), ")"),
            ];
            for (range, text) in edits {
                ctx.push(Change::edit(range, text, RuleId::QuantizerNew, message));
            }
        } else {
            let value = |range: TextRange| ctx.file.slice(range).to_string();
            let constructor = format!("{new}{}, {})", value(calibration), value(scheme));
            ctx.push(Change::edit(
                whole,
                constructor,
                RuleId::QuantizerNew,
                message,
            ));
        }
    }
}
