//! Drives one engine `Simulation` per selected policy in lockstep on a shared virtual clock.
//!
//! The engine does all the simulating; this module only decides which simulation takes the
//! next bounded step (always the one furthest behind, so the lanes stay aligned in virtual
//! time), injects hand-fired events into every running lane, and turns engine state into
//! immutable views the components render. It needs no browser, so it is tested natively.

use std::rc::Rc;

use blast_engine::expect::{self, Outcome, RunView};
use blast_engine::report::{Naming, RelinkRecord, RelinkText, RelinkTotals, SiteReport, SiteState, SiteStats, TimelinePoint};
use blast_engine::scenario::{Event, Scenario};
use blast_engine::sim::{Phase, StepOutcome};
use blast_engine::{Params, Policy, ScenarioError, Simulation};

use crate::compiled::{CompiledTracker, CompiledView};
use crate::timeline::{self, Range, XAxis};

/// Engine steps one "step" button press may take before giving up (keeps it under a frame).
const STEP_LIMIT: usize = 20_000;
/// Relinks of the selected site kept for the why panel, per lane.
const HISTORY_LIMIT: usize = 100;
/// Relinks in the brushed range listed in the why panel, per lane (the first ones; the count
/// and the sites cover them all).
pub const RANGE_ROWS: usize = 100;

/// A site as the blast view draws it: numbers only, by site id (declaration order); its name
/// is `LaneView::names[id]`, its full report (calls, target, receivers) is made for the
/// selected site only (`LaneView::selected`). A frame copies no text per site, and the list
/// is rebuilt only when some site's look changed (`Runner::refresh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SiteView {
    /// The site's state as drawn: `None` while no call has reached it.
    pub state: Option<SiteState>,
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
    /// Relinks of any verdict so far (the heat).
    pub relinks: u64,
    /// Frame number of the latest relink; a new value restarts the flash animation.
    pub flash: u64,
}

impl SiteView {
    fn of(state: SiteState, st: &SiteStats, flash: u64) -> SiteView {
        SiteView { state: shown_state(state, st), necessary: st.necessary, collateral: st.collateral, missed: st.missed, relinks: st.relinks(), flash }
    }
}

/// A site's state as the page shows and exports it: none until a call has reached it.
/// A site's calls by path (the results CSV's columns: `export`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallCounts {
    pub fast: u64,
    pub selections: u64,
    pub stale: u64,
}

impl CallCounts {
    pub fn of(st: &SiteStats) -> CallCounts {
        CallCounts { fast: st.fast_calls, selections: st.selections, stale: st.stale_calls }
    }
}

pub fn shown_state(state: SiteState, st: &SiteStats) -> Option<SiteState> {
    let calls = st.fast_calls + st.pic_calls + st.selections + st.fallback_calls + st.stale_calls;
    (calls > 0).then_some(state)
}

/// The outcome of a finished lane.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    pub ops_per_ms: f64,
    pub ms_per_op: f64,
    pub virtual_ms: f64,
}

/// One policy's simulation as the components see it.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneView {
    pub policy: Policy,
    pub now_ms: f64,
    pub iterations: u64,
    /// Loop iterations of the whole program (warm-up and measured ops), for progress.
    pub total_iterations: u64,
    pub phase: Phase,
    /// Every site, by id.
    pub sites: Rc<Vec<SiteView>>,
    /// Site names by id (made once per run, shared by every frame's view).
    pub names: Rc<Vec<String>>,
    /// The selected site's whole report (the why panel), `None` without a selection.
    pub selected: Option<Rc<SiteReport>>,
    pub totals: RelinkTotals,
    pub timeline: Rc<Vec<TimelinePoint>>,
    pub result: Option<RunResult>,
    /// The selected site's latest relinks, oldest first.
    pub history: Rc<Vec<RelinkText>>,
    pub events_recorded: usize,
    pub last_event: Option<String>,
    /// Classes of the runner's list that are not loaded now in this lane (the program or a
    /// hand-fired mutation loads them later).
    pub unloaded: Vec<String>,
    /// Categories active now, innermost last.
    pub active_categories: Vec<String>,
    /// Compilation units and their deoptimizations (`crate::compiled`).
    pub compiled: Rc<CompiledView>,
    /// The relinks in the brushed range of the timeline, when a range is brushed.
    pub in_range: Option<Rc<InRange>>,
}

/// One lane's relinks in a brushed range of the timeline (`Runner::brush`).
#[derive(Clone, Debug, PartialEq)]
pub struct InRange {
    /// The range in this lane's virtual time (on the normalized axis it differs per lane).
    pub t_ms: (f64, f64),
    /// Relinks of any verdict in it.
    pub total: usize,
    /// The first `RANGE_ROWS` of them, oldest first.
    pub rows: Vec<RelinkText>,
    /// Every site that relinked in it, in declaration order.
    pub sites: Vec<String>,
}

impl InRange {
    /// `records` (in time order, as the engine keeps them) between `t_ms.0` and `t_ms.1`.
    fn of(sim: &Simulation, records: &[RelinkRecord], sites: usize, t_ms: (f64, f64)) -> InRange {
        let from = records.partition_point(|r| r.t_ms < t_ms.0);
        let to = from + records[from..].partition_point(|r| r.t_ms <= t_ms.1);
        let hits = &records[from..to];
        let mut relinked = vec![false; sites];
        for r in hits {
            if let Some(seen) = relinked.get_mut(r.site) {
                *seen = true;
            }
        }
        InRange {
            t_ms,
            total: hits.len(),
            rows: hits.iter().take(RANGE_ROWS).map(|r| sim.relink_text(r)).collect(),
            sites: relinked.iter().enumerate().filter(|(_, &hit)| hit).map(|(i, _)| sim.site_name(i).to_string()).collect(),
        }
    }

    pub fn has_site(&self, site: &str) -> bool {
        self.sites.iter().any(|s| s == site)
    }

    pub fn contains(&self, t_ms: f64) -> bool {
        (self.t_ms.0..=self.t_ms.1).contains(&t_ms)
    }
}

impl LaneView {
    pub fn finished(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn relinks(&self) -> u64 {
        self.totals.relinks()
    }

    /// The id of the site named `name` (a scan of the names: for one site, not per site).
    pub fn site_id(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn site(&self, name: &str) -> Option<&SiteView> {
        self.site_id(name).and_then(|i| self.sites.get(i))
    }

    pub fn is_loaded(&self, class: &str) -> bool {
        !self.unloaded.iter().any(|c| c == class)
    }
}

/// How the page names a program phase.
pub fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Setup => "setup",
        Phase::Warmup => "warm-up",
        Phase::Measure => "measured",
        Phase::Done => "done",
    }
}

/// What one step did, for the note under the blast view: the events it fired (setup events
/// cost no virtual time, so without this a step looks like nothing happened), or the loop
/// segment it ran. `phase` is the lane's phase after the step; times are virtual ms.
pub fn step_note(outcome: &StepOutcome, fired: &[&str], phase: Phase, t0_ms: f64, t1_ms: f64) -> String {
    let at = crate::format::duration_ms(t1_ms);
    match outcome {
        StepOutcome::Events(_) if !fired.is_empty() => {
            let labels: Vec<String> = fired.iter().map(|l| format!("`{l}`")).collect();
            format!("{}: fired {} at {at}", phase_name(phase), labels.join(", "))
        }
        StepOutcome::Events(_) => format!("{}: fired an event at {at}", phase_name(phase)),
        StepOutcome::Segment(n) => format!(
            "{}: ran {} loop iteration{} ({} → {at})",
            phase_name(phase),
            crate::format::count(*n),
            if *n == 1 { "" } else { "s" },
            crate::format::duration_ms(t0_ms)
        ),
        StepOutcome::Finished => format!("the program finished at {at}"),
        StepOutcome::Progress => format!("{}: moved through the program without reaching an event or a loop ({at})", phase_name(phase)),
    }
}

/// A class the blast view draws: (name, parent).
pub type ClassEntry = (String, Option<String>);

struct Lane {
    sim: Simulation,
    /// The sites as the last view drew them (shared with it until one changes).
    sites: Rc<Vec<SiteView>>,
    /// The engine's work count, iterations and events at the last refresh: all unchanged, no
    /// site can have changed (every call and every event counts work).
    sites_key: Option<(u64, u64, usize)>,
    result: Option<RunResult>,
    /// The selected site's history and the (site, relink total) it was built for.
    history: Rc<Vec<RelinkText>>,
    history_key: Option<(String, u64)>,
    compiled: CompiledTracker,
    /// The brushed range's relinks and the (range, relink records) they were built for.
    in_range: Option<Rc<InRange>>,
    in_range_key: Option<((f64, f64), usize)>,
}

impl Lane {
    fn step(&mut self) -> StepOutcome {
        let out = self.sim.step();
        if out == StepOutcome::Finished && self.result.is_none() {
            let report = self.sim.report();
            self.result = Some(RunResult { ops_per_ms: report.ops_per_ms, ms_per_op: report.ms_per_op, virtual_ms: report.virtual_ms });
        }
        out
    }

    fn running(&self) -> bool {
        !self.sim.is_finished()
    }
}

/// The sites that relinked in lane `here` and never in lane `there` (both run the same
/// scenario, so site ids match): the first `max` by id with their relink counts, and how many
/// there are in all. Bounded because one bulk event under one policy can relink every site:
/// 10^5 chips in one render otherwise (the comparison's "which sites" lists).
pub fn relinked_only_in<'a>(here: &'a LaneView, there: &LaneView, max: usize) -> (Vec<(&'a str, u64)>, usize) {
    let mut first = Vec::new();
    let mut total = 0;
    for ((site, other), name) in here.sites.iter().zip(there.sites.iter()).zip(here.names.iter()) {
        if site.relinks > 0 && other.relinks == 0 {
            total += 1;
            if first.len() < max {
                first.push((name.as_str(), site.relinks));
            }
        }
    }
    (first, total)
}

/// Loop iterations of the whole program (warm-up and measured ops).
pub fn total_iterations(scenario: &Scenario) -> u64 {
    let ops = u64::from(scenario.measure.warmup_ops) + u64::from(scenario.measure.ops);
    blast_engine::sim::iterations_in(&scenario.op).saturating_mul(ops)
}

/// The classes the blast view draws: declared ones, then those the program loads.
pub fn classes_of(scenario: &Scenario) -> Vec<ClassEntry> {
    let mut classes: Vec<ClassEntry> = scenario.classes.iter().map(|c| (c.name.clone(), c.parent.clone())).collect();
    for (name, parent) in crate::editor::loaded_by_program(scenario) {
        if !classes.iter().any(|(c, _)| *c == name) {
            classes.push((name, parent));
        }
    }
    classes
}

/// Site names by id.
pub fn names_of(scenario: &Scenario) -> Rc<Vec<String>> {
    Rc::new(scenario.sites.iter().map(|s| s.name.as_str().to_owned()).collect())
}

/// Why a hand-fired mutation went nowhere.
const NOTHING_RUNNING: &str = "nothing is running: press Run (or Reset) first";

/// Why a hand-fired mutation went into no lane.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FireRefusal {
    /// No lane is running.
    NothingRunning,
    /// Every running lane refused it: the engine's words (they cross the worker's wire as text).
    Refused(String),
}

impl std::fmt::Display for FireRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FireRefusal::NothingRunning => f.write_str(NOTHING_RUNNING),
            FireRefusal::Refused(why) => f.write_str(why),
        }
    }
}

pub struct Runner {
    lanes: Vec<Lane>,
    /// The shared virtual time (ms) every running lane is being advanced to.
    target_ms: f64,
    frame: u64,
    total_iterations: u64,
    selected: Option<String>,
    /// The brushed range of the timeline, on its axis.
    brush: Option<(XAxis, Range)>,
    /// Declared classes, then classes the program loads, then classes loaded by hand.
    classes: Vec<ClassEntry>,
    /// Site names by id, for the views.
    names: Rc<Vec<String>>,
    views: Vec<Rc<LaneView>>,
}

impl Runner {
    /// A runner with no lanes (nothing selected, or the scenario cannot run).
    pub fn idle() -> Runner {
        Runner {
            lanes: Vec::new(),
            target_ms: 0.0,
            frame: 0,
            total_iterations: 0,
            selected: None,
            brush: None,
            classes: Vec::new(),
            names: Rc::default(),
            views: Vec::new(),
        }
    }

    pub fn new(scenario: &Scenario, policies: &[Policy], params: &Params) -> Result<Runner, ScenarioError> {
        // One validation and work bound for every lane, not one per policy.
        let lanes: Vec<Lane> = Simulation::for_policies(scenario, policies, params)?
            .into_iter()
            .map(|sim| Lane {
                sites: Rc::new(vec![SiteView::default(); sim.site_count()]),
                sim,
                sites_key: None,
                result: None,
                history: Rc::default(),
                history_key: None,
                compiled: CompiledTracker::default(),
                in_range: None,
                in_range_key: None,
            })
            .collect();
        let mut runner =
            Runner { lanes, total_iterations: total_iterations(scenario), classes: classes_of(scenario), names: names_of(scenario), ..Runner::idle() };
        runner.refresh();
        Ok(runner)
    }

    pub fn views(&self) -> &[Rc<LaneView>] {
        &self.views
    }

    pub fn policies(&self) -> Vec<Policy> {
        self.lanes.iter().map(|l| l.sim.policy()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// Every lane has finished (or there are none).
    pub fn finished(&self) -> bool {
        self.lanes.iter().all(|l| !l.running())
    }

    /// Virtual time shown to the user: the laggard's clock while running, else the latest.
    pub fn clock_ms(&self) -> f64 {
        match self.laggard() {
            Some(i) => self.lanes[i].sim.now_ms(),
            None => self.lanes.iter().map(|l| l.sim.now_ms()).fold(0.0, f64::max),
        }
    }

    /// Relinks (necessary + collateral, the engine's one definition) across all lanes.
    pub fn total_relinks(&self) -> u64 {
        self.lanes.iter().map(|l| l.sim.relink_totals().relinks()).sum()
    }

    /// Site names by id (the scenario's sites, in order).
    pub fn names(&self) -> &Rc<Vec<String>> {
        &self.names
    }

    /// Every class the scenario declares or may load, including those loaded by hand.
    pub fn classes(&self) -> &[ClassEntry] {
        &self.classes
    }

    /// The running lane furthest behind in virtual time.
    fn laggard(&self) -> Option<usize> {
        self.lanes.iter().enumerate().filter(|(_, l)| l.running()).min_by(|(_, a), (_, b)| a.sim.now_ms().total_cmp(&b.sim.now_ms())).map(|(i, _)| i)
    }

    /// Move the shared clock forward (`f64::INFINITY` = as fast as the budget allows).
    pub fn advance_clock(&mut self, virtual_ms: f64) {
        if virtual_ms > 0.0 {
            self.target_ms += virtual_ms;
        }
    }

    /// Take up to `max_steps` engine steps toward the clock. Returns `true` once every
    /// running lane has reached it (or all have finished).
    pub fn work(&mut self, max_steps: usize) -> bool {
        for _ in 0..max_steps {
            let Some(i) = self.laggard() else { return true };
            if self.lanes[i].sim.now_ms() >= self.target_ms {
                return true;
            }
            self.lanes[i].step();
        }
        false
    }

    /// End of a frame: drop any backlog the budget could not absorb, so a slow frame does
    /// not turn into a burst later.
    pub fn settle(&mut self) {
        if self.target_ms.is_finite() {
            if let Some(i) = self.laggard() {
                self.target_ms = self.target_ms.min(self.lanes[i].sim.now_ms());
            }
        } else {
            // "max" speed: keep running, but restart from real numbers when the speed changes.
            self.target_ms = self.clock_ms();
        }
    }

    /// Advance every running lane to its next event or loop segment. The lanes run the same
    /// program, so this is the same point of the program in each, whatever it cost them in
    /// virtual time. Bounded by `STEP_LIMIT` engine steps per lane.
    /// Returns what the step did (in the first running lane; the others ran the same point
    /// of the program), or `None` when nothing was running.
    pub fn step(&mut self) -> Option<String> {
        let mut note = None;
        for lane in self.lanes.iter_mut().filter(|l| l.running()) {
            let (events_before, t0) = (lane.sim.events_since(0).len(), lane.sim.now_ms());
            let mut outcome = StepOutcome::Progress;
            for _ in 0..STEP_LIMIT {
                outcome = lane.step();
                if outcome != StepOutcome::Progress {
                    break;
                }
            }
            if note.is_none() {
                let fired: Vec<&str> = lane.sim.events_since(events_before).iter().map(|e| e.label.as_str()).collect();
                note = Some(step_note(&outcome, &fired, lane.sim.phase(), t0, lane.sim.now_ms()));
            }
        }
        // Playing on from here continues from the laggard's time.
        self.target_ms = self.target_ms.max(self.clock_ms());
        note
    }

    /// Fire a hand-made event into every running lane at once. Returns how many took it.
    pub fn inject(&mut self, event: &Event) -> Result<usize, FireRefusal> {
        let fired = self.fire_into_running_lanes(|sim| sim.inject(event))?;
        if let Event::Load { class, parent, .. } = event {
            if !self.classes.iter().any(|(c, _)| c == class) {
                self.classes.push((class.clone(), parent.clone()));
            }
        }
        Ok(fired)
    }

    /// Enter or leave category `name` in every running lane at once. Returns how many took it.
    pub fn inject_category(&mut self, name: &str, enter: bool) -> Result<usize, FireRefusal> {
        self.fire_into_running_lanes(|sim| sim.inject_category(name, enter))
    }

    fn fire_into_running_lanes(&mut self, mut fire: impl FnMut(&mut Simulation) -> Result<usize, ScenarioError>) -> Result<usize, FireRefusal> {
        let mut fired = 0;
        let mut error = None;
        for lane in self.lanes.iter_mut().filter(|l| l.running()) {
            match fire(&mut lane.sim) {
                Ok(_) => fired += 1,
                Err(e) => error = Some(e.to_string()),
            }
        }
        if fired == 0 {
            return Err(error.map_or(FireRefusal::NothingRunning, FireRefusal::Refused));
        }
        Ok(fired)
    }

    /// For each lane: the sites a write on `class` would retire right now.
    pub fn what_if(&self, class: &str) -> Vec<(Policy, Vec<String>)> {
        self.lanes.iter().map(|l| (l.sim.policy(), l.sim.what_if_write(class))).collect()
    }

    /// The scenario's expectations against the lanes as they stand: pending where a run is
    /// missing or still going (`blast_engine::expect`).
    pub fn expectations(&self, scenario: &Scenario) -> Vec<Outcome> {
        if scenario.expectations.is_empty() {
            // Nothing to evaluate: no view of the lanes (each copies every site's report).
            return Vec::new();
        }
        let views: Vec<RunView> = self.lanes.iter().map(|l| RunView::of_simulation(&l.sim)).collect();
        expect::evaluate(scenario, &views)
    }

    /// The site whose history the views carry.
    pub fn select(&mut self, site: Option<String>) {
        self.selected = site;
    }

    /// The timeline range whose relinks the views carry (`LaneView::in_range`).
    pub fn brush(&mut self, range: Option<(XAxis, Range)>) {
        self.brush = range;
    }

    /// Rebuild the views from the engine (once per frame or after a command). Per site this
    /// reads numbers only, and only in a lane that did work since the last refresh; a site
    /// list is copied only when a site's look changed (`Lane::refresh_sites`).
    pub fn refresh(&mut self) {
        self.frame += 1;
        let frame = self.frame;
        let selected = self.selected.as_deref();
        let brush = self.brush;
        let total_iterations = self.total_iterations;
        let classes = &self.classes;
        let names = &self.names;
        self.views = self
            .lanes
            .iter_mut()
            .map(|lane| {
                lane.refresh_sites(frame);
                let id = selected.and_then(|name| names.iter().position(|n| n == name));
                let key = id.map(|i| (names[i].clone(), lane.sites[i].relinks));
                if key != lane.history_key {
                    // Only rebuilt when the selection or that site's relink count changed.
                    // Records carry site ids; the rows shown are made as text here, at the edge.
                    let mut h: Vec<RelinkText> = match id {
                        Some(id) => {
                            lane.sim.relinks_since(0).iter().rev().filter(|r| r.site == id).take(HISTORY_LIMIT).map(|r| lane.sim.relink_text(r)).collect()
                        }
                        None => Vec::new(),
                    };
                    h.reverse();
                    lane.history = Rc::new(h);
                    lane.history_key = key;
                }
                let timeline = Rc::new(lane.sim.timeline());
                let records = lane.sim.relinks_since(0);
                // The brushed range in this lane's time needs its timeline, hence the view.
                let t_range = brush.map(|(axis, r)| match axis {
                    XAxis::Time => r,
                    XAxis::Progress => timeline::time_range(&timeline, total_iterations, axis, r),
                });
                let key = t_range.map(|t| (t, records.len()));
                if key != lane.in_range_key {
                    // Only rebuilt when the range or the relinks changed.
                    lane.in_range = t_range.map(|t| Rc::new(InRange::of(&lane.sim, records, lane.sites.len(), t)));
                    lane.in_range_key = key;
                }
                let events = lane.sim.events_since(0);
                Rc::new(LaneView {
                    policy: lane.sim.policy(),
                    now_ms: lane.sim.now_ms(),
                    iterations: lane.sim.iterations(),
                    total_iterations,
                    phase: lane.sim.phase(),
                    sites: lane.sites.clone(),
                    names: names.clone(),
                    selected: id.map(|i| Rc::new(lane.sim.site_report(i))),
                    totals: lane.sim.relink_totals(),
                    timeline,
                    result: lane.result,
                    history: lane.history.clone(),
                    events_recorded: events.len(),
                    last_event: events.last().map(|e| e.label.clone()),
                    unloaded: classes.iter().filter(|(c, _)| !lane.sim.is_loaded(c)).map(|(c, _)| c.clone()).collect(),
                    active_categories: lane.sim.active_categories(),
                    compiled: Rc::new(lane.compiled.refresh(&lane.sim, frame)),
                    in_range: lane.in_range.clone(),
                })
            })
            .collect();
    }

    /// Every site's whole report per lane (tests here and in the web crate compare the views
    /// with it).
    pub fn site_reports(&self) -> Vec<Vec<SiteReport>> {
        self.lanes.iter().map(|l| l.sim.sites_now()).collect()
    }

    /// Every site's call counts per lane, in site id order (for the results CSV, on demand only:
    /// the views leave them out).
    pub fn call_counts(&self) -> Vec<Vec<CallCounts>> {
        self.lanes.iter().map(|l| (0..l.sites.len()).map(|i| CallCounts::of(&l.sim.site_stats(i))).collect()).collect()
    }
}

impl Lane {
    /// Bring `sites` up to the engine: skipped when the lane did no work since the last
    /// refresh; a site that relinked since flashes at `frame`. The list is copied (once) only
    /// when some site's look changed, so an unchanged frame shares the last view's list.
    fn refresh_sites(&mut self, frame: u64) {
        let key = Some((self.sim.work_done(), self.sim.iterations(), self.sim.events_total()));
        if key == self.sites_key {
            return;
        }
        self.sites_key = key;
        let mut changed: Option<Vec<SiteView>> = None;
        for i in 0..self.sites.len() {
            let old = self.sites[i];
            let st = self.sim.site_stats(i);
            let flash = if st.relinks() > old.relinks { frame } else { old.flash };
            let now = SiteView::of(self.sim.site_state(i), &st, flash);
            if now != old {
                changed.get_or_insert_with(|| self.sites.as_ref().clone())[i] = now;
            }
        }
        if let Some(sites) = changed {
            self.sites = Rc::new(sites);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    fn runner(id: &str, policies: &[Policy]) -> Runner {
        let scenario = presets::find(id).expect("preset").scenario();
        Runner::new(&scenario, policies, &Params::default()).expect("runs")
    }

    fn run_to_end(r: &mut Runner) {
        r.advance_clock(f64::INFINITY);
        for _ in 0..10_000 {
            if r.work(1000) {
                break;
            }
        }
        r.refresh();
    }

    #[test]
    fn relinked_only_in_lists_the_first_sites_and_counts_them_all() {
        let mut r = runner("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        run_to_end(&mut r);
        let v = r.views();
        let (global, exact) = (&v[0], &v[1]);
        let expected: Vec<(&str, u64)> = global
            .sites
            .iter()
            .zip(exact.sites.iter())
            .zip(global.names.iter())
            .filter(|((g, e), _)| g.relinks > 0 && e.relinks == 0)
            .map(|((g, _), n)| (n.as_str(), g.relinks))
            .collect();
        assert!(!expected.is_empty(), "global relinks a site that exact never does in this preset");
        assert_eq!(relinked_only_in(global, exact, usize::MAX), (expected.clone(), expected.len()));
        let (first, total) = relinked_only_in(global, exact, 0);
        assert!(first.is_empty());
        assert_eq!(total, expected.len(), "the total counts past the shown ones");
        let (none, zero) = relinked_only_in(global, global, usize::MAX);
        assert!(none.is_empty() && zero == 0, "a lane has no site that relinked only in itself");
    }

    #[test]
    fn lanes_finish_with_the_engine_numbers() {
        let mut r = runner("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        run_to_end(&mut r);
        assert!(r.finished());
        let v = r.views();
        let global = v[0].result.expect("global finished");
        let exact = v[1].result.expect("exact finished");
        let direct = blast_engine::run(&presets::find("hotLoop_unrelatedMetaClassChurn").unwrap().scenario(), Policy::Exact, &Params::default()).unwrap();
        assert_eq!(exact.ops_per_ms, direct.ops_per_ms);
        assert!(exact.ops_per_ms > 10.0 * global.ops_per_ms);
        assert!(r.total_relinks() > 0);
    }

    #[test]
    fn lanes_advance_in_lockstep() {
        let mut r = runner("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        r.advance_clock(5.0);
        assert!(r.work(100_000));
        r.refresh();
        for lane in r.views() {
            assert!(lane.now_ms >= 5.0 || lane.finished(), "{} at {}", lane.policy, lane.now_ms);
        }
        // Neither lane ran far past the clock: at most one engine step beyond it.
        assert!(r.views().iter().all(|l| l.now_ms < 50.0));
    }

    #[test]
    fn a_bounded_budget_stops_early_and_settle_drops_the_backlog() {
        let mut r = runner("hotLoop_unrelatedMetaClassChurn", &[Policy::Global]);
        r.advance_clock(1e9);
        assert!(!r.work(3));
        r.settle();
        let clock = r.clock_ms();
        assert!(r.work(10), "after settling the lane is at the clock");
        assert_eq!(r.clock_ms(), clock);
    }

    #[test]
    fn step_reaches_the_next_event_or_segment() {
        let mut r = runner("hotLoop_baseline", &[Policy::Global, Policy::Exact]);
        let first = r.step().expect("a note");
        assert!(first.starts_with("setup: fired `") && first.ends_with("at 0 µs"), "{first}");
        r.refresh();
        assert!(r.views().iter().all(|l| l.events_recorded >= 1), "the first step fires the first setup event");
        for _ in 0..10 {
            r.step();
        }
        r.refresh();
        assert!(r.views().iter().all(|l| l.iterations > 0));
        let notes: Vec<String> = (0..40).filter_map(|_| r.step()).collect();
        assert!(notes.iter().any(|n| n.contains("loop iterations (")), "{notes:?}");
    }

    #[test]
    fn step_notes_say_what_ran() {
        assert_eq!(step_note(&StepOutcome::Segment(1000), &[], Phase::Warmup, 0.5, 1.25), "warm-up: ran 1\u{2009}000 loop iterations (500 µs → 1.25 ms)");
        assert_eq!(step_note(&StepOutcome::Events(vec![0]), &["load Hot"], Phase::Setup, 0.0, 0.0), "setup: fired `load Hot` at 0 µs");
        assert_eq!(step_note(&StepOutcome::Finished, &[], Phase::Done, 9.0, 9.0), "the program finished at 9.00 ms");
    }

    #[test]
    fn a_hand_fired_write_relinks_and_flashes() {
        let mut r = runner("hotLoop_baseline", &[Policy::Global, Policy::Exact]);
        for _ in 0..6 {
            r.step();
        }
        r.refresh();
        assert_eq!(r.total_relinks(), 0);
        let fired = r.inject(&Event::Write { class: "Hot".into(), method: "dyn0".into() }).expect("inject");
        assert_eq!(fired, 2);
        r.step();
        r.step();
        r.refresh();
        assert!(r.total_relinks() > 0);
        let global = &r.views()[0];
        assert!(global.sites.iter().any(|s| s.flash == r.frame), "a relinked site flashes this frame");
    }

    #[test]
    fn a_frame_copies_the_site_list_only_when_a_site_changed() {
        let mut r = runner("hotLoop_baseline", &[Policy::Exact]);
        let first = r.views()[0].sites.clone();
        r.refresh();
        assert!(Rc::ptr_eq(&first, &r.views()[0].sites), "no work since the last frame: the same list");
        // Calls alone change no site's look once it is linked; relinks do.
        let mut copies = 0;
        let mut frames = 0;
        r.advance_clock(f64::INFINITY);
        while !r.finished() {
            let before = r.views()[0].clone();
            r.work(5);
            r.refresh();
            frames += 1;
            let after = &r.views()[0];
            if !Rc::ptr_eq(&before.sites, &after.sites) {
                copies += 1;
                assert_ne!(before.sites, after.sites, "a copied list differs");
            }
        }
        assert!(copies > 0 && copies < frames, "{copies} copies in {frames} frames");
        let names = r.views()[0].names.clone();
        r.refresh();
        assert!(Rc::ptr_eq(&names, &r.views()[0].names), "names are made once per run");
    }

    #[test]
    fn injecting_into_a_finished_run_is_an_error() {
        let mut r = runner("hotLoop_baseline", &[Policy::Exact]);
        run_to_end(&mut r);
        assert!(r.inject(&Event::InvalidateAll).is_err());
        assert!(Runner::idle().inject(&Event::InvalidateAll).is_err());
    }

    #[test]
    fn loading_a_class_by_hand_is_remembered_and_duplicates_are_refused() {
        let mut r = runner("hotLoop_baseline", &[Policy::Exact]);
        r.step();
        let load = Event::Load { class: "HotChild".into(), parent: Some("Hot".into()), methods: vec![] };
        assert!(r.inject(&load).is_ok());
        assert_eq!(r.classes().last(), Some(&("HotChild".to_string(), Some("Hot".to_string()))));
        r.refresh();
        assert!(r.views()[0].is_loaded("HotChild"));
        assert!(r.inject(&load).is_err());
        assert_eq!(r.classes().iter().filter(|(c, _)| c == "HotChild").count(), 1);
    }

    #[test]
    fn classes_the_program_loads_are_drawn_unloaded_until_it_loads_them() {
        let text = "class A { m }\nsite s = A.m\nsetup { load class B extends A { m } }\nop { loop 10 { call s } }\nmeasure warmup 0 ops 1\n";
        let scenario = blast_engine::dsl::parse(text).expect("parses");
        let mut r = Runner::new(&scenario, &[Policy::Exact], &Params::default()).expect("runs");
        assert_eq!(r.classes().iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(r.views()[0].unloaded, ["B"]);
        run_to_end(&mut r);
        assert!(r.views()[0].unloaded.is_empty());
    }

    #[test]
    fn categories_entered_by_hand_are_active_until_left() {
        let mut r = runner("hotLoop_baseline", &[Policy::Global, Policy::Exact]);
        r.step();
        assert_eq!(r.inject_category("HotCategory", true), Ok(2));
        r.refresh();
        assert!(r.views().iter().all(|l| l.active_categories == ["HotCategory"]));
        assert_eq!(r.inject_category("HotCategory", false), Ok(2));
        assert!(r.inject_category("HotCategory", false).unwrap_err().to_string().contains("not active"));
        assert!(r.inject_category("Nope", true).unwrap_err().to_string().contains("unknown category"));
        r.refresh();
        assert!(r.views().iter().all(|l| l.active_categories.is_empty()));
    }

    #[test]
    fn history_follows_the_selected_site() {
        let mut r = runner("hotLoop_sameTypeMetaClassChurn", &[Policy::Exact]);
        r.select(Some("hot".into()));
        run_to_end(&mut r);
        let lane = &r.views()[0];
        assert!(!lane.history.is_empty());
        assert!(lane.history.iter().all(|h| h.site == "hot"));
        assert!(lane.history.len() <= HISTORY_LIMIT);
    }

    #[test]
    fn a_brushed_range_lists_its_relinks_per_lane() {
        let mut r = runner("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        run_to_end(&mut r);
        assert!(r.views().iter().all(|l| l.in_range.is_none()), "nothing brushed");
        let end = r.views()[0].now_ms;
        let (t0, t1) = (end * 0.25, end * 0.5);
        r.brush(Some((XAxis::Time, (t0, t1))));
        r.refresh();
        let (global, exact) = (&r.views()[0], &r.views()[1]);
        let g = global.in_range.as_ref().expect("global lists its range");
        let all = r.lanes[0].sim.relinks_since(0);
        assert_eq!(g.total, all.iter().filter(|x| (t0..=t1).contains(&x.t_ms)).count(), "every relink in the range is counted");
        assert!(g.total > RANGE_ROWS && g.rows.len() == RANGE_ROWS, "global relinks throughout the churn: {}", g.total);
        assert!(g.rows.iter().all(|x| g.contains(x.t_ms)) && g.rows.windows(2).all(|w| w[0].t_ms <= w[1].t_ms));
        assert!(g.has_site("hot") && !g.sites.is_empty());
        assert_eq!(exact.in_range.as_ref().map(|e| e.total), Some(0), "exact does not relink under unrelated churn");
        // On the normalized axis the same % is a different time range per lane.
        r.brush(Some((XAxis::Progress, (25.0, 50.0))));
        r.refresh();
        let ranges: Vec<(f64, f64)> = r.views().iter().map(|l| l.in_range.as_ref().unwrap().t_ms).collect();
        assert!(ranges[0].1 > 5.0 * ranges[1].1, "global took far longer to get half-way: {ranges:?}");
        r.brush(None);
        r.refresh();
        assert!(r.views().iter().all(|l| l.in_range.is_none()));
    }

    #[test]
    fn what_if_differs_by_policy() {
        let r = runner("parentChild_parentMetaClassChurn", &[Policy::Global, Policy::Exact, Policy::Hierarchy]);
        let mut r = r;
        for _ in 0..8 {
            r.step();
        }
        let w = r.what_if("HierParent");
        assert_eq!(w.len(), 3);
        assert!(w[0].1.len() > w[2].1.len(), "global retires more than hierarchy: {w:?}");
        assert!(w[1].1.is_empty(), "exact retires no child site: {w:?}");
        assert!(w[2].1.contains(&"leaf".to_string()), "hierarchy fans out to the child: {w:?}");
    }
}
