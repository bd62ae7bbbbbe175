//! The messages of lanes run by the engine worker (`lanes`, `lane_host`) as bytes: what the
//! page asks of them ([`Request`]: a batch of [`Command`]s) and what the worker answers
//! ([`Update`]: the lanes' views as deltas).
//!
//! An update carries a lane's view against the one the worker sent before it for the same
//! run (the page holds that one): a shared part (`Rc`) the runner did not rebuild travels as
//! [`Part::Held`], the site list as the sites whose look changed, the timeline as the points
//! after the ones both sides hold. So a frame's message is bounded by what changed, not by the
//! world's size.
//!
//! The form is postcard's through serde's derives (`wire::put`, `wire::take`; the engine types
//! whose serde is shaped for JSON through `engine_forms`). An update is a sequence of postcard
//! values, so the page can decode it a bounded part per task ([`UpdateDecoder`]): a [`Head`],
//! then per lane a [`LaneHead`], its changed sites one value each, and a [`LaneTail`], then a
//! [`Tail`]. Decoding is total: damaged bytes give a `DecodeError`, never a panic.

use std::borrow::Cow;
use std::rc::Rc;

use blast_engine::expect::Outcome;
use blast_engine::report::{Phase, RelinkText, RelinkTotals, SiteId, SiteReport, TimelinePoint};
use blast_engine::scenario::Event;
use blast_engine::sim::UnitReport;
use blast_engine::{report::DeoptText, Policy};
use serde::{Deserialize, Serialize};

use crate::compiled::{CompiledView, UnitView};
use crate::runner::{CallCounts, ClassEntry, FireRefusal, InRange, LaneView, RunResult, SiteView};
use crate::timeline::{Range, XAxis};
use crate::worker::engine_forms::{outcomes, relinks, EventForm, SiteReportForm, UnitReportForm};
use crate::worker::wire::{put, put_each, put_whole, take, take_each, take_whole, DecodeError, LANES};

/// One thing the page asks of the lanes, applied in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    Fire(#[serde(with = "EventForm")] Event),
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
    /// Send every site's call counts (`Update::call_counts`), for the results CSV: the views
    /// leave them out, since they change on every call.
    CallCounts,
}

/// A batch of commands for the lanes of build `run` (the page's count of builds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    /// Each lane's sites' call counts in id order, when the request asked (`Command::CallCounts`).
    pub call_counts: Option<Vec<Vec<CallCounts>>>,
}

pub fn encode_request(req: &Request) -> Vec<u8> {
    put_whole(LANES, req)
}

pub fn decode_request(bytes: &[u8]) -> Result<Request, DecodeError> {
    take_whole(bytes, LANES)
}

/// An update's first value: the kind (`LANES`, one byte) and what is not per lane.
#[derive(Serialize, Deserialize)]
struct Head {
    kind: u64,
    run: u64,
    error: Option<String>,
    clock_ms: f64,
    finished: bool,
    lanes: u64,
}

/// A lane's fields before its sites, and its site list: `sites` views of which `changed` follow
/// (`None`: the list held before, unchanged).
#[derive(Serialize, Deserialize)]
struct LaneHead {
    policy: Policy,
    now_ms: f64,
    iterations: u64,
    total_iterations: u64,
    phase: Phase,
    sites: u64,
    changed: Option<u64>,
}

/// One changed site: how many ids after the previous changed one (the first: after id 0), and
/// its view. Changed sites are in id order, so a gap is mostly one byte.
type ChangedSite = (u64, SiteView);

/// A shared part of a lane's view: the one held before, or a new one.
#[derive(Serialize, Deserialize)]
enum Part<T> {
    Held,
    New(T),
}

/// A lane's fields after its sites (borrowed from the view by the encoder, owned once decoded).
#[derive(Serialize, Deserialize)]
struct LaneTail<'a> {
    selected: Option<Report>,
    totals: RelinkTotals,
    /// The timeline's points both sides hold (all but the last may only be appended to), and
    /// the ones after them.
    kept: u64,
    points: Cow<'a, [TimelinePoint]>,
    result: Option<RunResult>,
    history: Part<Relinks<'a>>,
    events_recorded: usize,
    last_event: Option<String>,
    unloaded: Cow<'a, [String]>,
    active_categories: Cow<'a, [String]>,
    units: Vec<Unit<'a>>,
    deopts: Part<Cow<'a, [DeoptText]>>,
    in_range: RangePart<'a>,
}

#[derive(Serialize, Deserialize)]
struct Report(#[serde(with = "SiteReportForm")] SiteReport);

#[derive(Serialize, Deserialize)]
struct Relinks<'a>(#[serde(with = "relinks")] Cow<'a, [RelinkText]>);

#[derive(Serialize, Deserialize)]
struct Unit<'a> {
    #[serde(with = "UnitReportForm")]
    report: UnitReport,
    inlines: Part<Cow<'a, [SiteId]>>,
    flash: u64,
}

/// A lane's brushed range: the one held before, none, or a new one.
#[derive(Serialize, Deserialize)]
enum RangePart<'a> {
    Held,
    Cleared,
    New {
        t_ms: (f64, f64),
        total: usize,
        #[serde(with = "relinks")]
        rows: Cow<'a, [RelinkText]>,
        sites: Cow<'a, [String]>,
    },
}

/// What follows the lanes.
#[derive(Serialize, Deserialize)]
struct Tail<'a> {
    loaded: Cow<'a, [ClassEntry]>,
    stepped: Option<Option<String>>,
    fires: Cow<'a, [Result<usize, FireRefusal>]>,
    what_if: Cow<'a, [(Policy, Vec<String>)]>,
    expectations: Option<Outcomes<'a>>,
    call_counts: Option<Cow<'a, [Vec<CallCounts>]>>,
}

#[derive(Serialize, Deserialize)]
struct Outcomes<'a>(#[serde(with = "outcomes")] Cow<'a, [Outcome]>);

/// `update` as bytes, its views against `sent` (the views of the previous update of the same
/// run, which the page holds; empty for a new run).
pub fn encode_update(update: &Update, sent: &[Rc<LaneView>]) -> Vec<u8> {
    let Update { run, error, clock_ms, finished, views, loaded, stepped, fires, what_if, expectations, call_counts } = update;
    let mut bytes = Vec::new();
    put(&mut bytes, &Head { kind: LANES, run: *run, error: error.clone(), clock_ms: *clock_ms, finished: *finished, lanes: views.len() as u64 });
    for (i, v) in views.iter().enumerate() {
        put_lane(&mut bytes, v, sent.get(i).map(|p| p.as_ref()));
    }
    let tail = Tail {
        loaded: Cow::Borrowed(loaded),
        stepped: stepped.clone(),
        fires: Cow::Borrowed(fires),
        what_if: Cow::Borrowed(what_if),
        expectations: expectations.as_deref().map(|o| Outcomes(Cow::Borrowed(o))),
        call_counts: call_counts.as_deref().map(Cow::Borrowed),
    };
    put(&mut bytes, &tail);
    bytes
}

/// Whether a shared part is the one sent before.
fn same<T>(now: &Rc<T>, before: Option<&Rc<T>>) -> bool {
    before.is_some_and(|b| Rc::ptr_eq(now, b))
}

fn part<'a, T: Clone>(now: &'a Rc<Vec<T>>, before: Option<&Rc<Vec<T>>>) -> Part<Cow<'a, [T]>> {
    if same(now, before) {
        Part::Held
    } else {
        Part::New(Cow::Borrowed(now))
    }
}

fn put_lane(bytes: &mut Vec<u8>, v: &LaneView, before: Option<&LaneView>) {
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
    let held = before.map(|b| &b.sites);
    let changed: Option<Vec<usize>> = (!same(sites, held)).then(|| {
        let base = held.filter(|b| b.len() == sites.len());
        (0..sites.len()).filter(|&i| base.map_or(SiteView::default(), |b| b[i]) != sites[i]).collect()
    });
    let head = LaneHead {
        policy: *policy,
        now_ms: *now_ms,
        iterations: *iterations,
        total_iterations: *total_iterations,
        phase: *phase,
        sites: sites.len() as u64,
        changed: changed.as_ref().map(|c| c.len() as u64),
    };
    put(bytes, &head);
    let mut next = 0;
    put_each(
        bytes,
        changed.unwrap_or_default().into_iter().map(|i| {
            let gap = (i - next) as u64;
            next = i + 1;
            (gap, sites[i])
        }),
    );
    let kept = before.map_or(0, |b| timeline.iter().zip(b.timeline.iter()).take_while(|(a, b)| a == b).count());
    let CompiledView { units, deopts } = compiled.as_ref();
    let before_units = before.map(|b| &b.compiled.units);
    let units = units
        .iter()
        .enumerate()
        .map(|(i, UnitView { report, inlines, flash })| Unit {
            report: report.clone(),
            inlines: part(inlines, before_units.and_then(|b| b.get(i)).map(|u| &u.inlines)),
            flash: *flash,
        })
        .collect();
    let in_range = match in_range {
        Some(now) if same(now, before.and_then(|b| b.in_range.as_ref())) => RangePart::Held,
        None => RangePart::Cleared,
        Some(r) => {
            let InRange { t_ms, total, rows, sites } = r.as_ref();
            RangePart::New { t_ms: *t_ms, total: *total, rows: Cow::Borrowed(rows), sites: Cow::Borrowed(sites) }
        }
    };
    let history = match part(history, before.map(|b| &b.history)) {
        Part::Held => Part::Held,
        Part::New(h) => Part::New(Relinks(h)),
    };
    let tail = LaneTail {
        selected: selected.as_ref().map(|s| Report(s.as_ref().clone())),
        totals: *totals,
        kept: kept as u64,
        points: Cow::Borrowed(&timeline[kept..]),
        result: *result,
        history,
        events_recorded: *events_recorded,
        last_event: last_event.clone(),
        unloaded: Cow::Borrowed(unloaded),
        active_categories: Cow::Borrowed(active_categories),
        units,
        deopts: part(deopts, before.map(|b| &b.compiled.deopts)),
        in_range,
    };
    put(bytes, &tail);
}

/// The build an update is for (read before the rest, which only that build can read).
pub fn update_run(bytes: &[u8]) -> Result<u64, DecodeError> {
    let head: Head = take(bytes, &mut 0)?;
    if head.kind != LANES {
        return Err(DecodeError { at: 0, why: "not this kind of message" });
    }
    Ok(head.run)
}

/// Site views an [`UpdateDecoder::step`] reads at most (a changed site is ~8 numbers). Measured
/// on the page (CPU profile, e2e `scale`'s 10^5-site world, load 5): an update whose every
/// site changed (a Step's, a run's first frames) was one task of 20-36 ms CPU for two lanes.
pub const DECODE_SITES: usize = 20_000;

/// Site views a step copies (from the list held, or new ones at zero) for each it may decode:
/// a copy is ~50 bytes moved, a decode ~8 numbers read. A lane's list is made in these parts
/// before its changed views are read: the first update of the 10^6-site file made three
/// lanes' lists of 10^6 views in one task (~160 ms of CPU, CPU profile of e2e `scale`).
pub const FILL_PER_SITE: usize = 16;

/// An update being decoded a part per [`step`](UpdateDecoder::step): the head, then each
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
    head: Head,
    views: Vec<Rc<LaneView>>,
    lane: Option<LaneRead>,
}

/// The lane being read.
struct LaneRead {
    head: LaneHead,
    /// Its site list: made first, a part per step (from `base`), then its changed views
    /// written in.
    sites: Vec<SiteView>,
    /// The held list the new one starts from (`None`: views at zero).
    base: Option<Rc<Vec<SiteView>>>,
    /// Changed views left to read, and the id after the last one read.
    left: usize,
    next: usize,
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
        let stepped = self.advance(sites);
        if stepped.is_err() {
            self.state = Decoding::Over;
        }
        stepped
    }

    fn bad(&self, why: &'static str) -> DecodeError {
        DecodeError { at: self.at, why }
    }

    fn advance(&mut self, mut budget: usize) -> Result<Option<Update>, DecodeError> {
        loop {
            let p = match &mut self.state {
                Decoding::Over => return Err(self.bad("decoded already")),
                Decoding::Start => {
                    let head: Head = take(&self.bytes, &mut self.at)?;
                    if head.kind != LANES {
                        return Err(DecodeError { at: 0, why: "not this kind of message" });
                    }
                    // Every lane takes a few bytes: a bad count is found before any work.
                    if head.lanes > (self.bytes.len() - self.at) as u64 {
                        return Err(self.bad("cut short"));
                    }
                    let views = Vec::with_capacity(head.lanes as usize);
                    self.state = Decoding::Lanes(Box::new(Partial { head, views, lane: None }));
                    continue;
                }
                Decoding::Lanes(p) => p,
            };
            let before = self.held.get(p.views.len()).cloned();
            match &mut p.lane {
                Some(LaneRead { head, sites, base, left, next }) => {
                    let (made, whole) = (sites.len(), head.sites as usize);
                    if made < whole {
                        let n = (whole - made).min(budget.saturating_mul(FILL_PER_SITE));
                        match base {
                            Some(base) => sites.extend_from_slice(&base[made..made + n]),
                            None => sites.resize(made + n, SiteView::default()),
                        }
                        budget -= n.div_ceil(FILL_PER_SITE);
                        if sites.len() < whole {
                            return Ok(None);
                        }
                    }
                    let n = (*left).min(budget);
                    take_each(&self.bytes, &mut self.at, n, |(gap, view): ChangedSite| {
                        let i = usize::try_from(gap).ok().and_then(|gap| next.checked_add(gap)).ok_or("bad site id")?;
                        *sites.get_mut(i).ok_or("bad site id")? = view;
                        *next = i + 1;
                        Ok(())
                    })?;
                    (*left, budget) = (*left - n, budget - n);
                    if *left > 0 {
                        return Ok(None);
                    }
                    let Some(LaneRead { head, sites, .. }) = p.lane.take() else { return Err(self.bad("no lane")) };
                    let tail = take(&self.bytes, &mut self.at)?;
                    let view = lane_view(head, Rc::new(sites), tail, before.as_deref(), &self.names).map_err(|why| self.bad(why))?;
                    self.push(view);
                }
                None if (p.views.len() as u64) < p.head.lanes => {
                    if budget == 0 {
                        return Ok(None);
                    }
                    let head: LaneHead = take(&self.bytes, &mut self.at)?;
                    let held = before.as_ref().map(|b| &b.sites).filter(|b| b.len() as u64 == head.sites);
                    match head.changed {
                        None => {
                            let same = held.cloned().ok_or(self.bad("no sites held"))?;
                            let tail = take(&self.bytes, &mut self.at)?;
                            let view = lane_view(head, same, tail, before.as_deref(), &self.names).map_err(|why| self.bad(why))?;
                            self.push(view);
                        }
                        Some(changed) => {
                            let left = self.bytes.len() - self.at;
                            // Each changed view takes 7 bytes or more, and a new list is at most
                            // 8 views per byte left: a bad count is found before any work.
                            if changed > (left / 7) as u64 {
                                return Err(self.bad("cut short"));
                            }
                            let base = match held {
                                Some(b) => Some(b.clone()),
                                None if head.sites <= (left * 8 + 1024) as u64 => None,
                                None => return Err(self.bad("too many sites")),
                            };
                            let sites = Vec::with_capacity(head.sites as usize);
                            if let Decoding::Lanes(p) = &mut self.state {
                                p.lane = Some(LaneRead { head, sites, base, left: changed as usize, next: 0 });
                            }
                        }
                    }
                }
                None => {
                    let Decoding::Lanes(p) = std::mem::replace(&mut self.state, Decoding::Over) else { return Err(self.bad("no lanes")) };
                    let Tail { loaded, stepped, fires, what_if, expectations, call_counts } = take(&self.bytes, &mut self.at)?;
                    if self.at != self.bytes.len() {
                        return Err(self.bad("trailing bytes"));
                    }
                    let Head { kind: _, run, error, clock_ms, finished, lanes: _ } = p.head;
                    let (loaded, fires, what_if) = (loaded.into_owned(), fires.into_owned(), what_if.into_owned());
                    let (expectations, call_counts) = (expectations.map(|o| o.0.into_owned()), call_counts.map(Cow::into_owned));
                    return Ok(Some(Update { run, error, clock_ms, finished, views: p.views, loaded, stepped, fires, what_if, expectations, call_counts }));
                }
            }
        }
    }

    fn push(&mut self, view: LaneView) {
        if let Decoding::Lanes(p) = &mut self.state {
            p.views.push(Rc::new(view));
        }
    }
}

/// A held part, or the new one.
fn resolve<T: Clone>(part: Part<Cow<'_, [T]>>, held: Option<&Rc<Vec<T>>>) -> Result<Rc<Vec<T>>, &'static str> {
    match part {
        Part::Held => held.cloned().ok_or("no view held"),
        Part::New(now) => Ok(Rc::new(now.into_owned())),
    }
}

/// A lane's view from its head, sites and tail, against the view held before.
fn lane_view(head: LaneHead, sites: Rc<Vec<SiteView>>, tail: LaneTail, before: Option<&LaneView>, names: &Rc<Vec<String>>) -> Result<LaneView, &'static str> {
    let LaneTail { selected, totals, kept, points, result, history, events_recorded, last_event, unloaded, active_categories, units, deopts, in_range } = tail;
    let kept = usize::try_from(kept).map_err(|_| "no points held")?;
    let mut timeline = before.and_then(|b| b.timeline.get(..kept)).map(<[_]>::to_vec).or((kept == 0).then(Vec::new)).ok_or("no points held")?;
    timeline.extend(points.into_owned());
    let history = match history {
        Part::Held => Part::Held,
        Part::New(h) => Part::New(h.0),
    };
    let before_units = before.map(|b| &b.compiled.units);
    let units = units
        .into_iter()
        .enumerate()
        .map(|(i, Unit { report, inlines, flash })| {
            // A new list names sites of this run only (the page looks them up by id).
            if matches!(&inlines, Part::New(ids) if ids.iter().any(|&s| s >= names.len())) {
                return Err("bad site id");
            }
            Ok(UnitView { report, inlines: resolve(inlines, before_units.and_then(|b| b.get(i)).map(|u| &u.inlines))?, flash })
        })
        .collect::<Result<_, &'static str>>()?;
    let in_range = match in_range {
        RangePart::Held => Some(before.and_then(|b| b.in_range.clone()).ok_or("no range held")?),
        RangePart::Cleared => None,
        RangePart::New { t_ms, total, rows, sites } => Some(Rc::new(InRange { t_ms, total, rows: rows.into_owned(), sites: sites.into_owned() })),
    };
    Ok(LaneView {
        policy: head.policy,
        now_ms: head.now_ms,
        iterations: head.iterations,
        total_iterations: head.total_iterations,
        phase: head.phase,
        sites,
        names: names.clone(),
        selected: selected.map(|s| Rc::new(s.0)),
        totals,
        timeline: Rc::new(timeline),
        result,
        history: resolve(history, before.map(|b| &b.history))?,
        events_recorded,
        last_event,
        unloaded: unloaded.into_owned(),
        active_categories: active_categories.into_owned(),
        compiled: Rc::new(CompiledView { units, deopts: resolve(deopts, before.map(|b| &b.compiled.deopts))? }),
        in_range,
    })
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
            call_counts: Some(r.call_counts()),
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
    fn a_loop_inlines_its_sites_by_id_and_an_id_past_the_run_is_an_error() {
        let scenario = blast_engine::dsl::parse(&crate::worker::churn_world::churn_world(5_000)).expect("parses");
        let mut r = Runner::new(&scenario, &[Policy::Exact], &Params::default()).unwrap();
        r.refresh();
        let names = r.views()[0].names.clone();
        // Without the call counts an export asks for (three numbers a site).
        let bytes = encode_update(&Update { call_counts: None, ..update(&r) }, &[]);
        let read = decode_update(&bytes, &[], &names).expect("reads");
        let lp = read.views[0].compiled.units.iter().find(|u| u.is_loop()).expect("the loop is a unit");
        assert_eq!(lp.inlined_names(&names).collect::<Vec<_>>(), names.iter().map(String::as_str).collect::<Vec<_>>(), "every site, in id order");
        // Under two bytes a site: ids travel, names do not.
        assert!(bytes.len() < 2 * 5_000 + 2_000, "{} bytes", bytes.len());
        // Read against a run of fewer sites, an inlined id names none.
        let fewer = Rc::new(names[..4_999].to_vec());
        let Err(e) = decode_update(&bytes, &[], &fewer) else { panic!("read against too few names") };
        assert_eq!(e.why, "bad site id");
    }

    /// Steps an update of `r`'s views (against none held) takes at `budget`.
    fn steps(r: &Runner, budget: usize) -> usize {
        let mut decoder = UpdateDecoder::new(encode_update(&update(r), &[]), Vec::new(), r.views()[0].names.clone());
        let mut steps = 1;
        while decoder.step(budget).expect("decodes").is_none() {
            steps += 1;
        }
        steps
    }

    #[test]
    fn a_step_decodes_at_most_its_site_views() {
        let scenario = blast_engine::dsl::parse(&crate::worker::churn_world::churn_world(5_000)).expect("parses");
        let mut r = Runner::new(&scenario, &[Policy::Global, Policy::Exact], &Params::default()).unwrap();
        // Ten steps call every site: every view differs from a new run's.
        for _ in 0..10 {
            r.step();
        }
        r.refresh();
        // 10,000 changed views, and each lane's list of 5,000 made first at FILL_PER_SITE views
        // per decoded one: 10,626 of a step's budget, eleven steps of 1,000 at least; the lanes'
        // other parts add none.
        assert_eq!(steps(&r, 1_000), 11);
    }

    #[test]
    fn a_step_makes_at_most_its_share_of_a_new_list() {
        let scenario = blast_engine::dsl::parse(&crate::worker::churn_world::churn_world(5_000)).expect("parses");
        let mut r = Runner::new(&scenario, &[Policy::Global, Policy::Exact], &Params::default()).unwrap();
        r.refresh();
        // A new run: no view changed, two lists of 5,000 views to make, 160 views a step at a
        // budget of 10: 63 steps at least (a lane's last part and the next lane's first share one).
        let at_least = (2 * 5_000usize).div_ceil(10 * FILL_PER_SITE);
        let n = steps(&r, 10);
        assert!((at_least..=at_least + 2).contains(&n), "{n} steps, {at_least} at least");
        assert_eq!(steps(&r, usize::MAX), 1, "a budget past every part: one step");
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
                Command::CallCounts,
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
        let mut flipped = bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode_request(&flipped);
            flipped[i] ^= 0xff;
        }
        assert_eq!(decode_request(&[LANES as u8, 0xff, 0xff]).map_err(|e| e.why), Err("cut short"));
        let mut flipped = update_bytes.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xff;
            let _ = decode_update(&flipped, &[], &names);
            flipped[i] ^= 0xff;
        }
        assert!(decode_update(&encode_update(&update(&r), r.views()), &[], &names).is_err(), "a delta needs the views it is against");
    }
}
