//! Polymorphic call sites: one site, several receiver classes in a seeded mix, and the inline
//! cache Groovy keeps per site, keyed by receiver class.
//!
//! What Groovy does (apache/groovy, `src/main/java/org/codehaus/groovy/vmplugin/v8/`):
//! - `CacheableCallSite`: the PIC is a `LinkedHashMap` in access order holding at most
//!   `CACHE_SIZE = groovy.indy.callsite.cache.size` (default 8) entries; `removeEldestEntry`
//!   drops the least recently used one when a ninth receiver class is put (`getAndPut`, `put`).
//! - `IndyInterface.fromCacheHandle`: the default target looks the receiver class up
//!   (`getAndPut`), selects on a miss and stores the wrapper; `getAndPut` resets the
//!   consecutive-hit count whenever another entry hits, and only more than
//!   `groovy.indy.optimize.threshold` consecutive hits of one entry promote the site to that
//!   entry's guarded chain.
//! - `IndyInterface.selectMethodHandle`: a cached handle whose SwitchPoint was invalidated falls
//!   back to a fresh selection, written back into the PIC for that receiver only
//!   (`putSelected`), so an invalidation costs one re-selection per receiver entry it guarded.
//! - Megamorphic: Groovy has no separate megamorphic state. A site that sees more receiver
//!   classes than the PIC holds keeps evicting and re-selecting on every miss
//!   (`IndyCompoundAssignTest.megamorphicSite_evictsViaLruButStaysCorrect`: "forces eviction +
//!   relink each pass"); the model reports that site as [`SiteState::Megamorphic`] from its
//!   first eviction on.
//!
//! The model keeps a polymorphic site on its default target: a receiver of weight `w` never
//! comes more than `w` times in a row in its cycle (weights add up to at most
//! `validate::MAX_MIX_PERIOD` = 1,000), so Groovy's promotion (more than 1,000 consecutive hits)
//! never happens; [`longest_run`] lets `Simulation::new` refuse parameters under which it
//! would. Costs are the monomorphic ones, per call: a hit is `pic_call_ns`, a miss, an evicted
//! receiver or an invalidated entry adds `selection_ns`; no constant is particular to it.
//!
//! Groovy 2.4 ([`SiteCache::Relink`], `Params::groovy_2_4`) keeps no PIC: the site's target
//! is the last selection, guarded by its receiver's metaclass, and a guard miss selects again
//! and sets the target (`IndyInterface.selectMethod` -> `Selector.setCallSiteTarget` ->
//! `MutableCallSite.setTarget`). The model runs it as a cache of one entry: every receiver
//! change costs a selection (`selection_ns`, Groovy 2.4's), and every relink deoptimizes the
//! loops whose C2 code inlined the site: [`Poly::relink_period`] tells their `jit::Unit`s how
//! often that happens (`Units::relinked`), so such a loop climbs to C2 and is thrown out of it
//! until `PerMethodRecompilationCutoff` leaves it in C1, where every call runs its chain out of
//! line. A site whose receiver never repeats in a row relinks on every call, whatever the
//! number of receivers (the Groovy 2.4 `poly` sweep: flat from two receivers on).
//!
//! The receiver sequence is a fixed cycle: receiver `i` `mix[i]` times, shuffled once by a
//! SplitMix64 generator seeded with the FNV-1a hash of the site's name, so the same scenario
//! gives the same sequence on every platform. With the world unchanged, the cache's state at a
//! cycle boundary repeats after one whole cycle (each entry then was used or selected in this
//! world), so a run of `n` calls steps through at most four cycles call by call and adds the
//! rest as whole cycles.

use crate::params::SiteCache;
use crate::policy::DomainKey;
use crate::report::{ReceiverReport, SiteState, SiteStats, Verdict};
use crate::world::{ClassId, Target, World};

use super::domains::Domains;
use super::link::{cause, CompactTarget, Key, Link};
use super::Simulation;

#[derive(Clone, Debug)]
struct Entry {
    /// The receiver (index into [`Poly::receivers`]) the entry is for.
    receiver: u8,
    link: Link,
    /// `false` = the "uncacheable" sentinel: every call of that receiver re-selects.
    cacheable: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Poly {
    pub receivers: Vec<ClassId>,
    pub weights: Vec<u32>,
    /// The receiver of each call in one cycle (indices into `receivers`).
    cycle: Vec<u8>,
    /// Calls made so far: the next call's receiver is `cycle[cursor % cycle.len()]`.
    cursor: u64,
    /// Per receiver: what a fresh selection dispatches to, whether it may be cached, and the
    /// event that last changed it.
    pub targets: Vec<Target>,
    pub cacheable: Vec<bool>,
    pub changed_by: Vec<Option<u32>>,
    /// The inline cache, least recently used first.
    pic: Vec<Entry>,
    /// Domains whose dependents list holds the site (one per receiver class at most, or the
    /// global / site domain).
    registered: Vec<DomainKey>,
    last_relink_recorded: Vec<Option<(DomainKey, u32)>>,
    last_missed_recorded: Vec<Option<(u64, Option<u32>)>>,
    /// Set by the first eviction: the site sees more receiver classes than its PIC holds.
    pub megamorphic: bool,
    /// Per receiver: relinks (necessary + collateral) of its entry.
    relinks: Vec<u64>,
    /// PIC entries evicted (`SiteStats::evictions`: only a polymorphic site evicts).
    pub evictions: u64,
}

/// FNV-1a (64-bit) of the site's name: the seed of its receiver cycle, the same on every platform.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// SplitMix64 (Steele, Lea, Flood 2014): one step of the generator.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Receiver `i` `weights[i]` times, shuffled (Fisher-Yates) by the site's seeded generator.
pub fn receiver_cycle(name: &str, weights: &[u32]) -> Vec<u8> {
    let mut cycle: Vec<u8> = weights.iter().enumerate().flat_map(|(i, &w)| std::iter::repeat_n(i as u8, w as usize)).collect();
    let mut state = seed(name);
    for i in (1..cycle.len()).rev() {
        let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
        cycle.swap(i, j);
    }
    cycle
}

/// Calls per receiver change, the cycle repeating (`None`: one receiver, it never changes).
pub fn change_period(cycle: &[u8]) -> Option<u64> {
    let n = cycle.len();
    let changes = (0..n).filter(|&i| cycle[i] != cycle[(i + n - 1) % n]).count() as u64;
    (changes > 0).then(|| n as u64 / changes)
}

/// The most calls in a row with one receiver, the cycle repeating.
pub fn longest_run(cycle: &[u8]) -> u64 {
    let n = cycle.len();
    let (mut best, mut run) = (0u64, 0u64);
    for i in 0..2 * n {
        run = if i > 0 && cycle[i % n] == cycle[(i - 1) % n] { run + 1 } else { 1 };
        best = best.max(run);
    }
    best.min(n as u64)
}

impl Poly {
    pub fn new(name: &str, receivers: Vec<ClassId>, weights: Vec<u32>, targets: Vec<Target>) -> Poly {
        let n = receivers.len();
        Poly {
            cycle: receiver_cycle(name, &weights),
            receivers,
            weights,
            cursor: 0,
            cacheable: vec![true; n],
            changed_by: vec![None; n],
            targets,
            pic: Vec::new(),
            registered: Vec::new(),
            last_relink_recorded: vec![None; n],
            last_missed_recorded: vec![None; n],
            megamorphic: false,
            relinks: vec![0; n],
            evictions: 0,
        }
    }

    /// Under [`SiteCache::Relink`], calls between two relinks of the site (one per receiver
    /// change, on average over the cycle); `None` when it never relinks.
    pub fn relink_period(&self, cache: SiteCache) -> Option<u64> {
        match cache {
            SiteCache::Pic => None,
            SiteCache::Relink => change_period(&self.cycle),
        }
    }

    pub fn holds(&self, k: Key) -> bool {
        self.pic.iter().any(|e| e.link.domain == k)
    }

    pub fn unregister(&mut self, k: DomainKey) {
        self.registered.retain(|&r| r != k);
    }

    /// Per receiver: its class, weight, whether it is cached and its relinks.
    pub fn report(&self, world: &World) -> Vec<ReceiverReport> {
        (0..self.receivers.len())
            .map(|r| ReceiverReport {
                class: world.classes[self.receivers[r]].name.to_string(),
                weight: self.weights[r],
                cached: self.pic.iter().any(|e| e.receiver as usize == r),
                relinks: self.relinks[r],
            })
            .collect()
    }

    /// Receiver classes with an entry in the PIC, least recently used first.
    #[cfg(test)]
    pub fn cached(&self) -> impl Iterator<Item = ClassId> + '_ {
        self.pic.iter().map(|e| self.receivers[e.receiver as usize])
    }

    /// Whether a change of some receiver's true target makes what the site caches wrong (see
    /// `SiteRt::change_outdates_cache`).
    pub fn change_outdates_cache(&self) -> bool {
        self.cacheable.iter().any(|&c| c) || self.pic.iter().any(|e| e.cacheable)
    }

    pub fn state(&self, domains: &Domains) -> SiteState {
        if self.pic.iter().any(|e| domains.valid(&e.link) && e.cacheable && e.link.target.get() != self.targets[e.receiver as usize]) {
            SiteState::Stale
        } else if self.cacheable.iter().any(|&c| !c) {
            SiteState::Uncached
        } else if self.megamorphic {
            SiteState::Megamorphic
        } else {
            SiteState::Pic
        }
    }
}

impl Simulation {
    /// `n` calls of the polymorphic site `s` with the world unchanged. Returns virtual ns.
    pub(super) fn run_poly(&mut self, s: usize, n: u64) -> f64 {
        let p = self.sites[s].poly().expect("a polymorphic site");
        let len = self.poly(s).cycle.len() as u64;
        // To the next cycle boundary, then one whole cycle: the cache is in its periodic state.
        let to_boundary = (len - self.poly(s).cursor % len) % len;
        let warm = n.min(to_boundary + len);
        let mut cost = self.poly_calls(s, warm, 0.0);
        let mut left = n - warm;
        let mut steps = warm;
        if left >= 2 * len {
            // One cycle measured, the ones after it added whole.
            let (stats, serial) = (self.site_stats(s), self.serial);
            let cycle_cost = self.poly_calls(s, len, 0.0);
            cost += cycle_cost;
            let more = left / len - 1;
            let (d_stats, d_serial) = (delta(&self.site_stats(s), &stats), self.serial - serial);
            self.add_times(s, p, &d_stats, more);
            self.serial += d_serial * more;
            self.poly_mut(s).cursor += more * len;
            cost = super::vsum::add_repeated(cost, cycle_cost, more);
            left -= (more + 1) * len;
            steps += len;
        }
        steps += left;
        // Call by call: at most four cycles (`program::estimate` counts them per site run).
        self.work += steps;
        self.poly_calls(s, left, cost)
    }

    pub(super) fn poly(&self, s: usize) -> &Poly {
        &self.polys[self.sites[s].poly().expect("a polymorphic site")]
    }

    fn poly_mut(&mut self, s: usize) -> &mut Poly {
        &mut self.polys[self.sites[s].poly().expect("a polymorphic site")]
    }

    /// Add `k` times the counters `d` to site `s` (polymorphic: its `Poly` is `polys[p]`).
    fn add_times(&mut self, s: usize, p: usize, d: &SiteStats, k: u64) {
        let c = &mut self.sites[s].counts;
        c.fast_calls += d.fast_calls * k;
        c.pic_calls += d.pic_calls * k;
        c.selections += d.selections * k;
        c.fallback_calls += d.fallback_calls * k;
        let relinks = |now: u32, d: u64| u32::try_from(u64::from(now).saturating_add(d.saturating_mul(k))).unwrap_or(u32::MAX);
        c.necessary = relinks(c.necessary, d.necessary);
        c.collateral = relinks(c.collateral, d.collateral);
        if d.stale_calls > 0 || d.missed > 0 {
            let stale = self.stale.entry(s as u32).or_default();
            stale.calls += d.stale_calls * k;
            stale.missed += d.missed * k;
        }
        self.polys[p].evictions += d.evictions * k;
    }

    fn poly_calls(&mut self, s: usize, k: u64, mut cost: f64) -> f64 {
        for _ in 0..k {
            cost += self.poly_call(s);
        }
        cost
    }

    /// One call: the receiver comes from the cycle, its PIC entry serves it or it is selected.
    fn poly_call(&mut self, s: usize) -> f64 {
        let (pic_ns, selection_ns) = (self.params.pic_call_ns, self.params.selection_ns);
        let poly = &mut self.polys[self.sites[s].poly().expect("a polymorphic site")];
        let r = poly.cycle[(poly.cursor % poly.cycle.len() as u64) as usize];
        poly.cursor += 1;
        if !self.world.loaded(poly.receivers[r as usize]) {
            // NoClassDefFoundError each call, costed as a selection (as a monomorphic site).
            return selection_ns;
        }
        let found = poly.pic.iter().position(|e| e.receiver == r);
        let entry = found.map(|i| poly.pic.remove(i));
        self.sites[s].counts.pic_calls += 1;
        match entry {
            Some(e) if self.domains.valid(&e.link) => {
                // A hit moves the entry to the most recently used end (access order).
                let cacheable = e.cacheable;
                if cacheable {
                    self.poly_served(s, r, &e.link);
                } else {
                    self.sites[s].counts.selections += 1;
                }
                self.poly_mut(s).pic.push(e);
                if cacheable {
                    pic_ns
                } else {
                    pic_ns + selection_ns
                }
            }
            Some(e) => {
                // The entry's SwitchPoint was invalidated: its handle falls back to a selection
                // for this receiver (a stale sentinel is a plain miss).
                if e.cacheable {
                    self.poly_relink_from(s, r, &e.link);
                    self.sites[s].counts.fallback_calls += 1;
                }
                self.poly_select(s, r);
                pic_ns + selection_ns
            }
            None => {
                self.poly_select(s, r);
                pic_ns + selection_ns
            }
        }
    }

    /// Select for receiver `r` and put the result in the PIC, evicting the least recently used
    /// entry when it is full.
    fn poly_select(&mut self, s: usize, r: u8) {
        let class = self.poly(s).receivers[r as usize];
        let domain = crate::policy::domain_for(self.policy, &self.world, s, class);
        let epoch = self.domains.open(domain);
        self.serial += 1;
        // Groovy 2.4's site holds one target: the selection replaces it.
        let capacity = match self.params.site_cache {
            SiteCache::Pic => self.params.pic_capacity,
            SiteCache::Relink => 1,
        };
        let site = &mut self.sites[s];
        site.counts.selections += 1;
        let poly = &mut self.polys[site.poly().expect("a polymorphic site")];
        if capacity == 0 {
            return;
        }
        if poly.pic.len() >= capacity {
            poly.pic.remove(0);
            poly.megamorphic = true;
            poly.evictions += 1;
        }
        let link = Link::new(domain, poly.targets[r as usize], epoch, self.serial);
        poly.pic.push(Entry { receiver: r, link, cacheable: poly.cacheable[r as usize] });
        if !poly.registered.contains(&domain) {
            poly.registered.push(domain);
            self.domains.depend(domain, s as u32);
        }
    }

    /// Receiver `r`'s entry failed its guard: record the relink once per retirement.
    fn poly_relink_from(&mut self, s: usize, r: u8, old: &Link) {
        let key = (old.domain.get(), self.domains.epoch(old.domain.get()).unwrap_or(0));
        let poly = self.poly_mut(s);
        if poly.last_relink_recorded[r as usize] == Some(key) {
            return;
        }
        poly.last_relink_recorded[r as usize] = Some(key);
        poly.relinks[r as usize] += 1;
        let now = &poly.targets[r as usize];
        let verdict = if old.target.get() == *now { Verdict::Collateral } else { Verdict::Necessary };
        let (new, class, changed_by) = (*now, poly.receivers[r as usize], poly.changed_by[r as usize]);
        let event = cause(verdict, changed_by.map(|e| e as usize), || self.domains.retired_by(old.domain.get()));
        self.record_relink_for(s, verdict, event, old, CompactTarget::new(new), Some(class));
    }

    /// A valid entry served receiver `r`: a stale target is a missed dispatch, recorded once.
    fn poly_served(&mut self, s: usize, r: u8, link: &Link) {
        let poly = self.poly_mut(s);
        let i = r as usize;
        if link.target.get() == poly.targets[i] {
            return;
        }
        let cause = poly.changed_by[i];
        let first = poly.last_missed_recorded[i] != Some((link.serial, cause));
        poly.last_missed_recorded[i] = Some((link.serial, cause));
        let (new, class) = (poly.targets[i], poly.receivers[i]);
        self.stale.entry(s as u32).or_default().calls += 1;
        if first {
            self.record_relink_for(s, Verdict::Missed, cause.map(|e| e as usize), link, CompactTarget::new(new), Some(class));
        }
    }
}

/// `now - before`, field by field (the counters only grow).
fn delta(now: &SiteStats, before: &SiteStats) -> SiteStats {
    SiteStats {
        fast_calls: now.fast_calls - before.fast_calls,
        pic_calls: now.pic_calls - before.pic_calls,
        selections: now.selections - before.selections,
        fallback_calls: now.fallback_calls - before.fallback_calls,
        stale_calls: now.stale_calls - before.stale_calls,
        necessary: now.necessary - before.necessary,
        collateral: now.collateral - before.collateral,
        missed: now.missed - before.missed,
        evictions: now.evictions - before.evictions,
    }
}

#[cfg(test)]
mod tests {
    //! The polymorphic state machine call by call: monomorphic -> polymorphic -> LRU eviction
    //! -> megamorphic, and which receivers' entries an invalidation throws away per policy.

    use super::*;
    use crate::{dsl, Event, Params, Policy};

    const SHAPES: &str =
        "class Shape { area }\nclass Round extends Shape\nclass Circle extends Round\nclass Ellipse extends Round\nclass Square extends Shape\n";

    fn sim(site: &str, policy: Policy) -> Simulation {
        let text = format!("{SHAPES}class C5 {{ area }}\nclass C6 {{ area }}\nclass C7 {{ area }}\nclass C8 {{ area }}\nclass C9 {{ area }}\n{site}\nop {{ loop 1 {{ call s }} }}");
        Simulation::new(&dsl::parse(&text).unwrap(), policy, &Params::default()).unwrap()
    }

    fn names(sim: &Simulation) -> Vec<String> {
        sim.poly(0).cached().map(|c| sim.world.classes[c].name.to_string()).collect()
    }

    #[test]
    fn the_receiver_cycle_is_seeded_by_the_name_and_keeps_the_mix() {
        let a = receiver_cycle("shapes", &[60, 30, 10]);
        assert_eq!(a, receiver_cycle("shapes", &[60, 30, 10]), "deterministic");
        assert_ne!(a, receiver_cycle("others", &[60, 30, 10]), "seeded by the site's name");
        assert_eq!([0u8, 1, 2].map(|r| a.iter().filter(|&&x| x == r).count()), [60, 30, 10]);
        assert!(longest_run(&a) <= 60);
        assert_eq!(longest_run(&[0, 1, 1, 0]), 2);
        assert_eq!(longest_run(&[0, 1, 0, 0]), 3, "the cycle repeats: the last run joins the first");
        assert_eq!(change_period(&[0, 1, 2]), Some(1), "a new receiver at every call");
        assert_eq!(change_period(&[0, 0, 1, 1]), Some(2));
        assert_eq!(change_period(&[0, 0, 0]), None, "one receiver never relinks");
    }

    #[test]
    fn one_receiver_then_more_then_lru_eviction_then_megamorphic() {
        let mut s = sim("site s = Round.area, Circle.area, Ellipse.area, Square.area, C5.area, C6.area, C7.area, C8.area, C9.area", Policy::Exact);
        // Each receiver once per cycle, in a fixed order for the test.
        s.poly_mut(0).cycle = (0..9).collect();
        s.run_poly(0, 1);
        assert_eq!((names(&s), s.site_state(0)), (vec!["Round".to_string()], SiteState::Pic), "monomorphic so far");
        s.run_poly(0, 1);
        assert_eq!(names(&s), ["Round", "Circle"], "polymorphic: a second entry");
        s.run_poly(0, 6);
        assert_eq!((s.poly(0).pic.len(), s.site_stats(0).evictions, s.site_state(0)), (8, 0, SiteState::Pic), "the PIC is full");
        s.run_poly(0, 1);
        assert_eq!(s.site_stats(0).evictions, 1);
        assert_eq!(names(&s).first().map(String::as_str), Some("Circle"), "Round, least recently used, was evicted");
        assert_eq!(s.site_state(0), SiteState::Megamorphic);
        // Round comes back: a miss that evicts Circle; every call of a cycle of 9 through an LRU
        // of 8 misses.
        let before = s.site_stats(0).selections;
        s.run_poly(0, 90);
        assert_eq!((s.site_stats(0).selections - before, s.site_stats(0).evictions), (90, 91));
    }

    #[test]
    fn a_hit_moves_its_entry_to_the_most_recently_used_end() {
        let mut s = sim("site s = Round.area, Circle.area, Ellipse.area, Square.area, C5.area, C6.area, C7.area, C8.area, C9.area", Policy::Exact);
        // Round, then the seven next ones, Round again (a hit), then the ninth: Circle goes.
        s.poly_mut(0).cycle = vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 8];
        s.run_poly(0, 10);
        assert_eq!(s.site_stats(0).evictions, 1);
        assert!(names(&s).contains(&"Round".to_string()) && !names(&s).contains(&"Circle".to_string()), "{:?}", names(&s));
    }

    /// The receivers whose entries `write Round.x` makes re-select, under `policy`.
    fn relinked_receivers(policy: Policy) -> Vec<String> {
        let mut s = sim("site s = Round.area, Circle.area, Ellipse.area, Square.area", policy);
        s.run_poly(0, 8);
        s.fire(&Event::Write { class: "Round".into(), method: "x".into() });
        s.run_poly(0, 8);
        let rs = s.relinks_since(0);
        assert!(rs.iter().all(|r| r.verdict == Verdict::Collateral), "a new method leaves area() where it was");
        rs.iter().map(|r| s.world.classes[r.receiver.expect("a polymorphic site's relink names its receiver")].name.to_string()).collect()
    }

    #[test]
    fn an_invalidation_retires_the_entries_of_the_receivers_its_policy_scopes() {
        let mut exact = relinked_receivers(Policy::Exact);
        let mut hierarchy = relinked_receivers(Policy::Hierarchy);
        let mut global = relinked_receivers(Policy::Global);
        for v in [&mut exact, &mut hierarchy, &mut global] {
            v.sort();
        }
        assert_eq!(exact, ["Round"], "exact: the written class's entry only");
        assert_eq!(hierarchy, ["Circle", "Ellipse", "Round"], "hierarchy: and its subclasses'");
        assert_eq!(global, ["Circle", "Ellipse", "Round", "Square"], "global: every entry");
    }

    #[test]
    fn a_redefinition_is_necessary_for_the_receivers_it_reaches() {
        let mut s = sim("site s = Round.area, Square.area mix 3/1", Policy::Exact);
        s.run_poly(0, 4);
        s.fire(&Event::Write { class: "Round".into(), method: "area".into() });
        s.run_poly(0, 4);
        let rs = s.relinks_since(0);
        assert_eq!(rs.len(), 1);
        assert_eq!((rs[0].verdict, s.world.classes[rs[0].receiver.unwrap()].name.as_str()), (Verdict::Necessary, "Round"));
        assert_eq!(s.site_state(0), SiteState::Pic);
    }

    #[test]
    fn whole_cycles_in_closed_form_match_call_by_call() {
        let site = "site s = Round.area, Circle.area, Ellipse.area, Square.area, C5.area, C6.area, C7.area, C8.area, C9.area mix 30/20/10/10/10/5/5/5/5";
        let mut fast = sim(site, Policy::Exact);
        let mut slow = sim(site, Policy::Exact);
        let cost = fast.run_poly(0, 10_007);
        let slow_cost = slow.poly_calls(0, 10_007, 0.0);
        assert_eq!(fast.site_stats(0), slow.site_stats(0));
        assert_eq!((fast.serial, fast.poly(0).cursor), (slow.serial, slow.poly(0).cursor));
        assert!((cost - slow_cost).abs() < 1e-6 * slow_cost, "{cost} vs {slow_cost}");
        assert!(fast.site_stats(0).evictions > 100, "nine receivers thrash an LRU of eight");
        assert!(fast.work_done() < 1_000, "a long run steps through a few cycles only: {}", fast.work_done());
    }

    #[test]
    fn parameters_that_would_promote_a_polymorphic_site_are_refused() {
        let text = format!("{SHAPES}site s = Round.area, Square.area mix 5/1\nop {{ loop 1 {{ call s }} }}");
        let params = Params { optimize_threshold: 2, ..Params::default() };
        let e = Simulation::new(&dsl::parse(&text).unwrap(), Policy::Exact, &params).err().expect("refused");
        assert!(e.message.contains("optimize_threshold"), "{e}");
    }
}
