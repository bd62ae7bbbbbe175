//! Compiled code in the blast radius. The loop's compiled unit through a run
//! (deoptimized by a retired fast chain, recompiled, C2 given up past the cutoff), method body
//! costs (DSL, validation, the body-dominated preset), all by counting.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use blast_engine::jit::Tier;
use blast_engine::report::Naming;
use blast_engine::{dsl, presets, run, Params, Policy};

fn report(text: &str, policy: Policy, params: &Params) -> blast_engine::RunReport {
    run(&dsl::parse(text).unwrap(), policy, params).unwrap()
}

/// Groovy 2.4's call sites with every compile installed at its unscaled threshold (no latency, C2's
/// queue empty): these tests are about deoptimization (compile latency and the queue: `jit`'s unit
/// tests and `groovy24`'s run-length test).
fn groovy_2_4_at_once() -> Params {
    Params { c1_compile_ns: 0.0, c2_compile_ns: 0.0, c2_queue: 0, ..Params::default().groovy_2_4() }
}

fn loop_unit(r: &blast_engine::RunReport) -> &blast_engine::sim::UnitReport {
    r.units.iter().find(|u| u.name == "loop 1").expect("the loop is a unit")
}

/// One write every `period` iterations to the class the loop calls, Groovy 2.4's call sites.
fn density(period: u64, ops: u32) -> String {
    format!(
        "measure warmup 0 ops {ops}\nclass Hot {{ compute }}\nsite hot = Hot.compute\nop {{ loop 100000 {{ every {period} {{ write Hot.dyn0 }} call hot }} }}"
    )
}

#[test]
fn a_loop_starts_interpreted_and_reaches_c2_by_back_edges() {
    let r = report("measure warmup 0 ops 1\nclass A { m }\nsite a = A.m\nop { loop 100000 { call a } }", Policy::Global, &Params::default());
    let u = loop_unit(&r);
    assert_eq!((u.tier, u.stats.compiles, u.stats.deopts), (Tier::C2, 2, 0), "{u:?}");
    let short = report("measure warmup 0 ops 1\nclass A { m }\nsite a = A.m\nop { loop 59999 { call a } }", Policy::Global, &Params::default());
    assert_eq!(loop_unit(&short).tier, Tier::Interpreter, "one back-edge short of Tier3BackEdgeThreshold");
}

#[test]
fn a_retired_fast_chain_deoptimizes_the_compiled_loop_and_it_climbs_again() {
    // Four ops of a loop that writes at its first iteration: the first op climbs to C2 by its
    // last back-edge; each later op's write deoptimizes it, and being hot it is back in C2 at the
    // interpreter's next back-edge report (2^Tier0BackedgeNotifyFreqLog = 1024).
    let p = groovy_2_4_at_once();
    let r = report(&density(100_000, 4), Policy::Global, &p);
    let u = loop_unit(&r);
    assert_eq!(u.stats.deopts, 3, "{u:?}");
    assert_eq!(u.stats.recompiles, 3, "C2 again after each deopt");
    assert_eq!(r.deopts.len(), 3);
    assert!(r.deopts.iter().all(|d| d.recompiled_after == Some(1_024)), "{:?}", r.deopts);
    // Each record names the chain: the write event, the global domain it retired, the hot
    // site whose fast chain the loop had inlined; as text through Naming (what exports show).
    let first = &r.deopts[0];
    assert_eq!((first.unit, first.site, first.domain), (0, 0, blast_engine::policy::DomainKey::Global), "{first:?}");
    let text = r.deopt_text(first);
    assert_eq!((text.unit.as_str(), text.site.as_str(), text.domain.as_str()), ("loop 1", "hot", "global"));
    assert_eq!(r.events[first.event].label, text.event_label.clone().unwrap(), "the event that retired the chain");
    assert!(text.event_label.unwrap().contains("Hot.dyn0"));
    // Exports carry the records as that text, as they do relinks.
    let json = serde_json::to_value(&r).unwrap();
    let exported = &json["deopts"][0];
    assert_eq!(
        (exported["unit"].as_str(), exported["site"].as_str(), exported["domain"].as_str()),
        (Some("loop 1"), Some("hot"), Some("global")),
        "{exported}"
    );
    assert_eq!(exported["recompiled_after"].as_u64(), Some(1_024));
    // Under exact a write to an unrelated class leaves the loop's dependencies alone.
    let unrelated = density(100_000, 4).replace("class Hot { compute }", "class Hot { compute }\nclass Other").replace("write Hot.dyn0", "write Other.dyn0");
    assert_eq!(loop_unit(&report(&unrelated, Policy::Exact, &p)).stats.deopts, 0);
    assert_eq!(loop_unit(&report(&unrelated, Policy::Global, &p)).stats.deopts, 3, "global retires the hot site's link too");
}

#[test]
fn past_the_recompilation_cutoff_the_loop_stays_in_c1_and_stops_deoptimizing() {
    let mut p = groovy_2_4_at_once();
    p.per_method_recompilation_cutoff = 2;
    let r = report(&density(100_000, 8), Policy::Global, &p);
    let u = loop_unit(&r);
    assert_eq!(u.stats.deopts, 3, "the third deopt passes a cutoff of 2: {u:?}");
    assert!(u.past_cutoff);
    assert_eq!(u.tier, Tier::C1, "C2 gave up; C1 code holds no call-site dependency");
    assert!(r.deopts.last().unwrap().past_cutoff && r.deopts.last().unwrap().recompiled_after.is_none());
}

#[test]
fn dense_writes_deoptimize_until_the_cutoff_then_the_loop_stays_in_c1() {
    // Every 10 iterations: interpreted code depends on nothing, so writes cost no deopt until
    // the loop is hot; then it is back in C2 after each 1024 back-edges and the next write
    // deoptimizes it again, until the 401st decompile passes PerMethodRecompilationCutoff.
    // From then on the loop runs C1 code, which no write can deoptimize.
    let p = groovy_2_4_at_once();
    let r = report(&density(10, 8), Policy::Global, &p);
    let u = loop_unit(&r);
    assert_eq!((u.stats.deopts, u.tier, u.past_cutoff), (401, Tier::C1, true), "{u:?}");
    assert_eq!(r.events_total, 80_000);
    // Every 2000: the first op climbs (no C2 code until its end), then every write of the
    // three later ops finds C2 code: 50 deopts an op, each back in C2 after 1024 iterations.
    let sparse = report(&density(2_000, 4), Policy::Global, &p);
    assert_eq!(loop_unit(&sparse).stats.deopts, 3 * 50, "{:?}", loop_unit(&sparse));
    assert!(sparse.deopts.iter().all(|d| d.recompiled_after == Some(1_024)));
}

#[test]
fn cold_event_code_pays_until_it_is_compiled() {
    let mut p = Params::default();
    let text = |writes: u64| format!("measure warmup 0 ops 1\nclass A {{ m }}\nsite a = A.m\nop {{ repeat {writes} {{ write A.x }} loop 1 {{ call a }} }}");
    let ms = |writes, p: &Params| report(&text(writes), Policy::Exact, p).ms_per_op;
    p.metaclass_install_ns = 0.0;
    p.domain_retire_ns = 0.0;
    p.metaclass_write_per_method_ns = 0.0;
    let cold = ms(200, &p) - ms(100, &p);
    let warm = ms(400, &p) - ms(300, &p);
    let per_write = |d: f64| d * 1e6 / 100.0;
    assert!((per_write(cold) - p.metaclass_write_ns * p.interpreter_slowdown).abs() < 1e-6, "{}", per_write(cold));
    assert!((per_write(warm) - p.metaclass_write_ns).abs() < 1e-6, "{}", per_write(warm));
}

#[test]
fn body_costs_parse_print_and_are_located_when_wrong() {
    let text = "class Hot { compute describe cost 180ns render cost 2us }\nsite d = Hot.describe\nop { loop 10 { call d } }";
    let s = dsl::parse(text).unwrap();
    assert_eq!(s.classes[0].body_ns("describe"), Some(180));
    assert_eq!(s.classes[0].body_ns("render"), Some(2_000));
    assert_eq!(s.classes[0].body_ns("compute"), None);
    assert_eq!(dsl::parse(&dsl::print(&s)).unwrap(), s, "printer round trip");
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains(r#""costs":[{"method":"describe","ns":180},{"method":"render","ns":2000}]"#), "{json}");
    assert_eq!(dsl::parse_any(&json).unwrap(), s);
    // A method may still be called `cost`.
    assert_eq!(dsl::parse("class A { m cost }\nsite a = A.m\nop { loop 1 { call a } }").unwrap().classes[0].methods, vec!["m", "cost"]);
    let err = |t: &str| dsl::parse(t).unwrap_err().to_string();
    assert_eq!(err("class A { m cost 5 }\nsite a = A.m\nop { loop 1 { call a } }"), "1:20: expected a time unit (`ns` or `us`), found `}`");
    assert_eq!(err("class A { m cost 5ms }\nsite a = A.m\nop { loop 1 { call a } }"), "1:19: unknown time unit `ms` (expected ns or us)");
    assert_eq!(
        err("class A { m cost 2000000000ns }\nsite a = A.m\nop { loop 1 { call a } }"),
        "1:18: `A.m` costs 2000000000 ns; at most 1000000000 ns (one second) per call"
    );
    assert_eq!(err("class A { m cost 99999999999999999us }\nsite a = A.m\nop { loop 1 { call a } }"), "1:18: cost 99999999999999999us is too large");
    let twice = r#"{"classes":[{"name":"A","methods":["m"],"costs":[{"method":"m","ns":1},{"method":"m","ns":2}]}],"sites":[{"name":"a","class":"A","method":"m"}],"op":[{"stmt":"loop","count":1,"body":[{"stmt":"call","site":"a"}]}]}"#;
    assert!(dsl::parse_any(twice).unwrap_err().to_string().contains("`A.m` has two costs"));
    let undeclared = r#"{"classes":[{"name":"A","methods":["m"],"costs":[{"method":"n","ns":1}]}],"sites":[{"name":"a","class":"A","method":"m"}],"op":[{"stmt":"loop","count":1,"body":[{"stmt":"call","site":"a"}]}]}"#;
    assert!(dsl::parse_any(undeclared).unwrap_err().to_string().contains("which the class does not declare"));
}

#[test]
fn a_body_runs_at_its_cost_compiled_and_slower_interpreted() {
    let p = Params::default();
    let text = |body: &str| format!("measure warmup 1 ops 1\nclass A {{ m{body} }}\nsite a = A.m\nop {{ loop 100000 {{ call a }} }}");
    let with = report(&text(" cost 500ns"), Policy::Exact, &p);
    let without = report(&text(""), Policy::Exact, &p);
    // The measured op runs in C2 from its start: exactly the body per call more.
    assert!(((with.ms_per_op - without.ms_per_op) * 1e6 - 500.0 * 100_000.0).abs() < 1e-3);
    // The warm-up op ran 60 000 iterations interpreted.
    let warm = |r: &blast_engine::RunReport| r.virtual_ms - r.ms_per_op;
    let expected = 500.0 * (40_000.0 + 60_000.0 * p.interpreter_slowdown);
    assert!(((warm(&with) - warm(&without)) * 1e6 - expected).abs() < 1e-3);
}

#[test]
fn a_redefined_method_loses_its_declared_body() {
    let text = "measure warmup 0 ops 1\nclass A { m cost 1000ns }\nsite a = A.m\nop { loop 100000 { every 50000 { write A.m } call a } }";
    let r = report(text, Policy::Exact, &Params::default());
    // Iteration 0 already replaced m with a closure: no body cost is left to pay.
    assert!(r.ms_per_op < 100_000.0 * 1000.0 / 1e6 / 10.0, "{}", r.ms_per_op);
}

#[test]
fn the_body_preset_is_dominated_by_bodies_under_exact_and_not_under_global() {
    let p = presets::find("fidelity_methodBodies").unwrap();
    let s = p.scenario();
    let bodies_ms = 100_000.0 * 220.0 / 1e6;
    let exact = run(&s, Policy::Exact, &Params::default()).unwrap();
    assert!(bodies_ms / exact.ms_per_op > 0.9, "bodies are {:.0}% of the op", 100.0 * bodies_ms / exact.ms_per_op);
    let global = run(&s, Policy::Global, &Params::default()).unwrap();
    assert!(bodies_ms / global.ms_per_op < 0.5, "{}", global.ms_per_op);
    assert!(loop_unit(&global).stats.deopts > 0 && loop_unit(&exact).stats.deopts == 0);
}

#[test]
fn a_running_simulation_shows_its_units_and_new_deopts_between_steps() {
    let p = groovy_2_4_at_once();
    let mut sim = blast_engine::Simulation::new(&dsl::parse(&density(100_000, 3)).unwrap(), Policy::Global, &p).unwrap();
    let mut seen = 0;
    let mut deopts = Vec::new();
    while sim.step() != blast_engine::sim::StepOutcome::Finished {
        let new = sim.deopts_since(seen);
        seen += new.len();
        deopts.extend(new.iter().map(|d| d.at_iteration));
    }
    assert_eq!(deopts, vec![100_000, 200_000], "ops 2 and 3 each open with a write that finds C2 code");
    assert_eq!(sim.units_now().iter().find(|u| u.name == "loop 1").map(|u| u.stats.deopts), Some(2));
    assert!(sim.deopts_since(99).is_empty());
}

#[test]
fn a_loop_unit_names_the_sites_its_compiled_code_inlines() {
    let text = "measure warmup 0 ops 1\nclass A { m n }\nsite a = A.m\nsite b = A.n\nsite c = A.m\nop { loop 10 { call c call a call c } loop 10 { call b } }";
    let sim = blast_engine::Simulation::new(&dsl::parse(text).unwrap(), Policy::Exact, &Params::default()).unwrap();
    let units = sim.units_now();
    let loops: Vec<usize> = units.iter().filter_map(|u| u.loop_index).collect();
    assert_eq!(loops, [0, 1], "{units:?}");
    assert_eq!((sim.loop_calls(0), sim.loop_calls(1)), (vec![0, 2], vec![1]), "site order, no repeats");
}

#[test]
fn a_groovy_2_4_polymorphic_site_relinks_its_loop_out_of_compiled_code() {
    // Receivers alternating: Groovy 2.4's one-target site is relinked at every call. Compiles
    // installed at once: each C2 compile is made not entrant at the next call until the 401st
    // decompile leaves the loop in C1 (counted in the unit; no event caused them, so no record).
    let text = "measure warmup 0 ops 8\nclass A { m }\nclass B { m }\nsite s = A.m, B.m\nop { loop 100000 { call s } }";
    let r = report(text, Policy::Ideal, &groovy_2_4_at_once());
    let u = loop_unit(&r);
    assert_eq!((u.stats.deopts, u.tier, u.past_cutoff), (401, Tier::C1, true), "{u:?}");
    assert!(r.deopts.is_empty());
    // With this machine's compile latency no compile outlives a relink: it stays interpreted.
    let slow = report(text, Policy::Ideal, &Params::default().groovy_2_4());
    assert_eq!((loop_unit(&slow).tier, loop_unit(&slow).stats.compiles, loop_unit(&slow).stats.deopts), (Tier::Interpreter, 0, 0));
    // Groovy 5's PIC holds both receivers and links neither: the loop reaches C2 and stays.
    let pic = report(text, Policy::Ideal, &Params::default());
    assert_eq!((loop_unit(&pic).tier, loop_unit(&pic).stats.deopts), (Tier::C2, 0));
}
