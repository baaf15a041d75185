//! Device values of 0.21 backends (`NdArrayDevice::Cpu`, `WgpuDevice::DiscreteGpu(0)`,
//! `CudaDevice::new(0)`, `FlexDevice`) become 0.22 `Device` constructors, and a
//! `Default::default()` used as a device becomes the explicit constructor of the backend the
//! surrounding function selects (0.22's `Device::default()` picks by a fixed priority among all
//! enabled backends, which silently changes behaviour when several are enabled). When that
//! function runs its backend under `Autodiff<..>`, the device gets `.autodiff()`. A data
//! loader built without `.set_device(..)` had the same default and gets its backend's device
//! (`data_loader_devices`).

use ra_ap_syntax::ast::{self, HasArgList, HasGenericArgs, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange, TextSize};

use super::context::{device_expression, FileCtx};
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::migrate::index::BackendSpec;
use crate::rules::backends::{Backend, BackendKey, ElementDTypes};
use crate::rules::device_expr::DeviceExpr;
use crate::rules::{RuleId, RuleKey, TransformId};
use crate::util::syntax::{callee_name, segment_names};

/// What backend a function body selects.
enum BodyBackend {
    None,
    One(BackendSpec),
    Conflict,
}

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DeviceValues),
    run,
    emits: &[
        RuleId::DefaultDevice,
        RuleId::DeviceCandle,
        RuleId::DeviceCopies,
        RuleId::DeviceCpu,
        RuleId::DeviceConstant,
        RuleId::DeviceCuda,
        RuleId::DeviceFlex,
        RuleId::DeviceLibtorch,
        RuleId::DeviceMetal,
        RuleId::DeviceNdarray,
        RuleId::DeviceRocm,
        RuleId::DeviceVulkan,
        RuleId::DeviceWebgpu,
        RuleId::DeviceWgpu,
    ],
    emits_data_rules: false,
    order: Order::Rank(80),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    let (first_new, first_choice) = (ctx.changes.len(), ctx.device_choices.len());
    // Device values by their type (`device_backend`) only where the file names one.
    if ctx.spells_a_device_type() {
        for node in ctx.listed_nodes() {
            if let Some(call) = ast::CallExpr::cast(node.clone()) {
                explicit_device_call(ctx, &call);
                default_device(ctx, &call);
            } else if let Some(path_expr) = ast::PathExpr::cast(node) {
                let is_callee = path_expr
                    .syntax()
                    .parent()
                    .and_then(ast::CallExpr::cast)
                    .is_some();
                if !is_callee {
                    explicit_device_path(ctx, &path_expr);
                }
            }
        }
    } else {
        // No device value by its type: only `default()` calls can be devices. A call's
        // callee starts the call and calls inside it start later, so the calls come in the
        // order of their callees. (A path expression right under a call is its callee: the
        // arguments are under the argument list.)
        for path in ctx.paths_named(&["default"]) {
            let call = (path.syntax().parent())
                .filter(|callee| ast::PathExpr::can_cast(callee.kind()))
                .and_then(|callee| callee.parent())
                .and_then(ast::CallExpr::cast);
            if let Some(call) = call {
                default_device(ctx, &call);
            }
        }
    }
    if ctx.spells_a_device_type() {
        clone_copied_parameters(ctx);
    }
    port_constant_devices(ctx, first_new, first_choice);
    read_lazy_device_consts(ctx);
    data_loader_devices(ctx);
    creation_options_devices(ctx);
}

/// `TensorCreationOptions::float()` (`int()`, `bool()`): burn-tensor 0.21.0 made the options
/// on the backend's default device (`tensor/api/options.rs`); the `default()` that
/// `tensor-creation-options` writes is `Device::default()` in 0.22.1, the first enabled
/// backend. Where the function around the call selects one backend, the options name its
/// device: `TensorCreationOptions::new(Device::flex())`.
fn creation_options_devices(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("TensorCreationOptions") || ctx.targets_0_22() {
        return;
    }
    for path in ctx.paths_named(&["float", "int", "bool"]) {
        let call = (path.syntax().parent())
            .filter(|callee| ast::PathExpr::can_cast(callee.kind()))
            .and_then(|callee| callee.parent())
            .and_then(ast::CallExpr::cast)
            .filter(|call| {
                call.arg_list()
                    .is_some_and(|list| list.args().next().is_none())
            });
        let owner = path
            .qualifier()
            .and_then(|q| ctx.index.burn_name(ctx.file_id, &q));
        let (Some(call), Some("TensorCreationOptions")) = (call, owner.as_deref()) else {
            continue;
        };
        let BodyBackend::One(spec) = site_backend(ctx, call.syntax()) else {
            continue;
        };
        let expr = default_device_choice(ctx, call.syntax(), &spec);
        let message = format!(
            "0.21's options were on the backend's default device, 0.22's `default()` on the first enabled backend; this code ran on `{}`, so the options name `{}`",
            ctx.index.backends[spec.backend].types[0],
            expr.summary()
        );
        ctx.push(Change::edit(
            call.syntax().text_range(),
            format!("TensorCreationOptions::new({expr})"),
            RuleId::DefaultDevice,
            message,
        ));
    }
}

/// `DataLoaderBuilder::new(..)..build(..)` without `.set_device(..)`: burn-core 0.21.0 loaded
/// the batches on the backend's default device (`self.device.unwrap_or_default()`, a
/// `B::Device`), 0.22.1 on `Device::default()`, the first enabled backend, which is another
/// backend once several are enabled (batches on wgpu, model on Flex). Where the loader's
/// backend is known (the builder's turbofish, the `let`'s `DataLoader<B, _>` type, or the one
/// backend the function selects), the port passes that backend's device. A differentiating
/// backend counts only where the loader's own type says so: the function's other loaders
/// (validation) ran on the inner backend.
fn data_loader_devices(ctx: &mut FileCtx) {
    if !ctx.file.text.contains("DataLoaderBuilder") {
        return;
    }
    let mut sites = Vec::new();
    for build in ctx.nodes::<ast::MethodCallExpr>() {
        if build.name_ref().is_none_or(|n| n.text() != "build") {
            continue;
        }
        let mut receiver = build.receiver();
        let mut sets_device = false;
        while let Some(ast::Expr::MethodCallExpr(inner)) = receiver {
            sets_device |= inner.name_ref().is_some_and(|n| n.text() == "set_device");
            receiver = inner.receiver();
        }
        let Some(ast::Expr::CallExpr(new)) = receiver.filter(|_| !sets_device) else {
            continue;
        };
        let Some(ast::Expr::PathExpr(callee)) = new.expr() else {
            continue;
        };
        let Some(path) = callee.path() else { continue };
        let is_new = path
            .segment()
            .and_then(|s| s.name_ref())
            .is_some_and(|n| n.text() == "new");
        let Some(builder) = path.qualifier().filter(|q| {
            is_new && ctx.index.burn_name(ctx.file_id, q).as_deref() == Some("DataLoaderBuilder")
        }) else {
            continue;
        };
        if let Some(spec) = data_loader_backend(ctx, &builder, &build) {
            sites.push((build, spec));
        }
    }
    if sites.is_empty() || ctx.targets_0_22() {
        return;
    }
    for (build, spec) in sites {
        let Some(dot) = build.dot_token() else {
            continue;
        };
        let expr = device_expression(ctx, &spec);
        note_imports(ctx, &expr);
        // On the line of its own that `.build(..)` has, if it has one.
        let indent = (dot.prev_token())
            .filter(|t| t.kind() == ra_ap_syntax::SyntaxKind::WHITESPACE && t.text().contains('\n'))
            .map(|t| t.text().rsplit('\n').next().unwrap_or_default().to_string());
        let text = match indent {
            Some(indent) => format!(".set_device({expr})\n{indent}"),
            None => format!(".set_device({expr})"),
        };
        let message = format!(
            "a data loader without `set_device` loads batches on `Device::default()` in Burn 0.22, the first enabled backend; this one ran on `{}`",
            ctx.index.backends[spec.backend].types[0]
        );
        ctx.push(Change::insert(
            dot.text_range().start(),
            text,
            RuleId::DefaultDevice,
            message,
        ));
    }
}

/// The backend a data loader's batches went to in 0.21: see `data_loader_devices`.
fn data_loader_backend(
    ctx: &FileCtx,
    builder: &ast::Path,
    build: &ast::MethodCallExpr,
) -> Option<BackendSpec> {
    let first_type = |args: Option<ast::GenericArgList>| {
        args?.generic_args().find_map(|arg| match arg {
            ast::GenericArg::TypeArg(arg) => arg.ty(),
            _ => None,
        })
    };
    // `DataLoaderBuilder::<B, I, O>::new(..)`
    let turbofish = first_type(builder.segment().and_then(|s| s.generic_arg_list()));
    // `let loader: Arc<dyn DataLoader<B, O>> = ..`
    let annotated = (build.syntax().parent())
        .and_then(ast::LetStmt::cast)
        .and_then(|binding| binding.ty())
        .and_then(|ty| {
            ty.syntax()
                .descendants()
                .filter_map(ast::PathSegment::cast)
                .find(|s| s.name_ref().is_some_and(|n| n.text() == "DataLoader"))
        })
        .and_then(|segment| first_type(segment.generic_arg_list()));
    if let Some(ty) = turbofish.or(annotated) {
        return ctx.index.resolve_backend_type(ctx.file_id, &ty);
    }
    match body_backend(ctx, build.syntax()) {
        BodyBackend::One(spec) => Some(BackendSpec {
            autodiff: false,
            checkpointing: false,
            ..spec
        }),
        _ => None,
    }
}

/// A 0.21 device could be a constant (`const DEVICE: NdArrayDevice = NdArrayDevice::Cpu;`);
/// `Device`'s constructors are not `const fn`, so the port of such an initializer does not
/// compile. A constant that is the device and nothing else, and that no file of the workspace
/// uses by value (`Index::lazy_device_consts`), becomes a `LazyLock` static: `DEVICE.clone()`
/// and method calls work through its `Deref`, and `read_lazy_device_consts` writes each
/// `&DEVICE` as `&*DEVICE`. Any other such item is reported, with that form. The changes and
/// device choices this run made start at `first_new` and `first_choice`.
fn port_constant_devices(ctx: &mut FileCtx, first_new: usize, first_choice: usize) {
    let mut found = Vec::new();
    let chosen = &ctx.device_choices[first_choice..];
    for change in &ctx.changes[first_new..] {
        let Some(replacement) = change.replacement() else {
            continue;
        };
        // An edit that wrote a device (or, for `cfg` branches, a block of them) is where the
        // device table notes a choice.
        if !chosen.iter().any(|choice| choice.range == change.range) {
            continue;
        }
        let Some(token) = ctx
            .root()
            .token_at_offset(change.range.start())
            .right_biased()
        else {
            continue;
        };
        // A closure (`LazyLock::new(|| Device::flex())`) or function inside the item runs at
        // run time, not in its const initializer.
        let item = token
            .parent_ancestors()
            .take_while(|n| !ast::ClosureExpr::can_cast(n.kind()) && !ast::Fn::can_cast(n.kind()))
            .find(|n| ast::Const::can_cast(n.kind()) || ast::Static::can_cast(n.kind()));
        if let Some(item) = item {
            found.push((item, change.range, change.rule, replacement.to_string()));
        }
    }
    found.dedup_by_key(|(item, ..)| item.text_range());
    for (item, device_range, rule, device) in found {
        let name = ast::Const::cast(item.clone())
            .and_then(|c| c.name())
            .or_else(|| ast::Static::cast(item.clone()).and_then(|s| s.name()))
            .map_or_else(|| "DEVICE".to_string(), |n| n.text().to_string());
        let lazy = format!("std::sync::LazyLock<Device> = std::sync::LazyLock::new(|| {device})");
        let constant =
            ast::Const::cast(item.clone()).filter(|_| ctx.index.lazy_device_consts.contains(&name));
        let parts = constant.as_ref().and_then(|c| {
            let body = c
                .body()
                .filter(|b| b.syntax().text_range() == device_range)?;
            Some((c.const_token()?, c.ty()?, body))
        });
        if let Some((keyword, ty, body)) = parts {
            ctx.push(Change::edit(
                keyword.text_range(),
                "static",
                RuleId::DeviceConstant,
                "`Device`'s constructors are not `const fn`: the device is made on first use",
            ));
            ctx.push(Change::edit(
                TextRange::new(
                    ty.syntax().text_range().start(),
                    body.syntax().text_range().end(),
                ),
                lazy,
                RuleId::DeviceConstant,
                format!("`{device}` is made on first use (`LazyLock`)"),
            ));
            ctx.need_import("burn::tensor::Device");
            continue;
        }
        ctx.push(Change::manual(
            item.text_range(),
            rule,
            format!("`{device}` is not a `const fn`: write `static {name}: {lazy};`"),
        ));
    }
}

/// `&DEVICE` of a constant the port makes a `LazyLock` static (`port_constant_devices`)
/// becomes `&*DEVICE`: a `&Device`, which a parameter generic over what it takes
/// (`impl Into<TensorCreationOptions>`) accepts, and `&LazyLock<Device>` is not.
fn read_lazy_device_consts(ctx: &mut FileCtx) {
    if ctx.index.lazy_device_consts.is_empty() {
        return;
    }
    let mut reads = Vec::new();
    // Rare enough to walk the tree for: `FileCtx::nodes` does not list references.
    for reference in ctx.root().descendants().filter_map(ast::RefExpr::cast) {
        let Some(ast::Expr::PathExpr(value)) = reference.expr() else {
            continue;
        };
        let named = (value.path().and_then(|p| p.segment()))
            .filter(|segment| segment.generic_arg_list().is_none())
            .and_then(|segment| segment.name_ref())
            .is_some_and(|name| ctx.index.lazy_device_consts.contains(name.text()));
        if named && reference.mut_token().is_none() {
            reads.push(value.syntax().text_range().start());
        }
    }
    for at in reads {
        ctx.push(Change::insert(
            at,
            "*",
            RuleId::DeviceConstant,
            "the device constant is a `LazyLock` static: `&*` reads the `Device` in it",
        ));
    }
}

/// The backend of a device type a path names (`NdArrayDevice`,
/// `wgpu::WgpuDevice`). Several backends share `WgpuDevice`; the backend the surrounding
/// function selects decides among them.
fn device_backend(ctx: &FileCtx, path: &ast::Path, at: &SyntaxNode) -> Option<BackendKey> {
    let name = ctx.index.burn_backend_name(ctx.file_id, path)?;
    let first = ctx.index.backend_of_device_type(&name)?;
    if let BodyBackend::One(spec) = body_backend(ctx, at) {
        if ctx.index.backends[spec.backend]
            .device_types
            .contains(&name)
        {
            return Some(spec.backend);
        }
    }
    Some(first)
}

/// `DeviceType::default()`, `DeviceType::new(i)`, `DeviceType::Variant(args)`.
fn explicit_device_call(ctx: &mut FileCtx, call: &ast::CallExpr) {
    let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
        return;
    };
    let Some(path) = callee.path() else { return };
    let Some(qualifier) = path.qualifier() else {
        return;
    };
    let Some(key) = device_backend(ctx, &qualifier, call.syntax()) else {
        return;
    };
    let Some(last) = segment_names(&path).pop() else {
        return;
    };
    let args = call
        .arg_list()
        .map(|a| ctx.file.slice(a.syntax().text_range()).to_string())
        .unwrap_or_default();
    let inner_args = args.trim_start_matches('(').trim_end_matches(')');
    let expr = device_for_variant(&ctx.index.backends[key], &last, &args, inner_args);
    replace_device(ctx, call.syntax(), key, expr);
}

/// `FlexDevice` (a unit struct) and unit variants such as `NdArrayDevice::Cpu`.
fn explicit_device_path(ctx: &mut FileCtx, path_expr: &ast::PathExpr) {
    let Some(path) = path_expr.path() else { return };
    if let Some(key) = device_backend(ctx, &path, path_expr.syntax()) {
        let expr = ctx.index.backends[key].device.clone();
        replace_device(ctx, path_expr.syntax(), key, expr);
        return;
    }
    let Some(qualifier) = path.qualifier() else {
        return;
    };
    let Some(key) = device_backend(ctx, &qualifier, path_expr.syntax()) else {
        return;
    };
    let Some(variant) = segment_names(&path).pop() else {
        return;
    };
    let expr = device_for_variant(&ctx.index.backends[key], &variant, "", "");
    replace_device(ctx, path_expr.syntax(), key, expr);
}

/// The 0.22 expression for `DeviceType::<name><args>` (`args` with parentheses, `inner`
/// without).
fn device_for_variant(backend: &Backend, name: &str, args: &str, inner: &str) -> DeviceExpr {
    // A variant (`CandleDevice::Metal(i)`) or the constructor named after it
    // (`CandleDevice::metal(i)`): the same device.
    let template = backend.variants.get(name).or_else(|| {
        backend
            .variants
            .iter()
            .find(|(variant, _)| variant.eq_ignore_ascii_case(name))
            .map(|(_, template)| template)
    });
    if let Some(template) = template {
        return template.fill("{args}", inner);
    }
    match name {
        "default" => backend.device.clone(),
        "new" => match &backend.device_new {
            Some(template) => template.fill("{args}", inner),
            None => backend.device.clone(),
        },
        variant => match &backend.device_variant {
            Some(template) => template.fill("{variant}", &format!("{variant}{args}")),
            None => backend.device.clone(),
        },
    }
}

fn replace_device(ctx: &mut FileCtx, node: &SyntaxNode, key: BackendKey, mut expr: DeviceExpr) {
    if let BodyBackend::One(spec) = site_backend(ctx, node) {
        if spec.backend == key && spec.autodiff {
            expr.autodiff = true;
            expr.checkpointing = spec.checkpointing;
        }
        if spec.backend == key {
            let elements = ctx.elements_in_scope(&spec.elements);
            ctx.index.backends.configure(key, &mut expr, &elements);
        }
    }
    note_imports(ctx, &expr);
    let backend = &ctx.index.backends[key];
    let rule = backend.rule;
    record_choice(ctx, node, key, &expr, rule);
    let message = format!("the device is `{}` in Burn 0.22", expr.summary());
    push_device(ctx, node, &expr, rule, message);
}

/// Writes `expr` for the device expression `node`. A configured device that initializes a
/// plain `let device = ..;` is configured on the binding, one statement after it
/// (`let mut device = Device::flex();` and `let _ = device.configure(IntDType::I64);`);
/// anywhere else it is the block `DeviceExpr` writes.
fn push_device(
    ctx: &mut FileCtx,
    node: &SyntaxNode,
    expr: &DeviceExpr,
    rule: impl Into<RuleKey>,
    message: String,
) {
    if let Some((range, text)) = configured_binding(ctx, node, expr) {
        ctx.push(Change::edit(range, text, rule, message));
    } else {
        ctx.push(Change::edit(
            node.text_range(),
            expr.to_string(),
            rule,
            message,
        ));
    }
    clone_copied_uses(ctx, node);
}

/// `let device = FlexDevice; train(device); infer(device);`: 0.21's device types of the CPU
/// backends were `Copy`, so a variable of one could be passed by value again and again. 0.22's
/// `Device` is `Clone` only (burn-tensor 0.22.1 `device.rs`): where the device `node` writes
/// initializes a plain `let`, each use that passes the variable by value and is followed by
/// another (not in another arm of a `match` or branch of an `if`), or sits in a loop the `let`
/// is outside of, passes `device.clone()`. (Code whose device was not `Copy` could not pass it
/// by value twice.) A use inside a closure is left alone, and so are the others then: a `move`
/// closure takes the variable whatever it calls.
fn clone_copied_uses(ctx: &mut FileCtx, node: &SyntaxNode) {
    let Some(statement) = node.parent().and_then(ast::LetStmt::cast) else {
        return;
    };
    let Some(ast::Pat::IdentPat(pattern)) = statement.pat() else {
        return;
    };
    if statement.initializer().as_ref().map(|i| i.syntax()) != Some(node) {
        return;
    }
    let Some(name) = pattern.name().map(|n| n.text().to_string()) else {
        return;
    };
    let Some(block) = statement.syntax().parent() else {
        return;
    };
    let after = statement.syntax().text_range().end();
    clone_uses_after(ctx, &name, &block, after);
}

/// `fn run(device: NdArrayDevice) { train(device); test(device); }`: a parameter of a 0.21
/// device type, which the port makes a `Device`, is cloned where it is passed on again, as a
/// `let` of one is (`clone_copied_uses`).
fn clone_copied_parameters(ctx: &mut FileCtx) {
    for function in ctx.nodes::<ast::Fn>() {
        let (Some(params), Some(body)) = (function.param_list(), function.body()) else {
            continue;
        };
        for param in params.params() {
            let (Some(ast::Pat::IdentPat(pattern)), Some(ast::Type::PathType(ty))) =
                (param.pat(), param.ty())
            else {
                continue;
            };
            let device_type = ty
                .path()
                .is_some_and(|path| device_backend(ctx, &path, param.syntax()).is_some());
            if let (true, Some(name)) = (device_type, pattern.name()) {
                let start = body.syntax().text_range().start();
                clone_uses_after(ctx, name.text(), body.syntax(), start);
            }
        }
    }
}

/// Clones the by-value uses of the device variable `name` in `block` from `after` on
/// (`clone_copied_uses`).
fn clone_uses_after(ctx: &mut FileCtx, name: &str, block: &SyntaxNode, after: TextSize) {
    let block = block.clone();
    // The uses up to the next binding of the name (which would be another value): after the
    // `let` that binds it (its initializer still reads this one), from another pattern.
    let rebound = (block.descendants())
        .filter_map(ast::IdentPat::cast)
        .filter(|p| p.syntax().text_range().start() >= after)
        .filter(|p| p.name().is_some_and(|n| n.text() == name))
        .map(|p| match p.syntax().parent().and_then(ast::LetStmt::cast) {
            Some(binding) => binding.syntax().text_range().end(),
            None => p.syntax().text_range().start(),
        })
        .min();
    let uses: Vec<ast::PathExpr> = (block.descendants())
        .filter_map(ast::PathExpr::cast)
        .filter(|p| p.syntax().text_range().start() >= after)
        .filter(|p| rebound.is_none_or(|end| p.syntax().text_range().start() < end))
        .filter(|p| {
            p.path()
                .and_then(|path| crate::util::syntax::path_as_ident(&path))
                .is_some_and(|n| n == name)
        })
        .collect();
    let in_closure = |p: &ast::PathExpr| {
        (p.syntax().ancestors())
            .take_while(|a| a != &block)
            .any(|a| ast::ClosureExpr::can_cast(a.kind()))
    };
    if uses.iter().any(in_closure) {
        return;
    }
    let in_loop = |p: &ast::PathExpr| {
        (p.syntax().ancestors())
            .take_while(|a| a != &block)
            .any(|a| {
                ast::ForExpr::can_cast(a.kind())
                    || ast::WhileExpr::can_cast(a.kind())
                    || ast::LoopExpr::can_cast(a.kind())
            })
    };
    let by_value = |p: &ast::PathExpr| {
        p.syntax().parent().is_some_and(|parent| {
            ast::ArgList::can_cast(parent.kind()) || ast::RecordExprField::can_cast(parent.kind())
        })
    };
    // Two uses in different arms of a `match` or branches of an `if` never both run.
    let exclusive = |used: &SyntaxNode, later: &SyntaxNode| {
        (used.ancestors().take_while(|a| a != &block)).any(|a| {
            let Some(parent) = a.parent() else {
                return false;
            };
            let arm = ast::MatchArm::can_cast(a.kind());
            let branch = ast::IfExpr::cast(parent.clone())
                .is_some_and(|i| i.condition().is_none_or(|c| c.syntax() != &a));
            (arm || branch)
                && !a.text_range().contains_range(later.text_range())
                && parent.text_range().contains_range(later.text_range())
        })
    };
    for (i, used) in uses.iter().enumerate().filter(|(_, u)| by_value(u)) {
        let used_later =
            (uses[i + 1..].iter()).any(|later| !exclusive(used.syntax(), later.syntax()));
        if used_later || in_loop(used) {
            // A field's shorthand (`Ctx { device, .. }`) is written out to hold the clone.
            let shorthand = (used.syntax().parent())
                .and_then(ast::RecordExprField::cast)
                .is_some_and(|field| field.name_ref().is_none());
            let range = used.syntax().text_range();
            let (range, text) = match shorthand {
                true => (range, format!("{name}: {name}.clone()")),
                false => (TextRange::empty(range.end()), ".clone()".to_string()),
            };
            ctx.push(Change::edit(
                range,
                text,
                RuleId::DeviceCopies,
                "Burn 0.22's `Device` is not `Copy`: a device passed on again is cloned",
            ));
        }
    }
}

/// `mut device = Device::flex();\n    let _ = device.configure(IntDType::I64);` for the text from
/// the name to the `;` of `let device = <node>;`: a binding with no type, `mut`, `ref`, `else`,
/// or comment in it, whose initializer is `node`.
fn configured_binding(
    ctx: &FileCtx,
    node: &SyntaxNode,
    expr: &DeviceExpr,
) -> Option<(TextRange, String)> {
    let configuration = expr.configuration()?;
    let statement = ast::LetStmt::cast(node.parent()?)?;
    if statement.initializer()?.syntax() != node
        || statement.ty().is_some()
        || statement.let_else().is_some()
    {
        return None;
    }
    let ast::Pat::IdentPat(pattern) = statement.pat()? else {
        return None;
    };
    if pattern.mut_token().is_some() || pattern.ref_token().is_some() || pattern.pat().is_some() {
        return None;
    }
    let name = pattern.name()?.text().to_string();
    let semicolon = statement.semicolon_token()?;
    let range = TextRange::new(
        pattern.syntax().text_range().start(),
        semicolon.text_range().end(),
    );
    let plain = |from: TextSize, to: TextSize, expected: &str| {
        ctx.file.slice(TextRange::new(from, to)).trim() == expected
    };
    if !plain(
        pattern.syntax().text_range().end(),
        node.text_range().start(),
        "=",
    ) || !plain(node.text_range().end(), semicolon.text_range().start(), "")
    {
        return None;
    }
    let indent = line_indent(ctx, statement.syntax());
    Some((
        range,
        format!(
            "mut {name} = {};\n{indent}let _ = {name}.configure({configuration});",
            expr.unconfigured()
        ),
    ))
}

/// The whitespace that starts the line `node` starts on.
fn line_indent(ctx: &FileCtx, node: &SyntaxNode) -> String {
    let line_start = ctx.file.text[..usize::from(node.text_range().start())]
        .rfind('\n')
        .map_or(0, |at| at + 1);
    ctx.file.text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The device of `spec` for a site where 0.21 used the backend's default device: its
/// expression, with its imports noted and the choice recorded under `default-device`.
fn default_device_choice(ctx: &mut FileCtx, site: &SyntaxNode, spec: &BackendSpec) -> DeviceExpr {
    let expr = device_expression(ctx, spec);
    note_imports(ctx, &expr);
    let rule = RuleId::DefaultDevice.into();
    record_choice(ctx, site, spec.backend, &expr, rule);
    expr
}

/// Notes the choice for the report's device table.
fn record_choice(
    ctx: &mut FileCtx,
    node: &SyntaxNode,
    key: BackendKey,
    expr: &DeviceExpr,
    rule: RuleKey,
) {
    let backend = &ctx.index.backends[key];
    let name = backend.types.first().cloned().unwrap_or_default();
    // The wrapper that differentiates (`Autodiff`), as the backend table names it.
    let autodiff_wrapper = ctx
        .index
        .wrappers
        .iter()
        .find(|w| w.autodiff)
        .and_then(|w| w.types.first());
    ctx.device_choices.push(super::context::DeviceChoice {
        range: node.text_range(),
        backend: match autodiff_wrapper {
            Some(wrapper) if expr.autodiff => format!("{wrapper}<{name}>"),
            _ => name,
        },
        value: ctx.file.slice(node.text_range()).to_string(),
        device: expr.summary(),
        feature: feature_of(ctx, expr).unwrap_or_else(|| backend.feature.clone()),
        rule,
    });
}

/// The Cargo feature a device expression needs: that of the backend whose constructor it
/// calls (a LibTorch CUDA device became `Device::cuda(0)`, which needs `cuda`).
fn feature_of(ctx: &FileCtx, expr: &DeviceExpr) -> Option<String> {
    ctx.index
        .backends
        .iter()
        .find(|b| b.device.constructor == expr.constructor)
        .map(|b| b.feature.clone())
}

fn note_imports(ctx: &mut FileCtx, expr: &DeviceExpr) {
    ctx.need_import("burn::tensor::Device");
    if expr.names_device_kind() {
        ctx.need_import("burn::tensor::DeviceKind");
    }
    for name in expr.dtype_names() {
        ctx.need_import(&format!("burn::tensor::{name}"));
    }
}

/// `Default::default()` where a device is expected.
fn default_device(ctx: &mut FileCtx, call: &ast::CallExpr) {
    if ctx.targets_0_22() {
        // 0.22 code may mean `Device::default()`; nothing to port.
        return;
    }
    let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
        return;
    };
    let Some(path) = callee.path() else { return };
    let names = segment_names(&path);
    // `B::Device::default()`, `<Cpu as Backend>::Device::default()`: a device by its type.
    let is_default = names.last().is_some_and(|n| n == "default");
    let qualifier = path.qualifier();
    let named_owner = qualifier
        .as_ref()
        .filter(|_| is_default)
        .and_then(|q| super::context::concrete_device_owner(ctx, q));
    let typed_default = is_default
        && qualifier.as_ref().is_some_and(|q| {
            let scope = ctx.backends_in_scope(call.syntax());
            crate::migrate::index::backend_device_path(q, &scope)
        });
    let default_call = names == ["Default", "default"];
    if named_owner.is_none()
        && !typed_default
        && !(default_call && device_uses(ctx, call.syntax()).is_some())
    {
        return;
    }
    let backend = match named_owner {
        Some(spec) => BodyBackend::One(spec),
        None => site_backend(ctx, call.syntax()),
    };
    if let Some(branches) = branch_alias(ctx, call.syntax(), &backend) {
        branch_devices(ctx, call, &backend, &branches);
        return;
    }
    match backend {
        BodyBackend::One(spec) => {
            let expr = default_device_choice(ctx, call.syntax(), &spec);
            let message = format!(
                "`Default::default()` picks the first enabled backend in Burn 0.22; this code ran on `{}`, so say `{}`",
                ctx.index.backends[spec.backend].types[0],
                expr.summary()
            );
            push_device(ctx, call.syntax(), &expr, RuleId::DefaultDevice, message);
        }
        BodyBackend::Conflict => ctx.push(Change::manual(
            call.syntax().text_range(),
            RuleId::DefaultDevice,
            "this device serves several backends: replace `Default::default()` with the `Device` constructor it is for",
        )),
        BodyBackend::None => ctx.push(Change::manual(
            call.syntax().text_range(),
            RuleId::DefaultDevice,
            "no concrete backend reaches this device here: `Device::default()` would pick the first enabled backend; pass the device in, or name its constructor",
        )),
    }
}

/// The cfg-branch alias (`index.alias_branches`) the function around a device site selects its
/// backend by, when it names exactly one and that one's backend is the site's.
fn branch_alias(
    ctx: &FileCtx,
    site: &SyntaxNode,
    backend: &BodyBackend,
) -> Option<Vec<(String, BackendSpec)>> {
    if ctx.index.alias_branches.is_empty() {
        return None;
    }
    let function = site.ancestors().find_map(ast::Fn::cast)?;
    let mut named: Vec<&str> = Vec::new();
    for path in function.syntax().descendants().filter_map(ast::Path::cast) {
        let Some(name) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        if let Some((alias, _)) = ctx
            .index
            .alias_branches
            .get_key_value(name.text().to_string().as_str())
        {
            if !named.contains(&alias.as_str()) {
                named.push(alias);
            }
        }
    }
    let [alias] = named.as_slice() else {
        return None;
    };
    let branches = ctx.index.alias_branches.get(*alias)?;
    let consistent = match backend {
        BodyBackend::One(spec) => branches.iter().any(|(_, b)| b.backend == spec.backend),
        // Several backends reach the site: the branches are those backends.
        BodyBackend::Conflict => true,
        BodyBackend::None => false,
    };
    consistent.then(|| branches.clone())
}

/// A device for each branch, under the branch's condition:
/// `{ #[cfg(a)] let device = ..; #[cfg(b)] let device = ..; device }`.
fn branch_devices(
    ctx: &mut FileCtx,
    call: &ast::CallExpr,
    backend: &BodyBackend,
    branches: &[(String, BackendSpec)],
) {
    let site_autodiff = matches!(backend, BodyBackend::One(spec) if spec.autodiff);
    let indent = line_indent(ctx, call.syntax());
    let mut block = String::from("{\n");
    let mut devices = Vec::new();
    for (cfg, spec) in branches {
        let mut spec = spec.clone();
        spec.autodiff |= site_autodiff;
        let expr = default_device_choice(ctx, call.syntax(), &spec);
        block.push_str(&format!(
            "{indent}    {cfg}\n{indent}    let device = {expr};\n"
        ));
        devices.push(format!("{cfg} {}", expr.summary()));
    }
    block.push_str(&format!("{indent}    device\n{indent}}}"));
    let message = format!(
        "the backend was chosen by `cfg` (one alias per branch); Burn 0.22 builds the device per branch: {}",
        devices.join(", ")
    );
    ctx.push(Change::edit(
        call.syntax().text_range(),
        block,
        RuleId::DefaultDevice,
        message,
    ));
}

/// The calls that consume the device `expr` makes: the call it is an argument of, or, for
/// `let name = <expr>;`, every call `name` is passed to in the same block. `None` when the
/// value is not used as a device.
fn device_uses(ctx: &FileCtx, expr: &SyntaxNode) -> Option<Vec<SyntaxNode>> {
    if let Some(let_stmt) = expr.parent().and_then(ast::LetStmt::cast) {
        let typed_device = let_stmt.ty().map(|ty| {
            let text = ty.syntax().text().to_string();
            text.ends_with("Device") && !text.contains('<')
        });
        let ast::Pat::IdentPat(pat) = let_stmt.pat()? else {
            return typed_device.filter(|t| *t).map(|_| Vec::new());
        };
        let name = pat.name()?.text().to_string();
        let body = expr.ancestors().find_map(ast::StmtList::cast)?;
        let uses: Vec<SyntaxNode> = body
            .syntax()
            .descendants()
            .filter_map(ast::PathExpr::cast)
            .filter(|p| {
                p.path()
                    .and_then(|p| crate::util::syntax::path_as_ident(&p))
                    .as_deref()
                    == Some(name.as_str())
            })
            .filter_map(|p| device_call(ctx, p.syntax()))
            .collect();
        return match (typed_device, uses.is_empty()) {
            (Some(false), _) => None,
            (Some(true), _) | (None, false) => Some(uses),
            (None, true) => None,
        };
    }
    device_call(ctx, expr).map(|call| vec![call])
}

/// The call `expr` (possibly under `&` or `.clone()`) is a device argument of, if any.
fn device_call(ctx: &FileCtx, expr: &SyntaxNode) -> Option<SyntaxNode> {
    let mut node = expr.clone();
    loop {
        let parent = node.parent()?;
        if ast::RefExpr::can_cast(parent.kind()) {
            node = parent;
            continue;
        }
        if let Some(method) = ast::MethodCallExpr::cast(parent.clone()) {
            let is_receiver = method.receiver().is_some_and(|r| r.syntax() == &node);
            if is_receiver && method.name_ref().is_some_and(|n| n.text() == "clone") {
                node = parent;
                continue;
            }
            return None;
        }
        break;
    }
    let arg_list = node.parent().and_then(ast::ArgList::cast)?;
    let position = arg_list.args().position(|a| a.syntax() == &node);
    let call = arg_list.syntax().parent()?;
    let callee = callee_name(&call)?;
    // `Model::new(..)` reaches the `new` of `impl Model`; a call by the name alone, whichever
    // function of that name the workspace has.
    let positions = callee_owner(&call)
        .and_then(|owner| ctx.index.owned_device_params.get(&(owner, callee.clone())))
        .or_else(|| ctx.index.device_params.get(&callee));
    let takes_device = ctx.index.device_taking.contains(callee.as_str())
        || position.is_some_and(|pos| positions.is_some_and(|p| p.contains(&pos)));
    takes_device.then_some(call)
}

/// The type a call `Type::function(..)` (or `Type::<B>::function(..)`) names.
fn callee_owner(call: &SyntaxNode) -> Option<String> {
    let ast::Expr::PathExpr(callee) = ast::CallExpr::cast(call.clone())?.expr()? else {
        return None;
    };
    segment_names(&callee.path()?.qualifier()?).pop()
}

/// The backend a device-consuming call names in its generic arguments
/// (`Tensor::<Train, 1>::ones`, `train::<Autodiff<NdArray>>`, `init::<MyBackend>`). A callee
/// that required an autodiff backend enables autodiff itself once migrated, so the device it
/// receives needs none.
fn call_backend(ctx: &FileCtx, call: &SyntaxNode) -> Option<BackendSpec> {
    let arg_lists: Vec<ast::GenericArgList> =
        if let Some(method) = ast::MethodCallExpr::cast(call.clone()) {
            use ra_ap_syntax::ast::HasGenericArgs;
            method.generic_arg_list().into_iter().collect()
        } else {
            let ast::Expr::PathExpr(callee) = ast::CallExpr::cast(call.clone())?.expr()? else {
                return None;
            };
            callee
                .path()?
                .syntax()
                .descendants()
                .filter_map(ast::GenericArgList::cast)
                .collect()
        };
    let mut spec = arg_lists
        .iter()
        .flat_map(|l| l.generic_args())
        .find_map(|arg| match arg {
            ast::GenericArg::TypeArg(t) => ctx.index.resolve_backend_type(ctx.file_id, &t.ty()?),
            _ => None,
        })?;
    let callee_adds_autodiff = callee_name(call)
        .and_then(|n| ctx.index.items.get(&n))
        .is_some_and(|i| i.autodiff);
    if callee_adds_autodiff {
        spec.autodiff = false;
    }
    Some(spec)
}

/// The backend the device made at `node` serves: what the calls that consume it name, or else
/// what the surrounding function selects. Autodiff when any consumer needs it.
fn site_backend(ctx: &FileCtx, node: &SyntaxNode) -> BodyBackend {
    let specs: Vec<BackendSpec> = device_uses(ctx, node)
        .unwrap_or_default()
        .iter()
        .filter_map(|call| call_backend(ctx, call))
        .collect();
    let Some(first) = specs.first() else {
        return body_backend(ctx, node);
    };
    if specs.iter().any(|s| s.backend != first.backend) {
        return BodyBackend::Conflict;
    }
    BodyBackend::One(BackendSpec {
        backend: first.backend,
        autodiff: specs.iter().any(|s| s.autodiff),
        checkpointing: specs.iter().any(|s| s.checkpointing),
        elements: agreed_elements(&specs),
    })
}

/// The concrete backend the function around `node` selects; for a device in no function (a
/// `const` or `static`), the module around it (`pub type InferenceBackend = Candle<ElemType>;`
/// beside `pub const INFERENCE_DEVICE: .. = LazyLock::new(|| CandleDevice::Cpu);`).
fn body_backend(ctx: &FileCtx, node: &SyntaxNode) -> BodyBackend {
    let scope = match node.ancestors().find_map(ast::Fn::cast) {
        Some(function) => Some(function.syntax().clone()),
        None => node
            .ancestors()
            .find(|a| ast::Module::can_cast(a.kind()) || ast::SourceFile::can_cast(a.kind())),
    };
    let specs = scope
        .map(|s| ctx.concrete_backends_in(&s))
        .unwrap_or_default();
    let Some(first) = specs.first() else {
        return BodyBackend::None;
    };
    if specs.iter().any(|s| s.backend != first.backend) {
        return BodyBackend::Conflict;
    }
    BodyBackend::One(BackendSpec {
        backend: first.backend,
        autodiff: specs.iter().all(|s| s.autodiff),
        checkpointing: specs.iter().all(|s| s.checkpointing),
        elements: agreed_elements(&specs),
    })
}

/// The element generics every one of `specs` (of one backend) was written with; the defaults
/// where they differ, which `backend-element-generics` reports.
fn agreed_elements(specs: &[BackendSpec]) -> ElementDTypes {
    let first = &specs[0].elements;
    if specs.iter().all(|s| &s.elements == first) {
        first.clone()
    } else {
        ElementDTypes::default()
    }
}
