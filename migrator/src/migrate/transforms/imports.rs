//! Imports that Burn 0.22 removed go: the backend traits (`burn::tensor::backend::Backend`,
//! `AutodiffBackend`, the prelude's `Backend`) and everything under `burn::backend` and the
//! backend crates, whose selections the other rules turned into `Device` values.
//! `AutodiffModule` is gone too: its methods are `Module` methods now, so its import becomes
//! `Module` (or goes, when `Module` is already imported).
//!
//! One walk over each `use` item decides for every rule at once, so the removals of different
//! rules in one list become one edit: besides its own rules (`backend-imports`,
//! `optimizer-trait-import`) it carries out the import side of the rules its descriptor lists
//! (`TRANSFORM.import_side`) and of the data rules' `rename-path`/`removed-item` tables,
//! under their ids.

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use super::use_items::{
    goes_with_its_uses, import_anchor, import_named_in_a_macro_body, path_matches,
    path_matches_via_crates, scope_at, scope_imports, used_where_the_port_leaves_it, Imported,
};
use crate::edit::{self, Change};
use crate::migrate::index::is_backend_module_path;
use crate::rules::{Applicability, RuleId, RuleKey, TransformId};
use crate::util::syntax::{line_removal_range, remove_list_elements, segment_names};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::Imports),
    run,
    emits: &[RuleId::BackendImports, RuleId::OptimizerTraitImport],
    emits_data_rules: false,
    order: Order::Rank(210),
    reads_paths: false,
    import_side: ImportSide {
        rules: &[
            RuleId::AutodiffModule,
            RuleId::BackendTypeAlias,
            RuleId::BackendMarkerTrait,
            RuleId::BackendExtensionTrait,
            RuleId::DispatchPrimitives,
            RuleId::ModuleRecordType,
        ],
        data_rules: true,
    },
    findings_outlive_edits: false,
};

/// The text of `range` with the edits already made inside it applied: the edit that replaces
/// the whole list with it would otherwise drop them (`edit::normalize` keeps the outer of two
/// nested edits), and they would wait for another pass.
fn text_with_edits_inside(ctx: &FileCtx, range: TextRange) -> String {
    let inside: Vec<Change> = (ctx.changes.iter())
        .filter(|c| c.is_applied() && range.contains_range(c.range))
        .filter_map(|c| {
            let mut shifted = c.clone();
            shifted.range = c.range.checked_sub(range.start())?;
            Some(shifted)
        })
        .collect();
    let text = ctx.file.slice(range);
    match edit::normalize(inside) {
        Ok(edits) => edit::apply(text, &edits),
        Err(_) => text.to_string(),
    }
}

pub fn run(ctx: &mut FileCtx) {
    if ctx.targets_0_22() {
        // Code on 0.22 may import `burn::backend` for backend extensions (feature `extension`):
        // nothing goes; an import of an item 0.22 removed is still reported.
        report_removed_imports(ctx);
        return;
    }
    let mut dispatched = super::dispatch_primitives::dispatched_wrappers(ctx);
    dispatched.extend(super::autodiff_primitive_round_trip::rewritten_ranges(ctx));
    let primitive_uses = (ctx.name_refs("TensorPrimitive").into_iter())
        .filter(|n| {
            !dispatched
                .iter()
                .any(|w| w.contains_range(n.syntax().text_range()))
        })
        .collect();
    let names = Names {
        optimizer_named: names_outside_imports(ctx.name_refs("Optimizer")),
        tensor_primitive_named: names_outside_imports(primitive_uses),
        phantom_data_stays: phantom_data_stays(ctx),
        dropped_from_headers: super::backend_extension_port::dropped_from_headers(ctx),
    };
    for use_item in ctx.nodes::<ast::Use>() {
        let Some(tree) = use_item.use_tree() else {
            continue;
        };
        if visit(ctx, &tree, &mut Vec::new(), &names) {
            ctx.push(Change::delete(
                line_removal_range(use_item.syntax()),
                RuleId::BackendImports,
                "this import names items Burn 0.22 removed",
            ));
        }
    }
}

/// In code already on 0.22: the imports of items the rule files list as removed, reported.
fn report_removed_imports(ctx: &mut FileCtx) {
    for tree in ctx.nodes::<ast::UseTree>() {
        if tree.use_tree_list().is_some() || tree.star_token().is_some() {
            continue;
        }
        // Read as Burn's path: `use nn::..` after `nn = { package = "burn" }`.
        let full = ctx
            .crates()
            .canonical(super::use_items::full_use_path(&tree));
        if let Some((rule, message)) = gone_item(ctx, &full, Gone::RemovedOrDropped) {
            ctx.push(Change::manual(tree.syntax().text_range(), rule, message));
        }
    }
}

/// Which tables count as saying an item is gone (`gone_item`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gone {
    /// `removed-item` tables.
    Removed,
    /// Those, and `rename-path` tables without a new path (whose import the port of 0.21 code
    /// drops, or keeps and reports while a macro still names it).
    RemovedOrDropped,
}

/// The first rule, in rule order, whose tables (`which`) say the item an import names
/// (`full`) is gone from Burn 0.22, with its message. Rule order is the order the port of
/// 0.21 code takes them in (`data_rule_import`), so the check of a port reports an import it
/// kept under the rule that kept it.
fn gone_item(ctx: &FileCtx, full: &[String], which: Gone) -> Option<(RuleKey, String)> {
    use crate::rules::DataRule;
    ctx.rules.data_rules().find_map(|(rule, data)| match data {
        DataRule::RemovedItem { paths, message }
            if paths.iter().any(|p| path_matches_via_crates(full, p)) =>
        {
            Some((rule, removed_message(message.as_deref(), full)))
        }
        DataRule::RenamePath { from, to: None }
            if which == Gone::RemovedOrDropped && path_matches(full, from) =>
        {
            Some((rule, format!("`{from}` no longer exists in Burn 0.22")))
        }
        _ => None,
    })
}

/// A removed item's finding: the rule's message, or a plain one naming the import.
fn removed_message(message: Option<&str>, full: &[String]) -> String {
    message.map_or_else(
        || format!("`{}` was removed in Burn 0.22", full.join("::")),
        str::to_string,
    )
}

/// What the file does with names whose imports depend on it.
struct Names {
    optimizer_named: bool,
    /// Whether `TensorPrimitive` is named other than in the wrappers `dispatch-primitives`
    /// takes off.
    tensor_primitive_named: bool,
    /// Whether `PhantomData` is still used once the backend marker fields are gone.
    phantom_data_stays: bool,
    /// What the port deletes from the headers of ported extensions' impls
    /// (`backend_extension_port::dropped_from_headers`).
    dropped_from_headers: Vec<TextRange>,
}

/// Plans edits for one use tree; returns true when the whole tree should go (the caller
/// removes it together with its comma, or the whole `use`).
fn visit(ctx: &mut FileCtx, tree: &ast::UseTree, prefix: &mut Vec<String>, names: &Names) -> bool {
    let depth = prefix.len();
    if let Some(path) = tree.path() {
        prefix.extend(segment_names(&path));
        if depth == 0 {
            // Read as Burn's path: `use nn::backend::Wgpu` is `burn::backend::Wgpu`.
            if let Some(krate) = prefix.first().and_then(|f| ctx.crates().renamed_crate(f)) {
                prefix[0] = krate;
            }
        }
    }
    let remove = if let Some(list) = tree.use_tree_list() {
        let children: Vec<ast::UseTree> = list.use_trees().collect();
        let removed: Vec<bool> = children
            .iter()
            .map(|c| visit(ctx, c, prefix, names))
            .collect();
        if removed.iter().all(|r| *r) && !children.is_empty() {
            true
        } else {
            let kept: Vec<&ast::UseTree> = children
                .iter()
                .zip(&removed)
                .filter(|(_, r)| !**r)
                .map(|(c, _)| c)
                .collect();
            let message = "this import names items Burn 0.22 removed";
            match kept.as_slice() {
                // `{backend::Backend, Tensor}` -> `Tensor`, the way it would have been written.
                [only] if removed.iter().any(|r| *r) && only.syntax().text() != "self" => {
                    let text = text_with_edits_inside(ctx, only.syntax().text_range());
                    ctx.push(Change::edit(
                        list.syntax().text_range(),
                        text,
                        RuleId::BackendImports,
                        message,
                    ));
                }
                _ => {
                    let nodes: Vec<SyntaxNode> =
                        children.iter().map(|c| c.syntax().clone()).collect();
                    if let Some(ranges) = remove_list_elements(&nodes, &removed) {
                        for range in ranges {
                            ctx.push(Change::delete(range, RuleId::BackendImports, message));
                        }
                    }
                }
            }
            false
        }
    } else if tree.star_token().is_some() {
        is_backend_module_path(prefix, &ctx.index.backend_crates)
            || is_tensor_backend_module(prefix)
    } else {
        leaf_decision(ctx, tree, prefix, names)
    };
    prefix.truncate(depth);
    remove
}

fn leaf_decision(ctx: &mut FileCtx, tree: &ast::UseTree, full: &[String], names: &Names) -> bool {
    let Some((last, module)) = full.split_last() else {
        return false;
    };
    // The name the import brings into scope.
    let local = tree
        .rename()
        .and_then(|r| r.name())
        .map_or_else(|| last.clone(), |n| n.text().to_string());
    let crates = &ctx.index.backend_crates;
    if is_backend_module_path(module, crates)
        || is_backend_module_path(full, crates)
        || is_tensor_backend_module(module)
    {
        // A name of a removed module that Burn 0.22 keeps elsewhere (a `rename-path` table,
        // `burn::tensor::backend::ExecutionError`) moves; the module's other names go.
        if let Some(remove) = data_rule_import(ctx, tree, full, Tables::RenamesOnly) {
            return remove;
        }
        // A removed item a rule reports where it is used (`init_setup`, `RemoteBackend`).
        if gone_item(ctx, full, Gone::Removed).is_some() {
            return true;
        }
        // What only the header of a ported extension's impl named, in the backend's arguments
        // or the parameters it loses (`WgpuRuntime`, `R: CubeRuntime`): nothing names it now.
        if names_only_in(ctx, &local, &names.dropped_from_headers) {
            record_removal(
                ctx,
                tree,
                RuleId::BackendImports,
                "only the backend arguments and impl parameters that Burn 0.22's parameterless backends lose named this",
            );
            return true;
        }
        // What the port replaces by `Device` values (backends, wrappers, device types) goes.
        // The rest is backend-extension API (`KernelSource`, `CubeTensor`, `WgpuRuntime`): a
        // custom kernel's. It stays for the person who ports the kernel.
        if is_backend_module_path(module, crates) && is_extension_api(ctx, last) {
            // Burn 0.22.1 still has it at this path (the features that brought it in 0.21,
            // `wgpu` and `template`, stay): the import is not what needs a person, the code
            // that uses it is (`backend-extension-trait` reports each function that does).
            if crate::rules::framework::api_0_22_line(&full.join("::")).is_some() {
                return false;
            }
            ctx.push(Change::manual(
                tree.syntax().text_range(),
                RuleId::BackendExtensionTrait,
                format!("`{}` is backend-extension API: Burn 0.22 has it under `burn::backend` with the `extension` feature, for kernels ported with `#[backend_extension]`", full.join("::")),
            ));
            return false;
        }
        // A backend that an impl of a backend extension is for (`Autodiff<B, C>`,
        // `CubeBackend`) stays with the impl, where Burn 0.22.1 has it at this path.
        if super::backend_extension_port::named_in_extension_impls(ctx, &local)
            && crate::rules::framework::api_0_22_line(&full.join("::")).is_some()
        {
            return false;
        }
        return true;
    }
    let from_burn = full.first().is_some_and(|f| f == "burn");
    // The backend traits, and the trait of backend devices the prelude re-exported
    // (`burn::prelude::DeviceOps`, gone from 0.22's prelude: `Device`'s methods are its own).
    if from_burn && matches!(last.as_str(), "Backend" | "AutodiffBackend" | "DeviceOps") {
        return true;
    }
    // A project module's or crate's re-export of Burn's backend traits
    // (`use burn_lm_inference::Backend;` of a `pub use burn::prelude::Backend;`): the index
    // reads the file's `Backend` as Burn's (its bounds go), and the re-export goes with the
    // other backend imports, so this import goes too.
    // Through another crate, the workspace must re-export Burn's trait under that name: a
    // crate the index does not read (one without Burn) may have a `Backend` of its own (mere's
    // storage `Backend`). Within the crate (`use super::Backend;` of a parent module's
    // private import), the crate's own files say what the name is.
    let within_crate = full
        .first()
        .is_some_and(|f| matches!(f.as_str(), "crate" | "self" | "super"));
    // The project's own extension trait of that name (`use super::Backend;` of a crate's
    // `trait Backend: burn::tensor::backend::Backend { .. }`, used here as a trait) is no
    // re-export: it stays. (Another crate of the workspace may call an alias `Backend`.)
    let own_extension = within_crate
        && super::backend_extension_port::is_extension_trait(ctx, last)
        && super::backend_extension_port::used_as_a_trait(ctx, &local);
    let reexported =
        (!from_burn && !own_extension && (within_crate || ctx.index.reexports_burn_name(last)))
            .then(|| ctx.index.burn_name_of(ctx.file_id, None, &local))
            .flatten();
    if matches!(reexported.as_deref(), Some("Backend" | "AutodiffBackend")) {
        record_removal(
            ctx,
            tree,
            RuleId::BackendImports,
            "a re-export of Burn's backend trait, which Burn 0.22 removed",
        );
        return true;
    }
    // 0.21 code imported the `Optimizer` trait to call `step`; in 0.22 `step` is inherent to
    // `ModuleOptimizer` and `Optimizer` names the trait for writing optimizers.
    let from_optim = module.last().is_some_and(|m| m == "optim");
    if from_burn && from_optim && last == "Optimizer" && !names.optimizer_named {
        record_removal(
            ctx,
            tree,
            RuleId::OptimizerTraitImport,
            "`step` is a method of `ModuleOptimizer` in Burn 0.22; the trait import is unused",
        );
        return true;
    }
    if from_burn && last == "TensorPrimitive" && !names.tensor_primitive_named {
        record_removal(
            ctx,
            tree,
            RuleId::DispatchPrimitives,
            "`Tensor::from_dispatch` takes the primitive itself in Burn 0.22; the import is unused",
        );
        return true;
    }
    if let Some(remove) = data_rule_import(ctx, tree, full, Tables::All) {
        return remove;
    }
    if super::module_record_type::generated_record_import(ctx, tree, full) {
        record_removal(
            ctx,
            tree,
            RuleId::ModuleRecordType,
            "`derive(Module)` generates no record type in Burn 0.22; the uses are reported",
        );
        return true;
    }
    // The project's own backend aliases are deleted (rule `backend-type-alias`): so are their
    // imports, from any module or crate of the workspace.
    if !from_burn && !own_extension && ctx.index.aliases.contains_key(last.as_str()) {
        record_removal(
            ctx,
            tree,
            RuleId::BackendTypeAlias,
            "this backend alias no longer exists in Burn 0.22",
        );
        return true;
    }
    // A backend type the workspace re-exports from Burn (`use loractl_core::NdArray;` of a
    // `pub use burn::backend::NdArray;`): the re-export goes with the other backend imports,
    // and so does this import of it.
    let reexported_backend = (ctx.index.files.get(ctx.file_id))
        .and_then(|names| names.backend_names.get(&local))
        .is_some_and(|burn| ctx.index.replaces_backend_name(burn));
    if !from_burn && reexported_backend {
        record_removal(
            ctx,
            tree,
            RuleId::BackendImports,
            "a re-export of a Burn backend type, which the port removes with the backend",
        );
        return true;
    }
    // So are the project's backend marker traits (rule `backend-marker-trait`).
    if !from_burn && ctx.index.marker_traits.contains(last.as_str()) {
        record_removal(
            ctx,
            tree,
            RuleId::BackendMarkerTrait,
            "this backend marker trait no longer exists in Burn 0.22",
        );
        return true;
    }
    let from_std_marker =
        full.len() == 3 && (full[0] == "std" || full[0] == "core") && full[1] == "marker";
    if from_std_marker && last == "PhantomData" && !names.phantom_data_stays {
        return true;
    }
    if from_burn && last == "AutodiffModule" {
        // `Module` must resolve wherever `AutodiffModule` did: the import goes only where the
        // module it is in (not another module of the file) imports `Module` already, and
        // never when it is renamed (`as Adm`), whose uses keep the new name.
        let scope = scope_at(&ctx.root(), tree.syntax().text_range().start());
        let module_imported = matches!(
            scope_imports(&scope, "burn::module::Module", ctx.crates()),
            Imported::Always
        );
        if module_imported && tree.rename().is_none() {
            record_removal(
                ctx,
                tree,
                RuleId::AutodiffModule,
                "`AutodiffModule` is gone in Burn 0.22; `Module` is already imported",
            );
            return true;
        }
        let Some(name) = tree
            .path()
            .and_then(|p| p.segment())
            .and_then(|s| s.name_ref())
        else {
            return false;
        };
        ctx.push(Change::edit(
            name.syntax().text_range(),
            "Module",
            RuleId::AutodiffModule,
            "`AutodiffModule` is gone in Burn 0.22: `valid()` and `train()` are `Module` methods",
        ));
    }
    false
}

/// Which data-rule tables `data_rule_import` applies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tables {
    All,
    /// Only `rename-path` tables that name where the item went.
    RenamesOnly,
}

/// Applies the rule files' `rename-path` and `removed-item` tables to one imported path.
/// `Some(true)`: the import goes; `Some(false)`: handled, it stays; `None`: no table matched.
fn data_rule_import(
    ctx: &mut FileCtx,
    tree: &ast::UseTree,
    full: &[String],
    tables: Tables,
) -> Option<bool> {
    use crate::rules::DataRule;
    let rules = ctx.rules;
    // A `rename-path` table wins over a `removed-item` one that covers the same path (an item
    // of a removed module that Burn 0.22 keeps elsewhere), whichever rule comes first.
    let renames_first = (rules.data_rules())
        .filter(|(_, data)| matches!(data, DataRule::RenamePath { .. }))
        .chain(
            (rules.data_rules()).filter(|(_, data)| !matches!(data, DataRule::RenamePath { .. })),
        );
    for (rule, data) in renames_first {
        match data {
            DataRule::RenamePath { from, to }
                if path_matches(full, from) && (tables == Tables::All || to.is_some()) =>
            {
                let Some(to) = to else {
                    // A macro body still names it (`type $s = FullPrecisionSettings;`): the
                    // parser leaves macro bodies as tokens, so no rule rewrote that use, and
                    // without the import it would name nothing. It stays, reported, and
                    // `data_rules` reports the use in the macro.
                    if import_named_in_a_macro_body(ctx, tree, full) {
                        let text = format!(
                            "`{}` no longer exists in Burn 0.22, and a macro here still names it",
                            full.join("::")
                        );
                        ctx.push(Change::manual(tree.syntax().text_range(), rule, text));
                        return Some(false);
                    }
                    record_removal(
                        ctx,
                        tree,
                        rule,
                        &format!("`{from}` no longer exists in Burn 0.22"),
                    );
                    return Some(true);
                };
                let (to_module, to_last) = to.rsplit_once("::").unwrap_or(("", to));
                let same_module = full[..full.len() - 1].join("::") == to_module;
                let name = tree
                    .path()
                    .and_then(|p| p.segment())
                    .and_then(|s| s.name_ref())?;
                if same_module {
                    ctx.push(Change::edit(
                        name.syntax().text_range(),
                        to_last,
                        rule,
                        format!("`{from}` is `{to}` in Burn 0.22"),
                    ));
                    return Some(false);
                }
                // `use burn::Old;` on its own: rewrite the path in place.
                let whole_use = tree
                    .syntax()
                    .parent()
                    .is_some_and(|p| ast::Use::can_cast(p.kind()));
                if let (true, Some(path)) = (whole_use, tree.path()) {
                    let message = format!("`{from}` is `{to}` in Burn 0.22");
                    let written = ctx.local_path(to).into_owned();
                    ctx.push(Change::edit(
                        path.syntax().text_range(),
                        written,
                        rule,
                        message,
                    ));
                    return Some(false);
                }
                let alias = tree
                    .rename()
                    .map(|r| format!(" {}", ctx.file.slice(r.syntax().text_range())))
                    .unwrap_or_default();
                ctx.push(Change::insert(
                    import_anchor(ctx),
                    format!("use {}{alias};\n", ctx.local_path(to)),
                    rule,
                    format!("`{from}` is `{to}` in Burn 0.22"),
                ));
                return Some(true);
            }
            DataRule::RemovedItem { paths, message }
                if tables == Tables::All
                    && paths.iter().any(|p| path_matches_via_crates(full, p)) =>
            {
                let text = removed_message(message.as_deref(), full);
                // An import of an item 0.22.1 lacks goes once nothing the port leaves uses it.
                // While `data_rules` reports a use for a person, the import stays, reported:
                // it says where the item came from, and rustc's one error there stands for
                // every use (each still reported where it is). This step sees only its own
                // edits: where another step rewrites every use, `drop_findings_of_unused_imports`
                // takes the finding back once all are in, and the next pass removes the import.
                if goes_once_unused(ctx, tree, full, paths)
                    && !used_where_the_port_leaves_it(ctx, tree, full)
                {
                    record_removal(ctx, tree, rule, &text);
                    return Some(true);
                }
                ctx.push(Change::manual(tree.syntax().text_range(), rule, text));
                return Some(false);
            }
            _ => {}
        }
    }
    None
}

/// Whether the import of `full`, an item a `removed-item` table lists (`paths`), names what
/// Burn 0.22.1 lacks and may go (`goes_with_its_uses`) once nothing uses the name.
fn goes_once_unused(ctx: &FileCtx, tree: &ast::UseTree, full: &[String], paths: &[String]) -> bool {
    let pattern = paths.iter().find(|p| path_matches_via_crates(full, p));
    pattern.is_some_and(|p| burn_0_22_lacks(p, full)) && goes_with_its_uses(ctx, tree, full)
}

/// Once every step's changes are in: the finding of an import `data_rule_import` kept for the
/// uses a person ports goes where the other steps rewrote every use (`OptimizerAdaptor<..>`
/// in a type `optimizer-adaptor-type` replaces). Nothing is left there for a person, and the
/// next pass, which reads no use of the name, removes the import.
pub fn drop_findings_of_unused_imports(ctx: &mut FileCtx) {
    use crate::rules::DataRule;
    let root = ctx.root();
    let unused: Vec<TextRange> = (ctx.changes.iter())
        .filter(|c| c.fix.is_none())
        .filter_map(|c| {
            let tree = (root.covering_element(c.range).ancestors())
                .find_map(ast::UseTree::cast)
                .filter(|t| t.syntax().text_range() == c.range)?;
            let full = ctx
                .crates()
                .canonical(super::use_items::full_use_path(&tree));
            let listed = (ctx.rules.data_rules())
                .filter(|(rule, _)| *rule == c.rule)
                .any(|(_, data)| {
                    matches!(data, DataRule::RemovedItem { paths, .. }
                        if goes_once_unused(ctx, &tree, &full, paths))
                });
            (listed && !used_where_the_port_leaves_it(ctx, &tree, &full)).then_some(c.range)
        })
        .collect();
    ctx.changes
        .retain(|c| c.fix.is_some() || !unused.contains(&c.range));
}

/// Whether Burn's API listings show the item an import (`full`) names through a
/// `removed-item` pattern (`burn::module::Reinitializer`, or `burn::collective::*` for a name
/// of that module) in 0.21.0 and not in 0.22.1. Some tables list items that stay with a
/// changed shape (`burn::train::renderer::MetricState`), whose imports still resolve; and an
/// item of a feature the listings leave out (`vision`) is in neither, so nothing says it is
/// gone.
fn burn_0_22_lacks(pattern: &str, full: &[String]) -> bool {
    use crate::rules::framework::{api_0_21_line, api_0_22_line};
    let item = match (pattern.strip_suffix("::*"), full.last()) {
        (Some(module), Some(last)) => format!("{module}::{last}"),
        _ => pattern.to_string(),
    };
    api_0_21_line(&item).is_some() && api_0_22_line(&item).is_none()
}

/// Whether some use of `PhantomData` survives the removal of backend marker fields (or the
/// file never had one: then its import is none of our business).
fn phantom_data_stays(ctx: &FileCtx) -> bool {
    let mut removed_any = false;
    for name in ctx.name_refs("PhantomData") {
        if name
            .syntax()
            .ancestors()
            .any(|a| ast::Use::can_cast(a.kind()))
        {
            continue;
        }
        let in_removed_field = name
            .syntax()
            .ancestors()
            .find_map(ast::RecordField::cast)
            .is_some_and(|field| {
                let scope = ctx.backends_in_scope(field.syntax());
                field
                    .ty()
                    .is_some_and(|t| crate::migrate::index::is_phantom_of_backend(&t, &scope))
            });
        let in_removed_initializer = name
            .syntax()
            .ancestors()
            .find_map(ast::RecordExprField::cast)
            .is_some_and(|field| {
                let literal = field.syntax().ancestors().find_map(ast::RecordExpr::cast);
                let struct_name =
                    literal.and_then(|l| super::phantom::struct_name(&l.path()?, l.syntax()));
                let field_name = field.name_ref().map(|n| n.text().to_string());
                match (struct_name, field_name) {
                    (Some(s), Some(f)) => ctx
                        .index
                        .phantom_fields
                        .get(&s)
                        .is_some_and(|fields| fields.contains(&f)),
                    _ => false,
                }
            });
        if in_removed_field || in_removed_initializer {
            removed_any = true;
        } else {
            return true;
        }
    }
    !removed_any
}

/// Whether `full`, an item of a Burn backend module, is backend-extension API whose import
/// the port keeps for a person's kernel code (`KernelSource`, `CubeTensor`, `WgpuRuntime`):
/// no `rename-path` table moves it, no `removed-item` table removes it, and it is not what
/// the port replaces by `Device` values. `leaf_decision`'s answer, without its edits.
pub fn keeps_extension_api(ctx: &FileCtx, full: &[String]) -> bool {
    use crate::rules::DataRule;
    let Some((last, module)) = full.split_last() else {
        return false;
    };
    let moved = ctx.rules.data_rules().any(|(_, data)| {
        matches!(data, DataRule::RenamePath { from, to: Some(_) } if path_matches(full, from))
    });
    is_backend_module_path(module, &ctx.index.backend_crates)
        && !moved
        && gone_item(ctx, full, Gone::Removed).is_none()
        && is_extension_api(ctx, last)
}

/// Whether a backend module's item named `last` is backend-extension API rather than a
/// backend, wrapper or device type (a checkpointing strategy is one where a custom backward
/// op names it, not a wrapper type's argument).
fn is_extension_api(ctx: &FileCtx, last: &str) -> bool {
    !ctx.index.replaces_backend_name(last) || strategy_outside_wrapper_types(ctx, last)
}

/// Whether `name`, a checkpointing strategy (`NoCheckpointing`), is named outside `use` items
/// other than as a generic argument of a wrapper type (`Autodiff<B, NoCheckpointing>`, which
/// becomes a device): a custom backward op's `prepare::<NoCheckpointing>(..)` keeps it.
fn strategy_outside_wrapper_types(ctx: &FileCtx, name: &str) -> bool {
    if !name.ends_with("Checkpointing") {
        return false;
    }
    let wrapper_argument = |name_ref: &ast::NameRef| {
        let segment = name_ref
            .syntax()
            .ancestors()
            .find_map(ast::GenericArgList::cast)
            .and_then(|args| args.syntax().parent())
            .and_then(ast::PathSegment::cast);
        segment.and_then(|s| s.name_ref()).is_some_and(|wrapper| {
            (ctx.index.wrappers.iter()).any(|w| w.types.iter().any(|t| *t == wrapper.text()))
        })
    };
    (ctx.name_refs(name).into_iter())
        .filter(|n| !n.syntax().ancestors().any(|a| ast::Use::can_cast(a.kind())))
        .any(|n| !wrapper_argument(&n))
}

/// Whether every use of `name` (an import's local name) outside `use` items lies in one of
/// `ranges`, and there is one at least.
fn names_only_in(ctx: &FileCtx, name: &str, ranges: &[TextRange]) -> bool {
    if ranges.is_empty() {
        return false;
    }
    let uses: Vec<TextRange> = (ctx.name_refs(name).into_iter())
        .filter(|n| !n.syntax().ancestors().any(|a| ast::Use::can_cast(a.kind())))
        .map(|n| n.syntax().text_range())
        .collect();
    !uses.is_empty()
        && uses
            .iter()
            .all(|u| ranges.iter().any(|r| r.contains_range(*u)))
}

/// Whether one of `names` (references of one name) is outside `use` items (a bound, an impl,
/// a path).
fn names_outside_imports(names: Vec<ast::NameRef>) -> bool {
    names
        .into_iter()
        .any(|n| !n.syntax().ancestors().any(|a| ast::Use::can_cast(a.kind())))
}

/// Records which rule removes an import leaf. The removal itself is one edit for the whole
/// list or `use` item (made by the caller, under `backend-imports`); this zero-width edit
/// carries the specific rule into the report and the diff. `--apply` makes that removal,
/// whatever the rule's usual applicability: the record is applied with it, not a site left
/// for a person (a manual rule's `removed-item` import).
fn record_removal(ctx: &mut FileCtx, tree: &ast::UseTree, rule: impl Into<RuleKey>, message: &str) {
    let at = TextRange::empty(tree.syntax().text_range().start());
    ctx.push(Change::delete(at, rule, message).with_applicability(Applicability::Safe));
}

/// `burn::tensor::backend` (0.21's home of the backend traits; gone in 0.22).
fn is_tensor_backend_module(path: &[String]) -> bool {
    path.len() >= 3 && path[0] == "burn" && path[1] == "tensor" && path[2] == "backend"
}
