//! Where a project's code names the record files it loads or saves, so that `--apply` can
//! say which files to convert, and how. Found: a literal path passed to a module's
//! `save_file`/`load_file` or to a recorder's `record`/`load` (`"model.mpk".into()`,
//! `PathBuf::from("model")`). A 0.21 recorder sets the file's extension itself, so the
//! file on disk is the literal with the recorder's extension when the recorder is named.

use ra_ap_syntax::ast::HasArgList;
use ra_ap_syntax::{ast, AstNode, AstToken, SyntaxNode, TextRange};

/// One record file the code names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFileUse {
    /// The string literal.
    pub range: TextRange,
    /// The path as written.
    pub literal: String,
    /// The 0.21 recorder type, when the call names it.
    pub recorder: Option<&'static str>,
    /// The file the recorder reads or writes: the literal with the recorder's extension.
    pub file: String,
}

/// 0.21 recorders and their aliases, with the extension each gives its files.
const RECORDERS: &[(&str, &str)] = &[
    ("NamedMpkGzFileRecorder", "mpk.gz"),
    ("NamedMpkFileRecorder", "mpk"),
    ("DefaultFileRecorder", "mpk"),
    ("DefaultRecorder", "mpk"),
    ("CompactRecorder", "mpk"),
    ("PrettyJsonFileRecorder", "json"),
    ("DebugRecordSettings", "json"),
    ("JsonGzFileRecorder", "json.gz"),
    ("BinGzFileRecorder", "bin.gz"),
    ("SensitiveCompactRecorder", "bin.gz"),
    ("BinFileRecorder", "bin"),
    ("NoStdTrainingRecorder", "bin"),
];

impl RecordFileUse {
    /// The finding's text: the file and the command that converts it.
    pub fn message(&self) -> String {
        let bincode = self.file.ends_with(".bin") || self.file.ends_with(".bin.gz");
        if bincode {
            return format!(
                "Burn 0.22 cannot read `{}` (bincode): `burn-migrate records convert {}` prints the code that converts it under Burn 0.21",
                self.file, self.file
            );
        }
        if self.recorder.is_none() && !has_record_extension(&self.file) {
            return format!(
                "Burn 0.22 cannot read the 0.21 record `{}` (the recorder adds its extension: `.mpk` for the default one); convert it with `burn-migrate records convert {}.mpk`, then load the `.bpk`",
                self.file, self.file
            );
        }
        format!(
            "Burn 0.22 cannot read the 0.21 record `{}`; convert it with `burn-migrate records convert {}`, then load the `.bpk` it writes",
            self.file, self.file
        )
    }
}

fn has_record_extension(file: &str) -> bool {
    RECORDERS
        .iter()
        .any(|(_, ext)| file.ends_with(&format!(".{ext}")))
}

/// Every record file `root` names.
pub fn uses(calls: impl Iterator<Item = ast::MethodCallExpr>) -> Vec<RecordFileUse> {
    let mut found = Vec::new();
    for call in calls {
        let Some(name) = call.name_ref().map(|n| n.text().to_string()) else {
            continue;
        };
        if !matches!(name.as_str(), "save_file" | "load_file" | "load" | "record") {
            continue;
        }
        let args: Vec<ast::Expr> = call
            .arg_list()
            .map(|a| a.args().collect())
            .unwrap_or_default();
        let receiver = call
            .receiver()
            .map(|r| r.syntax().text().to_string())
            .unwrap_or_default();
        // module.save_file(path, &recorder) / module.load_file(path, &recorder, &device)
        // recorder.record(record, path) / recorder.load(path, &device)
        let (path, recorder_text) = match name.as_str() {
            "save_file" | "load_file" if args.len() >= 2 => {
                (&args[0], args[1].syntax().text().to_string())
            }
            "load" if receiver.to_lowercase().contains("recorder") && !args.is_empty() => {
                (&args[0], receiver.clone())
            }
            "record" if receiver.to_lowercase().contains("recorder") && args.len() == 2 => {
                (&args[1], receiver.clone())
            }
            _ => continue,
        };
        let Some(literal) = literal_path(path) else {
            continue;
        };
        let Ok(value) = literal.value() else { continue };
        let recorder_text = binding_of(call.syntax(), &recorder_text).unwrap_or(recorder_text);
        let recorder = RECORDERS
            .iter()
            .find(|(name, _)| recorder_text.contains(name))
            .map(|(name, _)| *name);
        let file = match recorder {
            Some(name) => with_extension(&value, extension_of(name)),
            None => value.to_string(),
        };
        found.push(RecordFileUse {
            range: literal.syntax().text_range(),
            literal: value.to_string(),
            recorder,
            file,
        });
    }
    found
}

/// The text of the `let` that binds `expr` (`recorder`, `&recorder`) in the enclosing
/// function, when it is a plain name bound there: `let recorder = CompactRecorder::new();`.
fn binding_of(call: &SyntaxNode, expr: &str) -> Option<String> {
    let name = expr.trim_start_matches('&').trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let function = call.ancestors().find_map(ast::Fn::cast)?;
    function
        .syntax()
        .descendants()
        .filter_map(ast::LetStmt::cast)
        .filter(|binding| binding.syntax().text_range().end() <= call.text_range().start())
        .filter(|binding| binding.pat().is_some_and(|p| p.syntax().text() == name))
        .last()
        .map(|binding| binding.syntax().text().to_string())
}

fn extension_of(recorder: &str) -> &'static str {
    RECORDERS
        .iter()
        .find(|(name, _)| *name == recorder)
        .map_or("mpk", |(_, ext)| ext)
}

/// What `PathBuf::set_extension` does, as the 0.21 recorders call it.
fn with_extension(path: &str, extension: &str) -> String {
    let std_path = std::path::Path::new(path);
    std_path
        .with_extension(extension)
        .to_string_lossy()
        .into_owned()
}

/// The string literal of `"p"`, `"p".into()`, `"p".to_string()`, `PathBuf::from("p")`,
/// `Path::new("p")`, or a reference to one of them.
fn literal_path(expr: &ast::Expr) -> Option<ast::String> {
    match expr {
        ast::Expr::Literal(literal) => match literal.kind() {
            ast::LiteralKind::String(string) => Some(string),
            _ => None,
        },
        ast::Expr::RefExpr(reference) => literal_path(&reference.expr()?),
        ast::Expr::ParenExpr(paren) => literal_path(&paren.expr()?),
        ast::Expr::MethodCallExpr(call) => {
            let name = call.name_ref()?.text().to_string();
            let conversion = matches!(name.as_str(), "into" | "to_string" | "to_owned");
            if conversion && call.arg_list()?.args().next().is_none() {
                literal_path(&call.receiver()?)
            } else {
                None
            }
        }
        ast::Expr::CallExpr(call) => {
            let callee = call.expr()?.syntax().text().to_string();
            let constructor = ["PathBuf::from", "Path::new", "String::from"]
                .iter()
                .any(|c| callee.ends_with(c));
            let mut args = call.arg_list()?.args();
            match (constructor, args.next(), args.next()) {
                (true, Some(arg), None) => literal_path(&arg),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str) -> Vec<(String, Option<&'static str>, String)> {
        let parse = ra_ap_syntax::SourceFile::parse(code, ra_ap_syntax::Edition::Edition2021);
        uses(
            parse
                .tree()
                .syntax()
                .descendants()
                .filter_map(ast::MethodCallExpr::cast),
        )
        .into_iter()
        .map(|u| (u.literal, u.recorder, u.file))
        .collect()
    }

    #[test]
    fn module_save_and_load_with_a_named_recorder_get_its_extension() {
        let code = r#"fn f() {
            model.clone().save_file("artifacts/model", &CompactRecorder::new()).unwrap();
            let m = model.load_file("artifacts/json", &PrettyJsonFileRecorder::<FullPrecisionSettings>::new(), &device);
        }"#;
        assert_eq!(
            found(code),
            vec![
                (
                    "artifacts/model".into(),
                    Some("CompactRecorder"),
                    "artifacts/model.mpk".into()
                ),
                (
                    "artifacts/json".into(),
                    Some("PrettyJsonFileRecorder"),
                    "artifacts/json.json".into()
                ),
            ]
        );
    }

    #[test]
    fn recorder_calls_with_converted_literals_are_found() {
        let code = r#"fn f() {
            let record = recorder.load("model.mpk".into(), &device).unwrap();
            NamedMpkGzFileRecorder::<FullPrecisionSettings>::new().record(record, PathBuf::from("out/m")).unwrap();
        }"#;
        assert_eq!(
            found(code),
            vec![
                ("model.mpk".into(), None, "model.mpk".into()),
                (
                    "out/m".into(),
                    Some("NamedMpkGzFileRecorder"),
                    "out/m.mpk.gz".into()
                ),
            ]
        );
    }

    #[test]
    fn a_recorder_bound_by_let_is_followed_to_its_type() {
        let code = r#"fn f() {
            let recorder = NamedMpkGzFileRecorder::<HalfPrecisionSettings>::new();
            model.save_file("model", &recorder).unwrap();
        }"#;
        assert_eq!(
            found(code),
            vec![(
                "model".into(),
                Some("NamedMpkGzFileRecorder"),
                "model.mpk.gz".into()
            )]
        );
    }

    #[test]
    fn computed_paths_and_other_loads_are_not_record_files() {
        let code = r#"fn f() {
            model.save_file(format!("{dir}/model"), &recorder).unwrap();
            let config = config.load("config.json");
            let text = std::fs::read_to_string("model.mpk");
        }"#;
        assert!(found(code).is_empty());
    }

    #[test]
    fn messages_name_the_file_and_the_command() {
        let use_ = |file: &str, recorder| RecordFileUse {
            range: TextRange::default(),
            literal: file.into(),
            recorder,
            file: file.into(),
        };
        let mpk = use_("a/model.mpk", Some("NamedMpkFileRecorder")).message();
        assert!(
            mpk.contains("burn-migrate records convert a/model.mpk"),
            "{mpk}"
        );
        let bin = use_("m.bin", Some("BinFileRecorder")).message();
        assert!(bin.contains("prints the code"), "{bin}");
        let bare = use_("model", None).message();
        assert!(bare.contains("records convert model.mpk"), "{bare}");
    }
}
