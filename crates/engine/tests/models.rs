//! The three other invalidation systems: their cliffs and blast radii, locked in.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use blast_engine::models::arena::Role;
use blast_engine::models::shape_cache::hit_rate_for;
use blast_engine::models::{self, EntityState, ModelConfig, ModelError, MODEL_PRESETS};
use blast_engine::params::ParamError;

fn config(id: &str) -> ModelConfig {
    models::find(id).unwrap().config()
}

fn shape_config(shapes: u64) -> blast_engine::models::shape_cache::ShapeConfig {
    match models::apply(&config("records_rotating11"), "shapes", &shapes.to_string()).unwrap() {
        ModelConfig::ShapeCache(c) => c,
        _ => unreachable!("a shape-cache preset"),
    }
}

#[test]
fn fifo_and_lru_hit_nothing_one_past_capacity_on_a_cycle() {
    for variant in ["fifo", "lru"] {
        for shapes in 1..=16u64 {
            let rate = hit_rate_for(&shape_config(shapes), variant).unwrap();
            if shapes <= 10 {
                assert_eq!(rate, 100.0, "{variant} with {shapes} shapes");
            } else {
                assert_eq!(rate, 0.0, "{variant} with {shapes} shapes");
            }
        }
    }
    // An unbounded cache keeps every shape once warmed up.
    assert_eq!(hit_rate_for(&shape_config(11), "unbounded").unwrap(), 100.0);
}

#[test]
fn record_deserialization_ratios_follow_the_fix() {
    let ratio = |variant: &str, length: &str| {
        let rec = models::apply(&config("records_length100"), "length", length).unwrap();
        let ModelConfig::ShapeCache(mut cls) = rec.clone() else { unreachable!() };
        cls.objects = blast_engine::models::shape_cache::Objects::Classes;
        rec.run(variant).unwrap().value / ModelConfig::ShapeCache(cls).run(variant).unwrap().value
    };
    let before: Vec<f64> = ["10", "100", "1000"].iter().map(|l| ratio("before-fix", l)).collect();
    assert!((5.0..9.0).contains(&before[0]) && (12.0..20.0).contains(&before[1]) && (16.0..24.0).contains(&before[2]), "{before:?}");
    for l in ["10", "100", "1000"] {
        let after = ratio("fifo", l);
        assert!((0.8..1.2).contains(&after), "after fix at {l}: {after}");
        let thrash = ratio("capacity-0", l);
        assert!(thrash > after && thrash < ratio("before-fix", l), "thrash at {l}: {thrash}");
    }
}

fn arena_run(id: &str, gate: &str) -> blast_engine::models::ModelReport {
    config(id).run(gate).unwrap()
}

/// Handshakes and deopts summed over the threads of one role.
fn thread_counts(r: &blast_engine::models::ModelReport, of: Role) -> (u64, u64) {
    r.entities.iter().fold((0, 0), |(h, d), e| match e.state {
        EntityState::Thread { role, handshakes, deopts, .. } if role == of => (h + handshakes, d + deopts),
        _ => (h, d),
    })
}

#[test]
fn the_array_thread_is_never_deoptimized_under_the_scoped_access_gate() {
    let r = arena_run("arena_closeGroup", "scoped-access");
    let (handshakes, deopts) = thread_counts(&r, Role::ArrayAccess);
    assert_eq!(deopts, 0);
    assert!(handshakes > 0, "it still pays every handshake");
    assert!(thread_counts(&r, Role::SegmentAccess).1 > 0);
    // Under the wide gate it is deoptimized too.
    assert!(thread_counts(&arena_run("arena_closeGroup", "always"), Role::ArrayAccess).1 > 0);
}

#[test]
fn the_segment_thread_is_about_six_times_slower_with_the_gate_than_without() {
    let gated = arena_run("arena_closeGroup", "scoped-access").value;
    let free = arena_run("arena_closeGroup", "no-deopt").value;
    assert!((4.0..8.0).contains(&(gated / free)), "{gated} / {free}");
    // Gating on the live session removes every collateral deopt here.
    let live = arena_run("arena_closeGroup", "session-live");
    assert_eq!(live.verdicts.collateral, 0);
    assert_eq!(live.value, free);
}

#[test]
fn only_a_deopt_free_gate_misses_a_real_use_after_close() {
    assert!(arena_run("arena_useAfterClose", "no-deopt").verdicts.missed > 0);
    for gate in ["always", "scoped-access", "session-live"] {
        let r = arena_run("arena_useAfterClose", gate);
        assert_eq!(r.verdicts.missed, 0, "{gate}");
        assert!(r.verdicts.necessary > 0, "{gate}");
    }
}

#[test]
fn close_cost_grows_with_thread_count() {
    let per_op: Vec<f64> = [1, 2, 4, 8, 16, 32].iter().map(|&n| models::arena_scaling(n).run("scoped-access").unwrap().value).collect();
    assert!(per_op.windows(2).all(|w| w[1] > w[0]), "{per_op:?}");
    assert!(per_op[5] / per_op[4] > 3.0, "superlinear once threads outnumber cores: {per_op:?}");
}

#[test]
fn hash_map_descriptors_are_never_rebuilt() {
    for variant in ["good", "broken", "fixed"] {
        let r = config("descriptor_hashMap").run(variant).unwrap();
        assert_eq!(r.verdicts.collateral, 0, "{variant}");
        assert!(matches!(r.entities[0].state, EntityState::DescriptorSlot { rebuilds: 1, .. }), "{:?}", r.entities[0]);
    }
    let broken = config("descriptor_treeMap").run("broken").unwrap();
    let good = config("descriptor_treeMap").run("good").unwrap();
    assert!((15.0..30.0).contains(&(broken.value / good.value)), "{} / {}", broken.value, good.value);
    assert_eq!(config("descriptor_treeMap").run("fixed").unwrap().value, good.value);
}

#[test]
fn every_model_preset_runs_every_variant_and_rejects_unknown_ones() {
    for p in MODEL_PRESETS {
        let c = p.config();
        for v in c.variants() {
            let r = c.run(v).unwrap();
            assert!(r.value.is_finite() && r.value > 0.0, "{} {v}", p.id);
            assert!(!r.timeline.is_empty());
        }
        assert!(matches!(c.run("bogus"), Err(ModelError::UnknownVariant { variant, .. }) if variant == "bogus"));
    }
    assert!(matches!(
        models::apply(&config("arena_scaling16"), "threads", "100000"),
        Err(ModelError::Knob(ParamError::OutOfRange { max, .. })) if max == 256.0
    ));
    assert!(matches!(models::apply(&config("records_length100"), "shapes", "-3"), Err(ModelError::Knob(ParamError::OutOfRange { .. }))));
    assert!(matches!(models::apply(&config("records_length100"), "shapes", "many"), Err(ModelError::Knob(ParamError::NotANumber { .. }))));
    assert!(matches!(models::apply(&config("records_length100"), "threads", "2"), Err(ModelError::UnknownKnob { .. })));
}

#[test]
fn a_knob_set_to_a_number_is_the_knob_set_from_its_text() {
    for p in MODEL_PRESETS {
        let c = p.config();
        for knob in c.knobs() {
            for v in [1u64, 3, 64] {
                assert_eq!(models::set_knob(&c, knob, v).ok(), models::apply(&c, knob, &v.to_string()).ok(), "{} {knob} = {v}", p.id);
            }
        }
        assert!(matches!(models::set_knob(&c, "bogus", 1), Err(ModelError::UnknownKnob { .. })), "{}", p.id);
    }
    assert!(matches!(
        models::set_knob(&config("arena_scaling16"), "threads", 257),
        Err(ModelError::Knob(ParamError::OutOfRange { max, .. })) if max == 256.0
    ));
}

#[test]
fn huge_shape_cache_runs_are_refused_quickly() {
    let c = blast_engine::models::shape_cache::ShapeConfig {
        objects: blast_engine::models::shape_cache::Objects::Records,
        length: 10,
        shapes: 1_000_000,
        capacity: 1_000_000,
        warmup_ops: 0,
        ops: 2_000_000,
    };
    let e = ModelConfig::ShapeCache(c).run("fifo").unwrap_err();
    assert!(matches!(e, ModelError::TooLarge { model: "shape-cache", .. }), "{e}");
}
