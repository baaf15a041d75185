//! From the record's tree to its tensors. Burn 0.21 saved `BurnRecord { metadata, item, _b }`;
//! in `item`, a module is a map of its fields, a `Vec` or tuple an array, an enum a
//! one-entry map `{variant: value}`, `None` and constants nil, and every parameter a
//! `ParamSerde { id, param: TensorData { bytes, shape, dtype } }`. A tensor's path is the
//! keys and indices down to it, joined with `.`: the path Burn 0.22's module visitor gives
//! the same parameter (field names, `Vec`/array/tuple indices, enum variant names).

use std::collections::BTreeMap;

use super::dtype::{DType, DTypeProblem};
use super::error::Fault;
use super::tree::Value;

/// One parameter of the record.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorEntry {
    pub path: String,
    pub dtype: DType,
    pub shape: Vec<u64>,
    pub byte_len: u64,
    /// The parameter's id (training-state identity), when it decodes to Burn's `u64`.
    pub param_id: Option<u64>,
    /// Which `bytes` field of the file holds the data (none for an empty JSON array).
    pub(super) field: Option<usize>,
}

/// What the record holds.
#[derive(Debug, Default)]
pub struct Contents {
    pub tensors: Vec<TensorEntry>,
    /// `BurnRecord::metadata`: float and int types, recorder, Burn version, settings.
    pub metadata: BTreeMap<String, String>,
    /// Paths of values that are not tensors (numbers, strings in custom records): the
    /// outputs hold tensors only, so these are reported, not carried.
    pub left_out: Vec<String>,
}

/// Whether the record is a training checkpoint's optimizer or scheduler state rather than a
/// module's weights, as (what it is, why it cannot be converted). burn-optim 0.21.0's
/// `OptimizerAdaptor` record keys each parameter's state by its id and wraps it in the
/// versioned enums `AdaptorRecordItem::V1(AdaptorRecordItemV1::RankN(..))`
/// (`optim/simple/record/base.rs`, `v1.rs`), which serde writes as the keys `V1` and `RankN`.
/// The state's step counts (`time`) are numbers, which the outputs cannot hold, and 0.22's
/// `load_record` re-initialises a state it does not find, silently. A record with numbers
/// and no tensor at all (a learning-rate scheduler's step) would convert to an empty file.
pub(super) fn training_state(contents: &Contents) -> Option<(&'static str, &'static str)> {
    let adaptor_state = |path: &str| {
        let segments: Vec<&str> = path.split('.').collect();
        segments.windows(2).any(|pair| {
            pair[0] == "V1"
                && pair[1].strip_prefix("Rank").is_some_and(|rank| {
                    !rank.is_empty() && rank.bytes().all(|b| b.is_ascii_digit())
                })
        })
    };
    let paths = (contents.tensors.iter().map(|t| t.path.as_str()))
        .chain(contents.left_out.iter().map(String::as_str));
    if paths.clone().any(adaptor_state) {
        return Some((
            "an optimizer's state (per-parameter `V1`/`RankN` entries of 0.21's `OptimizerAdaptor` record)",
            "the output would keep its tensors and drop its step counts (`time`), and 0.22's `load_record` would start the optimizer over without saying so",
        ));
    }
    if contents.tensors.is_empty() && !contents.left_out.is_empty() {
        return Some((
            "numbers without a tensor (a learning-rate scheduler's state, say)",
            "the output holds tensors only, so it would be empty",
        ));
    }
    None
}

pub(super) fn contents(root: Value) -> Result<Contents, Fault> {
    let Value::Map(entries) = root else {
        return Err(Fault::corrupt(
            "the record is not a map (a Burn 0.21 record starts with `{metadata, item}`)",
            0,
        ));
    };
    let mut contents = Contents::default();
    let mut item = None;
    for (key, value) in entries {
        match (key.as_str(), value) {
            ("item", value) => item = Some(value),
            ("metadata", Value::Map(fields)) => {
                for (name, value) in fields {
                    if let Value::Str(text) = value {
                        contents.metadata.insert(name, text);
                    }
                }
            }
            _ => {}
        }
    }
    let Some(item) = item else {
        return Err(Fault::corrupt(
            "the record has no `item` field (a Burn 0.21 record is `{metadata, item}`)",
            0,
        ));
    };
    let mut path = Vec::new();
    collect(item, &mut path, &mut contents)?;
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = contents.tensors.iter().find(|t| !seen.insert(&t.path)) {
        return Err(Fault::corrupt(
            format!("two tensors have the path `{}`", twice.path),
            0,
        ));
    }
    Ok(contents)
}

fn collect(value: Value, path: &mut Vec<String>, contents: &mut Contents) -> Result<(), Fault> {
    match value {
        Value::Null => Ok(()),
        Value::Map(entries) => {
            if let Some(tensor) = param(&entries, path)? {
                contents.tensors.push(tensor);
                return Ok(());
            }
            for (key, value) in entries {
                path.push(key);
                collect(value, path, contents)?;
                path.pop();
            }
            Ok(())
        }
        Value::Array(items) => {
            for (index, value) in items.into_iter().enumerate() {
                path.push(index.to_string());
                collect(value, path, contents)?;
                path.pop();
            }
            Ok(())
        }
        Value::Bytes { offset, .. } => Err(Fault::corrupt(
            format!(
                "a `bytes` field outside tensor data at `{}`",
                path.join(".")
            ),
            offset,
        )),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
            contents.left_out.push(path.join("."));
            Ok(())
        }
    }
}

/// The tensor of a `ParamSerde { id, param }` or of a bare `TensorData` map.
fn param(entries: &[(String, Value)], path: &[String]) -> Result<Option<TensorEntry>, Fault> {
    let field = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    if entries.len() == 2 {
        if let (Some(Value::Str(id)), Some(Value::Map(data))) = (field("id"), field("param")) {
            if let Some(mut tensor) = tensor_data(data, path)? {
                tensor.param_id = decode_param_id(id);
                return Ok(Some(tensor));
            }
        }
    }
    tensor_data(entries, path)
}

fn tensor_data(entries: &[(String, Value)], path: &[String]) -> Result<Option<TensorEntry>, Fault> {
    let field = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    let (Some(bytes), Some(shape), Some(dtype)) = (field("bytes"), field("shape"), field("dtype"))
    else {
        return Ok(None);
    };
    if entries.len() != 3 {
        return Ok(None);
    }
    let name = path.join(".");
    let (field, byte_len, offset) = match bytes {
        Value::Bytes { field, len, offset } => (Some(*field), *len, *offset),
        Value::Array(items) if items.is_empty() => (None, 0, 0),
        _ => {
            return Err(Fault::corrupt(
                format!("tensor `{name}` has `bytes` that are not bytes"),
                0,
            ))
        }
    };
    let Value::Array(dims) = shape else {
        return Err(Fault::corrupt(
            format!("tensor `{name}` has a shape that is not a list"),
            offset,
        ));
    };
    let shape = dims
        .iter()
        .map(|dim| match dim {
            Value::Int(n) => u64::try_from(*n).ok(),
            _ => None,
        })
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| {
            Fault::corrupt(
                format!("tensor `{name}` has a shape of non-sizes {dims:?}"),
                offset,
            )
        })?;
    let dtype = DType::from_value(dtype).map_err(|problem| match problem {
        DTypeProblem::Quantized => Fault::Unsupported {
            param: name.clone(),
            what: "is quantized".into(),
            advice: "dequantize the module under Burn 0.21 and save it again, or save it with burn-store 0.21's BurnpackStore, which Burn 0.22 loads".into(),
        },
        DTypeProblem::Unknown(what) => Fault::corrupt(format!("tensor `{name}` has an unknown dtype {what}"), offset),
    })?;
    let expected = shape
        .iter()
        .try_fold(dtype.size(), |total, &dim| total.checked_mul(dim));
    if expected != Some(byte_len) {
        return Err(Fault::corrupt(
            format!(
                "tensor `{name}` holds {byte_len} bytes, but shape {shape:?} of {dtype} needs {}",
                expected.map_or("more than 2^64".to_string(), |n| n.to_string())
            ),
            offset,
        ));
    }
    Ok(Some(TensorEntry {
        path: name,
        dtype,
        shape,
        byte_len,
        param_id: None,
        field,
    }))
}

/// Burn 0.21's `ParamId::serialize`: the id's little-endian bytes in base32 (DNSSEC
/// alphabet, no padding). Older uuid ids are not carried; Burn 0.22 gives those a new id.
fn decode_param_id(id: &str) -> Option<u64> {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuv";
    let mut bits = 0u128;
    let mut count = 0u32;
    let mut bytes = Vec::new();
    for c in id.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c.to_ascii_lowercase())? as u128;
        bits = (bits << 5) | value;
        count += 5;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    if bytes.len() > 8 || bits != 0 {
        return None;
    }
    let mut buffer = [0u8; 8];
    buffer[..bytes.len()].copy_from_slice(&bytes);
    Some(u64::from_le_bytes(buffer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_ids_decode_as_burn_0_21_encodes_them() {
        // `ParamId::from(123456).serialize()` in Burn 0.21 (data-encoding BASE32_DNSSEC of
        // the little-endian bytes).
        assert_eq!(decode_param_id("83h0200000000"), Some(123456));
        assert_eq!(decode_param_id("0000000000000"), Some(0));
        assert_eq!(decode_param_id("not-base32!"), None);
    }
}

/// The output's bytes before the tensor data, and each tensor's data range in the data
/// section (in the order of [`Contents::tensors`]).
pub(super) struct Layout {
    pub(super) head: Vec<u8>,
    pub(super) ranges: Vec<(u64, u64)>,
}

/// An output that would exceed what its format can describe (offsets past its integer
/// width, a header too large): what, in words.
#[derive(Debug)]
pub(super) struct LimitExceeded(pub(super) String);
