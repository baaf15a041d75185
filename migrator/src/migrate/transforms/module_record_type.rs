//! `ModelRecord<B>`: the record type `derive(Module)` generated for a module of the
//! workspace. Burn 0.22 has one non-generic `burn::store::ModuleRecord`.

use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::words_ending_with;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::ModuleRecordType),
    run,
    emits: &[RuleId::ModuleRecordType],
    emits_data_rules: false,
    order: Order::Rank(240),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    // The names that can be such a record: the words of the text that are a module's name
    // and `Record`.
    let mut names: Vec<&str> = words_ending_with(&ctx.file.text, "Record")
        .filter(|word| {
            (word.strip_suffix("Record")).is_some_and(|module| ctx.index.modules.contains(module))
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    for path in ctx.paths_named(&names) {
        let Some(name) = path
            .segment()
            .and_then(|s| s.name_ref())
            .map(|n| n.text().to_string())
        else {
            continue;
        };
        ctx.push(Change::manual(
            path.syntax().text_range(),
            RuleId::ModuleRecordType,
            format!(
                "`{name}` is not generated in Burn 0.22: records are `burn::store::ModuleRecord`"
            ),
        ));
    }
}
