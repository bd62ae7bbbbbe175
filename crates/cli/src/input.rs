//! Reading an input file (a scenario, a probe result) with a size cap that holds while
//! reading: a regular file's length is checked before anything is allocated, and every file
//! (a pipe, `/dev/zero`) is read through `Read::take(cap + 1)`, so no more than `cap + 1`
//! bytes are ever read or kept, whatever the file claims. Text that is not UTF-8 is refused
//! with the byte offset (and line and column) of its first bad byte.

use std::fs::File;
use std::io::{self, Read};

/// Why an input was not read.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// More than `cap` bytes: `size` is the length the file declared, when it declared one
    /// (a pipe or a device does not; it is refused after `cap + 1` bytes were read).
    TooLarge { cap: u64, size: Option<u64> },
    /// Not UTF-8 at byte `offset` (0-based), which is at `line:col` (1-based, col in bytes).
    NotUtf8 { offset: usize, line: usize, col: usize },
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

/// Read all of `r` if it holds at most `cap` bytes; `hint` sizes the buffer (never past `cap`).
pub fn read_bounded(r: impl Read, cap: u64, hint: u64) -> Result<String, InputError> {
    let mut bytes = Vec::with_capacity(hint.min(cap) as usize);
    r.take(cap.saturating_add(1)).read_to_end(&mut bytes).map_err(InputError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(InputError::TooLarge { cap, size: None });
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let col = 1 + offset - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        InputError::NotUtf8 { offset, line, col }
    })
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::TooLarge { cap, size: Some(size) } => write!(f, "{size} bytes; an input may have at most {cap}"),
            InputError::TooLarge { cap, size: None } => write!(f, "more than {cap} bytes; an input may have at most {cap} (stopped reading there)"),
            InputError::NotUtf8 { offset, line, col } => write!(f, "not UTF-8 text: invalid byte at offset {offset} ({line}:{col})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless source of `b'x'` that counts the bytes it handed out.
    struct Endless<'a> {
        given: &'a mut u64,
    }

    impl Read for Endless<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(b'x');
            *self.given += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn an_endless_input_is_refused_after_cap_plus_one_bytes() {
        let mut given = 0;
        let r = read_bounded(Endless { given: &mut given }, 1000, 0);
        assert!(matches!(r, Err(InputError::TooLarge { cap: 1000, size: None })), "{r:?}");
        assert_eq!(given, 1001, "read exactly one byte past the cap");
    }

    #[test]
    fn an_input_of_exactly_the_cap_is_read() {
        assert_eq!(read_bounded(&b"abcd"[..], 4, 4).unwrap(), "abcd");
        assert!(matches!(read_bounded(&b"abcde"[..], 4, 4), Err(InputError::TooLarge { cap: 4, size: None })));
    }

    #[test]
    fn invalid_utf8_is_placed_at_its_byte_offset_line_and_column() {
        let r = read_bounded(&b"ab\ncd\xffe"[..], 100, 0);
        assert!(matches!(r, Err(InputError::NotUtf8 { offset: 5, line: 2, col: 3 })), "{r:?}");
        let e = r.unwrap_err().to_string();
        assert!(e.contains("offset 5") && e.contains("2:3"), "{e}");
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
