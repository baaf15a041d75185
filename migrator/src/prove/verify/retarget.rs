//! `verify --device NAME`: moves a port (the scratch copy, never the user's tree) to one
//! device. Every `Device::<constructor>(..)` call becomes NAME's default device, and every
//! manifest that depends on `burn` enables NAME's feature. Autodiff and other settings stay:
//! they are methods on the device value (`.autodiff()`), not part of the constructor.

use std::collections::BTreeMap;
use std::path::Path;

use toml_edit::{DocumentMut, Item, Value};

use crate::edit::{self, Change};
use crate::error::Error;
use crate::prove::verify::devices::{constructor_calls, Constructor};
use crate::util::files::{files_under, rust_files};

/// What the edits of `--device` carry as their rule: they come from verify, not from a rule file.
pub const RETARGET: &str = "verify-device";

/// What retargeting changed: constructor calls rewritten, manifests given the feature.
#[derive(Debug, Default)]
pub struct Retargeted {
    pub calls: usize,
    pub manifests: usize,
}

pub fn retarget(
    dir: &Path,
    target: &Constructor,
    known: &BTreeMap<String, Constructor>,
) -> Result<Retargeted, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    // The default expression is written for a file that imports `Device` and `DeviceKind`;
    // only `Device::<name>` is replaced at each call, so the path to `DeviceKind` is spelled out.
    let name_and_args = target
        .default_expression
        .trim_start_matches("Device::")
        .replace("DeviceKind::", "burn::tensor::DeviceKind::");
    let mut done = Retargeted::default();
    for file in rust_files(dir, true) {
        let text = std::fs::read_to_string(&file).map_err(io(&file))?;
        let changes: Vec<Change> = constructor_calls(&text, known)
            .into_iter()
            .map(|call| {
                Change::edit(
                    call.name_and_args,
                    name_and_args.as_str(),
                    RETARGET,
                    format!("`Device::{}` moved to `Device::{}`", call.name, target.name),
                )
            })
            .collect();
        if changes.is_empty() {
            continue;
        }
        let edits = edit::normalize(changes).map_err(|overlap| {
            Error::Internal(format!("retargeting {}: {overlap}", file.display()))
        })?;
        done.calls += edits.len();
        std::fs::write(&file, edit::apply(&text, &edits)).map_err(io(&file))?;
    }
    for manifest in files_under(dir, true, &|p| p.ends_with("Cargo.toml")) {
        let text = std::fs::read_to_string(&manifest).map_err(io(&manifest))?;
        let Ok(mut doc) = text.parse::<DocumentMut>() else {
            continue;
        };
        if enable_feature(&mut doc, &target.feature) {
            std::fs::write(&manifest, doc.to_string()).map_err(io(&manifest))?;
            done.manifests += 1;
        }
    }
    Ok(done)
}

/// Adds `feature` to the `burn` dependency of `[dependencies]` and `[workspace.dependencies]`
/// (entries that inherit with `workspace = true` get it from the workspace). Whether anything
/// changed.
fn enable_feature(doc: &mut DocumentMut, feature: &str) -> bool {
    let root = doc.as_table_mut();
    let mut changed = root
        .get_mut("dependencies")
        .is_some_and(|table| add_to_dependency(table, feature));
    if let Some(table) = root
        .get_mut("workspace")
        .and_then(Item::as_table_like_mut)
        .and_then(|w| w.get_mut("dependencies"))
    {
        changed |= add_to_dependency(table, feature);
    }
    changed
}

fn add_to_dependency(table: &mut Item, feature: &str) -> bool {
    let Some(table) = table.as_table_like_mut() else {
        return false;
    };
    let Some(burn) = table.get_mut("burn") else {
        return false;
    };
    if let Some(version) = burn.as_str().map(str::to_string) {
        let mut inline = toml_edit::InlineTable::new();
        inline.insert("version", version.into());
        inline.insert("features", Value::Array(std::iter::once(feature).collect()));
        *burn = Item::Value(Value::InlineTable(inline));
        return true;
    }
    let Some(dep) = burn.as_table_like_mut() else {
        return false;
    };
    if dep.get("workspace").and_then(Item::as_bool) == Some(true) && dep.get("features").is_none() {
        return false;
    }
    if dep.get("features").is_none() {
        dep.insert(
            "features",
            Item::Value(Value::Array(toml_edit::Array::new())),
        );
    }
    let Some(features) = dep.get_mut("features").and_then(Item::as_array_mut) else {
        return false;
    };
    if features.iter().any(|f| f.as_str() == Some(feature)) {
        return false;
    }
    features.push(feature);
    if let Some(inline) = burn.as_inline_table_mut() {
        // A key added to `{ version = "0.22.0" }` would keep the space before the brace.
        inline.fmt();
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::verify::devices::constructors;
    use crate::rules::RuleSet;

    #[test]
    fn moves_every_constructor_and_leaves_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"p\"\n\n[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n",
        )
        .unwrap();
        let main = "use burn::tensor::Device;\n\nfn main() {\n    // Flex for now.\n    let device = Device::flex().autodiff();\n    let other = burn::tensor::Device::cuda(1);\n    let same = Device::default();\n}\n";
        std::fs::write(dir.path().join("src/main.rs"), main).unwrap();
        let known = constructors(&RuleSet::embedded().unwrap());
        let moved = retarget(dir.path(), &known["vulkan"], &known).unwrap();
        assert_eq!((moved.calls, moved.manifests), (2, 1));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap(),
            "use burn::tensor::Device;\n\nfn main() {\n    // Flex for now.\n    let device = Device::vulkan(burn::tensor::DeviceKind::DefaultDevice).autodiff();\n    let other = burn::tensor::Device::vulkan(burn::tensor::DeviceKind::DefaultDevice);\n    let same = Device::default();\n}\n"
        );
    }

    #[test]
    fn enables_the_feature_in_every_form_of_the_dependency() {
        let mut doc: DocumentMut = "[dependencies]\nburn = \"0.22.0\"\n".parse().unwrap();
        assert!(enable_feature(&mut doc, "vulkan"));
        assert!(doc.to_string().contains("features = [\"vulkan\"]"));

        let mut doc: DocumentMut =
            "[dependencies]\nburn = { version = \"0.22.0\", features = [\"flex\"] }\n"
                .parse()
                .unwrap();
        assert!(enable_feature(&mut doc, "vulkan"));
        assert!(doc.to_string().contains("[\"flex\", \"vulkan\"]"));
        assert!(!enable_feature(&mut doc, "vulkan"), "added once");

        let mut doc: DocumentMut = "[workspace.dependencies]\nburn = { version = \"0.22.0\" }\n[dependencies]\nburn = { workspace = true }\n"
            .parse()
            .unwrap();
        assert!(enable_feature(&mut doc, "wgpu"));
        let text = doc.to_string();
        assert!(
            text.contains("version = \"0.22.0\", features = [\"wgpu\"]"),
            "{text}"
        );
        assert!(text.contains("burn = { workspace = true }"), "{text}");
    }
}
