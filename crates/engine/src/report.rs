//! What a run produces: throughput, per-site outcomes, the relink log and a timeline.
//!
//! Event and relink records carry typed keys (site ids, [`DomainKey`]s, [`Target`]s, event
//! indexes), so a consumer (expectations, the why panel) compares ids, not text. Text is made
//! at the edge through [`Naming`], which both a running [`crate::Simulation`] and a finished
//! [`RunReport`] implement; a report serializes its records as that text.

use serde::{Deserialize, Serialize, Serializer};

use crate::jit::{Tier, UnitStats};
use crate::policy::{DomainKey, Policy};
use crate::spelling::named;
use crate::world::{ClassId, Target};

/// A call site's dense id: its index in the scenario's `sites` (and in [`RunReport::sites`]).
pub type SiteId = usize;

/// Where the program counter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Setup,
    Warmup,
    Measure,
    Done,
}

/// The oracle's verdict on one relink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A polymorphic site with more receiver classes than its PIC holds: each miss evicts the
    /// least recently used entry and selects.
    Megamorphic,
}

impl SiteState {
    pub const ALL: [SiteState; 7] =
        [SiteState::Linked, SiteState::Pic, SiteState::FallingBack, SiteState::GivenUp, SiteState::Uncached, SiteState::Stale, SiteState::Megamorphic];

    /// The name in exports, JSON and CSS classes.
    pub fn name(self) -> &'static str {
        match self {
            SiteState::Linked => "linked",
            SiteState::Pic => "pic",
            SiteState::FallingBack => "falling-back",
            SiteState::GivenUp => "given-up",
            SiteState::Uncached => "uncached",
            SiteState::Stale => "stale",
            SiteState::Megamorphic => "megamorphic",
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
    /// PIC entries evicted (least recently used first) to make room for another receiver
    /// class: only a polymorphic site with more receivers than the PIC holds evicts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub evictions: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
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
    /// A polymorphic site's receivers, `class` first; empty for a monomorphic site.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub receivers: Vec<ReceiverReport>,
}

/// One receiver class of a polymorphic site.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReceiverReport {
    pub class: String,
    /// Its weight in the site's mix.
    pub weight: u32,
    /// Whether the site's PIC holds an entry for it now.
    pub cached: bool,
    /// Relinks (necessary + collateral) of its entry: re-selections after an invalidation.
    pub relinks: u64,
}

/// One fired event. `id` is its index among the events fired (the index relink records name).
/// Typed (`SiteId`, `DomainKey`) in the engine; [`EventText`] is the same record with names,
/// made at the edge by [`Naming::event_text`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EventRecord<Site = SiteId, Domain = DomainKey> {
    pub id: usize,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
    pub label: String,
    pub domains_retired: usize,
    /// The retired domains (first few, in key order).
    pub domains: Vec<Domain>,
    /// Sites whose cached links this event retired (the first hundred, in site order).
    pub sites_hit: Vec<Site>,
    pub sites_hit_total: usize,
    /// Sites whose true target changed (what the ideal policy retires; the first hundred).
    pub targets_changed: Vec<Site>,
    pub targets_changed_total: usize,
}

/// An [`EventRecord`] as text (exports, JSON).
pub type EventText = EventRecord<String, String>;

impl<S, D> EventRecord<S, D> {
    /// The same record with its sites and domains mapped (ids to names).
    pub fn map<S2, D2>(&self, site: impl Fn(&S) -> S2, domain: impl Fn(&D) -> D2) -> EventRecord<S2, D2> {
        EventRecord {
            id: self.id,
            phase: self.phase,
            op: self.op,
            t_ms: self.t_ms,
            label: self.label.clone(),
            domains_retired: self.domains_retired,
            domains: self.domains.iter().map(domain).collect(),
            sites_hit: self.sites_hit.iter().map(&site).collect(),
            sites_hit_total: self.sites_hit_total,
            targets_changed: self.targets_changed.iter().map(&site).collect(),
            targets_changed_total: self.targets_changed_total,
        }
    }
}

/// One relink (or, for `missed`, one stale dispatch), attributed to the event that caused it.
#[derive(Clone, Debug, PartialEq)]
pub struct RelinkRecord {
    pub site: SiteId,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
    /// The index of the event that caused it: for `necessary` and `missed`, the event that
    /// changed the target (the last to change what the site resolves to, even when another
    /// event of the same step retired the shared domain last); for `collateral`, the event that
    /// retired the domain, an unrelated change the site paid for by sharing it. `None` when
    /// nothing did (a link made stale by nothing recorded).
    pub event: Option<usize>,
    /// The domain that guarded the old link: retired for necessary and collateral relinks,
    /// still live for a missed one (which is why the stale link kept dispatching).
    pub domain: DomainKey,
    pub verdict: Verdict,
    pub old_target: Target,
    pub new_target: Target,
    /// On a polymorphic site: the receiver class whose PIC entry this was.
    pub receiver: Option<ClassId>,
}

/// Names for the ids in records: implemented by a running simulation and by a report.
pub trait Naming {
    fn site_name(&self, s: SiteId) -> &str;
    fn class_name(&self, c: ClassId) -> &str;
    fn category_name(&self, c: usize) -> &str;
    /// The label of event `e`, if it is among the recorded events (the first few thousand).
    fn event_label(&self, e: usize) -> Option<&str>;

    /// `global`, `pending:A`, `class:A`, `site:a`.
    fn domain_label(&self, k: DomainKey) -> String {
        match k {
            DomainKey::Global => "global".into(),
            DomainKey::Pending(c) => format!("pending:{}", self.class_name(c as usize)),
            DomainKey::Class(c) => format!("class:{}", self.class_name(c as usize)),
            DomainKey::Site(s) => format!("site:{}", self.site_name(s as usize)),
        }
    }

    /// `A#v2`, `category Hot`, ... (what the UI and exports show for a dispatch target).
    fn target_text(&self, t: &Target) -> String {
        match t {
            Target::Method { owner, version } => format!("{}#v{version}", self.class_name(*owner as usize)),
            Target::Category { category } => format!("category {}", self.category_name(*category as usize)),
            Target::Dynamic => "invokeMethod (missing-method path)".into(),
            Target::Missing => "MissingMethodException".into(),
        }
    }

    fn relink_text(&self, r: &RelinkRecord) -> RelinkText {
        RelinkText {
            site: self.site_name(r.site).to_string(),
            phase: r.phase,
            op: r.op,
            t_ms: r.t_ms,
            event: r.event,
            event_label: r.event.and_then(|e| self.event_label(e)).map(str::to_string),
            domain: self.domain_label(r.domain),
            verdict: r.verdict,
            old_target: self.target_text(&r.old_target),
            new_target: self.target_text(&r.new_target),
            receiver: r.receiver.map(|c| self.class_name(c).to_string()),
        }
    }

    fn deopt_text(&self, d: &DeoptRecord) -> DeoptText {
        DeoptText {
            unit: loop_name(d.unit),
            event: d.event,
            event_label: self.event_label(d.event).map(str::to_string),
            site: self.site_name(d.site).to_string(),
            domain: self.domain_label(d.domain),
            at_iteration: d.at_iteration,
            recompiled_after: d.recompiled_after,
            past_cutoff: d.past_cutoff,
        }
    }

    fn event_text(&self, e: &EventRecord) -> EventText {
        e.map(|&s| self.site_name(s).to_string(), |&k| self.domain_label(k))
    }
}

/// A [`DeoptRecord`] as text (the why panel, exports, JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeoptText {
    pub unit: String,
    pub event: usize,
    pub event_label: Option<String>,
    pub site: String,
    pub domain: String,
    pub at_iteration: u64,
    pub recompiled_after: Option<u64>,
    pub past_cutoff: bool,
}

/// A [`RelinkRecord`] as text (the why panel, exports, JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RelinkText {
    pub site: String,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
    pub event: Option<usize>,
    pub event_label: Option<String>,
    pub domain: String,
    pub verdict: Verdict,
    pub old_target: String,
    pub new_target: String,
    /// On a polymorphic site: the receiver class whose PIC entry was invalidated (or stale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq)]
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
    pub units: Vec<UnitReport>,
    /// Deoptimizations of loop code, in order (bounded; the unit stats count every one).
    pub deopts: Vec<DeoptRecord>,
    /// Class and category names as the run ended (for [`Naming`]; the records serialize as
    /// text, so these are not serialized themselves).
    pub names: WorldNames,
}

/// The class and category names a report's records refer to by id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorldNames {
    pub classes: Vec<String>,
    pub categories: Vec<String>,
}

impl Naming for RunReport {
    fn site_name(&self, s: SiteId) -> &str {
        &self.sites[s].name
    }
    fn class_name(&self, c: ClassId) -> &str {
        &self.names.classes[c]
    }
    fn category_name(&self, c: usize) -> &str {
        &self.names.categories[c]
    }
    fn event_label(&self, e: usize) -> Option<&str> {
        // Records are kept in id order from 0 (then capped), so an id is its index.
        self.events.get(e).map(|r| r.label.as_str())
    }
}

/// The records serialize as text ([`Naming`]), so exports read as they always did.
impl Serialize for RunReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct AsText<'a> {
            scenario: &'a str,
            policy: Policy,
            ops_per_ms: f64,
            ms_per_op: f64,
            op_ms: &'a [f64],
            iterations_per_op: u64,
            virtual_ms: f64,
            sites: &'a [SiteReport],
            events: Vec<EventText>,
            events_total: usize,
            relinks: Vec<RelinkText>,
            relink_totals: RelinkTotals,
            timeline: &'a [TimelinePoint],
            units: &'a [UnitReport],
            deopts: Vec<DeoptText>,
        }
        AsText {
            scenario: &self.scenario,
            policy: self.policy,
            ops_per_ms: self.ops_per_ms,
            ms_per_op: self.ms_per_op,
            op_ms: &self.op_ms,
            iterations_per_op: self.iterations_per_op,
            virtual_ms: self.virtual_ms,
            sites: &self.sites,
            events: self.events.iter().map(|e| self.event_text(e)).collect(),
            events_total: self.events_total,
            relinks: self.relinks.iter().map(|r| self.relink_text(r)).collect(),
            relink_totals: self.relink_totals,
            timeline: &self.timeline,
            units: &self.units,
            deopts: self.deopts.iter().map(|d| self.deopt_text(d)).collect(),
        }
        .serialize(serializer)
    }
}

impl RunReport {
    /// Relinks (necessary + collateral) per receiver class, sorted by class name (a polymorphic
    /// site's per receiver).
    pub fn relinks_by_class(&self) -> Vec<(String, u64)> {
        let mut map = std::collections::BTreeMap::new();
        for s in &self.sites {
            if s.receivers.is_empty() {
                *map.entry(s.class.clone()).or_insert(0) += s.stats.relinks();
            }
            // A polymorphic site's relinks go to the receivers whose entries were relinked.
            for r in &s.receivers {
                *map.entry(r.class.clone()).or_insert(0) += r.relinks;
            }
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

/// A compilation unit as reported: its name, tier at the end, and counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitReport {
    pub name: String,
    /// The loop this unit is the method of (`None`: event code).
    #[serde(skip)]
    pub loop_index: Option<usize>,
    pub tier: Tier,
    /// C2 gave up on it (`PerMethodRecompilationCutoff`): it stays in C1.
    pub past_cutoff: bool,
    pub stats: UnitStats,
}

/// One deoptimization of a loop's code by an event, and when the loop was back in C2. Typed
/// like the relink records (text through [`Naming::deopt_text`]): the chain
/// event -> domain -> site -> loop reads off it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeoptRecord {
    /// The loop whose compiled method was deoptimized (its index in the program, from 0).
    pub unit: usize,
    /// The event whose retirement broke the dependency.
    pub event: usize,
    /// The site whose retired fast chain the loop's code had inlined (the first, in site order).
    pub site: SiteId,
    /// The domain that guarded that chain (the one the event retired).
    pub domain: DomainKey,
    /// Loop iterations (of the whole run) when it happened.
    pub at_iteration: u64,
    /// Iterations the unit ran below C2 before it was recompiled there (`None`: not yet, or never).
    pub recompiled_after: Option<u64>,
    /// This deoptimization passed `PerMethodRecompilationCutoff`: no more C2 for the unit.
    pub past_cutoff: bool,
}

/// How a loop's unit is named in reports and the UI (`loop 1` is the program's first loop).
pub fn loop_name(l: usize) -> String {
    format!("loop {}", l + 1)
}
