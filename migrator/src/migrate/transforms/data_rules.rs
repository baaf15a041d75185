//! Rewrites declared entirely in rule files (`[[rewrite]]` tables): renamed paths, removed
//! items, and calls whose name or arguments changed. Imports are the `imports` transform's
//! business (it consults the same tables), so list edits stay in one place.

use ra_ap_syntax::ast::{self, HasArgList, HasName};
use ra_ap_syntax::{AstNode, SyntaxNode};

use super::context::FileCtx;
use super::use_items::{full_use_path, path_matches};
use crate::edit::Change;
use crate::rules::{Applicability, DataRule, RuleKey, RuleSet};
use crate::util::syntax::segment_names;

/// Whether `rule` is carried out by `--apply` (rather than reported for a person).
fn is_fix(rules: &RuleSet, rule: RuleKey) -> bool {
    rules
        .get(rule.as_str())
        .is_some_and(|r| r.applicability == Applicability::Safe)
}

pub fn run(ctx: &mut FileCtx) {
    let rules = ctx.rules;
    // Dozens of data rules look at the same paths, imports and calls: walk the tree once.
    let nodes = FileNodes::collect(&ctx.root());
    for (rule, data) in rules.data_rules() {
        // In code already on 0.22 the fixes have been made; what needs a person is still
        // reported, until the code changes or a suppression comment records the decision.
        if ctx.migrated && is_fix(rules, rule) {
            continue;
        }
        match data {
            DataRule::RenamePath { from, to } => {
                rename_path(ctx, &nodes, rule, from, to.as_deref())
            }
            DataRule::RemovedItem { paths, message } => {
                report_removed(ctx, &nodes, rule, paths, message.as_deref())
            }
            DataRule::ReportCall {
                method,
                function,
                arity,
                chain_root,
                message,
            } => {
                let call = CallPattern {
                    method: method.as_deref(),
                    function: function.as_deref(),
                    arity: *arity,
                    receiver_call: &[],
                    chain_root,
                    to: None,
                    args: None,
                };
                report_calls(ctx, &nodes, rule, &call, message);
            }
            DataRule::ReportImplFn {
                trait_name,
                functions,
                message,
            } => report_impl_fns(ctx, &nodes, rule, trait_name, functions, message),
            DataRule::RewriteCall {
                method,
                function,
                arity,
                receiver_call,
                chain_root,
                to,
                args,
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
                rewrite_calls(ctx, &nodes, rule, &call);
            }
        }
    }
}

/// What the data rules look at in one file, collected in one walk of its tree.
struct FileNodes {
    /// Paths outside imports, not counting the qualifiers of longer paths, with their
    /// segment names.
    code_paths: Vec<(ast::Path, Vec<String>)>,
    /// Leaf imports (not lists, not globs) with their full path.
    use_leaves: Vec<(ast::UseTree, Vec<String>)>,
    /// Method calls and function calls.
    calls: Vec<SyntaxNode>,
    impls: Vec<ast::Impl>,
}

impl FileNodes {
    fn collect(root: &SyntaxNode) -> Self {
        let mut nodes = FileNodes {
            code_paths: Vec::new(),
            use_leaves: Vec::new(),
            calls: Vec::new(),
            impls: Vec::new(),
        };
        // Preorder: an item's `use` is entered before the paths inside it and left after.
        let mut use_depth = 0usize;
        for event in root.preorder() {
            let node = match event {
                ra_ap_syntax::WalkEvent::Enter(node) => node,
                ra_ap_syntax::WalkEvent::Leave(node) => {
                    if ast::Use::can_cast(node.kind()) {
                        use_depth -= 1;
                    }
                    continue;
                }
            };
            let kind = node.kind();
            if ast::Use::can_cast(kind) {
                use_depth += 1;
            } else if let Some(path) = ast::Path::cast(node.clone()) {
                let is_qualifier = node.parent().is_some_and(|p| ast::Path::can_cast(p.kind()));
                if use_depth == 0 && !is_qualifier {
                    let names = segment_names(&path);
                    nodes.code_paths.push((path, names));
                }
            } else if let Some(tree) = ast::UseTree::cast(node.clone()) {
                if tree.use_tree_list().is_none() && tree.star_token().is_none() {
                    let full = full_use_path(&tree);
                    nodes.use_leaves.push((tree, full));
                }
            } else if ast::MethodCallExpr::can_cast(kind) || ast::CallExpr::can_cast(kind) {
                nodes.calls.push(node);
            } else if let Some(implementation) = ast::Impl::cast(node) {
                nodes.impls.push(implementation);
            }
        }
        nodes
    }

    /// Local names the file imports from paths matching `pattern` (leaf imports, not aliased
    /// away), as (local name, imported path), each pair once.
    fn imported_names(&self, pattern: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for (tree, full) in &self.use_leaves {
            if !path_matches(full, pattern) {
                continue;
            }
            let Some(local) = tree
                .rename()
                .and_then(|r| r.name())
                .map(|n| n.text().to_string())
                .or_else(|| full.last().cloned())
            else {
                continue;
            };
            // The same import in several inline modules names the same thing.
            if !out.iter().any(|(l, f)| *l == local && f == full) {
                out.push((local, full.clone()));
            }
        }
        out
    }
}

fn rename_path(ctx: &mut FileCtx, nodes: &FileNodes, rule: RuleKey, from: &str, to: Option<&str>) {
    let root = ctx.root();
    let Some(to) = to else { return };
    let to_last = to.rsplit("::").next().unwrap_or(to).to_string();
    let from_last = from.rsplit("::").next().unwrap_or(from).to_string();
    for (path, names) in &nodes.code_paths {
        if names.iter().map(String::as_str).eq(from.split("::")) {
            ctx.push(Change::edit(
                path.syntax().text_range(),
                to,
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
        for name in root.descendants().filter_map(ast::NameRef::cast) {
            if name.text() != from_last.as_str()
                || name
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
    for pattern in patterns {
        for (path, names) in &nodes.code_paths {
            if path_matches(names, pattern) {
                let text = say(&path.syntax().text().to_string());
                ctx.push(Change::manual(path.syntax().text_range(), rule, text));
            }
        }
        for (local, full) in nodes.imported_names(pattern) {
            for (path, names) in &nodes.code_paths {
                if names.first() == Some(&local) {
                    let text = say(&full.join("::"));
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
    nodes: &FileNodes,
    pattern: &CallPattern,
) -> Vec<(ra_ap_syntax::TextRange, ast::ArgList)> {
    let mut out = Vec::new();
    for node in &nodes.calls {
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
            if !path_ends_with(&path, function) {
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
/// the function `root` (`SupervisedTraining::new(..).metric(..).renderer(..)`).
fn chain_starts_with_call(call: &ast::MethodCallExpr, root: &str) -> bool {
    let mut receiver = call.receiver();
    while let Some(ast::Expr::MethodCallExpr(inner)) = receiver {
        receiver = inner.receiver();
    }
    match receiver {
        Some(ast::Expr::CallExpr(first)) => match first.expr() {
            Some(ast::Expr::PathExpr(callee)) => callee
                .path()
                .is_some_and(|path| path_ends_with(&path, root)),
            _ => false,
        },
        _ => false,
    }
}

fn report_calls(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    pattern: &CallPattern,
    message: &str,
) {
    for (name_range, arg_list) in matching_calls(nodes, pattern) {
        let range = name_range.cover(arg_list.syntax().text_range());
        ctx.push(Change::manual(range, rule, message));
    }
}

/// Reports the definitions of `functions` inside `impl <trait_name> for ..` blocks.
fn report_impl_fns(
    ctx: &mut FileCtx,
    nodes: &FileNodes,
    rule: RuleKey,
    trait_name: &str,
    functions: &[String],
    message: &str,
) {
    for implementation in &nodes.impls {
        let implements_trait = match implementation.trait_() {
            // Burn's trait, as the file's imports resolve it: a project trait of the same
            // name is none of this rule's business.
            Some(ast::Type::PathType(path_type)) => path_type.path().is_some_and(|path| {
                path_ends_with(&path, trait_name)
                    && ctx.index.burn_name(ctx.file_id, &path).is_some()
            }),
            _ => false,
        };
        let Some(items) = implementation
            .assoc_item_list()
            .filter(|_| implements_trait)
        else {
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

fn rewrite_calls(ctx: &mut FileCtx, nodes: &FileNodes, rule: RuleKey, pattern: &CallPattern) {
    let called = pattern.method.or(pattern.function).unwrap_or_default();
    for (name_range, arg_list) in matching_calls(nodes, pattern) {
        if let Some(to) = pattern.to {
            ctx.push(Change::edit(
                name_range,
                to,
                rule,
                format!("`{called}` is `{to}` in Burn 0.22"),
            ));
        }
        if let Some(templates) = pattern.args {
            let originals: Vec<String> = arg_list
                .args()
                .map(|a| ctx.file.slice(a.syntax().text_range()).to_string())
                .collect();
            if already_in_shape(templates, &originals) {
                continue;
            }
            let filled: Vec<String> = templates
                .iter()
                .map(|t| {
                    let mut text = t.clone();
                    for (i, original) in originals.iter().enumerate() {
                        text = text.replace(&format!("{{{i}}}"), original);
                    }
                    text
                })
                .collect();
            ctx.push(Change::edit(
                arg_list.syntax().text_range(),
                format!("({})", filled.join(", ")),
                rule,
                format!("`{called}` takes different arguments in Burn 0.22"),
            ));
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
