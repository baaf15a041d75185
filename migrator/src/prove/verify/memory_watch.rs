//! Memory-pool figures of the port's own runs. On a CubeCL device (Vulkan, wgpu, CUDA, ...)
//! verify adds a watch to each binary's `main` in its scratch copy of the port: a thread that
//! samples `Device::memory_pool_usage()` every few milliseconds while `main` runs, and prints
//! the peaks on stderr when `main` returns (a drop guard, so early returns count too).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ra_ap_syntax::ast::{self, HasModuleItem, HasName};
use ra_ap_syntax::{AstNode, Edition};

use crate::edit::{self, Change};
use crate::error::Error;
use crate::prove::verify::devices;
use crate::prove::verify::placement::DevicesByPackage;
use crate::prove::verify::targets::runnables;
use crate::rules::RuleKey;

/// The line the watch prints; verify reads it back from the binary's stderr.
pub const REPORT_PREFIX: &str = "burn-migrate memory-pool:";

/// What the watch's edits carry as their rule: they come from verify, not from a rule file.
pub const MEMORY_WATCH: RuleKey = RuleKey::Tool("verify-memory-watch");

const MODULE_FILE: &str = "__burn_migrate_memory_watch.rs";

/// Files the watch changed or added, with their original text (`None`: added), so a port the
/// watch keeps from building can be restored.
#[derive(Debug, Default)]
pub struct Installed {
    pub originals: Vec<(PathBuf, Option<String>)>,
}

impl Installed {
    pub fn is_empty(&self) -> bool {
        self.originals.is_empty()
    }

    /// Puts every file back as it was.
    pub fn remove(self) -> Result<(), Error> {
        for (path, original) in self.originals {
            let result = match original {
                Some(text) => std::fs::write(&path, text),
                None => std::fs::remove_file(&path),
            };
            result.map_err(|source| Error::Io { path, source })?;
        }
        Ok(())
    }
}

/// Adds the memory-pool watch to the binaries of packages that run on one CubeCL device.
pub fn install_for_devices(
    dir: &Path,
    used_by_package: &DevicesByPackage,
    known: &BTreeMap<String, devices::Constructor>,
) -> Result<Installed, Error> {
    let mut installed = Installed::default();
    // Skipped packages get the watch too: their binaries may run on another machine.
    for binary in runnables(dir) {
        let Some(used) = used_by_package.get(&binary.package) else {
            continue;
        };
        let pooled: Vec<&String> = used
            .iter()
            .filter(|(name, _)| known.get(*name).is_some_and(|c| c.memory_pools))
            .flat_map(|(_, calls)| calls)
            .collect();
        let [call] = pooled.as_slice() else { continue };
        if let Some(device) = standalone_device(call) {
            install(&binary.main, &device, &mut installed)?;
        }
    }
    Ok(installed)
}

/// Adds the watch to the binary whose `main` is in `main_file`, sampling `device` (an
/// expression that needs no imports, like `burn::tensor::Device::vulkan(..)`).
pub fn install(main_file: &Path, device: &str, installed: &mut Installed) -> Result<bool, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let text = std::fs::read_to_string(main_file).map_err(io(main_file))?;
    // Parsed as the port parses (bounded nesting, trees dropped here, see `source::parse`).
    let root = crate::migrate::source::parse(&text, Edition::Edition2021).0;
    let Some(body) = root
        .items()
        .filter_map(|item| match item {
            ast::Item::Fn(function) => Some(function),
            _ => None,
        })
        .find(|f| f.name().is_some_and(|n| n.text() == "main"))
        .and_then(|f| f.body())
        .and_then(|b| b.stmt_list())
        .and_then(|s| s.l_curly_token())
    else {
        return Ok(false);
    };
    let Some(dir) = main_file.parent() else {
        return Ok(false);
    };
    let module = dir.join(MODULE_FILE);
    let edits = edit::normalize(vec![
        Change::insert(
            body.text_range().end(),
            "\n    let _burn_migrate_memory_watch = __burn_migrate_memory_watch::Watch::start();",
            MEMORY_WATCH,
            "start the watch when `main` starts",
        ),
        Change::insert(
            root.syntax().text_range().end(),
            format!("\n#[path = \"{MODULE_FILE}\"]\nmod __burn_migrate_memory_watch;\n"),
            MEMORY_WATCH,
            "declare the watch's module",
        ),
    ])
    .map_err(|overlap| {
        Error::Internal(format!(
            "adding the memory watch to {}: {overlap}",
            main_file.display()
        ))
    })?;
    let new = edit::apply(&text, &edits);
    installed
        .originals
        .push((main_file.to_path_buf(), Some(text)));
    std::fs::write(main_file, new).map_err(io(main_file))?;
    installed.originals.push((module.clone(), None));
    std::fs::write(&module, module_text(device)).map_err(io(&module))?;
    Ok(true)
}

fn module_text(device: &str) -> String {
    format!(
        r#"//! Added by `burn-migrate verify` to its scratch copy of the port: samples the device's
//! memory pool while `main` runs and prints the peaks when `main` returns.

use std::sync::atomic::{{AtomicBool, Ordering}};
use std::sync::Arc;

pub struct Watch {{
    stop: Arc<AtomicBool>,
    sampler: Option<std::thread::JoinHandle<Option<[u64; 3]>>>,
}}

impl Watch {{
    pub fn start() -> Self {{
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let sampler = std::thread::spawn(move || {{
            let device = {device};
            let mut peak: Option<[u64; 3]> = None;
            loop {{
                if let Some(usage) = device.memory_pool_usage() {{
                    let peak = peak.get_or_insert([0; 3]);
                    peak[0] = peak[0].max(usage.bytes_in_use);
                    peak[1] = peak[1].max(usage.bytes_reserved);
                    peak[2] = peak[2].max(usage.number_allocs);
                }}
                if stopped.load(Ordering::Relaxed) {{
                    return peak;
                }}
                std::thread::sleep(std::time::Duration::from_millis(5));
            }}
        }});
        Watch {{ stop, sampler: Some(sampler) }}
    }}
}}

impl Drop for Watch {{
    fn drop(&mut self) {{
        self.stop.store(true, Ordering::Relaxed);
        if let Some(Ok(Some([in_use, reserved, allocations]))) = self.sampler.take().map(|s| s.join()) {{
            eprintln!("{REPORT_PREFIX} peak_bytes_in_use={{in_use}} peak_bytes_reserved={{reserved}} peak_allocations={{allocations}}");
        }}
    }}
}}
"#
    )
}

/// The watch's report in a binary's stderr, if it printed one.
pub fn report(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix(REPORT_PREFIX))
        .map(|rest| rest.trim().to_string())
}

/// An expression for `device_call` (a constructor call as the port writes it) that compiles
/// without imports, or `None` when the call's arguments name something local.
pub fn standalone_device(name_and_args: &str) -> Option<String> {
    let args = name_and_args
        .split_once('(')?
        .1
        .trim_end_matches(')')
        .trim();
    let plain = args.is_empty()
        || args.chars().all(|c| c.is_ascii_digit())
        || args.starts_with("DeviceKind::")
        || args.starts_with("burn::");
    plain.then(|| {
        format!(
            "burn::tensor::Device::{}",
            name_and_args.replace("(DeviceKind::", "(burn::tensor::DeviceKind::")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watch_goes_into_main_and_comes_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main.rs");
        let original = "//! Docs.\n#![allow(unused)]\n\nfn main() {\n    println!(\"hi\");\n}\n";
        std::fs::write(&main, original).unwrap();
        let mut installed = Installed::default();
        assert!(install(&main, "burn::tensor::Device::flex()", &mut installed).unwrap());
        let text = std::fs::read_to_string(&main).unwrap();
        assert!(text.starts_with(
            "//! Docs.\n#![allow(unused)]\n\nfn main() {\n    let _burn_migrate_memory_watch"
        ));
        assert!(text.ends_with("mod __burn_migrate_memory_watch;\n"));
        assert!(dir.path().join(MODULE_FILE).exists());
        installed.remove().unwrap();
        assert_eq!(std::fs::read_to_string(&main).unwrap(), original);
        assert!(!dir.path().join(MODULE_FILE).exists());
    }

    #[test]
    fn only_devices_without_local_arguments_are_watched() {
        assert_eq!(
            standalone_device("vulkan(DeviceKind::DefaultDevice)").as_deref(),
            Some("burn::tensor::Device::vulkan(burn::tensor::DeviceKind::DefaultDevice)")
        );
        assert_eq!(
            standalone_device("cuda(0)").as_deref(),
            Some("burn::tensor::Device::cuda(0)")
        );
        assert_eq!(standalone_device("cuda(index)"), None);
    }

    #[test]
    fn reads_the_report_back() {
        let stderr = "warning: x\nburn-migrate memory-pool: peak_bytes_in_use=10 peak_bytes_reserved=20 peak_allocations=3\n";
        assert_eq!(
            report(stderr).as_deref(),
            Some("peak_bytes_in_use=10 peak_bytes_reserved=20 peak_allocations=3")
        );
    }
}
