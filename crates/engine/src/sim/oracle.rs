//! The oracle and the records: what a fresh selection would dispatch to after an event, for
//! the sites whose resolution can have changed, and the bounded event records.

use crate::policy::{DomainKey, Retirement};
use crate::report::EventRecord;
use crate::world::ClassId;

use super::Simulation;

/// Event records kept (the total counts every event).
const MAX_EVENT_RECORDS: usize = 5_000;
/// Names kept per list in one event record (the record also has the full counts).
pub const RECORDED_NAMES: usize = 100;
/// Retired domains named in one event record.
const RECORDED_DOMAINS: usize = 12;

/// Which sites' resolution an event can have changed.
pub(super) enum Affected {
    /// The world did not change (bulk events only retire).
    Nothing,
    /// These classes changed (own methods, metaclass, snapshot, per-instance flag, loading, or
    /// a category naming them): their sites and their subclasses' sites may resolve anew.
    Classes(Vec<ClassId>),
}

impl Simulation {
    /// Re-resolve the sites `affected` names; returns those whose dispatch changed, in order.
    pub(super) fn refresh_truth(&mut self, cause: usize, affected: Affected) -> Vec<usize> {
        let Affected::Classes(roots) = affected else { return Vec::new() };
        let mut classes: Vec<ClassId> = roots.iter().flat_map(|&c| self.world.subtree(c)).collect();
        classes.sort_unstable();
        classes.dedup();
        let mut candidates: Vec<usize> = classes.iter().flat_map(|&c| self.sites_by_class.get(c)).map(|&s| s as usize).collect();
        candidates.sort_unstable();
        // A polymorphic site is listed under each of its receivers.
        candidates.dedup();
        self.work += (classes.len() + candidates.len()) as u64;
        let mut changed = Vec::new();
        for s in candidates {
            let site = &mut self.sites[s];
            if let Some(p) = site.poly() {
                let poly = &mut self.polys[p];
                let mut any = false;
                for (r, &c) in poly.receivers.iter().enumerate() {
                    let t = self.world.resolve(c, &self.methods[site.method as usize]);
                    let ok = self.world.cacheable(c, &t);
                    if t != poly.targets[r] || ok != poly.cacheable[r] {
                        any = true;
                        poly.changed_by[r] = Some(cause as u32);
                    }
                    poly.targets[r] = t;
                    poly.cacheable[r] = ok;
                }
                self.work += poly.receivers.len() as u64;
                // The site's own fields follow its first receiver (names and views read them).
                site.set_truth(poly.targets[0], poly.cacheable[0]);
                if any {
                    changed.push(s);
                    site.true_changed_by = cause as u32 + 1;
                }
                continue;
            }
            let t = self.world.resolve(site.receiver(), &self.methods[site.method as usize]);
            let c = self.world.cacheable(site.receiver(), &t);
            if t != site.true_target() || c != site.true_cacheable() {
                changed.push(s);
                site.true_changed_by = cause as u32 + 1;
            }
            site.set_truth(t, c);
        }
        changed
    }

    /// `hit`: the first [`RECORDED_NAMES`] sites hit, in order, and how many there are.
    pub(super) fn record_event(&mut self, id: usize, label: String, live_retired: usize, r: &Retirement, hit: (&[u32], usize), changed: &[usize]) {
        if self.events.len() >= MAX_EVENT_RECORDS {
            return;
        }
        // The first few retired domains in key order: the smallest of the keys and, under bulk,
        // of the live class domains.
        let mut retired: Vec<DomainKey> = r.keys.iter().copied().take(RECORDED_DOMAINS).collect();
        if r.bulk {
            retired.extend(self.domains.live_class_domains().take(RECORDED_DOMAINS));
            retired.sort();
            retired.dedup();
        }
        self.events.push(EventRecord {
            id,
            phase: self.phase,
            op: self.op_index,
            t_ms: self.now_ns / 1e6,
            label,
            domains_retired: live_retired,
            domains: retired.into_iter().take(RECORDED_DOMAINS).collect(),
            sites_hit: hit.0.iter().take(RECORDED_NAMES).map(|&s| s as usize).collect(),
            sites_hit_total: hit.1,
            targets_changed: changed.iter().take(RECORDED_NAMES).copied().collect(),
            targets_changed_total: changed.len(),
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{presets, Params};

    use super::super::Simulation;

    /// Re-resolving only the changed classes' subtrees must agree with re-resolving every site.
    fn truth_is_fresh(sim: &Simulation) -> bool {
        sim.sites.iter().all(|s| {
            if let Some(p) = s.poly() {
                let poly = &sim.polys[p];
                return poly.receivers.iter().zip(&poly.targets).all(|(&c, t)| *t == sim.world.resolve(c, &sim.methods[s.method as usize]));
            }
            let t = sim.world.resolve(s.receiver(), &sim.methods[s.method as usize]);
            sim.world.cacheable(s.receiver(), &t) == s.true_cacheable() && t == s.true_target()
        })
    }

    #[test]
    fn the_targeted_oracle_matches_a_full_re_resolution_after_every_step() {
        for p in presets::all() {
            for policy in crate::Policy::ALL {
                let mut sim = Simulation::new(&p.scenario(), policy, &Params::default()).unwrap();
                while !sim.is_finished() {
                    sim.step();
                    assert!(truth_is_fresh(&sim), "{} under {policy} at event {}", p.id, sim.events_total());
                }
            }
        }
    }

    #[test]
    fn an_event_record_keeps_counts_and_the_first_names() {
        let text = "class A { m }\nsite a0 = A.m\nsite a1 = A.m\nop { loop 2000 { every 1000 { write A.m } call a0 call a1 } }";
        let mut sim = Simulation::new(&crate::dsl::parse(text).unwrap(), crate::Policy::Exact, &Params::default()).unwrap();
        while !sim.is_finished() {
            sim.step();
        }
        let last = sim.events_since(0).last().unwrap();
        assert_eq!((last.sites_hit_total, last.targets_changed_total), (2, 2));
        assert_eq!(last.sites_hit, vec![0, 1]);
        assert_eq!(crate::report::Naming::event_text(&sim, last).sites_hit, vec!["a0", "a1"]);
    }
}
