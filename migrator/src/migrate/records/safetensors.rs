//! SafeTensors (`--to safetensors`), which burn-store 0.22's `SafetensorsStore` loads:
//! a little-endian `u64` header length, a JSON header `{path: {dtype, shape, data_offsets},
//! "__metadata__": {..}}` padded with spaces to 8 bytes, then the tensors back to back.

use std::collections::BTreeMap;

use super::record::{Layout, LimitExceeded, TensorEntry};

pub(super) fn layout(
    tensors: &[TensorEntry],
    metadata: &BTreeMap<String, String>,
) -> Result<Layout, LimitExceeded> {
    let mut header = serde_json::Map::new();
    let mut ranges = Vec::with_capacity(tensors.len());
    let mut end = 0u64;
    for tensor in tensors {
        let start = end;
        end += tensor.byte_len;
        ranges.push((start, end));
        header.insert(
            tensor.path.clone(),
            serde_json::json!({
                "dtype": tensor.dtype.safetensors(),
                "shape": tensor.shape,
                "data_offsets": [start, end],
            }),
        );
    }
    if !metadata.is_empty() {
        header.insert("__metadata__".into(), serde_json::json!(metadata));
    }
    let mut json = serde_json::to_vec(&header).map_err(|e| LimitExceeded(e.to_string()))?;
    json.resize(json.len().div_ceil(8) * 8, b' ');
    let mut head = Vec::with_capacity(8 + json.len());
    head.extend_from_slice(&(json.len() as u64).to_le_bytes());
    head.extend_from_slice(&json);
    Ok(Layout { head, ranges })
}
