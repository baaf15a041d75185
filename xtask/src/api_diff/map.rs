//! Maps each removed or changed 0.21 item to the rules that port it, in this order:
//! 1. `framework/api/decisions.tsv` (hand decisions: an exact path or `prefix::*`; the longest
//!    pattern wins);
//! 2. the paths a rule's `[[rewrite]]` tables name (`removed-item` paths, `rename-path` from,
//!    call rules' `function` when it is Burn's path, method rewrites by method name (of the
//!    types of their `chain_root` or `in_files_naming`, when given), `report-field` fields) and
//!    `[[feature_add]]` `when_path`s;
//! 3. backend generics: the 0.21 line with its backend parameter dropped (`<B: Backend>`, `B`
//!    arguments, `B::Device` -> `Device`) equals the 0.22 line -> `backend-generic-arg`;
//! 4. the API-change catalogue (`book/api-changes-rows.tsv`): a row whose 0.21 form names the
//!    item's path (or `Type::member`, or a removed type's name) -> the rules whose `covers`
//!    lists the row, or `none: <the row's note>`;
//! 5. a removed item inside a removed, mapped parent takes the parent's mapping.
//!
//! Everything else is `unmapped`.

use burn_migrate::rules::RuleId;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub struct Row {
    pub path: String,
    pub change: &'static str,
    pub old: String,
    pub new: String,
    pub mapping: String,
    pub via: String,
}

struct Rewrite {
    rule: String,
    /// Paths (without a trailing `::*`) the rule names; items at or under them match.
    paths: Vec<String>,
    /// `[[feature_add]]` paths: removed items at or under them match (they need a feature).
    feature_paths: Vec<String>,
    /// Method names the rule rewrites (with the types of its `chain_root`, if any).
    methods: Vec<(String, Vec<String>)>,
}

struct CatalogueRow {
    id: String,
    text: String,
    note: Option<String>,
    spans: Vec<String>,
}

pub struct Mapper {
    rules: BTreeSet<String>,
    covers: BTreeMap<String, Vec<String>>,
    rewrites: Vec<Rewrite>,
    rows: Vec<CatalogueRow>,
    decisions: Vec<(String, String)>,
    /// Each rule's `[api] before` paths: the 0.21 items its rewrite is written for (a rule
    /// whose transform is code, not a table, names its items only there).
    api_before: Vec<(String, Vec<String>)>,
}

impl Mapper {
    pub fn load(repo: &Path) -> Result<Mapper, String> {
        let mut rules = BTreeSet::new();
        let mut covers: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut rewrites = vec![];
        let mut api_before = vec![];
        let dir = repo.join("rules");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let doc: toml_edit::DocumentMut =
                text.parse().map_err(|e| format!("{}: {e}", f.display()))?;
            let Some(id) = doc.get("id").and_then(|i| i.as_str()).map(String::from) else {
                continue;
            };
            rules.insert(id.clone());
            let before = strings(doc.get("api").and_then(|api| api.get("before")));
            if !before.is_empty() {
                api_before.push((id.clone(), before));
            }
            for row in strings(doc.get("covers")) {
                covers.entry(row).or_default().push(id.clone());
            }
            let mut rw = Rewrite {
                rule: id.clone(),
                paths: vec![],
                feature_paths: vec![],
                methods: vec![],
            };
            if let Some(tables) = doc.get("rewrite").and_then(|t| t.as_array_of_tables()) {
                for t in tables.iter() {
                    for p in strings(t.get("paths")) {
                        rw.paths.push(p.trim_end_matches("::*").to_string());
                    }
                    if let Some(from) = t.get("from").and_then(|v| v.as_str()) {
                        rw.paths.push(from.trim_end_matches("::*").to_string());
                    }
                    // A call rule for Burn's function by its path (`burn::tensor::module::..`).
                    if let Some(f) = t.get("function").and_then(|v| v.as_str()) {
                        if f.starts_with("burn::") {
                            rw.paths.push(f.to_string());
                        }
                    }
                    if let Some(m) = t.get("method").and_then(|v| v.as_str()) {
                        // The types a method is narrowed to: a chain's root type, and the
                        // items a file must name for the call to be reported.
                        let roots = strings(t.get("chain_root"))
                            .into_iter()
                            .map(|r| r.split("::").next().unwrap_or("").to_string())
                            .chain(
                                strings(t.get("in_files_naming"))
                                    .into_iter()
                                    .map(|p| p.rsplit("::").next().unwrap_or("").to_string()),
                            )
                            .collect();
                        rw.methods.push((m.to_string(), roots));
                    }
                    // A report-field table: `Type::field` for each field.
                    if let Some(ty) = t.get("type_path").and_then(|v| v.as_str()) {
                        for field in strings(t.get("fields")) {
                            rw.paths.push(format!("{ty}::{field}"));
                        }
                    }
                }
            }
            if let Some(tables) = doc.get("feature_add").and_then(|t| t.as_array_of_tables()) {
                for t in tables.iter() {
                    if let Some(p) = t.get("when_path").and_then(|v| v.as_str()) {
                        rw.feature_paths.push(p.trim_end_matches("::*").to_string());
                    }
                }
            }
            if !rw.paths.is_empty() || !rw.methods.is_empty() || !rw.feature_paths.is_empty() {
                rewrites.push(rw);
            }
        }
        let rows_file = repo.join("book/api-changes-rows.tsv");
        let text = std::fs::read_to_string(&rows_file)
            .map_err(|e| format!("{}: {e}", rows_file.display()))?;
        let mut rows = vec![];
        for l in text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let mut cols = l.split('\t');
            let id = cols.next().unwrap_or("").to_string();
            let title = cols.next().unwrap_or("").to_string();
            let note = cols.next().map(String::from);
            rows.push(CatalogueRow {
                spans: code_spans(&title),
                id,
                text: title,
                note,
            });
        }
        let mut decisions = vec![];
        let dfile = repo.join("framework/api/decisions.tsv");
        if let Ok(text) = std::fs::read_to_string(&dfile) {
            for (n, l) in text.lines().enumerate() {
                if l.trim().is_empty() || l.starts_with('#') {
                    continue;
                }
                let (p, m) = l.split_once('\t').ok_or_else(|| {
                    format!("{}:{}: expected `PATH<TAB>MAPPING`", dfile.display(), n + 1)
                })?;
                decisions.push((p.trim().to_string(), m.trim().to_string()));
            }
        }
        Ok(Mapper {
            rules,
            covers,
            rewrites,
            rows,
            decisions,
            api_before,
        })
    }

    /// The rules whose `[api] before` names `path` itself.
    fn api_before(&self, path: &str) -> Option<(String, String)> {
        let hits: BTreeSet<String> = (self.api_before.iter())
            .filter(|(_, paths)| paths.iter().any(|p| p == path))
            .map(|(rule, _)| rule.clone())
            .collect();
        (!hits.is_empty()).then(|| (join(&hits), format!("api {path}")))
    }

    fn decision(&self, path: &str) -> Option<(String, String)> {
        self.decisions
            .iter()
            .filter(|(p, _)| match p.strip_suffix("::*") {
                Some(prefix) => under(path, prefix),
                None => p == path,
            })
            .max_by_key(|(p, _)| p.len())
            .map(|(p, m)| (m.clone(), format!("decision {p}")))
    }

    /// `in_new`: whether 0.22 (built without the opt-in features) lists a path; a feature's
    /// path covers removed items only when the whole path is missing (it moved behind the feature).
    fn rewrite(
        &self,
        path: &str,
        removed: bool,
        is_method: bool,
        in_new: &dyn Fn(&str) -> bool,
    ) -> Option<(String, String)> {
        let mut hits: BTreeSet<String> = BTreeSet::new();
        let mut via = String::new();
        for rw in &self.rewrites {
            if removed {
                if let Some(p) = rw
                    .feature_paths
                    .iter()
                    .find(|p| under(path, p) && !in_new(p))
                {
                    hits.insert(rw.rule.clone());
                    via = format!("feature_add {p}");
                }
            }
            if let Some(p) = rw.paths.iter().find(|p| under(path, p)) {
                hits.insert(rw.rule.clone());
                via = format!("rewrite {p}");
            }
            if is_method {
                let mut segs = path.rsplit("::");
                let (name, parent) = (segs.next().unwrap_or(""), segs.next().unwrap_or(""));
                for (m, roots) in &rw.methods {
                    if m == name && (roots.is_empty() || roots.iter().any(|r| r == parent)) {
                        hits.insert(rw.rule.clone());
                        via = format!("rewrite method {m}");
                    }
                }
            }
        }
        (!hits.is_empty()).then(|| (join(&hits), via))
    }

    fn catalogue(&self, path: &str, removed: bool, is_method: bool) -> Option<(String, String)> {
        let segs: Vec<&str> = path.split("::").collect();
        let name = *segs.last()?;
        let parent = if segs.len() > 1 {
            segs[segs.len() - 2]
        } else {
            ""
        };
        for row in &self.rows {
            let covered = self.covers.contains_key(&row.id);
            let hit = row.spans.iter().any(|s| {
                if s.starts_with("burn::") {
                    // `burn::a::*` names everything under `burn::a`, other paths one item
                    expand(s).iter().any(|p| match p.strip_suffix("::*") {
                        Some(prefix) => under(path, prefix),
                        None => path == p,
                    })
                } else if let Some((ty, member)) = s.split_once("::") {
                    // `TensorData::convert`, `Tensor::from_inner(t)`
                    let member = ident_prefix(member);
                    ty == parent && member == name
                } else if let Some(m) = s.split_once('.').map(|(_, m)| ident_prefix(m)) {
                    // `x.into_scalar()`: a method of a type the row names
                    is_method && m == name && (parent == "Tensor" || row.text.contains(parent))
                } else {
                    // a removed type named alone (`TensorKindId`), in a row some rule ports: a
                    // bare name in a "no change" row is too loose to decide anything
                    covered
                        && removed
                        && !is_method
                        && s == name
                        && name.starts_with(|c: char| c.is_ascii_uppercase())
                }
            });
            if !hit {
                continue;
            }
            let via = format!("catalogue {}", row.id);
            if let Some(rules) = self.covers.get(&row.id) {
                return Some((join(&rules.iter().cloned().collect()), via));
            }
            if let Some(note) = &row.note {
                return Some((format!("none: {} ({})", note, row.id), via));
            }
        }
        None
    }

    /// Every rule id a mapping string names (`a,b` or `none: ..`).
    pub fn unknown_rules(&self, mapping: &str) -> Vec<String> {
        if mapping == "unmapped" || mapping.starts_with("none") {
            return vec![];
        }
        mapping
            .split(',')
            .map(str::trim)
            .filter(|r| !self.rules.contains(*r))
            .map(String::from)
            .collect()
    }
}

fn strings(item: Option<&toml_edit::Item>) -> Vec<String> {
    item.and_then(|i| i.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().cloned().collect::<Vec<_>>().join(",")
}

/// `path` is `prefix` or an item under it.
fn under(path: &str, prefix: &str) -> bool {
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with("::"))
}

fn ident_prefix(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The `code` spans of a catalogue title.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `burn::a::{b, c}` -> `burn::a::b`, `burn::a::c`; `burn::a::*` -> `burn::a`; a `use` prefix goes.
fn expand(span: &str) -> Vec<String> {
    let s = span.trim_start_matches("use ").trim_end_matches(';');
    let s = s.split(['(', '<', ' ']).next().unwrap_or(s);
    if let Some((head, tail)) = span.trim_start_matches("use ").split_once("::{") {
        return tail
            .trim_end_matches(['}', ';'])
            .split(',')
            .map(|t| format!("{head}::{}", ident_prefix(t.trim())))
            .collect();
    }
    vec![s.to_string()]
}

/// The backend type parameters a 0.21 line declares (`B: Backend`, `B: AutodiffBackend`).
fn backend_params(line: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in line.match_indices(": ") {
        let before = &line[..i];
        let name_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(|p| p + 1)
            .unwrap_or(0);
        let name = &before[name_start..];
        let after = &line[i + 2..];
        let bound = ident_prefix(after);
        if !name.is_empty()
            && name.chars().next().is_some_and(|c| c.is_uppercase())
            && matches!(bound, "Backend" | "AutodiffBackend")
        {
            out.insert(name.to_string());
        }
    }
    out
}

/// A line with its backend parameters `bs` taken out: their declarations, their uses as
/// generic arguments, `B::Device` -> `Device`, and their `where` predicates.
fn drop_backend(line: &str, bs: &BTreeSet<String>) -> String {
    let mut s = line.to_string();
    for b in bs {
        s = s.replace(&format!("{b}::Device"), "Device");
        s = drop_list_elements(&s, b);
    }
    s.replace("<>", "")
        .replace(" where [", " [")
        .replace(" where  [", " [")
        .replace(" [impl ]", "")
        .trim_end()
        .trim_end_matches(" where")
        .to_string()
}

/// Removes the elements of `<..>` lists (and `where`/`[impl ..]` lists) that are exactly
/// `b`, or start with `b:` / `b =`.
fn drop_list_elements(s: &str, b: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let at_elem_start = out.ends_with('<')
            || out.ends_with(", ")
            || out.ends_with("where ")
            || out.ends_with("[impl ");
        let word_end = i + b.chars().count();
        let matches_word = word_end <= chars.len()
            && chars[i..word_end].iter().collect::<String>() == b
            && (word_end == chars.len() || !is_ident(chars[word_end]));
        if at_elem_start && matches_word {
            // the element runs to the next `,` or the closing `>`/`]` at depth 0
            let mut j = word_end;
            let mut depth = 0i32;
            while j < chars.len() {
                match chars[j] {
                    '<' | '(' | '[' => depth += 1,
                    '>' | ')' | ']' if depth == 0 => break,
                    '>' | ')' | ']' => depth -= 1,
                    ',' if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            if j < chars.len() && chars[j] == ',' {
                j += 1;
                if j < chars.len() && chars[j] == ' ' {
                    j += 1;
                }
            } else if out.ends_with(", ") {
                out.truncate(out.len() - 2);
            }
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn is_method_line(lines: &BTreeSet<String>) -> bool {
    lines.iter().any(|l| l.starts_with("method"))
}

pub fn diff(
    a: &BTreeMap<String, BTreeSet<String>>,
    b: &BTreeMap<String, BTreeSet<String>>,
    m: &Mapper,
) -> Vec<Row> {
    let mut rows: Vec<Row> = vec![];
    // `alias` lines: where a type's members are listed when it has several paths
    let alias = |m: &BTreeMap<String, BTreeSet<String>>, p: &str| -> Option<String> {
        m.get(p)?
            .iter()
            .find_map(|l| l.strip_prefix("alias ").map(String::from))
    };
    let strip = |set: &BTreeSet<String>| -> BTreeSet<String> {
        set.iter()
            .filter(|l| !l.starts_with("alias "))
            .cloned()
            .collect()
    };
    // 0.22 paths by last segment and kind: where a removed item may have moved
    let mut moved: BTreeMap<(String, String), Vec<&String>> = BTreeMap::new();
    for (p, lines) in b {
        let name = p.rsplit("::").next().unwrap_or(p).to_string();
        for l in lines {
            let kind = l.split([' ', '<']).next().unwrap_or("").to_string();
            if !matches!(
                kind.as_str(),
                "alias" | "reexport" | "field" | "variant" | "method"
            ) {
                moved.entry((name.clone(), kind)).or_default().push(p);
            }
        }
    }
    // a crate path that is only another name of an item the facade re-exports
    // (`burn_cubecl::tensor::CubeTensor`): that item's own row speaks for it
    let another_name = |p: &str, lines: &BTreeSet<String>| {
        !p.starts_with("burn::") && lines.iter().all(|l| l.starts_with("alias "))
    };
    for (path, old) in a {
        if another_name(path, old) {
            continue;
        }
        let old = &strip(old);
        // in 0.22 the path may be another name of a facade item: that item's lines
        let mut new = b
            .get(path)
            .and_then(|lines| match another_name(path, lines) {
                true => alias(b, path).and_then(|target| b.get(&target)).map(strip),
                false => Some(strip(lines)),
            });
        if new.is_none() {
            // a member listed under another path of its type in 0.22
            if let Some((parent, name)) = path.rsplit_once("::") {
                if let Some(c) = alias(b, parent) {
                    new = b.get(&format!("{c}::{name}")).map(strip);
                }
            }
        }
        let new = new.as_ref();
        let change = match new {
            None => "removed",
            Some(n) if n != old => "changed",
            Some(_) => continue,
        };
        let newset = new.cloned().unwrap_or_default();
        let is_method = is_method_line(old);
        let mapped = m
            .decision(path)
            .or_else(|| m.rewrite(path, change == "removed", is_method, &|p| b.contains_key(p)))
            .or_else(|| generic_only(old, &newset, &parent_backend_params(a, path)))
            .or_else(|| record_type(a, path, change == "removed"))
            .or_else(|| learning_components(old, &newset))
            .or_else(|| m.catalogue(path, change == "removed", is_method))
            .or_else(|| m.api_before(path));
        let (mapping, via) = mapped.unwrap_or(("unmapped".into(), String::new()));
        let mut new_text = newset.iter().cloned().collect::<Vec<_>>().join(" | ");
        if change == "removed" {
            let name = path.rsplit("::").next().unwrap_or(path).to_string();
            let mut at: BTreeSet<&String> = BTreeSet::new();
            for l in old {
                let kind = l.split([' ', '<']).next().unwrap_or("").to_string();
                at.extend(moved.get(&(name.clone(), kind)).into_iter().flatten());
            }
            if !at.is_empty() {
                let list: Vec<&str> = at.iter().take(3).map(|p| p.as_str()).collect();
                new_text = format!("now at: {}", list.join(", "));
            }
        }
        rows.push(Row {
            path: path.clone(),
            change,
            old: old.iter().cloned().collect::<Vec<_>>().join(" | "),
            new: new_text,
            mapping,
            via,
        });
    }
    // 5: removed items inside a removed, mapped parent
    let mapped: BTreeMap<String, (String, String)> = rows
        .iter()
        .filter(|r| r.change == "removed" && r.mapping != "unmapped")
        .map(|r| (r.path.clone(), (r.mapping.clone(), r.path.clone())))
        .collect();
    for r in rows
        .iter_mut()
        .filter(|r| r.mapping == "unmapped" && r.change == "removed")
    {
        let mut p = r.path.as_str();
        while let Some((parent, _)) = p.rsplit_once("::") {
            if let Some((mapping, from)) = mapped.get(parent) {
                r.mapping = mapping.clone();
                r.via = format!("inside {from}");
                break;
            }
            p = parent;
        }
    }
    rows
}

/// 3: the change is the backend parameter's removal and nothing else.
/// Training API generic over `LC: LearningComponentsTypes` that became generic over
/// `M: LearnerModel` (L12); the learner record aliases (`LearnerModelRecord<LC>`..) with it.
fn learning_components(old: &BTreeSet<String>, new: &BTreeSet<String>) -> Option<(String, String)> {
    let o = old.iter().cloned().collect::<Vec<_>>().join(" ");
    let n = new.iter().cloned().collect::<Vec<_>>().join(" ");
    let uses_lc = o.contains("LearningComponentsTypes") || o.contains("<LC>") || o.contains("LC::");
    let uses_m = n.contains("LearnerModel") || n.contains("<M>") || n.contains("M::");
    if !new.is_empty() && o.contains("Record<LC>") && !uses_m {
        // `LearnerModelRecord<LC>` -> `ModuleRecord`, and the optimizer/scheduler ones
        return Some((
            RuleId::LearnerCheckpointRecords.as_str().into(),
            "learner record alias -> ModuleRecord/OptimizerRecord/LrSchedulerRecord".into(),
        ));
    }
    if new.is_empty() || !uses_lc || !uses_m {
        return None;
    }
    let mut rules = BTreeSet::from([RuleId::LearningComponents.as_str().to_string()]);
    if o.contains("RecordItem<") || o.contains("Record<LC>") || o.contains("Record<B>") {
        rules.insert(RuleId::LearnerCheckpointRecords.as_str().into());
    }
    Some((
        join(&rules),
        "LearningComponentsTypes -> LearnerModel".into(),
    ))
}

/// A removed `XRecord` / `XRecordItem` next to a type `X`: the record `derive(Module)` made.
fn record_type(
    a: &BTreeMap<String, BTreeSet<String>>,
    path: &str,
    removed: bool,
) -> Option<(String, String)> {
    if !removed {
        return None;
    }
    let is_type = |p: &str| {
        a.get(p).is_some_and(|ls| {
            ls.iter()
                .any(|l| l.starts_with("struct") || l.starts_with("enum"))
        })
    };
    let module_record = path
        .strip_suffix("RecordItem")
        .or_else(|| path.strip_suffix("Record"));
    if let Some(base) = module_record {
        if is_type(path) && is_type(base) {
            return Some((
                RuleId::ModuleRecordType.as_str().to_string(),
                format!("record type of {base}"),
            ));
        }
    }
    // `XItem` next to a type `X`, generic over `PrecisionSettings`: the item type
    // `derive(Record)` made for a record `X`
    let base = path.strip_suffix("Item")?;
    let precision = a
        .get(path)
        .is_some_and(|ls| ls.iter().any(|l| l.contains("PrecisionSettings")));
    let rule = if base.starts_with("burn::optim::") {
        RuleId::OptimizerRecord.as_str()
    } else {
        RuleId::RecorderTypes.as_str()
    };
    (is_type(path) && is_type(base) && precision)
        .then(|| (rule.to_string(), format!("record item of {base}")))
}

/// The backend parameters the item's parent (the type or trait of a method) declares.
fn parent_backend_params(a: &BTreeMap<String, BTreeSet<String>>, path: &str) -> BTreeSet<String> {
    let Some((parent, _)) = path.rsplit_once("::") else {
        return BTreeSet::new();
    };
    a.get(parent)
        .into_iter()
        .flatten()
        .flat_map(|l| backend_params(l))
        .collect()
}

fn generic_only(
    old: &BTreeSet<String>,
    new: &BTreeSet<String>,
    inherited: &BTreeSet<String>,
) -> Option<(String, String)> {
    if new.is_empty() {
        return None;
    }
    let mut rules: BTreeSet<String> = BTreeSet::new();
    let mut notes: BTreeSet<&str> = BTreeSet::new();
    let dropped: BTreeSet<String> = old
        .iter()
        .map(|l| {
            let mut bs = backend_params(l);
            bs.extend(inherited.iter().cloned());
            // `Tensor`'s first argument is its backend in 0.21, wherever that parameter was
            // declared (often on an impl block, which the lists leave out)
            for (i, _) in l.match_indices("Tensor<") {
                let arg = ident_prefix(&l[i + "Tensor<".len()..]);
                if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_uppercase()) {
                    bs.insert(arg.to_string());
                }
            }
            let mut l = l.clone();
            for b in &bs {
                // associated types of the backend that became plain types
                for (assoc, plain, rule) in [
                    ("Device", "Device", RuleId::BackendDeviceType.as_str()),
                    (
                        "Gradients",
                        "Gradients",
                        RuleId::AutodiffGradientsType.as_str(),
                    ),
                ] {
                    let from = format!("{b}::{assoc}");
                    if l.contains(&from) {
                        l = l.replace(&from, plain);
                        rules.insert(rule.into());
                    }
                }
                // `Tensor<B::InnerBackend, D>`: the inner backend is a backend argument too
                let inner = format!("{b}::InnerBackend");
                if l.contains(&inner) {
                    l = drop_list_elements(&l, &inner);
                }
            }
            if !bs.is_empty() {
                let d = drop_backend(&l, &bs);
                if d != l {
                    rules.insert(RuleId::BackendGenericArg.as_str().into());
                }
                l = d;
            }
            l
        })
        .collect();
    let widened: BTreeSet<String> = new.iter().map(|l| narrow(l)).collect();
    let widening = widened != *new;
    if dropped == *new || (widening && dropped == widened) {
        if widening && dropped != *new {
            notes.insert("parameter widened (`usize` -> `impl AsIndex`), old calls compile");
        }
        if rules.is_empty() {
            return (!notes.is_empty()).then(|| {
                (
                    format!(
                        "none: {} (T14)",
                        notes.into_iter().collect::<Vec<_>>().join("; ")
                    ),
                    "widening".into(),
                )
            });
        }
        let mut via = "backend parameter dropped".to_string();
        for n in notes {
            via.push_str("; ");
            via.push_str(n);
        }
        return Some((join(&rules), via));
    }
    None
}

/// A 0.22 line with index parameters narrowed back to 0.21's `usize` (`impl AsIndex`,
/// `I: AsIndex` generics): the same calls compile.
fn narrow(line: &str) -> String {
    let mut l = line.replace("impl AsIndex", "usize");
    for name in ["I", "Dim"] {
        let decl = format!("{name}: AsIndex");
        if l.contains(&decl) {
            // the parameter's uses, then its declaration
            l = l
                .replace(&format!("({name},"), "(usize,")
                .replace(&format!(", {name},"), ", usize,")
                .replace(&format!(", {name})"), ", usize)")
                .replace(&format!("({name})"), "(usize)");
            l = drop_list_elements(&l, name)
                .replace("<>", "")
                .replace("method  (", "method (");
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_backend_parameter() {
        let bs = backend_params("struct<B: Backend, const D: usize>");
        assert_eq!(bs, BTreeSet::from(["B".to_string()]));
        assert_eq!(
            drop_backend("struct<B: Backend, const D: usize>", &bs),
            "struct<const D: usize>"
        );
        assert_eq!(drop_backend("struct<B: Backend>", &bs), "struct");
        assert_eq!(
            drop_backend(
                "method <B: Backend>(&self, &B::Device) -> Linear<B> where B: Clone",
                &bs
            ),
            "method (&self, &Device) -> Linear"
        );
        assert_eq!(
            drop_backend(
                "method (self, Tensor<B, D, K>) -> Tensor<B, D> [impl B: Backend]",
                &bs
            ),
            "method (self, Tensor<D, K>) -> Tensor<D>"
        );
    }

    #[test]
    fn widened_index_parameters_narrow_back() {
        assert_eq!(
            narrow("method <I: AsIndex>(self, I) -> Tensor<D, Int>"),
            "method (self, usize) -> Tensor<D, Int>"
        );
        assert_eq!(
            narrow("method (self, usize, impl AsIndex) -> Vec<Self>"),
            "method (self, usize, usize) -> Vec<Self>"
        );
    }

    #[test]
    fn expands_catalogue_paths() {
        assert_eq!(
            expand("burn::tensor::{get_device_settings, set_default_dtypes}"),
            vec![
                "burn::tensor::get_device_settings".to_string(),
                "burn::tensor::set_default_dtypes".to_string()
            ]
        );
        assert_eq!(
            expand("use burn::tensor::backend::{Backend}"),
            vec!["burn::tensor::backend::Backend".to_string()]
        );
        assert_eq!(
            expand("burn::tensor::linalg::*"),
            vec!["burn::tensor::linalg::*".to_string()]
        );
    }
}
