//! The simulator: runs a scenario's program under one policy in virtual time.
//!
//! Execution is event-driven and resumable. A `step` either fires the events due at the current
//! loop iteration or runs the loop up to the next event boundary in closed form. Cost follows
//! the blast radius, not the world: an event walks only the links that depend on what it
//! retires and re-resolves only the sites whose resolution can have changed, and a segment runs
//! one by one only the sites whose state an event unsettled (steady sites are a running sum).
//!
//! The jobs are split by file: `program` (program counter, work estimate), `site` (the
//! call-site state machine), `events` (firing and retiring), `oracle` (ground truth and
//! records), `domains` (switch points), `view` (what the UI reads), `vsum` (exact sums).

mod domains;
mod estimate;
mod events;
mod interned;
mod link;
mod oracle;
mod poly;
mod program;
mod site;
mod units;
mod view;
mod vsum;

use crate::fxhash::FxMap;
use crate::params::{Params, SiteCache};
use crate::policy::Policy;
use crate::prefetch::prefetch;
use crate::report::*;
use crate::scenario::{Event, Measure, Scenario};
use crate::validate::{validate_indexed, ScenarioError, SiteIndex};
use crate::world::{ClassId, World};

use domains::Domains;
use program::{Frame, LoopRun, Program, BEFORE_OP, OP, SETUP};
use site::SiteRt;

pub use crate::digits::thousands;
pub use crate::report::Phase;
pub use crate::report::{loop_name, DeoptRecord, UnitReport};
pub use estimate::{estimate, estimate_for, estimate_largest, estimate_work, Estimate, Term};
pub use program::iterations_in;

/// Upper bound on the work a run may take (the units of [`estimate`]), so no input can hang.
pub const MAX_WORK: u64 = 200_000_000;
const TIMELINE_BUCKETS: u64 = 400;

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
    name: String,
    measure: Measure,
    program: Program,
    policy: Policy,
    params: Params,
    world: World,
    domains: Domains,
    sites: Vec<SiteRt>,
    /// The polymorphic sites' state (`SiteRt::poly` indexes it).
    polys: Vec<poly::Poly>,
    site_names: interned::Names,
    /// Method names the sites call, interned.
    methods: Vec<String>,
    /// Sites by receiver class: what the oracle re-resolves when a class changes.
    sites_by_class: interned::Groups,
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
    /// Per site, the domain and epoch of its last recorded relink (a monomorphic site's, packed
    /// in 32 bits, 0 for none; see `site::Env`): beside the sites, so a site is two cache lines.
    last_relinks: Vec<u32>,
    /// Per site, what an event's walk needs to know of it without reading it
    /// ([`site::VISIT`]): kept up to date wherever a site's link, mode or steadiness changes
    /// (a site's run, becoming steady, settling).
    walk_marks: Vec<u8>,
    /// Stale calls and missed dispatches by site: written only when a site serves a stale
    /// target, so they live beside the sites, not in them.
    stale: FxMap<u32, site::Stale>,
    timeline: Timeline,
    /// Relinks by verdict since the last `advance`, which adds them to the timeline at the
    /// iteration they happened (one bucket update per step, not one per relink).
    pending_relinks: [u64; 3],
    /// Work done so far, in the units [`estimate_work`] bounds (see `program::Estimate`).
    work: u64,
    /// Reused buffers (segment positions and raw hits; the sites an event hit, in order), so
    /// big events allocate nothing.
    scratch: Vec<u32>,
    hits: Vec<u32>,
    /// Reused: the sites of a segment that may have become steady; the sites on a fast chain
    /// an event hit, in walk order and in site order.
    settled: Vec<u32>,
    fast_hit: Vec<u32>,
    fast_ordered: Vec<u32>,
    /// Compilation units: the loops' methods and the event code (`units`, `crate::jit`).
    units: units::Units,
}

impl Simulation {
    pub fn new(scenario: &Scenario, policy: Policy, params: &Params) -> Result<Simulation, ScenarioError> {
        Ok(Simulation::for_policies(scenario, &[policy], params)?.remove(0))
    }

    /// [`Simulation::new`] for a caller done with the scenario (the CLI, a benchmark): the
    /// scenario is dropped as soon as what the simulation needs is taken out of it, before the
    /// per-site tables exist, so the model and the engine's tables never add up at the peak.
    pub fn new_owned(scenario: Scenario, policy: Policy, params: &Params) -> Result<Simulation, ScenarioError> {
        let prepared = Prepared::of(&scenario, params, &[policy])?;
        drop(scenario);
        Ok(Simulation::build(prepared, policy, params))
    }

    /// One simulation per policy, the scenario validated and bounded once for all of them.
    pub fn for_policies(scenario: &Scenario, policies: &[Policy], params: &Params) -> Result<Vec<Simulation>, ScenarioError> {
        let prepared = Prepared::of(scenario, params, policies)?;
        let Some((&last, others)) = policies.split_last() else { return Ok(Vec::new()) };
        let mut sims: Vec<Simulation> = others.iter().map(|&p| Simulation::build(prepared.clone(), p, params)).collect();
        sims.push(Simulation::build(prepared, last, params));
        Ok(sims)
    }

    /// Run a scenario the caller is done with under each policy in turn (the CLI): validated
    /// once, dropped before any per-site table exists, and one simulation alive at a time, so
    /// the peak is one engine's tables (not the model plus one set per policy). The reports
    /// are those of [`Simulation::for_policies`] run one by one.
    pub fn run_each(scenario: Scenario, policies: &[Policy], params: &Params) -> Result<Vec<RunReport>, ScenarioError> {
        let prepared = Prepared::of(&scenario, params, policies)?;
        drop(scenario);
        Ok(policies.iter().map(|&p| Simulation::build(prepared.clone(), p, params).run()).collect())
    }

    /// Build from what was taken out of a scenario that passed [`admit`].
    pub(crate) fn build(prepared: Prepared, policy: Policy, params: &Params) -> Simulation {
        let Prepared { name, measure, program, world, site_names, methods, site_keys, polymorphic, iterations_per_op, bodies } = prepared;
        let mut sites: Vec<SiteRt> = site_keys
            .iter()
            .map(|&(receiver, method)| SiteRt::new(receiver as ClassId, method, world.resolve(receiver as ClassId, &methods[method as usize])))
            .collect();
        drop(site_keys);
        let mut polys = Vec::with_capacity(polymorphic.len());
        for (s, receivers, weights) in polymorphic {
            let method = &methods[sites[s].method as usize];
            let targets = receivers.iter().map(|&c| world.resolve(c, method)).collect();
            sites[s].set_poly(polys.len());
            polys.push(poly::Poly::new(site_names.get(s), receivers, weights, targets));
        }
        // A polymorphic site is listed under each of its receiver classes.
        let by_class = sites.iter().enumerate().flat_map(|(i, s): (usize, &SiteRt)| {
            let poly = s.poly().map(|p| polys[p].receivers.as_slice()).unwrap_or_default();
            std::iter::once(s.receiver()).chain(poly.iter().skip(1).copied()).map(move |c| (c, i))
        });
        let sites_by_class = interned::Groups::by_pairs(world.classes.len(), by_class);
        let total_ops = (measure.warmup_ops + measure.ops) as u64;
        let bucket = ((iterations_per_op * total_ops) / TIMELINE_BUCKETS).max(1);
        let domains = Domains::new(world.classes.len(), if policy == Policy::Ideal { sites.len() } else { 0 });
        let loop_calls: Vec<(&[u32], bool)> = program.loops.iter().map(|l| (l.calls.as_slice(), l.calls_each_site_once)).collect();
        let mut units = units::Units::new(params, &loop_calls, sites.len(), bodies);
        for (s, site) in sites.iter().enumerate() {
            if let Some(every) = site.poly().and_then(|p| polys[p].relink_period(params.site_cache)) {
                units.relinked(s, every);
            }
        }
        let last_relinks = vec![0; sites.len()];
        let walk_marks = sites.iter().map(SiteRt::walk_mark).collect();
        let mut sim = Simulation {
            name,
            measure,
            program,
            policy,
            params: params.clone(),
            world,
            domains,
            sites,
            polys,
            sites_by_class,
            site_names,
            methods,
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
            last_relinks,
            walk_marks,
            stale: FxMap::default(),
            timeline: Timeline::new(bucket, iterations_per_op),
            pending_relinks: [0; 3],
            work: 0,
            scratch: Vec::new(),
            hits: Vec::new(),
            settled: Vec::new(),
            fast_hit: Vec::new(),
            fast_ordered: Vec::new(),
            units,
        };
        sim.work = (sim.world.classes.len() + sim.sites.len()) as u64 + sim.world.classes.iter().map(|c| c.view_len() as u64).sum::<u64>();
        for site in &mut sim.sites {
            let target = site.true_target();
            site.set_truth(target, sim.world.cacheable(site.receiver(), &target));
        }
        for poly in &mut sim.polys {
            for (r, &c) in poly.receivers.iter().enumerate() {
                poly.cacheable[r] = sim.world.cacheable(c, &poly.targets[r]);
            }
        }
        sim.refresh_bodies(0..sim.sites.len());
        sim.stack.push(Frame::List { list: SETUP, idx: 0 });
        sim
    }

    /// Run to the end and report.
    pub fn run(mut self) -> RunReport {
        while self.step() != StepOutcome::Finished {}
        self.into_report()
    }

    /// Advance by one unit of work.
    pub fn step(&mut self) -> StepOutcome {
        let Some(frame) = self.stack.last_mut() else {
            return self.next_op();
        };
        match frame {
            Frame::List { list, idx } => {
                let Some(node) = self.program.lists[*list].get(*idx) else {
                    self.stack.pop();
                    return StepOutcome::Progress;
                };
                *idx += 1;
                match node.clone() {
                    program::Node::Event(ev) => StepOutcome::Events(vec![self.fire(&ev)]),
                    program::Node::Repeat { count, body } => {
                        self.stack.push(Frame::Repeat { body, remaining: count });
                        StepOutcome::Progress
                    }
                    program::Node::Use { category, body } => {
                        let id = self.fire_category(category, true);
                        self.stack.push(Frame::Leave { category });
                        self.stack.push(Frame::List { list: body, idx: 0 });
                        StepOutcome::Events(vec![id])
                    }
                    program::Node::Loop(node) => {
                        // Every call starts unsettled: the first segment runs each site once.
                        let calls = self.program.loops[node].calls.len() as u32;
                        self.work += u64::from(calls);
                        let dirty = program::Bits::full(calls as usize);
                        self.units.enter_loop(node);
                        self.stack.push(Frame::Loop(LoopRun { node, i: 0, fired_at_i: false, dirty }));
                        StepOutcome::Progress
                    }
                }
            }
            Frame::Repeat { body, remaining } => {
                if *remaining == 0 {
                    self.stack.pop();
                    return StepOutcome::Progress;
                }
                *remaining -= 1;
                let list = *body;
                self.stack.push(Frame::List { list, idx: 0 });
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
            Frame::Loop(run) => {
                let node = &self.program.loops[run.node];
                if run.i >= node.count {
                    self.leave_loop();
                    return StepOutcome::Progress;
                }
                if !run.fired_at_i {
                    run.fired_at_i = true;
                    let due = node.due(run.i);
                    if due.is_empty() {
                        return self.step();
                    }
                    let ids = due.iter().map(|e| self.fire(e)).collect();
                    return StepOutcome::Events(ids);
                }
                let end = node.next_boundary(run.i).min(node.count);
                let n = end - run.i;
                run.i = end;
                run.fired_at_i = false;
                self.run_segment(n);
                StepOutcome::Segment(n)
            }
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
        let m = self.measure;
        self.phase = if self.op_index < m.warmup_ops {
            Phase::Warmup
        } else if self.op_index < m.warmup_ops + m.ops {
            Phase::Measure
        } else {
            self.phase = Phase::Done;
            return StepOutcome::Finished;
        };
        self.op_started_ns = self.now_ns;
        self.stack.push(Frame::List { list: OP, idx: 0 });
        self.stack.push(Frame::StartOpClock);
        self.stack.push(Frame::List { list: BEFORE_OP, idx: 0 });
        StepOutcome::Progress
    }

    /// Inject an event now (from the UI, between steps).
    pub fn inject(&mut self, ev: &Event) -> Result<usize, ScenarioError> {
        if let Event::Load { class, parent, methods } = ev {
            if self.world.class_id(class).is_some_and(|c| self.world.loaded(c)) {
                return Err(ScenarioError::unlocated(format!("class `{class}` is already loaded")));
            }
            let parent_id = match parent {
                Some(p) => Some(
                    self.world.class_id(p).filter(|&c| self.world.loaded(c)).ok_or_else(|| ScenarioError::unlocated(format!("unknown parent class `{p}`")))?,
                ),
                None => None,
            };
            if self.world.classes.len() >= crate::validate::MAX_CLASSES {
                return Err(ScenarioError::unlocated("too many classes"));
            }
            let (c, work) = self.world.load_class(class, parent_id, methods);
            self.work += work;
            let label = crate::dsl::event_text(ev);
            return Ok(self.finish_event(label, None, oracle::Affected::Classes(vec![c]), self.params.class_load_ns));
        }
        let class = match ev {
            Event::Write { class, .. } | Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } => Some(class),
            _ => None,
        };
        if let Some(c) = class {
            match self.world.class_id(c) {
                Some(id) if self.world.loaded(id) => {}
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

    /// Run every call of the active loop `n` times with the world unchanged. Steady sites (see
    /// [`site::SiteRt::steady`]) are summed in closed form; the unsettled ones run one by one.
    fn run_segment(&mut self, n: u64) {
        let Some(Frame::Loop(run)) = self.stack.last_mut() else { unreachable!("segments run inside a loop") };
        let node = run.node;
        let mut dirty = std::mem::take(&mut self.scratch);
        dirty.clear();
        run.dirty.collect_into(&mut dirty);
        let steady_cost = n as f64 * self.params.fast_call_ns;
        let calls = self.program.loops[node].calls.len() as u32;
        // Whether a site is steady is final after its run when the loop calls it once; a site
        // called at several positions is checked after all of them (a later run can settle it).
        let once = self.program.loops[node].calls_each_site_once;
        let mut settled = std::mem::take(&mut self.settled);
        settled.clear();
        let mut cost = 0.0;
        let mut next = 0;
        // Costs add in call order, as if every call ran one by one: the bits are the same.
        let mut i = 0;
        while i < dirty.len() {
            // Monomorphic sites run over the simulation split around its site table, up to the
            // next polymorphic site, which runs on the whole simulation.
            let (sites, mut env, program) = self.split();
            let calls = &program.loops[node].calls;
            while let Some(&pos) = dirty.get(i) {
                let s = calls[pos as usize] as usize;
                if sites[s].poly().is_some() {
                    break;
                }
                // A big segment runs sites far apart in memory: ask for a later one's lines early.
                if let Some(&ahead) = dirty.get(i + PREFETCH_AHEAD) {
                    prefetch(&sites[calls[ahead as usize] as usize] as *const SiteRt);
                }
                cost = steady_until(cost, steady_cost, next, pos);
                let site = &mut sites[s];
                cost += env.run_mono(site, s, n);
                if !once || site.is_steady(env.world, env.domains) {
                    settled.push(pos);
                }
                next = pos + 1;
                i += 1;
            }
            let Some(&pos) = dirty.get(i) else { break };
            cost = steady_until(cost, steady_cost, next, pos);
            cost += self.run_poly(self.program.loops[node].calls[pos as usize] as usize, n);
            // A polymorphic site never becomes steady.
            if !once {
                settled.push(pos);
            }
            next = pos + 1;
            i += 1;
        }
        cost = vsum::add_repeated(cost, steady_cost, u64::from(calls - next));
        // The tier the loop's code runs in: what its calls add over C2 code that inlined them.
        cost += self.units.segment(node, n, calls as usize, self.iterations, self.now_ns, &self.params);
        // One unit per site run: each takes at most `STEPS_PER_SITE_SEGMENT` steps.
        self.work += 1 + dirty.len() as u64;
        self.advance(cost, n);
        let now = self.iterations;
        let Some(Frame::Loop(run)) = self.stack.last_mut() else { unreachable!() };
        let node = &self.program.loops[node];
        for &pos in &settled {
            let s = node.calls[pos as usize] as usize;
            if !self.sites[s].is_steady(&self.world, &self.domains) {
                continue;
            }
            run.dirty.remove(pos);
            if self.sites[s].steady.is_none() {
                let calls = if node.calls_each_site_once { 1 } else { node.positions(s as u32).count() };
                // The site is called at `pos`, so at least once; a loop's calls fit in 32 bits.
                let calls_per_iteration = std::num::NonZeroU32::new(calls as u32).unwrap_or(std::num::NonZeroU32::MIN);
                self.sites[s].steady = Some(site::Steady { since: now, calls_per_iteration, position: pos });
                self.walk_marks[s] = site::VISIT;
            }
        }
        self.scratch = dirty;
        self.settled = settled;
    }

    /// The active loop is done: its steady sites' calls are counted into their stats.
    fn leave_loop(&mut self) {
        let Some(Frame::Loop(run)) = self.stack.pop() else { unreachable!("leaving a loop") };
        self.work += self.program.loops[run.node].calls.len() as u64;
        for &s in &self.program.loops[run.node].calls {
            let site = &mut self.sites[s as usize];
            site.settle(self.iterations);
            self.walk_marks[s as usize] = site.walk_mark();
        }
    }

    /// An event may have changed site `s` (its link retired, its target changed): if it was
    /// steady, count its calls so far and let the active loop run it one by one again.
    fn unsettle(&mut self, s: usize) {
        let run = match self.stack.last_mut() {
            Some(Frame::Loop(run)) => Some(run),
            _ => None,
        };
        unsettle(&mut self.sites[s], s, self.iterations, run, &self.program);
        self.walk_marks[s] = self.sites[s].walk_mark();
    }

    /// Work done so far: what [`estimate`] bounds before the run (deterministic units, not time).
    pub fn work_done(&self) -> u64 {
        self.work
    }

    fn advance(&mut self, cost: f64, iterations: u64) {
        self.timeline.add(self.iterations, cost, iterations, std::mem::take(&mut self.pending_relinks));
        self.now_ns += cost;
        self.iterations += iterations;
    }
}

/// `cost` plus the steady calls at positions `next..pos`, `steady_cost` each, in call order.
#[inline]
fn steady_until(cost: f64, steady_cost: f64, next: u32, pos: u32) -> f64 {
    if pos > next {
        vsum::add_repeated(cost, steady_cost, u64::from(pos - next))
    } else {
        cost
    }
}

/// How many dirty sites ahead a segment prefetches (8 measured 69-72 ms against 73-77 without
/// for the bulk row at 10^6 sites; 4 about the same).
const PREFETCH_AHEAD: usize = 8;

/// [`Simulation::unsettle`] over split borrows (an event's walk holds the site table): settle
/// site `s` at iteration `now` and mark its positions in the active loop `run` dirty.
/// Inlined: most sites an event hits are not steady, and the walk calls it for each.
#[inline(always)]
fn unsettle(site: &mut SiteRt, s: usize, now: u64, run: Option<&mut LoopRun>, program: &Program) {
    let Some(steady) = site.steady else { return };
    site.settle(now);
    if let Some(run) = run {
        if steady.calls_per_iteration.get() == 1 {
            run.dirty.insert(steady.position);
        } else {
            for pos in program.loops[run.node].positions(s as u32) {
                run.dirty.insert(pos);
            }
        }
    }
}

/// What a simulation takes out of its scenario (validated, bounded, its program compiled, its
/// names interned), shared by the policies built from it; nothing here is per policy.
#[derive(Clone)]
pub(crate) struct Prepared {
    name: String,
    measure: Measure,
    program: Program,
    world: World,
    site_names: interned::Names,
    /// Method names the sites call, interned.
    methods: Vec<String>,
    /// Per site: its (first) receiver class and its method id.
    site_keys: Vec<(u32, u32)>,
    /// The polymorphic sites (few): id, receiver classes, weights.
    polymorphic: Vec<(usize, Vec<ClassId>, Vec<u32>)>,
    iterations_per_op: u64,
    bodies: Vec<(ClassId, u32, f64)>,
}

impl Prepared {
    /// Validated, and its work bounded under each of `policies`.
    pub(crate) fn of(scenario: &Scenario, params: &Params, policies: &[Policy]) -> Result<Prepared, ScenarioError> {
        // The site index (a million-entry map at the cap) is dropped once the program is
        // compiled, before any per-site table exists, so the two never add up.
        let program = {
            let site_index = admitted(scenario, params, policies)?;
            // Category ids are the world's: declaration order.
            let categories: FxMap<&str, usize> = scenario.categories.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
            Program::compile(scenario, &site_index, &|name| categories[name])
        };
        let world = World::new(scenario);
        let mut site_names = interned::Names::with_capacity(scenario.sites.len(), scenario.sites.iter().map(|s| s.name.len()).sum());
        let mut site_keys = Vec::with_capacity(scenario.sites.len());
        let mut polymorphic = Vec::new();
        let mut methods: Vec<String> = Vec::new();
        let mut method_index: FxMap<&str, u32> = FxMap::default();
        // Sites usually come grouped by class or in class order: try the last receiver and the
        // class after it before the name map (see `SiteIndex`).
        let mut last: ClassId = 0;
        for (i, s) in scenario.sites.iter().enumerate() {
            let near = [last, last + 1].into_iter().find(|&c| world.classes.get(c).is_some_and(|k| k.name == s.class));
            let receiver = near.or_else(|| world.class_id(&s.class)).expect("validated");
            last = receiver;
            site_names.push(&s.name);
            let method = *method_index.entry(&s.method).or_insert_with(|| {
                methods.push(s.method.to_string());
                methods.len() as u32 - 1
            });
            site_keys.push((receiver as u32, method));
            if s.is_polymorphic() {
                polymorphic.push((i, s.receivers().map(|c| world.class_id(c).expect("validated")).collect(), s.weights()));
            }
        }
        Ok(Prepared {
            name: scenario.name.clone(),
            measure: scenario.measure,
            iterations_per_op: iterations_in(&scenario.op),
            bodies: units::body_table(scenario, &world, &methods),
            program,
            world,
            site_names,
            methods,
            site_keys,
            polymorphic,
        })
    }
}

/// Bytes of the structures the engine keeps per site, by name (the bench prints them: at 10^6
/// sites each byte here is a megabyte).
#[doc(hidden)]
pub fn per_site_layout() -> Vec<(&'static str, usize)> {
    use std::mem::size_of;
    vec![
        ("SiteRt", size_of::<SiteRt>()),
        ("  link::Link", size_of::<link::Link>()),
        ("  world::Target", size_of::<crate::world::Target>()),
        ("  policy::DomainKey", size_of::<crate::policy::DomainKey>()),
        ("  site::Counts", size_of::<site::Counts>()),
        ("  Option<site::Steady>", size_of::<Option<site::Steady>>()),
        ("model::SiteDecl (+ its strings)", size_of::<crate::scenario::SiteDecl>()),
        ("model::Stmt (a call, + its string)", size_of::<crate::scenario::Stmt>()),
    ]
}

/// Run a scenario under one policy.
pub fn run(s: &Scenario, policy: Policy, params: &Params) -> Result<RunReport, ScenarioError> {
    Ok(Simulation::new(s, policy, params)?.run())
}

/// The model keeps polymorphic sites on their default target (`poly`): refuse parameters under
/// which Groovy would promote one, i.e. a receiver coming more than `optimize_threshold` times
/// in a row. Groovy 2.4's sites ([`SiteCache::Relink`]) link every selection at once, which
/// `poly` simulates.
fn check_polymorphic(scenario: &Scenario, params: &Params) -> Result<(), ScenarioError> {
    if params.site_cache == SiteCache::Relink {
        return Ok(());
    }
    for (i, site) in scenario.sites.iter().enumerate().filter(|(_, s)| s.is_polymorphic()) {
        let run = poly::longest_run(&poly::receiver_cycle(&site.name, &site.weights()));
        if run > params.optimize_threshold {
            return Err(ScenarioError::at_path(
                format!("sites[{i}].mix"),
                format!(
                    "site `{}` sees one receiver {run} times in a row, more than optimize_threshold ({}): Groovy would promote it to a fast chain, which the model does not simulate for polymorphic sites",
                    site.name, params.optimize_threshold
                ),
            ));
        }
    }
    Ok(())
}

/// Would a run of `scenario` under each of `policies` with `params` be admitted? What every
/// simulation checks before it builds anything (validation, the polymorphic sites' limits, the
/// work bound), for a caller that does not run it: `blast show` refuses to print a scenario
/// that `blast run` would refuse, with the same message.
pub fn admit(scenario: &Scenario, params: &Params, policies: &[Policy]) -> Result<(), ScenarioError> {
    admitted(scenario, params, policies).map(drop)
}

/// [`admit`], keeping the site index validation built.
fn admitted<'a>(scenario: &'a Scenario, params: &Params, policies: &[Policy]) -> Result<SiteIndex<'a>, ScenarioError> {
    let sites = validate_indexed(scenario)?;
    if let Some(e) = estimate_largest(scenario, policies).filter(|e| e.total > MAX_WORK) {
        return Err(ScenarioError::at_path(
            "op",
            format!(
                "this scenario needs about {} work units under {}, more than the {} a run may take: {} (fewer events, ops or sites, or events that reach fewer sites)",
                thousands(e.total),
                e.policy,
                thousands(MAX_WORK),
                e.breakdown()
            ),
        ));
    }
    check_polymorphic(scenario, params)?;
    Ok(sites)
}

#[cfg(test)]
mod tests {
    use crate::{dsl, presets, run, Params, Policy, Simulation};

    #[test]
    fn a_simulation_built_from_an_owned_scenario_runs_as_one_built_from_a_borrowed_one() {
        for p in presets::all() {
            for policy in [Policy::Global, Policy::Exact, Policy::Ideal] {
                let borrowed = Simulation::new(&p.scenario(), policy, &Params::default()).unwrap().run();
                let owned = Simulation::new_owned(p.scenario(), policy, &Params::default()).unwrap().run();
                assert_eq!(owned, borrowed, "{} under {policy}", p.id);
            }
        }
    }

    #[test]
    fn running_each_policy_in_turn_reports_as_the_simulations_built_together() {
        let policies = [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal];
        for p in presets::all() {
            let together: Vec<_> = Simulation::for_policies(&p.scenario(), &policies, &Params::default()).unwrap().into_iter().map(Simulation::run).collect();
            assert_eq!(Simulation::run_each(p.scenario(), &policies, &Params::default()).unwrap(), together, "{}", p.id);
        }
    }

    #[test]
    fn a_steady_site_called_twice_per_iteration_counts_every_call() {
        // Under exact, writes on B never touch `a`: it stays steady between the events and its
        // calls are counted lazily, two per iteration, across segments and ops.
        let text = "measure warmup 1 ops 2\nclass A { m }\nclass B { m }\nsite a = A.m\nsite b = B.m\nop { loop 10000 { every 1000 { write B.x } call a call b call a } }";
        let r = run(&dsl::parse(text).unwrap(), Policy::Exact, &Params::default()).unwrap();
        let a = &r.site("a").unwrap().stats;
        assert_eq!((a.fast_calls + a.pic_calls, a.fallback_calls), (60_000, 0), "{a:?}");
        assert!(a.fast_calls > 50_000, "{a:?}");
    }
}
