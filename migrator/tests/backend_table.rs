//! Adding a backend is one entry in `rules/tables/backends.toml`: a table with an extra,
//! fictional backend is picked up by the index (type, device type, crate, element defaults)
//! and the manifest rewrite (crate folding), with no code naming it. Verify's device list is
//! checked the same way in `prove/verify/devices.rs`.

use burn_migrate::migrate::manifest::{self, FeatureRules};
use burn_migrate::migrate::migrate_text;
use burn_migrate::rules::backends::BackendTable;
use burn_migrate::rules::RuleId;
use burn_migrate::rules::RuleSet;

/// A backend Burn never had; its device rewrites carry an existing device rule's id
/// (`RULE`, filled in by `photon`).
const PHOTON: &str = r#"
[[backend]]
types = ["Photon"]
crate = "burn-photon"
burn_feature = "photon"
elements = [["F", "f32"], ["I", "i32"]]
device_types = ["PhotonDevice"]
rule = "RULE"
device = "Device::photon(0)"
device_new = "Device::photon({args})"
feature = "photon"
memory_pools = true
"#;

fn photon(rule: &str) -> String {
    PHOTON.replace("\"RULE\"", &format!("\"{rule}\""))
}

fn rules_with_photon() -> RuleSet {
    let table = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rules/tables/backends.toml"
    ))
    .unwrap();
    let photon = photon(RuleId::DeviceCuda.as_str());
    let table = BackendTable::parse(&format!("{table}{photon}")).unwrap();
    RuleSet::embedded()
        .unwrap()
        .with_backend_table(table)
        .unwrap()
}

#[test]
fn the_index_resolves_a_new_backend_its_devices_and_its_crate() {
    let rules = rules_with_photon();
    let source = "use burn::backend::Photon;\nuse burn_photon::PhotonDevice;\nuse burn::prelude::*;\n\ntype Fast = Photon<f32, i64>;\n\nfn run<B: Backend>(device: &B::Device) -> Tensor<B, 1> {\n    Tensor::ones([2], device)\n}\n\nfn main() {\n    let device = PhotonDevice::new(1);\n    let _ = run::<Fast>(&device);\n}\n";
    let outcome = migrate_text(source, &rules).unwrap();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    // The crate import and the alias go, the device becomes the table's constructor,
    // configured with the `i64` integers `Fast` chose (the device's default is `I32`).
    assert_eq!(
        outcome.migrated,
        "use burn::tensor::IntDType;\nuse burn::prelude::*;\n\nfn run(device: &Device) -> Tensor<1> {\n    Tensor::ones([2], device)\n}\n\nfn main() {\n    let mut device = Device::photon(1);\n    let _ = device.configure(IntDType::I64);\n    let _ = run(&device);\n}\n"
    );
    // `I = i32` is Photon's default: `i64` is a choice the port must not lose.
    assert!(
        outcome
            .changes
            .iter()
            .any(|c| c.rule == RuleId::BackendElementGenerics),
        "{:?}",
        outcome.changes
    );
    let defaults = migrate_text(
        &source.replace("Photon<f32, i64>", "Photon<f32, i32>"),
        &rules,
    )
    .unwrap();
    assert!(!defaults
        .changes
        .iter()
        .any(|c| c.rule == RuleId::BackendElementGenerics));
    assert!(
        defaults
            .migrated
            .contains("let device = Device::photon(1);"),
        "{}",
        defaults.migrated
    );

    // Without the entry, nothing about the type is known.
    let plain = migrate_text(source, &RuleSet::embedded().unwrap()).unwrap();
    assert!(!plain.migrated.contains("Device::photon"));
}

#[test]
fn the_manifest_folds_a_new_backend_crate_into_its_feature() {
    let rules = rules_with_photon();
    let crates = rules.backend_table().crate_features();
    let maps: Vec<_> = rules.feature_maps().cloned().collect();
    let features = FeatureRules {
        maps: &maps,
        adds: &[],
        backend_crates: &crates,
        code_uses: &|_| false,
        renamed: &[],
    };
    let out = manifest::migrate(
        "[dependencies]\nburn = \"0.21.0\"\nburn-photon = \"0.21.0\"\n",
        &features,
    )
    .unwrap();
    assert_eq!(
        out.text,
        "[dependencies]\nburn = { version = \"0.22.0\", features = [\"photon\"] }\n"
    );
}

#[test]
fn a_table_rule_without_a_file_is_refused() {
    // A rule id no rule file has.
    let table = BackendTable::parse(&photon("device-photon")).unwrap();
    let error = RuleSet::embedded()
        .unwrap()
        .with_backend_table(table)
        .unwrap_err();
    assert!(error.to_string().contains("device-photon"), "{error}");
}
