//! Compiler in the loop. When the port does not build, each error rustc reports is mapped to
//! the rule (and so the guide page) that covers what it names: an unresolved `NdArray` to
//! `device-ndarray`, a removed `CompactRecorder` to `recorder-types`, a missing method to the
//! rule that rewrites or reports that call, a wrong number of generic arguments to
//! `backend-generic-arg`. `--fix` applies rustc's machine-applicable suggestions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cargo_metadata::diagnostic::{Applicability, Diagnostic, DiagnosticLevel};
use cargo_metadata::Message;
use ra_ap_syntax::{TextRange, TextSize};

use crate::edit::{self, Change};
use crate::error::Error;
use crate::rules::{DataRule, RuleId, RuleKey, RuleSet};

/// One compile error of the port.
#[derive(Debug, Clone)]
pub struct CompileError {
    /// The file, absolute, and the byte range of the primary span.
    pub file: PathBuf,
    pub range: std::ops::Range<usize>,
    /// `E0412`, when rustc gave a code.
    pub code: Option<String>,
    pub message: String,
    /// The rule that covers it, when one does.
    pub rule: Option<RuleKey>,
}

/// The compiler messages in `cargo build --message-format=json..` output.
pub fn diagnostics(stdout: &str) -> Vec<Diagnostic> {
    Message::parse_stream(stdout.as_bytes())
        .flatten()
        .filter_map(|m| match m {
            Message::CompilerMessage(m) => Some(m.message),
            _ => None,
        })
        .collect()
}

/// The errors among `diagnostics`, each mapped to a rule where one covers it.
pub fn errors(diagnostics: &[Diagnostic], workspace: &Path, rules: &RuleSet) -> Vec<CompileError> {
    let names = Names::new(rules);
    let mut out = Vec::new();
    for diagnostic in diagnostics {
        if diagnostic.level != DiagnosticLevel::Error {
            continue;
        }
        let Some(span) = diagnostic.spans.iter().find(|s| s.is_primary) else {
            continue;
        };
        let code = diagnostic.code.as_ref().map(|c| c.code.clone());
        let file = workspace.join(&span.file_name);
        let range = span.byte_start as usize..span.byte_end as usize;
        // A binary and its test harness report the same error twice.
        if out.iter().any(|e: &CompileError| {
            e.file == file && e.range == range && e.message == diagnostic.message
        }) {
            continue;
        }
        out.push(CompileError {
            file,
            range,
            rule: names.rule_for(code.as_deref(), &diagnostic.message),
            code,
            message: diagnostic.message.clone(),
        });
    }
    out
}

/// Names the rules know (removed items, renamed paths, backend and device types, methods and
/// functions whose calls changed), each with the rule that covers it; and module paths whose
/// whole content went (`burn::record::`).
struct Names {
    names: BTreeMap<String, RuleKey>,
    prefixes: Vec<(String, RuleKey)>,
}

impl Names {
    fn new(rules: &RuleSet) -> Self {
        let mut names = BTreeMap::new();
        let mut prefixes = Vec::new();
        let last = |path: &str| path.rsplit("::").next().unwrap_or(path).to_string();
        // Removed items first: their guidance says what to use instead, where a rename of
        // the same path only drops an import.
        let mut rewrites: Vec<(RuleKey, &DataRule)> = rules
            .iter()
            .flat_map(|rule| rule.rewrites.iter().map(move |r| (rule.key, r)))
            .collect();
        rewrites.sort_by_key(|(_, r)| !matches!(r, DataRule::RemovedItem { .. }));
        for (rule, rewrite) in rewrites {
            let mut add = |name: &str| {
                match name.strip_suffix('*') {
                    Some(prefix) => prefixes.push((prefix.to_string(), rule)),
                    None => {
                        names.entry(name.to_string()).or_insert(rule);
                        names.entry(last(name)).or_insert(rule);
                    }
                };
            };
            match rewrite {
                DataRule::RenamePath { from, .. } => add(from),
                DataRule::RemovedItem { paths, .. } => paths.iter().for_each(|p| add(p)),
                // Methods by name; functions by their whole path (`Type::new`), since their
                // last segment alone is too common a name to point at one rule.
                DataRule::ReportCall {
                    method, function, ..
                }
                | DataRule::RewriteCall {
                    method, function, ..
                } => {
                    method.iter().for_each(|m| add(m));
                    if let Some(function) = function {
                        names.entry(function.clone()).or_insert(rule);
                    }
                }
                DataRule::ReportImplFn { functions, .. } => functions.iter().for_each(|f| add(f)),
                // Field names (`padding`, `grads`) are too common to point an error at one rule;
                // the compiler's message names the type, whose own rules cover it.
                DataRule::ReportField { .. } => {}
            }
        }
        for backend in rules.backends() {
            for name in backend.types.iter().chain(&backend.device_types) {
                names.entry(name.clone()).or_insert(backend.rule);
            }
        }
        Names { names, prefixes }
    }

    /// The rule for one error: a name in backticks that a rule knows, else the rule for the
    /// kind of error (generic arguments, backend bounds and associated items are the core
    /// transform's).
    fn rule_for(&self, code: Option<&str>, message: &str) -> Option<RuleKey> {
        for quoted in message.split('`').skip(1).step_by(2) {
            let path = quoted.split('<').next().unwrap_or(quoted);
            let in_module = |prefix: &String| {
                path.starts_with(prefix.as_str()) || path == prefix.trim_end_matches("::")
            };
            if let Some((_, rule)) = self.prefixes.iter().find(|(p, _)| in_module(p)) {
                return Some(*rule);
            }
            let name = path.rsplit("::").next().unwrap_or(path);
            if let Some(rule) = self.names.get(path).or_else(|| self.names.get(name)) {
                return Some(*rule);
            }
        }
        let by_kind = match code? {
            // wrong number of generic arguments: a backend argument left behind
            "E0107" => RuleId::BackendGenericArg,
            // cannot find trait (`Backend`, `AutodiffBackend`) or type parameter
            "E0405" | "E0412" if message.contains("Backend") || message.contains("`B`") => {
                RuleId::BackendGenericParam
            }
            // associated type or item not found (`B::Device`, `B::FloatElem`)
            "E0220" | "E0576" => RuleId::BackendAssociatedItem,
            _ => return None,
        };
        Some(by_kind.into())
    }
}

/// What the edits of `--fix` carry as their rule: rustc's suggestions, not a rule file's.
pub const RUSTC_SUGGESTION: RuleKey = RuleKey::Tool("rustc-suggestion");

/// What one `--fix` pass did.
#[derive(Debug, Default)]
pub struct Fixed {
    /// Suggestions applied.
    pub applied: usize,
    /// Files left unchanged because two suggestions overlap, with the edit engine's report.
    pub unchanged: Vec<(PathBuf, String)>,
}

/// Applies every machine-applicable suggestion in `diagnostics` to the files under
/// `workspace`, through the edit engine: duplicates count once, a suggestion inside a larger
/// one yields to it, and a file whose suggestions partly overlap is left unchanged.
pub fn apply_suggestions(diagnostics: &[Diagnostic], workspace: &Path) -> Result<Fixed, Error> {
    let mut by_file: BTreeMap<PathBuf, Vec<(usize, usize, String)>> = BTreeMap::new();
    for diagnostic in diagnostics {
        for child in std::iter::once(diagnostic).chain(&diagnostic.children) {
            for span in &child.spans {
                let (Some(replacement), Some(Applicability::MachineApplicable)) =
                    (&span.suggested_replacement, &span.suggestion_applicability)
                else {
                    continue;
                };
                by_file
                    .entry(workspace.join(&span.file_name))
                    .or_default()
                    .push((
                        span.byte_start as usize,
                        span.byte_end as usize,
                        replacement.clone(),
                    ));
            }
        }
    }
    let mut fixed = Fixed::default();
    for (file, suggestions) in by_file {
        // Files outside the port (a dependency's source) are never edited.
        if !file.starts_with(workspace) {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|source| Error::Io {
            path: file.clone(),
            source,
        })?;
        // Spans from another version of the file (it changed since the build) are skipped.
        let changes: Vec<Change> = suggestions
            .into_iter()
            .filter(|(start, end, _)| {
                start <= end
                    && *end <= text.len()
                    && text.is_char_boundary(*start)
                    && text.is_char_boundary(*end)
            })
            .filter_map(|(start, end, replacement)| {
                let range = TextRange::new(
                    TextSize::try_from(start).ok()?,
                    TextSize::try_from(end).ok()?,
                );
                Some(Change::edit(
                    range,
                    replacement,
                    RUSTC_SUGGESTION,
                    "machine-applicable suggestion from rustc",
                ))
            })
            .collect();
        let edits = match edit::normalize(changes) {
            Ok(edits) => edits,
            Err(overlap) => {
                fixed.unchanged.push((file, overlap.to_string()));
                continue;
            }
        };
        if edits.is_empty() {
            continue;
        }
        fixed.applied += edits.len();
        std::fs::write(&file, edit::apply(&text, &edits))
            .map_err(|source| Error::Io { path: file, source })?;
    }
    Ok(fixed)
}

/// How compile errors map to rules, as the guide's troubleshooting page lists it.
#[derive(Debug, Clone)]
pub struct ErrorMapping {
    /// Each kind of error that maps to a rule whatever it names: (code, a sample message, the
    /// rule `rule_for` gives it).
    pub kinds: Vec<(&'static str, &'static str, RuleKey)>,
    /// Every name an error can quote, with the rule it points to.
    pub names: Vec<(String, RuleKey)>,
    /// Module paths whose whole content a rule covers, with that rule.
    pub prefixes: Vec<(String, RuleKey)>,
}

/// The mapping `errors` applies, read from the same `Names` it uses. The kinds of error are
/// found by asking `rule_for` about a sample message of each kind, so the list shows what
/// verify does, not what this function says it does.
pub fn error_mapping(rules: &RuleSet) -> ErrorMapping {
    const SAMPLES: [(&str, &str); 5] = [
        (
            "E0107",
            "struct takes 0 generic arguments but 1 generic argument was supplied",
        ),
        ("E0412", "cannot find type `B` in this scope"),
        ("E0405", "cannot find trait `Backend` in this scope"),
        ("E0220", "associated type `FloatElem` not found for `B`"),
        (
            "E0576",
            "cannot find associated type `Device` in trait `Backend`",
        ),
    ];
    let names = Names::new(rules);
    ErrorMapping {
        kinds: SAMPLES
            .iter()
            .filter_map(|(code, message)| {
                let rule = names.rule_for(Some(code), message)?;
                Some((*code, *message, rule))
            })
            .collect(),
        names: names.names.into_iter().collect(),
        prefixes: names.prefixes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_the_rule_that_covers_what_they_name() {
        let names = Names::new(&RuleSet::embedded().unwrap());
        let rule = |code, message| names.rule_for(Some(code), message);
        assert_eq!(
            rule(
                "E0412",
                "cannot find type `NdArray` in module `burn::backend`"
            )
            .and_then(RuleKey::builtin),
            Some(RuleId::DeviceNdarray)
        );
        assert_eq!(
            rule("E0432", "unresolved import `burn::record::CompactRecorder`")
                .and_then(RuleKey::builtin),
            Some(RuleId::RecorderTypes)
        );
        assert_eq!(
            rule("E0432", "unresolved import `burn::record`").and_then(RuleKey::builtin),
            Some(RuleId::RecorderTypes)
        );
        assert_eq!(
            rule("E0599", "no method named `with_file_checkpointer` found for struct `SupervisedTraining` in the current scope").and_then(RuleKey::builtin),
            Some(RuleId::FileCheckpointer)
        );
        assert_eq!(
            rule(
                "E0107",
                "struct takes 0 generic arguments but 1 generic argument was supplied"
            )
            .and_then(RuleKey::builtin),
            Some(RuleId::BackendGenericArg)
        );
        assert_eq!(rule("E0308", "mismatched types"), None);
    }

    #[test]
    fn the_listed_mapping_is_the_one_errors_use() {
        let rules = RuleSet::embedded().unwrap();
        let mapping = error_mapping(&rules);
        let names = Names::new(&rules);
        assert_eq!(mapping.kinds.len(), 5, "every sample error maps to a rule");
        for (code, message, rule) in &mapping.kinds {
            assert_eq!(names.rule_for(Some(code), message).as_ref(), Some(rule));
        }
        assert!(mapping.names.contains(&(
            "NdArray".to_string(),
            RuleKey::Builtin(crate::rules::RuleId::DeviceNdarray)
        )));
    }

    #[test]
    fn applies_machine_applicable_suggestions_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.rs"), "use a::b;\nfn f() {}\n").unwrap();
        let json = r#"{"reason":"compiler-message","package_id":"p 0.1.0 (path+file:///p)","manifest_path":"/p/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"p","src_path":"/p/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"message":{"rendered":"","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"help","message":"remove the unused import","rendered":null,"spans":[{"byte_end":10,"byte_start":0,"column_end":1,"column_start":1,"expansion":null,"file_name":"lib.rs","is_primary":true,"label":null,"line_end":2,"line_start":1,"suggested_replacement":"","suggestion_applicability":"MachineApplicable","text":[]}]}],"code":{"code":"unused_imports","explanation":null},"level":"warning","message":"unused import: `a::b`","spans":[{"byte_end":8,"byte_start":4,"column_end":9,"column_start":5,"expansion":null,"file_name":"lib.rs","is_primary":true,"label":null,"line_end":1,"line_start":1,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}"#;
        let found = diagnostics(json);
        assert_eq!(found.len(), 1);
        assert_eq!(apply_suggestions(&found, dir.path()).unwrap().applied, 1);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("lib.rs")).unwrap(),
            "fn f() {}\n"
        );
    }

    #[test]
    fn overlapping_suggestions_leave_the_file_unchanged_and_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let original = "use a::b;\nfn f() {}\n";
        std::fs::write(dir.path().join("lib.rs"), original).unwrap();
        let first = r#"{"reason":"compiler-message","package_id":"p 0.1.0 (path+file:///p)","manifest_path":"/p/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"p","src_path":"/p/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"message":{"rendered":"","$message_type":"diagnostic","children":[],"code":null,"level":"error","message":"m","spans":[{"byte_end":8,"byte_start":4,"column_end":9,"column_start":5,"expansion":null,"file_name":"lib.rs","is_primary":true,"label":null,"line_end":1,"line_start":1,"suggested_replacement":"c::d","suggestion_applicability":"MachineApplicable","text":[]}]}}"#;
        let second = first.replace(
            r#""byte_end":8,"byte_start":4"#,
            r#""byte_end":12,"byte_start":6"#,
        );
        let found = diagnostics(&format!("{first}\n{second}"));
        let fixed = apply_suggestions(&found, dir.path()).unwrap();
        assert_eq!(fixed.applied, 0);
        assert_eq!(fixed.unchanged.len(), 1);
        assert!(
            fixed.unchanged[0].1.contains(RUSTC_SUGGESTION.as_str()),
            "{fixed:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("lib.rs")).unwrap(),
            original
        );
    }
}
