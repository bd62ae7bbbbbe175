//! The one event schema every log reader fills: mutations (what the program changed), the
//! invalidations a runtime logged (what it threw away), the compiled code units and the call
//! sites they touch. Each carries its place in the log ([`At`]: the line, and the log's own
//! clock where it has one), so a reader's output can be checked against the file by hand.

use serde::Serialize;

/// Where an event is in its log: the 1-based line, and the log's own clock in microseconds
/// where the format has one (V8's `Time()` field, HotSpot's `stamp`, the Groovy listener's
/// `nanos`); `None` means the log gives only line order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct At {
    pub line: u64,
    pub clock_us: Option<u64>,
}

/// Index into [`crate::trace::Trace::sites`].
pub type SiteId = u32;
/// Index into [`crate::trace::Trace::units`].
pub type UnitId = u32;

/// A call site: a source position (V8) or a sender class and method name (Groovy's indy log
/// names no line).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SiteKey {
    Source { file: String, line: u32, col: u32 },
    Sender { sender: String, method: String },
}

#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub key: SiteKey,
    /// The function the site is in, where the log says (V8: the code object holding the IC).
    pub function: Option<String>,
    /// The line the site was first seen on (its first link).
    pub first_line: u64,
    /// The property or method the site looks up (V8: the IC's key; Groovy: the method).
    pub member: Option<String>,
    /// Times the site was linked or selected (first links and relinks alike).
    pub selections: u32,
    /// The receiver classes seen at the site, in first-seen order (at most
    /// [`MAX_RECEIVERS`]): Groovy's selection base, V8's receiver map's class where the log
    /// names it.
    pub receivers: Vec<String>,
}

/// Receivers kept per site (the engine's polymorphic sites take up to 64).
pub const MAX_RECEIVERS: usize = 64;

impl Site {
    /// Note a receiver class seen at the site.
    pub fn saw(&mut self, class: &str) {
        if self.receivers.len() < MAX_RECEIVERS && !self.receivers.iter().any(|r| r == class) {
            self.receivers.push(class.to_string());
        }
    }
}

impl Site {
    /// The file (V8) or sender class (Groovy) a site is grouped under in a report.
    pub fn group(&self) -> &str {
        match &self.key {
            SiteKey::Source { file, .. } => file,
            SiteKey::Sender { sender, .. } => sender,
        }
    }
}

impl std::fmt::Display for SiteKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SiteKey::Source { file, line, col } => write!(f, "{file}:{line}:{col}"),
            SiteKey::Sender { sender, method } => write!(f, "{sender}.{method}"),
        }
    }
}

/// One assumption a compiled unit was built on (HotSpot's `<dependency type= ctxk= x=>`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub kind: String,
    pub ctxk: String,
    pub x: Vec<String>,
}

/// A compiled method or function.
#[derive(Clone, Debug, Serialize)]
pub struct CodeUnit {
    pub at: At,
    /// Function (V8) or `Holder method` (HotSpot).
    pub name: String,
    /// `file:line:col` of the function (V8) or the holder class (HotSpot), for grouping.
    pub source: String,
    /// The tier as the log spells it: V8's marker (`~` Ignition, `^` Sparkplug, `+` Maglev,
    /// `*` TurboFan), HotSpot's level (`0`..`4`, with `osr` where it is one).
    pub tier: String,
    /// HotSpot's compile id.
    pub compile_id: Option<u32>,
    /// The assumptions the compiler recorded, where the log has them.
    pub deps: Vec<Dependency>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MutationKind {
    /// A write to a prototype object's map (V8).
    PrototypeWrite,
    /// A metaclass replaced or changed (Groovy, from the capture's listener line).
    MetaClassChange,
    /// A class load that broke a dependency (HotSpot: the `witness` of `dependency_failed`).
    ClassLoad,
    /// A `java.lang.invoke.CallSite`'s target set (HotSpot: `call_site_target_value` failed).
    CallSiteTarget,
}

impl MutationKind {
    pub fn name(self) -> &'static str {
        match self {
            MutationKind::PrototypeWrite => "prototype-write",
            MutationKind::MetaClassChange => "metaclass-change",
            MutationKind::ClassLoad => "class-load",
            MutationKind::CallSiteTarget => "call-site-target",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Mutation {
    pub at: At,
    pub kind: MutationKind,
    /// The class written to, loaded, or whose metaclass changed.
    pub class: String,
    /// The property written (V8), where the log names it.
    pub member: Option<String>,
    /// Where the write happened, where the log says.
    pub site: Option<SiteId>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum InvalidationKind {
    /// An IC left an established state (V8: `LoadIC` ... with old and new state, the receiver
    /// map and the key). `old == '^'` is V8's RECOMPUTE_HANDLER: the cached handler was found
    /// invalid.
    IcChange { ic: String, old: char, new: char, map: String, key: String },
    /// A call site selected a target again (Groovy: a selection at a site that had one).
    Relink { receiver: String, metaclass: String },
    /// A recorded assumption failed (HotSpot `dependency_failed`).
    DependencyFailed { dependency: String, ctxk: String, witness: String },
    /// Compiled code made not entrant (HotSpot `make_not_entrant`).
    NotEntrant,
    /// A deoptimization with the log's kind and reason (V8 `code-deopt`: `deopt-eager`,
    /// `deopt-lazy`, `deopt-soft`, `dependency-change`; HotSpot `uncommon_trap` / `deoptimized`).
    Deopt { kind: String, reason: String },
}

impl InvalidationKind {
    pub fn name(&self) -> &str {
        match self {
            InvalidationKind::IcChange { ic, .. } => ic,
            InvalidationKind::Relink { .. } => "relink",
            InvalidationKind::DependencyFailed { .. } => "dependency-failed",
            InvalidationKind::NotEntrant => "not-entrant",
            InvalidationKind::Deopt { kind, .. } => kind,
        }
    }
}

/// How an invalidation was tied to its mutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Attribution {
    /// The log names the cause (HotSpot's witness; V8's dependency-change deopt logged inside
    /// the prototype write that caused it).
    Exact,
    /// The nearest mutation before it, by log order (a Groovy site's first selection after a
    /// metaclass change; a V8 IC whose handler was found invalid after a prototype write).
    ByOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// Index into [`crate::trace::Trace::mutations`].
    pub mutation: u32,
    pub attribution: Attribution,
}

#[derive(Clone, Debug, Serialize)]
pub struct Invalidation {
    pub at: At,
    pub kind: InvalidationKind,
    pub site: Option<SiteId>,
    pub unit: Option<UnitId>,
    pub cause: Option<Cause>,
}
