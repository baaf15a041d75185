//! Every name a rewrite writes must resolve where it is written (issue 30, item 9): a rule that
//! renames `AutodiffModule` to `Module`, or a user rule whose template names `Helpers`, leaves
//! rustc's "cannot find type" behind unless the module imports the name. The transforms that
//! know their names ask for imports (`FileCtx::need_import`); this audit catches what none
//! asked for. It reads each applied edit's text with rust-analyzer's lexer and, for each
//! capitalised name at the start of a path that the replaced text did not already contain,
//! looks for it the way rustc's resolution would at that place: declared or imported in the
//! enclosing blocks and module (not through inline-module boundaries), a type parameter, the
//! standard prelude, or an import the port adds. A glob import in those scopes may bring any
//! name, so it counts as resolving. What is left is imported where the rule that wrote it says
//! where the item lives (its `[api] after` paths), and otherwise reported at the edit, as a
//! `device-import` finding for a person (the rule that imports what rewrites name): the port
//! would not build there, and the report says so before rustc does.

use std::collections::BTreeSet;

use ra_ap_parser::{Edition, LexedStr, SyntaxKind as Lexed};
use ra_ap_syntax::ast::HasName;
use ra_ap_syntax::{ast, AstNode, SyntaxNode, TextRange};

use super::context::FileCtx;
use super::use_items::{full_use_path, last_segment};
use crate::edit::Change;
use crate::rules::{RuleKey, RuleSet};

/// Names every Rust 2015-2024 module sees without an import: the standard prelude's types,
/// traits, variants and derive macros.
const PRELUDE: &[&str] = &[
    "AsMut",
    "AsRef",
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "Err",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "FromIterator",
    "From",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Self",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
];

/// An applied edit of the file that writes names its scope cannot resolve.
pub struct Unresolved {
    pub range: TextRange,
    /// The rule that made the edit.
    pub rule: RuleKey,
    pub names: Vec<String>,
}

/// Each applied edit of the file that writes names its scope cannot resolve. The text of the
/// edits is read first; the tree is consulted only for the names that text leaves open, so a
/// file with many edits costs in proportion to them.
pub fn unresolved(ctx: &FileCtx) -> Vec<Unresolved> {
    let applied = || ctx.changes.iter().filter(|c| c.is_applied());
    let asked: BTreeSet<&str> = (ctx.needed_imports.iter())
        .map(|path| last_segment(path))
        .collect();
    let open: Vec<(&Change, Vec<&str>)> = applied()
        .filter_map(|change| {
            let text = change.replacement()?;
            let replaced: BTreeSet<&str> = identifiers(ctx.file.slice(change.range)).collect();
            let mut names: Vec<&str> = path_starts(text)
                .filter(|name| !replaced.contains(name) && !PRELUDE.contains(name))
                .filter(|name| !asked.contains(name) && !ctx.declares_type_param(name))
                .collect();
            names.sort_unstable();
            names.dedup();
            (!names.is_empty()).then_some((change, names))
        })
        .collect();
    if open.is_empty() {
        return Vec::new();
    }
    let root = ctx.root();
    let token_at = |change: &Change| root.token_at_offset(change.range.start()).right_biased();
    // Names that edits of `use` items write are imported by the port too (`use
    // burn::DispatchDevice;` renamed to `use burn::tensor::Device;`).
    let renamed_imports: BTreeSet<&str> = applied()
        .filter(|change| {
            token_at(change)
                .is_some_and(|t| t.parent_ancestors().any(|n| ast::Use::can_cast(n.kind())))
        })
        .flat_map(|change| change.replacement().into_iter().flat_map(identifiers))
        .collect();
    let mut out = Vec::new();
    for (change, names) in open {
        // Edits of doc-test code inside a comment come from the doc test's own run, which
        // audits them against the doc test's imports.
        if token_at(change).is_some_and(|t| t.kind() == ra_ap_syntax::SyntaxKind::COMMENT) {
            continue;
        }
        let names: Vec<String> = names
            .into_iter()
            .filter(|name| !renamed_imports.contains(name))
            .filter(|name| !in_scope(&root, change.range, name))
            .map(str::to_string)
            .collect();
        if !names.is_empty() {
            out.push(Unresolved {
                range: change.range,
                rule: change.rule,
                names,
            });
        }
    }
    out
}

/// Where the item `name` that rule `rule` writes lives, from the rule's `[api] after` paths
/// (`burn::store::ModuleRecord` from `burn::store::ModuleRecord::load`); `None` when the rule
/// does not say.
pub fn home_of(rules: &RuleSet, rule: RuleKey, name: &str) -> Option<String> {
    let rule = rules.get(rule.as_str())?;
    rule.api.after.iter().find_map(|path| {
        let segments: Vec<&str> = path.split("::").collect();
        let at = segments.iter().position(|s| *s == name)?;
        (at > 0).then(|| segments[..=at].join("::"))
    })
}

/// The identifiers of `text` (which may be any fragment of Rust).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let lexed = LexedStr::new(Edition::CURRENT, text);
    let words: Vec<&str> = (0..lexed.len())
        .filter(|&i| lexed.kind(i) == Lexed::IDENT)
        .map(|i| &text[lexed.text_range(i)])
        .collect();
    words.into_iter()
}

/// The capitalised names of `text` that start a path and are not declared there: not after
/// `::` or `.`, not a macro's name, not the name a `struct`, `trait` (..) item gets.
fn path_starts(text: &str) -> impl Iterator<Item = &str> {
    let lexed = LexedStr::new(Edition::CURRENT, text);
    let significant: Vec<usize> = (0..lexed.len())
        .filter(|&i| !lexed.kind(i).is_trivia() && lexed.kind(i) != Lexed::EOF)
        .collect();
    let in_attribute_arguments = attribute_arguments(&lexed, &significant, text);
    let mut out = Vec::new();
    for (at, &i) in significant.iter().enumerate() {
        let word = &text[lexed.text_range(i)];
        if lexed.kind(i) != Lexed::IDENT || !word.starts_with(char::is_uppercase) {
            continue;
        }
        if in_attribute_arguments[at] {
            continue;
        }
        let before = at.checked_sub(1).map(|p| lexed.kind(significant[p]));
        let after = significant.get(at + 1).map(|&n| lexed.kind(n));
        // The lexer gives `::` as two `:` tokens (the parser joins them).
        let colon_before = |back: usize| {
            at.checked_sub(back)
                .is_some_and(|p| lexed.kind(significant[p]) == Lexed::COLON)
        };
        let qualified = matches!(before, Some(Lexed::COLON2 | Lexed::DOT))
            || (colon_before(1) && colon_before(2));
        let declared = matches!(
            before,
            Some(
                Lexed::STRUCT_KW
                    | Lexed::ENUM_KW
                    | Lexed::TRAIT_KW
                    | Lexed::TYPE_KW
                    | Lexed::FN_KW
                    | Lexed::MOD_KW
                    | Lexed::CONST_KW
                    | Lexed::STATIC_KW
                    | Lexed::UNION_KW
                    | Lexed::AS_KW
            )
        );
        if !qualified && !declared && after != Some(Lexed::BANG) {
            out.push(word);
        }
    }
    out.into_iter()
}

/// For each of `significant` (positions of the lexed tokens), whether it is inside the
/// arguments of an attribute other than `derive` (`#[backend_extension(Autodiff, Cube)]`,
/// `#[cfg(..)]`): the attribute reads them as its own syntax, not as paths to resolve
/// (`derive`'s are derive macros, which resolve like other names).
fn attribute_arguments(lexed: &LexedStr, significant: &[usize], text: &str) -> Vec<bool> {
    let kind = |at: usize| lexed.kind(significant[at]);
    let mut inside = vec![false; significant.len()];
    let mut at = 0;
    while at + 1 < significant.len() {
        if !(kind(at) == Lexed::POUND && kind(at + 1) == Lexed::L_BRACK) {
            at += 1;
            continue;
        }
        // The attribute's path, up to its arguments.
        let mut next = at + 2;
        let mut last_name = "";
        while next < significant.len()
            && matches!(kind(next), Lexed::IDENT | Lexed::COLON | Lexed::COLON2)
        {
            if kind(next) == Lexed::IDENT {
                last_name = &text[lexed.text_range(significant[next])];
            }
            next += 1;
        }
        if next >= significant.len() || kind(next) != Lexed::L_PAREN || last_name == "derive" {
            at = next;
            continue;
        }
        let mut depth = 0usize;
        while next < significant.len() {
            match kind(next) {
                Lexed::L_PAREN | Lexed::L_BRACK | Lexed::L_CURLY => depth += 1,
                Lexed::R_PAREN | Lexed::R_BRACK | Lexed::R_CURLY => depth = depth.saturating_sub(1),
                _ => inside[next] = true,
            }
            next += 1;
            if depth == 0 {
                break;
            }
        }
        at = next;
    }
    inside
}

/// Whether `name` resolves at `range`: declared or imported by the blocks around it and their
/// module (up to the first module boundary), or possibly brought in by a glob import there.
fn in_scope(root: &SyntaxNode, range: TextRange, name: &str) -> bool {
    let Some(token) = root.token_at_offset(range.start()).right_biased() else {
        return true;
    };
    for scope in token.parent_ancestors() {
        let module_level = ast::SourceFile::can_cast(scope.kind())
            || ast::ItemList::cast(scope.clone())
                .is_some_and(|list| list.syntax().parent().and_then(ast::Module::cast).is_some());
        let block = ast::StmtList::can_cast(scope.kind());
        if (module_level || block) && scope_has(&scope, name) {
            return true;
        }
        if module_level {
            return false;
        }
    }
    false
}

/// Whether the items directly in `scope` declare `name`, import it, or glob-import anything.
fn scope_has(scope: &SyntaxNode, name: &str) -> bool {
    let items = scope.children().filter_map(ast::Item::cast);
    let macro_items = scope
        .children()
        .filter_map(ast::ExprStmt::cast)
        .filter_map(|s| s.expr())
        .filter_map(|e| match e {
            ast::Expr::MacroExpr(m) => m.macro_call().map(ast::Item::MacroCall),
            _ => None,
        });
    items.chain(macro_items).any(|item| match item {
        ast::Item::Use(u) => u.use_tree().is_some_and(|tree| {
            tree.syntax()
                .descendants()
                .filter_map(ast::UseTree::cast)
                .any(|t| t.star_token().is_some() || use_tree_names(&t).as_deref() == Some(name))
        }),
        // A macro invocation among items may declare anything.
        ast::Item::MacroCall(_) => true,
        other => item_name(&other).as_deref() == Some(name),
    })
}

/// The name a leaf use tree brings in (`Device`, `Device as D` gives `D`, `tensor::{self}`
/// gives `tensor`).
fn use_tree_names(tree: &ast::UseTree) -> Option<String> {
    if tree.use_tree_list().is_some() || tree.star_token().is_some() {
        return None;
    }
    if let Some(rename) = tree.rename() {
        return rename.name().map(|n| n.text().to_string());
    }
    let path = full_use_path(tree);
    match path.last().map(String::as_str) {
        Some("self") => path.iter().rev().nth(1).cloned(),
        other => other.map(str::to_string),
    }
}

/// The name an item declares, for the items that declare one.
fn item_name(item: &ast::Item) -> Option<String> {
    if let ast::Item::ExternCrate(krate) = item {
        return match krate.rename() {
            Some(rename) => rename.name().map(|n| n.text().to_string()),
            None => krate.name_ref().map(|n| n.text().to_string()),
        };
    }
    let name = match item {
        ast::Item::Struct(i) => i.name(),
        ast::Item::Enum(i) => i.name(),
        ast::Item::Union(i) => i.name(),
        ast::Item::Trait(i) => i.name(),
        ast::Item::TypeAlias(i) => i.name(),
        ast::Item::Fn(i) => i.name(),
        ast::Item::Const(i) => i.name(),
        ast::Item::Static(i) => i.name(),
        ast::Item::Module(i) => i.name(),
        ast::Item::MacroRules(i) => i.name(),
        ast::Item::MacroDef(i) => i.name(),
        _ => None,
    }?;
    Some(name.text().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_starts_are_capitalised_unqualified_names_that_are_not_declared_there() {
        let starts: Vec<&str> = path_starts(
            "let d: Device = Device::flex(); x.Field; a::Qualified; struct New; foo!(); Bar!(); \"Quoted\" // Commented\n Some(ModuleRecord::load(p)) #[ext(Autodiff, Cube)] #[derive(Module)]",
        )
        .collect();
        assert_eq!(
            starts,
            ["Device", "Device", "Some", "ModuleRecord", "Module"]
        );
    }

    #[test]
    fn names_resolve_through_imports_items_blocks_and_globs_but_not_across_modules() {
        let text = "use burn::tensor::Device as Dev;\nuse a::{b::{self}, C};\nstruct Local;\nfn f() {\n    use x::Inner;\n    let _ = 1;\n}\nmod m {\n    fn g() {}\n}\nmod n {\n    use super::*;\n    fn h() {}\n}\n";
        let file = ast::SourceFile::parse(text, ra_ap_syntax::Edition::CURRENT).tree();
        let root = file.syntax().clone();
        let at = |needle: &str| {
            let start = text.find(needle).unwrap() as u32;
            TextRange::empty(start.into())
        };
        for name in ["Dev", "b", "C", "Local"] {
            assert!(in_scope(&root, at("struct Local"), name), "{name}");
        }
        assert!(!in_scope(&root, at("struct Local"), "Device"));
        assert!(in_scope(&root, at("let _"), "Inner"));
        assert!(!in_scope(&root, at("struct Local"), "Inner"));
        assert!(
            !in_scope(&root, at("fn g"), "Local"),
            "inline modules do not see the file's items"
        );
        assert!(
            in_scope(&root, at("fn h"), "Anything"),
            "a glob may bring any name"
        );
    }
}
