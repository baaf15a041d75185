//! Behaviour of the core transforms on what a rule example (one file of code that compiles
//! against Burn 0.21, and whose port compiles against 0.22) cannot show: cases that span
//! files, code already on 0.22, ports a person must finish, and crates the examples' crate
//! does not depend on. Everything else is an example in `rules/*.toml`.

use std::path::PathBuf;

use burn_migrate::migrate::source::SourceFile;
use burn_migrate::migrate::{migrate_text, rewrite_sources, CodeTarget, Passes};
use burn_migrate::rules::{RuleId, RuleKey, RuleSet};

fn port(text: &str) -> (String, Vec<RuleKey>) {
    let (migrated, manual) = port_with_messages(text);
    (migrated, manual.into_iter().map(|(rule, _)| rule).collect())
}

/// `port`, with each finding for a person's message.
fn port_with_messages(text: &str) -> (String, Vec<(RuleKey, String)>) {
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let manual = (outcome.changes.into_iter())
        .filter(|c| c.fix.is_none())
        .map(|c| (c.rule, c.message))
        .collect();
    (outcome.migrated, manual)
}

/// The messages of the findings for a person of `rule` among `manual`.
fn messages_of(manual: &[(RuleKey, String)], rule: RuleId) -> Vec<&str> {
    let rule = RuleKey::from(rule);
    (manual.iter())
        .filter(|(r, _)| *r == rule)
        .map(|(_, message)| message.as_str())
        .collect()
}

/// Files of one workspace, parsed as `migrate` parses them.
fn sources(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(name, text)| {
            SourceFile::from_text(
                PathBuf::from(name),
                name.to_string(),
                text.to_string(),
                0,
                ra_ap_syntax::Edition::Edition2021,
            )
        })
        .collect()
}

/// The ports of `sources`, ported together as one workspace, in order.
fn ported(sources: &[SourceFile]) -> Vec<String> {
    let rules = RuleSet::embedded().unwrap();
    let outcomes =
        rewrite_sources(sources, &rules, CodeTarget::Burn021, Passes::ToFixedPoint).unwrap();
    outcomes.into_iter().map(|o| o.migrated).collect()
}

fn port_files(files: &[(&str, &str)]) -> Vec<String> {
    (port_files_reporting(files).into_iter())
        .map(|(migrated, _)| migrated)
        .collect()
}

/// `port_files`, with the rules of each file's findings for a person.
fn port_files_reporting(files: &[(&str, &str)]) -> Vec<(String, Vec<RuleKey>)> {
    let rules = RuleSet::embedded().unwrap();
    rewrite_sources(
        &sources(files),
        &rules,
        CodeTarget::Burn021,
        Passes::ToFixedPoint,
    )
    .unwrap()
    .into_iter()
    .map(|o| {
        let manual = (o.changes.iter())
            .filter(|c| c.fix.is_none())
            .map(|c| c.rule)
            .collect();
        (o.migrated, manual)
    })
    .collect()
}

/// The trait itself needs a person (rule `backend-extension-trait`), so the port does not
/// compile until they are done: not an example.
#[test]
fn user_traits_that_extend_backend_mark_parameters_and_are_reported() {
    let (out, manual) = port(
        "use burn::prelude::*;\n\npub trait Accel: Backend {}\n\npub fn f<B: Accel>(x: Tensor<B, 2>) -> Tensor<B, 2> {\n    x\n}\n",
    );
    assert!(
        out.contains("pub fn f(x: Tensor<2>) -> Tensor<2> {"),
        "{out}"
    );
    assert_eq!(manual, vec![RuleId::BackendExtensionTrait]);
}

#[test]
fn turbofish_positions_follow_the_callee_across_files() {
    let lib = "use burn::prelude::*;\n\npub fn save<B: Backend, P: AsRef<str>>(x: Tensor<B, 1>, path: P) -> usize {\n    let _ = x;\n    path.as_ref().len()\n}\n";
    let main = "use burn::backend::NdArray;\nuse burn::prelude::*;\n\ntype Cpu = NdArray;\n\npub fn run(x: Tensor<Cpu, 1>, y: Tensor<Cpu, 1>) -> usize {\n    save::<Cpu, &str>(x, \"a\") + save::<_, String>(y, String::new())\n}\n";
    let out = port_files(&[("lib.rs", lib), ("main.rs", main)]);
    assert!(
        out[0].contains("pub fn save<P: AsRef<str>>(x: Tensor<1>, path: P) -> usize {"),
        "{}",
        out[0]
    );
    assert!(
        out[1].contains("save::<&str>(x, \"a\") + save::<String>(y, String::new())"),
        "{}",
        out[1]
    );
    assert!(
        out[1].contains("pub fn run(x: Tensor<1>, y: Tensor<1>) -> usize {"),
        "{}",
        out[1]
    );
}

#[test]
fn code_already_on_0_22_is_left_alone() {
    let text = "use burn::prelude::*;\n\npub fn f(x: Tensor<2>, device: &Device) -> Tensor<2> {\n    x.add(Tensor::ones([1, 1], device)).mul_scalar(0.5)\n}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    assert!(manual.is_empty());
}

#[test]
fn devices_passed_to_autodiff_functions_stay_plain() {
    let lib = "use burn::prelude::*;\nuse burn::tensor::backend::AutodiffBackend;\n\npub fn train<B: AutodiffBackend>(device: B::Device) {\n    let _ = Tensor::<B, 1>::ones([1], &device);\n}\n";
    let main = "use burn::backend::{Autodiff, NdArray};\nuse burn::backend::ndarray::NdArrayDevice;\n\nfn main() {\n    let device = NdArrayDevice::Cpu;\n    train::<Autodiff<NdArray>>(device);\n}\n";
    let out = port_files(&[("lib.rs", lib), ("main.rs", main)]);
    assert!(
        out[0].contains("pub fn train(device: Device) {\n    let device = device.autodiff();\n"),
        "{}",
        out[0]
    );
    assert!(
        out[1].contains("let mut device = Device::flex();\n    let _ = device.configure(IntDType::I64);\n    train(device);"),
        "{}",
        out[1]
    );
}

/// `burn_fusion` is not a dependency of the crate the examples compile in.
#[test]
fn checkpointed_autodiff_and_fusion_fold_into_the_device() {
    let (out, manual) = port(
        "use burn::backend::autodiff::checkpoint::strategy::BalancedCheckpointing;\nuse burn::backend::{Autodiff, NdArray};\nuse burn::prelude::*;\n\ntype Train = Autodiff<burn_fusion::Fusion<NdArray>, BalancedCheckpointing>;\n\nfn main() {\n    let device = Default::default();\n    let x = Tensor::<Train, 1>::ones([2], &device).require_grad();\n    let _ = x.sum().backward();\n}\n",
    );
    assert!(
        out.contains("let mut device = Device::flex().autodiff().gradient_checkpointing();\n    let _ = device.configure(IntDType::I64);"),
        "{out}"
    );
    assert!(!out.contains("type Train"), "{out}");
    assert!(manual.is_empty(), "{manual:?}");
}

/// A custom backward op names a checkpointing strategy for `prepare`, not for a backend type:
/// its import is backend-extension API that stays for the person porting the op, and the
/// function that uses it is reported whole, left as written (`Backward<B, 1>` keeps its `B`).
/// (The op does not compile on 0.22 until they do: not an example.)
#[test]
fn a_strategy_named_by_a_custom_backward_op_keeps_its_import() {
    let (out, manual) = port(
        "use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;\nuse burn::backend::autodiff::ops::{Backward, OpsKind};\n\nfn track<B: burn::tensor::backend::Backend, O: Backward<B, 1>>(op: O, nodes: [burn::backend::autodiff::NodeId; 1]) {\n    let _ = op.prepare::<NoCheckpointing>(nodes);\n}\n",
    );
    assert!(
        out.starts_with("use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;\n"),
        "{out}"
    );
    assert!(out.contains("O: Backward<B, 1>>"), "{out}");
    assert!(
        manual.contains(&RuleKey::from(RuleId::BackendExtensionTrait)),
        "{manual:?}"
    );
    // As the wrapper type's argument it goes with the backend type, as before.
    let (out, _) = port(
        "use burn::backend::autodiff::checkpoint::strategy::NoCheckpointing;\nuse burn::backend::{Autodiff, NdArray};\nuse burn::prelude::*;\n\ntype Train = Autodiff<NdArray, NoCheckpointing>;\n\nfn main() {\n    let x = Tensor::<Train, 1>::ones([2], &Default::default());\n    println!(\"{x}\");\n}\n",
    );
    assert!(!out.contains("NoCheckpointing"), "{out}");
}

/// What a person ports as a whole is one site: the findings other rules make inside a
/// backend extension's impl go into its finding, which names them, and the impl keeps its text
/// (no marker inside).
#[test]
fn findings_inside_code_left_to_a_person_are_part_of_its_finding() {
    let extension = "use burn::tensor::ops::FloatTensor;\nuse burn::tensor::{Tensor, TensorPrimitive};\n\npub trait Fused: burn::tensor::backend::Backend {\n    fn fused(x: FloatTensor<Self>) -> FloatTensor<Self>;\n}\n\nimpl<B: burn::tensor::backend::Backend> Fused for B {\n    fn fused(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        let t = Tensor::<B, 1>::from_primitive(TensorPrimitive::Float(x));\n        t.exp().into_primitive().tensor()\n    }\n}\n";
    let (out, manual) = port_with_messages(extension);
    let impl_text = &extension[extension.find("impl<B").unwrap()..];
    assert!(out.ends_with(impl_text), "{out}");
    let messages = messages_of(&manual, RuleId::BackendExtensionTrait);
    assert!(
        messages.iter().any(|m| m
            .starts_with("an implementation of the backend extension `Fused`")
            && m.contains("`tensor-primitive`")),
        "{manual:?}"
    );
    assert!(
        messages_of(&manual, RuleId::TensorPrimitive).is_empty(),
        "{manual:?}"
    );
}

/// A finding inside another of its rule is that one's site: the recorder settings of a
/// removed recorder type are rewritten with it. Two of one rule side by side are two sites.
#[test]
fn a_finding_inside_another_of_its_rule_is_part_of_it() {
    let text = "use burn::prelude::*;\nuse burn::record::{FullPrecisionSettings, NamedMpkFileRecorder, Recorder};\n\npub fn load<B: Backend>(device: &B::Device) -> Option<()> {\n    let recorder = NamedMpkFileRecorder::<FullPrecisionSettings>::new();\n    let settings = FullPrecisionSettings::default();\n    let _: () = recorder.load(\"/tmp/x\".into(), device).ok()?;\n    let _ = settings;\n    Some(())\n}\n";
    let (_, manual) = port_with_messages(text);
    let removed = messages_of(&manual, RuleId::RecorderTypes);
    assert_eq!(
        removed
            .iter()
            .filter(|m| m.contains("`burn::record::FullPrecisionSettings`"))
            .count(),
        1,
        "the settings alone, not inside the recorder's path: {manual:#?}"
    );
    assert!(
        removed
            .iter()
            .any(|m| m.contains("`burn::record::NamedMpkFileRecorder`")),
        "{manual:#?}"
    );
}

/// A type an attribute passes as a named string for a procedural macro to emit loses its
/// backend argument as the same type in code does; a positional string (test data) and a label
/// are text. (A procedural macro of the project's own is no example's.)
#[test]
fn a_type_an_attribute_passes_as_a_string_loses_its_backend_argument() {
    let text = "use burn::prelude::*;\n\npub type InferenceBackend = burn::backend::NdArray;\n\npub struct Server<B: Backend, C> {\n    pub device: B::Device,\n    pub config: C,\n}\n\n#[registry(\n    server(crate_namespace = \"servers\", server_type = \"Server<InferenceBackend, u8>\"),\n    server(server_type = \"Server<InferenceBackend>\"),\n)]\n#[case(\"Server<InferenceBackend>\")]\n#[doc(alias = \"Flex (CPU)\")]\npub struct Registry;\n";
    let (out, manual) = port(text);
    assert!(out.contains("server_type = \"Server<u8>\""), "{out}");
    assert!(out.contains("server(server_type = \"Server\")"), "{out}");
    assert!(
        out.contains("#[case(\"Server<InferenceBackend>\")]"),
        "{out}"
    );
    assert!(out.contains("#[doc(alias = \"Flex (CPU)\")]"), "{out}");
    assert!(manual.is_empty(), "{manual:?}\n{out}");
}

#[test]
fn a_backend_trait_re_exported_by_another_file_is_burns() {
    let lib = "pub mod compute {\n    pub use burn::tensor::backend::Backend as Compute;\n}\n";
    let model = "use burn::tensor::Tensor;\n\nuse crate::compute::Compute;\n\npub fn twice<C: Compute>(x: Tensor<C, 1>) -> Tensor<C, 1> {\n    x.mul_scalar(2.0)\n}\n";
    let out = port_files(&[("lib.rs", lib), ("model.rs", model)]);
    assert!(
        out[1].contains("pub fn twice(x: Tensor<1>) -> Tensor<1> {"),
        "{}",
        out[1]
    );
}

#[test]
fn a_project_trait_named_backend_in_another_file_is_not_burns() {
    let physics = "pub trait Backend {\n    fn step(&mut self);\n}\n";
    let world = "use burn::prelude::*;\n\nuse crate::physics::Backend;\n\npub fn run<B: Backend>(engine: &mut B) {\n    engine.step();\n}\n";
    let out = port_files(&[("physics.rs", physics), ("world.rs", world)]);
    assert_eq!(out[1], world);
}

#[test]
fn a_project_type_proved_generic_over_the_backend_in_another_file() {
    let batch =
        "use burn::prelude::*;\n\npub struct Batch<B: Backend> {\n    pub x: Tensor<B, 2>,\n}\n";
    let pairs = "use crate::batch::Batch;\n\npub type Labelled<B> = (Batch<B>, Vec<usize>);\npub type Named<T> = (T, String);\n";
    let out = port_files(&[("batch.rs", batch), ("pairs.rs", pairs)]);
    assert_eq!(
        out[1],
        "use crate::batch::Batch;\n\npub type Labelled = (Batch, Vec<usize>);\npub type Named<T> = (T, String);\n"
    );
}

#[test]
fn a_removed_item_imported_in_several_modules_is_reported_once_per_site() {
    let text = "\
pub mod a {
    use burn::module::Reinitializer;
    pub fn reset() -> Reinitializer {
        Reinitializer::new()
    }
}
pub mod b {
    use burn::module::Reinitializer;
    pub fn keep(_: &Reinitializer) {}
}
";
    let (_, manual) = port(text);
    let reports = manual
        .iter()
        .filter(|r| **r == RuleId::Reinitializer)
        .count();
    // Each use once, and each import once: Burn 0.22.1 has no `Reinitializer`, but the
    // imports stay while a person ports the uses (rustc reports each import once, and nothing
    // at the uses it stands for).
    assert_eq!(reports, 5, "{manual:?}");
}

/// The marker trait in one module, its bounds and imports in another (rule
/// `backend-marker-trait`): all of it goes.
#[test]
fn a_marker_trait_goes_with_its_imports_in_other_files() {
    let backend = "use burn::tensor::backend::Backend;\n\npub trait Compute: Backend {}\n\nimpl<B: Backend> Compute for B {}\n\npub fn zeros() -> usize {\n    0\n}\n";
    let model = "use burn::tensor::Tensor;\n\nuse crate::backend::{zeros, Compute};\n\npub fn twice<C: Compute>(x: Tensor<C, 1>) -> Tensor<C, 1> {\n    x.mul_scalar(2.0 + zeros() as f64)\n}\n";
    let out = port_files(&[("backend.rs", backend), ("model.rs", model)]);
    assert_eq!(out[0], "pub fn zeros() -> usize {\n    0\n}\n");
    assert_eq!(
        out[1],
        "use burn::tensor::Tensor;\n\nuse crate::backend::zeros;\n\npub fn twice(x: Tensor<1>) -> Tensor<1> {\n    x.mul_scalar(2.0 + zeros() as f64)\n}\n"
    );
}

/// A marker of another crate's `Backend` (a physics engine's, say) is none of Burn's.
#[test]
fn a_marker_of_another_crates_backend_is_left_alone() {
    let text = "use burn::tensor::Tensor;\nuse rapier::Backend;\n\npub trait MyBackend: Backend {}\n\nimpl<B: Backend> MyBackend for B {}\n\npub fn simulate<B: MyBackend>(world: B) -> B {\n    world\n}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    assert!(manual.is_empty(), "{manual:?}");
}

/// A trait implemented for a concrete type, or with items of its own, is no marker: it stays
/// and is reported as a backend extension.
#[test]
fn traits_that_are_no_markers_stay_and_are_reported() {
    let concrete = "use burn::backend::NdArray;\nuse burn::prelude::*;\n\npub trait Fast: Backend {}\n\nimpl Fast for NdArray {}\n";
    let (out, manual) = port(concrete);
    assert!(out.contains("pub trait Fast: Backend {}"), "{out}");
    assert!(
        manual.contains(&RuleId::BackendExtensionTrait.into()),
        "{manual:?}"
    );
    let items = "use burn::prelude::*;\n\npub trait Tuned: Backend {\n    fn tile() -> usize;\n}\n\nimpl<B: Backend> Tuned for B {\n    fn tile() -> usize {\n        8\n    }\n}\n";
    let (out, manual) = port(items);
    assert!(out.contains("pub trait Tuned: Backend {"), "{out}");
    // The blanket impl is the extension's too: reported, and left whole for the person.
    assert!(out.contains("impl<B: Backend> Tuned for B {"), "{out}");
    assert_eq!(
        manual,
        vec![RuleId::BackendExtensionTrait, RuleId::BackendExtensionTrait]
    );
}

/// Doc tests of a file are ported with the workspace as context: a marker trait defined in
/// another file, hidden lines kept hidden, statements read inside `fn main`.
#[test]
fn doc_tests_are_ported_with_the_workspace_as_context() {
    let backend = "use burn::tensor::backend::Backend;\n\npub trait Compute: Backend {}\n\nimpl<B: Backend> Compute for B {}\n";
    let ops = "\
//! Ops:
//!
//! ```
//! use burn::backend::NdArray;
//! use burn::tensor::Tensor;
//! let device = Default::default();
//! let x = Tensor::<NdArray, 1>::from_floats([1.0], &device);
//! ```

use burn::tensor::Tensor;

/// ```rust,no_run
/// # use crate::backend::Compute;
/// # fn run<C: Compute>(x: Tensor<C, 1>) {
/// let y: Tensor<C, 1> = x.neg();
/// # }
/// ```
pub fn neg<C: crate::backend::Compute>(x: Tensor<C, 1>) -> Tensor<C, 1> {
    x.neg()
}
";
    let out = port_files(&[("backend.rs", backend), ("ops.rs", ops)]);
    assert_eq!(
        out[1],
        "\
//! Ops:
//!
//! ```
//! use burn::tensor::{Device, IntDType};
//! use burn::tensor::Tensor;
//! let mut device = Device::flex();
//! let _ = device.configure(IntDType::I64);
//! let x = Tensor::<1>::from_floats([1.0], &device);
//! ```

use burn::tensor::Tensor;

/// ```rust,no_run
/// # fn run(x: Tensor<1>) {
/// let y: Tensor<1> = x.neg();
/// # }
/// ```
pub fn neg(x: Tensor<1>) -> Tensor<1> {
    x.neg()
}
"
    );
}

/// Pseudo-code in a doc comment that does not mention Burn is none of the port's business,
/// parsable or not.
#[test]
fn doc_tests_without_burn_are_left_alone() {
    let text = "use burn::tensor::Tensor;\n\n/// ```\n/// let steps = plan(..) ... ;\n/// ```\npub fn f(x: Tensor<burn::backend::NdArray, 1>) -> usize {\n    x.dims()[0]\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.starts_with(
            "use burn::tensor::Tensor;\n\n/// ```\n/// let steps = plan(..) ... ;\n/// ```\n"
        ),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}");
}

/// Doc tests in block doc comments are reported, not ported.
#[test]
fn doc_tests_in_block_comments_are_reported() {
    let text = "use burn::tensor::Tensor;\n\n/**\n```\nlet x: Tensor<B, 1> = todo!();\n```\n*/\npub fn f() {}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    assert_eq!(manual, vec![RuleId::DocTestCode]);
}

/// A marker that a backend extension builds on stays with it: the extension needs a person,
/// and its supertrait must still exist for them.
#[test]
fn a_marker_extended_by_a_trait_that_stays_is_kept() {
    let text = "use burn::prelude::*;\n\npub trait Compute: Backend {}\n\nimpl<B: Backend> Compute for B {}\n\npub trait Fused: Compute {\n    fn fused() -> bool;\n}\n";
    let (out, manual) = port(text);
    assert!(out.contains("pub trait Compute: Backend {}"), "{out}");
    assert!(out.contains("pub trait Fused: Compute {"), "{out}");
    assert!(out.contains("impl<B: Backend> Compute for B {}"), "{out}");
    assert_eq!(
        manual,
        vec![
            RuleId::BackendExtensionTrait,
            RuleId::BackendExtensionTrait,
            RuleId::BackendExtensionTrait
        ]
    );
}

/// An unlabelled block with a shell command is no doc test burn-migrate reports, even when it
/// names the project's Burn crates.
#[test]
fn shell_commands_in_unlabelled_blocks_are_not_reported() {
    let text = "//! Run with:\n//! ```\n//! cargo run --release -p my-burn-app -- --backend ndarray\n//! ```\n\nuse burn::tensor::Tensor;\n\npub fn f(x: Tensor<burn::backend::NdArray, 1>) -> usize {\n    x.dims()[0]\n}\n";
    let (out, manual) = port(text);
    assert!(out.starts_with("//! Run with:\n//! ```\n//! cargo run --release -p my-burn-app -- --backend ndarray\n//! ```\n"), "{out}");
    assert!(manual.is_empty(), "{manual:?}");
}

/// `<B as Marker>::Device` is the backend's device, like `<B as Backend>::Device`.
#[test]
fn a_marker_named_in_a_qualified_device_path_goes() {
    let text = "use burn::tensor::backend::Backend;\nuse burn::tensor::Tensor;\n\npub trait Compute: Backend {}\n\nimpl<B: Backend> Compute for B {}\n\npub fn zeros<B: Compute>(device: &<B as Compute>::Device) -> Tensor<B, 1> {\n    Tensor::zeros([2], device)\n}\n";
    let (out, manual) = port(text);
    assert_eq!(
        out,
        "use burn::tensor::Device;\nuse burn::tensor::Tensor;\n\npub fn zeros(device: &Device) -> Tensor<1> {\n    Tensor::zeros([2], device)\n}\n"
    );
    assert!(manual.is_empty(), "{manual:?}");
}

/// A test module in its own file (`#[cfg(test)] mod parity;`) reaches Burn's traits through
/// `use super::*` and its parent's explicit imports: its backend parameters are Burn's too.
#[test]
fn backend_bounds_reached_through_use_super_glob_are_burns() {
    let parent = "use burn::tensor::{backend::Backend, Tensor};\n\n#[cfg(test)]\nmod parity;\n\npub fn twice<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.clone() + x\n}\n";
    let child = "use super::*;\n\nfn ones<B: Backend>(device: &B::Device) -> Tensor<B, 1> {\n    Tensor::ones([2], device)\n}\n";
    let out = port_files(&[("lib.rs", parent), ("parity.rs", child)]);
    assert_eq!(
        out[1],
        "use burn::tensor::Device;\nuse super::*;\n\nfn ones(device: &Device) -> Tensor<1> {\n    Tensor::ones([2], device)\n}\n"
    );
}

/// A call rule written for Burn's `AurocMetric::new` (`function = "burn::train::metric::..`)
/// matches calls whose qualifier is Burn's `AurocMetric`, not another Burn type's `new`.
#[test]
fn a_burn_path_associated_function_matches_only_its_own_type() {
    let text = "use burn::module::ParamId;\nuse burn::train::metric::AurocMetric;\n\npub fn fresh() -> ParamId {\n    ParamId::new()\n}\n\npub fn metric() -> AurocMetric {\n    burn::train::metric::AurocMetric::new()\n}\n";
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    let lines: Vec<usize> = outcome
        .changes
        .iter()
        .filter(|c| c.rule == RuleId::AurocMetric)
        .map(|c| text[..usize::from(c.range.start())].matches('\n').count() + 1)
        .collect();
    assert_eq!(lines, vec![9], "{:#?}", outcome.changes);
}

/// A removed item named through an import of its module (`quantization::QuantLevel`) is
/// reported like one imported by name.
#[test]
fn a_removed_item_through_an_imported_module_is_reported() {
    let (_, manual) = port(
        "use burn::tensor::quantization;\n\npub fn tensor_level() -> quantization::QuantLevel {\n    quantization::QuantLevel::Tensor\n}\n",
    );
    assert_eq!(manual, vec![RuleId::QuantLevel, RuleId::QuantLevel]);
}

/// A project that depends on a Burn crate directly (`burn-store`) names the facade's items
/// through it: `burn_store::TensorSnapshot` is `burn::store::TensorSnapshot`, and calls in a
/// file that imports `burn_store::ModuleSnapshot` are its calls.
#[test]
fn items_named_through_a_burn_crate_are_burns() {
    let text = "use burn_store::{ModuleSnapshot, TensorSnapshot};\n\npub fn names(snapshots: &[TensorSnapshot]) -> Vec<String> {\n    snapshots.iter().map(|s| s.full_path()).collect()\n}\n";
    let (out, manual) = port(text);
    // `TensorSnapshot` is gone from Burn 0.22.1; its import stays, reported, while the uses
    // are a person's.
    assert_eq!(out, text);
    let adapter: RuleKey = RuleId::ModuleAdapter.into();
    let snapshots: RuleKey = RuleId::StoreSnapshots.into();
    assert!(manual.contains(&adapter), "{manual:?}");
    assert!(manual.contains(&snapshots), "{manual:?}");
    // The same text with a project's own `TensorSnapshot` names nothing of Burn's.
    let own = "pub struct TensorSnapshot;\n\nimpl TensorSnapshot {\n    pub fn full_path(&self) -> String {\n        String::new()\n    }\n}\n\npub fn names(snapshots: &[TensorSnapshot]) -> Vec<String> {\n    snapshots.iter().map(|s| s.full_path()).collect()\n}\n";
    let (out, manual) = port(own);
    assert_eq!(out, own);
    assert!(manual.is_empty(), "{manual:?}");
}

/// `<M as AutodiffModule<B>>::from_inner(inner)` has no 0.22 counterpart with that name: the
/// call is reported (the bound-style rewrite to `Module` alone would name a missing function).
#[test]
fn from_inner_through_autodiff_module_is_reported() {
    let text = "use burn::module::AutodiffModule;\nuse burn::nn::Linear;\nuse burn::tensor::backend::AutodiffBackend;\n\npub fn lift<B: AutodiffBackend>(inner: Linear<B::InnerBackend>) -> Linear<B> {\n    <Linear<B> as AutodiffModule<B>>::from_inner(inner)\n}\n";
    let (_, manual) = port(text);
    let rule: RuleKey = RuleId::AutodiffModule.into();
    assert_eq!(manual, vec![rule]);
}

/// An alias means what its own file defines: a test module's `type B = NdArray<f32>;` is not
/// another file's `type B = Wgpu;` (mere's esp crate: its tests got `Device::wgpu`).
#[test]
fn a_files_own_alias_wins_over_another_files_alias_of_that_name() {
    let gpu = "use burn::backend::Wgpu;\nuse burn::tensor::Tensor;\n\ntype B = Wgpu;\n\npub fn ones() -> Tensor<B, 1> {\n    Tensor::ones([2], &Default::default())\n}\n";
    let cpu = "use burn::backend::NdArray;\nuse burn::tensor::Tensor;\n\ntype B = NdArray<f32>;\n\npub fn zeros() -> Tensor<B, 1> {\n    let device = Default::default();\n    Tensor::zeros([2], &device)\n}\n";
    let out = port_files(&[("gpu.rs", gpu), ("cpu.rs", cpu)]);
    assert!(out[0].contains("Device::wgpu("), "{}", out[0]);
    assert!(
        out[1].contains(
            "let mut device = Device::flex();\n    let _ = device.configure(IntDType::I64);"
        ),
        "{}",
        out[1]
    );
}

/// A generic parameter `B` is not another file's alias `B` (mere's esp: a loader generic over
/// the backend got `Device::wgpu` from a test module's `type B = Wgpu<..>` elsewhere).
#[test]
fn a_generic_parameter_is_not_another_files_alias_of_that_name() {
    let gpu = "use burn::backend::Wgpu;\n\npub type B = Wgpu;\n";
    let generic = "use burn::tensor::backend::Backend;\nuse burn::tensor::Tensor;\n\npub fn zeros<B: Backend>() -> Tensor<B, 1> {\n    let device = B::Device::default();\n    Tensor::zeros([2], &device)\n}\n";
    let out = port_files(&[("gpu.rs", gpu), ("generic.rs", generic)]);
    assert!(!out[1].contains("wgpu"), "{}", out[1]);
}

/// Backend functions called through a concrete backend (`<crate::Infer as Backend>::sync`)
/// are ported or reported as through a backend parameter (burn-lm's inference client): the
/// device functions become device methods, the others are reported.
#[test]
fn backend_functions_through_a_concrete_backend_are_ported_or_reported() {
    let text = "use burn::backend::NdArray;\nuse burn::tensor::backend::Backend;\n\npub type Infer = NdArray;\n\npub fn cleanup(device: &<Infer as Backend>::Device) -> String {\n    <Infer as Backend>::memory_cleanup(device);\n    <Infer as Backend>::sync(device).unwrap();\n    <Infer as Backend>::name(device)\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.contains("    device.memory_cleanup();\n    device.sync().unwrap();"),
        "{out}"
    );
    let rule: RuleKey = RuleId::BackendAssociatedItem.into();
    assert_eq!(manual, vec![rule], "{out}");
}

/// A device constant that some file names by value has no 0.22 form with the same shape
/// (`Device`'s constructors are not `const fn`, and a `LazyLock` is no `Device`): the port of
/// its initializer is reported, with the `LazyLock` static to write. Another file's `&DEVICE`
/// is left as it is.
#[test]
fn a_device_constant_used_by_value_is_reported() {
    let defined = "use burn::backend::ndarray::NdArrayDevice;\n\npub const DEVICE: NdArrayDevice = NdArrayDevice::Cpu;\n";
    let used = "use burn::backend::ndarray::NdArrayDevice;\nuse crate::DEVICE;\n\npub fn device() -> NdArrayDevice {\n    DEVICE\n}\n\npub fn borrowed() -> NdArrayDevice {\n    let device = &crate::DEVICE;\n    device.clone()\n}\n";
    let out = port_files_reporting(&[("lib.rs", defined), ("use.rs", used)]);
    assert!(
        out[0]
            .0
            .contains("pub const DEVICE: Device = { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device };"),
        "{}",
        out[0].0
    );
    let ndarray: RuleKey = RuleId::DeviceNdarray.into();
    assert_eq!(out[0].1, vec![ndarray], "{}", out[0].0);
    assert!(
        out[1].0.contains("let device = &crate::DEVICE;"),
        "{}",
        out[1].0
    );
    let (_, manual) = port(defined);
    assert!(
        manual.is_empty(),
        "alone, the constant is ported: {manual:?}"
    );
}

/// A device constant used only by reference and as a receiver becomes a `LazyLock` static,
/// and every `&DEVICE` of the workspace (qualified or imported) reads the `Device` in it.
#[test]
fn a_device_constant_used_by_reference_becomes_a_lazy_static() {
    let defined = "use burn::backend::ndarray::NdArrayDevice;\n\npub const DEVICE: NdArrayDevice = NdArrayDevice::Cpu;\n";
    let used = "use burn::backend::NdArray;\nuse burn::tensor::Tensor;\nuse crate::DEVICE;\n\npub fn zeros() -> Tensor<NdArray, 1> {\n    let device = &crate::DEVICE;\n    let same = DEVICE.clone();\n    Tensor::zeros([2], &DEVICE).to_device(device).to_device(&same)\n}\n";
    let out = port_files(&[("lib.rs", defined), ("use.rs", used)]);
    assert!(
        out[0].contains("pub static DEVICE: std::sync::LazyLock<Device> = std::sync::LazyLock::new(|| { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device });"),
        "{}",
        out[0]
    );
    assert!(
        out[1].contains("let device = &*crate::DEVICE;"),
        "{}",
        out[1]
    );
    assert!(
        out[1].contains("Tensor::zeros([2], &*DEVICE)"),
        "{}",
        out[1]
    );
    assert!(out[1].contains("let same = DEVICE.clone();"), "{}", out[1]);
}

/// A device made in a closure inside a constant (`LazyLock::new(|| ..)`) is made at run time:
/// its port compiles as it is, and nothing is reported (burn-lm's `INFERENCE_DEVICE`).
#[test]
fn a_device_made_lazily_in_a_constant_is_not_reported() {
    let text = "use burn::backend::ndarray::NdArrayDevice;\n\npub const DEVICE: std::sync::LazyLock<NdArrayDevice> =\n    std::sync::LazyLock::new(|| NdArrayDevice::Cpu);\n";
    let (out, manual) = port(text);
    assert!(
        out.contains(
            "std::sync::LazyLock<Device> =\n    std::sync::LazyLock::new(|| { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device });"
        ),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}\n{out}");
}

/// A generic alias of a backend wrapper (`type G<IB> = Autodiff<IB>;`) is a backend whatever
/// it wraps: it goes, and `G<B::InnerBackend>` loses its place as a backend argument (loractl's
/// block-checkpointed step).
#[test]
fn a_generic_alias_of_a_backend_wrapper_is_a_backend() {
    let text = "use burn::backend::Autodiff;\nuse burn::tensor::backend::AutodiffBackend;\nuse burn::tensor::Tensor;\n\npub fn lift<AB: AutodiffBackend>(x: Tensor<AB::InnerBackend, 2>) -> usize {\n    type G<IB> = Autodiff<IB>;\n    let y: Tensor<G<AB::InnerBackend>, 2> = Tensor::from_inner(x);\n    y.dims()[0]\n}\n";
    let (out, manual) = port(text);
    assert!(!out.contains("type G"), "{out}");
    assert!(
        out.contains("let y: Tensor<2> = Tensor::from_inner(x);"),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}\n{out}");
}

/// An import the port rewrites (its backend part goes) keeps a removed item whose uses are a
/// person's, reported with them: `use burn::tensor::{Tensor, quantization::QuantLevel};` is
/// what is left of `use burn::{backend::Wgpu, tensor::{Tensor, quantization::QuantLevel}};`.
#[test]
fn a_removed_item_in_a_rewritten_import_stays_with_its_reported_uses() {
    let text = "use burn::{\n    backend::Wgpu,\n    tensor::{Tensor, quantization::QuantLevel},\n};\n\npub fn f(t: Tensor<Wgpu, 1>) -> usize {\n    t.dims()[0]\n}\n\npub fn g(level: QuantLevel) -> QuantLevel {\n    level\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.starts_with("use burn::tensor::{Tensor, quantization::QuantLevel};\n"),
        "{out}"
    );
    let rule: RuleKey = RuleId::QuantLevel.into();
    // The import and the two uses.
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        3,
        "{manual:?}"
    );
}

/// Another crate's prelude brings its own names: CubeCL's `Tensor<F>` in a kernel is not
/// Burn's, even where other files of the workspace import Burn's `Tensor` (burn's
/// custom-cubecl-kernel example lost `<F: Float>`).
#[test]
fn another_crates_glob_does_not_bring_burns_names() {
    let model = "use burn::tensor::{backend::Backend, Tensor};\n\npub fn double<B: Backend>(x: Tensor<B, 2>) -> Tensor<B, 2> {\n    x.clone() + x\n}\n";
    let kernel = "use cubecl::{cube, prelude::*};\n\n#[cube(launch)]\npub fn copy<F: Float>(input: &Tensor<F>, output: &mut Tensor<F>) {\n    output[ABSOLUTE_POS] = input[ABSOLUTE_POS];\n}\n";
    let out = port_files(&[("model.rs", model), ("kernel.rs", kernel)]);
    assert_eq!(out[1], kernel);
    assert!(
        out[0].contains("pub fn double(x: Tensor<2>) -> Tensor<2>"),
        "{}",
        out[0]
    );
}

/// A Burn backend written out in macro input (`cfg_if!` bodies are tokens) is reported: the
/// port cannot rewrite it and `burn::backend` is gone from user code (burn's server example).
#[test]
fn a_burn_backend_written_out_in_macro_input_is_reported() {
    let text = "use burn::tensor::Tensor;\n\npub fn zeros() -> Tensor<burn::backend::NdArray, 1> {\n    Tensor::zeros([1], &Default::default())\n}\n\nmacro_rules! run { ($($t:tt)*) => { $($t)* } }\n\npub fn start() {\n    run! { let _ = std::any::type_name::<burn::backend::NdArray>(); }\n}\n";
    let (_, manual) = port(text);
    let rule: RuleKey = RuleId::DanglingBackendParam.into();
    assert_eq!(manual, vec![rule]);
}

/// A function of the backend's device type (`B::Device::from_id(..)`) has no counterpart on
/// 0.22's `Device`: reported, not left as `Device::from_id` (burn's dop_timer example).
#[test]
fn a_function_of_the_backend_device_type_is_reported() {
    let text = "use burn::tensor::backend::{Backend, DeviceId, DeviceOps};\n\npub fn devices<B: Backend>(count: u16) -> Vec<B::Device> {\n    (0..count).map(|i| B::Device::from_id(DeviceId::new(0, i))).collect()\n}\n";
    let (_, manual) = port(text);
    let rule: RuleKey = RuleId::BackendAssociatedItem.into();
    assert!(manual.contains(&rule), "{manual:?}");
}

/// Two crates of a workspace may each extend Burn's backend with a trait of the same name:
/// each is reported (burn's custom-cubecl-kernel and custom-wgpu-kernel examples).
#[test]
fn same_named_backend_extensions_in_two_files_are_both_reported() {
    let ext =
        "pub trait Backend: burn::tensor::backend::Backend {\n    fn fused(x: u32) -> u32;\n}\n";
    let rules = RuleSet::embedded().unwrap();
    let sources = sources(&[("a.rs", ext), ("b.rs", ext)]);
    let outcomes =
        rewrite_sources(&sources, &rules, CodeTarget::Burn021, Passes::ToFixedPoint).unwrap();
    for outcome in &outcomes {
        let rule: RuleKey = RuleId::BackendExtensionTrait.into();
        assert!(
            outcome.changes.iter().any(|c| c.rule == rule),
            "{}",
            outcome.display
        );
    }
}

/// A backend extension whose functions take the backend's tensors and whose impls are all for
/// backends `#[backend_extension(..)]` names is ported: the attribute with those backends, the
/// supertrait's 0.22 path, `<Dispatch as Ext>::op` where a generic function called `B::op`,
/// the backends without their type arguments, and the autodiff tensor's private fields read
/// through its methods. The `Autodiff<B, C>` impl keeps its parameters, its call of the inner
/// backend's `B::op` and the imports it names (the crate's own `Backend` among them).
#[test]
fn a_backend_extension_is_declared_for_the_backends_its_impls_are_for() {
    let lib = "mod autodiff;\n\nuse burn::tensor::ops::FloatTensor;\nuse burn::tensor::{Tensor, TensorPrimitive};\n\npub trait Backend: burn::tensor::backend::Backend {\n    fn twice(x: FloatTensor<Self>) -> FloatTensor<Self>;\n}\n\npub fn twice<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    Tensor::from_primitive(TensorPrimitive::Float(B::twice(x.into_primitive().tensor())))\n}\n\npub fn four_times<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    let twice = <B as Backend>::twice(x.into_primitive().tensor());\n    Tensor::from_primitive(TensorPrimitive::Float(<B as Backend>::twice(twice)))\n}\n";
    let autodiff = "use super::Backend;\nuse burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;\nuse burn::backend::{Autodiff, Flex};\nuse burn::tensor::ops::FloatTensor;\n\nimpl<F: burn::tensor::Element> Backend for Flex<F> {\n    fn twice(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        x\n    }\n}\n\nimpl<B: Backend, C: CheckpointStrategy> Backend for Autodiff<B, C> {\n    fn twice(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        let _node = x.node.clone();\n        let _id = x.node.id;\n        Self::from_inner(B::twice(x.primitive))\n    }\n}\n";
    let ports = ported(&sources(&[("lib.rs", lib), ("autodiff.rs", autodiff)]));
    let (lib, autodiff) = (&ports[0], &ports[1]);
    for expected in [
        "#[burn::backend::backend_extension(Autodiff, Flex)]\npub trait Backend: burn::backend::Backend {",
        "Tensor::from_dispatch(<Dispatch as Backend>::twice(x.into_dispatch()))",
        "let twice = <Dispatch as Backend>::twice(x.into_dispatch());",
        "Tensor::from_dispatch(<Dispatch as Backend>::twice(twice))",
        "use burn::backend::Dispatch;",
    ] {
        assert!(lib.contains(expected), "{expected}\n{lib}");
    }
    for expected in [
        "use super::Backend;",
        "use burn::backend::{Autodiff, Flex};",
        "\nimpl Backend for Flex {",
        "impl<B: Backend, C: CheckpointStrategy> Backend for Autodiff<B, C> {",
        "let _node = x.node();",
        "let _id = x.id();",
        "Self::from_inner(B::twice(x.into_primitive()))",
    ] {
        assert!(autodiff.contains(expected), "{expected}\n{autodiff}");
    }
}

/// An impl compiled under a `cfg` (its own, or that of the `mod` declaration of its file) gives
/// its backend under that `cfg` in the attribute, which the macro reads with the crate's
/// features (`Cube: cfg(feature = "gpu")`); a backend some impl always compiles is
/// unconditional.
#[test]
fn a_backend_extension_names_cfg_gated_backends_under_their_cfg() {
    let text = "use burn::backend::Flex;\nuse burn::backend::wgpu::{CubeBackend, FloatElement, WgpuRuntime};\nuse burn::tensor::backend::Backend;\nuse burn::tensor::ops::FloatTensor;\n\npub trait Ext: Backend {\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self>;\n}\n\nimpl Ext for Flex {\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        x\n    }\n}\n\n#[cfg(feature = \"gpu\")]\nimpl<F: FloatElement> Ext for CubeBackend<WgpuRuntime, F, i32, u32> {\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        x\n    }\n}\n";
    let (out, _) = port(text);
    assert!(
        out.contains("#[burn::backend::backend_extension(Cube: cfg(feature = \"gpu\"), Flex)]\npub trait Ext: burn::backend::Backend {"),
        "{out}"
    );
    assert!(
        out.contains("#[cfg(feature = \"gpu\")]\nimpl Ext for CubeBackend {"),
        "{out}"
    );
    // The same impl in a module file its crate declares under the `cfg`.
    let (lib, gpu) = text.split_once("#[cfg(feature = \"gpu\")]\n").unwrap();
    let lib = format!("#[cfg(feature = \"gpu\")]\nmod gpu;\n\n{lib}");
    let gpu = format!("use super::Ext;\nuse burn::backend::wgpu::{{CubeBackend, FloatElement, WgpuRuntime}};\nuse burn::tensor::ops::FloatTensor;\n\n{gpu}");
    let lib = &ported(&sources(&[("src/lib.rs", &lib), ("src/gpu.rs", &gpu)]))[0];
    assert!(
        lib.contains("#[burn::backend::backend_extension(Cube: cfg(feature = \"gpu\"), Flex)]"),
        "{lib}"
    );
}

/// The attribute goes on the trait's own line, indented as the trait is (an inline module's),
/// after its doc comment.
#[test]
fn a_backend_extension_in_an_inline_module_is_declared_at_its_indentation() {
    let text = "pub mod ops {\n    use burn::backend::Flex;\n    use burn::tensor::ops::FloatTensor;\n\n    /// Doubles.\n    pub trait Ext: burn::tensor::backend::Backend {\n        fn op(x: FloatTensor<Self>) -> FloatTensor<Self>;\n    }\n\n    impl Ext for Flex {\n        fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {\n            x\n        }\n    }\n}\n";
    let (out, _) = port(text);
    assert!(
        out.contains("    /// Doubles.\n    #[burn::backend::backend_extension(Flex)]\n    pub trait Ext: burn::backend::Backend {\n"),
        "{out}"
    );
}

/// An impl for an alias of a CubeCL runtime's backend (`Wgpu`) is for 0.22's `Cube`, the
/// type the attribute's `Cube` routes to (fused or not): no `Fusion` finding. Two impls the
/// port would write for one type (`Wgpu` and `Wgpu<f16>`) are no port: the extension stays
/// reported whole.
#[test]
fn an_extension_of_a_runtime_alias_is_for_cube_unless_two_impls_collide() {
    let one = "use burn::backend::Wgpu;\nuse burn::tensor::backend::Backend;\nuse burn::tensor::ops::FloatTensor;\n\npub trait Ext\nwhere\n    Self: Backend,\n{\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {\n        x\n    }\n}\n\nimpl Ext for Wgpu {}\n";
    let (out, manual) = port(one);
    assert!(
        out.contains(
            "#[burn::backend::backend_extension(Cube)]\npub trait Ext\nwhere\n    Self: burn::backend::Backend,\n{"
        ),
        "{out}"
    );
    assert!(
        out.contains("\nimpl Ext for burn::backend::Cube {}\n"),
        "{out}"
    );
    assert!(!out.contains("use burn::backend::Wgpu;"), "{out}");
    assert!(manual.is_empty(), "{manual:?}");
    let two = one.replace(
        "impl Ext for Wgpu {}\n",
        "impl Ext for Wgpu {}\nimpl Ext for Wgpu<burn::tensor::f16> {}\n",
    );
    let (out, manual) = port(&two);
    assert!(!out.contains("backend_extension"), "{out}");
    let rule: RuleKey = RuleId::BackendExtensionTrait.into();
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        3,
        "{manual:?}"
    );
}

/// Two crates may each define an extension of one name: each is declared for the backends
/// its own crate implements it for (an impl of a project trait for Burn's backends is in the
/// trait's crate), and neither's impls collide with the other's.
#[test]
fn same_named_extensions_of_two_crates_are_declared_each_for_its_own_impls() {
    let trait_text = "use burn::tensor::backend::Backend as Burn;\nuse burn::tensor::ops::FloatTensor;\n\npub trait Backend: Burn {\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self>;\n}\n\n";
    let gpu = format!("{trait_text}impl<F: burn::tensor::Element> Backend for burn::backend::wgpu::CubeBackend<burn::backend::wgpu::WgpuRuntime, F, i32, u32> {{\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {{\n        x\n    }}\n}}\n");
    let cpu = format!("{trait_text}impl Backend for burn::backend::Flex {{\n    fn op(x: FloatTensor<Self>) -> FloatTensor<Self> {{\n        x\n    }}\n}}\n");
    let file = |name: &str, text: &str, package: usize| {
        SourceFile::from_text(
            PathBuf::from(name),
            name.to_string(),
            text.to_string(),
            package,
            ra_ap_syntax::Edition::Edition2021,
        )
    };
    let ports = ported(&[file("gpu/lib.rs", &gpu, 0), file("cpu/lib.rs", &cpu, 1)]);
    let (gpu, cpu) = (&ports[0], &ports[1]);
    assert!(
        gpu.contains("#[burn::backend::backend_extension(Cube)]\npub trait Backend"),
        "{gpu}"
    );
    assert!(
        gpu.contains("impl Backend for burn::backend::wgpu::CubeBackend {"),
        "{gpu}"
    );
    assert!(
        cpu.contains("#[burn::backend::backend_extension(Flex)]\npub trait Backend"),
        "{cpu}"
    );
}

/// Backend-extension API imported from a backend module (`KernelSource`, `CubeTensor`) stays
/// for the person porting the kernel; backend and device types go. Burn 0.22.1 still has
/// `CubeTensor` and `WgpuRuntime` at those paths, so the import is no site: the function that
/// uses them is, reported whole and left as written.
#[test]
fn backend_extension_api_imports_stay_and_their_users_are_reported() {
    let text = "use burn::backend::wgpu::{CubeTensor, WgpuDevice, WgpuRuntime};\n\npub fn device() -> WgpuDevice {\n    WgpuDevice::default()\n}\n\npub fn take(_: CubeTensor<WgpuRuntime>) {}\n";
    let (out, manual) = port_with_messages(text);
    assert!(
        out.contains("use burn::backend::wgpu::{CubeTensor, WgpuRuntime};"),
        "{out}"
    );
    assert!(
        out.ends_with("pub fn take(_: CubeTensor<WgpuRuntime>) {}\n"),
        "{out}"
    );
    let reported = messages_of(&manual, RuleId::BackendExtensionTrait);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(
        reported[0].contains("`burn::backend::wgpu::CubeTensor`"),
        "{reported:?}"
    );
}

/// An impl of a backend-extension API trait (`impl KernelSource for ..`) is kernel code for a
/// person: reported whole and left as written. Its imports stay, and are no site of their own
/// (Burn 0.22.1 has `KernelSource` and `SourceTemplate` at those paths).
#[test]
fn impls_of_backend_extension_api_are_reported_whole() {
    let text = "use burn::backend::wgpu::{KernelSource, SourceTemplate};\n\npub struct Kernel;\n\nimpl KernelSource for Kernel {\n    fn source(&self) -> SourceTemplate {\n        todo!()\n    }\n}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    let rule: RuleKey = RuleId::BackendExtensionTrait.into();
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        1,
        "{manual:?}"
    );
}

/// The bare uses of a renamed import follow it (found by searching the text, see
/// `FileCtx::name_refs`); the same letters in a comment, a string or a longer name do not.
#[test]
fn a_renamed_import_renames_its_uses_and_nothing_that_only_looks_like_one() {
    let (out, _) = port(
        "use burn::DispatchDevice;\n\n// A DispatchDevice, not a MyDispatchDevice.\npub fn name(_device: &DispatchDevice) -> &'static str {\n    \"DispatchDevice\"\n}\n\npub struct MyDispatchDevice;\n",
    );
    assert_eq!(
        out,
        "use burn::tensor::Device;\n\n// A DispatchDevice, not a MyDispatchDevice.\npub fn name(_device: &Device) -> &'static str {\n    \"DispatchDevice\"\n}\n\npub struct MyDispatchDevice;\n"
    );
}

/// Whether a finding in an import survives the import's rewrite is read from the syntax
/// tree: an import indented inside a module keeps the same findings as one at the top.
#[test]
fn findings_in_an_import_do_not_depend_on_its_indentation() {
    let top = "use burn::{backend::Wgpu, tensor::quantization::QuantLevel};\n\npub fn f(_: Option<Wgpu>, _: Option<QuantLevel>) {}\n";
    let nested = format!(
        "pub mod inner {{\n{}}}\n",
        top.lines()
            .map(|l| if l.is_empty() {
                "\n".to_string()
            } else {
                format!("    {l}\n")
            })
            .collect::<String>()
    );
    let (_, at_top) = port(top);
    let (_, in_module) = port(&nested);
    assert!(
        at_top.contains(&RuleKey::Builtin(RuleId::QuantLevel)),
        "{at_top:?}"
    );
    assert_eq!(at_top, in_module);
}

/// Only the backend parameter goes when its bound is in a `where` clause: the other
/// parameters, their bounds and their uses stay, and `Batcher` keeps the two arguments it
/// takes in 0.22 (a later pass reads `Batcher<I, O>`, already 0.22's form: its first
/// argument is no backend). The struct, whose `B` is a backend only because the impl binds
/// one there and which holds it only in `PhantomData`, loses it with its marker field.
#[test]
fn a_backend_bounded_in_a_where_clause_is_the_only_parameter_that_goes() {
    let text = "use burn::data::dataloader::batcher::Batcher;\nuse burn::prelude::*;\nuse std::marker::PhantomData;\n\n#[derive(Clone)]\npub struct Wrap<B, I, O> {\n    inner: fn(Vec<I>) -> O,\n    _b: PhantomData<B>,\n}\n\nimpl<B, I, O> Batcher<B, I, O> for Wrap<B, I, O>\nwhere\n    B: Backend,\n    I: Send + Sync + Clone + 'static,\n    O: Send + Sync + Clone + 'static,\n{\n    fn batch(&self, items: Vec<I>, _device: &B::Device) -> O {\n        (self.inner)(items)\n    }\n}\n\npub fn wrap<B: Backend>(inner: fn(Vec<u8>) -> u8) -> Wrap<B, u8, u8> {\n    Wrap { inner, _b: PhantomData }\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.contains("pub struct Wrap<I, O> {\n    inner: fn(Vec<I>) -> O,\n}\n\nimpl<I, O> Batcher<I, O> for Wrap<I, O>\nwhere\n    I: Send + Sync + Clone + 'static,\n    O: Send + Sync + Clone + 'static,\n{\n    fn batch(&self, items: Vec<I>, _device: &Device) -> O {"),
        "{out}"
    );
    assert!(
        out.contains(
            "pub fn wrap(inner: fn(Vec<u8>) -> u8) -> Wrap<u8, u8> {\n    Wrap { inner }\n}"
        ),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}");
}

/// A type parameter that an impl binds to a backend stays on its type when a field holds
/// it (not only `PhantomData` of it), and one that only marks the type stays when no impl
/// binds a backend there.
#[test]
fn parameters_that_hold_values_or_mark_no_backend_stay() {
    let text = "use burn::prelude::*;\nuse std::marker::PhantomData;\n\npub struct Holder<T> {\n    pub value: T,\n}\n\nimpl<B: Backend> Holder<B> {\n    pub fn zeros(&self, device: &B::Device) -> Tensor<B, 1> {\n        Tensor::zeros([1], device)\n    }\n}\n\npub struct Tagged<T> {\n    _t: PhantomData<T>,\n}\n\nimpl<T: Clone> Tagged<T> {\n    pub fn new() -> Self {\n        Tagged { _t: PhantomData }\n    }\n}\n";
    let (out, _) = port(text);
    assert!(
        out.contains("pub struct Holder<T> {\n    pub value: T,\n}"),
        "{out}"
    );
    assert!(
        out.contains(
            "pub struct Tagged<T> {\n    _t: PhantomData<T>,\n}\n\nimpl<T: Clone> Tagged<T> {"
        ),
        "{out}"
    );
}

/// An alias over a `cfg`-chosen alias is described by every branch, not by the one its
/// resolution happened to find.
#[test]
fn an_alias_over_cfg_branches_is_described_per_branch() {
    let text = "use burn::backend::Autodiff;\n\n#[cfg(feature = \"gpu\")]\npub type Inference = burn::backend::Wgpu;\n#[cfg(not(feature = \"gpu\"))]\npub type Inference = burn::backend::NdArray;\n\npub type Train = Autodiff<Inference>;\n";
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    let train = (outcome.changes.iter())
        .find(|c| {
            c.rule == RuleKey::Builtin(RuleId::BackendTypeAlias) && c.message.contains("`Train`")
        })
        .expect("a finding for Train");
    assert!(
        train.message.contains(
            "#[cfg(feature = \"gpu\")] `Device::wgpu(DeviceKind::DefaultDevice).autodiff()`"
        ) && train.message.contains(
            "#[cfg(not(feature = \"gpu\"))] `Device::flex().autodiff() with IntDType::I64`"
        ),
        "{}",
        train.message
    );
}

/// After `--apply` the `Backend` import is gone while a trait's `type Backend: Backend;`
/// stays for a person: `--check` of the port still reports it and its uses, so every
/// compiler error there sits at a finding. A `Backend` the workspace defines is its own.
#[test]
fn a_backend_associated_type_left_in_a_port_is_still_reported() {
    let ported = "use burn::tensor::Tensor;\n\npub trait Operator {\n    type Backend: Backend;\n\n    fn apply(&self, input: Tensor<Self::Backend, 1>) -> Tensor<Self::Backend, 1>;\n}\n";
    let (_, manual) = port(ported);
    let associated = RuleKey::Builtin(RuleId::BackendAssociatedType);
    assert_eq!(
        manual.iter().filter(|k| **k == associated).count(),
        3,
        "{manual:?}"
    );
    // Another trait's associated type of the same name is that trait's business, and a
    // module path ending in the name is no associated type.
    let other = format!(
        "{ported}\npub trait Source {{\n    type Backend;\n}}\n\npub fn f<S: Source>(x: Option<<S as Source>::Backend>) {{\n    let _ = x;\n}}\n\npub fn g<B: burn::tensor::backend::Backend>() {{}}\n"
    );
    let (_, manual) = port(&other);
    assert_eq!(
        manual.iter().filter(|k| **k == associated).count(),
        3,
        "{manual:?}"
    );
    // A module path that ends in the associated type's name names no associated type.
    let module_path = "use burn::tensor::backend::Backend;\n\npub mod kernels {\n    pub struct Engine;\n}\n\npub trait Mesh {\n    type Engine: Backend;\n}\n\npub fn engine() -> kernels::Engine {\n    kernels::Engine\n}\n";
    let (_, manual) = port(module_path);
    assert_eq!(
        manual.iter().filter(|k| **k == associated).count(),
        1,
        "{manual:?}"
    );
    let own = format!("{ported}\npub trait Backend {{}}\n");
    let (_, manual) = port(&own);
    assert!(!manual.contains(&associated), "{manual:?}");
}

/// A `match` over every variant of Burn's `MetricState`: `Some(value)` would leave steps
/// without a value unmatched, so the pattern stays for a person (`custom-metrics` reports
/// it). Not an example: one that names `custom-metrics` must have an `after` a person wrote.
#[test]
fn an_exhaustive_match_over_metric_states_is_left_to_a_person() {
    let text = "use burn::train::renderer::MetricState;\n\npub fn kind(state: &MetricState) -> f64 {\n    match state {\n        MetricState::Numeric(_, value) => value.current(),\n        MetricState::Generic(_) => 0.0,\n    }\n}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    assert!(
        manual.contains(&RuleKey::from(RuleId::CustomMetrics)),
        "{manual:?}"
    );
    // With a catch-all arm after it, the arm binds `Some(value)`.
    let text = text.replace("MetricState::Generic(_)", "_");
    let (out, _) = port(&text);
    assert!(
        out.contains("MetricState::Numeric(_, Some(value)) =>"),
        "{out}"
    );
}

/// Aliases local to a block (`{ type B = NdArray; .. }`) mean what they say in their block:
/// two blocks that call different backends `B` each get their own device, not the first
/// block's. Not an example: the wgpu half needs a backend the examples' crate leaves out.
#[test]
fn each_block_alias_selects_the_device_of_its_own_block() {
    let text = "use burn::backend::{NdArray, Wgpu};\nuse burn::prelude::*;\n\npub fn make<B: Backend>(device: B::Device) -> Tensor<B, 1> {\n    Tensor::zeros([1], &device)\n}\n\npub fn run(gpu: bool) {\n    if gpu {\n        type B = Wgpu;\n        let _ = make::<B>(Default::default());\n    } else {\n        type B = NdArray;\n        let _ = make::<B>(Default::default());\n    }\n}\n";
    let (out, manual) = port(text);
    assert!(manual.is_empty(), "{manual:?}\n{out}");
    let wgpu = out.find("make(Device::wgpu(DeviceKind::DefaultDevice))");
    let flex = out.find("make({ let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device })");
    assert!(wgpu.is_some_and(|w| flex.is_some_and(|f| w < f)), "{out}");
}

/// A bare `into_scalar()` whose value the function returns as a Rust scalar type compiles in
/// Burn 0.22 (the element type is inferred from the return type): not reported. Not an
/// example: a manual rule's example must name lines it reports.
#[test]
fn into_scalar_returned_as_a_scalar_is_not_reported() {
    let text = "use burn::prelude::*;\n\npub fn mean_error<B: Backend>(a: Tensor<B, 2>, b: Tensor<B, 2>) -> f32 {\n    (a - b).abs().mean().into_scalar()\n}\n\npub fn count<B: Backend>(mask: Tensor<B, 1, Int>) -> i64 {\n    return mask.sum().into_scalar();\n}\n\npub fn generic<B: Backend>(x: Tensor<B, 1>) -> B::FloatElem {\n    x.sum().into_scalar()\n}\n";
    let (out, manual) = port(text);
    // The function that returns the backend's element type reads its float tensor as `f32`
    // (the tensor's kind says float); its return type is left to a person
    // (`backend-associated-item`).
    assert!(out.contains("x.sum().into_scalar::<f32>()"), "{out}");
    assert!(
        out.contains("(a - b).abs().mean().into_scalar()\n"),
        "{out}"
    );
    let into_scalar = RuleKey::from(RuleId::IntoScalarType);
    assert!(!manual.contains(&into_scalar), "{manual:?}");
    assert!(
        manual.contains(&RuleKey::from(RuleId::BackendAssociatedItem)),
        "{manual:?}"
    );
}

/// A recorder that is used besides the `save_file` argument stays (for `recorder-types` to
/// report); one used only there goes. Not an example: the kept one needs a person.
#[test]
fn a_recorder_used_elsewhere_stays() {
    let text = "use burn::nn::Linear;\nuse burn::prelude::*;\nuse burn::record::{CompactRecorder, Recorder};\n\npub fn save<B: Backend>(model: Linear<B>) {\n    let recorder = CompactRecorder::new();\n    let unused = CompactRecorder::new();\n    model.clone().save_file(\"/tmp/a\", &unused).expect(\"saved\");\n    model.save_file(\"/tmp/b\", &recorder).expect(\"saved\");\n    recorder.record(0u8, \"/tmp/c\".into()).ok();\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.contains("let recorder = CompactRecorder::new();"),
        "{out}"
    );
    assert!(!out.contains("let unused"), "{out}");
    assert!(
        manual.contains(&RuleKey::from(RuleId::RecorderTypes)),
        "{manual:?}"
    );
}

/// `module-constant-field` leaves a field already marked `#[module(skip)]` and one whose type
/// names a type parameter of the struct (0.21's derive made it a module) as they are.
#[test]
fn module_fields_that_were_no_constants_or_are_skipped_stay() {
    let text = "use burn::module::Module;\nuse burn::nn::Linear;\nuse burn::prelude::*;\n\n#[derive(Debug, Clone)]\npub struct Settings {\n    pub scale: f32,\n}\n\n#[derive(Module, Debug)]\npub struct Wrapper<B: Backend, M: Module<B>> {\n    inner: M,\n    layers: Vec<Linear<B>>,\n    #[module(skip)]\n    settings: Settings,\n    other: Settings,\n    activation: nn::Gelu,\n}\n";
    let (out, manual) = port(text);
    // `nn::Gelu` through the prelude's glob is Burn's layer: neither skipped nor reported.
    assert!(
        !manual.contains(&RuleKey::from(RuleId::ModuleConstantField)),
        "{manual:?}"
    );
    assert_eq!(out.matches("#[module(skip)]").count(), 2, "{out}");
    assert!(
        out.contains("    #[module(skip)]\n    other: Settings,"),
        "{out}"
    );
    assert!(
        out.contains("    inner: M,\n    layers: Vec<Linear>,\n    #[module(skip)]\n    settings"),
        "{out}"
    );
}

/// `CubeBackend<Runtime, F, I, B>` is the backend of its runtime (burn-wgpu 0.21.0: `Wgpu<F,
/// I, B> = CubeBackend<WgpuRuntime, F, I, B>`) when its float and int elements are that
/// backend's defaults; a `graphics::Metal` graphics API is no `Metal` backend. Not an example:
/// wgpu is a backend the examples' crate leaves out.
#[test]
fn a_cube_backend_of_a_runtime_is_that_backend() {
    let text = "use burn::backend::wgpu::{CubeBackend, WgpuRuntime};\nuse burn::prelude::*;\n\npub fn make<B: Backend>(device: &B::Device) -> Tensor<B, 1> {\n    Tensor::zeros([1], device)\n}\n\npub fn run() {\n    type B = CubeBackend<WgpuRuntime, f32, i32, u8>;\n    let device = Default::default();\n    burn::backend::wgpu::init_setup::<burn::backend::wgpu::graphics::Metal>(&device, Default::default());\n    let _ = make::<B>(&device);\n}\n\npub fn half() {\n    type H = CubeBackend<WgpuRuntime, half::f16, i32, u32>;\n    let _ = make::<H>(&Default::default());\n}\n";
    let (out, manual) = port_with_messages(text);
    assert!(
        out.contains("let device = Device::wgpu(DeviceKind::DefaultDevice);"),
        "{out}"
    );
    assert!(!out.contains("type B ="), "{out}");
    // Half precision is a dtype the port would lose: that alias is no backend it knows.
    assert!(
        out.contains("type H = CubeBackend<WgpuRuntime, half::f16, i32, u32>;"),
        "{out}"
    );
    // Its device is left to a person, as part of the function that uses the kernel API's
    // `CubeBackend`; the other one's is not.
    assert!(
        messages_of(&manual, RuleId::DefaultDevice).is_empty(),
        "{manual:?}"
    );
    let whole = messages_of(&manual, RuleId::BackendExtensionTrait);
    assert!(
        whole.len() == 1 && whole[0].contains("1 `default-device`"),
        "{manual:?}"
    );
}

#[test]
fn tensor_data_fields_that_are_moved_or_written_are_left_to_a_person() {
    let (port, manual) = port(
        "use burn::tensor::{Shape, TensorData};\n\
         pub fn reshape(mut data: TensorData) -> TensorData {\n\
         let old = data.shape;\n\
         data.shape = Shape::new([old.num_elements()]);\n\
         data.shape.push(1);\n\
         let first = data.shape[0];\n\
         data.shape[0] = first;\n\
         data\n\
         }\n",
    );
    // Only the read of one dimension is ported; the move, the two writes and the `&mut self`
    // method stay for a person.
    assert!(port.contains("let first = data.shape()[0];"), "{port}");
    assert!(port.contains("let old = data.shape;\n"), "{port}");
    assert!(port.contains("data.shape[0] = first;"), "{port}");
    assert_eq!(manual, [RuleKey::from(RuleId::TensordataFields); 4]);
}

/// A read ported through the accessor keeps the file's own text around it: the parse opens
/// `dbg!(x)` into a call (`dbg_(x)`), which must not leak into the port.
#[test]
fn tensor_data_reads_keep_an_expression_macro_in_their_receiver() {
    let (port, manual) = port(
        "use burn::prelude::*;\n\npub fn rows<B: Backend>(x: Tensor<B, 2>) -> usize {\n    dbg!(x).to_data().shape[0]\n}\n",
    );
    assert!(port.contains("dbg!(x).to_data().shape()[0]"), "{port}");
    assert!(manual.is_empty(), "{manual:?}");
}

/// `let shape = &x.to_data().shape;` borrows a field of a temporary that the `let` keeps
/// alive; `x.to_data().shape()` would borrow it through a call, which does not (E0716): such a
/// borrow is left to a person, a borrow of a variable's field is ported.
#[test]
fn a_borrowed_field_of_temporary_tensor_data_is_left_to_a_person() {
    let (port, manual) = port(
        "use burn::prelude::*;\n\npub fn rows<B: Backend>(x: Tensor<B, 2>) -> usize {\n    let shape = &x.to_data().shape;\n    let first = &x.to_data().shape[0];\n    let data = x.to_data();\n    let own = &data.shape;\n    shape[0] + *first + own[0]\n}\n",
    );
    assert!(port.contains("let shape = &x.to_data().shape;"), "{port}");
    assert!(
        port.contains("let first = &x.to_data().shape[0];"),
        "{port}"
    );
    assert!(port.contains("let own = data.shape();"), "{port}");
    assert_eq!(manual, [RuleKey::from(RuleId::TensordataFields); 2]);
}

/// `recorder-calls` ports a recorder call only where its meaning is certain: a record read
/// beyond `load_record` (here cloned into a field), a device argument that computes something,
/// and bytes another recorder wrote stay with `recorder-types`.
#[test]
fn recorder_calls_whose_meaning_is_uncertain_stay_reported() {
    let text = r#"use burn::nn::Linear;
use burn::prelude::*;
use burn::record::{BinBytesRecorder, CompactRecorder, FullPrecisionSettings, Recorder};

pub fn kept<B: Backend>(model: Linear<B>, device: &B::Device) -> Linear<B> {
    let record = CompactRecorder::new().load("/tmp/a".into(), device).unwrap();
    let copy = record.clone();
    model.load_record(copy)
}

pub fn made_device<B: Backend>(model: Linear<B>) -> Linear<B> {
    let record = CompactRecorder::new().load("/tmp/b".into(), &Default::default()).unwrap();
    model.load_record(record)
}

pub fn two_recorders<B: Backend>(model: Linear<B>, device: &B::Device) -> Linear<B> {
    let writer = BinBytesRecorder::<FullPrecisionSettings>::new();
    let reader = BinBytesRecorder::<FullPrecisionSettings>::new();
    let bytes = writer.record(model.clone().into_record(), ()).unwrap();
    let record = reader.load(bytes, device).unwrap();
    model.load_record(record)
}
"#;
    let (out, manual) = port(text);
    assert!(!out.contains("ModuleRecord::load"), "{out}");
    assert!(!out.contains("ModuleRecord::from_bytes"), "{out}");
    // The writer's `record` is certain and ported; the reader stays, reported.
    assert!(
        out.contains("let bytes = model.clone().into_record().into_bytes().map(|bytes| bytes.to_vec()).unwrap();"),
        "{out}"
    );
    assert!(out.contains("let reader = BinBytesRecorder"), "{out}");
    let rule: RuleKey = RuleId::RecorderTypes.into();
    assert!(manual.contains(&rule), "{out}");
}

/// A device constant chosen by `cfg` beside branches that are `LazyLock`s already (burn-lm's
/// `INFERENCE_DEVICE`): `&*DEVICE` reads a `&Device` from each, so the constant is ported.
#[test]
fn a_device_constant_beside_lazy_branches_becomes_a_lazy_static() {
    let text = "use burn::backend::ndarray::NdArrayDevice;\nuse burn::backend::wgpu::WgpuDevice;\n\n#[cfg(feature = \"gpu\")]\npub const DEVICE: std::sync::LazyLock<WgpuDevice> = std::sync::LazyLock::new(|| WgpuDevice::default());\n#[cfg(not(feature = \"gpu\"))]\npub const DEVICE: NdArrayDevice = NdArrayDevice::Cpu;\n\npub fn name() -> String {\n    let device = &DEVICE;\n    format!(\"{device:?}\")\n}\n";
    let (out, manual) = port(text);
    assert!(
        out.contains("pub static DEVICE: std::sync::LazyLock<Device> = std::sync::LazyLock::new(|| { let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device });"),
        "{out}"
    );
    assert!(out.contains("let device = &*DEVICE;"), "{out}");
    assert!(manual.is_empty(), "{manual:?}\n{out}");
}

/// A project's re-export of Burn's backend trait goes, and so do the imports of it elsewhere
/// in the workspace (burn-lm's `use burn_lm_inference::Backend;`, E0432 at no finding).
#[test]
fn an_import_of_a_reexported_backend_trait_goes() {
    let lib = "pub use burn::prelude::Backend;\npub mod model;\n";
    let model = "use burn::tensor::Tensor;\nuse crate::Backend;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.clone() + x\n}\n";
    let out = port_files(&[("lib.rs", lib), ("model.rs", model)]);
    assert!(!out[0].contains("Backend"), "{}", out[0]);
    assert!(!out[1].contains("Backend"), "{}", out[1]);
    assert!(
        out[1].contains("pub fn double(x: Tensor<1>) -> Tensor<1>"),
        "{}",
        out[1]
    );

    // Without a re-export, another crate's `Backend` is its own (mere's storage trait from a
    // crate without Burn, which the index does not read): its import stays.
    let model = "use burn::prelude::Backend;\nuse burn::tensor::Tensor;\n\npub fn double<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n    x.clone() + x\n}\n";
    let store = "use storage::Backend as _;\nuse storage::MemoryBackend;\n\npub fn open() -> MemoryBackend {\n    MemoryBackend::default()\n}\n";
    let out = port_files(&[("model.rs", model), ("store.rs", store)]);
    assert!(out[1].contains("use storage::Backend as _;"), "{}", out[1]);
}

/// `item-lazy-sync` ports an `ItemLazy` impl whose item synced to itself; one that synced to
/// another type, or whose `sync` returns early, is reported whole (burn-lm's `Self::ItemSync`
/// in `sync`'s signature sat at no finding while only the header was reported).
#[test]
fn item_lazy_impls_that_do_not_sync_to_themselves_are_reported_whole() {
    let text = "use burn::train::ItemLazy;\n\npub struct Pending(pub Vec<f32>);\npub struct Ready(pub f32);\npub struct Flag(pub bool);\n\nimpl ItemLazy for Pending {\n    type ItemSync = Ready;\n\n    fn sync(self) -> Ready {\n        Ready(self.0.iter().sum())\n    }\n}\n\nimpl ItemLazy for Flag {\n    type ItemSync = Self;\n\n    fn sync(self) -> Self::ItemSync {\n        if self.0 {\n            return Flag(false);\n        }\n        self\n    }\n}\n";
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    let reported: Vec<&str> = (outcome.changes.iter())
        .filter(|c| c.fix.is_none() && c.rule == RuleKey::from(RuleId::ItemLazySync))
        .map(|c| &text[usize::from(c.range.start())..usize::from(c.range.end())])
        .collect();
    assert_eq!(reported.len(), 2, "{reported:?}");
    assert!(reported
        .iter()
        .all(|r| r.starts_with("impl ItemLazy for") && r.ends_with('}')));
    assert_eq!(outcome.migrated, text);
}

/// `x.into_scalar()` passed to a project function that converts its `ToElement` parameter to
/// one element asks for that element, across files (nanochat's `scalar_to_f32`); a function
/// that converts it to two stays reported.
#[test]
fn into_scalar_passed_to_a_converting_function_asks_for_its_element() {
    let common = "use burn::tensor::ToElement;\n\npub fn scalar_to_f32<E: ToElement>(value: E) -> f32 {\n    value.to_f32()\n}\n\npub fn either<E>(value: E, wide: bool) -> f64\nwhere\n    E: ToElement,\n{\n    if wide { value.to_f64() } else { value.to_f32() as f64 }\n}\n";
    // Of a tensor whose kind nothing shows (`x[0]`), so that the callee alone decides.
    let user = "use burn::prelude::*;\nuse crate::common::{either, scalar_to_f32};\n\npub fn read<B: Backend>(x: Vec<Tensor<B, 1>>) -> (f32, f64) {\n    (scalar_to_f32(x[0].clone().sum().into_scalar()), either(x[0].clone().sum().into_scalar(), true))\n}\n";
    let out = port_files_reporting(&[("common.rs", common), ("user.rs", user)]);
    let (user, manual) = &out[1];
    assert!(
        user.contains("scalar_to_f32(x[0].clone().sum().into_scalar::<f32>())"),
        "{user}"
    );
    assert!(
        user.contains("either(x[0].clone().sum().into_scalar(), true)"),
        "{user}"
    );
    let unknown: RuleKey = RuleId::IntoScalarType.into();
    assert_eq!(manual, &vec![unknown], "{user}");
}

/// Issue 30, case 1: a device the port builds computes in the dtypes the 0.21 backend did.
/// NdArray's integers were i64 and Flex's default is I32, so the device is configured; element
/// generics written on the type (`NdArray<f64>`, `Wgpu<f16>`) are configured too, and a
/// backend whose dtypes are the 0.22 device's defaults (0.21's `Flex`, `Wgpu`) gets nothing.
#[test]
fn ported_devices_keep_the_dtypes_of_their_0_21_backend() {
    let (out, _) = port(
        "use burn::backend::NdArray;\nuse burn::prelude::*;\n\nfn main() {\n    let device = Default::default();\n    let x = Tensor::<NdArray, 1, Int>::arange(0..3, &device);\n    println!(\"{}\", x);\n}\n",
    );
    assert!(
        out.contains("use burn::tensor::IntDType;")
            && out.contains("    let mut device = Device::flex();\n    let _ = device.configure(IntDType::I64);\n    let x = Tensor::<1, Int>::arange(0..3, &device);"),
        "{out}"
    );

    // Not a `let`: the device is a block that configures it.
    let (out, _) = port(
        "use burn::backend::ndarray::{NdArray, NdArrayDevice};\nuse burn::prelude::*;\n\nfn main() {\n    let x = Tensor::<NdArray, 1>::ones([2], &NdArrayDevice::Cpu);\n    println!(\"{}\", x);\n}\n",
    );
    assert!(
        out.contains("Tensor::<1>::ones([2], &{ let mut device = Device::flex(); let _ = device.configure(IntDType::I64); device });"),
        "{out}"
    );

    let (out, manual) = port(
        "use burn::backend::{NdArray, Wgpu};\nuse burn::prelude::*;\n\nfn precise() {\n    let device = Default::default();\n    let _ = Tensor::<NdArray<f64>, 1>::ones([2], &device);\n}\n\nfn half() {\n    let device = Default::default();\n    let _ = Tensor::<Wgpu<half::f16>, 1>::ones([2], &device);\n}\n",
    );
    assert!(
        out.contains("let _ = device.configure((FloatDType::F64, IntDType::I64));"),
        "{out}"
    );
    // `half::f16` is `f16` by its path; each device is built where its type is named, so
    // nothing is left to check.
    assert!(
        out.contains("let _ = device.configure(FloatDType::F16);"),
        "{out}"
    );
    assert!(
        !manual.contains(&RuleId::BackendElementGenerics.into()),
        "{manual:?}"
    );
    let (out, _) = port(
        "use burn::backend::Wgpu;\nuse burn::prelude::*;\nuse half::f16;\n\nfn half() {\n    let device = Default::default();\n    let _ = Tensor::<Wgpu<f16>, 1>::ones([2], &device);\n}\n",
    );
    assert!(
        out.contains("    let mut device = Device::wgpu(DeviceKind::DefaultDevice);\n    let _ = device.configure(FloatDType::F16);"),
        "{out}"
    );

    for backend in ["Flex", "Wgpu"] {
        let (out, _) = port(&format!(
            "use burn::backend::{backend};\nuse burn::prelude::*;\n\nfn main() {{\n    let device = Default::default();\n    let _ = Tensor::<{backend}, 1>::ones([2], &device);\n}}\n"
        ));
        assert!(!out.contains("configure"), "{out}");
        assert!(out.contains("    let device = Device::"), "{out}");
    }
}

/// Issue 30, item 9, for any rule: a rewrite that writes a name its module cannot resolve
/// (here a user rule whose template names `Scaler`) is reported where it writes it, instead
/// of leaving rustc's "cannot find" at no finding; or, where the rule says where the item
/// lives, the import is written. An import of the name in the module (or a glob) resolves it;
/// the file's import does not reach into an inline module.
#[test]
fn a_name_a_rewrite_writes_gets_its_import_or_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("team-scale.toml"),
        r#"id = "team-scale"
title = "Our scale helper is an associated function now"
category = "tensors"
applicability = "safe"
hint = "call `Scaler::scale`"
why = "Our own helper moved with the port."

[[rewrite]]
kind = "rewrite-call"
function = "scale_v1"
to = "Scaler::scale"
"#,
    )
    .unwrap();
    let mut rules = RuleSet::embedded().unwrap();
    rules.add_dir(dir.path()).unwrap();
    let unresolved = |text: &str| {
        let outcome = migrate_text(text, &rules).unwrap();
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
        assert!(
            outcome.migrated.contains("Scaler::scale(2.0)"),
            "{}",
            outcome.migrated
        );
        let messages: Vec<String> = (outcome.changes.iter())
            .filter(|c| c.fix.is_none() && c.rule == RuleKey::Builtin(RuleId::DeviceImport))
            .map(|c| c.message.clone())
            .collect();
        messages
    };
    let messages = unresolved("fn f() -> f32 {\n    scale_v1(2.0)\n}\n");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("`team-scale` writes `Scaler` here"),
        "{}",
        messages[0]
    );
    assert_eq!(
        unresolved("use helpers::Scaler;\n\nfn f() -> f32 {\n    scale_v1(2.0)\n}\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        unresolved("use helpers::*;\n\nfn f() -> f32 {\n    scale_v1(2.0)\n}\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        unresolved("use helpers::Scaler;\n\nmod inner {\n    fn f() -> f32 {\n        scale_v1(2.0)\n    }\n}\n").len(),
        1
    );
    // A rule that says where the name lives (`[api] after`) gets the import written instead.
    let with_home = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(dir.path().join("team-scale.toml")).unwrap();
    std::fs::write(
        with_home.path().join("team-scale.toml"),
        text.replace(
            "[[rewrite]]",
            "[api]\nafter = [\"helpers::Scaler::scale\"]\n\n[[rewrite]]",
        ),
    )
    .unwrap();
    let mut rules = RuleSet::embedded().unwrap();
    rules.add_dir(with_home.path()).unwrap();
    let outcome = migrate_text("fn f() -> f32 {\n    scale_v1(2.0)\n}\n", &rules).unwrap();
    assert_eq!(
        outcome.migrated,
        "use helpers::Scaler;\nfn f() -> f32 {\n    Scaler::scale(2.0)\n}\n"
    );
    assert!(
        !outcome.changes.iter().any(|c| c.fix.is_none()),
        "{:?}",
        outcome.changes
    );
}

/// `Dataset::get` is ported where its `Option` leaves only as the tail; a body that returns
/// early (or uses `?` on an `Option`) keeps its `None`s for a person, reported at the return
/// type and left unchanged.
#[test]
fn dataset_get_that_returns_early_is_reported_not_ported() {
    let text = "use burn::data::dataset::Dataset;\n\npub struct Rows(pub Vec<Vec<f32>>);\n\nimpl Dataset<f32> for Rows {\n    fn get(&self, index: usize) -> Option<f32> {\n        let row = self.0.get(index)?;\n        if row.is_empty() {\n            return None;\n        }\n        Some(row[0])\n    }\n\n    fn len(&self) -> usize {\n        self.0.len()\n    }\n}\n";
    let (migrated, manual) = port(text);
    assert!(migrated.contains("-> Option<f32>"), "{migrated}");
    assert!(!migrated.contains("unwrap_or_else"), "{migrated}");
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::DatasetGetResult)),
        "{manual:?}"
    );

    // The tail-only body of the same impl is ported, with the index's own name.
    let tail_only = text.replace(
        "let row = self.0.get(index)?;\n        if row.is_empty() {\n            return None;\n        }\n        Some(row[0])",
        "self.0.get(index).map(|row| row[0])",
    ).replace("index: usize", "i: usize").replace("get(index)", "get(i)");
    let (migrated, manual) = port(&tail_only);
    assert!(
        migrated.contains("fn get(&self, i: usize) -> Result<f32, DatasetError> {\n        Ok(self.0.get(i).map(|row| row[0]).unwrap_or_else(|| panic!(\"dataset index {i} out of range\")))\n    }"),
        "{migrated}"
    );
    assert!(
        !manual.contains(&RuleKey::Builtin(RuleId::DatasetGetResult)),
        "{manual:?}"
    );
}

/// A concrete backend's primitive is its own (a `CubeTensor` for a kernel), not `Dispatch`'s:
/// `into_primitive` and `from_primitive` there stay for a person, while the same calls in code
/// generic over the backend go to `into_dispatch`/`from_dispatch`.
#[test]
fn primitives_of_a_concrete_backend_are_reported_not_dispatched() {
    let concrete = "use burn::backend::NdArray;\nuse burn::prelude::*;\n\npub fn rank(x: Tensor<NdArray, 2>) -> usize {\n    let p = x.into_primitive().tensor();\n    Tensor::<NdArray, 2>::from_primitive(burn::tensor::TensorPrimitive::Float(p)).dims().len()\n}\n";
    let (migrated, manual) = port(concrete);
    assert!(
        migrated.contains("x.into_primitive().tensor()"),
        "{migrated}"
    );
    assert!(!migrated.contains("dispatch"), "{migrated}");
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::DispatchPrimitives)),
        "{manual:?}"
    );
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::TensorPrimitive)),
        "{manual:?}"
    );

    let generic = concrete
        .replace("use burn::backend::NdArray;\n", "")
        .replace("pub fn rank(", "pub fn rank<B: Backend>(")
        .replace("NdArray", "B");
    let (migrated, manual) = port(&generic);
    assert!(
        migrated.contains("let p = x.into_dispatch();"),
        "{migrated}"
    );
    assert!(
        migrated.contains("Tensor::<2>::from_dispatch(p).dims().len()"),
        "{migrated}"
    );
    assert!(manual.is_empty(), "{manual:?}");

    // Generic, but over a backend built on the parameter: its primitives are `Autodiff`'s.
    let wrapped = concrete
        .replace(
            "use burn::backend::NdArray;\n",
            "use burn::backend::Autodiff;\n",
        )
        .replace("pub fn rank(", "pub fn rank<I: Backend>(")
        .replace("NdArray", "Autodiff<I>");
    let (migrated, manual) = port(&wrapped);
    assert!(!migrated.contains("dispatch"), "{migrated}");
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::DispatchPrimitives)),
        "{manual:?}"
    );
}

/// A file that names Burn's `Dataset` is reported once, at the import, when it reads something
/// the port cannot place; a file whose reads are all placed, or that names a project item
/// called `Dataset`, is not.
#[test]
fn the_file_level_dataset_finding_needs_a_read_the_port_cannot_place() {
    let unplaced = "use burn::data::dataset::{Dataset, InMemDataset};\n\npub struct Rows {\n    pub items: InMemDataset<u8>,\n}\n\npub fn first(rows: &Rows) -> Option<u8> {\n    rows.items.get(0)\n}\n";
    let (_, manual) = port(unplaced);
    let rule: RuleKey = RuleId::DatasetResults.into();
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        1,
        "{manual:?}"
    );
    // In a group of imports too.
    let grouped = unplaced.replace(
        "use burn::data::dataset::{Dataset, InMemDataset};",
        "use burn::{\n    data::dataset::{Dataset, InMemDataset},\n    prelude::*,\n};",
    );
    let (_, manual) = port(&grouped);
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        1,
        "{manual:?}"
    );

    let placed = "use burn::data::dataset::{Dataset, InMemDataset};\n\npub fn first(rows: &InMemDataset<u8>, other: impl Dataset<u8>) -> Option<u8> {\n    rows.get(0).or(other.get(0))\n}\n";
    let (_, manual) = port(placed);
    assert_eq!(
        manual.iter().filter(|r| **r == rule).count(),
        2,
        "{manual:?}"
    );

    // A project path ending in a `Dataset` of its own (an enum variant), in a workspace that
    // also re-exports Burn's: not Burn's. (loractl's `crate::event::PhaseName::Dataset` was
    // read as Burn's through its workspace index; this smaller workspace does not reproduce
    // that resolution, so it guards the outcome, not that path.)
    let reexport = "pub mod data {\n    pub use burn::data::dataset::Dataset;\n}\n";
    let project = "pub mod phase {\n    pub enum Name {\n        Dataset,\n    }\n}\n\npub fn is_data(name: &phase::Name, items: &[u8]) -> bool {\n    matches!(name, crate::phase::Name::Dataset) && items.iter().count() > 0\n}\n";
    let out = port_files_reporting(&[("lib.rs", reexport), ("phase.rs", project)]);
    assert!(!out[1].1.contains(&rule), "{:?}", out[1].1);
}

/// `$B` in a `macro_rules!` body is a metavariable, not the file's backend alias `B`: only the
/// backend type the body names is left to a person.
#[test]
fn a_macro_metavariable_is_no_backend_type() {
    let text = "use burn::prelude::*;\n\ntype B = burn::backend::NdArray;\n\nmacro_rules! with_backend {\n    (|$B:ident| $body:expr) => {{\n        type $B = burn::backend::NdArray;\n        $body\n    }};\n}\n\npub fn ones() -> usize {\n    Tensor::<B, 1>::ones([2], &Default::default()).dims()[0]\n}\n";
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    let dangling: Vec<&str> = (outcome.changes.iter())
        .filter(|c| c.rule == RuleId::DanglingBackendParam)
        .map(|c| &text[usize::from(c.range.start())..usize::from(c.range.end())])
        .collect();
    assert_eq!(dangling, ["NdArray"], "{}", outcome.migrated);
}

/// A `get` whose tail reads a dataset field in a shape other than `.map(..)` (here
/// `.or_else(..)`, an `Option` method that `Result` has with another closure) is reported, not
/// wrapped: the read's 0.22 type is a `Result`.
#[test]
fn dataset_get_that_reads_a_field_dataset_otherwise_is_reported() {
    let text = "use burn::data::dataset::{Dataset, InMemDataset};\n\npub struct Fallback {\n    items: InMemDataset<f32>,\n}\n\nimpl Dataset<f32> for Fallback {\n    fn get(&self, index: usize) -> Option<f32> {\n        self.items.get(index).or_else(|| self.items.get(0))\n    }\n\n    fn len(&self) -> usize {\n        self.items.len()\n    }\n}\n";
    let (migrated, manual) = port(text);
    assert!(migrated.contains("-> Option<f32>"), "{migrated}");
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::DatasetGetResult)),
        "{manual:?}"
    );
}

/// `burn::tensor::Device::<Backend>::Cuda(0)`, a variant of the backend's device type through
/// 0.21's `Device<B>` alias, has no 0.22 counterpart a rule can pick: reported, where the port
/// would otherwise leave `Device::Cuda(0)`.
#[test]
fn a_device_variant_through_the_alias_is_reported() {
    let text = "type Backend = burn::backend::Autodiff<burn::backend::LibTorch>;\n\npub fn device() -> burn::tensor::Device<Backend> {\n    burn::tensor::Device::<Backend>::Cuda(0)\n}\n";
    let (_, manual) = port(text);
    assert!(
        manual.contains(&RuleKey::Builtin(RuleId::BackendDeviceType)),
        "{manual:?}"
    );
}

/// An item of a removed module that Burn 0.22 keeps elsewhere (`burn::collective::
/// ReduceOperation`, `distributed-paths`) moves, even from a grouped import whose other names
/// are removed (`distributed-api`); its uses are no findings. (0.21's
/// `collective` feature is not one the examples' crate builds: not an example.)
#[test]
fn a_moved_item_of_a_removed_module_moves_and_its_uses_are_not_reported() {
    let text = "use burn::collective::{AllReduceStrategy, ReduceOperation};\n\npub fn op(s: &str) -> Option<ReduceOperation> {\n    let _ = AllReduceStrategy::Ring;\n    (s == \"sum\").then_some(ReduceOperation::Sum)\n}\n";
    let (out, manual) = port_with_messages(text);
    assert!(
        out.contains("use burn::tensor::distributed::ReduceOperation;\n"),
        "{out}"
    );
    // The removed one's import stays, reported, for the use a person ports (0.21.0's listing
    // has it, 0.22.1's does not).
    assert!(
        out.contains("use burn::collective::AllReduceStrategy;\n"),
        "{out}"
    );
    assert!(
        manual.iter().all(|(_, m)| !m.contains("ReduceOperation")),
        "{manual:?}"
    );
    assert!(
        manual.iter().any(|(_, m)| m.contains("AllReduceStrategy")),
        "{manual:?}"
    );
}

/// Kernel API written out in full (no import) makes its function kernel code too; a device
/// type written out (`NdArrayDevice::default()`) does not: `Device` values replace it.
#[test]
fn kernel_api_written_out_is_kernel_code_and_a_device_type_is_not() {
    let text = "pub fn take(x: burn::backend::wgpu::CubeTensor<burn::backend::wgpu::WgpuRuntime>) -> burn::backend::wgpu::CubeTensor<burn::backend::wgpu::WgpuRuntime> {\n    burn::backend::wgpu::into_contiguous(x)\n}\n\npub fn device() -> burn::backend::ndarray::NdArrayDevice {\n    burn::backend::ndarray::NdArrayDevice::default()\n}\n";
    let (out, manual) = port_with_messages(text);
    let reported = messages_of(&manual, RuleId::BackendExtensionTrait);
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(
        out.contains(
            "\npub fn take(x: burn::backend::wgpu::CubeTensor<burn::backend::wgpu::WgpuRuntime>)"
        ),
        "{out}"
    );
    assert!(!out.contains("NdArrayDevice"), "{out}");
}

/// A device built for an element alias's backend is configured by the alias only where the
/// file can name it: elsewhere it stays unconfigured (the type's `backend-element-generics`
/// finding says to check it) rather than name what is not in scope.
#[test]
fn an_element_alias_configures_only_devices_that_can_name_it() {
    let lib = "use burn::backend::NdArray;\n\npub mod train;\n\npub type Elem = f64;\npub type Precise = NdArray<Elem>;\n";
    let train = "use burn::prelude::*;\n\nuse crate::Precise;\n\npub fn run() -> Tensor<Precise, 1> {\n    let device = Default::default();\n    Tensor::<Precise, 1>::ones([2], &device)\n}\n";
    let out = port_files_reporting(&[("lib.rs", lib), ("train.rs", train)]);
    let (train_out, _) = &out[1];
    assert!(!train_out.contains("Elem as Element"), "{train_out}");
    assert!(train_out.contains("Device::flex()"), "{train_out}");
    let (_, lib_manual) = &out[0];
    assert!(
        lib_manual.contains(&RuleId::BackendElementGenerics.into()),
        "{lib_manual:?}"
    );
}

/// An import of a record `derive(Module)` generated goes, and each use stays reported; an
/// import of a `removed-item` table's item stays, reported, while a person ports its uses; a
/// re-export (`pub use`) of either stays, reported, since other modules and crates may name it.
#[test]
fn imports_of_gone_names_go_or_stay_with_their_uses() {
    let text = "\
pub mod model {
    use burn::prelude::*;

    #[derive(Module, Debug)]
    pub struct Net<B: Backend> {
        pub layer: burn::nn::Linear<B>,
    }
}

pub mod private {
    use super::model::NetRecord;
    use burn::module::Reinitializer;

    pub fn reset<B: burn::prelude::Backend>(net: super::model::Net<B>) -> NetRecord<B> {
        Reinitializer::new().apply(net).into_record()
    }
}

pub mod public {
    pub use super::model::NetRecord;
    pub use burn::module::Reinitializer;
}
";
    let (migrated, manual) = port_with_messages(text);
    assert!(
        !migrated.contains("    use super::model::NetRecord;"),
        "{migrated}"
    );
    assert!(
        migrated.contains("    use burn::module::Reinitializer;"),
        "{migrated}"
    );
    assert!(
        migrated.contains("pub use super::model::NetRecord;"),
        "{migrated}"
    );
    assert!(
        migrated.contains("pub use burn::module::Reinitializer;"),
        "{migrated}"
    );
    // The return type, and the re-export.
    assert_eq!(
        messages_of(&manual, RuleId::ModuleRecordType).len(),
        2,
        "{manual:?}"
    );
    // The call, its import, and the re-export.
    assert_eq!(
        messages_of(&manual, RuleId::Reinitializer).len(),
        3,
        "{manual:?}"
    );
}

/// A device variable passed by value once, or only borrowed before, needs no clone; one bound
/// again by a `let` whose initializer passes it is that `let`'s last use of it; a parameter of a
/// 0.21 device type passed twice is cloned like a `let`; two arms of a `match` never both pass
/// it; one used in a closure is left as it is.
#[test]
fn a_copied_device_is_cloned_only_where_it_is_used_again() {
    let text = "\
use burn::backend::flex::FlexDevice;
use burn::backend::Flex;
use burn::prelude::*;

fn ones<B: Backend>(device: &B::Device) -> Tensor<B, 1> {
    Tensor::ones([2], device)
}

fn keep<B: Backend>(device: B::Device) -> B::Device {
    device
}

pub fn once() {
    let device = FlexDevice;
    let a = ones::<Flex>(&device);
    let device = keep::<Flex>(device);
    println!(\"{} {:?}\", a, device);
}

pub fn rebound() {
    let device = FlexDevice;
    let first = keep::<Flex>(device);
    let device = keep::<Flex>(device);
    println!(\"{:?} {:?}\", first, device);
}

pub struct Held {
    pub device: FlexDevice,
    pub ones: Tensor<Flex, 1>,
}

pub fn in_a_field() -> Held {
    let device = FlexDevice;
    Held {
        device,
        ones: ones::<Flex>(&device),
    }
}

pub fn taken(device: FlexDevice) {
    let twice = (keep::<Flex>(device), keep::<Flex>(device));
    println!(\"{:?}\", twice);
}

pub fn in_arms(big: bool) {
    let device = FlexDevice;
    let chosen = match big {
        true => keep::<Flex>(device),
        false => keep::<Flex>(device),
    };
    println!(\"{:?}\", chosen);
}

pub fn in_a_closure() {
    let device = FlexDevice;
    let make = move || keep::<Flex>(device);
    println!(\"{:?} {:?}\", make(), keep::<Flex>(device));
}
";
    let (migrated, _) = port_with_messages(text);
    assert!(
        migrated.contains("    let device = keep(device);\n    println!(\"{} {:?}\", a, device);"),
        "{migrated}"
    );
    assert!(
        migrated.contains("    let first = keep(device.clone());\n    let device = keep(device);"),
        "{migrated}"
    );
    assert!(
        migrated
            .contains("    Held {\n        device: device.clone(),\n        ones: ones(&device),"),
        "{migrated}"
    );
    assert!(
        migrated.contains("let twice = (keep(device.clone()), keep(device));"),
        "{migrated}"
    );
    assert!(
        migrated.contains("        true => keep(device),\n        false => keep(device),"),
        "{migrated}"
    );
    assert!(
        migrated.contains("let make = move || keep(device);"),
        "{migrated}"
    );
    assert!(migrated.contains("make(), keep(device));"), "{migrated}");
}

/// A function's optimizer type parameter is `ModuleOptimizer` only where no caller writes the
/// function's generic arguments: `apply::<B, M, _>(..)` names it by position, so it stays,
/// reported.
#[test]
fn an_optimizer_parameter_that_a_caller_names_stays_reported() {
    let text = "\
use burn::module::AutodiffModule;
use burn::optim::{GradientsParams, Optimizer};
use burn::tensor::backend::AutodiffBackend;

pub fn apply<B: AutodiffBackend, M: AutodiffModule<B>, O: Optimizer<M, B>>(optim: &mut O, model: M, grads: GradientsParams) -> M {
    optim.step(1e-3, model, grads)
}

pub fn twice<B: AutodiffBackend, M: AutodiffModule<B>, O: Optimizer<M, B>>(optim: &mut O, model: M, grads: GradientsParams) -> M {
    let model = apply::<B, M, O>(optim, model, grads.clone());
    optim.step(1e-3, model, grads)
}
";
    let (migrated, manual) = port_with_messages(text);
    assert!(
        migrated.contains("pub fn apply<M: Module, O: Optimizer<M>>"),
        "{migrated}"
    );
    // `twice` names `O` in its body (the turbofish): it stays too.
    assert!(
        migrated.contains("pub fn twice<M: Module, O: Optimizer<M>>"),
        "{migrated}"
    );
    assert_eq!(
        messages_of(&manual, RuleId::OptimizerBounds).len(),
        2,
        "{manual:?}"
    );
}

/// An import of an item Burn 0.22.1 lacks goes, without a finding, where another step rewrites
/// every use of it: `OptimizerAdaptor<Adam, Linear<Train>, Train>` is `ModuleOptimizer`
/// (`optimizer-adaptor-type`), so nothing is left for a person at the import.
#[test]
fn an_import_whose_uses_another_rule_rewrites_goes_without_a_finding() {
    let text = "\
use burn::backend::{Autodiff, NdArray};
use burn::nn::Linear;
use burn::optim::adaptor::OptimizerAdaptor;
use burn::optim::Adam;

type Train = Autodiff<NdArray>;

pub struct Trainer {
    pub optim: OptimizerAdaptor<Adam, Linear<Train>, Train>,
}
";
    let (migrated, manual) = port_with_messages(text);
    assert!(!migrated.contains("OptimizerAdaptor"), "{migrated}");
    assert!(
        migrated.contains("pub optim: ModuleOptimizer,"),
        "{migrated}"
    );
    assert!(
        messages_of(&manual, RuleId::SimpleOptimizer).is_empty(),
        "{manual:?}"
    );
}

/// A round trip through the primitive of a concrete autodiff backend (`Train::int_inner`, with
/// `type Train = Autodiff<NdArray>`) is not `autodiff-primitive-round-trip`'s: only a backend
/// type parameter's conversions are `inner()`/`from_inner` written out.
#[test]
fn a_concrete_backends_primitive_round_trip_is_left_to_the_primitive_rules() {
    let text = "\
use burn::backend::{Autodiff, NdArray};
use burn::prelude::*;
use burn::tensor::backend::AutodiffBackend;

type Train = Autodiff<NdArray>;

pub fn off(ids: Tensor<Train, 1, Int>) -> Tensor<NdArray, 1, Int> {
    Tensor::from_primitive(Train::int_inner(ids.into_primitive()))
}

pub fn generic<B: AutodiffBackend>(ids: Tensor<B, 1, Int>) -> Tensor<B::InnerBackend, 1, Int> {
    Tensor::from_primitive(B::int_inner(ids.into_primitive()))
}
";
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules).unwrap();
    let round_trips: Vec<&str> = (outcome.changes.iter())
        .filter(|c| c.rule == RuleId::AutodiffPrimitiveRoundTrip)
        .map(|c| &text[c.range])
        .collect();
    assert_eq!(
        round_trips,
        vec!["Tensor::from_primitive(B::int_inner(ids.into_primitive()))"],
        "{}",
        outcome.migrated
    );
    assert!(
        outcome.migrated.contains("    ids.inner()\n"),
        "{}",
        outcome.migrated
    );
}

/// `B::FloatElem::dtype()` reads the device of a parameter only where the parameter cannot
/// have moved: a tensor taken by value and used before the call is not asked for its
/// device, and the use stays reported; a device taken by reference always can be.
#[test]
fn an_element_dtype_reads_the_device_of_a_parameter_that_has_not_moved() {
    let text = "\
use burn::prelude::*;
use burn::tensor::DType;

pub fn after_a_move<B: Backend>(x: Tensor<B, 1>) -> (Tensor<B, 1>, DType) {
    let y = x.exp();
    (y, B::FloatElem::dtype())
}

pub fn through_a_reference<B: Backend>(x: Tensor<B, 1>, device: &B::Device) -> (Tensor<B, 1>, DType) {
    let y = x.to_device(device);
    (y, B::FloatElem::dtype())
}
";
    let (migrated, manual) = port(text);
    assert!(
        migrated.contains("(y, B::FloatElem::dtype())"),
        "{migrated}"
    );
    assert!(
        migrated.contains("(y, DType::from(device.settings().float_dtype))"),
        "{migrated}"
    );
    assert_eq!(
        manual,
        vec![RuleKey::from(RuleId::BackendAssociatedItem)],
        "{migrated}"
    );
}

/// A function that hands its caller's recorder to `save_file` loses the parameter and its type
/// parameter (beside the backend's, which goes too), and the calls in another file lose the
/// recorder they passed, and the variable that held it. A method of that name that takes
/// other arguments keeps them; a function that does more with its recorder keeps it.
#[test]
fn a_recorder_parameter_goes_with_the_recorders_its_callers_pass() {
    let model = "\
use burn::prelude::*;
use burn::record::FileRecorder;

#[derive(Module, Debug)]
pub struct Net<B: Backend> {
    layer: burn::nn::Linear<B>,
}

pub fn save<B: Backend, R: FileRecorder<B>>(net: Net<B>, path: &str, recorder: &R) {
    net.save_file(path, recorder).unwrap();
}

pub fn save_twice<B: Backend, R: FileRecorder<B>>(net: Net<B>, path: &str, recorder: &R) {
    net.clone().save_file(path, recorder).unwrap();
    let _ = recorder.clone();
}

pub struct Journal;

impl Journal {
    pub fn save(&self, what: &str, to: &str) {
        println!(\"{to}: {what}\");
    }
}
";
    let main = "\
use burn::prelude::*;
use burn::record::CompactRecorder;
use crate::model::{save, Journal, Net};

pub fn keep<B: Backend>(net: Net<B>, journal: &Journal) {
    let recorder = CompactRecorder::new();
    journal.save(\"net\", \"log\");
    save(net, \"net\", &recorder);
}
";
    let out = port_files(&[("src/model.rs", model), ("src/main.rs", main)]);
    assert!(
        out[0].contains("pub fn save(net: Net, path: &str) {"),
        "{}",
        out[0]
    );
    assert!(
        out[0].contains("pub fn save_twice<R: FileRecorder>(net: Net, path: &str, recorder: &R) {"),
        "{}",
        out[0]
    );
    assert!(out[1].contains("    save(net, \"net\");\n"), "{}", out[1]);
    assert!(
        out[1].contains("journal.save(\"net\", \"log\");"),
        "{}",
        out[1]
    );
    assert!(!out[1].contains("CompactRecorder"), "{}", out[1]);
}

/// A backend type the workspace re-exports from Burn (`pub use burn::backend::NdArray;`) is
/// that backend where another file imports it from the workspace: the device it reaches is
/// that backend's, and the import goes with the re-export.
#[test]
fn a_backend_the_workspace_re_exports_is_burns_where_it_is_imported() {
    let lib = "\
use burn::prelude::*;

pub use burn::backend::NdArray;

pub fn zeros<B: Backend>(device: &B::Device) -> Tensor<B, 1> {
    Tensor::zeros([2], device)
}
";
    let test = "\
use crate::NdArray;

pub fn run() -> usize {
    let device = Default::default();
    crate::zeros::<NdArray>(&device).dims()[0]
}
";
    let out = port_files_reporting(&[("src/lib.rs", lib), ("src/run.rs", test)]);
    assert!(!out[0].0.contains("NdArray"), "{}", out[0].0);
    assert!(!out[1].0.contains("use crate::NdArray;"), "{}", out[1].0);
    assert!(
        out[1].0.contains("device = Device::flex();"),
        "{}",
        out[1].0
    );
    assert!(out[1].1.is_empty(), "{:?}\n{}", out[1].1, out[1].0);
}

/// An element alias a `cfg_if!` body defines (tokens to the parser) is an element alias, and
/// a device in no function (a `LazyLock` constant) is configured for the backend its module
/// names: burn-lm's per-backend `burn_backend_types` modules.
#[test]
fn a_module_constant_device_is_configured_with_its_modules_cfg_if_element_alias() {
    let text = "\
mod elems {
    cfg_if::cfg_if! {
        if #[cfg(feature = \"f16\")] {
            pub type ElemType = burn::tensor::f16;
        } else {
            pub type ElemType = f32;
        }
    }
}

pub use elems::*;

pub mod backend_types {
    use super::*;
    use burn::backend::wgpu::{Wgpu, WgpuDevice};
    pub type InferenceBackend = Wgpu<ElemType>;
    pub const DEVICE: std::sync::LazyLock<WgpuDevice> =
        std::sync::LazyLock::new(|| WgpuDevice::DefaultDevice);
}
";
    let (migrated, _) = port(text);
    assert!(
        migrated.contains("device.configure(FloatDType::from(<ElemType as Element>::dtype()))"),
        "{migrated}"
    );
}

/// A backend alias the port deletes, named in a string an attribute passes as a named value
/// (a procedural macro that parses a type out of it: `backend_type = "Inference"`), is
/// reported where no rule rewrites it (a generic argument goes: `a_type_an_attribute_passes_as_a_string_loses_its_backend_argument`); a
/// positional string (test data: `#[case("Server<Inference>")]`) and a string that is no type
/// (a label: `name = "Inference (CPU)"`) are text.
#[test]
fn a_backend_alias_in_a_named_attribute_string_is_reported() {
    let text = "\
pub type Inference = burn::backend::NdArray;

#[registry(backend_type = \"Inference\")]
pub struct Registry;

#[cfg_attr(test, case(\"Server<Inference>\"))]
pub struct Case;

#[bench_group(name = \"Inference (CPU)\")]
pub mod bench {}
";
    let (_, manual) = port_with_messages(text);
    let dangling = messages_of(&manual, RuleId::DanglingBackendParam);
    assert_eq!(dangling.len(), 1, "{manual:?}");
    assert!(dangling[0].starts_with("`Inference`"), "{manual:?}");
}
