//! A trace's call sites (and compiled code units) as the trace left them: the view model the
//! page's blast view and why panel draw when a trace is open, as they draw a scenario's lanes.
//! Built in the engine worker from the whole trace and its replay; each site says how often it
//! was invalidated, how those invalidations were attributed to mutations (exact, by order, not
//! at all), which mutations hit it (log line, kind, target) and what each replayed policy would
//! have done to it (retired as the runtime did: necessary; kept though the runtime threw it
//! away: missed; retired though the runtime kept it: collateral).
//!
//! Bounded: at most [`MAX_SITES`] sites (the most invalidated, the rest counted) and
//! [`MAX_HITS`] mutations per site, whatever the log's size.

use std::collections::BTreeMap;

use blast_engine::trace::{Attribution, BlastRadius, Replay, Subject, Trace};
use serde::{Deserialize, Serialize};

/// Sites (and units) kept at most; the rest are counted in [`TraceSites::more`].
pub const MAX_SITES: usize = 2000;
/// Mutations listed per site at most; the rest are counted.
pub const MAX_HITS: usize = 12;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSites {
    /// The policies the replay ran, in its order (empty without a replay).
    pub policies: Vec<String>,
    /// Ordered by group, then function, then name: the blast view draws them grouped.
    pub sites: Vec<TraceSite>,
    /// Sites past [`MAX_SITES`] (the least invalidated).
    pub more: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSite {
    /// `file:line:col` (V8), `Sender.method` (Groovy), or a code unit's name (HotSpot).
    pub name: String,
    /// A compiled code unit rather than a call site.
    pub unit: bool,
    /// Source file (V8), sender class (Groovy) or holder (HotSpot).
    pub group: String,
    /// The function it is in, where the log says.
    pub function: String,
    pub invalidations: u32,
    pub exact: u32,
    pub by_order: u32,
    pub unattributed: u32,
    /// The mutations that hit it, in log order (at most [`MAX_HITS`]).
    pub hits: Vec<SiteHit>,
    pub more_hits: u32,
    /// Per policy of [`TraceSites::policies`]: necessary, collateral, missed over the trace.
    pub verdicts: Vec<[u32; 3]>,
}

impl TraceSite {
    /// How its invalidations were attributed, as the view draws it: the weakest of them.
    pub fn look(&self) -> &'static str {
        if self.unattributed > 0 {
            "unattributed"
        } else if self.by_order > 0 {
            "by-order"
        } else if self.exact > 0 {
            "exact"
        } else {
            "kept"
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteHit {
    /// The mutation's log line.
    pub line: u64,
    /// `prototype-write Point.extra3`.
    pub mutation: String,
    /// `exact`, `by order`.
    pub attribution: String,
    /// The invalidation's kind as the log names it (`LoadIC`, `dependency-change`, ...).
    pub invalidation: String,
    /// Per policy: `necessary` (retired, as the runtime did), `missed`, or empty when the
    /// replay did not model the site.
    pub replay: Vec<String>,
}

/// A site or unit, by the trace's id.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Thing {
    Site(u32),
    Unit(u32),
}

impl TraceSites {
    pub fn of(t: &Trace, replay: Option<&Replay>) -> TraceSites {
        let mut by: BTreeMap<Thing, TraceSite> = BTreeMap::new();
        let npol = replay.map_or(0, |r| r.policies.len());
        let fresh = |thing: Thing| -> TraceSite {
            let (name, group, function, unit) = match thing {
                Thing::Site(s) => {
                    let site = &t.sites[s as usize];
                    (site.key.to_string(), site.group().to_string(), site.function.clone().unwrap_or_default(), false)
                }
                Thing::Unit(u) => {
                    let unit = &t.units[u as usize];
                    // The group the fan-out table puts it in (its file, or its holder class).
                    let alone = BlastRadius { units: vec![u], ..BlastRadius::default() };
                    let group = alone.groups(t).into_iter().next().map(|g| g.name).unwrap_or_default();
                    (unit.name.clone(), group, unit.name.clone(), true)
                }
            };
            TraceSite { name, unit, group, function, verdicts: vec![[0; 3]; npol], ..TraceSite::default() }
        };
        // Which replay verdict each (mutation, thing) got, per policy.
        let subject = |id: u32| match replay.map(|r| r.subject) {
            Some(Subject::Units) => Thing::Unit(id),
            _ => Thing::Site(id),
        };
        let mut verdict: BTreeMap<(u32, Thing), Vec<String>> = BTreeMap::new();
        for m in replay.map(|r| r.mutations.as_slice()).unwrap_or_default() {
            for (p, predicted) in m.predicted.iter().enumerate() {
                for &id in predicted {
                    let hit = m.observed.contains(&id);
                    let s = by.entry(subject(id)).or_insert_with(|| fresh(subject(id)));
                    s.verdicts[p][if hit { 0 } else { 1 }] += 1;
                }
                for &id in m.observed.iter().filter(|id| !predicted.contains(id)) {
                    by.entry(subject(id)).or_insert_with(|| fresh(subject(id))).verdicts[p][2] += 1;
                }
            }
            for &id in &m.observed {
                let words = m.predicted.iter().map(|p| if p.contains(&id) { "necessary" } else { "missed" }.to_string()).collect();
                verdict.insert((m.mutation, subject(id)), words);
            }
        }
        for i in &t.invalidations {
            for thing in i.site.map(Thing::Site).into_iter().chain(i.unit.map(Thing::Unit)) {
                let s = by.entry(thing).or_insert_with(|| fresh(thing));
                s.invalidations += 1;
                let Some(c) = i.cause else {
                    s.unattributed += 1;
                    continue;
                };
                let attribution = match c.attribution {
                    Attribution::Exact => {
                        s.exact += 1;
                        "exact"
                    }
                    Attribution::ByOrder => {
                        s.by_order += 1;
                        "by order"
                    }
                };
                // One line per mutation: a second invalidation of the same site by it adds nothing.
                let m = &t.mutations[c.mutation as usize];
                if s.hits.iter().any(|h| h.line == m.at.line) {
                    continue;
                }
                if s.hits.len() == MAX_HITS {
                    s.more_hits += 1;
                    continue;
                }
                let member = m.member.as_deref().map(|x| format!(".{x}")).unwrap_or_default();
                s.hits.push(SiteHit {
                    line: m.at.line,
                    mutation: format!("{} {}{member}", m.kind.name(), m.class),
                    attribution: attribution.into(),
                    invalidation: i.kind.name().to_string(),
                    replay: verdict.get(&(c.mutation, thing)).cloned().unwrap_or_default(),
                });
            }
        }
        let mut sites: Vec<TraceSite> = by.into_values().collect();
        // The most invalidated are kept; then drawn grouped.
        crate::order::sort_by(&mut sites, |a, b| b.invalidations.cmp(&a.invalidations));
        let more = sites.len().saturating_sub(MAX_SITES) as u64;
        sites.truncate(MAX_SITES);
        crate::order::sort_by(&mut sites, |a, b| (&a.group, &a.function, &a.name).cmp(&(&b.group, &b.function, &b.name)));
        TraceSites { policies: replay.map(|r| r.policies.iter().map(|p| p.name().to_string()).collect()).unwrap_or_default(), sites, more }
    }

    pub fn find(&self, name: &str) -> Option<&TraceSite> {
        self.sites.iter().find(|s| s.name == name)
    }

    /// The sites' names, in the view's order (the why panel's picker).
    pub fn names(&self) -> Vec<String> {
        self.sites.iter().map(|s| s.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace_lab::view::tests::{committed_samples, sample};
    use blast_engine::trace::{blast_radii, replay};

    #[test]
    fn each_site_counts_the_invalidations_the_log_shows_at_it() {
        for name in committed_samples() {
            let t = sample(&name);
            let r = replay(&t).ok();
            let v = TraceSites::of(&t, r.as_ref());
            assert!(v.sites.len() <= MAX_SITES, "{name}");
            for s in &v.sites {
                assert_eq!(s.exact + s.by_order + s.unattributed, s.invalidations, "{name} {}", s.name);
                assert!(s.hits.len() <= MAX_HITS, "{name}");
            }
            if v.more == 0 {
                let placed = t.invalidations.iter().filter(|i| i.site.is_some()).count() + t.invalidations.iter().filter(|i| i.unit.is_some()).count();
                assert_eq!(v.sites.iter().map(|s| s.invalidations as usize).sum::<usize>(), placed, "{name}");
            }
            // Grouped: a group's sites are together.
            let mut seen: Vec<&str> = v.sites.iter().map(|s| s.group.as_str()).collect();
            seen.dedup();
            let mut unique = seen.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(seen.len(), unique.len(), "{name}: groups drawn apart");
        }
    }

    #[test]
    fn the_v8_sample_names_the_prototype_write_behind_each_point_site_and_its_replay() {
        let t = sample("v8-proto-write");
        let r = replay(&t).unwrap();
        let v = TraceSites::of(&t, Some(&r));
        let radii = blast_radii(&t);
        let first = radii.iter().find(|x| x.invalidations > 0).unwrap();
        let line = t.mutations[first.mutation as usize].at.line;
        let hit: Vec<&TraceSite> = v.sites.iter().filter(|s| s.hits.iter().any(|h| h.line == line)).collect();
        assert_eq!(hit.len(), first.sites.len());
        assert_eq!(v.policies.len(), r.policies.len());
        for s in hit {
            let h = s.hits.iter().find(|h| h.line == line).unwrap();
            assert!(h.mutation.starts_with("prototype-write Point"), "{h:?}");
            assert!(h.replay.len() == r.policies.len() || h.replay.is_empty(), "{h:?}");
            // Global retires every linked site: what the runtime threw away, it threw away too.
            if let Some(g) = r.policies.iter().position(|p| *p == blast_engine::Policy::Global).filter(|_| !h.replay.is_empty()) {
                assert_eq!(h.replay[g], "necessary", "{h:?}");
            }
        }
    }
}
