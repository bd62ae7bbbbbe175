//! The published ScopedInvalidationBench shape, locked in: a change to the engine that breaks
//! any of these facts fails here before it reaches the calibration report.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use blast_engine::calibrate::{calibrate, throughput, RATIO_TOLERANCE};
use blast_engine::report::Naming;
use blast_engine::scenario::MetaKind;
use blast_engine::{dsl, presets, sweep, Event, Params, Policy, Simulation};

fn ops(id: &str, policy: Policy) -> f64 {
    throughput(presets::find(id).unwrap(), policy, &Params::default())
}

#[test]
fn every_calibration_check_passes_with_default_parameters() {
    let cal = calibrate(&Params::default());
    let failed: Vec<_> = cal.checks.iter().filter(|c| !c.ok).map(|c| format!("{} ({})", c.name, c.detail)).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let groovy = cal.rows.iter().filter(|r| presets::find(&r.id).is_some()).count();
    assert_eq!(groovy, 7, "one row per published ScopedInvalidationBench benchmark");
    for family in ["JDK-8247532", "JDK-8335480", "IGNITE-29109"] {
        assert!(cal.rows.iter().any(|r| r.id.starts_with(family)), "rows for {family}");
    }
    assert!(cal.rows.iter().all(|r| r.ratio_log10_error.abs() <= RATIO_TOLERANCE));
}

#[test]
fn global_collapses_every_churn_row_onto_one_floor() {
    let floor = ops("hotLoop_categoryEnterLeave", Policy::Global);
    for id in ["hotLoop_unrelatedMetaClassChurn", "hotLoop_sameTypeMetaClassChurn", "parentChild_parentMetaClassChurn"] {
        let v = ops(id, Policy::Global);
        assert!(v / floor < 2.0 && floor / v < 2.0, "{id}: {v} vs floor {floor}");
    }
    // The floor is far below the baseline: about a thousand times.
    assert!(ops("hotLoop_baseline", Policy::Global) / floor > 500.0);
}

#[test]
fn exact_keeps_unrelated_churn_near_baseline_and_same_type_far_below() {
    let base = ops("hotLoop_baseline", Policy::Exact);
    let unrelated = base / ops("hotLoop_unrelatedMetaClassChurn", Policy::Exact);
    let same = base / ops("hotLoop_sameTypeMetaClassChurn", Policy::Exact);
    assert!((3.0..=30.0).contains(&unrelated), "{unrelated}");
    assert!((100.0..=400.0).contains(&same), "{same}");
    assert!(ops("hotLoop_afterUnrelatedBurst", Policy::Exact) >= base);
    let headline = ops("hotLoop_unrelatedMetaClassChurn", Policy::Exact) / ops("hotLoop_unrelatedMetaClassChurn", Policy::Global);
    assert!(headline > 100.0, "headline ratio {headline}");
}

#[test]
fn category_blocks_cost_the_same_under_both_policies() {
    let g = ops("hotLoop_categoryEnterLeave", Policy::Global);
    let e = ops("hotLoop_categoryEnterLeave", Policy::Exact);
    assert!((g / e - 1.0).abs() < 0.05, "{g} vs {e}");
}

/// Throughput of a churn preset with the writes every `period` iterations.
fn churn_at(id: &str, policy: Policy, period: u64) -> f64 {
    let s = presets::find(id).unwrap().scenario();
    let (s, p) = sweep::apply(&s, &Params::default(), "churn_every", &period.to_string()).unwrap();
    blast_engine::run(&s, policy, &p).unwrap().ops_per_ms
}

#[test]
fn denser_churn_can_be_cheaper_than_sparser_churn_under_global() {
    // At a period of 1000 no site sees more than `optimize_threshold` hits between writes, so
    // none is promoted and a write costs one re-selection per site. At 2000 they are promoted
    // again before each write, and each write then costs a fallback storm.
    let dense = churn_at("hotLoop_unrelatedMetaClassChurn", Policy::Global, 1000);
    let sparse = churn_at("hotLoop_unrelatedMetaClassChurn", Policy::Global, 2000);
    assert!(dense > sparse, "1000: {dense}, 2000: {sparse}");
    // Exact is monotonic: fewer writes, more throughput.
    assert!(churn_at("hotLoop_unrelatedMetaClassChurn", Policy::Exact, 2000) > churn_at("hotLoop_unrelatedMetaClassChurn", Policy::Exact, 1000));
}

#[test]
fn bulk_cost_follows_loaded_classes_only_before_the_follow_up() {
    let s = presets::find("hotLoop_categoryEnterLeave").unwrap().scenario();
    let at = |scan: &str, classes: &str| {
        let (s, p) = sweep::apply(&s, &Params::default(), "bulk_scan", scan).unwrap();
        let (s, p) = sweep::apply(&s, &p, "loaded_classes", classes).unwrap();
        blast_engine::run(&s, Policy::Exact, &p).unwrap().ops_per_ms
    };
    assert!(at("all-loaded", "1000000") < 0.8 * at("all-loaded", "1000"));
    assert_eq!(at("live-only", "1000000"), at("live-only", "1000"));
}

#[test]
fn hierarchy_v3_fans_out_expando_changes_but_not_stock_replaces() {
    let text = "measure warmup 0 ops 1\nclass P { m }\nclass C extends P { n }\nsite p = P.m\nsite c = C.n\nop { loop 3000 { call p call c } }";
    let s = dsl::parse(text).unwrap();
    let hits = |policy: Policy, ev: Event| {
        let mut sim = Simulation::new(&s, policy, &Params::default()).unwrap();
        sim.inject(&Event::Replace { class: "P".into(), kind: MetaKind::Stock }).unwrap();
        sim.inject(&Event::Replace { class: "C".into(), kind: MetaKind::Stock }).unwrap();
        while !sim.is_finished() {
            sim.step();
        }
        let n = sim.events_since(0).len();
        sim.inject(&ev).unwrap();
        sim.event_text(&sim.events_since(n)[0]).sites_hit
    };
    let write = || Event::Write { class: "P".into(), method: "x".into() };
    let replace = || Event::Replace { class: "P".into(), kind: MetaKind::Stock };
    assert_eq!(hits(Policy::HierarchyV3, write()), vec!["p", "c"]);
    assert_eq!(hits(Policy::HierarchyV3, replace()), vec!["p"]);
    assert_eq!(hits(Policy::Hierarchy, replace()), vec!["p", "c"]);
    assert_eq!(hits(Policy::Exact, write()), vec!["p"]);
}

/// Calibration compares with the shipped data files and nothing else: every published figure a
/// calibration row holds is a cell of `crates/engine/data/`, and every modelled cell is used.
#[test]
fn calibration_compares_with_exactly_the_shipped_figures() {
    use blast_engine::reference::Reference;
    let r = Reference::get();
    let mut shipped: Vec<f64> = Vec::new();
    shipped.extend(r.groovy.iter().flat_map(|g| [g.published.before, g.published.after]));
    shipped.extend(r.records.iter().flat_map(|x| [x.classes_us, x.records_us]));
    shipped.extend(r.arena_gates.iter().flat_map(|g| [g.closing_us, g.memory_segment_access_us, g.other_access_us]));
    shipped.extend(r.arena_scaling.iter().map(|s| s.shared_access_us));
    // The `get` columns are not modelled (see calibrate.rs), so they are not compared.
    shipped.extend(r.descriptor.iter().flat_map(|d| [d.good_to_binary, d.broken_to_binary, d.good_put, d.broken_put]));
    shipped.extend(r.descriptor_fixed.iter().flat_map(|d| [d.fixed_to_binary, d.fixed_put]));

    let cal = calibrate(&Params::default());
    let used: Vec<f64> = cal.rows.iter().flat_map(|row| [row.before.published, row.after.published]).collect();
    for v in &used {
        assert!(shipped.contains(v), "calibration compares with {v}, which no data file holds");
    }
    for v in &shipped {
        assert!(used.contains(v), "the data files hold {v}, which calibration never compares with");
    }
    for p in presets::all() {
        if let Some(published) = p.published() {
            let row = cal.rows.iter().find(|row| row.id == p.id).unwrap();
            assert_eq!((row.before.published, row.after.published), (published.before, published.after), "{}", p.id);
        }
    }
}

/// The Groovy 2.4 sweeps measured here, beside their simulation.
fn sweep(name: &str) -> Vec<blast_engine::groovy24::SweepPoint> {
    calibrate(&Params::default()).sweeps.into_iter().filter(|p| p.sweep == name).collect()
}

#[test]
fn groovy24_density_falls_steeply_then_flattens_as_measured() {
    // Measured: one write every 10 iterations costs several times every 100; from 1000 on the
    // writes hardly matter. The simulation must fall at the same step and not rise anywhere.
    let pts = sweep("density");
    assert_eq!(pts.iter().map(|p| p.param).collect::<Vec<_>>(), vec![10, 100, 1_000, 10_000, 100_000]);
    for values in [pts.iter().map(|p| p.measured_ns).collect::<Vec<_>>(), pts.iter().map(|p| p.simulated_ns).collect()] {
        let shape = blast_engine::groovy24::shape(&values);
        assert_eq!(shape.steepest, Some(0), "the knee is between 10 and 100: {values:?}");
        assert!(values[0] / values[1] > 2.0, "{values:?}");
        assert!(values.windows(2).all(|w| w[1] <= w[0] * blast_engine::groovy24::FLAT), "never rises: {values:?}");
    }
    // The runtime measured here invalidates nothing on a write (groovy24::MEASURED_POLICY): no
    // point deoptimizes the loop, and the fall is the writes' own cost, 9 999 more an op.
    assert!(pts.iter().all(|p| p.deopts == 0), "{pts:?}");
    let p = Params::default();
    let per_write = (pts[0].simulated_ns - pts[4].simulated_ns) / 9_999.0;
    let write = p.metaclass_write_2_4_ns + p.metaclass_write_per_method_ns;
    assert!((per_write / write - 1.0).abs() < 0.01, "{per_write} ns a write, {write} expected");
}

#[test]
fn groovy24_a_real_body_hides_the_writes_as_measured() {
    let pts = sweep("body");
    let (quiet, churn) = (&pts[0], &pts[1]);
    assert_eq!((quiet.param, churn.param), (0, 1_000));
    for (a, b) in [(quiet.measured_ns, churn.measured_ns), (quiet.simulated_ns, churn.simulated_ns)] {
        assert!(b / a < 1.3, "an unrelated write every 1000 iterations adds under 30% to a 200 ns body: {a} vs {b}");
    }
}

#[test]
fn groovy24_every_simulated_sweep_is_checked() {
    let cal = calibrate(&Params::default());
    for sweep in blast_engine::groovy24::SIMULATED {
        let checks = cal.checks.iter().filter(|c| c.name.starts_with(&format!("groovy 2.4 {sweep}:"))).count();
        assert_eq!(checks, 2, "{sweep}: within 2x, and the shape");
    }
    assert!(cal.sweeps.iter().all(|p| p.simulated_ns.is_finite()), "every mirror runs");
}

#[test]
fn groovy24_a_burst_costs_more_per_write_the_bigger_it_is_as_measured() {
    // Measured: up to 100 writes before the loop hardly show; 3000 cost 8.6x what 1000 do,
    // because each write costs more the more methods the metaclass already holds.
    let pts = sweep("burst");
    assert_eq!(pts.iter().map(|p| p.param).collect::<Vec<_>>(), vec![0, 10, 100, 1_000, 3_000]);
    for values in [pts.iter().map(|p| p.measured_ns).collect::<Vec<_>>(), pts.iter().map(|p| p.simulated_ns).collect()] {
        assert!(values[2] / values[0] < 2.0, "{values:?}");
        assert!(values[4] / values[3] > 5.0, "superlinear in the burst size: {values:?}");
        assert_eq!(blast_engine::groovy24::shape(&values).steepest, Some(3), "the knee is between 1000 and 3000: {values:?}");
    }
}
