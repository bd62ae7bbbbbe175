//! The program counter: the scenario's `setup` / `before_op` / `op` compiled once into an arena
//! of nodes with resolved ids, walked by a stack of frames (the work estimate that bounds a run
//! before it starts is `estimate`).
//!
//! Compiling once means a step never clones statements and a loop never looks a call up by
//! name: loop entry costs its number of calls, nothing more.

use crate::scenario::{Event, Scenario, Stmt};
use crate::validate::SiteIndex;

pub(crate) type ListId = usize;
pub(crate) type LoopId = usize;

/// A statement with names resolved. Calls and `every` clauses only exist inside a [`LoopNode`].
#[derive(Clone, Debug)]
pub(crate) enum Node {
    Event(Event),
    Repeat { count: u64, body: ListId },
    Use { category: usize, body: ListId },
    Loop(LoopId),
}

/// A compiled `loop`: its calls in order, and its `every` clauses (a bare event is `every 1`).
#[derive(Clone, Debug)]
pub(crate) struct LoopNode {
    pub count: u64,
    pub calls: Vec<u32>,
    pub every: Vec<Every>,
    /// `(site, position in calls)`, sorted: where an event's hit sites sit in this loop. Empty
    /// when every site is called once (a steady site keeps its one position).
    pub by_site: Vec<(u32, u32)>,
    /// No site is called twice per iteration (the usual case: a site's position is enough).
    pub calls_each_site_once: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Every {
    pub period: u64,
    pub offset: u64,
    pub events: Vec<Event>,
}

impl LoopNode {
    /// Positions of site `s` in the loop's calls (a site may be called more than once).
    pub fn positions(&self, s: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.by_site.partition_point(|&(x, _)| x < s);
        self.by_site[start..].iter().take_while(move |&&(x, _)| x == s).map(|&(_, p)| p)
    }

    /// The first iteration after `i` at which some `every` clause fires (`u64::MAX` if none).
    pub fn next_boundary(&self, i: u64) -> u64 {
        self.every
            .iter()
            .map(|e| {
                let base = i - i % e.period + e.offset;
                if base > i {
                    base
                } else {
                    base.saturating_add(e.period)
                }
            })
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The events due at iteration `i`, in program order.
    pub fn due(&self, i: u64) -> Vec<Event> {
        self.every.iter().filter(|e| i % e.period == e.offset).flat_map(|e| e.events.iter().cloned()).collect()
    }
}

/// The whole program, compiled. Lists `0..3` are the `setup`, `before_op` and `op` blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    pub lists: Vec<Vec<Node>>,
    pub loops: Vec<LoopNode>,
}

pub(crate) const SETUP: ListId = 0;
pub(crate) const BEFORE_OP: ListId = 1;
pub(crate) const OP: ListId = 2;

impl Program {
    /// Compile a validated scenario; `site` and `category` give the dense ids of names.
    pub fn compile(s: &Scenario, site: &SiteIndex, category: &dyn Fn(&str) -> usize) -> Program {
        // The three blocks take lists 0..3 before any nested body is pushed.
        let mut p = Program { lists: vec![Vec::new(); 3], loops: Vec::new() };
        for (id, block) in [SETUP, BEFORE_OP, OP].into_iter().zip([&s.setup, &s.before_op, &s.op]) {
            p.lists[id] = p.compile_list(block, site, category);
        }
        p
    }

    fn compile_list(&mut self, block: &[Stmt], site: &SiteIndex, category: &dyn Fn(&str) -> usize) -> Vec<Node> {
        let mut out = Vec::with_capacity(block.len());
        for st in block {
            let node = match st {
                Stmt::Event(ev) => Node::Event((**ev).clone()),
                Stmt::Repeat(r) => Node::Repeat { count: r.count, body: self.push_list(&r.body, site, category) },
                Stmt::Use(u) => Node::Use { category: category(&u.category), body: self.push_list(&u.body, site, category) },
                Stmt::Loop(l) => Node::Loop(self.compile_loop(l.count, &l.body, site)),
                // Validation keeps these inside loops.
                Stmt::Call { .. } | Stmt::Every { .. } => continue,
            };
            out.push(node);
        }
        out
    }

    fn push_list(&mut self, block: &[Stmt], site: &SiteIndex, category: &dyn Fn(&str) -> usize) -> ListId {
        let list = self.compile_list(block, site, category);
        self.lists.push(list);
        self.lists.len() - 1
    }

    fn compile_loop(&mut self, count: u64, body: &[Stmt], site: &SiteIndex) -> LoopId {
        let mut calls = Vec::with_capacity(body.len());
        let mut every = Vec::new();
        for b in body {
            match b {
                Stmt::Call { site: name } => calls.push(site.get(name).expect("validated")),
                Stmt::Every(e) => every.push(Every { period: e.period, offset: e.offset, events: events_of(&e.body) }),
                Stmt::Event(ev) => every.push(Every { period: 1, offset: 0, events: vec![(**ev).clone()] }),
                _ => {}
            }
        }
        // A bitmap over the sites finds a repeat in one pass, without sorting a million pairs.
        let mut seen = vec![0u64; calls.iter().max().map_or(0, |&m| m as usize / 64 + 1)];
        let calls_each_site_once = calls.iter().all(|&s| {
            let (word, bit) = (s as usize / 64, 1u64 << (s % 64));
            let first = seen[word] & bit == 0;
            seen[word] |= bit;
            first
        });
        let mut by_site: Vec<(u32, u32)> = Vec::new();
        if !calls_each_site_once {
            by_site = calls.iter().enumerate().map(|(pos, &s)| (s, pos as u32)).collect();
            by_site.sort_unstable();
        }
        self.loops.push(LoopNode { count, calls, every, by_site, calls_each_site_once });
        self.loops.len() - 1
    }
}

fn events_of(body: &[Stmt]) -> Vec<Event> {
    body.iter().filter_map(|s| if let Stmt::Event(e) = s { Some((**e).clone()) } else { None }).collect()
}

/// One frame of the resumable program counter.
#[derive(Clone, Debug)]
pub(crate) enum Frame {
    List {
        list: ListId,
        idx: usize,
    },
    Repeat {
        body: ListId,
        remaining: u64,
    },
    Leave {
        category: usize,
    },
    /// The untimed `before_op` block is done: the op's clock starts here.
    StartOpClock,
    Loop(LoopRun),
}

/// A loop being run: where it is, and which of its call positions must be run one by one.
#[derive(Clone, Debug)]
pub(crate) struct LoopRun {
    pub node: LoopId,
    pub i: u64,
    pub fired_at_i: bool,
    /// Call positions whose site is not steady (see `site::Steady`): run one by one.
    pub dirty: Bits,
}

/// A set of positions as a bitmap: marking is O(1) and the members come out in order, so a
/// segment never sorts, and a sparse one skips 64 steady calls per word.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// Every position in `0..n`.
    pub fn full(n: usize) -> Bits {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            words[n / 64] = (1u64 << (n % 64)) - 1;
        }
        Bits { words }
    }

    pub fn insert(&mut self, i: u32) {
        self.words[i as usize / 64] |= 1 << (i % 64);
    }

    pub fn remove(&mut self, i: u32) {
        self.words[i as usize / 64] &= !(1 << (i % 64));
    }

    /// The members in increasing order, appended to `out`.
    pub fn collect_into(&self, out: &mut Vec<u32>) {
        for (w, &word) in self.words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                out.push(w as u32 * 64 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }
}

/// Loop iterations executed by one run of `block`.
pub fn iterations_in(block: &[Stmt]) -> u64 {
    block
        .iter()
        .map(|s| match s {
            Stmt::Loop(l) => l.count,
            Stmt::Repeat(r) => r.count.saturating_mul(iterations_in(&r.body)),
            Stmt::Use(u) => iterations_in(&u.body),
            _ => 0,
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}

/// Upper bound on the state-machine steps one site takes in one loop segment (`run_calls`:
/// guard failure, reset, first PIC hit, promotion, fast chain; a stale PIC entry adds one), so
/// a site run is one unit of work (checked by a debug assertion in every test run).
pub const STEPS_PER_SITE_SEGMENT: u64 = 8;
