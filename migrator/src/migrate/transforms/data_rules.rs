//! Rewrites declared entirely in rule files (`[[rewrite]]` tables): renamed paths, removed
//! items, calls whose name or arguments changed, and fields whose type changed. Imports are the
//! `imports` transform's business (it consults the same tables), so list edits stay in one
//! place.

use std::collections::HashMap;

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode, TextRange, TextSize};

use super::call_template;
use super::context::FileCtx;
use super::step::{ImportSide, Order, Step, Transform};
use super::use_items::{full_use_path, path_matches, with_crate_paths};
use crate::edit::Change;
use crate::rules::{Applicability, DataRule, RuleKey};
use crate::util::syntax::{
    callee_name, is_macro_body, outermost_segment_name, path_parts, segment_name, segment_names,
    token_tree_paths,
};

pub const TRANSFORM: Transform = Transform {
    step: Step::DataRules,
    run,
    emits: &[],
    emits_data_rules: true,
    order: Order::Rank(190),
    reads_paths: true,
    import_side: ImportSide::NONE,
    findings_outlive_edits: false,
};

pub fn run(ctx: &mut FileCtx) {
    let rules = ctx.rules;
    // The rules whose words the file spells (`DataRule::words`): the others find nothing here.
    let may_match = rules.data_rule_words().may_match(&ctx.file.text);
    if !may_match.contains(&true) {
        return;
    }
    // Dozens of data rules look at the same paths, imports and calls: walk the tree once.
    let nodes = FileNodes::collect(ctx);
    for ((rule, data), _) in (rules.data_rules().zip(may_match)).filter(|(_, may)| *may) {
        // In code already on 0.22 the fixes have been made; what needs a person is still
        // reported, until the code changes or a suppression comment records the decision.
        // Whether the code is migrated is asked only of a fix that found something: a step
        // that does not ask is not run again for the other answer (`Reusable`).
        if rule.applicability() == Applicability::Safe {
            let before = (ctx.changes.len(), ctx.needed_imports.clone());
            run_rule(ctx, &nodes, rule, data);
            let found = ctx.changes.len() > before.0 || ctx.needed_imports != before.1;
            if found && ctx.targets_0_22() {
                ctx.changes.truncate(before.0);
                ctx.needed_imports = before.1;
            }
        } else {
            run_rule(ctx, &nodes, rule, data);
        }
    }
}

/// One data rule over one file.
fn run_rule(ctx: &mut FileCtx, nodes: &FileNodes, rule: RuleKey, data: &DataRule) {
    match data {
        DataRule::RenamePath { from, to } => rename_path(ctx, nodes, rule, from, to.as_deref()),
        DataRule::RemovedItem { paths, message } => {
            report_removed(ctx, nodes, rule, paths, message.as_deref())
        }
        DataRule::ReportCall {
            method,
            function,
            arity,
            chain_root,
            in_files_naming,
            message,
        } => {
            // A file that names none of the items the calls belong to is left alone.
            if !in_files_naming.is_empty()
                && !in_files_naming
                    .iter()
                    .any(|item| nodes.names_burn_item(ctx, item))
            {
                return;
            }
            let call = CallPattern {
                method: method.as_deref(),
                function: function.as_deref(),
                arity: *arity,
                receiver_call: &[],
                chain_root,
                to: None,
                args: None,
            };
            report_calls(ctx, nodes, rule, &call, message);
        }
        DataRule::ReportImplFn {
            trait_name,
            functions,
            message,
        } => report_impl_fns(ctx, nodes, rule, trait_name, functions, message),
        DataRule::ReportField {
            type_path,
            fields,
            message,
            ported_receiver_of,
        } => {
            let field = ReportedField {
                type_path,
                fields,
                message,
                ported_receiver_of,
            };
            report_fields(ctx, nodes, rule, &field)
        }
        DataRule::RewriteCall {
            method,
            function,
            arity,
            receiver_call,
            chain_root,
            to,
            args,
            imports,
        } => {
            let call = CallPattern {
                method: method.as_deref(),
                function: function.as_deref(),
                arity: *arity,
                receiver_call,
                chain_root,
                to: to.as_deref(),
                args: args.as_deref(),
            };
            rewrite_calls(ctx, nodes, rule, &call, imports);
        }
    }
}

/// What the data rules look at in one file, collected in one pass over its nodes and
/// indexed by name: dozens of rules ask for a few names each.
struct FileNodes {
    /// Paths outside imports, not counting the qualifiers of longer paths, with their
    /// segment names once asked (`CodePath::with_names`).
    code_paths: Vec<CodePath>,
    /// Positions in `code_paths` by first segment: every path pattern starts with one.
    paths_by_first: HashMap<String, Vec<usize>>,
    /// Leaf imports (not lists, not globs): the local name (`None` when there is none to
    /// find) and the full path.
    use_leaves: Vec<(Option<String>, Vec<String>)>,
    leaves_by_first: HashMap<String, Vec<usize>>,
    /// The modules the file imports with globs (`use burn::store::*` -> `burn::store`).
    glob_modules: Vec<Vec<String>>,
    /// Paths in macro bodies (`util::syntax::is_macro_body`, `token_tree_paths`), read as
    /// Burn's paths like `code_paths`: the parser leaves those bodies as tokens.
    macro_paths: Vec<(Vec<String>, TextRange)>,
    /// Method calls and function calls.
    calls: Vec<SyntaxNode>,
    /// Positions in `calls` by the name called: the method's, or the callee path's last
    /// segment.
    calls_by_name: HashMap<String, Vec<usize>>,
    impls: Vec<ast::Impl>,
    /// Field reads (`expr.field`) and struct literals.
    field_exprs: Vec<ast::FieldExpr>,
    record_exprs: Vec<ast::RecordExpr>,
    /// Whether a path or import starts with one of Burn's crates other than `burn`
    /// (`burn_store::..`).
    names_a_burn_crate: bool,
    /// `burn_names_in_paths`, once asked.
    burn_names_in_paths: std::cell::OnceCell<std::collections::HashSet<String>>,
}

impl FileNodes {
    fn collect(ctx: &FileCtx) -> Self {
        // Paths and imports are read as Burn's paths: `nn::record::CompactRecorder` is
        // `burn::record::CompactRecorder` where the package calls Burn `nn`.
        let crates = ctx.crates();
        let mut nodes = FileNodes {
            code_paths: Vec::new(),
            paths_by_first: HashMap::new(),
            use_leaves: Vec::new(),
            leaves_by_first: HashMap::new(),
            glob_modules: Vec::new(),
            macro_paths: Vec::new(),
            calls: Vec::new(),
            calls_by_name: HashMap::new(),
            impls: Vec::new(),
            field_exprs: Vec::new(),
            record_exprs: Vec::new(),
            burn_names_in_paths: std::cell::OnceCell::new(),
            names_a_burn_crate: false,
        };
        // Preorder: the nodes inside a `use` item come right after it, up to its end.
        let mut use_end: Option<TextSize> = None;
        for node in ctx.listed_nodes() {
            let kind = node.kind();
            let range = node.text_range();
            if use_end.is_some_and(|end| range.start() >= end) {
                use_end = None;
            }
            if ast::Use::can_cast(kind) {
                use_end = Some(range.end());
            } else if let Some(path) = ast::Path::cast(node.clone()) {
                let is_qualifier = node.parent().is_some_and(|p| ast::Path::can_cast(p.kind()));
                if use_end.is_none() && !is_qualifier {
                    let first = first_segment_name(&path);
                    let burn_first = first.as_deref().and_then(|f| crates.renamed_crate(f));
                    push_by(
                        &mut nodes.paths_by_first,
                        burn_first.clone().or(first),
                        nodes.code_paths.len(),
                    );
                    nodes.code_paths.push(CodePath {
                        path,
                        names: std::cell::OnceCell::new(),
                        burn_first,
                    });
                }
            } else if let Some(tree) = ast::UseTree::cast(node.clone()) {
                if tree.star_token().is_some() {
                    nodes
                        .glob_modules
                        .push(crates.canonical(full_use_path(&tree)));
                } else if tree.use_tree_list().is_none() {
                    let full = crates.canonical(full_use_path(&tree));
                    push_by(
                        &mut nodes.leaves_by_first,
                        full.first().cloned(),
                        nodes.use_leaves.len(),
                    );
                    let local = (tree.rename().and_then(|r| r.name()))
                        .map(|n| n.text().to_string())
                        .or_else(|| full.last().cloned());
                    nodes.use_leaves.push((local, full));
                }
            } else if ast::MethodCallExpr::can_cast(kind) || ast::CallExpr::can_cast(kind) {
                push_by(
                    &mut nodes.calls_by_name,
                    callee_name(&node),
                    nodes.calls.len(),
                );
                nodes.calls.push(node);
            } else if let Some(field) = ast::FieldExpr::cast(node.clone()) {
                nodes.field_exprs.push(field);
            } else if let Some(record) = ast::RecordExpr::cast(node.clone()) {
                nodes.record_exprs.push(record);
            } else if let Some(implementation) = ast::Impl::cast(node.clone()) {
                nodes.impls.push(implementation);
            } else if let Some(body) = ast::TokenTree::cast(node).filter(is_macro_body) {
                for (mut names, range) in token_tree_paths(&body) {
                    if let Some(krate) = crates.renamed_crate(&names[0]) {
                        names[0] = krate;
                    }
                    nodes.macro_paths.push((names, range));
                }
            }
        }
        let a_burn_crate = |first: &String| first.starts_with("burn_");
        nodes.names_a_burn_crate = nodes.paths_by_first.keys().any(a_burn_crate)
            || nodes.leaves_by_first.keys().any(a_burn_crate)
            || (nodes.glob_modules.iter()).any(|g| g.first().is_some_and(a_burn_crate));
        nodes
    }

    /// The code paths whose first segment is `first`, in file order.
    fn paths_starting_with<'a>(
        &'a self,
        first: &str,
    ) -> impl Iterator<Item = (&'a ast::Path, &'a [String])> + 'a {
        let at = self.paths_by_first.get(first).map(Vec::as_slice);
        (at.unwrap_or_default().iter()).map(|&i| self.code_paths[i].with_names())
    }

    /// The code paths matching `pattern` (`a::b::C` or `a::b::*`), in file order.
    fn paths_matching<'a>(
        &'a self,
        pattern: &'a str,
    ) -> Box<dyn Iterator<Item = (&'a ast::Path, &'a [String])> + 'a> {
        match path_parts(pattern).next() {
            Some("*") | None => Box::new(self.code_paths.iter().map(CodePath::with_names)),
            Some(first) => Box::new(
                self.paths_starting_with(first)
                    .filter(move |(_, names)| path_matches(names, pattern)),
            ),
        }
    }

    /// Local names the file imports from paths matching `pattern` (leaf imports, not aliased
    /// away), as (local name, imported path), each pair once.
    fn imported_names(&self, pattern: &str) -> Vec<(String, Vec<String>)> {
        let first = path_parts(pattern).next().unwrap_or_default();
        let leaves: Vec<&(Option<String>, Vec<String>)> = if first == "*" {
            self.use_leaves.iter().collect()
        } else {
            let at = self.leaves_by_first.get(first).map(Vec::as_slice);
            at.unwrap_or_default()
                .iter()
                .map(|&i| &self.use_leaves[i])
                .collect()
        };
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for (local, full) in leaves {
            let Some(local) = local.as_ref().filter(|_| path_matches(full, pattern)) else {
                continue;
            };
            // The same import in several inline modules names the same thing.
            if !out.iter().any(|(l, f)| l == local && f == full) {
                out.push((local.clone(), full.clone()));
            }
        }
        out
    }

    /// Whether the file names Burn's item `item` (`burn::tensor::ops::ConvOptions`): imports
    /// it (by name, renamed, or with a glob of its module), or writes a path, or a qualifier
    /// of one, that the file's imports resolve to Burn's item of that name.
    fn names_burn_item(&self, ctx: &FileCtx, item: &str) -> bool {
        // Through the `burn` facade or the Burn crate behind it (`burn_store::ModuleSnapshot`).
        for item in with_crate_paths(item) {
            let (module, _) = item.rsplit_once("::").unwrap_or(("", &item));
            if !self.imported_names(&item).is_empty()
                || self
                    .glob_modules
                    .iter()
                    .any(|g| g.iter().map(String::as_str).eq(path_parts(module)))
            {
                return true;
            }
        }
        let name = item.rsplit("::").next().unwrap_or(item);
        // A path resolves to `name` only where its last segment is one of these names, which
        // the text then holds (`!` opened to `_` aside): otherwise the walk over every path
        // is not needed.
        let written = |n: &str| ctx.file.text.contains(n.trim_end_matches('_'));
        if !ctx
            .index
            .names_for_burn_name(ctx.file_id, name)
            .any(written)
        {
            return false;
        }
        self.burn_names_in_paths(ctx).contains(name)
    }

    /// The names of Burn's items that the file's code paths, or their qualifiers, resolve to
    /// (computed once: several rules ask).
    fn burn_names_in_paths(&self, ctx: &FileCtx) -> &std::collections::HashSet<String> {
        self.burn_names_in_paths.get_or_init(|| {
            let mut names = std::collections::HashSet::new();
            for CodePath { path, .. } in &self.code_paths {
                // The path and its qualifiers, outermost last, by their last segment's name:
                // what `Index::burn_name` asks of each, with every segment read once.
                let chain: Vec<Option<String>> =
                    std::iter::successors(Some(path.clone()), ast::Path::qualifier)
                        .map(|p| p.segment().map(|s| segment_name(&s)))
                        .collect();
                for (at, last) in chain.iter().enumerate() {
                    let Some(last) = last else { continue };
                    let outermost = chain[at + 1..].iter().rev().find_map(Option::as_deref);
                    if let Some(name) = ctx.index.burn_name_of(ctx.file_id, outermost, last) {
                        names.insert(name);
                    }
                }
            }
            names
        })
    }

    /// The calls of `method` (a method name) or `function` (a path's last segments), in file
    /// order.
    fn calls_named(&self, method: Option<&str>, function: Option<&str>) -> Vec<&SyntaxNode> {
        let last = function.map(|f| f.rsplit("::").next().unwrap_or(f));
        let mut at: Vec<usize> = [method, last]
            .into_iter()
            .flatten()
            .filter_map(|name| self.calls_by_name.get(name))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        at.into_iter().map(|i| &self.calls[i]).collect()
    }
}

/// A path of `FileNodes::code_paths`. Its segment names are collected when a rule asks for a
/// path with its first segment: most paths start with a name no rule pattern does (a local,
/// `Tensor`, `B`), and collecting every path's names was a tenth of a large file's memory.
struct CodePath {
    path: ast::Path,
    names: std::cell::OnceCell<Vec<String>>,
    /// Burn's name for the crate the first segment names, where the file calls it otherwise
    /// (`burn` for `nn`): the names are Burn's path.
    burn_first: Option<String>,
}

impl CodePath {
    fn with_names(&self) -> (&ast::Path, &[String]) {
        let names = self.names.get_or_init(|| {
            let mut names = segment_names(&self.path);
            if let (Some(first), Some(krate)) = (names.first_mut(), &self.burn_first) {
                first.clone_from(krate);
            }
            names
        });
        (&self.path, names)
    }
}

/// `segment_names(path)[0]` without collecting the others.
fn first_segment_name(path: &ast::Path) -> Option<String> {
    outermost_segment_name(path).or_else(|| path.segment().map(|s| segment_name(&s)))
}

fn push_by(map: &mut HashMap<String, Vec<usize>>, key: Option<String>, at: usize) {
    if let Some(key) = key {
        map.entry(key).or_default().push(at);
    }
}

fn rename_path(ctx: &mut FileCtx, nodes: &FileNodes, rule: RuleKey, from: &str, to: Option<&str>) {
    let Some(to) = to else { return };
    let to_last = to.rsplit("::").next().unwrap_or(to).to_string();
    let from_last = from.rsplit("::").next().unwrap_or(from).to_string();
    let from_first = path_parts(from).next().unwrap_or(from);
    let written = ctx.local_path(to).into_owned();
    for (path, names) in nodes.paths_starting_with(from_first) {
        if names.iter().map(String::as_str).eq(path_parts(from)) {
            ctx.push(Change::edit(
                path.syntax().text_range(),
                written.clone(),
                rule,
                format!("`{from}` is `{to}` in Burn 0.22"),
            ));
        }
    }
    // `use a::Old;` becomes `use a::New;` (in `imports`), so bare uses of `Old` follow.
    if from_last != to_last
        && nodes
            .imported_names(from)
            .iter()
            .any(|(local, _)| *local == from_last)
    {
        for name in ctx.name_refs(&from_last) {
            if name
                .syntax()
                .ancestors()
                .any(|a| ast::Use::can_cast(a.kind()))
            {
                continue;
            }
            let first_segment = name
                .syntax()
                .ancestors()
                .find_map(ast::Path::cast)
                .is_some_and(|p| p.qualifier().is_none());
            if first_segment {
                ctx.push(Change::edit(
                    name.syntax().text_range(),
                    to_last.clone(),
                    rule,
                    format!("`{from_last}` is `{to_last}` in Burn 0.22"),
                ));
            }
        }
    }
}

fn report_removed(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    patterns: &[String],
    message: Option<&str>,
) {
    let say = |what: &str| {
        message
            .map(str::to_string)
            .unwrap_or_else(|| format!("`{what}` was removed in Burn 0.22"))
    };
    // Several patterns of a rule can match one site (`adaptor::OptimizerAdaptor` and
    // `adaptor::*`): one finding per site.
    let mut reported = std::collections::HashSet::new();
    // An item of a removed module that a `rename-path` table moves (`ReduceOperation` of
    // `burn::collective::*`), or a member of it (`ReduceOperation::Mean`), is that rule's.
    let moved_paths: Vec<&str> = (ctx.rules.data_rules())
        .filter_map(|(_, data)| match data {
            DataRule::RenamePath { from, to: Some(_) } => Some(from.as_str()),
            _ => None,
        })
        .collect();
    let moved = |full: &[String]| {
        (moved_paths.iter())
            .any(|from| (1..=full.len()).any(|end| path_matches(&full[..end], from)))
    };
    // Through the Burn crates too (`burn_store::..`), in files that name one.
    let patterns: Vec<String> = if nodes.names_a_burn_crate {
        patterns.iter().flat_map(|p| with_crate_paths(p)).collect()
    } else {
        patterns.to_vec()
    };
    for pattern in &patterns {
        // A macro body names what its expansion will: Burn's path written there, or a name
        // the file imports from Burn (`type $settings = FullPrecisionSettings;`).
        let imported = nodes.imported_names(pattern);
        for (names, range) in &nodes.macro_paths {
            let what = if path_matches(names, pattern) {
                Some(names.join("::"))
            } else {
                (imported.iter()).find_map(|(local, full)| {
                    (names[0] == *local).then(|| [&full[..], &names[1..]].concat().join("::"))
                })
            };
            if let Some(what) = what.filter(|_| reported.insert(*range)) {
                ctx.push(Change::manual(*range, rule, say(&what)));
            }
        }
        for (path, names) in nodes.paths_matching(pattern) {
            if !moved(names) && reported.insert(path.syntax().text_range()) {
                let text = say(&path.syntax().text().to_string());
                ctx.push(Change::manual(path.syntax().text_range(), rule, text));
            }
        }
        for (local, full) in &imported {
            if moved(full) {
                continue;
            }
            for (path, _) in nodes.paths_starting_with(local) {
                if reported.insert(path.syntax().text_range()) {
                    let text = say(&full.join("::"));
                    ctx.push(Change::manual(path.syntax().text_range(), rule, text));
                }
            }
        }
        // A member through an import of what it belongs to: `DataError::CastError` after
        // `use burn::tensor::DataError;`, `quantization::QuantLevel` after `use ..::quantization;`.
        let Some((parent, member)) = pattern.rsplit_once("::").filter(|(_, m)| *m != "*") else {
            continue;
        };
        for (local, full) in nodes.imported_names(parent) {
            for (path, names) in nodes.paths_starting_with(&local) {
                if names.get(1).is_some_and(|n| n == member)
                    && reported.insert(path.syntax().text_range())
                {
                    let text = say(&format!("{}::{member}", full.join("::")));
                    ctx.push(Change::manual(path.syntax().text_range(), rule, text));
                }
            }
        }
    }
}

struct CallPattern<'a> {
    method: Option<&'a str>,
    function: Option<&'a str>,
    arity: Option<usize>,
    receiver_call: &'a [String],
    chain_root: &'a [String],
    to: Option<&'a str>,
    args: Option<&'a [String]>,
}

/// Calls matching a pattern: (range of the called name, argument list).
fn matching_calls(
    ctx: &FileCtx,
    nodes: &FileNodes,
    pattern: &CallPattern,
) -> Vec<(ra_ap_syntax::TextRange, ast::ArgList)> {
    let mut out = Vec::new();
    for node in nodes.calls_named(pattern.method, pattern.function) {
        let (name_range, arg_list) = if let Some(call) = ast::MethodCallExpr::cast(node.clone()) {
            let Some(method) = pattern.method else {
                continue;
            };
            let Some(name) = call.name_ref() else {
                continue;
            };
            if name.text() != method {
                continue;
            }
            if !pattern.receiver_call.is_empty() {
                let receiver_ok = match call.receiver() {
                    Some(ast::Expr::MethodCallExpr(r)) => r
                        .name_ref()
                        .is_some_and(|n| pattern.receiver_call.iter().any(|m| *m == n.text())),
                    _ => false,
                };
                if !receiver_ok {
                    continue;
                }
            }
            if !pattern.chain_root.is_empty()
                && !pattern
                    .chain_root
                    .iter()
                    .any(|root| chain_starts_with_call(&call, root))
            {
                continue;
            }
            (name.syntax().text_range(), call.arg_list())
        } else if let Some(call) = ast::CallExpr::cast(node.clone()) {
            let Some(function) = pattern.function else {
                continue;
            };
            let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
                continue;
            };
            let Some(path) = callee.path() else { continue };
            let matches = match function.strip_prefix("burn::") {
                // Burn's function, as the file's imports resolve the callee; for an associated
                // function (`burn::tensor::TensorData::quantized`), the callee's qualifier must
                // resolve to Burn's type (another Burn type's `new` is not this one).
                Some(burn_path) => {
                    let mut segments = burn_path.rsplit("::");
                    let name = segments.next().unwrap_or(burn_path);
                    let owner = segments
                        .next()
                        .filter(|s| s.starts_with(char::is_uppercase));
                    path.segment()
                        .and_then(|s| s.name_ref())
                        .is_some_and(|n| n.text() == name)
                        && ctx.index.burn_name(ctx.file_id, &path).as_deref() == Some(name)
                        && owner.is_none_or(|owner| {
                            path.qualifier().is_some_and(|q| {
                                ctx.index.burn_name(ctx.file_id, &q).as_deref() == Some(owner)
                            })
                        })
                }
                None => path_ends_with(&path, function),
            };
            if !matches {
                continue;
            }
            let Some(segment) = path.segment().and_then(|s| s.name_ref()) else {
                continue;
            };
            (segment.syntax().text_range(), call.arg_list())
        } else {
            continue;
        };
        let Some(arg_list) = arg_list else { continue };
        if pattern.arity.is_some_and(|n| n != arg_list.args().count()) {
            continue;
        }
        out.push((name_range, arg_list));
    }
    out
}

/// Whether `path` ends with the segments of `suffix` (`Type::name`).
fn path_ends_with(path: &ast::Path, suffix: &str) -> bool {
    let names = segment_names(path);
    let wanted: Vec<&str> = suffix.split("::").collect();
    names.len() >= wanted.len()
        && names[names.len() - wanted.len()..]
            .iter()
            .zip(&wanted)
            .all(|(a, b)| a == b)
}

/// Whether the receivers of `call`, followed down the method chain, start with a call of
/// the function `root` (`SupervisedTraining::new(..).metric(..).renderer(..)`). A chain that
/// starts at a local variable continues in the `let` that binds it (`let mut training =
/// SupervisedTraining::new(..); .. training.renderer(..)`).
fn chain_starts_with_call(call: &ast::MethodCallExpr, root: &str) -> bool {
    let mut receiver = call.receiver();
    // Each step goes to a `let` before the last one: the walk ends.
    loop {
        while let Some(ast::Expr::MethodCallExpr(inner)) = receiver {
            receiver = inner.receiver();
        }
        match receiver {
            Some(ast::Expr::CallExpr(first)) => {
                return match first.expr() {
                    Some(ast::Expr::PathExpr(callee)) => callee
                        .path()
                        .is_some_and(|path| path_ends_with(&path, root)),
                    _ => false,
                };
            }
            Some(ast::Expr::PathExpr(variable)) => match binding_initializer(&variable) {
                Some(initializer) => receiver = Some(initializer),
                None => return false,
            },
            _ => return false,
        }
    }
}

/// The `let` that binds the local variable `variable` names: the last
/// `let name = ..;` before it in its block or an enclosing one. `None` for anything else (a
/// parameter, a pattern with more than a name, a path with more than one segment).
pub(super) fn binding_of(variable: &ast::PathExpr) -> Option<ast::LetStmt> {
    let path = variable.path()?;
    if path.qualifier().is_some() {
        return None;
    }
    let name = path.segment()?.name_ref()?;
    let at = variable.syntax().text_range().start();
    for block in variable
        .syntax()
        .ancestors()
        .filter_map(ast::StmtList::cast)
    {
        let binding = (block.statements())
            .take_while(|statement| statement.syntax().text_range().end() <= at)
            .filter_map(|statement| match statement {
                ast::Stmt::LetStmt(binding) => Some(binding),
                _ => None,
            })
            .filter(|binding| match binding.pat() {
                Some(ast::Pat::IdentPat(pattern)) => {
                    pattern.name().is_some_and(|n| n.text() == name.text())
                }
                _ => false,
            })
            .last();
        if binding.is_some() {
            return binding;
        }
    }
    None
}

/// The initializer of the `let` that binds `variable` (`binding_of`).
pub(super) fn binding_initializer(variable: &ast::PathExpr) -> Option<ast::Expr> {
    binding_of(variable)?.initializer()
}

fn report_calls(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    pattern: &CallPattern,
    message: &str,
) {
    for (name_range, arg_list) in matching_calls(ctx, nodes, pattern) {
        let range = name_range.cover(arg_list.syntax().text_range());
        ctx.push(Change::manual(range, rule, message));
    }
}

/// Reports the definitions of `functions` inside `impl <trait_name> for ..` blocks, or each
/// such block when no functions are named.
fn report_impl_fns(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    trait_name: &str,
    functions: &[String],
    message: &str,
) {
    for implementation in &nodes.impls {
        // Burn's trait, as the file's imports resolve it: a project trait of the same name is
        // none of this rule's business.
        let Some(trait_path) = (match implementation.trait_() {
            Some(ast::Type::PathType(path_type)) => path_type.path().filter(|path| {
                path_ends_with(path, trait_name) && ctx.index.burn_name(ctx.file_id, path).is_some()
            }),
            _ => None,
        }) else {
            continue;
        };
        // No functions named: the trait itself changed (its supertraits), so every
        // implementation is reported, at the trait's name.
        if functions.is_empty() {
            ctx.push(Change::manual(
                trait_path.syntax().text_range(),
                rule,
                message,
            ));
            continue;
        }
        let Some(items) = implementation.assoc_item_list() else {
            continue;
        };
        for item in items.assoc_items() {
            let ast::AssocItem::Fn(function) = item else {
                continue;
            };
            let Some(name) = function.name() else {
                continue;
            };
            if functions.iter().any(|f| *f == name.text()) {
                let end = function
                    .param_list()
                    .map(|p| p.syntax().text_range())
                    .unwrap_or(name.syntax().text_range());
                ctx.push(Change::manual(
                    name.syntax().text_range().cover(end),
                    rule,
                    message,
                ));
            }
        }
    }
}

/// A `report-field` table (`DataRule::ReportField`).
struct ReportedField<'r> {
    type_path: &'r str,
    fields: &'r [String],
    message: &'r str,
    ported_receiver_of: &'r [String],
}

/// Reports reads of `fields` (`expr.padding`) and their initializers in struct literals of
/// Burn's type, in files that name Burn's `type_path`; in code on 0.22, not a read that is the
/// receiver of one of `ported_receiver_of`.
fn report_fields(ctx: &mut FileCtx, nodes: &FileNodes, rule: RuleKey, field: &ReportedField) {
    let ReportedField {
        type_path,
        fields,
        message,
        ported_receiver_of,
    } = *field;
    if !nodes.names_burn_item(ctx, type_path) {
        return;
    }
    let type_name = type_path.rsplit("::").next().unwrap_or(type_path);
    let listed = |name: &ast::NameRef| fields.iter().any(|f| *f == name.text());
    // `item.image.iter()`: the receiver of a method of the field's 0.22 type.
    let receiver_of_a_new_method = |read: &ast::FieldExpr| {
        (read.syntax().parent())
            .and_then(ast::MethodCallExpr::cast)
            .filter(|call| call.receiver().is_some_and(|r| r.syntax() == read.syntax()))
            .and_then(|call| call.name_ref())
            .is_some_and(|method| ported_receiver_of.iter().any(|m| *m == method.text()))
    };
    let mut sites = Vec::new();
    for read in &nodes.field_exprs {
        if let Some(name) = read.name_ref().filter(listed) {
            if receiver_of_a_new_method(read) && ctx.targets_0_22() {
                continue;
            }
            sites.push(name.syntax().text_range());
        }
    }
    for record in &nodes.record_exprs {
        let of_type = record
            .path()
            .is_some_and(|p| ctx.index.burn_name(ctx.file_id, &p).as_deref() == Some(type_name));
        let Some(list) = record.record_expr_field_list().filter(|_| of_type) else {
            continue;
        };
        for field in list.fields() {
            if let Some(name) = field.field_name().filter(listed) {
                sites.push(name.syntax().text_range());
            }
        }
    }
    for range in sites {
        ctx.push(Change::manual(range, rule, message));
    }
}

fn rewrite_calls(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    pattern: &CallPattern,
    imports: &[String],
) {
    let called = pattern.method.or(pattern.function).unwrap_or_default();
    for (name_range, arg_list) in matching_calls(ctx, nodes, pattern) {
        if let Some(to) = pattern.to {
            ctx.push(Change::edit(
                name_range,
                to,
                rule,
                format!("`{called}` is `{to}` in Burn 0.22"),
            ));
        }
        if let Some(templates) = pattern.args {
            // A call the parser closed itself (its `)` is missing) has arguments that are not
            // the call's: rewriting them would not reach a fixed point.
            if arg_list.r_paren_token().is_none() {
                ctx.push(Change::manual(
                    name_range,
                    rule,
                    format!("`{called}` takes different arguments in Burn 0.22; this call does not parse as a whole: port it by hand"),
                ));
                continue;
            }
            let args: Vec<ast::Expr> = arg_list.args().collect();
            let originals: Vec<String> = args
                .iter()
                .map(|a| ctx.file.slice(a.syntax().text_range()).to_string())
                .collect();
            if already_in_shape(templates, &originals) {
                continue;
            }
            // A receiver (`{2}.with_output_size(..)`) binds tighter than most expressions:
            // `a + b` or a closure is parenthesized there.
            let arguments: Vec<call_template::Argument> = originals
                .iter()
                .zip(&args)
                .map(|(text, arg)| call_template::Argument {
                    text,
                    needs_parens_as_receiver: needs_parens_as_receiver(arg),
                })
                .collect();
            let filled: Vec<String> = templates
                .iter()
                .map(|template| call_template::fill(template, &arguments))
                .collect();
            ctx.push(Change::edit(
                arg_list.syntax().text_range(),
                laid_out_like(ctx.file.slice(arg_list.syntax().text_range()), &filled),
                rule,
                format!("`{called}` takes different arguments in Burn 0.22"),
            ));
            for path in imports {
                ctx.need_import(path);
            }
        }
    }
}

/// Whether every argument already has its template's shape (`Box::new(x)` for the template
/// `Box::new({0})`), so a second run leaves the call alone.
fn already_in_shape(templates: &[String], originals: &[String]) -> bool {
    templates.len() == originals.len()
        && templates.iter().enumerate().all(|(i, template)| {
            let placeholder = format!("{{{i}}}");
            match template.split_once(&placeholder) {
                Some((prefix, suffix)) => {
                    !(prefix.is_empty() && suffix.is_empty())
                        && originals[i].starts_with(prefix)
                        && originals[i].ends_with(suffix)
                }
                None => false,
            }
        })
}

/// Whether `expr` must be parenthesized to take a method call (`(a + b).f()`, not `a + b.f()`).
fn needs_parens_as_receiver(expr: &ast::Expr) -> bool {
    !matches!(
        expr,
        ast::Expr::PathExpr(_)
            | ast::Expr::CallExpr(_)
            | ast::Expr::MethodCallExpr(_)
            | ast::Expr::FieldExpr(_)
            | ast::Expr::IndexExpr(_)
            | ast::Expr::ParenExpr(_)
            | ast::Expr::MacroExpr(_)
            | ast::Expr::Literal(_)
            | ast::Expr::TryExpr(_)
            | ast::Expr::AwaitExpr(_)
            | ast::Expr::ArrayExpr(_)
            | ast::Expr::TupleExpr(_)
            | ast::Expr::BlockExpr(_)
    )
}

/// New arguments in the layout of the old argument list: on one line, or one per line with
/// the old list's indentation and trailing comma (as rustfmt writes long calls).
fn laid_out_like(old_list: &str, args: &[String]) -> String {
    let Some(first_break) = old_list.find('\n') else {
        return format!("({})", args.join(", "));
    };
    let indent: String = old_list[first_break + 1..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let closing = old_list.rsplit('\n').next().unwrap_or(")");
    let trailing_comma = old_list.trim_end_matches(')').trim_end().ends_with(',');
    let mut out = String::from("(");
    for (i, arg) in args.iter().enumerate() {
        out.push('\n');
        out.push_str(&indent);
        out.push_str(arg);
        if i + 1 < args.len() || trailing_comma {
            out.push(',');
        }
    }
    out.push('\n');
    out.push_str(closing);
    out
}
