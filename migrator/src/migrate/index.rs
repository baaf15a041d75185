//! The index stage: one pass over the whole workspace before any edit. It answers the
//! cross-file questions rewrites need: which traits mean "a backend", which type aliases name a
//! backend (and which), which items carry a backend type parameter and where, and which
//! struct fields only existed to hold that parameter.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use ra_ap_syntax::ast::{self, HasAttrs, HasGenericArgs, HasGenericParams, HasName, HasTypeBounds};
use ra_ap_syntax::{AstNode, NodeOrToken, SyntaxNode, TextRange};

use rayon::prelude::*;

use crate::migrate::crate_names::{CrateNames, DeclaredAliases};
use crate::migrate::module_cfgs;
use crate::migrate::recorder_wrappers;
use crate::migrate::source::SourceFile;
use crate::rules::backends::{Backend, BackendKey, Backends, ElementDTypes, Wrapper};
use crate::rules::RuleSet;
use crate::util::syntax::{
    mentions_ident, outermost_segment_name, path_as_ident, segment_name, segment_names,
    single_type_argument, type_as_ident,
};

/// Burn's traits that a backend type parameter is bounded by.
const BURN_BACKEND_TRAITS: &[&str] = &["Backend", "AutodiffBackend"];
const BURN_AUTODIFF_TRAITS: &[&str] = &["AutodiffBackend"];

/// A resolved 0.21 backend selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSpec {
    /// The backend in `Index::backends`.
    pub backend: BackendKey,
    pub autodiff: bool,
    pub checkpointing: bool,
    /// The element generics the type was written with (`NdArray<f64>`), which the port's
    /// devices are configured with.
    pub elements: ElementDTypes,
}

/// A Burn tensor's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorKind {
    Float,
    Int,
    Bool,
}

/// What the workspace's declarations say of tensor kinds (`Index::tensor_kinds`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TensorKinds {
    /// Function (or method) name -> the kind of the `Tensor` each of that name returns.
    returned: HashMap<String, TensorKind>,
    /// (package, function name) -> the kind of the `Tensor` each of that name the package
    /// defines returns, `None` where they return anything else or disagree.
    returned_in_package: HashMap<(usize, String), Option<TensorKind>>,
    /// Field name -> the kind of the `Tensor` each struct field of that name holds.
    pub fields: HashMap<String, TensorKind>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemGenerics {
    /// Non-lifetime generic parameter names, in order (the positions turbofish uses).
    pub params: Vec<String>,
    pub backend: Vec<bool>,
    /// A backend parameter is bounded by `AutodiffBackend`: the migrated item enables
    /// autodiff on its own devices (rule `autodiff-device`).
    pub autodiff: bool,
}

/// What a file's names refer to, as far as its `use` items and own items tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileNames {
    /// Names imported from Burn's backend modules: local name -> Burn's name.
    pub backend_names: HashMap<String, String>,
    /// Names imported from any Burn crate (`burn`, `burn_*`): local name -> Burn's name.
    burn_imports: HashMap<String, String>,
    /// Names imported from elsewhere (the project's modules, other crates).
    other_imports: HashSet<String>,
    /// A glob import from a Burn crate (`use burn::prelude::*`).
    burn_glob: bool,
    /// A glob import from elsewhere (`use super::*`, `use crate::prelude::*`).
    other_glob: bool,
    /// Names of the items the file defines (anywhere in it): they shadow Burn's names.
    local_items: HashSet<String>,
    /// What the file calls Burn's crates (`nn` for `burn` after `nn = { package = "burn" }`).
    crates: CrateNames,
    /// Names of the constants the file defines (`const DEVICE: NdArrayDevice = ..;`).
    consts: HashSet<String>,
    /// Names the file re-exports from a Burn crate (`pub use burn::prelude::Backend;`).
    burn_reexports: HashSet<String>,
}

#[derive(Debug, Default)]
pub struct Index {
    /// Burn 0.21 types whose first generic argument is the backend (the rule files'
    /// `[api_lists] backend_first_types`, by name), each with the number of arguments a 0.21
    /// use of it writes at least: a shorter list is the 0.22 form, which a later pass reads
    /// (`Batcher<I, O>`, whose `I` is no backend).
    backend_first_types: HashMap<String, usize>,
    /// Associated types the workspace's traits declare with a backend bound (`trait Mesh {
    /// type Backend: Backend; }`), by name, each with the traits that declare it: a backend
    /// the port cannot remove by itself.
    pub backend_associated_types: HashMap<String, HashSet<String>>,
    /// Positions of a project type's parameters that an impl of it binds to a backend
    /// parameter (`impl<B: Backend> X for Wrap<B>`: `("Wrap", 0)`).
    bound_by_impls: HashSet<(String, usize)>,
    /// Burn 0.21 functions and methods that take a device argument (`[api_lists]
    /// device_taking`, by name).
    pub device_taking: HashSet<String>,
    /// The project's traits that extend Burn's backend traits (directly or through others).
    backend_traits: HashSet<String>,
    autodiff_traits: HashSet<String>,
    /// User traits that extend a backend trait: (file, range of the trait name, name).
    pub user_backend_traits: Vec<(usize, TextRange, String)>,
    /// The project's backend marker traits: backend traits with no items of their own whose
    /// supertraits are only Burn's backend traits (or other marker traits), implemented in
    /// the workspace, only by blanket impls over a backend parameter, and named only in
    /// bounds, impls and `use` items. They go with their impls (rule `backend-marker-trait`).
    pub marker_traits: HashSet<String>,
    /// The project's backend extensions that Burn 0.22.1's `#[backend_extension(..)]` declares
    /// as they are, by the package that defines them and their name (rule
    /// `backend-extension-port`; `extension_port` finds one).
    extension_ports: HashMap<(usize, String), ExtensionPort>,
    /// Each file's package (`SourceFile::package`).
    file_packages: Vec<usize>,
    /// The workspace's backend aliases by name (the first definition of a name wins).
    pub aliases: HashMap<String, BackendSpec>,
    /// Per file, the backend aliases it defines itself: a file's own `type B = NdArray;` is
    /// what `B` means there, whatever another file's `type B = Wgpu;` says.
    file_aliases: Vec<HashMap<String, BackendSpec>>,
    /// Per file, its generic aliases of a backend wrapper over their own parameter (`type
    /// G<IB> = Autodiff<IB>;`): name -> the wrapper (index into `wrappers`). `G<X>` is
    /// `Autodiff<X>`, a backend whenever `X` is one.
    file_wrapper_aliases: Vec<HashMap<String, usize>>,
    /// Aliases defined once per `#[cfg(..)]` branch with different backends (`type Train =
    /// Autodiff<Wgpu>;` under `feature = "gpu"`, `Autodiff<NdArray>` otherwise): name -> each
    /// branch's `cfg` attribute and backend, in file order.
    pub alias_branches: HashMap<String, Vec<(String, BackendSpec)>>,
    pub items: HashMap<String, ItemGenerics>,
    /// Struct name -> fields of type `PhantomData<B>` for a backend `B`.
    pub phantom_fields: HashMap<String, Vec<String>>,
    /// Function name -> positions of parameters typed `B::Device` / `&B::Device` that every
    /// function of that name in the workspace has: a call by the name alone may reach any of
    /// them (`pretrained` of two models with the device first in one and second in the other
    /// says nothing).
    pub device_params: HashMap<String, Vec<usize>>,
    /// (type, function) -> the same, for the functions of `impl Type` blocks, which a call
    /// `Type::function(..)` reaches.
    pub owned_device_params: HashMap<(String, String), Vec<usize>>,
    pub files: Vec<FileNames>,
    /// The backend table's backends and wrappers (`Autodiff`, `Fusion`).
    pub backends: Backends,
    pub wrappers: Vec<Wrapper>,
    /// Burn's backend crates as path segments (`burn_ndarray`), whose items user code may
    /// import directly.
    pub backend_crates: Vec<String>,
    /// Names of the workspace's `#[derive(Module)]` types.
    pub modules: HashSet<String>,
    /// Names of the workspace's structs, enums and unions that are no `Module`: they neither
    /// derive it nor have an `impl Module for` them (a name defined twice counts only if
    /// neither definition is one).
    pub non_modules: HashSet<String>,
    /// The project's types that implement Burn's `Dataset` (`impl Dataset<Item> for Items`).
    pub dataset_types: HashSet<String>,
    /// Names every file of the workspace imports from Burn, with Burn's names: what a file
    /// that imports from the project's modules (`use crate::prelude::Backend`, `use
    /// super::*`) may be seeing through a re-export.
    workspace_burn_imports: HashMap<String, String>,
    /// Some file of the workspace glob-imports from Burn.
    workspace_burn_glob: bool,
    /// Names of the items the workspace defines.
    workspace_items: HashSet<String>,
    /// The workspace's type aliases for a float element type (`type ElemType = f16;`, every
    /// definition of the name, one per `cfg`): a backend type written with one
    /// (`Wgpu<ElemType, i32>`) computes in whichever it is, and so does the port's device.
    element_aliases: HashSet<String>,
    /// Names of the generic free functions the workspace defines (not methods: a method's
    /// name says nothing about which type's method a call reaches).
    workspace_generic_fns: HashSet<String>,
    /// Names some file writes generic arguments after, turbofish style (`f::<B, O>(..)`,
    /// `Vec::<u8>::new()`): a function among them has callers that name its parameters.
    turbofish_names: HashSet<String>,
    /// Constants the port makes `LazyLock` statics (`Device`'s constructors are not `const
    /// fn`): some constant of the name is a Burn 0.21 device value (`NdArrayDevice::Cpu`,
    /// `WgpuDevice::default()`), every other one is a `LazyLock` already, and no file uses one
    /// by value (`consts_used_by_value`): a `&DEVICE` or `DEVICE.clone()` reads through
    /// `Deref`, where a `Device` by value would need the constant's own type. Uses by reference
    /// read through the `LazyLock` (`&*DEVICE`), since `&LazyLock<Device>` is no `&Device`
    /// where a parameter is generic (`impl Into<TensorCreationOptions>`).
    pub lazy_device_consts: HashSet<String>,
    /// The workspace's free functions that take a value of a type parameter bounded by
    /// `ToElement` and convert it to one element (`fn to_f32<E: ToElement>(v: E) -> f32 {
    /// v.to_f32() }`): (function name, parameter position) -> that element. 0.22's
    /// `x.into_scalar()` passed there cannot infer its element; the conversion names it.
    pub element_converters: HashMap<(String, usize), String>,
    /// The kinds of the tensors the workspace's functions return and its structs hold, by name.
    pub tensor_kinds: TensorKinds,
    /// Workspace functions that take a Burn recorder only to hand it to `save_file`/`load_file`
    /// (`recorder_wrappers`), by name and number of parameters after `self`: the recorder's
    /// position.
    pub recorder_params: HashMap<(String, usize), usize>,
}

/// The items of every file that can have generic parameters (ADTs, traits, aliases,
/// functions, impls, consts), in file order and each file's preorder: what the index's
/// cross-file rounds look at again and again.
struct FileItems {
    owners: Vec<Vec<ast::AnyHasGenericParams>>,
}

impl FileItems {
    /// The items at `ranges` (per file, from `file_facts`' walk, which runs in parallel):
    /// syntax nodes are not `Send`, so the one thread that uses them finds each item from its
    /// range instead of walking every tree again.
    fn at<F: Borrow<SourceFile>>(files: &[F], ranges: &[Vec<TextRange>]) -> FileItems {
        let roots: Vec<SyntaxNode> = (files.iter())
            .map(|f| f.borrow().tree().syntax().clone())
            .collect();
        let owners = (roots.iter().zip(ranges))
            .map(|(root, ranges)| owners_at(root, ranges))
            .collect();
        FileItems { owners }
    }

    /// The items of type `N`, each with its file's index.
    fn of<N: AstNode>(&self) -> impl Iterator<Item = (usize, N)> + '_ {
        self.owners.iter().enumerate().flat_map(|(file, owners)| {
            owners
                .iter()
                .filter_map(move |owner| Some((file, N::cast(owner.syntax().clone())?)))
        })
    }
}

/// The generic-capable items at `ranges` of the tree at `root`, in the ranges' order.
fn owners_at(root: &SyntaxNode, ranges: &[TextRange]) -> Vec<ast::AnyHasGenericParams> {
    ranges
        .iter()
        .filter_map(|&range| {
            let covering = match root.covering_element(range) {
                NodeOrToken::Node(node) => node,
                NodeOrToken::Token(token) => token.parent()?,
            };
            covering
                .ancestors()
                .take_while(|node| node.text_range() == range)
                .find_map(ast::AnyHasGenericParams::cast)
        })
        .collect()
}

/// What decides whether an item's type parameter is a backend, as far as the syntax and the
/// index's traits tell; the project items it is passed to are looked up when asked
/// (`Index::backend_params_among`), as the index learns which of their parameters are
/// backends.
#[derive(Debug, Clone)]
struct TypeParamFacts {
    name: String,
    /// Bounded by one of Burn's backend traits or a project trait that extends one.
    bounded: bool,
    /// Bounded by an autodiff backend trait.
    autodiff: bool,
    /// Passed inside the item as the backend argument of a Burn type (`Tensor<B, 2>`).
    burn_backend_argument: bool,
    /// Passed inside the item as generic argument `position` (lifetimes not counted) of a
    /// project item, by the item's name.
    project_arguments: Vec<(String, usize)>,
    /// For a struct's or enum's parameter that its fields mention only inside
    /// `PhantomData<..>` (or not at all): the item's name and the parameter's position
    /// (lifetimes not counted). Such a parameter is a backend when the item's impls bind a
    /// backend there (`impl<B: Backend> Batcher<..> for Wrap<B, I, O>`).
    marker_position: Option<(String, usize)>,
}

/// A generic argument list written inside an item: `Model<B, T>`.
struct ArgumentList {
    /// The name the list follows (`Model`).
    owner: String,
    /// Burn's name for the path the list follows, when it is Burn's item.
    burn_owner: Option<String>,
    /// Each non-lifetime argument's name, when it is a single name.
    args: Vec<Option<String>>,
}

/// What the index's rounds read of one file's generic-capable items (`FileItems::owners`),
/// read from the syntax once, in parallel, before the rounds.
struct FileOwnerFacts {
    /// Type parameter facts of each distinct item: the file's owners and the items around
    /// its functions.
    params: Vec<Vec<TypeParamFacts>>,
    /// Per owner, in `FileItems::owners` order.
    owners: Vec<OwnerFacts>,
}

struct OwnerFacts {
    /// The item's name; `None` for impls, which matter as the scope of their methods and
    /// for what they bind their self type's parameters to (`impl_self_args`).
    name: Option<String>,
    /// For an impl, its self type's name and each of its non-lifetime arguments' names, when
    /// a single name (`Wrap<B, I, O>`).
    impl_self_args: Option<(String, Vec<Option<String>>)>,
    /// Its type parameter facts (in `FileOwnerFacts::params`).
    params: usize,
    /// Its non-lifetime generic parameters' names, when it has a parameter list.
    generic_params: Option<Vec<String>>,
    function: Option<FunctionFacts>,
}

struct FunctionFacts {
    /// Type parameter facts of each item around the function, innermost first.
    around: Vec<usize>,
    /// The type a method's impl is for.
    impl_self_type: Option<String>,
    /// Per parameter, the name whose device its type is.
    param_device_owners: Vec<Option<String>>,
}

/// `include!` pastes a file into its includer (`SourceFile::scope`): each sees the other's
/// imports and items, as one file would. The names of each such group are merged into every
/// file of it; an item another file of the group defines is visible as if imported, so its
/// backend aliases are found (`Index::alias`).
fn share_included_names<F: Borrow<SourceFile>>(files: &[F], names: &mut [FileNames]) {
    if files.iter().all(|f| f.borrow().scope.is_none()) {
        return;
    }
    let mut groups: HashMap<&Path, Vec<usize>> = HashMap::new();
    for (i, file) in files.iter().map(Borrow::borrow).enumerate() {
        if let Some(scope) = &file.scope {
            groups.entry(scope).or_default().push(i);
        }
    }
    for (scope, mut members) in groups {
        // The includer is the first file of that path: doc-test blocks, indexed after the
        // workspace under their host's path, are files of their own.
        if let Some(includer) = files
            .iter()
            .map(Borrow::borrow)
            .position(|f| f.scope.is_none() && *f.path == *scope)
        {
            members.push(includer);
        }
        let mut merged = FileNames::default();
        for &i in &members {
            merged.merge(&names[i]);
        }
        let shared = merged.local_items.iter().cloned().collect::<Vec<_>>();
        merged.other_imports.extend(shared);
        for &i in &members {
            names[i] = merged.clone();
        }
    }
}

/// A name the workspace re-exports from a Burn backend module (`pub use burn::backend::NdArray;`
/// in a crate's root) is that backend's in every file that imports it from the workspace
/// (`use loractl_core::NdArray;`) and defines no item of that name.
fn share_reexported_backend_names(names: &mut [FileNames]) {
    let reexported: HashMap<String, String> = (names.iter())
        .flat_map(|file| {
            (file.backend_names.iter()).filter(|(local, _)| file.burn_reexports.contains(*local))
        })
        .map(|(local, burn)| (local.clone(), burn.clone()))
        .collect();
    if reexported.is_empty() {
        return;
    }
    for file in names.iter_mut() {
        for local in &file.other_imports {
            if file.local_items.contains(local) || file.backend_names.contains_key(local) {
                continue;
            }
            if let Some(burn) = reexported.get(local) {
                file.backend_names.insert(local.clone(), burn.clone());
            }
        }
    }
}

impl FileNames {
    fn merge(&mut self, other: &FileNames) {
        (self.backend_names).extend(
            other
                .backend_names
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        (self.burn_imports).extend(
            other
                .burn_imports
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        self.other_imports
            .extend(other.other_imports.iter().cloned());
        self.burn_glob |= other.burn_glob;
        self.other_glob |= other.other_glob;
        self.local_items.extend(other.local_items.iter().cloned());
    }
}

/// A backend extension that Burn 0.22.1 declares with `#[backend_extension(..)]`
/// (`Index::extension_ports`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtensionPort {
    /// The attribute's backend names, from the workspace's impls of the trait, each with the
    /// `cfg` predicate its impls are compiled under (`None`: always): the attribute writes
    /// `Cube: cfg(feature = "wgpu")`, which the macro reads with the crate's features.
    pub selectors: BTreeMap<&'static str, Option<String>>,
    /// The trait's functions, which `Dispatch` calls (`<Dispatch as Ext>::op(..)`).
    pub methods: HashSet<String>,
    /// Whether the trait has functions of its own (the attribute's); one without only
    /// gathers extensions and Burn's traits (`trait AutodiffBackend: Backend + ..`).
    pub declares_operations: bool,
    /// Whether an impl is for `CubeBackend` itself, which is not 0.22's `Cube` where Burn's
    /// `fusion` feature is on (`Fusion<CubeBackend>`).
    pub on_cube_backend: bool,
}

/// The backend types of Burn 0.21 that `#[backend_extension(..)]` names in 0.22.1 (the
/// catalogue of burn-backend-extension 0.22.1, `src/catalog.rs`, with `Autodiff`; every
/// CubeCL runtime is the one backend `Cube`), as (Burn's type, the attribute's name).
/// `NdArray` and `LibTorch` are in the catalogue too, but the port moves their features to
/// Flex (`cargo-burn-features`), so an impl for them is a person's to move.
const EXTENSION_SELECTORS: &[(&str, &str)] = &[
    ("Autodiff", "Autodiff"),
    ("CubeBackend", "Cube"),
    ("Flex", "Flex"),
];

/// What an impl's backend is to `#[backend_extension(..)]` (`Index::extension_target`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionTarget {
    /// The attribute's name for it (`Cube`, `Flex`, `Autodiff`).
    pub selector: &'static str,
    pub form: TargetForm,
}

/// How the port writes an impl's backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetForm {
    /// The type itself, without its arguments (`CubeBackend`, `Flex`).
    Itself,
    /// 0.22's `burn::backend::Cube`, for an alias of a CubeCL runtime's backend (`Wgpu`).
    Cube,
    /// `Autodiff<..>` over a parameter (`None`) or over another backend.
    Autodiff(Option<Box<ExtensionTarget>>),
}

impl ExtensionTarget {
    /// The 0.22 type the impl is for, as far as two impls can collide (`Autodiff<Cube>`).
    fn key(&self) -> String {
        match &self.form {
            TargetForm::Itself | TargetForm::Cube => self.selector.to_string(),
            TargetForm::Autodiff(None) => "Autodiff<_>".to_string(),
            TargetForm::Autodiff(Some(inner)) => format!("Autodiff<{}>", inner.key()),
        }
    }
}

/// A generic parameter found to be a backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendParam {
    pub name: String,
    pub autodiff: bool,
}

/// `[api_lists] backend_first_types` by name, each with the arguments a 0.21 use writes at
/// least (from the 0.21 listing; one when the listing lacks the path).
fn backend_first_types(rules: &RuleSet) -> HashMap<String, usize> {
    let mut types = HashMap::new();
    for path in rules.api_list_paths(|l| &l.backend_first_types) {
        let name = path.rsplit("::").next().unwrap_or(path).to_string();
        let required = crate::rules::framework::required_generic_args_0_21(path).unwrap_or(1);
        let entry = types.entry(name).or_insert(required);
        *entry = (*entry).min(required);
    }
    types
}

impl Index {
    /// Whether this index and `other`, both built with the same rules, hold the same facts of
    /// their files: every field but those copied from the rules. A file the rewrite read
    /// unchanged under one reads the same under the other (`rewrite`: a later pass skips the
    /// files the pass before left as they were when the index did not change either).
    pub fn same_facts(&self, other: &Index) -> bool {
        // Every field named: a new one does not compile until it is compared or said to come
        // from the rules.
        let Index {
            backend_first_types: _,
            device_taking: _,
            backends: _,
            wrappers: _,
            backend_crates: _,
            backend_associated_types,
            bound_by_impls,
            backend_traits,
            autodiff_traits,
            user_backend_traits,
            marker_traits,
            extension_ports,
            file_packages,
            aliases,
            file_aliases,
            file_wrapper_aliases,
            alias_branches,
            items,
            phantom_fields,
            device_params,
            owned_device_params,
            files,
            modules,
            non_modules,
            dataset_types,
            workspace_burn_imports,
            workspace_burn_glob,
            workspace_items,
            element_aliases,
            workspace_generic_fns,
            turbofish_names,
            lazy_device_consts,
            element_converters,
            tensor_kinds,
            recorder_params,
        } = self;
        *backend_associated_types == other.backend_associated_types
            && *bound_by_impls == other.bound_by_impls
            && *backend_traits == other.backend_traits
            && *autodiff_traits == other.autodiff_traits
            && *user_backend_traits == other.user_backend_traits
            && *marker_traits == other.marker_traits
            && *extension_ports == other.extension_ports
            && *file_packages == other.file_packages
            && *aliases == other.aliases
            && *file_aliases == other.file_aliases
            && *file_wrapper_aliases == other.file_wrapper_aliases
            && *alias_branches == other.alias_branches
            && *items == other.items
            && *phantom_fields == other.phantom_fields
            && *device_params == other.device_params
            && *owned_device_params == other.owned_device_params
            && *files == other.files
            && *modules == other.modules
            && *non_modules == other.non_modules
            && *dataset_types == other.dataset_types
            && *workspace_burn_imports == other.workspace_burn_imports
            && *workspace_burn_glob == other.workspace_burn_glob
            && *workspace_items == other.workspace_items
            && *element_aliases == other.element_aliases
            && *workspace_generic_fns == other.workspace_generic_fns
            && *turbofish_names == other.turbofish_names
            && *lazy_device_consts == other.lazy_device_consts
            && *element_converters == other.element_converters
            && *tensor_kinds == other.tensor_kinds
            && *recorder_params == other.recorder_params
    }

    /// The index of `files` (the workspace's, as a slice of files or of references to them:
    /// a file's id is its position).
    pub fn build<F: Borrow<SourceFile> + Sync>(files: &[F], rules: &RuleSet) -> Index {
        let mut index = Index {
            backends: rules.backends().cloned().collect(),
            wrappers: rules.backend_table().wrappers.clone(),
            backend_crates: rules.backend_table().crate_modules(),
            backend_first_types: backend_first_types(rules),
            device_taking: rules.api_list_names(|l| &l.device_taking),
            ..Index::default()
        };
        // What each file calls Burn's crates: its package's dependency keys and the aliases
        // its crate and the file itself declare.
        let crates = crate_names(files);
        // What each file imports and defines, and where its generic items are: one walk per
        // file, in parallel.
        let (names, item_ranges): (Vec<FileNames>, Vec<Vec<TextRange>>) = (files.par_iter())
            .zip(crates)
            .map(|(f, crates)| {
                file_facts(f.borrow().tree().syntax(), &index.backend_crates, crates)
            })
            .unzip();
        index.files = names;
        share_included_names(files, &mut index.files);
        share_reexported_backend_names(&mut index.files);
        for names in &index.files {
            index.workspace_burn_imports.extend(
                (names.burn_imports.iter()).map(|(local, burn)| (local.clone(), burn.clone())),
            );
            index.workspace_burn_glob |= names.burn_glob;
            index
                .workspace_items
                .extend(names.local_items.iter().cloned());
        }
        let consts: HashSet<&str> = (index.files.iter())
            .flat_map(|names| names.consts.iter().map(String::as_str))
            .collect();
        let by_value: HashSet<String> = if consts.is_empty() {
            HashSet::new()
        } else {
            (files.par_iter())
                .flat_map_iter(|f| consts_used_by_value(&f.borrow().text, &consts))
                .collect()
        };
        // Every step below looks at the generic-capable items (traits, aliases, ADTs,
        // functions, impls) only.
        let items = FileItems::at(files, &item_ranges);
        index.element_aliases = element_aliases(files, &items);
        index.workspace_generic_fns = items
            .of::<ast::Fn>()
            .map(|(_, f)| f)
            .filter(|f| f.generic_param_list().is_some())
            .filter(|f| {
                f.syntax().parent().is_some_and(|p| {
                    ast::SourceFile::can_cast(p.kind()) || ast::ItemList::can_cast(p.kind())
                })
            })
            .filter_map(|f| Some(f.name()?.text().to_string()))
            .collect();
        index.turbofish_names = (files.par_iter())
            .flat_map_iter(|f| turbofish_names(&f.borrow().text))
            .collect();
        index.element_converters = index.element_converters_of(&items);
        index.file_packages = files.iter().map(|f| f.borrow().package).collect();
        index.tensor_kinds = index.tensor_kinds_of(&items);
        index.collect_backend_traits(&items);
        index.collect_backend_associated_types(&items);
        index.collect_marker_traits(files, &items);
        index.collect_extension_ports(files, &items);
        index.modules = items
            .of::<ast::Adt>()
            .map(|(_, adt)| adt)
            .filter(derives_module)
            .filter_map(|adt| Some(adt.name()?.text().to_string()))
            .collect();
        let implemented: HashSet<String> = (items.of::<ast::Impl>())
            .filter(|(_, imp)| {
                imp.trait_().is_some_and(|t| match t {
                    ast::Type::PathType(p) => (p.path().and_then(|p| p.segment()))
                        .is_some_and(|s| segment_name(&s) == "Module"),
                    _ => false,
                })
            })
            .filter_map(|(_, imp)| match imp.self_ty()? {
                ast::Type::PathType(p) => Some(segment_name(&p.path()?.segment()?)),
                _ => None,
            })
            .collect();
        index.non_modules = (items.of::<ast::Adt>())
            .filter_map(|(_, adt)| Some(adt.name()?.text().to_string()))
            .filter(|name| !index.modules.contains(name) && !implemented.contains(name))
            .collect();
        index.dataset_types = items
            .of::<ast::Impl>()
            .filter(|(file, imp)| {
                let Some(ast::Type::PathType(tr)) = imp.trait_() else {
                    return false;
                };
                tr.path()
                    .is_some_and(|p| index.burn_name(*file, &p).as_deref() == Some("Dataset"))
            })
            .filter_map(|(_, imp)| match imp.self_ty()? {
                ast::Type::PathType(ty) => Some(segment_names(&ty.path()?).pop()?),
                _ => None,
            })
            .collect();
        index.collect_aliases(&items);
        index.collect_lazy_device_consts(&items, &by_value);
        index.inherit_alias_branches(&items);
        // What each item's type parameters are bounded by and passed to: all the syntax the
        // rounds below need, read once and in parallel.
        let owner_facts: Vec<FileOwnerFacts> = (files.par_iter().zip(&item_ranges))
            .enumerate()
            .map(|(file, (source, ranges))| index.file_owner_facts(file, source.borrow(), ranges))
            .collect();
        // Two rounds: an unbounded parameter passed at another item's backend position is a
        // backend too, which the first round makes known.
        for _ in 0..2 {
            index.collect_items(&items, &owner_facts);
        }
        // After the rounds: a recorder's type parameter may sit beside backend parameters.
        index.recorder_params = recorder_wrappers::positions(items.of::<ast::Fn>(), |file, f| {
            index.recorder_parameter(file, f)
        });
        index
    }

    /// `Index::element_converters` of the workspace's generic functions: parameters whose type
    /// is bounded by Burn's `ToElement`, as the file names it. A name defined twice with different
    /// answers counts for neither.
    fn element_converters_of(&self, items: &FileItems) -> HashMap<(String, usize), String> {
        let mut found: HashMap<(String, usize), Option<String>> = HashMap::new();
        for (file, function) in items.of::<ast::Fn>() {
            let (Some(name), Some(generics), Some(params), Some(body)) = (
                function.name(),
                function.generic_param_list(),
                function.param_list(),
                function.body(),
            ) else {
                continue;
            };
            let where_bounds = (function.where_clause().into_iter())
                .flat_map(|w| w.predicates())
                .filter_map(|p| Some((p.ty()?.syntax().text().to_string(), p.type_bound_list())));
            let inline_bounds = generics.type_or_const_params().filter_map(|p| match p {
                ast::TypeOrConstParam::Type(t) => {
                    Some((t.name()?.text().to_string(), t.type_bound_list()))
                }
                ast::TypeOrConstParam::Const(_) => None,
            });
            let converted: HashSet<String> = inline_bounds
                .chain(where_bounds)
                .filter(|(_, bounds)| {
                    bound_paths(bounds.clone())
                        .iter()
                        .any(|b| self.burn_name(file, b).as_deref() == Some("ToElement"))
                })
                .map(|(param, _)| param)
                .collect();
            if converted.is_empty() {
                continue;
            }
            for (position, param) in params.params().enumerate() {
                let typed = param.ty().is_some_and(|ty| {
                    crate::util::syntax::type_as_ident(&ty).is_some_and(|t| converted.contains(&t))
                });
                let Some(ast::Pat::IdentPat(pattern)) = param.pat().filter(|_| typed) else {
                    continue;
                };
                let Some(value) = pattern.name().map(|n| n.text().to_string()) else {
                    continue;
                };
                let targets: HashSet<String> = (body.syntax().descendants())
                    .filter_map(ast::MethodCallExpr::cast)
                    .filter(|call| {
                        matches!(call.receiver(), Some(ast::Expr::PathExpr(p))
                        if p.path().is_some_and(|p| p.to_string() == value))
                            && ast::HasArgList::arg_list(call)
                                .is_some_and(|l| l.args().next().is_none())
                    })
                    .filter_map(|call| {
                        let method = call.name_ref()?.text().to_string();
                        let element = method.strip_prefix("to_")?;
                        SCALAR_ELEMENTS
                            .contains(&element)
                            .then(|| element.to_string())
                    })
                    .collect();
                let answer = (targets.len() == 1)
                    .then(|| targets.into_iter().next())
                    .flatten();
                let key = (name.text().to_string(), position);
                match found.get(&key) {
                    Some(earlier) if *earlier != answer => {
                        found.insert(key, None);
                    }
                    _ => {
                        found.insert(key, answer);
                    }
                }
            }
        }
        (found.into_iter())
            .filter_map(|(key, answer)| Some((key, answer?)))
            .collect()
    }

    /// `Index::tensor_kinds`: per function name, the kind of the `Tensor` every workspace
    /// function (or method) of that name returns, and per field name, the kind every struct
    /// field of that name holds; a name some of whose items return or hold anything else, or
    /// another kind, has none.
    fn tensor_kinds_of(&self, items: &FileItems) -> TensorKinds {
        fn agreed(found: HashMap<String, Option<TensorKind>>) -> HashMap<String, TensorKind> {
            (found.into_iter())
                .filter_map(|(name, kind)| Some((name, kind?)))
                .collect()
        }
        fn note(
            found: &mut HashMap<String, Option<TensorKind>>,
            name: String,
            kind: Option<TensorKind>,
        ) {
            found
                .entry(name)
                .and_modify(|earlier| {
                    if *earlier != kind {
                        *earlier = None;
                    }
                })
                .or_insert(kind);
        }
        let mut returned = HashMap::new();
        let mut returned_in_package = HashMap::new();
        for (file, function) in items.of::<ast::Fn>() {
            let Some(name) = function.name() else {
                continue;
            };
            let kind = (function.ret_type().and_then(|r| r.ty()))
                .and_then(|ty| self.declared_tensor_kind(file, &ty));
            note(&mut returned, name.text().to_string(), kind);
            (returned_in_package.entry((self.package_of(file), name.text().to_string())))
                .and_modify(|earlier| {
                    if *earlier != kind {
                        *earlier = None;
                    }
                })
                .or_insert(kind);
        }
        let mut fields = HashMap::new();
        for (file, adt) in items.of::<ast::Struct>() {
            let Some(ast::FieldList::RecordFieldList(list)) = adt.field_list() else {
                continue;
            };
            for field in list.fields() {
                let Some(name) = field.name() else {
                    continue;
                };
                let kind = field
                    .ty()
                    .and_then(|ty| self.declared_tensor_kind(file, &ty));
                note(&mut fields, name.text().to_string(), kind);
            }
        }
        TensorKinds {
            returned: agreed(returned),
            returned_in_package,
            fields: agreed(fields),
        }
    }

    /// The kind of the `Tensor` a call of the function or method `name` in file `file`
    /// returns, where the functions of that name say: those of the file's own package where it
    /// defines one (`model.forward(x)` in a crate whose models all return float tensors, whatever
    /// another crate's `forward` returns), else every one of the workspace's.
    pub fn returned_tensor_kind(&self, file: usize, name: &str) -> Option<TensorKind> {
        let own =
            (self.tensor_kinds.returned_in_package).get(&(self.package_of(file), name.to_string()));
        match own {
            Some(kind) => *kind,
            None => self.tensor_kinds.returned.get(name).copied(),
        }
    }

    /// Whether some file of the workspace writes generic arguments after `name`, turbofish
    /// style (`train::<B, O>(..)`).
    pub fn named_with_turbofish(&self, name: &str) -> bool {
        self.turbofish_names.contains(name)
    }

    /// The kind of a declared Burn `Tensor<..>` (behind `&` or not) in `file`: its `Int`,
    /// `Bool` or `Float` argument, or `Float` (the default kind) where a dimension literal ends
    /// the list; a list that ends with a parameter (`Tensor<B, D, K>`) may be of any kind.
    pub fn declared_tensor_kind(&self, file: usize, ty: &ast::Type) -> Option<TensorKind> {
        let ty = match ty {
            ast::Type::RefType(reference) => reference.ty()?,
            other => other.clone(),
        };
        let ast::Type::PathType(path_type) = ty else {
            return None;
        };
        let path = path_type.path()?;
        if self.burn_name(file, &path).as_deref() != Some("Tensor") {
            return None;
        }
        let arguments: Vec<String> = (path.segment()?.generic_arg_list()?.generic_args())
            .map(|argument| argument.syntax().text().to_string())
            .collect();
        let named = arguments
            .iter()
            .find_map(|argument| match argument.rsplit("::").next()? {
                "Int" => Some(TensorKind::Int),
                "Bool" => Some(TensorKind::Bool),
                "Float" => Some(TensorKind::Float),
                _ => None,
            });
        let ends_with_a_dimension = arguments
            .last()
            .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_digit()));
        named.or(ends_with_a_dimension.then_some(TensorKind::Float))
    }

    fn collect_lazy_device_consts(&mut self, items: &FileItems, by_value: &HashSet<String>) {
        // Per name: whether some constant of it is a device value, and whether every one is a
        // device value or already a `LazyLock` (`cfg` branches: burn-lm's other backends).
        let mut kinds: HashMap<String, (bool, bool)> = HashMap::new();
        for (file, constant) in items.of::<ast::Const>() {
            let Some(name) = constant.name() else {
                continue;
            };
            let value = constant.body();
            let device = value
                .as_ref()
                .is_some_and(|v| self.is_device_value(file, v));
            let lazy = value.as_ref().is_some_and(is_lazy_value);
            let (some_device, all_readable) = kinds
                .entry(name.text().to_string())
                .or_insert((false, true));
            *some_device |= device;
            *all_readable &= device || lazy;
        }
        self.lazy_device_consts = (kinds.into_iter())
            .filter(|(name, (some_device, all_readable))| {
                *some_device && *all_readable && !by_value.contains(name)
            })
            .map(|(name, _)| name)
            .collect();
    }

    /// Whether `value` is a Burn 0.21 device, all of it: a variant or constructor of a backend's
    /// device type (`NdArrayDevice::Cpu`, `WgpuDevice::DiscreteGpu(0)`, `CudaDevice::default()`).
    fn is_device_value(&self, file: usize, value: &ast::Expr) -> bool {
        let path = match value {
            ast::Expr::CallExpr(call) => match call.expr() {
                Some(ast::Expr::PathExpr(callee)) => callee.path(),
                _ => None,
            },
            ast::Expr::PathExpr(value) => value.path(),
            _ => None,
        };
        (path.and_then(|p| p.qualifier()))
            .and_then(|ty| self.burn_backend_name(file, &ty))
            .is_some_and(|name| self.backend_of_device_type(&name).is_some())
    }

    fn collect_backend_associated_types(&mut self, items: &FileItems) {
        for (file, tr) in items.of::<ast::Trait>() {
            let declared = (tr.assoc_item_list().into_iter())
                .flat_map(|list| list.assoc_items())
                .filter_map(|item| match item {
                    ast::AssocItem::TypeAlias(alias) => Some(alias),
                    _ => None,
                });
            for alias in declared {
                let bounded = bound_paths(alias.type_bound_list()).iter().any(|bound| {
                    self.is_backend_bound(file, bound)
                        || self.is_dangling_backend_bound(file, bound)
                });
                if let (true, Some(name), Some(owner)) = (bounded, alias.name(), tr.name()) {
                    (self.backend_associated_types)
                        .entry(name.text().to_string())
                        .or_default()
                        .insert(owner.text().to_string());
                }
            }
        }
    }

    /// A bare `Backend` (or `AutodiffBackend`) that nothing in the file imports and the
    /// workspace does not define: a port's leftover of Burn 0.21's trait, whose import the
    /// port removed. (A glob import of the workspace's own modules cannot bring it either;
    /// one of another crate's could, which is not looked into.)
    fn is_dangling_backend_bound(&self, file: usize, bound: &ast::Path) -> bool {
        let Some(names) = self.files.get(file) else {
            return false;
        };
        let Some(name) = path_as_ident(bound) else {
            return false;
        };
        BURN_BACKEND_TRAITS.contains(&name.as_str())
            && !names.other_imports.contains(&name)
            && !self.workspace_items.contains(&name)
    }

    fn collect_backend_traits(&mut self, items: &FileItems) {
        let traits: Vec<(usize, ast::Trait)> = items.of::<ast::Trait>().collect();
        // Each definition once, whatever other crates of the workspace call their traits (two
        // examples may each define a `Backend` trait of their own).
        let mut found: HashSet<(usize, TextRange)> = HashSet::new();
        loop {
            let mut changed = false;
            for (file, tr) in &traits {
                let Some(name) = tr.name() else { continue };
                let name_text = name.text().to_string();
                if found.contains(&(*file, name.syntax().text_range())) {
                    continue;
                }
                let supers = supertrait_paths(tr);
                // A later pass of the port reads the trait with its `Backend` import gone: it
                // is the same backend trait (and its impls stay a person's) all the same.
                let dangling = |s: &ast::Path, names: &[&str]| {
                    self.is_dangling_backend_bound(*file, s)
                        && path_as_ident(s).is_some_and(|n| names.contains(&n.as_str()))
                };
                let backend = |s: &ast::Path| {
                    self.is_backend_bound(*file, s) || dangling(s, BURN_BACKEND_TRAITS)
                };
                if supers.iter().any(backend) {
                    let autodiff = |s: &ast::Path| {
                        self.is_autodiff_bound(*file, s) || dangling(s, BURN_AUTODIFF_TRAITS)
                    };
                    if supers.iter().any(autodiff) {
                        self.autodiff_traits.insert(name_text.clone());
                    }
                    self.backend_traits.insert(name_text.clone());
                    found.insert((*file, name.syntax().text_range()));
                    self.user_backend_traits
                        .push((*file, name.syntax().text_range(), name_text));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.collect_alias_branches(items);
    }

    fn collect_alias_branches(&mut self, items: &FileItems) {
        let mut branches: HashMap<String, Vec<(Option<String>, BackendSpec)>> = HashMap::new();
        for (i, alias) in items.of::<ast::TypeAlias>() {
            let (Some(name), Some(ty)) = (alias.name(), alias.ty()) else {
                continue;
            };
            let Some(spec) = self.resolve_backend_type(i, &ty) else {
                continue;
            };
            let cfg = alias
                .attrs()
                .map(|a| a.syntax().text().to_string())
                .find(|a| a.starts_with("#[cfg("));
            branches
                .entry(name.text().to_string())
                .or_default()
                .push((cfg, spec));
        }
        for (name, defs) in branches {
            let differ = defs.iter().any(|(_, s)| *s != defs[0].1);
            if defs.len() < 2 || !differ {
                continue;
            }
            // Every definition under its own condition; otherwise they are not branches.
            let Some(with_cfg) = defs
                .into_iter()
                .map(|(cfg, spec)| cfg.map(|c| (c, spec)))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            self.alias_branches.insert(name, with_cfg);
        }
    }

    /// An alias defined once, without `cfg`, over a branched alias (`type Train =
    /// Autodiff<MyBackend>;`) has that alias's branches: under each branch's condition it is
    /// what its type resolves to with the inner alias at that branch's backend. Chains of such
    /// aliases inherit them in turn. Runs after `collect_aliases`, whose per-file aliases the
    /// resolution reads.
    fn inherit_alias_branches(&mut self, items: &FileItems) {
        let mut definitions: HashMap<String, Vec<(usize, ast::TypeAlias)>> = HashMap::new();
        for (file, alias) in items.of::<ast::TypeAlias>() {
            if let Some(name) = alias.name() {
                definitions
                    .entry(name.text().to_string())
                    .or_default()
                    .push((file, alias));
            }
        }
        loop {
            let mut inherited = Vec::new();
            for (name, defs) in &definitions {
                let [(file, alias)] = defs.as_slice() else {
                    continue;
                };
                let conditional =
                    (alias.attrs()).any(|a| a.syntax().text().to_string().starts_with("#[cfg("));
                let Some(ty) = alias.ty() else { continue };
                if conditional || self.alias_branches.contains_key(name) {
                    continue;
                }
                let mut named = (ty.syntax().descendants())
                    .filter_map(ast::NameRef::cast)
                    .map(|n| n.text().to_string())
                    .filter(|n| self.alias_branches.contains_key(n))
                    .collect::<HashSet<String>>()
                    .into_iter();
                let (Some(inner), None) = (named.next(), named.next()) else {
                    continue;
                };
                let branches: Option<Vec<(String, BackendSpec)>> = self.alias_branches[&inner]
                    .clone()
                    .into_iter()
                    .map(|(cfg, spec)| Some((cfg, self.resolve_with(*file, &ty, &inner, spec)?)))
                    .collect();
                if let Some(branches) = branches {
                    inherited.push((name.clone(), branches));
                }
            }
            if inherited.is_empty() {
                break;
            }
            self.alias_branches.extend(inherited);
        }
    }

    /// `ty` in file `file` resolved with the alias `name` standing for `spec` there.
    fn resolve_with(
        &mut self,
        file: usize,
        ty: &ast::Type,
        name: &str,
        spec: BackendSpec,
    ) -> Option<BackendSpec> {
        let aliases = self.file_aliases.get_mut(file)?;
        let before = aliases.insert(name.to_string(), spec);
        let resolved = self.resolve_backend_type(file, ty);
        let aliases = &mut self.file_aliases[file];
        match before {
            Some(before) => aliases.insert(name.to_string(), before),
            None => aliases.remove(name),
        };
        resolved
    }

    /// Finds the backend traits that only mark a backend (see `marker_traits`).
    fn collect_marker_traits<F: Borrow<SourceFile> + Sync>(
        &mut self,
        files: &[F],
        items: &FileItems,
    ) {
        let mut defined: HashMap<String, usize> = HashMap::new();
        for (_, tr) in items.of::<ast::Trait>() {
            if let Some(name) = tr.name() {
                *defined.entry(name.text().to_string()).or_default() += 1;
            }
        }
        // Candidates: the trait's own shape (no items, no parameters, only path bounds).
        let mut candidates: HashMap<String, (usize, Vec<ast::Path>)> = HashMap::new();
        for (file, tr) in items.of::<ast::Trait>() {
            let Some(name) = tr.name().map(|n| n.text().to_string()) else {
                continue;
            };
            if !self.backend_traits.contains(&name) || defined.get(&name) != Some(&1) {
                continue;
            }
            let no_items = tr
                .assoc_item_list()
                .is_some_and(|l| l.assoc_items().next().is_none());
            let plain = tr.unsafe_token().is_none()
                && tr.auto_token().is_none()
                && tr.generic_param_list().is_none();
            if let (true, true, Some(supers)) = (no_items, plain, marker_supertraits(&tr)) {
                candidates.insert(name, (file, supers));
            }
        }
        if candidates.is_empty() {
            // The walk over every name below would find nothing to keep.
            return;
        }
        // Every impl a blanket impl over a backend parameter, with no items (and one at
        // least: a trait the workspace never implements is implemented elsewhere); every
        // other mention a bound or an import. Each file's mentions of each candidate (whether
        // one is not allowed, whether one is an impl) in parallel.
        let names: Vec<String> = candidates.keys().cloned().collect();
        let mentions: Vec<Vec<(bool, bool)>> = (files.par_iter().enumerate())
            .map(|(file, source)| {
                let source = source.borrow();
                let root = source.tree().syntax().clone();
                let mut found = vec![(false, false); names.len()];
                for (i, name_ref) in marker_name_refs(source, &root, &names) {
                    match marker_mention(&name_ref) {
                        MarkerMention::Bound | MarkerMention::Import => {}
                        MarkerMention::Impl(imp) => {
                            found[i].1 = true;
                            found[i].0 |= !self.is_blanket_backend_impl(file, &imp);
                        }
                        MarkerMention::Other => found[i].0 = true,
                    }
                }
                found
            })
            .collect();
        let mut implemented: HashSet<String> = HashSet::new();
        for (i, name) in names.iter().enumerate() {
            if mentions.iter().any(|file| file[i].0) {
                candidates.remove(name);
            } else if mentions.iter().any(|file| file[i].1) {
                implemented.insert(name.clone());
            }
        }
        candidates.retain(|name, _| implemented.contains(name));
        // Every trait's supertraits, by name: a marker must not be one of a trait that stays.
        let all_supers: Vec<(String, Vec<String>)> = items
            .of::<ast::Trait>()
            .filter_map(|(_, tr)| {
                let name = tr.name()?.text().to_string();
                let supers = supertrait_paths(&tr)
                    .iter()
                    .filter_map(|p| segment_names(p).pop())
                    .collect();
                Some((name, supers))
            })
            .collect();
        // Supertraits: Burn's backend traits, or marker traits themselves.
        loop {
            let names: HashSet<String> = candidates.keys().cloned().collect();
            let before = candidates.len();
            candidates.retain(|_, (file, supers)| {
                supers.iter().all(|s| match self.burn_name(*file, s) {
                    Some(burn) => BURN_BACKEND_TRAITS.contains(&burn.as_str()),
                    None => segment_names(s).last().is_some_and(|l| names.contains(l)),
                })
            });
            let extended_by_others: HashSet<&String> = all_supers
                .iter()
                .filter(|(name, _)| !candidates.contains_key(name))
                .flat_map(|(_, supers)| supers)
                .collect();
            candidates.retain(|name, _| !extended_by_others.contains(name));
            if candidates.len() == before {
                break;
            }
        }
        self.marker_traits = candidates.into_keys().collect();
    }

    /// Finds the backend extensions that 0.22.1's `#[backend_extension(..)]` declares as they
    /// are (see `ExtensionPort`): every item a function of the backend that takes one of its
    /// tensors (no receiver, no parameters of its own), and every impl in the trait's crate
    /// for a backend the attribute names (`extension_target`), no two for one type. A trait
    /// with no items whose supertraits are Burn's backend traits and such extensions
    /// (`trait AutodiffBackend: Backend + burn::tensor::backend::AutodiffBackend {}`) is ported
    /// with them: it keeps its supertraits, under their 0.22 paths.
    fn collect_extension_ports<F: Borrow<SourceFile>>(&mut self, files: &[F], items: &FileItems) {
        // Each impl's backend, with the `cfg` it is compiled under (`None`: always).
        type Implemented = Option<(ExtensionTarget, Option<String>)>;
        // An impl of a project trait for Burn's backend types is in the trait's crate (the
        // orphan rule), so impls and traits meet by package and name: two crates may each
        // define a `Backend` extension of their own.
        let mut impls: HashMap<(usize, String), Vec<Implemented>> = HashMap::new();
        // The `cfg` of each file's `mod` declarations, read once there is an extension.
        let mut file_predicates: Option<Vec<Vec<String>>> = None;
        for (file, imp) in items.of::<ast::Impl>() {
            let Some(ast::Type::PathType(trait_type)) = imp.trait_() else {
                continue;
            };
            let Some(name) = trait_type.path().and_then(|p| segment_names(&p).pop()) else {
                continue;
            };
            let target = imp
                .self_ty()
                .and_then(|ty| self.extension_target(file, &imp, &ty));
            let implemented = target.map(|target| {
                let declared =
                    file_predicates.get_or_insert_with(|| module_cfgs::file_predicates(files));
                let mut predicates = declared.get(file).cloned().unwrap_or_default();
                predicates.extend(module_cfgs::cfg_predicates(imp.syntax()));
                (target, module_cfgs::all_of(predicates))
            });
            impls
                .entry((self.package_of(file), name))
                .or_default()
                .push(implemented);
        }
        let mut declared: HashMap<(usize, String), Option<ExtensionPort>> = HashMap::new();
        let mut sub_traits: Vec<(usize, String, Vec<ast::Path>)> = Vec::new();
        for (file, tr) in items.of::<ast::Trait>() {
            let Some(name) = tr.name().map(|n| n.text().to_string()) else {
                continue;
            };
            if !self.backend_traits.contains(&name) || self.marker_traits.contains(&name) {
                continue;
            }
            let Some(assoc) = tr.assoc_item_list() else {
                continue;
            };
            let key = (self.package_of(file), name);
            let targets = (impls.get(&key).filter(|found| !found.is_empty()))
                .and_then(|found| found.iter().cloned().collect::<Option<Vec<_>>>())
                // Two impls the port would write for one type (`Wgpu` and `Wgpu<f16>` are
                // both `Cube`) would collide.
                .filter(|targets| {
                    let keys: HashSet<String> = targets.iter().map(|(t, _)| t.key()).collect();
                    keys.len() == targets.len()
                });
            let on_cube_backend = (targets.iter().flatten())
                .any(|(t, _)| t.selector == "Cube" && t.form == TargetForm::Itself);
            let selectors = targets.map(|targets| {
                selectors_with_cfg(
                    targets
                        .into_iter()
                        .map(|(t, cfg)| (t.selector, cfg))
                        .collect(),
                )
            });
            if assoc.assoc_items().next().is_none() {
                if selectors.is_some() && tr.generic_param_list().is_none() {
                    sub_traits.push((file, key.1, supertrait_paths(&tr)));
                }
                continue;
            }
            let methods: Option<HashSet<String>> = (assoc.assoc_items())
                .map(|item| match item {
                    ast::AssocItem::Fn(f)
                        if f.generic_param_list().is_none()
                            && f.param_list().is_some_and(|p| {
                                p.self_param().is_none()
                                    && p.params().any(|p| takes_a_primitive(&p))
                            }) =>
                    {
                        Some(f.name()?.text().to_string())
                    }
                    _ => None,
                })
                .collect();
            let port = match (selectors, methods, tr.generic_param_list()) {
                (Some(selectors), Some(methods), None) => Some(ExtensionPort {
                    selectors,
                    methods,
                    declares_operations: true,
                    on_cube_backend,
                }),
                _ => None,
            };
            // A crate may define a trait of one name twice (in `cfg`-gated modules): both must
            // port.
            let entry = declared.entry(key).or_insert_with(|| port.clone());
            match (entry.as_mut(), port) {
                (Some(known), Some(port)) => known.methods.extend(port.methods),
                _ => *entry = None,
            }
        }
        self.extension_ports = (declared.into_iter())
            .filter_map(|(name, port)| Some((name, port?)))
            .collect();
        for (file, name, supers) in sub_traits {
            let burn = |s: &ast::Path| {
                (self.burn_name(file, s)).is_some_and(|b| BURN_BACKEND_TRAITS.contains(&b.as_str()))
            };
            let extension = |s: &ast::Path| {
                !burn(s)
                    && (segment_names(s).last())
                        .and_then(|last| self.extension_port(file, last))
                        .is_some_and(|port| port.declares_operations)
            };
            // It follows a ported extension; one over Burn's traits alone is no extension's.
            if supers.iter().any(extension) && supers.iter().all(|s| burn(s) || extension(s)) {
                let key = (self.package_of(file), name);
                self.extension_ports.insert(key, ExtensionPort::default());
            }
        }
    }

    /// The package of file `file` (`SourceFile::package`).
    fn package_of(&self, file: usize) -> usize {
        self.file_packages.get(file).copied().unwrap_or(usize::MAX)
    }

    /// Whether the workspace has a backend extension the port declares.
    pub fn has_extension_ports(&self) -> bool {
        !self.extension_ports.is_empty()
    }

    /// The ported backend extension that `name` names in file `file`: its own package's, else
    /// the one of that name another package defines (a dependency's), where only one does.
    pub fn extension_port(&self, file: usize, name: &str) -> Option<&ExtensionPort> {
        let own = self.package_of(file);
        if let Some(port) = self.extension_ports.get(&(own, name.to_string())) {
            return Some(port);
        }
        let mut others = (self.extension_ports.iter())
            .filter(|((package, n), _)| *package != own && n == name)
            .map(|(_, port)| port);
        match (others.next(), others.next()) {
            (Some(port), None) => Some(port),
            _ => None,
        }
    }

    /// The name `#[backend_extension(..)]` gives the backend `ty` (the self type of `imp`, or
    /// a type inside it) is (`ExtensionTarget::selector`).
    pub fn extension_selector(
        &self,
        file: usize,
        imp: &ast::Impl,
        ty: &ast::Type,
    ) -> Option<&'static str> {
        self.extension_target(file, imp, ty).map(|t| t.selector)
    }

    /// What `ty` (the self type of `imp`, or a type inside it) is to `#[backend_extension(..)]`:
    /// `CubeBackend<R, F, I, BT>` and `Flex` are themselves, an alias of a CubeCL runtime's
    /// backend (`Wgpu`, `Cuda`: the table's backends with a runtime) is 0.22's `Cube`, and
    /// `Autodiff<B, C>` is `Autodiff` over a parameter of `imp` or over another such backend.
    pub fn extension_target(
        &self,
        file: usize,
        imp: &ast::Impl,
        ty: &ast::Type,
    ) -> Option<ExtensionTarget> {
        let ast::Type::PathType(path_type) = ty else {
            return None;
        };
        let path = path_type.path()?;
        let name = self.burn_name(file, &path)?;
        let cube_alias =
            (self.backends.iter()).any(|b| b.runtime.is_some() && b.types.contains(&name));
        if cube_alias {
            return Some(ExtensionTarget {
                selector: "Cube",
                form: TargetForm::Cube,
            });
        }
        let (_, selector) = (EXTENSION_SELECTORS.iter()).find(|(burn, _)| *burn == name)?;
        if *selector != "Autodiff" {
            return Some(ExtensionTarget {
                selector,
                form: TargetForm::Itself,
            });
        }
        let Some(ast::GenericArg::TypeArg(arg)) =
            path.segment()?.generic_arg_list()?.generic_args().next()
        else {
            return None;
        };
        let inner = arg.ty()?;
        let parameter = type_as_ident(&inner).is_some_and(|n| {
            (imp.generic_param_list().iter())
                .flat_map(|l| l.type_or_const_params())
                .any(|p| p.name().is_some_and(|p| p.text() == n))
        });
        let inner = match parameter {
            true => None,
            false => Some(
                self.extension_target(file, imp, &inner)
                    .filter(|t| t.selector != "Autodiff")?,
            ),
        };
        Some(ExtensionTarget {
            selector: "Autodiff",
            form: TargetForm::Autodiff(inner.map(Box::new)),
        })
    }

    /// `impl<B: Backend> Marker for B {}`: no items, the self type one of the impl's backend
    /// parameters.
    fn is_blanket_backend_impl(&self, file: usize, imp: &ast::Impl) -> bool {
        let empty = imp
            .assoc_item_list()
            .is_some_and(|l| l.assoc_items().next().is_none());
        let self_param = imp.self_ty().as_ref().and_then(type_as_ident);
        let owner = ast::AnyHasGenericParams::from(imp.clone());
        empty
            && imp.unsafe_token().is_none()
            && imp.excl_token().is_none()
            && self_param.is_some_and(|p| {
                self.backend_params(file, &owner)
                    .iter()
                    .any(|b| b.name == p)
            })
    }

    fn collect_aliases(&mut self, items: &FileItems) {
        let aliases: Vec<(usize, String, ast::Type)> = items
            .of::<ast::TypeAlias>()
            // Generic aliases count too (`type Cpu<E, I> = Flex<E, I>;`): the element
            // parameters do not change which backend they name.
            .filter_map(|(i, a)| Some((i, a.name()?.text().to_string(), a.ty()?)))
            .collect();
        self.file_aliases = vec![HashMap::new(); items.owners.len()];
        self.file_wrapper_aliases = vec![HashMap::new(); items.owners.len()];
        for (file, alias) in items.of::<ast::TypeAlias>() {
            if let Some((name, wrapper)) = self.wrapper_alias_of(file, &alias) {
                self.file_wrapper_aliases[file].insert(name, wrapper);
            }
        }
        // Aliases of aliases resolve over several rounds.
        loop {
            let mut changed = false;
            for (file, name, ty) in &aliases {
                if self.file_aliases[*file].contains_key(name) {
                    continue;
                }
                if let Some(spec) = self.resolve_backend_type(*file, ty) {
                    self.aliases
                        .entry(name.clone())
                        .or_insert_with(|| spec.clone());
                    self.file_aliases[*file].insert(name.clone(), spec);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// `FileOwnerFacts` of file `file`, whose generic-capable items are at `ranges`.
    fn file_owner_facts(
        &self,
        file: usize,
        source: &SourceFile,
        ranges: &[TextRange],
    ) -> FileOwnerFacts {
        let root = source.tree().syntax().clone();
        let mut params = Vec::new();
        // An impl's facts serve each of its methods: each item is read once.
        let mut seen: HashMap<(TextRange, ra_ap_syntax::SyntaxKind), usize> = HashMap::new();
        let mut params_of = |item: &ast::AnyHasGenericParams| {
            let key = (item.syntax().text_range(), item.syntax().kind());
            *seen.entry(key).or_insert_with(|| {
                params.push(self.type_param_facts(file, item));
                params.len() - 1
            })
        };
        let owners = owners_at(&root, ranges)
            .iter()
            .map(|owner| {
                let node = owner.syntax();
                let function = ast::Fn::cast(node.clone()).map(|function| FunctionFacts {
                    around: (node.ancestors().skip(1))
                        .filter_map(ast::AnyHasGenericParams::cast)
                        .map(|outer| params_of(&outer))
                        .collect(),
                    impl_self_type: impl_self_type_name(node),
                    param_device_owners: param_device_owners(&function),
                });
                OwnerFacts {
                    name: item_name(node),
                    impl_self_args: ast::Impl::cast(node.clone())
                        .and_then(|imp| self_type_args(&imp)),
                    params: params_of(owner),
                    generic_params: owner.generic_param_list().map(|list| {
                        list.generic_params()
                            .filter_map(|p| match p {
                                ast::GenericParam::TypeParam(t) => {
                                    Some(t.name()?.text().to_string())
                                }
                                ast::GenericParam::ConstParam(c) => {
                                    Some(c.name()?.text().to_string())
                                }
                                ast::GenericParam::LifetimeParam(_) => None,
                            })
                            .collect()
                    }),
                    function,
                }
            })
            .collect();
        FileOwnerFacts { params, owners }
    }

    fn collect_items(&mut self, items: &FileItems, owner_facts: &[FileOwnerFacts]) {
        // Every round finds every function's positions again, with what the rounds before
        // learned about backends.
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_owner: HashMap<(String, String), Vec<usize>> = HashMap::new();
        for (owners, table) in items.owners.iter().zip(owner_facts) {
            for (owner, facts) in owners.iter().zip(&table.owners) {
                if let Some((self_type, args)) = &facts.impl_self_args {
                    let backend_params = self.backend_params_among(&table.params[facts.params]);
                    for (position, arg) in args.iter().enumerate() {
                        if is_backend_name(arg.as_deref(), &backend_params) {
                            self.bound_by_impls.insert((self_type.clone(), position));
                        }
                    }
                }
                let Some(name) = &facts.name else {
                    continue;
                };
                let backend_params = self.backend_params_among(&table.params[facts.params]);
                if let Some(function) = &facts.function {
                    // Methods see their impl's backend parameters too (`impl<B> X<B> { fn
                    // new(device: &B::Device) }`).
                    let mut scope = backend_params.clone();
                    for &outer in &function.around {
                        scope.extend(self.backend_params_among(&table.params[outer]));
                    }
                    let positions: Vec<usize> = (function.param_device_owners.iter())
                        .enumerate()
                        .filter(|(_, owner)| is_backend_name(owner.as_deref(), &scope))
                        .map(|(i, _)| i)
                        .collect();
                    if let Some(owner) = &function.impl_self_type {
                        keep_common(&mut by_owner, (owner.clone(), name.clone()), &positions);
                    }
                    keep_common(&mut by_name, name.clone(), &positions);
                }
                let Some(params) = &facts.generic_params else {
                    continue;
                };
                let backend: Vec<bool> = params
                    .iter()
                    .map(|p| backend_params.iter().any(|b| &b.name == p))
                    .collect();
                if !backend.iter().any(|b| *b) {
                    continue;
                }
                // Only an item with a backend parameter is read again, for its phantom fields.
                let node = owner.syntax();
                if let Some(strukt) = ast::Struct::cast(node.clone()) {
                    let fields = phantom_fields(strukt.field_list(), &backend_params);
                    if !fields.is_empty() {
                        self.phantom_fields.insert(name.clone(), fields);
                    }
                }
                // Record variants: `Layer::Marker { _backend: PhantomData }` is built by the
                // variant's name.
                let variants = ast::Enum::cast(node.clone())
                    .and_then(|e| e.variant_list())
                    .into_iter()
                    .flat_map(|list| list.variants());
                for variant in variants {
                    let fields = phantom_fields(variant.field_list(), &backend_params);
                    if let (Some(variant), false) = (variant.name(), fields.is_empty()) {
                        self.phantom_fields
                            .insert(variant.text().to_string(), fields);
                    }
                }
                let autodiff = backend_params.iter().any(|b| b.autodiff);
                self.items.insert(
                    name.clone(),
                    ItemGenerics {
                        params: params.clone(),
                        backend,
                        autodiff,
                    },
                );
            }
        }
        by_name.retain(|_, positions| !positions.is_empty());
        by_owner.retain(|_, positions| !positions.is_empty());
        self.device_params = by_name;
        self.owned_device_params = by_owner;
    }

    /// The backend parameters an item of file `file` declares: those bounded by Burn's backend
    /// traits or the project's extensions of them, and unbounded ones used as the backend
    /// argument of a Burn type or of a project item whose parameter is a backend.
    pub fn backend_params(
        &self,
        file: usize,
        owner: &ast::AnyHasGenericParams,
    ) -> Vec<BackendParam> {
        self.backend_params_among(&self.type_param_facts(file, owner))
    }

    /// The backend parameters among an item's type parameters, by what the index knows now
    /// of the project items they are passed to.
    fn backend_params_among(&self, params: &[TypeParamFacts]) -> Vec<BackendParam> {
        let at_backend_position = |(owner, position): &(String, usize)| {
            (self.items.get(owner)).is_some_and(|item| item.backend.get(*position) == Some(&true))
        };
        params
            .iter()
            .filter(|p| {
                p.bounded
                    || p.burn_backend_argument
                    || p.project_arguments.iter().any(at_backend_position)
                    || (p.marker_position.as_ref())
                        .is_some_and(|at| self.bound_by_impls.contains(at))
            })
            .map(|p| BackendParam {
                name: p.name.clone(),
                autodiff: p.autodiff,
            })
            .collect()
    }

    /// The facts about `owner`'s type parameters that decide which are backends.
    fn type_param_facts(
        &self,
        file: usize,
        owner: &ast::AnyHasGenericParams,
    ) -> Vec<TypeParamFacts> {
        let Some(list) = owner.generic_param_list() else {
            return Vec::new();
        };
        let where_preds: Vec<ast::WherePred> = owner
            .where_clause()
            .map(|w| w.predicates().collect())
            .unwrap_or_default();
        // The item's argument lists, read when an unbounded parameter needs them.
        let mut argument_lists: Option<Vec<ArgumentList>> = None;
        let adt = ast::Adt::cast(owner.syntax().clone());
        let mut out = Vec::new();
        let positioned = list
            .generic_params()
            .filter(|p| !matches!(p, ast::GenericParam::LifetimeParam(_)));
        for (position, param) in positioned.enumerate() {
            let ast::GenericParam::TypeParam(tp) = param else {
                continue;
            };
            let Some(name) = tp.name() else { continue };
            let name = name.text().to_string();
            let mut bounds = bound_paths(tp.type_bound_list());
            for pred in &where_preds {
                if pred.ty().as_ref().and_then(type_as_ident).as_deref() == Some(name.as_str()) {
                    bounds.extend(bound_paths(pred.type_bound_list()));
                }
            }
            let mut facts = TypeParamFacts {
                bounded: bounds.iter().any(|b| self.is_backend_bound(file, b)),
                autodiff: bounds.iter().any(|b| self.is_autodiff_bound(file, b)),
                burn_backend_argument: false,
                project_arguments: Vec::new(),
                // A parameter with a default (`C = NoCheckpointing`) configures the type;
                // it is not the backend.
                marker_position: adt
                    .as_ref()
                    .filter(|adt| tp.default_type().is_none() && marks_only(adt, &name))
                    .and_then(|adt| Some((adt.name()?.text().to_string(), position))),
                name,
            };
            if !facts.bounded {
                let lists =
                    argument_lists.get_or_insert_with(|| self.argument_lists(file, owner.syntax()));
                for list in lists.iter() {
                    let is_name = |arg: &Option<String>| arg.as_deref() == Some(&facts.name);
                    match &list.burn_owner {
                        Some(burn) => {
                            facts.burn_backend_argument |= (self.backend_first_types)
                                .get(burn.as_str())
                                .is_some_and(|required| list.args.len() >= *required)
                                && list.args.first().is_some_and(is_name)
                        }
                        None => facts.project_arguments.extend(
                            (list.args.iter().enumerate())
                                .filter(|(_, arg)| is_name(arg))
                                .map(|(position, _)| (list.owner.clone(), position)),
                        ),
                    }
                }
            }
            out.push(facts);
        }
        out
    }

    /// Whether a bound (`Backend`, `burn::tensor::backend::Backend`, `MyBackend`) in file
    /// `file` is Burn's backend trait or a project trait that extends it.
    fn is_backend_bound(&self, file: usize, bound: &ast::Path) -> bool {
        self.bound_is(file, bound, BURN_BACKEND_TRAITS, &self.backend_traits)
    }

    fn is_autodiff_bound(&self, file: usize, bound: &ast::Path) -> bool {
        self.bound_is(file, bound, BURN_AUTODIFF_TRAITS, &self.autodiff_traits)
    }

    fn bound_is(
        &self,
        file: usize,
        bound: &ast::Path,
        burn: &[&str],
        project: &HashSet<String>,
    ) -> bool {
        if let Some(name) = self.burn_name(file, bound) {
            return burn.contains(&name.as_str());
        }
        // The project's own traits are known by name across the workspace.
        segment_names(bound)
            .last()
            .is_some_and(|last| project.contains(last))
    }

    /// Burn's name for the item a path in file `file` refers to, when the path resolves into
    /// a Burn crate: written out (`burn::tensor::Tensor`), through a module the file imports
    /// from Burn (`backend::Backend`), through the file's imports (renamed or not, glob or
    /// not), or through a project module that re-exports Burn's item. An item the file
    /// defines itself shadows Burn's names, as an explicit import shadows a glob.
    pub fn burn_name(&self, file: usize, path: &ast::Path) -> Option<String> {
        // Asked of every path by several rules: only the first and last names matter, so the
        // path's names are not collected.
        let last = segment_name(&path.segment()?);
        self.burn_name_of(file, outermost_segment_name(path).as_deref(), &last)
    }

    /// `burn_name` of a path given by its outermost segment's name (`None` for a single
    /// segment) and its last one's.
    pub fn burn_name_of(&self, file: usize, first: Option<&str>, last: &str) -> Option<String> {
        let file_names = self.files.get(file)?;
        if let Some(first) = first {
            if file_names.crates.is_burn_crate(first) || file_names.burn_imports.contains_key(first)
            {
                return Some(last.to_string());
            }
            let project_path = ["crate", "self", "super"].contains(&first);
            return self.reexported_burn_name(last).filter(|_| project_path);
        }
        if file_names.local_items.contains(last) {
            return None;
        }
        if let Some(burn) = file_names.burn_imports.get(last) {
            return Some(burn.clone());
        }
        if file_names.other_imports.contains(last) {
            return self.reexported_burn_name(last);
        }
        if file_names.burn_glob {
            return Some(last.to_string());
        }
        // `use super::*` (a test module beside its parent), `use crate::prelude::*`: a name
        // another file of the workspace imports from Burn comes through, as an explicitly
        // imported one does; with a Burn glob somewhere, any name no workspace item has.
        if file_names.other_glob {
            return self.reexported_burn_name(last).or_else(|| {
                (self.workspace_burn_glob && !self.workspace_items.contains(last))
                    .then(|| last.to_string())
            });
        }
        None
    }

    /// The names a path's last segment can have for `burn_name` to give Burn's `name`:
    /// `name` itself and the local names that the file's imports, or another file's, give it.
    pub fn names_for_burn_name<'a>(
        &'a self,
        file: usize,
        name: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        let file_imports = (self.files.get(file).into_iter()).flat_map(|f| f.burn_imports.iter());
        let imported_as = (file_imports.chain(&self.workspace_burn_imports))
            .filter(move |(_, burn)| *burn == name)
            .map(|(local, _)| local.as_str());
        std::iter::once(name).chain(imported_as)
    }

    /// Whether some workspace file re-exports `name` from Burn (`pub use burn::prelude::Backend;`).
    pub fn reexports_burn_name(&self, name: &str) -> bool {
        self.files.iter().any(|f| f.burn_reexports.contains(name))
    }

    /// Burn's name for a name some workspace file imports from Burn (and so may re-export),
    /// when no workspace item of that name could be what is meant instead.
    fn reexported_burn_name(&self, name: &str) -> Option<String> {
        if self.workspace_items.contains(name) {
            return None;
        }
        self.workspace_burn_imports.get(name).cloned()
    }

    /// The generic argument lists written inside `item` (of file `file`), in preorder: where
    /// an unbounded parameter may be passed as a backend.
    fn argument_lists(&self, file: usize, item: &SyntaxNode) -> Vec<ArgumentList> {
        item.descendants()
            .filter_map(ast::GenericArgList::cast)
            .filter_map(|list| {
                let segment = list.syntax().parent().and_then(ast::PathSegment::cast)?;
                let owner = segment.name_ref()?.text().to_string();
                let args = argument_names(&list);
                Some(ArgumentList {
                    burn_owner: self.burn_name(file, &segment.parent_path()),
                    owner,
                    args,
                })
            })
            .collect()
    }

    /// The positions of `owner`'s generic arguments that are a backend, when `owner` (the last
    /// name of a path) is a project type or trait: those the index proved. `None` for Burn's
    /// items, items the workspace does not define, and functions (a method name says too
    /// little about which function is called), whose arguments are judged one by one.
    pub fn project_backend_positions(&self, file: usize, owner: &str) -> Option<Vec<bool>> {
        let file_names = self.files.get(file)?;
        let defined =
            self.workspace_items.contains(owner) || self.workspace_generic_fns.contains(owner);
        if file_names.burn_imports.contains_key(owner) || !defined {
            return None;
        }
        Some(
            self.items
                .get(owner)
                .map(|item| item.backend.clone())
                .unwrap_or_default(),
        )
    }

    /// Resolves a type to the backend it selects, if it is one: Burn's backend types (as the
    /// file imports them, or fully qualified), `Autodiff<..>`, `Fusion<..>`, and aliases.
    pub fn resolve_backend_type(&self, file: usize, ty: &ast::Type) -> Option<BackendSpec> {
        let ast::Type::PathType(path_type) = ty else {
            return None;
        };
        let path = path_type.path()?;
        let segment = path.segment()?;
        let local = segment.name_ref()?.text().to_string();
        let burn_name = self.burn_backend_name(file, &path);
        let first_arg = || -> Option<ast::Type> {
            segment
                .generic_arg_list()?
                .generic_args()
                .find_map(|a| match a {
                    ast::GenericArg::TypeArg(t) => t.ty(),
                    _ => None,
                })
        };
        // `Autodiff<..>`, `Fusion<..>`: the wrapped backend, maybe differentiated; also through
        // the project's generic alias of one (`G<NdArray>` after `type G<B> = Autodiff<B>;`).
        let wrapper = match burn_name.as_deref() {
            Some(name) => self
                .wrappers
                .iter()
                .find(|w| w.types.iter().any(|t| t == name)),
            None if path.qualifier().is_none() => self.wrapper_alias(file, &local),
            None => None,
        };
        if let Some(wrapper) = wrapper {
            let mut inner = self.resolve_backend_type(file, &first_arg()?)?;
            if wrapper.autodiff {
                inner.autodiff = true;
                inner.checkpointing = segment.generic_arg_list().is_some_and(|l| {
                    let args = l.syntax().text().to_string();
                    wrapper
                        .checkpointing
                        .iter()
                        .any(|s| args.contains(s.as_str()))
                });
            }
            return Some(inner);
        }
        match burn_name.as_deref() {
            // `CubeBackend<WgpuRuntime, f32, i32, u32>`: the backend of that runtime, when the
            // float and int elements are its defaults (others are a dtype choice the port
            // would lose; a bool element is storage only).
            Some("CubeBackend") => {
                let mut args = (segment.generic_arg_list()?.generic_args()).map(|arg| match arg {
                    ast::GenericArg::TypeArg(arg) => {
                        arg.ty().map(|t| t.syntax().text().to_string())
                    }
                    _ => None,
                });
                let runtime = args.next()??;
                let runtime = runtime
                    .rsplit("::")
                    .next()
                    .unwrap_or(&runtime)
                    .trim()
                    .to_string();
                let backend = self
                    .backends
                    .find_key(|b| b.runtime.as_deref() == Some(runtime.as_str()))?;
                let elements = &self.backends[backend].elements;
                let defaults = (elements.iter().take(2))
                    .zip(args)
                    .all(|((_, default), arg)| arg.is_some_and(|arg| arg.trim() == default));
                defaults.then_some(BackendSpec {
                    backend,
                    autodiff: false,
                    checkpointing: false,
                    elements: ElementDTypes::default(),
                })
            }
            Some(name) => {
                let backend = self
                    .backends
                    .find_key(|b| b.types.iter().any(|t| t == name))?;
                let arguments: Vec<String> = (segment.generic_arg_list())
                    .map(|list| {
                        (list.generic_args())
                            .map(|arg| arg.syntax().text().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                Some(BackendSpec {
                    backend,
                    autodiff: false,
                    checkpointing: false,
                    elements: ElementDTypes::of_arguments(
                        &self.backends[backend],
                        &arguments,
                        &self.element_aliases,
                    ),
                })
            }
            // A block's own alias (`{ type B = NdArray<f32>; .. }`) is what the name means in
            // that block, whatever other blocks of the file call `B`.
            None if path.qualifier().is_none() => match block_alias_in_scope(ty.syntax(), &local) {
                Some(alias) => self.resolve_backend_type(file, &alias.ty()?),
                None => self.alias(file, &local).cloned(),
            },
            // `backend::B`, `crate::backends::Cpu`: an alias of the workspace reached through
            // its modules (often one `#[cfg(..)] mod` per backend). Aliases are known by name
            // workspace-wide, as unqualified ones are; a qualifier that is a type
            // (`Config::B`) is no module path.
            None => {
                let names = segment_names(&path);
                let modules = &names[..names.len() - 1];
                let module_like = |n: &String| {
                    matches!(n.as_str(), "crate" | "self" | "super")
                        || n.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                };
                let crates = self.crate_names(file);
                let not_burn = |n: &String| crates.burn_crate(n) != Some("burn");
                (modules.iter().all(module_like) && modules.first().is_some_and(not_burn))
                    .then(|| self.aliases.get(&local).cloned())
                    .flatten()
            }
        }
    }

    /// Whether a bare name in file `file` names a backend type the port removes: one the file
    /// imports from a Burn backend module (`Flex`, `NdArray`), or a backend alias of the
    /// workspace (`type MyBackend = Autodiff<Wgpu>;`). For names in macro input, which are
    /// tokens, not paths.
    pub fn names_backend_type(&self, file: usize, name: &str) -> bool {
        let imported = self
            .files
            .get(file)
            .is_some_and(|f| f.backend_names.contains_key(name));
        imported || self.alias(file, name).is_some()
    }

    /// `type G<P> = Autodiff<P>;`: the alias's name and wrapper, when its body is a Burn
    /// backend wrapper applied to its one type parameter.
    fn wrapper_alias_of(&self, file: usize, alias: &ast::TypeAlias) -> Option<(String, usize)> {
        let params: Vec<String> = alias
            .generic_param_list()?
            .generic_params()
            .filter_map(|p| match p {
                ast::GenericParam::TypeParam(t) => Some(t.name()?.text().to_string()),
                _ => None,
            })
            .collect();
        let [param] = params.as_slice() else {
            return None;
        };
        let ast::Type::PathType(body) = alias.ty()? else {
            return None;
        };
        let path = body.path()?;
        let burn = self.burn_backend_name(file, &path)?;
        let wrapper = self.wrappers.iter().position(|w| w.types.contains(&burn))?;
        let first = path.segment()?.generic_arg_list()?.generic_args().next()?;
        let ast::GenericArg::TypeArg(arg) = first else {
            return None;
        };
        (type_as_ident(&arg.ty()?).as_deref() == Some(param.as_str()))
            .then(|| Some((alias.name()?.text().to_string(), wrapper)))
            .flatten()
    }

    /// The wrapper a name stands for in file `file` when it is a generic alias of one (see
    /// `file_wrapper_aliases`): the file's own, or one the file imports.
    pub fn wrapper_alias(&self, file: usize, name: &str) -> Option<&Wrapper> {
        let defined = |f: usize| self.file_wrapper_aliases.get(f)?.get(name).copied();
        let at = defined(file).or_else(|| {
            let names = self.files.get(file)?;
            let imported = names.other_imports.contains(name) || names.other_glob;
            imported
                .then(|| {
                    self.file_wrapper_aliases
                        .iter()
                        .find_map(|m| m.get(name).copied())
                })
                .flatten()
        })?;
        self.wrappers.get(at)
    }

    /// Whether file `file` defines `name` as a generic alias of a backend wrapper.
    pub fn defines_wrapper_alias(&self, file: usize, name: &str) -> bool {
        self.file_wrapper_aliases
            .get(file)
            .is_some_and(|m| m.contains_key(name))
    }

    /// The backend alias `name` means in file `file`: the file's own, else another file's
    /// that this one imports (by name, or with a glob of a project module). A bare name the
    /// file neither defines nor imports is no alias there (a generic parameter `B` is not some
    /// other file's `type B = Wgpu;`).
    pub fn alias(&self, file: usize, name: &str) -> Option<&BackendSpec> {
        if let Some(own) = self.file_aliases.get(file).and_then(|own| own.get(name)) {
            return Some(own);
        }
        let names = self.files.get(file)?;
        let imported = names.other_imports.contains(name) || names.other_glob;
        imported.then(|| self.aliases.get(name)).flatten()
    }

    /// `function`'s recorder parameter (`recorder_wrappers::recorder_parameter`), as file
    /// `file` names Burn's items and declares backends.
    pub fn recorder_parameter(
        &self,
        file: usize,
        function: &ast::Fn,
    ) -> Option<recorder_wrappers::RecorderParameter> {
        let owner = ast::AnyHasGenericParams::from(function.clone());
        let backends: Vec<String> = (self.backend_params(file, &owner).into_iter())
            .map(|b| b.name)
            .collect();
        recorder_wrappers::recorder_parameter(function, &|p| self.burn_name(file, p), &backends)
    }

    /// Whether `value` (in file `file`) makes one of Burn's recorders.
    pub fn builds_a_burn_recorder(&self, file: usize, value: &ast::Expr) -> bool {
        recorder_wrappers::builds_a_burn_recorder(&|p| self.burn_name(file, p), value)
    }

    /// Whether `argument` is at a workspace function's recorder parameter
    /// (`recorder_params`).
    pub fn is_wrapper_recorder_argument(&self, argument: &SyntaxNode) -> bool {
        recorder_wrappers::is_wrapper_recorder_argument(&self.recorder_params, argument)
    }

    /// Whether the workspace defines a type, trait or type alias named `name`.
    pub fn defines_item(&self, name: &str) -> bool {
        self.workspace_items.contains(name)
    }

    /// Whether a name imported from a Burn backend module is one the port replaces: a backend
    /// type, a wrapper (`Autodiff`) or its checkpointing strategy, a device type, or a backend
    /// module itself (`ndarray` in `use burn::backend::{ndarray, Autodiff}`).
    pub fn replaces_backend_name(&self, name: &str) -> bool {
        let listed = |names: &[String]| names.iter().any(|n| n == name);
        self.backends
            .iter()
            .any(|b| listed(&b.types) || listed(&b.device_types))
            || (self.wrappers.iter()).any(|w| listed(&w.types) || listed(&w.checkpointing))
            || self
                .backend_crates
                .iter()
                .any(|c| c == name || c.rsplit('_').next() == Some(name))
            // `Autodiff<B, NoCheckpointing>` is `Autodiff<B>`: the strategies go with it.
            || name.ends_with("Checkpointing")
            // A backend's device type named after it (`MetalDevice` for `Metal`).
            || name.strip_suffix("Device").is_some_and(|backend| {
                (self.backends.iter()).any(|b| b.types.iter().any(|t| t == backend))
            })
    }

    /// Burn's name for a path that refers into a Burn backend module, if it does.
    pub fn burn_backend_name(&self, file: usize, path: &ast::Path) -> Option<String> {
        let last = segment_name(&path.segment()?);
        if path.qualifier().is_none() {
            return self.files.get(file)?.backend_names.get(&last).cloned();
        }
        let names = self.crate_names(file).canonical(segment_names(path));
        // `burn::backend::wgpu::graphics::Metal` is a graphics API (burn-wgpu 0.21.0's
        // `graphics` module), not the `Metal` backend.
        let graphics_api = names.iter().any(|n| n == "graphics");
        if is_backend_module_path(&names[..names.len() - 1], &self.backend_crates) && !graphics_api
        {
            return Some(last);
        }
        // `ndarray::NdArrayDevice` after `use burn::backend::ndarray;`
        let first = &names[0];
        self.files.get(file)?.backend_names.get(first).map(|_| last)
    }

    /// Whether a path starting with `first` may name something in file `file`: an item the
    /// file defines or imports, anything through a glob import of the project's, or a path
    /// from `crate`, `self` or `super`.
    pub fn may_name_in_file(&self, file: usize, first: &str) -> bool {
        let Some(names) = self.files.get(file) else {
            return false;
        };
        matches!(first, "crate" | "self" | "super")
            || names.local_items.contains(first)
            || names.other_imports.contains(first)
            || names.other_glob
    }

    /// How file `file` names Burn's crates (plain names for a file the index does not hold).
    pub fn crate_names(&self, file: usize) -> &CrateNames {
        static PLAIN: std::sync::LazyLock<CrateNames> = std::sync::LazyLock::new(Default::default);
        self.files.get(file).map_or(&PLAIN, |f| &f.crates)
    }

    /// The device-table entry of a device type name (`NdArrayDevice`, `WgpuDevice`, ...).
    /// Several backends share a device type (`WgpuDevice` serves `Wgpu`, `Vulkan`, `Metal`,
    /// `WebGpu`); without other context the one it is named after wins.
    pub fn backend_of_device_type(&self, name: &str) -> Option<BackendKey> {
        let serves = |b: &Backend| b.device_types.iter().any(|t| t == name);
        let named_after = |b: &Backend| b.types.iter().any(|t| format!("{t}Device") == name);
        self.backends
            .find_key(|b| serves(b) && named_after(b))
            .or_else(|| self.backends.find_key(serves))
    }
}

/// Whether a module path (`burn::backend`, `burn::backend::wgpu`, `burn_ndarray`) is one of
/// Burn's backend modules; `crates` are the backend crates (`Index::backend_crates`).
pub fn is_backend_module_path(names: &[String], crates: &[String]) -> bool {
    match names {
        [] => false,
        [first, rest @ ..] if first == "burn" => rest.first().is_some_and(|s| s == "backend"),
        [first, ..] => crates.contains(first),
    }
}

/// The names of the type aliases whose every definition is a float element type, by its last
/// name (`f16`, `burn::tensor::bf16`, `half::f16`).
fn element_aliases<F: Borrow<SourceFile>>(files: &[F], items: &FileItems) -> HashSet<String> {
    let mut all_float: HashMap<String, bool> = HashMap::new();
    for (_, alias) in items.of::<ast::TypeAlias>() {
        let Some(name) = alias.name() else { continue };
        let float = alias.generic_param_list().is_none()
            && (alias.ty().as_ref())
                .and_then(|ty| match ty {
                    ast::Type::PathType(path) => path.path()?.segment(),
                    _ => None,
                })
                .is_some_and(|last| {
                    last.generic_arg_list().is_none()
                        && crate::rules::backends::is_float_element(&segment_name(&last))
                });
        *all_float.entry(name.text().to_string()).or_insert(true) &= float;
    }
    for file in files {
        for (name, float) in cfg_if_type_aliases(file.borrow().tree().syntax()) {
            *all_float.entry(name).or_insert(true) &= float;
        }
    }
    (all_float.into_iter())
        .filter_map(|(name, float)| float.then_some(name))
        .collect()
}

/// The type aliases `cfg_if!` (or `cfg_select!`) bodies define, which the parser leaves as
/// tokens: each `type Name = path::to::Type;` by name, with whether it names a float element
/// (`type ElemType = burn::tensor::f16;`). The macro expands to the items of the branch its
/// `cfg` selects, so each is a definition of the alias.
fn cfg_if_type_aliases(root: &SyntaxNode) -> Vec<(String, bool)> {
    use ra_ap_syntax::SyntaxKind::{EQ, IDENT, SEMICOLON, TYPE_KW};
    let mut out = Vec::new();
    for call in root.descendants().filter_map(ast::MacroCall::cast) {
        let named = (call.path())
            .and_then(|p| p.segment())
            .map(|s| segment_name(&s));
        if !matches!(named.as_deref(), Some("cfg_if" | "cfg_select")) {
            continue;
        }
        let Some(body) = call.token_tree() else {
            continue;
        };
        let tokens: Vec<ra_ap_syntax::SyntaxToken> = (body.syntax().descendants_with_tokens())
            .filter_map(|element| element.into_token())
            .filter(|token| !token.kind().is_trivia())
            .collect();
        for (at, token) in tokens.iter().enumerate() {
            if token.kind() != TYPE_KW {
                continue;
            }
            let (Some(name), Some(eq)) = (tokens.get(at + 1), tokens.get(at + 2)) else {
                continue;
            };
            if name.kind() != IDENT || eq.kind() != EQ {
                continue;
            }
            let Some(end) = (tokens[at + 3..].iter()).position(|t| t.kind() == SEMICOLON) else {
                continue;
            };
            let target = &tokens[at + 3..at + 3 + end];
            // A plain path: names and `::` only, no generic arguments.
            let plain = target
                .iter()
                .all(|t| t.kind() == IDENT || t.text() == ":" || t.text() == "::");
            let last = target.last().filter(|t| t.kind() == IDENT);
            let float =
                plain && last.is_some_and(|t| crate::rules::backends::is_float_element(t.text()));
            out.push((name.text().to_string(), float));
        }
    }
    out
}

/// The trait paths of a bound list (`Backend + Clone` -> [`Backend`, `Clone`]).
pub fn bound_paths(list: Option<ast::TypeBoundList>) -> Vec<ast::Path> {
    let Some(list) = list else { return Vec::new() };
    list.bounds()
        .filter_map(|b| match b.ty()? {
            ast::Type::PathType(p) => p.path(),
            _ => None,
        })
        .collect()
}

/// The attribute's backend names from the impls' (backend, cfg) pairs: a backend one impl
/// always compiles is unconditional; one only `cfg`-gated impls give is gated on any of
/// their predicates.
fn selectors_with_cfg(
    implemented: Vec<(&'static str, Option<String>)>,
) -> BTreeMap<&'static str, Option<String>> {
    let mut gates: BTreeMap<&'static str, Option<Vec<String>>> = BTreeMap::new();
    for (selector, cfg) in implemented {
        let entry = gates.entry(selector).or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), cfg) {
            (Some(predicates), Some(cfg)) => {
                if !predicates.contains(&cfg) {
                    predicates.push(cfg);
                }
            }
            _ => *entry = None,
        }
    }
    (gates.into_iter())
        .map(|(selector, predicates)| {
            let gate = predicates.map(|mut p| match p.len() {
                1 => p.remove(0),
                _ => format!("any({})", p.join(", ")),
            });
            (selector, gate)
        })
        .collect()
}

/// Whether `param` is a tensor primitive of the backend (`FloatTensor<Self>`, `IntTensor<Self>`,
/// ..): the routing input `#[backend_extension]` picks the backend from.
fn takes_a_primitive(param: &ast::Param) -> bool {
    let Some(ty) = param.ty() else {
        return false;
    };
    ["FloatTensor", "IntTensor", "BoolTensor", "QuantizedTensor"]
        .iter()
        .any(|alias| {
            single_type_argument(&ty, alias).is_some_and(|arg| arg.syntax().text() == "Self")
        })
}

/// A trait's supertraits: its bound list and the `where Self: ..` predicates.
pub fn supertrait_paths(tr: &ast::Trait) -> Vec<ast::Path> {
    let mut supers = bound_paths(tr.type_bound_list());
    for pred in tr.where_clause().iter().flat_map(|w| w.predicates()) {
        if pred.ty().is_some_and(|t| t.syntax().text() == "Self") {
            supers.extend(bound_paths(pred.type_bound_list()));
        }
    }
    supers
}

/// A marker trait's supertraits, when all its bounds are plain trait paths (no lifetimes,
/// `?Sized`, `for<..>`) and its `where` clause bounds only `Self`.
fn marker_supertraits(tr: &ast::Trait) -> Option<Vec<ast::Path>> {
    let mut lists: Vec<ast::TypeBoundList> = tr.type_bound_list().into_iter().collect();
    for pred in tr.where_clause().iter().flat_map(|w| w.predicates()) {
        let on_self = pred.ty().is_some_and(|t| t.syntax().text() == "Self");
        if !on_self || pred.for_binder().is_some() {
            return None;
        }
        lists.extend(pred.type_bound_list());
    }
    let mut supers = Vec::new();
    for bound in lists.iter().flat_map(|l| l.bounds()) {
        let plain = bound.question_mark_token().is_none()
            && bound.for_binder().is_none()
            && bound.lifetime().is_none();
        match bound.ty() {
            Some(ast::Type::PathType(p)) if plain => supers.push(p.path()?),
            _ => return None,
        }
    }
    (!supers.is_empty()).then_some(supers)
}

/// Where a marker trait's name occurs.
enum MarkerMention {
    /// In a bound (`B: MyBackend`, `where B: MyBackend`, a supertrait), or as the trait of
    /// a qualified path (`<B as MyBackend>::Device`).
    Bound,
    /// In a `use` item.
    Import,
    /// As the trait an impl implements.
    Impl(ast::Impl),
    Other,
}

/// The name references of `source` (whose tree is at `root`) spelled one of `names`, each with
/// its name's position in `names`, as a walk over every reference finds them. Found where the
/// text spells the names, as whole words: the token of a reference spelled so starts there
/// (the character before it ends no word). Not so for a name that is not all word characters
/// (`r#Name`), or that ends in `_`: the tree opens `println!(..)` as `println_(..)`
/// (`source::open_expression_macros`), a reference the text does not spell; those names take
/// a walk.
fn marker_name_refs(
    source: &SourceFile,
    root: &SyntaxNode,
    names: &[String],
) -> Vec<(usize, ast::NameRef)> {
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    let searchable = |n: &String| !n.is_empty() && n.chars().all(in_word) && !n.ends_with('_');
    let mut out = Vec::new();
    if !names.iter().all(searchable) {
        out.extend(
            (root.descendants().filter_map(ast::NameRef::cast)).filter_map(|r| {
                let i = names.iter().position(|n| r.text() == n.as_str())?;
                (!searchable(&names[i])).then_some((i, r))
            }),
        );
    }
    for (i, name) in names.iter().enumerate().filter(|(_, n)| searchable(n)) {
        for at in crate::util::syntax::word_offsets(&source.text, name) {
            let Ok(at) = ra_ap_syntax::TextSize::try_from(at) else {
                continue;
            };
            let name_ref = (root.token_at_offset(at).right_biased())
                .and_then(|token| token.parent())
                .and_then(ast::NameRef::cast)
                .filter(|r| r.text() == name.as_str());
            out.extend(name_ref.map(|r| (i, r)));
        }
    }
    out
}

fn marker_mention(name_ref: &ast::NameRef) -> MarkerMention {
    let Some(path) = name_ref
        .syntax()
        .ancestors()
        .skip_while(|n| !ast::Path::can_cast(n.kind()))
        .map_while(ast::Path::cast)
        .last()
    else {
        return MarkerMention::Other;
    };
    let Some(parent) = path.syntax().parent() else {
        return MarkerMention::Other;
    };
    if ast::UseTree::can_cast(parent.kind()) {
        return MarkerMention::Import;
    }
    let Some(path_type) = ast::PathType::cast(parent) else {
        return MarkerMention::Other;
    };
    let Some(holder) = path_type.syntax().parent() else {
        return MarkerMention::Other;
    };
    // `<B as Marker>::Device` names it like a bound: the rules that port `<B as
    // Backend>::..` rewrite the whole path.
    if ast::TypeBound::can_cast(holder.kind()) || ast::TypeAnchor::can_cast(holder.kind()) {
        return MarkerMention::Bound;
    }
    match ast::Impl::cast(holder) {
        Some(imp)
            if imp
                .trait_()
                .is_some_and(|t| t.syntax() == path_type.syntax()) =>
        {
            MarkerMention::Impl(imp)
        }
        _ => MarkerMention::Other,
    }
}

fn item_name(node: &SyntaxNode) -> Option<String> {
    if let Some(imp) = ast::Impl::cast(node.clone()) {
        // Impls have no name; they matter only for their scope, not as callees.
        let _ = imp;
        return None;
    }
    let named = ast::AnyHasName::cast(node.clone())?;
    Some(named.name()?.text().to_string())
}

/// Keeps under `key` the positions every function seen under it so far has.
fn keep_common<K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, Vec<usize>>,
    key: K,
    positions: &[usize],
) {
    map.entry(key)
        .and_modify(|common| common.retain(|p| positions.contains(p)))
        .or_insert_with(|| positions.to_vec());
}

/// The type a function's `impl` block is for (`impl<B> Model<B> { fn new(..) }`: `Model`);
/// `None` for a free function or a trait's.
/// An impl's self type's name and its non-lifetime generic arguments, each when a single
/// name: `impl<B: Backend> X for Wrap<B, u8>` gives `("Wrap", [Some("B"), Some("u8")])`.
fn self_type_args(imp: &ast::Impl) -> Option<(String, Vec<Option<String>>)> {
    let ast::Type::PathType(ty) = imp.self_ty()? else {
        return None;
    };
    let segment = ty.path()?.segment()?;
    let args = argument_names(&segment.generic_arg_list()?);
    Some((segment.name_ref()?.text().to_string(), args))
}

/// Each non-lifetime argument of a generic argument list, by its name when it is a single
/// name (`B` in `Model<B, 2>`; `None` for `2`).
fn argument_names(list: &ast::GenericArgList) -> Vec<Option<String>> {
    list.generic_args()
        .filter(|a| !matches!(a, ast::GenericArg::LifetimeArg(_)))
        .map(|a| match a {
            ast::GenericArg::TypeArg(t) => t.ty().as_ref().and_then(type_as_ident),
            _ => None,
        })
        .collect()
}

/// Whether the struct's or enum's fields mention the parameter `name` only inside
/// `PhantomData<..>`, or not at all: it marks the type and holds nothing.
fn marks_only(adt: &ast::Adt, name: &str) -> bool {
    let field_lists: Vec<ast::FieldList> = match adt {
        ast::Adt::Struct(s) => s.field_list().into_iter().collect(),
        ast::Adt::Enum(e) => (e.variant_list().into_iter())
            .flat_map(|list| list.variants())
            .filter_map(|v| v.field_list())
            .collect(),
        ast::Adt::Union(u) => u
            .record_field_list()
            .map(ast::FieldList::RecordFieldList)
            .into_iter()
            .collect(),
    };
    let types = field_lists.into_iter().flat_map(|list| match list {
        ast::FieldList::RecordFieldList(fields) => {
            fields.fields().filter_map(|f| f.ty()).collect::<Vec<_>>()
        }
        ast::FieldList::TupleFieldList(fields) => fields.fields().filter_map(|f| f.ty()).collect(),
    });
    types
        .filter(|ty| single_type_argument(ty, "PhantomData").is_none())
        .all(|ty| !mentions_ident(ty.syntax(), name))
}

fn impl_self_type_name(function: &SyntaxNode) -> Option<String> {
    let imp = function
        .parent()
        .filter(|p| ast::AssocItemList::can_cast(p.kind()))?
        .parent()
        .and_then(ast::Impl::cast)?;
    let ast::Type::PathType(ty) = imp.self_ty()? else {
        return None;
    };
    segment_names(&ty.path()?).pop()
}

/// For each of a function's parameters, the name whose device its type is
/// (`device_type_owner`): the parameter is a device parameter where that name is a backend.
fn param_device_owners(function: &ast::Fn) -> Vec<Option<String>> {
    let Some(list) = function.param_list() else {
        return Vec::new();
    };
    list.params()
        .map(|p| p.ty().as_ref().and_then(device_type_owner))
        .collect()
}

fn is_backend_name(name: Option<&str>, backends: &[BackendParam]) -> bool {
    name.is_some_and(|n| backends.iter().any(|b| b.name == n))
}

/// `B::Device`, `&B::Device`, `<B as Backend>::Device`, `Device<B>` for a backend `B`.
pub fn is_backend_device_type(ty: &ast::Type, backends: &[BackendParam]) -> bool {
    is_backend_name(device_type_owner(ty).as_deref(), backends)
}

/// The single name `N` in `N::Device`, `&N::Device`, `<N as ..>::Device` or `Device<N>`.
fn device_type_owner(ty: &ast::Type) -> Option<String> {
    let ty = match ty {
        ast::Type::RefType(r) => r.ty()?,
        other => other.clone(),
    };
    let ast::Type::PathType(path_type) = ty else {
        return None;
    };
    device_path_owner(&path_type.path()?)
}

/// Whether a path is `B::Device`, `<B as Backend>::Device` or `Device<B>` for a backend `B`.
pub fn backend_device_path(path: &ast::Path, backends: &[BackendParam]) -> bool {
    is_backend_name(device_path_owner(path).as_deref(), backends)
}

/// The single name `N` in `N::Device`, `<N as ..>::Device` or `Device<N>`.
fn device_path_owner(path: &ast::Path) -> Option<String> {
    let segment = path.segment()?;
    if segment.name_ref()?.text() != "Device" {
        return None;
    }
    if let Some(qualifier) = path.qualifier() {
        if qualifier.qualifier().is_none() {
            if let Some(anchor) = qualifier.segment().and_then(|s| s.type_anchor()) {
                return anchor.ty().as_ref().and_then(type_as_ident);
            }
        }
        return path_as_ident(&qualifier);
    }
    match segment.generic_arg_list()?.generic_args().next()? {
        ast::GenericArg::TypeArg(t) => t.ty().as_ref().and_then(type_as_ident),
        _ => None,
    }
}

fn phantom_fields(fields: Option<ast::FieldList>, backends: &[BackendParam]) -> Vec<String> {
    let Some(ast::FieldList::RecordFieldList(fields)) = fields else {
        return Vec::new();
    };
    fields
        .fields()
        .filter(|f| f.ty().is_some_and(|t| is_phantom_of_backend(&t, backends)))
        .filter_map(|f| Some(f.name()?.text().to_string()))
        .collect()
}

/// A `PhantomData<..>` field (any path ending in `PhantomData`) that marks only backend
/// parameters: `PhantomData<B>`, `PhantomData<fn() -> B>`, `PhantomData<*const B>`,
/// `PhantomData<Box<B>>`. It mentions a backend `B` and no other generic parameter (or
/// lifetime) of the items around it, so with the backend gone it marks nothing: it goes.
pub fn is_phantom_of_backend(ty: &ast::Type, backends: &[BackendParam]) -> bool {
    single_type_argument(ty, "PhantomData").is_some_and(|arg| marks_only_backends(&arg, backends))
}

/// The elements of a `PhantomData<(B, T)>` tuple that mark only backend parameters, when
/// others stay: the port drops those elements and keeps the field.
pub fn phantom_backend_tuple_elements(ty: &ast::Type, backends: &[BackendParam]) -> Vec<ast::Type> {
    let Some(ast::Type::TupleType(tuple)) = single_type_argument(ty, "PhantomData") else {
        return Vec::new();
    };
    let elements: Vec<ast::Type> = tuple.fields().collect();
    let backend_only: Vec<ast::Type> = elements
        .iter()
        .filter(|t| marks_only_backends(t, backends))
        .cloned()
        .collect();
    if backend_only.len() == elements.len() {
        // All of it goes: `is_phantom_of_backend` removes the field.
        return Vec::new();
    }
    backend_only
}

/// Whether `ty` names a backend parameter and no other generic parameter or lifetime of the
/// items around it (so it means nothing once the backend parameters are gone).
fn marks_only_backends(ty: &ast::Type, backends: &[BackendParam]) -> bool {
    let others: Vec<String> = ty
        .syntax()
        .ancestors()
        .filter_map(ast::AnyHasGenericParams::cast)
        .filter_map(|owner| owner.generic_param_list())
        .flat_map(|list| list.generic_params())
        .filter_map(|p| match p {
            ast::GenericParam::TypeParam(t) => Some(t.name()?.text().to_string()),
            ast::GenericParam::ConstParam(c) => Some(c.name()?.text().to_string()),
            ast::GenericParam::LifetimeParam(_) => None,
        })
        .filter(|n| !backends.iter().any(|b| &b.name == n))
        .collect();
    if ty
        .syntax()
        .descendants()
        .filter_map(ast::Lifetime::cast)
        .any(|l| l.text() != "'static")
    {
        return false;
    }
    let mut any_backend = false;
    for path in ty.syntax().descendants().filter_map(ast::Path::cast) {
        if path.qualifier().is_some() {
            continue;
        }
        let Some(name) = path.segment().and_then(|s| s.name_ref()) else {
            continue;
        };
        let name = name.text();
        if backends.iter().any(|b| b.name == *name) {
            any_backend = true;
        } else if others.iter().any(|o| *o == *name) {
            return false;
        }
    }
    any_backend
}

/// Collects what a file imports, and the names of the items it defines.
/// What a file imports and defines, and the ranges of its items that can have generic
/// parameters (in preorder), from one walk of its tree.
fn file_facts(
    root: &SyntaxNode,
    crates: &[String],
    crate_names: CrateNames,
) -> (FileNames, Vec<TextRange>) {
    let mut names = FileNames {
        crates: crate_names,
        ..FileNames::default()
    };
    let mut generic_items = Vec::new();
    let wanted = |kind| {
        ast::Use::can_cast(kind)
            || ast::Const::can_cast(kind)
            || ast::AnyHasGenericParams::can_cast(kind)
            || ast::Adt::can_cast(kind)
            || ast::Trait::can_cast(kind)
            || ast::TypeAlias::can_cast(kind)
    };
    for node in crate::util::kinds_walk::descendants_of_kinds(root, wanted) {
        let kind = node.kind();
        if let Some(use_item) = ast::Use::cast(node.clone()) {
            if let Some(tree) = use_item.use_tree() {
                let public = ast::HasVisibility::visibility(&use_item).is_some();
                let imported_before: HashSet<String> = if public {
                    names.burn_imports.keys().cloned().collect()
                } else {
                    HashSet::new()
                };
                collect_use_tree(&tree, &mut Vec::new(), &mut names, crates);
                if public {
                    let added: Vec<String> = (names.burn_imports.keys())
                        .filter(|name| !imported_before.contains(*name))
                        .cloned()
                        .collect();
                    names.burn_reexports.extend(added);
                }
            }
            continue;
        }
        if let Some(name) = ast::Const::cast(node.clone()).and_then(|c| c.name()) {
            names.consts.insert(name.text().to_string());
        }
        if ast::AnyHasGenericParams::can_cast(kind) {
            generic_items.push(node.text_range());
        }
        let defines_a_name = ast::Adt::can_cast(kind)
            || ast::Trait::can_cast(kind)
            || ast::TypeAlias::can_cast(kind);
        // Associated types (`type Device;` in a trait) are not items of the module.
        let associated = node
            .parent()
            .is_some_and(|p| ast::AssocItemList::can_cast(p.kind()));
        if defines_a_name && !associated {
            if let Some(name) = ast::AnyHasName::cast(node).and_then(|n| n.name()) {
                names.local_items.insert(name.text().to_string());
            }
        }
    }
    (names, generic_items)
}

/// The primitive types that are `Element`s in Burn 0.22 (burn-std 0.22.1 `element/base.rs`'s
/// `make_element!` list), by the name `ToElement` converts to them with (`to_f64`).
/// (`bool` left out: `to_bool` is `ToElement`'s own test for zero, not a read of an element.)
pub const SCALAR_ELEMENTS: [&str; 10] = [
    "f64", "f32", "i64", "u64", "i32", "u32", "i16", "u16", "i8", "u8",
];

/// `LazyLock::new(..)` (or `once_cell`'s `Lazy::new(..)`): a value whose `&*` is what it holds.
fn is_lazy_value(value: &ast::Expr) -> bool {
    let ast::Expr::CallExpr(call) = value else {
        return false;
    };
    let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
        return false;
    };
    let names = callee.path().map(|p| segment_names(&p)).unwrap_or_default();
    matches!(names.as_slice(), [.., ty, new] if new == "new" && (ty == "LazyLock" || ty == "Lazy"))
}

/// The names among `consts` that `text` uses by value. Read from the text, not the tree, so
/// the index walks no expressions: an identifier counts as a use by reference when `&` comes
/// before it (past a path's qualifiers: `&crate::backends::DEVICE`) or `.` after it; its
/// definition (`const`, `static`) and a single-path `use` are no uses. Anything else counts,
/// a mention in a comment or string too: the answer errs towards "by value".
fn consts_used_by_value(text: &str, consts: &HashSet<&str>) -> Vec<String> {
    let bytes = text.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_ident(bytes[at]) || (at > 0 && is_ident(bytes[at - 1])) {
            at += 1;
            continue;
        }
        let end = (at..bytes.len())
            .find(|&i| !is_ident(bytes[i]))
            .unwrap_or(bytes.len());
        let word = &text[at..end];
        if consts.contains(word) && !found.iter().any(|f| f == word) && !by_reference(text, at, end)
        {
            found.push(word.to_string());
        }
        at = end;
    }
    found
}

/// Whether the identifier at `start..end` of `text` is used by reference, defined, or
/// imported (see `consts_used_by_value`).
fn by_reference(text: &str, start: usize, end: usize) -> bool {
    let after = text[end..].trim_start();
    if after.starts_with('.') && !after.starts_with("..") {
        return true;
    }
    // Back over the path's qualifiers (`crate::backends::`), then read what precedes it.
    let mut before = text[..start].trim_end();
    while let Some(qualifier) = before.strip_suffix("::") {
        let qualifier = qualifier.trim_end();
        let word_start = qualifier
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        before = qualifier[..word_start].trim_end();
    }
    let previous_word = (before.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .next()
        .unwrap_or("");
    before.ends_with('&') || matches!(previous_word, "const" | "static" | "use")
}

fn collect_use_tree(
    tree: &ast::UseTree,
    prefix: &mut Vec<String>,
    names: &mut FileNames,
    crates: &[String],
) {
    let depth = prefix.len();
    if let Some(path) = tree.path() {
        prefix.extend(segment_names(&path));
        if depth == 0 {
            // Read as Burn's paths: `use nn::tensor::Tensor` imports Burn's `Tensor`.
            if let Some(krate) = prefix.first().and_then(|f| names.crates.renamed_crate(f)) {
                prefix[0] = krate;
            }
        }
    }
    match tree.use_tree_list() {
        Some(list) => {
            for child in list.use_trees() {
                collect_use_tree(&child, prefix, names, crates);
            }
        }
        None if tree.star_token().is_none() => {
            if let Some((last, module)) = prefix.split_last() {
                // `use burn::tensor::backend::{self, ..}` imports the module `backend`.
                let imported = match (last.as_str(), module.last()) {
                    ("self", Some(parent)) => parent,
                    _ => last,
                };
                let local = tree
                    .rename()
                    .and_then(|r| r.name())
                    .map(|n| n.text().to_string())
                    .unwrap_or_else(|| imported.clone());
                if prefix
                    .first()
                    .is_some_and(|first| names.crates.is_burn_crate(first))
                {
                    names.burn_imports.insert(local, imported.clone());
                } else {
                    names.other_imports.insert(local);
                }
                let module_is_backend = is_backend_module_path(module, crates);
                let is_backend_module = is_backend_module_path(prefix, crates);
                if module_is_backend || is_backend_module {
                    let local = tree
                        .rename()
                        .and_then(|r| r.name())
                        .map(|n| n.text().to_string())
                        .unwrap_or_else(|| last.clone());
                    names.backend_names.insert(local, last.clone());
                }
            }
        }
        None => {
            if prefix
                .first()
                .is_some_and(|first| names.crates.is_burn_crate(first))
            {
                names.burn_glob = true;
            } else if project_glob(prefix) {
                names.other_glob = true;
            }
        }
    }
    prefix.truncate(depth);
}

/// Whether a glob imports from the project's own modules (`use super::*`,
/// `use crate::prelude::*`, `use model::*`), through which names the workspace imports from
/// Burn may come. Another crate's prelude (`use cubecl::prelude::*`) brings its own `Tensor`,
/// not Burn's.
fn project_glob(prefix: &[String]) -> bool {
    match prefix {
        [first, ..] if ["crate", "self", "super"].contains(&first.as_str()) => true,
        // `use model::*`: a module of this crate in 2018+ paths (a crate root glob is rare).
        [_] => true,
        _ => false,
    }
}

/// Whether a struct or enum has `#[derive(.., Module, ..)]`.
pub fn derives_module(adt: &ast::Adt) -> bool {
    use ra_ap_syntax::ast::HasAttrs;
    adt.attrs().any(|attr| {
        let Some(meta) = attr.meta() else {
            return false;
        };
        meta.path().is_some_and(|p| p.syntax().text() == "derive")
            && matches!(&meta, ast::Meta::TokenTreeMeta(m) if m.token_tree().is_some_and(|tt| {
                tt.syntax()
                    .text()
                    .to_string()
                    .trim_matches(['(', ')'])
                    .split(',')
                    .any(|n| n.trim() == "Module" || n.trim().ends_with("::Module"))
            }))
    })
}

/// The names `text` writes right before `::<` (`train::<B, O>`, `Vec::<u8>`), read from the
/// text: generic arguments written that way name the item's parameters by position.
fn turbofish_names(text: &str) -> Vec<String> {
    crate::util::syntax::find_all(text, "::<")
        .filter_map(|at| {
            let before = &text[..at];
            let start = (before.char_indices().rev())
                .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
                .map_or(0, |(i, c)| i + c.len_utf8());
            let name = &before[start..];
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Per file, how it names Burn's crates: its package's dependency keys, the `extern crate`
/// aliases of its package's files (a crate root's are the whole crate's) and its own.
fn crate_names<F: Borrow<SourceFile> + Sync>(files: &[F]) -> Vec<CrateNames> {
    let declared: Vec<DeclaredAliases> = files
        .par_iter()
        .map(Borrow::borrow)
        .map(|f| match DeclaredAliases::may_declare(&f.text) {
            true => DeclaredAliases::of(&f.tree(), &f.text),
            false => DeclaredAliases::default(),
        })
        .collect();
    let mut crate_wide: HashMap<usize, Vec<(String, String)>> = HashMap::new();
    for (file, aliases) in files.iter().map(Borrow::borrow).zip(&declared) {
        (crate_wide.entry(file.package).or_default()).extend(aliases.extern_crates.iter().cloned());
    }
    (files.iter().map(Borrow::borrow).zip(&declared))
        .map(|(file, own)| {
            let wide = crate_wide.get(&file.package).map_or(&[][..], Vec::as_slice);
            CrateNames::new(file.dependency_names.clone(), wide, own, &file.text)
        })
        .collect()
}

/// The type alias `name` that a block around `node` defines (`fn f() { type B = Flex; .. }`),
/// innermost first: items of a block are visible in all of it, and hide the file's items of
/// that name. An alias is not its own scope (`type B = B;` names an outer `B`).
fn block_alias_in_scope(node: &SyntaxNode, name: &str) -> Option<ast::TypeAlias> {
    let at = node.text_range();
    node.ancestors()
        .filter_map(ast::StmtList::cast)
        .find_map(|block| {
            block.statements().find_map(|statement| match statement {
                ast::Stmt::Item(ast::Item::TypeAlias(alias))
                    if alias.name().is_some_and(|n| n.text() == name)
                        && !alias.syntax().text_range().contains_range(at) =>
                {
                    Some(alias)
                }
                _ => None,
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turbofish_names_are_the_words_before_generic_arguments() {
        let text = "train::<B, O>(x);\nlet v = Vec::<u8>::new();\nlet é = größe::<f32>();\n::<T>";
        assert_eq!(turbofish_names(text), ["train", "Vec", "größe"]);
    }

    /// The references `marker_name_refs` finds from the text are those a walk over every
    /// name reference finds: on every source file of the test projects, for the names of
    /// every trait, type and function they reference (the opened macro calls' `println_` among
    /// them), for `println` and `assert_eq`, and for one no file spells.
    #[test]
    fn marker_name_refs_from_the_text_are_the_walks() {
        let projects = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/projects");
        let mut compared = 0;
        for path in crate::util::files::rust_files(projects.as_ref(), true) {
            let text = std::fs::read_to_string(&path).unwrap();
            let file = SourceFile::from_text(
                path.clone(),
                "src/lib.rs".into(),
                text,
                0,
                ra_ap_syntax::Edition::Edition2021,
            );
            let root = file.tree().syntax().clone();
            let mut names: Vec<String> = (root.descendants().filter_map(ast::NameRef::cast))
                .map(|r| r.text().to_string())
                .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .collect();
            names.sort();
            names.dedup();
            // One no file spells; macro names the tree opens (`println_`) and as written.
            names.extend(["NoFileSpellsThis", "println", "assert_eq"].map(String::from));
            let key = |found: Vec<(usize, ast::NameRef)>| {
                let mut keys: Vec<(usize, TextRange)> = (found.into_iter())
                    .map(|(i, r)| (i, r.syntax().text_range()))
                    .collect();
                keys.sort_by_key(|(i, range)| (*i, range.start()));
                keys
            };
            let walked = (root.descendants().filter_map(ast::NameRef::cast))
                .filter_map(|r| Some((names.iter().position(|n| r.text() == n.as_str())?, r)))
                .collect();
            let searched = marker_name_refs(&file, &root, &names);
            assert_eq!(key(searched), key(walked), "{}", path.display());
            compared += 1;
        }
        assert!(compared > 50, "{compared} files");
    }
}
