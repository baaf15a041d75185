//! Element types as Burn 0.21 wrote them (`burn_std::DType`, serialized by name: `"F32"`, or
//! `{"Bool": "Native"}`) and as the outputs name them. Burn 0.22's `DType` is the same enum,
//! so a burnpack file keeps the name as it was.

use std::fmt;

use super::tree::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
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
    Bool(BoolStore),
}

/// How a backend stored booleans: one byte (`Native`, `U8`) or four (`U32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolStore {
    Native,
    U8,
    U32,
}

const SIMPLE: &[(&str, DType)] = &[
    ("F64", DType::F64),
    ("F32", DType::F32),
    ("Flex32", DType::Flex32),
    ("F16", DType::F16),
    ("BF16", DType::BF16),
    ("I64", DType::I64),
    ("I32", DType::I32),
    ("I16", DType::I16),
    ("I8", DType::I8),
    ("U64", DType::U64),
    ("U32", DType::U32),
    ("U16", DType::U16),
    ("U8", DType::U8),
];

const STORES: &[(&str, BoolStore)] = &[
    ("Native", BoolStore::Native),
    ("U8", BoolStore::U8),
    ("U32", BoolStore::U32),
];

/// Why a `dtype` value could not be read.
pub(super) enum DTypeProblem {
    /// A quantized tensor (`QFloat`): its scheme's layout is not carried.
    Quantized,
    Unknown(String),
}

impl DType {
    pub(super) fn from_value(value: &Value) -> Result<Self, DTypeProblem> {
        match value {
            Value::Str(name) => SIMPLE
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, d)| *d)
                .ok_or_else(|| DTypeProblem::Unknown(name.clone())),
            Value::Map(entries) => match entries.as_slice() {
                [(variant, Value::Str(store))] if variant == "Bool" => STORES
                    .iter()
                    .find(|(n, _)| n == store)
                    .map(|(_, s)| DType::Bool(*s))
                    .ok_or_else(|| DTypeProblem::Unknown(format!("Bool({store})"))),
                [(variant, _)] if variant == "QFloat" => Err(DTypeProblem::Quantized),
                _ => Err(DTypeProblem::Unknown(format!("{value:?}"))),
            },
            other => Err(DTypeProblem::Unknown(format!("{other:?}"))),
        }
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::F32 | DType::Flex32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::I8 | DType::U8 => 1,
            DType::Bool(BoolStore::Native | BoolStore::U8) => 1,
            DType::Bool(BoolStore::U32) => 4,
        }
    }

    /// The variant name, as burnpack's CBOR and Burn's serde use it.
    pub(super) fn variant(self) -> (&'static str, Option<&'static str>) {
        match self {
            DType::Bool(store) => (
                "Bool",
                STORES.iter().find(|(_, s)| *s == store).map(|(n, _)| *n),
            ),
            simple => (
                SIMPLE
                    .iter()
                    .find(|(_, d)| *d == simple)
                    .map_or("F32", |(n, _)| *n),
                None,
            ),
        }
    }

    /// The SafeTensors name, as burn-store 0.22 maps it (booleans stored in `u8`/`u32`
    /// keep that width; burn-store loads either into a bool parameter).
    pub(super) fn safetensors(self) -> &'static str {
        match self {
            DType::F64 => "F64",
            DType::F32 | DType::Flex32 => "F32",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::I64 => "I64",
            DType::I32 => "I32",
            DType::I16 => "I16",
            DType::I8 => "I8",
            DType::U64 => "U64",
            DType::U32 | DType::Bool(BoolStore::U32) => "U32",
            DType::U16 => "U16",
            DType::U8 | DType::Bool(BoolStore::U8) => "U8",
            DType::Bool(BoolStore::Native) => "BOOL",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.variant() {
            (name, Some(store)) => write!(f, "{name}({store})"),
            (name, None) => f.write_str(name),
        }
    }
}
