//! A call site's link in compact form, shared by the site state machine (`site`), the
//! polymorphic inline cache (`poly`) and the domain table (`domains`): the domain it is guarded
//! by (`Key`), its target (`CompactTarget`), its epoch; and the event a relink record names
//! (`cause`).

use std::num::NonZeroU32;

use crate::policy::DomainKey;
use crate::report::Verdict;
use crate::world::Target;

/// Bits of a [`Key`] that hold the id (plus one); the two above them hold the kind.
pub(super) const ID_BITS: u32 = 30;
pub(super) const ID_MASK: u32 = (1 << ID_BITS) - 1;
// Every id a key holds is a class or site id (validated, and `Simulation::inject` refuses a
// class past the cap), so id + 1 fits below the kind bits.
const _: () = assert!(crate::validate::MAX_CLASSES < ID_MASK as usize);
const _: () = assert!(crate::validate::MAX_SITES < ID_MASK as usize);

/// A [`DomainKey`] in four bytes (a link and a site's last relink hold one): the kind in the
/// top two bits, the id plus one below, so it is never 0 and `Option<(Key, u32)>` is 8 bytes.
/// Equal keys are equal domains, so a guard compares them as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key(NonZeroU32);

impl Key {
    #[inline]
    pub fn new(k: DomainKey) -> Key {
        let (kind, id) = match k {
            DomainKey::Global => (0, 0),
            DomainKey::Pending(c) => (1, c),
            DomainKey::Class(c) => (2, c),
            DomainKey::Site(s) => (3, s),
        };
        debug_assert!(id < ID_MASK, "domain ids are class or site ids, capped below 2^30");
        Key(NonZeroU32::new((kind << ID_BITS) | (id + 1)).unwrap_or(NonZeroU32::MIN))
    }

    /// The kind (0 global, 1 pending, 2 class, 3 site: `site::kind_bit` shifts by it) and the id.
    #[inline]
    pub fn parts(self) -> (u32, usize) {
        let v = self.0.get();
        (v >> ID_BITS, ((v & ID_MASK) - 1) as usize)
    }

    #[inline]
    pub fn get(self) -> DomainKey {
        let v = self.0.get();
        let id = (v & ID_MASK) - 1;
        match v >> ID_BITS {
            0 => DomainKey::Global,
            1 => DomainKey::Pending(id),
            2 => DomainKey::Class(id),
            _ => DomainKey::Site(id),
        }
    }
}

// A method's owner is a class id; `Dynamic` and `Missing` take the two owners past every class.
const _: () = assert!(crate::validate::MAX_CLASSES < u32::MAX as usize - 1);

/// A [`Target`] in eight bytes (a site holds two: its true target and its link's): a method as
/// (owner, version); a category as (category, `u32::MAX`), a version no method has (versions
/// are 0 or `serial % u32::MAX` at least 1, `sim::events`); `Dynamic` and `Missing` as owners
/// no class has. One encoding per target, so equal bits are equal targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CompactTarget {
    a: u32,
    b: u32,
}

impl CompactTarget {
    #[inline]
    pub fn new(t: Target) -> CompactTarget {
        let (a, b) = match t {
            Target::Method { owner, version } => (owner, version),
            Target::Category { category } => (category, u32::MAX),
            Target::Dynamic => (u32::MAX, 0),
            Target::Missing => (u32::MAX - 1, 0),
        };
        debug_assert!(matches!(t, Target::Category { .. }) || b != u32::MAX, "no method version is u32::MAX");
        CompactTarget { a, b }
    }

    #[inline]
    pub fn get(self) -> Target {
        match (self.a, self.b) {
            (category, u32::MAX) => Target::Category { category },
            (u32::MAX, _) => Target::Dynamic,
            (a, _) if a == u32::MAX - 1 => Target::Missing,
            (owner, version) => Target::Method { owner, version },
        }
    }
}

/// In declaration order (`repr(C)`), the domain first: see `site::SiteRt`'s layout.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Link {
    pub domain: Key,
    pub target: CompactTarget,
    pub epoch: u32,
    pub serial: u64,
}

/// A parked PIC entry (no entry: `site::SiteRt`'s `PIC` flag is clear).
pub(super) const NO_PIC: Link = Link { domain: Key(NonZeroU32::MIN), target: CompactTarget { a: 0, b: 0 }, epoch: 0, serial: 0 };

impl Link {
    pub fn new(domain: DomainKey, target: Target, epoch: u32, serial: u64) -> Link {
        Link { domain: Key::new(domain), target: CompactTarget::new(target), epoch, serial }
    }
}

/// The event a relink record names: for a necessary relink, the event whose change made the
/// link's target stale (`changed_by`: the last to change what the site resolves to), so under a
/// shared domain (`global`, a bulk generation) the record names `write A.m`, not whichever event
/// last retired the domain in the same step; for a collateral relink, the event that retired the
/// domain (`retired_by`): an unrelated change the site paid for only because it shares the
/// domain. Called only for a kept record (`site::RelinkLog::record`), never on the guard's path.
pub(super) fn cause(verdict: Verdict, changed_by: Option<usize>, retired_by: impl FnOnce() -> Option<usize>) -> Option<usize> {
    match verdict {
        Verdict::Necessary => changed_by.or_else(retired_by),
        Verdict::Collateral | Verdict::Missed => retired_by(),
    }
}
