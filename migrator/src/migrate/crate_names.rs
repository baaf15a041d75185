//! The names a project gives Burn's crates. Cargo lets a package depend on a crate under
//! another name (`nn = { package = "burn", .. }`, `[workspace.dependencies]` and target
//! tables alike), and Rust lets code give a crate a second name (`extern crate nn as burn;`,
//! `use nn as burn;`). Rules know Burn's items by Burn's own paths (`burn::tensor::Tensor`,
//! `burn_ndarray::NdArray`): every path the project writes is read through these names
//! (`canonical`), and every path the port writes is spelled the way the project names the
//! crate (`localize`), so `nn::tensor::Tensor` is Burn's `Tensor` and a new import reads
//! `use nn::tensor::Device;`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ra_ap_syntax::ast::{self, HasModuleItem, HasName};

use crate::rules::framework::{is_burn_crate_name, is_burn_package};
use crate::util::syntax::segment_names;

/// How one package's code names Burn's crates through its dependency keys (cargo metadata's
/// `rename`): in every target, as the extern prelude holds them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DependencyNames {
    /// A dependency key other than the crate's own name, as a path segment (`nn`), and the
    /// Burn crate it names (`burn`).
    renamed: BTreeMap<String, String>,
    /// Burn crates the package depends on under their own name (`burn`).
    own_name: BTreeSet<String>,
    /// Keys spelled like one of Burn's crates that name another package
    /// (`burn = { package = "my-burn-helpers" }`): no Burn crate there.
    not_burn: BTreeSet<String>,
}

impl DependencyNames {
    /// From a package's dependencies as (key the manifest gives it, package name): the key is
    /// `rename` where cargo metadata has one, else the package's name.
    pub fn new<'a>(dependencies: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut names = DependencyNames::default();
        for (key, package) in dependencies {
            let segment = key.replace('-', "_");
            if is_burn_package(package) {
                let krate = package.replace('-', "_");
                if segment == krate {
                    names.own_name.insert(krate);
                } else {
                    names.renamed.insert(segment, krate);
                }
            } else if is_burn_crate_name(&segment) {
                names.not_burn.insert(segment);
            }
        }
        names
    }

    /// Whether the package names every Burn crate by the crate's own name: the project's
    /// paths are Burn's as written.
    pub fn is_plain(&self) -> bool {
        self.renamed.is_empty() && self.not_burn.is_empty()
    }

    /// The keys (as path segments) the package gives Burn's crates other than their own
    /// names (`nn`).
    pub fn renamed_keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.renamed.keys().map(String::as_str)
    }

    /// The dependency keys (as path segments) under which the package names Burn crate
    /// `krate` (`burn`, `burn_ndarray`): its own name where the package uses it, and every
    /// other key it renamed it to.
    pub fn keys_of<'a>(&'a self, krate: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let own = self.own_name.get(krate).map(String::as_str);
        let renamed = (self.renamed.iter())
            .filter(move |(_, k)| *k == krate)
            .map(|(key, _)| key.as_str());
        own.into_iter().chain(renamed)
    }
}

/// A crate name a file's own items give a crate (`extern crate nn as burn;`, `use nn as b;`):
/// local name -> the name it stands for, as written.
#[derive(Debug, Clone, Default)]
pub struct DeclaredAliases {
    /// `extern crate X as Y;`: at a crate root, every module of the crate sees `Y`.
    pub extern_crates: Vec<(String, String)>,
    /// `use X as Y;` (and `use ::X as Y;`) of a single name: the module's own.
    pub uses: Vec<(String, String)>,
}

impl DeclaredAliases {
    /// Whether a file's text may declare an alias: one that spells neither `extern crate`
    /// nor ` as ` declares none, and its items need not be read.
    pub fn may_declare(text: &str) -> bool {
        text.contains("extern crate") || text.contains(" as ")
    }

    /// The aliases the items at the top of `file` (whose text is `text`) declare. Inline
    /// modules are left out: an alias there is that module's, and rare.
    pub fn of(file: &ast::SourceFile, text: &str) -> Self {
        let mut found = DeclaredAliases::default();
        if !Self::may_declare(text) {
            return found;
        }
        for item in file.items() {
            match item {
                ast::Item::ExternCrate(krate) => {
                    let (Some(name), Some(rename)) = (krate.name_ref(), krate.rename()) else {
                        continue;
                    };
                    let Some(alias) = rename.name() else { continue };
                    if name.self_token().is_none() {
                        found
                            .extern_crates
                            .push((alias.text().to_string(), name.text().to_string()));
                    }
                }
                ast::Item::Use(use_item) => {
                    let Some(tree) = use_item.use_tree() else {
                        continue;
                    };
                    let (Some(path), Some(rename), None) =
                        (tree.path(), tree.rename(), tree.use_tree_list())
                    else {
                        continue;
                    };
                    let names = segment_names(&path);
                    if let ([crate_name], Some(alias)) = (names.as_slice(), rename.name()) {
                        found
                            .uses
                            .push((alias.text().to_string(), crate_name.clone()));
                    }
                }
                _ => {}
            }
        }
        found
    }
}

/// How one file names Burn's crates: its package's dependency keys, the aliases its crate
/// declares at the root and the aliases the file declares itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateNames {
    package: Arc<DependencyNames>,
    /// A name other than the crate's own that stands for a Burn crate here -> that crate.
    aliases: BTreeMap<String, String>,
    /// The aliases of `aliases` the file can write: its own, and the crate's that its
    /// imports already use.
    writable: BTreeMap<String, String>,
}

impl CrateNames {
    /// The names a file that declares `own` and reads `text` sees, in a package named by
    /// `package` whose files declare `crate_wide` extern crates (from every file of the
    /// package: a crate root's are seen by every module of the crate, and an alias another
    /// target declares never shadows a name that code compiled for this one uses).
    pub fn new(
        package: Arc<DependencyNames>,
        crate_wide: &[(String, String)],
        own: &DeclaredAliases,
        text: &str,
    ) -> Self {
        let mut names = CrateNames {
            package,
            aliases: BTreeMap::new(),
            writable: BTreeMap::new(),
        };
        // The crate's aliases first, so that the file's own (declared after, resolving
        // through them) win.
        for (alias, target) in crate_wide {
            if let Some(krate) = names.burn_crate(target).map(str::to_string) {
                // The file writes paths through it already: new ones may too.
                let written = crate::util::syntax::word_offsets(text, alias)
                    .any(|at| text[at + alias.len()..].starts_with("::"));
                if written {
                    names.writable.insert(alias.clone(), krate.clone());
                }
                names.aliases.insert(alias.clone(), krate);
            }
        }
        for (alias, target) in own.extern_crates.iter().chain(&own.uses) {
            if let Some(krate) = names.burn_crate(target).map(str::to_string) {
                names.writable.insert(alias.clone(), krate.clone());
                names.aliases.insert(alias.clone(), krate);
            }
        }
        names
    }

    /// Whether Burn's crates go by their own names only here: paths are Burn's as written.
    fn is_plain(&self) -> bool {
        self.aliases.is_empty() && self.package.is_plain()
    }

    /// The Burn crate (as a path segment: `burn`, `burn_ndarray`) that a path's first
    /// segment names here, if any.
    pub fn burn_crate<'a>(&'a self, first: &'a str) -> Option<&'a str> {
        if let Some(krate) = self.aliases.get(first) {
            return Some(krate);
        }
        if let Some(krate) = self.package.renamed.get(first) {
            return Some(krate);
        }
        if self.package.not_burn.contains(first) {
            return None;
        }
        is_burn_crate_name(first).then_some(first)
    }

    pub fn is_burn_crate(&self, first: &str) -> bool {
        self.burn_crate(first).is_some()
    }

    /// `names` (a path's segments) with the first as Burn's crate name where it names one of
    /// Burn's crates (`nn::tensor::Tensor` -> `burn::tensor::Tensor`): what rules match.
    pub fn canonical(&self, mut names: Vec<String>) -> Vec<String> {
        if let Some(first) = names.first_mut() {
            if let Some(krate) = self.renamed_crate(first) {
                *first = krate;
            }
        }
        names
    }

    /// Burn's name of the crate `first` names, where that is not `first` itself.
    pub fn renamed_crate(&self, first: &str) -> Option<String> {
        if self.is_plain() {
            return None;
        }
        self.burn_crate(first)
            .filter(|krate| *krate != first)
            .map(str::to_string)
    }

    /// The name this file writes Burn crate `krate` (`burn`) with: an alias the file
    /// declares or already writes paths with, else the package's dependency key for it
    /// (the crate's own name where the package uses it), else the crate's own name.
    pub fn local_name<'a>(&'a self, krate: &'a str) -> &'a str {
        if self.is_plain() {
            return krate;
        }
        // An alias spelled like the crate (`extern crate nn as burn;`) reads best.
        if self.writable.get(krate).is_some_and(|k| k == krate) {
            return krate;
        }
        if let Some((alias, _)) = self.writable.iter().find(|(_, k)| *k == krate) {
            return alias;
        }
        self.package.keys_of(krate).next().unwrap_or(krate)
    }

    /// A path the port writes, given with Burn's crate name first (`burn::tensor::Device`),
    /// as this file names the crate (`nn::tensor::Device`).
    pub fn localize<'a>(&self, path: &'a str) -> Cow<'a, str> {
        if self.is_plain() {
            return Cow::Borrowed(path);
        }
        let (first, rest) = match path.split_once("::") {
            Some((first, rest)) => (first, Some(rest)),
            None => (path, None),
        };
        let local = self.local_name(first);
        if local == first || !is_burn_crate_name(first) {
            return Cow::Borrowed(path);
        }
        match rest {
            Some(rest) => Cow::Owned(format!("{local}::{rest}")),
            None => Cow::Owned(local.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases(text: &str) -> DeclaredAliases {
        let file = ast::SourceFile::parse(text, ra_ap_syntax::Edition::Edition2021).tree();
        DeclaredAliases::of(&file, text)
    }

    fn names_in(
        package: Arc<DependencyNames>,
        crate_wide: &[(String, String)],
        text: &str,
    ) -> CrateNames {
        CrateNames::new(package, crate_wide, &aliases(text), text)
    }

    fn renamed() -> Arc<DependencyNames> {
        Arc::new(DependencyNames::new([
            ("nn", "burn"),
            ("nd", "burn-ndarray"),
            ("serde", "serde"),
        ]))
    }

    #[test]
    fn dependency_keys_name_burn_crates_by_package_not_by_key() {
        let names = names_in(renamed(), &[], "");
        assert_eq!(names.burn_crate("nn"), Some("burn"));
        assert_eq!(names.burn_crate("nd"), Some("burn_ndarray"));
        assert_eq!(names.burn_crate("serde"), None);
        assert_eq!(
            names.canonical(vec!["nn".into(), "tensor".into(), "Tensor".into()]),
            ["burn", "tensor", "Tensor"]
        );
        assert_eq!(names.localize("burn::tensor::Device"), "nn::tensor::Device");
        assert_eq!(names.localize("burn_ndarray::NdArray"), "nd::NdArray");
        assert_eq!(names.localize("std::sync::Arc"), "std::sync::Arc");
        // A key spelled like a Burn crate that is another package is not Burn.
        let other = DependencyNames::new([("burn", "my-burn-helpers")]);
        let names = names_in(Arc::new(other), &[], "");
        assert_eq!(names.burn_crate("burn"), None);
    }

    #[test]
    fn aliases_in_code_resolve_through_the_package_keys() {
        let text = "extern crate nn as burn;\nuse ::nd as b;\nuse nn::prelude::*;\n";
        let own = aliases(text);
        let names = names_in(renamed(), &[], text);
        assert_eq!(names.burn_crate("burn"), Some("burn"));
        assert_eq!(names.burn_crate("b"), Some("burn_ndarray"));
        // The file declares `burn`: the port writes that.
        assert_eq!(
            names.localize("burn::tensor::Device"),
            "burn::tensor::Device"
        );
        assert_eq!(names.localize("burn_ndarray::NdArray"), "b::NdArray");
        // Another module of the crate sees the root's `extern crate`, but writes the
        // dependency key unless its imports use the alias.
        let root = own.extern_crates.clone();
        let elsewhere = names_in(renamed(), &root, "use nn::nn::Linear;\n");
        assert_eq!(elsewhere.burn_crate("burn"), Some("burn"));
        assert_eq!(
            elsewhere.localize("burn::tensor::Device"),
            "nn::tensor::Device"
        );
        let using = names_in(renamed(), &root, "use burn::nn::Linear;\n");
        assert_eq!(
            using.localize("burn::tensor::Device"),
            "burn::tensor::Device"
        );
    }

    #[test]
    fn plain_names_are_burn_as_written() {
        let plain = Arc::new(DependencyNames::new([("burn", "burn")]));
        let names = names_in(plain, &[], "use burn::prelude::*;\n");
        assert_eq!(names.burn_crate("burn_tensor"), Some("burn_tensor"));
        assert_eq!(names.renamed_crate("burn"), None);
        assert_eq!(names.local_name("burn"), "burn");
        assert!(matches!(
            names.localize("burn::tensor::Device"),
            Cow::Borrowed(_)
        ));
    }
}
