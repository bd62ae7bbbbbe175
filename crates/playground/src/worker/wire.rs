//! The engine worker's messages as compact bytes (`offload`): a job (the text to read) and
//! its reply, whose typed scenario the page rebuilds without parsing text. Also the frame of
//! the lane and fit messages (`lane_wire`, `fit_wire`): serde's derives in postcard's form
//! (`put`, `take`), the kind first.
//!
//! Why not serde for the read reply: the page would then ship serde's derived deserializers
//! for the whole model (measured: +56 KB gzipped on a 477 KB bundle), where this is a few KB.
//! The format (`codec`) is lengths and numbers as LEB128, strings as length + UTF-8, enums as a tag;
//! the encoder destructures every struct, so a new model field does not compile until it is
//! carried; expectations too (`expect_wire`), so the page ships no DSL parser. Decoding is
//! total: bytes that are not a message give an error, never a panic.
//!
//! A reply is decoded a part at a time ([`ReplyDecoder::step`], at most [`DECODE_ITEMS`]
//! classes, sites or statements per step), so the page decodes a 10^5-site scenario over
//! several tasks instead of one ~25 ms task. Statement blocks are written flat for that (a
//! statement that has a body opens a block, a `CLOSE` tag ends it), so a step can stop
//! anywhere inside a nested loop and the next one goes on with an explicit stack.

use blast_engine::scenario::{BodyCost, CategoryDecl, ClassDecl, Measure, MethodRef, Scenario, Semantics, SiteDecl, Stmt};
use blast_engine::validate::{Location, MAX_NESTING};
use blast_engine::{Policy, ScenarioError};

use crate::editor::EditOp;
use crate::worker::codec::{Read, Reader, Writer};
use crate::worker::expect_wire;

/// Read `text`, and build its simulations for `policies` to learn whether the engine runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: u64,
    pub text: String,
    pub policies: Vec<Policy>,
    /// Check the "loop until stopped" form (`editor::looping`) the page would run.
    pub looping: bool,
    /// A form edit to apply to the text's scenario first: the reply is then about the edited
    /// scenario, and carries its printed text (`Verdict::Read::edited`).
    pub edit: Option<EditOp>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub id: u64,
    pub verdict: Verdict,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The text parses and validates; `run_error` is why the engine refuses to run it (the
    /// work bound), `None` when its simulations were built. `expect_lines`: the text line of
    /// each expectation (`expectation_lines`, a second parse that records places). `held`:
    /// the engine worker keeps the scenario and its lanes, which the page then runs there
    /// (`lanes`).
    /// `edited`: the text the job's form edit printed, which `scenario` is (`None` without one).
    Read { scenario: Box<Scenario>, run_error: Option<String>, expect_lines: Vec<Option<usize>>, held: bool, edited: Option<String> },
    /// The text does not parse or validate: where, and the whole message (`line:col: …`).
    Invalid { error: TextError, message: String },
    /// The job's form edit was refused (`editor::EditError`, for the user); nothing changed.
    Refused(String),
    /// The worker failed on this job (it stopped, or the message was unreadable).
    Failed(String),
}

/// A DSL error placed in the text.
#[derive(Clone, Debug, PartialEq)]
pub struct TextError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl From<ScenarioError> for TextError {
    fn from(e: ScenarioError) -> Self {
        match e.location {
            Some(Location::Text { line, col }) => TextError { line, col, message: e.message },
            Some(Location::Path(p)) => TextError { line: 1, col: 1, message: format!("{p}: {}", e.message) },
            None => TextError { line: 1, col: 1, message: e.message },
        }
    }
}

/// Why a job has no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Unanswered {
    /// The page could not read the worker's answer.
    Unreadable(DecodeError),
    /// The worker stopped (or did not start: `started` false) while the job was out.
    WorkerLost { started: bool, why: String },
    /// There is no worker to do it.
    NoWorker,
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::Unreadable(e) => write!(f, "the engine worker's answer is unreadable ({e})"),
            Unanswered::WorkerLost { started, why } => write!(f, "the engine worker {} ({why})", if *started { "stopped" } else { "did not start" }),
            Unanswered::NoWorker => f.write_str("the engine worker did not start"),
        }
    }
}

/// Whether bytes decode, as a test's message decoder says.
#[cfg(test)]
pub(crate) type Decodes<'a> = &'a dyn Fn(&[u8]) -> bool;

/// Test support: every cut of each message is refused by its decoder (which says whether the
/// bytes decode), and no byte flipped makes any decoder panic.
#[cfg(test)]
pub(crate) fn assert_damage_refused(messages: &[(&[u8], Decodes<'_>)]) {
    for (bytes, decodes) in messages {
        for cut in 0..bytes.len() {
            assert!(!decodes(&bytes[..cut]), "a message cut at {cut} decoded");
        }
    }
    for (bytes, _) in messages {
        let mut flipped = bytes.to_vec();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            for (_, decodes) in messages {
                let _ = decodes(&flipped);
            }
            flipped[i] ^= 0xff;
        }
    }
}

/// The first number of every message: what it is. A text to read (`Job`) and its `Reply`...
pub const READ: u64 = 0;
/// ...or lanes the worker runs (`lanes::Request`) and their `lanes::Update`...
pub const LANES: u64 = 1;
/// ...or a probe result to fit (`fit_wire`) and its fingerprint...
pub const FIT: u64 = 2;
/// ...or a runtime log being read (`trace_lab::protocol`) and the reader's answers...
pub const TRACE: u64 = 3;
/// ...or a model preset's replay (`model_wire`): the page's commands and its updates...
pub const MODEL: u64 = 4;
/// ...or a chart to draw (`chart_wire`), answered with a picture rather than bytes: the
/// worker's module draws it, not `lane_host`, and no answer of the client's waits for it...
pub const CHART: u64 = 5;
/// ...or share links and an autosave entry to make (`pack_wire`), and what they came to...
pub const PACK: u64 = 6;
/// ...or the autosave and a link to open (`open_wire`), and what they hold.
pub const OPEN: u64 = 7;

/// What a message is (`READ`, `LANES`, `FIT`, `TRACE`, `MODEL`, `PACK` or `OPEN`), `None` for bytes that are not one.
pub fn kind(bytes: &[u8]) -> Option<u64> {
    bytes.first().map(|&b| u64::from(b)).filter(|&k| k == READ || k == LANES || k == FIT || k == TRACE || k == MODEL || k == PACK || k == OPEN)
}

/// A job's bytes, made from the text in place (the one copy of it the page makes for a job).
pub fn encode_job(id: u64, text: &str, policies: &[Policy], looping: bool, edit: Option<&EditOp>) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(text.len() + 16));
    w.num(READ);
    w.num(id);
    w.num(u64::from(looping));
    w.num(policies.len() as u64);
    for p in policies {
        w.policy(*p);
    }
    w.str(text);
    w.bool(edit.is_some());
    if let Some(op) = edit {
        put(&mut w.0, op);
    }
    w.0
}

pub fn decode_job(bytes: &[u8]) -> Result<Job, DecodeError> {
    whole(bytes, READ, |r| {
        let id = r.num()?;
        let looping = r.num()? == 1;
        let policies = r.list(|r| r.policy())?;
        let text = r.str()?;
        let edit = match r.bool()? {
            true => Some(take(r.bytes, &mut r.at).map_err(|e| e.why)?),
            false => None,
        };
        Ok(Job { id, text, policies, looping, edit })
    })
}

pub fn encode_reply(reply: &Reply) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.num(READ);
    w.num(reply.id);
    match &reply.verdict {
        Verdict::Read { scenario, run_error, expect_lines, held, edited } => {
            w.num(0);
            w.bool(*held);
            w.opt(run_error);
            w.opt(edited);
            w.num(expect_lines.len() as u64);
            for line in expect_lines {
                w.num(line.map_or(0, |l| l as u64 + 1));
            }
            w.scenario(scenario);
        }
        Verdict::Invalid { error: TextError { line, col, message: at }, message } => {
            w.num(1);
            w.num(*line as u64);
            w.num(*col as u64);
            w.str(at);
            w.str(message);
        }
        Verdict::Failed(why) => {
            w.num(2);
            w.str(why);
        }
        Verdict::Refused(why) => {
            w.num(3);
            w.str(why);
        }
    }
    w.0
}

/// A whole reply at once (the worker's tests and tools; the page steps a [`ReplyDecoder`]).
pub fn decode_reply(bytes: &[u8]) -> Result<Reply, DecodeError> {
    let mut decoder = ReplyDecoder::new(bytes.to_vec());
    loop {
        if let Some(reply) = decoder.step(usize::MAX)? {
            return Ok(reply);
        }
    }
}

/// Classes, categories, sites or statements a [`ReplyDecoder::step`] decodes at most. Measured
/// on the page (Chromium trace, the 10^5-site paste of e2e `scale`, load 6): a whole reply, ~2.1 x
/// 10^5 of them, was one task of ~25-30 ms CPU; steps of 20,000 were 7-9 ms each.
pub const DECODE_ITEMS: usize = 10_000;

/// A value appended to `out` in postcard's form (serde's derives: LEB128 numbers, strings as
/// length + UTF-8, enums as a variant number, floats as their 8 bytes), the form of the lane and
/// fit messages. A message begins with its kind as a number below 128, one byte, which [`kind`]
/// reads.
pub(crate) fn put<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    put_each(out, [value]);
}

/// Values appended as by [`put`], through one serializer (a lane's changed sites: no per-value
/// setup).
pub(crate) fn put_each<T: serde::Serialize>(out: &mut Vec<u8>, values: impl IntoIterator<Item = T>) {
    let mut serializer = postcard::Serializer { output: Append(out) };
    for value in values {
        // Writing into a `Vec` fails only for a sequence of unknown length, which no wire type
        // has (every message type is encoded by the round-trip tests).
        if let Err(e) = value.serialize(&mut serializer) {
            unreachable!("postcard cannot write a wire type: {e}");
        }
    }
}

/// postcard's output appended to a `Vec` in place (its own `Vec` flavors start a new one).
struct Append<'a>(&'a mut Vec<u8>);

impl postcard::ser_flavors::Flavor for Append<'_> {
    type Output = ();

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.0.push(byte);
        Ok(())
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        // Most are a number's few bytes: pushed, not a `memcpy` call each (measured by the
        // codec bench: encode ~1.5x faster).
        if bytes.len() <= 8 {
            bytes.iter().for_each(|&b| self.0.push(b));
        } else {
            self.0.extend_from_slice(bytes);
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// The postcard value at byte `*at` of `bytes`, `*at` moved past it; damaged or cut bytes give
/// an error placed at `*at`, never a panic (postcard checks every length against the bytes left
/// and allocates no more than it has read).
pub(crate) fn take<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], at: &mut usize) -> Result<T, DecodeError> {
    let from = bytes.get(*at..).ok_or(DecodeError { at: *at, why: "cut short" })?;
    let (value, rest) = postcard::take_from_bytes(from).map_err(|e| DecodeError { at: *at, why: postcard_why(&e) })?;
    *at = bytes.len() - rest.len();
    Ok(value)
}

/// `n` postcard values from byte `*at` of `bytes`, each handed to `each` (which may refuse it),
/// `*at` moved past them: one deserializer for them all, so a long run of small values (a lane's
/// changed sites) costs no more per value than one list would. An error is placed at the first
/// of them.
pub(crate) fn take_each<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    at: &mut usize,
    n: usize,
    mut each: impl FnMut(T) -> Result<(), &'static str>,
) -> Result<(), DecodeError> {
    let bad = |why| DecodeError { at: *at, why };
    let mut de = postcard::Deserializer::from_bytes(bytes.get(*at..).ok_or(bad("cut short"))?);
    for _ in 0..n {
        each(T::deserialize(&mut de).map_err(|e| bad(postcard_why(&e)))?).map_err(bad)?;
    }
    let rest = de.finalize().map_err(|e| bad(postcard_why(&e)))?;
    *at = bytes.len() - rest.len();
    Ok(())
}

/// A whole message of `kind` in postcard's form, as [`take_whole`] reads it back.
pub(crate) fn put_whole<T: serde::Serialize + ?Sized>(kind: u64, value: &T) -> Vec<u8> {
    let mut bytes = Vec::new();
    put(&mut bytes, &(kind, value));
    bytes
}

/// A whole message of `kind` in postcard's form: the kind, one value, and no byte after it.
pub(crate) fn take_whole<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], kind: u64) -> Result<T, DecodeError> {
    let mut at = 0;
    if take::<u64>(bytes, &mut at)? != kind {
        return Err(DecodeError { at: 0, why: "not this kind of message" });
    }
    let value = take(bytes, &mut at)?;
    if at != bytes.len() {
        return Err(DecodeError { at, why: "trailing bytes" });
    }
    Ok(value)
}

fn postcard_why(e: &postcard::Error) -> &'static str {
    match e {
        postcard::Error::DeserializeUnexpectedEnd => "cut short",
        postcard::Error::DeserializeBadVarint => "a number is too long",
        postcard::Error::DeserializeBadBool => "bad flag",
        postcard::Error::DeserializeBadChar | postcard::Error::DeserializeBadUtf8 => "not UTF-8",
        postcard::Error::DeserializeBadOption => "bad option",
        postcard::Error::DeserializeBadEnum => "bad tag",
        _ => "not a message",
    }
}

/// Why a reply's bytes are not a reply, and where (a byte offset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecodeError {
    pub at: usize,
    pub why: &'static str,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.why, self.at)
    }
}

/// A reply being decoded a part per [`step`](ReplyDecoder::step).
pub struct ReplyDecoder {
    bytes: Vec<u8>,
    at: usize,
    state: Decoding,
}

enum Decoding {
    Start,
    /// A read scenario, part by part.
    Scenario(Box<Partial>),
    /// Answered, or found damaged: a further step is an error.
    Over,
}

/// What a read reply has given so far.
struct Partial {
    id: u64,
    held: bool,
    run_error: Option<String>,
    edited: Option<String>,
    expect_lines: Vec<Option<usize>>,
    scenario: Scenario,
    part: Part,
    /// Items left in the current list (classes, categories, sites).
    left: usize,
    /// The blocks being read, outermost first (`Part::Block`).
    open: Vec<Open>,
}

#[derive(Clone, Copy)]
enum Part {
    Classes,
    Categories,
    Sites,
    /// `setup`, `before_op`, `op`.
    Block(u8),
}

/// A block being read, and what it is the body of.
struct Open {
    of: Body,
    stmts: Vec<Stmt>,
}

enum Body {
    Top,
    Loop(u64),
    Every(u64, u64),
    Repeat(u64),
    Use(String),
}

impl ReplyDecoder {
    pub fn new(bytes: Vec<u8>) -> ReplyDecoder {
        ReplyDecoder { bytes, at: 0, state: Decoding::Start }
    }

    /// Decode at most `items` more items: the reply once it is whole, `None` while there is more.
    /// Damaged bytes are an error (once: the decoder is spent), never a panic.
    pub fn step(&mut self, items: usize) -> Result<Option<Reply>, DecodeError> {
        let mut r = Reader { bytes: &self.bytes, at: self.at };
        let stepped = advance(&mut self.state, &mut r, items);
        self.at = r.at;
        if stepped.is_err() {
            self.state = Decoding::Over;
        }
        stepped.map_err(|why| DecodeError { at: self.at, why })
    }
}

fn advance(state: &mut Decoding, r: &mut Reader, mut items: usize) -> Read<Option<Reply>> {
    loop {
        match state {
            Decoding::Start => match start(r)? {
                Ok(reply) => {
                    *state = Decoding::Over;
                    return Ok(Some(reply));
                }
                Err(partial) => *state = Decoding::Scenario(partial),
            },
            Decoding::Scenario(_) if items == 0 => return Ok(None),
            Decoding::Scenario(p) => {
                items -= 1;
                if p.item(r)? {
                    if let Decoding::Scenario(p) = std::mem::replace(state, Decoding::Over) {
                        return p.finish(r).map(Some);
                    }
                }
            }
            Decoding::Over => return Err("the reply was decoded already"),
        }
    }
}

/// A reply's head: a whole reply when it is short (a refusal), or a read scenario to go on with.
fn start(r: &mut Reader) -> Read<Result<Reply, Box<Partial>>> {
    if r.num()? != READ {
        return Err("not this kind of message");
    }
    let id = r.num()?;
    let verdict = match r.num()? {
        0 => {
            let held = r.bool()?;
            let run_error = r.opt()?;
            let edited = r.opt()?;
            let expect_lines = r.list(|r| Ok(r.num()?.checked_sub(1).map(|l| l as usize)))?;
            let name = r.str()?;
            let semantics = *Semantics::ALL.get(r.num()? as usize).ok_or("bad semantics")?;
            let measure = Measure { warmup_ops: r.u32()?, ops: r.u32()? };
            let scenario = Scenario { name, semantics, measure, ..Scenario::default() };
            let left = r.len()?;
            let open = Vec::new();
            return Ok(Err(Box::new(Partial { id, held, run_error, edited, expect_lines, scenario, part: Part::Classes, left, open })));
        }
        1 => Verdict::Invalid { error: TextError { line: r.num()? as usize, col: r.num()? as usize, message: r.str()? }, message: r.str()? },
        2 => Verdict::Failed(r.str()?),
        3 => Verdict::Refused(r.str()?),
        _ => return Err("bad verdict"),
    };
    r.end()?;
    Ok(Ok(Reply { id, verdict }))
}

impl Partial {
    /// The reply, from the expectations after the last block.
    fn finish(self, r: &mut Reader) -> Read<Reply> {
        let Partial { id, held, run_error, edited, expect_lines, mut scenario, .. } = self;
        scenario.expectations = expect_wire::take(r)?;
        r.end()?;
        Ok(Reply { id, verdict: Verdict::Read { scenario: Box::new(scenario), run_error, expect_lines, held, edited } })
    }

    /// Decode one item (or end a list); true when the last block has ended.
    fn item(&mut self, r: &mut Reader) -> Read<bool> {
        let s = &mut self.scenario;
        match self.part {
            Part::Classes if self.left > 0 => s.classes.push(ClassDecl {
                name: r.str()?,
                parent: r.opt()?,
                methods: r.strs()?,
                metaclass: r.meta()?,
                costs: r.list(|r| Ok(BodyCost { method: r.str()?, ns: r.num()? }))?,
            }),
            Part::Categories if self.left > 0 => {
                s.categories.push(CategoryDecl { name: r.str()?, methods: r.list(|r| Ok(MethodRef { class: r.str()?, method: r.str()? }))? })
            }
            Part::Sites if self.left > 0 => s.sites.push(SiteDecl::mono(r.name()?, r.name()?, r.name()?).with_receivers(r.strs()?, r.list(|r| r.u32())?)),
            Part::Classes => {
                (self.part, self.left) = (Part::Categories, r.len()?);
                return Ok(false);
            }
            Part::Categories => {
                (self.part, self.left) = (Part::Sites, r.len()?);
                s.sites.reserve(self.left);
                return Ok(false);
            }
            Part::Sites => {
                self.part = Part::Block(0);
                self.open.push(Open { of: Body::Top, stmts: Vec::new() });
                return Ok(false);
            }
            Part::Block(which) => return self.statement(r, which),
        }
        self.left -= 1;
        Ok(false)
    }

    /// One statement tag of block `which`; true when the last block has ended.
    fn statement(&mut self, r: &mut Reader, which: u8) -> Read<bool> {
        let opens = |of| Some(Open { of, stmts: Vec::new() });
        let (stmt, open) = match r.num()? {
            0 => (Some(Stmt::Call { site: r.name()? }), None),
            1 => (None, opens(Body::Loop(r.num()?))),
            2 => (None, opens(Body::Every(r.num()?, r.num()?))),
            3 => (None, opens(Body::Repeat(r.num()?))),
            4 => (None, opens(Body::Use(r.str()?))),
            5 => (Some(Stmt::event(r.event()?)), None),
            CLOSE => {
                let Open { of, stmts } = self.open.pop().ok_or("a block closed twice")?;
                match of {
                    Body::Top => {
                        let s = &mut self.scenario;
                        *[&mut s.setup, &mut s.before_op, &mut s.op][usize::from(which)] = stmts;
                        if which == 2 {
                            return Ok(true);
                        }
                        self.part = Part::Block(which + 1);
                        self.open.push(Open { of: Body::Top, stmts: Vec::new() });
                        return Ok(false);
                    }
                    Body::Loop(count) => (Some(Stmt::looped(count, stmts)), None),
                    Body::Every(period, offset) => (Some(Stmt::every(period, offset, stmts)), None),
                    Body::Repeat(count) => (Some(Stmt::repeat(count, stmts)), None),
                    Body::Use(category) => (Some(Stmt::use_category(category, stmts)), None),
                }
            }
            _ => return Err("bad statement"),
        };
        if let Some(open) = open {
            if self.open.len() > MAX_NESTING {
                return Err("nested too deep");
            }
            self.open.push(open);
        }
        if let Some(stmt) = stmt {
            self.open.last_mut().ok_or("a statement outside a block")?.stmts.push(stmt);
        }
        Ok(false)
    }
}

/// The tag that ends a block (after the statements' tags 0-5).
const CLOSE: u64 = 6;

/// The read reply's scenario parts (the primitives are `codec`'s).
impl Writer {
    fn scenario(&mut self, s: &Scenario) {
        let Scenario { name, semantics, measure, classes, categories, sites, setup, before_op, op, expectations } = s;
        let w = self;
        w.0.reserve(sites.len() * 24 + classes.len() * 16);
        w.str(name);
        w.num(Semantics::ALL.iter().position(|x| x == semantics).unwrap_or(0) as u64);
        let Measure { warmup_ops, ops } = measure;
        w.num(u64::from(*warmup_ops));
        w.num(u64::from(*ops));
        w.num(classes.len() as u64);
        for ClassDecl { name, parent, methods, metaclass, costs } in classes {
            w.str(name);
            w.opt(parent);
            w.strs(methods);
            w.meta(*metaclass);
            w.num(costs.len() as u64);
            for BodyCost { method, ns } in costs {
                w.str(method);
                w.num(*ns);
            }
        }
        w.num(categories.len() as u64);
        for CategoryDecl { name, methods } in categories {
            w.str(name);
            w.num(methods.len() as u64);
            for MethodRef { class, method } in methods {
                w.str(class);
                w.str(method);
            }
        }
        w.num(sites.len() as u64);
        for site in sites {
            w.str(&site.name);
            w.str(&site.class);
            w.str(&site.method);
            w.strs(site.others());
            w.num(site.mix().len() as u64);
            for weight in site.mix() {
                w.num(u64::from(*weight));
            }
        }
        for block in [setup, before_op, op] {
            w.block(block);
        }
        expect_wire::put(w, expectations);
    }

    /// A block's statements, flat: a statement with a body opens one, `CLOSE` ends it.
    fn block(&mut self, block: &[Stmt]) {
        for st in block {
            match st {
                Stmt::Call { site } => {
                    self.num(0);
                    self.str(site);
                }
                Stmt::Loop(l) => {
                    self.num(1);
                    self.num(l.count);
                    self.block(&l.body);
                }
                Stmt::Every(e) => {
                    self.num(2);
                    self.num(e.period);
                    self.num(e.offset);
                    self.block(&e.body);
                }
                Stmt::Repeat(r) => {
                    self.num(3);
                    self.num(r.count);
                    self.block(&r.body);
                }
                Stmt::Use(u) => {
                    self.num(4);
                    self.str(&u.category);
                    self.block(&u.body);
                }
                Stmt::Event(e) => {
                    self.num(5);
                    self.event(e);
                }
            }
        }
        self.num(CLOSE);
    }
}

/// A whole message of `kind`, read by `read`; an error is placed at the byte it stopped at.
fn whole<'a, T>(bytes: &'a [u8], kind: u64, read: impl FnOnce(&mut Reader<'a>) -> Read<T>) -> Result<T, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let all = || {
        if r.num()? != kind {
            return Err("not this kind of message");
        }
        let value = read(&mut r)?;
        r.end()?;
        Ok(value)
    };
    let result = all();
    result.map_err(|why| DecodeError { at: r.at, why })
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::name::Name;
    use blast_engine::{dsl, presets};

    fn read(scenario: Scenario) -> Reply {
        Reply {
            id: 3,
            verdict: Verdict::Read {
                scenario: Box::new(scenario),
                run_error: Some("why".into()),
                expect_lines: vec![Some(4), None],
                held: true,
                edited: Some("class A { m }\n".into()),
            },
        }
    }

    /// Decoded `items` at a time, as the page does: the result and the steps it took.
    fn stepped(bytes: &[u8], items: usize) -> (Result<Reply, DecodeError>, usize) {
        let mut decoder = ReplyDecoder::new(bytes.to_vec());
        for steps in 1.. {
            match decoder.step(items) {
                Ok(None) => continue,
                Ok(Some(reply)) => return (Ok(reply), steps),
                Err(e) => {
                    assert!(decoder.step(items).is_err(), "a spent decoder goes on");
                    return (Err(e), steps);
                }
            }
        }
        unreachable!()
    }

    #[test]
    fn every_preset_and_runtime_round_trips_whole_and_in_steps() {
        let mut texts: Vec<String> = presets::all().iter().map(|p| p.text.to_string()).collect();
        texts.extend(blast_engine::runtimes::PROFILES.iter().map(|r| r.scenario_text()));
        for text in texts {
            let reply = read(dsl::parse(&text).expect("parses"));
            let bytes = encode_reply(&reply);
            assert_eq!(decode_reply(&bytes), Ok(reply.clone()));
            for items in [1, 3] {
                assert_eq!(stepped(&bytes, items).0, Ok(reply.clone()), "{items} per step");
            }
        }
        let invalid = Reply { id: 1, verdict: Verdict::Invalid { error: TextError { line: 2, col: 5, message: "m".into() }, message: "2:5: m".into() } };
        let failed = Reply { id: u64::MAX, verdict: Verdict::Failed("stopped".into()) };
        let refused = Reply { id: 2, verdict: Verdict::Refused("a class named `A` exists".into()) };
        for reply in [invalid, failed, refused] {
            assert_eq!(stepped(&encode_reply(&reply), 1), (Ok(reply.clone()), 1));
        }
        let site = SiteDecl::mono("s", "A", "m").with_receivers(vec!["B".into()], vec![2, 1]);
        let workload = crate::editor::Workload {
            iterations: 9,
            calls: vec!["s".into()],
            churn: Some(crate::editor::Churn { period: 3, class: "A".into(), method: "m".into() }),
        };
        let edits = [
            None,
            Some(EditOp::AddSite(site.clone())),
            Some(EditOp::RetargetSite(site)),
            Some(EditOp::SetWorkload(workload)),
            Some(EditOp::SetMetaclass { class: "é".into(), kind: blast_engine::scenario::MetaKind::Expando }),
        ];
        for edit in edits {
            let job = Job { id: 9, text: "class é { m }".into(), policies: Policy::ALL.to_vec(), looping: true, edit };
            let bytes = encode_job(job.id, &job.text, &job.policies, job.looping, job.edit.as_ref());
            assert_eq!(decode_job(&bytes), Ok(job.clone()));
            // Cut anywhere, the job is an error, never a panic.
            for cut in 0..bytes.len() {
                assert!(decode_job(&bytes[..cut]).is_err(), "{job:?} cut at {cut}");
            }
        }
    }

    /// A world of `sites` sites over 10 classes, called in a loop inside a repeat.
    fn world(sites: usize) -> Scenario {
        let mut t = String::new();
        for i in 0..10 {
            t += &format!("class K{i} {{ m }}\n");
        }
        for i in 0..sites {
            t += &format!("site s{i} = K{}.m\n", i % 10);
        }
        let calls: Vec<String> = (0..sites).map(|i| format!("call s{i}")).collect();
        t += &format!("op {{ repeat 2 {{ loop 3 {{ {} }} }} }}\n", calls.join(" "));
        dsl::parse(&t).expect("parses")
    }

    #[test]
    fn a_step_decodes_at_most_its_items() {
        // 10 classes, 5,000 sites and 5,002 statements: about 10,000 items.
        let reply = read(world(5000));
        let bytes = encode_reply(&reply);
        let (whole, steps) = stepped(&bytes, 1000);
        assert_eq!(whole, Ok(reply));
        assert!((10..=11).contains(&steps), "{steps} steps of 1,000 items");
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic_whole_or_in_steps() {
        let bytes = encode_reply(&read(presets::find("oracle_liveParentRedefine").unwrap().scenario()));
        for cut in 0..bytes.len() {
            assert!(decode_reply(&bytes[..cut]).is_err(), "cut at {cut}");
            for items in [1, 5] {
                let (cut_short, _) = stepped(&bytes[..cut], items);
                assert!(cut_short.is_err_and(|e| e.at <= cut), "cut at {cut}, {items} per step");
            }
        }
        let mut flipped = bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode_reply(&flipped);
            let _ = stepped(&flipped, 2);
            flipped[i] ^= 0xff;
        }
        assert!(decode_reply(&[0xff; 16]).is_err() && decode_job(&[0xff; 16]).is_err());
        let mut trailing = bytes;
        trailing.push(0);
        assert!(decode_reply(&trailing).is_err());
        // Blocks nested deeper than the engine accepts are refused, not followed down.
        let mut deep = vec![Stmt::Call { site: Name::new("s") }];
        for _ in 0..=MAX_NESTING {
            deep = vec![Stmt::looped(1, deep)];
        }
        let bytes = encode_reply(&read(Scenario { op: deep, ..Scenario::default() }));
        assert_eq!(stepped(&bytes, 1).0.map_err(|e| e.why), Err("nested too deep"));
    }
}
