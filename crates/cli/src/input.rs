//! Reading an input file (a scenario, a probe result) with a size cap that holds while
//! reading: a regular file's length is checked before anything is allocated, and every file
//! (a pipe, `/dev/zero`) is read through `Read::take(cap + 1)`, so no more than `cap + 1`
//! bytes are ever read or kept, whatever the file claims. An input is text: each chunk is
//! checked as it arrives, and the first byte that is not UTF-8, or a NUL byte, ends the read
//! with its byte offset (and line and column), so binary junk costs one chunk, not the cap.
//! Valid text longer than the cap through a pipe is held up to the cap before it is refused.

use std::fs::File;
use std::io::{self, Read};

/// Bytes read (and checked) at a time: what a refusal of binary junk costs at most.
pub const CHUNK: usize = 64 * 1024;

/// Why an input was not read.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// More than `cap` bytes: `size` is the length the file declared, when it declared one
    /// (a pipe or a device does not; it is refused after `cap + 1` bytes were read).
    TooLarge { cap: u64, size: Option<u64> },
    /// Not text at byte `offset` (0-based), which is at `line:col` (1-based, col in bytes).
    NotText { offset: usize, line: usize, col: usize, why: NotText },
}

/// What the first byte that is not text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotText {
    /// A byte that does not continue valid UTF-8 (or a sequence cut short by the end).
    InvalidUtf8,
    /// A NUL byte: valid UTF-8, but no scenario or probe result holds one.
    Nul,
}

/// Read `path` as text of at most `cap` bytes.
pub fn read_text(path: &str, cap: u64) -> Result<String, InputError> {
    let file = File::open(path).map_err(InputError::Io)?;
    // A regular file says how long it is: refuse it before reading a byte. Devices and pipes
    // report 0 and are caught by the counting read below.
    let declared = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if let Some(size) = declared.filter(|&n| n > cap) {
        return Err(InputError::TooLarge { cap, size: Some(size) });
    }
    read_bounded(file, cap, declared.unwrap_or(0))
}

/// Read all of `r` if it is text of at most `cap` bytes, checking each chunk as it is read;
/// `hint` sizes the buffer (never past `cap`).
pub fn read_bounded(r: impl Read, cap: u64, hint: u64) -> Result<String, InputError> {
    let mut r = r.take(cap.saturating_add(1));
    let mut bytes = Vec::with_capacity(hint.min(cap) as usize);
    let mut chunk = vec![0; CHUNK];
    // `bytes[..checked]` is text; what follows is at most a multi-byte character cut by the
    // end of the last chunk, checked again with the next one.
    let mut checked = 0;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputError::Io(e)),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > cap {
            return Err(InputError::TooLarge { cap, size: None });
        }
        checked = check_text(&bytes, checked, false)?;
    }
    check_text(&bytes, checked, true)?;
    String::from_utf8(bytes).map_err(|e| not_text(e.as_bytes(), e.utf8_error().valid_up_to(), NotText::InvalidUtf8))
}

/// Check `bytes[from..]`: the length of its longest prefix that is text, or the refusal of
/// its first bad byte. A character cut by the end is bad only at the `end` of the input.
fn check_text(bytes: &[u8], from: usize, end: bool) -> Result<usize, InputError> {
    let (valid, bad) = match std::str::from_utf8(&bytes[from..]) {
        Ok(_) => (bytes.len(), false),
        Err(e) => (from + e.valid_up_to(), end || e.error_len().is_some()),
    };
    if let Some(nul) = bytes[from..valid].iter().position(|&b| b == 0) {
        return Err(not_text(bytes, from + nul, NotText::Nul));
    }
    if bad {
        return Err(not_text(bytes, valid, NotText::InvalidUtf8));
    }
    Ok(valid)
}

/// The refusal of the byte at `offset`, placed by line and column.
fn not_text(bytes: &[u8], offset: usize, why: NotText) -> InputError {
    let before = &bytes[..offset];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let col = 1 + offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    InputError::NotText { offset, line, col, why }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::TooLarge { cap, size: Some(size) } => write!(f, "{size} bytes; an input may have at most {cap}"),
            InputError::TooLarge { cap, size: None } => write!(f, "more than {cap} bytes; an input may have at most {cap} (stopped reading there)"),
            InputError::NotText { offset, line, col, why: NotText::InvalidUtf8 } => {
                write!(f, "not UTF-8 text: invalid byte at offset {offset} ({line}:{col})")
            }
            InputError::NotText { offset, line, col, why: NotText::Nul } => write!(f, "not text: a NUL byte at offset {offset} ({line}:{col})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless source of one byte that counts the bytes it handed out.
    struct Endless<'a> {
        byte: u8,
        given: &'a mut u64,
    }

    impl Read for Endless<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(self.byte);
            *self.given += buf.len() as u64;
            Ok(buf.len())
        }
    }

    /// `text`, handed out `step` bytes per read.
    struct Trickle<'a> {
        text: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.text.len());
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_endless_input_of_text_is_refused_after_cap_plus_one_bytes() {
        let mut given = 0;
        let r = read_bounded(Endless { byte: b'x', given: &mut given }, 1000, 0);
        assert!(matches!(r, Err(InputError::TooLarge { cap: 1000, size: None })), "{r:?}");
        assert_eq!(given, 1001, "read exactly one byte past the cap");
    }

    #[test]
    fn endless_binary_junk_is_refused_after_one_chunk_at_its_first_bad_byte() {
        for (byte, why) in [(0, NotText::Nul), (0xff, NotText::InvalidUtf8)] {
            let mut given = 0;
            let r = read_bounded(Endless { byte, given: &mut given }, 64_000_000, 0);
            assert!(matches!(r, Err(InputError::NotText { offset: 0, line: 1, col: 1, why: w }) if w == why), "{r:?}");
            assert_eq!(given, CHUNK as u64, "one chunk read, not the cap");
        }
    }

    #[test]
    fn an_input_of_exactly_the_cap_is_read() {
        assert_eq!(read_bounded(&b"abcd"[..], 4, 4).unwrap(), "abcd");
        assert!(matches!(read_bounded(&b"abcde"[..], 4, 4), Err(InputError::TooLarge { cap: 4, size: None })));
    }

    #[test]
    fn invalid_utf8_is_placed_at_its_byte_offset_line_and_column() {
        let r = read_bounded(&b"ab\ncd\xffe"[..], 100, 0);
        assert!(matches!(r, Err(InputError::NotText { offset: 5, line: 2, col: 3, why: NotText::InvalidUtf8 })), "{r:?}");
        let e = r.unwrap_err().to_string();
        assert!(e.contains("offset 5") && e.contains("2:3"), "{e}");
    }

    #[test]
    fn a_nul_byte_is_placed_at_its_byte_offset_line_and_column() {
        let r = read_bounded(&b"class A { m }\nclass B\0 { m }"[..], 100, 0);
        assert!(matches!(r, Err(InputError::NotText { offset: 21, line: 2, col: 8, why: NotText::Nul })), "{r:?}");
        assert_eq!(r.unwrap_err().to_string(), "not text: a NUL byte at offset 21 (2:8)");
    }

    #[test]
    fn characters_cut_between_reads_are_joined_and_one_cut_by_the_end_is_refused() {
        let text = "class \u{e9}t\u{e9} { m }\nsite s = \u{e9}t\u{e9}.m // \u{1f600}\n";
        for step in 1..=5 {
            assert_eq!(read_bounded(Trickle { text: text.as_bytes(), step }, 100, 0).unwrap(), text, "{step} bytes per read");
        }
        let cut = &"ab\u{1f600}".as_bytes()[..4];
        let r = read_bounded(Trickle { text: cut, step: 1 }, 100, 0);
        assert!(matches!(r, Err(InputError::NotText { offset: 2, line: 1, col: 3, why: NotText::InvalidUtf8 })), "{r:?}");
    }

    #[test]
    fn a_file_longer_than_the_cap_is_refused_by_its_length_before_reading() {
        let path = std::env::temp_dir().join(format!("blast-input-cap-{}.txt", std::process::id()));
        std::fs::write(&path, "x".repeat(100)).unwrap();
        let r = read_text(path.to_str().unwrap(), 99);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(r, Err(InputError::TooLarge { cap: 99, size: Some(100) })), "{r:?}");
    }
}
