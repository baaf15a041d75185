//! What a transform sees of one file (`FileCtx`) and the helpers several transforms share.
//! Transforms import this module, never `transforms/mod.rs`, which imports them.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use ra_ap_syntax::ast::{self, HasGenericArgs, HasGenericParams, HasName};
use ra_ap_syntax::{AstNode, SyntaxKind, SyntaxNode, TextRange};

use crate::edit::Change;
use crate::migrate::crate_names::CrateNames;
use crate::migrate::index::{BackendParam, BackendSpec, Index};
use crate::migrate::source::{CodeTarget, SourceFile};
use crate::rules::backends::ElementDTypes;
use crate::rules::device_expr::{DeviceExpr, FloatElement};
use crate::rules::{RuleKey, RuleSet};
use crate::util::kinds_walk::descendants_of_kinds;

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
    /// What the code is written for (Burn 0.22 already: only regressions are reported).
    /// Read through `targets_0_22()`, which notes that it was asked.
    target: CodeTarget,
    /// Whether the text is the file as read, not a later pass's partly ported text. Read
    /// through `is_first_pass()`, which notes that it was asked as `targets_0_22()` does.
    first_pass: bool,
    /// Whether `targets_0_22()` or `is_first_pass()` was asked since `take_asked_target`: a
    /// step that did not ask leaves the same output whatever the answers
    /// (`transforms::Reusable`).
    asked_target: std::cell::Cell<bool>,
    pub changes: Vec<Change>,
    /// Burn items the edits so far name by their last segment, as full paths
    /// (`burn::tensor::Device`): `device_import` imports them where they are missing.
    pub needed_imports: BTreeSet<String>,
    pub device_choices: Vec<DeviceChoice>,
    /// Code a person ports as a whole (a backend extension trait and its impls): the port
    /// makes no edit inside, whichever rule proposes it; findings there stay.
    pub hands_off: Vec<TextRange>,
    scope_cache: RefCell<HashMap<TextRange, Vec<BackendParam>>>,
    type_param_names: std::cell::OnceCell<HashSet<String>>,
    /// The file's syntax tree, rooted once for every transform (a root is per thread).
    root: SyntaxNode,
    /// The tree's nodes of the kinds transforms look for (`is_listed`) in preorder, collected
    /// by one walk of the green tree (`descendants_of_kinds`): transforms filter this list
    /// instead of walking the tree each (a walk allocates a cursor per node, which was most of
    /// the rewrite stage's time). Only those kinds, so that a large file's list stays small;
    /// without paths where `paths_listed` is false (`listing`).
    nodes: Rc<[SyntaxNode]>,
    paths_listed: bool,
    /// Every listed kind, paths too, for a context made without paths whose steps asked for
    /// them after all.
    with_paths: std::cell::OnceCell<Rc<[SyntaxNode]>>,
}

impl<'a> FileCtx<'a> {
    pub fn new(
        index: &'a Index,
        rules: &'a RuleSet,
        file_id: usize,
        file: &'a SourceFile,
        target: CodeTarget,
    ) -> Self {
        Self::listing(index, rules, file_id, file, target, true)
    }

    /// A context whose node list holds paths (`is_path_kind`) only if `paths_listed`: a
    /// context for steps that do not read them (`Transform::reads_paths`) need not list
    /// them. Paths are three in four listed nodes, and each listed node keeps a cursor alive,
    /// so a second context over a large file costs a quarter of the first. Paths asked for
    /// all the same are listed then.
    pub fn listing(
        index: &'a Index,
        rules: &'a RuleSet,
        file_id: usize,
        file: &'a SourceFile,
        target: CodeTarget,
        paths_listed: bool,
    ) -> Self {
        let root = file.tree().syntax().clone();
        let listed = |kind| is_listed(kind) && (paths_listed || !is_path_kind(kind));
        FileCtx {
            index,
            rules,
            file_id,
            file,
            target,
            first_pass: true,
            asked_target: std::cell::Cell::new(false),
            changes: Vec::new(),
            needed_imports: BTreeSet::new(),
            device_choices: Vec::new(),
            hands_off: Vec::new(),
            scope_cache: RefCell::new(HashMap::new()),
            type_param_names: std::cell::OnceCell::new(),
            nodes: descendants_of_kinds(&root, listed).into(),
            paths_listed,
            with_paths: std::cell::OnceCell::new(),
            root,
        }
    }

    /// The node list, with paths where `paths` asks for them.
    fn node_list(&self, paths: bool) -> Rc<[SyntaxNode]> {
        if self.paths_listed || !paths {
            return Rc::clone(&self.nodes);
        }
        let all = self
            .with_paths
            .get_or_init(|| descendants_of_kinds(&self.root, is_listed).into());
        Rc::clone(all)
    }

    /// Whether this context listed paths, from the start or when asked.
    #[cfg(test)]
    pub fn has_path_list(&self) -> bool {
        self.paths_listed || self.with_paths.get().is_some()
    }

    /// True when the code already targets Burn 0.22: only regressions are reported.
    pub fn targets_0_22(&self) -> bool {
        self.asked_target.set(true);
        self.target == CodeTarget::Burn022
    }

    /// True when the text is the file as read (the first pass, and every context outside the
    /// rewrite loop). A step that judges what 0.21 meant from the text (a field's type naming
    /// `B`) asks it: a later pass reads that text already ported.
    pub fn is_first_pass(&self) -> bool {
        self.asked_target.set(true);
        self.first_pass
    }

    /// `is_first_pass` without noting that it was asked (for a context of the same file on
    /// another thread, whose steps ask it themselves).
    pub fn first_pass(&self) -> bool {
        self.first_pass
    }

    /// This context for the rewrite loop's first pass, or a later one (`is_first_pass`).
    pub fn in_first_pass(mut self, first: bool) -> Self {
        self.first_pass = first;
        self
    }

    /// What the code is written for, without noting that it was asked (for a context of
    /// the same file on another thread, which runs steps that ask it themselves).
    pub fn target(&self) -> CodeTarget {
        self.target
    }

    /// Whether `targets_0_22()` was asked since the last call.
    pub fn take_asked_target(&self) -> bool {
        self.asked_target.replace(false)
    }

    pub fn root(&self) -> SyntaxNode {
        self.root.clone()
    }

    /// The file's nodes of type `N`, in the order `root().descendants()` gives them. The
    /// iterator does not borrow the context, so a loop over it can push changes. `N` must be
    /// one of the listed kinds (`is_listed`).
    pub fn nodes<N: AstNode>(&self) -> impl Iterator<Item = N> {
        debug_assert!(
            (0..SyntaxKind::__LAST as u16)
                .map(SyntaxKind::from)
                .all(|kind| !N::can_cast(kind) || is_listed(kind)),
            "FileCtx::nodes of a kind the node list does not hold"
        );
        let paths = PATH_KINDS.iter().any(|&kind| N::can_cast(kind));
        let nodes = self.node_list(paths);
        (0..nodes.len()).filter_map(move |i| {
            let node = &nodes[i];
            if N::can_cast(node.kind()) {
                N::cast(node.clone())
            } else {
                None
            }
        })
    }

    /// The file's name references spelled `name`, in file order. Found by searching the
    /// text rather than kept in the node list: every path segment holds one, and listing them
    /// kept a cursor alive for each and for its segment (a third of a large file's memory).
    pub fn name_refs(&self, name: &str) -> Vec<ast::NameRef> {
        crate::util::syntax::word_offsets(&self.file.text, name)
            .filter_map(|at| {
                let at = ra_ap_syntax::TextSize::try_from(at).ok()?;
                let token = self.root.token_at_offset(at).right_biased()?;
                token.parent().and_then(ast::NameRef::cast)
            })
            .filter(|name_ref| name_ref.text() == name)
            .collect()
    }

    /// The file's paths whose last segment is a name spelled one of `names`, in the order
    /// `nodes::<ast::Path>()` gives them. Found from where the text spells the names
    /// (`name_refs`), not by reading every path's last segment: a step that looks for a few
    /// names reads only their paths, and none in most files.
    pub fn paths_named(&self, names: &[&str]) -> Vec<ast::Path> {
        let mut paths: Vec<ast::Path> = (names.iter())
            .flat_map(|name| self.name_refs(name))
            .filter_map(|name_ref| name_ref.syntax().parent().and_then(ast::PathSegment::cast))
            // A segment is its path's last one: a qualifier is a path of its own.
            .filter_map(|segment| segment.syntax().parent().and_then(ast::Path::cast))
            .collect();
        // Preorder: by start, and a path before the paths (qualifiers, arguments) it holds.
        paths.sort_by_key(|path| {
            let range = path.syntax().text_range();
            (range.start(), std::cmp::Reverse(range.end()))
        });
        paths.dedup();
        paths
    }

    /// Whether the file's text holds one of `names` (inside a longer word too): a step that
    /// finds only what names one of them, written in the file, skips a file with none.
    pub fn spells_any<'n>(&self, mut names: impl Iterator<Item = &'n String>) -> bool {
        names.any(|name| crate::util::syntax::contains(&self.file.text, name))
    }

    /// `spells_any` of the backend table's device types: a path resolves to one
    /// (`Index::burn_backend_name`) only with its name written, in the path or in the
    /// file's import of it.
    pub fn spells_a_device_type(&self) -> bool {
        self.spells_any(self.index.backends.iter().flat_map(|b| &b.device_types))
    }

    /// Every node of the listed kinds (`is_listed`), in preorder: for a transform that looks
    /// for several kinds in one pass, in file order.
    pub fn listed_nodes(&self) -> impl Iterator<Item = SyntaxNode> {
        let nodes = self.node_list(true);
        (0..nodes.len()).map(move |i| nodes[i].clone())
    }

    /// `listed_nodes` but paths (`is_path_kind`): for a transform that needs none, on a
    /// context that may list none (`listing`).
    pub fn listed_nodes_but_paths(&self) -> impl Iterator<Item = SyntaxNode> {
        let nodes = self.node_list(false);
        (0..nodes.len())
            .map(move |i| nodes[i].clone())
            .filter(|node| !is_path_kind(node.kind()))
    }

    pub fn push(&mut self, change: Change) {
        self.changes.push(change);
    }

    /// How this file names Burn's crates.
    /// The element dtypes of a 0.21 backend type as a device built in this file can be
    /// configured with them: an element alias (`ElemType`) the file cannot name is left out,
    /// and the device is then the one `backend-element-generics` says to check.
    pub fn elements_in_scope(&self, elements: &ElementDTypes) -> ElementDTypes {
        let mut elements = elements.clone();
        if let Some(FloatElement::Alias(alias)) = &elements.float {
            let first = alias.split("::").next().unwrap_or(alias).trim();
            if !self.index.may_name_in_file(self.file_id, first) {
                elements.float = None;
            }
        }
        elements
    }

    pub fn crates(&self) -> &'a CrateNames {
        self.index.crate_names(self.file_id)
    }

    /// `path`, one of Burn's paths (`burn::tensor::Device`), as this file writes it
    /// (`nn::tensor::Device` where the package calls Burn `nn`).
    pub fn local_path<'p>(&self, path: &'p str) -> std::borrow::Cow<'p, str> {
        self.crates().localize(path)
    }

    /// Records that the edits name Burn's item `path` (`burn::tensor::Device`) by its last
    /// segment, so the file (or the inline module around the edit) must import it.
    pub fn need_import(&mut self, path: &str) {
        if !self.needed_imports.contains(path) {
            self.needed_imports.insert(path.to_string());
        }
    }

    /// Whether some item of the file declares a type parameter `name`: every backend
    /// parameter is one, so a name that is not needs no scope lookup.
    pub fn declares_type_param(&self, name: &str) -> bool {
        self.type_param_names
            .get_or_init(|| {
                self.nodes::<ast::AnyHasGenericParams>()
                    .filter_map(|owner| owner.generic_param_list())
                    .flat_map(|list| list.generic_params())
                    .filter_map(|param| match param {
                        ast::GenericParam::TypeParam(param) => {
                            Some(param.name()?.text().to_string())
                        }
                        _ => None,
                    })
                    .collect()
            })
            .contains(name)
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
                // A wrapper over a backend parameter: `Autodiff<B>`, or the project's alias of
                // one (`G<B::InnerBackend>` after `type G<IB> = Autodiff<IB>;`).
                if let Some(inner) = self.wrapped(&path) {
                    if self.is_backend_type(&inner, scope) {
                        return true;
                    }
                }
            }
        }
        self.index.resolve_backend_type(self.file_id, ty).is_some()
    }

    /// The type a backend wrapper (`Autodiff<X>`, `Fusion<X>`, a generic alias of one) wraps.
    fn wrapped(&self, path: &ast::Path) -> Option<ast::Type> {
        let segment = path.segment()?;
        let is_wrapper = match self.index.burn_backend_name(self.file_id, path) {
            Some(name) => (self.index.wrappers.iter()).any(|w| w.types.contains(&name)),
            None => {
                path.qualifier().is_none()
                    && self
                        .index
                        .wrapper_alias(self.file_id, segment.name_ref()?.text())
                        .is_some()
            }
        };
        if !is_wrapper {
            return None;
        }
        match segment.generic_arg_list()?.generic_args().next()? {
            ast::GenericArg::TypeArg(arg) => arg.ty(),
            _ => None,
        }
    }

    /// Whether the qualifier of a path (`B` in `B::sync`, `<B as Backend>`, `MyBackend`,
    /// `<crate::InferenceBackend as Backend>`) is a backend here: a backend parameter in scope,
    /// or a type that resolves to a backend (Burn's backend types, the project's aliases).
    pub fn qualifier_is_backend(&self, qualifier: &ast::Path, scope: &[BackendParam]) -> bool {
        let anchored = qualifier
            .segment()
            .and_then(|s| s.type_anchor())
            .and_then(|a| a.ty());
        let ty = anchored.unwrap_or_else(|| ast::make::ty_path(qualifier.clone()));
        let is_parameter = crate::util::syntax::type_as_ident(&ty)
            .is_some_and(|name| scope.iter().any(|b| b.name == name));
        is_parameter || self.index.resolve_backend_type(self.file_id, &ty).is_some()
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

/// The node kinds transforms look for, which `FileCtx` lists for them: items with generic
/// parameters (ADTs, traits, impls, functions, aliases, consts), paths and name references,
/// calls, `use` items, and the few other places rules rewrite.
fn is_listed(kind: SyntaxKind) -> bool {
    // Asked of every node of every file: answered from a table built once.
    static TABLE: std::sync::LazyLock<Vec<bool>> = std::sync::LazyLock::new(|| {
        (0..SyntaxKind::__LAST as u16)
            .map(|raw| is_listed_kind(SyntaxKind::from(raw)))
            .collect()
    });
    TABLE.get(kind as usize).copied().unwrap_or(false)
}

/// The listed kinds that are paths or wrap one.
const PATH_KINDS: [SyntaxKind; 3] = [
    SyntaxKind::PATH,
    SyntaxKind::PATH_TYPE,
    SyntaxKind::PATH_EXPR,
];

fn is_path_kind(kind: SyntaxKind) -> bool {
    PATH_KINDS.contains(&kind)
}

fn is_listed_kind(kind: SyntaxKind) -> bool {
    const LISTED: &[fn(SyntaxKind) -> bool] = &[
        ast::AnyHasGenericParams::can_cast,
        ast::Path::can_cast,
        ast::PathType::can_cast,
        ast::PathExpr::can_cast,
        ast::CallExpr::can_cast,
        ast::MethodCallExpr::can_cast,
        ast::FieldExpr::can_cast,
        ast::Use::can_cast,
        ast::UseTree::can_cast,
        ast::GenericArgList::can_cast,
        ast::RecordExpr::can_cast,
        ast::RecordFieldList::can_cast,
        ast::TokenTree::can_cast,
    ];
    LISTED.iter().any(|listed| listed(kind))
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
pub fn device_expression(ctx: &FileCtx, spec: &BackendSpec) -> DeviceExpr {
    let index = ctx.index;
    let mut device = DeviceExpr {
        autodiff: spec.autodiff,
        checkpointing: spec.checkpointing,
        ..index.backends[spec.backend].device.clone()
    };
    let elements = ctx.elements_in_scope(&spec.elements);
    index
        .backends
        .configure(spec.backend, &mut device, &elements);
    device
}
