//! The scenario: what a user writes (in the DSL or as JSON) before anything runs.
//!
//! Everything here is plain data with serde derives; `validate` turns it into something the
//! simulator may trust (names resolve, the hierarchy is acyclic, numbers are bounded).

use serde::{Deserialize, Serialize};

pub use crate::name::Name;
use crate::spelling::named;

/// How method lookup sees ancestors (a world setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Semantics {
    /// Groovy: a class's metaclass snapshots inherited methods when it is built; later ancestor
    /// changes reach it only through the missing-method path.
    #[default]
    Snapshot,
    /// Ruby / Python: every lookup walks the current hierarchy.
    Live,
}

/// The kind of class-level metaclass a class has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MetaKind {
    /// No class-level metaclass installed yet (sites link against the class's pending domain).
    #[default]
    None,
    /// A stock `MetaClassImpl`.
    Stock,
    /// An `ExpandoMetaClass` (stock family: a `MetaClassImpl` subclass).
    Expando,
    /// Anything that is not a `MetaClassImpl`.
    Custom,
}

impl Semantics {
    pub const ALL: [Semantics; 2] = [Semantics::Snapshot, Semantics::Live];

    /// The name in the DSL and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Semantics::Snapshot => "snapshot",
            Semantics::Live => "live",
        }
    }
}

named!(Semantics, "semantics");

impl MetaKind {
    pub const ALL: [MetaKind; 4] = [MetaKind::None, MetaKind::Stock, MetaKind::Expando, MetaKind::Custom];

    /// The name in the DSL and JSON.
    pub fn name(self) -> &'static str {
        match self {
            MetaKind::None => "none",
            MetaKind::Stock => "stock",
            MetaKind::Expando => "expando",
            MetaKind::Custom => "custom",
        }
    }

    /// Stock family = `MetaClassImpl` or a subclass; replacing within it is class-scoped.
    pub fn is_stock_family(self) -> bool {
        matches!(self, MetaKind::None | MetaKind::Stock | MetaKind::Expando)
    }
}

named!(MetaKind, "metaclass kind");

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassDecl {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(default)]
    pub methods: Vec<String>,
    #[serde(default)]
    pub metaclass: MetaKind,
    /// What some of its declared methods' bodies cost (`class Hot { describe cost 180ns }`);
    /// a method without one costs nothing beyond its call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub costs: Vec<BodyCost>,
}

/// The cost of a declared method's body when run in C2 code (`cost 180ns` in the DSL). The
/// simulator scales it for the tier the calling loop runs in (`interpreter_slowdown`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyCost {
    pub method: String,
    pub ns: u64,
}

impl ClassDecl {
    /// The body cost declared for `method`, if any.
    pub fn body_ns(&self, method: &str) -> Option<u64> {
        self.costs.iter().find(|c| c.method == method).map(|c| c.ns)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodRef {
    pub class: String,
    pub method: String,
}

/// `use(Cat) { .. }` makes these methods take precedence on the class and its subclasses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryDecl {
    pub name: String,
    #[serde(default)]
    pub methods: Vec<MethodRef>,
}

/// A call site: `receiver.method()`. Monomorphic when its receiver is always of `class`;
/// polymorphic when it has other receiver classes (`site shapes = Circle.area, Square.area
/// mix 70/30`), which the site sees in the proportions of its mix.
///
/// 56 bytes: there is one per site (10^6 at the cap), and few are polymorphic, so that part
/// is boxed (`poly`). JSON keeps the flat shape (`others` and `mix` beside `name`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(from = "SiteIn")]
pub struct SiteDecl {
    pub name: Name,
    /// The first receiver class (the only one of a monomorphic site).
    pub class: Name,
    pub method: Name,
    /// The other receivers and the mix; `None` when both are empty.
    pub poly: Option<Box<Receivers>>,
}

/// The polymorphic part of a site, as written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Receivers {
    /// The other receiver classes, in the order written.
    pub others: Vec<String>,
    /// Relative weights of the receivers (`class` first, then `others`): the site sees receiver
    /// `i` `mix[i]` times in every `mix.iter().sum()` calls. Empty = equal weights.
    pub mix: Vec<u32>,
}

/// A site as JSON reads it: the polymorphic fields inline.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteIn {
    name: Name,
    class: Name,
    method: Name,
    #[serde(default)]
    others: Vec<String>,
    #[serde(default)]
    mix: Vec<u32>,
}

/// A site as JSON writes it (borrowed: serializing a million sites copies none).
#[derive(Serialize)]
struct SiteOut<'a> {
    name: &'a Name,
    class: &'a Name,
    method: &'a Name,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    others: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    mix: &'a [u32],
}

impl From<SiteIn> for SiteDecl {
    fn from(j: SiteIn) -> SiteDecl {
        SiteDecl::mono(j.name, j.class, j.method).with_receivers(j.others, j.mix)
    }
}

impl Serialize for SiteDecl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SiteOut { name: &self.name, class: &self.class, method: &self.method, others: self.others(), mix: self.mix() }.serialize(s)
    }
}

impl SiteDecl {
    /// A monomorphic site `name = class.method`.
    pub fn mono(name: impl Into<Name>, class: impl Into<Name>, method: impl Into<Name>) -> SiteDecl {
        SiteDecl { name: name.into(), class: class.into(), method: method.into(), poly: None }
    }

    /// This site with these other receivers and mix (as written: validation judges them).
    pub fn with_receivers(mut self, others: Vec<String>, mix: Vec<u32>) -> SiteDecl {
        self.poly = (!others.is_empty() || !mix.is_empty()).then(|| Box::new(Receivers { others, mix }));
        self
    }

    /// The other receiver classes, in the order written.
    pub fn others(&self) -> &[String] {
        self.poly.as_deref().map_or(&[], |p| p.others.as_slice())
    }

    pub fn others_mut(&mut self) -> &mut [String] {
        self.poly.as_deref_mut().map_or(&mut [], |p| p.others.as_mut_slice())
    }

    /// The mix as written (empty = equal weights; see [`Receivers::mix`]).
    pub fn mix(&self) -> &[u32] {
        self.poly.as_deref().map_or(&[], |p| p.mix.as_slice())
    }

    /// Every receiver class, `class` first.
    pub fn receivers(&self) -> impl Iterator<Item = &str> + Clone {
        std::iter::once(self.class.as_str()).chain(self.others().iter().map(String::as_str))
    }

    /// Whether the site has more than one receiver class.
    pub fn is_polymorphic(&self) -> bool {
        !self.others().is_empty()
    }

    /// The weight of each receiver (equal weights of 1 when the mix is empty).
    pub fn weights(&self) -> Vec<u32> {
        if self.mix().is_empty() {
            vec![1; 1 + self.others().len()]
        } else {
            self.mix().to_vec()
        }
    }
}

/// A mutation of the runtime: each is one registry or metaclass event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// `C.metaClass.m = { .. }`: in-place add (or redefinition) on an ExpandoMetaClass;
    /// installs the expando first if the class has no class-level metaclass.
    Write { class: String, method: String },
    /// `C.metaClass = new Kind(..)`.
    Replace { class: String, kind: MetaKind },
    /// `GroovySystem.metaClassRegistry.removeMetaClass(C)`.
    Remove { class: String },
    /// `obj.metaClass = ..` on one instance of C.
    PerInstance { class: String },
    /// A new class is loaded.
    Load {
        class: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
        #[serde(default)]
        methods: Vec<String>,
    },
    /// `VMPlugin.invalidateCallSites()`.
    InvalidateAll,
    /// A registry change event with no class attributed.
    Unattributed,
}

/// A statement. 16 bytes: a loop body holds one `Call` per call site (10^6 at the cap, and a
/// scenario may have several such loops), so everything but a call is boxed. JSON is the same
/// as with inline fields (`{"stmt": "loop", "count": 10, "body": [..]}`); it is read by hand
/// (`crate::json`), so a statement's fields are read as they come, not buffered first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "stmt", rename_all = "kebab-case")]
pub enum Stmt {
    /// One call through a site; only inside `loop`.
    Call { site: Name },
    /// `count` iterations of the body. Calls and `every` clauses inside run per iteration.
    Loop(Box<Counted>),
    /// Inside a loop: the events run on iterations where `i % period == offset`, before the calls.
    Every(Box<Every>),
    /// Run the body `count` times.
    Repeat(Box<Counted>),
    /// `use(Category) { body }`: category enter, body, category leave.
    Use(Box<Use>),
    /// A single event.
    Event(Box<Event>),
}

/// The fields of a `loop` or a `repeat`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counted {
    pub count: u64,
    pub body: Vec<Stmt>,
}

/// The fields of an `every` clause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Every {
    pub period: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset: u64,
    pub body: Vec<Stmt>,
}

/// The fields of a `use` block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Use {
    pub category: String,
    pub body: Vec<Stmt>,
}

impl Stmt {
    pub fn looped(count: u64, body: Vec<Stmt>) -> Stmt {
        Stmt::Loop(Box::new(Counted { count, body }))
    }

    pub fn every(period: u64, offset: u64, body: Vec<Stmt>) -> Stmt {
        Stmt::Every(Box::new(Every { period, offset, body }))
    }

    pub fn repeat(count: u64, body: Vec<Stmt>) -> Stmt {
        Stmt::Repeat(Box::new(Counted { count, body }))
    }

    pub fn use_category(category: String, body: Vec<Stmt>) -> Stmt {
        Stmt::Use(Box::new(Use { category, body }))
    }

    pub fn event(ev: Event) -> Stmt {
        Stmt::Event(Box::new(ev))
    }

    /// The nested statements of a `loop`, `every`, `repeat` or `use`; `None` for a call or an event.
    pub fn body(&self) -> Option<&[Stmt]> {
        match self {
            Stmt::Loop(c) | Stmt::Repeat(c) => Some(&c.body),
            Stmt::Every(e) => Some(&e.body),
            Stmt::Use(u) => Some(&u.body),
            Stmt::Call { .. } | Stmt::Event(_) => None,
        }
    }

    pub fn body_mut(&mut self) -> Option<&mut Vec<Stmt>> {
        match self {
            Stmt::Loop(c) | Stmt::Repeat(c) => Some(&mut c.body),
            Stmt::Every(e) => Some(&mut e.body),
            Stmt::Use(u) => Some(&mut u.body),
            Stmt::Call { .. } | Stmt::Event(_) => None,
        }
    }
}

/// Every statement of `block` and of the bodies nested in it, parents before children.
pub fn walk<'a>(block: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for st in block {
        f(st);
        if let Some(body) = st.body() {
            walk(body, f);
        }
    }
}

/// [`walk`] with mutable access; a statement's body is walked after `f` has seen (and maybe
/// changed) the statement itself.
pub fn walk_mut(block: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for st in block {
        f(st);
        if let Some(body) = st.body_mut() {
            walk_mut(body, f);
        }
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// JMH-like measurement: `setup` once, then warm-up ops and measured ops, each preceded by the
/// untimed `before_op` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub warmup_ops: u32,
    pub ops: u32,
}

impl Default for Measure {
    fn default() -> Self {
        Measure { warmup_ops: 3, ops: 5 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub semantics: Semantics,
    #[serde(default)]
    pub measure: Measure,
    #[serde(default)]
    pub classes: Vec<ClassDecl>,
    #[serde(default)]
    pub categories: Vec<CategoryDecl>,
    #[serde(default)]
    pub sites: Vec<SiteDecl>,
    #[serde(default)]
    pub setup: Vec<Stmt>,
    /// Runs before every op, outside its timing (JMH `@Setup(Level.Invocation)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_op: Vec<Stmt>,
    #[serde(default)]
    pub op: Vec<Stmt>,
    /// What the author expects of the runs (`expect ...` lines; `crate::expect`). Absent in
    /// older scenarios and share links, which load with none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expectations: Vec<crate::expect::Expectation>,
}

/// The three programs of a scenario, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Block {
    Setup,
    BeforeOp,
    Op,
}

impl Block {
    pub const ALL: [Block; 3] = [Block::Setup, Block::BeforeOp, Block::Op];

    /// The block's field in JSON (and in the paths of validation errors).
    pub fn name(self) -> &'static str {
        match self {
            Block::Setup => "setup",
            Block::BeforeOp => "before_op",
            Block::Op => "op",
        }
    }

    /// The block's keyword in the DSL.
    pub fn keyword(self) -> &'static str {
        match self {
            Block::BeforeOp => "before-op",
            other => other.name(),
        }
    }
}

impl Scenario {
    pub fn block(&self, b: Block) -> &[Stmt] {
        match b {
            Block::Setup => &self.setup,
            Block::BeforeOp => &self.before_op,
            Block::Op => &self.op,
        }
    }

    pub fn block_mut(&mut self, b: Block) -> &mut Vec<Stmt> {
        match b {
            Block::Setup => &mut self.setup,
            Block::BeforeOp => &mut self.before_op,
            Block::Op => &mut self.op,
        }
    }

    /// `setup`, `before_op` and `op`, each with its name.
    pub fn blocks(&self) -> [(Block, &[Stmt]); 3] {
        Block::ALL.map(|b| (b, self.block(b)))
    }

    /// Every event the program can fire, in program order (`every` bodies once each).
    pub fn visit_events<'a>(&'a self, mut f: impl FnMut(&'a Event)) {
        for (_, block) in self.blocks() {
            walk(block, &mut |st| {
                if let Stmt::Event(ev) = st {
                    f(ev)
                }
            });
        }
    }

    pub fn visit_events_mut(&mut self, mut f: impl FnMut(&mut Event)) {
        for b in Block::ALL {
            walk_mut(self.block_mut(b), &mut |st| {
                if let Stmt::Event(ev) = st {
                    f(ev)
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_per_site_and_per_call_types_keep_their_size() {
        // One `SiteDecl` per site and one `Stmt::Call` per call: at 10^6 sites each byte here
        // is a megabyte of the scenario the page keeps (the memory target of `tests/memory.rs`).
        assert_eq!((std::mem::size_of::<SiteDecl>(), std::mem::size_of::<Stmt>()), (56, 16));
    }

    #[test]
    fn a_polymorphic_site_reads_and_writes_the_flat_json_fields() {
        let poly = SiteDecl::mono("s", "A", "m").with_receivers(vec!["B".into()], vec![2, 1]);
        let json = serde_json::to_string(&poly).unwrap();
        assert_eq!(json, r#"{"name":"s","class":"A","method":"m","others":["B"],"mix":[2,1]}"#);
        assert_eq!(serde_json::from_str::<SiteDecl>(&json).unwrap(), poly);
        let mono: SiteDecl = serde_json::from_str(r#"{"name":"s","class":"A","method":"m","others":[]}"#).unwrap();
        assert_eq!((mono.poly, serde_json::to_string(&SiteDecl::mono("s", "A", "m")).unwrap()), (None, r#"{"name":"s","class":"A","method":"m"}"#.to_string()));
        // A mix without other receivers is kept as written: validation reports it.
        let lone: SiteDecl = serde_json::from_str(r#"{"name":"s","class":"A","method":"m","mix":[3]}"#).unwrap();
        assert_eq!((lone.others(), lone.mix(), lone.is_polymorphic()), (&[][..], &[3][..], false));
    }
}
