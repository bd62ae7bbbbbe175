//! The program counter: the scenario's `setup` / `before_op` / `op` compiled once into an arena
//! of nodes with resolved ids, walked by a stack of frames; and the work estimate that bounds a
//! run before it starts.
//!
//! Compiling once means a step never clones statements and a loop never looks a call up by
//! name: loop entry costs its number of calls, nothing more.

use std::collections::HashMap;

use crate::model::{Event, Scenario, Stmt};

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
    /// `(site, position in calls)`, sorted: where an event's hit sites sit in this loop.
    pub by_site: Vec<(u32, u32)>,
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
    pub fn compile(s: &Scenario, site: &HashMap<&str, u32>, category: &dyn Fn(&str) -> usize) -> Program {
        // The three blocks take lists 0..3 before any nested body is pushed.
        let mut p = Program { lists: vec![Vec::new(); 3], loops: Vec::new() };
        for (id, block) in [SETUP, BEFORE_OP, OP].into_iter().zip([&s.setup, &s.before_op, &s.op]) {
            p.lists[id] = p.compile_list(block, site, category);
        }
        p
    }

    fn compile_list(&mut self, block: &[Stmt], site: &HashMap<&str, u32>, category: &dyn Fn(&str) -> usize) -> Vec<Node> {
        let mut out = Vec::with_capacity(block.len());
        for st in block {
            let node = match st {
                Stmt::Event(ev) => Node::Event(ev.clone()),
                Stmt::Repeat { count, body } => Node::Repeat { count: *count, body: self.push_list(body, site, category) },
                Stmt::Use { category: name, body } => Node::Use { category: category(name), body: self.push_list(body, site, category) },
                Stmt::Loop { count, body } => Node::Loop(self.compile_loop(*count, body, site)),
                // Validation keeps these inside loops.
                Stmt::Call { .. } | Stmt::Every { .. } => continue,
            };
            out.push(node);
        }
        out
    }

    fn push_list(&mut self, block: &[Stmt], site: &HashMap<&str, u32>, category: &dyn Fn(&str) -> usize) -> ListId {
        let list = self.compile_list(block, site, category);
        self.lists.push(list);
        self.lists.len() - 1
    }

    fn compile_loop(&mut self, count: u64, body: &[Stmt], site: &HashMap<&str, u32>) -> LoopId {
        let mut calls = Vec::new();
        let mut every = Vec::new();
        for b in body {
            match b {
                Stmt::Call { site: name } => calls.push(site[name.as_str()]),
                Stmt::Every { period, offset, body } => every.push(Every { period: *period, offset: *offset, events: events_of(body) }),
                Stmt::Event(ev) => every.push(Every { period: 1, offset: 0, events: vec![ev.clone()] }),
                _ => {}
            }
        }
        let mut by_site: Vec<(u32, u32)> = calls.iter().enumerate().map(|(pos, &s)| (s, pos as u32)).collect();
        by_site.sort_unstable();
        self.loops.push(LoopNode { count, calls, every, by_site });
        self.loops.len() - 1
    }
}

fn events_of(body: &[Stmt]) -> Vec<Event> {
    body.iter().filter_map(|s| if let Stmt::Event(e) = s { Some(e.clone()) } else { None }).collect()
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
    /// Call positions whose site is not steady, sorted (see `site::is_steady`).
    pub dirty: Vec<u32>,
    /// Positions of sites an event unsettled since the last segment (merged into `dirty`).
    pub unsettled: Vec<u32>,
}

/// Loop iterations executed by one run of `block`.
pub fn iterations_in(block: &[Stmt]) -> u64 {
    block
        .iter()
        .map(|s| match s {
            Stmt::Loop { count, .. } => *count,
            Stmt::Repeat { count, body } => count.saturating_mul(iterations_in(body)),
            Stmt::Use { body, .. } => iterations_in(body),
            _ => 0,
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}
