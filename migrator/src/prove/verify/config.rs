//! The `[verify]` table of `burn-migrate.toml` at the project root: what verify runs on both
//! sides, and for how long. Without one, every binary and example runs without arguments.
//!
//! ```toml
//! [verify]
//! run = [
//!     { bin = "train", args = ["--epochs", "1"] },
//!     { example = "inference" },
//! ]
//! run_limit_s = 300
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::error::Error;

/// The file; its other keys are the port's settings (`select`, `ignore`, `ndarray-to`, ..),
/// which `migrate::config` reads and checks.
#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    verify: Option<VerifyTable>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyTable {
    /// The commands to run; `None`: every binary and example, without arguments.
    #[serde(default)]
    pub run: Option<Vec<RunSpec>>,
    /// Longest one command may run, in seconds (overrides `--run-limit`).
    #[serde(default)]
    pub run_limit_s: Option<u64>,
}

/// One command: a binary or an example of the workspace, with arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    #[serde(default)]
    pub bin: Option<String>,
    #[serde(default)]
    pub example: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
}

/// The `[verify]` table of `<root>/burn-migrate.toml`, or the defaults when there is none.
pub fn load(root: &Path) -> Result<VerifyTable, Error> {
    let path = root.join("burn-migrate.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(VerifyTable::default());
    };
    let file: File = toml_edit::de::from_str(&text).map_err(|e| Error::Config {
        path: path.clone(),
        message: e.to_string(),
    })?;
    let table = file.verify.unwrap_or_default();
    for spec in table.run.iter().flatten() {
        if spec.bin.is_some() == spec.example.is_some() {
            return Err(Error::Config {
                path,
                message: "each entry of `[verify] run` names exactly one of `bin` or `example`, like `{ bin = \"train\", args = [\"--epochs\", \"1\"] }`".into(),
            });
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_table_and_explains_mistakes() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().run.is_none(), "no file: defaults");

        let file = dir.path().join("burn-migrate.toml");
        std::fs::write(&file, "[verify]\nrun = [{ bin = \"train\", args = [\"--epochs\", \"1\"] }, { example = \"infer\" }]\nrun_limit_s = 30\n").unwrap();
        let table = load(dir.path()).unwrap();
        let run = table.run.unwrap();
        assert_eq!(run[0].bin.as_deref(), Some("train"));
        assert_eq!(run[0].args, ["--epochs", "1"]);
        assert_eq!(run[1].example.as_deref(), Some("infer"));
        assert_eq!(table.run_limit_s, Some(30));

        std::fs::write(
            &file,
            "[verify]\nrun = [{ bin = \"a\", example = \"b\" }]\n",
        )
        .unwrap();
        let error = load(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("exactly one of `bin` or `example`"),
            "{error}"
        );

        std::fs::write(&file, "[verify]\nruns = []\n").unwrap();
        let error = load(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("burn-migrate.toml") && error.contains("runs"),
            "{error}"
        );
    }
}
