//! What a step of the rewrite stage declares about itself: each transform's file holds one
//! [`Transform`] (`pub const TRANSFORM`) beside its `run`, the way a ruff rule is its violation
//! and its check in one file. The rewrite stage reads nothing else about a step: its order,
//! which rules it may emit, whose import side it carries out, whether it reads paths and
//! whether its findings outlive the edits around them all come from here.

use super::context::FileCtx;
use crate::rules::{RuleId, TransformId};

/// One step of the rewrite stage over a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A transform, run for the rules whose `transform` field names it.
    Transform(TransformId),
    /// The data rules (`[[rewrite]]` tables of built-in and user rule files).
    DataRules,
}

impl Step {
    pub fn name(self) -> String {
        match self {
            Step::Transform(id) => format!("transform `{}`", id.as_str()),
            Step::DataRules => "the data rules".to_string(),
        }
    }
}

/// Where a step runs among the others. Every step reads the file as it was at the start of
/// the pass (the edits are applied together afterwards), so the order decides two things:
/// - what a step learns from those before it, which only a step that runs `Last` may use
///   (the others each run on a context of their own);
/// - the order of edits at one position: two insertions at one place (an import the data
///   rules add, the one `device-import` adds) are written in step order, and of two equal
///   edits the first one's rule is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Among the independent steps, by ascending rank (no two steps share one).
    Rank(u16),
    /// After every other step: it reads what they left in the context (one step only).
    Last,
}

impl Order {
    /// The sort key: `Last` after every rank.
    pub const fn key(self) -> u32 {
        match self {
            Order::Rank(rank) => rank as u32,
            Order::Last => u32::MAX,
        }
    }
}

/// The rules whose import side a step carries out besides its own: removing and rewriting
/// `use` items for every rule at once gives one edit per import list, so the removals of
/// different rules never overlap.
#[derive(Debug, Clone, Copy)]
pub struct ImportSide {
    /// Built-in rules whose transforms leave their imports to this step.
    pub rules: &'static [RuleId],
    /// The data rules' `rename-path` and `removed-item` tables, under their ids.
    pub data_rules: bool,
}

impl ImportSide {
    pub const NONE: ImportSide = ImportSide {
        rules: &[],
        data_rules: false,
    };
}

/// A step's facts, declared next to its code.
#[derive(Debug, Clone, Copy)]
pub struct Transform {
    pub step: Step,
    /// Reads one file's context, pushes its changes.
    pub run: fn(&mut FileCtx),
    /// The rules whose changes it makes: exactly those whose rule file names it
    /// (`transform = ".."`; a test checks both ways). The data rules' step emits the ids of
    /// the rules with `[[rewrite]]` tables instead (`emits_data_rules`).
    pub emits: &'static [RuleId],
    pub emits_data_rules: bool,
    pub order: Order,
    /// Whether it reads the file's paths (`FileCtx::nodes::<ast::Path>()` and the like): such
    /// steps run on the thread whose context lists them, so that other threads' contexts
    /// need not (`FileCtx::listing`). A step that says no here still runs right, on a
    /// context that lists paths when asked; the test `steps_not_reading_paths_list_none`
    /// keeps the declarations true.
    pub reads_paths: bool,
    pub import_side: ImportSide,
    /// Whether its findings stay even inside text an applied edit rewrites whole: what they
    /// report is lost with that text (the `f64` of a deleted `type B = NdArray<f64>;`), or
    /// outlives it (the record file a rewritten `save_file(path, recorder)` call still
    /// names), so the person has to hear it.
    pub findings_outlive_edits: bool,
}
