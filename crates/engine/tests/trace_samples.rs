//! The trace readers on the committed real logs (probes/traces/logs/, captured by
//! scripts/capture-traces.sh; each log's runtime, command line, machine and date are in the
//! `.meta` beside it). Each test asserts what the log itself shows, computed from its events,
//! not copied from a run of the reader.

use blast_engine::trace::{blast_radii, read, Attribution, Cause, InvalidationKind, Limits, LogFormat, MutationKind, SiteKey, Trace, TraceReader};

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
    assert_eq!(t.mutations.len(), 1);
    let m = &t.mutations[0];
    assert_eq!((m.kind, m.class.as_str()), (MutationKind::ClassLoad, "ChaBreak$Circle"));
    // The witness was not compiled before it was loaded: it is the newly loaded class.
    assert!(t.units.iter().filter(|u| u.at < m.at).all(|u| u.source != "ChaBreak$Circle"));
    let failed: Vec<(String, String)> = t
        .invalidations
        .iter()
        .filter_map(|i| match &i.kind {
            InvalidationKind::DependencyFailed { dependency, ctxk, witness } => {
                assert_eq!(witness, "ChaBreak$Circle");
                Some((dependency.clone(), ctxk.clone()))
            }
            _ => None,
        })
        .collect();
    assert!(failed.iter().all(|f| f == &("abstract_with_unique_concrete_subtype".to_string(), "ChaBreak$Shape".to_string())));
    // Every unit compiled on that assumption and still entrant at the load is made not entrant,
    // attributed exactly to the load.
    let not_entrant_before = |u: u32| t.invalidations.iter().any(|i| i.kind == InvalidationKind::NotEntrant && i.unit == Some(u) && i.at < m.at);
    let dependent: Vec<u32> = (0..t.units.len() as u32)
        .filter(|&u| {
            let unit = &t.units[u as usize];
            unit.at < m.at && unit.deps.iter().any(|d| (d.kind.clone(), d.ctxk.clone()) == failed[0]) && !not_entrant_before(u)
        })
        .collect();
    assert!(!dependent.is_empty());
    for &u in &dependent {
        let ne = t.invalidations.iter().find(|i| i.kind == InvalidationKind::NotEntrant && i.unit == Some(u) && i.at > m.at);
        assert_eq!(ne.and_then(|i| i.cause), Some(Cause { mutation: 0, attribution: Attribution::Exact }), "{}", t.units[u as usize].name);
    }
    assert_eq!(blast_radii(&t)[0].units, dependent, "the blast radius is exactly the dependent units");
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
    use blast_engine::trace::{replay, ReplayError};
    use blast_engine::Policy;
    let score = |r: &blast_engine::trace::Replay, p: Policy| r.totals[r.policies.iter().position(|&x| x == p).unwrap()];
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
    // HotSpot names compiled code, not call sites.
    assert!(matches!(replay(&trace("hotspot-cha-break")), Err(ReplayError::NoSites)));
}
