//! `include!` calls: files a crate compiles that no `mod` declaration names. Discover follows
//! each call whose file it can find the way rustc does, so the included file is ported in
//! place like a module file; what it cannot follow is reported under `include-unfollowed` at
//! the call, so `--check` does not call a project clean while code it never read still has
//! backend generics.
//!
//! rustc resolves an `include!` path relative to the directory of the file that holds the
//! call (not the module path: an `include!` inside `mod x { .. }` looks beside the file), and
//! `mod` declarations inside an included file resolve from the included file's own directory.
//! At item position the file is items; anywhere else (an expression, a statement) it is one
//! expression, which burn-migrate ports only if it also parses as items.
//!
//! `include_str!` and `include_bytes!` pull in data, not code: they are other macros and not
//! looked at.

use std::path::{Path, PathBuf};

use ra_ap_syntax::ast::{self, AstToken};
use ra_ap_syntax::{AstNode, SyntaxKind, TextRange};

use crate::edit::Change;
use crate::migrate::line_map::LinesMoved;
use crate::migrate::outcome::Report;
use crate::migrate::source::SourceFile;
use crate::migrate::suppress;
use crate::rules::{ModuleId, RuleHome, RuleId};
use crate::util::files::Canonical;

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::Includes,
    emits: &[RuleId::IncludeUnfollowed],
};

/// Where a call stands, which decides what rustc parses the included file as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// In a file's or an inline module's items: the file is items.
    Items,
    /// An expression or a statement: the file is one expression.
    Expression,
}

/// What a call names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A string literal: a path known before the build.
    Literal(String),
    /// Anything else (`concat!(env!("OUT_DIR"), "/x.rs")`, `env!("X")`): a path only the build
    /// knows. The argument's text, for the message.
    Computed(String),
}

/// One `include!` call.
#[derive(Debug, Clone)]
pub struct IncludeCall {
    /// From the macro's name to its closing delimiter: where findings about the call point.
    pub range: TextRange,
    pub target: Target,
    pub position: Position,
}

/// An `include!` call of a file whose file discover could not follow: where, and why in words
/// that say what to do.
#[derive(Debug, Clone)]
pub struct Unfollowed {
    pub range: TextRange,
    pub message: String,
}

/// The `include!` calls of a file that rustc expands: at item, expression or statement
/// position (one in an impl block or a type does not compile, so none is there). Calls inside
/// another macro's arguments are tokens, not syntax, and are not seen.
pub fn calls(file: &SourceFile) -> Vec<IncludeCall> {
    // Every call contains the word: without it in the text, no tree walk.
    if !file.text.contains("include") {
        return Vec::new();
    }
    file.tree()
        .syntax()
        .descendants()
        .filter_map(ast::MacroCall::cast)
        .filter_map(|call| include_call(&call))
        .collect()
}

fn include_call(call: &ast::MacroCall) -> Option<IncludeCall> {
    let path = call.path()?;
    if !names_std_include(&path) {
        return None;
    }
    let position = match call.syntax().parent()?.kind() {
        SyntaxKind::SOURCE_FILE | SyntaxKind::ITEM_LIST => Position::Items,
        SyntaxKind::MACRO_EXPR | SyntaxKind::STMT_LIST => Position::Expression,
        _ => return None,
    };
    let tree = call.token_tree()?;
    let range = TextRange::new(
        path.syntax().text_range().start(),
        tree.syntax().text_range().end(),
    );
    Some(IncludeCall {
        range,
        target: target_of(&tree),
        position,
    })
}

/// `include`, `std::include`, `core::include` (with or without a leading `::`): the macro of
/// the standard library, not one a crate defines under another path.
fn names_std_include(path: &ast::Path) -> bool {
    let Some(segment) = path.segment() else {
        return false;
    };
    if segment.name_ref().is_none_or(|n| n.text() != "include") {
        return false;
    }
    match path.qualifier() {
        None => segment.coloncolon_token().is_none(),
        Some(qualifier) => {
            qualifier.qualifier().is_none()
                && qualifier
                    .segment()
                    .and_then(|s| s.name_ref())
                    .is_some_and(|n| n.text() == "std" || n.text() == "core")
        }
    }
}

/// A single string literal (a trailing comma allowed) is a path; anything else is computed.
fn target_of(tree: &ast::TokenTree) -> Target {
    let tokens: Vec<_> = tree
        .syntax()
        .children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia())
        .collect();
    // The delimiters are the first and last tokens.
    let inner = tokens.get(1..tokens.len().saturating_sub(1)).unwrap_or(&[]);
    let literal = match inner {
        [one] | [one, _] if inner.get(1).is_none_or(|c| c.kind() == SyntaxKind::COMMA) => {
            ast::String::cast(one.clone()).and_then(|s| s.value().ok().map(|v| v.into_owned()))
        }
        _ => None,
    };
    match literal {
        Some(path) => Target::Literal(path),
        None => {
            let whole = tree.syntax().text().to_string();
            let argument = whole
                .get(1..whole.len().saturating_sub(1))
                .unwrap_or(&whole)
                .trim()
                .to_string();
            Target::Computed(argument)
        }
    }
}

/// The file an `include!` of `literal` in `file` names, as rustc resolves it: relative to the
/// directory of `file` as reached (a module reached through a symlink resolves beside the
/// link, as rustc reads it). `src/../shared/model.rs` is `shared/model.rs` where both are one
/// file (no link on the way makes `..` lead elsewhere), so messages and diffs name it so.
pub fn resolve(file: &Path, literal: &str, canonical: &Canonical) -> PathBuf {
    let joined = file.parent().unwrap_or(Path::new("")).join(literal);
    let lexical = without_dot_components(&joined);
    if lexical == joined {
        return joined;
    }
    match (canonical.of(&lexical), canonical.of(&joined)) {
        (Ok(a), Ok(b)) if a == b => lexical,
        _ => joined,
    }
}

/// `path` with `.` dropped and each `..` taking the name before it away (where there is one).
fn without_dot_components(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// What an included file that rustc parses as one expression is to burn-migrate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpressionFile {
    /// It also parses as items: ported like any file.
    Items,
    /// It does not, and names nothing of Burn (a table of numbers, say): nothing to port.
    NoBurn,
    /// It does not, and mentions Burn: a person ports it.
    Burn,
}

/// Reads an included file rustc parses as an expression and says what it is to burn-migrate.
/// A file that cannot be read is left to the error rustc gives for it.
pub fn expression_file(
    path: &Path,
    edition: ra_ap_syntax::Edition,
    names: &crate::migrate::crate_names::DependencyNames,
) -> ExpressionFile {
    let Ok(text) = std::fs::read_to_string(path) else {
        return ExpressionFile::NoBurn;
    };
    if crate::migrate::source::parse(&text, edition).1 == 0 {
        ExpressionFile::Items
    } else if crate::migrate::doc_tests::mentions_burn(&text, names) {
        ExpressionFile::Burn
    } else {
        ExpressionFile::NoBurn
    }
}

/// Whether the file a call names can be ported in place: it exists and is inside the project.
/// `Err` says why not, and what to do.
/// `inside` is the project root with links resolved; `root` the root as displayed paths are
/// relative to.
pub fn followable(
    target: &Path,
    literal: &str,
    (root, inside): (&Path, &Path),
    canonical: &Canonical,
) -> Result<(), String> {
    if !target.is_file() {
        return Err(format!(
            "`include!(\"{literal}\")` names no file (there is none at {}): if the build creates it, port the code that writes it; otherwise fix the path and run burn-migrate again",
            target.strip_prefix(root).unwrap_or(target).display()
        ));
    }
    match canonical.of(target) {
        Ok(resolved) if resolved.starts_with(inside) => Ok(()),
        Ok(resolved) => Err(format!(
            "`include!(\"{literal}\")` pulls in {}, outside the project, which burn-migrate never writes: port that file where it lives (run burn-migrate on its project), or move it into this one",
            resolved.display()
        )),
        Err(e) => Err(format!(
            "`include!(\"{literal}\")`: {} cannot be resolved ({e}); fix the path and run burn-migrate again",
            target.display()
        )),
    }
}

/// The finding for an included file that is one expression and does not parse as items:
/// burn-migrate ports files of items only.
pub fn expression_message(literal: &str) -> String {
    format!(
        "`include!(\"{literal}\")` pulls in an expression that mentions Burn, which burn-migrate does not port (it ports files of items): port that file by hand"
    )
}

/// The findings of a file's `include!` calls whose path only the build knows: burn-migrate
/// cannot read that code (discover follows and reports the literal paths).
pub fn computed_path_findings(file: &SourceFile) -> Vec<Change> {
    calls(file)
        .into_iter()
        .filter_map(|call| {
            let Target::Computed(argument) = &call.target else {
                return None;
            };
            // A file under `OUT_DIR` is a build script's output, most often a model a
            // generator built on Burn wrote: moving the generator is the port.
            let what_to_do = if argument.contains("OUT_DIR") {
                "if a build script generates it (burn-import's `ModelGen`, say), move the generator to Burn 0.22 so it writes 0.22 code, otherwise port the code that writes the file"
            } else {
                "port that file by hand (or the code that writes it)"
            };
            Some(Change::manual(
                call.range,
                RuleId::IncludeUnfollowed,
                format!(
                    "`include!({argument})` names its file only at build time, so burn-migrate cannot read or port that code: {what_to_do}; then `// burn-migrate: allow(include-unfollowed)` above the call"
                ),
            ))
        })
        .collect()
}

/// The `include!` calls discover could not follow (`includes`), each a finding at the call in
/// the file that holds it, unless an allow comment there suppresses it.
pub fn unfollowed_findings(report: &mut Report, unfollowed: Vec<(PathBuf, Unfollowed)>) {
    for (path, unfollowed) in unfollowed {
        let Some(outcome) = report.files.iter_mut().find(|f| f.path == path) else {
            continue;
        };
        let finding = Change::manual(
            unfollowed.range,
            RuleId::IncludeUnfollowed,
            &unfollowed.message,
        );
        let kept = suppress::apply(vec![finding], &mut outcome.suppressions);
        // The call stays as it is: in the port's text, where its line went.
        if let Some(found) = &mut outcome.port_findings {
            let mut moved = kept.clone();
            LinesMoved::new(&outcome.original, &outcome.migrated).apply(&mut moved);
            found.extend(moved);
            found.sort_by_key(|c| c.range.start());
        }
        outcome.changes.extend(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ra_ap_syntax::Edition;

    fn file(text: &str) -> SourceFile {
        SourceFile::from_text(
            PathBuf::from("src/lib.rs"),
            "src/lib.rs".to_string(),
            text.to_string(),
            0,
            Edition::Edition2021,
        )
    }

    fn at<'a>(text: &'a str, call: &IncludeCall) -> &'a str {
        &text[call.range]
    }

    #[test]
    fn calls_are_found_with_their_position_and_target() {
        let text = r#"include!("items.rs");
mod inline {
    std::include!("nested.rs",);
}
fn f() -> u8 {
    include!("statement.rs");
    let x = ::core::include!(r"expr\raw.rs");
    let s = include_str!("data.txt");
    let b = include_bytes!("data.bin");
    println!("{}", include!("in_println.rs"));
    x
}
include!(concat!(env!("OUT_DIR"), "/gen.rs"));
include!(env!("MODEL"));
include!("esc\\aped.rs");
other::include!("not_std.rs");
"#;
        let file = file(text);
        let calls = calls(&file);
        let found: Vec<(&str, Target, Position)> = calls
            .iter()
            .map(|c| (at(text, c), c.target.clone(), c.position))
            .collect();
        let literal = |p: &str| Target::Literal(p.to_string());
        assert_eq!(
            found,
            vec![
                (
                    r#"include!("items.rs")"#,
                    literal("items.rs"),
                    Position::Items
                ),
                (
                    r#"std::include!("nested.rs",)"#,
                    literal("nested.rs"),
                    Position::Items
                ),
                (
                    r#"include!("statement.rs")"#,
                    literal("statement.rs"),
                    Position::Expression
                ),
                (
                    r#"::core::include!(r"expr\raw.rs")"#,
                    literal(r"expr\raw.rs"),
                    Position::Expression
                ),
                (
                    r#"include!("in_println.rs")"#,
                    literal("in_println.rs"),
                    Position::Expression
                ),
                (
                    r#"include!(concat!(env!("OUT_DIR"), "/gen.rs"))"#,
                    Target::Computed(r#"concat!(env!("OUT_DIR"), "/gen.rs")"#.to_string()),
                    Position::Items
                ),
                (
                    r#"include!(env!("MODEL"))"#,
                    Target::Computed(r#"env!("MODEL")"#.to_string()),
                    Position::Items
                ),
                (
                    r#"include!("esc\\aped.rs")"#,
                    literal("esc\\aped.rs"),
                    Position::Items
                ),
            ]
        );
    }

    #[test]
    fn computed_paths_are_findings_at_the_call() {
        let text = "mod generated {\n    include!(concat!(env!(\"OUT_DIR\"), \"/model.rs\"));\n}\ninclude!(\"plain.rs\");\n";
        let findings = computed_path_findings(&file(text));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(text[findings[0].range].starts_with("include!(concat!"));
        assert!(
            findings[0].message.contains("build script"),
            "{}",
            findings[0].message
        );
    }
}
