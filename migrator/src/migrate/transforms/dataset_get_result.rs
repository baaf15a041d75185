//! `Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22, and panics past `len()`
//! (burn-dataset 0.22.1's `Dataset` contract, which its own `InMemDataset` keeps: `Some(item)`
//! is `Ok(item)`, `None` a panic). `fn get(&self, index: usize) -> Option<I>` in an
//! `impl Dataset<I> for ..` whose body hands its `Option` back only as its tail gets that
//! signature and `Ok(<tail>.unwrap_or_else(|| panic!(..)))`; a body that leaves by `return`
//! or `?` is reported, as its `None`s need a person.

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, TextRange};

use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use crate::edit::Change;
use crate::rules::{RuleId, TransformId};
use crate::util::syntax::{leaves_other_than_by_tail, segment_names, single_type_argument};

pub const TRANSFORM: Transform = Transform {
    step: Step::Transform(TransformId::DatasetGetResult),
    run,
    emits: &[RuleId::DatasetGetResult],
    emits_data_rules: false,
    order: Order::Rank(160),
    reads_paths: false,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    for (imp, function) in dataset_gets(ctx) {
        let Some(ret) = function.ret_type().and_then(|r| r.ty()) else {
            continue;
        };
        let Some(item) = single_type_argument(&ret, "Option") else {
            continue;
        };
        let tail = function.body().and_then(|b| b.tail_expr());
        let Some(tail) = tail.filter(|_| !leaves_other_than_by_tail(&function)) else {
            ctx.push(Change::manual(
                    ret.syntax().text_range(),
                    RuleId::DatasetGetResult,
                    "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22 (and panics past `len()`); this body returns early, so each `None` needs a person",
                ));
            continue;
        };
        let read = inner_read(ctx, &imp, &tail);
        if read == InnerRead::Other {
            ctx.push(Change::manual(
                    ret.syntax().text_range(),
                    RuleId::DatasetGetResult,
                    "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22 (and panics past `len()`); this body reads another dataset, whose reads return `Result`s too: port it by hand",
                ));
            continue;
        }
        let message = "`Dataset::get` returns `Result<I, DatasetError>` in Burn 0.22, and panics past `len()` (`None` becomes that panic)";
        ctx.push(Change::edit(
            ret.syntax().text_range(),
            format!("Result<{}, DatasetError>", item.syntax().text()),
            RuleId::DatasetGetResult,
            message,
        ));
        ctx.need_import("burn::data::dataset::DatasetError");
        // `self.items.get(index).map(..)` of a dataset field is a `Result` already in 0.22,
        // which also panics past its `len()`. Its error is that dataset's (`SqliteDataset`'s is
        // `SqliteDatasetError`): `DatasetError::new` wraps any, and displays it as it is.
        if read == InnerRead::WholeTail {
            ctx.push(Change::insert(
                tail.syntax().text_range().end(),
                ".map_err(DatasetError::new)",
                RuleId::DatasetGetResult,
                message,
            ));
            continue;
        }
        let index = index_name(&function);
        let panic = match &index {
            Some(index) => format!("panic!(\"dataset index {{{index}}} out of range\")"),
            None => "panic!(\"dataset index out of range\")".to_string(),
        };
        let close = format!(".unwrap_or_else(|| {panic}))");
        let wrapped = tail.syntax().text_range();
        for change in Change::wrap(wrapped, "Ok(", close, RuleId::DatasetGetResult, message) {
            ctx.push(change);
        }
    }
}

/// The `fn get` of each `impl Dataset<..> for ..` of the file, with its impl.
fn dataset_gets(ctx: &FileCtx) -> Vec<(ast::Impl, ast::Fn)> {
    let mut found = Vec::new();
    for imp in ctx.nodes::<ast::Impl>() {
        // Burn's `Dataset`, as the file's imports resolve it: a project trait of that name is
        // none of this rule's business.
        let is_dataset = imp
            .trait_()
            .and_then(|t| match t {
                ast::Type::PathType(p) => p.path(),
                _ => None,
            })
            .is_some_and(|p| {
                segment_names(&p).last().is_some_and(|n| n == "Dataset")
                    && ctx.index.burn_name(ctx.file_id, &p).as_deref() == Some("Dataset")
            });
        let Some(items) = imp.assoc_item_list().filter(|_| is_dataset) else {
            continue;
        };
        for item in items.assoc_items() {
            if let ast::AssocItem::Fn(function) = item {
                if function.name().is_some_and(|n| n.text() == "get") {
                    found.push((imp.clone(), function));
                }
            }
        }
    }
    found
}

/// The reads of a wrapped dataset that are whole tails of `get` (`InnerRead::WholeTail`):
/// 0.22's `Result` is what the ported `get` returns, so `dataset-results` has nothing to say
/// of them.
pub fn handed_on_reads(ctx: &FileCtx) -> Vec<TextRange> {
    if !ctx.file.text.contains("fn get") {
        return Vec::new();
    }
    (dataset_gets(ctx).into_iter())
        .filter_map(|(imp, function)| {
            let tail = function.body()?.tail_expr()?;
            (inner_read(ctx, &imp, &tail) == InnerRead::WholeTail)
                .then(|| tail.syntax().text_range())
        })
        .collect()
}

/// What `get`'s tail makes of another dataset it reads (a field of the implementing type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InnerRead {
    /// None: the tail's `Option` is the tail's own.
    None,
    /// The tail is that read, `.map(..)`ped or not: in 0.22 it is the `Result` `get` returns.
    WholeTail,
    /// The read sits elsewhere in the tail, whose 0.22 type only a person can tell.
    Other,
}

fn inner_read(ctx: &FileCtx, imp: &ast::Impl, tail: &ast::Expr) -> InnerRead {
    let reads: Vec<ast::MethodCallExpr> = (tail.syntax().descendants())
        .filter_map(ast::MethodCallExpr::cast)
        .filter(|call| reads_a_dataset_field(ctx, imp, call))
        .collect();
    let Some(read) = reads.first() else {
        return InnerRead::None;
    };
    // The tail, once its `.map(..)`s are taken off, must be that read.
    let mut value = tail.clone();
    while let ast::Expr::MethodCallExpr(call) = &value {
        if call.syntax() == read.syntax() {
            return if reads.len() == 1 {
                InnerRead::WholeTail
            } else {
                InnerRead::Other
            };
        }
        // `.map_err(DatasetError::new)` is the port's own, on a tail already ported.
        let maps = call
            .name_ref()
            .is_some_and(|n| n.text() == "map" || n.text() == "map_err")
            && call.arg_list().is_some_and(|a| a.args().count() == 1);
        match call.receiver().filter(|_| maps) {
            Some(receiver) => value = receiver,
            None => break,
        }
    }
    InnerRead::Other
}

/// `self.items.get(i)` (or `.iter()`) where the implementing type declares `items` (or `0`)
/// with a dataset type.
fn reads_a_dataset_field(ctx: &FileCtx, imp: &ast::Impl, call: &ast::MethodCallExpr) -> bool {
    let arity = match call.name_ref().map(|n| n.text().to_string()).as_deref() {
        Some("get") => 1,
        Some("iter") => 0,
        _ => return false,
    };
    if call.arg_list().map_or(0, |a| a.args().count()) != arity {
        return false;
    }
    let Some(ast::Expr::FieldExpr(field)) = call.receiver() else {
        return false;
    };
    let on_self =
        matches!(field.expr(), Some(ast::Expr::PathExpr(p)) if p.syntax().text() == "self");
    let Some(name) = field.name_ref().filter(|_| on_self) else {
        return false;
    };
    field_type(ctx, imp, name.text())
        .is_some_and(|ty| super::dataset_types::is_dataset_type(ctx, &ty))
}

/// The declared type of field `name` (a name, or a tuple position) of the type `imp` is for,
/// where the file declares that struct.
fn field_type(ctx: &FileCtx, imp: &ast::Impl, name: &str) -> Option<ast::Type> {
    let ast::Type::PathType(self_type) = imp.self_ty()? else {
        return None;
    };
    let type_name = segment_names(&self_type.path()?).pop()?;
    let declared = ctx
        .nodes::<ast::Struct>()
        .find(|s| s.name().is_some_and(|n| n.text() == type_name))?;
    match declared.field_list()? {
        ast::FieldList::RecordFieldList(fields) => fields
            .fields()
            .find(|f| f.name().is_some_and(|n| n.text() == name))?
            .ty(),
        ast::FieldList::TupleFieldList(fields) => {
            let position: usize = name.parse().ok()?;
            fields.fields().nth(position)?.ty()
        }
    }
}

/// The name of `get`'s index parameter, where it is a plain binding.
fn index_name(function: &ast::Fn) -> Option<String> {
    let param = function.param_list()?.params().next()?;
    match param.pat()? {
        ast::Pat::IdentPat(pat) if !pat.syntax().text().to_string().starts_with('_') => {
            Some(pat.name()?.text().to_string())
        }
        _ => None,
    }
}
