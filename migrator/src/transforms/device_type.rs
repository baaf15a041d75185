//! `B::Device`, `&B::Device`, `<B as Backend>::Device`, `Device<B>` and `MyBackend::Device`
//! become Burn 0.22's one `Device` type.

use ra_ap_syntax::ast;
use ra_ap_syntax::AstNode;

use super::FileCtx;
use crate::edit::Change;
use crate::index::backend_device_path;
use crate::syntax_util::segment_names;

pub const RULE: &str = "backend-device-type";

pub fn run(ctx: &mut FileCtx) {
    for path in ctx.root().descendants().filter_map(ast::Path::cast) {
        let scope = ctx.backends_in_scope(path.syntax());
        let concrete_alias_device = || {
            let names = segment_names(&path);
            names.len() == 2
                && names[1] == "Device"
                && path.qualifier().is_some_and(|q| {
                    let ty = ast::make::ty_path(q);
                    ctx.index.resolve_backend_type(ctx.file_id, &ty).is_some()
                })
        };
        if backend_device_path(&path, &scope) || concrete_alias_device() {
            ctx.push(Change::edit(
                path.syntax().text_range(),
                "Device",
                RULE,
                "the device type is `burn::tensor::Device` for every backend in Burn 0.22",
            ));
            ctx.needed_imports.insert("Device");
        }
    }
}
