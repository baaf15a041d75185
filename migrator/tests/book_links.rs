//! Every relative link in the migration guide (`book/src`) points to a page the book renders
//! and, where it names an anchor, to a heading of that page. Every docs.rs link searches a
//! crate version's pages for an item those pages show, as docs.rs builds them (its own
//! feature set, not the features a project enables). Pages are Markdown; links inside code
//! (fenced blocks and `inline code`) are not links.

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

/// The guide's pages with the link targets of their prose.
fn pages_and_targets() -> Vec<(String, Vec<String>)> {
    let src = book_src();
    let mut pages = Vec::new();
    markdown_files(&src, &mut pages);
    pages.sort();
    (pages.iter())
        .map(|page| {
            let text = std::fs::read_to_string(page).unwrap();
            let targets = (prose_lines(&text).iter())
                .flat_map(|line| link_targets(line))
                .collect();
            (
                page.strip_prefix(&src).unwrap().display().to_string(),
                targets,
            )
        })
        .collect()
}

#[test]
fn every_docs_rs_link_finds_an_item_docs_rs_shows() {
    use burn_migrate::report::docs_rs::{DocsRsLink, LISTS};
    let mut bad = Vec::new();
    let mut checked = 0;
    for (page, targets) in pages_and_targets() {
        for target in targets.iter().filter(|t| t.contains("docs.rs")) {
            let Some((krate, version, ident, path)) = DocsRsLink::parse(target) else {
                bad.push(format!(
                    "{page}: {target} (not a search in one crate version's pages)"
                ));
                continue;
            };
            let Some(list) = (LISTS.iter()).find(|l| l.krate == krate && l.version == version)
            else {
                bad.push(format!(
                    "{page}: {target} (no list of what docs.rs shows for {krate} {version}: framework/api/README.md says how to make one)"
                ));
                continue;
            };
            if ident != list.ident() || !list.has(&path) {
                bad.push(format!(
                    "{page}: {target} (docs.rs's {krate} {version} pages, built with {}, have no `{path}`)",
                    list.header("features").unwrap_or("?")
                ));
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} docs.rs links found");
    assert!(
        bad.is_empty(),
        "{} docs.rs links find nothing:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Each list was built with the features docs.rs uses for its crate version: the
/// `[package.metadata.docs.rs]` table `cargo metadata` reads (`framework/api/docs-rs-*.tsv`),
/// or the default features where there is none.
#[test]
fn docs_rs_lists_are_built_with_the_features_docs_rs_uses() {
    use burn_migrate::report::docs_rs::LISTS;
    let api = Path::new(env!("CARGO_MANIFEST_DIR")).join("../framework/api");
    let words = |list: &str| -> BTreeSet<String> {
        (list
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(','))
        .map(|f| f.trim().trim_matches('"').to_string())
        .filter(|f| !f.is_empty())
        .collect()
    };
    for list in LISTS {
        let tables =
            std::fs::read_to_string(api.join(format!("docs-rs-{}.tsv", list.version))).unwrap();
        let table = (tables.lines())
            .find_map(|line| line.strip_prefix(list.krate)?.strip_prefix('\t'))
            .unwrap_or_else(|| {
                panic!("docs-rs-{}.tsv has no row for {}", list.version, list.krate)
            });
        let (defaults, features): (bool, BTreeSet<String>) = if table == "-" {
            (true, BTreeSet::new())
        } else {
            let table: serde_json::Value = serde_json::from_str(table).unwrap();
            let no_defaults = table["no-default-features"].as_bool() == Some(true);
            assert_ne!(
                table["all-features"].as_bool(),
                Some(true),
                "{}: all-features: list every feature (framework/api/docsrs-json.sh does)",
                list.krate
            );
            let features = (table["features"].as_array().into_iter().flatten())
                .filter_map(|f| f.as_str().map(String::from))
                .collect();
            (!no_defaults, features)
        };
        let name = format!("{} {}", list.krate, list.version);
        assert_eq!(
            list.header("default-features"),
            Some(if defaults { "true" } else { "false" }),
            "{name}: default features"
        );
        assert_eq!(
            words(list.header("features").unwrap_or("?")),
            features,
            "{name}: features"
        );
        assert!(
            list.items().count() > 20,
            "{name}: a list of {} items",
            list.items().count()
        );
    }
    // Every list on disk is one the links are chosen from.
    for entry in std::fs::read_dir(api.join("docsrs")).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            LISTS
                .iter()
                .any(|l| file == format!("{}-{}.txt", l.krate, l.version)),
            "framework/api/docsrs/{file} is not in report::docs_rs::LISTS"
        );
    }
}

#[test]
fn a_facade_item_docs_rs_does_not_build_links_to_the_crate_that_documents_it() {
    use burn_migrate::report::docs_rs::link;
    // burn 0.21.0 has no docs.rs table: its pages have no `train` module.
    let learner = link("burn::train::Learner", &["struct <..>"], "0.21.0").unwrap();
    assert_eq!(
        (learner.krate, learner.path.as_str()),
        ("burn-train", "burn_train::Learner")
    );
    let tensor = link("burn::tensor::Tensor", &["struct <..>"], "0.21.0").unwrap();
    assert_eq!(
        (tensor.krate, tensor.path.as_str()),
        ("burn", "burn::tensor::Tensor")
    );
    assert_eq!(
        tensor.url(),
        "https://docs.rs/burn/0.21.0/burn/?search=burn%3A%3Atensor%3A%3ATensor"
    );
    assert_eq!(link("burn::train::NoSuchItem", &["struct"], "0.21.0"), None);
    // A crate the facade re-exports as a module, behind a feature docs.rs leaves off: its root.
    let ndarray = link(
        "burn::backend::ndarray",
        &["reexport module burn_ndarray"],
        "0.21.0",
    );
    assert_eq!(
        ndarray.unwrap().url(),
        "https://docs.rs/burn-ndarray/0.21.0/burn_ndarray/?search=burn_ndarray"
    );
}
