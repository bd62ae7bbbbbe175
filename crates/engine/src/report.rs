//! What a run produces: throughput, per-site outcomes, the relink log and a timeline.

use serde::Serialize;

use crate::names::named;
use crate::policy::Policy;

/// Where the program counter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Setup,
    Warmup,
    Measure,
    Done,
}

/// The oracle's verdict on one relink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The site's target really changed.
    Necessary = 0,
    /// Retired, re-selected, and got the same target back: wasted work.
    Collateral = 1,
    /// The target changed but the site's guard still passed: a stale dispatch.
    Missed = 2,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Necessary, Verdict::Collateral, Verdict::Missed];

    /// The name in exports, JSON and the UI.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Necessary => "necessary",
            Verdict::Collateral => "collateral",
            Verdict::Missed => "missed",
        }
    }
}

named!(Verdict, "verdict");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteState {
    /// On the guarded fast chain, guard valid.
    Linked,
    /// On the default target, served by the inline cache.
    Pic,
    /// Fast chain installed but its guard fails: re-selecting every call.
    FallingBack,
    /// Past the fallback cutoff: stays on the default target for good.
    GivenUp,
    /// The receiver cannot be cached (category method, per-instance metaclass).
    Uncached,
    /// Guard valid but the target is stale: dispatching to the wrong method.
    Stale,
}

impl SiteState {
    pub const ALL: [SiteState; 6] = [SiteState::Linked, SiteState::Pic, SiteState::FallingBack, SiteState::GivenUp, SiteState::Uncached, SiteState::Stale];

    /// The name in exports, JSON and CSS classes.
    pub fn name(self) -> &'static str {
        match self {
            SiteState::Linked => "linked",
            SiteState::Pic => "pic",
            SiteState::FallingBack => "falling-back",
            SiteState::GivenUp => "given-up",
            SiteState::Uncached => "uncached",
            SiteState::Stale => "stale",
        }
    }
}

named!(SiteState, "site state");

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SiteStats {
    pub fast_calls: u64,
    pub pic_calls: u64,
    pub selections: u64,
    pub fallback_calls: u64,
    pub stale_calls: u64,
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
}

/// What counts as a relink, everywhere (CLI, web, comparisons): a re-selection after a
/// retirement, whether the target really changed (`necessary`) or not (`collateral`). A
/// `missed` verdict is a stale dispatch that no relink fixed, so it is not one.
fn relinks(necessary: u64, collateral: u64) -> u64 {
    necessary + collateral
}

impl SiteStats {
    /// See [`relinks`]: necessary + collateral.
    pub fn relinks(&self) -> u64 {
        relinks(self.necessary, self.collateral)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SiteReport {
    pub name: String,
    pub class: String,
    pub method: String,
    pub state: SiteState,
    pub target: String,
    pub stats: SiteStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventRecord {
    pub id: usize,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
    pub label: String,
    pub domains_retired: usize,
    /// The retired domains (first few).
    pub domains: Vec<String>,
    /// Sites whose cached links this event retired (the first hundred, in site order).
    pub sites_hit: Vec<String>,
    pub sites_hit_total: usize,
    /// Sites whose true target changed (what the ideal policy retires; the first hundred).
    pub targets_changed: Vec<String>,
    pub targets_changed_total: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RelinkRecord {
    pub site: String,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
    /// The event that retired the domain (for `missed`: the event that changed the target).
    pub event: Option<usize>,
    pub event_label: Option<String>,
    /// The domain that guarded the old link: retired for necessary and collateral relinks,
    /// still live for a missed one (which is why the stale link kept dispatching).
    pub domain: String,
    pub verdict: Verdict,
    pub old_target: String,
    pub new_target: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RelinkTotals {
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
}

impl RelinkTotals {
    /// See [`relinks`]: necessary + collateral.
    pub fn relinks(&self) -> u64 {
        relinks(self.necessary, self.collateral)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelinePoint {
    /// Virtual time at the end of this interval.
    pub t_ms: f64,
    pub iterations: u64,
    pub ops_per_ms: f64,
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
    pub events: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub scenario: String,
    pub policy: Policy,
    /// Mean throughput over the measured ops.
    pub ops_per_ms: f64,
    pub ms_per_op: f64,
    pub op_ms: Vec<f64>,
    pub iterations_per_op: u64,
    pub virtual_ms: f64,
    pub sites: Vec<SiteReport>,
    pub events: Vec<EventRecord>,
    pub events_total: usize,
    pub relinks: Vec<RelinkRecord>,
    pub relink_totals: RelinkTotals,
    pub timeline: Vec<TimelinePoint>,
    /// Compilation units (loops' methods, event code): tier at the end, deopts, recompiles.
    pub units: Vec<crate::sim::UnitReport>,
    /// Deoptimizations of loop code, in order (bounded; the unit stats count every one).
    pub deopts: Vec<crate::sim::DeoptRecord>,
}

impl RunReport {
    /// Relinks (necessary + collateral) per receiver class, sorted by class name.
    pub fn relinks_by_class(&self) -> Vec<(String, u64)> {
        let mut map = std::collections::BTreeMap::new();
        for s in &self.sites {
            *map.entry(s.class.clone()).or_insert(0) += s.stats.relinks();
        }
        map.into_iter().collect()
    }

    pub fn total_relinks(&self) -> u64 {
        self.sites.iter().map(|s| s.stats.relinks()).sum()
    }

    pub fn site(&self, name: &str) -> Option<&SiteReport> {
        self.sites.iter().find(|s| s.name == name)
    }
}

/// Fixed-size buckets over loop iterations; costs and relinks land where they happened.
#[derive(Clone, Debug)]
pub struct Timeline {
    bucket: u64,
    iterations_per_op: u64,
    cost: Vec<f64>,
    iters: Vec<u64>,
    relinks: Vec<[u64; 3]>,
    events: Vec<Vec<usize>>,
}

const EVENTS_PER_POINT: usize = 16;

impl Timeline {
    pub fn new(bucket: u64, iterations_per_op: u64) -> Timeline {
        Timeline { bucket: bucket.max(1), iterations_per_op: iterations_per_op.max(1), cost: vec![], iters: vec![], relinks: vec![], events: vec![] }
    }

    fn ensure(&mut self, idx: usize) {
        if self.cost.len() <= idx {
            self.cost.resize(idx + 1, 0.0);
            self.iters.resize(idx + 1, 0);
            self.relinks.resize(idx + 1, [0; 3]);
            self.events.resize(idx + 1, Vec::new());
        }
    }

    /// Spread `cost` and `iterations` uniformly over the iterations starting at `at`.
    pub fn add(&mut self, at: u64, cost: f64, iterations: u64, relinks: [u64; 3]) {
        let first = (at / self.bucket) as usize;
        self.ensure(first);
        for (k, r) in relinks.iter().enumerate() {
            self.relinks[first][k] += r;
        }
        if iterations == 0 {
            self.cost[first] += cost;
            return;
        }
        let mut pos = at;
        let end = at + iterations;
        while pos < end {
            let idx = (pos / self.bucket) as usize;
            let bucket_end = (idx as u64 + 1) * self.bucket;
            let n = end.min(bucket_end) - pos;
            self.ensure(idx);
            self.iters[idx] += n;
            self.cost[idx] += cost * (n as f64 / iterations as f64);
            pos += n;
        }
    }

    pub fn mark(&mut self, at: u64, event: usize) {
        let idx = (at / self.bucket) as usize;
        self.ensure(idx);
        if self.events[idx].len() < EVENTS_PER_POINT {
            self.events[idx].push(event);
        }
    }

    pub fn points(&self) -> Vec<TimelinePoint> {
        let mut t = 0.0;
        (0..self.cost.len())
            .map(|i| {
                t += self.cost[i];
                let ms = self.cost[i] / 1e6;
                let ops = self.iters[i] as f64 / self.iterations_per_op as f64;
                TimelinePoint {
                    t_ms: t / 1e6,
                    iterations: self.iters[i],
                    ops_per_ms: if ms > 0.0 { ops / ms } else { 0.0 },
                    necessary: self.relinks[i][0],
                    collateral: self.relinks[i][1],
                    missed: self.relinks[i][2],
                    events: self.events[i].clone(),
                }
            })
            .collect()
    }
}
