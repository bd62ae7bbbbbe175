//! Model edits made through the structured editor.
//!
//! Each operation takes a valid scenario and returns a new valid one, or a sentence saying
//! why not (a cycle, a dangling reference, a bad name). Renames follow every reference;
//! deletions that would leave a dangling reference are refused with the places that still
//! use the name. The result always re-prints to DSL text.

use blast_engine::model::{walk_mut, Block, ClassDecl, Event, MetaKind, Scenario, Semantics, SiteDecl, Stmt};
use blast_engine::validate::{validate, MAX_LOOP_COUNT, MAX_OPS};

#[derive(Clone, Debug, PartialEq)]
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
    AddSite(SiteDecl),
    /// Change the receiver class and method of an existing site.
    RetargetSite(SiteDecl),
    DeleteSite(String),
    SetWorkload(Workload),
}

/// The program shape the workload form edits: one loop with optional periodic writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub iterations: u64,
    pub calls: Vec<String>,
    pub churn: Option<Churn>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Churn {
    pub period: u64,
    pub class: String,
    pub method: String,
}

pub fn apply(s: &Scenario, op: &EditOp) -> Result<Scenario, String> {
    let mut s = s.clone();
    match op {
        EditOp::SetName(name) => {
            if name.contains(['"', '\n']) || name.chars().count() > 80 {
                return Err("a scenario name is one line of at most 80 characters, without quotes".into());
            }
            s.name = name.trim().to_string();
        }
        EditOp::SetSemantics(sem) => s.semantics = *sem,
        EditOp::SetMeasure { warmup_ops, ops } => {
            if *ops == 0 || *ops > MAX_OPS || *warmup_ops > MAX_OPS {
                return Err(format!("measured ops must be 1..={MAX_OPS} and warm-up ops at most {MAX_OPS}"));
            }
            s.measure.warmup_ops = *warmup_ops;
            s.measure.ops = *ops;
        }
        EditOp::AddClass { name, parent } => {
            check_name("class", name)?;
            if class_exists(&s, name) {
                return Err(format!("class `{name}` already exists"));
            }
            if let Some(p) = parent {
                require_class(&s, p)?;
            }
            s.classes.push(ClassDecl { name: name.clone(), parent: parent.clone(), methods: Vec::new(), metaclass: MetaKind::None });
        }
        EditOp::RenameClass { from, to } => {
            require_class(&s, from)?;
            if from == to {
                return Ok(s);
            }
            check_name("class", to)?;
            if class_exists(&s, to) {
                return Err(format!("class `{to}` already exists"));
            }
            rename_class(&mut s, from, to);
        }
        EditOp::Reparent { class, parent } => {
            require_class(&s, class)?;
            if let Some(p) = parent {
                require_class(&s, p)?;
                if p == class || ancestors(&s, p).iter().any(|a| a == class) {
                    return Err(format!("`{class}` cannot extend `{p}`: `{p}` is `{class}` or one of its subclasses, which would make the hierarchy cyclic"));
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
                return Err(format!("`{name}` is still used by {}; change or delete those first{}", uses.join(", "), where_to_edit(&uses)));
            }
            s.classes.retain(|c| &c.name != name);
        }
        EditOp::SetMetaclass { class, kind } => class_mut(&mut s, class)?.metaclass = *kind,
        EditOp::AddMethod { class, method } => {
            check_name("method", method)?;
            let c = class_mut(&mut s, class)?;
            if c.methods.contains(method) {
                return Err(format!("`{class}` already declares `{method}`"));
            }
            c.methods.push(method.clone());
        }
        EditOp::RemoveMethod { class, method } => class_mut(&mut s, class)?.methods.retain(|m| m != method),
        EditOp::AddSite(site) => {
            check_name("site", &site.name)?;
            if s.sites.iter().any(|x| x.name == site.name) {
                return Err(format!("site `{}` already exists", site.name));
            }
            require_class(&s, &site.class)?;
            check_name("method", &site.method)?;
            s.sites.push(site.clone());
        }
        EditOp::RetargetSite(site) => {
            require_class(&s, &site.class)?;
            check_name("method", &site.method)?;
            let existing = s.sites.iter_mut().find(|x| x.name == site.name).ok_or_else(|| format!("there is no site `{}`", site.name))?;
            *existing = site.clone();
        }
        EditOp::DeleteSite(name) => {
            if !s.sites.iter().any(|x| &x.name == name) {
                return Err(format!("there is no site `{name}`"));
            }
            s.sites.retain(|x| &x.name != name);
            // A deleted site's calls go with it; the loops themselves stay.
            for b in Block::ALL {
                remove_calls(s.block_mut(b), name);
            }
        }
        EditOp::SetWorkload(w) => {
            if w.iterations == 0 || w.iterations > MAX_LOOP_COUNT {
                return Err(format!("iterations must be 1..={MAX_LOOP_COUNT}"));
            }
            for call in &w.calls {
                if !s.sites.iter().any(|x| &x.name == call) {
                    return Err(format!("there is no site `{call}`"));
                }
            }
            let mut body = Vec::new();
            if let Some(c) = &w.churn {
                if c.period == 0 || c.period > w.iterations {
                    return Err("the write period must be between 1 and the number of iterations".into());
                }
                require_class(&s, &c.class)?;
                check_name("method", &c.method)?;
                body.push(Stmt::Every {
                    period: c.period,
                    offset: 0,
                    body: vec![Stmt::Event(Event::Write { class: c.class.clone(), method: c.method.clone() })],
                });
            }
            body.extend(w.calls.iter().map(|site| Stmt::Call { site: site.clone() }));
            s.op = vec![Stmt::Loop { count: w.iterations, body }];
        }
    }
    validate(&s).map_err(|e| format!("that edit would make the scenario invalid: {e}"))?;
    Ok(s)
}

/// Read the op back as a workload, when it has exactly the shape the form produces.
pub fn workload_of(s: &Scenario) -> Option<Workload> {
    let [Stmt::Loop { count, body }] = s.op.as_slice() else { return None };
    let mut calls = Vec::new();
    let mut churn = None;
    for st in body {
        match st {
            Stmt::Call { site } => calls.push(site.clone()),
            Stmt::Every { period, offset: 0, body } if churn.is_none() => match body.as_slice() {
                [Stmt::Event(Event::Write { class, method })] => churn = Some(Churn { period: *period, class: class.clone(), method: method.clone() }),
                _ => return None,
            },
            _ => return None,
        }
    }
    Some(Workload { iterations: *count, calls, churn })
}

/// Valid identifiers, as the engine's validator accepts them.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && name.len() <= 64
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    if is_name(name) {
        Ok(())
    } else if name.is_empty() {
        Err(format!("the {what} needs a name"))
    } else {
        Err(format!("`{name}` is not a valid {what} name: start with a letter or _, then letters, digits, _ or $ (at most 64)"))
    }
}

fn class_exists(s: &Scenario, name: &str) -> bool {
    s.classes.iter().any(|c| c.name == name)
}

fn require_class(s: &Scenario, name: &str) -> Result<(), String> {
    if class_exists(s, name) {
        Ok(())
    } else {
        Err(format!("there is no class `{name}`"))
    }
}

fn class_mut<'a>(s: &'a mut Scenario, name: &str) -> Result<&'a mut ClassDecl, String> {
    s.classes.iter_mut().find(|c| c.name == name).ok_or_else(|| format!("there is no class `{name}`"))
}

/// Ancestors of `class`, nearest first; stops at a repeated name so a cycle cannot hang it.
pub fn ancestors(s: &Scenario, class: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = s.classes.iter().find(|c| c.name == class).and_then(|c| c.parent.clone());
    while let Some(p) = cur {
        if out.contains(&p) || p == class {
            break;
        }
        cur = s.classes.iter().find(|c| c.name == p).and_then(|c| c.parent.clone());
        out.push(p);
    }
    out
}

/// Methods a receiver of `class` can call: its own, then inherited, without repeats.
pub fn callable_methods(s: &Scenario, class: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in std::iter::once(class.to_string()).chain(ancestors(s, class)) {
        if let Some(decl) = s.classes.iter().find(|d| d.name == c) {
            for m in &decl.methods {
                if !out.contains(m) {
                    out.push(m.clone());
                }
            }
        }
    }
    out
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

/// Human-readable places that refer to class `name`.
/// Categories and program events have no form: say that the text is where they change.
fn where_to_edit(uses: &[String]) -> &'static str {
    if uses.iter().any(|u| u.starts_with("category ") || u.contains("event(s)")) {
        " (categories and the setup / op events are edited in the scenario text on the right)"
    } else {
        ""
    }
}

/// A scenario to start from: one class, one site, one loop.
pub const BLANK: &str = "scenario \"untitled\"\nclass A { m }\nsite s = A.m\nop { loop 1000 { call s } }\n";

fn class_uses(s: &Scenario, name: &str) -> Vec<String> {
    let mut uses = Vec::new();
    for c in s.classes.iter().filter(|c| c.parent.as_deref() == Some(name)) {
        uses.push(format!("subclass `{}`", c.name));
    }
    for site in s.sites.iter().filter(|x| x.class == name) {
        uses.push(format!("site `{}`", site.name));
    }
    for cat in s.categories.iter().filter(|c| c.methods.iter().any(|m| m.class == name)) {
        uses.push(format!("category `{}`", cat.name));
    }
    let mut events = 0;
    s.visit_events(|ev| events += usize::from(event_class_refs(ev).contains(&name)));
    if events > 0 {
        uses.push(format!("{events} event(s) in the program"));
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
        swap(&mut site.class);
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
        let s = apply(&s, &EditOp::AddSite(SiteDecl { name: "leaf2".into(), class: "Leaf2".into(), method: "base".into() })).unwrap();
        assert!(s.classes.iter().any(|c| c.name == "Leaf2" && c.methods == ["extra"]));
        assert_eq!(callable_methods(&s, "Leaf2"), ["extra", "leaf", "base"]);
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
        assert!(err.contains("cyclic"), "{err}");
        let err = apply(&groovy(), &EditOp::Reparent { class: "Hot".into(), parent: Some("Hot".into()) }).unwrap_err();
        assert!(err.contains("cyclic"), "{err}");
        let ok = apply(&groovy(), &EditOp::Reparent { class: "Unrelated".into(), parent: Some("HierChild".into()) }).unwrap();
        assert_eq!(ancestors(&ok, "Unrelated"), ["HierChild", "HierParent"]);
    }

    #[test]
    fn deleting_a_used_class_names_the_users() {
        let err = apply(&groovy(), &EditOp::DeleteClass("HierParent".into())).unwrap_err();
        assert!(err.contains("subclass `HierChild`") && err.contains("event(s)"), "{err}");
        let err = apply(&groovy(), &EditOp::DeleteClass("Hot".into())).unwrap_err();
        assert!(err.contains("site `hot`") && err.contains("category `HotCategory`"), "{err}");
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
        assert!(apply(&groovy(), &EditOp::AddClass { name: "9lives".into(), parent: None }).is_err());
        assert!(apply(&groovy(), &EditOp::AddClass { name: "Hot".into(), parent: None }).unwrap_err().contains("exists"));
        assert!(apply(&groovy(), &EditOp::AddClass { name: "X".into(), parent: Some("Nope".into()) }).is_err());
        assert!(apply(&groovy(), &EditOp::AddSite(SiteDecl { name: "s".into(), class: "Nope".into(), method: "m".into() })).is_err());
        assert!(apply(&groovy(), &EditOp::RenameClass { from: "Hot".into(), to: "Unrelated".into() }).is_err());
        assert!(apply(&groovy(), &EditOp::SetMeasure { warmup_ops: 1, ops: 0 }).is_err());
        assert!(apply(&groovy(), &EditOp::SetName("a \"quoted\" name".into())).is_err());
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
        let bad = Workload { iterations: 10, calls: vec![], churn: Some(Churn { period: 100, class: "Hot".into(), method: "x".into() }) };
        assert!(apply(&groovy(), &EditOp::SetWorkload(bad)).is_err());
    }
}
