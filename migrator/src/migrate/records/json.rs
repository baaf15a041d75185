//! JSON (`PrettyJsonFileRecorder`, `JsonGzFileRecorder`): `serde_json` writes structs as
//! objects, `None` and empty records as `null`, enums as `{"Variant": value}`, and tensor
//! bytes as an array of numbers. A pull reader that tracks where in an object or array it
//! is, so that the tree builder sees the same tokens as from MessagePack.

use std::io;

use super::error::Fault;
use super::input::Input;
use super::tree::{Decoder, Token};

pub(super) struct Json {
    pub(super) input: Input,
    frames: Vec<Frame>,
    /// The text of the number being read (reused: tensor bytes are one number each).
    number: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// In an object: before the first key, after a key, after a value.
    ObjectStart,
    ObjectKey,
    ObjectValue,
    /// In an array: before the first value, after a value.
    ArrayStart,
    ArrayValue,
}

impl Json {
    pub(super) fn new(input: Input) -> Self {
        Self {
            input,
            frames: Vec::new(),
            number: String::new(),
        }
    }

    fn skip_whitespace(&mut self) -> Result<Option<u8>, Fault> {
        let whitespace = |b: u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t');
        self.input.take_while("whitespace", whitespace, |_| {})?;
        self.input.peek("a JSON value")
    }

    /// The next non-whitespace byte, consumed.
    fn next_byte(&mut self, what: &str) -> Result<u8, Fault> {
        match self.skip_whitespace()? {
            Some(_) => self.input.byte(what),
            None => Err(Fault::truncated(
                format!("the data ends where {what} should be"),
                self.input.offset(),
            )),
        }
    }

    fn expect(&mut self, wanted: u8, what: &str) -> Result<(), Fault> {
        let offset = self.input.offset();
        let byte = self.next_byte(what)?;
        if byte == wanted {
            Ok(())
        } else {
            Err(Fault::corrupt(
                format!("expected {what}, found `{}`", char::from(byte)),
                offset,
            ))
        }
    }

    fn set(&mut self, frame: Frame) {
        if let Some(last) = self.frames.last_mut() {
            *last = frame;
        }
    }

    fn value(&mut self) -> Result<Token, Fault> {
        let offset = self.input.offset();
        let first = self.next_byte("a value")?;
        // The enclosing container has its value, whatever it is.
        match self.frames.last() {
            Some(Frame::ObjectKey) => self.set(Frame::ObjectValue),
            Some(Frame::ArrayStart | Frame::ArrayValue) => self.set(Frame::ArrayValue),
            _ => {}
        }
        match first {
            b'{' => {
                self.frames.push(Frame::ObjectStart);
                Ok(Token::Map(None))
            }
            b'[' => {
                self.frames.push(Frame::ArrayStart);
                Ok(Token::Array(None))
            }
            b'"' => self.string(offset).map(Token::Str),
            b't' => self.word(b"rue", Token::Bool(true), offset),
            b'f' => self.word(b"alse", Token::Bool(false), offset),
            b'n' => self.word(b"ull", Token::Null, offset),
            b'-' | b'0'..=b'9' => self.number(first, offset),
            other => Err(Fault::corrupt(
                format!("`{}` where a JSON value should start", char::from(other)),
                offset,
            )),
        }
    }

    fn word(&mut self, rest: &[u8], token: Token, offset: u64) -> Result<Token, Fault> {
        let mut buffer = vec![0u8; rest.len()];
        self.input.exact(&mut buffer, "a JSON literal")?;
        if buffer == rest {
            Ok(token)
        } else {
            Err(Fault::corrupt("an unknown JSON literal", offset))
        }
    }

    fn number(&mut self, first: u8, offset: u64) -> Result<Token, Fault> {
        let Json { input, number, .. } = self;
        number.clear();
        number.push(char::from(first));
        let numeric = |b: u8| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-');
        input.take_while("a number", numeric, |b| number.push(char::from(b)))?;
        let text = number.as_str();
        if let Ok(int) = text.parse::<i128>() {
            return Ok(Token::Int(int));
        }
        text.parse::<f64>()
            .map(Token::Float)
            .map_err(|_| Fault::corrupt(format!("`{text}` is not a number"), offset))
    }

    fn string(&mut self, offset: u64) -> Result<String, Fault> {
        let mut bytes = Vec::new();
        loop {
            match self.input.byte("a string")? {
                b'"' => break,
                b'\\' => {
                    let escape = self.input.byte("a string escape")?;
                    let decoded = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape(offset)?,
                        _ => return Err(Fault::corrupt("an invalid string escape", offset)),
                    };
                    let mut utf8 = [0u8; 4];
                    bytes.extend_from_slice(decoded.encode_utf8(&mut utf8).as_bytes());
                }
                byte => bytes.push(byte),
            }
        }
        String::from_utf8(bytes).map_err(|_| Fault::corrupt("a string that is not UTF-8", offset))
    }

    fn hex4(&mut self, offset: u64) -> Result<u32, Fault> {
        let mut digits = [0u8; 4];
        self.input.exact(&mut digits, "a \\u escape")?;
        std::str::from_utf8(&digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| Fault::corrupt("an invalid \\u escape", offset))
    }

    fn unicode_escape(&mut self, offset: u64) -> Result<char, Fault> {
        let high = self.hex4(offset)?;
        let code = if (0xd800..0xdc00).contains(&high) {
            let mut marker = [0u8; 2];
            self.input.exact(&mut marker, "a \\u escape")?;
            let low = self.hex4(offset)?;
            if marker != *b"\\u" || !(0xdc00..0xe000).contains(&low) {
                return Err(Fault::corrupt("an unpaired UTF-16 surrogate", offset));
            }
            0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
        } else {
            high
        };
        char::from_u32(code).ok_or_else(|| Fault::corrupt("an invalid \\u escape", offset))
    }
}

impl Decoder for Json {
    fn offset(&self) -> u64 {
        self.input.offset()
    }

    fn token(&mut self) -> Result<Token, Fault> {
        let offset = self.input.offset();
        match self.frames.last().copied() {
            None => self.value(),
            Some(Frame::ObjectKey) => {
                self.expect(b':', "`:` after an object key")?;
                self.value()
            }
            Some(frame @ (Frame::ObjectStart | Frame::ObjectValue)) => {
                let byte = self.next_byte("an object key or `}`")?;
                let byte = match (frame, byte) {
                    (_, b'}') => {
                        self.frames.pop();
                        return Ok(Token::End);
                    }
                    (Frame::ObjectValue, b',') => self.next_byte("an object key")?,
                    (Frame::ObjectStart, byte) => byte,
                    (_, other) => {
                        return Err(Fault::corrupt(
                            format!("expected `,` or `}}`, found `{}`", char::from(other)),
                            offset,
                        ))
                    }
                };
                if byte != b'"' {
                    return Err(Fault::corrupt("an object key that is not a string", offset));
                }
                let key = self.string(offset)?;
                self.set(Frame::ObjectKey);
                Ok(Token::Str(key))
            }
            Some(frame @ (Frame::ArrayStart | Frame::ArrayValue)) => {
                match self.skip_whitespace()? {
                    Some(b']') => {
                        self.input.byte("`]`")?;
                        self.frames.pop();
                        return Ok(Token::End);
                    }
                    Some(b',') if frame == Frame::ArrayValue => {
                        self.input.byte("`,`")?;
                    }
                    Some(other) if frame == Frame::ArrayValue => {
                        return Err(Fault::corrupt(
                            format!("expected `,` or `]`, found `{}`", char::from(other)),
                            offset,
                        ))
                    }
                    _ => {}
                }
                self.value()
            }
        }
    }

    fn bytes(
        &mut self,
        _len: u64,
        _sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<(), Fault> {
        // `token` never yields `Token::Bytes`: JSON writes bytes as arrays of numbers.
        Err(Fault::corrupt("binary data in JSON", self.input.offset()))
    }

    fn finish(&mut self) -> Result<(), Fault> {
        let offset = self.input.offset();
        match self.skip_whitespace()? {
            None => Ok(()),
            Some(_) => Err(Fault::corrupt("data follows the end of the record", offset)),
        }
    }
}
