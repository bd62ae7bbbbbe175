//! The evaluator's one window on a run: a finished `RunReport`, a `Simulation` part-way, or
//! what a finished run's expectations read, kept once its report is dropped.
//!
//! Everything the evaluator reads about relinks goes through [`RunView::relinks`], which turns
//! the engine's records into [`RelinkFact`]s (site, attributed event, verdict); a [`Cause`] is
//! one with its names owned (what a failure cites, and what a kept view holds). When the
//! records change shape (typed site ids, event indices) only this file changes.

use serde::{Deserialize, Serialize};

use crate::fxhash::FxSet;
use crate::policy::Policy;
use crate::report::{Naming, Phase, RelinkRecord, RelinkTotals, RunReport, SiteReport, Verdict};
use crate::sim::Simulation;

use super::spec::{EventPattern, Expectation, Metric, SiteClaim, ANY_NAME};

/// One relink as the evaluator reads it.
#[derive(Clone, Copy, Debug)]
pub struct RelinkFact<'a> {
    /// Index in the run's relink records (what the why panel and reports point at).
    pub record: usize,
    pub site: &'a str,
    /// The event that retired the link (for a missed one: that changed the target), if the
    /// records still attribute it.
    pub event: Option<usize>,
    pub event_label: Option<&'a str>,
    pub verdict: Verdict,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
}

/// A relink that made an expectation fail (or, for a pass of `relinks [..]`, that satisfied it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cause {
    pub policy: Policy,
    /// Index in that run's relink records.
    pub record: usize,
    pub site: String,
    pub event: Option<usize>,
    pub event_label: Option<String>,
    pub verdict: Verdict,
    pub phase: Phase,
    pub op: u32,
    pub t_ms: f64,
}

impl Cause {
    pub(super) fn of(policy: Policy, f: &RelinkFact) -> Cause {
        Cause {
            policy,
            record: f.record,
            site: f.site.to_string(),
            event: f.event,
            event_label: f.event_label.map(str::to_string),
            verdict: f.verdict,
            phase: f.phase,
            op: f.op,
            t_ms: f.t_ms,
        }
    }
}

/// Where a view reads its relinks.
enum Relinks<'a> {
    /// A run's records, named through the run (its site ids and event indexes).
    Records { records: &'a [RelinkRecord], names: &'a dyn Naming },
    /// The records of a run that is gone, copied with their names as causes would be (at most
    /// the engine's record cap, 20,000 a run).
    Kept(Vec<Cause>),
}

/// One policy's run, finished or not.
pub struct RunView<'a> {
    pub policy: Policy,
    pub finished: bool,
    /// Mean measured throughput; meaningful only when `finished`.
    pub ops_per_ms: f64,
    pub totals: RelinkTotals,
    pub events_total: usize,
    /// Deoptimizations of compiled code so far (every unit's count, recorded or not).
    pub deopts: u64,
    /// Every site, in site order; in a view [`kept`](RunView::kept) for some expectations, only
    /// the sites they read, still in site order.
    pub sites: Vec<SiteReport>,
    relinks: Relinks<'a>,
}

impl<'a> RunView<'a> {
    pub fn of_report(r: &'a RunReport) -> RunView<'a> {
        RunView { sites: r.sites.clone(), ..RunView::figures_of(r, Relinks::Records { records: &r.relinks, names: r }) }
    }

    /// What `expectations` read of the finished run `r`, owned, so the report can be dropped
    /// before the next run (`expect::check` keeps one report alive at a time): the run's
    /// figures, its relink records (capped by the engine) with their names, and of its sites
    /// only those an expectation about this policy names, plus, for `relinks only [..]` and
    /// `relinks nothing`, which read every site, each site that relinked. An expectation
    /// evaluates the same on this view as on [`RunView::of_report`].
    pub fn kept(r: &RunReport, expectations: &[Expectation]) -> RunView<'static> {
        let about = || expectations.iter().filter(|e| e.policies().contains(&r.policy));
        let named: FxSet<&str> = about().flat_map(named_sites).collect();
        let every_relinked = about().any(|e| matches!(e, Expectation::Relinks { sites: SiteClaim::Only(_) | SiteClaim::Nothing, .. }));
        let sites = r.sites.iter().filter(|s| named.contains(s.name.as_str()) || (every_relinked && s.stats.relinks() > 0)).cloned().collect();
        let kept = RunView::figures_of(r, Relinks::Records { records: &r.relinks, names: r }).relinks_owned();
        RunView { sites, ..RunView::figures_of(r, Relinks::Kept(kept)) }
    }

    /// A finished run's figures, without its sites.
    fn figures_of<'r>(r: &RunReport, relinks: Relinks<'r>) -> RunView<'r> {
        RunView {
            policy: r.policy,
            finished: true,
            ops_per_ms: r.ops_per_ms,
            totals: r.relink_totals,
            events_total: r.events_total,
            deopts: r.units.iter().map(|u| u.stats.deopts).sum(),
            sites: Vec::new(),
            relinks,
        }
    }

    /// A run in progress (or finished): reads the records in place, copies only the per-site
    /// figures.
    pub fn of_simulation(sim: &'a Simulation) -> RunView<'a> {
        RunView {
            policy: sim.policy(),
            finished: sim.is_finished(),
            ops_per_ms: sim.ops_per_ms(),
            totals: sim.relink_totals(),
            events_total: sim.events_total(),
            deopts: sim.units_now().iter().map(|u| u.stats.deopts).sum(),
            sites: sim.sites_now(),
            relinks: Relinks::Records { records: sim.relinks_since(0), names: sim },
        }
    }

    /// Every relink with its names copied out of the run.
    fn relinks_owned(&self) -> Vec<Cause> {
        self.relinks().map(|f| Cause::of(self.policy, &f)).collect()
    }

    /// Every recorded relink (necessary, collateral and missed), in record order.
    pub fn relinks(&self) -> Box<dyn Iterator<Item = RelinkFact<'_>> + '_> {
        match &self.relinks {
            Relinks::Records { records, names } => Box::new(records.iter().enumerate().map(move |(record, r)| RelinkFact {
                record,
                site: names.site_name(r.site),
                event: r.event,
                event_label: r.event.and_then(|e| names.event_label(e)),
                verdict: r.verdict,
                phase: r.phase,
                op: r.op,
                t_ms: r.t_ms,
            })),
            Relinks::Kept(causes) => Box::new(causes.iter().map(|f| RelinkFact {
                record: f.record,
                site: &f.site,
                event: f.event,
                event_label: f.event_label.as_deref(),
                verdict: f.verdict,
                phase: f.phase,
                op: f.op,
                t_ms: f.t_ms,
            })),
        }
    }

    /// A run-wide figure (`site`: one site's count instead).
    pub fn metric(&self, metric: Metric, site: Option<&str>) -> f64 {
        match metric {
            Metric::Ops => return self.ops_per_ms,
            // Validation refuses `at SITE` with deopts: a deopt belongs to a compiled unit.
            Metric::Deopts => return self.deopts as f64,
            _ => {}
        }
        let (n, c, m) = match site {
            Some(name) => match self.sites.iter().find(|s| s.name == name) {
                Some(s) => (s.stats.necessary, s.stats.collateral, s.stats.missed),
                None => (0, 0, 0),
            },
            None => (self.totals.necessary, self.totals.collateral, self.totals.missed),
        };
        (match metric {
            Metric::Relinks => n + c,
            Metric::Necessary => n,
            Metric::Collateral => c,
            Metric::Missed => m,
            Metric::Ops | Metric::Deopts => unreachable!("handled above"),
        }) as f64
    }

    /// Relinks (necessary + collateral) of `site` in the whole run, recorded or not.
    pub fn site_relinks(&self, site: &str) -> u64 {
        self.sites.iter().find(|s| s.name == site).map_or(0, |s| s.stats.relinks())
    }
}

/// The sites an expectation names (a `relinks` list, `at SITE`).
fn named_sites(e: &Expectation) -> Vec<&str> {
    match e {
        Expectation::Relinks { sites, .. } => sites.sites().iter().map(String::as_str).collect(),
        Expectation::Value { site, .. } => site.as_deref().into_iter().collect(),
        Expectation::Ratio { .. } | Expectation::Order { .. } | Expectation::Figure { .. } => Vec::new(),
    }
}

/// Does a relink of this verdict count toward `metric`?
pub fn counts_toward(metric: Metric, v: Verdict) -> bool {
    match metric {
        Metric::Ops | Metric::Relinks => v != Verdict::Missed,
        Metric::Necessary => v == Verdict::Necessary,
        Metric::Collateral => v == Verdict::Collateral,
        Metric::Missed => v == Verdict::Missed,
        // A deopt is not a relink (its cause is the event, through the unit's dependency).
        Metric::Deopts => false,
    }
}

/// Does the event labelled `label` (the engine's `dsl::event_text`, or `enter Cat` / `leave
/// Cat`) match the pattern?
pub fn matches(p: &EventPattern, label: &str) -> bool {
    let mut words = label.split_whitespace();
    let kind = words.next().unwrap_or("");
    let arg = words.next().unwrap_or("");
    let name = |want: &str, got: &str| want == ANY_NAME || want == got;
    match p {
        EventPattern::Any => true,
        EventPattern::Write { class, method } => kind == "write" && arg.split_once('.').is_some_and(|(c, m)| name(class, c) && name(method, m)),
        EventPattern::Replace { class } => kind == "replace" && name(class, arg),
        EventPattern::Remove { class } => kind == "remove" && name(class, arg),
        EventPattern::Instance { class } => kind == "instance" && name(class, arg),
        // `load class C ...`
        EventPattern::Load { class } => kind == "load" && name(class, words.next().unwrap_or("")),
        EventPattern::Use { category } => (kind == "enter" || kind == "leave") && name(category, arg),
        EventPattern::Enter { category } => kind == "enter" && name(category, arg),
        EventPattern::Leave { category } => kind == "leave" && name(category, arg),
        EventPattern::InvalidateAll => label == "invalidate all",
        EventPattern::Unattributed => label == "unattributed",
    }
}
