//! The trace lab's messages to and from the engine worker: a log is opened with its size (the
//! worker refuses one over the cap before a byte is sent), fed a chunk per message, each
//! answered with the reader's progress, then finished (answered with the view model) or
//! cancelled (the worker drops the reader). A class tree (`NAME.classes`, which a HotSpot
//! log's replay needs and a V8 log's uses) goes with Finish, or later as its own message: the
//! worker keeps the finished trace and answers the view replayed with it.
//!
//! Bytes: postcard's form of the message (`wire::put`, serde's derives), its kind
//! ([`crate::worker::wire::TRACE`]) first, so the worker's and the page's routing by kind sends
//! them here; then, for a chunk, the log's bytes as they are: the page copies a chunk once and
//! nothing escapes it. (They were JSON: postcard keeps serde_json's derived readers of these
//! types off the page, docs/PERFORMANCE.md.) Decoding is total: bytes that are not a message
//! give an error, never a panic.

use serde::{Deserialize, Serialize};

use super::page::{TimelinePart, TracePage};
use crate::worker::wire::{self, put, take_whole, TRACE};

/// Bytes of log per chunk message: a task of a few ms in the worker at the readers' slowest
/// (HotSpot, ~200 MB/s in `cargo bench -p blast-engine --bench trace`), and one chunk is all
/// of the log the page holds at a time.
pub const CHUNK_BYTES: u64 = 2 << 20;

/// The page's messages. `id` numbers a reading (from 1); the worker holds one at a time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// A new log of `size` bytes named `name` (a file name, a sample, "the pasted log").
    Open { id: u64, name: String, size: u64 },
    /// The next bytes of the log follow the header.
    Chunk { id: u64 },
    /// The log ended: read its last line, add the class tree if one is given, attribute,
    /// replay, answer the view.
    Finish { id: u64, tree: Option<ClassTree> },
    /// A class tree for the finished trace `id`: replay it again with the tree, answer the view.
    Classes { id: u64, tree: ClassTree },
    /// The finished trace `id`'s timeline over `window` (its units; `None`: the whole trace).
    Timeline { id: u64, window: Option<(u64, u64)> },
    /// Drop the reader, or the finished trace kept for a class tree.
    Cancel { id: u64 },
}

/// A class tree file over this is refused by the page before it is read (as `blast trace`
/// refuses one: a line a class, up to `blast_engine::trace::classes::MAX_CLASSES` of them).
pub const MAX_CLASS_TREE_BYTES: u64 = 64 << 20;

/// A class tree file as the page has it: its name (for what the page says of it) and text
/// (parsed in the worker, `blast_engine::trace::parse_classes`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassTree {
    pub name: String,
    pub text: String,
}

/// What the worker says of reading `id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: u64,
    pub answer: Answer,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// Read so far; `stopped` when a cap stopped the reading (later chunks are not needed).
    Progress { bytes: u64, lines: u64, events: u64, stopped: Option<String> },
    /// Refused before reading (over the byte cap), or not held (a chunk for a reading the
    /// worker does not hold).
    Refused(String),
    /// The whole trace, as the page shows it.
    Done(Box<TracePage>),
    /// The timeline over the window asked for.
    Timeline(TimelinePart),
}

/// Why bytes are not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A request's bytes; a chunk's log bytes are appended to them (`chunk`, or by the page's
/// glue straight from a file slice).
pub fn encode_request(r: &Request) -> Vec<u8> {
    let mut out = Vec::new();
    put(&mut out, &(TRACE, r));
    out
}

/// A chunk message: the header, then `bytes`.
pub fn chunk(id: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 12);
    put(&mut out, &(TRACE, Request::Chunk { id }));
    out.extend_from_slice(bytes);
    out
}

/// A request and the log bytes after its header (empty but for a chunk).
pub fn decode_request(bytes: &[u8]) -> Result<(Request, &[u8]), DecodeError> {
    let unreadable = |e: wire::DecodeError| DecodeError(format!("an unreadable trace request ({e})"));
    let mut at = 0;
    if wire::take::<u64>(bytes, &mut at).map_err(unreadable)? != TRACE {
        return Err(DecodeError("not a trace message (its first byte)".into()));
    }
    let r = wire::take(bytes, &mut at).map_err(unreadable)?;
    Ok((r, &bytes[at..]))
}

pub fn encode_reply(r: &Reply) -> Vec<u8> {
    let mut out = Vec::new();
    put(&mut out, &(TRACE, r));
    out
}

pub fn decode_reply(bytes: &[u8]) -> Result<Reply, DecodeError> {
    take_whole(bytes, TRACE).map_err(|e| DecodeError(format!("an unreadable trace reply ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_carries_its_bytes_untouched_after_the_header() {
        let log = b"v8-version,11,3\n\nline with \\n and \n\x00\xff";
        let bytes = chunk(4, log);
        let (r, rest) = decode_request(&bytes).unwrap();
        assert_eq!(r, Request::Chunk { id: 4 });
        assert_eq!(rest, log);
        let tree = ClassTree { name: "a.classes".into(), text: "class A extends B\n".into() };
        for r in [
            Request::Open { id: 1, name: "a\nb.log".into(), size: 9 },
            Request::Finish { id: 2, tree: None },
            Request::Finish { id: 2, tree: Some(tree.clone()) },
            Request::Classes { id: 2, tree },
            Request::Timeline { id: 2, window: Some((5, 900)) },
            Request::Timeline { id: 2, window: None },
            Request::Cancel { id: 3 },
        ] {
            assert_eq!(decode_request(&encode_request(&r)).unwrap(), (r, &[][..]));
        }
    }

    #[test]
    fn replies_round_trip_and_bad_bytes_are_errors() {
        let r = Reply { id: 9, answer: Answer::Progress { bytes: 10, lines: 2, events: 1, stopped: Some("cap".into()) } };
        assert_eq!(decode_reply(&encode_reply(&r)).unwrap(), r);
        assert!(decode_reply(b"").is_err());
        assert!(decode_reply(&[TRACE as u8, 9]).is_err(), "cut short");
        assert!(decode_reply(&encode_request(&Request::Cancel { id: 1 })).is_err(), "a request is not a reply");
        assert!(decode_request(&[TRACE as u8, 99]).is_err(), "no such request");
        assert!(decode_request(&[0, 5]).is_err(), "not a trace message");
        let mut trailing = encode_reply(&r);
        trailing.push(b'x');
        assert!(decode_reply(&trailing).is_err());
    }
}
