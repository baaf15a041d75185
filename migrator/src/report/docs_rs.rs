//! Links from the guide to docs.rs that find their item.
//!
//! docs.rs builds a crate's pages with the features of its own `[package.metadata.docs.rs]`
//! table, or its default features where it has none, not with the features a project
//! enables. `burn` 0.21.0 has no such table, so its pages lack everything behind `train`,
//! `store`, `dataset` or `ndarray`; 0.22.1's `doc` feature leaves out `store`. A link to the
//! facade for such an item finds nothing. The lists under `framework/api/docsrs/` say what
//! docs.rs shows for each crate version the guide links to, built the way docs.rs builds it
//! (`framework/api/README.md`): a facade path the facade's pages show links there, any other
//! to the Burn crate that documents the item, and an item no list has gets no link.

/// What docs.rs shows for one crate version: its header (how it was built) and one
/// `path kind` line per item.
pub struct DocsRsList {
    pub krate: &'static str,
    pub version: &'static str,
    pub text: &'static str,
}

macro_rules! list {
    ($krate:literal, $version:literal) => {
        DocsRsList {
            krate: $krate,
            version: $version,
            text: include_str!(concat!(
                "../../../framework/api/docsrs/",
                $krate,
                "-",
                $version,
                ".txt"
            )),
        }
    };
}

/// Every list, the `burn` facade first for each version: the order links are chosen in.
pub const LISTS: &[DocsRsList] = &[
    list!("burn", "0.21.0"),
    list!("burn-core", "0.21.0"),
    list!("burn-train", "0.21.0"),
    list!("burn-store", "0.21.0"),
    list!("burn-ndarray", "0.21.0"),
    list!("burn-dataset", "0.21.0"),
    list!("burn-autodiff", "0.21.0"),
    list!("burn", "0.22.1"),
    list!("burn-store", "0.22.1"),
];

impl DocsRsList {
    /// The `(path, kind)` of each item line.
    pub fn items(&self) -> impl Iterator<Item = (&'static str, &'static str)> {
        (self.text.lines())
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_once(' '))
            .map(|(path, rest)| (path, rest.split(' ').next().unwrap_or(rest)))
    }

    /// The path a type at `path` lists its members under (itself, or what its `alias` line
    /// names).
    fn members_path<'a>(&self, path: &'a str) -> &'a str {
        let alias = format!("{path} alias ");
        (self.text.lines())
            .find_map(|line| line.strip_prefix(alias.as_str()))
            .unwrap_or(path)
    }

    pub fn has(&self, path: &str) -> bool {
        self.items().any(|(p, _)| p == path)
    }

    /// The header's `key = value` lines (`default-features`, `features`, `source`).
    pub fn header(&self, key: &str) -> Option<&'static str> {
        (self.text.lines())
            .filter_map(|line| line.strip_prefix("# "))
            .find_map(|line| line.strip_prefix(key)?.strip_prefix(" = "))
    }

    /// The crate's name in paths (`burn_train`).
    pub fn ident(&self) -> String {
        self.krate.replace('-', "_")
    }
}

/// A docs.rs search for an item in the pages of one crate version.
#[derive(Debug, PartialEq, Eq)]
pub struct DocsRsLink {
    pub krate: &'static str,
    pub version: &'static str,
    /// The item's path among that crate's items (`burn_train::learner::Learner`).
    pub path: String,
}

impl DocsRsLink {
    pub fn url(&self) -> String {
        format!(
            "https://docs.rs/{}/{}/{}/?search={}",
            self.krate,
            self.version,
            self.krate.replace('-', "_"),
            self.path.replace("::", "%3A%3A")
        )
    }

    /// Reads back a link [`DocsRsLink::url`] wrote; `None` for any other address.
    pub fn parse(url: &str) -> Option<(String, String, String, String)> {
        let rest = url.strip_prefix("https://docs.rs/")?;
        let mut parts = rest.splitn(4, '/');
        let (krate, version, ident, query) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let path = query.strip_prefix("?search=")?.replace("%3A%3A", "::");
        Some((krate.into(), version.into(), ident.into(), path))
    }
}

/// Where docs.rs documents the Burn item at facade path `path` (`burn::train::Learner`) in
/// `version`, whose lines in the public API listing (`framework/api/<version>.txt`) after the
/// path are `listed` (`struct <..>`, `reexport module burn_ndarray`): the facade's own pages
/// when they show it; a crate the facade re-exports as a module, that crate's root; else the
/// page of the crate whose list has an item of the same kind at the longest tail of the path
/// (`burn_train::Learner` for `burn::train::Learner`). `None` when no list has it.
pub fn link(path: &str, listed: &[&str], version: &str) -> Option<DocsRsLink> {
    let lists = || LISTS.iter().filter(|l| l.version == version);
    let facade = lists().find(|l| l.krate == "burn")?;
    if facade.has(path) {
        return Some(DocsRsLink {
            krate: facade.krate,
            version: facade.version,
            path: path.to_string(),
        });
    }
    // The kind of each line; a re-export of an undocumented crate's item says it next, and
    // its source (`reexport module burn_ndarray`: the whole crate).
    let mut kinds = Vec::new();
    for line in listed {
        let mut words = line.split(' ');
        match (words.next(), words.next(), words.next()) {
            (Some("reexport"), Some("module"), Some(source)) if !source.contains("::") => {
                if let Some(list) = lists().find(|l| l.ident() == source && l.has(source)) {
                    return Some(DocsRsLink {
                        krate: list.krate,
                        version: list.version,
                        path: source.to_string(),
                    });
                }
            }
            (Some("reexport"), Some(kind), _) => kinds.push(kind),
            (Some(kind), _, _) => kinds.push(kind),
            _ => {}
        }
    }
    let kinds = kinds.as_slice();
    if let Some(link) = tail_link(path, kinds, version) {
        return Some(link);
    }
    // A member (`burn::train::LearnerBuilder::num_epochs`): where its type is documented, under
    // the path that crate lists the type's members at.
    let (parent, member) = path.rsplit_once("::")?;
    let owner = tail_link(parent, &["struct", "enum", "trait", "union"], version)?;
    let list = lists().find(|l| l.krate == owner.krate)?;
    let member_path = format!("{}::{member}", list.members_path(&owner.path));
    list.has(&member_path).then_some(DocsRsLink {
        path: member_path,
        ..owner
    })
}

/// The item of a kind in `kinds` that a crate other than the facade lists at the longest
/// tail of the facade path `path`.
fn tail_link(path: &str, kinds: &[&str], version: &str) -> Option<DocsRsLink> {
    let lists = || LISTS.iter().filter(|l| l.version == version);
    let segments: Vec<&str> = path.split("::").skip(1).collect();
    // The longest tail names the item most exactly; among equals, the first list's first.
    let mut best: Option<(usize, DocsRsLink)> = None;
    for list in lists().filter(|l| l.krate != "burn") {
        let ident = list.ident();
        for (item, kind) in list.items() {
            let Some(rest) = (item.strip_prefix(ident.as_str())).and_then(|r| r.strip_prefix("::"))
            else {
                continue;
            };
            let tail: Vec<&str> = rest.split("::").collect();
            if segments.ends_with(&tail)
                && kinds.contains(&kind)
                && best.as_ref().is_none_or(|(len, _)| tail.len() > *len)
            {
                let link = DocsRsLink {
                    krate: list.krate,
                    version: list.version,
                    path: item.to_string(),
                };
                best = Some((tail.len(), link));
            }
        }
    }
    best.map(|(_, link)| link)
}
