//! `ModelRecord<B>`: the record type `derive(Module)` generated for a module of the
//! workspace. Burn 0.22 has one non-generic `burn::store::ModuleRecord`.
//!
//! Each use is reported. An import of such a type (`use crate::model::ModelRecord;`) names
//! nothing in 0.22: `imports` removes it (`generated_record_import`), and the uses stay
//! reported.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use super::use_items::{full_use_path, goes_with_its_uses};
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
        let import = path.syntax().parent().and_then(ast::UseTree::cast);
        if import.is_some_and(|tree| generated_record_import(ctx, &tree, &full_use_path(&tree))) {
            continue;
        }
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

/// Whether the leaf import `tree` (of `full`) names the record `derive(Module)` generated for
/// a module of the workspace, which Burn 0.22 does not generate, and can go
/// (`use_items::goes_with_its_uses`). A type of that name the workspace defines itself stays.
pub fn generated_record_import(ctx: &FileCtx, tree: &ast::UseTree, full: &[String]) -> bool {
    let Some(last) = full.last() else {
        return false;
    };
    let generated = (last.strip_suffix("Record"))
        .is_some_and(|module| ctx.index.modules.contains(module))
        && !ctx.index.defines_item(last);
    let from_burn = full.first().is_some_and(|f| f == "burn");
    generated && !from_burn && tree.rename().is_none() && goes_with_its_uses(ctx, tree, full)
}
