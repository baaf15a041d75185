//! The rewrite stage: transforms turn what the index knows into edits and findings.
//!
//! Each transform is one file with a `run` function over one source file. Rule files name the
//! transform that implements them (`transform = "..."`); `build.rs` turns those names into
//! `TransformId`, and a transform runs for, and emits the ids of, the rules that name it
//! (`RuleId` variants, generated from the rule files as well). `ORDER` is the order they run in.

use ra_ap_syntax::TextRange;

use crate::error::Error;
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
mod backend_marker_trait;
mod context;
mod data_rules;
mod dataloader_iter_result;
mod dataset_get_result;
mod dataset_reads;
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

pub use context::{DeviceChoice, FileCtx};

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
        TransformId::BackendMarkerTrait => backend_marker_trait::run,
        TransformId::DataloaderIterResult => dataloader_iter_result::run,
        TransformId::DatasetGetResult => dataset_get_result::run,
        TransformId::DatasetReads => dataset_reads::run,
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
    Step::Transform(TransformId::BackendMarkerTrait),
    Step::Transform(TransformId::DeviceValues),
    Step::Transform(TransformId::AutodiffEntry),
    Step::Transform(TransformId::InnerDevice),
    Step::Transform(TransformId::AutodiffModule),
    Step::Transform(TransformId::BackendElem),
    Step::Transform(TransformId::DeriveClone),
    Step::Transform(TransformId::RecordFiles),
    Step::Transform(TransformId::DataloaderIterResult),
    Step::Transform(TransformId::DatasetGetResult),
    Step::Transform(TransformId::DatasetReads),
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

/// Whether an edit of `edit` changes text inside `region` (an insertion at its edge does not).
fn lands_inside(region: TextRange, edit: TextRange) -> bool {
    if edit.is_empty() {
        region.start() < edit.start() && edit.start() < region.end()
    } else {
        region
            .intersect(edit)
            .is_some_and(|overlap| !overlap.is_empty())
    }
}

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
const IMPORT_SIDE_OF: &[RuleId] = &[
    RuleId::AutodiffModule,
    RuleId::BackendTypeAlias,
    RuleId::BackendMarkerTrait,
    RuleId::BackendExtensionTrait,
];

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
    // What a person ports as a whole keeps its text: no edit inside, findings stay.
    let hands_off = std::mem::take(&mut ctx.hands_off);
    ctx.changes.retain(|c| {
        c.replacement.is_none() || !hands_off.iter().any(|r| lands_inside(*r, c.range))
    });
    ctx.hands_off = hands_off;
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
