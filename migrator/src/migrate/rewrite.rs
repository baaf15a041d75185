//! The rewrite stage's loop: the rules run over every source file of a workspace, pass after
//! pass, until a pass changes nothing (or as far as the findings need), and the result is
//! validated. Each file is an [`InFlight`] on the way: the file as the next pass reads it,
//! with what the passes found and made of it. What the last pass read can serve a later
//! rewrite of the same files ([`Ported`], [`LastPass`]): the check of the port.

use ra_ap_syntax::TextRange;
use rayon::prelude::*;

use crate::edit::{self, Change};
use crate::error::Error;
use crate::migrate::dangling;
use crate::migrate::doc_tests;
use crate::migrate::includes;
use crate::migrate::index::Index;
use crate::migrate::moot::drop_moot_findings;
use crate::migrate::outcome::FileOutcome;
use crate::migrate::source::{self, CodeTarget, FileIdentity, SourceFile};
use crate::migrate::suppress;
use crate::migrate::transforms::{self, FileCtx};
use crate::rules::RuleSet;
use crate::util::timing::{self, time};

/// Rules run again on their own output until nothing changes; a rule set that keeps
/// changing its own output past this many passes has a bug.
const MAX_PASSES: usize = 5;

/// How far `rewrite_sources` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passes {
    /// To the fixed point, with the rewritten files validated: the port's text.
    ToFixedPoint,
    /// As far as the findings need. They are the first pass's (later passes only finish the
    /// text), except the dangling uses of removed backend parameters, which are decided on the
    /// final text: when the first pass leaves no use that may dangle (`dangling::may_dangle`),
    /// it is the only pass and its output is not parsed again. `migrated` then holds the
    /// first pass's text, unvalidated.
    AsFindingsNeed,
}

/// Runs the rules over a set of source files (one workspace) to a fixed point and validates
/// the result, or as far as `passes` says. `target`: what the files are written for (Burn 0.22
/// already: only regressions count).
///
/// Each pass builds the workspace index once and shares it read-only while files are
/// rewritten in parallel (rayon); a file's rewrite reads only its own text and the index.
pub fn rewrite_sources(
    files: &[SourceFile],
    rules: &RuleSet,
    target: CodeTarget,
    passes: Passes,
) -> Result<Vec<FileOutcome>, Error> {
    rewrite_sources_parsed(files.to_vec(), rules, target, passes, None)
        .map(|(outcomes, _)| outcomes)
}

/// What the rewrite's last pass read: each file's parse (the port's text, where the port
/// changed it and the passes reached a fixed point; the file's own otherwise), and what that
/// pass left when it changed nothing.
pub struct Ported {
    pub files: Vec<SourceFile>,
    pub last_pass: Option<LastPass>,
}

/// What a pass that changed nothing leaves a later rewrite of the same files: their index,
/// and per file the step outputs it may take (`transforms::Reusable`).
pub struct LastPass {
    index: Index,
    reusable: Vec<transforms::Reusable>,
}

/// One file on its way through the passes.
struct InFlight {
    /// The file as the next pass reads it: as read, then as the last pass that changed it
    /// left it (parsed), or as read again where a pass went wrong.
    file: SourceFile,
    /// The first pass's findings, the device choices, and the error that stopped the file
    /// (`migrated` is set once the passes are done).
    outcome: FileOutcome,
    /// The syntax errors of the file as read: a port with more does not parse.
    errors_before: usize,
    /// The uses of backend parameters the first pass saw (for the `dangling` check).
    backend_uses: Vec<dangling::Use>,
    /// The edits of each pass that changed the file.
    pass_edits: Vec<Vec<(TextRange, usize)>>,
}

impl InFlight {
    fn new(file: SourceFile) -> InFlight {
        InFlight {
            outcome: unchanged_outcome(&file),
            errors_before: file.syntax_errors,
            backend_uses: Vec::new(),
            pass_edits: Vec::new(),
            file,
        }
    }

    /// Takes what a pass made of the file: the parse of its new text, or, for a file the pass
    /// stopped, the text as read again (parsed anew where an earlier pass changed it).
    /// Returns (whether the pass changed the file, whether it was put back).
    fn land(&mut self, pass: usize, next: Rewritten) -> (bool, bool) {
        if pass == 0 {
            self.backend_uses = next.backend_uses;
        }
        if self.outcome.error.is_some() {
            // Left unchanged: the original text, whatever earlier passes made of it (parsed
            // again where an earlier pass let its tree go).
            if self.file.text != self.outcome.original {
                self.file = self.file.with_text(self.outcome.original.clone());
                return (false, true);
            }
        } else if let Some(file) = next.file {
            self.file = file;
            self.pass_edits.push(next.edits);
            return (true, false);
        }
        (false, false)
    }

    /// Once the passes are done: the port's text, unless it would not parse; then the uses of
    /// a removed backend parameter that no rule rewrote or reported.
    fn finish(&mut self) {
        let outcome = &mut self.outcome;
        if outcome.error.is_some() {
            return;
        }
        // `from_text` counted the rewritten text's syntax errors already.
        let (errors, errors_before) = (self.file.syntax_errors, self.errors_before);
        if errors > errors_before {
            outcome.error = Some(format!(
                "left unchanged: the rewrite would not parse ({errors} syntax errors, {errors_before} before); a bug in burn-migrate, please report it"
            ));
            return;
        }
        outcome.migrated = self.file.text.to_string();
        if self.backend_uses.is_empty() {
            return;
        }
        let found = dangling::findings(
            &self.backend_uses,
            &outcome.changes,
            &self.pass_edits,
            &self.file,
        );
        let found = suppress::apply(found, &mut outcome.suppressions);
        outcome.changes.extend(found);
    }
}

/// The files in flight, as the index and the doc tests read them: a file's id is its place.
fn files_of(flights: &[InFlight]) -> Vec<&SourceFile> {
    flights.iter().map(|f| &f.file).collect()
}

/// The outcomes, and what the last pass read.
fn landed(flights: Vec<InFlight>, last_pass: Option<LastPass>) -> (Vec<FileOutcome>, Ported) {
    let (outcomes, files) = flights.into_iter().map(|f| (f.outcome, f.file)).unzip();
    (outcomes, Ported { files, last_pass })
}

/// `rewrite_sources`, also returning what the last pass read (`Ported`). Takes the files: a
/// file's tree as read goes once the first pass rewrote it. `given` is what an earlier
/// rewrite's last pass left over `files` (the index, which the first pass then need not
/// build, and the step outputs it takes).
pub fn rewrite_sources_parsed(
    files: Vec<SourceFile>,
    rules: &RuleSet,
    target: CodeTarget,
    passes: Passes,
    mut given: Option<LastPass>,
) -> Result<(Vec<FileOutcome>, Ported), Error> {
    let file_count = files.len();
    let mut flights: Vec<InFlight> = files.into_par_iter().map(InFlight::new).collect();
    let mut fixed_point = None;
    // A pass of a rewrite to the fixed point keeps what the next rewrite may reuse, in case
    // it is the last.
    let keep = passes == Passes::ToFixedPoint;
    // What the pass before read: its index, each file's doc-test changes, and which files it
    // left as they were. A later pass reads such a file with the same index and the same
    // doc-test changes as that pass did, so it leaves it as it is again (`rewrite_file` reads
    // only the file, the index, the rules and the doc-test changes; from the second pass on,
    // the pass number no more): it is not run again. Not where the pass keeps the steps'
    // outputs for reuse.
    let mut previous: Option<(Index, Vec<Vec<Change>>, Vec<bool>)> = None;
    for pass in 0..MAX_PASSES {
        let (index, mut reuse) = match given.take() {
            Some(LastPass { index, reusable }) => (index, reusable),
            None => (
                time(&format!("pass {pass}: index"), || {
                    Index::build(&files_of(&flights), rules)
                }),
                Vec::new(),
            ),
        };
        reuse.resize_with(file_count, Default::default);
        let doc_changes = time(&format!("pass {pass}: doc tests"), || {
            doc_tests::changes(&files_of(&flights), rules, target, pass)
        })?;
        let steady: Vec<bool> = match previous.take() {
            Some((before, docs, left)) if pass >= 2 && !keep && before.same_facts(&index) => {
                (left.into_iter().zip(docs).zip(&doc_changes))
                    .map(|((left, before), now)| left && before == *now)
                    .collect()
            }
            _ => vec![false; file_count],
        };
        let skipped = steady.iter().filter(|s| **s).count();
        if skipped > 0 {
            timing::note(|| {
                format!("pass {pass}: {skipped} files read as the pass before read them")
            });
        }
        let docs_now = (!keep).then(|| doc_changes.clone());
        let mut rewritten: Vec<Rewritten> = time(&format!("pass {pass}: rewrite"), || {
            (flights.par_iter_mut().zip(doc_changes).zip(reuse))
                .enumerate()
                .map(|(file_id, ((flight, doc), reuse))| {
                    if steady[file_id] {
                        return Ok(Rewritten::default());
                    }
                    let file = &flight.file;
                    let mut ctx =
                        FileCtx::new(&index, rules, file_id, file, target).in_first_pass(pass == 0);
                    ctx.changes = doc;
                    if pass == 0 {
                        // Findings, no edits: a file's findings are its first pass's.
                        ctx.changes.extend(includes::computed_path_findings(file));
                    }
                    rewrite_file(pass, ctx, rules, file, &mut flight.outcome, reuse, keep)
                })
                .collect::<Result<_, Error>>()
        })?;
        let reusable: Vec<transforms::Reusable> = (rewritten.iter_mut())
            .map(|r| std::mem::take(&mut r.reusable))
            .collect();
        if pass == 0 && passes == Passes::AsFindingsNeed {
            let may_dangle = (flights.par_iter().zip(&rewritten))
                .any(|(f, r)| dangling::may_dangle(&r.backend_uses, &f.outcome.changes, &r.edits));
            if !may_dangle {
                for (flight, next) in flights.iter_mut().zip(rewritten) {
                    if let (None, Some(text)) = (&flight.outcome.error, next.text) {
                        flight.outcome.migrated = text;
                    }
                }
                return Ok(landed(flights, None));
            }
        }
        // A rewritten file's tree as the pass read it goes before the new text is parsed (on a
        // large file the parser's buffers and the two trees would be the run's peak memory),
        // but for the items the parse reuses.
        (flights.par_iter_mut().zip(&mut rewritten))
            .filter(|(_, next)| next.text.is_some())
            .for_each(|(flight, next)| {
                next.untouched = flight.file.untouched_items(&next.edits);
                flight.file.release_tree();
            });
        source::forget_built_nodes();
        let rewritten: Vec<Rewritten> = time(&format!("pass {pass}: parse"), || {
            rewritten.into_par_iter().map(Rewritten::parsed).collect()
        });
        let changed = rewritten.iter().filter(|r| r.file.is_some()).count();
        timing::note(|| format!("pass {pass}: {changed} of {file_count} files changed"));
        let (mut any_edit, mut any_reset) = (false, false);
        let mut left = Vec::with_capacity(file_count);
        for (flight, next) in flights.iter_mut().zip(rewritten) {
            let (edited, reset) = flight.land(pass, next);
            any_edit |= edited;
            any_reset |= reset;
            left.push(!edited && !reset && flight.outcome.error.is_none());
        }
        if !any_edit {
            // The pass read the files as they now are, unless it put one back.
            fixed_point = (!any_reset).then_some(LastPass { index, reusable });
            break;
        }
        if pass + 1 == MAX_PASSES {
            return Err(Error::Internal(format!(
                "rules still changed the code after {MAX_PASSES} passes"
            )));
        }
        previous = docs_now.map(|docs| (index, docs, left));
    }
    flights.par_iter_mut().for_each(InFlight::finish);
    Ok(landed(flights, fixed_point))
}

/// A file that does not parse is left as it is: rules cannot know what its broken part
/// means. Its first syntax error is reported, so the person can fix it and run again; so is
/// the place where a file nests too deep to parse (`source::MAX_NESTING`).
pub fn leave_unparsable(files: &[SourceFile], outcomes: &mut [FileOutcome]) {
    for (file, outcome) in files.iter().zip(outcomes) {
        let Some(failure) = file.first_syntax_error() else {
            continue;
        };
        let source::SyntaxFailure {
            line,
            column,
            message,
            too_deep,
        } = failure;
        let place = format!("{}:{line}:{column}", file.display);
        outcome.error = Some(if too_deep {
            format!(
                "left unchanged: it does not parse ({place}: {message}); take the inner levels out into `let` bindings or functions, or port this file by hand, and run again"
            )
        } else {
            format!(
                "left unchanged: it does not parse ({place}: {message}); fix the syntax error and run again"
            )
        });
        outcome.migrated = outcome.original.to_string();
    }
}

/// The outcome of `file` before any pass: its text unchanged, nothing found.
fn unchanged_outcome(file: &SourceFile) -> FileOutcome {
    FileOutcome {
        path: file.path.clone(),
        display: file.display.clone(),
        original: file.text.clone(),
        migrated: file.text.to_string(),
        changes: Vec::new(),
        error: None,
        device_choices: Vec::new(),
        suppressions: suppress::find(file),
        port_findings: None,
        bom: file.bom,
    }
}

/// What one pass made of one file.
#[derive(Default)]
struct Rewritten {
    /// The rewritten text, if the pass changed the file.
    text: Option<String>,
    /// The rewritten file, parsed (`parsed`).
    file: Option<SourceFile>,
    /// What the rewritten file keeps of the file the pass read.
    read: Option<FileIdentity>,
    /// What the pass replaced in the text it read, and the length put in (`edit::applied_ranges`).
    edits: Vec<(TextRange, usize)>,
    /// The items of the tree the pass read that the parse of the rewritten text reuses (found
    /// once the pass is done, if a parse follows).
    untouched: source::Untouched,
    /// In the first pass: the uses of backend parameters (for the `dangling` check).
    backend_uses: Vec<dangling::Use>,
    /// What a later run of the steps over the file may take, if the pass changed nothing.
    reusable: transforms::Reusable,
}

/// One pass of the rules over one file: records the first pass's findings in `outcome` and
/// returns the rewritten file, if the pass changed it.
/// `ctx` holds the changes of the file's doc tests (`doc_tests::changes`) already. The steps
/// take the outputs `reuse` holds; with `keep`, what they leave for reuse comes back where
/// the pass changes nothing.
fn rewrite_file(
    pass: usize,
    mut ctx: FileCtx,
    rules: &RuleSet,
    file: &SourceFile,
    outcome: &mut FileOutcome,
    reuse: transforms::Reusable,
    keep: bool,
) -> Result<Rewritten, Error> {
    if outcome.error.is_some() {
        return Ok(Rewritten::default());
    }
    // The uses of backend parameters read the file as read, whatever the steps find: on a
    // large file this thread collects them while others run steps.
    let find_uses = pass == 0 && !ctx.targets_0_22();
    let (reusable, backend_uses) = transforms::run_all_reusing(&mut ctx, reuse, keep, |ctx| {
        if find_uses {
            dangling::uses(ctx)
        } else {
            Vec::new()
        }
    })?;
    if pass == 0 {
        outcome.device_choices = std::mem::take(&mut ctx.device_choices);
    }
    let changes = if pass == 0 {
        suppress::apply(ctx.changes, &mut outcome.suppressions)
    } else {
        // Later passes see rewritten text: suppressed sites keep their original form,
        // so a rule that skipped them in the first pass finds them again; keep the
        // first pass's decision by suppressing the same rules by comment again.
        let mut again = suppress::find(file);
        suppress::apply(ctx.changes, &mut again)
    };
    // A rule left out by `--select`/`--ignore` is as if an `allow` comment covered the file:
    // neither reported nor applied.
    let changes: Vec<Change> = (changes.into_iter())
        .filter(|change| rules.is_selected(change.rule))
        .collect();
    for change in &changes {
        rules.rule(change.rule)?;
    }
    let changes = drop_moot_findings(changes, file);
    if pass == 0 {
        outcome.changes = changes.clone();
    }
    let applicable: Vec<Change> = changes.into_iter().filter(Change::is_applied).collect();
    let edits = match edit::normalize(applicable) {
        Ok(edits) => edits,
        Err(overlap) => {
            outcome.error = Some(format!(
                "left unchanged: {overlap} (a bug in burn-migrate; please report it)"
            ));
            return Ok(Rewritten::default());
        }
    };
    let unchanged = Rewritten {
        backend_uses,
        reusable,
        ..Rewritten::default()
    };
    if edits.is_empty() {
        return Ok(unchanged);
    }
    let text = edit::apply(&file.text, &edits);
    if *text == *file.text {
        return Ok(unchanged);
    }
    let applied = edit::applied_ranges(&file.text, &edits);
    Ok(Rewritten {
        text: Some(text),
        file: None,
        read: Some(file.identity()),
        edits: applied,
        untouched: source::Untouched::default(),
        backend_uses: unchanged.backend_uses,
        reusable: transforms::Reusable::default(),
    })
}

impl Rewritten {
    /// With the rewritten text parsed, for the next pass (the costly part of a pass that
    /// changed a file, left out when `--check` needs no next pass).
    fn parsed(mut self) -> Self {
        if let (Some(text), Some(read)) = (self.text.take(), self.read.take()) {
            let untouched = std::mem::take(&mut self.untouched);
            self.file = Some(read.parse_edited(text, untouched, &self.edits));
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ra_ap_syntax::{AstNode, Edition};

    /// One pass of the rules over `text` as file `src/lib.rs`: the rewritten text, if any.
    fn one_pass(pass: usize, text: &str, rules: &RuleSet) -> Option<String> {
        let edition = Edition::Edition2021;
        let file = SourceFile::from_text(
            "src/lib.rs".into(),
            "src/lib.rs".into(),
            text.to_string(),
            0,
            edition,
        );
        let index = Index::build(std::slice::from_ref(&file), rules);
        let ctx =
            FileCtx::new(&index, rules, 0, &file, CodeTarget::Burn021).in_first_pass(pass == 0);
        let mut outcome = unchanged_outcome(&file);
        let reuse = transforms::Reusable::default();
        let next = rewrite_file(pass, ctx, rules, &file, &mut outcome, reuse, false).unwrap();
        next.text.map(|t| t.to_string())
    }

    /// The first pass leaves nothing for a second one (which `--check` would otherwise pay
    /// for on the whole workspace), and a second pass does not judge 0.21 code by its port:
    /// an import list inside a group that loses its other members, a field `burn-derive`
    /// 0.21 made a module through `B` (a second pass read `Option<Tensor<1>>` as a constant
    /// and added `#[module(skip)]`), and the impls of a backend trait whose `Backend` import
    /// the first pass removed (a second pass took them for plain code and rewrote them); a
    /// half-precision load whose module expression has edits of its own.
    #[test]
    fn the_first_pass_reaches_the_fixed_point() {
        let rules = RuleSet::embedded().unwrap();
        let cases = [
            "use burn::{\n    backend::wgpu::WgpuDevice,\n    tensor::{Tensor, backend::Backend},\n};\n\npub fn f<B: Backend>(x: Tensor<B, 1>, device: &<B as Backend>::Device) -> Tensor<B, 1> {\n    x\n}\n\npub fn g(d: WgpuDevice) {}\n",
            "use burn::prelude::*;\n\n#[derive(Module, Debug)]\npub struct Loss<B: Backend> {\n    pub weights: Option<Tensor<B, 1>>,\n    pub smoothing: Option<f32>,\n}\n",
            "use burn::tensor::backend::Backend;\n\npub trait Fast: Backend {\n    fn supported() -> bool {\n        false\n    }\n}\n\nimpl Fast for burn::backend::Autodiff<burn::backend::NdArray<f32>> {}\n",
            "use burn::nn::{Linear, LinearConfig};\nuse burn::prelude::*;\nuse burn::record::CompactRecorder;\n\npub fn load<B: Backend>(device: &B::Device) -> Linear<B> {\n    LinearConfig::new(2, 2).init::<B>(device).load_file(\"m\", &CompactRecorder::new(), device).expect(\"loaded\")\n}\n",
        ];
        for text in cases {
            let first = one_pass(0, text, &rules).expect("the first pass ports it");
            assert_eq!(
                one_pass(1, &first, &rules),
                None,
                "after the first pass:\n{first}"
            );
        }
        // The field stays a module, and the trait's impl stays as it was.
        let field = one_pass(0, cases[1], &rules).unwrap();
        assert!(!field.contains("module(skip)"), "{field}");
        let traits = one_pass(0, cases[2], &rules).unwrap();
        assert!(
            traits.contains("Autodiff<burn::backend::NdArray<f32>>"),
            "{traits}"
        );
        // A half-precision load keeps the module expression's own edits.
        let load = one_pass(0, cases[3], &rules).unwrap();
        assert!(
            load.contains("cast_to_module_dtype") && !load.contains("::<B>"),
            "{load}"
        );
    }

    /// The closure a half-precision load is written with names its record so that it does not
    /// shadow a name the module expression uses (`record.model.load_file(..)`).
    #[test]
    fn a_half_precision_load_does_not_shadow_the_module_expression() {
        let rules = RuleSet::embedded().unwrap();
        let text = "use burn::nn::Linear;\nuse burn::prelude::*;\nuse burn::record::CompactRecorder;\n\npub struct Saved<B: Backend> {\n    pub model: Linear<B>,\n}\n\npub fn load<B: Backend>(record: Saved<B>, device: &B::Device) -> Linear<B> {\n    record.model.load_file(\"m\", &CompactRecorder::new(), device).expect(\"loaded\")\n}\n";
        let port = one_pass(0, text, &rules).unwrap();
        assert!(
            port.contains(".and_then(|loaded_record| record.model.try_load_record(loaded_record.cast_to_module_dtype()))"),
            "{port}"
        );
    }

    /// A recorder bound by a `let` counts by its annotation, which names the settings the
    /// initializer leaves to inference; a full-precision one keeps `try_load_file`.
    #[test]
    fn a_half_precision_recorder_is_known_by_its_annotation() {
        let rules = RuleSet::embedded().unwrap();
        let load = |settings: &str| {
            let text = format!("use burn::nn::Linear;\nuse burn::prelude::*;\nuse burn::record::{{NamedMpkFileRecorder, {settings}}};\n\npub fn load<B: Backend>(model: Linear<B>, device: &B::Device) -> Linear<B> {{\n    let recorder: NamedMpkFileRecorder<{settings}> = NamedMpkFileRecorder::new();\n    model.load_file(\"m\", &recorder, device).expect(\"loaded\")\n}}\n");
            one_pass(0, &text, &rules).unwrap()
        };
        let half = load("HalfPrecisionSettings");
        assert!(half.contains("cast_to_module_dtype"), "{half}");
        let full = load("FullPrecisionSettings");
        assert!(full.contains("model.try_load_file(\"m\")"), "{full}");
    }

    /// A call the parser closed itself (`interpolate(x, size, Options::new(m)` and no `)`)
    /// is reported, not rewritten: its argument list is not the call's, and each pass wrapped
    /// the last argument again until the pass limit stopped the port.
    #[test]
    fn an_unclosed_call_is_left_to_a_person() {
        let rules = RuleSet::embedded().unwrap();
        let text = "use burn::tensor::module::interpolate;\nuse burn::tensor::ops::{InterpolateMode, InterpolateOptions};\n\npub fn halve(images: burn::tensor::Tensor<burn::backend::Flex, 4>) {\n    interpolate(\n        images,\n        [2, 2],\n        InterpolateOptions::new(InterpolateMode::Nearest)\n}\n";
        let file = SourceFile::from_text(
            "src/lib.rs".into(),
            "src/lib.rs".into(),
            text.to_string(),
            0,
            Edition::Edition2021,
        );
        let outcomes =
            rewrite_sources(&[file], &rules, CodeTarget::Burn021, Passes::ToFixedPoint).unwrap();
        let manual = outcomes[0]
            .changes
            .iter()
            .find(|c| c.rule == crate::rules::RuleId::InterpolateSize)
            .expect("reported");
        assert!(manual.fix.is_none(), "{}", manual.message);
    }

    /// The parse of a rewritten file that takes the items no edit touched from the old tree
    /// is the parse of the whole new text: on every source file of the test projects, with
    /// the first pass's own edits.
    #[test]
    fn parse_reusing_untouched_items_is_the_whole_parse() {
        let rules = RuleSet::embedded().unwrap();
        let projects = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/projects");
        let edition = Edition::Edition2021;
        let (mut rewritten, mut reused) = (0, 0);
        for path in crate::util::files::rust_files(projects.as_ref(), true) {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = SourceFile::from_text(path.clone(), "src/lib.rs".into(), text, 0, edition);
            let index = Index::build(std::slice::from_ref(&file), &rules);
            let ctx = FileCtx::new(&index, &rules, 0, &file, CodeTarget::Burn021);
            let mut outcome = unchanged_outcome(&file);
            let reuse = transforms::Reusable::default();
            let next = rewrite_file(0, ctx, &rules, &file, &mut outcome, reuse, false).unwrap();
            let Some(text) = next.text else {
                continue;
            };
            rewritten += 1;
            let whole =
                SourceFile::from_text(path.clone(), String::new(), text.clone(), 0, edition);
            let untouched = file.untouched_items(&next.edits);
            if let Some(green) = source::parse_reusing(&text, edition, untouched, &next.edits) {
                reused += 1;
                assert_eq!(whole.syntax_errors, 0, "{}", path.display());
                assert!(
                    green == whole.tree().syntax().green().to_owned(),
                    "{}: the trees differ",
                    path.display()
                );
            }
        }
        // Most rewritten files keep an item or more.
        assert!(
            rewritten > 20 && reused * 2 > rewritten,
            "{reused} of {rewritten} reused"
        );
    }
}
