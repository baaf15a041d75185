//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn projects() -> Vec<PathBuf> {
    let mut projects: Vec<PathBuf> = std::fs::read_dir(repo_root().join("testdata/projects"))
        .expect("testdata/projects exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("before").is_dir())
        .collect();
    projects.sort();
    projects
}

/// Copies a project tree, leaving out build outputs and lockfiles.
pub fn copy_project(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("read project") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == "target" || name == "Cargo.lock" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_project(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy file");
        }
    }
}

/// Every file under `root` (relative path, contents), sorted, build outputs left out.
pub fn tree_files(root: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name == "target" || name == "Cargo.lock" {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((
                    rel,
                    std::fs::read_to_string(&path).expect("UTF-8 fixture file"),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

pub fn burn_migrate(args: &[&str], path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_burn-migrate"))
        .args(args)
        .arg(path)
        .output()
        .expect("burn-migrate runs")
}

/// xorshift64*: small, fast, and the same everywhere, for tests that try many generated
/// cases (iteration `i` is the same input on every machine).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// A count from the environment variable `name`, else `default`.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes `text` to `path`, making its directories.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file in a directory")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Runs git in `dir` (with a committer set), failing the test if it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

/// A Rust code block of a hand-written page of the guide (`book/src`, not the rule pages,
/// which are generated from the rule examples that `compile_examples` compiles).
#[allow(dead_code)]
pub struct BookBlock {
    /// The page, relative to `book/src`, and the line of the opening fence.
    pub page: String,
    pub line: usize,
    /// How the block is checked, from its fence (the rules are in `book_code`'s module doc).
    pub check: BlockCheck,
    /// The block as the compiler sees it: hidden lines (`# ..`, which mdBook does not show)
    /// included, without their `# `.
    pub code: String,
    /// The lines a reader sees.
    pub shown: Vec<String>,
}

#[allow(dead_code)]
#[derive(Debug, PartialEq, Eq)]
pub enum BlockCheck {
    /// ```` ```rust ````: compiled against Burn 0.22; ```` ```rust,features=wgpu+fusion ````:
    /// with these `burn` features on top of the example crate's (in a crate of their own).
    Burn022(Vec<String>),
    /// ```` ```rust,burn-0.21 ````: compiled against Burn 0.21.
    Burn021,
    /// ```` ```rust,excerpt=PATH ````: its lines are lines of a fixture or rule file (in
    /// order), which the slow tier builds.
    Excerpt(String),
    /// ```` ```rust,ignore REASON ````: not compiled, for the reason given.
    Ignored(String),
    /// Anything else: the fast test rejects it.
    Unknown(String),
}

#[allow(dead_code)]
pub fn book_blocks() -> Vec<BookBlock> {
    let src = repo_root().join("book/src");
    let mut pages = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && path != src.join("rules") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    (pages.iter())
        .flat_map(|path| {
            let page = path.strip_prefix(&src).unwrap().display().to_string();
            blocks_of(&page, &read(path))
        })
        .collect()
}

/// A Cargo feature name as a fence may name it (no empty name, nothing a manifest would
/// have to quote).
fn is_feature_name(name: &str) -> bool {
    !name.is_empty() && (name.chars()).all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The Rust code blocks of one page's Markdown `text`.
#[allow(dead_code)]
pub fn blocks_of(page: &str, text: &str) -> Vec<BookBlock> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| !l.trim_start().starts_with("```"))
            .collect();
        let (lang, reason) = info.split_once(char::is_whitespace).unwrap_or((info, ""));
        let mut classes = lang.split(',');
        if classes.next() != Some("rust") {
            continue;
        }
        let check = match classes.next() {
            None => BlockCheck::Burn022(vec![]),
            Some("burn-0.21") => BlockCheck::Burn021,
            // CommonMark ends a backtick fence's info string at a backtick.
            Some("ignore") if !reason.trim().is_empty() && !reason.contains('`') => {
                BlockCheck::Ignored(reason.trim().to_string())
            }
            Some(class) => {
                if let Some(file) = class.strip_prefix("excerpt=") {
                    BlockCheck::Excerpt(file.to_string())
                } else if let Some(features) = class.strip_prefix("features=") {
                    let features: Vec<String> = features.split('+').map(String::from).collect();
                    match features.iter().all(|f| is_feature_name(f)) {
                        true => BlockCheck::Burn022(features),
                        false => BlockCheck::Unknown(info.to_string()),
                    }
                } else {
                    BlockCheck::Unknown(info.to_string())
                }
            }
        };
        // Words after the classes are a reason, which only `ignore` takes.
        let check = match check {
            BlockCheck::Ignored(_) => check,
            _ if !reason.trim().is_empty() => BlockCheck::Unknown(info.to_string()),
            _ => check,
        };
        let hidden = |l: &str| l.trim_start() == "#" || l.trim_start().starts_with("# ");
        let code = body
            .iter()
            .map(|l| match hidden(l) {
                true => l
                    .trim_start()
                    .trim_start_matches('#')
                    .strip_prefix(' ')
                    .unwrap_or(""),
                false => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let shown = (body.iter())
            .filter(|l| !hidden(l))
            .map(|l| l.to_string())
            .collect();
        blocks.push(BookBlock {
            page: page.to_string(),
            line: at + 1,
            check,
            code,
            shown,
        });
    }
    blocks
}
