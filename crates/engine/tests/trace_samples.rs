//! The trace readers on the committed real logs (probes/traces/logs/, captured by
//! scripts/capture-traces.sh; each log's runtime, command line, machine and date are in the
//! `.meta` beside it). Each test asserts what the log itself shows, computed from its events,
//! not copied from a run of the reader.

use blast_engine::trace::{
    blast_radii, parse_classes, read, replay, Attribution, Cause, InvalidationKind, Limits, LogFormat, MutationKind, Replay, ReplayError, SiteKey, Subject,
    Trace, TraceReader,
};
use blast_engine::Policy;

fn sample(name: &str) -> Vec<u8> {
    let path = format!("{}/../../probes/traces/logs/{name}.log", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn trace(name: &str) -> Trace {
    let t = read(&sample(name), Limits::default(), None);
    assert_eq!(t.not_understood, 0, "{name}: {:?}", t.first_not_understood);
    assert!(t.stopped.is_none());
    t
}

/// A sample with the class tree its capture recorded beside it (`NAME.classes`).
fn with_tree(name: &str) -> Trace {
    let mut t = trace(name);
    let path = format!("{}/../../probes/traces/logs/{name}.classes", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    t.add_classes(parse_classes(&text).unwrap_or_else(|e| panic!("{path}: {e}")));
    t
}

fn score(r: &Replay, p: Policy) -> blast_engine::trace::replay::Score {
    r.totals[r.policies.iter().position(|&x| x == p).unwrap_or_else(|| panic!("{p:?} not replayed"))]
}

fn predicted<'a>(r: &'a Replay, m: &'a blast_engine::trace::replay::MutationReplay, p: Policy) -> &'a [u32] {
    &m.predicted[r.policies.iter().position(|&x| x == p).unwrap()]
}

fn is_kind(k: &InvalidationKind, name: &str) -> bool {
    matches!(k, InvalidationKind::Deopt { kind, .. } if kind == name)
}

#[test]
fn js_dependency_change_deopts_belong_to_the_prototype_write_logged_after_them() {
    let t = trace("v8-proto-write");
    assert_eq!(t.format, Some(LogFormat::V8));
    assert_eq!(t.version.as_deref(), Some("V8 11.3.244.8-node.38"));
    let deps: Vec<_> = t.invalidations.iter().filter(|i| is_kind(&i.kind, "dependency-change")).collect();
    assert!(!deps.is_empty());
    for d in &deps {
        let c = d.cause.unwrap_or_else(|| panic!("line {}: dependency-change not attributed", d.at.line));
        assert_eq!(c.attribution, Attribution::Exact);
        let m = &t.mutations[c.mutation as usize];
        assert_eq!((m.kind, m.class.as_str()), (MutationKind::PrototypeWrite, "Point"), "line {}", d.at.line);
        // The write is the first mutation logged after the deopt.
        let next = t.mutations.iter().position(|x| x.at.line > d.at.line).unwrap();
        assert_eq!(next as u32, c.mutation, "line {}", d.at.line);
    }
    // Point's writes, in order, are the program's `extraN` methods; Counter is never written.
    let point: Vec<&str> = t.mutations.iter().filter(|m| m.class == "Point").filter_map(|m| m.member.as_deref()).collect();
    let expected: Vec<String> = (1..=point.len()).map(|k| format!("extra{k}")).collect();
    assert_eq!(point, expected);
    assert!(t.mutations.iter().all(|m| m.class != "Counter"));
    // The Counter functions' code and sites are in no blast radius.
    for r in blast_radii(&t) {
        for &u in &r.units {
            assert!(!t.units[u as usize].name.starts_with("counter"), "{}", t.units[u as usize].name);
        }
        for &s in &r.sites {
            assert!(!t.sites[s as usize].function.as_deref().unwrap_or("").starts_with("counter"));
        }
    }
    // A stale IC (old state `^`) attributed by order names a Point method.
    let stale: Vec<_> = t.invalidations.iter().filter(|i| i.cause.map(|c| c.attribution) == Some(Attribution::ByOrder)).collect();
    assert!(stale.iter().any(|i| matches!(&i.kind, InvalidationKind::IcChange { old: '^', key, .. } if key == "norm")));
}

#[test]
fn js_plugin_writes_hit_only_the_code_that_uses_the_written_class() {
    let t = trace("v8-shapes-plugins");
    let radii = blast_radii(&t);
    let hit: Vec<_> = radii.iter().filter(|r| r.invalidations > 0).collect();
    assert!(!hit.is_empty());
    for r in hit {
        let m = &t.mutations[r.mutation as usize];
        assert_eq!(m.kind, MutationKind::PrototypeWrite);
        assert!(matches!(m.class.as_str(), "Shape" | "Rect"), "{}", m.class);
        assert!(r.exact >= 1, "every plugin write with a radius deoptimized code exactly");
    }
}

#[test]
fn java_witness_is_the_loaded_class_and_every_dependent_method_is_made_not_entrant() {
    let t = trace("hotspot-cha-break");
    assert_eq!(t.format, Some(LogFormat::HotSpot));
    assert!(t.version.as_deref().unwrap().starts_with("JDK 17."));
    let loads: Vec<&str> = t.mutations.iter().map(|m| m.class.as_str()).collect();
    assert_eq!(loads, ["ChaBreak$Triangle", "ChaBreak$Circle"], "the program loads Triangle, then Circle, by name");
    let radii = blast_radii(&t);
    for (k, m) in t.mutations.iter().enumerate() {
        assert_eq!(m.kind, MutationKind::ClassLoad);
        // The witness was not compiled before it was loaded: it is the newly loaded class.
        assert!(t.units.iter().filter(|u| u.at < m.at).all(|u| !u.name.starts_with(&format!("{} ", m.class))), "{}", m.class);
        let failed: Vec<(String, String)> = t
            .invalidations
            .iter()
            .filter(|i| i.cause.map(|c| c.mutation) == Some(k as u32))
            .filter_map(|i| match &i.kind {
                InvalidationKind::DependencyFailed { dependency, ctxk, witness } => {
                    assert_eq!(witness, &m.class);
                    Some((dependency.clone(), ctxk.clone()))
                }
                _ => None,
            })
            .collect();
        assert!(!failed.is_empty(), "{}", m.class);
        // Every unit compiled on a broken assumption and still entrant at the load is made not
        // entrant, attributed exactly to the load, and nothing else is.
        let not_entrant_before = |u: u32| t.invalidations.iter().any(|i| i.kind == InvalidationKind::NotEntrant && i.unit == Some(u) && i.at < m.at);
        let dependent: Vec<u32> = (0..t.units.len() as u32)
            .filter(|&u| {
                let unit = &t.units[u as usize];
                unit.at < m.at && unit.deps.iter().any(|d| failed.contains(&(d.kind.clone(), d.ctxk.clone()))) && !not_entrant_before(u)
            })
            .collect();
        assert!(!dependent.is_empty(), "{}", m.class);
        for &u in &dependent {
            let ne = t.invalidations.iter().find(|i| i.kind == InvalidationKind::NotEntrant && i.unit == Some(u) && i.at > m.at);
            assert_eq!(ne.and_then(|i| i.cause), Some(Cause { mutation: k as u32, attribution: Attribution::Exact }), "{}", t.units[u as usize].name);
        }
        assert_eq!(radii[k].units, dependent, "{}: the blast radius is exactly the dependent units", m.class);
    }
    // Triangle's load broke the unique-subtype assumption of its parent Polygon and of its
    // grandparent Shape; Fuel's, on another branch, held.
    let failed_ctxk = |k: u32| -> Vec<String> {
        let mut v: Vec<String> = t
            .invalidations
            .iter()
            .filter(|i| i.cause.map(|c| c.mutation) == Some(k))
            .filter_map(|i| match &i.kind {
                InvalidationKind::DependencyFailed { ctxk, .. } => Some(ctxk.clone()),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(failed_ctxk(0), ["ChaBreak$Polygon", "ChaBreak$Shape"]);
}

#[test]
fn java_replay_over_code_units_scores_each_policy_against_make_not_entrant() {
    // Without the class tree the loads cannot be placed: the log names no supertypes.
    assert!(matches!(replay(&trace("hotspot-cha-break")), Err(ReplayError::NoClassTree { .. })));
    for name in ["hotspot-cha-break", "hotspot-plugin-registry"] {
        let t = with_tree(name);
        let r = replay(&t).unwrap();
        assert_eq!(r.subject, Subject::Units);
        assert!(!r.policies.contains(&Policy::HierarchyV3), "no expando/stock split in a class load");
        for m in &r.mutations {
            let load = &t.mutations[m.mutation as usize];
            assert!(!m.observed.is_empty(), "{name}: {}", load.class);
            // HotSpot checks only the code registered on the new class's supertypes, and throws
            // away exactly what the class tree says the load breaks.
            assert!(m.observed.iter().all(|u| predicted(&r, m, Policy::Hierarchy).contains(u)), "{name}: {}", load.class);
            assert_eq!(predicted(&r, m, Policy::Ideal), m.observed.as_slice(), "{name}: {}", load.class);
            assert_eq!(predicted(&r, m, Policy::Global).len() as u32, m.linked);
        }
        assert_eq!((score(&r, Policy::Ideal).precision(), score(&r, Policy::Ideal).recall()), (1.0, 1.0), "{name}");
        assert_eq!(score(&r, Policy::Hierarchy).recall(), 1.0, "{name}");
        assert!(score(&r, Policy::Global).precision() < score(&r, Policy::Hierarchy).precision(), "{name}: code on unrelated classes kept");
        assert!(r.behaved_like().contains(&Policy::Ideal) && !r.behaved_like().contains(&Policy::Global), "{name}");
        // Hierarchy's extra units were checked and kept: each holds assumptions on the loaded
        // class's supertypes that the load does not break (Object's no-finalizer assumption).
        for m in &r.mutations {
            for u in predicted(&r, m, Policy::Hierarchy).iter().filter(|u| !m.observed.contains(u)) {
                let deps = &t.units[*u as usize].deps;
                assert!(deps.iter().all(|d| d.kind != "abstract_with_unique_concrete_subtype" || d.ctxk.ends_with("Fuel")), "{name}: {deps:?}");
            }
        }
    }
    // Two levels deep: Triangle's load broke code compiled on its grandparent Shape, which exact
    // (the loaded class's direct supertypes) does not reach.
    let t = with_tree("hotspot-cha-break");
    let r = replay(&t).unwrap();
    let first = &r.mutations[0];
    let missed: Vec<&u32> = first.observed.iter().filter(|u| !predicted(&r, first, Policy::Exact).contains(u)).collect();
    assert!(!missed.is_empty());
    assert!(missed.iter().all(|&&u| t.units[u as usize].deps.iter().any(|d| d.ctxk == "ChaBreak$Shape")));
    assert!(score(&r, Policy::Exact).recall() < 1.0);
    assert_eq!(r.behaved_like(), [Policy::Ideal]);
}

#[test]
fn java_plugin_registry_has_one_class_load_per_witness() {
    let t = trace("hotspot-plugin-registry");
    let loads: Vec<&str> = t.mutations.iter().map(|m| m.class.as_str()).collect();
    assert_eq!(loads, ["PluginRegistry$Xor", "PluginRegistry$Mul"]);
    for r in blast_radii(&t) {
        assert!(!r.units.is_empty(), "{} made code not entrant", loads[r.mutation as usize]);
    }
}

/// Relinks attributed to each change, per site.
fn relinks_per_change(t: &Trace, sender: &str, method: &str) -> Vec<u32> {
    let site = t.sites.iter().position(|s| s.key == SiteKey::Sender { sender: sender.into(), method: method.into() }).unwrap() as u32;
    (0..t.mutations.len() as u32)
        .map(|m| t.invalidations.iter().filter(|i| i.site == Some(site) && i.cause.map(|c| c.mutation) == Some(m)).count() as u32)
        .collect()
}

#[test]
fn groovy_every_metaclass_change_relinks_the_hot_sites_once() {
    for name in ["groovy-unrelated-churn", "groovy-same-class-churn"] {
        let t = trace(name);
        assert_eq!(t.format, Some(LogFormat::Groovy));
        assert!(!t.mutations.is_empty());
        assert!(t.mutations.iter().all(|m| m.kind == MutationKind::MetaClassChange));
        for method in ["compute", "twice"] {
            let per_change = relinks_per_change(&t, "churn", method);
            assert_eq!(per_change, vec![1; t.mutations.len()], "{name}: {method}");
            // Every selection of the site but its first is a relink after a change.
            let site = t.sites.iter().find(|s| s.key == SiteKey::Sender { sender: "churn".into(), method: method.into() }).unwrap();
            assert_eq!(site.selections, 1 + t.mutations.len() as u32, "{name}: {method}");
        }
    }
    // Groovy 2.4's one switch point: a change to an unrelated class relinks as much as a
    // change to the receiver's own class.
    let sizes = |name: &str| blast_radii(&trace(name)).iter().map(|r| r.sites.len()).collect::<Vec<_>>();
    assert_eq!(sizes("groovy-unrelated-churn"), sizes("groovy-same-class-churn"));
}

#[test]
fn every_sample_reads_the_same_in_small_chunks() {
    for name in ["v8-shapes-plugins", "hotspot-cha-break", "groovy-plugin-registry"] {
        let bytes = sample(name);
        let whole = read(&bytes, Limits::default(), None);
        let mut r = TraceReader::new(Limits::default());
        for c in bytes.chunks(4093) {
            r.feed(c);
        }
        let t = r.finish();
        assert_eq!((t.lines, t.events(), t.not_understood), (whole.lines, whole.events(), whole.not_understood), "{name}");
        assert_eq!(blast_radii(&t), blast_radii(&whole), "{name}");
    }
}

#[test]
fn replay_names_the_policy_each_runtime_behaved_like() {
    // Groovy 2.4 indy: every change relinks every linked site that runs again, whatever class
    // changed: only global retires them all.
    for name in ["groovy-unrelated-churn", "groovy-same-class-churn"] {
        let r = replay(&trace(name)).unwrap();
        assert_eq!(r.behaved_like(), [Policy::Global], "{name}");
        assert_eq!(score(&r, Policy::Global).recall(), 1.0, "{name}");
        assert!(score(&r, Policy::Exact).recall() < 0.5, "{name}");
        blast_engine::dsl::parse(&r.text).unwrap();
    }
    // V8: a prototype write relinks only sites on the written class: scoped, not global.
    let t = trace("v8-proto-write");
    let r = replay(&t).unwrap();
    let like = r.behaved_like();
    assert!(like.contains(&Policy::Exact) && !like.contains(&Policy::Global), "{like:?}");
    assert_eq!(score(&r, Policy::Exact).recall(), 1.0);
    assert!(score(&r, Policy::Exact).precision() > score(&r, Policy::Global).precision());
    assert!(r.mutations.iter().all(|m| t.mutations[m.mutation as usize].class == "Point"), "V8's own prototypes are left out");
}

#[test]
fn js_replay_with_the_class_tree_tells_exact_from_hierarchy() {
    let flat = replay(&trace("v8-shapes-plugins")).unwrap();
    let t = with_tree("v8-shapes-plugins");
    assert!(t.parents.contains(&("Circle".to_string(), "Shape".to_string())));
    let r = replay(&t).unwrap();
    assert!(r.text.contains("class Circle extends Shape"), "{}", r.text);
    // Without the tree exact and hierarchy are one policy; with it a write to Shape.prototype
    // reaches the sites on its subclasses, which the runtime relinked.
    assert_eq!(score(&flat, Policy::Exact), score(&flat, Policy::Hierarchy));
    assert_ne!(score(&r, Policy::Exact), score(&r, Policy::Hierarchy));
    for m in r.mutations.iter().filter(|m| t.mutations[m.mutation as usize].class == "Shape") {
        assert!(!m.observed.is_empty());
        assert!(predicted(&r, m, Policy::Exact).is_empty(), "no site's receiver is a Shape itself");
        assert!(m.observed.iter().all(|s| predicted(&r, m, Policy::Hierarchy).contains(s)));
        let receivers: Vec<&str> = m.observed.iter().flat_map(|&s| t.sites[s as usize].receivers.iter().map(String::as_str)).collect();
        assert!(receivers.iter().all(|c| ["Circle", "Rect", "Triangle"].contains(c)), "{receivers:?}");
    }
    assert_eq!(score(&r, Policy::Hierarchy).recall(), 1.0);
    assert!(score(&r, Policy::Exact).recall() < 1.0);
    // The visitors' sites (an unrelated class) are retired by global only.
    assert!(score(&r, Policy::Global).precision() < score(&r, Policy::Hierarchy).precision());
}

#[test]
fn js_base_prototype_writes_relink_the_subclass_sites_that_look_up_through_it() {
    let t = with_tree("v8-proto-chain");
    let r = replay(&t).unwrap();
    assert!(r.text.contains("class Left extends Base"), "{}", r.text);
    assert!(!r.mutations.is_empty());
    for m in &r.mutations {
        assert_eq!(t.mutations[m.mutation as usize].class, "Base");
        let seen: Vec<(&str, &str)> = m
            .observed
            .iter()
            .flat_map(|&s| {
                let site = &t.sites[s as usize];
                site.receivers.iter().map(move |c| (c.as_str(), site.member.as_deref().unwrap_or("")))
            })
            .collect();
        // kind() is found on Base.prototype from a Base, a Left and a Right: all three relink.
        for receiver in ["Base", "Left", "Right"] {
            assert!(seen.contains(&(receiver, "kind")), "{receiver}: {seen:?}");
        }
        // Left's own field is not looked up through a prototype; Other is another class.
        assert!(!seen.iter().any(|&(c, member)| c == "Other" || member == "l"), "{seen:?}");
    }
    let like = r.behaved_like();
    assert!(like.contains(&Policy::Hierarchy) && !like.contains(&Policy::Exact) && !like.contains(&Policy::Global), "{like:?}");
    assert_eq!(score(&r, Policy::Hierarchy).recall(), 1.0);
    assert!(score(&r, Policy::Exact).recall() < 0.5, "exact misses the subclass sites");
    assert!(score(&r, Policy::Global).precision() < score(&r, Policy::Hierarchy).precision(), "Other's site is kept");
}
