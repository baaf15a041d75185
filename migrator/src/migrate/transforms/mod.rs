//! The rewrite stage: transforms turn what the index knows into edits and findings.
//!
//! Each transform is one file with a `run` function over one source file. Rule files name the
//! transform that implements them (`transform = "..."`); `build.rs` turns those names into
//! `TransformId`, and a transform runs for, and emits the ids of, the rules that name it
//! (`RuleId` variants, generated from the rule files as well). `ORDER` is the order they run in.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use ra_ap_syntax::ast::{self, HasGenericParams};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange};

use crate::edit::Change;
use crate::error::Error;
use crate::migrate::index::{BackendParam, BackendSpec, Index};
use crate::migrate::source::SourceFile;
use crate::rules::{RuleId, RuleKey, RuleSet, TransformId};

mod associated_types;
mod autodiff_entry;
mod autodiff_module;
mod backend_alias;
mod backend_associated_item;
mod backend_calls;
mod backend_elem;
mod backend_element_generics;
mod backend_extension_trait;
mod data_rules;
mod dataloader_iter_result;
mod dataset_get_result;
mod derive_clone;
mod device_import;
mod device_values;
mod generic_args;
mod generic_params;
mod imports;
mod inner_device;
mod into_scalar;
mod module_record_type;
mod optimizer_bounds;
mod optimizer_init;
mod phantom;
mod record_files;
mod tensordata_fields;
mod use_items;

/// A transform: reads one file's context, pushes its changes.
pub type Transform = fn(&mut FileCtx);

/// The Rust code of each transform rule files name. The match is exhaustive over the
/// transforms that `build.rs` found in `rules/*.toml`: a rule naming a transform that has no
/// code here, or code here that no rule names, does not compile.
fn transform(id: TransformId) -> Transform {
    match id {
        TransformId::AssociatedTypes => associated_types::run,
        TransformId::AutodiffEntry => autodiff_entry::run,
        TransformId::AutodiffModule => autodiff_module::run,
        TransformId::BackendAlias => backend_alias::run,
        TransformId::BackendAssociatedItem => backend_associated_item::run,
        TransformId::BackendCalls => backend_calls::run,
        TransformId::BackendElem => backend_elem::run,
        TransformId::BackendElementGenerics => backend_element_generics::run,
        TransformId::BackendExtensionTrait => backend_extension_trait::run,
        TransformId::DataloaderIterResult => dataloader_iter_result::run,
        TransformId::DatasetGetResult => dataset_get_result::run,
        TransformId::DeriveClone => derive_clone::run,
        TransformId::DeviceImport => device_import::run,
        TransformId::DeviceValues => device_values::run,
        TransformId::GenericArgs => generic_args::run,
        TransformId::GenericParams => generic_params::run,
        TransformId::Imports => imports::run,
        TransformId::InnerDevice => inner_device::run,
        TransformId::IntoScalar => into_scalar::run,
        TransformId::ModuleRecordType => module_record_type::run,
        TransformId::OptimizerBounds => optimizer_bounds::run,
        TransformId::OptimizerInit => optimizer_init::run,
        TransformId::Phantom => phantom::run,
        TransformId::RecordFiles => record_files::run,
        TransformId::TensordataFields => tensordata_fields::run,
    }
}

/// One step of the rewrite stage over a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A transform, run for the rules whose `transform` field names it.
    Transform(TransformId),
    /// The data rules (`[[rewrite]]` tables of built-in and user rule files).
    DataRules,
}

impl Step {
    fn name(self) -> String {
        match self {
            Step::Transform(id) => format!("transform `{}`", id.as_str()),
            Step::DataRules => "the data rules".to_string(),
        }
    }
}

/// The order of the rewrite stage. Every transform reads the file as it was at the start of
/// the pass (the edits are applied together afterwards), so the order decides two things:
/// - what a transform learns from those before it: `device-import` adds the imports
///   (`Device`, `Gradients`, ...) the others' edits made necessary (`ctx.needed_imports`), so
///   it comes last; `imports` comes after the transforms whose edits leave imports unused;
/// - the order of edits at one position: two insertions at one place (an import the data
///   rules add, the one `device-import` adds) are written in this order, and of two equal
///   edits the first one's rule is reported.
pub const ORDER: [Step; TransformId::COUNT + 1] = [
    Step::Transform(TransformId::GenericParams),
    Step::Transform(TransformId::GenericArgs),
    Step::Transform(TransformId::AssociatedTypes),
    Step::Transform(TransformId::BackendCalls),
    Step::Transform(TransformId::Phantom),
    Step::Transform(TransformId::BackendAlias),
    Step::Transform(TransformId::DeviceValues),
    Step::Transform(TransformId::AutodiffEntry),
    Step::Transform(TransformId::InnerDevice),
    Step::Transform(TransformId::AutodiffModule),
    Step::Transform(TransformId::BackendElem),
    Step::Transform(TransformId::DeriveClone),
    Step::Transform(TransformId::RecordFiles),
    Step::Transform(TransformId::DataloaderIterResult),
    Step::Transform(TransformId::DatasetGetResult),
    Step::Transform(TransformId::IntoScalar),
    Step::DataRules,
    Step::Transform(TransformId::OptimizerInit),
    Step::Transform(TransformId::Imports),
    Step::Transform(TransformId::BackendAssociatedItem),
    Step::Transform(TransformId::OptimizerBounds),
    Step::Transform(TransformId::ModuleRecordType),
    Step::Transform(TransformId::BackendElementGenerics),
    Step::Transform(TransformId::TensordataFields),
    Step::Transform(TransformId::BackendExtensionTrait),
    Step::Transform(TransformId::DeviceImport),
];

// `ORDER` has one slot per transform and the data rules; no step twice means every transform
// runs exactly once.
const _: () = assert!(
    each_step_once(&ORDER),
    "a step occurs twice in transforms::ORDER"
);
const _: () = assert!(
    matches!(
        ORDER[ORDER.len() - 1],
        Step::Transform(TransformId::DeviceImport)
    ),
    "device-import must run last"
);

const fn each_step_once(order: &[Step]) -> bool {
    const fn slot(step: Step) -> usize {
        match step {
            Step::Transform(id) => id as usize,
            Step::DataRules => TransformId::COUNT,
        }
    }
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() {
            if slot(order[i]) == slot(order[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// Rules whose import side the `imports` transform carries out: it removes and rewrites `use`
/// items for every rule at once (one edit per import list, so the removals of different rules
/// never overlap), under the id of the rule each import belongs to.
const IMPORT_SIDE_OF: &[RuleId] = &[RuleId::AutodiffModule, RuleId::BackendTypeAlias];

/// Whether a step may emit a change of `rule`: a transform emits the ids of the rules that
/// name it (the `imports` transform also those of `IMPORT_SIDE_OF` and of the data rules);
/// the data rules emit their own ids.
fn may_emit(step: Step, rule: RuleKey, rules: &RuleSet) -> bool {
    let is_data_rule = rules
        .get(rule.as_str())
        .is_some_and(|r| !r.rewrites.is_empty());
    match (step, rule) {
        (Step::DataRules, _) => is_data_rule,
        (Step::Transform(TransformId::Imports), RuleKey::Builtin(id))
            if IMPORT_SIDE_OF.contains(&id) =>
        {
            true
        }
        (Step::Transform(TransformId::Imports), _) if is_data_rule => true,
        (Step::Transform(id), RuleKey::Builtin(rule)) => id.rules().contains(&rule),
        (Step::Transform(_), RuleKey::User(_) | RuleKey::Tool(_)) => false,
    }
}

/// One device value the port chose, for the report's device table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceChoice {
    pub range: TextRange,
    /// The 0.21 backend the device served (`Autodiff<NdArray>`), or `?` when unknown.
    pub backend: String,
    /// The 0.21 device value as written.
    pub value: String,
    /// The 0.22 expression written instead.
    pub device: String,
    /// The Cargo feature the expression needs.
    pub feature: String,
    pub rule: RuleKey,
}

/// What one transform run sees of one file.
pub struct FileCtx<'a> {
    pub index: &'a Index,
    pub rules: &'a RuleSet,
    pub file_id: usize,
    pub file: &'a SourceFile,
    /// True when the project already targets Burn 0.22: only regressions are reported.
    pub migrated: bool,
    pub changes: Vec<Change>,
    /// `burn::tensor` names the edits so far brought into use (`Device`, `DeviceKind`).
    pub needed_imports: BTreeSet<&'static str>,
    pub device_choices: Vec<DeviceChoice>,
    scope_cache: RefCell<HashMap<TextRange, Vec<BackendParam>>>,
    /// The file's syntax tree, rooted once for every transform (a root is per thread).
    root: SyntaxNode,
}

impl<'a> FileCtx<'a> {
    pub fn new(
        index: &'a Index,
        rules: &'a RuleSet,
        file_id: usize,
        file: &'a SourceFile,
        migrated: bool,
    ) -> Self {
        FileCtx {
            index,
            rules,
            file_id,
            file,
            migrated,
            changes: Vec::new(),
            needed_imports: BTreeSet::new(),
            device_choices: Vec::new(),
            scope_cache: RefCell::new(HashMap::new()),
            root: file.tree().syntax().clone(),
        }
    }

    pub fn root(&self) -> SyntaxNode {
        self.root.clone()
    }

    pub fn push(&mut self, change: Change) {
        self.changes.push(change);
    }

    /// Backend parameters declared by `node` (when it is an item) or any item around it.
    pub fn backends_in_scope(&self, node: &SyntaxNode) -> Vec<BackendParam> {
        let mut out = Vec::new();
        for ancestor in node.ancestors() {
            let Some(owner) = ast::AnyHasGenericParams::cast(ancestor.clone()) else {
                continue;
            };
            if owner.generic_param_list().is_none() {
                continue;
            }
            let range = ancestor.text_range();
            let params = self
                .scope_cache
                .borrow_mut()
                .entry(range)
                .or_insert_with(|| self.index.backend_params(self.file_id, &owner))
                .clone();
            out.extend(params);
        }
        out
    }

    /// Whether `ty` is a backend in this scope: a backend parameter, its `InnerBackend`, a
    /// Burn backend type or an alias of one.
    pub fn is_backend_type(&self, ty: &ast::Type, scope: &[BackendParam]) -> bool {
        if let Some(name) = crate::util::syntax::type_as_ident(ty) {
            if scope.iter().any(|b| b.name == name) {
                return true;
            }
        }
        if let ast::Type::PathType(path_type) = ty {
            if let Some(path) = path_type.path() {
                if is_inner_backend_of(&path, scope) {
                    return true;
                }
            }
        }
        self.index.resolve_backend_type(self.file_id, ty).is_some()
    }

    /// The concrete backends a function body names (its turbofish, annotations, aliases),
    /// outermost type first: `Autodiff<NdArray>` counts once, as autodiff NdArray.
    pub fn concrete_backends_in(&self, node: &SyntaxNode) -> Vec<BackendSpec> {
        let mut found: Vec<(TextRange, BackendSpec)> = Vec::new();
        for path_type in node.descendants().filter_map(ast::PathType::cast) {
            let range = path_type.syntax().text_range();
            if found.iter().any(|(r, _)| r.contains_range(range)) {
                continue;
            }
            if let Some(spec) = self
                .index
                .resolve_backend_type(self.file_id, &ast::Type::PathType(path_type))
            {
                found.push((range, spec));
            }
        }
        let mut specs: Vec<BackendSpec> = Vec::new();
        for (_, spec) in found {
            if !specs.contains(&spec) {
                specs.push(spec);
            }
        }
        specs
    }
}

/// The concrete backend whose device type a path names: `Cpu::Device` or
/// `<Cpu as Backend>::Device` for a backend alias or type `Cpu`.
pub fn concrete_device_owner(ctx: &FileCtx, path: &ast::Path) -> Option<BackendSpec> {
    let segment = path.segment()?;
    if segment.name_ref()?.text() != "Device" {
        return None;
    }
    let qualifier = path.qualifier()?;
    let owner = match qualifier.segment().and_then(|s| s.type_anchor()) {
        Some(anchor) => anchor.ty()?,
        None => ast::make::ty_path(qualifier),
    };
    ctx.index.resolve_backend_type(ctx.file_id, &owner)
}

/// `B::InnerBackend` or `<B as AutodiffBackend>::InnerBackend` for a backend `B`.
pub fn is_inner_backend_of(path: &ast::Path, scope: &[BackendParam]) -> bool {
    let Some(segment) = path.segment() else {
        return false;
    };
    if segment
        .name_ref()
        .is_none_or(|n| n.text() != "InnerBackend")
    {
        return false;
    }
    let Some(qualifier) = path.qualifier() else {
        return false;
    };
    let qualifier_name = match qualifier.segment().and_then(|s| s.type_anchor()) {
        Some(anchor) => anchor
            .ty()
            .as_ref()
            .and_then(crate::util::syntax::type_as_ident),
        None => crate::util::syntax::path_as_ident(&qualifier),
    };
    qualifier_name.is_some_and(|n| scope.iter().any(|b| b.name == n))
}

/// The 0.22 device expression for a resolved backend.
pub fn device_expression(index: &Index, spec: &BackendSpec) -> String {
    let mut expr = index.backends[spec.entry].device.clone();
    if spec.autodiff {
        expr.push_str(".autodiff()");
    }
    if spec.checkpointing {
        expr.push_str(".gradient_checkpointing()");
    }
    expr
}

/// Runs every transform over one file.
pub fn run_all(ctx: &mut FileCtx) -> Result<(), Error> {
    for step in ORDER {
        let first_new = ctx.changes.len();
        match step {
            Step::Transform(id) => transform(id)(ctx),
            Step::DataRules => data_rules::run(ctx),
        }
        if let Some(stray) = ctx.changes[first_new..]
            .iter()
            .find(|c| !may_emit(step, c.rule, ctx.rules))
        {
            return Err(Error::Internal(format!(
                "{} emitted a change of rule `{}`, which does not name it",
                step.name(),
                stray.rule
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_emit_only_the_rules_that_name_them() {
        let rules = RuleSet::embedded().unwrap();
        let may = |step, rule: RuleId| may_emit(step, rule.into(), &rules);
        let calls = Step::Transform(TransformId::BackendCalls);
        assert!(may(calls, RuleId::BackendSeed) && may(calls, RuleId::BackendSync));
        assert!(!may(calls, RuleId::OptimizerInit));
        let imports = Step::Transform(TransformId::Imports);
        assert!(may(imports, RuleId::AutodiffModule) && may(imports, RuleId::RecorderTypes));
        assert!(!may(imports, RuleId::BackendSeed));
        assert!(may(Step::DataRules, RuleId::RecorderTypes));
        assert!(!may(Step::DataRules, RuleId::BackendSeed));
        assert!(!may_emit(calls, RuleKey::User("team-rule"), &rules));
    }
}
