//! Base64url without padding (RFC 4648 §5), the share links' encoding. Written here rather than
//! taken from the `base64` crate: the page needs one alphabet and no padding, and the crate's
//! general-purpose engine was ~2 KiB of the gzipped page (its code, decode tables and ~60 panic
//! locations). A bad link gets a typed, located error.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Why a text is not base64url.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// A character outside the alphabet, at this byte offset.
    BadCharacter { at: usize, byte: u8 },
    /// A length of 4k + 1 characters: the last one cannot hold a whole byte.
    BadLength(usize),
    /// The last character has bits set past the data (a canonical encoder writes zeros there).
    TrailingBits { at: usize },
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Read by whoever opened a link: what happened to it and what to do, in plain words
        // (the share link's message wraps this one).
        match self {
            Base64Error::BadCharacter { at, byte } if byte.is_ascii_graphic() => {
                write!(f, "`{}` at offset {at} is not a character a link's data holds: the link was changed on the way; copy it again", *byte as char)
            }
            Base64Error::BadCharacter { at, byte } => {
                write!(f, "byte {byte:#04x} at offset {at} is not a character a link's data holds: the link was changed on the way; copy it again")
            }
            Base64Error::BadLength(n) => {
                write!(f, "the link looks cut off: its data ({n} characters) stops part-way through a byte; copy the whole link again")
            }
            Base64Error::TrailingBits { at } => {
                write!(f, "the link looks cut off or changed: its last character, at offset {at}, does not end the data; copy the whole link again")
            }
        }
    }
}

impl std::error::Error for Base64Error {}

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        // 2, 3 or 4 characters for 1, 2 or 3 bytes.
        for k in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

fn value(byte: u8) -> Option<u32> {
    let v = match byte {
        b'A'..=b'Z' => byte - b'A',
        b'a'..=b'z' => byte - b'a' + 26,
        b'0'..=b'9' => byte - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let text = text.as_bytes();
    if text.len() % 4 == 1 {
        return Err(Base64Error::BadLength(text.len()));
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for (c, chunk) in text.chunks(4).enumerate() {
        let mut n = 0u32;
        for (k, &byte) in chunk.iter().enumerate() {
            let v = value(byte).ok_or(Base64Error::BadCharacter { at: c * 4 + k, byte })?;
            n |= v << (18 - 6 * k);
        }
        // 2, 3 or 4 characters carry 1, 2 or 3 bytes; the bits past them must be zero.
        let bytes = chunk.len() - 1;
        if n & (0x00ff_ffff >> (8 * bytes)) != 0 {
            return Err(Base64Error::TrailingBits { at: c * 4 + chunk.len() - 1 });
        }
        out.extend_from_slice(&n.to_be_bytes()[1..=bytes]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;

    #[test]
    fn rfc_4648_vectors() {
        for (plain, coded) in [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        // The URL-safe characters stand for 62 and 63.
        assert_eq!(encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(decode("-_8").unwrap(), [0xfb, 0xff]);
    }

    /// Every length 0..=40 of a fixed byte sequence, against the `base64` crate's encoding
    /// (a dev-dependency only).
    #[test]
    fn agrees_with_the_base64_crate() {
        let bytes: Vec<u8> = (0..40u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for n in 0..=bytes.len() {
            let coded = encode(&bytes[..n]);
            assert_eq!(coded, URL_SAFE_NO_PAD.encode(&bytes[..n]), "n = {n}");
            assert_eq!(decode(&coded).unwrap(), &bytes[..n], "n = {n}");
        }
    }

    #[test]
    fn bad_texts_are_refused_with_their_place() {
        assert_eq!(decode("Zm9v!A"), Err(Base64Error::BadCharacter { at: 4, byte: b'!' }));
        assert_eq!(decode("Zm9v+A"), Err(Base64Error::BadCharacter { at: 4, byte: b'+' }), "the standard alphabet's 62");
        assert_eq!(decode("Zm9vY"), Err(Base64Error::BadLength(5)));
        assert_eq!(decode("Zh"), Err(Base64Error::TrailingBits { at: 1 }), "`Zg` is the canonical `f`");
        assert_eq!(decode("Zm9"), Err(Base64Error::TrailingBits { at: 2 }));
        for text in ["Zm9v!A", "Zm9v+A", "Zm9vY", "Zh", "Zm9"] {
            assert!(URL_SAFE_NO_PAD.decode(text).is_err(), "the base64 crate refuses `{text}` too");
        }
        assert!(Base64Error::BadCharacter { at: 4, byte: b'!' }.to_string().starts_with("`!` at offset 4 is not a character a link's data holds"));
        assert!(Base64Error::BadCharacter { at: 0, byte: 0xc3 }.to_string().starts_with("byte 0xc3 at offset 0 is not a character"));
        // A link cut by a chat client or a line break: plain words, no arithmetic.
        let cut = Base64Error::BadLength(465).to_string();
        assert!(cut.starts_with("the link looks cut off") && cut.contains("copy the whole link again") && !cut.contains("4k"), "{cut}");
    }
}
