//! String literals naming 0.21 record files (`.mpk`, `.mpk.gz`, `.bin`, `.json.gz`) are
//! reported: Burn 0.22 reads and writes burnpack files only, and cannot load old records.

use ra_ap_syntax::{ast, AstToken};

use super::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;

const OLD_EXTENSIONS: &[&str] = &[".mpk", ".mpk.gz", ".bin.gz", ".json.gz"];

pub fn run(ctx: &mut FileCtx) {
    if ctx.migrated {
        return;
    }
    let root = ctx.root();
    for token in root
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter_map(ast::String::cast)
    {
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
