//! Records written the way Burn 0.21's recorders write them (a small encoder below follows
//! `rmp_serde::encode::write_named` and `serde_json`), converted, and read back with
//! independent readers: `ciborium` into burn-pack 0.22.1's metadata types, and the
//! `safetensors` crate.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::*;

/// A serde value as Burn's records produce them.
#[derive(Clone)]
enum V {
    Nil,
    Int(i64),
    Str(String),
    Bin(Vec<u8>),
    Arr(Vec<V>),
    Map(Vec<(String, V)>),
}

fn s(text: &str) -> V {
    V::Str(text.into())
}

fn map(entries: Vec<(&str, V)>) -> V {
    V::Map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// `rmp_serde::encode::write_named`: big-endian lengths, shortest markers.
fn mpk(value: &V, out: &mut Vec<u8>) {
    fn len(out: &mut Vec<u8>, n: usize, fix: Option<(u8, usize)>, markers: [u8; 3]) {
        match fix {
            Some((base, max)) if n <= max => out.push(base | n as u8),
            _ if n <= 0xff && markers[0] != 0 => out.extend_from_slice(&[markers[0], n as u8]),
            _ if n <= 0xffff => {
                out.push(markers[1]);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(markers[2]);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
    }
    match value {
        V::Nil => out.push(0xc0),
        V::Int(i) if (0..128).contains(i) => out.push(*i as u8),
        V::Int(i) if *i >= 0 => {
            out.push(0xcf);
            out.extend_from_slice(&(*i as u64).to_be_bytes());
        }
        V::Int(i) => {
            out.push(0xd3);
            out.extend_from_slice(&i.to_be_bytes());
        }
        V::Str(text) => {
            len(out, text.len(), Some((0xa0, 31)), [0xd9, 0xda, 0xdb]);
            out.extend_from_slice(text.as_bytes());
        }
        V::Bin(bytes) => {
            len(out, bytes.len(), None, [0xc4, 0xc5, 0xc6]);
            out.extend_from_slice(bytes);
        }
        V::Arr(items) => {
            len(out, items.len(), Some((0x90, 15)), [0, 0xdc, 0xdd]);
            items.iter().for_each(|item| mpk(item, out));
        }
        V::Map(entries) => {
            len(out, entries.len(), Some((0x80, 15)), [0, 0xde, 0xdf]);
            for (key, value) in entries {
                mpk(&s(key), out);
                mpk(value, out);
            }
        }
    }
}

/// `serde_json::to_writer_pretty`: bytes as arrays of numbers.
fn json(value: &V) -> serde_json::Value {
    match value {
        V::Nil => serde_json::Value::Null,
        V::Int(i) => serde_json::json!(i),
        V::Str(text) => serde_json::json!(text),
        V::Bin(bytes) => serde_json::json!(bytes),
        V::Arr(items) => serde_json::Value::Array(items.iter().map(json).collect()),
        V::Map(entries) => {
            // serde_json keeps insertion order only with `preserve_order`; build the text.
            let fields: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", serde_json::json!(k), json(v)))
                .collect();
            serde_json::from_str(&format!("{{{}}}", fields.join(", "))).unwrap()
        }
    }
}

/// Field order matters to the converter's streaming; write JSON maps in the record's order.
fn json_text(value: &V) -> String {
    match value {
        V::Map(entries) => {
            let fields: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("\n  {}: {}", serde_json::json!(k), json_text(v)))
                .collect();
            format!("{{{}\n}}", fields.join(","))
        }
        V::Arr(items) => {
            let items: Vec<String> = items.iter().map(json_text).collect();
            format!("[\n  {}\n]", items.join(",\n  "))
        }
        V::Bin(bytes) => {
            let items: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
            format!("[\n    {}\n  ]", items.join(",\n    "))
        }
        other => json(other).to_string(),
    }
}

/// `ParamId::serialize` of Burn 0.21: base32 (DNSSEC alphabet) of the little-endian bytes.
fn param_id(id: u64) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuv";
    let n = u128::from(u64::from_be_bytes(id.to_le_bytes())) << 1;
    (0..13)
        .map(|i| ALPHABET[((n >> (5 * (12 - i))) & 31) as usize] as char)
        .collect()
}

fn dtype_value(dtype: DType) -> V {
    match dtype.variant() {
        (name, None) => s(name),
        (name, Some(store)) => map(vec![(name, s(store))]),
    }
}

/// `ParamSerde { id, param: TensorData { bytes, shape, dtype } }`.
fn param(id: u64, dtype: DType, shape: &[u64], bytes: Vec<u8>) -> V {
    map(vec![
        ("id", V::Str(param_id(id))),
        (
            "param",
            map(vec![
                ("bytes", V::Bin(bytes)),
                (
                    "shape",
                    V::Arr(shape.iter().map(|&d| V::Int(d as i64)).collect()),
                ),
                ("dtype", dtype_value(dtype)),
            ]),
        ),
    ])
}

/// `BurnRecord { metadata, item, _b }` as `Recorder::record` saves it.
fn burn_record(item: V, settings: &str) -> V {
    map(vec![
        (
            "metadata",
            map(vec![
                ("float", s("f32")),
                ("int", s("i32")),
                (
                    "format",
                    s("burn_core::record::file::NamedMpkFileRecorder<FullPrecisionSettings>"),
                ),
                ("version", s("0.21.0")),
                ("settings", s(settings)),
            ]),
        ),
        ("item", item),
        ("_b", V::Arr(vec![])),
    ])
}

/// Deterministic bytes for a tensor of `len` bytes.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

const EVERY_DTYPE: &[DType] = &[
    DType::F64,
    DType::F32,
    DType::Flex32,
    DType::F16,
    DType::BF16,
    DType::I64,
    DType::I32,
    DType::I16,
    DType::I8,
    DType::U64,
    DType::U32,
    DType::U16,
    DType::U8,
    DType::Bool(BoolStore::Native),
    DType::Bool(BoolStore::U8),
    DType::Bool(BoolStore::U32),
];

/// What the test model expects back: path, dtype, shape, bytes, id.
type Expected = Vec<(String, DType, Vec<u64>, Vec<u8>, u64)>;

/// A module with nested structs, a `Vec`, an enum, `None`, a constant and one parameter of
/// every dtype.
/// `big` is the byte size of one tensor, to stream across the reader's buffers.
fn model(big: usize) -> (V, Expected) {
    let mut expected = Vec::new();
    let mut add = |path: &str, dtype: DType, shape: &[u64], id: u64| {
        let len = shape.iter().product::<u64>() * dtype.size();
        let bytes = pattern(len as usize, id as u8);
        expected.push((path.to_string(), dtype, shape.to_vec(), bytes.clone(), id));
        param(id, dtype, shape, bytes)
    };
    let linear = map(vec![
        ("weight", add("linear.weight", DType::F32, &[2, 3], 11)),
        ("bias", add("linear.bias", DType::F32, &[3], 12)),
    ]);
    let layers = V::Arr(vec![
        map(vec![
            ("weight", add("layers.0.weight", DType::F16, &[4, 4], 21)),
            ("bias", V::Nil),
        ]),
        map(vec![
            ("weight", add("layers.1.weight", DType::BF16, &[1, 5], 22)),
            ("bias", V::Nil),
        ]),
    ]);
    let block = map(vec![(
        "Conv",
        map(vec![(
            "kernel",
            add("block.Conv.kernel", DType::F64, &[2, 2, 1], 31),
        )]),
    )]);
    let every: Vec<(String, V)> = EVERY_DTYPE
        .iter()
        .enumerate()
        .map(|(i, &dtype)| {
            let name = format!("t{i}");
            (
                name.clone(),
                add(&format!("every.{name}"), dtype, &[3, 2], 40 + i as u64),
            )
        })
        .collect();
    let big = add("big", DType::F32, &[big as u64 / 4], 99);
    let empty = add("empty", DType::F32, &[0, 4], 98);
    let item = map(vec![
        ("linear", linear),
        ("layers", layers),
        ("block", block),
        ("norm", V::Nil),
        ("dropout", V::Nil),
        ("every", V::Map(every)),
        ("big", big),
        ("empty", empty),
    ]);
    (burn_record(item, "FullPrecisionSettings"), expected)
}

#[derive(Clone, Copy, Debug)]
enum Written {
    Mpk,
    MpkGz,
    Json,
    JsonGz,
}

fn encode(record: &V, how: Written) -> Vec<u8> {
    let plain = match how {
        Written::Mpk | Written::MpkGz => {
            let mut out = Vec::new();
            mpk(record, &mut out);
            out
        }
        Written::Json | Written::JsonGz => json_text(record).into_bytes(),
    };
    match how {
        Written::MpkGz | Written::JsonGz => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(&plain).unwrap();
            gz.finish().unwrap()
        }
        _ => plain,
    }
}

fn write_input(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

const ALL: [Written; 4] = [Written::Mpk, Written::MpkGz, Written::Json, Written::JsonGz];

// burn-pack 0.22.1's metadata, read the way its reader reads it (serde over ciborium).
#[derive(Deserialize, Debug, PartialEq)]
enum PackDType {
    F64,
    F32,
    Flex32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Bool(PackBoolStore),
    QFloat(serde_json::Value),
}

#[derive(Deserialize, Debug, PartialEq)]
enum PackBoolStore {
    Native,
    U8,
    U32,
}

#[derive(Deserialize)]
struct PackMetadata {
    tensors: BTreeMap<String, PackDescriptor>,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct PackDescriptor {
    dtype: PackDType,
    shape: Vec<u64>,
    data_offsets: (u64, u64),
    #[serde(default)]
    param_id: Option<u64>,
}

fn pack_dtype_name(dtype: &PackDType) -> String {
    match dtype {
        PackDType::Bool(store) => format!("Bool({store:?})"),
        other => format!("{other:?}"),
    }
}

/// Reads a burnpack file as burn-pack 0.22.1 does and checks it holds `expected`.
fn check_burnpack(bytes: &[u8], expected: &Expected) -> PackMetadata {
    assert_eq!(&bytes[..4], &0x4255_524Eu32.to_le_bytes(), "magic");
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1, "version");
    let size = u32::from_le_bytes(bytes[6..10].try_into().unwrap()) as usize;
    let metadata: PackMetadata = ciborium::de::from_reader(&bytes[10..10 + size]).unwrap();
    let data_start = (10 + size).div_ceil(256) * 256;
    assert_eq!(metadata.tensors.len(), expected.len());
    let mut end = 0;
    for (path, dtype, shape, data, id) in expected {
        let descriptor = &metadata.tensors[path];
        assert_eq!(
            pack_dtype_name(&descriptor.dtype),
            dtype.to_string(),
            "{path}"
        );
        assert_eq!(&descriptor.shape, shape, "{path}");
        assert_eq!(descriptor.param_id, Some(*id), "{path}");
        let (start, stop) = descriptor.data_offsets;
        assert_eq!(start % 256, 0, "{path} is aligned");
        let held = &bytes[data_start + start as usize..data_start + stop as usize];
        assert!(held == data.as_slice(), "{path}: the bytes differ");
        end = end.max(data_start + stop as usize);
    }
    assert_eq!(bytes.len(), end, "nothing follows the last tensor");
    metadata
}

fn no_leftovers(dir: &Path, inputs: &[&str]) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !inputs.contains(&n.as_str()))
        .collect();
    assert!(names.is_empty(), "files left behind: {names:?}");
}

#[test]
fn every_self_describing_format_converts_to_burnpack_with_every_dtype() {
    for how in ALL {
        // Past the 1 MiB input buffer; JSON (a line per byte) past the 64 KiB chunk.
        let big = if matches!(how, Written::Mpk | Written::MpkGz) {
            1_100_000
        } else {
            70_000
        };
        let (record, expected) = model(big);
        let dir = tempfile::tempdir().unwrap();
        let input = write_input(dir.path(), "model.rec", &encode(&record, how));
        let converted = convert(&input, None, &ConvertOptions::default())
            .unwrap_or_else(|e| panic!("{how:?}: {e}"));
        assert_eq!(converted.output, dir.path().join("model.rec.bpk"));
        let metadata = check_burnpack(&std::fs::read(&converted.output).unwrap(), &expected);
        assert_eq!(metadata.metadata["format"], "burnpack");
        assert_eq!(
            metadata.metadata["burn_0_21_settings"],
            "FullPrecisionSettings"
        );
        assert!(converted.contents.left_out.is_empty());
        let gzip = matches!(how, Written::MpkGz | Written::JsonGz);
        assert_eq!(converted.source.gzip(), gzip, "{how:?}");
    }
}

#[test]
fn safetensors_output_holds_the_same_tensors() {
    let (record, expected) = model(4000);
    for how in [Written::Mpk, Written::Json] {
        let dir = tempfile::tempdir().unwrap();
        let input = write_input(dir.path(), "model.mpk", &encode(&record, how));
        let options = ConvertOptions {
            target: Target::Safetensors,
            force: false,
        };
        let converted = convert(&input, None, &options).unwrap();
        assert_eq!(converted.output, dir.path().join("model.safetensors"));
        let bytes = std::fs::read(&converted.output).unwrap();
        let tensors = ::safetensors::SafeTensors::deserialize(&bytes).unwrap();
        assert_eq!(tensors.len(), expected.len());
        for (path, dtype, shape, data, _) in &expected {
            let view = tensors.tensor(path).unwrap();
            assert_eq!(format!("{:?}", view.dtype()), dtype.safetensors(), "{path}");
            let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            assert_eq!(view.shape(), shape.as_slice(), "{path}");
            assert!(view.data() == data.as_slice(), "{path}: the bytes differ");
        }
    }
}

#[test]
fn half_precision_records_keep_their_f16_data() {
    let data = pattern(8, 1);
    let item = map(vec![
        ("w", param(7, DType::F16, &[4], data.clone())),
        ("n", param(8, DType::I16, &[2], pattern(4, 2))),
    ]);
    let record = burn_record(item, "HalfPrecisionSettings");
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(dir.path(), "model.mpk", &encode(&record, Written::Mpk));
    let converted = convert(&input, None, &ConvertOptions::default()).unwrap();
    let expected = vec![
        ("w".to_string(), DType::F16, vec![4], data, 7),
        ("n".to_string(), DType::I16, vec![2], pattern(4, 2), 8),
    ];
    check_burnpack(&std::fs::read(&converted.output).unwrap(), &expected);
    assert!(
        converted.summary().contains("HalfPrecisionSettings"),
        "{}",
        converted.summary()
    );
}

#[test]
fn values_that_are_not_tensors_are_reported_not_carried() {
    let item = map(vec![
        ("w", param(1, DType::F32, &[1], pattern(4, 0))),
        ("steps", V::Int(7)),
        ("name", s("mlp")),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(
        dir.path(),
        "r.mpk",
        &encode(&burn_record(item, "FullPrecisionSettings"), Written::Mpk),
    );
    let converted = convert(&input, None, &ConvertOptions::default()).unwrap();
    assert_eq!(converted.contents.left_out, vec!["steps", "name"]);
    assert!(converted.summary().contains("not carried"));
}

/// A checkpoint's optimizer state (0.21's `OptimizerAdaptor` record: states keyed by parameter
/// id inside `V1` and `RankN`) and a scheduler's (numbers only) are refused: converted, they
/// would lose their step counts, and 0.22 would restart them without a word.
#[test]
fn optimizer_and_scheduler_state_is_refused_and_nothing_is_written() {
    let adam = map(vec![(
        &param_id(9),
        map(vec![(
            "V1",
            map(vec![(
                "Rank2",
                map(vec![(
                    "momentum",
                    map(vec![
                        ("time", V::Int(3)),
                        ("moment_1", param(1, DType::F32, &[1], pattern(4, 0))),
                        ("moment_2", param(2, DType::F32, &[1], pattern(4, 1))),
                    ]),
                )]),
            )]),
        )]),
    )]);
    let scheduler = map(vec![("current_iter", V::Int(120)), ("lr", V::Int(0))]);
    for (name, item, says) in [
        ("optim-5.mpk", adam, "an optimizer's state"),
        ("scheduler-5.mpk", scheduler, "numbers without a tensor"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let record = burn_record(item, "FullPrecisionSettings");
        let input = write_input(dir.path(), name, &encode(&record, Written::Mpk));
        let error = convert(&input, None, &ConvertOptions::default()).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, RecordError::TrainingState { .. }),
            "{message}"
        );
        assert!(message.contains(says), "{message}");
        assert!(message.contains("Training cannot resume"), "{message}");
        no_leftovers(dir.path(), &[name]);
    }
}

#[test]
fn a_truncated_file_is_reported_with_its_offset_and_nothing_is_written() {
    let (record, _) = model(4000);
    for how in ALL {
        let full = encode(&record, how);
        let plain = encode(&record, Written::Mpk)
            .len()
            .max(encode(&record, Written::Json).len());
        // From two bytes on: one byte of gzip's magic is not recognisably anything.
        for cut in [
            2,
            9,
            full.len() / 3,
            full.len() / 2,
            full.len() - 40,
            full.len() - 1,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let input = write_input(dir.path(), "model.mpk", &full[..cut]);
            let error = convert(&input, None, &ConvertOptions::default())
                .expect_err(&format!("{how:?} cut at {cut}"));
            let message = error.to_string();
            match &error {
                RecordError::Truncated { at, .. } => {
                    assert!(at.offset <= plain as u64, "{message}");
                    assert!(message.contains("nothing was written"), "{message}");
                }
                other => panic!("{how:?} cut at {cut}: {other}"),
            }
            no_leftovers(dir.path(), &["model.mpk"]);
        }
    }
}

#[test]
fn a_truncated_tensor_names_its_parameter() {
    let item = map(vec![(
        "encoder",
        map(vec![(
            "weight",
            param(1, DType::F32, &[1024], pattern(4096, 0)),
        )]),
    )]);
    let full = encode(&burn_record(item, "FullPrecisionSettings"), Written::Mpk);
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(dir.path(), "model.mpk", &full[..full.len() - 2000]);
    let message = convert(&input, None, &ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("encoder.weight.param.bytes"), "{message}");
    assert!(message.contains("declares 4096 bytes"), "{message}");
}

#[test]
fn corrupt_files_are_reported_and_nothing_is_written() {
    let item = map(vec![("w", param(1, DType::F32, &[2, 3], pattern(24, 0)))]);
    let record = burn_record(item.clone(), "FullPrecisionSettings");
    let good = encode(&record, Written::Mpk);
    let find = |bytes: &[u8], needle: &[u8]| {
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };

    let mut marker = good.clone();
    let at = find(&good, b"\xa5shape") + 6;
    marker[at] = 0xc1;
    let mut dtype = good.clone();
    let at_dtype = find(&good, b"F32");
    dtype[at_dtype + 2] = b'X';
    let wrong_len = encode(
        &burn_record(
            map(vec![("w", param(1, DType::F32, &[2, 3], pattern(20, 0)))]),
            "FullPrecisionSettings",
        ),
        Written::Mpk,
    );
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"\x01\x02");
    let mut gz = encode(&record, Written::MpkGz);
    let middle = gz.len() / 2;
    gz[middle] ^= 0x55;
    let json = encode(&record, Written::Json);
    let mut json_bad = json.clone();
    let colon = find(&json, b"\": ");
    json_bad[colon + 1] = b';';

    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "marker",
            marker,
            format!(
                "marker 0xc1, which no Burn record contains, at byte {at} (in `w.param.shape`)"
            ),
        ),
        ("dtype", dtype, "tensor `w` has an unknown dtype F3X".into()),
        (
            "length",
            wrong_len,
            "tensor `w` holds 20 bytes, but shape [2, 3] of F32 needs 24".into(),
        ),
        (
            "trailing",
            trailing,
            format!("data follows the end of the record, at byte {}", good.len()),
        ),
        ("gzip", gz, "of the decompressed data".into()),
        ("json", json_bad, "expected `:` after an object key".into()),
    ];
    for (name, bytes, wanted) in cases {
        let dir = tempfile::tempdir().unwrap();
        let input = write_input(dir.path(), "model.mpk", &bytes);
        let error = convert(&input, None, &ConvertOptions::default()).expect_err(name);
        let message = error.to_string();
        assert!(
            matches!(
                error,
                RecordError::Corrupt { .. } | RecordError::Truncated { .. }
            ),
            "{name}: {message}"
        );
        assert!(message.contains(&wanted), "{name}: {message}");
        no_leftovers(dir.path(), &["model.mpk"]);
    }
}

#[test]
fn bincode_records_get_the_steps_to_convert_them_under_burn_0_21() {
    let mut bincode = vec![19];
    bincode.extend_from_slice(b"half::binary16::f16");
    bincode.extend_from_slice(&[3, b'i', b'1', b'6', 0, 0, 0]);
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(dir.path(), "model.bin", &bincode);
    let message = convert(&input, None, &ConvertOptions::default())
        .unwrap_err()
        .to_string();
    for wanted in [
        "bincode record (BinFileRecorder, HalfPrecisionSettings)",
        "burn-store = { version = \"0.21\", features = [\"burnpack\"] }",
        ".load_file(\"model\", &BinFileRecorder::<HalfPrecisionSettings>::new(), &device)?",
        "model.save_into(&mut BurnpackStore::from_file(\"model.bpk\"))?",
    ] {
        assert!(
            message.contains(wanted),
            "missing {wanted:?} in:\n{message}"
        );
    }
    no_leftovers(dir.path(), &["model.bin"]);
}

#[test]
fn files_burn_0_22_already_loads_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let bpk = write_input(dir.path(), "m.bpk", b"NRUB\x01\x00\x00\x00\x00\x00");
    let message = convert(&bpk, None, &ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("already a burnpack file"), "{message}");
    let unknown = write_input(dir.path(), "m.pt", b"PK\x03\x04 zip");
    let message = convert(&unknown, None, &ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("not a record written by a Burn 0.21 file recorder"),
        "{message}"
    );
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    let item = map(vec![("w", param(1, DType::F32, &[1], pattern(4, 0)))]);
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(
        dir.path(),
        "m.mpk",
        &encode(&burn_record(item, "FullPrecisionSettings"), Written::Mpk),
    );
    std::fs::write(dir.path().join("m.bpk"), b"keep").unwrap();
    let error = convert(&input, None, &ConvertOptions::default()).unwrap_err();
    assert!(matches!(error, RecordError::OutputExists { .. }), "{error}");
    assert_eq!(std::fs::read(dir.path().join("m.bpk")).unwrap(), b"keep");
    let options = ConvertOptions {
        force: true,
        ..Default::default()
    };
    convert(&input, None, &options).unwrap();
    assert_ne!(std::fs::read(dir.path().join("m.bpk")).unwrap(), b"keep");
}

#[test]
fn default_outputs_replace_the_recorder_extension() {
    let cases = [
        ("a/model.mpk", "a/model.bpk"),
        ("a/model.mpk.gz", "a/model.bpk"),
        ("model.json", "model.bpk"),
        ("model.json.gz", "model.bpk"),
        ("weights", "weights.bpk"),
    ];
    for (input, output) in cases {
        assert_eq!(
            default_output(Path::new(input), Target::Burnpack),
            Path::new(output)
        );
    }
    assert_eq!(
        default_output(Path::new("m.mpk"), Target::Safetensors),
        Path::new("m.safetensors")
    );
}

#[test]
fn two_tensors_at_one_path_are_refused() {
    let item = map(vec![
        ("a.b", param(1, DType::F32, &[1], pattern(4, 0))),
        (
            "a",
            map(vec![("b", param(2, DType::F32, &[1], pattern(4, 1)))]),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let record = burn_record(item, "FullPrecisionSettings");
    let input = write_input(dir.path(), "m.mpk", &encode(&record, Written::Mpk));
    let message = convert(&input, None, &ConvertOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("two tensors have the path `a.b`"),
        "{message}"
    );
    no_leftovers(dir.path(), &["m.mpk"]);
}
