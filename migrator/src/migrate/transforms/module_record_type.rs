//! `ModelRecord<B>`: the record type `derive(Module)` generated for a module of the
//! workspace. Burn 0.22 has one non-generic `burn::store::ModuleRecord`.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::context::FileCtx;
use crate::edit::Change;
use crate::rules::RuleId;

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.nodes::<ast::Path>() {
        let Some(name) = path
            .segment()
            .and_then(|s| s.name_ref())
            .map(|n| n.text().to_string())
        else {
            continue;
        };
        let Some(module) = name.strip_suffix("Record") else {
            continue;
        };
        if ctx.index.modules.contains(module) {
            ctx.push(Change::manual(
                path.syntax().text_range(),
                RuleId::ModuleRecordType,
                format!("`{name}` is not generated in Burn 0.22: records are `burn::store::ModuleRecord`"),
            ));
        }
    }
}
