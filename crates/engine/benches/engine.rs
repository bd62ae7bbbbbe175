//! Engine speed figures (printed, not asserted: machines are noisy, so the interesting numbers
//! are ratios measured in one run). Run: `cargo bench -p blast-engine`.
//!
//! Memory is the process's peak RSS (`VmHWM`), so each memory figure comes from a fresh child
//! process: the bench runs itself with `BLAST_BENCH_CHILD=<job>` and reads what it prints.

#[path = "../tests/generators/mod.rs"]
mod generators;

use std::time::Instant;

use blast_engine::model::{ClassDecl, Measure, MetaKind, SiteDecl, Stmt};
use blast_engine::sim::{estimate, StepOutcome};
use blast_engine::{dsl, presets, run, Event, Params, Policy, Scenario, Simulation};
use generators::Size;

fn time<F: FnMut()>(mut f: F, reps: u32) -> f64 {
    f();
    let start = Instant::now();
    for _ in 0..reps {
        f();
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// Peak resident memory of this process in bytes (Linux; 0 elsewhere).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).map_or(0, |kb| kb * 1024)
}

/// `sites` sites over `classes` flat classes (site i on class i % classes), one loop calling
/// every site, firing `events` copies of `ev` 1000 iterations apart.
fn world(classes: usize, sites: usize, events: u64, ev: Event) -> Scenario {
    let classes: Vec<ClassDecl> =
        (0..classes).map(|i| ClassDecl { name: format!("K{i}"), parent: None, methods: vec!["m".into()], metaclass: MetaKind::None, costs: vec![] }).collect();
    let sites: Vec<SiteDecl> = (0..sites).map(|i| SiteDecl::mono(format!("s{i}"), classes[i % classes.len()].name.clone(), "m")).collect();
    let mut body = vec![Stmt::Every { period: 1000, offset: 999, body: vec![Stmt::Event(ev)] }];
    body.extend(sites.iter().map(|s| Stmt::Call { site: s.name.clone() }));
    Scenario {
        name: "bench".into(),
        measure: Measure { warmup_ops: 0, ops: 1 },
        classes,
        sites,
        op: vec![Stmt::Loop { count: 1000 * events + 1, body }],
        ..Scenario::default()
    }
}

const WARMUP_EVENTS: usize = 4;

/// Mean wall time of one event plus the loop segment after it (the event's whole cost),
/// once the first events' segments have linked every site.
fn per_event(s: &Scenario, policy: Policy) -> f64 {
    let mut sim = Simulation::new(s, policy, &Params::default()).unwrap();
    // Warm up: the first events' segments promote every site to its fast chain.
    let mut warmup = 0;
    while warmup < WARMUP_EVENTS {
        if let StepOutcome::Events(ids) = sim.step() {
            warmup += ids.len();
        }
    }
    // Only event and segment steps are timed: leaving the loop at the end settles every
    // steady site once, which belongs to the loop, not to its events.
    let (mut events, mut spent) = (0u32, 0.0);
    loop {
        let start = Instant::now();
        let outcome = sim.step();
        let took = start.elapsed().as_secs_f64();
        match outcome {
            StepOutcome::Events(ids) => {
                events += ids.len() as u32;
                spent += took;
            }
            StepOutcome::Segment(_) => spent += took,
            StepOutcome::Finished => break,
            StepOutcome::Progress => {}
        }
    }
    spent / events.max(1) as f64
}

/// A DSL scenario with `sites` sites over a tenth as many classes, all called in one loop.
fn big_text(sites: usize) -> String {
    let mut t = String::from("measure warmup 0 ops 1\n");
    let classes = (sites / 10).clamp(1, 100_000);
    for i in 0..classes {
        t.push_str(&format!("class K{i} {{ m }}\n"));
    }
    for i in 0..sites {
        t.push_str(&format!("site s{i} = K{}.m\n", i % classes));
    }
    t.push_str("op { loop 10 {");
    for i in 0..sites {
        t.push_str(&format!(" call s{i}"));
    }
    t.push_str(" } }\n");
    t
}

fn chain_text(depth: usize) -> String {
    let mut t = String::from("class K0 { m }\n");
    for i in 1..depth {
        t.push_str(&format!("class K{i} extends K{} {{ }}\n", i - 1));
    }
    t.push_str(&format!("site a = K{}.m\nop {{ loop 10 {{ call a }} }}\n", depth - 1));
    t
}

/// Child jobs: build (and run) one scenario in a fresh process and print `seconds bytes work
/// scenario_bytes`: the time, peak RSS and work of the simulation, and the peak RSS before it
/// started (the scenario model the caller holds, which is not the engine's).
fn child(job: &str) {
    if let Some(sites) = job.strip_prefix("bulk:") {
        // For profiling (`valgrind --tool=callgrind`): the bulk event row at another size.
        let sites: usize = sites.parse().unwrap();
        println!("{} 0 0 0", per_event(&world(sites / 10, sites, 10, Event::Unattributed), Policy::Exact));
        return;
    }
    let (scenario, policy) = match job.split_once(':') {
        Some(("new", n)) => (world(n.parse::<usize>().unwrap() / 10, n.parse().unwrap(), 1, Event::Unattributed), None),
        Some((gen, policy)) => {
            let make = generators::ALL.iter().find(|(name, _)| *name == gen).expect("generator").1;
            (make(cap_size()).scenario, Some(policy.parse::<Policy>().unwrap()))
        }
        None => panic!("bad job {job}"),
    };
    let before = peak_rss();
    let start = Instant::now();
    let mut sim = Simulation::new(&scenario, policy.unwrap_or(Policy::Exact), &Params::default()).unwrap();
    if policy.is_some() {
        while !sim.is_finished() {
            sim.step();
        }
    }
    println!("{} {} {} {before}", start.elapsed().as_secs_f64(), peak_rss(), sim.work_done());
}

fn in_child(job: &str) -> (f64, u64, u64, u64) {
    let out = std::process::Command::new(std::env::current_exe().unwrap()).env("BLAST_BENCH_CHILD", job).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<&str> = text.split_whitespace().collect();
    assert!(v.len() == 4, "child {job}: {text} {}", String::from_utf8_lossy(&out.stderr));
    (v[0].parse().unwrap(), v[1].parse().unwrap(), v[2].parse().unwrap(), v[3].parse().unwrap())
}

/// The generators at the caps: as big as the limits let each be.
fn cap_size() -> Size {
    Size { classes: 100_000, sites: 1_000_000, events: 20 }
}

fn main() {
    if let Ok(job) = std::env::var("BLAST_BENCH_CHILD") {
        child(&job);
        return;
    }
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut row = |what: &str, got: String, target: &str| {
        println!("{what:<58} {got:>16}   {target}");
        rows.push((what.into(), got, target.into()));
    };
    println!("{:<58} {:>16}   target", "measure", "value");

    // An exact write on K0, which holds sites_per_class sites: cost follows the blast radius.
    let small = per_event(&world(10, 1_000, 30, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Exact);
    let large = per_event(&world(10_000, 1_000_000, 30, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Exact);
    row("exact write retiring 100 sites, 10^3 sites (ms/event)", format!("{:.4}", small * 1e3), "");
    row("exact write retiring 100 sites, 10^6 sites (ms/event)", format!("{:.4}", large * 1e3), "< 1 ms");
    row("  ratio 10^6 / 10^3", format!("{:.2}", large / small), "<= 2");
    let bulk = per_event(&world(100_000, 1_000_000, 10, Event::Unattributed), Policy::Exact);
    row("bulk event retiring all 10^6 sites, exact (ms/event)", format!("{:.1}", bulk * 1e3), "< 50 ms");
    let global = per_event(&world(100_000, 1_000_000, 10, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Global);
    row("global write retiring all 10^6 sites (ms/event)", format!("{:.1}", global * 1e3), "< 50 ms");

    let (t_new, rss_new, _, rss_scenario) = in_child("new:1000000");
    row("Simulation::new at 10^6 sites (s)", format!("{t_new:.3}"), "< 1 s");
    row("  peak memory per site at 10^6 sites (bytes, VmHWM)", format!("{}", rss_new / 1_000_000), "<= 300");
    row("    of which the scenario model, before new (bytes/site)", format!("{}", rss_scenario / 1_000_000), "");
    row("    of which the engine, growth over it (bytes/site)", format!("{}", rss_new.saturating_sub(rss_scenario) / 1_000_000), "");

    let text = big_text(1_300_000.min(blast_engine::validate::MAX_SITES));
    let mb = text.len() as f64 / 1e6;
    let t_parse = time(|| drop(dsl::parse(&text).unwrap()), 1);
    row(&format!("parse + validate {mb:.0} MB of DSL (MB/s)"), format!("{:.1}", mb / t_parse), ">= 20 MB/s");
    let (c1, c2) = (chain_text(10_000), chain_text(100_000));
    let t1 = time(|| drop(dsl::parse(&c1).unwrap()), 3);
    let t2 = time(|| drop(dsl::parse(&c2).unwrap()), 1);
    row("parse + validate chain: 10^5 deep / 10^4 deep", format!("{:.1}", t2 / t1), "~10 (linear)");

    let groovy: Vec<Scenario> = presets::all().iter().filter(|p| p.family == "groovy").map(|p| p.scenario()).collect();
    let t = time(
        || {
            for s in &groovy {
                for policy in [Policy::Global, Policy::Exact, Policy::Hierarchy] {
                    drop(run(s, policy, &Params::default()).unwrap());
                }
            }
        },
        10,
    );
    row(&format!("{} Groovy presets x 3 policies in-process (ms)", groovy.len()), format!("{:.1}", t * 1e3), "< 25 ms");

    println!();
    println!("{:<42} {:<13} {:>9} {:>10} {:>15} {:>15}", "generator (at the caps)", "policy", "time s", "peak MB", "estimate", "counted");
    let (mut worst_t, mut worst_m) = (0.0f64, 0u64);
    for (key, make) in generators::ALL {
        let g = make(cap_size());
        let est = estimate(&g.scenario).total;
        let policies = g.policies.clone();
        drop(g.scenario);
        for p in &policies {
            let (t, rss, work, _) = in_child(&format!("{key}:{p}"));
            worst_t = worst_t.max(t);
            worst_m = worst_m.max(rss);
            println!("{:<42} {:<13} {:>9.2} {:>10.0} {:>15} {:>15}", g.name, p.name(), t, rss as f64 / 1e6, est, work);
        }
    }
    println!("worst over the generators: {worst_t:.2} s, {:.0} MB (goal < 10 s, < 1 GB)", worst_m as f64 / 1e6);
}
