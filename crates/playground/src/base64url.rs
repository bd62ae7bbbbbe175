//! Base64url without padding (RFC 4648 §5), the share links' and packed autosaves' encoding:
//! the `base64` crate's URL-safe engine, its errors as a typed, located `Base64Error` whose
//! words a link's reader understands. (The hand-written codec it replaced was 1.5 KiB smaller
//! gzipped and 5-6x slower: docs/PERFORMANCE.md, "Codecs".)

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::{DecodeError, Engine as _};

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
    URL_SAFE_NO_PAD.encode(bytes)
}

pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    URL_SAFE_NO_PAD.decode(text).map_err(|e| match e {
        DecodeError::InvalidByte(at, byte) => Base64Error::BadCharacter { at, byte },
        DecodeError::InvalidLength(n) => Base64Error::BadLength(n),
        DecodeError::InvalidLastSymbol(at, _) => Base64Error::TrailingBits { at },
        // Padding is refused (this engine writes none): the first `=` is the bad character.
        DecodeError::InvalidPadding => Base64Error::BadCharacter { at: text.find('=').unwrap_or(text.len()), byte: b'=' },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn bad_texts_are_refused_with_their_place() {
        assert_eq!(decode("Zm9v!A"), Err(Base64Error::BadCharacter { at: 4, byte: b'!' }));
        assert_eq!(decode("Zm9v+A"), Err(Base64Error::BadCharacter { at: 4, byte: b'+' }), "the standard alphabet's 62");
        assert_eq!(decode("Zm9vY"), Err(Base64Error::BadLength(5)));
        assert_eq!(decode("Zh"), Err(Base64Error::TrailingBits { at: 1 }), "`Zg` is the canonical `f`");
        assert_eq!(decode("Zm9"), Err(Base64Error::TrailingBits { at: 2 }));
        assert_eq!(decode("Zm9v=="), Err(Base64Error::BadCharacter { at: 4, byte: b'=' }), "no padding");
        assert!(Base64Error::BadCharacter { at: 4, byte: b'!' }.to_string().starts_with("`!` at offset 4 is not a character a link's data holds"));
        assert!(Base64Error::BadCharacter { at: 0, byte: 0xc3 }.to_string().starts_with("byte 0xc3 at offset 0 is not a character"));
        // A link cut by a chat client or a line break: plain words, no arithmetic.
        let cut = Base64Error::BadLength(465).to_string();
        assert!(cut.starts_with("the link looks cut off") && cut.contains("copy the whole link again") && !cut.contains("4k"), "{cut}");
    }
}
