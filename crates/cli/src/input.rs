//! Reading an input file (a scenario, a probe result) with a size cap that holds while
//! reading: a regular file's length is checked before anything is allocated, and every file
//! (a pipe, `/dev/zero`) is read through `Read::take(cap + 1)`, so no more than `cap + 1`
//! bytes are ever read or kept, whatever the file claims. An input is text: each chunk is
//! checked as it arrives, and the first byte that is not UTF-8, or a NUL byte, ends the read
//! with its byte offset (and line and column), so binary junk costs one chunk, not the cap.
//! A scenario is also checked by its parser as it is read ([`read_checked`]), so a text the
//! parser refuses early costs what was read up to there; a regular file is read twice for it,
//! the first time without keeping the text; a pipe, which cannot be read twice, is copied to a
//! temporary file as it is checked, so text that nothing refuses is held on disk, not in memory,
//! up to the cap.

use std::convert::Infallible;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Why a checked read stopped: the input, or the check's refusal of the text read so far.
#[derive(Debug)]
pub enum Stopped<E> {
    Input(InputError),
    Refused(E),
}

impl From<Stopped<Infallible>> for InputError {
    fn from(s: Stopped<Infallible>) -> InputError {
        match s {
            Stopped::Input(e) => e,
            Stopped::Refused(never) => match never {},
        }
    }
}

/// `path` opened, with its length when it is a regular file (refused when longer than `cap`,
/// before reading a byte); devices and pipes report none and are caught by the counting read.
fn open(path: &str, cap: u64) -> Result<(File, Option<u64>), InputError> {
    let file = File::open(path).map_err(InputError::Io)?;
    let declared = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if let Some(size) = declared.filter(|&n| n > cap) {
        return Err(InputError::TooLarge { cap, size: Some(size) });
    }
    Ok((file, declared))
}

/// Read `path` as text of at most `cap` bytes.
pub fn read_text(path: &str, cap: u64) -> Result<String, InputError> {
    let (file, declared) = open(path, cap)?;
    read_bounded(file, cap, declared.unwrap_or(0))
}

/// What a check of the pieces read so far asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checking {
    /// The next piece (or the end).
    More,
    /// Nothing more: no piece to come can change its answer (a JSON text, which only the walk
    /// checks). A regular file is then not read further before the walk.
    Settled,
}

/// Read `path` as text of at most `cap` bytes, handing each piece to `check` in order as it is
/// read (`Some(piece)`), then the end (`None`), until it is [`Checking::Settled`]; then the whole
/// file to `walk` (a second check that reads for itself); their first refusal ends the read. The
/// text is kept only once both took all of it: a regular file is read again, whole (and checked
/// as text then, when the check settled early); a pipe or a device, which cannot be read again,
/// is copied to a temporary file as it is checked ([`read_checked_once`]).
pub fn read_checked<E>(
    path: &str,
    cap: u64,
    mut check: impl FnMut(Option<&str>) -> Result<Checking, E>,
    walk: impl FnOnce(&mut dyn Read) -> Result<(), E>,
) -> Result<String, Stopped<E>> {
    let (mut file, declared) = open(path, cap).map_err(Stopped::Input)?;
    let Some(size) = declared else { return read_checked_once(file, cap, check, walk) };
    read_pieces(&mut file, cap, |piece| match check(piece).map_err(Stopped::Refused)? {
        Checking::More => Ok(ControlFlow::Continue(())),
        Checking::Settled => Ok(ControlFlow::Break(())),
    })?;
    walked_then_read(file, size, cap, walk)
}

/// [`read_checked`] of `r`, read once: each piece is checked, then written to a temporary file
/// (removed as soon as it is created, so none is left behind on any path; the open handle keeps
/// it until the read ends), which `walk` reads, then is read back whole. Text that no check
/// refuses is held on disk, not in memory, until it is refused or accepted.
pub fn read_checked_once<E>(
    r: impl Read,
    cap: u64,
    mut check: impl FnMut(Option<&str>) -> Result<Checking, E>,
    walk: impl FnOnce(&mut dyn Read) -> Result<(), E>,
) -> Result<String, Stopped<E>> {
    let io = |e| Stopped::Input(InputError::Io(e));
    let mut spill = temporary().map_err(io)?;
    let mut size = 0;
    let mut checking = Checking::More;
    read_pieces(r, cap, |piece| {
        if checking == Checking::More {
            checking = check(piece).map_err(Stopped::Refused)?;
        }
        let piece = piece.unwrap_or_default();
        size += piece.len() as u64;
        spill.write_all(piece.as_bytes()).map_err(io)?;
        Ok(ControlFlow::Continue(()))
    })?;
    walked_then_read(spill, size, cap, walk)
}

/// `file`, of `size` bytes of text, handed to `walk` from its start, then read whole.
fn walked_then_read<E>(mut file: File, size: u64, cap: u64, walk: impl FnOnce(&mut dyn Read) -> Result<(), E>) -> Result<String, Stopped<E>> {
    let io = |e| Stopped::Input(InputError::Io(e));
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    walk(&mut io::BufReader::with_capacity(CHUNK, (&mut file).take(size))).map_err(Stopped::Refused)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    read_bounded(file, cap, size).map_err(Stopped::Input)
}

/// What names a temporary file of this process (then a number): nothing else starts this way.
fn temporary_prefix() -> String {
    format!("blast-input-{}-", std::process::id())
}

/// A new file in the temporary directory, open to read and write (by its owner only), already
/// removed from the directory.
fn temporary() -> io::Result<File> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!("{}{}", temporary_prefix(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// Read all of `r` if it is text of at most `cap` bytes, checking each chunk as it is read;
/// `hint` sizes the buffer (never past `cap`).
pub fn read_bounded(r: impl Read, cap: u64, hint: u64) -> Result<String, InputError> {
    let mut text = String::with_capacity(hint.min(cap) as usize);
    read_pieces(r, cap, |piece| {
        text.push_str(piece.unwrap_or_default());
        Ok::<_, Stopped<Infallible>>(ControlFlow::Continue(()))
    })?;
    Ok(text)
}

/// Read `r` a chunk at a time, up to `cap` bytes, and hand each piece of text to `each` in
/// order as soon as it is known to be text, then `None` at the end, until `each` breaks.
fn read_pieces<E>(r: impl Read, cap: u64, mut each: impl FnMut(Option<&str>) -> Result<ControlFlow<()>, Stopped<E>>) -> Result<(), Stopped<E>> {
    let stop = Stopped::Input;
    let mut r = r.take(cap.saturating_add(1));
    let mut chunk = vec![0; CHUNK];
    // Bytes read and not handed on: a chunk, and at most a character cut by the end of the
    // chunk before it, checked again with the next one. `at` is the place of its first byte.
    let mut pending: Vec<u8> = Vec::with_capacity(CHUNK + 4);
    let mut at = Place { offset: 0, line: 1, line_start: 0 };
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(stop(InputError::Io(e))),
        };
        if (at.offset + pending.len() + n) as u64 > cap {
            return Err(stop(InputError::TooLarge { cap, size: None }));
        }
        pending.extend_from_slice(&chunk[..n]);
        let (piece, bad) = match std::str::from_utf8(&pending) {
            Ok(text) => (text, false),
            // A character cut by the end of the chunk is checked again with the next one.
            Err(e) => (std::str::from_utf8(&pending[..e.valid_up_to()]).expect("valid up to there"), e.error_len().is_some()),
        };
        if let Some(nul) = piece.bytes().position(|b| b == 0) {
            return Err(stop(at.not_text(&pending, nul, NotText::Nul)));
        }
        if bad {
            return Err(stop(at.not_text(&pending, piece.len(), NotText::InvalidUtf8)));
        }
        if each(Some(piece))?.is_break() {
            return Ok(());
        }
        let used = piece.len();
        at.advance(&pending[..used]);
        pending.drain(..used);
    }
    if !pending.is_empty() {
        return Err(stop(at.not_text(&pending, 0, NotText::InvalidUtf8)));
    }
    each(None).map(|_| ())
}

/// The place of a byte of the input: its offset, its line and where that line starts.
#[derive(Clone, Copy)]
struct Place {
    offset: usize,
    line: usize,
    line_start: usize,
}

impl Place {
    /// The place after `bytes`, which start here.
    fn advance(&mut self, bytes: &[u8]) {
        self.line += bytes.iter().filter(|&&b| b == b'\n').count();
        if let Some(p) = bytes.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.offset + p + 1;
        }
        self.offset += bytes.len();
    }

    /// The refusal of `bytes[k]`, where `bytes` start here.
    fn not_text(&self, bytes: &[u8], k: usize, why: NotText) -> InputError {
        let mut at = *self;
        at.advance(&bytes[..k]);
        InputError::NotText { offset: at.offset, line: at.line, col: 1 + at.offset - at.line_start, why }
    }
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

    /// An endless source of `pattern` over and over that counts the bytes it handed out.
    struct Endless<'a> {
        pattern: &'a [u8],
        given: &'a mut u64,
    }

    impl Read for Endless<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let at = (*self.given % self.pattern.len() as u64) as usize;
            for (i, b) in buf.iter_mut().enumerate() {
                *b = self.pattern[(at + i) % self.pattern.len()];
            }
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
        let r = read_bounded(Endless { pattern: b"x", given: &mut given }, 1000, 0);
        assert!(matches!(r, Err(InputError::TooLarge { cap: 1000, size: None })), "{r:?}");
        assert_eq!(given, 1001, "read exactly one byte past the cap");
    }

    #[test]
    fn endless_binary_junk_is_refused_after_one_chunk_at_its_first_bad_byte() {
        for (byte, why) in [(0, NotText::Nul), (0xff, NotText::InvalidUtf8)] {
            let mut given = 0;
            let r = read_bounded(Endless { pattern: &[byte], given: &mut given }, 64_000_000, 0);
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
    fn an_endless_pipe_of_declarations_is_refused_at_the_first_past_a_cap_not_at_the_size_cap() {
        let mut given = 0;
        let mut reading = blast_engine::dsl::Reading::new();
        let r = read_checked_once(
            Endless { pattern: b"class A { m }\n", given: &mut given },
            64_000_000,
            |p| reading.feed(p.unwrap_or_default()).map(|()| Checking::More),
            |_| Ok(()),
        );
        let Err(Stopped::Refused(e)) = r else { panic!("{r:?}") };
        assert_eq!(e.to_string(), "100001:1: at most 100,000 classes; this is number 100,001");
        // 100,001 lines of 14 bytes, and the chunk that holds the next.
        assert!(given < 1_400_014 + 2 * CHUNK as u64, "{given} bytes read");
    }

    #[test]
    fn a_file_checked_as_it_is_read_is_refused_as_its_parse_refuses_it_or_read_whole() {
        let check = |name: &str, text: &str| {
            let path = std::env::temp_dir().join(format!("blast-input-checked-{name}-{}.blast", std::process::id()));
            std::fs::write(&path, text).unwrap();
            let mut reading = blast_engine::dsl::Reading::new();
            let r = read_checked(
                path.to_str().unwrap(),
                64_000_000,
                |p| match p {
                    Some(p) => reading.feed(p).map(|()| Checking::More),
                    None => reading.finish().map(|()| Checking::More),
                },
                |_| Ok(()),
            );
            std::fs::remove_file(&path).unwrap();
            r
        };
        let past_cap: String = (0..120_000).map(|i| format!("class K{i} {{ m }}\n")).collect();
        let whole = blast_engine::dsl::parse_any(&past_cap).unwrap_err().to_string();
        assert!(matches!(check("refused", &past_cap), Err(Stopped::Refused(e)) if e.to_string() == whole), "{whole}");
        let valid = format!("class A {{ m }}\n{}op {{ loop 1 {{ call s0 }} }}\n", (0..20_000).map(|i| format!("site s{i} = A.m\n")).collect::<String>());
        assert!(blast_engine::dsl::parse_any(&valid).is_ok());
        assert_eq!(check("valid", &valid).unwrap(), valid);
    }

    #[test]
    fn a_settled_check_reads_a_file_no_further_and_the_text_is_still_checked_when_read_whole() {
        // Four chunks of JSON: the check settles at its first piece, the walk reads it all, and
        // text that is not text past the first piece is refused when the file is read whole.
        let json = format!("{{\"classes\": [{}{{\"name\": \"Z\"}}]}}", "{\"name\": \"K\"}, ".repeat(4 * CHUNK / 16));
        let read = |name: &str, bytes: &[u8]| {
            let path = std::env::temp_dir().join(format!("blast-input-settled-{name}-{}.json", std::process::id()));
            std::fs::write(&path, bytes).unwrap();
            let (mut pieces, mut walked) = (0, 0);
            let r = read_checked(
                path.to_str().unwrap(),
                64_000_000,
                |_| {
                    pieces += 1;
                    Ok::<_, String>(Checking::Settled)
                },
                |r| {
                    walked = io::copy(r, &mut io::sink()).unwrap();
                    Ok(())
                },
            );
            std::fs::remove_file(&path).unwrap();
            (r, pieces, walked)
        };
        let (r, pieces, walked) = read("valid", json.as_bytes());
        assert_eq!((r.unwrap(), pieces, walked), (json.clone(), 1, json.len() as u64));
        let mut bad = json.clone().into_bytes();
        let at = 3 * CHUNK + 7;
        bad[at] = 0xff;
        let (r, pieces, _) = read("bad", &bad);
        assert_eq!(pieces, 1);
        assert!(matches!(r, Err(Stopped::Input(InputError::NotText { offset, why: NotText::InvalidUtf8, .. })) if offset == at), "{r:?}");
    }

    #[test]
    fn a_file_longer_than_the_cap_is_refused_by_its_length_before_reading() {
        let path = std::env::temp_dir().join(format!("blast-input-cap-{}.txt", std::process::id()));
        std::fs::write(&path, "x".repeat(100)).unwrap();
        let r = read_text(path.to_str().unwrap(), 99);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(r, Err(InputError::TooLarge { cap: 99, size: Some(100) })), "{r:?}");
    }

    /// The temporary files of this process in the temporary directory.
    fn temporaries() -> usize {
        let prefix = temporary_prefix();
        std::fs::read_dir(std::env::temp_dir()).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(&prefix)).count()
    }

    #[test]
    fn a_pipe_is_kept_on_disk_while_checked_and_leaves_no_file_behind() {
        // Accepted: the text as it was read, walked whole; refused by the check, by the walk,
        // by the size cap: no temporary file is ever seen in the directory, while reading or after.
        let text = "# c\n".repeat(100_000) + "class A { m }\n";
        let mut walked = String::new();
        let seen = std::cell::Cell::new(0);
        let r = read_checked_once(
            text.as_bytes(),
            64_000_000,
            |_| {
                seen.set(seen.get() + temporaries());
                Ok::<_, String>(Checking::More)
            },
            |r| {
                r.read_to_string(&mut walked).unwrap();
                Ok(())
            },
        );
        assert_eq!(r.unwrap(), text);
        assert_eq!(walked, text);
        let refused = read_checked_once(text.as_bytes(), 64_000_000, |p| if p.is_some() { Ok(Checking::More) } else { Err("at the end") }, |_| Ok(()));
        assert!(matches!(refused, Err(Stopped::Refused("at the end"))), "{refused:?}");
        let refused = read_checked_once(text.as_bytes(), 64_000_000, |_| Ok(Checking::More), |_| Err("by the walk"));
        assert!(matches!(refused, Err(Stopped::Refused("by the walk"))), "{refused:?}");
        let mut given = 0;
        let refused = read_checked_once(Endless { pattern: b"# c\n", given: &mut given }, 1_000_000, |_| Ok::<_, String>(Checking::More), |_| Ok(()));
        assert!(matches!(refused, Err(Stopped::Input(InputError::TooLarge { cap: 1_000_000, size: None }))), "{refused:?}");
        assert_eq!((seen.get(), temporaries()), (0, 0));
    }
}
