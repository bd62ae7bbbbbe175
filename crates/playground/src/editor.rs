//! Model edits made through the structured editor.
//!
//! Each operation takes a valid scenario and returns a new valid one, or an [`EditError`]
//! saying why not (a cycle, a dangling reference, a bad name). Renames follow every reference;
//! deletions that would leave a dangling reference are refused with the places that still
//! use the name. The result always re-prints to DSL text. `looping` is the form "loop until
//! stopped" runs.

use blast_engine::scenario::{walk_mut, Block, ClassDecl, Counted, Event, MetaKind, Scenario, Semantics, SiteDecl, Stmt};
use blast_engine::validate::{validate, ScenarioError, MAX_LOOP_COUNT, MAX_OPS};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Why an edit was refused. The scenario is unchanged.
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    /// A scenario name must be one line of at most 80 characters, without quotes.
    BadScenarioName,
    BadMeasure,
    /// A class, method or site name that is empty (`name` is "") or not an identifier.
    BadName {
        what: &'static str,
        name: String,
    },
    /// A class or site of this name exists already.
    Exists {
        what: &'static str,
        name: String,
    },
    /// No class or site of this name.
    Missing {
        what: &'static str,
        name: String,
    },
    /// `class extends parent` would close a cycle.
    Cycle {
        class: String,
        parent: String,
    },
    /// The class cannot be deleted while these still refer to it.
    StillUsed {
        class: String,
        uses: Vec<ClassUse>,
    },
    MethodExists {
        class: String,
        method: String,
    },
    BadIterations,
    /// The write period is 0 or longer than the loop.
    BadPeriod,
    /// A polymorphic site's receiver list as typed (`Square, Tri mix 60/30/10`) does not read.
    BadReceivers(String),
    /// The edited scenario does not validate (a bound the form does not check itself).
    Invalid(ScenarioError),
}

/// A place that refers to a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassUse {
    Subclass(String),
    Site(String),
    Category(String),
    /// This many events in the program name the class.
    Events(usize),
}

impl fmt::Display for ClassUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassUse::Subclass(c) => write!(f, "subclass `{c}`"),
            ClassUse::Site(s) => write!(f, "site `{s}`"),
            ClassUse::Category(c) => write!(f, "category `{c}`"),
            ClassUse::Events(n) => write!(f, "{n} event(s) in the program"),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::BadScenarioName => write!(f, "a scenario name is one line of at most 80 characters, without quotes"),
            EditError::BadMeasure => write!(f, "measured ops must be at least 1 and at most {MAX_OPS}, warm-up ops at most {MAX_OPS}"),
            EditError::BadName { what, name } if name.is_empty() => write!(f, "the {what} needs a name"),
            EditError::BadName { what, name } => {
                write!(f, "`{name}` is not a valid {what} name: start with a letter or _, then letters, digits, _ or $ (at most 64)")
            }
            EditError::Exists { what, name } => write!(f, "{what} `{name}` already exists"),
            EditError::Missing { what, name } => write!(f, "there is no {what} `{name}`"),
            EditError::Cycle { class, parent } => {
                write!(f, "`{class}` cannot extend `{parent}`: `{parent}` is `{class}` or one of its subclasses, which would make the hierarchy cyclic")
            }
            EditError::StillUsed { class, uses } => {
                let names: Vec<String> = uses.iter().map(ToString::to_string).collect();
                write!(f, "`{class}` is still used by {}; change or delete those first", names.join(", "))?;
                // Categories and program events have no form: say that the text is where they change.
                if uses.iter().any(|u| matches!(u, ClassUse::Category(_) | ClassUse::Events(_))) {
                    write!(f, " (categories and the setup / op events are edited in the scenario text on the right)")?;
                }
                Ok(())
            }
            EditError::MethodExists { class, method } => write!(f, "`{class}` already declares `{method}`"),
            EditError::BadIterations => write!(f, "iterations must be at least 1 and at most {MAX_LOOP_COUNT}"),
            EditError::BadPeriod => write!(f, "the write period must be between 1 and the number of iterations"),
            EditError::BadReceivers(text) => {
                write!(f, "`{text}` is not a receiver list: other receiver classes, then optionally `mix` and one weight per receiver, e.g. `Square, Tri mix 60/30/10`")
            }
            EditError::Invalid(e) => write!(f, "that edit would make the scenario invalid: {e}"),
        }
    }
}

impl std::error::Error for EditError {}

/// A form edit. The page does not apply it: it travels to the engine worker with the text it
/// edits (`worker::wire::Job::edit`, in postcard's form), which applies it, prints the new text
/// and reads that (`worker::offload::read`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EditOp {
    SetName(String),
    SetSemantics(Semantics),
    SetMeasure {
        warmup_ops: u32,
        ops: u32,
    },
    AddClass {
        name: String,
        parent: Option<String>,
    },
    RenameClass {
        from: String,
        to: String,
    },
    Reparent {
        class: String,
        parent: Option<String>,
    },
    DeleteClass(String),
    SetMetaclass {
        class: String,
        kind: MetaKind,
    },
    AddMethod {
        class: String,
        method: String,
    },
    RemoveMethod {
        class: String,
        method: String,
    },
    AddSite(#[serde(with = "site_form")] SiteDecl),
    /// Change the receiver class and method of an existing site.
    RetargetSite(#[serde(with = "site_form")] SiteDecl),
    /// Set a site's other receiver classes and mix from the site list's text
    /// ([`receivers_text`]; empty = monomorphic).
    SetReceivers {
        site: String,
        text: String,
    },
    DeleteSite(String),
    SetWorkload(Workload),
}

/// The program shape the workload form edits: one loop with optional periodic writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub iterations: u64,
    pub calls: Vec<String>,
    pub churn: Option<Churn>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Churn {
    pub period: u64,
    pub class: String,
    pub method: String,
}

/// A [`SiteDecl`] in an [`EditOp`] as its parts: name, class, method, other receivers, mix.
mod site_form {
    use blast_engine::name::Name;
    use blast_engine::scenario::SiteDecl;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(site: &SiteDecl, s: S) -> Result<S::Ok, S::Error> {
        (site.name.as_str(), site.class.as_str(), site.method.as_str(), site.others(), site.mix()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SiteDecl, D::Error> {
        let (name, class, method, others, mix) = <(String, String, String, Vec<String>, Vec<u32>)>::deserialize(d)?;
        Ok(SiteDecl::mono(Name::from(name), Name::from(class), Name::from(method)).with_receivers(others, mix))
    }
}

pub fn apply(s: &Scenario, op: &EditOp) -> Result<Scenario, EditError> {
    let mut s = s.clone();
    match op {
        EditOp::SetName(name) => {
            if name.contains(['"', '\n']) || name.chars().count() > 80 {
                return Err(EditError::BadScenarioName);
            }
            s.name = name.trim().to_string();
        }
        EditOp::SetSemantics(sem) => s.semantics = *sem,
        EditOp::SetMeasure { warmup_ops, ops } => {
            if *ops == 0 || *ops > MAX_OPS || *warmup_ops > MAX_OPS {
                return Err(EditError::BadMeasure);
            }
            s.measure.warmup_ops = *warmup_ops;
            s.measure.ops = *ops;
        }
        EditOp::AddClass { name, parent } => {
            check_name("class", name)?;
            if class_exists(&s, name) {
                return Err(EditError::Exists { what: "class", name: name.clone() });
            }
            if let Some(p) = parent {
                require_class(&s, p)?;
            }
            s.classes.push(ClassDecl { name: name.clone(), parent: parent.clone(), methods: Vec::new(), metaclass: MetaKind::None, costs: Vec::new() });
        }
        EditOp::RenameClass { from, to } => {
            require_class(&s, from)?;
            if from == to {
                return Ok(s);
            }
            check_name("class", to)?;
            if class_exists(&s, to) {
                return Err(EditError::Exists { what: "class", name: to.clone() });
            }
            rename_class(&mut s, from, to);
        }
        EditOp::Reparent { class, parent } => {
            require_class(&s, class)?;
            if let Some(p) = parent {
                require_class(&s, p)?;
                if p == class || Lineages::new(&s).ancestors(p).iter().any(|a| a == class) {
                    return Err(EditError::Cycle { class: class.clone(), parent: p.clone() });
                }
            }
            if let Some(c) = s.classes.iter_mut().find(|c| &c.name == class) {
                c.parent = parent.clone();
            }
        }
        EditOp::DeleteClass(name) => {
            require_class(&s, name)?;
            let uses = class_uses(&s, name);
            if !uses.is_empty() {
                return Err(EditError::StillUsed { class: name.clone(), uses });
            }
            s.classes.retain(|c| &c.name != name);
        }
        EditOp::SetMetaclass { class, kind } => class_mut(&mut s, class)?.metaclass = *kind,
        EditOp::AddMethod { class, method } => {
            check_name("method", method)?;
            let c = class_mut(&mut s, class)?;
            if c.methods.contains(method) {
                return Err(EditError::MethodExists { class: class.clone(), method: method.clone() });
            }
            c.methods.push(method.clone());
        }
        EditOp::RemoveMethod { class, method } => {
            let c = class_mut(&mut s, class)?;
            c.methods.retain(|m| m != method);
            // A body cost goes with its method (a cost for an undeclared method is invalid).
            c.costs.retain(|b| &b.method != method);
        }
        EditOp::AddSite(site) => {
            check_name("site", &site.name)?;
            if s.sites.iter().any(|x| x.name == site.name) {
                return Err(EditError::Exists { what: "site", name: site.name.to_string() });
            }
            require_class(&s, &site.class)?;
            check_name("method", &site.method)?;
            s.sites.push(site.clone());
        }
        EditOp::RetargetSite(site) => {
            for class in site.receivers() {
                require_class(&s, class)?;
            }
            check_name("method", &site.method)?;
            let existing = s.sites.iter_mut().find(|x| x.name == site.name).ok_or_else(|| EditError::Missing { what: "site", name: site.name.to_string() })?;
            *existing = site.clone();
        }
        EditOp::SetReceivers { site, text } => {
            let existing = s.sites.iter_mut().find(|x| &x.name == site).ok_or_else(|| EditError::Missing { what: "site", name: site.clone() })?;
            let next = with_receivers(existing, text)?;
            *existing = next;
            for class in existing.receivers() {
                if !s.classes.iter().any(|c| c.name == class) {
                    return Err(EditError::Missing { what: "class", name: class.to_string() });
                }
            }
        }
        EditOp::DeleteSite(name) => {
            if !s.sites.iter().any(|x| &x.name == name) {
                return Err(EditError::Missing { what: "site", name: name.clone() });
            }
            s.sites.retain(|x| &x.name != name);
            s.expectations.retain_mut(|e| e.forget_site(name));
            // A deleted site's calls go with it; the loops themselves stay.
            for b in Block::ALL {
                remove_calls(s.block_mut(b), name);
            }
        }
        EditOp::SetWorkload(w) => {
            if w.iterations == 0 || w.iterations > MAX_LOOP_COUNT {
                return Err(EditError::BadIterations);
            }
            for call in &w.calls {
                if !s.sites.iter().any(|x| &x.name == call) {
                    return Err(EditError::Missing { what: "site", name: call.clone() });
                }
            }
            let mut body = Vec::new();
            if let Some(c) = &w.churn {
                if c.period == 0 || c.period > w.iterations {
                    return Err(EditError::BadPeriod);
                }
                require_class(&s, &c.class)?;
                check_name("method", &c.method)?;
                body.push(Stmt::every(c.period, 0, vec![Stmt::event(Event::Write { class: c.class.clone(), method: c.method.clone() })]));
            }
            body.extend(w.calls.iter().map(|site| Stmt::Call { site: site.into() }));
            s.op = vec![Stmt::looped(w.iterations, body)];
        }
    }
    validate(&s).map_err(EditError::Invalid)?;
    Ok(s)
}

/// A polymorphic site's other receivers and mix as the site list shows them: the DSL's words
/// after the first `Class.method`, without the method (`Square, Tri mix 60/30/10`).
pub fn receivers_text(site: &SiteDecl) -> String {
    let mut text = site.others().join(", ");
    if !site.mix().is_empty() {
        let weights: Vec<String> = site.mix().iter().map(u32::to_string).collect();
        text.push_str(&format!(" mix {}", weights.join("/")));
    }
    text
}

/// [`receivers_text`] read back into `site` (an empty text makes it monomorphic). Class names
/// and weights are checked by the scenario's validation afterwards.
fn with_receivers(site: &SiteDecl, text: &str) -> Result<SiteDecl, EditError> {
    let bad = || EditError::BadReceivers(text.trim().to_string());
    let words: Vec<&str> = text.split([',', ' ']).filter(|w| !w.is_empty()).collect();
    let (classes, mix) = match words.iter().position(|&w| w == "mix") {
        Some(at) => (&words[..at], words[at + 1..].concat()),
        None => (&words[..], String::new()),
    };
    let others: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
    let mix = if mix.is_empty() && !words.contains(&"mix") {
        Vec::new()
    } else {
        mix.split('/').map(|w| w.parse::<u32>().map_err(|_| bad())).collect::<Result<Vec<_>, _>>()?
    };
    if let Some(c) = others.iter().find(|c| !is_name(c)) {
        return Err(EditError::BadName { what: "class", name: c.clone() });
    }
    Ok(site.clone().with_receivers(others, mix))
}

/// Read the op back as a workload, when it has exactly the shape the form produces.
pub fn workload_of(s: &Scenario) -> Option<Workload> {
    let (l, churn) = form_shape(s)?;
    let calls = l.body.iter().filter_map(|st| if let Stmt::Call { site } = st { Some(site.to_string()) } else { None }).collect();
    Some(Workload { iterations: l.count, calls, churn })
}

/// Whether the op has the form's shape ([`workload_of`] without naming its calls: a loop of a
/// 10^6-site world calls 10^6 sites, and the form asks at every render).
pub fn has_workload_shape(s: &Scenario) -> bool {
    form_shape(s).is_some()
}

/// The op's one loop and its write, when the op is one loop of calls with at most one write
/// every N iterations from the start.
fn form_shape(s: &Scenario) -> Option<(&Counted, Option<Churn>)> {
    let [Stmt::Loop(l)] = s.op.as_slice() else { return None };
    let mut churn = None;
    for st in &l.body {
        match st {
            Stmt::Call { .. } => {}
            Stmt::Every(e) if e.offset == 0 && churn.is_none() => match e.body.as_slice() {
                [Stmt::Event(ev)] => match &**ev {
                    Event::Write { class, method } => churn = Some(Churn { period: e.period, class: class.clone(), method: method.clone() }),
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        }
    }
    Some((l, churn))
}

/// Valid identifiers, as the engine's validator accepts them.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && name.len() <= 64
}

fn check_name(what: &'static str, name: &str) -> Result<(), EditError> {
    if is_name(name) {
        Ok(())
    } else {
        Err(EditError::BadName { what, name: name.to_string() })
    }
}

fn class_exists(s: &Scenario, name: &str) -> bool {
    s.classes.iter().any(|c| c.name == name)
}

fn no_class(name: &str) -> EditError {
    EditError::Missing { what: "class", name: name.to_string() }
}

fn require_class(s: &Scenario, name: &str) -> Result<(), EditError> {
    if class_exists(s, name) {
        Ok(())
    } else {
        Err(no_class(name))
    }
}

fn class_mut<'a>(s: &'a mut Scenario, name: &str) -> Result<&'a mut ClassDecl, EditError> {
    s.classes.iter_mut().find(|c| c.name == name).ok_or_else(|| no_class(name))
}

/// The classes by name, to walk a class's ancestors: built once for a scenario and asked for
/// any number of classes (the site list asks for each receiver on screen; building it per
/// class was a 10^4-entry map per receiver at 10^5 sites).
pub struct Lineages<'a> {
    by_name: HashMap<&'a str, &'a ClassDecl>,
}

impl<'a> Lineages<'a> {
    pub fn new(s: &'a Scenario) -> Self {
        let mut by_name: HashMap<&str, &ClassDecl> = HashMap::with_capacity(s.classes.len());
        for c in &s.classes {
            // The first declaration wins, as a scan would find it.
            by_name.entry(c.name.as_str()).or_insert(c);
        }
        Lineages { by_name }
    }

    /// `class`'s declaration and its ancestors', nearest first; stops at a repeated name so a
    /// cycle cannot hang it. Linear in depth (a name index, not a scan per level: a
    /// 1,900-deep chain from a share link took 35 ms per receiver that way).
    fn lineage(&self, class: &str) -> Vec<&'a ClassDecl> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        let mut cur = self.by_name.get(class).copied();
        while let Some(c) = cur {
            if !seen.insert(c.name.as_str()) {
                break;
            }
            out.push(c);
            cur = c.parent.as_deref().and_then(|p| self.by_name.get(p).copied());
        }
        out
    }

    /// Ancestors of `class`, nearest first (declared ones; a cycle stops at the repeat).
    pub fn ancestors(&self, class: &str) -> Vec<String> {
        self.lineage(class).iter().skip(1).map(|c| c.name.clone()).collect()
    }

    /// Methods a receiver of `class` can call: its own, then inherited, without repeats.
    pub fn callable_methods(&self, class: &str) -> Vec<String> {
        let mut seen: HashSet<&str> = HashSet::new();
        self.lineage(class).iter().flat_map(|c| &c.methods).filter(|m| seen.insert(m.as_str())).cloned().collect()
    }
}

/// Classes the program loads while it runs (`load class …`), with their parents.
pub fn loaded_by_program(s: &Scenario) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut collect = |ev: &Event| {
        if let Event::Load { class, parent, .. } = ev {
            out.push((class.clone(), parent.clone()));
        }
    };
    s.visit_events(&mut collect);
    out
}

/// A scenario to start from: one class, one site, one loop.
pub const BLANK: &str = "scenario \"untitled\"\nclass A { m }\nsite s = A.m\nop { loop 1000 { call s } }\n";

/// The places that refer to class `name`.
fn class_uses(s: &Scenario, name: &str) -> Vec<ClassUse> {
    let mut uses = Vec::new();
    for c in s.classes.iter().filter(|c| c.parent.as_deref() == Some(name)) {
        uses.push(ClassUse::Subclass(c.name.clone()));
    }
    for site in s.sites.iter().filter(|x| x.receivers().any(|c| c == name)) {
        uses.push(ClassUse::Site(site.name.to_string()));
    }
    for cat in s.categories.iter().filter(|c| c.methods.iter().any(|m| m.class == name)) {
        uses.push(ClassUse::Category(cat.name.clone()));
    }
    let mut events = 0;
    s.visit_events(|ev| events += usize::from(event_class_refs(ev).contains(&name)));
    if events > 0 {
        uses.push(ClassUse::Events(events));
    }
    uses
}

fn event_class_refs(ev: &Event) -> Vec<&str> {
    match ev {
        Event::Write { class, .. } | Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } => vec![class],
        Event::Load { class, parent, .. } => std::iter::once(class.as_str()).chain(parent.as_deref()).collect(),
        Event::InvalidateAll | Event::Unattributed => Vec::new(),
    }
}

fn rename_class(s: &mut Scenario, from: &str, to: &str) {
    s.expectations.iter_mut().for_each(|e| e.rename_class(from, to));
    let swap = |name: &mut String| {
        if name == from {
            *name = to.to_string();
        }
    };
    for c in &mut s.classes {
        swap(&mut c.name);
        if let Some(p) = &mut c.parent {
            swap(p);
        }
    }
    for cat in &mut s.categories {
        for m in &mut cat.methods {
            swap(&mut m.class);
        }
    }
    for site in &mut s.sites {
        if site.class == from {
            site.class = to.into();
        }
        for other in site.others_mut() {
            swap(other);
        }
    }
    s.visit_events_mut(|ev| match ev {
        Event::Write { class, .. } | Event::Replace { class, .. } | Event::Remove { class } | Event::PerInstance { class } => swap(class),
        Event::Load { class, parent, .. } => {
            swap(class);
            if let Some(p) = parent {
                swap(p);
            }
        }
        Event::InvalidateAll | Event::Unattributed => {}
    });
}

fn remove_calls(block: &mut Vec<Stmt>, site: &str) {
    block.retain(|st| !matches!(st, Stmt::Call { site: s } if s == site));
    walk_mut(block, &mut |st| {
        if let Some(body) = st.body_mut() {
            body.retain(|st| !matches!(st, Stmt::Call { site: s } if s == site));
        }
    });
}

/// The scenario as "loop until stopped" runs it: the measured op repeated as often as the
/// engine's bounds allow (`validate::MAX_OPS`, `sim::MAX_WORK`), so a run lasts long enough
/// to fire mutations into by hand. Unchanged when it cannot be stretched.
pub fn looping(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    let mut ops = blast_engine::validate::MAX_OPS.saturating_sub(s.measure.warmup_ops);
    while ops > scenario.measure.ops {
        s.measure.ops = ops;
        if blast_engine::sim::estimate_work(&s) <= blast_engine::sim::MAX_WORK {
            return s;
        }
        ops /= 2;
    }
    scenario.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::{dsl, presets};

    fn groovy() -> Scenario {
        presets::find("parentChild_parentMetaClassChurn").unwrap().scenario()
    }

    fn reprints(s: &Scenario) {
        assert_eq!(&dsl::parse(&dsl::print(s)).expect("re-prints to valid DSL"), s);
    }

    #[test]
    fn add_class_and_method_then_site() {
        let s = apply(&groovy(), &EditOp::AddClass { name: "Leaf2".into(), parent: Some("HierChild".into()) }).unwrap();
        let s = apply(&s, &EditOp::AddMethod { class: "Leaf2".into(), method: "extra".into() }).unwrap();
        let s = apply(&s, &EditOp::AddSite(SiteDecl::mono("leaf2", "Leaf2", "base"))).unwrap();
        assert!(s.classes.iter().any(|c| c.name == "Leaf2" && c.methods == ["extra"]));
        assert_eq!(Lineages::new(&s).callable_methods("Leaf2"), ["extra", "leaf", "base"]);
        reprints(&s);
    }

    #[test]
    fn rename_follows_every_reference() {
        let s = apply(&groovy(), &EditOp::RenameClass { from: "HierParent".into(), to: "Base".into() }).unwrap();
        assert!(s.classes.iter().any(|c| c.name == "HierChild" && c.parent.as_deref() == Some("Base")));
        let text = dsl::print(&s);
        assert!(text.contains("write Base.dyn0"), "{text}");
        assert!(text.contains("remove Base"), "{text}");
        assert!(!text.contains("HierParent"));
        reprints(&s);
    }

    #[test]
    fn reparenting_into_a_cycle_is_refused() {
        let err = apply(&groovy(), &EditOp::Reparent { class: "HierParent".into(), parent: Some("HierChild".into()) }).unwrap_err();
        assert_eq!(err, EditError::Cycle { class: "HierParent".into(), parent: "HierChild".into() });
        let err = apply(&groovy(), &EditOp::Reparent { class: "Hot".into(), parent: Some("Hot".into()) }).unwrap_err();
        assert!(matches!(err, EditError::Cycle { .. }), "{err}");
        let ok = apply(&groovy(), &EditOp::Reparent { class: "Unrelated".into(), parent: Some("HierChild".into()) }).unwrap();
        assert_eq!(Lineages::new(&ok).ancestors("Unrelated"), ["HierChild", "HierParent"]);
    }

    /// A chain 100,000 deep: a scan per level (the old walk) is 10^10 name comparisons and
    /// never finishes here; the indexed walk is linear.
    #[test]
    fn lineage_of_a_very_deep_chain_and_of_a_cycle() {
        let n = 100_000;
        let classes = (0..n)
            .map(|i| ClassDecl {
                name: format!("A{i}"),
                parent: (i > 0).then(|| format!("A{}", i - 1)),
                methods: vec![format!("m{}", i % 3)],
                metaclass: MetaKind::default(),
                costs: Vec::new(),
            })
            .collect();
        let mut s = Scenario { classes, ..Scenario::default() };
        let up = Lineages::new(&s).ancestors(&format!("A{}", n - 1));
        assert_eq!((up.len(), up.first().map(String::as_str), up.last().map(String::as_str)), (n - 1, Some("A99998"), Some("A0")));
        assert_eq!(Lineages::new(&s).callable_methods(&format!("A{}", n - 1)), ["m0", "m2", "m1"]);
        s.classes[0].parent = Some(format!("A{}", n - 1));
        assert_eq!(Lineages::new(&s).ancestors("A0").len(), n - 1, "the cycle stops at the repeat");
    }

    #[test]
    fn deleting_a_used_class_names_the_users() {
        let EditError::StillUsed { uses, .. } = apply(&groovy(), &EditOp::DeleteClass("HierParent".into())).unwrap_err() else { panic!() };
        assert!(uses.contains(&ClassUse::Subclass("HierChild".into())) && uses.iter().any(|u| matches!(u, ClassUse::Events(_))), "{uses:?}");
        let EditError::StillUsed { uses, .. } = apply(&groovy(), &EditOp::DeleteClass("Hot".into())).unwrap_err() else { panic!() };
        assert!(uses.contains(&ClassUse::Site("hot".into())) && uses.contains(&ClassUse::Category("HotCategory".into())), "{uses:?}");
        let s = apply(&groovy(), &EditOp::AddClass { name: "Spare".into(), parent: None }).unwrap();
        let s = apply(&s, &EditOp::DeleteClass("Spare".into())).unwrap();
        assert_eq!(s, groovy());
    }

    #[test]
    fn deleting_a_site_removes_its_calls() {
        let s = apply(&groovy(), &EditOp::DeleteSite("leaf".into())).unwrap();
        assert!(!dsl::print(&s).contains("call leaf"));
        reprints(&s);
    }

    #[test]
    fn bad_names_and_dangling_references_are_errors() {
        let g = groovy();
        assert!(matches!(apply(&g, &EditOp::AddClass { name: "9lives".into(), parent: None }), Err(EditError::BadName { what: "class", .. })));
        assert!(matches!(apply(&g, &EditOp::AddClass { name: "".into(), parent: None }), Err(EditError::BadName { .. })));
        assert!(matches!(apply(&g, &EditOp::AddClass { name: "Hot".into(), parent: None }), Err(EditError::Exists { what: "class", .. })));
        assert!(matches!(apply(&g, &EditOp::AddClass { name: "X".into(), parent: Some("Nope".into()) }), Err(EditError::Missing { what: "class", .. })));
        let site = SiteDecl::mono("s", "Nope", "m");
        assert!(matches!(apply(&g, &EditOp::AddSite(site)), Err(EditError::Missing { what: "class", .. })));
        assert!(matches!(apply(&g, &EditOp::RenameClass { from: "Hot".into(), to: "Unrelated".into() }), Err(EditError::Exists { .. })));
        assert_eq!(apply(&g, &EditOp::SetMeasure { warmup_ops: 1, ops: 0 }), Err(EditError::BadMeasure));
        assert_eq!(apply(&g, &EditOp::SetName("a \"quoted\" name".into())), Err(EditError::BadScenarioName));
    }

    #[test]
    fn a_site_gets_more_receivers_and_a_mix_and_loses_them() {
        let s = dsl::parse("class A { m }\nclass B extends A\nclass C { m }\nsite s = A.m\nop { loop 10 { call s } }\n").unwrap();
        let set = |s: &Scenario, text: &str| apply(s, &EditOp::SetReceivers { site: "s".into(), text: text.into() });
        let poly = set(&s, "B, C mix 60/30/10").unwrap();
        let site = &poly.sites[0];
        assert_eq!((site.others(), site.mix()), (&["B".to_string(), "C".to_string()][..], &[60, 30, 10][..]));
        assert_eq!(receivers_text(site), "B, C mix 60/30/10");
        assert!(dsl::print(&poly).contains("site s = A.m, B.m, C.m mix 60/30/10"));
        reprints(&poly);
        // Renames follow the receivers; a receiver keeps its class from being deleted.
        let renamed = apply(&poly, &EditOp::RenameClass { from: "C".into(), to: "Cee".into() }).unwrap();
        assert_eq!(renamed.sites[0].others(), ["B", "Cee"]);
        assert!(matches!(apply(&poly, &EditOp::DeleteClass("C".into())), Err(EditError::StillUsed { .. })));
        // Back to one receiver.
        assert_eq!(set(&poly, " ").unwrap().sites[0], SiteDecl::mono("s", "A", "m"));
        // Refusals: an unknown class, a wrong weight count (the engine's validation), bad weights.
        assert!(matches!(set(&s, "Z"), Err(EditError::Missing { what: "class", .. })));
        let e = set(&s, "B mix 1/2/3").unwrap_err();
        assert!(e.to_string().contains("has 2 receiver classes but its mix has 3 weights"), "{e}");
        assert_eq!(set(&s, "B mix 1/x"), Err(EditError::BadReceivers("B mix 1/x".into())));
        assert_eq!(set(&s, "B mix"), Err(EditError::BadReceivers("B mix".into())));
    }

    #[test]
    fn program_loads_are_found() {
        let s = dsl::parse("class A { m }\nsite s = A.m\nsetup { load class B extends A { m } }\nop { loop 10 { call s } }\n").unwrap();
        assert_eq!(loaded_by_program(&s), [("B".to_string(), Some("A".to_string()))]);
        assert!(loaded_by_program(&groovy()).is_empty());
    }

    #[test]
    fn metaclass_kind_prints() {
        let s = apply(&groovy(), &EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Custom }).unwrap();
        assert!(dsl::print(&s).contains("class Hot metaclass custom"));
        reprints(&s);
    }

    #[test]
    fn workload_round_trips_through_the_form() {
        let w = workload_of(&groovy()).expect("the preset has the form's shape");
        assert_eq!(w.iterations, 100_000);
        assert_eq!(w.churn, Some(Churn { period: 1000, class: "HierParent".into(), method: "dyn0".into() }));
        let changed = Workload { iterations: 5000, calls: vec!["leaf".into()], churn: None };
        let s = apply(&groovy(), &EditOp::SetWorkload(changed.clone())).unwrap();
        assert_eq!(workload_of(&s), Some(changed));
        reprints(&s);
        let cat = presets::find("hotLoop_categoryEnterLeave").unwrap().scenario();
        assert_eq!(workload_of(&cat), None, "a use block is not the form's shape");
        assert!(has_workload_shape(&s) && has_workload_shape(&groovy()) && !has_workload_shape(&cat));
        let bad = Workload { iterations: 10, calls: vec![], churn: Some(Churn { period: 100, class: "Hot".into(), method: "x".into() }) };
        assert_eq!(apply(&groovy(), &EditOp::SetWorkload(bad)), Err(EditError::BadPeriod));
    }

    #[test]
    fn removing_a_method_removes_its_body_cost() {
        let s = blast_engine::dsl::parse("class A { m n cost 50ns }\nsite a = A.m\nop { loop 1 { call a } }").unwrap();
        let s = apply(&s, &EditOp::RemoveMethod { class: "A".into(), method: "n".into() }).unwrap();
        assert!(s.classes[0].costs.is_empty());
        assert!(blast_engine::validate::validate(&s).is_ok());
    }
}
