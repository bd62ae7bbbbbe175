//! The engine worker's messages as compact bytes (`offload`): a job (the text to read) and
//! its reply, whose typed scenario the page rebuilds without parsing text.
//!
//! Why not serde: the page would then ship serde's derived deserializers for the whole model
//! (measured: +56 KB gzipped on a 477 KB bundle), where this is a few KB. The format is
//! lengths and numbers as LEB128, strings as length + UTF-8, enums as a tag; the encoder
//! destructures every struct, so a new model field does not compile until it is carried.
//! Expectations, few and rich, travel as their DSL lines and are read with
//! `dsl::parse_unchecked`, which the page has anyway. Decoding is total: bytes that are not a
//! message give an error, never a panic.

use blast_engine::dsl;
use blast_engine::model::{BodyCost, CategoryDecl, ClassDecl, Event, Measure, MetaKind, MethodRef, Scenario, Semantics, SiteDecl, Stmt};
use blast_engine::name::Name;
use blast_engine::validate::MAX_NESTING;
use blast_engine::Policy;

use crate::offload::{Job, Reply, TextError, Verdict};

/// The first number of every message: what it is. A text to read (`Job`) and its `Reply`...
pub const READ: u64 = 0;
/// ...or lanes the worker runs (`lanes::Request`) and their `lanes::Update`.
pub const LANES: u64 = 1;

/// What a message is (`READ` or `LANES`), `None` for bytes that are not one.
pub fn kind(bytes: &[u8]) -> Option<u64> {
    bytes.first().map(|&b| u64::from(b)).filter(|&k| k == READ || k == LANES)
}

pub fn encode_job(job: &Job) -> Vec<u8> {
    let Job { id, text, policies, looping } = job;
    let mut w = Writer(Vec::with_capacity(text.len() + 16));
    w.num(READ);
    w.num(*id);
    w.num(u64::from(*looping));
    w.num(policies.len() as u64);
    for p in policies {
        w.num(Policy::ALL.iter().position(|x| x == p).unwrap_or(0) as u64);
    }
    w.str(text);
    w.0
}

pub fn decode_job(bytes: &[u8]) -> Result<Job, String> {
    let mut r = Reader::of(bytes, READ)?;
    let id = r.num()?;
    let looping = r.num()? == 1;
    let policies = r.list(|r| Policy::ALL.get(r.num()? as usize).copied().ok_or("bad policy"))?;
    let text = r.str()?;
    r.end()?;
    Ok(Job { id, text, policies, looping })
}

pub fn encode_reply(reply: &Reply) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.num(READ);
    w.num(reply.id);
    match &reply.verdict {
        Verdict::Read { scenario, run_error, expect_lines, held } => {
            w.num(0);
            w.bool(*held);
            w.opt(run_error);
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
    }
    w.0
}

pub fn decode_reply(bytes: &[u8]) -> Result<Reply, String> {
    let mut r = Reader::of(bytes, READ)?;
    let id = r.num()?;
    let verdict = match r.num()? {
        0 => Verdict::Read {
            held: r.bool()?,
            run_error: r.opt()?,
            expect_lines: r.list(|r| Ok(r.num()?.checked_sub(1).map(|l| l as usize)))?,
            scenario: Box::new(r.scenario()?),
        },
        1 => Verdict::Invalid { error: TextError { line: r.num()? as usize, col: r.num()? as usize, message: r.str()? }, message: r.str()? },
        2 => Verdict::Failed(r.str()?),
        _ => return Err("bad verdict".into()),
    };
    r.end()?;
    Ok(Reply { id, verdict })
}

pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.num(u64::from(v));
    }

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
        let expectations =
            if expectations.is_empty() { String::new() } else { dsl::print(&Scenario { expectations: expectations.clone(), ..Scenario::default() }) };
        w.str(&expectations);
    }

    pub(crate) fn num(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn opt(&mut self, s: &Option<String>) {
        match s {
            None => self.num(0),
            Some(s) => {
                self.num(1);
                self.str(s);
            }
        }
    }

    pub(crate) fn strs(&mut self, v: &[String]) {
        self.num(v.len() as u64);
        for s in v {
            self.str(s);
        }
    }

    pub(crate) fn meta(&mut self, m: MetaKind) {
        self.num(MetaKind::ALL.iter().position(|x| *x == m).unwrap_or(0) as u64);
    }

    fn block(&mut self, block: &[Stmt]) {
        self.num(block.len() as u64);
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
    }

    pub(crate) fn event(&mut self, e: &Event) {
        match e {
            Event::Write { class, method } => {
                self.num(0);
                self.str(class);
                self.str(method);
            }
            Event::Replace { class, kind } => {
                self.num(1);
                self.str(class);
                self.meta(*kind);
            }
            Event::Remove { class } => {
                self.num(2);
                self.str(class);
            }
            Event::PerInstance { class } => {
                self.num(3);
                self.str(class);
            }
            Event::Load { class, parent, methods } => {
                self.num(4);
                self.str(class);
                self.opt(parent);
                self.strs(methods);
            }
            Event::InvalidateAll => self.num(5),
            Event::Unattributed => self.num(6),
        }
    }
}

pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

pub(crate) type Read<T> = Result<T, &'static str>;

impl<'a> Reader<'a> {
    /// A reader past the message's kind, which must be `kind`.
    pub(crate) fn of(bytes: &'a [u8], kind: u64) -> Read<Reader<'a>> {
        let mut r = Reader { bytes, at: 0 };
        if r.num()? != kind {
            return Err("not this kind of message");
        }
        Ok(r)
    }

    pub(crate) fn f64(&mut self) -> Read<f64> {
        let end = self.at.checked_add(8).filter(|&e| e <= self.bytes.len()).ok_or("cut short")?;
        let v = f64::from_le_bytes(self.bytes[self.at..end].try_into().map_err(|_| "cut short")?);
        self.at = end;
        Ok(v)
    }

    pub(crate) fn bytes_left(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub(crate) fn bool(&mut self) -> Read<bool> {
        match self.num()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err("bad flag"),
        }
    }

    fn scenario(&mut self) -> Read<Scenario> {
        let r = self;
        let name = r.str()?;
        let semantics = *Semantics::ALL.get(r.num()? as usize).ok_or("bad semantics")?;
        let measure = Measure { warmup_ops: r.u32()?, ops: r.u32()? };
        let classes = r.list(|r| {
            Ok(ClassDecl {
                name: r.str()?,
                parent: r.opt()?,
                methods: r.strs()?,
                metaclass: r.meta()?,
                costs: r.list(|r| Ok(BodyCost { method: r.str()?, ns: r.num()? }))?,
            })
        })?;
        let categories = r.list(|r| Ok(CategoryDecl { name: r.str()?, methods: r.list(|r| Ok(MethodRef { class: r.str()?, method: r.str()? }))? }))?;
        let sites = r.list(|r| Ok(SiteDecl::mono(r.name()?, r.name()?, r.name()?).with_receivers(r.strs()?, r.list(|r| r.u32())?)))?;
        let setup = r.block(0)?;
        let before_op = r.block(0)?;
        let op = r.block(0)?;
        let expectations = match r.str()? {
            text if text.is_empty() => Vec::new(),
            text => dsl::parse_unchecked(&text).map_err(|_| "bad expectations")?.0.expectations,
        };
        Ok(Scenario { name, semantics, measure, classes, categories, sites, setup, before_op, op, expectations })
    }

    pub(crate) fn end(&self) -> Read<()> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err("trailing bytes")
        }
    }

    pub(crate) fn num(&mut self) -> Read<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.at).ok_or("cut short")?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number is too long")
    }

    pub(crate) fn u32(&mut self) -> Read<u32> {
        u32::try_from(self.num()?).map_err(|_| "a count is too large")
    }

    /// A length, at most the bytes left (every element takes at least one).
    pub(crate) fn len(&mut self) -> Read<usize> {
        let n = self.num()?;
        usize::try_from(n).ok().filter(|&n| n <= self.bytes.len() - self.at).ok_or("a length runs past the end")
    }

    pub(crate) fn str(&mut self) -> Read<String> {
        self.text().map(str::to_string)
    }

    /// A name made from the bytes in place (no `String` on the way: 4 per site at 10^5 sites).
    fn name(&mut self) -> Read<Name> {
        self.text().map(Name::new)
    }

    fn text(&mut self) -> Read<&'a str> {
        let n = self.len()?;
        let s = std::str::from_utf8(&self.bytes[self.at..self.at + n]).map_err(|_| "not UTF-8")?;
        self.at += n;
        Ok(s)
    }

    pub(crate) fn opt(&mut self) -> Read<Option<String>> {
        match self.num()? {
            0 => Ok(None),
            1 => self.str().map(Some),
            _ => Err("bad option"),
        }
    }

    pub(crate) fn strs(&mut self) -> Read<Vec<String>> {
        self.list(|r| r.str())
    }

    pub(crate) fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Read<T>) -> Read<Vec<T>> {
        let n = self.len()?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(item(self)?);
        }
        Ok(v)
    }

    pub(crate) fn meta(&mut self) -> Read<MetaKind> {
        MetaKind::ALL.get(self.num()? as usize).copied().ok_or("bad metaclass kind")
    }

    fn block(&mut self, depth: usize) -> Read<Vec<Stmt>> {
        if depth > MAX_NESTING {
            return Err("nested too deep");
        }
        self.list(|r| {
            Ok(match r.num()? {
                0 => Stmt::Call { site: r.name()? },
                1 => Stmt::looped(r.num()?, r.block(depth + 1)?),
                2 => Stmt::every(r.num()?, r.num()?, r.block(depth + 1)?),
                3 => Stmt::repeat(r.num()?, r.block(depth + 1)?),
                4 => Stmt::use_category(r.str()?, r.block(depth + 1)?),
                5 => Stmt::event(r.event()?),
                _ => return Err("bad statement"),
            })
        })
    }

    pub(crate) fn event(&mut self) -> Read<Event> {
        Ok(match self.num()? {
            0 => Event::Write { class: self.str()?, method: self.str()? },
            1 => Event::Replace { class: self.str()?, kind: self.meta()? },
            2 => Event::Remove { class: self.str()? },
            3 => Event::PerInstance { class: self.str()? },
            4 => Event::Load { class: self.str()?, parent: self.opt()?, methods: self.strs()? },
            5 => Event::InvalidateAll,
            6 => Event::Unattributed,
            _ => return Err("bad event"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    fn read(scenario: Scenario) -> Reply {
        Reply { id: 3, verdict: Verdict::Read { scenario: Box::new(scenario), run_error: Some("why".into()), expect_lines: vec![Some(4), None], held: true } }
    }

    #[test]
    fn every_preset_and_runtime_round_trips() {
        let mut texts: Vec<String> = presets::all().iter().map(|p| p.text.to_string()).collect();
        texts.extend(blast_engine::runtimes::PROFILES.iter().map(|r| r.scenario_text()));
        for text in texts {
            let reply = read(dsl::parse(&text).expect("parses"));
            assert_eq!(decode_reply(&encode_reply(&reply)), Ok(reply.clone()));
        }
        let invalid = Reply { id: 1, verdict: Verdict::Invalid { error: TextError { line: 2, col: 5, message: "m".into() }, message: "2:5: m".into() } };
        let failed = Reply { id: u64::MAX, verdict: Verdict::Failed("stopped".into()) };
        for reply in [invalid, failed] {
            assert_eq!(decode_reply(&encode_reply(&reply)), Ok(reply.clone()));
        }
        let job = Job { id: 9, text: "class é { m }".into(), policies: Policy::ALL.to_vec(), looping: true };
        assert_eq!(decode_job(&encode_job(&job)), Ok(job));
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let bytes = encode_reply(&read(presets::find("oracle_liveParentRedefine").unwrap().scenario()));
        for cut in 0..bytes.len() {
            assert!(decode_reply(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode_reply(&flipped);
            flipped[i] ^= 0xff;
        }
        assert!(decode_reply(&[0xff; 16]).is_err() && decode_job(&[0xff; 16]).is_err());
        let mut trailing = bytes;
        trailing.push(0);
        assert!(decode_reply(&trailing).is_err());
    }
}
