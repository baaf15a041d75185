//! Behaviour of the core transforms on cases the rule examples and fixtures do not cover.

use std::path::PathBuf;

use burn_migrate::migrate::source::SourceFile;
use burn_migrate::migrate::{migrate_text, rewrite_sources, Options};
use burn_migrate::rules::RuleSet;

fn port(text: &str) -> (String, Vec<&'static str>) {
    let rules = RuleSet::embedded().unwrap();
    let outcome = migrate_text(text, &rules, &Options::default()).unwrap();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let manual = outcome
        .changes
        .iter()
        .filter(|c| c.replacement.is_none())
        .map(|c| c.rule)
        .collect();
    (outcome.migrated, manual)
}

fn port_files(files: &[(&str, &str)]) -> Vec<String> {
    let rules = RuleSet::embedded().unwrap();
    let sources: Vec<SourceFile> = files
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
        .collect();
    rewrite_sources(&sources, &rules, &Options::default(), false)
        .unwrap()
        .into_iter()
        .map(|o| o.migrated)
        .collect()
}

#[test]
fn user_traits_that_extend_backend_mark_parameters_and_are_reported() {
    let (out, manual) = port(
        "use burn::prelude::*;\n\npub trait Accel: Backend {}\n\npub fn f<B: Accel>(x: Tensor<B, 2>) -> Tensor<B, 2> {\n    x\n}\n",
    );
    assert!(
        out.contains("pub fn f(x: Tensor<2>) -> Tensor<2> {"),
        "{out}"
    );
    assert_eq!(manual, vec!["backend-extension-trait"]);
}

#[test]
fn unbounded_parameters_used_as_a_tensor_backend_go() {
    let (out, _) = port("use burn::tensor::Tensor;\n\npub struct Pair<B> {\n    pub a: Tensor<B, 1>,\n    pub b: Vec<Tensor<B, 1>>,\n}\n");
    assert_eq!(out, "use burn::tensor::Tensor;\n\npub struct Pair {\n    pub a: Tensor<1>,\n    pub b: Vec<Tensor<1>>,\n}\n");
}

#[test]
fn other_generics_and_where_predicates_stay() {
    let (out, _) = port(
        "use burn::prelude::*;\n\npub fn g<'a, B, T: Clone, const D: usize>(x: &'a Tensor<B, D>, t: T) -> T\nwhere\n    B: Backend,\n    T: Default,\n{\n    let _ = x;\n    t\n}\n",
    );
    assert_eq!(
        out,
        "use burn::prelude::*;\n\npub fn g<'a, T: Clone, const D: usize>(x: &'a Tensor<D>, t: T) -> T\nwhere\n    T: Default,\n{\n    let _ = x;\n    t\n}\n"
    );
}

#[test]
fn a_where_clause_that_only_bound_the_backend_goes_whole() {
    let (out, _) = port("use burn::prelude::*;\n\npub fn h<B>(x: Tensor<B, 1>) -> Tensor<B, 1>\nwhere\n    B: Backend,\n{\n    x\n}\n");
    assert_eq!(
        out,
        "use burn::prelude::*;\n\npub fn h(x: Tensor<1>) -> Tensor<1> {\n    x\n}\n"
    );
}

#[test]
fn traits_enums_and_their_impls() {
    let (out, _) = port(
        "use burn::prelude::*;\n\npub trait Scorer<B: Backend> {\n    fn score(&self, x: Tensor<B, 2>) -> Tensor<B, 1>;\n}\n\npub enum Input<B: Backend> {\n    Dense(Tensor<B, 2>),\n    Ids(Tensor<B, 1, Int>),\n}\n\npub struct Sum;\n\nimpl<B: Backend> Scorer<B> for Sum {\n    fn score(&self, x: Tensor<B, 2>) -> Tensor<B, 1> {\n        x.sum_dim(1).squeeze::<1>()\n    }\n}\n",
    );
    assert!(
        out.contains("pub trait Scorer {\n    fn score(&self, x: Tensor<2>) -> Tensor<1>;"),
        "{out}"
    );
    assert!(
        out.contains("pub enum Input {\n    Dense(Tensor<2>),\n    Ids(Tensor<1, Int>),"),
        "{out}"
    );
    assert!(out.contains("impl Scorer for Sum {"), "{out}");
}

#[test]
fn every_spelling_of_the_device_type_becomes_device() {
    let (out, _) = port(
        "use burn::tensor::backend::Backend;\nuse burn::tensor::Tensor;\n\npub fn d<B: Backend>(a: &B::Device, b: <B as Backend>::Device, c: burn::tensor::Device<B>) -> Vec<B::Device> {\n    let _ = (b, c);\n    vec![a.clone()]\n}\n",
    );
    assert!(
        out.contains("pub fn d(a: &Device, b: Device, c: burn::tensor::Device) -> Vec<Device> {"),
        "{out}"
    );
    assert!(
        out.starts_with("use burn::tensor::Device;\nuse burn::tensor::Tensor;\n"),
        "{out}"
    );
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
fn inline_modules_and_nested_items_see_their_own_scope() {
    let (out, _) = port(
        "use burn::prelude::*;\n\nmod inner {\n    use super::*;\n\n    pub fn twice<B: Backend>(x: Tensor<B, 1>) -> Tensor<B, 1> {\n        fn helper<C: Backend>(y: Tensor<C, 1>) -> Tensor<C, 1> {\n            y.mul_scalar(2.0)\n        }\n        helper::<B>(x)\n    }\n}\n",
    );
    assert!(
        out.contains("pub fn twice(x: Tensor<1>) -> Tensor<1> {"),
        "{out}"
    );
    assert!(
        out.contains("fn helper(y: Tensor<1>) -> Tensor<1> {"),
        "{out}"
    );
    assert!(out.contains("        helper(x)\n"), "{out}");
}

#[test]
fn comments_and_formatting_outside_edits_survive() {
    let text = "use burn::prelude::*;\n\n/// Docs stay.\npub fn f<B: Backend>( // odd spacing stays\n    x :  Tensor<B, 1>, /* inline */\n) -> Tensor<B, 1> {\n    x // tail\n}\n";
    let (out, _) = port(text);
    assert_eq!(out, "use burn::prelude::*;\n\n/// Docs stay.\npub fn f( // odd spacing stays\n    x :  Tensor<1>, /* inline */\n) -> Tensor<1> {\n    x // tail\n}\n");
}

#[test]
fn each_default_device_follows_the_backend_it_serves() {
    let (out, manual) = port(
        "use burn::backend::{NdArray, Wgpu};\nuse burn::prelude::*;\n\nfn main() {\n    let device = Default::default();\n    let a = Tensor::<NdArray, 1>::ones([1], &device);\n    let b = Tensor::<Wgpu, 1>::ones([1], &Default::default());\n    let _ = (a, b);\n}\n",
    );
    assert!(out.contains("let device = Device::flex();"), "{out}");
    assert!(
        out.contains("&Device::wgpu(DeviceKind::DefaultDevice)"),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}");
}

#[test]
fn a_device_shared_by_two_backends_is_reported() {
    let (out, manual) = port(
        "use burn::backend::{NdArray, Wgpu};\nuse burn::prelude::*;\n\nfn main() {\n    let device = Default::default();\n    let a = Tensor::<NdArray, 1>::ones([1], &device);\n    let b = Tensor::<Wgpu, 1>::ones([1], &device);\n    let _ = (a, b);\n}\n",
    );
    assert!(out.contains("let device = Default::default();"), "{out}");
    assert_eq!(manual, vec!["default-device"]);
}

#[test]
fn code_already_on_0_22_is_left_alone() {
    let text = "use burn::prelude::*;\n\npub fn f(x: Tensor<2>, device: &Device) -> Tensor<2> {\n    x.add(Tensor::ones([1, 1], device)).mul_scalar(0.5)\n}\n";
    let (out, manual) = port(text);
    assert_eq!(out, text);
    assert!(manual.is_empty());
}

#[test]
fn generic_aliases_and_per_use_autodiff() {
    let (out, manual) = port(
        "use burn::backend::{Autodiff, Flex};\nuse burn::prelude::*;\n\ntype Cpu<E, I> = Flex<E, I>;\ntype Train = Autodiff<Cpu<f32, i64>>;\n\npub fn main() {\n    let device = Default::default();\n    let x = Tensor::<Train, 1>::ones([2], &device).require_grad();\n    let y = Tensor::<Cpu<f32, i64>, 1>::ones([2], &Default::default());\n    println!(\"{:?} {:?}\", x.into_data(), y.into_data());\n}\n",
    );
    assert_eq!(
        out,
        "use burn::prelude::*;\n\npub fn main() {\n    let device = Device::flex().autodiff();\n    let x = Tensor::<1>::ones([2], &device).require_grad();\n    let y = Tensor::<1>::ones([2], &Device::flex());\n    println!(\"{:?} {:?}\", x.into_data(), y.into_data());\n}\n"
    );
    assert!(manual.is_empty(), "{manual:?}");
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
        out[1].contains("let device = Device::flex();\n    train(device);"),
        "{}",
        out[1]
    );
}

#[test]
fn backend_device_defaults_become_constructors_or_are_reported() {
    let (out, manual) = port(
        "use burn::backend::NdArray;\nuse burn::prelude::*;\n\ntype Cpu = NdArray;\n\nfn zeros<B: Backend>() -> Tensor<B, 1> {\n    Tensor::zeros([2], &B::Device::default())\n}\n\nfn main() {\n    let device = <Cpu as Backend>::Device::default();\n    let x = Tensor::<Cpu, 1>::ones([2], &device);\n    let _ = (x, zeros::<Cpu>());\n}\n",
    );
    assert!(out.contains("let device = Device::flex();"), "{out}");
    assert!(
        out.contains("Tensor::zeros([2], &Device::default())"),
        "the generic site keeps its meaning:\n{out}"
    );
    assert_eq!(manual, vec!["default-device"], "and reported");
}

#[test]
fn checkpointed_autodiff_and_fusion_fold_into_the_device() {
    let (out, manual) = port(
        "use burn::backend::autodiff::checkpoint::strategy::BalancedCheckpointing;\nuse burn::backend::{Autodiff, NdArray};\nuse burn::prelude::*;\n\ntype Train = Autodiff<burn_fusion::Fusion<NdArray>, BalancedCheckpointing>;\n\nfn main() {\n    let device = Default::default();\n    let x = Tensor::<Train, 1>::ones([2], &device).require_grad();\n    let _ = x.sum().backward();\n}\n",
    );
    assert!(
        out.contains("let device = Device::flex().autodiff().gradient_checkpointing();"),
        "{out}"
    );
    assert!(!out.contains("type Train"), "{out}");
    assert!(manual.is_empty(), "{manual:?}");
}

#[test]
fn an_explicit_device_value_keeps_gradient_checkpointing() {
    let (out, manual) = port(
        "use burn::backend::autodiff::checkpoint::strategy::BalancedCheckpointing;\nuse burn::backend::ndarray::NdArrayDevice;\nuse burn::backend::{Autodiff, NdArray};\nuse burn::prelude::*;\n\ntype Train = Autodiff<NdArray, BalancedCheckpointing>;\n\nfn main() {\n    let device = NdArrayDevice::Cpu;\n    let x = Tensor::<Train, 1>::ones([2], &device).require_grad();\n    let _ = x.sum().backward();\n}\n",
    );
    assert!(
        out.contains("let device = Device::flex().autodiff().gradient_checkpointing();"),
        "{out}"
    );
    assert!(manual.is_empty(), "{manual:?}");
}

#[test]
fn a_removed_item_imported_in_several_modules_is_reported_once_per_site() {
    let text = "\
pub mod a {
    use burn::data::dataset::Dataset;
    pub struct A;
    impl Dataset<u8> for A {
        fn get(&self, _: usize) -> Option<u8> { None }
        fn len(&self) -> usize { 0 }
    }
}
pub mod b {
    use burn::data::dataset::Dataset;
    pub struct B;
    impl Dataset<u8> for B {
        fn get(&self, _: usize) -> Option<u8> { None }
        fn len(&self) -> usize { 0 }
    }
}
";
    let (_, manual) = port(text);
    let reports = manual.iter().filter(|r| **r == "dataset-results").count();
    // Each import and each `impl Dataset<u8>` once, not each impl once per import.
    assert_eq!(reports, 4, "{manual:?}");
}
