//! Every relative link in the migration guide (`book/src`) points to a page the book renders
//! and, where it names an anchor, to a heading of that page. Pages are Markdown; links inside
//! code (fenced blocks and `inline code`) are not links.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src")
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The page's lines outside fenced code blocks, with inline code spans blanked out.
fn prose_lines(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut prose = String::new();
        for (i, part) in line.split('`').enumerate() {
            // Odd parts are inside backticks: keep their length, drop their content.
            if i % 2 == 1 {
                prose.push_str(&" ".repeat(part.len() + 2));
            } else {
                prose.push_str(part);
            }
        }
        lines.push(prose);
    }
    lines
}

/// `[text](target)` targets in a line.
fn link_targets(line: &str) -> Vec<String> {
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &line[at + 2..];
            rest.find(')').map(|end| rest[..end].trim().to_string())
        })
        .collect()
}

/// The ids mdBook gives a page's headings: the heading's text, lowercased, spaces to `-`,
/// everything but letters, digits, `-` and `_` dropped.
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut in_fence = false;
    let mut ids = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        // Link text stays, link targets and code marks go.
        let mut plain = String::new();
        let mut rest = heading;
        while let Some(open) = rest.find("](") {
            plain.push_str(&rest[..open]);
            rest = rest[open..].split_once(')').map(|(_, r)| r).unwrap_or("");
        }
        plain.push_str(rest);
        let id: String = plain
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_ascii_lowercase())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        ids.insert(id);
    }
    ids
}

#[test]
fn every_relative_link_of_the_guide_resolves() {
    let src = book_src();
    let mut pages = Vec::new();
    markdown_files(&src, &mut pages);
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let rendered: BTreeSet<PathBuf> = prose_lines(&summary)
        .iter()
        .flat_map(|l| link_targets(l))
        .map(|t| src.join(t))
        .collect();

    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for line in prose_lines(&text) {
            for target in link_targets(&line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let linked = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                let shown = page.strip_prefix(&src).unwrap().display().to_string();
                let Ok(linked) = linked.canonicalize() else {
                    broken.push(format!("{shown}: {target} (no such file)"));
                    continue;
                };
                if !rendered
                    .iter()
                    .any(|r| r.canonicalize().is_ok_and(|r| r == linked))
                {
                    broken.push(format!("{shown}: {target} (not in SUMMARY.md)"));
                    continue;
                }
                if !anchor.is_empty() {
                    let ids = heading_ids(&std::fs::read_to_string(&linked).unwrap());
                    if !ids.contains(anchor) {
                        broken.push(format!("{shown}: {target} (no heading #{anchor})"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn heading_ids_follow_mdbook() {
    let ids = heading_ids(
        "# Read `result.error`\n## LibTorch CUDA to CubeCL CUDA\n```\n# not a heading\n```\n",
    );
    assert_eq!(
        ids,
        BTreeSet::from([
            "read-resulterror".to_string(),
            "libtorch-cuda-to-cubecl-cuda".to_string()
        ])
    );
}

#[test]
fn a_link_inside_code_is_not_a_link() {
    let lines = prose_lines("see `[a](missing.md)` and [b](there.md)\n```\n[c](x.md)\n```\n");
    let targets: Vec<String> = lines.iter().flat_map(|l| link_targets(l)).collect();
    assert_eq!(targets, ["there.md"]);
}
