//! Reading the logs real runtimes write about what they threw away: V8's `--log-deopt
//! --log-ic --log-maps --log-code` log, HotSpot's `-XX:+LogCompilation` XML and Groovy 2.4's
//! `-Dgroovy.indy.logging=true` selection log (with the capture's metaclass listener line).
//!
//! [`TraceReader`] is fed the log chunk by chunk (a line may be split across chunks; no more
//! than one line is ever held), detects the format and version from the log itself, and turns
//! lines into the one schema of [`schema`]: mutations, invalidations, code units and sites.
//! A line it does not know is counted and the first few kept with their line numbers, never an
//! error that drops the rest; a log cut off mid-line still yields every complete event.
//! Each format reader ties an invalidation to the mutation that caused it as it reads (the rule
//! is the format's, in its module header); [`attribute`] sums each mutation's blast radius. Pure: no I/O, no clocks; the CLI and the browser worker read the
//! file and feed the bytes.

pub mod attribute;
mod cha;
pub mod classes;
mod fields;
mod groovy;
mod hotspot;
mod lines;
pub mod replay;
pub mod schema;
mod unit_replay;
mod v8;

use std::fmt;

use serde::Serialize;

use crate::fxhash::FxMap;
use crate::spelling::named;
pub use attribute::{blast_radii, BlastRadius, Group};
pub use classes::{parse_classes, ClassFacts, ClassKind, ClassesError};
use lines::Lines;
pub use replay::{Replay, ReplayError, Subject};
pub use schema::*;

/// The log formats read here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    V8,
    HotSpot,
    Groovy,
}

impl LogFormat {
    pub const ALL: [LogFormat; 3] = [LogFormat::V8, LogFormat::HotSpot, LogFormat::Groovy];

    pub fn name(self) -> &'static str {
        match self {
            LogFormat::V8 => "v8",
            LogFormat::HotSpot => "hotspot",
            LogFormat::Groovy => "groovy",
        }
    }
}

named!(LogFormat, "log format");

/// Bounds counted while reading. A line longer than `max_line` is counted as not understood
/// and skipped without being held; reading stops at `max_events` events or `max_bytes` bytes,
/// keeping everything read before.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_line: usize,
    pub max_events: u64,
    pub max_bytes: u64,
    /// How many not-understood lines are kept with their text.
    pub keep_unknown: usize,
}

impl Default for Limits {
    /// 1 MiB lines (V8's `script-source` lines hold whole scripts: Node 20's longest internal
    /// one is under 100 KB), 10 million events, 2 GiB of log, 10 lines kept.
    fn default() -> Limits {
        Limits { max_line: 1 << 20, max_events: 10_000_000, max_bytes: 2 << 30, keep_unknown: 10 }
    }
}

/// Why reading stopped or was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TraceError {
    /// The log's size, known before reading, is over the cap.
    TooBig { size: u64, cap: u64 },
    /// The bytes read reached the cap at this byte offset and line.
    ByteCap { cap: u64, line: u64 },
    /// The events found reached the cap at this line.
    EventCap { cap: u64, line: u64 },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::TooBig { size, cap } => write!(f, "the log is {size} bytes, over the {cap}-byte cap; nothing was read"),
            TraceError::ByteCap { cap, line } => write!(f, "stopped at line {line}: the {cap}-byte cap was reached; the events before it are kept"),
            TraceError::EventCap { cap, line } => write!(f, "stopped at line {line}: {cap} events found, the cap; the events before it are kept"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Why a line was not understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Why {
    /// Not a line this format's reader knows, or one it knows with missing or bad fields.
    NotUnderstood,
    /// Before any line said which format the log is.
    NoFormatYet,
    /// Longer than [`Limits::max_line`] (its length in bytes).
    TooLong(u64),
    NotUtf8,
}

/// A line not understood, as kept for the report (its text cut to 160 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unknown {
    pub line: u64,
    pub why: Why,
    pub text: String,
}

/// What a reader has done so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub bytes: u64,
    pub lines: u64,
    pub events: u64,
    /// Set once a cap stopped the reading; later chunks are ignored.
    pub stopped: Option<TraceError>,
}

/// Everything read from one log.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Trace {
    pub format: Option<LogFormat>,
    /// The runtime's version as the log states it.
    pub version: Option<String>,
    /// `# ...` lines at the top of the file (the capture script's header), without the `# `.
    pub header: Vec<String>,
    pub bytes: u64,
    pub lines: u64,
    /// Lines understood and not needed (heap events, compiler internals, argument dumps).
    pub ignored: u64,
    pub not_understood: u64,
    /// The first [`Limits::keep_unknown`] lines not understood.
    pub first_not_understood: Vec<Unknown>,
    pub sites: Vec<Site>,
    pub units: Vec<CodeUnit>,
    pub mutations: Vec<Mutation>,
    pub invalidations: Vec<Invalidation>,
    /// (class, parent) pairs the log shows (V8's prototype map printouts, when written) or the
    /// capture's class tree gives ([`Trace::add_classes`]).
    pub parents: Vec<(String, String)>,
    /// The class tree the capture recorded beside the log (`NAME.classes`), when given.
    pub classes: Vec<ClassFacts>,
    pub stopped: Option<TraceError>,
}

impl Trace {
    /// Take the capture's class tree ([`classes`]): its parents join those the log shows (a
    /// class the log already gives a parent keeps it).
    pub fn add_classes(&mut self, classes: Vec<ClassFacts>) {
        for c in &classes {
            if let Some(p) = &c.parent {
                if !self.parents.iter().any(|(x, _)| *x == c.name) {
                    self.parents.push((c.name.clone(), p.clone()));
                }
            }
        }
        self.classes = classes;
    }

    /// Events found: mutations, invalidations and code units.
    pub fn events(&self) -> u64 {
        (self.mutations.len() + self.invalidations.len() + self.units.len()) as u64
    }
}

/// What a format reader says about one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Read into the trace (an event, or state an event needs).
    Read,
    /// Understood, not needed.
    Ignored,
    Unknown,
}

/// The trace under construction, as the format readers see it.
struct Builder {
    trace: Trace,
    site_ids: FxMap<SiteKey, SiteId>,
}

impl Builder {
    fn site(&mut self, key: SiteKey, function: Option<&str>, line: u64) -> SiteId {
        if let Some(&id) = self.site_ids.get(&key) {
            return id;
        }
        let id = self.trace.sites.len() as SiteId;
        self.trace.sites.push(Site {
            key: key.clone(),
            function: function.map(str::to_string),
            first_line: line,
            selections: 0,
            receivers: Vec::new(),
            member: None,
        });
        self.site_ids.insert(key, id);
        id
    }

    fn unit(&mut self, u: CodeUnit) -> UnitId {
        self.trace.units.push(u);
        (self.trace.units.len() - 1) as UnitId
    }

    fn mutation(&mut self, m: Mutation) -> u32 {
        self.trace.mutations.push(m);
        (self.trace.mutations.len() - 1) as u32
    }

    fn invalidation(&mut self, i: Invalidation) -> usize {
        self.trace.invalidations.push(i);
        self.trace.invalidations.len() - 1
    }
}

enum Format {
    V8(v8::V8Reader),
    HotSpot(hotspot::HotSpotReader),
    Groovy(groovy::GroovyReader),
}

impl Format {
    fn new(f: LogFormat) -> Format {
        match f {
            LogFormat::V8 => Format::V8(v8::V8Reader::default()),
            LogFormat::HotSpot => Format::HotSpot(hotspot::HotSpotReader::default()),
            LogFormat::Groovy => Format::Groovy(groovy::GroovyReader::default()),
        }
    }

    fn line(&mut self, b: &mut Builder, n: u64, line: &str) -> Line {
        match self {
            Format::V8(r) => r.line(b, n, line),
            Format::HotSpot(r) => r.line(b, n, line),
            Format::Groovy(r) => r.line(b, n, line),
        }
    }

    fn finish(&mut self, b: &mut Builder) {
        match self {
            Format::V8(r) => r.finish(b),
            Format::HotSpot(r) => r.finish(b),
            Format::Groovy(_) => {}
        }
    }
}

/// The format a line says its log is in, if it says (public so a page can tell a log from a
/// scenario by its first line without linking the readers).
pub fn detect(line: &str) -> Option<LogFormat> {
    if line.starts_with("v8-version,") || line.starts_with("code-creation,") || line.starts_with("v8-platform,") {
        Some(LogFormat::V8)
    } else if line.starts_with("<?xml") || line.starts_with("<hotspot_log") {
        Some(LogFormat::HotSpot)
    } else if line.contains("org.codehaus.groovy.vmplugin.") || line.starts_with(groovy::LISTENER_PREFIX) {
        Some(LogFormat::Groovy)
    } else {
        None
    }
}

/// A log reader fed chunk by chunk (see the module header).
pub struct TraceReader {
    limits: Limits,
    lines: Lines,
    format: Option<Format>,
    b: Builder,
    events_at_last_line: u64,
}

impl TraceReader {
    pub fn new(limits: Limits) -> TraceReader {
        TraceReader {
            limits,
            lines: Lines::new(limits.max_line),
            format: None,
            b: Builder { trace: Trace::default(), site_ids: FxMap::default() },
            events_at_last_line: 0,
        }
    }

    /// A reader for a log known to be in `format` (no detection).
    pub fn with_format(limits: Limits, format: LogFormat) -> TraceReader {
        let mut r = TraceReader::new(limits);
        r.format = Some(Format::new(format));
        r.b.trace.format = Some(format);
        r
    }

    /// Refuse a log whose size, known before reading, is over the byte cap.
    pub fn check_size(&self, size: u64) -> Result<(), TraceError> {
        if size > self.limits.max_bytes {
            return Err(TraceError::TooBig { size, cap: self.limits.max_bytes });
        }
        Ok(())
    }

    pub fn progress(&self) -> Progress {
        let t = &self.b.trace;
        Progress { bytes: t.bytes, lines: t.lines, events: t.events(), stopped: t.stopped.clone() }
    }

    /// Read the next bytes of the log.
    pub fn feed(&mut self, chunk: &[u8]) -> Progress {
        if self.b.trace.stopped.is_none() {
            let room = self.limits.max_bytes.saturating_sub(self.b.trace.bytes);
            let take = chunk.len().min(usize::try_from(room).unwrap_or(usize::MAX));
            let mut lines = std::mem::replace(&mut self.lines, Lines::new(0));
            lines.split(&chunk[..take], |piece| self.piece(piece));
            self.lines = lines;
            self.b.trace.bytes += take as u64;
            if take < chunk.len() && self.b.trace.stopped.is_none() {
                self.b.trace.stopped = Some(TraceError::ByteCap { cap: self.limits.max_bytes, line: self.b.trace.lines + 1 });
            }
        }
        self.progress()
    }

    /// The log ended: read its last line (a log cut off mid-line ends in one) and attribute.
    pub fn finish(mut self) -> Trace {
        if self.b.trace.stopped.is_none() {
            let mut lines = std::mem::replace(&mut self.lines, Lines::new(0));
            lines.end(|piece| self.piece(piece));
        }
        if let Some(f) = &mut self.format {
            f.finish(&mut self.b);
        }
        self.b.trace
    }

    /// One complete line, or a too-long one's first bytes and full length.
    fn piece(&mut self, piece: lines::Piece<'_>) -> bool {
        if self.b.trace.stopped.is_some() {
            return false;
        }
        self.b.trace.lines += 1;
        let n = self.b.trace.lines;
        let (bytes, too_long) = match piece {
            lines::Piece::Line(l) => (l, None),
            lines::Piece::TooLong { head, len } => (head, Some(len)),
        };
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if let Some(len) = too_long {
            self.unknown(n, Why::TooLong(len), bytes);
            return true;
        }
        let Ok(line) = std::str::from_utf8(bytes) else {
            self.unknown(n, Why::NotUtf8, bytes);
            return true;
        };
        let outcome = self.dispatch(n, line);
        match outcome {
            Some(Line::Read) => {}
            Some(Line::Ignored) => self.b.trace.ignored += 1,
            Some(Line::Unknown) => self.unknown(n, Why::NotUnderstood, bytes),
            None => self.unknown(n, Why::NoFormatYet, bytes),
        }
        let events = self.b.trace.events();
        if events >= self.limits.max_events && events > self.events_at_last_line {
            self.b.trace.stopped = Some(TraceError::EventCap { cap: self.limits.max_events, line: n });
            return false;
        }
        self.events_at_last_line = events;
        true
    }

    /// `None` while no line has said which format the log is in.
    fn dispatch(&mut self, n: u64, line: &str) -> Option<Line> {
        if line.is_empty() {
            return Some(Line::Ignored);
        }
        if let Some(h) = line.strip_prefix("# ") {
            if self.b.trace.events() == 0 && self.b.trace.header.len() < 64 {
                self.b.trace.header.push(h.to_string());
                return Some(Line::Ignored);
            }
        }
        if self.format.is_none() {
            let f = detect(line)?;
            self.b.trace.format = Some(f);
            self.format = Some(Format::new(f));
        }
        let f = self.format.as_mut()?;
        Some(f.line(&mut self.b, n, line))
    }

    fn unknown(&mut self, line: u64, why: Why, bytes: &[u8]) {
        let t = &mut self.b.trace;
        t.not_understood += 1;
        if t.first_not_understood.len() < self.limits.keep_unknown {
            let head = &bytes[..bytes.len().min(160)];
            t.first_not_understood.push(Unknown { line, why, text: String::from_utf8_lossy(head).into_owned() });
        }
    }
}

/// Replay `t` under every policy ([`replay`]'s module header): a log of class loads over its
/// compiled code units ([`unit_replay`]), any other over its call sites.
pub fn replay(t: &Trace) -> Result<Replay, ReplayError> {
    if t.mutations.iter().any(|m| m.kind == MutationKind::ClassLoad) {
        unit_replay::replay_units(t)
    } else {
        replay::replay_sites(t)
    }
}

/// Read a whole log held in memory (tests, fuzzing, small inputs).
pub fn read(bytes: &[u8], limits: Limits, format: Option<LogFormat>) -> Trace {
    let mut r = match format {
        Some(f) => TraceReader::with_format(limits, f),
        None => TraceReader::new(limits),
    };
    if let Err(e) = r.check_size(bytes.len() as u64) {
        let mut t = Trace { stopped: Some(e), ..Trace::default() };
        t.format = format;
        return t;
    }
    r.feed(bytes);
    r.finish()
}

#[cfg(test)]
mod tests;
