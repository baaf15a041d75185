//! The guide's Rust code is checked, the way the Rust book tests its listings. Rule pages
//! (`book/src/rules`) are generated from the rule examples, which `compile_examples` compiles
//! against both versions. On the hand-written pages each ```` ```rust ```` fence says how its
//! block is checked:
//!
//! - ```` ```rust ````: compiled against Burn 0.22 (slow tier, `compile_examples`);
//!   ```` ```rust,features=wgpu+fusion ````: the same, with these `burn` features on too;
//! - ```` ```rust,burn-0.21 ````: compiled against Burn 0.21 (the same);
//! - ```` ```rust,excerpt=testdata/projects/P/after/src/f.rs ````: every line it shows (bar
//!   blank lines and `//` comments) is a line of that fixture file, in order; the slow tier
//!   builds the fixture (`verify_fixtures`). `excerpt=rules/R.toml`: the same, of a rule
//!   file, whose examples the slow tier compiles (`compile_examples`);
//! - ```` ```rust,ignore REASON ````: not compiled, for the reason written after the fence.
//!
//! Lines starting `# ` are hidden by mdBook and compiled (the context a fragment needs).

mod common;

use common::*;

#[test]
fn every_rust_block_of_the_guide_says_how_it_is_checked() {
    let blocks = book_blocks();
    assert!(blocks.len() > 10, "found only {} blocks", blocks.len());
    let unknown: Vec<String> = (blocks.iter())
        .filter_map(|b| match &b.check {
            BlockCheck::Unknown(info) => Some(format!("{}:{}: ```{info}", b.page, b.line)),
            _ => None,
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "fences that say neither `rust`, `rust,features=A+B`, `rust,burn-0.21`, `rust,excerpt=PATH` nor `rust,ignore REASON`:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn excerpts_are_lines_of_the_fixture_they_name() {
    let mut failures = Vec::new();
    let mut excerpts = 0;
    for block in book_blocks() {
        let BlockCheck::Excerpt(file) = &block.check else {
            continue;
        };
        excerpts += 1;
        let path = repo_root().join(file);
        let fixture = file.starts_with("testdata/projects/") || file.starts_with("rules/");
        if !fixture || !path.is_file() {
            failures.push(format!(
                "{}:{}: `{file}` is not a fixture file or rule file",
                block.page, block.line
            ));
            continue;
        }
        if let Some(line) = missing_line(&block.shown, &read(&path)) {
            failures.push(format!(
                "{}:{}: `{line}` is not in {file} (in the block's order)",
                block.page, block.line
            ));
        }
    }
    assert!(excerpts > 0, "no excerpt blocks found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The first line an excerpt shows (bar blank lines and `//` comments) that is not a line of
/// `source` after the lines before it, compared without indentation.
fn missing_line<'a>(shown: &'a [String], source: &str) -> Option<&'a str> {
    let mut source_lines = source.lines().map(str::trim);
    (shown.iter())
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .find(|line| !source_lines.any(|s| s == *line))
}

/// The checks fail where they should: lines out of order or not in the file, fences without
/// a reason or of another kind; hidden lines are compiled, not shown.
#[test]
fn the_checks_catch_wrong_blocks() {
    let source = "fn a() {}\n    fn b() {}\n";
    let shown = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(
        missing_line(&shown(&["// a file", "fn a() {}", "", "fn b() {}"]), source),
        None
    );
    assert_eq!(
        missing_line(&shown(&["fn b() {}", "fn a() {}"]), source),
        Some("fn a() {}")
    );
    assert_eq!(
        missing_line(&shown(&["fn c() {}"]), source),
        Some("fn c() {}")
    );
    let page = "```rust,ignore\nx\n```\n\n```rust,ignore a fragment\nx\n```\n\n```rust,burn-0.21\n# fn f() {\nlet x = 1;\n# }\n```\n\n```toml\n```\n\n```rust,features=wgpu+fusion\n```\n\n```rust,features=a b\n```\n\n```rust,features=wgpu+\n```\n";
    let blocks = blocks_of("p.md", page);
    let checks: Vec<&BlockCheck> = blocks.iter().map(|b| &b.check).collect();
    assert_eq!(
        checks,
        [
            &BlockCheck::Unknown("rust,ignore".into()),
            &BlockCheck::Ignored("a fragment".into()),
            &BlockCheck::Burn021,
            &BlockCheck::Burn022(vec!["wgpu".into(), "fusion".into()]),
            &BlockCheck::Unknown("rust,features=a b".into()),
            &BlockCheck::Unknown("rust,features=wgpu+".into()),
        ]
    );
    assert_eq!(blocks[2].code, "fn f() {\nlet x = 1;\n}");
    assert_eq!(blocks[2].shown, ["let x = 1;"]);
    assert_eq!(blocks[2].line, 9);
}
