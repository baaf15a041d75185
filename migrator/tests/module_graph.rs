//! The crate's modules and what each imports, read from `crate::`, `super::`, `self::` and
//! child-module paths in `migrator/src` (test modules left out). Modules must form a DAG, and
//! the wings import downwards only: report -> prove -> migrate -> shared.
//!
//! `scripts/module-graph.sh` prints the graph (`module -> imports`) through this test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// `crate::a::b` for `src/a/b.rs` and `src/a/b/mod.rs`; `crate` for `lib.rs`; `main` for the
/// binary, whose `burn_migrate::` paths are the library's.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut segments: Vec<String> = relative
        .iter()
        .map(|s| s.to_string_lossy().to_string())
        .collect();
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    match segments.as_slice() {
        [only] if only == "lib" => "crate".into(),
        [only] if only == "main" => "main".into(),
        _ => format!("crate::{}", segments.join("::")),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without its test module (the last item, by the
/// project's convention).
fn code(text: &str) -> String {
    let text = text
        .split("\n#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(text);
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a use tree or expression at the start of `text` (`{a::{b, c}, d}` gives `a::b`,
/// `a::c` and `d`), each under `prefix`; returns how many characters it read.
fn paths(text: &[char], prefix: &str, out: &mut Vec<String>) -> usize {
    let mut path = prefix.to_string();
    let mut i = 0;
    loop {
        if text.get(i) == Some(&'{') {
            i += 1;
            loop {
                while text.get(i).is_some_and(|c| c.is_whitespace()) {
                    i += 1;
                }
                i += paths(&text[i..], &path, out);
                while text.get(i).is_some_and(|c| *c != ',' && *c != '}') {
                    i += 1;
                }
                match text.get(i) {
                    Some(',') => i += 1,
                    _ => return i + 1,
                }
            }
        }
        let start = i;
        while text.get(i).is_some_and(|c| is_ident(*c)) {
            i += 1;
        }
        if i > start {
            let segment: String = text[start..i].iter().collect();
            path = format!("{path}::{segment}");
        }
        if text.get(i) == Some(&':') && text.get(i + 1) == Some(&':') && i > start {
            i += 2;
        } else {
            out.push(path);
            return i;
        }
    }
}

fn parent(module: &str) -> String {
    module
        .rsplit_once("::")
        .map_or("crate", |(parent, _)| parent)
        .to_string()
}

/// `module -> modules it uses`, for every module of the crate.
fn module_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .map(|f| (module_of(&src, f), f.clone()))
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let own = if module == "main" { "crate" } else { module };
        let children: Vec<&str> = modules
            .keys()
            .filter_map(|m| m.strip_prefix(own)?.strip_prefix("::"))
            .filter(|rest| !rest.contains("::"))
            .collect();
        let mut roots: Vec<(String, String)> = vec![
            ("crate".into(), "crate".into()),
            ("burn_migrate".into(), "crate".into()),
            ("super".into(), parent(own)),
            ("self".into(), own.to_string()),
        ];
        roots.extend(
            children
                .iter()
                .map(|c| (c.to_string(), format!("{own}::{c}"))),
        );
        let mut used = Vec::new();
        for (root, resolved) in &roots {
            let needle = format!("{root}::");
            for (at, _) in code.match_indices(&needle) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| is_ident(c) || c == ':') {
                    continue;
                }
                let rest: Vec<char> = code[at + needle.len()..].chars().take(400).collect();
                paths(&rest, resolved, &mut used);
            }
        }
        let edges = graph.entry(module.clone()).or_default();
        for path in used {
            // The longest prefix of the path that is a module.
            let mut target = path.as_str();
            while !modules.contains_key(target) && target.contains("::") {
                target = target.rsplit_once("::").unwrap().0;
            }
            if target != module && target != own && modules.contains_key(target) {
                edges.insert(target.to_string());
            }
        }
    }
    graph
}

/// The groups of modules that import each other, directly or through others (the strongly
/// connected components of more than one module).
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    let reachable = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut queue = vec![from.to_string()];
        while let Some(node) = queue.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    queue.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reachable(m))).collect();
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for (module, reached) in &reach {
        let group: BTreeSet<String> = reached
            .iter()
            .filter(|other| reach.get(other).is_some_and(|r| r.contains(*module)))
            .cloned()
            .collect();
        if group.len() > 1 && !groups.contains(&group) {
            groups.push(group);
        }
    }
    groups
}

/// The wing of a module: 0 shared, 1 migrate, 2 prove, 3 report, 4 the binary.
fn wing(module: &str) -> usize {
    let top = module.split("::").nth(1).unwrap_or("");
    match (module, top) {
        ("main", _) => 4,
        (_, "report") => 3,
        (_, "prove") => 2,
        (_, "migrate") => 1,
        _ => 0,
    }
}

#[test]
fn modules_form_a_dag() {
    let graph = module_graph();
    let cycles = cycles(&graph);
    if std::env::var_os("MODULE_GRAPH_PRINT").is_some() {
        for (module, imports) in &graph {
            let imports: Vec<&str> = imports.iter().map(String::as_str).collect();
            println!("{module} -> {}", imports.join(", "));
        }
        for group in &cycles {
            let group: Vec<&str> = group.iter().map(String::as_str).collect();
            println!("cycle among: {}", group.join(", "));
        }
    }
    assert!(graph.len() > 40, "the graph misses modules: {graph:?}");
    assert!(
        cycles.is_empty(),
        "modules that import each other: {cycles:#?}"
    );
}

#[test]
fn wings_import_downwards_only() {
    let graph = module_graph();
    let upward: Vec<String> = graph
        .iter()
        .flat_map(|(module, imports)| {
            imports
                .iter()
                .filter(|import| wing(import) > wing(module))
                .map(move |import| format!("{module} -> {import}"))
        })
        .collect();
    assert!(upward.is_empty(), "imports pointing up: {upward:#?}");
}

#[test]
fn the_reader_finds_nested_use_trees_and_cycles() {
    let mut found = Vec::new();
    let text: Vec<char> = "{a::{b, c}, d} ;".chars().collect();
    paths(&text, "crate", &mut found);
    assert!(found.contains(&"crate::a::b".to_string()), "{found:?}");
    assert!(found.contains(&"crate::a::c".to_string()), "{found:?}");
    assert!(found.contains(&"crate::d".to_string()), "{found:?}");
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    let expected: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    assert_eq!(cycles(&graph), [expected]);
}
