//! Replaying a trace under every policy: the scenario the trace implies (the classes seen as
//! receivers or written, each site with its receivers, the mutations in order) is built as DSL
//! text (so it opens in the editor like any other), run under every policy through
//! [`crate::compare::compare`], and each mutation's observed scope (the sites attributed to it)
//! is set beside the sites each policy retires, with precision and recall.
//!
//! What a log does not say is not invented: the hierarchy is what the log names (V8's prototype
//! map printouts, when `map-details` are written; Groovy's indy log names none), a metaclass change or prototype write adds a method
//! no site calls (`changed`: the listener and the map log say a class changed, not which
//! method), and only sites whose receiver classes the log names are replayed. A site counts for
//! a mutation only if it was linked before it (first seen on an earlier line): a site that was
//! not linked has nothing to lose. The log shows a site only when it misses, so a linked site
//! that never ran after the mutation counts as kept.

use std::fmt::Write as _;

use serde::Serialize;

use super::{blast_radii, MutationKind, SiteId, Trace};
use crate::compare::compare;
use crate::fxhash::FxMap;
use crate::{dsl, Params, Policy, Scenario, ScenarioError};

/// At most this many mutations and sites are replayed (the scenario stays small enough to run
/// under every policy at once); past it the replay is refused.
pub const MAX_REPLAY: usize = 10_000;

#[derive(Debug)]
pub enum ReplayError {
    /// No site names its receiver class (HotSpot logs name code, not call sites).
    NoSites,
    NoMutations,
    TooBig {
        sites: usize,
        mutations: usize,
    },
    /// The implied scenario was refused (a bug here: the text is generated).
    Scenario(ScenarioError),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::NoSites => write!(
                f,
                "no call site in this log names its receiver class, so there is nothing to replay (a HotSpot log names compiled code, not call sites)"
            ),
            ReplayError::NoMutations => write!(f, "the log has no mutation to replay"),
            ReplayError::TooBig { sites, mutations } => write!(f, "{sites} sites and {mutations} mutations: over the {MAX_REPLAY} a replay takes"),
            ReplayError::Scenario(e) => write!(f, "the implied scenario was refused: {e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Counts of one policy against the observation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Score {
    /// Sites both retired by the policy and relinked in the log.
    pub hits: u32,
    /// Retired by the policy, not relinked in the log.
    pub extra: u32,
    /// Relinked in the log, not retired by the policy.
    pub missed: u32,
}

impl Score {
    fn add(&mut self, o: Score) {
        self.hits += o.hits;
        self.extra += o.extra;
        self.missed += o.missed;
    }

    /// Of the sites the policy retires, the share the runtime relinked (1 when it retires none).
    pub fn precision(&self) -> f64 {
        ratio(self.hits, self.hits + self.extra)
    }

    /// Of the sites the runtime relinked, the share the policy retires (1 when none were).
    pub fn recall(&self) -> f64 {
        ratio(self.hits, self.hits + self.missed)
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        1.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

/// One mutation: the sites it could touch, the sites the log shows it touched, and per policy
/// the sites that policy retires.
#[derive(Clone, Debug, Serialize)]
pub struct MutationReplay {
    /// Index into [`Trace::mutations`].
    pub mutation: u32,
    /// Replayed sites linked before the mutation.
    pub linked: u32,
    pub observed: Vec<SiteId>,
    /// Per policy of [`Replay::policies`], the sites it retires (of the linked ones).
    pub predicted: Vec<Vec<SiteId>>,
    pub scores: Vec<Score>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Replay {
    /// The implied scenario as DSL text.
    pub text: String,
    pub policies: Vec<Policy>,
    /// The trace's site behind each scenario site `s<i>`.
    pub sites: Vec<SiteId>,
    pub mutations: Vec<MutationReplay>,
    /// Per policy, over every mutation.
    pub totals: Vec<Score>,
    /// Sites with a relink attributed to a mutation but no receiver class in the log (not
    /// replayed).
    pub unmodeled_observed: u32,
}

impl Replay {
    /// The policies whose scores fit the observation best (highest F1; ties all named).
    pub fn behaved_like(&self) -> Vec<Policy> {
        let best = self.totals.iter().map(Score::f1).fold(f64::NEG_INFINITY, f64::max);
        self.policies.iter().zip(&self.totals).filter(|(_, s)| s.f1() == best).map(|(p, _)| *p).collect()
    }
}

/// A DSL word for a name from a log (`java.lang.Long`, `<init>`, `churn$_run_closure1`).
fn word(name: &str) -> String {
    let mut w: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '$' { c } else { '_' }).collect();
    if !w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        w.insert(0, '_');
    }
    w
}

/// Distinct DSL words for the log's class names.
#[derive(Default)]
struct Words {
    of: FxMap<String, String>,
    used: FxMap<String, u32>,
    order: Vec<String>,
}

impl Words {
    fn get(&mut self, name: &str) -> String {
        if let Some(w) = self.of.get(name) {
            return w.clone();
        }
        let base = word(name);
        let n = self.used.entry(base.clone()).or_insert(0);
        *n += 1;
        let w = if *n == 1 { base } else { format!("{base}_{n}") };
        self.of.insert(name.to_string(), w.clone());
        self.order.push(name.to_string());
        w
    }
}

/// The mutation kinds a replay models as a class write.
fn replayable(k: MutationKind) -> bool {
    matches!(k, MutationKind::PrototypeWrite | MutationKind::MetaClassChange)
}

/// Build the scenario `t` implies and run it under every policy.
pub fn replay(t: &Trace) -> Result<Replay, ReplayError> {
    let sites: Vec<SiteId> = (0..t.sites.len() as SiteId).filter(|&s| !t.sites[s as usize].receivers.is_empty()).collect();
    // A write to a prototype whose class the log does not name (V8's own objects) is left out.
    let mutations: Vec<u32> =
        (0..t.mutations.len() as u32).filter(|&m| replayable(t.mutations[m as usize].kind) && t.mutations[m as usize].class != "?").collect();
    if sites.is_empty() {
        return Err(ReplayError::NoSites);
    }
    if mutations.is_empty() {
        return Err(ReplayError::NoMutations);
    }
    if sites.len() > MAX_REPLAY || mutations.len() > MAX_REPLAY {
        return Err(ReplayError::TooBig { sites: sites.len(), mutations: mutations.len() });
    }
    let text = scenario_text(t, &sites, &mutations);
    let scenario: Scenario = dsl::parse(&text).map_err(ReplayError::Scenario)?;
    let policies = Policy::ALL.to_vec();
    let runs = compare(scenario, &policies, &Params::default()).map_err(ReplayError::Scenario)?.runs;

    let radii = blast_radii(t);
    let modeled: FxMap<SiteId, usize> = sites.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let mut unmodeled_observed = 0;
    let mut out = Vec::new();
    let mut totals = vec![Score::default(); policies.len()];
    for (k, &m) in mutations.iter().enumerate() {
        let at = t.mutations[m as usize].at.line;
        let linked: Vec<bool> = sites.iter().map(|&s| t.sites[s as usize].first_line < at).collect();
        let observed: Vec<SiteId> = radii[m as usize].sites.iter().copied().filter(|s| modeled.contains_key(s)).collect();
        unmodeled_observed += radii[m as usize].sites.iter().filter(|s| !modeled.contains_key(s)).count() as u32;
        let mut predicted = Vec::new();
        let mut scores = Vec::new();
        for (p, run) in runs.iter().enumerate() {
            let record = run.events.get(k);
            let mut hit: Vec<SiteId> = record
                .map(|e| {
                    e.sites_hit
                        .iter()
                        .filter_map(|&i| run.sites[i].name.strip_prefix('s')?.parse::<usize>().ok())
                        .filter(|&i| linked[i])
                        .map(|i| sites[i])
                        .collect()
                })
                .unwrap_or_default();
            hit.sort_unstable();
            let score = Score {
                hits: hit.iter().filter(|s| observed.contains(s)).count() as u32,
                extra: hit.iter().filter(|s| !observed.contains(s)).count() as u32,
                missed: observed.iter().filter(|s| !hit.contains(s)).count() as u32,
            };
            totals[p].add(score);
            predicted.push(hit);
            scores.push(score);
        }
        out.push(MutationReplay { mutation: m, linked: linked.iter().filter(|&&l| l).count() as u32, observed, predicted, scores });
    }
    Ok(Replay { text, policies, sites, mutations: out, totals, unmodeled_observed })
}

/// The scenario as DSL text: flat classes, one site per replayed site, and a program that calls
/// every site, then fires each mutation and calls every site again.
fn scenario_text(t: &Trace, sites: &[SiteId], mutations: &[u32]) -> String {
    let mut words = Words::default();
    let mut methods: FxMap<String, Vec<String>> = FxMap::default();
    let mut site_lines = String::new();
    for (i, &s) in sites.iter().enumerate() {
        let site = &t.sites[s as usize];
        let method = word(site.member.as_deref().unwrap_or("m"));
        let receivers: Vec<String> = site.receivers.iter().map(|r| words.get(r)).collect();
        for r in &receivers {
            let ms = methods.entry(r.clone()).or_default();
            if !ms.contains(&method) {
                ms.push(method.clone());
            }
        }
        let calls: Vec<String> = receivers.iter().map(|r| format!("{r}.{method}")).collect();
        let _ = writeln!(site_lines, "site s{i} = {}  # {}", calls.join(", "), site.key);
    }
    let written: Vec<String> = mutations.iter().map(|&m| words.get(&t.mutations[m as usize].class)).collect();
    // The parents the log names, of every class so far and of those parents in turn (each
    // class has one parent, so this ends after at most as many rounds as there are pairs).
    let parent: FxMap<&str, &str> = t.parents.iter().map(|(c, p)| (c.as_str(), p.as_str())).collect();
    let mut i = 0;
    while i < words.order.len() {
        if let Some(p) = parent.get(words.order[i].as_str()) {
            words.get(p);
        }
        i += 1;
    }
    // Parents declared before their children.
    let mut order: Vec<String> = Vec::new();
    for name in &words.order {
        let mut chain = vec![name.as_str()];
        while let Some(&p) = parent.get(chain[chain.len() - 1]) {
            if chain.contains(&p) || chain.len() > words.order.len() {
                break;
            }
            chain.push(p);
        }
        for c in chain.into_iter().rev() {
            if !order.iter().any(|o| o == c) {
                order.push(c.to_string());
            }
        }
    }
    let mut s = String::from("scenario \"replay of a trace\"\nsemantics snapshot\nmeasure warmup 0 ops 1\n");
    for name in &order {
        let w = &words.of[name];
        let extends = parent.get(name.as_str()).map(|p| format!(" extends {}", words.of[*p])).unwrap_or_default();
        let mut ms = methods.get(w).cloned().unwrap_or_default();
        if !ms.iter().any(|m| m == "changed") {
            ms.push("changed".to_string());
        }
        let _ = writeln!(s, "class {w}{extends} {{ {} }}  # {name}", ms.join(" "));
    }
    s.push_str(&site_lines);
    // Each site is called as often as it has receivers between two mutations, so a
    // polymorphic site has linked every receiver (its mix cycles through them) when a mutation
    // comes, as in the log.
    let calls: String = (0..sites.len()).map(|i| format!(" call s{i}")).collect();
    let rounds = sites.iter().map(|&x| t.sites[x as usize].receivers.len()).max().unwrap_or(1);
    s.push_str("op {\n");
    let _ = writeln!(s, "  loop {rounds} {{{calls} }}");
    for (w, &m) in written.iter().zip(mutations) {
        let _ = writeln!(s, "  write {w}.changed  # log line {}", t.mutations[m as usize].at.line);
        let _ = writeln!(s, "  loop {rounds} {{{calls} }}");
    }
    s.push_str("}\n");
    s
}
