//! The record as a tree: what the MessagePack and JSON readers have in common. Everything
//! but tensor bytes is small (names, shapes, ids) and is kept; tensor bytes are streamed to
//! a sink as they are read, and the tree keeps only where they were and how many.

use std::io;

use super::error::Fault;

/// One syntactic item of a self-describing record.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    /// Raw bytes of this length follow; read them with [`Decoder::bytes`].
    Bytes(u64),
    /// A map or array of this many entries, or, when `None`, up to [`Token::End`].
    Map(Option<u64>),
    Array(Option<u64>),
    End,
}

pub(super) trait Decoder {
    fn token(&mut self) -> Result<Token, Fault>;
    /// Streams the bytes announced by [`Token::Bytes`].
    fn bytes(
        &mut self,
        len: u64,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<(), Fault>;
    /// Checks that nothing follows the record.
    fn finish(&mut self) -> Result<(), Fault>;
    fn offset(&self) -> u64;
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    /// A `bytes` field of this many bytes, the `field`-th in the file, starting at `offset`.
    Bytes {
        field: usize,
        len: u64,
        offset: u64,
    },
    Array(Vec<Value>),
    Map(Vec<(String, Value)>),
}

/// Where tensor bytes go as they are read: `start` before each `bytes` field (numbered in
/// file order), then its data in pieces.
pub(super) trait ByteSink {
    fn start(&mut self, field: usize) -> io::Result<()>;
    fn write(&mut self, data: &[u8]) -> io::Result<()>;
}

/// Deeper nesting than this is damage, not a model (and would exhaust the stack).
const MAX_DEPTH: usize = 256;

/// Reads one value and everything in it.
pub(super) struct Builder<'a> {
    decoder: &'a mut dyn Decoder,
    sink: &'a mut dyn ByteSink,
    fields: usize,
    /// Keys and indices from the root to the value being read: where a fault is.
    pub(super) path: Vec<String>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(decoder: &'a mut dyn Decoder, sink: &'a mut dyn ByteSink) -> Self {
        Self {
            decoder,
            sink,
            fields: 0,
            path: Vec::new(),
        }
    }

    /// The whole record, checking that nothing follows it.
    pub(super) fn record(&mut self) -> Result<Value, Fault> {
        let token = self.decoder.token()?;
        let value = self.value(token, false)?;
        self.decoder.finish()?;
        Ok(value)
    }

    fn value(&mut self, token: Token, bytes_field: bool) -> Result<Value, Fault> {
        let offset = self.decoder.offset();
        if self.path.len() > MAX_DEPTH {
            return Err(Fault::corrupt(
                format!("values nested more than {MAX_DEPTH} deep"),
                offset,
            ));
        }
        Ok(match token {
            Token::Null => Value::Null,
            Token::Bool(b) => Value::Bool(b),
            Token::Int(i) => Value::Int(i),
            Token::Float(f) => Value::Float(f),
            Token::Str(s) => Value::Str(s),
            Token::Bytes(len) => {
                let field = self.start_bytes()?;
                let sink = &mut *self.sink;
                self.decoder.bytes(len, &mut |data| sink.write(data))?;
                Value::Bytes { field, len, offset }
            }
            Token::Array(len) => self.array(len, bytes_field, offset)?,
            Token::Map(len) => {
                let mut entries = Vec::new();
                let mut index = 0u64;
                loop {
                    if len == Some(index) {
                        break;
                    }
                    let key_offset = self.decoder.offset();
                    let key = match self.decoder.token()? {
                        Token::End if len.is_none() => break,
                        Token::Str(key) => key,
                        other => {
                            return Err(Fault::corrupt(
                                format!("a map key that is not a name ({other:?}); a named record's maps are keyed by field names"),
                                key_offset,
                            ))
                        }
                    };
                    self.path.push(key.clone());
                    let token = self.decoder.token()?;
                    let value = self.value(token, key == "bytes")?;
                    self.path.pop();
                    entries.push((key, value));
                    index += 1;
                }
                Value::Map(entries)
            }
            Token::End => {
                return Err(Fault::corrupt(
                    "a container closes where a value should be",
                    offset,
                ))
            }
        })
    }

    fn start_bytes(&mut self) -> Result<usize, Fault> {
        let field = self.fields;
        self.fields += 1;
        self.sink.start(field).map_err(Fault::Write)?;
        Ok(field)
    }

    /// An array; the one of a `bytes` field whose first element is a number is tensor data
    /// written as numbers (JSON), streamed like a binary value.
    fn array(&mut self, len: Option<u64>, bytes_field: bool, offset: u64) -> Result<Value, Fault> {
        let mut items = Vec::new();
        let mut index = 0u64;
        let mut streamed: Option<(usize, u64)> = None;
        let mut chunk = Vec::new();
        loop {
            if len == Some(index) {
                break;
            }
            let element_offset = self.decoder.offset();
            self.path.push(index.to_string());
            let token = self.decoder.token()?;
            self.path.pop();
            if token == Token::End && len.is_none() {
                break;
            }
            let as_byte = match &token {
                Token::Int(n) if bytes_field && items.is_empty() => Some(*n),
                _ => None,
            };
            match (as_byte, &mut streamed) {
                (Some(n), _) => {
                    let byte = u8::try_from(n).map_err(|_| {
                        Fault::corrupt(
                            format!("{n} in tensor bytes (bytes are 0 to 255)"),
                            element_offset,
                        )
                    })?;
                    if streamed.is_none() {
                        streamed = Some((self.start_bytes()?, 0));
                    }
                    chunk.push(byte);
                    if chunk.len() == 1 << 16 {
                        self.sink.write(&chunk).map_err(Fault::Write)?;
                        chunk.clear();
                    }
                    if let Some((_, count)) = &mut streamed {
                        *count += 1;
                    }
                }
                (None, Some(_)) => {
                    return Err(Fault::corrupt(
                        format!("{token:?} in tensor bytes (bytes are numbers 0 to 255)"),
                        element_offset,
                    ))
                }
                (None, None) => {
                    self.path.push(index.to_string());
                    let value = self.value(token, false)?;
                    self.path.pop();
                    items.push(value);
                }
            }
            index += 1;
        }
        match streamed {
            Some((field, len)) => {
                self.sink.write(&chunk).map_err(Fault::Write)?;
                Ok(Value::Bytes { field, len, offset })
            }
            None => Ok(Value::Array(items)),
        }
    }
}
