//! Adversarial scenario generators for the work bound: each stresses one term of the estimate
//! (deep chains, bulk events over every site, categories, per-instance metaclasses, fan-out).
//! Shared by `tests/work_bound.rs` (small sizes: estimate >= count) and `benches/engine.rs`
//! (at the caps: worst native time and memory).

#![allow(dead_code)]

use blast_engine::scenario::{CategoryDecl, ClassDecl, Measure, MetaKind, MethodRef, SiteDecl, Stmt};
use blast_engine::{Event, Policy, Scenario};

/// How big a generated scenario is.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    pub classes: usize,
    pub sites: usize,
    /// Events the op fires (spread over its loop).
    pub events: u64,
}

pub struct Generator {
    pub name: &'static str,
    pub scenario: Scenario,
    pub policies: Vec<Policy>,
}

fn class(name: String, parent: Option<String>, methods: Vec<String>) -> ClassDecl {
    ClassDecl { name, parent, methods, metaclass: MetaKind::None, costs: vec![] }
}

fn sites_over(classes: &[ClassDecl], n: usize) -> Vec<SiteDecl> {
    (0..n).map(|i| SiteDecl::mono(format!("s{i}"), classes[i % classes.len()].name.clone(), "m")).collect()
}

/// A loop of 100 x `events` iterations calling every site, firing `ev` every 100 iterations.
fn churn_loop(sites: &[SiteDecl], events: u64, ev: Vec<Stmt>) -> Vec<Stmt> {
    let mut body: Vec<Stmt> = vec![Stmt::every(100, 0, ev)];
    body.extend(sites.iter().map(|s| Stmt::Call { site: s.name.clone() }));
    vec![Stmt::looped(100 * events.max(1), body)]
}

fn scenario(name: &str, classes: Vec<ClassDecl>, sites: Vec<SiteDecl>, op: Vec<Stmt>) -> Scenario {
    Scenario { name: name.into(), measure: Measure { warmup_ops: 0, ops: 1 }, classes, sites, op, ..Scenario::default() }
}

/// Flat classes `K0..Kn`, each declaring `m`.
fn flat(n: usize) -> Vec<ClassDecl> {
    (0..n).map(|i| class(format!("K{i}"), None, vec!["m".into()])).collect()
}

fn write(class: &str, method: &str) -> Stmt {
    Stmt::event(Event::Write { class: class.into(), method: method.into() })
}

/// A chain `K0 <- K1 <- ...`: the root declares `m`, sites sit all along it, and the op writes
/// the root (hierarchy fans out over the whole chain; snapshot rebuilds walk it).
pub fn deep_chain(size: Size) -> Generator {
    let classes: Vec<ClassDecl> =
        (0..size.classes).map(|i| class(format!("K{i}"), i.checked_sub(1).map(|p| format!("K{p}")), if i == 0 { vec!["m".into()] } else { vec![] })).collect();
    let sites = sites_over(&classes, size.sites);
    let op = churn_loop(&sites, size.events, vec![write("K0", "m")]);
    Generator { name: "deep chain, root writes", scenario: scenario("deep_chain", classes, sites, op), policies: vec![Policy::Hierarchy, Policy::Exact] }
}

/// Bulk events (`unattributed`) over every site of a wide world.
pub fn bulk_events(size: Size) -> Generator {
    let classes = flat(size.classes);
    let sites = sites_over(&classes, size.sites);
    let op = churn_loop(&sites, size.events, vec![Stmt::event(Event::Unattributed)]);
    Generator { name: "bulk events x all sites", scenario: scenario("bulk_events", classes, sites, op), policies: vec![Policy::Exact, Policy::Global] }
}

/// Many categories, each naming a slice of the classes, entered and left around the loop.
pub fn many_categories(size: Size) -> Generator {
    let classes = flat(size.classes);
    let sites = sites_over(&classes, size.sites);
    let cats = (size.events / 2).max(1) as usize;
    let categories = (0..cats)
        .map(|k| CategoryDecl {
            name: format!("Cat{k}"),
            methods: (0..4).map(|j| MethodRef { class: classes[(k * 4 + j) % classes.len()].name.clone(), method: "m".into() }).collect(),
        })
        .collect();
    let calls: Vec<Stmt> = sites.iter().map(|s| Stmt::Call { site: s.name.clone() }).collect();
    let op = (0..cats).map(|k| Stmt::use_category(format!("Cat{k}"), vec![Stmt::looped(10, calls.clone())])).collect();
    let mut s = scenario("many_categories", classes, sites, op);
    s.categories = categories;
    Generator { name: "many categories", scenario: s, policies: vec![Policy::Exact, Policy::Ideal] }
}

/// A per-instance metaclass on a different class at each firing.
pub fn per_instance(size: Size) -> Generator {
    let classes = flat(size.classes);
    let sites = sites_over(&classes, size.sites);
    let evs = (0..size.events.min(size.classes as u64)).map(|k| Stmt::event(Event::PerInstance { class: format!("K{k}") })).collect();
    let op = churn_loop(&sites, 1, evs);
    Generator {
        name: "many per-instance metaclasses",
        scenario: scenario("per_instance", classes, sites, op),
        policies: vec![Policy::Exact, Policy::HierarchyV3],
    }
}

/// Writes on one class under every policy at once (global retires the world each time).
pub fn all_policies(size: Size) -> Generator {
    let classes = flat(size.classes);
    let sites = sites_over(&classes, size.sites);
    let op = churn_loop(&sites, size.events, vec![write("K0", "x"), Stmt::event(Event::Replace { class: "K1".into(), kind: MetaKind::Custom })]);
    Generator { name: "writes + custom replaces, all policies", scenario: scenario("all_policies", classes, sites, op), policies: Policy::ALL.to_vec() }
}

/// Every generator, by the name of its scenario (so one can be built alone, e.g. to measure
/// its memory in a fresh process).
pub type Make = fn(Size) -> Generator;

pub const ALL: [(&str, Make); 5] = [
    ("deep_chain", deep_chain),
    ("bulk_events", bulk_events),
    ("many_categories", many_categories),
    ("per_instance", per_instance),
    ("all_policies", all_policies),
];

pub fn all(size: Size) -> Vec<Generator> {
    ALL.iter().map(|(_, make)| make(size)).collect()
}
