//! The call-site state machine: a site's link, its inline cache (PIC), the fast chain and the
//! fallback storm, in closed form over `n` calls with the world unchanged (Groovy's
//! `IndyInterface` / `CacheableCallSite` behaviour).

use std::num::NonZeroU32;

use crate::fxhash::FxMap;
use crate::params::Params;
use crate::policy::Policy;
use crate::report::{Phase, RelinkRecord, SiteState, Verdict};
use crate::world::{ClassId, Target, World};

use super::domains::Domains;
use super::link::{cause, CompactTarget, Key, Link, ID_BITS, ID_MASK, NO_PIC};
use super::poly::Poly;
use super::program::Program;
use super::Simulation;

/// Relink records kept (the totals count every one).
const MAX_RELINK_RECORDS: usize = 20_000;

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

/// A site's counters that every run touches ([`SiteStats`] in the report). The rare ones live
/// elsewhere: stale calls and missed dispatches in `Simulation::stale` (only a site serving a
/// stale target has them), evictions in `Poly` (only a polymorphic site evicts). Relinks are
/// 32 bits: at most one per retirement of a domain the site holds, so at most one per event
/// and receiver; they saturate rather than wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Counts {
    /// First: the walk settles a steady site into it.
    pub fast_calls: u64,
    pub pic_calls: u64,
    pub selections: u64,
    pub fallback_calls: u64,
    pub necessary: u32,
    pub collateral: u32,
}

/// What a site serving a stale target has (`Simulation::stale`; few sites do): its stale calls
/// and missed dispatches, and for a monomorphic site the (link serial, cause as `event + 1`)
/// of its last missed record (a polymorphic site keeps one per receiver in its `Poly`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stale {
    pub calls: u64,
    pub missed: u64,
    pub last: Option<(u64, u32)>,
}

/// `SiteRt::flags`.
const GIVEN_UP: u8 = 1;
const TRUE_CACHEABLE: u8 = 2;
/// The PIC holds an entry (`SiteRt::pic` and `pic_hits` are meaningful).
const PIC: u8 = 4;
/// `false` = the "uncacheable" sentinel: every hit re-selects.
const PIC_CACHEABLE: u8 = 8;
/// Whether a call has reached the entry since it was stored (a miss stores it and calls it; a
/// reset after a fallback storm stores it for the next call to find).
const PIC_SEEN: u8 = 16;

/// A site's walk mark (`Simulation::walk_marks`, [`SiteRt::walk_mark`]): what an event's walk
/// needs to know of a site without reading it. `VISIT`: the walk reads the site (polymorphic,
/// steady, or on a fast chain); else `HELD` with the kind of its PIC link's domain above it
/// (bits 2 and 3), or nothing.
pub(super) const VISIT: u8 = 1;
const HELD: u8 = 2;

/// A monomorphic site's relink from a link guarded by `k` at `epoch` (its domain's epoch
/// now) in 32 bits, never 0 (`Simulation::last_relinks` starts at 0, no relink): the kind of
/// the domain in the top two bits (a monomorphic site's links of one kind share one domain, see
/// [`mark_holds`]) and the epoch plus one below. An epoch counts its domain's retirements, at
/// most one per event, and a run's events are bounded by its work, below 2^30.
#[inline]
fn relink_stamp(k: Key, epoch: u32) -> u32 {
    debug_assert!(epoch < ID_MASK, "epochs count events, capped by the work bound");
    (k.parts().0 << ID_BITS) | ((epoch + 1) & ID_MASK)
}
const _: () = assert!(super::MAX_WORK < ID_MASK as u64);

/// Whether a site marked `mark` (not `VISIT`) holds a link guarded by `k`, a domain whose
/// dependents list holds the site. A monomorphic site registers with one domain of each kind
/// (its receiver's pending or class domain, its own, or the global one), so the kind of its
/// link's domain names the domain.
#[inline]
pub(super) fn mark_holds(mark: u8, k: Key) -> bool {
    mark == HELD | ((k.parts().0 as u8) << 2)
}

/// The bytes at the head of a [`SiteRt`] that an event's walk reads: its first cache line (see
/// its layout; a test checks the fields).
pub(super) const WALKED_BYTES: usize = 64;

/// Laid out in declaration order (`repr(C)`) and aligned to a cache line: what an event's walk
/// over the sites it retires reads (`mode`, `registered`, `flags`, `poly`, the PIC entry's
/// domain, `steady`, and a steady site's `counts.fast_calls`) is the site's first line, so a
/// walk that visits sites far apart touches one line of each, not the whole site. 128 bytes:
/// ids, domain keys and targets in 32-bit words, flags in bits; polymorphic sites, rare
/// counters and the last relink recorded beside the sites.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub(crate) struct SiteRt {
    pub mode: Mode,
    /// Domains whose dependents list holds this site, one bit per kind of domain
    /// ([`kind_bit`]): a monomorphic site's links are guarded by its receiver's pending or class
    /// domain, its own (`ideal`) or the global one, so the kind names the domain.
    registered: u8,
    /// `GIVEN_UP`, `TRUE_CACHEABLE`, and the PIC entry's `PIC`, `PIC_CACHEABLE`, `PIC_SEEN`.
    flags: u8,
    /// The receiver class (`ClassId`; class ids fit in 32 bits, see [`Target`]).
    receiver: u32,
    /// A polymorphic site's receivers, cycle and multi-entry PIC (`sim::poly`): its index in
    /// `Simulation::polys`, plus one (few sites are polymorphic).
    poly: Option<NonZeroU32>,
    /// Index into `Simulation::methods` (method names interned once).
    pub method: u32,
    /// The inline cache's entry (its flags are in `flags`: `PIC`, `PIC_CACHEABLE`,
    /// `PIC_SEEN`). A site has one receiver class, so its PIC holds at most one entry (Groovy's
    /// LRU cache keyed by receiver class, at one key): inline, no allocation per site.
    pic: Link,
    pub steady: Option<Steady>,
    /// `fast_calls` first, in the first line: the walk settles a steady site into it.
    pub counts: Counts,
    /// The PIC entry's consecutive-hit count (lives on the wrapper, as in Groovy).
    pic_hits: u64,
    fallback_count: u64,
    rounds: u32,
    /// The event that last changed the true target, as `event + 1` (0: none; event ids fit in
    /// 32 bits: the work cap).
    pub true_changed_by: u32,
    true_target: CompactTarget,
}

/// A site's runtime state is this size (the per-site memory bound of `tests/memory.rs` counts on it).
const _: () = assert!(std::mem::size_of::<SiteRt>() <= 128);

impl SiteRt {
    pub fn new(receiver: ClassId, method: u32, true_target: Target) -> SiteRt {
        SiteRt {
            receiver: receiver as u32,
            method,
            mode: Mode::Default,
            flags: TRUE_CACHEABLE,
            pic: NO_PIC,
            pic_hits: 0,
            fallback_count: 0,
            rounds: 0,
            true_target: CompactTarget::new(true_target),
            true_changed_by: 0,
            counts: Counts::default(),
            registered: 0,
            steady: None,
            poly: None,
        }
    }

    /// The site's index in `Simulation::polys`, when it is polymorphic.
    #[inline]
    pub fn poly(&self) -> Option<usize> {
        self.poly.map(|p| p.get() as usize - 1)
    }

    /// Make the site polymorphic: its `Poly` is `polys[index]`. Sites are capped far below 2^32.
    pub fn set_poly(&mut self, index: usize) {
        self.poly = u32::try_from(index + 1).ok().and_then(NonZeroU32::new);
    }

    pub fn receiver(&self) -> ClassId {
        self.receiver as ClassId
    }

    pub fn true_target(&self) -> Target {
        self.true_target.get()
    }

    pub fn true_cacheable(&self) -> bool {
        self.flags & TRUE_CACHEABLE != 0
    }

    /// What a fresh selection dispatches to now, and whether it may be cached (the oracle's).
    pub fn set_truth(&mut self, target: Target, cacheable: bool) {
        self.true_target = CompactTarget::new(target);
        self.set_flag(TRUE_CACHEABLE, cacheable);
    }

    fn given_up(&self) -> bool {
        self.flags & GIVEN_UP != 0
    }

    #[inline]
    fn set_flag(&mut self, bit: u8, on: bool) {
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
    }

    /// The PIC entry's link, when there is one.
    #[inline]
    fn pic_link(&self) -> Option<&Link> {
        (self.flags & PIC != 0).then_some(&self.pic)
    }

    #[inline]
    fn clear_pic(&mut self) {
        self.flags &= !(PIC | PIC_CACHEABLE | PIC_SEEN);
    }

    /// The site's walk mark (see [`VISIT`]).
    pub fn walk_mark(&self) -> u8 {
        if self.poly.is_some() || self.steady.is_some() || self.mode == Mode::Fast {
            return VISIT;
        }
        self.pic_link().map_or(0, |l| HELD | ((l.domain.parts().0 as u8) << 2))
    }

    /// Whether the site holds a link (fast chain or PIC entry) guarded by `k`.
    pub fn holds(&self, k: Key, polys: &[Poly]) -> bool {
        if let Some(p) = self.poly() {
            return polys[p].holds(k);
        }
        self.pic_link().is_some_and(|l| l.domain == k)
    }

    /// Whether a change of the site's true target or cacheability (just refreshed) makes what
    /// it caches wrong: any cached link does, and so does the uncacheable sentinel once the
    /// receiver is cacheable again; a sentinel for a receiver that stays uncacheable does not.
    pub fn change_outdates_cache(&self, polys: &[Poly]) -> bool {
        if let Some(p) = self.poly() {
            return polys[p].change_outdates_cache();
        }
        self.true_cacheable() || self.flags & (PIC | PIC_CACHEABLE) == PIC | PIC_CACHEABLE
    }

    /// The fast chain's link, when the site is on it (see [`Mode::Fast`]).
    #[inline]
    pub fn fast_link(&self) -> Option<&Link> {
        match self.mode {
            Mode::Fast => self.pic_link(),
            Mode::Default => None,
        }
    }

    /// Called when a walk of `k`'s dependents finds the site no longer holds it.
    pub fn unregister(&mut self, k: Key, polys: &mut [Poly]) {
        if let Some(p) = self.poly() {
            polys[p].unregister(k.get());
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
            self.counts.fast_calls += u64::from(st.calls_per_iteration.get()) * (now - st.since);
        }
    }

    /// The visible state of the site (for the blast view).
    pub fn state(&self, domains: &Domains, polys: &[Poly]) -> SiteState {
        if let Some(p) = self.poly() {
            return polys[p].state(domains);
        }
        match self.fast_link() {
            Some(l) if domains.valid(l) && l.target != self.true_target => SiteState::Stale,
            Some(l) if domains.valid(l) => SiteState::Linked,
            Some(_) => SiteState::FallingBack,
            None if !self.true_cacheable() => SiteState::Uncached,
            None if self.given_up() => SiteState::GivenUp,
            None => SiteState::Pic,
        }
    }
}
/// A monomorphic site's registration bit for a domain of `k`'s kind (see `SiteRt::registered`).
#[inline]
fn kind_bit(k: Key) -> u8 {
    1 << k.parts().0
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
        self.epoch_of_key(l.domain) == Some(l.epoch)
    }

    /// `None` while `l`'s guard holds; once it fails, its domain's epoch now.
    #[inline]
    fn guard(&self, l: &Link) -> Option<u32> {
        match self.epoch_of_key(l.domain) {
            Some(epoch) if epoch == l.epoch => None,
            now => Some(now.unwrap_or(0)),
        }
    }
}

/// What a monomorphic site's run reads and writes besides the site: the simulation's fields,
/// borrowed apart from its site table ([`Simulation::split`]), so a run holds its site by
/// reference instead of indexing the table at every field it touches (each index a bounds
/// check, and a reload of the table after every call the compiler cannot see through).
pub(super) struct Env<'a> {
    pub domains: &'a mut Domains,
    pub world: &'a World,
    policy: Policy,
    serial: &'a mut u64,
    /// Per monomorphic site, its last recorded relink's [`relink_stamp`]: one record per
    /// retirement, however many calls fail the guard.
    last_relinks: &'a mut [u32],
    /// Per site, its walk mark ([`VISIT`]): a run leaves it up to date.
    walk_marks: &'a mut [u8],
    pub log: RelinkLog<'a>,
    /// The parameters, copied once per segment.
    p: SiteParams,
}

/// A relink (or missed dispatch) from link `old` to target `new`; `receiver` names the
/// receiver class whose entry it was on a polymorphic site.
pub(super) struct Relink<'l> {
    pub verdict: Verdict,
    pub old: &'l Link,
    pub new: CompactTarget,
    pub receiver: Option<ClassId>,
}

/// Where relinks go: the first [`MAX_RELINK_RECORDS`] records, the totals by verdict, the
/// timeline's pending counts, the stale calls; and the moment a record is stamped with.
pub(super) struct RelinkLog<'a> {
    records: &'a mut Vec<RelinkRecord>,
    totals: &'a mut [u64; 3],
    pending: &'a mut [u64; 3],
    stale: &'a mut FxMap<u32, Stale>,
    phase: Phase,
    op: u32,
    now_ns: f64,
}

impl RelinkLog<'_> {
    /// Relink `r` of site `s`, whose counters are `counts`; `event` (the event that caused it)
    /// is asked only for the first [`MAX_RELINK_RECORDS`], the ones a record is kept of.
    /// Inlined: every site a retirement hit comes through here; what few of them do (a missed
    /// dispatch, one of the first records) is out of line.
    #[inline]
    pub(super) fn record(&mut self, counts: &mut Counts, s: usize, r: &Relink, event: impl FnOnce() -> Option<usize>) {
        match r.verdict {
            Verdict::Necessary => counts.necessary = counts.necessary.saturating_add(1),
            Verdict::Collateral => counts.collateral = counts.collateral.saturating_add(1),
            Verdict::Missed => self.count_missed(s),
        }
        self.totals[r.verdict as usize] += 1;
        // Counted into the timeline with the step's cost, at the same iteration (`advance`).
        self.pending[r.verdict as usize] += 1;
        if self.records.len() < MAX_RELINK_RECORDS {
            self.keep(s, r, event());
        }
    }

    #[cold]
    fn count_missed(&mut self, s: usize) {
        self.stale.entry(s as u32).or_default().missed += 1;
    }

    /// One of the first [`MAX_RELINK_RECORDS`] relinks: its record, the compact keys read back.
    #[cold]
    fn keep(&mut self, s: usize, r: &Relink, event: Option<usize>) {
        self.records.push(RelinkRecord {
            site: s,
            phase: self.phase,
            op: self.op,
            t_ms: self.now_ns / 1e6,
            event,
            domain: r.old.domain.get(),
            verdict: r.verdict,
            old_target: r.old.target.get(),
            new_target: r.new.get(),
            receiver: r.receiver,
        });
    }
}

impl Simulation {
    /// The site table and, borrowed apart from it, what a site's run touches besides its site
    /// (and the program, which a segment reads its calls from).
    pub(super) fn split(&mut self) -> (&mut [SiteRt], Env<'_>, &Program) {
        let p = SiteParams::of(&self.params);
        let log = RelinkLog {
            records: &mut self.relinks,
            totals: &mut self.relinks_total,
            pending: &mut self.pending_relinks,
            stale: &mut self.stale,
            phase: self.phase,
            op: self.op_index,
            now_ns: self.now_ns,
        };
        let env = Env {
            domains: &mut self.domains,
            world: &self.world,
            policy: self.policy,
            serial: &mut self.serial,
            last_relinks: &mut self.last_relinks,
            walk_marks: &mut self.walk_marks,
            log,
            p,
        };
        (&mut self.sites, env, &self.program)
    }

    /// [`RelinkLog::record`] for site `s` (a polymorphic site's receiver).
    pub(super) fn record_relink_for(&mut self, s: usize, verdict: Verdict, event: Option<usize>, old: &Link, new: CompactTarget, receiver: Option<ClassId>) {
        let (sites, mut env, _) = self.split();
        env.log.record(&mut sites[s].counts, s, &Relink { verdict, old, new, receiver }, || event);
    }
}

impl Env<'_> {
    /// `n` calls of the monomorphic site `s` (`site`). Returns virtual ns.
    #[inline]
    pub(super) fn run_mono(&mut self, site: &mut SiteRt, s: usize, n: u64) -> f64 {
        if !self.world.loaded(site.receiver()) {
            // Calling a class that is not loaded yet: NoClassDefFoundError each call, costed as a selection.
            return n as f64 * self.p.selection_ns;
        }
        let cost = self.run_calls(site, s, n);
        self.walk_marks[s] = site.walk_mark();
        cost
    }

    /// A full selection: the fresh link for site `s` under the current world and policy.
    /// `failed`: the domain and current epoch of the link whose guard just failed, when there
    /// is one (a link's domain exists: it was opened to make the link; nothing retires a
    /// domain within a run), so a selection under the same domain reads no epoch again.
    #[inline(always)]
    fn select(&mut self, site: &SiteRt, s: usize, failed: Option<(Key, u32)>) -> (Link, bool) {
        let domain = crate::policy::domain_for(self.policy, self.world, s, site.receiver());
        let epoch = match failed {
            Some((k, epoch)) if k == Key::new(domain) => epoch,
            _ => self.domains.open(domain),
        };
        *self.serial += 1;
        (Link { target: site.true_target, domain: Key::new(domain), epoch, serial: *self.serial }, site.true_cacheable())
    }

    /// Selection replacing a link whose guard failed: record the relink once per retirement.
    /// `epoch` is the domain's epoch now ([`Domains::guard`]). Inlined into its two
    /// callers: every site a retirement hit comes through here once.
    #[inline(always)]
    fn relink_from(&mut self, site: &mut SiteRt, s: usize, old: &Link, epoch: u32) {
        let stamp = relink_stamp(old.domain, epoch);
        let last = &mut self.last_relinks[s];
        if *last == stamp {
            return;
        }
        *last = stamp;
        let verdict = if old.target == site.true_target { Verdict::Collateral } else { Verdict::Necessary };
        let domains = &*self.domains;
        // The closure reads `true_changed_by` (a disjoint field) only for a kept record.
        let changed_by = &site.true_changed_by;
        self.log.record(&mut site.counts, s, &Relink { verdict, old, new: site.true_target, receiver: None }, || {
            cause(verdict, changed_by.checked_sub(1).map(|e| e as usize), || domains.retired_by_key(old.domain))
        });
    }

    /// Calls served by a valid cached link: count stale dispatches the oracle sees.
    #[inline]
    fn served(&mut self, site: &mut SiteRt, s: usize, link: &Link, calls: u64) {
        if link.target != site.true_target {
            self.served_stale(site, s, link, calls);
        }
    }

    #[cold]
    fn served_stale(&mut self, site: &mut SiteRt, s: usize, link: &Link, calls: u64) {
        let cause = site.true_changed_by;
        let key = (link.serial, cause);
        let stale = self.log.stale.entry(s as u32).or_default();
        stale.calls += calls;
        if stale.last.replace(key) != Some(key) {
            let cause = cause.checked_sub(1).map(|e| e as usize);
            self.log.record(&mut site.counts, s, &Relink { verdict: Verdict::Missed, old: link, new: site.true_target, receiver: None }, || cause);
        }
    }

    #[inline(always)]
    fn pic_put(&mut self, site: &mut SiteRt, s: usize, link: Link, cacheable: bool) {
        let p = self.p;
        // The new entry evicts the one for the same receiver, the only one there is.
        site.clear_pic();
        if p.pic_capacity == 0 {
            return;
        }
        let bit = kind_bit(link.domain);
        site.pic = link;
        site.pic_hits = 0;
        site.flags |= if cacheable { PIC | PIC_CACHEABLE } else { PIC };
        if site.registered & bit == 0 {
            site.registered |= bit;
            self.domains.depend(link.domain.get(), s as u32);
        }
    }

    /// Run `n` consecutive calls of site `s` with the world unchanged. Returns virtual ns.
    fn run_calls(&mut self, site: &mut SiteRt, s: usize, n: u64) -> f64 {
        let p = self.p;
        let mut left = n;
        let mut cost = 0.0;
        let mut steps = 0;
        while left > 0 {
            steps += 1;
            debug_assert!(steps <= super::program::STEPS_PER_SITE_SEGMENT, "a site run took more steps than the work bound assumes");
            match site.fast_link().copied() {
                Some(link) => {
                    if let Some(now) = self.domains.guard(&link) {
                        // Guard failure: every call re-selects until the fallback threshold resets
                        // the target to default; the stale chain stays installed meanwhile.
                        self.relink_from(site, s, &link, now);
                        let failed = Some((link.domain, now));
                        let until_reset = (p.fallback_threshold + 1).saturating_sub(site.fallback_count).max(1);
                        let k = left.min(until_reset);
                        site.fallback_count += k;
                        site.counts.selections += k;
                        site.counts.fallback_calls += k;
                        cost += k as f64 * p.selection_ns;
                        left -= k;
                        if site.fallback_count > p.fallback_threshold {
                            site.mode = Mode::Default;
                            site.fallback_count = 0;
                            site.rounds += 1;
                            let (fresh, cacheable) = self.select(site, s, failed);
                            self.pic_put(site, s, fresh, cacheable);
                        }
                    } else {
                        cost += left as f64 * p.fast_call_ns;
                        site.counts.fast_calls += left;
                        self.served(site, s, &link, left);
                        left = 0;
                    }
                }
                None if p.pic_capacity == 0 => {
                    // No inline cache: every call is a miss that selects (closed form of the
                    // PIC-miss path below, taken `left` times).
                    self.select(site, s, None);
                    *self.serial += left - 1;
                    site.counts.selections += left;
                    site.counts.pic_calls += left;
                    cost = super::vsum::add_repeated(cost, p.selection_ns + p.pic_call_ns, left);
                    left = 0;
                }
                None => self.run_default(site, s, &mut left, &mut cost),
            }
        }
        cost
    }

    /// Calls on the default target (Groovy's `fromCacheHandle`); consumes at least one call and
    /// adds each step's virtual ns to `cost` in call order.
    /// Inlined into `run_calls`, its one caller.
    #[inline(always)]
    fn run_default(&mut self, site: &mut SiteRt, s: usize, left: &mut u64, cost: &mut f64) {
        let p = self.p;
        if site.flags & PIC == 0 {
            return self.pic_miss(site, s, left, cost);
        }
        let (link, flags) = (site.pic, site.flags);
        let guard = self.domains.guard(&link);
        let valid = guard.is_none();
        if flags & PIC_CACHEABLE == 0 {
            if valid {
                let k = *left;
                site.counts.selections += k;
                site.counts.pic_calls += k;
                *left = 0;
                *cost += k as f64 * (p.pic_call_ns + p.selection_ns);
                return;
            }
            // A stale sentinel is a miss.
            site.clear_pic();
            return self.pic_miss(site, s, left, cost);
        }
        if flags & PIC_SEEN == 0 {
            site.flags |= PIC_SEEN;
            site.pic_hits = 0;
            if valid {
                site.counts.pic_calls += 1;
                *left -= 1;
                self.served(site, s, &link, 1);
                *cost += p.pic_call_ns;
                if *left > 0 {
                    self.pic_hits(site, s, &link, false, left, cost);
                }
                return;
            }
        } else if valid {
            return self.pic_hits(site, s, &link, false, left, cost);
        } else {
            site.pic_hits += 1;
        }
        // A stale PIC entry: promotion may still install its (stale) chain, then the guard fails.
        if site.pic_hits > p.optimize_threshold {
            site.pic_hits = 0;
            if site.rounds > p.fallback_cutoff {
                site.flags |= GIVEN_UP;
            } else {
                site.mode = Mode::Fast;
            }
        }
        let now = guard.unwrap_or(0);
        self.relink_from(site, s, &link, now);
        site.fallback_count += 1;
        site.counts.selections += 1;
        site.counts.fallback_calls += 1;
        site.counts.pic_calls += 1;
        *left -= 1;
        if site.fallback_count > p.fallback_threshold && site.mode == Mode::Fast {
            site.mode = Mode::Default;
            site.fallback_count = 0;
            site.rounds += 1;
        }
        *cost += p.pic_call_ns + p.selection_ns;
        if site.mode == Mode::Default {
            let (fresh, cacheable) = self.select(site, s, Some((link.domain, now)));
            self.pic_put(site, s, fresh, cacheable);
            // The next call finds the fresh entry (valid: its domain's epoch was just read)
            // for the first time: the first branch above, taken here without a second lookup.
            if site.flags & (PIC | PIC_CACHEABLE) == PIC | PIC_CACHEABLE && *left > 0 {
                site.flags |= PIC_SEEN;
                site.pic_hits = 0;
                site.counts.pic_calls += 1;
                *left -= 1;
                *cost += p.pic_call_ns;
                if *left > 0 {
                    self.pic_hits(site, s, &fresh, true, left, cost);
                }
            }
        }
    }

    /// A call that finds no PIC entry: select, store (or store the uncacheable sentinel), invoke.
    fn pic_miss(&mut self, site: &mut SiteRt, s: usize, left: &mut u64, cost: &mut f64) {
        let p = self.p;
        let (fresh, cacheable) = self.select(site, s, None);
        self.pic_put(site, s, fresh, cacheable);
        if site.flags & PIC != 0 {
            site.flags |= PIC_SEEN;
        }
        site.counts.selections += 1;
        site.counts.pic_calls += 1;
        *left -= 1;
        *cost += p.selection_ns + p.pic_call_ns;
        // The next call hits the entry just stored (valid: its domain's epoch was just read).
        if cacheable && site.flags & PIC != 0 && site.mode == Mode::Default && *left > 0 {
            self.pic_hits(site, s, &fresh, true, left, cost);
        }
    }

    /// Calls on a valid PIC entry that a call has reached before: consecutive hits until
    /// promotion (the count passes the threshold), then the fast chain, or past the cutoff the
    /// default target for good. Consumes at least one call; the entry's link is `link`, `fresh`
    /// when it was selected in this run (its target is the true one: no call can be stale).
    #[inline(always)]
    fn pic_hits(&mut self, site: &mut SiteRt, s: usize, link: &Link, fresh: bool, left: &mut u64, cost: &mut f64) {
        let p = self.p;
        let hits = site.pic_hits;
        let need = (p.optimize_threshold + 1).saturating_sub(hits).max(1);
        let k = (*left).min(need);
        site.counts.pic_calls += k;
        *left -= k;
        let promoted = hits + k > p.optimize_threshold;
        site.pic_hits = if promoted { 0 } else { hits + k };
        if promoted {
            if site.rounds > p.fallback_cutoff {
                // Give up for good: the default target keeps serving from the PIC.
                site.flags |= GIVEN_UP;
                site.counts.pic_calls += *left;
                let rest = *left;
                *left = 0;
                if !fresh {
                    self.served(site, s, link, k + rest);
                }
                *cost += (k + rest) as f64 * p.pic_call_ns;
                return;
            }
            site.mode = Mode::Fast;
        }
        if !fresh {
            self.served(site, s, link, k);
        }
        *cost += k as f64 * p.pic_call_ns;
    }
}

#[cfg(test)]
mod tests {
    //! The state machine step by step, on one site with tiny thresholds: promote after 3
    //! consecutive PIC hits, reset after 3 guard failures, give up after the second round.

    use super::*;
    use crate::policy::DomainKey;
    use crate::{dsl, Event, Policy};

    fn sim(semantics: &str, policy: Policy) -> Simulation {
        let text = format!("semantics {semantics}\nclass P {{ m }}\nclass A extends P {{ m }}\nsite a = A.m\nop {{ loop 1 {{ call a }} }}");
        let params = Params { optimize_threshold: 2, fallback_threshold: 2, fallback_cutoff: 1, ..Params::default() };
        Simulation::new(&dsl::parse(&text).unwrap(), policy, &params).unwrap()
    }

    fn calls(sim: &mut Simulation, n: u64) -> SiteState {
        let (sites, mut env, _) = sim.split();
        env.run_mono(&mut sites[0], 0, n);
        sim.site_state(0)
    }

    fn write(sim: &mut Simulation, class: &str, method: &str) {
        sim.fire(&Event::Write { class: class.into(), method: method.into() });
    }

    #[test]
    fn what_an_event_walk_reads_is_at_the_head_of_a_site() {
        use std::mem::{offset_of, size_of};
        let ends = [
            offset_of!(SiteRt, mode) + 1,
            offset_of!(SiteRt, registered) + 1,
            offset_of!(SiteRt, flags) + 1,
            offset_of!(SiteRt, poly) + size_of::<Option<NonZeroU32>>(),
            offset_of!(SiteRt, steady) + size_of::<Option<Steady>>(),
            offset_of!(SiteRt, pic) + offset_of!(Link, domain) + size_of::<Key>(),
            offset_of!(SiteRt, counts) + offset_of!(Counts, fast_calls) + 8,
        ];
        assert!(ends.iter().all(|&e| e <= WALKED_BYTES), "{ends:?}");
        assert_eq!((size_of::<SiteRt>(), std::mem::align_of::<SiteRt>(), size_of::<Link>()), (128, 64, 24));
    }

    #[test]
    fn relink_stamps_tell_kinds_and_epochs_apart_and_are_never_zero() {
        let keys = [DomainKey::Global, DomainKey::Pending(7), DomainKey::Class(7), DomainKey::Site(7)];
        let epochs = [0, 1, ID_MASK - 1];
        let stamps: Vec<u32> = keys.iter().flat_map(|&k| epochs.map(|e| relink_stamp(Key::new(k), e))).collect();
        assert!(stamps.iter().all(|&x| x != 0), "{stamps:?}");
        let mut distinct = stamps.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), stamps.len(), "{stamps:?}");
    }

    #[test]
    fn compact_keys_and_targets_read_back_and_compare_as_the_values_they_hold() {
        let top = crate::validate::MAX_CLASSES.max(crate::validate::MAX_SITES) as u32;
        let keys: Vec<DomainKey> =
            [0, 1, top - 1].into_iter().flat_map(|i| [DomainKey::Global, DomainKey::Pending(i), DomainKey::Class(i), DomainKey::Site(i)]).collect();
        let top = crate::validate::MAX_CLASSES as u32 - 1;
        let targets: Vec<Target> = [0, 1, top]
            .into_iter()
            .flat_map(|i| {
                [
                    Target::Method { owner: i, version: 0 },
                    Target::Method { owner: i, version: u32::MAX - 1 },
                    Target::Category { category: i },
                    Target::Dynamic,
                    Target::Missing,
                ]
            })
            .collect();
        for a in &keys {
            assert_eq!(Key::new(*a).get(), *a);
            assert!(keys.iter().all(|b| (Key::new(*a) == Key::new(*b)) == (a == b)), "{a:?}");
        }
        for a in &targets {
            assert_eq!(CompactTarget::new(*a).get(), *a);
            assert!(targets.iter().all(|b| (CompactTarget::new(*a) == CompactTarget::new(*b)) == (a == b)), "{a:?}");
        }
    }

    #[test]
    fn a_miss_selects_then_consecutive_hits_promote_to_the_fast_chain() {
        let mut s = sim("snapshot", Policy::Exact);
        assert_eq!(calls(&mut s, 1), SiteState::Pic, "the first call misses the PIC and selects");
        assert_eq!((s.site_stats(0).selections, s.site_stats(0).pic_calls), (1, 1));
        assert_eq!(calls(&mut s, 2), SiteState::Pic, "two hits: not past the threshold yet");
        assert_eq!(calls(&mut s, 1), SiteState::Linked, "the third hit promotes");
        assert_eq!(s.site_stats(0).pic_calls, 4);
        assert_eq!(calls(&mut s, 10), SiteState::Linked);
        assert_eq!((s.site_stats(0).fast_calls, s.site_stats(0).selections), (10, 1), "fast calls never select");
    }

    #[test]
    fn a_retired_guard_falls_back_then_resets_to_the_default_target() {
        let mut s = sim("snapshot", Policy::Exact);
        calls(&mut s, 4);
        write(&mut s, "A", "other");
        assert_eq!(s.site_state(0), SiteState::FallingBack, "the guard fails, the chain stays installed");
        assert_eq!(calls(&mut s, 2), SiteState::FallingBack);
        assert_eq!((s.site_stats(0).fallback_calls, s.site_stats(0).collateral), (2, 1), "one relink per retirement, however many calls");
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
        let pic_calls = s.site_stats(0).pic_calls;
        assert_eq!(calls(&mut s, 100), SiteState::GivenUp);
        assert_eq!(s.site_stats(0).pic_calls, pic_calls + 100, "served from the PIC for good");
    }

    #[test]
    fn the_oracle_calls_a_relink_to_a_new_target_necessary_and_to_the_same_one_collateral() {
        let mut s = sim("snapshot", Policy::Exact);
        calls(&mut s, 4);
        write(&mut s, "A", "m");
        calls(&mut s, 1);
        assert_eq!((s.site_stats(0).necessary, s.site_stats(0).collateral), (1, 0), "A.m was redefined");
        calls(&mut s, 6);
        write(&mut s, "A", "unrelated");
        calls(&mut s, 1);
        assert_eq!((s.site_stats(0).necessary, s.site_stats(0).collateral), (1, 1), "A.m is what it was");
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
        assert_eq!((s.site_stats(0).missed, s.site_stats(0).stale_calls), (1, 5), "recorded once, every call counted");
        let mut h = Simulation::new(&dsl::parse(text).unwrap(), Policy::Hierarchy, &params).unwrap();
        calls(&mut h, 4);
        write(&mut h, "P", "n");
        calls(&mut h, 1);
        assert_eq!((h.site_stats(0).missed, h.site_stats(0).necessary), (0, 1), "hierarchy retires the subclass");
    }
}
