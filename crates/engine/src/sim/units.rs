//! The simulation's compilation units ([`crate::jit`]): one per `loop` (the benchmark method
//! holding it, whose C2 code inlines the sites it calls), and one per kind of event code (the
//! runtime's code a metaclass write or a category switch runs, compiled as any other code once
//! it has run often enough).
//!
//! The simulation asks three things: what the calls of a loop segment add for the tier the
//! loop's code is in, what an event's code costs while it is cold, and which units a retirement
//! deoptimizes (a C2 unit depends on every site it calls that sits on a linked fast chain).

use crate::jit::{Deopt, Thresholds, Tier, Unit};
use crate::params::Params;
use crate::policy::DomainKey;
use crate::report::{loop_name, DeoptRecord, SiteId, UnitReport};
use crate::scenario::{Event, Scenario};
use crate::world::{ClassId, Target, World};

use super::interned::Groups;
use super::Simulation;

/// Deoptimization records kept (the unit stats count every one).
const MAX_DEOPT_RECORDS: usize = 2_000;

/// The runtime code an event runs, one compilation unit per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventCode {
    Write,
    Replace,
    Remove,
    PerInstance,
    Load,
    Category,
    Bulk,
}

impl EventCode {
    const ALL: [EventCode; 7] =
        [EventCode::Write, EventCode::Replace, EventCode::Remove, EventCode::PerInstance, EventCode::Load, EventCode::Category, EventCode::Bulk];

    pub fn of(ev: &Event) -> EventCode {
        match ev {
            Event::Write { .. } => EventCode::Write,
            Event::Replace { .. } => EventCode::Replace,
            Event::Remove { .. } => EventCode::Remove,
            Event::PerInstance { .. } => EventCode::PerInstance,
            Event::Load { .. } => EventCode::Load,
            Event::InvalidateAll | Event::Unattributed => EventCode::Bulk,
        }
    }

    fn name(self) -> &'static str {
        match self {
            EventCode::Write => "metaclass write code",
            EventCode::Replace => "metaclass install code",
            EventCode::Remove => "metaclass removal code",
            EventCode::PerInstance => "per-instance metaclass code",
            EventCode::Load => "class loading code",
            EventCode::Category => "category switch code",
            EventCode::Bulk => "bulk invalidation code",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Units {
    thresholds: Thresholds,
    loops: Vec<Unit>,
    loop_names: Vec<String>,
    /// The loops whose body calls each site, with how many times per iteration (a site's
    /// dependents among the compiled units), in loop order.
    site_loops: Groups<(u32, u32)>,
    events: Vec<Unit>,
    pub deopts: Vec<DeoptRecord>,
    /// Per loop: the record of its open deoptimization (below C2, not yet recompiled).
    open: Vec<Option<usize>>,
    /// Declared body costs by (class, site method id); empty for most scenarios.
    bodies: Vec<(ClassId, u32, f64)>,
    /// What each site's current target's body costs (empty when no class declares a body
    /// cost: every site's is 0), and per loop the sum over its calls.
    site_body: Vec<f64>,
    loop_body: Vec<f64>,
}

impl Units {
    /// `loops[l]` = the sites loop `l` calls (in call order, maybe repeated), and whether it
    /// calls each of them once.
    pub fn new(params: &Params, loops: &[(&[u32], bool)], site_count: usize, bodies: Vec<(ClassId, u32, f64)>) -> Units {
        let mut times = Vec::new();
        let mut counted = Vec::new();
        let site_loops = Groups::build(site_count, |add| each_site_loop(loops, &mut counted, |s, _| add(s)), |put| each_site_loop(loops, &mut times, put));
        Units {
            thresholds: params.thresholds(),
            loops: vec![Unit::new(); loops.len()],
            loop_names: (0..loops.len()).map(loop_name).collect(),
            site_loops,
            events: vec![Unit::new(); EventCode::ALL.len()],
            deopts: Vec::new(),
            open: vec![None; loops.len()],
            site_body: if bodies.is_empty() { Vec::new() } else { vec![0.0; site_count] },
            bodies,
            loop_body: vec![0.0; loops.len()],
        }
    }

    /// The declared body cost of `method` (a site method id) on `class`.
    fn body(&self, class: ClassId, method: u32) -> f64 {
        self.bodies.iter().find(|&&(c, m, _)| c == class && m == method).map_or(0.0, |&(_, _, ns)| ns)
    }

    /// Site `s` has its target set again every `calls` of its calls (a Groovy 2.4 polymorphic
    /// site relinked at each receiver change, `sim::poly`): the C2 code of every loop calling it
    /// lives that many of the loop's iterations (fewer when the loop calls it more than once).
    pub fn relinked(&mut self, s: usize, calls: u64) {
        for &(l, times) in self.site_loops.get(s) {
            self.loops[l as usize].relinked_every(calls / u64::from(times).max(1));
        }
    }

    /// The method holding loop `l` is invoked (the loop is entered).
    pub fn enter_loop(&mut self, l: usize) {
        self.loops[l].invoke(&self.thresholds);
    }

    /// `n` iterations of loop `l`, calling `calls` sites each, from virtual time `now_ns`: what
    /// the calls add for the tiers the loop's code runs in (C2 adds nothing: the site costs are
    /// C2 costs).
    pub fn segment(&mut self, l: usize, n: u64, calls: usize, now: u64, now_ns: f64, p: &Params) -> f64 {
        let body = self.loop_body[l];
        // What an iteration costs in each tier (it turns a compile's latency into iterations).
        let per_iteration =
            Tier::ALL.map(|t| calls as f64 * (p.fast_call_ns + p.tier_call_ns(t)) + body * if t == Tier::Interpreter { p.interpreter_slowdown } else { 1.0 });
        let deopts = self.loops[l].stats.deopts;
        let spans = self.loops[l].run_loop(n, &self.thresholds, now_ns, &per_iteration);
        // Deoptimizations by a relinked site inside the segment (no event: no record).
        let relinks = (self.loops[l].stats.deopts - deopts) as f64 * p.deopt_ns;
        if let Some(r) = self.open[l] {
            if self.loops[l].tier() == Tier::C2 {
                // Recompiled at C2 inside this segment, after its lower-tier iterations.
                let below = spans.interpreter + spans.c1;
                let rec = &mut self.deopts[r];
                rec.recompiled_after = Some(now + below - rec.at_iteration);
                self.open[l] = None;
            }
        }
        let dispatch = relinks + calls as f64 * Tier::ALL.iter().map(|&t| spans.get(t) as f64 * p.tier_call_ns(t)).sum::<f64>();
        if body == 0.0 {
            return dispatch;
        }
        // Bodies: `cost` is the compiled figure; interpreted they run `interpreter_slowdown` times slower.
        dispatch + body * ((spans.c1 + spans.c2) as f64 + spans.interpreter as f64 * p.interpreter_slowdown)
    }

    /// An event's code runs once: the factor its compiled cost takes in the tier it ran in
    /// (interpreted while cold: `interpreter_slowdown`).
    pub fn fire(&mut self, code: EventCode, p: &Params) -> f64 {
        match self.events[code as usize].invoke(&self.thresholds) {
            Tier::Interpreter => p.interpreter_slowdown,
            _ => 1.0,
        }
    }

    /// Event `event` retired links that `sites` (each on a fast chain, with the domain that
    /// guarded it) were inlined through: every C2 loop calling one of them is deoptimized.
    /// Returns how many were.
    pub fn invalidate(&mut self, sites: impl Iterator<Item = (u32, DomainKey)>, event: usize, now: u64) -> u64 {
        let mut deopts = 0;
        for (s, domain) in sites {
            for &(l, _) in self.site_loops.get(s as usize) {
                let l = l as usize;
                let outcome = self.loops[l].invalidate(&self.thresholds);
                if outcome == Deopt::Nothing {
                    continue;
                }
                deopts += 1;
                if self.deopts.len() < MAX_DEOPT_RECORDS {
                    self.open[l] = Some(self.deopts.len());
                    self.deopts.push(DeoptRecord {
                        unit: l,
                        event,
                        site: s as SiteId,
                        domain,
                        at_iteration: now,
                        recompiled_after: None,
                        past_cutoff: outcome == Deopt::DeoptimizedPastCutoff,
                    });
                } else {
                    self.open[l] = None;
                }
            }
        }
        deopts
    }

    /// Every unit that ran, loops first.
    pub fn report(&self) -> Vec<UnitReport> {
        let unit =
            |name: String, loop_index: Option<usize>, u: &Unit| UnitReport { name, loop_index, tier: u.tier(), past_cutoff: u.past_cutoff(), stats: u.stats };
        let loops = self.loops.iter().zip(&self.loop_names).enumerate().map(|(l, (u, name))| unit(name.clone(), Some(l), u));
        let events = self.events.iter().zip(EventCode::ALL).filter(|(u, _)| **u != Unit::new()).map(|(u, c)| unit(c.name().to_string(), None, u));
        loops.chain(events).collect()
    }
}

/// Calls `f(site, (loop, times per iteration))` for each loop calling each site, loops in
/// order; `times` is scratch, one zero per site (left zeroed).
fn each_site_loop(loops: &[(&[u32], bool)], times: &mut Vec<u32>, mut f: impl FnMut(usize, (u32, u32))) {
    for (l, &(calls, once)) in loops.iter().enumerate() {
        if once {
            calls.iter().for_each(|&s| f(s as usize, (l as u32, 1)));
            continue;
        }
        // Counters by site (all back to 0 after each loop), made only for a loop that may call
        // a site more than once.
        let top = calls.iter().max().map_or(0, |&s| s as usize + 1);
        if times.len() < top {
            times.resize(top, 0);
        }
        for &s in calls.iter() {
            times[s as usize] += 1;
        }
        for &s in calls.iter() {
            let n = std::mem::take(&mut times[s as usize]);
            if n > 0 {
                f(s as usize, (l as u32, n));
            }
        }
    }
}

/// The declared body costs of a scenario, keyed by class and site method id.
pub(super) fn body_table(scenario: &Scenario, world: &World, methods: &[String]) -> Vec<(ClassId, u32, f64)> {
    let mut out = Vec::new();
    if scenario.classes.iter().all(|c| c.costs.is_empty()) {
        return out;
    }
    // By a map: sites may call 10^6 distinct methods, and classes declare 10^4 costs each.
    let ids: crate::fxhash::FxMap<&str, usize> = methods.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    for c in &scenario.classes {
        for cost in &c.costs {
            if let (Some(class), Some(&m)) = (world.class_id(&c.name), ids.get(cost.method.as_str())) {
                out.push((class, m as u32, cost.ns as f64));
            }
        }
    }
    out
}

impl Simulation {
    /// Sites whose target may have changed: their bodies, and the sums of the loops calling
    /// them, follow the new target (a redefined method is a closure without a declared cost).
    /// O(1) per site and loop calling it, so it adds nothing to what the event already walked.
    pub(super) fn refresh_bodies(&mut self, sites: impl Iterator<Item = usize>) {
        if self.units.bodies.is_empty() {
            return;
        }
        for s in sites {
            let method = self.sites[s].method;
            let body_of = |t: &Target| match *t {
                Target::Method { owner, version: 0 } => self.units.body(owner as ClassId, method),
                _ => 0.0,
            };
            // A polymorphic site's body is its receivers' bodies averaged over the mix.
            let body = match self.sites[s].poly().map(|p| &self.polys[p]) {
                Some(poly) => {
                    let total: f64 = poly.weights.iter().map(|&w| f64::from(w)).sum();
                    poly.targets.iter().zip(&poly.weights).map(|(t, &w)| body_of(t) * f64::from(w)).sum::<f64>() / total
                }
                None => body_of(&self.sites[s].true_target()),
            };
            let u = &mut self.units;
            let old = std::mem::replace(&mut u.site_body[s], body);
            if body != old {
                for &(l, times) in u.site_loops.get(s) {
                    u.loop_body[l as usize] += f64::from(times) * (body - old);
                }
            }
        }
    }
}
