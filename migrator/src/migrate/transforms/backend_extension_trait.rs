//! User traits that extend Burn's `Backend` (backend extensions) are reported: Burn 0.22
//! ports them with `#[backend_extension]`, which no syntax rewrite can write for a person.
//! Traits that only mark a backend are no extensions: `backend-marker-trait` removes them.
//!
//! The trait and every impl of it are a person's to port as a whole: they are reported over
//! their whole text and left as they are (`FileCtx::hands_off`), since half a rewrite of a
//! custom backend operation (the backend parameter gone from `Backward<B, 1>`, its `B::`
//! primitives left) helps nobody and reads worse than the original. So are impls of the
//! backend modules' kernel traits (`KernelSource`) and the functions that use their kernel API
//! (`CubeTensor`, `into_contiguous`).

use ra_ap_syntax::ast::{self, HasName};
use ra_ap_syntax::{AstNode, Edition, SyntaxKind, SyntaxNode, TextRange};

use std::collections::{BTreeMap, HashMap};

use super::context::FileCtx;
use super::imports;
use super::step::{ImportSide, Order, Step, Transform};
use super::use_items::full_use_path;
use crate::edit::{todo_marker, Change};
use crate::rules::{RuleId, RuleKey, TransformId};
use crate::util::syntax::segment_names;

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::BackendExtensionTrait),
    run,
    emits: &[RuleId::BackendExtensionTrait],
    emits_data_rules: false,
    order: Order::Rank(270),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    let extensions: Vec<&String> = (ctx.index.user_backend_traits.iter())
        .map(|(_, _, name)| name)
        // Marker traits (no items of their own) go instead (rule `backend-marker-trait`).
        .filter(|name| !ctx.index.marker_traits.contains(*name))
        .collect();
    left_by_an_earlier_port(ctx);
    report_backend_api_impls(ctx);
    if !extensions.is_empty() {
        report_extensions(ctx, &extensions);
    }
    // Last: a function inside an impl reported above is part of that report.
    report_backend_api_users(ctx);
}

/// The project's backend-extension traits (`extensions`) and their impls.
fn report_extensions(ctx: &mut FileCtx, extensions: &[&String]) {
    for item in ctx.nodes::<ast::Trait>() {
        let Some(name) = item.name().map(|n| n.text().to_string()) else {
            continue;
        };
        let defined_here = (ctx.index.user_backend_traits.iter()).any(|(file, range, _)| {
            *file == ctx.file_id && item.syntax().text_range().contains_range(*range)
        });
        if !defined_here || !extensions.contains(&&name) {
            continue;
        }
        if let Some(port) = ctx.index.extension_port(ctx.file_id, &name) {
            // `backend-extension-port` declares it; what is left is Fusion's part, if any.
            if port.on_cube_backend {
                // Over the whole trait: rustc reports the missing impl at the attribute.
                ctx.push(Change::manual(
                    item.syntax().text_range(),
                    RuleId::BackendExtensionTrait,
                    format!("`{name}` is implemented for `CubeBackend`: where Burn's `fusion` feature is on (a default of `wgpu`, `vulkan` and `cuda`), Burn 0.22's `Cube` is `Fusion<CubeBackend>`, so add `Fusion` to `#[backend_extension(..)]` with a `#[fusion(dtype = .., shape = ..)]` on each function (its output's dtype and shape), or implement `{name}` for `Fusion<CubeBackend>`"),
                ));
            }
            continue;
        }
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("trait `{name}` extends Burn's backend trait: port it with `#[backend_extension]` (feature `extension`)"),
        );
    }
    for item in ctx.nodes::<ast::Impl>() {
        let Some(ast::Type::PathType(trait_type)) = item.trait_() else {
            continue;
        };
        let Some(name) = trait_type.path().and_then(|p| segment_names(&p).pop()) else {
            continue;
        };
        if !extensions.contains(&&name) {
            continue;
        }
        let message = if ctx.index.extension_port(ctx.file_id, &name).is_some() {
            // The trait and this impl's header are `backend-extension-port`'s; an impl
            // without items is all header.
            if item
                .assoc_item_list()
                .is_none_or(|l| l.assoc_items().next().is_none())
            {
                // No finding, but no other rule's edit either: its backend parameter stays.
                ctx.hands_off.push(item.syntax().text_range());
                continue;
            }
            format!("an implementation of the backend extension `{name}`, whose trait and header the port declares for Burn 0.22: port its body (a kernel's element types are its tensors' dtypes at run time; CubeCL 0.10 to 0.11)")
        } else {
            format!("an implementation of the backend extension `{name}`: port it with the trait (`#[backend_extension]`)")
        };
        leave_to_a_person(ctx, item.syntax(), message);
    }
}

/// Impls of backend-extension API traits a backend module exported (`impl KernelSource for
/// MyKernel` after `use burn::backend::wgpu::KernelSource;`): custom kernel code, whose 0.22
/// form is a person's, reported whole and left as written like the extension itself.
fn report_backend_api_impls(ctx: &mut FileCtx) {
    for item in ctx.nodes::<ast::Impl>() {
        let Some(ast::Type::PathType(trait_type)) = item.trait_() else {
            continue;
        };
        let Some(path) = trait_type.path() else {
            continue;
        };
        let Some(name) = ctx.index.burn_backend_name(ctx.file_id, &path) else {
            continue;
        };
        if ctx.index.replaces_backend_name(&name) {
            continue;
        }
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("an implementation of `{name}`, backend-extension API: port this kernel code with the `extension` feature"),
        );
    }
}

/// Functions that use backend-extension API whose import the port keeps (`CubeTensor`,
/// `into_contiguous`, `CubeDim`, `Backward`; `imports::keeps_extension_api`): kernel code
/// whose 0.22 form (CubeCL 0.11, `#[backend_extension]`) is a person's, reported whole and left
/// as written, like an impl of that API. Where Burn 0.22.1 has the item at the same path its
/// import is no finding of its own: one finding per function that needs the person, rather
/// than one per imported name.
fn report_backend_api_users(ctx: &mut FileCtx) {
    // Code written for 0.22 uses this API as 0.22 has it.
    if ctx.targets_0_22() {
        return;
    }
    // The file's local names for such API, from its imports.
    let mut imported: HashMap<String, String> = HashMap::new();
    for tree in ctx.nodes::<ast::UseTree>() {
        if tree.use_tree_list().is_some() || tree.star_token().is_some() {
            continue;
        }
        let full = ctx.crates().canonical(full_use_path(&tree));
        if !imports::keeps_extension_api(ctx, &full) {
            continue;
        }
        let local = match tree.rename().and_then(|r| r.name()) {
            Some(name) => name.text().to_string(),
            None => full.last().cloned().unwrap_or_default(),
        };
        imported.insert(local, full.join("::"));
    }
    let crates = &ctx.index.backend_crates;
    let written_out = ctx.file.text.contains("backend::")
        || crates
            .iter()
            .any(|krate| ctx.file.text.contains(krate.as_str()));
    if imported.is_empty() && !written_out {
        return;
    }
    for item in ctx.nodes::<ast::Fn>() {
        let range = item.syntax().text_range();
        if ctx.hands_off.iter().any(|r| r.contains_range(range)) {
            continue;
        }
        let used = (item.syntax().descendants())
            .filter_map(ast::Path::cast)
            // Each path once, from its outermost node.
            .filter(|path| path.syntax().parent().and_then(ast::Path::cast).is_none())
            // `CubeBackend<WgpuRuntime, f32, i32, u32>`: an argument of a backend type goes
            // with the type, which `Device` values replace.
            .filter(|path| !argument_of_a_backend_type(ctx, path))
            .find_map(|path| {
                let names = segment_names(&path);
                if let Some(full) = names.first().and_then(|first| imported.get(first)) {
                    return Some(full.clone());
                }
                written_out_extension_api(ctx, ctx.crates().canonical(names))
            });
        let Some(used) = used else {
            continue;
        };
        leave_to_a_person(
            ctx,
            item.syntax(),
            format!("this function uses `{used}`, backend-extension API that Burn 0.22.1 has at the same path: port the function by hand (`#[backend_extension]`, feature `extension`; CubeCL 0.11 for kernels); it is left as written"),
        );
    }
}

/// The item a path written out names (`burn::backend::wgpu::into_contiguous(..)`,
/// `burn::backend::wgpu::CubeTensor::new(..)`), when it is backend-extension API that Burn
/// 0.22.1 has at the same path. A path through a backend or device type
/// (`burn::backend::ndarray::NdArrayDevice::default()`) is not: `Device` values replace it.
fn written_out_extension_api(ctx: &FileCtx, names: Vec<String>) -> Option<String> {
    for end in 1..=names.len() {
        let item = &names[..end];
        let name = &item[end - 1];
        // Modules (`wgpu`, `ndarray`) are lowercase; types that `Device` values replace not.
        if name.starts_with(char::is_uppercase) && ctx.index.replaces_backend_name(name) {
            return None;
        }
        let path = item.join("::");
        // An item, not a module on the way to one (`burn::backend::wgpu::graphics`).
        let is_item = crate::rules::framework::api_0_22_line(&path)
            .is_some_and(|line| line.split(' ').nth(1) != Some("module"));
        if end > 2 && is_item && imports::keeps_extension_api(ctx, item) {
            return Some(path);
        }
    }
    None
}

/// Whether `path` is a generic argument of a type the port replaces by `Device` values: of a
/// backend or wrapper type, or of a type the index reads as a backend
/// (`CubeBackend<WgpuRuntime, f32, i32, u32>` is Wgpu's).
fn argument_of_a_backend_type(ctx: &FileCtx, path: &ast::Path) -> bool {
    let owner = (path.syntax().ancestors())
        .find_map(ast::GenericArgList::cast)
        .and_then(|args| args.syntax().parent())
        .and_then(ast::PathSegment::cast)
        .and_then(|segment| segment.name_ref());
    owner.is_some_and(|name| ctx.index.replaces_backend_name(name.text()))
        || (path.syntax().ancestors().skip(1))
            .filter_map(ast::PathType::cast)
            .any(|ty| {
                let ty = ast::Type::PathType(ty);
                ctx.index.resolve_backend_type(ctx.file_id, &ty).is_some()
            })
}

/// Items an earlier `--apply` left to a person, under this rule's to-do marker (`migrate::
/// markers`; their first comment, which the parse puts inside the item), stay a person's on
/// the port: no edit inside, and the findings inside are part of the marker's
/// (`fold_findings_inside`), as they were part of the finding the marker stands for. The port
/// is 0.22 code, where kernel API that 0.22.1 keeps at its path is no finding of its own, so
/// only the marker says so.
fn left_by_an_earlier_port(ctx: &mut FileCtx) {
    let marked = marked_items(&ctx.root(), &ctx.file.text);
    ctx.hands_off.extend(marked);
}

/// The items of the file at `root` (whose text is `text`) that start with this rule's to-do
/// marker (see `left_by_an_earlier_port`).
pub fn marked_items(root: &SyntaxNode, text: &str) -> Vec<TextRange> {
    let head = todo_marker(RuleId::BackendExtensionTrait.into());
    if !text.contains(&head) {
        return Vec::new();
    }
    (root.descendants_with_tokens())
        .filter_map(|element| element.into_token())
        .filter(|token| token.kind() == SyntaxKind::COMMENT && token.text().contains(&head))
        .filter_map(|comment| {
            let item = comment.parent()?;
            let first = ast::Item::can_cast(item.kind())
                && (item.children_with_tokens())
                    .take_while(|element| element.as_token() != Some(&comment))
                    .all(|element| {
                        matches!(element.kind(), SyntaxKind::COMMENT | SyntaxKind::WHITESPACE)
                    });
            first.then(|| item.text_range())
        })
        .collect()
}

/// Reports `item` over its whole text and keeps every edit out of it.
fn leave_to_a_person(ctx: &mut FileCtx, item: &ra_ap_syntax::SyntaxNode, message: String) {
    let range = item.text_range();
    ctx.hands_off.push(range);
    ctx.push(Change::manual(
        range,
        RuleId::BackendExtensionTrait,
        message,
    ));
}

/// The findings inside what a person ports as a whole (`regions`, `FileCtx::hands_off`) are
/// steps of that one port: each goes into the finding of the innermost region around it, which
/// names them by rule, instead of being a site of its own (with a marker in text the port
/// leaves as written). A region's own finding (this rule's, over the region's whole text) stays,
/// nested or not: an impl inside a function is ported on its own.
pub fn fold_findings_inside(changes: &mut Vec<Change>, regions: &[TextRange]) {
    let own_region = |c: &Change| {
        let whole = c.rule == RuleKey::Builtin(RuleId::BackendExtensionTrait);
        (regions.iter()).position(|r| whole && *r == c.range)
    };
    let innermost = |range: TextRange| {
        (regions.iter().enumerate())
            .filter(|(_, r)| r.contains_range(range))
            .min_by_key(|(_, r)| r.len())
            .map(|(i, _)| i)
    };
    // By region (its position in `regions`) and rule: how many findings went in.
    let mut inside: BTreeMap<(usize, &'static str), usize> = BTreeMap::new();
    changes.retain(|c| {
        if c.fix.is_some() || own_region(c).is_some() {
            return true;
        }
        match innermost(c.range) {
            Some(region) => {
                *inside.entry((region, c.rule.as_str())).or_default() += 1;
                false
            }
            None => true,
        }
    });
    for change in changes.iter_mut() {
        let Some(region) = own_region(change) else {
            continue;
        };
        let held: Vec<String> = (inside.iter())
            .filter(|((of, _), _)| regions[*of] == regions[region])
            .map(|((_, rule), count)| format!("{count} `{rule}`"))
            .collect();
        if !held.is_empty() {
            change.message = format!(
                "{} (it holds what else changed inside: {})",
                change.message,
                held.join(", ")
            );
        }
    }
}

/// What an earlier `--apply` left to a person under a `backend-extension-trait` to-do marker
/// in `text` (a port, with its markers): the findings of `changes` (the check of the port
/// before its markers went in) inside such an item are part of the marker's, as
/// `FileCtx::hands_off` makes them when the written port is checked. The items that check
/// reported whole themselves keep their findings, as there.
pub fn fold_into_marked_items(changes: &mut Vec<Change>, text: &str, edition: Edition) {
    let whole = RuleKey::from(RuleId::BackendExtensionTrait);
    if !text.contains(&todo_marker(whole)) {
        return;
    }
    let root = crate::migrate::source::parse(text, edition)
        .0
        .syntax()
        .clone();
    let mut regions = marked_items(&root, text);
    let reported_whole = (changes.iter())
        .filter(|c| c.rule == whole && c.fix.is_none())
        .map(|c| c.range)
        .filter(|&range| crate::util::syntax::node_spanning(&root, range).is_some());
    regions.extend(reported_whole);
    fold_findings_inside(changes, &regions);
}
