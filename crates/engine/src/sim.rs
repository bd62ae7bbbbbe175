//! The simulator: runs a scenario's program under one policy in virtual time.
//!
//! Execution is event-driven and resumable. A `step` either fires the events due at the current
//! loop iteration or runs every site of the loop up to the next event boundary in closed form,
//! so a steady loop of 10^9 iterations costs the same as one of 10^5.

use std::collections::BTreeMap;

use crate::dsl::event_text;
use crate::model::{Event, MetaKind, Scenario, Stmt};
use crate::params::{BulkScan, Params};
use crate::policy::{ChangeKind, DomainKey, Policy};
use crate::report::*;
use crate::validate::{validate, ScenarioError};
use crate::world::{ClassId, Target, World};

/// Upper bound on simulated work units (events + segments x sites), so no input can hang.
pub const MAX_WORK: u64 = 50_000_000;
const MAX_RELINK_RECORDS: usize = 20_000;
const MAX_EVENT_RECORDS: usize = 5_000;
const TIMELINE_BUCKETS: u64 = 400;

#[derive(Clone, Debug)]
struct DomainState {
    epoch: u32,
    retired_by: Option<usize>,
}

#[derive(Clone, Debug)]
struct Link {
    target: Target,
    domain: DomainKey,
    epoch: u32,
    serial: u64,
}

#[derive(Clone, Debug)]
struct PicEntry {
    receiver: ClassId,
    link: Link,
    /// `false` = the "uncacheable" sentinel: every hit re-selects.
    cacheable: bool,
    /// Consecutive-hit count (lives on the wrapper, as in Groovy).
    hits: u64,
}

#[derive(Clone, Debug)]
enum Mode {
    Default,
    Fast(Link),
}

#[derive(Clone, Debug)]
struct SiteRt {
    receiver: ClassId,
    method: String,
    mode: Mode,
    /// LRU order: most recently used last.
    pic: Vec<PicEntry>,
    latest_serial: Option<u64>,
    fallback_count: u64,
    rounds: u32,
    given_up: bool,
    true_target: Target,
    true_cacheable: bool,
    true_changed_by: Option<usize>,
    last_relink_recorded: Option<(DomainKey, u32)>,
    last_missed_recorded: Option<(u64, Option<usize>)>,
    stats: SiteStats,
}

/// One frame of the resumable program counter.
#[derive(Clone, Debug)]
enum Frame {
    Block {
        stmts: Vec<Stmt>,
        idx: usize,
    },
    Repeat {
        body: Vec<Stmt>,
        remaining: u64,
    },
    Leave {
        category: usize,
    },
    /// The untimed `before_op` block is done: the op's clock starts here.
    StartOpClock,
    Loop(LoopFrame),
}

#[derive(Clone, Debug)]
struct LoopFrame {
    count: u64,
    i: u64,
    fired_at_i: bool,
    calls: Vec<usize>,
    every: Vec<(u64, u64, Vec<Event>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Setup,
    Warmup,
    Measure,
    Done,
}

/// What one `step` did.
#[derive(Clone, Debug, PartialEq)]
pub enum StepOutcome {
    /// Fired these event ids.
    Events(Vec<usize>),
    /// Ran a loop segment of this many iterations.
    Segment(u64),
    /// Structural progress (entered a block, finished an op).
    Progress,
    Finished,
}

pub struct Simulation {
    scenario: Scenario,
    policy: Policy,
    params: Params,
    world: World,
    domains: BTreeMap<DomainKey, DomainState>,
    sites: Vec<SiteRt>,
    site_names: Vec<String>,
    serial: u64,
    now_ns: f64,
    phase: Phase,
    op_index: u32,
    op_started_ns: f64,
    op_ms: Vec<f64>,
    stack: Vec<Frame>,
    iterations: u64,
    iterations_per_op: u64,
    events: Vec<EventRecord>,
    events_total: usize,
    relinks: Vec<RelinkRecord>,
    relinks_total: [u64; 3],
    timeline: Timeline,
}

impl Simulation {
    pub fn new(scenario: &Scenario, policy: Policy, params: &Params) -> Result<Simulation, ScenarioError> {
        validate(scenario)?;
        let work = estimate_work(scenario);
        if work > MAX_WORK {
            return Err(ScenarioError::at_path(
                "op",
                format!("this scenario needs about {work} simulation steps; the limit is {MAX_WORK} (fewer events, ops or sites)"),
            ));
        }
        let world = World::new(scenario);
        let mut site_names = Vec::new();
        let mut sites = Vec::new();
        for s in &scenario.sites {
            let receiver = world.class_id(&s.class).expect("validated");
            site_names.push(s.name.clone());
            sites.push(SiteRt {
                receiver,
                method: s.method.clone(),
                mode: Mode::Default,
                pic: Vec::new(),
                latest_serial: None,
                fallback_count: 0,
                rounds: 0,
                given_up: false,
                true_target: world.resolve(receiver, &s.method),
                true_cacheable: true,
                true_changed_by: None,
                last_relink_recorded: None,
                last_missed_recorded: None,
                stats: SiteStats::default(),
            });
        }
        let iterations_per_op = iterations_in(&scenario.op);
        let total_ops = (scenario.measure.warmup_ops + scenario.measure.ops) as u64;
        let bucket = ((iterations_per_op * total_ops) / TIMELINE_BUCKETS).max(1);
        let mut sim = Simulation {
            scenario: scenario.clone(),
            policy,
            params: params.clone(),
            world,
            domains: BTreeMap::new(),
            sites,
            site_names,
            serial: 0,
            now_ns: 0.0,
            phase: Phase::Setup,
            op_index: 0,
            op_started_ns: 0.0,
            op_ms: Vec::new(),
            stack: Vec::new(),
            iterations: 0,
            iterations_per_op,
            events: Vec::new(),
            events_total: 0,
            relinks: Vec::new(),
            relinks_total: [0; 3],
            timeline: Timeline::new(bucket, iterations_per_op),
        };
        sim.refresh_truth(None);
        sim.stack.push(Frame::Block { stmts: scenario.setup.clone(), idx: 0 });
        Ok(sim)
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn now_ms(&self) -> f64 {
        self.now_ns / 1e6
    }

    /// Run to the end and report.
    pub fn run(mut self) -> RunReport {
        while self.step() != StepOutcome::Finished {}
        self.report()
    }

    /// Advance by one unit of work.
    pub fn step(&mut self) -> StepOutcome {
        let Some(frame) = self.stack.last_mut() else {
            return self.next_op();
        };
        match frame {
            Frame::Block { stmts, idx } => {
                if *idx >= stmts.len() {
                    self.stack.pop();
                    return StepOutcome::Progress;
                }
                let st = stmts[*idx].clone();
                *idx += 1;
                self.enter(st)
            }
            Frame::Repeat { body, remaining } => {
                if *remaining == 0 {
                    self.stack.pop();
                    return StepOutcome::Progress;
                }
                *remaining -= 1;
                let stmts = body.clone();
                self.stack.push(Frame::Block { stmts, idx: 0 });
                StepOutcome::Progress
            }
            Frame::StartOpClock => {
                self.stack.pop();
                self.op_started_ns = self.now_ns;
                StepOutcome::Progress
            }
            Frame::Leave { category } => {
                let category = *category;
                self.stack.pop();
                let id = self.fire_category(category, false);
                StepOutcome::Events(vec![id])
            }
            Frame::Loop(lf) => {
                if lf.i >= lf.count {
                    self.stack.pop();
                    return StepOutcome::Progress;
                }
                if !lf.fired_at_i {
                    lf.fired_at_i = true;
                    let i = lf.i;
                    let due: Vec<Event> = lf.every.iter().filter(|(p, o, _)| i % p == *o).flat_map(|(_, _, evs)| evs.iter().cloned()).collect();
                    if due.is_empty() {
                        return self.step();
                    }
                    let ids = due.iter().map(|e| self.fire(e)).collect();
                    return StepOutcome::Events(ids);
                }
                let next_boundary = lf
                    .every
                    .iter()
                    .map(|(p, o, _)| {
                        let base = lf.i - lf.i % p + o;
                        if base > lf.i {
                            base
                        } else {
                            base.saturating_add(*p)
                        }
                    })
                    .min()
                    .unwrap_or(u64::MAX);
                let end = next_boundary.min(lf.count);
                let n = end - lf.i;
                lf.i = end;
                lf.fired_at_i = false;
                let calls = lf.calls.clone();
                self.run_segment(&calls, n);
                StepOutcome::Segment(n)
            }
        }
    }

    fn enter(&mut self, st: Stmt) -> StepOutcome {
        match st {
            Stmt::Event(ev) => StepOutcome::Events(vec![self.fire(&ev)]),
            Stmt::Repeat { count, body } => {
                self.stack.push(Frame::Repeat { body, remaining: count });
                StepOutcome::Progress
            }
            Stmt::Use { category, body } => {
                let cat = self.world.category_id(&category).expect("validated");
                let id = self.fire_category(cat, true);
                self.stack.push(Frame::Leave { category: cat });
                self.stack.push(Frame::Block { stmts: body, idx: 0 });
                StepOutcome::Events(vec![id])
            }
            Stmt::Loop { count, body } => {
                let mut calls = Vec::new();
                let mut every = Vec::new();
                for b in body {
                    match b {
                        Stmt::Call { site } => calls.push(self.site_names.iter().position(|s| *s == site).expect("validated")),
                        Stmt::Every { period, offset, body } => every.push((period, offset, events_of(&body))),
                        Stmt::Event(ev) => every.push((1, 0, vec![ev])),
                        _ => {}
                    }
                }
                self.stack.push(Frame::Loop(LoopFrame { count, i: 0, fired_at_i: false, calls, every }));
                StepOutcome::Progress
            }
            // Validation keeps these inside loops.
            Stmt::Call { .. } | Stmt::Every { .. } => StepOutcome::Progress,
        }
    }

    fn next_op(&mut self) -> StepOutcome {
        if self.phase != Phase::Setup {
            let ms = (self.now_ns - self.op_started_ns) / 1e6;
            if self.phase == Phase::Measure {
                self.op_ms.push(ms);
            }
            self.op_index += 1;
        }
        let m = self.scenario.measure;
        self.phase = if self.op_index < m.warmup_ops {
            Phase::Warmup
        } else if self.op_index < m.warmup_ops + m.ops {
            Phase::Measure
        } else {
            self.phase = Phase::Done;
            return StepOutcome::Finished;
        };
        self.op_started_ns = self.now_ns;
        self.stack.push(Frame::Block { stmts: self.scenario.op.clone(), idx: 0 });
        self.stack.push(Frame::StartOpClock);
        self.stack.push(Frame::Block { stmts: self.scenario.before_op.clone(), idx: 0 });
        StepOutcome::Progress
    }

    /// Inject an event now (from the UI, between steps).
    pub fn inject(&mut self, ev: &Event) -> Result<usize, ScenarioError> {
        if let Event::Load { class, parent, methods } = ev {
            if self.world.class_id(class).is_some_and(|c| self.world.classes[c].loaded) {
                return Err(ScenarioError::unlocated(format!("class `{class}` is already loaded")));
            }
            let parent_id = match parent {
                Some(p) => Some(
                    self.world
                        .class_id(p)
                        .filter(|&c| self.world.classes[c].loaded)
                        .ok_or_else(|| ScenarioError::unlocated(format!("unknown parent class `{p}`")))?,
                ),
                None => None,
            };
            if self.world.classes.len() >= crate::validate::MAX_CLASSES {
                return Err(ScenarioError::unlocated("too many classes"));
            }
            self.world.load_class(class, parent_id, methods);
            let label = event_text(ev);
            return Ok(self.finish_event(label, None, self.params.class_load_ns));
        }
        let class = match ev {
            Event::Write { class, .. } | Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } => Some(class),
            _ => None,
        };
        if let Some(c) = class {
            match self.world.class_id(c) {
                Some(id) if self.world.classes[id].loaded => {}
                _ => return Err(ScenarioError::unlocated(format!("unknown or not yet loaded class `{c}`"))),
            }
        }
        Ok(self.fire(ev))
    }

    /// Enter (`use`) or leave a category by hand, between steps. Both are bulk events.
    pub fn inject_category(&mut self, name: &str, enter: bool) -> Result<usize, ScenarioError> {
        let cat = self.world.category_id(name).ok_or_else(|| ScenarioError::unlocated(format!("unknown category `{name}`")))?;
        if !enter && !self.world.active_categories.contains(&cat) {
            return Err(ScenarioError::unlocated(format!("category `{name}` is not active")));
        }
        Ok(self.fire_category(cat, enter))
    }

    /// Categories active now, innermost last.
    pub fn active_categories(&self) -> Vec<String> {
        self.world.active_categories.iter().map(|&c| self.world.category_names[c].clone()).collect()
    }

    /// Whether `class` exists and is loaded now (program-loaded classes start unloaded).
    pub fn is_loaded(&self, class: &str) -> bool {
        self.world.class_id(class).is_some_and(|c| self.world.classes[c].loaded)
    }

    /// Events fired so far (the records keep only the first few thousand).
    pub fn events_total(&self) -> usize {
        self.events_total
    }

    // ----- events -------------------------------------------------------------------------

    fn domain_for(&self, site: usize) -> DomainKey {
        match self.policy {
            Policy::Global => DomainKey::Global,
            Policy::Ideal => DomainKey::Site(site),
            _ => {
                let r = self.sites[site].receiver;
                if self.world.classes[r].meta == MetaKind::None {
                    DomainKey::Pending(r)
                } else {
                    DomainKey::Class(r)
                }
            }
        }
    }

    /// Class-scoped retirement: the class (pending or live domain) and, with fan-out, subclasses.
    fn class_scope(&self, c: ClassId, change: ChangeKind, first_install: bool) -> Vec<DomainKey> {
        let mut out = vec![if first_install { DomainKey::Pending(c) } else { DomainKey::Class(c) }];
        if self.policy.fans_out(change) {
            for d in self.world.with_descendants(c) {
                if d != c {
                    out.push(DomainKey::Pending(d));
                    out.push(DomainKey::Class(d));
                }
            }
        }
        out
    }

    fn bulk_scope(&self) -> Vec<DomainKey> {
        self.domains.keys().copied().filter(|k| matches!(k, DomainKey::Pending(_) | DomainKey::Class(_))).collect()
    }

    fn fire_category(&mut self, cat: usize, enter: bool) -> usize {
        let label = format!("{} {}", if enter { "enter" } else { "leave" }, self.world.category_names[cat]);
        let mut cost = self.params.category_switch_ns;
        if enter {
            self.world.active_categories.push(cat);
        } else if let Some(pos) = self.world.active_categories.iter().rposition(|&c| c == cat) {
            self.world.active_categories.remove(pos);
        }
        let scope = self.bulk_scope();
        cost += self.bulk_scan_cost();
        self.finish_event(label, Some(scope), cost)
    }

    fn bulk_scan_cost(&self) -> f64 {
        let visited = match self.params.bulk_scan {
            BulkScan::AllLoaded => self.params.loaded_classes as f64,
            BulkScan::LiveOnly => self.bulk_scope().len() as f64,
        };
        visited * self.params.bulk_scan_per_class_ns
    }

    /// Apply an event to the world, retire domains per policy, record it. Returns its id.
    fn fire(&mut self, ev: &Event) -> usize {
        let p = self.params.clone();
        let label = event_text(ev);
        // `None` = the event retires nothing (e.g. removing a metaclass that is not there).
        let (scope, cost): (Option<Vec<DomainKey>>, f64) = match ev {
            Event::Write { class, method } => {
                let c = self.world.class_id(class).expect("validated");
                let mut scope = Vec::new();
                let mut cost = p.metaclass_write_ns;
                let old = self.world.classes[c].meta;
                if old != MetaKind::Expando {
                    // `C.metaClass` hands out a fresh ExpandoMetaClass first.
                    cost += p.metaclass_install_ns;
                    scope.extend(self.replace_scope(c, old, MetaKind::Expando));
                    self.install(c, MetaKind::Expando);
                }
                // Every closure installed is a new method identity.
                self.serial += 1;
                let version = u32::try_from(self.serial % u32::MAX as u64).unwrap_or(1).max(1);
                self.world.classes[c].own.insert(method.clone(), version);
                scope.extend(self.class_scope(c, ChangeKind::Expando, false));
                (Some(scope), cost)
            }
            Event::Replace { class, kind } => {
                let c = self.world.class_id(class).expect("validated");
                let old = self.world.classes[c].meta;
                let scope = self.replace_scope(c, old, *kind);
                self.install(c, *kind);
                (Some(scope), p.metaclass_install_ns)
            }
            Event::Remove { class } => {
                let c = self.world.class_id(class).expect("validated");
                let old = self.world.classes[c].meta;
                if old == MetaKind::None {
                    (None, 0.0)
                } else {
                    let scope = if old.is_stock_family() { self.class_scope(c, ChangeKind::Stock, false) } else { self.bulk_scope() };
                    self.install(c, MetaKind::None);
                    // The registry removal itself is a map update; the retire and relinks are the cost.
                    (Some(scope), 0.0)
                }
            }
            Event::PerInstance { class } => {
                let c = self.world.class_id(class).expect("validated");
                self.world.classes[c].per_instance = true;
                let first = self.world.classes[c].meta == MetaKind::None;
                (Some(self.class_scope(c, ChangeKind::Stock, first)), p.per_instance_ns)
            }
            Event::Load { class, .. } => {
                let c = self.world.class_id(class).expect("validated");
                if self.world.classes[c].loaded {
                    (None, 0.0)
                } else {
                    self.world.load_class(class, None, &[]);
                    (None, p.class_load_ns)
                }
            }
            Event::InvalidateAll | Event::Unattributed => (Some(self.bulk_scope()), self.bulk_scan_cost()),
        };
        self.finish_event(label, scope, cost)
    }

    /// Domains retired by replacing `old` with `new` on class `c` (Groovy 12191's matrix).
    fn replace_scope(&self, c: ClassId, old: MetaKind, new: MetaKind) -> Vec<DomainKey> {
        if !old.is_stock_family() || !new.is_stock_family() {
            return self.bulk_scope();
        }
        let change = if new == MetaKind::Expando { ChangeKind::Expando } else { ChangeKind::Stock };
        self.class_scope(c, change, old == MetaKind::None)
    }

    /// A new metaclass object for `c`: expando-added methods are gone, the snapshot is retaken.
    fn install(&mut self, c: ClassId, kind: MetaKind) {
        let cls = &mut self.world.classes[c];
        cls.meta = kind;
        // Expando-added methods go with the old metaclass; declared ones are the compiled
        // methods again (version 0).
        cls.own = cls.declared.iter().map(|m| (m.clone(), 0)).collect();
        self.world.rebuild_view(c);
    }

    fn finish_event(&mut self, label: String, scope: Option<Vec<DomainKey>>, cost: f64) -> usize {
        let id = self.events_total;
        self.events_total += 1;
        let changed = self.refresh_truth(Some(id));
        let mut retired: Vec<DomainKey> = match (self.policy, &scope) {
            (_, None) => Vec::new(),
            (Policy::Global, Some(_)) => vec![DomainKey::Global],
            (Policy::Ideal, Some(_)) => changed.iter().map(|&s| DomainKey::Site(s)).collect(),
            (_, Some(s)) => s.clone(),
        };
        if self.policy == Policy::Ideal && scope.is_none() {
            retired = changed.iter().map(|&s| DomainKey::Site(s)).collect();
        }
        retired.sort();
        retired.dedup();
        let mut live_retired = 0;
        for k in &retired {
            if let Some(d) = self.domains.get_mut(k) {
                d.epoch += 1;
                d.retired_by = Some(id);
                live_retired += 1;
            }
        }
        let cost = cost + live_retired as f64 * self.params.domain_retire_ns;
        self.advance(cost, 0);
        let sites_hit: Vec<usize> = (0..self.sites.len()).filter(|&s| self.site_guarded_by(s, &retired)).collect();
        if self.events.len() < MAX_EVENT_RECORDS {
            self.events.push(EventRecord {
                id,
                phase: self.phase,
                op: self.op_index,
                t_ms: self.now_ns / 1e6,
                label,
                domains_retired: live_retired,
                domains: retired.iter().take(12).map(|k| self.domain_label(*k)).collect(),
                sites_hit: sites_hit.iter().map(|&s| self.site_names[s].clone()).collect(),
                targets_changed: changed.iter().map(|&s| self.site_names[s].clone()).collect(),
            });
        }
        self.timeline.mark(self.iterations, id);
        id
    }

    fn site_guarded_by(&self, s: usize, retired: &[DomainKey]) -> bool {
        let site = &self.sites[s];
        let fast = matches!(&site.mode, Mode::Fast(l) if retired.contains(&l.domain));
        fast || site.pic.iter().any(|e| retired.contains(&e.link.domain))
    }

    fn domain_label(&self, k: DomainKey) -> String {
        match k {
            DomainKey::Global => "global".into(),
            DomainKey::Pending(c) => format!("pending:{}", self.world.classes[c].name),
            DomainKey::Class(c) => format!("class:{}", self.world.classes[c].name),
            DomainKey::Site(s) => format!("site:{}", self.site_names[s]),
        }
    }

    /// Re-resolve every site's true target; returns sites whose dispatch changed.
    fn refresh_truth(&mut self, cause: Option<usize>) -> Vec<usize> {
        let mut changed = Vec::new();
        for (i, site) in self.sites.iter_mut().enumerate() {
            let t = self.world.resolve(site.receiver, &site.method);
            let c = self.world.cacheable(site.receiver, &t);
            if t != site.true_target || c != site.true_cacheable {
                changed.push(i);
                site.true_changed_by = cause;
            }
            site.true_target = t;
            site.true_cacheable = c;
        }
        changed
    }

    // ----- call sites ---------------------------------------------------------------------

    fn link_valid(&self, l: &Link) -> bool {
        self.domains.get(&l.domain).map(|d| d.epoch == l.epoch).unwrap_or(false)
    }

    /// A full selection: the fresh link for the site under the current world and policy.
    fn select(&mut self, s: usize) -> (Link, bool) {
        let domain = self.domain_for(s);
        let epoch = self.domains.entry(domain).or_insert(DomainState { epoch: 0, retired_by: None }).epoch;
        self.serial += 1;
        let site = &self.sites[s];
        (Link { target: site.true_target.clone(), domain, epoch, serial: self.serial }, site.true_cacheable)
    }

    /// Selection replacing a link whose guard failed: record the relink once per retirement.
    fn relink_from(&mut self, s: usize, old: &Link) {
        let key = (old.domain, self.domains.get(&old.domain).map(|d| d.epoch).unwrap_or(0));
        if self.sites[s].last_relink_recorded == Some(key) {
            return;
        }
        self.sites[s].last_relink_recorded = Some(key);
        let verdict = if old.target == self.sites[s].true_target { Verdict::Collateral } else { Verdict::Necessary };
        let event = self.domains.get(&old.domain).and_then(|d| d.retired_by);
        self.record_relink(s, verdict, event, old.domain, &old.target);
    }

    fn record_relink(&mut self, s: usize, verdict: Verdict, event: Option<usize>, domain: DomainKey, old: &Target) {
        let site = &mut self.sites[s];
        match verdict {
            Verdict::Necessary => site.stats.necessary += 1,
            Verdict::Collateral => site.stats.collateral += 1,
            Verdict::Missed => site.stats.missed += 1,
        }
        self.relinks_total[verdict as usize] += 1;
        let mut counts = [0u64; 3];
        counts[verdict as usize] = 1;
        self.timeline.add(self.iterations, 0.0, 0, counts);
        if self.relinks.len() < MAX_RELINK_RECORDS {
            let new = self.world.describe(&self.sites[s].true_target);
            self.relinks.push(RelinkRecord {
                site: self.site_names[s].clone(),
                phase: self.phase,
                op: self.op_index,
                t_ms: self.now_ns / 1e6,
                event,
                // Records are kept in id order from 0 (then capped), so an id is its index.
                event_label: event.and_then(|e| self.events.get(e)).map(|r| r.label.clone()),
                domain: self.domain_label(domain),
                verdict,
                old_target: self.world.describe(old),
                new_target: new,
            });
        }
    }

    /// Calls served by a valid cached link: count stale dispatches the oracle sees.
    fn served(&mut self, s: usize, link: &Link, calls: u64) {
        let site = &self.sites[s];
        if link.target == site.true_target {
            return;
        }
        self.sites[s].stats.stale_calls += calls;
        let cause = self.sites[s].true_changed_by;
        if self.sites[s].last_missed_recorded != Some((link.serial, cause)) {
            self.sites[s].last_missed_recorded = Some((link.serial, cause));
            self.record_relink(s, Verdict::Missed, cause, link.domain, &link.target);
        }
    }

    fn pic_put(&mut self, s: usize, link: Link, cacheable: bool) {
        let cap = self.params.pic_capacity;
        let site = &mut self.sites[s];
        let receiver = site.receiver;
        site.pic.retain(|e| e.receiver != receiver);
        if cap == 0 {
            return;
        }
        site.pic.push(PicEntry { receiver, link, cacheable, hits: 0 });
        while site.pic.len() > cap {
            site.pic.remove(0);
        }
    }

    /// Run `n` consecutive calls of site `s` with the world unchanged. Returns virtual ns.
    fn run_calls(&mut self, s: usize, n: u64) -> f64 {
        let p = self.params.clone();
        let mut left = n;
        let mut cost = 0.0;
        while left > 0 {
            match self.sites[s].mode.clone() {
                Mode::Fast(link) => {
                    if self.link_valid(&link) {
                        cost += left as f64 * p.fast_call_ns;
                        self.sites[s].stats.fast_calls += left;
                        self.served(s, &link, left);
                        left = 0;
                    } else {
                        // Guard failure: every call re-selects until the fallback threshold resets
                        // the target to default; the stale chain stays installed meanwhile.
                        self.relink_from(s, &link);
                        let site = &mut self.sites[s];
                        let until_reset = (p.fallback_threshold + 1).saturating_sub(site.fallback_count).max(1);
                        let k = left.min(until_reset);
                        site.fallback_count += k;
                        site.stats.selections += k;
                        site.stats.fallback_calls += k;
                        cost += k as f64 * p.selection_ns;
                        left -= k;
                        if site.fallback_count > p.fallback_threshold {
                            site.mode = Mode::Default;
                            site.fallback_count = 0;
                            site.rounds += 1;
                            let (fresh, cacheable) = self.select(s);
                            self.pic_put(s, fresh, cacheable);
                        }
                    }
                }
                Mode::Default => cost += self.run_default(s, &mut left, &p),
            }
        }
        cost
    }

    /// Calls on the default target (Groovy's `fromCacheHandle`); consumes at least one call.
    fn run_default(&mut self, s: usize, left: &mut u64, p: &Params) -> f64 {
        let receiver = self.sites[s].receiver;
        let Some(pos) = self.sites[s].pic.iter().position(|e| e.receiver == receiver) else {
            // PIC miss: select, store (or store the uncacheable sentinel), invoke.
            let (fresh, cacheable) = self.select(s);
            let serial = fresh.serial;
            self.pic_put(s, fresh, cacheable);
            let site = &mut self.sites[s];
            site.latest_serial = Some(serial);
            site.stats.selections += 1;
            site.stats.pic_calls += 1;
            *left -= 1;
            return p.selection_ns + p.pic_call_ns;
        };
        // Touch for LRU.
        let entry = self.sites[s].pic.remove(pos);
        self.sites[s].pic.push(entry);
        let idx = self.sites[s].pic.len() - 1;
        let entry = self.sites[s].pic[idx].clone();
        let valid = self.link_valid(&entry.link);
        if !entry.cacheable {
            if valid {
                let site = &mut self.sites[s];
                let k = *left;
                site.stats.selections += k;
                site.stats.pic_calls += k;
                *left = 0;
                return k as f64 * (p.pic_call_ns + p.selection_ns);
            }
            // A stale sentinel is a miss.
            self.sites[s].pic.pop();
            return self.run_default(s, left, p);
        }
        let site = &mut self.sites[s];
        if site.latest_serial != Some(entry.link.serial) {
            site.latest_serial = Some(entry.link.serial);
            site.pic[idx].hits = 0;
            if valid {
                site.stats.pic_calls += 1;
                *left -= 1;
                self.served(s, &entry.link, 1);
                return p.pic_call_ns;
            }
        } else if valid {
            // Hits until promotion (consecutive-hit count passes the threshold).
            let hits = site.pic[idx].hits;
            let need = (p.optimize_threshold + 1).saturating_sub(hits).max(1);
            let k = (*left).min(need);
            site.stats.pic_calls += k;
            *left -= k;
            let promoted = hits + k > p.optimize_threshold;
            site.pic[idx].hits = if promoted { 0 } else { hits + k };
            if promoted {
                if site.rounds > p.fallback_cutoff {
                    // Give up for good: the default target keeps serving from the PIC.
                    site.given_up = true;
                    site.stats.pic_calls += *left;
                    let rest = *left;
                    *left = 0;
                    self.served(s, &entry.link, k + rest);
                    return (k + rest) as f64 * p.pic_call_ns;
                }
                site.mode = Mode::Fast(entry.link.clone());
            }
            self.served(s, &entry.link, k);
            return k as f64 * p.pic_call_ns;
        } else {
            site.pic[idx].hits += 1;
        }
        // A stale PIC entry: promotion may still install its (stale) chain, then the guard fails.
        let site = &mut self.sites[s];
        if site.pic[idx].hits > p.optimize_threshold {
            site.pic[idx].hits = 0;
            if site.rounds > p.fallback_cutoff {
                site.given_up = true;
            } else {
                site.mode = Mode::Fast(entry.link.clone());
            }
        }
        self.relink_from(s, &entry.link);
        let site = &mut self.sites[s];
        site.fallback_count += 1;
        site.stats.selections += 1;
        site.stats.fallback_calls += 1;
        site.stats.pic_calls += 1;
        *left -= 1;
        if site.fallback_count > p.fallback_threshold && matches!(site.mode, Mode::Fast(_)) {
            site.mode = Mode::Default;
            site.fallback_count = 0;
            site.rounds += 1;
        }
        if matches!(self.sites[s].mode, Mode::Default) {
            let (fresh, cacheable) = self.select(s);
            self.pic_put(s, fresh, cacheable);
        }
        p.pic_call_ns + p.selection_ns
    }

    fn run_segment(&mut self, calls: &[usize], n: u64) {
        let mut cost = 0.0;
        for &s in calls {
            if !self.world.classes[self.sites[s].receiver].loaded {
                // Calling a class that is not loaded yet: NoClassDefFoundError each call, costed as a selection.
                cost += n as f64 * self.params.selection_ns;
                continue;
            }
            cost += self.run_calls(s, n);
        }
        self.advance(cost, n);
    }

    fn advance(&mut self, cost: f64, iterations: u64) {
        self.timeline.add(self.iterations, cost, iterations, [0; 3]);
        self.now_ns += cost;
        self.iterations += iterations;
    }

    // ----- reporting ----------------------------------------------------------------------

    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Loop iterations executed so far (warm-up included).
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Per-site outcomes so far (cheap: no log copies).
    pub fn sites_now(&self) -> Vec<SiteReport> {
        (0..self.sites.len()).map(|i| self.site_report(i)).collect()
    }

    /// Event records from index `from` on (records are capped at the first few thousand).
    pub fn events_since(&self, from: usize) -> &[EventRecord] {
        &self.events[from.min(self.events.len())..]
    }

    /// Relink records from index `from` on.
    pub fn relinks_since(&self, from: usize) -> &[RelinkRecord] {
        &self.relinks[from.min(self.relinks.len())..]
    }

    pub fn relink_totals(&self) -> RelinkTotals {
        RelinkTotals { necessary: self.relinks_total[0], collateral: self.relinks_total[1], missed: self.relinks_total[2] }
    }

    pub fn timeline(&self) -> Vec<TimelinePoint> {
        self.timeline.points()
    }

    fn site_report(&self, i: usize) -> SiteReport {
        let st = &self.sites[i];
        SiteReport {
            name: self.site_names[i].clone(),
            class: self.world.classes[st.receiver].name.clone(),
            method: st.method.clone(),
            state: self.site_state(i),
            target: self.world.describe(&st.true_target),
            stats: st.stats.clone(),
        }
    }

    pub fn report(&self) -> RunReport {
        let measured_ms: f64 = self.op_ms.iter().sum();
        let ops = self.op_ms.len() as f64;
        let ms_per_op = if ops > 0.0 { measured_ms / ops } else { f64::NAN };
        let sites = self.sites_now();
        RunReport {
            scenario: self.scenario.name.clone(),
            policy: self.policy,
            ops_per_ms: if ms_per_op > 0.0 { 1.0 / ms_per_op } else { f64::INFINITY },
            ms_per_op,
            op_ms: self.op_ms.clone(),
            iterations_per_op: self.iterations_per_op,
            virtual_ms: self.now_ns / 1e6,
            sites,
            events: self.events.clone(),
            events_total: self.events_total,
            relinks: self.relinks.clone(),
            relink_totals: self.relink_totals(),
            timeline: self.timeline.points(),
        }
    }

    /// The visible state of a site right now (for the blast view).
    pub fn site_state(&self, s: usize) -> SiteState {
        let site = &self.sites[s];
        match &site.mode {
            Mode::Fast(l) if self.link_valid(l) && l.target != site.true_target => SiteState::Stale,
            Mode::Fast(l) if self.link_valid(l) => SiteState::Linked,
            Mode::Fast(_) => SiteState::FallingBack,
            Mode::Default if !site.true_cacheable => SiteState::Uncached,
            Mode::Default if site.given_up => SiteState::GivenUp,
            Mode::Default => SiteState::Pic,
        }
    }

    /// Which sites a class-attributed write on `class` would retire now (the what-if view).
    pub fn what_if_write(&self, class: &str) -> Vec<String> {
        let Some(c) = self.world.class_id(class) else { return Vec::new() };
        let scope = match self.policy {
            Policy::Global => vec![DomainKey::Global],
            Policy::Ideal => return Vec::new(),
            _ => {
                let first = self.world.classes[c].meta == MetaKind::None;
                let mut v = self.class_scope(c, ChangeKind::Expando, false);
                if first {
                    v.extend(self.class_scope(c, ChangeKind::Expando, true));
                }
                v
            }
        };
        (0..self.sites.len()).filter(|&s| self.site_guarded_by(s, &scope)).map(|s| self.site_names[s].clone()).collect()
    }
}

fn events_of(body: &[Stmt]) -> Vec<Event> {
    body.iter().filter_map(|s| if let Stmt::Event(e) = s { Some(e.clone()) } else { None }).collect()
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

/// (events, segments) one run of `block` takes.
fn work_in(block: &[Stmt], sites: u64) -> u64 {
    block
        .iter()
        .map(|s| match s {
            Stmt::Event(_) => 1,
            Stmt::Use { body, .. } => 2u64.saturating_add(work_in(body, sites)),
            Stmt::Repeat { count, body } => count.saturating_mul(work_in(body, sites).max(1)),
            Stmt::Loop { count, body } => {
                let mut boundaries = 1u64;
                let mut events = 0u64;
                for b in body {
                    match b {
                        Stmt::Every { period, body, .. } => {
                            let firings = count / period + 1;
                            boundaries = boundaries.saturating_add(firings);
                            events = events.saturating_add(firings.saturating_mul(body.len() as u64));
                        }
                        Stmt::Event(_) => {
                            boundaries = boundaries.saturating_add(*count);
                            events = events.saturating_add(*count);
                        }
                        _ => {}
                    }
                }
                boundaries.saturating_mul(sites.max(1)).saturating_add(events.saturating_mul(sites.max(1)))
            }
            _ => 0,
        })
        .fold(0u64, |a, b| a.saturating_add(b))
}

/// Estimated simulation steps for the whole run (bounded before anything runs).
pub fn estimate_work(s: &Scenario) -> u64 {
    let sites = s.sites.len() as u64;
    let ops = (s.measure.warmup_ops + s.measure.ops) as u64;
    let per_op = work_in(&s.op, sites).saturating_add(work_in(&s.before_op, sites));
    work_in(&s.setup, sites).saturating_add(ops.saturating_mul(per_op))
}

/// Run a scenario under one policy.
pub fn run(s: &Scenario, policy: Policy, params: &Params) -> Result<RunReport, ScenarioError> {
    Ok(Simulation::new(s, policy, params)?.run())
}
