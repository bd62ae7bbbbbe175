//! Where a command's output goes: stdout (or a test's buffer) through one buffered writer whose
//! every failure is an [`OutError`] value (`CliError::Output` once it reaches a command).
//! Nothing in `blast` uses `print!`: Rust ignores SIGPIPE, so a closed pipe or a full disk makes a write return an error, and `print!` turns
//! that error into a panic (an abort in the release profile). Here it ends the command instead:
//! quietly with exit 0 on a broken pipe (as `grep` and `rg` do), with one line on stderr and
//! exit 74 (`EXIT_OUTPUT`) on any other failure (`crate::run`; tests/closed_output.rs drives
//! every printing command into writers that fail).
//!
//! Big outputs are streamed: JSON goes through `serde_json::to_writer_pretty` straight into the
//! buffer, and row-by-row outputs (`sweep`, CSV) are flushed as each row is complete, so a
//! reader sees partial results and a 450 MB report is never one `String`.

use std::io::{self, BufWriter, Write};

use serde::Serialize;

/// Why the output could not be written.
#[derive(Debug)]
pub enum OutError {
    /// The writer refused bytes (a closed pipe, a full disk).
    Write(io::Error),
    /// A value could not be encoded as JSON (not a write failure).
    Encode(serde_json::Error),
}

impl OutError {
    /// Whether the reader went away (`head`, a closed pager): the one failure that ends
    /// `blast` quietly and successfully.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, OutError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }

    fn from_json(e: serde_json::Error) -> OutError {
        if e.is_io() {
            OutError::Write(e.into())
        } else {
            OutError::Encode(e)
        }
    }
}

impl std::fmt::Display for OutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutError::Write(e) => write!(f, "cannot write the output: {e}"),
            OutError::Encode(e) => write!(f, "cannot encode the output as JSON: {e}"),
        }
    }
}

pub struct Out<'a> {
    w: BufWriter<&'a mut dyn Write>,
}

impl<'a> Out<'a> {
    pub fn new(w: &'a mut dyn Write) -> Out<'a> {
        Out { w: BufWriter::with_capacity(64 * 1024, w) }
    }

    /// Write `s` as it is.
    pub fn text(&mut self, s: &str) -> Result<(), OutError> {
        self.w.write_all(s.as_bytes()).map_err(OutError::Write)
    }

    /// `value` as pretty JSON and a newline, encoded straight into the writer.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), OutError> {
        serde_json::to_writer_pretty(&mut self.w, value).map_err(OutError::from_json)?;
        self.text("\n")
    }

    /// Push what is buffered to the writer: after each row of a streamed table, and at the end.
    pub fn flush(&mut self) -> Result<(), OutError> {
        self.w.flush().map_err(OutError::Write)
    }
}

/// How many bytes [`Out::json`] writes for `value`, counted without keeping them.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> Result<u64, OutError> {
    struct Count(u64);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer_pretty(&mut count, value).map_err(OutError::from_json)?;
    Ok(count.0 + 1)
}
