//! Burnpack (`.bpk`), the format burn-store 0.22 (`BurnpackStore`, `ModuleRecord`) loads,
//! written from its specification in burn-pack 0.22.1:
//!
//! ```text
//! magic u32 LE 0x4255524E ("BURN") | version u16 LE 1 | metadata size u32 LE
//! CBOR metadata: { "tensors": { path: { "dtype", "shape", "data_offsets": [start, end],
//!                                       "param_id"? } }, "metadata": { key: value } }
//! zero padding to a 256-byte boundary, then the tensor data section, each tensor's bytes
//! starting on a 256-byte boundary (offsets relative to the section)
//! ```
//!
//! The metadata comes before the data, which is why conversion reads the input twice.

use std::collections::BTreeMap;

use super::dtype::DType;
use super::record::{Layout, LimitExceeded, TensorEntry};

const MAGIC: u32 = 0x4255_524E;
const VERSION: u16 = 1;
const HEADER_SIZE: u64 = 10;
const ALIGNMENT: u64 = 256;
/// Limits burn-pack 0.22.1's reader enforces; a file past them would not load.
pub(super) const MAX_TENSORS: usize = 100_000;
pub(super) const MAX_TENSOR_BYTES: u64 = 10 * 1024 * 1024 * 1024;
const MAX_METADATA: usize = 100 * 1024 * 1024;

pub(super) fn layout(
    tensors: &[TensorEntry],
    metadata: &BTreeMap<String, String>,
) -> Result<Layout, LimitExceeded> {
    if tensors.len() > MAX_TENSORS {
        return Err(LimitExceeded(format!(
            "{} tensors, more than the {MAX_TENSORS} Burn 0.22 reads from a burnpack file",
            tensors.len()
        )));
    }
    let mut ranges = Vec::with_capacity(tensors.len());
    let mut end = 0u64;
    for tensor in tensors {
        if tensor.byte_len > MAX_TENSOR_BYTES {
            return Err(LimitExceeded(format!(
                "tensor `{}` has {} bytes, more than the {MAX_TENSOR_BYTES} Burn 0.22 reads from a burnpack file",
                tensor.path, tensor.byte_len
            )));
        }
        let start = end.div_ceil(ALIGNMENT) * ALIGNMENT;
        end = start + tensor.byte_len;
        ranges.push((start, end));
    }

    let mut cbor = Cbor::default();
    let has_metadata = !metadata.is_empty();
    cbor.map(1 + usize::from(has_metadata));
    cbor.text("tensors");
    // Keys in the order burn-pack writes them (a BTreeMap); any order reads the same.
    let mut by_name: Vec<(&TensorEntry, &(u64, u64))> = tensors.iter().zip(&ranges).collect();
    by_name.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    cbor.map(by_name.len());
    for (tensor, (start, end)) in by_name {
        cbor.text(&tensor.path);
        cbor.map(3 + usize::from(tensor.param_id.is_some()));
        cbor.text("dtype");
        dtype(&mut cbor, tensor.dtype);
        cbor.text("shape");
        cbor.array(tensor.shape.len());
        for &dim in &tensor.shape {
            cbor.uint(dim);
        }
        cbor.text("data_offsets");
        cbor.array(2);
        cbor.uint(*start);
        cbor.uint(*end);
        if let Some(id) = tensor.param_id {
            cbor.text("param_id");
            cbor.uint(id);
        }
    }
    if has_metadata {
        cbor.text("metadata");
        cbor.map(metadata.len());
        for (key, value) in metadata {
            cbor.text(key);
            cbor.text(value);
        }
    }
    let metadata_bytes = cbor.0;
    if metadata_bytes.len() > MAX_METADATA {
        return Err(LimitExceeded(format!(
            "{} bytes of tensor names and shapes, more than the {MAX_METADATA} Burn 0.22 reads",
            metadata_bytes.len()
        )));
    }

    let mut head = Vec::with_capacity(metadata_bytes.len() + ALIGNMENT as usize);
    head.extend_from_slice(&MAGIC.to_le_bytes());
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&(metadata_bytes.len() as u32).to_le_bytes());
    head.extend_from_slice(&metadata_bytes);
    let data_start = (HEADER_SIZE + metadata_bytes.len() as u64).div_ceil(ALIGNMENT) * ALIGNMENT;
    head.resize(data_start as usize, 0);
    Ok(Layout { head, ranges })
}

/// `DType` as serde writes an enum to CBOR: a unit variant as its name, a newtype variant
/// as a one-entry map.
fn dtype(cbor: &mut Cbor, dtype: DType) {
    match dtype.variant() {
        (name, None) => cbor.text(name),
        (name, Some(store)) => {
            cbor.map(1);
            cbor.text(name);
            cbor.text(store);
        }
    }
}

/// The CBOR (RFC 8949) subset burnpack's metadata uses: unsigned integers, text, arrays and
/// maps of known length.
#[derive(Default)]
struct Cbor(Vec<u8>);

impl Cbor {
    fn head(&mut self, major: u8, value: u64) {
        let major = major << 5;
        match value {
            0..=23 => self.0.push(major | value as u8),
            24..=0xff => self.0.extend_from_slice(&[major | 24, value as u8]),
            0x100..=0xffff => {
                self.0.push(major | 25);
                self.0.extend_from_slice(&(value as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                self.0.push(major | 26);
                self.0.extend_from_slice(&(value as u32).to_be_bytes());
            }
            _ => {
                self.0.push(major | 27);
                self.0.extend_from_slice(&value.to_be_bytes());
            }
        }
    }

    fn uint(&mut self, value: u64) {
        self.head(0, value);
    }

    fn text(&mut self, text: &str) {
        self.head(3, text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
    }

    fn array(&mut self, len: usize) {
        self.head(4, len as u64);
    }

    fn map(&mut self, len: usize) {
        self.head(5, len as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbor_heads_use_the_shortest_form() {
        let mut cbor = Cbor::default();
        cbor.uint(23);
        cbor.uint(24);
        cbor.uint(256);
        cbor.uint(70_000);
        cbor.uint(1 << 40);
        cbor.text("F32");
        assert_eq!(
            cbor.0,
            [
                0x17, 0x18, 24, 0x19, 1, 0, 0x1a, 0, 1, 0x11, 0x70, 0x1b, 0, 0, 1, 0, 0, 0, 0, 0,
                0x63, b'F', b'3', b'2'
            ]
        );
    }
}
