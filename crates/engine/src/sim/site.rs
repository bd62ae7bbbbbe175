//! The call-site state machine: a site's link, its inline cache (PIC), the fast chain and the
//! fallback storm, in closed form over `n` calls with the world unchanged (Groovy's
//! `IndyInterface` / `CacheableCallSite` behaviour).

use std::num::NonZeroU32;

use crate::params::Params;
use crate::policy::DomainKey;
use crate::report::{RelinkRecord, SiteState, SiteStats, Verdict};
use crate::world::{ClassId, Target, World};

use super::domains::Domains;
use super::Simulation;

/// Relink records kept (the totals count every one).
const MAX_RELINK_RECORDS: usize = 20_000;

/// In declaration order (`repr(C)`), the domain first: see [`SiteRt`]'s layout.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Link {
    pub domain: DomainKey,
    pub target: Target,
    pub epoch: u32,
    pub serial: u64,
}

/// In declaration order (`repr(C)`): the flags (where `Option`'s tag lives) and the link's
/// domain in the entry's first 16 bytes, what an event's walk reads.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct PicEntry {
    /// `false` = the "uncacheable" sentinel: every hit re-selects.
    cacheable: bool,
    /// Whether a call has reached the entry since it was stored (a miss stores it and calls
    /// it; a reset after a fallback storm stores it for the next call to find).
    seen: bool,
    link: Link,
    /// Consecutive-hit count (lives on the wrapper, as in Groovy).
    hits: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Default,
    /// On the fast chain. Its link is the PIC entry's: a site is promoted to the entry it hit,
    /// and its PIC is replaced only after it is back on the default target, so the link is
    /// kept once.
    Fast,
}

/// A site on a valid fast chain to its true target, inside the running loop: each of its calls
/// costs `fast_call_ns` and changes nothing but `fast_calls`, so a segment adds them in closed
/// form and counts them only when the site leaves this state (see [`SiteRt::settle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Steady {
    /// Loop iterations when the site became steady.
    pub since: u64,
    /// Times the loop calls the site per iteration (never 0, which lets `Option<Steady>` be
    /// 16 bytes).
    pub calls_per_iteration: NonZeroU32,
    /// One of its call positions (the only one when it is called once per iteration).
    pub position: u32,
}

/// The bytes at the head of a [`SiteRt`] that an event's walk reads (see its layout; a test
/// checks the fields).
pub(super) const WALKED_BYTES: usize = 88;

/// Laid out in declaration order (`repr(C)`): what an event's walk over the sites it retires
/// reads (`poly`, `mode`, `registered`, `steady`, the PIC entry's flags and domain) comes
/// first, in the first 48 bytes (88 with a steady site's `stats.fast_calls`), so a walk that
/// visits sites far apart touches one or two cache lines of each, not the whole 200 bytes
/// (the compiler's order spread them over four).
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct SiteRt {
    /// The receivers, cycle and multi-entry PIC of a polymorphic site (`sim::poly`); boxed,
    /// so a monomorphic site stays as small as it was.
    pub poly: Option<Box<super::poly::Poly>>,
    pub mode: Mode,
    /// Domains whose dependents list holds this site, one bit per kind of domain
    /// ([`kind_bit`]): a monomorphic site's links are guarded by its receiver's pending or class
    /// domain, its own (`ideal`) or the global one, so the kind names the domain.
    registered: u8,
    given_up: bool,
    pub true_cacheable: bool,
    /// The receiver class (`ClassId`; class ids fit in 32 bits, see [`Target`]).
    receiver: u32,
    pub steady: Option<Steady>,
    /// The inline cache. A site has one receiver class, so its PIC holds at most one entry
    /// (Groovy's LRU cache keyed by receiver class, at one key): inline, no allocation per site.
    pic: Option<PicEntry>,
    /// Next to the PIC: the walk settles a steady site into `stats.fast_calls`.
    pub stats: SiteStats,
    fallback_count: u64,
    /// Index into `Simulation::methods` (method names interned once).
    pub method: u32,
    rounds: u32,
    /// The event that last changed the true target, as `event + 1` (0: none; event ids fit in
    /// 32 bits: the work cap).
    pub true_changed_by: u32,
    pub true_target: Target,
    last_relink_recorded: Option<(DomainKey, u32)>,
}

impl SiteRt {
    pub fn new(receiver: ClassId, method: u32, true_target: Target) -> SiteRt {
        SiteRt {
            receiver: receiver as u32,
            method,
            mode: Mode::Default,
            pic: None,
            fallback_count: 0,
            rounds: 0,
            given_up: false,
            true_target,
            true_cacheable: true,
            true_changed_by: 0,
            last_relink_recorded: None,
            stats: SiteStats::default(),
            registered: 0,
            steady: None,
            poly: None,
        }
    }

    pub fn receiver(&self) -> ClassId {
        self.receiver as ClassId
    }

    /// Whether the site holds a link (fast chain or PIC entry) guarded by `k`.
    pub fn holds(&self, k: DomainKey) -> bool {
        if let Some(poly) = &self.poly {
            return poly.holds(k);
        }
        self.pic.as_ref().is_some_and(|e| e.link.domain == k)
    }

    /// Whether a change of the site's true target or cacheability (just refreshed) makes what
    /// it caches wrong: any cached link does, and so does the uncacheable sentinel once the
    /// receiver is cacheable again; a sentinel for a receiver that stays uncacheable does not.
    pub fn change_outdates_cache(&self) -> bool {
        if let Some(poly) = &self.poly {
            return poly.change_outdates_cache();
        }
        self.true_cacheable || self.pic.as_ref().is_some_and(|e| e.cacheable)
    }

    /// The fast chain's link, when the site is on it (see [`Mode::Fast`]).
    pub fn fast_link(&self) -> Option<&Link> {
        match self.mode {
            Mode::Fast => self.pic.as_ref().map(|e| &e.link),
            Mode::Default => None,
        }
    }

    /// The PIC entry, on the paths that just found one.
    fn entry(&mut self) -> &mut PicEntry {
        self.pic.as_mut().expect("the PIC holds an entry on this path")
    }

    /// Called when a walk of `k`'s dependents finds the site no longer holds it.
    pub fn unregister(&mut self, k: DomainKey) {
        if let Some(poly) = &mut self.poly {
            poly.unregister(k);
        }
        self.registered &= !kind_bit(k);
    }

    /// See [`Steady`].
    pub fn is_steady(&self, world: &World, domains: &Domains) -> bool {
        matches!(self.fast_link(), Some(l) if world.loaded(self.receiver()) && domains.valid(l) && l.target == self.true_target)
    }

    /// Leave the steady state at loop iteration `now`, counting the calls made in it.
    pub fn settle(&mut self, now: u64) {
        if let Some(st) = self.steady.take() {
            self.stats.fast_calls += u64::from(st.calls_per_iteration.get()) * (now - st.since);
        }
    }

    /// Stats as of loop iteration `now` (a steady site's calls are counted lazily).
    pub fn stats_at(&self, now: u64) -> SiteStats {
        let mut stats = self.stats.clone();
        if let Some(st) = self.steady {
            stats.fast_calls += u64::from(st.calls_per_iteration.get()) * (now - st.since);
        }
        stats
    }

    /// The visible state of the site (for the blast view).
    pub fn state(&self, domains: &Domains) -> SiteState {
        if let Some(poly) = &self.poly {
            return poly.state(domains);
        }
        match self.fast_link() {
            Some(l) if domains.valid(l) && l.target != self.true_target => SiteState::Stale,
            Some(l) if domains.valid(l) => SiteState::Linked,
            Some(_) => SiteState::FallingBack,
            None if !self.true_cacheable => SiteState::Uncached,
            None if self.given_up => SiteState::GivenUp,
            None => SiteState::Pic,
        }
    }
}

/// A monomorphic site's registration bit for a domain of `k`'s kind (see `SiteRt::registered`).
fn kind_bit(k: DomainKey) -> u8 {
    match k {
        DomainKey::Global => 1,
        DomainKey::Pending(_) => 2,
        DomainKey::Class(_) => 4,
        DomainKey::Site(_) => 8,
    }
}

/// The parameters a site's run reads, copied out of [`Params`] once per run (the state
/// machine borrows the simulation mutably while it reads them).
#[derive(Clone, Copy)]
pub(super) struct SiteParams {
    pic_capacity: usize,
    optimize_threshold: u64,
    fallback_threshold: u64,
    fallback_cutoff: u32,
    fast_call_ns: f64,
    pic_call_ns: f64,
    selection_ns: f64,
}

impl SiteParams {
    pub(super) fn of(p: &Params) -> SiteParams {
        SiteParams {
            pic_capacity: p.pic_capacity,
            optimize_threshold: p.optimize_threshold,
            fallback_threshold: p.fallback_threshold,
            fallback_cutoff: p.fallback_cutoff,
            fast_call_ns: p.fast_call_ns,
            pic_call_ns: p.pic_call_ns,
            selection_ns: p.selection_ns,
        }
    }
}

impl Domains {
    pub fn valid(&self, l: &Link) -> bool {
        self.epoch(l.domain) == Some(l.epoch)
    }

    /// `None` while `l`'s guard holds; once it fails, its domain's epoch and last retirer (what
    /// a relink records), in the one lookup.
    #[inline]
    fn guard(&self, l: &Link) -> Option<(u32, Option<usize>)> {
        match self.epoch_and_retirer(l.domain) {
            Some((epoch, _)) if epoch == l.epoch => None,
            now => Some(now.unwrap_or((0, None))),
        }
    }
}

impl Simulation {
    /// `n` calls of site `s` in a loop segment (`p`: the parameters, copied once per segment).
    /// Returns virtual ns.
    pub(super) fn run_site(&mut self, s: usize, n: u64, p: &SiteParams) -> f64 {
        if self.sites[s].poly.is_some() {
            return self.run_poly(s, n);
        }
        if !self.world.loaded(self.sites[s].receiver()) {
            // Calling a class that is not loaded yet: NoClassDefFoundError each call, costed as a selection.
            return n as f64 * self.params.selection_ns;
        }
        self.run_calls(s, n, p)
    }

    /// A full selection: the fresh link for the site under the current world and policy.
    /// Inlined: returned through memory, the link is read back wider than it was written.
    #[inline(always)]
    fn select(&mut self, s: usize) -> (Link, bool) {
        let domain = crate::policy::domain_for(self.policy, &self.world, s, self.sites[s].receiver());
        let epoch = self.domains.open(domain);
        self.serial += 1;
        let site = &self.sites[s];
        (Link { target: site.true_target, domain, epoch, serial: self.serial }, site.true_cacheable)
    }

    /// Selection replacing a link whose guard failed: record the relink once per retirement.
    /// `now` is the domain's epoch and last retirer ([`Domains::guard`]). Inlined into its two
    /// callers: every site a retirement hit comes through here once.
    #[inline(always)]
    fn relink_from(&mut self, s: usize, old: &Link, now: (u32, Option<usize>)) {
        let (epoch, event) = now;
        let key = (old.domain, epoch);
        let site = &mut self.sites[s];
        if site.last_relink_recorded == Some(key) {
            return;
        }
        site.last_relink_recorded = Some(key);
        let verdict = if old.target == site.true_target { Verdict::Collateral } else { Verdict::Necessary };
        self.record_relink(s, verdict, event, old.domain, &old.target);
    }

    fn record_relink(&mut self, s: usize, verdict: Verdict, event: Option<usize>, domain: DomainKey, old: &Target) {
        let new = self.sites[s].true_target;
        self.record_relink_for(s, verdict, event, domain, old, new, None);
    }

    /// A relink (or missed dispatch) of site `s`; `receiver` names the receiver class whose
    /// entry it was on a polymorphic site.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_relink_for(
        &mut self,
        s: usize,
        verdict: Verdict,
        event: Option<usize>,
        domain: DomainKey,
        old: &Target,
        new: Target,
        receiver: Option<ClassId>,
    ) {
        let site = &mut self.sites[s];
        match verdict {
            Verdict::Necessary => site.stats.necessary += 1,
            Verdict::Collateral => site.stats.collateral += 1,
            Verdict::Missed => site.stats.missed += 1,
        }
        self.relinks_total[verdict as usize] += 1;
        // Counted into the timeline with the step's cost, at the same iteration (`advance`).
        self.pending_relinks[verdict as usize] += 1;
        if self.relinks.len() < MAX_RELINK_RECORDS {
            self.relinks.push(RelinkRecord {
                site: s,
                phase: self.phase,
                op: self.op_index,
                t_ms: self.now_ns / 1e6,
                event,
                domain,
                verdict,
                old_target: *old,
                new_target: new,
                receiver,
            });
        }
    }

    /// Calls served by a valid cached link: count stale dispatches the oracle sees.
    #[inline]
    fn served(&mut self, s: usize, link: &Link, calls: u64) {
        if link.target != self.sites[s].true_target {
            self.served_stale(s, link, calls);
        }
    }

    #[cold]
    fn served_stale(&mut self, s: usize, link: &Link, calls: u64) {
        self.sites[s].stats.stale_calls += calls;
        let cause = self.sites[s].true_changed_by;
        let key = (link.serial, cause);
        if self.last_missed.insert(s as u32, key) != Some(key) {
            let cause = cause.checked_sub(1).map(|e| e as usize);
            self.record_relink(s, Verdict::Missed, cause, link.domain, &link.target);
        }
    }

    #[inline(always)]
    fn pic_put(&mut self, s: usize, link: Link, cacheable: bool) {
        let site = &mut self.sites[s];
        // The new entry evicts the one for the same receiver, the only one there is.
        site.pic = None;
        if self.params.pic_capacity == 0 {
            return;
        }
        let domain = link.domain;
        site.pic = Some(PicEntry { link, cacheable, hits: 0, seen: false });
        if site.registered & kind_bit(domain) == 0 {
            site.registered |= kind_bit(domain);
            self.domains.depend(domain, s as u32);
        }
    }

    /// Run `n` consecutive calls of site `s` with the world unchanged. Returns virtual ns.
    fn run_calls(&mut self, s: usize, n: u64, p: &SiteParams) -> f64 {
        let mut left = n;
        let mut cost = 0.0;
        let mut steps = 0;
        while left > 0 {
            steps += 1;
            debug_assert!(steps <= super::program::STEPS_PER_SITE_SEGMENT, "a site run took more steps than the work bound assumes");
            match self.sites[s].fast_link().copied() {
                Some(link) => {
                    if let Some(now) = self.domains.guard(&link) {
                        // Guard failure: every call re-selects until the fallback threshold resets
                        // the target to default; the stale chain stays installed meanwhile.
                        self.relink_from(s, &link, now);
                        let site = &mut self.sites[s];
                        let until_reset = (p.fallback_threshold + 1).saturating_sub(site.fallback_count).max(1);
                        let k = left.min(until_reset);
                        site.fallback_count += k;
                        site.stats.selections += k;
                        site.stats.fallback_calls += k;
                        cost += k as f64 * p.selection_ns;
                        left -= k;
                        if site.fallback_count > p.fallback_threshold {
                            site.mode = Mode::Default;
                            site.fallback_count = 0;
                            site.rounds += 1;
                            let (fresh, cacheable) = self.select(s);
                            self.pic_put(s, fresh, cacheable);
                        }
                    } else {
                        cost += left as f64 * p.fast_call_ns;
                        self.sites[s].stats.fast_calls += left;
                        self.served(s, &link, left);
                        left = 0;
                    }
                }
                None if p.pic_capacity == 0 => {
                    // No inline cache: every call is a miss that selects (closed form of the
                    // PIC-miss path below, taken `left` times).
                    self.select(s);
                    self.serial += left - 1;
                    let site = &mut self.sites[s];
                    site.stats.selections += left;
                    site.stats.pic_calls += left;
                    cost = super::vsum::add_repeated(cost, p.selection_ns + p.pic_call_ns, left);
                    left = 0;
                }
                None => self.run_default(s, &mut left, &mut cost, p),
            }
        }
        cost
    }

    /// Calls on the default target (Groovy's `fromCacheHandle`); consumes at least one call and
    /// adds each step's virtual ns to `cost` in call order.
    /// Inlined into `run_calls`, its one caller.
    #[inline(always)]
    fn run_default(&mut self, s: usize, left: &mut u64, cost: &mut f64, p: &SiteParams) {
        let Some(entry) = self.sites[s].pic else {
            return self.pic_miss(s, left, cost, p);
        };
        let guard = self.domains.guard(&entry.link);
        let valid = guard.is_none();
        if !entry.cacheable {
            if valid {
                let site = &mut self.sites[s];
                let k = *left;
                site.stats.selections += k;
                site.stats.pic_calls += k;
                *left = 0;
                *cost += k as f64 * (p.pic_call_ns + p.selection_ns);
                return;
            }
            // A stale sentinel is a miss.
            self.sites[s].pic = None;
            return self.pic_miss(s, left, cost, p);
        }
        let site = &mut self.sites[s];
        if !entry.seen {
            site.entry().seen = true;
            site.entry().hits = 0;
            if valid {
                site.stats.pic_calls += 1;
                *left -= 1;
                self.served(s, &entry.link, 1);
                *cost += p.pic_call_ns;
                if *left > 0 {
                    self.pic_hits(s, &entry.link, false, left, cost, p);
                }
                return;
            }
        } else if valid {
            return self.pic_hits(s, &entry.link, false, left, cost, p);
        } else {
            site.entry().hits += 1;
        }
        // A stale PIC entry: promotion may still install its (stale) chain, then the guard fails.
        let site = &mut self.sites[s];
        if site.entry().hits > p.optimize_threshold {
            site.entry().hits = 0;
            if site.rounds > p.fallback_cutoff {
                site.given_up = true;
            } else {
                site.mode = Mode::Fast;
            }
        }
        self.relink_from(s, &entry.link, guard.unwrap_or((0, None)));
        let site = &mut self.sites[s];
        site.fallback_count += 1;
        site.stats.selections += 1;
        site.stats.fallback_calls += 1;
        site.stats.pic_calls += 1;
        *left -= 1;
        if site.fallback_count > p.fallback_threshold && site.mode == Mode::Fast {
            site.mode = Mode::Default;
            site.fallback_count = 0;
            site.rounds += 1;
        }
        *cost += p.pic_call_ns + p.selection_ns;
        if self.sites[s].mode == Mode::Default {
            let (fresh, cacheable) = self.select(s);
            self.pic_put(s, fresh, cacheable);
            // The next call finds the fresh entry (valid: its domain's epoch was just read)
            // for the first time: the first branch above, taken here without a second lookup.
            let site = &mut self.sites[s];
            if let Some(e) = site.pic.as_mut().filter(|e| e.cacheable && *left > 0) {
                e.seen = true;
                e.hits = 0;
                site.stats.pic_calls += 1;
                *left -= 1;
                *cost += p.pic_call_ns;
                if *left > 0 {
                    self.pic_hits(s, &fresh, true, left, cost, p);
                }
            }
        }
    }

    /// A call that finds no PIC entry: select, store (or store the uncacheable sentinel), invoke.
    fn pic_miss(&mut self, s: usize, left: &mut u64, cost: &mut f64, p: &SiteParams) {
        let (fresh, cacheable) = self.select(s);
        self.pic_put(s, fresh, cacheable);
        let site = &mut self.sites[s];
        if let Some(e) = site.pic.as_mut() {
            e.seen = true;
        }
        site.stats.selections += 1;
        site.stats.pic_calls += 1;
        *left -= 1;
        *cost += p.selection_ns + p.pic_call_ns;
        // The next call hits the entry just stored (valid: its domain's epoch was just read).
        if cacheable && site.pic.is_some() && site.mode == Mode::Default && *left > 0 {
            self.pic_hits(s, &fresh, true, left, cost, p);
        }
    }

    /// Calls on a valid PIC entry that a call has reached before: consecutive hits until
    /// promotion (the count passes the threshold), then the fast chain, or past the cutoff the
    /// default target for good. Consumes at least one call; the entry's link is `link`, `fresh`
    /// when it was selected in this run (its target is the true one: no call can be stale).
    #[inline(always)]
    fn pic_hits(&mut self, s: usize, link: &Link, fresh: bool, left: &mut u64, cost: &mut f64, p: &SiteParams) {
        let site = &mut self.sites[s];
        let hits = site.entry().hits;
        let need = (p.optimize_threshold + 1).saturating_sub(hits).max(1);
        let k = (*left).min(need);
        site.stats.pic_calls += k;
        *left -= k;
        let promoted = hits + k > p.optimize_threshold;
        site.entry().hits = if promoted { 0 } else { hits + k };
        if promoted {
            if site.rounds > p.fallback_cutoff {
                // Give up for good: the default target keeps serving from the PIC.
                site.given_up = true;
                site.stats.pic_calls += *left;
                let rest = *left;
                *left = 0;
                if !fresh {
                    self.served(s, link, k + rest);
                }
                *cost += (k + rest) as f64 * p.pic_call_ns;
                return;
            }
            site.mode = Mode::Fast;
        }
        if !fresh {
            self.served(s, link, k);
        }
        *cost += k as f64 * p.pic_call_ns;
    }
}

#[cfg(test)]
mod tests {
    //! The state machine step by step, on one site with tiny thresholds: promote after 3
    //! consecutive PIC hits, reset after 3 guard failures, give up after the second round.

    use super::*;
    use crate::{dsl, Event, Policy};

    fn sim(semantics: &str, policy: Policy) -> Simulation {
        let text = format!("semantics {semantics}\nclass P {{ m }}\nclass A extends P {{ m }}\nsite a = A.m\nop {{ loop 1 {{ call a }} }}");
        let params = Params { optimize_threshold: 2, fallback_threshold: 2, fallback_cutoff: 1, ..Params::default() };
        Simulation::new(&dsl::parse(&text).unwrap(), policy, &params).unwrap()
    }

    fn calls(sim: &mut Simulation, n: u64) -> SiteState {
        let p = SiteParams::of(&sim.params);
        sim.run_calls(0, n, &p);
        sim.site_state(0)
    }

    fn write(sim: &mut Simulation, class: &str, method: &str) {
        sim.fire(&Event::Write { class: class.into(), method: method.into() });
    }

    #[test]
    fn what_an_event_walk_reads_is_at_the_head_of_a_site() {
        use std::mem::{offset_of, size_of};
        let ends = [
            offset_of!(SiteRt, poly) + size_of::<Option<Box<crate::sim::poly::Poly>>>(),
            offset_of!(SiteRt, mode) + 1,
            offset_of!(SiteRt, registered) + 1,
            offset_of!(SiteRt, steady) + size_of::<Option<Steady>>(),
            offset_of!(SiteRt, pic) + offset_of!(PicEntry, link) + offset_of!(Link, domain) + size_of::<DomainKey>(),
            offset_of!(SiteRt, stats) + offset_of!(SiteStats, fast_calls) + 8,
        ];
        assert!(ends.iter().all(|&e| e <= WALKED_BYTES), "{ends:?}");
        assert_eq!(offset_of!(PicEntry, cacheable), 0, "the entry's flags (where `Option` keeps its tag) come first");
    }

    #[test]
    fn a_miss_selects_then_consecutive_hits_promote_to_the_fast_chain() {
        let mut s = sim("snapshot", Policy::Exact);
        assert_eq!(calls(&mut s, 1), SiteState::Pic, "the first call misses the PIC and selects");
        assert_eq!((s.sites[0].stats.selections, s.sites[0].stats.pic_calls), (1, 1));
        assert_eq!(calls(&mut s, 2), SiteState::Pic, "two hits: not past the threshold yet");
        assert_eq!(calls(&mut s, 1), SiteState::Linked, "the third hit promotes");
        assert_eq!(s.sites[0].stats.pic_calls, 4);
        assert_eq!(calls(&mut s, 10), SiteState::Linked);
        assert_eq!((s.sites[0].stats.fast_calls, s.sites[0].stats.selections), (10, 1), "fast calls never select");
    }

    #[test]
    fn a_retired_guard_falls_back_then_resets_to_the_default_target() {
        let mut s = sim("snapshot", Policy::Exact);
        calls(&mut s, 4);
        write(&mut s, "A", "other");
        assert_eq!(s.site_state(0), SiteState::FallingBack, "the guard fails, the chain stays installed");
        assert_eq!(calls(&mut s, 2), SiteState::FallingBack);
        assert_eq!((s.sites[0].stats.fallback_calls, s.sites[0].stats.collateral), (2, 1), "one relink per retirement, however many calls");
        assert_eq!(calls(&mut s, 1), SiteState::Pic, "the third failure resets to the default target with a fresh selection");
        assert_eq!(s.sites[0].rounds, 1);
        assert_eq!(calls(&mut s, 4), SiteState::Linked, "and the site promotes again");
    }

    #[test]
    fn past_the_cutoff_a_site_stays_on_its_default_target() {
        let mut s = sim("snapshot", Policy::Exact);
        calls(&mut s, 4);
        for round in 0..2 {
            write(&mut s, "A", &format!("w{round}"));
            calls(&mut s, 3);
            calls(&mut s, 4);
        }
        assert_eq!(s.sites[0].rounds, 2);
        assert_eq!(s.site_state(0), SiteState::GivenUp, "promotion after the second round gives up instead");
        let pic_calls = s.sites[0].stats.pic_calls;
        assert_eq!(calls(&mut s, 100), SiteState::GivenUp);
        assert_eq!(s.sites[0].stats.pic_calls, pic_calls + 100, "served from the PIC for good");
    }

    #[test]
    fn the_oracle_calls_a_relink_to_a_new_target_necessary_and_to_the_same_one_collateral() {
        let mut s = sim("snapshot", Policy::Exact);
        calls(&mut s, 4);
        write(&mut s, "A", "m");
        calls(&mut s, 1);
        assert_eq!((s.sites[0].stats.necessary, s.sites[0].stats.collateral), (1, 0), "A.m was redefined");
        calls(&mut s, 6);
        write(&mut s, "A", "unrelated");
        calls(&mut s, 1);
        assert_eq!((s.sites[0].stats.necessary, s.sites[0].stats.collateral), (1, 1), "A.m is what it was");
        assert_eq!(s.relinks_since(0).iter().map(|r| r.verdict).collect::<Vec<_>>(), vec![Verdict::Necessary, Verdict::Collateral]);
    }

    #[test]
    fn the_oracle_flags_a_guard_that_passes_on_a_stale_target_as_missed() {
        // Live lookup, and A does not define `n`: a site on A.n dispatches to P.n. Under exact a
        // write on P leaves A's guard valid, so the site keeps calling the old P.n.
        let text = "semantics live\nclass P { n }\nclass A extends P\nsite a = A.n\nop { loop 1 { call a } }";
        let params = Params { optimize_threshold: 2, ..Params::default() };
        let mut s = Simulation::new(&dsl::parse(text).unwrap(), Policy::Exact, &params).unwrap();
        calls(&mut s, 4);
        write(&mut s, "P", "n");
        assert_eq!(calls(&mut s, 5), SiteState::Stale);
        assert_eq!((s.sites[0].stats.missed, s.sites[0].stats.stale_calls), (1, 5), "recorded once, every call counted");
        let mut h = Simulation::new(&dsl::parse(text).unwrap(), Policy::Hierarchy, &params).unwrap();
        calls(&mut h, 4);
        write(&mut h, "P", "n");
        calls(&mut h, 1);
        assert_eq!((h.sites[0].stats.missed, h.sites[0].stats.necessary), (0, 1), "hierarchy retires the subclass");
    }
}
