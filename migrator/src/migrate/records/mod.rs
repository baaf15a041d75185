//! `burn-migrate records convert`: Burn 0.21 record files to files Burn 0.22 loads.
//!
//! Burn 0.22 dropped the 0.21 recorders; burn-store 0.22 loads burnpack (`.bpk`) and
//! SafeTensors. The self-describing 0.21 formats (named MessagePack, JSON, either gzipped)
//! name every field, so they convert without the model's code: [`msgpack`] and [`json`]
//! read them into the shared [`tree`], [`record`] finds the parameters and their paths, and
//! [`burnpack`] or [`safetensors`] lays out the output. Bincode names nothing; for it the
//! error says how to convert under Burn 0.21 (see [`RecordError::NotSelfDescribing`]).
//!
//! Memory stays flat whatever the file's size: tensor bytes are never held. The first pass
//! reads names, shapes and dtypes (burnpack puts them before the data); the second streams
//! each tensor's bytes from the input to its place in the output. The output is written to
//! a temporary file beside it and renamed at the end, so a failure leaves nothing behind.

mod burnpack;
mod dtype;
mod error;
mod input;
mod json;
mod msgpack;
mod record;
mod safetensors;
mod tree;
pub mod usage;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub use dtype::{BoolStore, DType};
pub use error::{Position, RecordError};
pub use record::{Contents, TensorEntry};
use record::{Layout, LimitExceeded};

use error::{Fault, Inside};
use input::Input;
use tree::{Builder, ByteSink, Decoder};

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Target {
    /// Burnpack (`.bpk`): `model.load_file(path)` / `BurnpackStore` in Burn 0.22.
    #[default]
    Burnpack,
    /// SafeTensors (`.safetensors`): `SafetensorsStore` in Burn 0.22.
    Safetensors,
}

impl Target {
    fn extension(self) -> &'static str {
        match self {
            Target::Burnpack => "bpk",
            Target::Safetensors => "safetensors",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    pub target: Target,
    /// Replace an existing output file.
    pub force: bool,
}

/// The 0.21 formats the converter reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// `NamedMpkFileRecorder` (`.mpk`), or `NamedMpkGzFileRecorder` (`.mpk.gz`) when gzipped.
    NamedMpk { gzip: bool },
    /// `PrettyJsonFileRecorder` (`.json`), or `JsonGzFileRecorder` (`.json.gz`) when gzipped.
    Json { gzip: bool },
}

impl SourceFormat {
    fn gzip(self) -> bool {
        match self {
            SourceFormat::NamedMpk { gzip } | SourceFormat::Json { gzip } => gzip,
        }
    }

    pub fn recorder(self) -> &'static str {
        match self {
            SourceFormat::NamedMpk { gzip: false } => "NamedMpkFileRecorder",
            SourceFormat::NamedMpk { gzip: true } => "NamedMpkGzFileRecorder",
            SourceFormat::Json { gzip: false } => "PrettyJsonFileRecorder",
            SourceFormat::Json { gzip: true } => "JsonGzFileRecorder",
        }
    }
}

/// What a conversion did.
#[derive(Debug)]
pub struct Converted {
    pub output: PathBuf,
    pub source: SourceFormat,
    pub contents: Contents,
}

impl Converted {
    /// Tensor bytes carried.
    pub fn data_bytes(&self) -> u64 {
        self.contents.tensors.iter().map(|t| t.byte_len).sum()
    }

    /// One paragraph for people: what was written, from what, and what was left out.
    pub fn summary(&self) -> String {
        let mut dtypes = BTreeMap::<String, usize>::new();
        for tensor in &self.contents.tensors {
            *dtypes.entry(tensor.dtype.to_string()).or_default() += 1;
        }
        let dtypes: Vec<String> = dtypes.iter().map(|(d, n)| format!("{n} {d}")).collect();
        let settings = self
            .contents
            .metadata
            .get("settings")
            .map(|s| format!(", {s}"))
            .unwrap_or_default();
        let mut text = format!(
            "wrote {}: {} tensor(s) ({}), {} bytes of data, from a {} record{settings}",
            self.output.display(),
            self.contents.tensors.len(),
            dtypes.join(", "),
            self.data_bytes(),
            self.source.recorder(),
        );
        if !self.contents.left_out.is_empty() {
            text.push_str(&format!(
                "\nnot carried (the output holds tensors only): {}",
                self.contents.left_out.join(", ")
            ));
        }
        text
    }
}

/// Where the output goes by default: beside the input, `model.mpk.gz` -> `model.bpk`.
pub fn default_output(input: &Path, target: Target) -> PathBuf {
    let name = input
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("model");
    let stem = [
        ".mpk.gz", ".json.gz", ".bin.gz", ".mpk", ".json", ".bin", ".gz",
    ]
    .iter()
    .find_map(|ext| name.strip_suffix(ext))
    .filter(|stem| !stem.is_empty())
    .unwrap_or(name);
    input.with_file_name(format!("{stem}.{}", target.extension()))
}

/// Converts the 0.21 record at `input` to `output` (by default [`default_output`]).
pub fn convert(
    input: &Path,
    output: Option<&Path>,
    options: &ConvertOptions,
) -> Result<Converted, RecordError> {
    let source = detect(input)?;
    let output = output.map_or_else(|| default_output(input, options.target), Path::to_path_buf);
    if output.exists() && !options.force {
        return Err(RecordError::OutputExists { path: output });
    }

    let contents = read(input, source, &mut Discard, &output)?;
    if let Some((what, why)) = record::training_state(&contents) {
        return Err(RecordError::TrainingState {
            file: input.to_path_buf(),
            what,
            why,
        });
    }
    let metadata = output_metadata(input, source, &contents, options.target);
    let layout = match options.target {
        Target::Burnpack => burnpack::layout(&contents.tensors, &metadata),
        Target::Safetensors => safetensors::layout(&contents.tensors, &metadata),
    }
    .map_err(|LimitExceeded(what)| RecordError::OutputLimit {
        file: input.to_path_buf(),
        what,
    })?;

    let temporary = temporary_path(&output);
    let written = write(input, source, &contents, &layout, &temporary, &output);
    match written {
        Ok(()) => std::fs::rename(&temporary, &output).map_err(|source| {
            let _ = std::fs::remove_file(&temporary);
            RecordError::Write {
                path: output.clone(),
                source,
            }
        })?,
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
    }
    Ok(Converted {
        output,
        source,
        contents,
    })
}

fn temporary_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.burn-migrate-{}.tmp", std::process::id()))
}

fn output_metadata(
    input: &Path,
    source: SourceFormat,
    contents: &Contents,
    target: Target,
) -> BTreeMap<String, String> {
    let mut metadata = BTreeMap::new();
    let format = match target {
        Target::Burnpack => "burnpack",
        Target::Safetensors => "safetensors",
    };
    metadata.insert("format".into(), format.into());
    metadata.insert(
        "producer".into(),
        format!("burn-migrate {}", env!("CARGO_PKG_VERSION")),
    );
    metadata.insert(
        "converted_from".into(),
        format!(
            "{} ({})",
            input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source.recorder()
        ),
    );
    for (key, value) in &contents.metadata {
        metadata.insert(format!("burn_0_21_{key}"), value.clone());
    }
    metadata
}

/// Reads the whole record once, giving tensor bytes to `sink`.
fn read(
    path: &Path,
    source: SourceFormat,
    sink: &mut dyn ByteSink,
    output: &Path,
) -> Result<Contents, RecordError> {
    let input = Input::open(path, source.gzip()).map_err(|source| RecordError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut decoder: Box<dyn Decoder> = match source {
        SourceFormat::NamedMpk { .. } => Box::new(msgpack::MsgPack { input }),
        SourceFormat::Json { .. } => Box::new(json::Json::new(input)),
    };
    let failed = |fault: Fault, inside: Inside| {
        fault.into_error(
            path.to_path_buf(),
            source.gzip(),
            inside,
            output.to_path_buf(),
        )
    };
    let mut builder = Builder::new(&mut *decoder, sink);
    let root = match builder.record() {
        Ok(root) => root,
        Err(fault) => {
            let inside = parameter_path(&builder.path);
            return Err(failed(fault, inside));
        }
    };
    record::contents(root).map_err(|fault| failed(fault, Inside(None)))
}

/// The fault's place as a parameter path: the keys under `item`.
fn parameter_path(path: &[String]) -> Inside {
    match path.split_first() {
        Some((first, rest)) if first == "item" => Inside(Some(rest.join("."))),
        Some(_) => Inside(Some(path.join("."))),
        None => Inside(None),
    }
}

/// The second pass: the head, then each tensor's bytes at its offset, into `temporary`.
fn write(
    input: &Path,
    source: SourceFormat,
    contents: &Contents,
    layout: &Layout,
    temporary: &Path,
    output: &Path,
) -> Result<(), RecordError> {
    let write_error = |source| RecordError::Write {
        path: output.to_path_buf(),
        source,
    };
    let file = File::create(temporary).map_err(write_error)?;
    let mut sink = DataWriter {
        out: BufWriter::with_capacity(1 << 20, file),
        position: 0,
        ranges: BTreeMap::new(),
        current: None,
    };
    for (tensor, range) in contents.tensors.iter().zip(&layout.ranges) {
        if let Some(field) = tensor.field {
            sink.ranges.insert(field, *range);
        }
    }
    sink.out.write_all(&layout.head).map_err(write_error)?;
    let again = read(input, source, &mut sink, output)?;
    if again.tensors != contents.tensors {
        return Err(RecordError::Changed {
            file: input.to_path_buf(),
            what: "its tensors differ between two reads".into(),
        });
    }
    let end = layout.ranges.iter().map(|r| r.1).max().unwrap_or(0);
    sink.pad_to(end).map_err(write_error)?;
    let file = sink
        .out
        .into_inner()
        .map_err(|e| write_error(e.into_error()))?;
    file.sync_all().map_err(write_error)
}

/// The first pass's sink: bytes are only counted (by the tree).
struct Discard;

impl ByteSink for Discard {
    fn start(&mut self, _field: usize) -> io::Result<()> {
        Ok(())
    }

    fn write(&mut self, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// The second pass's sink: each tensor's bytes at its range of the data section, zeros
/// between them (alignment), and nothing of `bytes` fields that are not tensors.
struct DataWriter {
    out: BufWriter<File>,
    /// Bytes of the data section written so far.
    position: u64,
    ranges: BTreeMap<usize, (u64, u64)>,
    /// The end of the tensor being written.
    current: Option<u64>,
}

impl DataWriter {
    fn pad_to(&mut self, offset: u64) -> io::Result<()> {
        const ZEROS: [u8; 256] = [0; 256];
        while self.position < offset {
            let n = (offset - self.position).min(ZEROS.len() as u64) as usize;
            self.out.write_all(&ZEROS[..n])?;
            self.position += n as u64;
        }
        Ok(())
    }
}

impl ByteSink for DataWriter {
    fn start(&mut self, field: usize) -> io::Result<()> {
        self.current = None;
        if let Some(&(start, end)) = self.ranges.get(&field) {
            self.pad_to(start)?;
            self.current = Some(end);
        }
        Ok(())
    }

    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        // A file that grew since the first pass is caught by comparing the passes' tensors;
        // here it must only not spill into the next tensor.
        if let Some(end) = self.current {
            let room = end.saturating_sub(self.position).min(data.len() as u64) as usize;
            self.out.write_all(&data[..room])?;
            self.position += room as u64;
        }
        Ok(())
    }
}

/// Which 0.21 format `path` holds, from its first bytes (never its name).
fn detect(path: &Path) -> Result<SourceFormat, RecordError> {
    let read_error = |source| RecordError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut start = Vec::new();
    File::open(path)
        .and_then(|f| f.take(32).read_to_end(&mut start))
        .map_err(read_error)?;
    let gzip = start.starts_with(&[0x1f, 0x8b]);
    if gzip {
        start.clear();
        let file = File::open(path).map_err(read_error)?;
        let decoded = flate2::read::GzDecoder::new(file)
            .take(32)
            .read_to_end(&mut start);
        if let (Err(error), true) = (decoded, start.is_empty()) {
            let fault = Fault::from_read(error, "the gzip header", 0);
            return Err(fault.into_error(path.to_path_buf(), false, Inside(None), PathBuf::new()));
        }
    }
    let file = path.to_path_buf();
    let first = start.iter().copied().find(|b| !b" \t\r\n".contains(b));
    match (start.first(), first) {
        (Some(0x80..=0x8f | 0xde | 0xdf), _) => Ok(SourceFormat::NamedMpk { gzip }),
        (_, Some(b'{')) => Ok(SourceFormat::Json { gzip }),
        _ if !gzip && start.starts_with(b"NRUB") => Err(RecordError::AlreadyLoadable {
            file,
            format: "burnpack",
            store: "BurnpackStore",
        }),
        _ if !gzip && start.len() > 8 && start[8] == b'{' => Err(RecordError::AlreadyLoadable {
            file,
            format: "SafeTensors",
            store: "SafetensorsStore",
        }),
        _ => match bincode_float_type(&start) {
            Some(float) => Err(RecordError::NotSelfDescribing {
                file,
                recorder: if gzip {
                    "BinGzFileRecorder"
                } else {
                    "BinFileRecorder"
                },
                precision: precision_settings(&float),
            }),
            None => Err(RecordError::Unrecognized { file, start }),
        },
    }
}

/// Bincode records start with `BurnRecord::metadata.float`, the float type's name, as a
/// varint length and its bytes.
fn bincode_float_type(start: &[u8]) -> Option<String> {
    let (&len, rest) = start.split_first()?;
    let name = rest.get(..usize::from(len))?;
    let name = std::str::from_utf8(name).ok()?;
    let plausible = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '_');
    plausible.then(|| name.to_string())
}

fn precision_settings(float: &str) -> String {
    match float.rsplit("::").next() {
        Some("f16") => "HalfPrecisionSettings".into(),
        Some("f64") => "DoublePrecisionSettings".into(),
        Some("f32") => "FullPrecisionSettings".into(),
        _ => format!("the PrecisionSettings whose float is {float}"),
    }
}

#[cfg(test)]
mod tests;
