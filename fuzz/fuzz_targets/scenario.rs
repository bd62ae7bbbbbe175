//! Arbitrary *valid* scenarios (built from the fuzzer's bytes, small enough to run in
//! milliseconds) run under every policy, with the engine's promises as assertions.
//!
//! Invariants (each `check_*` below is one):
//! - no panic, in validation, the run or the report;
//! - determinism: the same scenario twice gives the same fingerprint (the JSON report);
//! - print -> parse gives back the model;
//! - every site `ideal` relinks as necessary, a policy with no missed dispatch retires too;
//! - `hierarchy` retires every site `exact` does, `global` every site `hierarchy` does;
//! - relink totals agree between the report, its timeline, its sites and its relink log;
//! - a necessary relink or a missed dispatch names as its cause an event that changed the
//!   site's target, never one that merely retired a shared domain;
//! - the counted work never exceeds the estimate that admitted the scenario.
#![no_main]

use std::collections::BTreeSet;

use arbitrary::{Result, Unstructured};
use blast_engine::scenario::{CategoryDecl, ClassDecl, Measure, MetaKind, MethodRef, SiteDecl, Stmt};
use blast_engine::sim::{estimate_for, StepOutcome};
use blast_engine::{dsl, validate, Event, Params, Policy, RunReport, Scenario, Semantics, Simulation};
use libfuzzer_sys::fuzz_target;

const METHODS: [&str; 3] = ["m0", "m1", "m2"];

/// Names the generator draws from, so that most references resolve.
struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    classes: Vec<String>,
    categories: Vec<String>,
    sites: Vec<String>,
    loads: usize,
}

impl Gen<'_, '_> {
    fn method(&mut self) -> Result<String> {
        Ok(self.u.choose(&METHODS)?.to_string())
    }

    fn class(&mut self) -> Result<String> {
        Ok(self.u.choose(&self.classes)?.clone())
    }

    fn event(&mut self) -> Result<Event> {
        Ok(match self.u.int_in_range(0..=7u8)? {
            0 | 1 => Event::Write { class: self.class()?, method: self.method()? },
            2 => Event::Replace { class: self.class()?, kind: *self.u.choose(&MetaKind::ALL)? },
            3 => Event::Remove { class: self.class()? },
            4 => Event::PerInstance { class: self.class()? },
            5 => {
                let parent = if self.u.arbitrary()? { Some(self.class()?) } else { None };
                self.loads += 1;
                let methods = (0..self.u.int_in_range(0..=2)?).map(|_| self.method()).collect::<Result<_>>()?;
                Event::Load { class: format!("L{}", self.loads), parent, methods }
            }
            6 => Event::InvalidateAll,
            _ => Event::Unattributed,
        })
    }

    /// Top-level statements of a block; `depth` bounds nesting (and so the run's length).
    fn block(&mut self, depth: u32, in_loop: bool) -> Result<Vec<Stmt>> {
        let n = self.u.int_in_range(0..=3)?;
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(self.stmt(depth, in_loop)?);
        }
        Ok(out)
    }

    fn stmt(&mut self, depth: u32, in_loop: bool) -> Result<Stmt> {
        let choice = self.u.int_in_range(0..=5u8)?;
        Ok(match choice {
            0 if in_loop => Stmt::Call { site: self.u.choose(&self.sites)?.into() },
            1 if in_loop => {
                let period = self.u.int_in_range(1..=20)?;
                let offset = self.u.int_in_range(0..=period - 1)?;
                let body = (0..self.u.int_in_range(1..=2)?).map(|_| self.event().map(Stmt::event)).collect::<Result<_>>()?;
                Stmt::every(period, offset, body)
            }
            2 if !in_loop && depth > 0 => {
                let count = self.u.int_in_range(1..=60)?;
                let mut body = Vec::new();
                for _ in 0..self.u.int_in_range(1..=4)? {
                    body.push(self.stmt(0, true)?);
                }
                Stmt::looped(count, body)
            }
            3 if !in_loop && depth > 0 => Stmt::repeat(self.u.int_in_range(1..=3)?, self.block(depth - 1, false)?),
            4 if !in_loop && depth > 0 && !self.categories.is_empty() => {
                Stmt::use_category(self.u.choose(&self.categories)?.clone(), self.block(depth - 1, false)?)
            }
            _ => Stmt::event(self.event()?),
        })
    }

    fn scenario(&mut self) -> Result<Scenario> {
        let semantics = *self.u.choose(&Semantics::ALL)?;
        let measure = Measure { warmup_ops: self.u.int_in_range(0..=2)?, ops: self.u.int_in_range(1..=3)? };
        let mut classes = Vec::new();
        for i in 0..self.u.int_in_range(1..=6)? {
            // A parent declared earlier keeps the hierarchy acyclic.
            let parent = if i > 0 && self.u.arbitrary()? { Some(format!("C{}", self.u.int_in_range(0..=i - 1)?)) } else { None };
            let methods = (0..self.u.int_in_range(0..=3)?).map(|_| self.method()).collect::<Result<BTreeSet<_>>>()?;
            let metaclass = *self.u.choose(&MetaKind::ALL)?;
            classes.push(ClassDecl { name: format!("C{i}"), parent, methods: methods.into_iter().collect(), metaclass, costs: vec![] });
        }
        self.classes = classes.iter().map(|c| c.name.clone()).collect();
        let mut categories = Vec::new();
        for i in 0..self.u.int_in_range(0..=2)? {
            let methods = (0..self.u.int_in_range(1..=2)?).map(|_| Ok(MethodRef { class: self.class()?, method: self.method()? })).collect::<Result<_>>()?;
            categories.push(CategoryDecl { name: format!("Cat{i}"), methods });
        }
        self.categories = categories.iter().map(|c| c.name.clone()).collect();
        let mut sites = Vec::new();
        for i in 0..self.u.int_in_range(1..=6)? {
            let mut site = SiteDecl::mono(format!("s{i}"), self.class()?, self.method()?);
            // Some sites are polymorphic: other receivers (distinct classes), maybe a mix.
            if self.u.int_in_range(0..=3u8)? == 0 {
                let (mut others, mut mix) = (Vec::new(), Vec::new());
                for c in self.classes.clone() {
                    if c != site.class && self.u.arbitrary()? {
                        others.push(c);
                    }
                }
                if !others.is_empty() && self.u.arbitrary()? {
                    mix = (0..=others.len()).map(|_| self.u.int_in_range(1..=5u32)).collect::<Result<_>>()?;
                }
                site = site.with_receivers(others, mix);
            }
            sites.push(site);
        }
        self.sites = sites.iter().map(|s| s.name.to_string()).collect();
        // A site calls a method its receivers answer (validation refuses the rest): a receiver
        // that neither declares nor inherits it declares it, so most scenarios stay valid.
        for site in &sites {
            for receiver in site.receivers() {
                let answered = std::iter::successors(classes.iter().position(|c| c.name == receiver), |&c| {
                    classes[c].parent.as_ref().and_then(|p| classes.iter().position(|k| k.name == *p))
                })
                .any(|c| classes[c].methods.iter().any(|m| **m == *site.method));
                if !answered {
                    let c = classes.iter().position(|c| c.name == receiver).expect("sites name declared classes");
                    classes[c].methods.push(site.method.to_string());
                }
            }
        }
        let setup = self.block(1, false)?;
        let before_op = self.block(0, false)?;
        let mut op = self.block(2, false)?;
        // The op must measure something: one loop over the sites at the end.
        let calls = self.sites.iter().map(|s| Stmt::Call { site: s.into() }).collect();
        op.push(Stmt::looped(self.u.int_in_range(1..=60)?, calls));
        Ok(Scenario { name: "fuzz".into(), semantics, measure, classes, categories, sites, setup, before_op, op, expectations: Vec::new() })
    }
}

/// Sites some event of the run retired (the union of `sites_hit`; callers skip runs whose
/// event log is capped).
fn retired(r: &RunReport) -> BTreeSet<blast_engine::report::SiteId> {
    r.events.iter().flat_map(|e| e.sites_hit.iter().copied()).collect()
}

fn check_round_trip(s: &Scenario) {
    let printed = dsl::print(s);
    let parsed = dsl::parse(&printed).unwrap_or_else(|e| panic!("printed scenario does not parse: {e}\n{printed}"));
    assert_eq!(&parsed, s, "print -> parse changed the scenario:\n{printed}");
}

fn check_deterministic(s: &Scenario, p: Policy, first: &RunReport) {
    let again = blast_engine::run(s, p, &Params::default()).expect("admitted once, admitted twice");
    // Field by field first: serializing every report to JSON was 70% of this target's time.
    // Only a report that differs (or holds a NaN, never equal to itself) goes to the JSON
    // fingerprint, which decides.
    if first != &again {
        let fingerprint = |r: &RunReport| serde_json::to_string(r).expect("a report serializes");
        assert_eq!(fingerprint(first), fingerprint(&again), "{} gave two answers", p.name());
    }
}

fn check_totals_add_up(r: &RunReport) {
    let t = r.relink_totals;
    let by_sites = r.sites.iter().fold([0; 3], |a, s| [a[0] + s.stats.necessary, a[1] + s.stats.collateral, a[2] + s.stats.missed]);
    let by_timeline = r.timeline.iter().fold([0; 3], |a, p| [a[0] + p.necessary, a[1] + p.collateral, a[2] + p.missed]);
    let totals = [t.necessary, t.collateral, t.missed];
    assert_eq!(by_sites, totals, "{}: the sites' relinks disagree with the report's totals", r.policy.name());
    assert_eq!(by_timeline, totals, "{}: the timeline's relinks disagree with the report's totals", r.policy.name());
    let logged = blast_engine::report::Verdict::ALL.map(|v| r.relinks.iter().filter(|x| x.verdict == v).count() as u64);
    assert_eq!(logged, totals, "{}: the relink log disagrees with the report's totals", r.policy.name());
    assert_eq!(r.total_relinks(), t.necessary + t.collateral, "{}: total_relinks", r.policy.name());
}

/// Every necessary relink and missed dispatch names an event that changed its site's target
/// (the event's `targets_changed` holds the site): under a shared domain the last event to
/// retire it can be an unrelated write, which is the cause of collateral relinks only.
fn check_causes_changed_the_target(s: &Scenario, r: &RunReport) {
    use blast_engine::report::Verdict;
    for x in r.relinks.iter().filter(|x| x.verdict != Verdict::Collateral) {
        let Some(e) = x.event.map(|e| &r.events[e]) else { continue };
        if e.targets_changed.len() < e.targets_changed_total {
            continue; // the record lists only the first sites
        }
        assert!(
            e.targets_changed.contains(&x.site),
            "{}: a {:?} relink of {} names `{}`, which did not change its target, in\n{}",
            r.policy.name(),
            x.verdict,
            r.sites[x.site].name,
            e.label,
            dsl::print(s)
        );
    }
}

/// `policy` retires every site `ideal` relinked as necessary.
fn check_necessary_covered(s: &Scenario, policy: &RunReport, ideal: &RunReport) {
    let retired = retired(policy);
    let necessary: BTreeSet<_> = ideal.relinks.iter().filter(|x| x.verdict == blast_engine::report::Verdict::Necessary).map(|x| x.site).collect();
    let only: Vec<&str> = necessary.difference(&retired).map(|&id| ideal.sites[id].name.as_str()).collect();
    assert!(only.is_empty(), "ideal relinked {only:?} as necessary but {} (no missed dispatch) never retired them in\n{}", policy.policy.name(), dsl::print(s));
}

/// `wider` retires at least every site `narrower` does.
fn check_superset(s: &Scenario, wider: &RunReport, narrower: &RunReport) {
    let (w, n) = (retired(wider), retired(narrower));
    // Site ids are the scenario's, the same under every policy; named for the message.
    let only: Vec<&str> = n.difference(&w).map(|&id| narrower.sites[id].name.as_str()).collect();
    assert!(only.is_empty(), "{} retired {only:?} but {} did not in\n{}", narrower.policy.name(), wider.policy.name(), dsl::print(s));
}

/// One run to the end; the work it counted never exceeds the estimate that admitted it
/// under its policy (`sim::estimate_for`, the same counting `Simulation::new` admits it by).
fn run_within_bound(s: &Scenario, policy: Policy) -> RunReport {
    let mut sim = Simulation::new(s, policy, &Params::default()).unwrap_or_else(|e| panic!("a valid small scenario was refused under {}: {e}", policy.name()));
    while sim.step() != StepOutcome::Finished {}
    let (done, bound) = (sim.work_done(), estimate_for(s, policy).total);
    assert!(done <= bound, "{}: counted work {done} > estimate {bound} in\n{}", policy.name(), dsl::print(s));
    sim.run()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut g = Gen { u: &mut u, classes: vec![], categories: vec![], sites: vec![], loads: 0 };
    let Ok(scenario) = g.scenario() else { return };
    if validate::validate(&scenario).is_err() {
        // Loads inside a repeat can load one class twice, and so on: not this target's business.
        return;
    }
    check_round_trip(&scenario);
    let reports: Vec<RunReport> = Policy::ALL.iter().map(|&p| run_within_bound(&scenario, p)).collect();
    let of = |p: Policy| &reports[Policy::ALL.iter().position(|&q| q == p).unwrap()];
    for r in &reports {
        check_deterministic(&scenario, r.policy, r);
    }
    // The logs keep the first few thousand records: the checks below need whole logs (a
    // first finding of this target was the generator exceeding the cap).
    if reports.iter().any(|r| r.events.len() < r.events_total) {
        return;
    }
    for r in &reports {
        check_totals_add_up(r);
        check_causes_changed_the_target(&scenario, r);
    }
    // Every site `ideal` relinks because its target really changed, a policy without missed
    // dispatches retires too. (Not every site ideal *retires*: ideal retires eagerly, when the
    // target changes, so a change undone before the site's next call costs it a collateral
    // relink that a policy which never retired the site avoids without a miss; second finding,
    // fuzz/regressions/scenario/ideal-undone-change, test
    // blast_radius::ideal_retires_eagerly_so_a_change_undone_before_the_next_call_is_collateral.
    // The first, fuzz/regressions/scenario/ideal-vs-exact, was a bug: ideal retired the sentinel
    // of sites that stay uncacheable.)
    for r in reports.iter().filter(|r| r.relink_totals.missed == 0) {
        check_necessary_covered(&scenario, r, of(Policy::Ideal));
    }
    check_superset(&scenario, of(Policy::Hierarchy), of(Policy::Exact));
    check_superset(&scenario, of(Policy::Global), of(Policy::Hierarchy));
});
