//! The byte form of the read job and reply (`wire`) and of the expectations in it
//! (`expect_wire`): LEB128 numbers, strings as length + UTF-8, an enum as its index in the
//! engine's own list (`Policy::ALL`, `MetaKind::ALL`). The reader is total: a cut, a bad tag or
//! a length past the end is an error (`Read`), never a panic, and it allocates no more than the
//! bytes it has read can hold.

use blast_engine::name::Name;
use blast_engine::scenario::{Event, MetaKind};
use blast_engine::Policy;

pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn bool(&mut self, v: bool) {
        self.num(u64::from(v));
    }

    pub(crate) fn policy(&mut self, p: Policy) {
        self.num(Policy::ALL.iter().position(|x| *x == p).unwrap_or(0) as u64);
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
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

pub(crate) type Read<T> = Result<T, &'static str>;

impl<'a> Reader<'a> {
    pub(crate) fn policy(&mut self) -> Read<Policy> {
        Policy::ALL.get(self.num()? as usize).copied().ok_or("bad policy")
    }

    pub(crate) fn bool(&mut self) -> Read<bool> {
        match self.num()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err("bad flag"),
        }
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
    pub(crate) fn name(&mut self) -> Read<Name> {
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
