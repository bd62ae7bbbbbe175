//! The program counter: the scenario's `setup` / `before_op` / `op` compiled once into an arena
//! of nodes with resolved ids, walked by a stack of frames; and the work estimate that bounds a
//! run before it starts.
//!
//! Compiling once means a step never clones statements and a loop never looks a call up by
//! name: loop entry costs its number of calls, nothing more.

use crate::fxhash::FxMap;
use crate::model::{Event, Scenario, Stmt};
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

/// How much work a run takes at most, in the units the simulation counts
/// ([`crate::sim::Simulation::work_done`]): one per event, per class visited, per site
/// re-resolved, per dependent walked, per domain retired, per snapshot entry, per loop entry and
/// exit call, per segment and per site run in a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub total: u64,
    /// The largest term, in words ("4,762 events x 1,000,000 sites").
    pub dominant: String,
}

/// What one run of a block does, counted statically.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    events: u64,
    segments: u64,
    /// Sum over segments of the calls in their loop.
    segment_calls: u64,
    /// Sum over loop entries of the calls in the loop (each is entered and left once).
    loop_calls: u64,
}

impl Tally {
    fn plus(self, o: Tally) -> Tally {
        Tally {
            events: self.events.saturating_add(o.events),
            segments: self.segments.saturating_add(o.segments),
            segment_calls: self.segment_calls.saturating_add(o.segment_calls),
            loop_calls: self.loop_calls.saturating_add(o.loop_calls),
        }
    }

    fn times(self, k: u64) -> Tally {
        Tally {
            events: self.events.saturating_mul(k),
            segments: self.segments.saturating_mul(k),
            segment_calls: self.segment_calls.saturating_mul(k),
            loop_calls: self.loop_calls.saturating_mul(k),
        }
    }
}

/// `runs(site)`: the work units one run of the site in a segment takes (1; a polymorphic site
/// steps through up to four cycles of its receivers call by call, `sim::poly`).
fn tally(block: &[Stmt], runs: &dyn Fn(&str) -> u64) -> Tally {
    block.iter().fold(Tally::default(), |t, st| {
        let here = match st {
            Stmt::Event(_) => Tally { events: 1, ..Tally::default() },
            Stmt::Use(u) => Tally { events: 2, ..Tally::default() }.plus(tally(&u.body, runs)),
            Stmt::Repeat(r) => tally(&r.body, runs).times(r.count),
            Stmt::Loop(l) => {
                let (count, body) = (&l.count, &l.body);
                let calls = body.iter().filter_map(|b| if let Stmt::Call { site } = b { Some(runs(site)) } else { None }).fold(0u64, u64::saturating_add);
                // Segments end at firing iterations: at most one more than the firings.
                let mut boundaries = 1u64;
                let mut events = 0u64;
                for b in body {
                    match b {
                        Stmt::Every(e) => {
                            let firings = count / e.period + 1;
                            boundaries = boundaries.saturating_add(firings);
                            events = events.saturating_add(firings.saturating_mul(e.body.len() as u64));
                        }
                        Stmt::Event(_) => {
                            boundaries = boundaries.saturating_add(*count);
                            events = events.saturating_add(*count);
                        }
                        _ => {}
                    }
                }
                Tally { events, segments: boundaries, segment_calls: boundaries.saturating_mul(calls), loop_calls: 2 * calls }
            }
            Stmt::Call { .. } | Stmt::Every { .. } => Tally::default(),
        };
        t.plus(here)
    })
}

/// The static shape of the world: how much a snapshot or an event on a class can visit.
struct WorldSize {
    classes: u64,
    /// Sum of all classes' inherited-method counts (the snapshots built at the start).
    snapshots: u64,
    /// The most one snapshot rebuild visits: ancestors, their methods, and every method name
    /// the program can add by a write.
    rebuild: u64,
}

fn world_size(s: &Scenario) -> WorldSize {
    let mut decls: Vec<(&str, Option<&str>, u64)> = s.classes.iter().map(|c| (c.name.as_str(), c.parent.as_deref(), c.methods.len() as u64)).collect();
    let mut writes = 0u64;
    s.visit_events(|ev| match ev {
        Event::Load { class, parent, methods } => decls.push((class, parent.as_deref(), methods.len() as u64)),
        Event::Write { .. } => writes += 1,
        _ => {}
    });
    let index: FxMap<&str, usize> = decls.iter().enumerate().map(|(i, d)| (d.0, i)).collect();
    // (depth, inherited methods) per class, filled parents first without recursion.
    let mut memo: Vec<Option<(u64, u64)>> = vec![None; decls.len()];
    for i in 0..decls.len() {
        let mut chain = vec![i];
        while let Some(&p) = decls[*chain.last().expect("non-empty")].1.and_then(|p| index.get(p)) {
            if memo[p].is_some() || chain.len() > decls.len() {
                break;
            }
            chain.push(p);
        }
        for &c in chain.iter().rev() {
            let up = decls[c].1.and_then(|p| index.get(p)).map_or((0, 0), |&p| {
                let (d, m) = memo[p].unwrap_or((0, 0));
                (d + 1, m.saturating_add(decls[p].2))
            });
            memo[c] = Some(up);
        }
    }
    let per_class = memo.iter().map(|m| m.unwrap_or((0, 0)));
    let snapshots = per_class.clone().fold(0u64, |a, (_, m)| a.saturating_add(m));
    let deepest = per_class.fold(0u64, |a, (d, m)| a.max(d.saturating_add(m)));
    let declared = decls.iter().map(|d| d.2).max().unwrap_or(0);
    WorldSize { classes: decls.len() as u64, snapshots, rebuild: deepest.saturating_add(writes).saturating_add(declared) }
}

/// Bound the work of a whole run (any policy, any parameters) before anything runs.
pub fn estimate(s: &Scenario) -> Estimate {
    let sites = s.sites.len() as u64;
    let w = world_size(s);
    let ops = u64::from(s.measure.warmup_ops) + u64::from(s.measure.ops);
    let poly: FxMap<&str, u64> =
        s.sites.iter().filter(|x| x.is_polymorphic()).map(|x| (x.name.as_str(), 4 * x.weights().iter().map(|&w| u64::from(w)).sum::<u64>())).collect();
    let runs = |site: &str| 1 + poly.get(site).copied().unwrap_or(0);
    let t = tally(&s.setup, &runs).plus(tally(&s.op, &runs).plus(tally(&s.before_op, &runs)).times(ops));
    // One event: itself, two class walks, the bulk domain list (pending + class per class),
    // the sites re-resolved, the dependents walked (at most two registrations per site), one
    // snapshot rebuild.
    // A polymorphic site re-resolves, and may be registered with, each of its receivers.
    let receivers: u64 = s.sites.iter().map(|x| x.others().len() as u64).sum();
    let per_event = 1u64
        .saturating_add(w.classes.saturating_mul(4))
        .saturating_add(sites.saturating_mul(3))
        .saturating_add(receivers.saturating_mul(2))
        .saturating_add(w.rebuild);
    let terms = [
        (
            w.classes.saturating_add(sites).saturating_add(w.snapshots),
            format!("the world: {} classes, {} sites, {} inherited-method snapshot entries", thousands(w.classes), thousands(sites), thousands(w.snapshots)),
        ),
        (t.events.saturating_mul(per_event), format!("{} events x {} sites and {} classes", thousands(t.events), thousands(sites), thousands(w.classes))),
        (
            t.segment_calls.saturating_add(t.segments),
            format!("{} loop segments x their calls ({} site runs)", thousands(t.segments), thousands(t.segment_calls)),
        ),
        (t.loop_calls, format!("entering and leaving loops ({} calls)", thousands(t.loop_calls))),
    ];
    let total = terms.iter().fold(0u64, |a, (v, _)| a.saturating_add(*v));
    let dominant = terms.iter().max_by_key(|(v, _)| *v).map(|(_, d)| d.clone()).unwrap_or_default();
    Estimate { total, dominant }
}

/// [`estimate`]'s total.
pub fn estimate_work(s: &Scenario) -> u64 {
    estimate(s).total
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
