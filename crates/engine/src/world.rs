//! The runtime world a scenario mutates: classes, their metaclasses, and method lookup.
//!
//! `resolve` is the ground truth the oracle uses: what a fresh selection would dispatch to
//! right now. Under `Snapshot` semantics a class's metaclass holds a snapshot of inherited
//! methods taken when it was built; under `Live` every lookup walks the current hierarchy.

use std::collections::BTreeMap;

use crate::fxhash::FxMap;

use crate::name::Name;
use crate::scenario::{Event, MetaKind, Scenario, Semantics};

pub type ClassId = usize;

/// What a call resolves to. Equality is "same dispatch": a relink to an equal target was
/// collateral; a cached target unequal to the fresh one is a stale dispatch. Ids are `u32`
/// (classes and categories are capped far below 2^32) so a target is 12 bytes: every site
/// holds two, and every link one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A method defined on class `owner`, at its `version` (bumped by each redefinition).
    Method { owner: u32, version: u32 },
    /// A category method that shadows the class's own.
    Category { category: u32 },
    /// The missing-method path: linked to a generic `invokeMethod` that walks ancestors on every
    /// call, so it never goes stale.
    Dynamic,
    /// Nothing answers: `MissingMethodException` each call.
    Missing,
}

/// Methods by name, in name order. A class has a handful, and a `BTreeMap` allocates a
/// ~300-byte node even for one (30 MB at 10^5 classes), so up to `SMALL` they are a sorted
/// vector; past it (a class written with thousands of new names) a map, so an insert stays
/// O(log n).
#[derive(Clone, Debug)]
pub enum Methods<V> {
    Small(Vec<(Name, V)>),
    Large(BTreeMap<Name, V>),
}

const SMALL: usize = 32;

impl<V> Default for Methods<V> {
    fn default() -> Self {
        Methods::Small(Vec::new())
    }
}

impl<V> Methods<V> {
    pub fn get(&self, name: &str) -> Option<&V> {
        match self {
            Methods::Small(v) => v.binary_search_by(|(m, _)| m.as_str().cmp(name)).ok().map(|i| &v[i].1),
            Methods::Large(map) => map.get(name),
        }
    }

    /// Set `name`'s value (replacing the one it had).
    pub fn insert(&mut self, name: Name, value: V) {
        match self {
            Methods::Small(v) => match v.binary_search_by(|(m, _)| m.as_str().cmp(&name)) {
                Ok(i) => v[i].1 = value,
                Err(_) if v.len() >= SMALL => {
                    let mut map: BTreeMap<Name, V> = std::mem::take(v).into_iter().collect();
                    map.insert(name, value);
                    *self = Methods::Large(map);
                }
                Err(i) => v.insert(i, (name, value)),
            },
            Methods::Large(map) => {
                map.insert(name, value);
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Methods::Small(v) => v.len(),
            Methods::Large(map) => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// In name order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = (&Name, &V)> + '_> {
        match self {
            Methods::Small(v) => Box::new(v.iter().map(|(m, v)| (m, v))),
            Methods::Large(map) => Box::new(map.iter()),
        }
    }
}

/// Like a `BTreeMap`'s: a name given twice keeps its last value. O(n log n), whatever the order.
impl<V> FromIterator<(Name, V)> for Methods<V> {
    fn from_iter<I: IntoIterator<Item = (Name, V)>>(iter: I) -> Self {
        let mut entries: Vec<(Name, V)> = iter.into_iter().collect();
        if entries.len() > SMALL {
            return Methods::Large(entries.into_iter().collect());
        }
        // Reversed, a stable sort puts each name's last value first, which `dedup_by` keeps.
        entries.reverse();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|later, first| later.0 == first.0);
        entries.shrink_to_fit();
        Methods::Small(entries)
    }
}

#[derive(Clone, Debug)]
pub struct ClassRt {
    pub name: Name,
    pub parent: Option<ClassId>,
    /// Own methods (declared and expando-added), with a redefinition counter.
    pub own: Methods<u32>,
    /// Methods compiled into the class (what a fresh metaclass starts from).
    pub declared: Vec<Name>,
    pub per_instance: bool,
    /// Inherited methods as the class's metaclass saw them when it was built (snapshot semantics).
    view: Methods<Target>,
}

impl ClassRt {
    /// Entries in the class's snapshot of inherited methods.
    pub fn view_len(&self) -> usize {
        self.view.len()
    }
}

/// The two per-class facts read on every call path (see `World::flags`).
#[derive(Clone, Copy, Debug)]
struct ClassFlags {
    loaded: bool,
    meta: MetaKind,
}

#[derive(Clone, Debug)]
pub struct World {
    pub semantics: Semantics,
    pub classes: Vec<ClassRt>,
    /// Whether each class is loaded and its metaclass kind, beside `classes` rather than in
    /// them: a segment and a selection read them for every site, and this table of two bytes a
    /// class stays in cache where the classes do not (see [`World::loaded`]).
    flags: Vec<ClassFlags>,
    /// For each category: (class, method) pairs it defines.
    pub categories: Vec<Vec<(ClassId, String)>>,
    pub category_names: Vec<String>,
    /// Active `use` blocks, innermost last.
    pub active_categories: Vec<usize>,
    /// Name -> id, so setup and events find a class in O(1) (lookups only; never iterated).
    class_index: FxMap<Name, ClassId>,
    category_index: FxMap<String, usize>,
    /// Direct subclasses, so a class's subtree costs its size rather than a scan of every class.
    children: Vec<Vec<ClassId>>,
}

impl World {
    /// Build the initial world. Classes that the program loads later exist but are not loaded.
    pub fn new(s: &Scenario) -> World {
        let mut w = World {
            semantics: s.semantics,
            classes: Vec::with_capacity(s.classes.len()),
            flags: Vec::with_capacity(s.classes.len()),
            categories: Vec::new(),
            category_names: Vec::new(),
            active_categories: Vec::new(),
            class_index: FxMap::with_capacity_and_hasher(s.classes.len(), Default::default()),
            category_index: FxMap::default(),
            children: Vec::with_capacity(s.classes.len()),
        };
        for c in &s.classes {
            w.push_class(&c.name, c.methods.iter(), c.metaclass, true);
        }
        let mut loads = Vec::new();
        s.visit_events(|ev| {
            if let Event::Load { class, parent, methods } = ev {
                loads.push((class, parent, methods));
            }
        });
        for (name, _, methods) in &loads {
            w.push_class(name, methods.iter(), MetaKind::None, false);
        }
        let parents = s.classes.iter().map(|c| (&c.name, c.parent.as_deref())).chain(loads.iter().map(|(name, parent, _)| (*name, parent.as_deref())));
        for (name, parent) in parents {
            let id = w.class_id(name).expect("validated");
            if let Some(p) = parent.and_then(|p| w.class_id(p)) {
                w.set_parent(id, p);
            }
        }
        for cat in &s.categories {
            let methods = cat.methods.iter().filter_map(|m| Some((w.class_id(&m.class)?, m.method.clone()))).collect();
            w.category_index.insert(cat.name.clone(), w.categories.len());
            w.categories.push(methods);
            w.category_names.push(cat.name.clone());
        }
        // Parents before children: a class's view is its parent's view under the parent's own
        // methods, so each view is built once from the one above it.
        for id in w.top_down() {
            w.inherit_view(id);
        }
        w
    }

    /// Whether class `c` is loaded (a class the program loads later exists before it is).
    #[inline]
    pub fn loaded(&self, c: ClassId) -> bool {
        self.flags[c].loaded
    }

    /// Class `c`'s metaclass kind.
    #[inline]
    pub fn meta(&self, c: ClassId) -> MetaKind {
        self.flags[c].meta
    }

    pub fn set_meta(&mut self, c: ClassId, kind: MetaKind) {
        self.flags[c].meta = kind;
    }

    fn set_parent(&mut self, c: ClassId, p: ClassId) {
        self.classes[c].parent = Some(p);
        self.children[p].push(c);
    }

    /// Every class, each after its parent (roots in id order, then their subtrees).
    fn top_down(&self) -> Vec<ClassId> {
        let mut out = Vec::with_capacity(self.classes.len());
        for root in (0..self.classes.len()).filter(|&c| self.classes[c].parent.is_none()) {
            out.extend(self.subtree(root));
        }
        out
    }

    /// `c` and every class below it, loaded or not, `c` first (depth-first, iterative so a
    /// deep chain cannot overflow the stack).
    pub fn subtree(&self, c: ClassId) -> Vec<ClassId> {
        let mut out = Vec::new();
        let mut todo = vec![c];
        while let Some(x) = todo.pop() {
            out.push(x);
            todo.extend(self.children[x].iter().rev());
        }
        out
    }

    fn push_class<'a>(&mut self, name: &str, methods: impl Iterator<Item = &'a String>, meta: MetaKind, loaded: bool) {
        let declared: Vec<Name> = methods.map(|m| Name::new(m)).collect();
        self.class_index.insert(Name::new(name), self.classes.len());
        self.children.push(Vec::new());
        self.flags.push(ClassFlags { loaded, meta });
        self.classes.push(ClassRt {
            name: Name::new(name),
            parent: None,
            own: Methods::default(),
            declared: Vec::new(),
            per_instance: false,
            view: Methods::default(),
        });
        let c = self.classes.last_mut().expect("just pushed");
        c.own = declared.iter().map(|m| (m.clone(), 0)).collect();
        c.declared = declared;
    }

    /// Load a class at run time (from the UI). Returns its id (an existing class is reused) and
    /// the work of taking its snapshot.
    pub fn load_class(&mut self, name: &str, parent: Option<ClassId>, methods: &[String]) -> (ClassId, u64) {
        let id = match self.class_id(name) {
            Some(id) => id,
            None => {
                self.push_class(name, methods.iter(), MetaKind::None, false);
                self.classes.len() - 1
            }
        };
        if !self.flags[id].loaded {
            self.flags[id].loaded = true;
            if let (None, Some(p)) = (self.classes[id].parent, parent) {
                self.set_parent(id, p);
            }
            return (id, self.rebuild_view(id));
        }
        (id, 0)
    }

    pub fn class_id(&self, name: &str) -> Option<ClassId> {
        self.class_index.get(name).copied()
    }

    pub fn category_id(&self, name: &str) -> Option<usize> {
        self.category_index.get(name).copied()
    }

    /// Ancestors of `c`, nearest first (validated acyclic, and bounded regardless).
    pub fn ancestors(&self, c: ClassId) -> impl Iterator<Item = ClassId> + '_ {
        let mut cur = self.classes[c].parent;
        let mut steps = 0;
        std::iter::from_fn(move || {
            let p = cur?;
            steps += 1;
            if steps > self.classes.len() {
                return None;
            }
            cur = self.classes[p].parent;
            Some(p)
        })
    }

    /// The snapshot a class takes when every view above it is current: its parent's view under
    /// the parent's own methods (what [`World::rebuild_view`] finds by walking all ancestors).
    fn inherit_view(&mut self, c: ClassId) {
        let Some(p) = self.classes[c].parent else { return };
        let parent = &self.classes[p];
        let inherited = parent.view.iter().map(|(m, t)| (m.clone(), *t));
        let view = inherited.chain(parent.own.iter().map(|(m, &version)| (m.clone(), Target::Method { owner: p as u32, version }))).collect();
        self.classes[c].view = view;
    }

    /// Re-take the class's snapshot of inherited methods (its metaclass was (re)built).
    /// Returns the ancestors and methods it visited (work).
    pub fn rebuild_view(&mut self, c: ClassId) -> u64 {
        let mut visited = 0;
        let mut found = Vec::new();
        for a in self.ancestors(c) {
            visited += 1 + self.classes[a].own.len() as u64;
            found.extend(self.classes[a].own.iter().map(|(m, &version)| (m.clone(), Target::Method { owner: a as u32, version })));
        }
        // The nearest ancestor defining a method wins: last, once reversed.
        found.reverse();
        self.classes[c].view = found.into_iter().collect();
        visited
    }

    /// What a fresh method selection for `receiver.method()` dispatches to now.
    pub fn resolve(&self, receiver: ClassId, method: &str) -> Target {
        for &cat in self.active_categories.iter().rev() {
            for (owner, m) in &self.categories[cat] {
                if m == method && (*owner == receiver || self.ancestors(receiver).any(|a| a == *owner)) {
                    return Target::Category { category: cat as u32 };
                }
            }
        }
        let cls = &self.classes[receiver];
        if let Some(&version) = cls.own.get(method) {
            return Target::Method { owner: receiver as u32, version };
        }
        match self.semantics {
            Semantics::Live => self.walk_ancestors(receiver, method).unwrap_or(Target::Missing),
            Semantics::Snapshot => match cls.view.get(method) {
                Some(t) => *t,
                None if self.walk_ancestors(receiver, method).is_some() => Target::Dynamic,
                None => Target::Missing,
            },
        }
    }

    fn walk_ancestors(&self, receiver: ClassId, method: &str) -> Option<Target> {
        self.ancestors(receiver).find_map(|a| self.classes[a].own.get(method).map(|&version| Target::Method { owner: a as u32, version }))
    }

    /// Whether a selection for this receiver may be cached (class-keyed) at all.
    pub fn cacheable(&self, receiver: ClassId, target: &Target) -> bool {
        !self.classes[receiver].per_instance && !matches!(target, Target::Category { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::Methods;

    #[test]
    fn methods_keep_name_order_and_the_last_value_small_or_large() {
        let m: Methods<u32> = [("b", 1), ("a", 2), ("b", 3)].into_iter().map(|(k, v)| (k.into(), v)).collect();
        assert_eq!(m.iter().map(|(k, &v)| (k.as_str(), v)).collect::<Vec<_>>(), vec![("a", 2), ("b", 3)]);
        let mut big = m.clone();
        for i in (0..100).rev() {
            big.insert(format!("m{i:03}").into(), i);
        }
        big.insert("a".into(), 7);
        assert!(matches!(big, Methods::Large(_)), "past SMALL names it turns into a map");
        assert_eq!((big.len(), big.get("a"), big.get("m042"), big.get("zz")), (102, Some(&7), Some(&42), None));
        assert_eq!(big.iter().nth(2).map(|(k, _)| k.as_str()), Some("m000"), "still in name order");
    }
}
