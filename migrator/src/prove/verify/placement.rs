//! Where the port runs: the devices each package constructs, which of them work here (each
//! probed once, in a child process), and the `--device` move. Packages whose device does not
//! work here are built but not run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::Error;
use crate::prove::verify::targets::packages;
use crate::prove::verify::types::CargoSelection;
use crate::prove::verify::{devices, retarget};
use crate::rules::RuleSet;

/// Device constructor calls by package: package -> constructor name -> the calls' text.
pub type DevicesByPackage = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// Which packages run, on both sides.
pub struct Placement {
    /// Packages of the original not run here: the migration's own device choice does not
    /// work on this machine, so the original would fail (or crash) there too.
    pub natural_skips: BTreeMap<String, String>,
    /// Packages of the port not run here (after `--device`, when given), with the reason.
    pub skipped: BTreeMap<String, String>,
    /// The devices each package of the port constructs.
    pub used_by_package: DevicesByPackage,
    /// What `--device` changed, in words.
    pub notes: Vec<String>,
}

/// Probes the devices of the port at `new` (of the packages and features `selection` builds),
/// then moves it to `device` when one is given and
/// probes again.
pub fn place(
    new: &Path,
    selection: &CargoSelection,
    device: Option<&str>,
    rules: &RuleSet,
    cache: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<Placement, Error> {
    let mut notes = Vec::new();
    let known = devices::constructors(rules);
    let mut probes = BTreeMap::new();
    // The original runs where the migration's own device choice runs: what does not work
    // here is skipped on both sides, since the original would fail (or crash) there too.
    let (natural_skips, natural_devices) =
        device_skips(new, selection, &known, cache, &mut probes, progress);
    let (skipped, used_by_package) = match device {
        None => (natural_skips.clone(), natural_devices),
        Some(name) => {
            let Some(target) = known.get(name) else {
                return Err(Error::Usage(format!(
                    "`--device {name}` is not a Burn 0.22 device; use one of: {}",
                    known.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            };
            let moved = retarget::retarget(new, target, &known)?;
            notes.push(format!(
                "the port runs on `Device::{name}`: {} constructor call(s) moved, feature `{}` enabled in {} manifest(s)",
                moved.calls, target.feature, moved.manifests
            ));
            device_skips(new, selection, &known, cache, &mut probes, progress)
        }
    };
    Ok(Placement {
        natural_skips,
        skipped,
        used_by_package,
        notes,
    })
}

/// The devices each package of the port at `dir` constructs, and the packages to skip
/// because one of them does not work here (each device probed once, `probes` remembers).
fn device_skips(
    dir: &Path,
    selection: &CargoSelection,
    known: &BTreeMap<String, devices::Constructor>,
    cache: &Path,
    probes: &mut BTreeMap<String, Result<(), Error>>,
    progress: &mut dyn FnMut(&str),
) -> (BTreeMap<String, String>, DevicesByPackage) {
    let mut skipped = BTreeMap::new();
    let mut used_by_package = BTreeMap::new();
    for (package, package_dir) in packages(dir) {
        if !selection.includes(&package) {
            continue;
        }
        let used = devices::devices_used(&package_dir, &package, selection, known);
        for name in used.keys() {
            let verdict = probes.entry(name.clone()).or_insert_with(|| {
                progress(&format!("checking that `Device::{name}` works here"));
                let verdict = match known.get(name) {
                    Some(device) => devices::check_device(device, cache),
                    None => Err(Error::Usage(format!(
                        "`Device::{name}` is not a Burn 0.22 device"
                    ))),
                };
                match &verdict {
                    Ok(()) => progress(&format!("`Device::{name}` works here")),
                    Err(why) => progress(&format!("`Device::{name}` is skipped: {why}")),
                }
                verdict
            });
            if let Err(why) = verdict {
                skipped
                    .entry(package.clone())
                    .or_insert_with(|| why.to_string());
            }
        }
        used_by_package.insert(package, used);
    }
    (skipped, used_by_package)
}
