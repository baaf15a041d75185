//! Reads rustdoc JSON (through `serde_json::Value`, so any recent format version works) and
//! lists the public API reachable from crate roots: modules, `pub` items and `pub use`
//! re-exports (glob ones too), following re-exports into the other crates' JSON files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

/// One crate's rustdoc JSON.
pub struct Doc {
    pub name: String,
    index: HashMap<String, Value>,
    /// Item id -> (crate name, path) from the `paths` table.
    paths: HashMap<String, (String, Vec<String>, String)>,
    /// Local path -> item id (items of this crate only).
    by_path: HashMap<Vec<String>, String>,
    root: String,
}

impl Doc {
    pub fn load(file: &Path) -> Result<Doc, String> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not rustdoc JSON: {e}", file.display()))?;
        let root = id_str(&v["root"]).ok_or(format!("{}: no `root`", file.display()))?;
        let mut crates = HashMap::new();
        if let Some(ext) = v["external_crates"].as_object() {
            for (id, c) in ext {
                crates.insert(id.clone(), c["name"].as_str().unwrap_or("?").to_string());
            }
        }
        let index: HashMap<String, Value> = v["index"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let name = index
            .get(&root)
            .and_then(|r| r["name"].as_str())
            .unwrap_or("?")
            .to_string();
        crates.insert("0".into(), name.clone());
        let mut paths = HashMap::new();
        let mut by_path = HashMap::new();
        if let Some(p) = v["paths"].as_object() {
            for (id, s) in p {
                let krate = s["crate_id"].to_string();
                let segs: Vec<String> = s["path"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let kind = s["kind"].as_str().unwrap_or("?").to_string();
                if krate == "0" {
                    by_path.entry(segs.clone()).or_insert_with(|| id.clone());
                }
                let cname = crates.get(&krate).cloned().unwrap_or_else(|| "?".into());
                paths.insert(id.clone(), (cname, segs, kind));
            }
        }
        Ok(Doc {
            name,
            index,
            paths,
            by_path,
            root,
        })
    }
}

fn id_str(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The item a kind is keyed by in `inner` (`{"struct": {...}}` -> "struct").
fn inner(item: &Value) -> (&str, &Value) {
    match &item["inner"] {
        Value::Object(m) if m.len() == 1 => {
            let (k, v) = m.iter().next().expect("one entry");
            (k.as_str(), v)
        }
        Value::String(s) => (s.as_str(), &Value::Null),
        _ => ("?", &Value::Null),
    }
}

fn is_public(item: &Value) -> bool {
    item["visibility"].as_str() == Some("public")
}

/// An item of one of the loaded crates.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
struct Key {
    krate: String,
    id: String,
}

/// What a name in a module stands for.
#[derive(Clone)]
enum Target {
    Item(Key),
    /// A re-export of something outside the loaded crates: its kind and source path.
    Extern(String, String),
}

pub struct Api {
    docs: BTreeMap<String, Doc>,
    /// Every path an item is reachable at.
    /// Every path an item is reachable at, with the module it was reached through.
    occurrences: BTreeMap<Key, BTreeSet<(String, Key)>>,
    externs: BTreeSet<String>,
}

impl Api {
    pub fn new(docs: Vec<Doc>) -> Api {
        Api {
            docs: docs.into_iter().map(|d| (d.name.clone(), d)).collect(),
            occurrences: BTreeMap::new(),
            externs: BTreeSet::new(),
        }
    }

    fn item(&self, k: &Key) -> Option<&Value> {
        self.docs.get(&k.krate)?.index.get(&k.id)
    }

    /// Follows an id seen in crate `krate` to the item it names, in whichever loaded crate
    /// defines it.
    fn resolve(&self, krate: &str, id: &str) -> Option<Target> {
        let doc = self.docs.get(krate)?;
        if let Some(item) = doc.index.get(id) {
            if item["crate_id"].as_u64() == Some(0) || item["crate_id"].is_null() {
                return Some(Target::Item(Key {
                    krate: krate.into(),
                    id: id.into(),
                }));
            }
        }
        let (cname, segs, kind) = doc.paths.get(id)?;
        if let Some(other) = self.docs.get(cname) {
            if let Some(oid) = other.by_path.get(segs) {
                return Some(Target::Item(Key {
                    krate: cname.clone(),
                    id: oid.clone(),
                }));
            }
            if segs.len() == 1 {
                return Some(Target::Item(Key {
                    krate: cname.clone(),
                    id: other.root.clone(),
                }));
            }
            // a private module's item re-exported elsewhere: the one item of that name and kind
            let name = segs.last().map(String::as_str);
            let found: Vec<&String> = other
                .index
                .iter()
                .filter(|(_, it)| {
                    it["crate_id"].as_u64() == Some(0)
                        && it["name"].as_str() == name
                        && inner(it).0 == kind.as_str()
                })
                .map(|(id, _)| id)
                .collect();
            if let [one] = found[..] {
                return Some(Target::Item(Key {
                    krate: cname.clone(),
                    id: one.clone(),
                }));
            }
        }
        Some(Target::Extern(kind.clone(), segs.join("::")))
    }

    /// The names a module (or an enum, for `use Enum::*`) defines, globs expanded; explicit
    /// names shadow glob-imported ones.
    fn entries(&self, key: &Key, depth: usize) -> Vec<(String, Target)> {
        let Some(item) = self.item(key) else {
            return vec![];
        };
        let (kind, body) = inner(item);
        let ids: Vec<String> = match kind {
            "module" => body["items"].as_array(),
            "enum" => body["variants"].as_array(),
            _ => None,
        }
        .map(|a| a.iter().filter_map(id_str).collect())
        .unwrap_or_default();
        let mut explicit: Vec<(String, Target)> = vec![];
        let mut globbed: Vec<(String, Target)> = vec![];
        for id in ids {
            let Some(child) = self.docs[&key.krate].index.get(&id) else {
                continue;
            };
            if kind == "module" && !is_public(child) {
                continue;
            }
            let (ck, cb) = inner(child);
            if ck == "use" {
                let name = cb["name"].as_str().unwrap_or("?").to_string();
                let source = cb["source"].as_str().unwrap_or("?").to_string();
                let target = id_str(&cb["id"]).and_then(|t| self.resolve(&key.krate, &t));
                if cb["is_glob"].as_bool() == Some(true) {
                    match target {
                        Some(Target::Item(m)) if depth < 16 => {
                            globbed.extend(self.entries(&m, depth + 1))
                        }
                        _ => globbed.push(("*".into(), Target::Extern("glob".into(), source))),
                    }
                } else {
                    let t = target.unwrap_or(Target::Extern("use".into(), source));
                    explicit.push((name, t));
                }
            } else if let Some(name) = child["name"].as_str() {
                explicit.push((
                    name.to_string(),
                    Target::Item(Key {
                        krate: key.krate.clone(),
                        id,
                    }),
                ));
            }
        }
        let ns = |api: &Api, t: &Target| -> &'static str {
            match t {
                Target::Item(k) => match api.item(k).map(|i| inner(i).0) {
                    Some("macro") | Some("proc_macro") => "macro",
                    Some("function") | Some("constant") | Some("static") => "value",
                    _ => "type",
                },
                Target::Extern(kind, _)
                    if matches!(kind.as_str(), "macro" | "proc_derive" | "proc_attribute") =>
                {
                    "macro"
                }
                Target::Extern(kind, _) if kind == "function" => "value",
                Target::Extern(..) => "type",
            }
        };
        let taken: BTreeSet<(String, &str)> = explicit
            .iter()
            .map(|(n, t)| (n.clone(), ns(self, t)))
            .collect();
        let mut seen = taken.clone();
        for (n, t) in globbed {
            let k = (n.clone(), ns(self, &t));
            if seen.insert(k) {
                explicit.push((n, t));
            }
        }
        explicit
    }

    /// Walks a crate's public modules from its root, recording each item's paths.
    pub fn walk_crate(&mut self, krate: &str, prefix: &str) {
        let Some(doc) = self.docs.get(krate) else {
            return;
        };
        let root = Key {
            krate: krate.into(),
            id: doc.root.clone(),
        };
        let mut stack = vec![];
        self.walk_module(&root, prefix, &mut stack);
    }

    fn walk_module(&mut self, key: &Key, path: &str, stack: &mut Vec<Key>) {
        if stack.contains(key) || stack.len() > 12 {
            return;
        }
        stack.push(key.clone());
        for (name, target) in self.entries(key, 0) {
            let p = format!("{path}::{name}");
            match target {
                Target::Extern(kind, source) => {
                    if name != "*" {
                        self.externs.insert(format!("{p} reexport {kind} {source}"));
                    } else {
                        self.externs
                            .insert(format!("{path}::* reexport glob {source}"));
                    }
                }
                Target::Item(k) => {
                    let Some(item) = self.item(&k) else { continue };
                    let kind = inner(item).0.to_string();
                    if matches!(kind.as_str(), "extern_crate" | "primitive" | "impl") {
                        continue;
                    }
                    self.occurrences
                        .entry(k.clone())
                        .or_default()
                        .insert((p.clone(), key.clone()));
                    if kind == "module" {
                        self.walk_module(&k, &p, stack);
                    }
                }
            }
        }
        stack.pop();
    }

    /// The listing: one line per item path (`path kind signature`), members (fields,
    /// variants, methods, trait items) under each item's canonical path only. Items reachable
    /// through the `burn` facade are listed at their facade paths, and their paths in their
    /// crates (`burn_cubecl::tensor::CubeTensor`, which a project that depends on the crate
    /// imports) as `alias` lines pointing there.
    pub fn lines(&self) -> BTreeSet<String> {
        // the paths each item is listed at: facade paths where there are any
        let shown: BTreeMap<&Key, Vec<(&String, &Key)>> = self
            .occurrences
            .iter()
            .map(|(k, occ)| {
                let facade: Vec<(&String, &Key)> = occ
                    .iter()
                    .filter(|(p, _)| p.starts_with("burn::"))
                    .map(|(p, m)| (p, m))
                    .collect();
                let all = if facade.is_empty() {
                    occ.iter().map(|(p, m)| (p, m)).collect()
                } else {
                    facade
                };
                (k, all)
            })
            .collect();
        let canon: BTreeMap<&Key, &str> = shown
            .iter()
            .map(|(k, v)| {
                (
                    *k,
                    canonical(&v.iter().map(|(p, _)| *p).collect::<Vec<_>>()),
                )
            })
            .collect();
        let mut out = self.externs.clone();
        // a path reached through a second name of a module (`burn::prelude::nn::..`) is left
        // out: the module's canonical path lists the item
        let through_canonical_module =
            |(p, m): &(&String, &Key)| match (canon.get(m), p.rsplit_once("::")) {
                (Some(c), Some((parent, _))) => *c == parent,
                _ => true,
            };
        for (key, occ) in &self.occurrences {
            let c = canon[key];
            if !c.starts_with("burn::") {
                continue;
            }
            let crate_paths = (occ.iter().map(|(p, m)| (p, m)))
                .filter(|(p, _)| !p.starts_with("burn::"))
                .filter(through_canonical_module);
            for (p, _) in crate_paths {
                out.insert(format!("{p} alias {c}"));
            }
        }
        for (key, occ) in &shown {
            let Some(item) = self.item(key) else { continue };
            let mut paths: Vec<&str> = (occ.iter().copied())
                .filter(through_canonical_module)
                .map(|(p, _)| p.as_str())
                .collect();
            let c = canon[key];
            if paths.is_empty() {
                paths.push(c);
            }
            let r = Render {
                api: self,
                krate: &key.krate,
            };
            let (kind, body) = inner(item);
            let head = r.head(kind, body, item);
            for p in &paths {
                out.insert(trim(format!("{p} {head}")));
                // members are listed under `c` only: say where to find them
                if *p != c && matches!(kind, "struct" | "enum" | "union" | "trait") {
                    out.insert(format!("{p} alias {c}"));
                }
            }
            r.members(c, kind, body, &mut out);
        }
        out
    }
}

fn trim(s: String) -> String {
    s.trim_end().to_string()
}

/// The path members are listed under: preludes last, then a module's path over a re-export at
/// the crate root (`burn::tensor::Tensor` over `burn::Tensor`), then the shortest, then by name.
fn canonical<'a>(paths: &[&'a String]) -> &'a str {
    let deep = paths.iter().any(|p| p.matches("::").count() > 1);
    paths
        .iter()
        .min_by_key(|p| {
            let segs = p.matches("::").count();
            (p.contains("::prelude"), deep && segs == 1, segs, p.as_str())
        })
        .map(|p| p.as_str())
        .unwrap_or("")
}

struct Render<'a> {
    api: &'a Api,
    krate: &'a str,
}

impl Render<'_> {
    fn get(&self, id: &Value) -> Option<&Value> {
        self.api.docs.get(self.krate)?.index.get(&id_str(id)?)
    }

    fn deprecated(item: &Value) -> &'static str {
        if item["deprecation"].is_null() {
            ""
        } else {
            " #[deprecated]"
        }
    }

    fn head(&self, kind: &str, body: &Value, item: &Value) -> String {
        let g = &body["generics"];
        let parts: Vec<String> = match kind {
            "struct" | "enum" | "union" => vec![kind.into(), self.generics(g), self.where_of(g)],
            "trait" => {
                let bounds = self.bounds(&body["bounds"]);
                let b = if bounds.is_empty() {
                    String::new()
                } else {
                    format!(": {bounds}")
                };
                vec![
                    "trait".into(),
                    format!("{}{b}", self.generics(g)),
                    self.where_of(g),
                ]
            }
            "function" => vec!["fn".into(), self.function(body)],
            "type_alias" => vec![
                "type".into(),
                self.generics(g),
                format!("= {}", self.ty(&body["type"])),
                self.where_of(g),
            ],
            "constant" | "static" => vec![kind.into(), self.ty(&body["type"])],
            "proc_macro" => vec![
                "proc_macro".into(),
                body["kind"].as_str().unwrap_or("").into(),
            ],
            other => vec![other.into()],
        };
        let mut parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
        if !item["deprecation"].is_null() {
            parts.push("#[deprecated]".into());
        }
        parts.join(" ")
    }

    fn where_of(&self, g: &Value) -> String {
        let w = self.where_clause(g);
        if w.is_empty() {
            w
        } else {
            format!("where {w}")
        }
    }

    fn members(&self, path: &str, kind: &str, body: &Value, out: &mut BTreeSet<String>) {
        match kind {
            "struct" | "union" => {
                let fields: Vec<&Value> = match &body["kind"] {
                    Value::Object(m) if m.contains_key("plain") => m["plain"]["fields"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .collect(),
                    Value::Object(m) if m.contains_key("tuple") => {
                        m["tuple"].as_array().into_iter().flatten().collect()
                    }
                    _ => body["fields"].as_array().into_iter().flatten().collect(),
                };
                for f in fields {
                    if let Some(fi) = self.get(f) {
                        if is_public(fi) {
                            let name = fi["name"].as_str().unwrap_or("?");
                            out.insert(format!(
                                "{path}::{name} field {}",
                                self.ty(&fi["inner"]["struct_field"])
                            ));
                        }
                    }
                }
                self.inherent(path, body, out);
            }
            "enum" => {
                for v in body["variants"].as_array().into_iter().flatten() {
                    if let Some(vi) = self.get(v) {
                        let name = vi["name"].as_str().unwrap_or("?");
                        let shape = self.variant(&vi["inner"]["variant"]["kind"]);
                        out.insert(trim(format!("{path}::{name} variant {shape}")));
                    }
                }
                self.inherent(path, body, out);
            }
            "trait" => {
                for i in body["items"].as_array().into_iter().flatten() {
                    if let Some(ii) = self.get(i) {
                        out.insert(trim(self.assoc(path, ii)));
                    }
                }
            }
            _ => {}
        }
    }

    fn inherent(&self, path: &str, body: &Value, out: &mut BTreeSet<String>) {
        for imp in body["impls"].as_array().into_iter().flatten() {
            let Some(ii) = self.get(imp) else { continue };
            let ib = &ii["inner"]["impl"];
            if !ib["trait"].is_null() || ib["is_synthetic"].as_bool() == Some(true) {
                continue;
            }
            for m in ib["items"].as_array().into_iter().flatten() {
                let Some(mi) = self.get(m) else { continue };
                if !is_public(mi) {
                    continue;
                }
                out.insert(trim(self.assoc(path, mi)));
            }
        }
    }

    /// A trait item or an inherent associated item.
    fn assoc(&self, path: &str, item: &Value) -> String {
        let name = item["name"].as_str().unwrap_or("?");
        let (kind, body) = inner(item);
        let dep = Self::deprecated(item);
        match kind {
            "function" => format!("{path}::{name} method {}{dep}", self.function(body)),
            "assoc_const" => format!("{path}::{name} assoc_const {}{dep}", self.ty(&body["type"])),
            "assoc_type" => {
                let b = self.bounds(&body["bounds"]);
                let b = if b.is_empty() { b } else { format!(": {b}") };
                let d = if body["type"].is_null() {
                    String::new()
                } else {
                    format!(" = {}", self.ty(&body["type"]))
                };
                format!(
                    "{path}::{name} assoc_type {}{b}{d}{dep}",
                    self.generics(&body["generics"])
                )
            }
            other => format!("{path}::{name} {other}{dep}"),
        }
    }

    fn variant(&self, kind: &Value) -> String {
        match kind {
            Value::Object(m) if m.contains_key("tuple") => {
                let parts: Vec<String> = m["tuple"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|f| match self.get(f) {
                        Some(fi) => self.ty(&fi["inner"]["struct_field"]),
                        None => "_".into(),
                    })
                    .collect();
                format!("({})", parts.join(", "))
            }
            Value::Object(m) if m.contains_key("struct") => {
                let parts: Vec<String> = m["struct"]["fields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| self.get(f))
                    .map(|fi| {
                        format!(
                            "{}: {}",
                            fi["name"].as_str().unwrap_or("?"),
                            self.ty(&fi["inner"]["struct_field"])
                        )
                    })
                    .collect();
                format!("{{ {} }}", parts.join(", "))
            }
            _ => String::new(),
        }
    }

    fn function(&self, f: &Value) -> String {
        let sig = &f["sig"];
        let inputs: Vec<String> = sig["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                let name = pair[0].as_str().unwrap_or("_");
                let t = self.ty(&pair[1]);
                if name == "self" {
                    match t.as_str() {
                        "Self" => "self".into(),
                        "&Self" => "&self".into(),
                        "&mut Self" => "&mut self".into(),
                        _ => format!("self: {t}"),
                    }
                } else {
                    t
                }
            })
            .collect();
        let out = if sig["output"].is_null() {
            String::new()
        } else {
            format!(" -> {}", self.ty(&sig["output"]))
        };
        let w = self.where_clause(&f["generics"]);
        let w = if w.is_empty() {
            w
        } else {
            format!(" where {w}")
        };
        format!(
            "{}({}){out}{w}",
            self.generics(&f["generics"]),
            inputs.join(", ")
        )
    }

    /// `<A: Bound, const D: usize, K = Float>` (synthetic `impl Trait` parameters left out).
    fn generics(&self, g: &Value) -> String {
        let mut parts = vec![];
        for p in g["params"].as_array().into_iter().flatten() {
            let name = p["name"].as_str().unwrap_or("?");
            let kind = &p["kind"];
            if let Some(t) = kind.get("type") {
                if t["is_synthetic"].as_bool() == Some(true) {
                    continue;
                }
                let b = self.bounds(&t["bounds"]);
                let mut s = name.to_string();
                if !b.is_empty() {
                    s = format!("{s}: {b}");
                }
                if !t["default"].is_null() {
                    s = format!("{s} = {}", self.ty(&t["default"]));
                }
                parts.push(s);
            } else if let Some(c) = kind.get("const") {
                let mut s = format!("const {name}: {}", self.ty(&c["type"]));
                if let Some(d) = c["default"].as_str() {
                    s = format!("{s} = {d}");
                }
                parts.push(s);
            } else {
                parts.push(name.to_string());
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("<{}>", parts.join(", "))
        }
    }

    fn where_clause(&self, g: &Value) -> String {
        let mut parts = vec![];
        for w in g["where_predicates"].as_array().into_iter().flatten() {
            if let Some(b) = w.get("bound_predicate") {
                parts.push(format!(
                    "{}: {}",
                    self.ty(&b["type"]),
                    self.bounds(&b["bounds"])
                ));
            } else if let Some(e) = w.get("eq_predicate") {
                parts.push(format!(
                    "{} == {}",
                    self.ty(&e["lhs"]),
                    self.term(&e["rhs"])
                ));
            } else if let Some(l) = w.get("lifetime_predicate") {
                parts.push(l["lifetime"].as_str().unwrap_or("'_").to_string());
            }
        }
        parts.join(", ")
    }

    fn bounds(&self, b: &Value) -> String {
        let parts: Vec<String> = b
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| self.bound(x))
            .collect();
        parts.join(" + ")
    }

    fn bound(&self, x: &Value) -> String {
        if let Some(t) = x.get("trait_bound") {
            let m = match t["modifier"].as_str() {
                Some("maybe") => "?",
                _ => "",
            };
            format!("{m}{}", self.path(&t["trait"]))
        } else if let Some(o) = x.get("outlives") {
            o.as_str().unwrap_or("'_").to_string()
        } else {
            "use<..>".into()
        }
    }

    fn term(&self, t: &Value) -> String {
        if let Some(ty) = t.get("type") {
            self.ty(ty)
        } else if let Some(c) = t.get("constant") {
            c["expr"].as_str().unwrap_or("_").to_string()
        } else {
            "_".into()
        }
    }

    /// A path by its last segment and its generic arguments (`Tensor<B, 2>`).
    fn path(&self, p: &Value) -> String {
        let full = p["path"].as_str().or(p["name"].as_str()).unwrap_or("?");
        let name = full.rsplit("::").next().unwrap_or(full);
        format!("{name}{}", self.args(&p["args"]))
    }

    fn args(&self, a: &Value) -> String {
        if let Some(ab) = a.get("angle_bracketed") {
            let mut parts: Vec<String> = ab["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|g| {
                    if let Some(t) = g.get("type") {
                        self.ty(t)
                    } else if let Some(l) = g.get("lifetime") {
                        l.as_str().unwrap_or("'_").to_string()
                    } else if let Some(c) = g.get("const") {
                        c["expr"].as_str().unwrap_or("_").to_string()
                    } else {
                        "_".into()
                    }
                })
                .collect();
            for c in ab["constraints"].as_array().into_iter().flatten() {
                let name = c["name"].as_str().unwrap_or("?");
                let b = &c["binding"];
                if let Some(eq) = b.get("equality") {
                    parts.push(format!("{name} = {}", self.term(eq)));
                } else if let Some(cs) = b.get("constraint") {
                    parts.push(format!("{name}: {}", self.bounds(cs)));
                }
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!("<{}>", parts.join(", "))
            }
        } else if let Some(p) = a.get("parenthesized") {
            let ins: Vec<String> = p["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| self.ty(t))
                .collect();
            let out = if p["output"].is_null() {
                String::new()
            } else {
                format!(" -> {}", self.ty(&p["output"]))
            };
            format!("({}){out}", ins.join(", "))
        } else {
            String::new()
        }
    }

    fn ty(&self, t: &Value) -> String {
        let Value::Object(m) = t else {
            return match t.as_str() {
                Some("infer") => "_".into(),
                _ => "?".into(),
            };
        };
        let Some((k, v)) = m.iter().next() else {
            return "?".into();
        };
        match k.as_str() {
            "resolved_path" => self.path(v),
            "generic" | "primitive" => v.as_str().unwrap_or("?").to_string(),
            "tuple" => {
                let parts: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| self.ty(x))
                    .collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!(
                "[{}; {}]",
                self.ty(&v["type"]),
                v["len"].as_str().unwrap_or("_")
            ),
            "borrowed_ref" => {
                let lt = v["lifetime"]
                    .as_str()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if v["is_mutable"].as_bool() == Some(true) {
                    "mut "
                } else {
                    ""
                };
                format!("&{lt}{m}{}", self.ty(&v["type"]))
            }
            "raw_pointer" => {
                let m = if v["is_mutable"].as_bool() == Some(true) {
                    "mut"
                } else {
                    "const"
                };
                format!("*{m} {}", self.ty(&v["type"]))
            }
            "dyn_trait" => {
                let mut parts: Vec<String> = v["traits"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|pt| self.path(&pt["trait"]))
                    .collect();
                if let Some(l) = v["lifetime"].as_str() {
                    parts.push(l.to_string());
                }
                format!("dyn {}", parts.join(" + "))
            }
            "impl_trait" => format!("impl {}", self.bounds(v)),
            "function_pointer" => {
                let sig = &v["sig"];
                let ins: Vec<String> = sig["inputs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| self.ty(&p[1]))
                    .collect();
                let out = if sig["output"].is_null() {
                    String::new()
                } else {
                    format!(" -> {}", self.ty(&sig["output"]))
                };
                format!("fn({}){out}", ins.join(", "))
            }
            "qualified_path" => {
                let self_ty = self.ty(&v["self_type"]);
                let name = v["name"].as_str().unwrap_or("?");
                let args = self.args(&v["args"]);
                if v["trait"].is_null() || v["self_type"].get("generic").is_some() {
                    format!("{self_ty}::{name}{args}")
                } else {
                    format!("<{self_ty} as {}>::{name}{args}", self.path(&v["trait"]))
                }
            }
            "pat" => self.ty(&v["type"]),
            _ => "?".into(),
        }
    }
}
