//! The messages of lanes run by the engine worker (`lanes`, `lane_host`) as bytes: what the
//! page asks of them ([`Request`]: a batch of [`Command`]s) and what the worker answers
//! ([`Update`]: the lanes' views as deltas).
//!
//! An update carries a lane's view against the one the worker sent before it for the same
//! run (the page holds that one): a shared part (`Rc`) the runner did not rebuild is one byte,
//! the site list travels as the sites whose look changed, the timeline as the points after the
//! ones both sides hold. So a frame's message is bounded by what changed, not by the world's
//! size. Same format rules as `wire` (LEB128, strings, enum tags; decoding is total).

use std::rc::Rc;

use blast_engine::expect::{Cause, Metric, Observed, Outcome, Status};
use blast_engine::report::{Phase, ReceiverReport, RelinkText, RelinkTotals, SiteReport, SiteState, SiteStats, TimelinePoint, Verdict};
use blast_engine::scenario::Event;
use blast_engine::sim::UnitReport;
use blast_engine::{jit::Tier, jit::UnitStats, report::DeoptText, Policy};

use crate::compiled::{CompiledView, UnitView};
use crate::runner::{ClassEntry, FireRefusal, InRange, LaneView, RunResult, SiteView};
use crate::timeline::{Range, XAxis};
use crate::worker::wire::{DecodeError, Read, Reader, Writer, LANES};

/// One thing the page asks of the lanes, applied in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// New lanes, at time zero, for the scenario the worker read for `job` (in loop mode:
    /// `editor::looping` of it).
    Build {
        job: u64,
        policies: Vec<Policy>,
        looping: bool,
    },
    /// Move the clock by `advance_ms` virtual ms (infinite: as far as the worker's budget goes).
    Frame {
        advance_ms: f64,
    },
    Step,
    Fire(Event),
    Category {
        name: String,
        enter: bool,
    },
    Select(Option<String>),
    Brush(Option<(XAxis, Range)>),
    /// The class whose what-if every update carries (`None`: none).
    WhatIf(Option<String>),
    /// Evaluate the scenario's expectations against the lanes as they stand (after the commands
    /// before it): the update carries the outcomes. Asked for by the page at the pace it would
    /// evaluate them itself, since a run view copies every site's report.
    Expectations,
}

/// A batch of commands for the lanes of build `run` (the page's count of builds).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub run: u64,
    pub commands: Vec<Command>,
}

/// The lanes after a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub run: u64,
    /// Why there are no lanes (the build failed, or the worker lost the scenario).
    pub error: Option<String>,
    pub clock_ms: f64,
    pub finished: bool,
    pub views: Vec<Rc<LaneView>>,
    /// Classes loaded by hand since the build (`Runner::classes` past the scenario's).
    pub loaded: Vec<ClassEntry>,
    /// A Step was in the request; what it did, if anything ran.
    pub stepped: Option<Option<String>>,
    /// Each Fire or Category of the request: into how many lanes, or why none.
    pub fires: Vec<Result<usize, FireRefusal>>,
    pub what_if: Vec<(Policy, Vec<String>)>,
    /// The expectations' outcomes, when the request asked for them (`Command::Expectations`).
    pub expectations: Option<Vec<Outcome>>,
}

pub fn encode_request(req: &Request) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.num(LANES);
    w.num(req.run);
    w.num(req.commands.len() as u64);
    for c in &req.commands {
        match c {
            Command::Build { job, policies, looping } => {
                w.num(0);
                w.num(*job);
                w.num(policies.len() as u64);
                for p in policies {
                    w.policy(*p);
                }
                w.bool(*looping);
            }
            Command::Frame { advance_ms } => {
                w.num(1);
                w.f64(*advance_ms);
            }
            Command::Step => w.num(2),
            Command::Fire(e) => {
                w.num(3);
                w.event(e);
            }
            Command::Category { name, enter } => {
                w.num(4);
                w.str(name);
                w.bool(*enter);
            }
            Command::Select(site) => {
                w.num(5);
                w.opt(site);
            }
            Command::Brush(range) => {
                w.num(6);
                match range {
                    None => w.num(0),
                    Some((axis, (a, b))) => {
                        w.num(1 + u64::from(*axis == XAxis::Progress));
                        w.f64(*a);
                        w.f64(*b);
                    }
                }
            }
            Command::WhatIf(class) => {
                w.num(7);
                w.opt(class);
            }
            Command::Expectations => w.num(8),
        }
    }
    w.0
}

pub fn decode_request(bytes: &[u8]) -> Result<Request, DecodeError> {
    Reader::whole(bytes, LANES, decode_commands)
}

fn decode_commands(r: &mut Reader) -> Read<Request> {
    let run = r.num()?;
    let commands = r.list(|r| {
        Ok(match r.num()? {
            0 => Command::Build { job: r.num()?, policies: r.list(|r| r.policy())?, looping: r.bool()? },
            1 => Command::Frame { advance_ms: r.f64()? },
            2 => Command::Step,
            3 => Command::Fire(r.event()?),
            4 => Command::Category { name: r.str()?, enter: r.bool()? },
            5 => Command::Select(r.opt()?),
            6 => Command::Brush(match r.num()? {
                0 => None,
                a @ 1..=2 => Some((if a == 1 { XAxis::Time } else { XAxis::Progress }, (r.f64()?, r.f64()?))),
                _ => return Err("bad range"),
            }),
            7 => Command::WhatIf(r.opt()?),
            8 => Command::Expectations,
            _ => return Err("bad command"),
        })
    })?;
    Ok(Request { run, commands })
}

/// `update` as bytes, its views against `sent` (the views of the previous update of the same
/// run, which the page holds; empty for a new run).
pub fn encode_update(update: &Update, sent: &[Rc<LaneView>]) -> Vec<u8> {
    let Update { run, error, clock_ms, finished, views, loaded, stepped, fires, what_if, expectations } = update;
    let mut w = Writer(Vec::new());
    w.num(LANES);
    w.num(*run);
    w.opt(error);
    w.f64(*clock_ms);
    w.bool(*finished);
    w.num(views.len() as u64);
    for (i, v) in views.iter().enumerate() {
        w.lane(v, sent.get(i).map(|p| p.as_ref()));
    }
    w.num(loaded.len() as u64);
    for (class, parent) in loaded {
        w.str(class);
        w.opt(parent);
    }
    match stepped {
        None => w.num(0),
        Some(note) => {
            w.num(1);
            w.opt(note);
        }
    }
    w.num(fires.len() as u64);
    for f in fires {
        match f {
            Ok(n) => {
                w.num(0);
                w.num(*n as u64);
            }
            Err(FireRefusal::Refused(why)) => {
                w.num(1);
                w.str(why);
            }
            Err(FireRefusal::NothingRunning) => w.num(2),
        }
    }
    w.num(what_if.len() as u64);
    for (p, sites) in what_if {
        w.policy(*p);
        w.strs(sites);
    }
    match expectations {
        None => w.num(0),
        Some(outcomes) => {
            w.num(1);
            w.num(outcomes.len() as u64);
            for o in outcomes {
                w.outcome(o);
            }
        }
    }
    w.0
}

/// The build an update is for (read before the rest, which only that build can read).
pub fn update_run(bytes: &[u8]) -> Result<u64, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let run = Reader::of(bytes, LANES).and_then(|mut header| {
        let run = header.num();
        r.at = header.at;
        run
    });
    run.map_err(|why| DecodeError { at: r.at, why })
}

/// Site views an [`UpdateDecoder::step`] reads at most (a changed site is ~7 numbers). Measured
/// on the page (CPU profile, e2e `scale`'s 10^5-site world, load 5): an update whose every
/// site changed (a Step's, a run's first frames) was one task of 20-36 ms CPU for two lanes.
pub const DECODE_SITES: usize = 20_000;

/// An update being decoded a part per [`step`](UpdateDecoder::step): the header, then each
/// lane's changed sites at most `sites` per step (its other parts with the last of them), then
/// what follows the lanes.
pub struct UpdateDecoder {
    bytes: Vec<u8>,
    at: usize,
    held: Vec<Rc<LaneView>>,
    names: Rc<Vec<String>>,
    state: Decoding,
}

enum Decoding {
    Start,
    Lanes(Box<Partial>),
    /// Decoded, or found damaged: a further step is an error.
    Over,
}

/// What an update has given so far.
struct Partial {
    run: u64,
    error: Option<String>,
    clock_ms: f64,
    finished: bool,
    lanes: usize,
    views: Vec<Rc<LaneView>>,
    /// The lane being read: its first fields, its sites so far and how many changed ones are left.
    lane: Option<(LaneHead, Vec<SiteView>, usize)>,
}

/// A lane's site list as its update begins.
enum Sites {
    /// The one held before, unchanged.
    Held(Rc<Vec<SiteView>>),
    /// A copy of the held one (or default views), and how many changed views follow.
    Changing(Vec<SiteView>, usize),
}

/// A lane's fields before its sites.
struct LaneHead {
    policy: Policy,
    now_ms: f64,
    iterations: u64,
    total_iterations: u64,
    phase: Phase,
}

impl UpdateDecoder {
    /// An update read against the views the page holds for the run (`held`, empty for a new
    /// run); `names` are the run's site names, which never travel.
    pub fn new(bytes: Vec<u8>, held: Vec<Rc<LaneView>>, names: Rc<Vec<String>>) -> UpdateDecoder {
        UpdateDecoder { bytes, at: 0, held, names, state: Decoding::Start }
    }

    /// Decode at most about `sites` more site views: the update once it is whole, `None` while
    /// there is more. Damaged bytes are an error (once: the decoder is spent), never a panic.
    pub fn step(&mut self, sites: usize) -> Result<Option<Update>, DecodeError> {
        let mut r = Reader { bytes: &self.bytes, at: self.at };
        let stepped = advance(&mut self.state, &mut r, (&self.held, &self.names), sites);
        self.at = r.at;
        if stepped.is_err() {
            self.state = Decoding::Over;
        }
        stepped.map_err(|why| DecodeError { at: self.at, why })
    }
}

fn advance(state: &mut Decoding, r: &mut Reader, (held, names): (&[Rc<LaneView>], &Rc<Vec<String>>), mut budget: usize) -> Read<Option<Update>> {
    loop {
        let p = match state {
            Decoding::Over => return Err("decoded already"),
            Decoding::Start => {
                if r.num()? != LANES {
                    return Err("not this kind of message");
                }
                let (run, error, clock_ms, finished, lanes) = (r.num()?, r.opt()?, r.f64()?, r.bool()?, r.len()?);
                let views = Vec::with_capacity(lanes);
                *state = Decoding::Lanes(Box::new(Partial { run, error, clock_ms, finished, lanes, views, lane: None }));
                continue;
            }
            Decoding::Lanes(p) => p,
        };
        let before = held.get(p.views.len()).map(Rc::as_ref);
        match &mut p.lane {
            Some((_, sites, left)) => {
                let n = (*left).min(budget);
                for _ in 0..n {
                    r.site_view(sites)?;
                }
                (*left, budget) = (*left - n, budget - n);
                if *left > 0 {
                    return Ok(None);
                }
                let Some((head, sites, _)) = p.lane.take() else { return Err("no lane") };
                p.views.push(Rc::new(r.lane_rest(head, Rc::new(sites), before, names)?));
            }
            None if p.views.len() < p.lanes => {
                if budget == 0 {
                    return Ok(None);
                }
                let head = r.lane_head()?;
                match r.sites_head(before.map(|b| &b.sites))? {
                    Sites::Held(same) => p.views.push(Rc::new(r.lane_rest(head, same, before, names)?)),
                    Sites::Changing(sites, left) => p.lane = Some((head, sites, left)),
                }
            }
            None => {
                let Decoding::Lanes(p) = std::mem::replace(state, Decoding::Over) else { return Err("no lanes") };
                return r.update_tail(*p).map(Some);
            }
        }
    }
}

/// A shared part of a lane's view: 0 = the one held before, 1 = a new one follows.
fn same<T>(now: &Rc<T>, before: Option<&Rc<T>>) -> bool {
    before.is_some_and(|b| Rc::ptr_eq(now, b))
}

fn index<T: PartialEq>(all: &[T], x: &T) -> u64 {
    all.iter().position(|a| a == x).unwrap_or(0) as u64
}

const PHASES: [Phase; 4] = [Phase::Setup, Phase::Warmup, Phase::Measure, Phase::Done];
const STATUSES: [Status; 3] = [Status::Pass, Status::Fail, Status::Pending];

impl Writer {
    fn lane(&mut self, v: &LaneView, before: Option<&LaneView>) {
        let LaneView {
            policy,
            now_ms,
            iterations,
            total_iterations,
            phase,
            sites,
            names: _,
            selected,
            totals,
            timeline,
            result,
            history,
            events_recorded,
            last_event,
            unloaded,
            active_categories,
            compiled,
            in_range,
        } = v;
        self.policy(*policy);
        self.f64(*now_ms);
        self.num(*iterations);
        self.num(*total_iterations);
        self.num(index(&PHASES, phase));
        self.sites(sites, before.map(|b| &b.sites));
        match selected {
            None => self.num(0),
            Some(s) => {
                self.num(1);
                self.site_report(s);
            }
        }
        let RelinkTotals { necessary, collateral, missed } = totals;
        for n in [necessary, collateral, missed] {
            self.num(*n);
        }
        // The points both sides hold (all but the last may only be appended to).
        let kept = before.map_or(0, |b| timeline.iter().zip(b.timeline.iter()).take_while(|(a, b)| a == b).count());
        self.num(kept as u64);
        self.num((timeline.len() - kept) as u64);
        for p in &timeline[kept..] {
            let TimelinePoint { t_ms, iterations, ops_per_ms, necessary, collateral, missed, events } = p;
            self.f64(*t_ms);
            self.num(*iterations);
            self.f64(*ops_per_ms);
            for n in [necessary, collateral, missed] {
                self.num(*n);
            }
            self.num(events.len() as u64);
            for e in events {
                self.num(*e as u64);
            }
        }
        match result {
            None => self.num(0),
            Some(RunResult { ops_per_ms, ms_per_op, virtual_ms }) => {
                self.num(1);
                for x in [ops_per_ms, ms_per_op, virtual_ms] {
                    self.f64(*x);
                }
            }
        }
        self.shared(history, before.map(|b| &b.history), |w, history| {
            w.num(history.len() as u64);
            for h in history {
                w.relink(h);
            }
        });
        self.num(*events_recorded as u64);
        self.opt(last_event);
        self.strs(unloaded);
        self.strs(active_categories);
        self.compiled(compiled, before.map(|b| b.compiled.as_ref()));
        match in_range {
            Some(now) if same(now, before.and_then(|b| b.in_range.as_ref())) => self.num(0),
            None => self.num(1),
            Some(r) => {
                self.num(2);
                let InRange { t_ms, total, rows, sites } = r.as_ref();
                self.f64(t_ms.0);
                self.f64(t_ms.1);
                self.num(*total as u64);
                self.num(rows.len() as u64);
                for h in rows {
                    self.relink(h);
                }
                self.strs(sites);
            }
        }
    }

    /// The sites whose view changed since `before` (all non-default ones without it).
    fn sites(&mut self, sites: &Rc<Vec<SiteView>>, before: Option<&Rc<Vec<SiteView>>>) {
        self.num(sites.len() as u64);
        if same(sites, before) {
            self.num(0);
            return;
        }
        let base = before.filter(|b| b.len() == sites.len());
        let changed: Vec<usize> = (0..sites.len()).filter(|&i| base.map_or(SiteView::default(), |b| b[i]) != sites[i]).collect();
        self.num(changed.len() as u64 + 1);
        for i in changed {
            let SiteView { state, necessary, collateral, missed, relinks, flash } = sites[i];
            self.num(i as u64);
            self.num(state.map_or(0, |s| index(&SiteState::ALL, &s) + 1));
            for n in [necessary, collateral, missed, relinks, flash] {
                self.num(n);
            }
        }
    }

    fn site_report(&mut self, s: &SiteReport) {
        let SiteReport { name, class, method, state, target, stats, receivers } = s;
        self.str(name);
        self.str(class);
        self.str(method);
        self.num(index(&SiteState::ALL, state));
        self.str(target);
        let SiteStats { fast_calls, pic_calls, selections, fallback_calls, stale_calls, necessary, collateral, missed, evictions } = stats;
        for n in [fast_calls, pic_calls, selections, fallback_calls, stale_calls, necessary, collateral, missed, evictions] {
            self.num(*n);
        }
        self.num(receivers.len() as u64);
        for ReceiverReport { class, weight, cached, relinks } in receivers {
            self.str(class);
            self.num(u64::from(*weight));
            self.bool(*cached);
            self.num(*relinks);
        }
    }

    fn relink(&mut self, h: &RelinkText) {
        let RelinkText { site, phase, op, t_ms, event, event_label, domain, verdict, old_target, new_target, receiver } = h;
        self.str(site);
        self.num(index(&PHASES, phase));
        self.num(u64::from(*op));
        self.f64(*t_ms);
        self.opt_num(event.map(|e| e as u64));
        self.opt(event_label);
        self.str(domain);
        self.num(index(&Verdict::ALL, verdict));
        self.str(old_target);
        self.str(new_target);
        self.opt(receiver);
    }

    fn compiled(&mut self, c: &CompiledView, before: Option<&CompiledView>) {
        let CompiledView { units, deopts } = c;
        self.num(units.len() as u64);
        for (i, u) in units.iter().enumerate() {
            let UnitView { report, inlines, flash } = u;
            let UnitReport { name, loop_index, tier, past_cutoff, stats } = report;
            self.str(name);
            self.opt_num(loop_index.map(|l| l as u64));
            self.num(index(&Tier::ALL, tier));
            self.bool(*past_cutoff);
            let UnitStats { deopts, recompiles, compiles, traps } = stats;
            for n in [deopts, recompiles, compiles, traps] {
                self.num(*n);
            }
            self.shared(inlines, before.and_then(|b| b.units.get(i)).map(|b| &b.inlines), |w, inlines| w.strs(inlines));
            self.num(*flash);
        }
        self.shared(deopts, before.map(|b| &b.deopts), |w, deopts| {
            w.num(deopts.len() as u64);
            for d in deopts {
                let DeoptText { unit, event, event_label, site, domain, at_iteration, recompiled_after, past_cutoff } = d;
                w.str(unit);
                w.num(*event as u64);
                w.opt(event_label);
                w.str(site);
                w.str(domain);
                w.num(*at_iteration);
                w.opt_num(*recompiled_after);
                w.bool(*past_cutoff);
            }
        });
    }

    fn outcome(&mut self, o: &Outcome) {
        let Outcome { index: at, status, observed, causes } = o;
        self.num(*at as u64);
        self.num(index(&STATUSES, status));
        self.num(observed.len() as u64);
        for x in observed {
            match x {
                Observed::Relinked { policy, sites, unattributed } => {
                    self.num(0);
                    self.policy(*policy);
                    for counts in [sites, unattributed] {
                        self.num(counts.len() as u64);
                        for (site, n) in counts {
                            self.str(site);
                            self.num(*n);
                        }
                    }
                }
                Observed::Figure { policy, metric, value } => {
                    self.num(1);
                    self.policy(*policy);
                    self.num(index(&Metric::ALL, metric));
                    self.f64(*value);
                }
                Observed::Pair { metric, a, a_value, b, b_value, ratio } => {
                    self.num(2);
                    self.num(index(&Metric::ALL, metric));
                    self.policy(*a);
                    self.f64(*a_value);
                    self.policy(*b);
                    self.f64(*b_value);
                    self.f64(*ratio);
                }
                Observed::Deviation { value, reference, deviation_pct } => {
                    self.num(3);
                    for v in [value, reference, deviation_pct] {
                        self.f64(*v);
                    }
                }
                Observed::Waiting { policy } => {
                    self.num(4);
                    self.policy(*policy);
                }
            }
        }
        self.num(causes.len() as u64);
        for c in causes {
            let Cause { policy, record, site, event, event_label, verdict, phase, op, t_ms } = c;
            self.policy(*policy);
            self.num(*record as u64);
            self.str(site);
            self.opt_num(event.map(|e| e as u64));
            self.opt(event_label);
            self.num(index(&Verdict::ALL, verdict));
            self.num(index(&PHASES, phase));
            self.num(u64::from(*op));
            self.f64(*t_ms);
        }
    }

    /// A shared part of a view: 0 when it is the one sent before, else 1 and `write` of it.
    fn shared<T>(&mut self, now: &Rc<T>, before: Option<&Rc<T>>, write: impl FnOnce(&mut Self, &T)) {
        if same(now, before) {
            self.num(0);
        } else {
            self.num(1);
            write(self, now);
        }
    }
}

impl Reader<'_> {
    /// One of `all` by its index; `bad` when there is none.
    fn pick<T: Copy>(&mut self, all: &[T], bad: &'static str) -> Read<T> {
        all.get(self.num()? as usize).copied().ok_or(bad)
    }

    /// A shared part: the held one (flag 0) or a new one read by `read`.
    fn shared<T>(&mut self, held: Option<&Rc<T>>, read: impl FnOnce(&mut Self) -> Read<T>) -> Read<Rc<T>> {
        match self.num()? {
            0 => held.cloned().ok_or("no view held"),
            1 => Ok(Rc::new(read(self)?)),
            _ => Err("bad flag"),
        }
    }

    fn lane_head(&mut self) -> Read<LaneHead> {
        Ok(LaneHead {
            policy: self.policy()?,
            now_ms: self.f64()?,
            iterations: self.num()?,
            total_iterations: self.num()?,
            phase: self.pick(&PHASES, "bad phase")?,
        })
    }

    /// A lane's fields after its sites.
    fn lane_rest(&mut self, head: LaneHead, sites: Rc<Vec<SiteView>>, before: Option<&LaneView>, names: &Rc<Vec<String>>) -> Read<LaneView> {
        let LaneHead { policy, now_ms, iterations, total_iterations, phase } = head;
        let selected = match self.num()? {
            0 => None,
            1 => Some(Rc::new(self.site_report()?)),
            _ => return Err("bad selection"),
        };
        let totals = RelinkTotals { necessary: self.num()?, collateral: self.num()?, missed: self.num()? };
        // Points the page holds, not in this message: bounded by the held timeline, not by the
        // bytes left (a finished run's last frame is a few bytes against hundreds of points).
        let kept = usize::try_from(self.num()?).map_err(|_| "no points held")?;
        let mut timeline: Vec<TimelinePoint> = before.map(|b| b.timeline.get(..kept).map(<[_]>::to_vec)).unwrap_or(Some(Vec::new())).ok_or("no points held")?;
        if timeline.len() != kept {
            return Err("no points held");
        }
        timeline.extend(self.list(|r| {
            Ok(TimelinePoint {
                t_ms: r.f64()?,
                iterations: r.num()?,
                ops_per_ms: r.f64()?,
                necessary: r.num()?,
                collateral: r.num()?,
                missed: r.num()?,
                events: r.list(|r| Ok(r.num()? as usize))?,
            })
        })?);
        let result = match self.num()? {
            0 => None,
            1 => Some(RunResult { ops_per_ms: self.f64()?, ms_per_op: self.f64()?, virtual_ms: self.f64()? }),
            _ => return Err("bad result"),
        };
        let history = self.shared(before.map(|b| &b.history), |r| r.list(|r| r.relink()))?;
        let events_recorded = self.num()? as usize;
        let last_event = self.opt()?;
        let unloaded = self.strs()?;
        let active_categories = self.strs()?;
        let compiled = Rc::new(self.compiled(before.map(|b| b.compiled.as_ref()))?);
        let in_range = match self.num()? {
            0 => Some(before.and_then(|b| b.in_range.clone()).ok_or("no range held")?),
            1 => None,
            2 => {
                Some(Rc::new(InRange { t_ms: (self.f64()?, self.f64()?), total: self.num()? as usize, rows: self.list(|r| r.relink())?, sites: self.strs()? }))
            }
            _ => return Err("bad range"),
        };
        Ok(LaneView {
            policy,
            now_ms,
            iterations,
            total_iterations,
            phase,
            sites,
            names: names.clone(),
            selected,
            totals,
            timeline: Rc::new(timeline),
            result,
            history,
            events_recorded,
            last_event,
            unloaded,
            active_categories,
            compiled,
            in_range,
        })
    }

    /// A lane's site list: the held one, or the held one copied (a new run: default views)
    /// and how many changed views follow.
    fn sites_head(&mut self, before: Option<&Rc<Vec<SiteView>>>) -> Read<Sites> {
        let n = self.num()? as usize;
        let changed = match self.num()? {
            0 => return before.filter(|b| b.len() == n).cloned().map(Sites::Held).ok_or("no sites held"),
            c => c - 1,
        };
        let sites = match before.filter(|b| b.len() == n) {
            Some(b) => b.as_ref().clone(),
            // At most one site per byte left: a bad count cannot allocate much.
            None if n <= self.bytes_left() * 8 + 1024 => vec![SiteView::default(); n],
            None => return Err("too many sites"),
        };
        // Each changed view takes 7 bytes or more: a bad count is found before any work.
        if changed > (self.bytes_left() / 7) as u64 {
            return Err("cut short");
        }
        Ok(Sites::Changing(sites, changed as usize))
    }

    /// What follows the lanes in an update.
    fn update_tail(&mut self, p: Partial) -> Read<Update> {
        let Partial { run, error, clock_ms, finished, lanes: _, views, lane: _ } = p;
        let loaded = self.list(|r| Ok((r.str()?, r.opt()?)))?;
        let stepped = match self.num()? {
            0 => None,
            1 => Some(self.opt()?),
            _ => return Err("bad step"),
        };
        let fires = self.list(|r| match r.num()? {
            0 => Ok(Ok(r.num()? as usize)),
            1 => Ok(Err(FireRefusal::Refused(r.str()?))),
            2 => Ok(Err(FireRefusal::NothingRunning)),
            _ => Err("bad fire"),
        })?;
        let what_if = self.list(|r| Ok((r.policy()?, r.strs()?)))?;
        let expectations = match self.num()? {
            0 => None,
            1 => Some(self.list(|r| r.outcome())?),
            _ => return Err("bad expectations"),
        };
        self.end()?;
        Ok(Update { run, error, clock_ms, finished, views, loaded, stepped, fires, what_if, expectations })
    }

    /// One changed site's view, into `sites`.
    fn site_view(&mut self, sites: &mut [SiteView]) -> Read<()> {
        let i = self.num()? as usize;
        let state = match self.num()? {
            0 => None,
            s => Some(*SiteState::ALL.get(s as usize - 1).ok_or("bad site state")?),
        };
        let view = SiteView { state, necessary: self.num()?, collateral: self.num()?, missed: self.num()?, relinks: self.num()?, flash: self.num()? };
        *sites.get_mut(i).ok_or("bad site id")? = view;
        Ok(())
    }

    fn site_report(&mut self) -> Read<SiteReport> {
        Ok(SiteReport {
            name: self.str()?,
            class: self.str()?,
            method: self.str()?,
            state: self.pick(&SiteState::ALL, "bad site state")?,
            target: self.str()?,
            stats: SiteStats {
                fast_calls: self.num()?,
                pic_calls: self.num()?,
                selections: self.num()?,
                fallback_calls: self.num()?,
                stale_calls: self.num()?,
                necessary: self.num()?,
                collateral: self.num()?,
                missed: self.num()?,
                evictions: self.num()?,
            },
            receivers: self.list(|r| Ok(ReceiverReport { class: r.str()?, weight: r.u32()?, cached: r.bool()?, relinks: r.num()? }))?,
        })
    }

    fn relink(&mut self) -> Read<RelinkText> {
        Ok(RelinkText {
            site: self.str()?,
            phase: self.pick(&PHASES, "bad phase")?,
            op: self.u32()?,
            t_ms: self.f64()?,
            event: self.opt_num()?.map(|e| e as usize),
            event_label: self.opt()?,
            domain: self.str()?,
            verdict: self.pick(&Verdict::ALL, "bad verdict")?,
            old_target: self.str()?,
            new_target: self.str()?,
            receiver: self.opt()?,
        })
    }

    fn outcome(&mut self) -> Read<Outcome> {
        let index = self.num()? as usize;
        let status = self.pick(&STATUSES, "bad status")?;
        let observed = self.list(|r| {
            Ok(match r.num()? {
                0 => Observed::Relinked {
                    policy: r.policy()?,
                    sites: r.list(|r| Ok((r.str()?, r.num()?)))?,
                    unattributed: r.list(|r| Ok((r.str()?, r.num()?)))?,
                },
                1 => Observed::Figure { policy: r.policy()?, metric: r.pick(&Metric::ALL, "bad metric")?, value: r.f64()? },
                2 => Observed::Pair {
                    metric: r.pick(&Metric::ALL, "bad metric")?,
                    a: r.policy()?,
                    a_value: r.f64()?,
                    b: r.policy()?,
                    b_value: r.f64()?,
                    ratio: r.f64()?,
                },
                3 => Observed::Deviation { value: r.f64()?, reference: r.f64()?, deviation_pct: r.f64()? },
                4 => Observed::Waiting { policy: r.policy()? },
                _ => return Err("bad observation"),
            })
        })?;
        let causes = self.list(|r| {
            Ok(Cause {
                policy: r.policy()?,
                record: r.num()? as usize,
                site: r.str()?,
                event: r.opt_num()?.map(|e| e as usize),
                event_label: r.opt()?,
                verdict: r.pick(&Verdict::ALL, "bad verdict")?,
                phase: r.pick(&PHASES, "bad phase")?,
                op: r.u32()?,
                t_ms: r.f64()?,
            })
        })?;
        Ok(Outcome { index, status, observed, causes })
    }

    fn compiled(&mut self, before: Option<&CompiledView>) -> Read<CompiledView> {
        let n = self.len()?;
        let mut units = Vec::with_capacity(n);
        for i in 0..n {
            let report = UnitReport {
                name: self.str()?,
                loop_index: self.opt_num()?.map(|l| l as usize),
                tier: self.pick(&Tier::ALL, "bad tier")?,
                past_cutoff: self.bool()?,
                stats: UnitStats { deopts: self.num()?, recompiles: self.num()?, compiles: self.num()?, traps: self.num()? },
            };
            let inlines = self.shared(before.and_then(|b| b.units.get(i)).map(|u| &u.inlines), |r| r.strs())?;
            units.push(UnitView { report, inlines, flash: self.num()? });
        }
        let deopts = self.shared(before.map(|b| &b.deopts), |r| {
            r.list(|r| {
                Ok(DeoptText {
                    unit: r.str()?,
                    event: r.num()? as usize,
                    event_label: r.opt()?,
                    site: r.str()?,
                    domain: r.str()?,
                    at_iteration: r.num()?,
                    recompiled_after: r.opt_num()?,
                    past_cutoff: r.bool()?,
                })
            })
        })?;
        Ok(CompiledView { units, deopts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::{presets, Params};

    use crate::runner::Runner;

    /// A whole update at once, and the same a site view per step: they must agree.
    fn decode_update(bytes: &[u8], held: &[Rc<LaneView>], names: &Rc<Vec<String>>) -> Result<Update, DecodeError> {
        let read = |budget: usize| {
            let mut decoder = UpdateDecoder::new(bytes.to_vec(), held.to_vec(), names.clone());
            loop {
                if let Some(read) = decoder.step(budget).transpose() {
                    return read;
                }
            }
        };
        let whole = read(usize::MAX);
        assert_eq!(read(1), whole, "stepped");
        whole
    }

    fn update(r: &Runner) -> Update {
        // Outcomes with every kind of observation and causes: a preset's expectations against
        // this runner's lanes, whatever it runs (missing policies are waiting).
        let expecting = presets::find("fidelity_methodBodies").unwrap().scenario();
        Update {
            run: 4,
            error: None,
            clock_ms: r.clock_ms(),
            finished: r.finished(),
            views: r.views().to_vec(),
            loaded: vec![("L".into(), Some("K".into()))],
            stepped: Some(Some("a note".into())),
            fires: vec![Ok(2), Err(FireRefusal::Refused("no".into())), Err(FireRefusal::NothingRunning)],
            what_if: r.what_if("Hot"),
            expectations: Some(r.expectations(&expecting)),
        }
    }

    #[test]
    fn views_travel_as_deltas_and_read_back_equal() {
        let scenario = presets::find("hotLoop_sameTypeMetaClassChurn").unwrap().scenario();
        let mut r = Runner::new(&scenario, &[Policy::Global, Policy::Exact], &Params::default()).unwrap();
        r.select(Some("hot".into()));
        let names = r.views()[0].names.clone();
        // What the worker sent last, and what the page read from it.
        let (mut sent, mut held): (Vec<Rc<LaneView>>, Vec<Rc<LaneView>>) = (Vec::new(), Vec::new());
        let mut sizes = Vec::new();
        r.advance_clock(f64::INFINITY);
        while !r.finished() {
            r.work(200);
            r.brush(Some((XAxis::Time, (0.0, r.clock_ms() / 2.0))));
            r.refresh();
            let u = update(&r);
            let bytes = encode_update(&u, &sent);
            sizes.push(bytes.len());
            let read = decode_update(&bytes, &held, &names).expect("reads");
            assert_eq!(read, u);
            (sent, held) = (u.views, read.views);
        }
        // An unchanged frame is a few bytes per lane, whatever the site count.
        r.refresh();
        let again = encode_update(&update(&r), &sent);
        let first = encode_update(&update(&r), &[]);
        assert!(again.len() * 3 < first.len(), "{} vs {}", again.len(), first.len());
        assert!(sizes.len() > 3);
    }

    #[test]
    fn requests_round_trip_and_damaged_bytes_are_errors() {
        let req = Request {
            run: 9,
            commands: vec![
                Command::Build { job: 3, policies: vec![Policy::Exact, Policy::Ideal], looping: true },
                Command::Frame { advance_ms: f64::INFINITY },
                Command::Step,
                Command::Fire(Event::Load { class: "B".into(), parent: Some("A".into()), methods: vec!["m".into()] }),
                Command::Category { name: "C".into(), enter: false },
                Command::Select(Some("s".into())),
                Command::Brush(Some((XAxis::Progress, (1.5, 2.5)))),
                Command::WhatIf(None),
                Command::Expectations,
            ],
        };
        let bytes = encode_request(&req);
        assert_eq!(decode_request(&bytes), Ok(req));
        let scenario = presets::find("hotLoop_baseline").unwrap().scenario();
        let r = Runner::new(&scenario, &[Policy::Exact], &Params::default()).unwrap();
        let names = r.views()[0].names.clone();
        let update_bytes = encode_update(&update(&r), &[]);
        for cut in 0..update_bytes.len() {
            assert!(decode_update(&update_bytes[..cut], &[], &names).is_err(), "cut at {cut}");
        }
        for cut in 0..bytes.len() {
            assert!(decode_request(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = update_bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode_update(&flipped, &[], &names);
            flipped[i] ^= 0xff;
        }
        assert!(decode_update(&encode_update(&update(&r), r.views()), &[], &names).is_err(), "a delta needs the views it is against");
    }
}
