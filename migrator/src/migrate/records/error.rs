//! What can go wrong converting a record file. Every error names the file, where in it the
//! problem is (byte offset, parameter path) and what to do; none leaves a file behind.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A position in the input: a byte offset, in the file itself or in its decompressed data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub offset: u64,
    /// The offset counts bytes of the gzip-decompressed stream, not of the file.
    pub decompressed: bool,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.decompressed {
            write!(f, "byte {} of the decompressed data", self.offset)
        } else {
            write!(f, "byte {}", self.offset)
        }
    }
}

const REDO: &str = "save the record again with Burn 0.21, or restore it from a backup";

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write {path}: {source}; check that the directory exists, is writable and has room (nothing was written)")]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{file} is truncated: {what}, at {at}{inside}\nthe file is incomplete (an interrupted save or copy?): {REDO}; nothing was written")]
    Truncated {
        file: PathBuf,
        what: String,
        at: Position,
        inside: Inside,
    },
    #[error("{file} is corrupt: {what}, at {at}{inside}\nthe file is damaged or was not written by a Burn 0.21 recorder: {REDO}; nothing was written")]
    Corrupt {
        file: PathBuf,
        what: String,
        at: Position,
        inside: Inside,
    },
    #[error("{file} is a bincode record ({recorder}, {precision}); bincode stores values without field names, so the file cannot be read without the model's code.\n{}", bincode_instructions(file, recorder, precision))]
    NotSelfDescribing {
        file: PathBuf,
        recorder: &'static str,
        precision: String,
    },
    #[error("{file} is already a {format} file, which Burn 0.22 loads as it is with `burn_store::{store}`; nothing to convert")]
    AlreadyLoadable {
        file: PathBuf,
        format: &'static str,
        store: &'static str,
    },
    #[error("{file} is not a record written by a Burn 0.21 file recorder (named MessagePack, JSON or bincode, optionally gzipped); its first bytes are {start:02x?}. Pass the file that `save_file`/`Recorder::record` wrote")]
    Unrecognized { file: PathBuf, start: Vec<u8> },
    #[error("{file}: tensor `{param}` {what}; {advice}; nothing was written")]
    Unsupported {
        file: PathBuf,
        param: String,
        what: String,
        advice: String,
    },
    #[error("{file}: {what}; convert with `--to safetensors`, which has no such limit")]
    OutputLimit { file: PathBuf, what: String },
    #[error("{path} already exists; pass --force to replace it, or name another output file")]
    OutputExists { path: PathBuf },
    #[error("{file} changed while it was being converted ({what}); convert it again once nothing writes to it; nothing was written")]
    Changed { file: PathBuf, what: String },
    #[error("{file} is {what}, not a module's weights: {why}. Training cannot resume from a Burn 0.21 checkpoint under 0.22. Convert the model's record (the checkpoint's `model-N` file) and start the optimizer and the learning-rate schedule over, or finish the run under Burn 0.21 first; nothing was written")]
    TrainingState {
        file: PathBuf,
        what: &'static str,
        why: &'static str,
    },
}

/// The parameter a problem was found in, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inside(pub Option<String>);

impl fmt::Display for Inside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(path) if path.is_empty() => write!(f, " (in the record's root)"),
            Some(path) => write!(f, " (in `{path}`)"),
            None => Ok(()),
        }
    }
}

fn bincode_instructions(file: &std::path::Path, recorder: &str, precision: &str) -> String {
    let stem = file
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.split('.').next().unwrap_or(n).to_string())
        .unwrap_or_else(|| "model".to_string());
    format!(
        "Convert it once under Burn 0.21, before porting the project:
  1. add to the 0.21 project's Cargo.toml: burn-store = {{ version = \"0.21\", features = [\"burnpack\"] }}
  2. load the record with the recorder that wrote it and save the module as burnpack:
       use burn::record::{{{recorder}, {precision}}};
       use burn_store::{{BurnpackStore, ModuleSnapshot}};
       let model = Model::<B>::new(&device) // however the program builds the module
           .load_file(\"{stem}\", &{recorder}::<{precision}>::new(), &device)?;
       model.save_into(&mut BurnpackStore::from_file(\"{stem}.bpk\"))?;
  3. run it once; Burn 0.22 loads {stem}.bpk unchanged (`model.load_file(\"{stem}.bpk\")`)."
    )
}

/// A problem met while reading the input, before the file name is known to the message.
#[derive(Debug)]
pub(super) enum Fault {
    Truncated(String, u64),
    Corrupt(String, u64),
    Read(io::Error),
    Write(io::Error),
    /// A tensor the output format cannot hold.
    Unsupported {
        param: String,
        what: String,
        advice: String,
    },
}

impl Fault {
    pub(super) fn corrupt(what: impl Into<String>, offset: u64) -> Self {
        Fault::Corrupt(what.into(), offset)
    }

    pub(super) fn truncated(what: impl Into<String>, offset: u64) -> Self {
        Fault::Truncated(what.into(), offset)
    }

    /// Reading `what` at `offset` failed: the end of the data is truncation, a gzip checksum
    /// or stream error is corruption, anything else is the system's.
    pub(super) fn from_read(error: io::Error, what: &str, offset: u64) -> Self {
        match error.kind() {
            io::ErrorKind::UnexpectedEof => {
                Fault::truncated(format!("the data ends inside {what}"), offset)
            }
            io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
                Fault::corrupt(format!("the compressed data is invalid ({error})"), offset)
            }
            _ => Fault::Read(error),
        }
    }

    /// The error for `file`, with the parameter the fault was found in.
    pub(super) fn into_error(
        self,
        file: PathBuf,
        decompressed: bool,
        inside: Inside,
        output: PathBuf,
    ) -> RecordError {
        let at = |offset| Position {
            offset,
            decompressed,
        };
        match self {
            Fault::Truncated(what, offset) => RecordError::Truncated {
                file,
                what,
                at: at(offset),
                inside,
            },
            Fault::Corrupt(what, offset) => RecordError::Corrupt {
                file,
                what,
                at: at(offset),
                inside,
            },
            Fault::Read(source) => RecordError::Read { path: file, source },
            Fault::Write(source) => RecordError::Write {
                path: output,
                source,
            },
            Fault::Unsupported {
                param,
                what,
                advice,
            } => RecordError::Unsupported {
                file,
                param,
                what,
                advice,
            },
        }
    }
}
