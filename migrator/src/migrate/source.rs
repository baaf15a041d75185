//! The parse stage: a Rust source file as text plus its lossless syntax tree.

use std::ops::Range;
use std::path::{Path, PathBuf};

use ra_ap_syntax::ast::{self, HasModuleItem, HasName};
use ra_ap_syntax::{AstNode, Edition, GreenNode, SourceFile as AstFile, SyntaxNode, TextSize};

use crate::error::Error;

mod pieces;
mod reuse;

pub use reuse::Untouched;

#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Absolute path on disk.
    pub path: PathBuf,
    /// Path relative to the project root, with `/` separators, for messages.
    pub display: String,
    /// Shared, not copied, with the outcome's `original` and the copies the stages keep.
    pub text: std::sync::Arc<str>,
    /// Index of the package (in `Workspace::packages`) that owns this file.
    pub package: usize,
    pub edition: Edition,
    /// The tree's green nodes, not a syntax node: they are `Send + Sync`, so files are parsed,
    /// indexed and rewritten on several threads; each `tree()` call makes a cheap root over
    /// them. `None` once `release_tree` let them go.
    green: Option<GreenNode>,
    /// Number of syntax errors the file had before any edit: a rewrite may not add any.
    pub syntax_errors: usize,
    /// For a file `include!` pastes into another: the path of the file whose names it shares
    /// (the includer, or the file that includes that one). `None` for a file of its own.
    pub scope: Option<std::sync::Arc<Path>>,
    /// How the file's package names Burn's crates (`nn = { package = "burn" }`); plain
    /// unless `with_dependency_names` says otherwise. A file rebuilt from another (a pass's
    /// rewrite, a doc test) keeps its package's.
    pub dependency_names: std::sync::Arc<crate::migrate::crate_names::DependencyNames>,
    /// The file on disk starts with a byte-order mark, which `text` leaves out: rustc skips
    /// it, and rules, offsets and columns work on the text after it; what is written keeps it
    /// (`util::layout`).
    pub bom: bool,
}

/// What the code a rewrite reads is written for: Burn 0.21, which the rules port, or Burn
/// 0.22 already (a project ported before, or the check of a port), where only regressions
/// count. (A file outcome's `migrated` is the text of the port, a different thing.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeTarget {
    Burn021,
    Burn022,
}

/// What a file is apart from its text: what a file rebuilt from another's text keeps (a
/// pass's rewrite, the check of a port). The byte-order mark is the file on disk's, which
/// the outcome keeps (`FileOutcome::bom`): a rebuilt file has none.
#[derive(Debug, Clone)]
pub struct FileIdentity {
    pub path: PathBuf,
    pub display: String,
    pub package: usize,
    pub edition: Edition,
    pub scope: Option<std::sync::Arc<Path>>,
    pub dependency_names: std::sync::Arc<crate::migrate::crate_names::DependencyNames>,
}

impl FileIdentity {
    /// The file with this identity and `text`, parsed.
    pub fn parse(self, text: impl Into<std::sync::Arc<str>>) -> SourceFile {
        SourceFile::from_text(self.path, self.display, text, self.package, self.edition)
            .in_scope(self.scope)
            .with_dependency_names(self.dependency_names)
    }

    /// The file with this identity and `text`, which `edits` made of a file whose
    /// `untouched` items the new tree takes as they are (`SourceFile::from_edited_text`).
    pub fn parse_edited(
        self,
        text: String,
        untouched: Untouched,
        edits: &[(ra_ap_syntax::TextRange, usize)],
    ) -> SourceFile {
        let (path, display) = (self.path, self.display);
        SourceFile::from_edited_text(
            path,
            display,
            text,
            self.package,
            self.edition,
            untouched,
            edits,
        )
        .in_scope(self.scope)
        .with_dependency_names(self.dependency_names)
    }
}

impl SourceFile {
    pub fn read(
        path: &Path,
        display: String,
        package: usize,
        edition: Edition,
    ) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut text = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
            path: path.to_path_buf(),
        })?;
        let bom = crate::util::layout::strip_bom(&text).1;
        if bom {
            text.drain(..crate::util::layout::BOM.len());
        }
        let mut file = Self::from_text(path.to_path_buf(), display, text, package, edition);
        file.bom = bom;
        Ok(file)
    }

    /// `from_text` of `text`, which `edits` made of a file whose `untouched` items the new
    /// tree takes as they are (see `reuse`).
    pub fn from_edited_text(
        path: PathBuf,
        display: String,
        text: String,
        package: usize,
        edition: Edition,
        untouched: Untouched,
        edits: &[(ra_ap_syntax::TextRange, usize)],
    ) -> Self {
        match parse_reusing(&text, edition, untouched, edits) {
            Some(green) => SourceFile {
                path,
                display,
                text: text.into(),
                package,
                edition,
                green: Some(green),
                syntax_errors: 0,
                scope: None,
                dependency_names: Default::default(),
                bom: false,
            },
            None => Self::from_text(path, display, text, package, edition),
        }
    }

    /// What the file is apart from its text.
    pub fn identity(&self) -> FileIdentity {
        FileIdentity {
            path: self.path.clone(),
            display: self.display.clone(),
            package: self.package,
            edition: self.edition,
            scope: self.scope.clone(),
            dependency_names: self.dependency_names.clone(),
        }
    }

    /// This file with `text` instead of its own, parsed (the port's text, or the text as read
    /// again after a pass that went wrong).
    pub fn with_text(&self, text: impl Into<std::sync::Arc<str>>) -> SourceFile {
        self.identity().parse(text)
    }

    /// The items of the tree that `edits` (`edit::applied_ranges`) leave alone, for the parse
    /// of the text they make (`from_edited_text`); none where the file has a syntax error or
    /// its tree was let go.
    pub fn untouched_items(&self, edits: &[(ra_ap_syntax::TextRange, usize)]) -> Untouched {
        match &self.green {
            Some(green) if self.syntax_errors == 0 => reuse::untouched_items(green, edits),
            _ => Untouched::default(),
        }
    }

    pub fn from_text(
        path: PathBuf,
        display: String,
        text: impl Into<std::sync::Arc<str>>,
        package: usize,
        edition: Edition,
    ) -> Self {
        let text = text.into();
        let (green, syntax_errors) = parse_opened(&text, edition);
        SourceFile {
            path,
            display,
            text,
            package,
            edition,
            green: Some(green),
            syntax_errors,
            scope: None,
            dependency_names: Default::default(),
            bom: false,
        }
    }

    /// The same file, sharing the names of `scope` (see `SourceFile::scope`): what a copy of
    /// a file made from its text keeps of the original.
    pub fn in_scope(mut self, scope: Option<std::sync::Arc<Path>>) -> Self {
        self.scope = scope;
        self
    }

    /// The file, in a package that names Burn's crates as `names` says.
    pub fn with_dependency_names(
        mut self,
        names: std::sync::Arc<crate::migrate::crate_names::DependencyNames>,
    ) -> Self {
        self.dependency_names = names;
        self
    }

    /// The syntax tree rules work on: the file's own, except that the arguments of std's
    /// expression macros (`println!(..)`, `assert_eq!(..)`, ...) are parsed as expressions
    /// (see `open_expression_macros`). Offsets match `text` byte for byte.
    pub fn tree(&self) -> AstFile {
        let green = match &self.green {
            Some(green) => green.clone(),
            None => parse_opened(&self.text, self.edition).0,
        };
        root_of(green)
    }

    /// Lets the syntax tree go, the largest part of a parsed file, where the file's text and
    /// facts are all that is needed any more; `tree()` still works, parsing the text again.
    pub fn release_tree(&mut self) {
        self.green = None;
    }

    /// The original text of a range of the tree.
    pub fn slice(&self, range: ra_ap_syntax::TextRange) -> &str {
        &self.text[range]
    }

    /// Why the file as written has no tree to port: its first syntax error, or the first
    /// delimiter past the nesting burn-migrate parses (`MAX_NESTING`).
    pub fn first_syntax_error(&self) -> Option<SyntaxFailure> {
        if self.syntax_errors == 0 {
            return None;
        }
        let (offset, message, too_deep) = match nesting_too_deep(&self.text, self.edition) {
            Some(offset) => (
                offset,
                format!("nesting too deep: more than {MAX_NESTING} parentheses, brackets and braces inside one another"),
                true,
            ),
            None => {
                let (offset, message) = first_error(&self.text, self.edition)?;
                (offset, message, false)
            }
        };
        let offset = offset.min(self.text.len());
        let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        Some(SyntaxFailure {
            line: self.line_of(TextSize::from(offset as u32)),
            column: self.text[line_start..offset].chars().count() + 1,
            message,
            too_deep,
        })
    }

    /// 1-based line of a byte offset, for messages.
    pub fn line_of(&self, offset: TextSize) -> usize {
        let offset = usize::from(offset).min(self.text.len());
        self.text[..offset].bytes().filter(|&b| b == b'\n').count() + 1
    }
}

/// Where a file's text fails to parse (`SourceFile::first_syntax_error`): 1-based line and
/// column (in characters), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxFailure {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// Not a syntax error: the text nests deeper than `MAX_NESTING`.
    pub too_deep: bool,
}

/// How deep parentheses, brackets and braces may nest in a text burn-migrate parses. The
/// parser recurses per level: on an 8 MiB stack a debug build overflowed at 2,450 nested
/// parentheses, 2,030 braces and 1,860 nested `if x {` (3.4 to 4.4 KiB a level); release
/// frames are smaller. 256 levels take about 1.1 MiB in the worst of those, so they parse
/// even on a 2 MiB thread (rayon's and the test harness's default), and are 1/200 of what
/// the command's threads hold (`STACK_BYTES` in `main`, 256 MiB). People nest a few dozen
/// levels at most. A text nesting deeper gets no tree: it is reported like a syntax error
/// (`first_syntax_error`), at the delimiter that goes too deep.
pub const MAX_NESTING: usize = 256;

/// The offset of the first delimiter of `text` that opens level `MAX_NESTING + 1`, if any.
fn nesting_too_deep(text: &str, edition: Edition) -> Option<usize> {
    too_deep_in(&ra_ap_parser::LexedStr::new(edition, text))
}

/// `nesting_too_deep` of a lexed text: one pass over the token kinds.
fn too_deep_in(lexed: &ra_ap_parser::LexedStr<'_>) -> Option<usize> {
    use ra_ap_syntax::T;
    let mut depth = 0usize;
    for i in 0..lexed.len() {
        match lexed.kind(i) {
            T!['('] | T!['['] | T!['{'] => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(lexed.text_start(i));
                }
            }
            T![')'] | T![']'] | T!['}'] => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The first syntax error of `text` as `AstFile::parse` lists it (the parser's first, else
/// the lexer's first): its offset and message. Builds no tree (see `parse_piece` for why not
/// `AstFile::parse`).
fn first_error(text: &str, edition: Edition) -> Option<(usize, String)> {
    use ra_ap_parser::StrStep;
    let lexed = ra_ap_parser::LexedStr::new(edition, text);
    let output = ra_ap_parser::TopEntryPoint::SourceFile.parse(&lexed.to_input(edition));
    let mut first = None;
    lexed.intersperse_trivia(&output, &mut |step| {
        if let (StrStep::Error { msg, pos }, None) = (step, &first) {
            first = Some((pos, msg.to_string()));
        }
    });
    first.or_else(|| {
        let (token, message) = lexed.errors().next()?;
        Some((lexed.text_start(token), message.to_string()))
    })
}

/// The tree of a text too deep to parse: the whole text one error token, so that the tree
/// still spans the text, and rules, finding nothing to match, leave it alone.
fn unparsed_tree(text: &str) -> GreenNode {
    use ra_ap_syntax::SyntaxKind::{ERROR, SOURCE_FILE};
    let mut builder = rowan::GreenNodeBuilder::new();
    builder.start_node(rowan::SyntaxKind(SOURCE_FILE.into()));
    if !text.is_empty() {
        builder.token(rowan::SyntaxKind(ERROR.into()), text);
    }
    builder.finish_node();
    builder.finish()
}

/// The parse rules work on (expression macros opened, see `SourceFile::tree`) and the number
/// of syntax errors of `text` as written.
fn parse_opened(text: &str, edition: Edition) -> (GreenNode, usize) {
    // One parse where it suffices: open the macros found from tokens and parse that. A file
    // whose opened text parses without error parses as written too (a call `name_(..)` stands
    // where `name!(..)` may), so its count of syntax errors is 0. Anything else takes the two
    // parses below, which decide from the tree.
    if let Opening::Opened(opened) = open_expression_macros_by_tokens(text, edition) {
        let (parse, errors) = parse_counting_errors(&opened, edition);
        if errors == 0 {
            return (parse, 0);
        }
    }
    let (own, syntax_errors) = parse_counting_errors(text, edition);
    // Most files differ once macros are opened, but a file without `println!` & co keeps its
    // own parse instead of parsing the same text twice.
    let green = match open_expression_macros(&root_of(own.clone()), text) {
        Some(opened) => parse_counting_errors(&opened, edition).0,
        None => own,
    };
    (green, syntax_errors)
}

/// The tree of `text`, which `edits` made of a file whose `untouched` items it takes as they
/// are, if that is the tree `parse_opened` makes (see `reuse`).
pub(crate) fn parse_reusing(
    text: &str,
    edition: Edition,
    untouched: Untouched,
    edits: &[(ra_ap_syntax::TextRange, usize)],
) -> Option<GreenNode> {
    reuse::parse(text, untouched, edits, |region| {
        let (green, errors) = match open_expression_macros_by_tokens(region, edition) {
            Opening::Nothing => parse_counting_errors(region, edition),
            Opening::Opened(opened) => parse_counting_errors(&opened, edition),
            Opening::Unknown => return None,
        };
        (errors == 0).then_some(green)
    })
}

/// Parses Rust text; returns the tree and how many syntax errors it has. Use this, not
/// `ra_ap_syntax::SourceFile::parse`, on a user's code: a text nesting deeper than
/// `MAX_NESTING` is not parsed (one error, see `unparsed_tree`), and the tree is dropped on
/// the caller's thread, not on rust-analyzer's small-stack dropper thread (`parse_piece`).
pub fn parse(text: &str, edition: Edition) -> (AstFile, usize) {
    let (green, errors) = parse_counting_errors(text, edition);
    (root_of(green), errors)
}

/// The file node over a tree `parse_counting_errors` built.
fn root_of(green: GreenNode) -> AstFile {
    AstFile::cast(SyntaxNode::new_root(green))
        .expect("the parser's top entry point always builds a SOURCE_FILE root")
}

/// Node caches between parses, with the generation they were filled in. A parse takes one
/// (or starts one) and puts it back, so the trees a thread builds share their nodes and
/// tokens: `fn`, `,`, `self`, a single space and most small nodes are built once for all
/// files, not once per file, and no file starts with an empty table that grows as it is
/// filled. About one cache per thread: a parse holds its cache while it runs.
static NODE_CACHES: std::sync::Mutex<(usize, Vec<rowan::NodeCache>)> =
    std::sync::Mutex::new((0, Vec::new()));

/// Trees parsed from now on share no nodes with those parsed before. A cache holds every
/// node it handed out: once the trees a pass replaces are let go, their nodes are freed only
/// if the caches go too.
pub fn forget_built_nodes() {
    let mut caches = node_caches();
    caches.0 += 1;
    caches.1.clear();
}

/// `NODE_CACHES`, locked. A parse that panicked while it held a cache did not put it back:
/// the others are sound.
fn node_caches() -> std::sync::MutexGuard<'static, (usize, Vec<rowan::NodeCache>)> {
    NODE_CACHES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `build` on a cache from `NODE_CACHES`; the cache goes back unless the caches were
/// forgotten meanwhile.
fn with_node_cache<T>(build: impl FnOnce(&mut rowan::NodeCache) -> T) -> T {
    let (generation, mut cache) = {
        let mut caches = node_caches();
        (caches.0, caches.1.pop().unwrap_or_default())
    };
    let built = build(&mut cache);
    let mut caches = node_caches();
    if caches.0 == generation {
        caches.1.push(cache);
    }
    built
}

/// `AstFile::parse`, counting the lexer's and the parser's errors as the tree is built.
/// `Parse::errors` would walk the whole tree again for rust-analyzer's validation errors
/// (a keyword inside a path, a bad escape in a literal, ...): a sixth of a `--check`'s CPU
/// time, for errors code that compiled under Burn 0.21 does not have and rustc reports anyway.
/// Only the count is kept: `first_syntax_error` parses again for the message.
/// The tree is built as rust-analyzer's `SyntaxTreeBuilder` does, but on a cache from
/// `NODE_CACHES` (see there) instead of a fresh cache per file. A large file is parsed in
/// pieces, on several threads (see `pieces`).
fn parse_counting_errors(text: &str, edition: Edition) -> (GreenNode, usize) {
    let pieces = pieces::piece_count(text, rayon::current_num_threads());
    if pieces < 2 {
        return parse_piece(text, edition);
    }
    parse_in_pieces(text, edition, &pieces::cuts(text, pieces))
}

/// `parse_counting_errors` of `text` cut at `cuts` (see `pieces`), the pieces in parallel.
fn parse_in_pieces(text: &str, edition: Edition, cuts: &[usize]) -> (GreenNode, usize) {
    use rayon::prelude::*;
    if cuts.is_empty() {
        return parse_piece(text, edition);
    }
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cuts.iter().copied())
        .chain(std::iter::once(text.len()))
        .collect();
    let parsed: Vec<(GreenNode, usize)> = bounds
        .par_windows(2)
        .map(|w| parse_piece(&text[w[0]..w[1]], edition))
        .collect();
    if parsed.iter().all(|(_, errors)| *errors == 0) {
        let roots: Vec<GreenNode> = parsed.into_iter().map(|(root, _)| root).collect();
        if let Some(joined) = pieces::join(&roots) {
            return (joined, 0);
        }
    }
    // A piece has an error: the error count, and the tree, are the whole file's.
    parse_piece(text, edition)
}

/// `parse_counting_errors` of a text in one piece. A text that nests too deep
/// (`MAX_NESTING`) is not given to the parser: its tree is `unparsed_tree`, with one error.
fn parse_piece(text: &str, edition: Edition) -> (GreenNode, usize) {
    use ra_ap_parser::StrStep;
    let lexed = ra_ap_parser::LexedStr::new(edition, text);
    if too_deep_in(&lexed).is_some() {
        return (unparsed_tree(text), 1);
    }
    // The lexer's errors count with the parser's, as rust-analyzer's parse counts them. Its
    // parse (`AstFile::parse`) is not used even then: it drops its trees on a thread of its
    // own with a 2 MiB stack, where dropping a deep tree (20,000 prefix `-`) overflowed it.
    let lexer_errors = lexed.errors().count();
    let output = ra_ap_parser::TopEntryPoint::SourceFile.parse(&lexed.to_input(edition));
    with_node_cache(|cache| {
        let mut builder = rowan::GreenNodeBuilder::with_cache(cache);
        let raw = |kind: ra_ap_syntax::SyntaxKind| rowan::SyntaxKind(kind.into());
        let mut errors = lexer_errors;
        lexed.intersperse_trivia(&output, &mut |step| match step {
            StrStep::Token { kind, text } => builder.token(raw(kind), text),
            StrStep::Enter { kind } => builder.start_node(raw(kind)),
            StrStep::Exit => builder.finish_node(),
            StrStep::Error { .. } => errors += 1,
        });
        (builder.finish(), errors)
    })
}

/// Std macros whose parenthesized arguments are ordinary expressions.
pub(crate) const EXPRESSION_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "dbg",
    "unreachable",
    "todo",
    "unimplemented",
];

/// Whether `text` names one of `EXPRESSION_MACROS` at all: a text search, much cheaper than
/// looking for the calls in the tree or the tokens.
fn mentions_expression_macro(text: &str) -> bool {
    (EXPRESSION_MACROS.iter()).any(|name| crate::util::syntax::contains(text, name))
}

/// Returns `text` with `name!(` turned into `name_(` for std's expression macros, so the
/// parser sees their arguments as a call's arguments and rules can rewrite code inside
/// `println!` like anywhere else. One byte replaces one byte: every offset stays valid for the
/// original text, and no rule edits the macro name itself.
/// `tree` is the parse of `text`; `None` when the file has no such macro.
fn open_expression_macros(tree: &AstFile, text: &str) -> Option<String> {
    if !mentions_expression_macro(text) {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    let mut opened = false;
    for call in tree.syntax().descendants().filter_map(ast::MacroCall::cast) {
        // `::dbg!(..)` names a path, as it does for `open_expression_macros_by_tokens`.
        let Some(name) = (call.path())
            .filter(|p| p.segment().is_some_and(|s| s.coloncolon_token().is_none()))
            .and_then(|p| crate::util::syntax::path_as_ident(&p))
        else {
            continue;
        };
        if !EXPRESSION_MACROS.contains(&name.as_str()) {
            continue;
        }
        let Some(bang) = call.excl_token() else {
            continue;
        };
        let delimited_by_parens = call.token_tree().and_then(|t| t.l_paren_token()).is_some();
        if delimited_by_parens {
            bytes[usize::from(bang.text_range().start())] = b'_';
            opened = true;
        }
    }
    // Only an ASCII `!` became an ASCII `_`, so the bytes are still UTF-8.
    opened.then(|| String::from_utf8(bytes).ok()).flatten()
}

/// The kinds and ranges of `text`'s tokens other than whitespace and comments, as
/// rust-analyzer's lexer (`ra_ap_parser::LexedStr`) makes them, from the lexer under it:
/// `LexedStr` also checks every literal and keeps every token, which made it as dear as the
/// parse's own lexing. Only what `open_expression_macros_by_tokens` tells apart is kept:
/// identifiers (keywords are not), `!`, `#`, `:` and delimiters; every other token is an
/// `ERROR`. `None` where `LexedStr` makes tokens of its own (a shebang line, front matter,
/// a `#"` or `##` prefix split in two).
fn significant_tokens(
    text: &str,
    edition: Edition,
) -> Option<Vec<(ra_ap_syntax::SyntaxKind, Range<usize>)>> {
    use ra_ap_rustc_lexer::{strip_shebang, tokenize, FrontmatterAllowed, TokenKind};
    use ra_ap_syntax::SyntaxKind::{ERROR, IDENT, UNDERSCORE};
    use ra_ap_syntax::T;
    if strip_shebang(text).is_some() || text.trim_start().starts_with("---") {
        return None;
    }
    let mut tokens = Vec::new();
    let mut start = 0;
    for token in tokenize(text, FrontmatterAllowed::No) {
        let end = start + token.len as usize;
        let kind = match token.kind {
            TokenKind::Whitespace
            | TokenKind::LineComment { .. }
            | TokenKind::BlockComment { .. } => None,
            TokenKind::Ident if &text[start..end] == "_" => Some(UNDERSCORE),
            TokenKind::Ident => Some(
                ra_ap_parser::SyntaxKind::from_keyword(&text[start..end], edition).unwrap_or(IDENT),
            ),
            TokenKind::RawIdent | TokenKind::InvalidIdent => Some(IDENT),
            TokenKind::GuardedStrPrefix | TokenKind::Frontmatter { .. } => return None,
            TokenKind::Bang => Some(T![!]),
            TokenKind::Pound => Some(T![#]),
            TokenKind::Colon => Some(T![:]),
            TokenKind::OpenParen => Some(T!['(']),
            TokenKind::CloseParen => Some(T![')']),
            TokenKind::OpenBracket => Some(T!['[']),
            TokenKind::CloseBracket => Some(T![']']),
            TokenKind::OpenBrace => Some(T!['{']),
            TokenKind::CloseBrace => Some(T!['}']),
            _ => Some(ERROR),
        };
        if let Some(kind) = kind {
            tokens.push((kind, start..end));
        }
        start = end;
    }
    Some(tokens)
}

/// What `open_expression_macros_by_tokens` made of a text.
enum Opening {
    /// The text as it is: it has no expression macro to open.
    Nothing,
    Opened(String),
    /// The tokens do not tell (see `significant_tokens`): the tree decides.
    Unknown,
}

/// `open_expression_macros` from the tokens alone: the same `!`s, as long as the file parses
/// (see `from_text`). A macro call the parser makes a node of is a single identifier (`::`
/// before it is a path), `!` and its delimited tokens, outside every other macro's tokens and
/// attribute, whose contents the parser leaves as tokens.
fn open_expression_macros_by_tokens(text: &str, edition: Edition) -> Opening {
    use ra_ap_syntax::SyntaxKind::IDENT;
    use ra_ap_syntax::T;
    if !mentions_expression_macro(text) {
        return Opening::Nothing;
    }
    let Some(tokens) = significant_tokens(text, edition) else {
        return Opening::Unknown;
    };
    let kind = |at: usize| tokens.get(at).map(|&(kind, _)| kind);
    let is_open = |at: usize| matches!(kind(at), Some(T!['('] | T!['['] | T!['{']));
    // Past the delimited group that opens at `at`.
    let skip_group = |mut at: usize| {
        let mut depth = 0usize;
        while let Some(k) = kind(at) {
            match k {
                T!['('] | T!['['] | T!['{'] => depth += 1,
                T![')'] | T![']'] | T!['}'] => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return at + 1;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        at
    };
    let mut bytes = text.as_bytes().to_vec();
    let mut opened = false;
    let mut at = 0;
    while at < tokens.len() {
        match kind(at) {
            // `#[..]`, `#![..]`
            Some(T![#]) if is_open(at + 1) => at = skip_group(at + 1),
            Some(T![#]) if kind(at + 1) == Some(T![!]) && is_open(at + 2) => {
                at = skip_group(at + 2)
            }
            Some(IDENT) if kind(at + 1) == Some(T![!]) && is_open(at + 2) => {
                let name = &text[tokens[at].1.clone()];
                // The lexer makes `::` two `:` tokens.
                let after_path =
                    at >= 2 && kind(at - 1) == Some(T![:]) && kind(at - 2) == Some(T![:]);
                let single = !after_path;
                if single && kind(at + 2) == Some(T!['(']) && EXPRESSION_MACROS.contains(&name) {
                    bytes[tokens[at + 1].1.start] = b'_';
                    opened = true;
                }
                at = skip_group(at + 2);
            }
            // `macro_rules! name { .. }`
            Some(IDENT)
                if kind(at + 1) == Some(T![!])
                    && kind(at + 2) == Some(IDENT)
                    && is_open(at + 3) =>
            {
                at = skip_group(at + 3)
            }
            _ => at += 1,
        }
    }
    if !opened {
        return Opening::Nothing;
    }
    // Only an ASCII `!` became an ASCII `_`, so the bytes are still UTF-8.
    String::from_utf8(bytes).map_or(Opening::Unknown, Opening::Opened)
}

/// The `Edition` of a Cargo edition string; unknown or future editions parse as 2024.
pub fn edition_of(name: &str) -> Edition {
    match name {
        "2015" => Edition::Edition2015,
        "2018" => Edition::Edition2018,
        "2021" => Edition::Edition2021,
        _ => Edition::Edition2024,
    }
}

/// Out-of-line module declarations (`mod name;`) of a file, with the directory nesting that
/// inline modules around them add, and their `#[path]` attribute if any.
pub fn module_declarations(file: &AstFile) -> Vec<ModuleDecl> {
    let mut out = Vec::new();
    collect_modules(file.items(), &mut Vec::new(), &mut out);
    out
}

#[derive(Debug, Clone)]
pub struct ModuleDecl {
    pub name: String,
    /// Names of the inline modules the declaration sits in, outermost first.
    pub inline_parents: Vec<String>,
    pub path_attr: Option<String>,
}

fn collect_modules(
    items: impl Iterator<Item = ast::Item>,
    parents: &mut Vec<String>,
    out: &mut Vec<ModuleDecl>,
) {
    for item in items {
        let ast::Item::Module(module) = item else {
            continue;
        };
        let Some(name) = module.name() else { continue };
        let name = name.text().to_string();
        let path_attr = path_attribute(&module);
        match module.item_list() {
            None => out.push(ModuleDecl {
                name,
                inline_parents: parents.clone(),
                path_attr,
            }),
            Some(list) => {
                parents.push(name);
                collect_modules(list.items(), parents, out);
                parents.pop();
            }
        }
    }
}

fn path_attribute(module: &ast::Module) -> Option<String> {
    use ast::HasAttrs;
    module.attrs().find_map(|attr| {
        let meta = attr.meta()?;
        if meta.path()?.syntax().text() != "path" {
            return None;
        }
        let ast::Meta::KeyValueMeta(kv) = meta else {
            return None;
        };
        let text = kv.expr()?.syntax().text().to_string();
        Some(text.trim_matches('"').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_tree_is_parsed_again_when_asked() {
        let text = "fn f() {\n    println!(\"{}\", 1 + 2);\n}\n".to_string();
        let mut file = SourceFile::from_text(
            PathBuf::from("f.rs"),
            "f.rs".to_string(),
            text,
            0,
            Edition::Edition2021,
        );
        let before = format!("{:#?}", file.tree().syntax());
        file.release_tree();
        assert!(file.green.is_none());
        assert_eq!(format!("{:#?}", file.tree().syntax()), before);
    }

    #[test]
    fn trees_built_on_shared_caches_are_rust_analyzers_trees() {
        let texts = [
            "struct Model<B: Backend> { linear: Linear<B> }\nfn f(x: u8) -> u8 { x + 1 }\n",
            "impl<B: Backend> Model<B> { fn forward(&self, x: Tensor<B, 2>) -> Tensor<B, 2> { x } }\n",
            "fn f(x: u8) -> u8 { x + 1 }\nfn broken( {\n",
        ];
        for round in 0..2 {
            for text in texts {
                let (tree, errors) = parse(text, Edition::Edition2021);
                let theirs = AstFile::parse(text, Edition::Edition2021);
                assert_eq!(
                    format!("{:#?}", tree.syntax()),
                    format!("{:#?}", theirs.syntax_node()),
                    "round {round}: {text}"
                );
                assert_eq!(errors, theirs.errors().len(), "round {round}: {text}");
            }
            forget_built_nodes();
        }
    }

    /// The error a file that does not parse is reported with is rust-analyzer's first, for
    /// parser and lexer errors alike.
    #[test]
    fn the_first_error_is_rust_analyzers_first() {
        let texts = [
            "fn f(x: u8) -> u8 { x + 1 }\nfn broken( {\n",
            "fn f() { let s = \"unterminated; }\n",
            "fn f() { let c = '\\q'; }\nstruct S {\n",
            "fn f() { let _ = 1__u9z; let x = 0b102; }\n",
            "fn f() {}\n",
        ];
        for text in texts {
            let theirs = AstFile::parse(text, Edition::Edition2021).errors();
            let theirs = theirs
                .first()
                .map(|e| (usize::from(e.range().start()), e.to_string()));
            assert_eq!(first_error(text, Edition::Edition2021), theirs, "{text}");
        }
    }

    /// A text nesting deeper than `MAX_NESTING` is not parsed: one error, a tree that spans
    /// the text, and the place of the delimiter that goes too deep; one that nests as deep as
    /// that parses.
    #[test]
    fn nesting_past_the_limit_is_not_parsed() {
        let nested = |depth: usize| {
            format!(
                "fn f() -> i32 {{ {}1{} }}\n",
                "(".repeat(depth),
                ")".repeat(depth)
            )
        };
        let edition = Edition::Edition2021;
        // The body's `{` is a level too. As deep as that parses on this thread's stack (the
        // test harness's 2 MiB, unless RUST_MIN_STACK says otherwise), in the shapes that
        // took the most stack a level.
        let ifs = format!(
            "fn f(x: bool) {{ {}{} }}\n",
            "if x { ".repeat(MAX_NESTING - 1),
            "}".repeat(MAX_NESTING - 1)
        );
        let blocks = format!(
            "fn f() -> i32 {{ {}1{} }}\n",
            "{".repeat(MAX_NESTING - 1),
            "}".repeat(MAX_NESTING - 1)
        );
        for text in [ifs, blocks] {
            assert_eq!(parse(&text, edition).1, 0, "{text}");
        }
        let (tree, errors) = parse(&nested(MAX_NESTING - 1), edition);
        assert_eq!(errors, 0);
        assert!(tree
            .syntax()
            .descendants()
            .any(|n| n.kind() == ra_ap_syntax::SyntaxKind::PAREN_EXPR));
        let text = nested(MAX_NESTING + 5);
        let file = SourceFile::from_text(
            PathBuf::from("f.rs"),
            "f.rs".into(),
            text.clone(),
            0,
            edition,
        );
        assert_eq!(file.syntax_errors, 1);
        assert_eq!(file.tree().syntax().text().to_string(), text);
        let failure = file.first_syntax_error().unwrap();
        assert!(failure.too_deep && failure.message.starts_with("nesting too deep"));
        // `fn f() -> i32 { ` and MAX_NESTING - 1 parentheses come before it.
        assert_eq!((failure.line, failure.column), (1, 16 + MAX_NESTING));
        // Braces and brackets count too, closing delimiters take levels back.
        let mixed = format!(
            "{}{}",
            "[{(".repeat(MAX_NESTING / 3),
            ")}]".repeat(MAX_NESTING / 3)
        )
        .repeat(3);
        assert_eq!(nesting_too_deep(&mixed, edition), None);
        let deeper = format!("{}({{[", "[{(".repeat(MAX_NESTING / 3));
        assert_eq!(
            nesting_too_deep(&deeper, edition),
            Some(MAX_NESTING / 3 * 3 + 1)
        );
    }

    /// The macros opened from tokens are those opened from the tree, wherever the opened
    /// text parses (elsewhere the tree decides anyway).
    #[test]
    fn macros_opened_from_tokens_are_those_the_tree_opens() {
        let texts = [
            "fn f() { println!(\"{}\", 1); let s = \"println!(x)\"; // println!(y)\n}\n",
            "fn f() { if !(println!(\"a\") == ()) { assert_eq!(1, 2); } }\n",
            "#[doc = concat!(\"x\")]\nfn f() { std::println!(\"no\"); ::dbg!(1); format![\"{}\", 2]; }\n",
            "macro_rules! m { ($x:expr) => { println!(\"{}\", $x) } }\nfn g() { m!(println!(\"inner\")); write!(w, \"{}\", r#\"println!(\"#); }\n",
            "fn f() { let _ = vec![format!(\"{}\", 'a'), todo!()]; r#println!(1); }\n",
            "fn f<'a>(x: &'a str) -> usize { assert!(x.len() > 0, \"/* {} */\", x); 0 }\n",
            "#!/usr/bin/env run-cargo-script\nfn main() { println!(\"hi\"); }\n",
            "fn f() { let _ = ##\"x\"##; println!(\"{}\", 1); }\n",
            "fn broken( { println!(\"x\") }\n",
            "fn f() { let _ = 'x; println!(\"{}\", \"unterminated); }\n",
        ];
        for edition in [Edition::Edition2021, Edition::Edition2024] {
            for text in texts {
                let (tree, _) = parse(text, edition);
                let from_tree = open_expression_macros(&tree, text);
                match open_expression_macros_by_tokens(text, edition) {
                    Opening::Opened(opened) if parse(&opened, edition).1 == 0 => {
                        assert_eq!(Some(opened), from_tree, "{text}")
                    }
                    Opening::Nothing if parse(text, edition).1 == 0 => {
                        assert_eq!(None, from_tree, "{text}")
                    }
                    _ => {}
                }
            }
            // Ordinary code is opened from its tokens.
            assert!(matches!(
                open_expression_macros_by_tokens(texts[0], edition),
                Opening::Opened(_)
            ));
        }
    }
}
