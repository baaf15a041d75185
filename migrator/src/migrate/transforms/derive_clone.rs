//! `#[derive(Module, Clone, ..)]` loses `Clone`: Burn 0.22's `Module` derive always implements
//! `Clone`, so a listed `Clone` is a conflicting implementation (0.21's derive only did so for
//! modules with a backend parameter, so modules without one listed it themselves).

use ra_ap_syntax::ast::{self, HasAttrs};
use ra_ap_syntax::{AstNode, TextRange, TextSize};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DeriveClone),
    run,
    emits: &[RuleId::ModuleDeriveClone],
    emits_data_rules: false,
    order: Order::Rank(130),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for adt in ctx.nodes::<ast::Adt>() {
        for attr in adt.attrs() {
            let Some(meta) = attr.meta() else { continue };
            if meta.path().is_none_or(|p| p.syntax().text() != "derive") {
                continue;
            }
            let ast::Meta::TokenTreeMeta(meta) = meta else {
                continue;
            };
            let Some(tt) = meta.token_tree() else {
                continue;
            };
            let range = tt.syntax().text_range();
            let text = ctx.file.slice(range);
            let inner = &text[1..text.len().saturating_sub(1)];
            let names: Vec<&str> = inner.split(',').map(str::trim).collect();
            let is_module = names
                .iter()
                .any(|n| *n == "Module" || n.ends_with("::Module"));
            let Some(position) = names
                .iter()
                .position(|n| *n == "Clone" || n.ends_with("::Clone"))
            else {
                continue;
            };
            if !is_module {
                continue;
            }
            // Remove `Clone` and one separating comma, keeping the rest of the list as written.
            let mut offset = 1usize;
            let pieces: Vec<&str> = inner.split(',').collect();
            for piece in &pieces[..position] {
                offset += piece.len() + 1;
            }
            let piece = pieces[position];
            let (start, end) = if position + 1 < pieces.len() {
                let start = offset + leading_spaces(piece);
                (
                    start,
                    offset + piece.len() + 1 + leading_spaces(pieces[position + 1]),
                )
            } else {
                (offset - 1, offset + piece.len())
            };
            let start = range.start() + TextSize::from(start as u32);
            let end = range.start() + TextSize::from(end as u32);
            ctx.push(Change::delete(
                TextRange::new(start, end),
                RuleId::ModuleDeriveClone,
                "`derive(Module)` implements `Clone` in Burn 0.22",
            ));
        }
    }
}

fn leading_spaces(text: &str) -> usize {
    text.len() - text.trim_start().len()
}
