//! The pinned Burn releases' lockfiles (`framework/burn-*/Cargo.lock`): the dependency
//! versions each release is known to build with. The proof builds against them; the port
//! raises a project's lockfile to them (see `migrate::lockfile`).

pub const BURN_0_21_LOCK: &str = include_str!("../../../framework/burn-0.21/Cargo.lock");
pub const BURN_0_22_LOCK: &str = include_str!("../../../framework/burn-0.22/Cargo.lock");

/// The public API of each pinned release as `cargo run -p xtask -- api-diff` listed it from
/// rustdoc JSON (`framework/api/<version>.txt`, one `path kind signature` line per item; see
/// `framework/api/README.md`).
pub const BURN_0_21_API: &str = include_str!("../../../framework/api/0.21.0.txt");
pub const BURN_0_22_API: &str = include_str!("../../../framework/api/0.22.1.txt");

/// The listing of a release: `"0.21"` or `"0.22"` (a full version such as `"0.22.1"` works too).
pub fn public_api_lines(version: &str) -> Option<&'static str> {
    match version.get(..4) {
        Some("0.21") => Some(BURN_0_21_API),
        Some("0.22") => Some(BURN_0_22_API),
        _ => None,
    }
}

/// A listing's lines by their first word (the path), the first line for each. Built once per
/// listing: the index asks for every `backend_first_types` path in each build, and a scan of
/// the listing per path was a serial 0.7% of a corpus `--check`.
fn lines_by_path(api: &'static str) -> std::collections::HashMap<&'static str, &'static str> {
    let mut lines = std::collections::HashMap::new();
    for line in api.lines() {
        if let Some((first, _)) = line.split_once(' ') {
            lines.entry(first).or_insert(line);
        }
    }
    lines
}

/// The first line of the 0.21 listing that starts with `path` and a space.
pub fn api_0_21_line(path: &str) -> Option<&'static str> {
    static LINES: std::sync::LazyLock<std::collections::HashMap<&'static str, &'static str>> =
        std::sync::LazyLock::new(|| lines_by_path(BURN_0_21_API));
    if path.contains(' ') {
        return BURN_0_21_API.lines().find(|line| {
            line.strip_prefix(path)
                .is_some_and(|rest| rest.starts_with(' '))
        });
    }
    LINES.get(path).copied()
}

/// What the method `method` of Burn 0.21's type named `type_name` returns, as the 0.21
/// listing writes it (`CrossEntropyLoss`, `forward`: `Tensor<B, 1>`), where every type of that
/// name the listing has a method of that name for agrees.
pub fn method_return_0_21(type_name: &str, method: &str) -> Option<&'static str> {
    let suffix = format!("::{type_name}::{method}");
    let mut returns = (BURN_0_21_API.lines())
        .filter_map(|line| {
            let (path, rest) = line.split_once(' ')?;
            let signature = rest.strip_prefix("method ")?;
            path.ends_with(&suffix).then_some(signature)
        })
        .map(|signature| signature.rsplit_once(" -> ").map(|(_, returned)| returned));
    let first = returns.next()??;
    returns.all(|r| r == Some(first)).then_some(first)
}

/// The first line of the 0.22 listing for the item at `path` (`burn::backend::wgpu::CubeTensor
/// struct`), if Burn 0.22.1 has one there.
pub fn api_0_22_line(path: &str) -> Option<&'static str> {
    static LINES: std::sync::LazyLock<std::collections::HashMap<&'static str, &'static str>> =
        std::sync::LazyLock::new(|| lines_by_path(BURN_0_22_API));
    LINES.get(path).copied()
}

/// How many generic arguments a use of the Burn 0.21 item at `path` writes at least: its
/// type and const parameters that have no default (`Tensor<B, const D: usize, K = Float>`:
/// 2). A shorter argument list is not 0.21 code (`Batcher<I, O>` is already 0.22's
/// `Batcher`). `None` for a path the 0.21 listing does not have.
pub fn required_generic_args_0_21(path: &str) -> Option<usize> {
    let line = api_0_21_line(path)?;
    // Another name of an item (a crate path of one the facade re-exports): the item's.
    if let Some(target) = line[path.len() + 1..].strip_prefix("alias ") {
        return required_generic_args_0_21(target);
    }
    // `path kind <params>...`: the parameters follow the kind word, when there are any.
    let after_kind = line[path.len() + 1..]
        .split_once(' ')
        .map_or("", |(_, rest)| rest);
    let Some(params) = after_kind.strip_prefix('<') else {
        return Some(0);
    };
    let (mut depth, mut count, mut current) = (0usize, 0usize, String::new());
    let mut count_param = |param: &str| {
        let param = param.trim();
        let has_default = param.contains(" = ") && !param.contains(':')
            || param.split_once(':').is_some_and(|(_, bound)| {
                // `K = Float` or `const N: usize = 1`; a bound's `Elem = f32` sits inside `<..>`.
                bound
                    .rsplit_once('>')
                    .map_or(bound, |(_, tail)| tail)
                    .contains(" = ")
            });
        if !param.is_empty() && !param.starts_with('\'') && !has_default {
            count += 1;
        }
    };
    for c in params.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' if depth == 0 => break,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                count_param(&current);
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    count_param(&current);
    Some(count)
}

/// Every public item path of a release (`burn::tensor::Tensor`, `burn::nn::Linear::forward`);
/// empty for a version that is not pinned.
pub fn public_api(version: &str) -> std::collections::BTreeSet<String> {
    public_api_lines(version)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// The exact `burn` version a pinned lockfile holds (`0.22.1`).
pub fn locked_burn_version(lock: &'static str) -> Option<&'static str> {
    let at = lock.find("name = \"burn\"\nversion = \"")? + "name = \"burn\"\nversion = \"".len();
    let rest = &lock[at..];
    Some(&rest[..rest.find('"')?])
}

/// Burn crates published beside the ones the pinned lockfiles hold (importers, test
/// generators and crates of earlier releases that 0.21 projects still name).
const OTHER_BURN_CRATES: &[&str] = &[
    "burn-import",
    "burn-tensor-testgen",
    "burn-common",
    "burn-jit",
    "burn-hip",
    "burn-onnx",
];

/// Burn's own crates, by package name (`burn`, `burn-tensor`, `burn-store`, ...): the `burn*`
/// packages of the pinned 0.21 and 0.22 lockfiles at Burn's version, and the few others
/// Burn publishes. A project's own crate whose name starts with `burn` (`burn-lm-inference`)
/// is not one.
pub fn burn_crates() -> &'static std::collections::BTreeSet<String> {
    static CRATES: std::sync::OnceLock<std::collections::BTreeSet<String>> =
        std::sync::OnceLock::new();
    CRATES.get_or_init(|| {
        let mut crates: std::collections::BTreeSet<String> =
            OTHER_BURN_CRATES.iter().map(|c| c.to_string()).collect();
        for lock in [BURN_0_21_LOCK, BURN_0_22_LOCK] {
            let Some(burn) = locked_burn_version(lock) else {
                continue;
            };
            // Burn's sub-crates carry its version (0.22.0 for burn, 0.22.1 for the rest).
            let release = burn.rsplit_once('.').map_or(burn, |(minor, _)| minor);
            for package in lock.split("[[package]]") {
                let field = |key: &str| {
                    let at = package.find(&format!("\n{key} = \""))? + key.len() + 5;
                    Some(&package[at..at + package[at..].find('"')?])
                };
                let (Some(name), Some(version)) = (field("name"), field("version")) else {
                    continue;
                };
                let registry = package.contains("\nsource = \"registry+");
                if name.starts_with("burn") && registry && version.starts_with(release) {
                    crates.insert(name.to_string());
                }
            }
        }
        crates
    })
}

/// Whether Burn 0.22 has a crate of that name (the pinned 0.22 lockfile holds it): the only
/// Burn crates a dependency can move to 0.22.
pub fn is_burn_0_22_package(name: &str) -> bool {
    crate::util::syntax::contains(BURN_0_22_LOCK, &format!("\nname = \"{name}\"\n"))
        && is_burn_package(name)
}

/// Whether a package name is one of Burn's crates (see `burn_crates`).
pub fn is_burn_package(name: &str) -> bool {
    burn_crates().contains(name)
}

/// Whether the first name of a Rust path is one of Burn's crates (`burn`, `burn_tensor`).
pub fn is_burn_crate_name(name: &str) -> bool {
    name.starts_with("burn") && burn_crates().contains(&name.replace('_', "-"))
}

#[cfg(test)]
mod burn_crate_tests {
    use super::*;

    #[test]
    fn burn_crates_come_from_the_pinned_locks_not_from_names() {
        for burn in [
            "burn",
            "burn-tensor",
            "burn-store",
            "burn-ndarray",
            "burn-flex",
            "burn-cuda",
        ] {
            assert!(is_burn_package(burn), "{burn}");
        }
        assert!(is_burn_crate_name("burn_store"));
        for project in [
            "burn-lm-inference",
            "burn-framework-0-22",
            "burnlings",
            "burn_lm",
        ] {
            assert!(
                !is_burn_package(project) && !is_burn_crate_name(project),
                "{project}"
            );
        }
    }
}

/// The Cargo features of each pinned release's Burn crates as cargo reads them, the implicit
/// feature of each optional dependency included (`cargo run -p xtask -- features`, from
/// `cargo metadata` on `framework/`): `package<TAB>feature<TAB>what it enables`.
pub const BURN_0_21_FEATURES: &str = include_str!("../../../framework/api/features-0.21.0.tsv");
pub const BURN_0_22_FEATURES: &str = include_str!("../../../framework/api/features-0.22.1.tsv");

/// One release's features: `(package, feature)` -> what it enables.
type FeatureTable = std::collections::BTreeMap<(String, String), Vec<String>>;

fn feature_table(text: &str) -> FeatureTable {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut fields = l.split('\t');
            let (package, feature) = (fields.next()?, fields.next()?);
            let enables = fields.next().unwrap_or_default();
            Some((
                (package.to_string(), feature.to_string()),
                enables
                    .split(',')
                    .filter(|e| !e.is_empty())
                    .map(str::to_string)
                    .collect(),
            ))
        })
        .collect()
}

fn feature_tables() -> &'static (FeatureTable, FeatureTable) {
    static TABLES: std::sync::OnceLock<(FeatureTable, FeatureTable)> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        (
            feature_table(BURN_0_21_FEATURES),
            feature_table(BURN_0_22_FEATURES),
        )
    })
}

/// What becomes of a feature of one of Burn's crates in 0.22, read from the crates' own
/// feature tables.
#[derive(Debug, PartialEq, Eq)]
pub enum FeatureFate {
    /// 0.22 has it (or 0.21 did not: not ours to judge).
    Keep,
    /// 0.22 lacks it; this 0.22 feature turns on what it turned on: the one feature of 0.21
    /// that enabled it, or, of several, the one named after it (`burn-flex`, the optional
    /// dependency, is `flex`), where 0.22 still has that feature.
    Becomes(String),
    /// 0.22 lacks it and has no single counterpart; `enabled_by` lists the 0.21 features
    /// that turned it on and 0.22 still has.
    Gone { enabled_by: Vec<String> },
}

/// The backend features `burn` 0.22 passes on to its optional crate `package` when it owns it
/// (`wgpu = [.., "burn-vision?/wgpu"]`), as (`burn` feature, `package` feature). A project
/// that depends on `package` itself, not through `burn`'s feature for it, gets none of them:
/// burn-vision 0.22 implements its ops per backend feature of its own. Backend features are
/// those burn-dispatch, which picks the backend of a `Device`, has (not its `std`/`default`):
/// `pytorch` passed on to burn-store is a file format, not a backend.
pub fn burn_forwards_to(package: &str) -> Vec<(String, String)> {
    let prefix = format!("{package}?/");
    let (_, new) = feature_tables();
    let is_backend = |feature: &str| {
        !matches!(feature, "std" | "default")
            && new.contains_key(&("burn-dispatch".to_string(), feature.to_string()))
    };
    (new.iter())
        .filter(|((p, feature), _)| p == "burn" && is_backend(feature))
        .flat_map(|((_, feature), enables)| {
            (enables.iter())
                .filter_map(|e| e.strip_prefix(&prefix))
                .map(move |to| (feature.clone(), to.to_string()))
        })
        .collect()
}

/// The features `package` 0.22 turns on by default (its `default` list's own features).
pub fn default_features_0_22(package: &str) -> Vec<String> {
    let (_, new) = feature_tables();
    (new.get(&(package.to_string(), "default".to_string()))
        .into_iter())
    .flatten()
    .filter(|f| !f.contains('/') && !f.starts_with("dep:"))
    .cloned()
    .collect()
}

pub fn feature_fate(package: &str, feature: &str) -> FeatureFate {
    let (old, new) = feature_tables();
    let key = |f: &str| (package.to_string(), f.to_string());
    if new.contains_key(&key(feature)) || !old.contains_key(&key(feature)) {
        return FeatureFate::Keep;
    }
    // A 0.21 feature that named this one (or its dependency, `dep:x`, `x/feature`) in its
    // list turned it on.
    let turns_on = |enables: &Vec<String>| {
        enables.iter().any(|e| {
            e == feature || e.strip_prefix("dep:") == Some(feature) || {
                e.split_once('/').map(|(dep, _)| dep) == Some(feature)
            }
        })
    };
    let enablers: Vec<String> = old
        .iter()
        .filter(|((p, f), enables)| p == package && f != feature && turns_on(enables))
        .map(|((_, f), _)| f.clone())
        .collect();
    let family = package.split('-').next().unwrap_or(package);
    let named_after = feature.strip_prefix(&format!("{family}-"));
    // The one feature that turned it on, or the one named after it: an umbrella that turned
    // on many (`doc`) is no counterpart.
    let counterpart = match enablers.as_slice() {
        [only] => Some(only),
        several => several.iter().find(|f| Some(f.as_str()) == named_after),
    };
    match counterpart.filter(|f| new.contains_key(&key(f))) {
        Some(to) => FeatureFate::Becomes(to.clone()),
        None => FeatureFate::Gone {
            enabled_by: enablers
                .into_iter()
                .filter(|f| new.contains_key(&key(f)))
                .collect(),
        },
    }
}

#[cfg(test)]
mod feature_tests {
    use super::*;

    #[test]
    fn implicit_features_of_optional_dependencies_find_their_0_22_feature() {
        // 0.21 `burn` had a feature per optional dependency; 0.22 has none for them.
        assert_eq!(
            feature_fate("burn", "burn-flex"),
            FeatureFate::Becomes("flex".into())
        );
        assert_eq!(
            feature_fate("burn", "burn-wgpu"),
            FeatureFate::Becomes("wgpu".into())
        );
        assert_eq!(
            feature_fate("burn", "burn-autodiff"),
            FeatureFate::Becomes("autodiff".into())
        );
        assert_eq!(feature_fate("burn", "std"), FeatureFate::Keep);
        assert_eq!(feature_fate("burn", "flex"), FeatureFate::Keep);
        assert_eq!(feature_fate("burn", "no-such-feature"), FeatureFate::Keep);
        assert!(matches!(
            feature_fate("burn", "dispatch"),
            FeatureFate::Gone { .. }
        ));
        // `burn-router` came with `router` (gone) and the `doc` umbrella: no counterpart.
        assert_eq!(
            feature_fate("burn", "burn-router"),
            FeatureFate::Gone {
                enabled_by: vec!["doc".into()]
            }
        );
    }

    #[test]
    fn the_feature_tables_are_cargos_for_the_pinned_releases() {
        let (old, new) = feature_tables();
        for (table, lock) in [(old, BURN_0_21_LOCK), (new, BURN_0_22_LOCK)] {
            let burn = table.get(&("burn".to_string(), "std".to_string()));
            assert!(burn.is_some(), "burn's std feature is listed");
            for (package, _) in table.keys() {
                assert!(
                    lock.contains(&format!("\nname = \"{package}\"\n")),
                    "{package} is in the pinned lock"
                );
            }
        }
    }
}

#[cfg(test)]
mod feature_map_tests {
    use super::*;

    /// The rule set's hand-written feature map against the crates' own tables: each feature
    /// it maps from is one of 0.21's, and each it maps to is one of 0.22's (a map to a
    /// feature the crate lacks would make the port unresolvable).
    #[test]
    fn the_feature_map_names_features_the_pinned_releases_have() {
        let rules = crate::rules::RuleSet::embedded().unwrap();
        let (old, new) = feature_tables();
        for map in rules.feature_maps() {
            let key = |f: &str| (map.package.clone(), f.to_string());
            assert!(
                old.contains_key(&key(&map.from)),
                "{} feature `{}` is not one of 0.21's",
                map.package,
                map.from
            );
            if let Some(to) = &map.to {
                assert!(
                    new.contains_key(&key(to)),
                    "{} feature `{}` (from `{}`) is not one of 0.22's",
                    map.package,
                    to,
                    map.from
                );
            }
        }
    }
}

#[cfg(test)]
mod api_listing_tests {
    use super::*;

    #[test]
    fn required_generic_args_are_read_from_the_0_21_listing() {
        // `<B, const D: usize, K = Float> where ..`, `<B: Backend, I, O>`, `<B: Backend>`.
        assert_eq!(required_generic_args_0_21("burn::tensor::Tensor"), Some(2));
        let batcher = "burn::data::dataloader::batcher::Batcher";
        assert_eq!(required_generic_args_0_21(batcher), Some(3));
        assert_eq!(required_generic_args_0_21("burn::nn::Linear"), Some(1));
        assert_eq!(required_generic_args_0_21("burn::nn::NoSuchThing"), None);
    }

    #[test]
    fn a_burn_method_returns_what_the_0_21_listing_says() {
        let forward = method_return_0_21("CrossEntropyLoss", "forward");
        assert_eq!(forward, Some("Tensor<B, 1>"));
        assert_eq!(method_return_0_21("CrossEntropyLoss", "new"), Some("Self"));
        assert_eq!(
            method_return_0_21("CrossEntropyLoss", "no_such_method"),
            None
        );
        assert_eq!(method_return_0_21("NoSuchType", "forward"), None);
    }

    /// The lookup by first word finds the line a scan of the listing finds, for every path
    /// the listing has, a prefix of one and one it lacks.
    #[test]
    fn the_listing_line_of_a_path_is_the_first_that_starts_with_it() {
        let scan = |path: &str| {
            BURN_0_21_API.lines().find(|line| {
                line.strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
        };
        let mut paths: Vec<&str> = (BURN_0_21_API.lines())
            .filter_map(|line| Some(line.split_once(' ')?.0))
            .collect();
        paths.extend([
            "burn::tensor",
            "burn::nn::NoSuchThing",
            "",
            "burn::nn::Linear ",
        ]);
        for path in paths {
            assert_eq!(api_0_21_line(path), scan(path), "{path}");
        }
    }
}
