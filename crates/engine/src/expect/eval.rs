//! Evaluating expectations against runs: finished ones (`blast check`, tests) or runs part-way
//! (the playground's panel), where a claim that cannot be decided yet is `Pending`.
//!
//! Counts only grow while a run progresses, so some claims are decided early: a relink the
//! expectation forbids fails it at once, a bound of `>=` on a count passes once reached.
//! Throughput and every comparison between policies wait for the runs to finish.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::fxhash::{FxMap, FxSet};
use crate::params::Params;
use crate::policy::Policy;
use crate::report::{Phase, Verdict};
use crate::{compare, Scenario, ScenarioError};

use super::observe::{counts_toward, matches, Cause, RelinkFact, RunView};
use super::spec::{Cmp, Expectation, FigureRef, Metric, SiteClaim, Subject};

/// Causes listed per outcome (the first ones, in record order).
pub const MAX_CAUSES: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Fail,
    /// Not decided yet: a run it reads is missing or still going.
    Pending,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Pending => "pending",
        }
    }

    /// Fail beats pending beats pass.
    fn and(self, other: Status) -> Status {
        match (self, other) {
            (Status::Fail, _) | (_, Status::Fail) => Status::Fail,
            (Status::Pending, _) | (_, Status::Pending) => Status::Pending,
            _ => Status::Pass,
        }
    }
}

/// What one run showed for one expectation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Observed {
    /// The sites the matching events relinked (with counts), and the sites whose relinks the
    /// records could not attribute to an event (the records are capped).
    Relinked { policy: Policy, sites: Vec<(String, u64)>, unattributed: Vec<(String, u64)> },
    /// One run's figure.
    Figure { policy: Policy, metric: Metric, value: f64 },
    /// A figure under two policies; `ratio` = a / b.
    Pair { metric: Metric, a: Policy, a_value: f64, b: Policy, b_value: f64, ratio: f64 },
    /// A figure (or ratio) beside its reference, and how far apart they are.
    Deviation { value: f64, reference: f64, deviation_pct: f64 },
    /// The run of this policy is missing or not finished.
    Waiting { policy: Policy },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// Index in `Scenario::expectations`.
    pub index: usize,
    pub status: Status,
    pub observed: Vec<Observed>,
    pub causes: Vec<Cause>,
}

/// Every expectation of `s` against the runs at hand (any policies, finished or not).
pub fn evaluate(s: &Scenario, runs: &[RunView]) -> Vec<Outcome> {
    evaluate_each(&s.expectations, runs)
}

/// Every expectation of `s` waiting for each policy it reads: what [`evaluate`] finds with no
/// runs, without the evaluator (the page shows it until the engine worker's first evaluation).
pub fn waiting(s: &Scenario) -> Vec<Outcome> {
    let outcome = |(index, e): (usize, &Expectation)| {
        let observed: Vec<Observed> = e.policies().into_iter().map(|policy| Observed::Waiting { policy }).collect();
        Outcome { index, status: if observed.is_empty() { Status::Pass } else { Status::Pending }, observed, causes: Vec::new() }
    };
    s.expectations.iter().enumerate().map(outcome).collect()
}

fn evaluate_each(expectations: &[Expectation], runs: &[RunView]) -> Vec<Outcome> {
    expectations.iter().enumerate().map(|(index, e)| evaluate_one(index, e, runs)).collect()
}

/// The policies whose runs the scenario's expectations read, in first-mention order.
pub fn needed_policies(s: &Scenario) -> Vec<Policy> {
    let mut out = Vec::new();
    for p in s.expectations.iter().flat_map(|e| e.policies()) {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// The outcome of every expectation of a scenario, each policy run once to its end.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    pub scenario: String,
    pub outcomes: Vec<Outcome>,
}

impl CheckReport {
    pub fn failed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.status == Status::Fail).count()
    }
}

/// Run `s` under every policy its expectations need and evaluate them all. The scenario is
/// taken and dropped once prepared (`compare::prepare`), the policies run one at a time, and
/// of each report only what the expectations read is kept ([`RunView::kept`]) before it is
/// dropped and the next policy runs: the peak is one run's, however many policies are read.
pub fn check(s: Scenario, params: &Params) -> Result<CheckReport, ScenarioError> {
    let policies = needed_policies(&s);
    let (scenario, expectations) = (s.name.clone(), s.expectations.clone());
    let views: Vec<RunView> = if policies.is_empty() {
        Vec::new()
    } else {
        compare::prepare(s, &policies, params)?.runs().map(|report| RunView::kept(&report, &expectations)).collect()
    };
    Ok(CheckReport { scenario, outcomes: evaluate_each(&expectations, &views) })
}

fn find<'r, 'a>(runs: &'r [RunView<'a>], p: Policy) -> Option<&'r RunView<'a>> {
    runs.iter().find(|r| r.policy == p)
}

fn evaluate_one(index: usize, e: &Expectation, runs: &[RunView]) -> Outcome {
    let mut out = Outcome { index, status: Status::Pass, observed: Vec::new(), causes: Vec::new() };
    match e {
        Expectation::Relinks { policies, event, sites } => {
            for &p in policies {
                let Some(run) = find(runs, p) else {
                    out.wait(p);
                    continue;
                };
                let mut by_site = Tally::default();
                let mut attributed = Tally::default();
                let mut offending = Vec::new();
                for f in run.relinks().filter(|f| f.verdict != Verdict::Missed) {
                    let Some(label) = f.event_label else { continue };
                    attributed.bump(f.site);
                    if !matches(event, label) {
                        continue;
                    }
                    by_site.bump(f.site);
                    let forbidden = match sites {
                        SiteClaim::All(_) => false,
                        SiteClaim::NoneOf(l) => l.iter().any(|x| x == f.site),
                        SiteClaim::Only(l) => !l.iter().any(|x| x == f.site),
                        SiteClaim::Nothing => true,
                    };
                    if forbidden {
                        offending.push(f);
                    }
                }
                // Relinks the records do not attribute (past their cap) could be the matching
                // events' too: they decide nothing either way, so a claim resting on them fails.
                // `only` and `nothing` read every site: by a set and a map, not a list per site.
                let relevant: Vec<(&str, u64)> = match sites {
                    SiteClaim::All(l) | SiteClaim::NoneOf(l) => l.iter().map(|x| (x.as_str(), run.site_relinks(x))).collect(),
                    SiteClaim::Only(l) => {
                        let listed: FxSet<&str> = l.iter().map(String::as_str).collect();
                        run.sites.iter().filter(|x| !listed.contains(x.name.as_str())).map(|x| (x.name.as_str(), x.stats.relinks())).collect()
                    }
                    SiteClaim::Nothing => run.sites.iter().map(|x| (x.name.as_str(), x.stats.relinks())).collect(),
                };
                let unattributed: Vec<(String, u64)> =
                    relevant.into_iter().map(|(x, n)| (x.to_string(), n - attributed.get(x))).filter(|(_, n)| *n > 0).collect();
                let status = if !offending.is_empty() {
                    Status::Fail
                } else if let SiteClaim::All(l) = sites {
                    let missing = l.iter().any(|x| by_site.get(x) == 0);
                    match (missing, run.finished) {
                        (false, _) => Status::Pass,
                        (true, false) => Status::Pending,
                        (true, true) => Status::Fail,
                    }
                } else if !run.finished {
                    Status::Pending
                } else if !unattributed.is_empty() {
                    Status::Fail
                } else {
                    Status::Pass
                };
                out.add_causes(p, offending.into_iter());
                out.status = out.status.and(status);
                let sites = by_site.counts.into_iter().map(|(s, n)| (s.to_string(), n)).collect();
                out.observed.push(Observed::Relinked { policy: p, sites, unattributed });
            }
        }
        Expectation::Value { policies, metric, site, cmp, value, per_event } => {
            for &p in policies {
                let Some(run) = find(runs, p) else {
                    out.wait(p);
                    continue;
                };
                let mut observed = run.metric(*metric, site.as_deref());
                if *per_event {
                    observed = if run.events_total == 0 { 0.0 } else { observed / run.events_total as f64 };
                }
                let bound = value.value();
                let holds = cmp.holds(observed, bound);
                let status = if run.finished {
                    if holds {
                        Status::Pass
                    } else {
                        Status::Fail
                    }
                } else {
                    early(*metric, *per_event, *cmp, observed, bound)
                };
                if status == Status::Fail && metric.is_count() {
                    out.add_causes(p, run.relinks().filter(|f| counts_toward(*metric, f.verdict) && site.as_deref().is_none_or(|x| x == f.site)));
                }
                out.status = out.status.and(status);
                out.observed.push(Observed::Figure { policy: p, metric: *metric, value: observed });
            }
        }
        Expectation::Ratio { a, b, cmp, factor, metric } => {
            if let Some((ra, rb)) = out.finished_pair(runs, *a, *b) {
                let (va, vb) = (ra.metric(*metric, None), rb.metric(*metric, None));
                let ratio = va / vb;
                out.settle(cmp.holds(ratio, factor.value()), *metric, &[ra, rb]);
                out.observed.push(Observed::Pair { metric: *metric, a: *a, a_value: va, b: *b, b_value: vb, ratio });
            }
        }
        Expectation::Order { a, cmp, b, metric } => {
            if let Some((ra, rb)) = out.finished_pair(runs, *a, *b) {
                let (va, vb) = (ra.metric(*metric, None), rb.metric(*metric, None));
                out.settle(cmp.holds(va, vb), *metric, &[ra, rb]);
                out.observed.push(Observed::Pair { metric: *metric, a: *a, a_value: va, b: *b, b_value: vb, ratio: va / vb });
            }
        }
        Expectation::Figure { subject, metric, tolerance_pct, reference } => {
            let tolerance = tolerance_pct.value();
            match subject {
                Subject::Run { policies } => {
                    for &p in policies {
                        let Some(run) = find(runs, p).filter(|r| r.finished) else {
                            out.wait(p);
                            continue;
                        };
                        let value = run.metric(*metric, None);
                        let Some(reference) = (match reference {
                            FigureRef::Given(d) => Some(d.value()),
                            FigureRef::Published(row) => crate::reference::groovy_row(row).and_then(|row| row.for_policy(p)).map(|(v, _)| v),
                        }) else {
                            continue; // validation refuses a policy without a published figure
                        };
                        out.compare_with(value, reference, tolerance, *metric, &[run]);
                    }
                }
                Subject::Ratio { a, b } => {
                    if let Some((ra, rb)) = out.finished_pair(runs, *a, *b) {
                        let value = ra.metric(*metric, None) / rb.metric(*metric, None);
                        let reference = match reference {
                            FigureRef::Given(d) => Some(d.value()),
                            FigureRef::Published(row) => crate::reference::groovy_row(row).and_then(|row| Some(row.for_policy(*a)?.0 / row.for_policy(*b)?.0)),
                        };
                        if let Some(reference) = reference {
                            out.compare_with(value, reference, tolerance, *metric, &[ra, rb]);
                        }
                    }
                }
            }
        }
    }
    out
}

/// A count part-way through a run only grows: decide what is already decided.
fn early(metric: Metric, per_event: bool, cmp: Cmp, observed: f64, bound: f64) -> Status {
    if !metric.is_count() || per_event {
        return Status::Pending;
    }
    match cmp {
        Cmp::Lt | Cmp::Le | Cmp::Eq if observed > bound || (cmp == Cmp::Lt && observed == bound) => Status::Fail,
        Cmp::Gt | Cmp::Ge if cmp.holds(observed, bound) => Status::Pass,
        _ => Status::Pending,
    }
}

/// Relinks per site, in the order the sites first relinked, found by name in constant time
/// (a run's records name up to 20,000 sites).
#[derive(Default)]
struct Tally<'a> {
    counts: Vec<(&'a str, u64)>,
    index: FxMap<&'a str, usize>,
}

impl<'a> Tally<'a> {
    fn bump(&mut self, site: &'a str) {
        let i = *self.index.entry(site).or_insert_with(|| {
            self.counts.push((site, 0));
            self.counts.len() - 1
        });
        self.counts[i].1 += 1;
    }

    fn get(&self, site: &str) -> u64 {
        self.index.get(site).map_or(0, |&i| self.counts[i].1)
    }
}

impl Outcome {
    /// The first relink of each (site, event) pair, up to [`MAX_CAUSES`] in all: one line per
    /// distinct cause rather than the same write repeated.
    fn add_causes<'a>(&mut self, policy: Policy, facts: impl Iterator<Item = RelinkFact<'a>>) {
        for f in facts {
            if self.causes.len() >= MAX_CAUSES {
                return;
            }
            let seen = self.causes.iter().any(|c| c.policy == policy && c.site == f.site && c.event_label.as_deref() == f.event_label);
            if !seen {
                self.causes.push(Cause::of(policy, &f));
            }
        }
    }

    fn wait(&mut self, policy: Policy) {
        self.status = self.status.and(Status::Pending);
        self.observed.push(Observed::Waiting { policy });
    }

    /// Both runs, when both are finished; otherwise marks the outcome pending.
    fn finished_pair<'r, 'a>(&mut self, runs: &'r [RunView<'a>], a: Policy, b: Policy) -> Option<(&'r RunView<'a>, &'r RunView<'a>)> {
        let ra = find(runs, a).filter(|r| r.finished);
        let rb = find(runs, b).filter(|r| r.finished);
        for (p, r) in [(a, ra), (b, rb)] {
            if r.is_none() {
                self.wait(p);
            }
        }
        Some((ra?, rb?))
    }

    /// A decided comparison; on failure the relinks that count toward the metric are its
    /// causes (for throughput: every relink, since relinks are what cost time).
    fn settle(&mut self, holds: bool, metric: Metric, runs: &[&RunView]) {
        if holds {
            return;
        }
        self.status = Status::Fail;
        for run in runs {
            self.add_causes(run.policy, run.relinks().filter(|f| counts_toward(metric, f.verdict)));
        }
    }

    fn compare_with(&mut self, value: f64, reference: f64, tolerance_pct: f64, metric: Metric, runs: &[&RunView]) {
        let deviation_pct = (value / reference - 1.0).abs() * 100.0;
        self.settle(deviation_pct <= tolerance_pct, metric, runs);
        self.observed.push(Observed::Deviation { value, reference, deviation_pct });
    }
}

/// Numbers as a person reads them: whole counts plainly, other figures to 4 significant digits.
fn figure(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v}")
    } else if v.is_finite() && v != 0.0 {
        let digits = (3 - v.abs().log10().floor() as i32).max(0) as usize;
        format!("{v:.digits$}")
    } else {
        format!("{v}")
    }
}

fn site_counts(list: &[(String, u64)]) -> String {
    let parts: Vec<String> = list.iter().map(|(s, n)| format!("{s} ({n})")).collect();
    if parts.is_empty() {
        "no site".into()
    } else {
        parts.join(", ")
    }
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observed::Relinked { policy, sites, unattributed } => {
                write!(f, "under {policy} the matching events relinked {}", site_counts(sites))?;
                if !unattributed.is_empty() {
                    write!(f, "; relinks past the record cap, not attributed to an event: {}", site_counts(unattributed))?;
                }
                Ok(())
            }
            Observed::Figure { policy, metric, value } => write!(f, "{metric} under {policy} = {}", figure(*value)),
            Observed::Pair { metric, a, a_value, b, b_value, ratio } => {
                write!(f, "{metric}: {a} {}, {b} {}, ratio {}", figure(*a_value), figure(*b_value), figure(*ratio))
            }
            Observed::Deviation { value, reference, deviation_pct } => {
                write!(f, "{} vs {} ({}% apart)", figure(*value), figure(*reference), figure(*deviation_pct))
            }
            Observed::Waiting { policy } => write!(f, "waiting for the {policy} run"),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let event = match (&self.event_label, self.event) {
            (Some(l), Some(id)) => format!("`{l}` (event {id})"),
            (Some(l), None) => format!("`{l}`"),
            (None, Some(id)) => format!("event {id}"),
            (None, None) => "no recorded event".into(),
        };
        let phase = match self.phase {
            Phase::Setup => "setup",
            Phase::Warmup => "warm-up",
            Phase::Measure => "measured",
            Phase::Done => "done",
        };
        write!(f, "{event} relinked {} ({}) under {}, {phase} op {}, t = {} ms", self.site, self.verdict, self.policy, self.op, figure(self.t_ms))
    }
}
