//! `Name`: the text of a name the scenario holds once per site or call (a site's name, receiver
//! class and method; a call's site). At 10^6 sites a `String` each is four heap blocks per
//! site (32 bytes of allocator chunk for a 7-byte name, plus the 24-byte header); a name of up
//! to [`INLINE`] bytes lives inside its 16 bytes instead, and a longer one behind one pointer
//! (a boxed `Box<str>`: two heap blocks, which only names longer than `INLINE` pay).
//!
//! 16 bytes, not 24: a `Name` is most of a monomorphic site and all of a call statement, and
//! its tag byte leaves a niche, so `Stmt` (a call or one boxed variant) is 16 bytes as well.
//!
//! It reads as a `&str` (`Deref`, `AsRef`, `Borrow`), compares, hashes and orders as its text,
//! prints and serializes as a plain string, so JSON and the DSL are unchanged.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bytes a name holds without a heap block.
pub const INLINE: usize = 14;

#[derive(Clone)]
pub struct Name(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    /// Thin (one pointer), so the enum is 16 bytes.
    Heap(Box<Box<str>>),
}

impl Name {
    pub fn new(s: &str) -> Name {
        if s.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Name(Repr::Inline { len: s.len() as u8, bytes })
        } else {
            Name(Repr::Heap(Box::new(s.into())))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let text = &bytes[..usize::from(*len)];
                debug_assert!(std::str::from_utf8(text).is_ok());
                // SAFETY: `Repr` is private and `Name::new` is its only constructor: it copies a
                // whole `&str` (UTF-8, cut at its end, a char boundary) into `bytes` and its
                // length into `len`, and nothing mutates them after. Checking the bytes again on
                // every read (`from_utf8`) was most of `Simulation::new` at 10^6 sites.
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            Repr::Heap(s) => s,
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name::new(&s)
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Name {
        Name::new(s)
    }
}

impl From<&Name> for Name {
    fn from(s: &Name) -> Name {
        s.clone()
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        String::deserialize(d).map(Name::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_names_read_compare_and_order_as_their_text() {
        let long = "a_site_name_longer_than_twenty_two_bytes";
        let names: Vec<Name> = ["", "s1", "é_ü", &"x".repeat(INLINE), long].iter().map(|s| Name::from(*s)).collect();
        for (n, s) in names.iter().zip(["", "s1", "é_ü", &"x".repeat(INLINE), long]) {
            assert_eq!((n.as_str(), n.len(), n.to_string()), (s, s.len(), s.to_string()));
            assert!(*n == *s && n == &Name::from(s.to_string()));
        }
        assert!(matches!(names[3].0, Repr::Inline { .. }) && matches!(names[4].0, Repr::Heap(_)));
        let mut sorted = names.clone();
        sorted.sort();
        let mut texts: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        texts.sort();
        assert_eq!(sorted.iter().map(|n| n.as_str()).collect::<Vec<_>>(), texts, "inline and heap names order by text");
        assert_eq!(std::mem::size_of::<Name>(), 16);
        assert_eq!(serde_json::to_string(&names[1]).unwrap(), "\"s1\"");
        assert_eq!(serde_json::from_str::<Name>("\"abc\"").unwrap(), "abc");
    }
}
