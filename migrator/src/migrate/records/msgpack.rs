//! Named MessagePack (`NamedMpkFileRecorder`, `NamedMpkGzFileRecorder`): `rmp_serde` writes
//! structs as maps keyed by field name, `Option::None` and empty records as nil, enums as
//! `{variant: value}`, and tensor bytes as one `bin` value. A small pull reader of the spec's
//! markers (big-endian lengths) is all the converter needs.

use std::io;

use super::error::Fault;
use super::input::Input;
use super::tree::{Decoder, Token};

/// Strings in a record are field names, variant names and ids; anything longer is damage.
const MAX_STRING: u64 = 1 << 20;

pub(super) struct MsgPack {
    pub(super) input: Input,
}

impl MsgPack {
    fn length(&mut self, size: usize, what: &str) -> Result<u64, Fault> {
        let mut buffer = [0u8; 8];
        self.input.exact(&mut buffer[8 - size..], what)?;
        Ok(u64::from_be_bytes(buffer))
    }

    fn string(&mut self, len: u64, start: u64) -> Result<Token, Fault> {
        if len > MAX_STRING {
            return Err(Fault::corrupt(
                format!("a string of {len} bytes (names in a record are short)"),
                start,
            ));
        }
        let mut bytes = vec![0u8; len as usize];
        self.input.exact(&mut bytes, "a string")?;
        String::from_utf8(bytes)
            .map(Token::Str)
            .map_err(|_| Fault::corrupt("a string that is not UTF-8", start))
    }
}

impl Decoder for MsgPack {
    fn offset(&self) -> u64 {
        self.input.offset()
    }

    fn token(&mut self) -> Result<Token, Fault> {
        let start = self.input.offset();
        let marker = self.input.byte("a value")?;
        let number = |bytes: &[u8]| {
            let mut buffer = [0u8; 8];
            buffer[8 - bytes.len()..].copy_from_slice(bytes);
            u64::from_be_bytes(buffer)
        };
        let fixed = |this: &mut Self, size: usize| -> Result<u64, Fault> {
            let mut buffer = [0u8; 8];
            this.input.exact(&mut buffer[..size], "a number")?;
            Ok(number(&buffer[..size]))
        };
        Ok(match marker {
            0x00..=0x7f => Token::Int(marker.into()),
            0x80..=0x8f => Token::Map(Some(u64::from(marker & 0x0f))),
            0x90..=0x9f => Token::Array(Some(u64::from(marker & 0x0f))),
            0xa0..=0xbf => return self.string(u64::from(marker & 0x1f), start),
            0xc0 => Token::Null,
            0xc2 => Token::Bool(false),
            0xc3 => Token::Bool(true),
            0xc4..=0xc6 => Token::Bytes(self.length(1 << (marker - 0xc4), "a binary length")?),
            0xca => Token::Float(f32::from_bits(fixed(self, 4)? as u32).into()),
            0xcb => Token::Float(f64::from_bits(fixed(self, 8)?)),
            0xcc..=0xcf => Token::Int(fixed(self, 1 << (marker - 0xcc))?.into()),
            0xd0..=0xd3 => {
                let size = 1usize << (marker - 0xd0);
                let raw = fixed(self, size)?;
                // Sign-extend the big-endian two's complement value of `size` bytes.
                let shift = 64 - 8 * size as u32;
                Token::Int((((raw << shift) as i64) >> shift).into())
            }
            0xd9..=0xdb => {
                let len = self.length(1 << (marker - 0xd9), "a string length")?;
                return self.string(len, start);
            }
            0xdc | 0xdd => {
                Token::Array(Some(self.length(2 << (marker - 0xdc), "an array length")?))
            }
            0xde | 0xdf => Token::Map(Some(self.length(2 << (marker - 0xde), "a map length")?)),
            0xe0..=0xff => Token::Int(i128::from(marker as i8)),
            0xc1 | 0xc7..=0xc9 | 0xd4..=0xd8 => {
                return Err(Fault::corrupt(
                    format!("MessagePack marker 0x{marker:02x}, which no Burn record contains"),
                    start,
                ))
            }
        })
    }

    fn bytes(
        &mut self,
        len: u64,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<(), Fault> {
        self.input.stream(len, "tensor bytes", sink)
    }

    fn finish(&mut self) -> Result<(), Fault> {
        let offset = self.input.offset();
        match self.input.peek("the end of the record")? {
            None => Ok(()),
            Some(_) => Err(Fault::corrupt("data follows the end of the record", offset)),
        }
    }
}
