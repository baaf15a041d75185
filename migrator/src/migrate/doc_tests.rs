//! Rust code blocks in doc comments (`///`, `//!`): doc tests, which 0.21 code wrote like any
//! other code. A block is taken out of its comment as a small file of its own (the comment
//! markers and rustdoc's hidden-line `# ` stripped), migrated by the driver with the workspace
//! as context, and its edits are mapped back into the comment, line markers kept: a line the
//! port adds takes the markers of the line it is added at (hidden lines stay hidden).
//!
//! Block doc comments (`/** .. */`) with such code are only reported.
//!
//! This module extracts the blocks, runs the rules over them with the workspace's index
//! (`changes`, which each pass of `rewrite` calls) and maps the edits back; it is also the
//! home of rule `doc-test-code`, for blocks it cannot port. Only blocks that mention Burn are
//! taken, so files without such doc tests cost one text search.

use std::borrow::Borrow;

use ra_ap_syntax::{AstNode, SyntaxKind, TextRange, TextSize};
use rayon::prelude::*;

use crate::edit::{self, Change};
use crate::error::Error;
use crate::migrate::crate_names::DependencyNames;
use crate::migrate::index::Index;
use crate::migrate::moot::drop_moot_findings;
use crate::migrate::source::{CodeTarget, SourceFile};
use crate::migrate::transforms::{self, FileCtx};
use crate::rules::{ModuleId, RuleHome, RuleId, RuleSet};

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::DocTests,
    emits: &[RuleId::DocTestCode],
};

/// What a block must mention to be worth migrating (or, when it does not parse, reporting):
/// Burn's paths, its backend traits and types, tensor types, a backend parameter. A bare
/// `burn` is not enough: an unlabelled block with a shell command (`cargo run -p
/// my-burn-app`) mentions it too.
const BURN_IDIOMS: &[&str] = &[
    "burn::",
    "burn_",
    "Backend",
    "Tensor<",
    "Tensor::<",
    "B::",
    "<B>",
    "<B,",
    "NdArray",
    "Wgpu",
    "Autodiff",
    "LibTorch",
    "Cuda",
    "Candle",
    "Flex",
];

/// Whether code mentions Burn (`BURN_IDIOMS`), or a path through a name the package gives one
/// of Burn's crates (`nn::record::CompactRecorder` after `nn = { package = "burn" }`).
pub(crate) fn mentions_burn(code: &str, names: &DependencyNames) -> bool {
    BURN_IDIOMS.iter().any(|idiom| code.contains(idiom))
        || names.renamed_keys().any(|key| {
            crate::util::syntax::word_offsets(code, key)
                .any(|at| code[at + key.len()..].starts_with("::"))
        })
}

/// Fence attributes of a doc test rustdoc compiles as Rust (anything else is left alone:
/// `text`, `ignore`, `compile_fail`, other languages).
const RUST_ATTRIBUTES: &[&str] = &[
    "rust",
    "no_run",
    "should_panic",
    "test_harness",
    "standalone_crate",
    "edition2015",
    "edition2018",
    "edition2021",
    "edition2024",
];

/// Text the driver wraps around a block that is not a file on its own (statements, as rustdoc
/// wraps them in `fn main`).
const WRAP_OPEN: &str = "fn main() {\n";
const WRAP_CLOSE: &str = "}\n";

/// One line of a block: where it is in the host file.
#[derive(Debug, Clone)]
struct Line {
    /// Start of the physical line (its indentation) in the host.
    start: TextSize,
    /// Start of the block's code on the line (after `///`, the fence's indentation, `# `).
    code: TextSize,
    /// Markers for a line the port adds at this line: indentation, `///`, and `# ` when hidden.
    new_prefix: String,
}

/// A Rust code block of a doc comment.
#[derive(Debug, Clone)]
pub struct DocBlock {
    /// The opening fence, in the host: where findings about the whole block point.
    pub fence: TextRange,
    /// The block as a file: its code lines, each ending in `\n`, wrapped when `wrapped`.
    pub text: String,
    pub wrapped: bool,
    /// `lines[k]`: block line `k`; one more for the closing fence.
    lines: Vec<Line>,
    /// Offset of each line's code in `text`.
    offsets: Vec<usize>,
}

/// The Rust code blocks of a file's doc comments that mention Burn.
pub fn blocks(file: &SourceFile) -> Vec<DocBlock> {
    let contains = crate::util::syntax::contains;
    if !contains(&file.text, "```") && !contains(&file.text, "~~~") {
        return Vec::new();
    }
    let root = file.tree().syntax().clone();
    let mut out = Vec::new();
    // Consecutive doc-comment lines of one kind, as (comment token range, marker).
    let mut run: Vec<(TextRange, &'static str)> = Vec::new();
    let mut flush = |run: &mut Vec<(TextRange, &'static str)>| {
        out.extend(blocks_of_run(&file.text, run, &file.dependency_names));
        run.clear();
    };
    for token in root
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
    {
        match token.kind() {
            SyntaxKind::COMMENT => {
                let text = token.text();
                let marker = if text.starts_with("///") && !text.starts_with("////") {
                    "///"
                } else if text.starts_with("//!") {
                    "//!"
                } else {
                    flush(&mut run);
                    continue;
                };
                if run.last().is_some_and(|(_, m)| *m != marker) {
                    flush(&mut run);
                }
                run.push((token.text_range(), marker));
            }
            // Doc lines are separated by one newline and indentation.
            SyntaxKind::WHITESPACE if token.text().matches('\n').count() <= 1 => {}
            _ => flush(&mut run),
        }
    }
    flush(&mut run);
    out
}

/// Block doc comments (`/** .. */`, `/*! .. */`) with a code block that mentions Burn: not
/// ported (their lines carry no markers to strip and put back), only reported.
pub fn block_comments_with_code(file: &SourceFile) -> Vec<TextRange> {
    let contains = crate::util::syntax::contains;
    if !contains(&file.text, "/**") && !contains(&file.text, "/*!") {
        return Vec::new();
    }
    file.tree()
        .syntax()
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| t.kind() == SyntaxKind::COMMENT)
        .filter(|t| {
            let text = t.text();
            let doc = (text.starts_with("/**") && !text.starts_with("/***") && text != "/**/")
                || text.starts_with("/*!");
            doc && (text.contains("```") || text.contains("~~~"))
                && mentions_burn(text, &file.dependency_names)
        })
        .map(|t| t.text_range())
        .collect()
}

/// The code blocks in one run of doc-comment lines.
fn blocks_of_run(text: &str, run: &[(TextRange, &str)], names: &DependencyNames) -> Vec<DocBlock> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < run.len() {
        let (range, marker) = run[i];
        let body = &text[range][marker.len()..];
        let trimmed = body.trim_start();
        let Some((fence, info)) = opening_fence(trimmed) else {
            i += 1;
            continue;
        };
        let fence_indent = body.len() - trimmed.len();
        let close = (i + 1..run.len()).find(|&j| {
            let (r, m) = run[j];
            let line = text[r][m.len()..].trim();
            line.len() >= fence.len() && line.chars().all(|c| fence.starts_with(c))
        });
        let Some(close) = close else { break };
        if is_rust(info) {
            if let Some(block) = block(text, &run[i..=close], fence_indent) {
                if mentions_burn(&block.text, names) {
                    out.push(block);
                }
            }
        }
        i = close + 1;
    }
    out
}

/// A fence that opens a code block (three or more backticks or tildes) and its info string.
fn opening_fence(line: &str) -> Option<(&str, &str)> {
    let mark = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = line.len() - line.trim_start_matches(mark).len();
    (len >= 3).then(|| line.split_at(len))
}

fn is_rust(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|a| !a.is_empty())
        .all(|a| RUST_ATTRIBUTES.contains(&a))
}

/// The block between an opening and a closing fence line (both included in `lines`).
fn block(text: &str, fenced: &[(TextRange, &str)], fence_indent: usize) -> Option<DocBlock> {
    let (open, _) = fenced[0];
    let mut lines = Vec::new();
    let mut code_lines = Vec::new();
    for &(range, marker) in &fenced[1..fenced.len() - 1] {
        // A CRLF line's comment token keeps the `\r`: it belongs to the line end.
        let comment = text[range].strip_suffix('\r').unwrap_or(&text[range]);
        let start = line_start(text, range.start());
        let indent = &text[usize::from(start)..usize::from(range.start())];
        let after_marker = &comment[marker.len()..];
        // The fence's indentation, as far as the line has it.
        let strip = after_marker
            .char_indices()
            .take(fence_indent)
            .take_while(|(_, c)| *c == ' ' || *c == '\t')
            .count();
        let doc_prefix = format!("{indent}{marker}{}", &after_marker[..strip]);
        let content = &after_marker[strip..];
        let lead = content.len() - content.trim_start().len();
        let rest = &content[lead..];
        let (skip, hidden) = if rest == "#" {
            (lead + 1, true)
        } else if rest.starts_with("##") {
            // `##` escapes a line that starts with `#`: the code is `#...`.
            (lead + 1, false)
        } else if let Some(after) = rest.strip_prefix("# ") {
            let _ = after;
            (lead + 2, true)
        } else {
            (0, false)
        };
        let code = range.start() + TextSize::from((marker.len() + strip + skip) as u32);
        let new_prefix = if hidden {
            format!("{doc_prefix}{}# ", &content[..lead])
        } else {
            doc_prefix
        };
        lines.push(Line {
            start,
            code,
            new_prefix,
        });
        code_lines.push(&content[skip..]);
    }
    let (close, close_marker) = fenced[fenced.len() - 1];
    let close_start = line_start(text, close.start());
    let close_indent = &text[usize::from(close_start)..usize::from(close.start())];
    lines.push(Line {
        start: close_start,
        code: close_start,
        new_prefix: format!("{close_indent}{close_marker} "),
    });
    let mut body = String::new();
    let mut offsets = Vec::new();
    for line in &code_lines {
        offsets.push(body.len());
        body.push_str(line);
        body.push('\n');
    }
    offsets.push(body.len());
    Some(DocBlock {
        fence: open,
        text: body,
        wrapped: false,
        lines,
        offsets,
    })
}

fn line_start(text: &str, at: TextSize) -> TextSize {
    let at = usize::from(at);
    TextSize::from(text[..at].rfind('\n').map_or(0, |i| i + 1) as u32)
}

impl DocBlock {
    /// The block wrapped in `fn main() { .. }`, for statements that are no file on their own.
    pub fn wrap(&mut self) {
        if self.wrapped {
            return;
        }
        self.text = format!("{WRAP_OPEN}{}{WRAP_CLOSE}", self.text);
        for offset in &mut self.offsets {
            *offset += WRAP_OPEN.len();
        }
        self.wrapped = true;
    }

    /// Block line and column of an offset in `text`, when it is inside the code lines.
    fn locate(&self, offset: usize) -> Option<(usize, usize)> {
        let line = self
            .offsets
            .partition_point(|&o| o <= offset)
            .checked_sub(1)?;
        let column = offset - self.offsets[line];
        let last = self.offsets.len() - 1;
        let in_line = line == last && column == 0 || line < last && offset < self.offsets[line + 1];
        in_line.then_some((line, column))
    }

    /// Maps the block's edits and findings into the host file. `None` when an edit falls
    /// outside what the host can express (the wrapper, a line split the markers cannot follow).
    pub fn map_changes(&self, changes: &[Change]) -> Option<Vec<Change>> {
        changes.iter().map(|c| self.map_change(c)).collect()
    }

    fn map_change(&self, change: &Change) -> Option<Change> {
        let mut start = usize::from(change.range.start());
        let mut end = usize::from(change.range.end());
        if self.wrapped && start == 0 && end == 0 {
            // An import inserted at the top of the wrapped file goes at the top of the block.
            start = WRAP_OPEN.len();
            end = start;
        }
        let (start_line, start_col) = self.locate(start)?;
        let (end_line, end_col) = self.locate(end)?;
        let host = |line: usize, col: usize| self.lines[line].code + TextSize::from(col as u32);
        let prefix = &self.lines[start_line].new_prefix;
        let Some(fix) = &change.fix else {
            let range = TextRange::new(host(start_line, start_col), host(end_line, end_col));
            return Some(Change::manual(range, change.rule, change.message.clone()));
        };
        let replacement = &fix.replacement;
        let whole_lines = start_col == 0
            && end_col == 0
            && (replacement.is_empty() || replacement.ends_with('\n'));
        let (range, text) = if whole_lines {
            let range = TextRange::new(self.lines[start_line].start, self.lines[end_line].start);
            let text: String = replacement
                .split_inclusive('\n')
                .map(|l| format!("{}{l}", if l == "\n" { prefix.trim_end() } else { prefix }))
                .collect();
            (range, text)
        } else {
            let fence_line = self.lines.len() - 1;
            if end_line == fence_line && (start_line != end_line || !replacement.is_empty()) {
                // Would eat the closing fence's markers, or write code without any.
                return None;
            }
            let range = TextRange::new(host(start_line, start_col), host(end_line, end_col));
            let mut text = String::new();
            for (i, piece) in replacement.split('\n').enumerate() {
                if i > 0 {
                    text.push('\n');
                    text.push_str(if piece.is_empty() {
                        prefix.trim_end()
                    } else {
                        prefix
                    });
                }
                text.push_str(piece);
            }
            (range, text)
        };
        // The fix stays as safe as it was in the block.
        let mapped = Change::edit(range, text, change.rule, change.message.clone());
        Some(mapped.with_applicability(fix.applicability))
    }
}

/// The edits and findings of the files' doc tests (`doc_tests`), one list per file, in the
/// file's coordinates. The blocks are migrated as files of their own, indexed together with
/// the workspace (a doc test names the crate's items); a block that does not parse, or whose
/// port would not parse or cannot be written back into its comment, is reported under
/// `doc-test-code` and left as it is. `pass`: the rewrite loop's pass the files are read in.
pub fn changes<F: Borrow<SourceFile> + Sync>(
    files: &[F],
    rules: &RuleSet,
    target: CodeTarget,
    pass: usize,
) -> Result<Vec<Vec<Change>>, Error> {
    let mut out: Vec<Vec<Change>> = vec![Vec::new(); files.len()];
    let found: Vec<(usize, DocBlock)> = files
        .par_iter()
        .map(Borrow::borrow)
        .enumerate()
        .flat_map_iter(|(i, f)| blocks(f).into_iter().map(move |b| (i, b)))
        .collect();
    for (host, file) in files.iter().map(Borrow::borrow).enumerate() {
        for range in block_comments_with_code(file) {
            out[host].push(Change::manual(
                range,
                RuleId::DocTestCode,
                "burn-migrate ports doc tests in `///` and `//!` comments only: port the code of this block comment by hand",
            ));
        }
    }
    if found.is_empty() {
        return Ok(out);
    }
    let as_file = |host: &SourceFile, text: &str| {
        SourceFile::from_text(
            host.path.clone(),
            format!("{} (doc test)", host.display),
            text.to_string(),
            host.package,
            host.edition,
        )
        .with_dependency_names(host.dependency_names.clone())
    };
    let mut blocks = Vec::new();
    let mut block_files = Vec::new();
    for (host, mut block) in found {
        let mut file = as_file(files[host].borrow(), &block.text);
        if file.syntax_errors > 0 {
            block.wrap();
            file = as_file(files[host].borrow(), &block.text);
        }
        if file.syntax_errors > 0 {
            out[host].push(Change::manual(
                block.fence,
                RuleId::DocTestCode,
                "this doc test does not parse as Rust code, so burn-migrate left it: port it by hand",
            ));
            continue;
        }
        blocks.push((host, block));
        block_files.push(file);
    }
    let all: Vec<&SourceFile> = (files.iter().map(Borrow::borrow))
        .chain(&block_files)
        .collect();
    let index = crate::util::timing::time("doc tests: index", || Index::build(&all, rules));
    let mapped: Vec<(usize, Option<Vec<Change>>, TextRange)> = blocks
        .par_iter()
        .zip(block_files.par_iter())
        .enumerate()
        .map(|(i, ((host, block), file))| {
            let mut ctx =
                FileCtx::new(&index, rules, files.len() + i, file, target).in_first_pass(pass == 0);
            transforms::run_all(&mut ctx)?;
            let changes = drop_moot_findings(ctx.changes, file);
            let applied: Vec<Change> = changes.iter().filter(|c| c.is_applied()).cloned().collect();
            let parses = edit::normalize(applied).is_ok_and(|edits| {
                let text = edit::apply(&file.text, &edits);
                as_file(files[*host].borrow(), &text).syntax_errors <= file.syntax_errors
            });
            let mapped = parses.then(|| block.map_changes(&changes)).flatten();
            Ok((*host, mapped, block.fence))
        })
        .collect::<Result<_, Error>>()?;
    for (host, changes, fence) in mapped {
        match changes {
            Some(changes) => out[host].extend(changes),
            None => out[host].push(Change::manual(
                fence,
                RuleId::DocTestCode,
                "burn-migrate cannot write the port of this doc test back into its comment: port it by hand",
            )),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleId;
    use std::path::PathBuf;

    fn file(text: &str) -> SourceFile {
        SourceFile::from_text(
            PathBuf::from("lib.rs"),
            "lib.rs".into(),
            text,
            0,
            ra_ap_syntax::Edition::Edition2021,
        )
    }

    fn apply(text: &str, changes: Vec<Change>) -> String {
        let edits = crate::edit::normalize(changes).unwrap();
        crate::edit::apply(text, &edits)
    }

    const HOST: &str = "/// Doubles.\n///\n/// ```\n/// # use burn::tensor::backend::Backend;\n/// let x = Tensor::<B, 1>::ones([2], &device);\n/// ```\nfn f() {}\n\n/// ```text\n/// Tensor<B, 2>\n/// ```\nfn g() {}\n";

    /// A block that names Burn only through the package's key for it (`nn::record::..`) is a
    /// doc test of Burn code all the same.
    #[test]
    fn a_block_through_a_renamed_burn_is_taken() {
        let text =
            "/// ```\n/// let recorder = nn::record::CompactRecorder::new();\n/// ```\nfn f() {}\n";
        assert!(blocks(&file(text)).is_empty());
        let renamed = DependencyNames::new([("nn", "burn")]);
        let host = file(text).with_dependency_names(std::sync::Arc::new(renamed));
        assert_eq!(blocks(&host).len(), 1);
    }

    #[test]
    fn takes_rust_blocks_with_hidden_lines_and_leaves_text_blocks() {
        let blocks = blocks(&file(HOST));
        assert_eq!(blocks.len(), 1);
        assert_eq!(
            blocks[0].text,
            "use burn::tensor::backend::Backend;\nlet x = Tensor::<B, 1>::ones([2], &device);\n"
        );
    }

    #[test]
    fn maps_line_removals_insertions_and_inline_edits() {
        let block = &blocks(&file(HOST))[0];
        let rule = RuleId::BackendImports;
        let arg = block.text.find("B, 1").unwrap();
        let second = block.text.find("let").unwrap();
        let changes = vec![
            Change::delete(TextRange::new(0.into(), (second as u32).into()), rule, ""),
            Change::insert(
                (second as u32).into(),
                "use burn::tensor::Device;\n",
                rule,
                "",
            ),
            Change::delete(
                TextRange::new((arg as u32).into(), (arg as u32 + 3).into()),
                rule,
                "",
            ),
        ];
        let mapped = block.map_changes(&changes).unwrap();
        let out = apply(HOST, mapped);
        assert!(
            out.starts_with("/// Doubles.\n///\n/// ```\n/// use burn::tensor::Device;\n/// let x = Tensor::<1>::ones([2], &device);\n/// ```\n"),
            "{out}"
        );
    }

    #[test]
    fn crlf_lines_keep_their_line_ends() {
        let host = HOST.replace('\n', "\r\n");
        let block = &blocks(&file(&host))[0];
        assert!(!block.text.contains('\r'), "{:?}", block.text);
        let at = block.text.find("B, 1").unwrap() as u32;
        let rule = RuleId::BackendImports;
        let mapped = block
            .map_changes(&[Change::delete(
                TextRange::new(at.into(), (at + 3).into()),
                rule,
                "",
            )])
            .unwrap();
        assert!(apply(&host, mapped).contains("/// let x = Tensor::<1>::ones([2], &device);\r\n"));
    }

    #[test]
    fn edits_the_comment_markers_cannot_follow_are_refused() {
        let block = &blocks(&file(HOST))[0];
        let end = TextSize::from(block.text.len() as u32);
        let rule = RuleId::BackendImports;
        // Code without a line end at the closing fence would land outside the comment.
        assert!(block
            .map_changes(&[Change::insert(end, "x", rule, "")])
            .is_none());
        // A whole line added there takes the markers.
        let mapped = block
            .map_changes(&[Change::insert(end, "let y = 1;\n", rule, "")])
            .unwrap();
        assert!(apply(HOST, mapped).contains("&device);\n/// let y = 1;\n/// ```\n"));
    }

    #[test]
    fn wrapped_blocks_keep_offsets_and_refuse_wrapper_edits() {
        let mut block = blocks(&file(HOST))[0].clone();
        block.wrap();
        let rule = RuleId::BackendImports;
        assert!(block
            .map_changes(&[Change::delete(TextRange::new(0.into(), 3.into()), rule, "")])
            .is_none());
        let at = block.text.find("let").unwrap() as u32;
        let mapped = block
            .map_changes(&[Change::edit(
                TextRange::new(at.into(), (at + 3).into()),
                "let mut",
                rule,
                "",
            )])
            .unwrap();
        assert!(apply(HOST, mapped).contains("/// let mut x"));
    }
}
