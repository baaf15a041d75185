//! Record files the code loads or saves (literal paths passed to recorders, `save_file` and
//! `load_file`), and other string literals naming 0.21 record files (`.mpk`, `.mpk.gz`,
//! `.bin.gz`, `.json.gz`), are reported with the command that converts them: Burn 0.22 reads
//! burnpack, SafeTensors and PyTorch files, not 0.21's records.

use ra_ap_syntax::{ast, AstToken};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};

const OLD_EXTENSIONS: &[&str] = &[".mpk", ".mpk.gz", ".bin.gz", ".json.gz"];

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::RecordFiles),
    run,
    emits: &[RuleId::RecordFileFormat],
    emits_data_rules: false,
    order: Order::Rank(140),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: true,
};

pub fn run(ctx: &mut FileCtx) {
    // Paths passed to recorders and `save_file`/`load_file`: the finding names the file on
    // disk (the recorder adds its extension) and the command that converts it.
    let uses = crate::migrate::records::usage::uses(ctx.nodes());
    for found in &uses {
        ctx.push(Change::manual(
            found.range,
            RuleId::RecordFileFormat,
            found.message(),
        ));
    }
    // Walking every token is the dearest walk there is; a file whose text has no extension
    // in it has no literal ending with one (only one spelling the dot with an escape).
    if !OLD_EXTENSIONS.iter().any(|ext| ctx.file.text.contains(ext)) {
        return;
    }
    for token in ctx
        .root()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter_map(ast::String::cast)
    {
        if uses.iter().any(|u| u.range == token.syntax().text_range()) {
            continue;
        }
        let Ok(value) = token.value() else { continue };
        if OLD_EXTENSIONS.iter().any(|ext| value.ends_with(ext)) {
            ctx.push(Change::manual(
                token.syntax().text_range(),
                RuleId::RecordFileFormat,
                "Burn 0.22 cannot read 0.21 record files: convert the weights or retrain, and save as burnpack",
            ));
        }
    }
}
