//! Raw deflate (RFC 1951) for the texts share links and autosave carry: a scenario's text is
//! repetitive (a 5,000-class chain is one line pattern 5,000 times), so a link or an autosave
//! entry holds several times more once deflated. `miniz_oxide`: pure Rust, builds for wasm32.
//!
//! Reading is bounded while it inflates: `inflate` stops at `limit` bytes of output, so a few
//! KB of hostile input never becomes gigabytes of text.

use std::fmt;

use miniz_oxide::deflate::core::{compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};

/// miniz's level 2 for links: on scenario texts both smaller and faster than its default 6
/// (the 5,000-class chain of `share::tests`, 127,772 bytes: level 2 21,634 bytes, 6 and 9
/// 25,782; level 1 33,006, its greedy matches short on such repetitive text).
const LINK_LEVEL: u8 = 2;

/// miniz's level 1, its fastest, for autosave: it deflates a big text at every save (in the
/// engine worker; measured below when it was a task of the page's), so speed counts more than
/// the last bytes. On the 3.5 MB text of a 10^5-site
/// world (10^4 classes, a loop calling every site), natively in release, best of 5: level 1
/// 678,154 bytes in 6.6 ms, 2 621,021 in 10.8 ms, 3 616,804 in 21.2 ms, 6 (the default)
/// 776,003 in 34.9 ms. In the page that world's autosave task took 40 ms of CPU at level 2 and
/// 27 at level 1 (e2e `scale`, whose target is 50 ms per task).
const SAVE_LEVEL: u8 = 1;

/// Why deflated bytes were not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InflateError {
    /// The text inflates past `limit` bytes (reading stopped there).
    TooLong { limit: usize },
    /// Not raw deflate data (or cut short).
    Corrupt,
    /// The inflated bytes are not UTF-8; `at`: the first bad byte's offset.
    NotUtf8 { at: usize },
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InflateError::TooLong { limit } => write!(f, "it unpacks to more than {} KB of text", limit / 1024),
            InflateError::Corrupt => write!(f, "its packed text is damaged or cut short"),
            InflateError::NotUtf8 { at } => write!(f, "its text is not UTF-8 (byte {at})"),
        }
    }
}

impl std::error::Error for InflateError {}

/// `text` deflated for a share link (smaller).
pub fn deflate(text: &str) -> Vec<u8> {
    Deflater::at(LINK_LEVEL).all(text.as_bytes())
}

/// `text` deflated for autosave (faster); read back by the same [`inflate`].
pub fn deflate_fast(text: &str) -> Vec<u8> {
    Deflater::at(SAVE_LEVEL).all(text.as_bytes())
}

/// miniz_oxide's compressor with an output that grows (its own `compress_to_vec` panics on a
/// status it does not expect; this keeps the output so far).
struct Deflater {
    compressor: CompressorOxide,
    out: Vec<u8>,
    /// Bytes of `out` written (the rest is room for the compressor).
    len: usize,
}

impl Deflater {
    /// Raw deflate (no zlib header: window bits 0) at miniz's `level`, as `compress_to_vec`.
    fn at(level: u8) -> Deflater {
        Deflater { compressor: CompressorOxide::new(create_comp_flags_from_zip_params(level.into(), 0, 0)), out: Vec::new(), len: 0 }
    }

    /// `bytes` deflated whole.
    fn all(mut self, bytes: &[u8]) -> Vec<u8> {
        self.run(bytes, TDEFLFlush::None);
        self.run(&[], TDEFLFlush::Finish);
        self.out.truncate(self.len);
        self.out
    }

    /// Compresses all of `input`, growing the output as `compress_to_vec` does; with `Finish`,
    /// until the stream is done. Any other status is a bug of miniz_oxide's (its own
    /// `compress_to_vec` panics there): the output so far is kept.
    fn run(&mut self, mut input: &[u8], flush: TDEFLFlush) {
        loop {
            if self.out.len() - self.len < 64 {
                let room = (self.out.len() * 2).max(input.len() / 2).max(4096);
                self.out.resize(room, 0);
            }
            let (status, read, wrote) = compress(&mut self.compressor, input, &mut self.out[self.len..], flush);
            self.len += wrote;
            input = &input[read.min(input.len())..];
            match status {
                TDEFLStatus::Done => return,
                TDEFLStatus::Okay if flush == TDEFLFlush::None && input.is_empty() => return,
                TDEFLStatus::Okay => {}
                _ => return,
            }
        }
    }
}

/// The text `bytes` inflate to, at most `limit` bytes of it.
pub fn inflate(bytes: &[u8], limit: usize) -> Result<String, InflateError> {
    use miniz_oxide::inflate::TINFLStatus;
    let out = miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, limit).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => InflateError::TooLong { limit },
        _ => InflateError::Corrupt,
    })?;
    String::from_utf8(out).map_err(|e| InflateError::NotUtf8 { at: e.utf8_error().valid_up_to() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_round_trips_and_a_chain_shrinks() {
        let chain: String = (0..5000u32).map(|i| format!("class C{i} extends C{} {{ m{i} }}\n", i.saturating_sub(1))).collect();
        let packed = deflate(&chain);
        assert!(packed.len() * 4 < chain.len(), "{} -> {}", chain.len(), packed.len());
        assert_eq!(inflate(&packed, chain.len()).unwrap(), chain);
        assert_eq!(inflate(&deflate(""), 0).unwrap(), "");
    }

    #[test]
    fn a_text_deflates_as_miniz_does_and_inflates_to_itself() {
        let world: String = (0..20_000u32).map(|i| format!("site s{i} = C{}.m{}\n", i % 97, i % 13)).collect();
        assert_eq!(deflate_fast(&world), miniz_oxide::deflate::compress_to_vec(world.as_bytes(), SAVE_LEVEL));
        assert_eq!(deflate(&world), miniz_oxide::deflate::compress_to_vec(world.as_bytes(), LINK_LEVEL));
        assert_eq!(inflate(&deflate_fast(&world), world.len()).unwrap(), world);
        assert_eq!(inflate(&deflate_fast(""), 0).unwrap(), "");
    }

    #[test]
    fn reading_stops_at_the_limit_and_bad_bytes_are_errors() {
        let bomb = deflate(&"a".repeat(1 << 20));
        assert!(bomb.len() < 2048, "{}", bomb.len());
        assert_eq!(inflate(&bomb, 1000), Err(InflateError::TooLong { limit: 1000 }));
        assert_eq!(inflate(&bomb, 1 << 20).map(|t| t.len()), Ok(1 << 20));
        let packed = deflate("class A { m }");
        assert_eq!(inflate(&packed[..packed.len() / 2], 1000), Err(InflateError::Corrupt));
        for junk in [&b""[..], b"\xff\xff\xff", b"garbage that is not deflate"] {
            assert!(inflate(junk, 1000).is_err(), "{junk:?}");
        }
        let latin1 = miniz_oxide::deflate::compress_to_vec(b"ab\xe9", 6);
        assert_eq!(inflate(&latin1, 1000), Err(InflateError::NotUtf8 { at: 2 }));
    }
}
