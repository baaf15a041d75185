//! 0.22 device expressions as values. The backend table writes devices as code
//! (`Device::cuda(0)`, and templates such as `Device::wgpu(DeviceKind::{variant})`); they are
//! read into a `DeviceExpr` once, when the table loads, so that no stage takes the text apart
//! again to learn which constructor a device calls.

use std::fmt;

use serde::Deserialize;

/// A call of one of `Device`'s constructors, with the switches the port adds after it:
/// `Device::cuda(0).autodiff()`. Written out by `Display`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct DeviceExpr {
    /// `cuda` in `Device::cuda(0)`.
    pub constructor: String,
    /// The code between the parentheses (`0`, `DeviceKind::DefaultDevice`); in a template,
    /// with a hole (`{args}`, `{variant}`) for text of the 0.21 value.
    pub args: String,
    /// `.autodiff()`: the device differentiates.
    pub autodiff: bool,
    /// `.gradient_checkpointing()`.
    pub checkpointing: bool,
    /// The float dtype (`F64`) the device is configured with: the 0.21 backend type's float
    /// element, where it was not `f32` (`NdArray<f64>`, `Wgpu<ElemType>`).
    pub float_dtype: Option<FloatElement>,
    /// The `IntDType` variant (`I64`) the device is configured with, where the 0.21 backend
    /// computed integers in another dtype than this device's 0.22 default (NdArray's `i64`
    /// on Flex, whose default is `I32`). Set by the backend table (`BackendTable::choose`).
    pub int_dtype: Option<String>,
}

impl DeviceExpr {
    /// `Device::<constructor>(<args>)`, as the backend table writes a device.
    pub fn parse(text: &str) -> Option<Self> {
        let call = text.strip_prefix("Device::")?.strip_suffix(')')?;
        let (constructor, args) = call.split_once('(')?;
        let is_name = !constructor.is_empty()
            && (constructor.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_');
        // The last parenthesis closes the first: `Device::a(0).b()` is no single call.
        let mut depth = 0_i32;
        let one_call = args.chars().all(|c| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            depth >= 0
        }) && depth == 0;
        (is_name && one_call).then(|| DeviceExpr {
            constructor: constructor.to_string(),
            args: args.to_string(),
            autodiff: false,
            checkpointing: false,
            float_dtype: None,
            int_dtype: None,
        })
    }

    /// The constructor as code calls it: `Device::cuda`.
    pub fn callee(&self) -> String {
        format!("Device::{}", self.constructor)
    }

    /// A template's device with its `hole` (`{args}`) filled with `text`.
    pub fn fill(&self, hole: &str, text: &str) -> DeviceExpr {
        DeviceExpr {
            args: self.args.replace(hole, text),
            ..self.clone()
        }
    }

    /// Whether the expression names `DeviceKind`, which the file then imports.
    pub fn names_device_kind(&self) -> bool {
        self.args.contains("DeviceKind::")
    }

    /// The dtype types the expression names, which the file then imports.
    pub fn dtype_names(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if let Some(float) = &self.float_dtype {
            names.push("FloatDType");
            if matches!(float, FloatElement::Alias(_)) {
                names.push("Element");
            }
        }
        if self.int_dtype.is_some() {
            names.push("IntDType");
        }
        names
    }

    /// The device as tables and messages name it: `Device::flex() with IntDType::I64`.
    pub fn summary(&self) -> String {
        match self.configuration() {
            Some(configuration) => format!("{} with {configuration}", self.unconfigured()),
            None => self.to_string(),
        }
    }

    /// The device before its configuration: `Device::flex()`.
    pub fn unconfigured(&self) -> DeviceExpr {
        DeviceExpr {
            float_dtype: None,
            int_dtype: None,
            ..self.clone()
        }
    }

    /// What `Device::configure` is given: `IntDType::I64`, `FloatDType::F64`, or both as a
    /// pair (`From<(FloatDType, IntDType)> for DeviceConfig`, burn-tensor 0.22.1).
    pub fn configuration(&self) -> Option<String> {
        match (&self.float_dtype, &self.int_dtype) {
            (Some(float), Some(int)) => Some(format!("({}, IntDType::{int})", float.expression())),
            (Some(float), None) => Some(float.expression()),
            (None, Some(int)) => Some(format!("IntDType::{int}")),
            (None, None) => None,
        }
    }
}

/// The float dtype a 0.21 backend type was written with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FloatElement {
    /// A `FloatDType` variant (`F64` for `NdArray<f64>`).
    DType(String),
    /// A workspace type alias for a float element type (`type ElemType = f16;`, one
    /// definition per `cfg`), whichever its definition picks: configured as
    /// `FloatDType::from(<ElemType as Element>::dtype())`.
    Alias(String),
}

impl FloatElement {
    /// What `FloatDType` the configuration is given.
    pub fn expression(&self) -> String {
        match self {
            FloatElement::DType(variant) => format!("FloatDType::{variant}"),
            FloatElement::Alias(alias) => {
                format!("FloatDType::from(<{alias} as Element>::dtype())")
            }
        }
    }
}

impl TryFrom<String> for DeviceExpr {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        DeviceExpr::parse(&text)
            .ok_or_else(|| format!("device `{text}` is not a `Device::<constructor>(..)` call"))
    }
}

/// A configured device is a block that configures a fresh device and yields it:
/// `Device::configure` takes `&mut self` and returns a `Result`. Its error
/// (`AlreadyInitialized`) means another construction site configured the same physical
/// device first, with the same dtype, as every site of one backend writes the same block;
/// the settings belong to the physical device, so configuring the autodiff device configures
/// the one it wraps (measured on burn 0.22.1 with Flex).
impl fmt::Display for DeviceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let configuration = self.configuration();
        if configuration.is_some() {
            f.write_str("{ let mut device = ")?;
        }
        write!(f, "Device::{}({})", self.constructor, self.args)?;
        if self.autodiff {
            f.write_str(".autodiff()")?;
        }
        if self.checkpointing {
            f.write_str(".gradient_checkpointing()")?;
        }
        if let Some(configuration) = configuration {
            write!(f, "; let _ = device.configure({configuration}); device }}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_reads_and_writes_back_as_the_table_spells_it() {
        for text in [
            "Device::flex()",
            "Device::cuda(0)",
            "Device::wgpu(DeviceKind::{variant})",
        ] {
            assert_eq!(DeviceExpr::parse(text).unwrap().to_string(), text);
        }
        let cuda = DeviceExpr::parse("Device::cuda({args})").unwrap();
        assert_eq!(cuda.constructor, "cuda");
        assert_eq!(cuda.callee(), "Device::cuda");
        let mut filled = cuda.fill("{args}", "1");
        filled.autodiff = true;
        filled.checkpointing = true;
        assert_eq!(
            filled.to_string(),
            "Device::cuda(1).autodiff().gradient_checkpointing()"
        );
        assert!(!filled.names_device_kind());
        filled.int_dtype = Some("I64".into());
        assert_eq!(
            filled.to_string(),
            "{ let mut device = Device::cuda(1).autodiff().gradient_checkpointing(); let _ = device.configure(IntDType::I64); device }"
        );
        assert_eq!(filled.dtype_names(), ["IntDType"]);
        filled.float_dtype = Some(FloatElement::DType("F64".into()));
        assert!(filled
            .to_string()
            .contains("device.configure((FloatDType::F64, IntDType::I64))"));
        assert!(
            DeviceExpr::parse("Device::metal(DeviceKind::DefaultDevice)")
                .unwrap()
                .names_device_kind()
        );
    }

    #[test]
    fn text_that_is_no_constructor_call_is_refused() {
        for text in [
            "flex()",
            "Device::()",
            "Device::flex",
            "Device::a b()",
            "Device::x(0).y()",
        ] {
            assert_eq!(DeviceExpr::parse(text), None, "{text}");
        }
    }
}
