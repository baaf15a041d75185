//! The input byte stream: the record file, gunzipped when it is compressed, read through a
//! buffer with the offset of every byte counted (errors say where they are).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;

use super::error::Fault;

const BUFFER: usize = 1 << 20;

pub(super) struct Input {
    reader: Box<dyn BufRead>,
    offset: u64,
}

impl Input {
    /// Opens `path` from its start, decompressing it when `gzip` is set.
    pub(super) fn open(path: &Path, gzip: bool) -> io::Result<Self> {
        let file = BufReader::with_capacity(BUFFER, File::open(path)?);
        let reader: Box<dyn BufRead> = if gzip {
            Box::new(BufReader::with_capacity(BUFFER, GzDecoder::new(file)))
        } else {
            Box::new(file)
        };
        Ok(Self::new(reader))
    }

    pub(super) fn new(reader: Box<dyn BufRead>) -> Self {
        Self { reader, offset: 0 }
    }

    /// Bytes consumed so far.
    pub(super) fn offset(&self) -> u64 {
        self.offset
    }

    /// The next byte, without consuming it; `None` at the end of the data.
    pub(super) fn peek(&mut self, what: &str) -> Result<Option<u8>, Fault> {
        let offset = self.offset;
        let buffer = self
            .reader
            .fill_buf()
            .map_err(|e| Fault::from_read(e, what, offset))?;
        Ok(buffer.first().copied())
    }

    pub(super) fn byte(&mut self, what: &str) -> Result<u8, Fault> {
        match self.peek(what)? {
            Some(byte) => {
                self.reader.consume(1);
                self.offset += 1;
                Ok(byte)
            }
            None => Err(Fault::truncated(
                format!("the data ends where {what} should start"),
                self.offset,
            )),
        }
    }

    pub(super) fn exact(&mut self, buffer: &mut [u8], what: &str) -> Result<(), Fault> {
        let offset = self.offset;
        self.reader
            .read_exact(buffer)
            .map_err(|e| Fault::from_read(e, what, offset))?;
        self.offset += buffer.len() as u64;
        Ok(())
    }

    /// Consumes bytes while `keep` holds, handing each to `each`; stops before the first
    /// other byte, or at the end of the data. Works on the buffer, not byte by byte.
    pub(super) fn take_while(
        &mut self,
        what: &str,
        keep: impl Fn(u8) -> bool,
        mut each: impl FnMut(u8),
    ) -> Result<(), Fault> {
        loop {
            let offset = self.offset;
            let buffer = self
                .reader
                .fill_buf()
                .map_err(|e| Fault::from_read(e, what, offset))?;
            if buffer.is_empty() {
                return Ok(());
            }
            let taken = buffer
                .iter()
                .position(|&b| !keep(b))
                .unwrap_or(buffer.len());
            buffer[..taken].iter().for_each(|&b| each(b));
            let stopped = taken < buffer.len();
            self.reader.consume(taken);
            self.offset += taken as u64;
            if stopped {
                return Ok(());
            }
        }
    }

    /// Passes the next `len` bytes to `sink` piece by piece, never holding them all.
    pub(super) fn stream(
        &mut self,
        len: u64,
        what: &str,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<(), Fault> {
        let start = self.offset;
        let mut left = len;
        while left > 0 {
            let offset = self.offset;
            let buffer = self
                .reader
                .fill_buf()
                .map_err(|e| Fault::from_read(e, what, offset))?;
            if buffer.is_empty() {
                return Err(Fault::truncated(
                    format!(
                        "{what} declares {len} bytes but the data ends after {}",
                        len - left
                    ),
                    start,
                ));
            }
            let take = buffer
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            sink(&buffer[..take]).map_err(Fault::Write)?;
            self.reader.consume(take);
            self.offset += take as u64;
            left -= take as u64;
        }
        Ok(())
    }
}
