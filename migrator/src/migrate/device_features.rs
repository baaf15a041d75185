//! Rule `cargo-device-features`: a device constructor the port writes needs its Burn feature
//! (`Device::cuda` needs `cuda`), which no rewrite can decide to turn on (it may need hardware
//! or a toolkit): where no manifest of the workspace enables it, the person hears it.

use crate::migrate::discover::Workspace;
use crate::migrate::manifest;
use crate::migrate::outcome::{ManifestChange, Report};
use crate::rules::{ModuleId, RuleHome, RuleId, RuleSet};

pub const HOME: RuleHome = RuleHome {
    module: ModuleId::DeviceFeatures,
    emits: &[RuleId::CargoDeviceFeatures],
};

/// A device constructor the port writes needs its Cargo feature (`Device::cuda` needs
/// `cuda`); where no manifest of the workspace enables it, say so.
pub fn findings(report: &mut Report, rules: &RuleSet, workspace: &Workspace) {
    // Each manifest with the key it names Burn with (`nn = { package = "burn" }`).
    let manifests: Vec<(toml_edit::DocumentMut, String)> = report
        .manifests
        .iter()
        .filter_map(|m| {
            let doc: toml_edit::DocumentMut = m.migrated.parse().ok()?;
            let burn = manifest::burn_key_of(&doc, &workspace.renamed_dependencies(&m.path));
            Some((doc, burn))
        })
        .collect();
    let mut missing: Vec<(String, String)> = Vec::new();
    for backend in rules.backends() {
        let constructor = backend.device.callee();
        // In ported code too: `--check` keeps saying so until the feature is on.
        let used = report
            .files
            .iter()
            .any(|f| crate::util::syntax::contains(&f.migrated, &constructor));
        let enabled = manifests
            .iter()
            .any(|(doc, burn)| manifest::enables_burn_feature(doc, &backend.feature, burn));
        if used && !enabled && !missing.iter().any(|(f, _)| *f == backend.feature) {
            missing.push((backend.feature.clone(), constructor));
        }
    }
    let Some(target) = report
        .manifests
        .iter_mut()
        .find(|m| m.migrated.contains("burn"))
    else {
        return;
    };
    let key = (target.migrated.parse::<toml_edit::DocumentMut>().ok())
        .map(|doc| manifest::burn_key_of(&doc, &workspace.renamed_dependencies(&target.path)))
        .unwrap_or_else(|| "burn".to_string());
    for (feature, constructor) in missing {
        target.changes.push(ManifestChange {
            rule: RuleId::CargoDeviceFeatures.into(),
            fix: None,
            key: key.clone(),
            span: None,
            message: format!("the ported code calls `{constructor}`, which needs Burn feature `{feature}`: enable it (behind a feature of yours if it needs hardware)"),
        });
    }
}
