//! The rewrite stage: transforms turn what the index knows into edits and findings.
//!
//! Each transform is one file with a `run` function over one source file. Rule files name the
//! transform that implements them (`transform = "..."`); `build.rs` turns those names into
//! `TransformId`, and a transform runs for, and emits the ids of, the rules that name it
//! (`RuleId` variants, generated from the rule files as well). `ORDER` is the order they run in.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use ra_ap_syntax::TextRange;

use crate::edit::Change;
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

/// Files from this size up run their steps on several threads: one large file (a generated
/// one, say) would otherwise keep one core busy while the others wait. Each thread that joins
/// builds its own view of the tree (`FileCtx::new`, a walk of the file), which a small file's
/// steps do not repay.
const STEPS_IN_PARALLEL_FROM: usize = 256 * 1024;

/// What one step left in the context: its changes and what it recorded for the steps after
/// it and for the caller.
#[derive(Clone)]
struct StepOutput {
    changes: Vec<Change>,
    needed_imports: BTreeSet<String>,
    device_choices: Vec<DeviceChoice>,
    hands_off: Vec<TextRange>,
    /// Whether the step asked whether the code is migrated (`FileCtx::migrated`).
    asked_migrated: bool,
}

/// What a run of the steps before `device-import` leaves that a later run over the same file
/// and index, with the other `migrated`, would leave again: the output of each step that did
/// not ask `FileCtx::migrated` (a step's output depends on the file, the index, the rules and
/// that answer alone) and changed no text (`None` for the others, which run again). The
/// check of a port (`migrated`) reads the same files and index as the rewrite's last pass.
#[derive(Default)]
pub struct Reusable(Vec<Option<StepOutput>>);

impl StepOutput {
    /// Takes the context's outputs, leaving them empty.
    fn take_from(ctx: &mut FileCtx) -> StepOutput {
        StepOutput {
            changes: std::mem::take(&mut ctx.changes),
            needed_imports: std::mem::take(&mut ctx.needed_imports),
            device_choices: std::mem::take(&mut ctx.device_choices),
            hands_off: std::mem::take(&mut ctx.hands_off),
            asked_migrated: false,
        }
    }

    /// Adds these outputs after the context's own.
    fn append_to(self, ctx: &mut FileCtx) {
        ctx.changes.extend(self.changes);
        ctx.needed_imports.extend(self.needed_imports);
        ctx.device_choices.extend(self.device_choices);
        ctx.hands_off.extend(self.hands_off);
    }
}

/// Runs every transform over one file.
///
/// The steps before `device-import` read only the file and the index, never each other's
/// output, so each runs on a context of its own (in parallel for a large file) and their
/// outputs are put together in `ORDER`; `device-import` then reads them all.
pub fn run_all(ctx: &mut FileCtx) -> Result<(), Error> {
    run_all_reusing(ctx, Reusable::default(), false, |_| ()).map(drop)
}

/// `run_all`, taking the outputs `reuse` holds instead of running their steps, and returning
/// (with `keep`) what this run leaves for reuse, and what `beside` makes of the context: work
/// that reads the file as the steps do, but none of their outputs (for a large file it runs
/// on this thread while others run steps).
pub fn run_all_reusing<T>(
    ctx: &mut FileCtx,
    reuse: Reusable,
    keep: bool,
    beside: impl FnOnce(&FileCtx) -> T,
) -> Result<(Reusable, T), Error> {
    let in_parallel =
        ctx.file.text.len() >= STEPS_IN_PARALLEL_FROM && rayon::current_num_threads() > 1;
    run_all_steps(ctx, in_parallel, reuse, keep, beside)
}

fn run_all_steps<T>(
    ctx: &mut FileCtx,
    in_parallel: bool,
    reuse: Reusable,
    keep: bool,
    beside: impl FnOnce(&FileCtx) -> T,
) -> Result<(Reusable, T), Error> {
    let (&last, independent) = ORDER.split_last().expect("ORDER is not empty");
    let mut reused = reuse.0;
    reused.resize_with(independent.len(), || None);
    let to_run: Vec<Step> = (independent.iter().zip(&reused))
        .filter(|(_, output)| output.is_none())
        .map(|(&step, _)| step)
        .collect();
    let (ran, beside) = if in_parallel {
        run_steps_in_parallel(ctx, &to_run, beside)
    } else {
        let ran = to_run.iter().map(|&step| run_step(ctx, step)).collect();
        (ran, beside(ctx))
    };
    let mut ran = ran.into_iter();
    let outputs: Vec<StepOutput> = reused
        .into_iter()
        .map(|output| output.or_else(|| ran.next()))
        .collect::<Option<_>>()
        .ok_or_else(|| Error::Internal("a step neither ran nor was reused".to_string()))?;
    let kept = Reusable(if keep {
        let reusable = |output: &StepOutput| {
            !output.asked_migrated && output.changes.iter().all(|c| c.replacement.is_none())
        };
        (outputs.iter())
            .map(|output| reusable(output).then(|| output.clone()))
            .collect()
    } else {
        Vec::new()
    });
    // The changes so far (a doc test's, put there by the caller) come first.
    for (&step, output) in independent.iter().zip(outputs) {
        check_rules_emitted(step, &output.changes, ctx.rules)?;
        output.append_to(ctx);
    }
    let first_new = ctx.changes.len();
    run(ctx, last);
    check_rules_emitted(last, &ctx.changes[first_new..], ctx.rules)?;
    // What a person ports as a whole keeps its text: no edit inside, findings stay.
    let hands_off = std::mem::take(&mut ctx.hands_off);
    ctx.changes.retain(|c| {
        c.replacement.is_none() || !hands_off.iter().any(|r| lands_inside(*r, c.range))
    });
    ctx.hands_off = hands_off;
    Ok((kept, beside))
}

fn run(ctx: &mut FileCtx, step: Step) {
    match step {
        Step::Transform(id) => transform(id)(ctx),
        Step::DataRules => data_rules::run(ctx),
    }
}

/// Runs `step` with nothing in the context's outputs, and takes what it left there.
fn run_step(ctx: &mut FileCtx, step: Step) -> StepOutput {
    let earlier = StepOutput::take_from(ctx);
    ctx.take_asked_migrated();
    run(ctx, step);
    let mut output = StepOutput::take_from(ctx);
    output.asked_migrated = ctx.take_asked_migrated();
    earlier.append_to(ctx);
    output
}

/// Whether `step` reads the file's paths (`FileCtx::nodes::<ast::Path>()` and the like):
/// such steps run on the thread whose context lists them, so that other threads' contexts
/// need not (`FileCtx::listing`). A step left out here still runs right, on a
/// context that lists paths when asked; the test `steps_not_reading_paths_list_none` keeps
/// the list true.
fn reads_paths(step: Step) -> bool {
    matches!(
        step,
        Step::DataRules
            | Step::Transform(
                TransformId::AssociatedTypes
                    | TransformId::DeviceValues
                    | TransformId::BackendAssociatedItem
                    | TransformId::BackendElementGenerics
            )
    )
}

/// `run_step` for each of `steps`, shared out among the threads that are free: this one with
/// `ctx`, the others each with a context of its own (syntax nodes stay on their thread). This
/// thread takes steps from the front of a queue that holds those reading paths first, the
/// others from its back, as long as the step there does not read paths; so their contexts
/// list no paths, and a slow step does not hold up the rest. This thread runs `beside` first.
fn run_steps_in_parallel<T>(
    ctx: &mut FileCtx,
    steps: &[Step],
    beside: impl FnOnce(&FileCtx) -> T,
) -> (Vec<StepOutput>, T) {
    let mut queue: Vec<usize> = (0..steps.len()).collect();
    queue.sort_by_key(|&i| !reads_paths(steps[i]));
    // The untaken part of `queue`: from the first to one before the second.
    let untaken = Mutex::new((0, queue.len()));
    let take = |from_front: bool| {
        let mut untaken = untaken.lock().unwrap_or_else(PoisonError::into_inner);
        let (front, back) = *untaken;
        if front == back {
            return None;
        }
        if from_front {
            untaken.0 += 1;
            Some(queue[front])
        } else if reads_paths(steps[queue[back - 1]]) {
            None
        } else {
            untaken.1 -= 1;
            Some(queue[back - 1])
        }
    };
    let done: Mutex<Vec<(usize, StepOutput)>> = Mutex::new(Vec::with_capacity(steps.len()));
    let run_taken = |ctx: &mut FileCtx, i: usize| {
        let output = run_step(ctx, steps[i]);
        done.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((i, output));
    };
    let (index, rules, file_id, file, migrated) =
        (ctx.index, ctx.rules, ctx.file_id, ctx.file, ctx.migrated());
    let beside = rayon::in_place_scope(|scope| {
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(|_| {
                // A thread that finds nothing it may take need not walk the tree.
                if let Some(first) = take(false) {
                    let own = &mut FileCtx::listing(index, rules, file_id, file, migrated, false);
                    run_taken(own, first);
                    while let Some(i) = take(false) {
                        run_taken(own, i);
                    }
                }
            });
        }
        let beside = beside(ctx);
        while let Some(i) = take(true) {
            run_taken(ctx, i);
        }
        beside
    });
    let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    done.sort_unstable_by_key(|(i, _)| *i);
    let outputs = done.into_iter().map(|(_, output)| output).collect();
    (outputs, beside)
}

/// An internal error when `step` emitted a change of a rule that does not name it.
fn check_rules_emitted(step: Step, changes: &[Change], rules: &RuleSet) -> Result<(), Error> {
    match changes.iter().find(|c| !may_emit(step, c.rule, rules)) {
        Some(stray) => Err(Error::Internal(format!(
            "{} emitted a change of rule `{}`, which does not name it",
            step.name(),
            stray.rule
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::index::Index;
    use crate::migrate::source::SourceFile;
    use ra_ap_syntax::ast;

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

    /// `src/lib.rs` of a one-package workspace, holding `text`.
    fn lib_rs(text: String) -> SourceFile {
        let edition = ra_ap_syntax::Edition::Edition2021;
        SourceFile::from_text("src/lib.rs".into(), "src/lib.rs".into(), text, 0, edition)
    }

    /// A step `reads_paths` leaves out lists no paths when it runs, on any source file of the
    /// test projects, as 0.21 code or as 0.22: the threads that run such steps need no path
    /// list.
    #[test]
    fn steps_not_reading_paths_list_none() {
        let rules = RuleSet::embedded().unwrap();
        let projects = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/projects");
        let sources: Vec<_> = crate::util::files::rust_files(projects.as_ref(), true)
            .iter()
            .map(|path| lib_rs(std::fs::read_to_string(path).unwrap()))
            .collect();
        assert!(sources.len() > 20, "{} files", sources.len());
        let (&_last, independent) = ORDER.split_last().unwrap();
        for file in &sources {
            let files = std::slice::from_ref(file);
            let index = Index::build(files, &rules);
            for &step in independent.iter().filter(|&&step| !reads_paths(step)) {
                for migrated in [false, true] {
                    let mut ctx = FileCtx::listing(&index, &rules, 0, file, migrated, false);
                    run_step(&mut ctx, step);
                    assert!(!ctx.has_path_list(), "{} on {}", step.name(), file.text);
                }
            }
        }
        // And the steps it names do read them.
        let file = &sources[0];
        let index = Index::build(std::slice::from_ref(file), &rules);
        let mut ctx = FileCtx::listing(&index, &rules, 0, file, false, false);
        run_step(&mut ctx, Step::DataRules);
        assert!(ctx.has_path_list());
    }

    /// Steps shared out among threads leave what they leave one after another: the same
    /// changes in the same order, the same imports and device choices, and the same uses of
    /// backend parameters found beside them.
    #[test]
    fn steps_in_parallel_leave_what_steps_in_order_leave() {
        let unit = r#"
use burn::backend::{Autodiff, NdArray};
use burn::tensor::{backend::Backend, Tensor};

type Train = Autodiff<NdArray>;

struct Model<B: Backend> {
    weight: Tensor<B, 2>,
}

fn forward<B: Backend>(model: &Model<B>, device: &B::Device) -> Tensor<B, 2> {
    let ones = Tensor::<B, 2>::ones([2, 2], device);
    model.weight.clone() + ones
}

fn train() {
    let device = burn::backend::ndarray::NdArrayDevice::Cpu;
    let model: Model<Train> = Model { weight: Tensor::zeros([2, 2], &device) };
    let _ = forward(&model, &device);
}
"#;
        let mut text = String::new();
        for i in 0.. {
            if text.len() >= STEPS_IN_PARALLEL_FROM {
                break;
            }
            text.push_str(&format!("mod m{i} {{{unit}}}\n"));
        }
        let rules = RuleSet::embedded().unwrap();
        let files = [lib_rs(text)];
        let index = Index::build(&files, &rules);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let leave = |in_parallel: bool| {
            pool.install(|| {
                let mut ctx = FileCtx::new(&index, &rules, 0, &files[0], false);
                let uses = |ctx: &FileCtx| {
                    let uses = crate::migrate::dangling::uses(ctx);
                    uses.iter()
                        .map(|u| (u.range, u.name.clone()))
                        .collect::<Vec<_>>()
                };
                let (_, uses) =
                    run_all_steps(&mut ctx, in_parallel, Reusable::default(), false, uses).unwrap();
                (ctx.changes, ctx.needed_imports, ctx.device_choices, uses)
            })
        };
        let in_order = leave(false);
        assert!(
            in_order.0.len() > 1000
                && !in_order.1.is_empty()
                && !in_order.2.is_empty()
                && !in_order.3.is_empty(),
            "the file exercises the steps: {} changes, {:?}, {} device choices, {} uses",
            in_order.0.len(),
            in_order.1,
            in_order.2.len(),
            in_order.3.len()
        );
        assert_eq!(leave(true), in_order);
    }

    /// A run that takes the outputs an earlier run with the other `migrated` left for reuse
    /// leaves what a run of every step leaves.
    #[test]
    fn reused_outputs_leave_what_running_every_step_leaves() {
        let text = r#"
use burn::backend::{Autodiff, NdArray};
use burn::data::dataloader::{DataLoader, DataLoaderBuilder};
use burn::record::CompactRecorder;
use burn::tensor::{backend::Backend, Tensor};

type Train = Autodiff<NdArray>;

struct Model<B: Backend> {
    weight: Tensor<B, 2>,
}

fn device<B: Backend>() -> B::Device {
    Default::default()
}

fn epoch<B: Backend>(loader: &dyn DataLoader<B, u8>, model: &Model<B>) -> usize {
    let _recorder = CompactRecorder::new();
    let _ = model.weight.clone().argmax(1);
    loader.iter().count()
}

fn train() {
    let device = burn::backend::ndarray::NdArrayDevice::Cpu;
    let model: Model<Train> = Model { weight: Tensor::zeros([2, 2], &device) };
    let _ = device::<Train>();
    let _ = model;
}
"#;
        let rules = RuleSet::embedded().unwrap();
        let files = [lib_rs(text.to_string())];
        let index = Index::build(&files, &rules);
        for (first, then) in [(false, true), (true, false), (true, true), (false, false)] {
            let run = |migrated: bool, reuse: Reusable| {
                let mut ctx = FileCtx::new(&index, &rules, 0, &files[0], migrated);
                let (kept, ()) = run_all_steps(&mut ctx, false, reuse, true, |_| ()).unwrap();
                (kept, (ctx.changes, ctx.needed_imports, ctx.device_choices))
            };
            let (kept, _) = run(first, Reusable::default());
            let reused = kept.0.iter().filter(|output| output.is_some()).count();
            assert!(reused > 5 && reused < ORDER.len() - 1, "{reused} reused");
            let (_, with_reuse) = run(then, kept);
            let (_, every_step) = run(then, Reusable::default());
            assert!(!every_step.0.is_empty());
            assert_eq!(with_reuse, every_step, "{first} then {then}");
        }
    }

    /// `FileCtx::paths_named` finds the paths a walk over every path finds, in its order.
    #[test]
    fn paths_named_are_the_paths_whose_last_segment_is_named() {
        let text = r#"
use burn::optim::{Optimizer, adaptor::OptimizerAdaptor as Adaptor};
use crate::Optimizer as _;
// Optimizer in a comment, "Optimizer" in a string
fn f<O: Optimizer<M, B>>(o: O) -> <O as Optimizer<M, B>>::Record {
    let x: Vec<Optimizer> = vec![Optimizer::new()];
    let y = crate::a::Optimizer::<Optimizer>::default();
    o.Optimizer(Optimizer { Optimizer: 1 });
    println!("{}", Optimizer::NAME);
    OptimizerAdaptor::<Optimizer>::from(o)
}
"#;
        let rules = RuleSet::embedded().unwrap();
        let files = [lib_rs(text.to_string())];
        let index = Index::build(&files, &rules);
        let ctx = FileCtx::new(&index, &rules, 0, &files[0], false);
        for names in [
            &["Optimizer"][..],
            &["OptimizerAdaptor", "Optimizer"],
            &["Missing"],
        ] {
            let walked: Vec<ast::Path> = ctx
                .nodes::<ast::Path>()
                .filter(|p| {
                    (p.segment().and_then(|s| s.name_ref()))
                        .is_some_and(|n| names.iter().any(|name| n.text() == *name))
                })
                .collect();
            assert_eq!(ctx.paths_named(names), walked, "{names:?}");
        }
        assert!(ctx.paths_named(&["Optimizer"]).len() >= 9);
    }
}
