//! Event firing: apply an event to the world, let the policy decide what it retires
//! ([`crate::policy`]), retire it, and find the sites hit by walking only the dependents of
//! what was retired.

use std::cell::Cell;

use crate::dsl::event_text;
use crate::params::BulkScan;
use crate::policy::{self, Policy, Retirement, Scope};
use crate::scenario::{Event, MetaKind};
use crate::world::ClassId;

use super::link::Key;
use super::oracle::{Affected, RECORDED_NAMES};
use super::poly::Poly;
use super::program::{Frame, LoopRun, Program};
use super::site::{mark_holds, SiteRt, VISIT, WALKED_BYTES};
use super::units::EventCode;
use super::{unsettle, Simulation};
use crate::prefetch::prefetch_head;

impl Simulation {
    pub(super) fn fire_category(&mut self, cat: usize, enter: bool) -> usize {
        let label = format!("{} {}", if enter { "enter" } else { "leave" }, self.world.category_names[cat]);
        let mut cost = self.params.category_switch_ns * self.units.fire(EventCode::Category, &self.params);
        if enter {
            self.world.active_categories.push(cat);
        } else if let Some(pos) = self.world.active_categories.iter().rposition(|&c| c == cat) {
            self.world.active_categories.remove(pos);
        }
        cost += self.bulk_scan_cost();
        let owners = self.world.categories[cat].iter().map(|(c, _)| *c).collect();
        self.finish_event(label, Some(Scope::bulk()), Affected::Classes(owners), cost)
    }

    fn bulk_scan_cost(&self) -> f64 {
        let visited = match self.params.bulk_scan {
            BulkScan::AllLoaded => self.params.loaded_classes as f64,
            BulkScan::LiveOnly => self.domains.live_class_domain_count() as f64,
        };
        visited * self.params.bulk_scan_per_class_ns
    }

    fn class(&self, name: &str) -> ClassId {
        self.world.class_id(name).expect("validated")
    }

    /// Apply an event to the world, retire domains per policy, record it. Returns its id.
    pub(super) fn fire(&mut self, ev: &Event) -> usize {
        let p = self.params.clone();
        let label = event_text(ev);
        // `None` = the event retires nothing by itself (e.g. removing a metaclass that is not there).
        let (scope, affected, cost) = match ev {
            Event::Write { class, method } => {
                let c = self.class(class);
                let scope = policy::write_scope(self.policy, &self.world, c);
                let mut cost = p.metaclass_write_ns + self.world.classes[c].own.len() as f64 * p.metaclass_write_per_method_ns;
                if self.world.meta(c) != MetaKind::Expando {
                    // `C.metaClass` hands out a fresh ExpandoMetaClass first.
                    cost += p.metaclass_install_ns;
                    self.install(c, MetaKind::Expando);
                }
                // Every closure installed is a new method identity.
                self.serial += 1;
                let version = u32::try_from(self.serial % u32::MAX as u64).unwrap_or(1).max(1);
                self.world.classes[c].own.insert(crate::name::Name::new(method), version);
                (Some(scope), Affected::Classes(vec![c]), cost)
            }
            Event::Replace { class, kind } => {
                let c = self.class(class);
                let cost = p.metaclass_install_ns;
                let scope = policy::replace_scope(self.policy, &self.world, c, self.world.meta(c), *kind);
                self.install(c, *kind);
                (Some(scope), Affected::Classes(vec![c]), cost)
            }
            Event::Remove { class } => {
                let c = self.class(class);
                let scope = policy::remove_scope(self.policy, &self.world, c);
                if scope.is_some() {
                    self.install(c, MetaKind::None);
                }
                // The registry removal itself is a map update; the retire and relinks are the cost.
                (scope, Affected::Classes(vec![c]), 0.0)
            }
            Event::PerInstance { class } => {
                let c = self.class(class);
                let cost = p.per_instance_ns;
                self.world.classes[c].per_instance = true;
                (Some(policy::per_instance_scope(self.policy, &self.world, c)), Affected::Classes(vec![c]), cost)
            }
            Event::Load { class, .. } => {
                let c = self.class(class);
                if self.world.loaded(c) {
                    (None, Affected::Nothing, 0.0)
                } else {
                    let cost = p.class_load_ns;
                    self.work += self.world.load_class(class, None, &[]).1;
                    (None, Affected::Classes(vec![c]), cost)
                }
            }
            Event::InvalidateAll | Event::Unattributed => (Some(Scope::bulk()), Affected::Nothing, self.bulk_scan_cost()),
        };
        // The event's own code, interpreted while cold.
        let tier_factor = self.units.fire(EventCode::of(ev), &p);
        self.finish_event(label, scope, affected, cost * tier_factor)
    }

    /// A new metaclass object for `c`: expando-added methods are gone, the snapshot is retaken.
    fn install(&mut self, c: ClassId, kind: MetaKind) {
        self.world.set_meta(c, kind);
        let cls = &mut self.world.classes[c];
        // Expando-added methods go with the old metaclass; declared ones are the compiled
        // methods again (version 0).
        cls.own = cls.declared.iter().map(|m| (m.clone(), 0)).collect();
        self.work += cls.declared.len() as u64 + self.world.rebuild_view(c);
    }

    pub(super) fn finish_event(&mut self, label: String, scope: Option<Scope>, affected: Affected, cost: f64) -> usize {
        let id = self.events_total;
        self.events_total += 1;
        let changed = self.refresh_truth(id, affected);
        self.work += 1 + scope.as_ref().map_or(0, |s| s.visited as u64);
        // `ideal` retires the sites whose cached decision the change made wrong. A site that
        // stays uncacheable caches only the sentinel "select on every call", which stays right
        // whatever its target becomes (fuzz finding fuzz/regressions/scenario/ideal-vs-exact).
        let outdated: Vec<usize> = if self.policy == Policy::Ideal {
            changed.iter().copied().filter(|&s| self.sites[s].change_outdates_cache(&self.polys)).collect()
        } else {
            Vec::new()
        };
        let retirement = policy::retirement(self.policy, &scope, &outdated);
        let live_retired = if retirement.bulk { self.domains.retire_all_classes(id) } else { self.domains.retire(&retirement.keys, id) };
        let cost = cost + live_retired as f64 * self.params.domain_retire_ns;
        self.advance(cost, 0);
        self.work += retirement.keys.len() as u64;
        let mut hit = std::mem::take(&mut self.hits);
        let hit_total = self.walk_retired(&retirement, &mut hit);
        // Compiled loops that inlined a retired fast chain lose their C2 code.
        let fast = std::mem::take(&mut self.fast_ordered);
        let sites = &self.sites;
        let inlined = fast.iter().filter_map(|&s| sites[s as usize].fast_link().map(|l| (s, l.domain.get())));
        let deopts = self.units.invalidate(inlined, id, self.iterations);
        self.fast_ordered = fast;
        if deopts > 0 {
            self.advance(deopts as f64 * self.params.deopt_ns, 0);
        }
        for &s in &changed {
            self.unsettle(s);
        }
        self.refresh_bodies(changed.iter().copied());
        self.record_event(id, label, live_retired, &retirement, (&hit, hit_total), &changed);
        self.hits = hit;
        self.timeline.mark(self.iterations, id);
        id
    }

    /// Sites holding a link guarded by what `r` retires, found by walking each retired
    /// domain's dependents; sites that let go of a domain leave its list on the way. Returns
    /// how many there are, the first [`RECORDED_NAMES`] in site order in `first` (what the
    /// event's record keeps). The walk is the event's one pass over the sites it hit: it
    /// unsettles them and lists those on a fast chain (`fast_ordered`, in site order).
    fn walk_retired(&mut self, r: &Retirement, first: &mut Vec<u32>) -> usize {
        let mut hit = std::mem::take(&mut self.scratch);
        hit.clear();
        let mut fast = std::mem::take(&mut self.fast_hit);
        fast.clear();
        let (now, program) = (self.iterations, &self.program);
        let run = match self.stack.last_mut() {
            Some(Frame::Loop(run)) => Some(run),
            _ => None,
        };
        // Read by the prefetch ahead and read and written by the walk: cells.
        let marks = Cell::from_mut(self.walk_marks.as_mut_slice()).as_slice_of_cells();
        // Raw: only ever prefetched (never read through) while the walk holds the sites.
        let base = self.sites.as_ptr();
        // A site the walk will read (its mark says so) is asked for a few entries early; the
        // others are decided by their mark alone.
        let ahead = |s: u32| {
            if marks.get(s as usize).is_some_and(|m| m.get() & VISIT != 0) {
                prefetch_head(base.wrapping_add(s as usize), WALKED_BYTES);
            }
        };
        let mut read = Reader { sites: &mut self.sites, polys: &mut self.polys, fast: &mut fast, now, run, program };
        // A site that is neither polymorphic, steady nor on a fast chain, and holds the link:
        // its mark says so, and the hit changes nothing in it. The rest read the site.
        let mut holds = |k: Key, s: u32| {
            let mark = &marks[s as usize];
            if mark.get() & VISIT == 0 && mark_holds(mark.get(), k) {
                debug_assert_eq!(mark.get(), read.sites[s as usize].walk_mark(), "site {s}'s walk mark is out of date");
                return true;
            }
            read.site(k, s, mark)
        };
        if r.bulk {
            self.work += self.domains.walk_all_class_dependents(&mut hit, &mut holds, ahead);
        }
        for &k in &r.keys {
            // Under bulk the class domains were just walked; a key without a domain walks nothing.
            if !r.bulk {
                let key = Key::new(k);
                self.work += self.domains.walk_dependents(k, &mut hit, |s| holds(key, s), ahead);
            }
        }
        let total = in_order(&hit, self.sites.len(), RECORDED_NAMES, first);
        let mut fast_ordered = std::mem::take(&mut self.fast_ordered);
        in_order(&fast, self.sites.len(), usize::MAX, &mut fast_ordered);
        self.fast_ordered = fast_ordered;
        self.scratch = hit;
        self.fast_hit = fast;
        total
    }
}

/// What a walk needs to read a site its mark does not decide (see `walk_retired`).
struct Reader<'w> {
    sites: &'w mut [SiteRt],
    polys: &'w mut [Poly],
    /// The sites hit on a fast chain, in walk order.
    fast: &'w mut Vec<u32>,
    now: u64,
    run: Option<&'w mut LoopRun>,
    program: &'w Program,
}

impl Reader<'_> {
    /// Whether site `s` (walk mark `mark`) holds a link guarded by `k`, a domain whose
    /// dependents list holds it: if it does, it is unsettled, listed when on a fast chain, and
    /// its mark refreshed; if not, it leaves the domain's registrations. Out of line, so the
    /// walk's loop keeps the mark-decided case inline.
    #[inline(never)]
    fn site(&mut self, k: Key, s: u32, mark: &Cell<u8>) -> bool {
        let site = &mut self.sites[s as usize];
        debug_assert!(mark.get() & VISIT != 0 || mark.get() == site.walk_mark(), "site {s}'s walk mark is out of date");
        if mark.get() & VISIT == 0 || !site.holds(k, self.polys) {
            site.unregister(k, self.polys);
            return false;
        }
        if site.fast_link().is_some() {
            self.fast.push(s);
        }
        unsettle(site, s as usize, self.now, self.run.as_deref_mut(), self.program);
        mark.set(site.walk_mark());
        true
    }
}

/// The first `limit` of `ids` (below `n`, maybe repeated) sorted without repeats, in `out`;
/// returns how many distinct ids there are. By a bitmap when they are many, so a retirement
/// of every site costs a pass over the bitmap (and a count of its bits) rather than a sort.
fn in_order(ids: &[u32], n: usize, limit: usize, out: &mut Vec<u32>) -> usize {
    out.clear();
    // A walk of one list in registration order (the global domain's, often) is in order already.
    if ids.windows(2).all(|w| w[0] < w[1]) {
        out.extend_from_slice(&ids[..ids.len().min(limit)]);
        return ids.len();
    }
    if ids.len() < n / 16 {
        out.extend_from_slice(ids);
        out.sort_unstable();
        out.dedup();
        let total = out.len();
        out.truncate(limit);
        return total;
    }
    let mut bits = vec![0u64; n.div_ceil(64)];
    for &s in ids {
        bits[s as usize / 64] |= 1 << (s % 64);
    }
    let mut total = 0;
    for (w, &word) in bits.iter().enumerate() {
        total += word.count_ones() as usize;
        let mut b = word;
        while b != 0 && out.len() < limit {
            out.push(w as u32 * 64 + b.trailing_zeros());
            b &= b - 1;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::in_order;

    #[test]
    fn in_order_keeps_the_first_distinct_ids_and_counts_them_all() {
        let mut out = Vec::new();
        for (ids, n) in [(vec![1, 4, 9], 10), (vec![9, 4, 9, 1, 4], 1000), (vec![9, 4, 9, 1, 4, 0, 7], 10)] {
            let mut distinct = ids.clone();
            distinct.sort_unstable();
            distinct.dedup();
            for limit in [0, 2, usize::MAX] {
                let total = in_order(&ids, n, limit, &mut out);
                assert_eq!(total, distinct.len(), "{ids:?} at n {n}");
                assert_eq!(out, distinct[..distinct.len().min(limit)], "{ids:?} at n {n}, limit {limit}");
            }
        }
    }
}
