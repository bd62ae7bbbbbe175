//! Switch points the way a runtime keeps them: epochs in flat arrays indexed by class or site,
//! each domain with the list of sites whose links depend on it (what a `SwitchPoint` knows),
//! and one bulk generation that retires every class domain in O(1).
//!
//! A link is valid while its domain's epoch is the one it saw. A class domain's epoch is its
//! own retirements plus the bulk retirements since it was made, so bulk events never visit
//! domains to bump them; only the walk over their dependents (who was hit) costs anything.

use std::collections::BTreeSet;

use crate::policy::DomainKey;

use super::link::Key;

/// What a guard check reads (12 bytes): kept apart from the dependents lists, so the checks of
/// a segment over many sites read a small table.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    exists: bool,
    own_epoch: u32,
    /// The bulk generation when the domain was made: later bulk retirements count toward it.
    base_gen: u32,
    /// The event that last retired it by itself, as `event + 1` (0: none; event ids fit in
    /// 32 bits, see `MAX_WORK`).
    retired_by: u32,
}

/// One kind of domain, by index: the slots and, beside them, each one's dependents (sites
/// registered as holding a link to it; some may have dropped it since).
#[derive(Clone, Debug, Default)]
struct Table {
    slots: Vec<Slot>,
    dependents: Vec<Vec<u32>>,
}

impl Table {
    fn new(n: usize) -> Table {
        Table { slots: vec![Slot::default(); n], dependents: vec![Vec::new(); n] }
    }

    fn grow_to(&mut self, i: usize) {
        if self.slots.len() <= i {
            // A class loaded by hand after the start.
            self.slots.resize(i + 1, Slot::default());
            self.dependents.resize(i + 1, Vec::new());
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Domains {
    global: Table,
    pending: Table,
    class: Table,
    site: Table,
    bulk_gen: u32,
    last_bulk: Option<usize>,
    /// Existing `Pending` and `Class` domains in key order: what a bulk event retires.
    class_like: BTreeSet<DomainKey>,
}

impl Domains {
    pub fn new(classes: usize, sites: usize) -> Domains {
        Domains { global: Table::new(1), pending: Table::new(classes), class: Table::new(classes), site: Table::new(sites), ..Domains::default() }
    }

    #[inline]
    fn table(&self, k: DomainKey) -> (&Table, usize) {
        match k {
            DomainKey::Global => (&self.global, 0),
            DomainKey::Pending(c) => (&self.pending, c as usize),
            DomainKey::Class(c) => (&self.class, c as usize),
            DomainKey::Site(s) => (&self.site, s as usize),
        }
    }

    #[inline]
    fn slot(&self, k: DomainKey) -> Option<&Slot> {
        let (table, i) = self.table(k);
        table.slots.get(i).filter(|s| s.exists)
    }

    /// The table and index of `k`, grown to hold it.
    fn table_mut(&mut self, k: DomainKey) -> (&mut Table, usize) {
        let (table, i) = match k {
            DomainKey::Global => (&mut self.global, 0),
            DomainKey::Pending(c) => (&mut self.pending, c as usize),
            DomainKey::Class(c) => (&mut self.class, c as usize),
            DomainKey::Site(s) => (&mut self.site, s as usize),
        };
        table.grow_to(i);
        (table, i)
    }

    fn slot_mut(&mut self, k: DomainKey) -> &mut Slot {
        let (table, i) = self.table_mut(k);
        &mut table.slots[i]
    }

    fn class_like(k: DomainKey) -> bool {
        matches!(k, DomainKey::Pending(_) | DomainKey::Class(_))
    }

    /// The current epoch, or `None` if no link was ever made against the domain.
    #[inline]
    pub fn epoch(&self, k: DomainKey) -> Option<u32> {
        let s = self.slot(k)?;
        let bulk = if Self::class_like(k) { self.bulk_gen - s.base_gen } else { 0 };
        Some(s.own_epoch + bulk)
    }

    /// The event that last retired the domain.
    pub fn retired_by(&self, k: DomainKey) -> Option<usize> {
        self.epoch_and_retirer(k).and_then(|(_, by)| by)
    }

    /// [`Domains::epoch`] and [`Domains::retired_by`] in one lookup.
    #[inline]
    pub fn epoch_and_retirer(&self, k: DomainKey) -> Option<(u32, Option<usize>)> {
        Some(self.epoch_and_retirer_of(self.slot(k)?, Self::class_like(k)))
    }

    /// The slot of a link's packed key, read without unpacking it (a guard check is the state
    /// machine's most frequent lookup), and whether it is a class-like domain.
    #[inline]
    fn slot_of_key(&self, k: Key) -> Option<(&Slot, bool)> {
        let (kind, i) = k.parts();
        let table = match kind {
            0 => &self.global,
            1 => &self.pending,
            2 => &self.class,
            _ => &self.site,
        };
        table.slots.get(i).filter(|s| s.exists).map(|s| (s, kind == 1 || kind == 2))
    }

    /// [`Domains::epoch`] of a link's packed key.
    #[inline]
    pub fn epoch_of_key(&self, k: Key) -> Option<u32> {
        let (s, class_like) = self.slot_of_key(k)?;
        let bulk = if class_like { self.bulk_gen - s.base_gen } else { 0 };
        Some(s.own_epoch + bulk)
    }

    /// [`Domains::retired_by`] of a link's packed key.
    pub fn retired_by_key(&self, k: Key) -> Option<usize> {
        let (slot, class_like) = self.slot_of_key(k)?;
        self.epoch_and_retirer_of(slot, class_like).1
    }

    #[inline]
    fn epoch_and_retirer_of(&self, s: &Slot, class_like: bool) -> (u32, Option<usize>) {
        let bulk = if class_like { self.bulk_gen - s.base_gen } else { 0 };
        let own = s.retired_by.checked_sub(1).map(|e| e as usize);
        let by = if bulk > 0 { own.max(self.last_bulk) } else { own };
        (s.own_epoch + bulk, by)
    }

    /// The domain's epoch, making the domain if it does not exist yet.
    #[inline]
    pub fn open(&mut self, k: DomainKey) -> u32 {
        match self.epoch(k) {
            Some(e) => e,
            None => self.make(k),
        }
    }

    /// A domain's first link: it starts at epoch 0, counting bulk retirements from now on.
    #[cold]
    fn make(&mut self, k: DomainKey) -> u32 {
        let gen = self.bulk_gen;
        let s = self.slot_mut(k);
        *s = Slot { exists: true, base_gen: gen, ..Slot::default() };
        if Self::class_like(k) {
            self.class_like.insert(k);
        }
        0
    }

    /// Record that site `s` now holds a link to `k` (the caller registers each pair once).
    pub fn depend(&mut self, k: DomainKey, s: u32) {
        let (table, i) = self.table_mut(k);
        table.dependents[i].push(s);
    }

    /// Retire these domains (sorted, deduplicated) for `event`. Returns how many existed.
    pub fn retire(&mut self, keys: &[DomainKey], event: usize) -> usize {
        let mut live = 0;
        for &k in keys {
            if self.slot(k).is_some() {
                let s = self.slot_mut(k);
                s.own_epoch += 1;
                s.retired_by = event as u32 + 1;
                live += 1;
            }
        }
        live
    }

    /// Retire every existing class domain for `event` in O(1). Returns how many there are.
    pub fn retire_all_classes(&mut self, event: usize) -> usize {
        self.bulk_gen += 1;
        self.last_bulk = Some(event);
        self.class_like.len()
    }

    /// Existing class domains (what a bulk event retires), in key order.
    pub fn live_class_domains(&self) -> impl Iterator<Item = DomainKey> + '_ {
        self.class_like.iter().copied()
    }

    pub fn live_class_domain_count(&self) -> usize {
        self.class_like.len()
    }

    /// Sites registered against `k` (a superset of those holding it).
    pub fn dependents(&self, k: DomainKey) -> &[u32] {
        match self.slot(k) {
            Some(_) => {
                let (table, i) = self.table(k);
                &table.dependents[i]
            }
            None => &[],
        }
    }

    /// [`Domains::walk_dependents`] over every existing class domain (a bulk retirement).
    /// `ahead` is told the next domain's dependents before this one's are walked (to prefetch).
    /// `still_holds` is told each domain's key packed ([`Key`]: what a site's link holds).
    pub fn walk_all_class_dependents(&mut self, hit: &mut Vec<u32>, mut still_holds: impl FnMut(Key, u32) -> bool, ahead: impl Fn(u32)) -> u64 {
        let Domains { pending, class, class_like, .. } = self;
        let list = |k: DomainKey| match k {
            DomainKey::Pending(c) => (true, c as usize),
            DomainKey::Class(c) => (false, c as usize),
            DomainKey::Global | DomainKey::Site(_) => unreachable!("only class domains are listed"),
        };
        let mut walked = 0;
        let mut keys = class_like.iter().copied().peekable();
        while let Some(k) = keys.next() {
            if let Some(&next) = keys.peek() {
                let (is_pending, c) = list(next);
                let table = if is_pending { &*pending } else { &*class };
                table.dependents[c].iter().for_each(|&s| ahead(s));
            }
            let (is_pending, c) = list(k);
            let table = if is_pending { &mut *pending } else { &mut *class };
            let dependents = &mut table.dependents[c];
            walked += 1 + dependents.len() as u64;
            let key = Key::new(k);
            walk_list(dependents, hit, |s| still_holds(key, s), |_| {});
        }
        walked
    }

    /// Walk the dependents of `k`: keep those `still_holds` says hold a link to it (pushing them
    /// to `hit`), drop the rest for good; `ahead` is told each one a few entries early (to
    /// prefetch). Returns the number of entries walked (work).
    pub fn walk_dependents(&mut self, k: DomainKey, hit: &mut Vec<u32>, still_holds: impl FnMut(u32) -> bool, ahead: impl Fn(u32)) -> u64 {
        if self.slot(k).is_none() {
            return 0;
        }
        let (table, i) = self.table_mut(k);
        let deps = &mut table.dependents[i];
        let walked = deps.len() as u64;
        walk_list(deps, hit, still_holds, ahead);
        walked
    }
}

/// How many entries ahead a walk tells `ahead` about.
const AHEAD: usize = 8;

/// `deps.retain(keep)` that pushes the kept entries to `hit` and tells `ahead` each entry
/// [`AHEAD`] places before `keep` sees it.
fn walk_list(deps: &mut Vec<u32>, hit: &mut Vec<u32>, mut keep: impl FnMut(u32) -> bool, ahead: impl Fn(u32)) {
    let mut kept = 0;
    for i in 0..deps.len() {
        if let Some(&a) = deps.get(i + AHEAD) {
            ahead(a);
        }
        let s = deps[i];
        if keep(s) {
            hit.push(s);
            deps[kept] = s;
            kept += 1;
        }
    }
    deps.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bulk_retirement_counts_toward_domains_made_before_it_only() {
        let mut d = Domains::new(2, 0);
        assert_eq!(d.open(DomainKey::Class(0)), 0);
        assert_eq!(d.retire_all_classes(7), 1);
        assert_eq!(d.epoch(DomainKey::Class(0)), Some(1));
        assert_eq!(d.retired_by(DomainKey::Class(0)), Some(7));
        assert_eq!(d.epoch_and_retirer(DomainKey::Class(0)), Some((1, Some(7))));
        assert_eq!(d.open(DomainKey::Pending(1)), 0);
        assert_eq!(d.retired_by(DomainKey::Pending(1)), None);
        assert_eq!(d.retire(&[DomainKey::Class(0), DomainKey::Class(1)], 9), 1, "class 1 has no domain");
        assert_eq!(d.epoch(DomainKey::Class(0)), Some(2));
        assert_eq!(d.retired_by(DomainKey::Class(0)), Some(9));
        assert_eq!(d.live_class_domains().collect::<Vec<_>>(), vec![DomainKey::Pending(1), DomainKey::Class(0)]);
    }

    #[test]
    fn the_global_domain_ignores_bulk_generations() {
        let mut d = Domains::new(0, 0);
        d.open(DomainKey::Global);
        d.retire_all_classes(1);
        assert_eq!(d.epoch(DomainKey::Global), Some(0));
        assert_eq!(d.epoch(DomainKey::Site(3)), None);
    }

    #[test]
    fn walking_dependents_drops_sites_that_let_go() {
        let mut d = Domains::new(1, 0);
        d.open(DomainKey::Class(0));
        for s in [4, 5, 6] {
            d.depend(DomainKey::Class(0), s);
        }
        let mut hit = Vec::new();
        assert_eq!(d.walk_dependents(DomainKey::Class(0), &mut hit, |s| s != 5, |_| {}), 3);
        assert_eq!(hit, vec![4, 6]);
        hit.clear();
        assert_eq!(d.walk_dependents(DomainKey::Class(0), &mut hit, |_| true, |_| {}), 2);
    }
}
