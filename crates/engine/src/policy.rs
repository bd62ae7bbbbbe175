//! Invalidation policies: which domain guards a link, and which domains an event retires.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::spelling::{named, UnknownName};

use crate::scenario::MetaKind;
use crate::world::{ClassId, World};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// One process-wide domain (Groovy before GROOVY-12191): every event retires every site.
    Global,
    /// Per-class domains; class-attributed events retire the class only (the merged design).
    Exact,
    /// Per-class domains; class-attributed events retire the class and all its subclasses.
    Hierarchy,
    /// The intermediate design: hierarchy fan-out for expando changes, exact for stock replaces.
    HierarchyV3,
    /// Retires exactly the sites whose resolved target changed: the lower bound.
    Ideal,
}

impl Policy {
    pub const ALL: [Policy; 5] = [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::HierarchyV3, Policy::Ideal];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Global => "global",
            Policy::Exact => "exact",
            Policy::Hierarchy => "hierarchy",
            Policy::HierarchyV3 => "hierarchy-v3",
            Policy::Ideal => "ideal",
        }
    }

    /// Does a class-attributed change of this kind fan out to subclasses?
    pub fn fans_out(self, change: ChangeKind) -> bool {
        match self {
            Policy::Hierarchy => true,
            Policy::HierarchyV3 => change == ChangeKind::Expando,
            Policy::Global | Policy::Exact | Policy::Ideal => false,
        }
    }
}

/// What kind of class-attributed change an event makes (for `hierarchy-v3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// In-place expando add, or installing an expando.
    Expando,
    /// Replacing or removing a stock metaclass, or a per-instance metaclass.
    Stock,
}

/// A policy list that names no policy, or a name that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    Unknown(UnknownName),
    NoneGiven,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Unknown(e) => write!(f, "{e}"),
            PolicyError::NoneGiven => write!(f, "no policy given"),
        }
    }
}

impl std::error::Error for PolicyError {}

named!(Policy, "policy");

/// Parse `global,exact` into policies (duplicates dropped, order kept).
pub fn parse_policies(list: &str) -> Result<Vec<Policy>, PolicyError> {
    let mut out = Vec::new();
    for p in list.split(',').filter(|s| !s.trim().is_empty()) {
        let p: Policy = p.trim().parse().map_err(PolicyError::Unknown)?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(PolicyError::NoneGiven);
    }
    Ok(out)
}

/// What an event asks to retire, before the policy has its say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Class-scoped domains (pending or live, with subclasses under fan-out).
    pub keys: Vec<DomainKey>,
    /// Every live class domain as well (`invalidate all`, categories, non-stock metaclasses).
    pub bulk: bool,
    /// Classes the scope walk visited (the simulation counts it as work).
    pub visited: usize,
}

impl Scope {
    pub fn bulk() -> Scope {
        Scope { keys: Vec::new(), bulk: true, visited: 0 }
    }

    fn join(mut self, other: Scope) -> Scope {
        self.keys.extend(other.keys);
        self.bulk |= other.bulk;
        self.visited += other.visited;
        self
    }
}

/// What an event retires under a policy: these domains (sorted, no repeats), plus every live
/// class domain when `bulk`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Retirement {
    pub keys: Vec<DomainKey>,
    pub bulk: bool,
}

/// The domain a fresh link of `site` (receiver `receiver`) is guarded by.
pub fn domain_for(policy: Policy, world: &World, site: usize, receiver: ClassId) -> DomainKey {
    match policy {
        Policy::Global => DomainKey::Global,
        Policy::Ideal => DomainKey::site(site),
        Policy::Exact | Policy::Hierarchy | Policy::HierarchyV3 if world.meta(receiver) == MetaKind::None => DomainKey::pending(receiver),
        Policy::Exact | Policy::Hierarchy | Policy::HierarchyV3 => DomainKey::class(receiver),
    }
}

/// Class-scoped retirement: the class (pending or live domain) and, with fan-out, its loaded
/// subclasses (both domains each). Costs the size of the class's subtree.
pub fn class_scope(policy: Policy, world: &World, c: ClassId, change: ChangeKind, first_install: bool) -> Scope {
    let mut keys = vec![if first_install { DomainKey::pending(c) } else { DomainKey::class(c) }];
    let mut visited = 1;
    if policy.fans_out(change) {
        let subtree = world.subtree(c);
        visited = subtree.len();
        for d in subtree.into_iter().skip(1).filter(|&d| world.loaded(d)) {
            keys.push(DomainKey::pending(d));
            keys.push(DomainKey::class(d));
        }
    }
    Scope { keys, bulk: false, visited }
}

/// Replacing metaclass `old` with `new` on class `c` (Groovy 12191's matrix): class-scoped
/// within the stock family, bulk as soon as either side is not a `MetaClassImpl`.
pub fn replace_scope(policy: Policy, world: &World, c: ClassId, old: MetaKind, new: MetaKind) -> Scope {
    if !old.is_stock_family() || !new.is_stock_family() {
        return Scope::bulk();
    }
    let change = if new == MetaKind::Expando { ChangeKind::Expando } else { ChangeKind::Stock };
    class_scope(policy, world, c, change, old == MetaKind::None)
}

/// `C.metaClass.m = ..`: installs an expando first if the class has none, then an in-place add.
pub fn write_scope(policy: Policy, world: &World, c: ClassId) -> Scope {
    let old = world.meta(c);
    let install = if old != MetaKind::Expando { replace_scope(policy, world, c, old, MetaKind::Expando) } else { Scope::default() };
    install.join(class_scope(policy, world, c, ChangeKind::Expando, false))
}

/// `removeMetaClass(C)`: `None` if there is no metaclass to remove.
pub fn remove_scope(policy: Policy, world: &World, c: ClassId) -> Option<Scope> {
    match world.meta(c) {
        MetaKind::None => None,
        old if old.is_stock_family() => Some(class_scope(policy, world, c, ChangeKind::Stock, false)),
        _ => Some(Scope::bulk()),
    }
}

/// A per-instance metaclass on one object of `c`.
pub fn per_instance_scope(policy: Policy, world: &World, c: ClassId) -> Scope {
    class_scope(policy, world, c, ChangeKind::Stock, world.meta(c) == MetaKind::None)
}

/// The what-if preview of a class-attributed write on `c`: the class-scoped domains a write
/// retires (pending and live), ignoring the metaclass kind it would install. `None` under
/// `ideal`, which cannot know before the write which targets change.
pub fn what_if_write_scope(policy: Policy, world: &World, c: ClassId) -> Option<Scope> {
    match policy {
        Policy::Global => Some(Scope { keys: vec![DomainKey::Global], bulk: false, visited: 0 }),
        Policy::Ideal => None,
        Policy::Exact | Policy::Hierarchy | Policy::HierarchyV3 => {
            let mut scope = class_scope(policy, world, c, ChangeKind::Expando, false);
            if world.meta(c) == MetaKind::None {
                scope = scope.join(class_scope(policy, world, c, ChangeKind::Expando, true));
            }
            Some(scope)
        }
    }
}

/// The one place that decides what an event retires under `policy`: `global` retires its one
/// domain whenever the event retires anything, `ideal` the sites `outdated` (those whose cached
/// decision the event made wrong, even for events that retire nothing by themselves), the class
/// policies the event's own scope.
pub fn retirement(policy: Policy, scope: &Option<Scope>, outdated: &[usize]) -> Retirement {
    let mut r = match (policy, scope) {
        (Policy::Ideal, _) => Retirement { keys: outdated.iter().map(|&s| DomainKey::site(s)).collect(), bulk: false },
        (_, None) => Retirement::default(),
        (Policy::Global, Some(_)) => Retirement { keys: vec![DomainKey::Global], bulk: false },
        (Policy::Exact | Policy::Hierarchy | Policy::HierarchyV3, Some(s)) => Retirement { keys: s.keys.clone(), bulk: s.bulk },
    };
    r.keys.sort();
    r.keys.dedup();
    r
}

/// Where a compiled unit's class assumption stands to a newly loaded class: its context class
/// (HotSpot's `ctxk`, the class whose subtree the assumption is about) against the class loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadReach {
    /// The loaded class or one of its direct supertypes: the classes whose own lists of direct
    /// subclasses or implementors the load edits (`InstanceKlass::add_to_hierarchy` appends the
    /// class to its superclass's subclass list, `Klass::append_to_sibling_list`).
    Direct,
    /// A further supertype: its subtree grew by the loaded class too.
    Ancestor,
    /// Not a supertype of the loaded class: its subtree is as it was.
    Unrelated,
}

/// What a class load retires of compiled code (a JIT's class-hierarchy assumptions, as
/// HotSpot's CHA makes them) under `policy`, for a unit holding an assumption at `reach` that
/// the load `breaks` (the truth, known from the class tree: `trace::cha`). As for call sites,
/// `global` retires every unit holding any assumption, `exact` the assumptions on the classes
/// the load changes directly, `hierarchy` those on every class whose subtree the load changes
/// (HotSpot's candidates: `DepChange::ContextStream` walks the new class, its superclasses and
/// its interfaces, src/hotspot/share/code/dependencies.cpp), `ideal` only those it breaks.
/// `None` for `hierarchy-v3`: its split between expando and stock metaclass changes has no
/// counterpart in a class load.
pub fn load_retires(policy: Policy, reach: LoadReach, breaks: bool) -> Option<bool> {
    match policy {
        Policy::Global => Some(true),
        Policy::Exact => Some(reach == LoadReach::Direct),
        Policy::Hierarchy => Some(reach != LoadReach::Unrelated),
        Policy::HierarchyV3 => None,
        Policy::Ideal => Some(breaks),
    }
}

/// A switch point. Links record the key and the epoch they saw; retiring bumps the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum DomainKey {
    Global,
    /// A class's domain before it has a class-level metaclass.
    Pending(u32),
    Class(u32),
    /// The ideal policy's per-site domain.
    Site(u32),
}

/// Keys hold dense ids as `u32` (classes and sites are capped far below 2^32), so a key is 8
/// bytes: every link and every site's registrations carry one.
impl DomainKey {
    pub fn pending(c: ClassId) -> DomainKey {
        DomainKey::Pending(c as u32)
    }

    pub fn class(c: ClassId) -> DomainKey {
        DomainKey::Class(c as u32)
    }

    pub fn site(s: usize) -> DomainKey {
        DomainKey::Site(s as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl;

    fn world() -> World {
        let s = dsl::parse("class A { m }\nclass B extends A\nclass C extends B\nclass D\nsite a = A.m\nop { loop 1 { call a } }").unwrap();
        World::new(&s)
    }

    #[test]
    fn only_the_hierarchy_policies_fan_out_and_v3_only_for_expando_changes() {
        let w = world();
        let keys = |p, change| class_scope(p, &w, 0, change, false).keys;
        assert_eq!(keys(Policy::Exact, ChangeKind::Expando), vec![DomainKey::Class(0)]);
        let fanned = vec![DomainKey::Class(0), DomainKey::Pending(1), DomainKey::Class(1), DomainKey::Pending(2), DomainKey::Class(2)];
        assert_eq!(keys(Policy::Hierarchy, ChangeKind::Stock), fanned);
        assert_eq!(keys(Policy::HierarchyV3, ChangeKind::Expando), fanned);
        assert_eq!(keys(Policy::HierarchyV3, ChangeKind::Stock), vec![DomainKey::Class(0)]);
    }

    #[test]
    fn leaving_or_entering_the_stock_family_is_bulk() {
        let w = world();
        assert!(replace_scope(Policy::Exact, &w, 0, MetaKind::Stock, MetaKind::Custom).bulk);
        assert!(replace_scope(Policy::Exact, &w, 0, MetaKind::Custom, MetaKind::Stock).bulk);
        let first = replace_scope(Policy::Exact, &w, 0, MetaKind::None, MetaKind::Stock);
        assert_eq!(first.keys, vec![DomainKey::Pending(0)]);
        assert!(!first.bulk);
        assert_eq!(remove_scope(Policy::Exact, &w, 0), None, "no metaclass to remove");
    }

    #[test]
    fn global_and_ideal_override_the_event_scope() {
        let scope = Some(Scope { keys: vec![DomainKey::Class(3), DomainKey::Class(1), DomainKey::Class(3)], bulk: true, visited: 2 });
        assert_eq!(retirement(Policy::Global, &scope, &[]), Retirement { keys: vec![DomainKey::Global], bulk: false });
        assert_eq!(retirement(Policy::Global, &None, &[4]), Retirement::default());
        assert_eq!(retirement(Policy::Ideal, &None, &[4, 2]), Retirement { keys: vec![DomainKey::Site(2), DomainKey::Site(4)], bulk: false });
        assert_eq!(retirement(Policy::Exact, &scope, &[]), Retirement { keys: vec![DomainKey::Class(1), DomainKey::Class(3)], bulk: true });
    }

    #[test]
    fn a_class_load_reaches_direct_supertypes_under_exact_every_supertype_under_hierarchy() {
        let retired = |p| [LoadReach::Direct, LoadReach::Ancestor, LoadReach::Unrelated].map(|r| load_retires(p, r, false));
        assert_eq!(retired(Policy::Global), [Some(true); 3]);
        assert_eq!(retired(Policy::Exact), [Some(true), Some(false), Some(false)]);
        assert_eq!(retired(Policy::Hierarchy), [Some(true), Some(true), Some(false)]);
        assert_eq!(retired(Policy::HierarchyV3), [None; 3]);
        assert_eq!(retired(Policy::Ideal), [Some(false); 3]);
        assert_eq!(load_retires(Policy::Ideal, LoadReach::Unrelated, true), Some(true), "ideal follows the truth alone");
    }

    #[test]
    fn the_what_if_preview_names_both_domains_of_a_class_without_a_metaclass() {
        let w = world();
        assert_eq!(what_if_write_scope(Policy::Exact, &w, 3).unwrap().keys, vec![DomainKey::Class(3), DomainKey::Pending(3)]);
        assert_eq!(what_if_write_scope(Policy::Ideal, &w, 3), None);
    }
}
