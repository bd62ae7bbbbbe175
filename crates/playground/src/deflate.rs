//! Raw deflate (RFC 1951) for the texts share links and autosave carry: a scenario's text is
//! repetitive (a 5,000-class chain is one line pattern 5,000 times), so a link or an autosave
//! entry holds several times more once deflated. `miniz_oxide`: pure Rust, builds for wasm32.
//!
//! Reading is bounded while it inflates: `inflate` stops at `limit` bytes of output, so a few
//! KB of hostile input never becomes gigabytes of text.

use std::fmt;

/// miniz's level 2 for links: on scenario texts both smaller and faster than its default 6
/// (the 5,000-class chain of `share::tests`, 127,772 bytes: level 2 21,634 bytes, 6 and 9
/// 25,782; level 1 33,006, its greedy matches short on such repetitive text).
const LINK_LEVEL: u8 = 2;

/// miniz's level 1, its fastest, for autosave: it deflates a big text at every save, in a task
/// of the page's, so speed counts more than the last bytes. On the 3.5 MB text of a 10^5-site
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
    miniz_oxide::deflate::compress_to_vec(text.as_bytes(), LINK_LEVEL)
}

/// `text` deflated for autosave (faster; read back by the same [`inflate`]), or `None` once
/// its deflated bytes pass `limit`: deflating stops there, so a text too big to keep costs the
/// work of `limit` bytes of output, not of the whole text (a 38.6 MB scenario file deflated
/// whole for an autosave it could not fit was a task of ~200 ms of CPU on the page).
pub fn deflate_fast_within(text: &str, limit: usize) -> Option<Vec<u8>> {
    use miniz_oxide::deflate::core::{compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};
    // Raw deflate (window bits -15, default strategy), as `compress_to_vec`.
    let mut compressor = CompressorOxide::new(create_comp_flags_from_zip_params(SAVE_LEVEL.into(), -15, 0));
    let mut out = vec![0; limit];
    let (mut input, mut at) = (text.as_bytes(), 0);
    loop {
        let (status, read, wrote) = compress(&mut compressor, input, &mut out[at..], TDEFLFlush::Finish);
        at += wrote;
        match status {
            TDEFLStatus::Done => {
                out.truncate(at);
                return Some(out);
            }
            // Progress with room left: go on (the compressor returns when its buffers fill).
            TDEFLStatus::Okay if read + wrote > 0 && read <= input.len() => input = &input[read..],
            // No room left for what it holds: past `limit`.
            _ => return None,
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
    fn deflating_within_a_limit_gives_the_same_bytes_or_stops_past_it() {
        let chain: String = (0..20_000u32).map(|i| format!("class C{i} extends C{} {{ m{i} }}\n", i.saturating_sub(1))).collect();
        for text in [chain, "class A { m }\n".to_string(), String::new()] {
            let whole = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), SAVE_LEVEL);
            assert_eq!(deflate_fast_within(&text, whole.len()).as_ref(), Some(&whole), "exactly its size");
            assert_eq!(deflate_fast_within(&text, whole.len() + 1000).as_ref(), Some(&whole), "room to spare");
            assert_eq!(inflate(&whole, text.len()).unwrap(), text);
            if !whole.is_empty() {
                assert_eq!(deflate_fast_within(&text, whole.len() - 1), None, "one byte short");
            }
            assert_eq!(deflate_fast_within(&text, 0), None, "no room");
        }
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
