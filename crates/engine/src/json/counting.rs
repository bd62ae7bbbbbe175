//! The caps of a scenario's JSON counted as it is read, before anything is built: a byte
//! scanner reads the JSON a piece at a time, keeping nothing but its counts and a stack of the
//! containers it is in (at most serde_json's depth of 128), and refuses the first list element
//! past a cap with the words the DSL parser uses for the same cap (`at most 100,000 classes;
//! this is number 100,001`), named by its path (`classes[100000]`) and placed where serde_json
//! would have stopped there (one past an element's bracket and the blanks after it, past a
//! string's or a literal's end, past the byte after a number). Its reader can be a file read a
//! piece at a time, so a refusal past a cap costs the scan, not the text; `decode_scenario`
//! scans the text first too, so the refusal of the whole text is the same. Anything that is
//! not JSON as serde_json reads it (a syntax error, an unpaired surrogate, bytes that are not
//! UTF-8, a number out of range, nesting past 128), or a `stmt` that is not a string, decides
//! nothing: the decode reports it.
//!
//! Why a second reader of JSON beside serde_json: speed of a refusal. The same walk as a serde
//! visitor over `serde_json::Deserializer::from_reader` (byte by byte through `io::Read`, keys
//! and path segments allocated) took 0.25-0.26 s of CPU and 5.22 G instructions (callgrind) to
//! refuse 1.26 M sites of a 60 MB file in `blast run`; this scanner, which skips a string's
//! plain bytes in one run and compares keys in a 16-byte buffer, 0.10-0.11 s and 2.30 G; and
//! 0.09 s and 1.85 G for the 63 MB file of `scripts/hostile.sh` once the CLI stopped reading a
//! JSON file as text before walking it (docs/HOSTILE.md). It only knows the grammar; the model's
//! types and fields are the decode's.

use std::cell::Cell;
use std::io::Read;

use crate::dsl::cap_refusal;
use crate::expect::{MAX_EXPECTATIONS, MAX_LISTED_SITES, MAX_LISTED_TOTAL};
use crate::validate::{MAX_CALLS, MAX_CLASSES, MAX_EVENTS, MAX_METHODS, MAX_POLY_RECEIVERS, MAX_RECEIVERS, MAX_SITES};

/// The first list element past a cap: where serde_json would stop there, its path, the cap's
/// words.
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub line: usize,
    pub col: usize,
    pub path: String,
    pub message: String,
}

/// Scan the scenario JSON `r` holds, counting: the refusal of its first element past a cap, or
/// `None` when it passes none or stops before at anything else (left to the decode).
pub fn walk(r: impl Read) -> Option<Refusal> {
    Scan { src: Src::new(r), stack: Vec::new(), counts: Counts::default(), word: Word::default(), number: Vec::new() }.run()
}

/// serde_json's depth limit: its 128th nested container is an error.
const MAX_DEPTH: usize = 128;

/// The counts over the whole scenario.
#[derive(Default)]
struct Counts {
    classes: Cell<usize>,
    sites: Cell<usize>,
    expectations: Cell<usize>,
    listed: Cell<usize>,
    receivers: Cell<usize>,
    events: Cell<usize>,
    calls: Cell<usize>,
}

/// Where a value is in the scenario: what its lists hold, and which are capped.
#[derive(Clone, Copy)]
enum Node {
    Top,
    Class,
    Category,
    Site,
    Stmt,
    Expectation,
    Claim,
    List(List),
    Other,
}

#[derive(Clone, Copy)]
enum List {
    Classes,
    Categories,
    Sites,
    Stmts,
    Expectations,
    ClassMethods,
    CategoryMethods,
    Others,
    Mix,
    Listed,
}

impl Node {
    /// The node of the value of `key` in an object here.
    fn field(self, key: &[u8]) -> Node {
        Node::List(match (self, key) {
            (Node::Top, b"classes") => List::Classes,
            (Node::Top, b"categories") => List::Categories,
            (Node::Top, b"sites") => List::Sites,
            (Node::Top, b"setup" | b"before_op" | b"op") | (Node::Stmt, b"body") => List::Stmts,
            (Node::Top, b"expectations") => List::Expectations,
            (Node::Class, b"methods") => List::ClassMethods,
            (Node::Category, b"methods") => List::CategoryMethods,
            (Node::Site, b"others") => List::Others,
            (Node::Site, b"mix") => List::Mix,
            (Node::Expectation, b"sites") => return Node::Claim,
            (Node::Claim, b"sites") => List::Listed,
            _ => return Node::Other,
        })
    }
}

impl List {
    fn item(self) -> Node {
        match self {
            List::Classes => Node::Class,
            List::Categories => Node::Category,
            List::Sites => Node::Site,
            List::Stmts => Node::Stmt,
            List::Expectations => Node::Expectation,
            _ => Node::Other,
        }
    }

    /// The refusal of element `k` of this list, when it is past a cap; counted here.
    fn count(self, k: usize, n: &Counts) -> Option<String> {
        let counted = |c: &Cell<usize>, max: usize, what: &str| {
            c.set(c.get() + 1);
            (c.get() > max).then(|| cap_refusal(max, what, c.get()))
        };
        match self {
            List::Classes => counted(&n.classes, MAX_CLASSES, "classes"),
            List::Sites => counted(&n.sites, MAX_SITES, "sites"),
            List::Expectations => counted(&n.expectations, MAX_EXPECTATIONS, "expectations"),
            List::ClassMethods => (k >= MAX_METHODS).then(|| cap_refusal(MAX_METHODS, "methods per class", k + 1)),
            List::CategoryMethods => (k >= MAX_METHODS).then(|| cap_refusal(MAX_METHODS, "methods per category", k + 1)),
            List::Mix => (k >= MAX_RECEIVERS).then(|| cap_refusal(MAX_RECEIVERS, "mix weights per site (one per receiver class)", k + 1)),
            List::Listed => {
                if k >= MAX_LISTED_SITES {
                    return Some(cap_refusal(MAX_LISTED_SITES, "sites in one expectation's list", k + 1));
                }
                counted(&n.listed, MAX_LISTED_TOTAL, "sites listed by all expectations")
            }
            List::Others => {
                // The site's first receiver (its `class`) is number 1: `others[k]` is k + 2.
                if k + 1 >= MAX_RECEIVERS {
                    return Some(cap_refusal(MAX_RECEIVERS, "receiver classes per site", k + 2));
                }
                // The site's first receiver counts with its second, as the DSL counts them.
                n.receivers.set(n.receivers.get() + 1 + usize::from(k == 0));
                (n.receivers.get() > MAX_POLY_RECEIVERS)
                    .then(|| format!("at most {} receiver classes over all polymorphic sites", crate::digits::thousands(MAX_POLY_RECEIVERS as u64)))
            }
            List::Categories | List::Stmts => None,
        }
    }
}

/// The keys on the way to a capped list: any other key leads to `Node::Other`, below which
/// nothing is counted, so a refusal's path is made of these alone.
const KEYS: [&str; 12] = ["classes", "categories", "sites", "setup", "before_op", "op", "body", "expectations", "methods", "others", "mix", "stmt"];

/// A container the scan is in: the node it is, and the place inside it the path names.
struct Frame {
    node: Node,
    array: bool,
    /// The element being read (an array's).
    k: usize,
    /// The key being read (an object's), when it is one of [`KEYS`].
    key: Option<&'static str>,
}

/// A string's first bytes, unescaped: enough to tell the keys and statement kinds apart.
#[derive(Default)]
struct Word {
    bytes: [u8; 16],
    len: usize,
    /// Longer than `bytes`, or not ASCII: no word the scan looks for.
    other: bool,
}

impl Word {
    fn push(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        match self.bytes.get_mut(self.len..end) {
            Some(to) => to.copy_from_slice(bytes),
            None => self.other = true,
        }
        self.len = end.min(self.bytes.len());
    }

    /// The word, or nothing when it is no word the scan looks for.
    fn get(&self) -> &[u8] {
        match self.other {
            true => &[],
            false => &self.bytes[..self.len],
        }
    }
}

/// The bytes a string's plain run may hold: all but a quote, a backslash, control
/// characters and the bytes past ASCII, which each take a closer look.
static PLAIN: [bool; 256] = {
    let mut plain = [false; 256];
    let mut b = 0x20;
    while b < 0x80 {
        plain[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    plain
};

/// The bytes of `r` a buffer at a time, and the line and column of what was read.
struct Src<R> {
    r: R,
    buf: Box<[u8]>,
    at: usize,
    end: usize,
    /// Bytes of the reader before `buf`.
    base: usize,
    line: usize,
    /// The offset of the current line's first byte.
    line_start: usize,
}

impl<R: Read> Src<R> {
    fn new(r: R) -> Self {
        Src { r, buf: vec![0; 64 * 1024].into_boxed_slice(), at: 0, end: 0, base: 0, line: 1, line_start: 0 }
    }

    /// The next byte, not taken; `None` at the end or at a read error (the decode reports it).
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        if self.at < self.end {
            return Some(self.buf[self.at]);
        }
        self.refill()
    }

    /// The next piece of the reader, its first byte.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> Option<u8> {
        self.base += self.end;
        self.at = 0;
        self.end = loop {
            match self.r.read(&mut self.buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                n => break n.unwrap_or(0),
            }
        };
        (self.end > 0).then(|| self.buf[0])
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// Blanks, as serde_json skips them, counting lines.
    #[inline(always)]
    fn blanks(&mut self) {
        if self.peek().is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            return;
        }
        self.more_blanks();
    }

    fn more_blanks(&mut self) {
        // A byte at a time: the runs between a scenario's tokens are one to a few bytes long.
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    self.line += 1;
                    self.line_start = self.base + self.at + 1;
                }
                _ => return,
            }
            self.at += 1;
        }
    }

    /// Expect `b` next.
    fn take(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    /// Where serde_json places an error now: past what it read, the byte it peeked included
    /// when `peeked` (its reader counts a byte as it peeks it).
    fn place(&mut self, peeked: bool) -> (usize, usize) {
        let col = self.base + self.at - self.line_start;
        match peeked.then(|| self.peek()).flatten() {
            Some(b'\n') => (self.line + 1, 0),
            Some(_) => (self.line, col + 1),
            None => (self.line, col),
        }
    }

    /// The rest of a string, its opening quote taken, its start kept in `word`; `None` where
    /// serde_json refuses it.
    fn string(&mut self, mut word: Option<&mut Word>) -> Option<()> {
        if let Some(w) = word.as_deref_mut() {
            (w.len, w.other) = (0, false);
        }
        loop {
            self.peek()?;
            let run = &self.buf[self.at..self.end];
            let n = run.iter().position(|&b| !PLAIN[usize::from(b)]).unwrap_or(run.len());
            if let Some(w) = word.as_deref_mut() {
                w.push(&run[..n]);
            }
            self.at += n;
            if self.at == self.end {
                continue;
            }
            match self.next()? {
                b'"' => return Some(()),
                b'\\' => self.escape(word.as_deref_mut())?,
                lead @ 0x80.. => {
                    self.utf8(lead)?;
                    if let Some(w) = word.as_deref_mut() {
                        w.other = true;
                    }
                }
                _ => return None,
            }
        }
    }

    /// An escape, its `\` taken.
    fn escape(&mut self, word: Option<&mut Word>) -> Option<()> {
        let b = match self.next()? {
            b @ (b'"' | b'\\' | b'/') => b,
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let n = self.hex()?;
                if (0xD800..0xDC00).contains(&n) {
                    self.take(b'\\')?;
                    self.take(b'u')?;
                    (0xDC00..0xE000).contains(&self.hex()?).then_some(())?;
                }
                // A lone trailing surrogate; or a pair, past ASCII as the rest are.
                (!(0xDC00..0xE000).contains(&n)).then_some(())?;
                u8::try_from(n).unwrap_or(0x80)
            }
            _ => return None,
        };
        if let Some(w) = word {
            w.push(&[b]);
            w.other |= !b.is_ascii();
        }
        Some(())
    }

    /// Four hex digits.
    fn hex(&mut self) -> Option<u32> {
        let mut n = 0;
        for _ in 0..4 {
            n = n * 16 + char::from(self.next()?).to_digit(16)?;
        }
        Some(n)
    }

    /// The rest of a UTF-8 sequence after its first byte `lead`, as `str::from_utf8` checks it.
    fn utf8(&mut self, lead: u8) -> Option<()> {
        let (more, lo, hi) = match lead {
            0xC2..=0xDF => (1, 0x80, 0xBF),
            0xE0 => (2, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
            0xED => (2, 0x80, 0x9F),
            0xF0 => (3, 0x90, 0xBF),
            0xF1..=0xF3 => (3, 0x80, 0xBF),
            0xF4 => (3, 0x80, 0x8F),
            _ => return None,
        };
        (lo..=hi).contains(&self.next()?).then_some(())?;
        for _ in 1..more {
            (0x80..=0xBF).contains(&self.next()?).then_some(())?;
        }
        Some(())
    }

    /// A number as serde_json's grammar has it, its text in `text`, its first byte peeked.
    fn number(&mut self, text: &mut Vec<u8>) -> Option<()> {
        text.clear();
        if self.peek()? == b'-' {
            text.push(self.next()?);
        }
        match self.next()? {
            b'0' if self.peek().is_some_and(|b| b.is_ascii_digit()) => return None,
            b @ b'0'..=b'9' => text.push(b),
            _ => return None,
        }
        self.digits(text);
        if self.peek() == Some(b'.') {
            text.push(self.next()?);
            self.peek().filter(u8::is_ascii_digit)?;
            self.digits(text);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            text.push(self.next()?);
            if matches!(self.peek(), Some(b'+' | b'-')) {
                text.push(self.next()?);
            }
            self.peek().filter(u8::is_ascii_digit)?;
            self.digits(text);
        }
        // serde_json refuses a number past f64's range; a number of over 1,000 bytes is left
        // to the decode rather than kept.
        let text = std::str::from_utf8(text).ok().filter(|t| t.len() <= 1000)?;
        text.parse::<f64>().ok().filter(|f| f.is_finite()).map(|_| ())
    }

    fn digits(&mut self, text: &mut Vec<u8>) {
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            text.push(b);
            self.at += 1;
        }
    }
}

/// The scan: where it is, what it counted.
struct Scan<R> {
    src: Src<R>,
    stack: Vec<Frame>,
    counts: Counts,
    word: Word,
    number: Vec<u8>,
}

impl<R: Read> Scan<R> {
    fn run(&mut self) -> Option<Refusal> {
        let mut node = Node::Top;
        // The refusal of the value about to be read (a list element past a cap).
        let mut refusal: Option<String> = None;
        loop {
            // One value at `node`.
            self.src.blanks();
            let at_stmt = matches!(self.stack.last(), Some(Frame { node: Node::Stmt, array: false, key: Some("stmt"), .. }));
            match self.src.peek()? {
                b'"' => {
                    self.src.next();
                    self.src.string(at_stmt.then_some(&mut self.word))?;
                    if at_stmt {
                        refusal = self.kind();
                    }
                    if let Some(r) = refusal.take() {
                        return Some(self.refusal(r, false));
                    }
                }
                _ if at_stmt => return None,
                open @ (b'{' | b'[') => {
                    if self.stack.len() + 1 >= MAX_DEPTH {
                        return None;
                    }
                    self.src.next();
                    if let Some(r) = refusal.take() {
                        self.src.blanks();
                        return Some(self.refusal(r, true));
                    }
                    self.stack.push(Frame { node, array: open == b'[', k: 0, key: None });
                    self.src.blanks();
                    match (open, self.src.peek()?) {
                        (b'[', b']') | (b'{', b'}') => {
                            self.src.next();
                            self.stack.pop();
                        }
                        (b'[', _) => {
                            (node, refusal) = self.element();
                            continue;
                        }
                        _ => {
                            node = self.key()?;
                            continue;
                        }
                    }
                }
                b'-' | b'0'..=b'9' => {
                    self.src.number(&mut self.number)?;
                    if let Some(r) = refusal.take() {
                        return Some(self.refusal(r, true));
                    }
                }
                first @ (b't' | b'f' | b'n') => {
                    let literal: &[u8] = match first {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    for &b in literal {
                        self.src.take(b)?;
                    }
                    if let Some(r) = refusal.take() {
                        return Some(self.refusal(r, false));
                    }
                }
                _ => return None,
            }
            // After a value: the containers it ends, then the next entry.
            (node, refusal) = loop {
                // The top value read whole: whatever follows is the decode's.
                let array = self.stack.last()?.array;
                self.src.blanks();
                match (array, self.src.next()?) {
                    (true, b',') => {
                        self.src.blanks();
                        self.stack.last_mut()?.k += 1;
                        break self.element();
                    }
                    (false, b',') => {
                        self.src.blanks();
                        break (self.key()?, None);
                    }
                    (true, b']') | (false, b'}') => {
                        self.stack.pop();
                    }
                    _ => return None,
                }
            };
        }
    }

    /// The array on top begins its element `k`: its node, and its refusal past a cap.
    fn element(&mut self) -> (Node, Option<String>) {
        let frame = self.stack.last().expect("in an array");
        match frame.node {
            Node::List(list) => (list.item(), list.count(frame.k, &self.counts)),
            _ => (Node::Other, None),
        }
    }

    /// The object on top reads a key and its colon: the node of its value.
    fn key(&mut self) -> Option<Node> {
        self.src.take(b'"')?;
        self.src.string(Some(&mut self.word))?;
        self.src.blanks();
        self.src.take(b':')?;
        let key = self.word.get();
        let frame = self.stack.last_mut()?;
        let node = frame.node.field(key);
        // Only a path to a capped list or a `stmt` is ever written: other keys are not looked up.
        frame.key = match node {
            Node::Other if key != b"stmt" => None,
            _ => KEYS.iter().copied().find(|k| k.as_bytes() == key),
        };
        Some(node)
    }

    /// A statement's kind just read: calls and events are counted (over the whole scenario).
    fn kind(&self) -> Option<String> {
        let (count, max, what) = match self.word.get() {
            b"call" => (&self.counts.calls, MAX_CALLS, "`call` statements"),
            b"event" => (&self.counts.events, MAX_EVENTS, "event statements"),
            _ => return None,
        };
        count.set(count.get() + 1);
        (count.get() > max).then(|| cap_refusal(max, what, count.get()))
    }

    /// The refusal `message` here, named by the path of the containers the scan is in.
    fn refusal(&mut self, message: String, peeked: bool) -> Refusal {
        let (line, col) = self.src.place(peeked);
        let mut path = String::new();
        for frame in &self.stack {
            if frame.array {
                path += &format!("[{}]", frame.k);
            } else {
                if !path.is_empty() {
                    path.push('.');
                }
                path += frame.key.unwrap_or("?");
            }
        }
        Refusal { line, col, path, message }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// `text` through `Read` in pieces of the lengths `split` gives.
    struct Pieces<'a, F> {
        text: &'a [u8],
        split: F,
    }

    impl<F: FnMut() -> usize> Read for Pieces<'_, F> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (self.split)().clamp(1, buf.len()).min(self.text.len());
            buf[..n].copy_from_slice(&self.text[..n]);
            self.text = &self.text[n..];
            Ok(n)
        }
    }

    /// A generator of numbers from a seed (Knuth's MMIX linear congruence, its high bits), so
    /// each run splits and mangles the same way.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    /// Scenarios past a small cap, each element a different kind of JSON value.
    fn past_caps() -> Vec<(String, &'static str)> {
        let names = |n: usize| (0..n).map(|i| format!("\"B\\u00e9{i}\\n\"")).collect::<Vec<_>>().join(",\n ");
        let weights = |n: usize| (0..n).map(|i| format!("{i}.5e0")).collect::<Vec<_>>().join(", ");
        let head = "{\"name\": \"caf\u{e9} \\\"x\\\" \\ud83d\\ude00\", \"measure\": {\"ops\": -1, \"x\": [true, false, null, {}, []]},\n";
        vec![
            (
                format!("{head} \"sites\": [{{\"name\": \"s\", \"class\": \"A\", \"method\": \"m\", \"others\": [\n {}]}}]}}", names(70)),
                "sites[0].others[63]: at most 64 receiver classes per site; this is number 65",
            ),
            (
                format!("{head} \"sites\": [{{\"mix\": [{}], \"name\": \"s\"}}, {{}}]}}", weights(70)),
                "sites[0].mix[64]: at most 64 mix weights per site (one per receiver class); this is number 65",
            ),
            (
                format!("{head} \"classes\": [{{\"methods\": [{}]}}]}}", (0..10_002).map(|i| format!("[{i}]")).collect::<Vec<_>>().join(",")),
                "classes[0].methods[10000]: at most 10,000 methods per class; this is number 10,001",
            ),
        ]
    }

    #[test]
    fn a_refusal_reads_the_same_whatever_the_pieces_the_text_comes_in() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (text, want) in past_caps() {
            let whole = walk(text.as_bytes()).expect("past a cap");
            assert_eq!(format!("{}: {}", whole.path, whole.message), want);
            for max in [1, 2, 3, 7, 64, 4096] {
                let split = || rng.below(max) + 1;
                assert_eq!(walk(Pieces { text: text.as_bytes(), split }).as_ref(), Some(&whole), "{want}: pieces of up to {max}");
            }
        }
    }

    #[test]
    fn mangled_json_is_never_refused_past_a_place_serde_json_refuses_first() {
        let bytes: &[u8] = b"\"\\{}[],:0-+e.\n tux\xc3\xa9\xed\xff\x01";
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut refused = 0;
        for (text, _) in past_caps() {
            for _ in 0..300 {
                let mut t = text.clone().into_bytes();
                for _ in 0..=rng.below(3) {
                    let (at, b) = (rng.below(t.len()), bytes[rng.below(bytes.len())]);
                    match rng.below(3) {
                        0 => t[at] = b,
                        1 => t.insert(at, b),
                        _ => drop(t.remove(at)),
                    }
                }
                let Some(r) = walk(Pieces { text: &t, split: || rng.below(300) + 1 }) else { continue };
                refused += 1;
                // serde_json reads the same text up to the refusal's place without an error.
                if let Err(e) = serde_json::from_reader::<_, serde_json::Value>(t.as_slice()) {
                    assert!((e.line(), e.column()) >= (r.line, r.col), "{}: {e}, refused at {}:{}", String::from_utf8_lossy(&t), r.line, r.col);
                }
            }
        }
        assert!(refused > 100, "{refused} mangled texts refused");
    }

    #[test]
    fn nesting_past_serde_jsons_depth_decides_nothing() {
        // Inside the top object, `x` holds `depth` nested lists; then `others` passes its cap.
        let text = |depth: usize| format!("{{\"x\": {}{}, \"sites\": [{{\"others\": [{}1]}}]}}", "[".repeat(depth), "]".repeat(depth), "0, ".repeat(70));
        let nested = |depth: usize| format!("{{\"x\": {}{}}}", "[".repeat(depth), "]".repeat(depth));
        // serde_json reads 127 nested containers, not 128; the scan decides as far as it reads.
        assert!(serde_json::from_str::<serde_json::Value>(&nested(126)).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&nested(127)).is_err());
        assert_eq!(walk(text(126).as_bytes()).map(|r| r.path), Some("sites[0].others[63]".into()));
        assert_eq!(walk(text(127).as_bytes()), None);
    }
}
