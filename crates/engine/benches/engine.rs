//! Engine speed figures (printed, not asserted: machines are noisy, so the interesting numbers
//! are ratios measured in one run). Run: `cargo bench -p blast-engine`.
//!
//! Times are printed as `wall / cpu`: the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) is
//! what the code costs when the machine is shared, wall time what a user waits.
//!
//! `BLAST_BENCH_PART=table` prints only the targets, `=generators` only the generator table.
//!
//! The chain row's instruction counts come from `valgrind --tool=callgrind` on a child (exact
//! from run to run); without valgrind the row says n/a.
//!
//! Memory is the process's peak RSS (`VmHWM`), so each memory figure comes from a fresh child
//! process: the bench runs itself with `BLAST_BENCH_CHILD=<job>` and reads what it prints.

#[path = "../tests/generators/mod.rs"]
mod generators;

use std::time::Instant;

use blast_engine::compare::prepare;
use blast_engine::scenario::{ClassDecl, Measure, MetaKind, SiteDecl, Stmt};
use blast_engine::sim::{estimate, estimate_largest, StepOutcome, MAX_WORK};
use blast_engine::{dsl, presets, run, Event, Params, Policy, Scenario, Simulation};
use generators::Size;

/// Seconds of CPU this thread has run, exact to the call (`/proc/.../schedstat` lags by up to a
/// scheduler tick, which is more than a small event takes).
#[cfg(target_os = "linux")]
fn cpu_now() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec (64-bit Linux layout), and the C library std
    // links provides `clock_gettime`.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if ok {
        ts.sec as f64 + ts.nsec as f64 / 1e9
    } else {
        0.0
    }
}

#[cfg(not(target_os = "linux"))]
fn cpu_now() -> f64 {
    0.0
}

/// Wall and CPU seconds between `start` and now.
#[derive(Clone, Copy)]
struct Clock {
    wall: Instant,
    cpu: f64,
}

impl Clock {
    fn start() -> Clock {
        Clock { wall: Instant::now(), cpu: cpu_now() }
    }

    fn elapsed(&self) -> Secs {
        Secs { wall: self.wall.elapsed().as_secs_f64(), cpu: cpu_now() - self.cpu }
    }
}

/// A duration measured both ways.
#[derive(Clone, Copy, Default)]
struct Secs {
    wall: f64,
    cpu: f64,
}

impl Secs {
    fn add(&mut self, o: Secs) {
        self.wall += o.wall;
        self.cpu += o.cpu;
    }

    fn per(self, n: f64) -> Secs {
        Secs { wall: self.wall / n, cpu: self.cpu / n }
    }

    /// `wall / cpu`, scaled (1e3: milliseconds).
    fn show(self, scale: f64, digits: usize) -> String {
        format!("{:.digits$} / {:.digits$}", self.wall * scale, self.cpu * scale)
    }
}

fn time<F: FnMut()>(mut f: F, reps: u32) -> Secs {
    f();
    let start = Clock::start();
    for _ in 0..reps {
        f();
    }
    start.elapsed().per(f64::from(reps))
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
    let mut body = vec![Stmt::every(1000, 999, vec![Stmt::event(ev)])];
    body.extend(sites.iter().map(|s| Stmt::Call { site: s.name.clone() }));
    Scenario {
        name: "bench".into(),
        measure: Measure { warmup_ops: 0, ops: 1 },
        classes,
        sites,
        op: vec![Stmt::looped(1000 * events + 1, body)],
        ..Scenario::default()
    }
}

const WARMUP_EVENTS: usize = 4;

/// Mean wall time of one event plus the loop segment after it (the event's whole cost),
/// once the first events' segments have linked every site.
fn per_event(s: &Scenario, policy: Policy) -> Secs {
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
    let (mut events, mut spent) = (0u32, Secs::default());
    loop {
        let start = Clock::start();
        let outcome = sim.step();
        let took = start.elapsed();
        match outcome {
            StepOutcome::Events(ids) => {
                events += ids.len() as u32;
                spent.add(took);
            }
            StepOutcome::Segment(_) => spent.add(took),
            StepOutcome::Finished => break,
            StepOutcome::Progress => {}
        }
    }
    spent.per(f64::from(events.max(1)))
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

/// Child jobs: build (and run) one scenario in a fresh process and print `wall cpu bytes work
/// scenario_bytes`: the time, peak RSS and work of the simulation, and the peak RSS before it
/// started (the scenario model the caller holds, which is not the engine's).
fn child(job: &str) {
    if let Some(sites) = job.strip_prefix("bulk:") {
        // For profiling (`valgrind --tool=callgrind`): the bulk event row at another size.
        let sites: usize = sites.parse().unwrap();
        let t = per_event(&world(sites / 10, sites, 10, Event::Unattributed), Policy::Exact);
        println!("{} {} 0 0 0", t.wall, t.cpu);
        return;
    }
    if let Some(sites) = job.strip_prefix("global:") {
        // For profiling: the global write row at another size.
        let sites: usize = sites.parse().unwrap();
        let t = per_event(&world(sites / 10, sites, 10, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Global);
        println!("{} {} 0 0 0", t.wall, t.cpu);
        return;
    }
    if let Some(depth) = job.strip_prefix("chain:") {
        // Counted under callgrind (`instructions`): the chain row's parse + validate alone.
        parse_counted(&chain_text(depth.parse().unwrap()));
        println!("0 0 0 0 0");
        return;
    }
    if let Some(sites) = job.strip_prefix("parse:") {
        // For profiling: parse + validate the DSL table row's text at another size.
        let text = big_text(sites.parse().unwrap());
        let t = time(|| drop(dsl::parse(&text).unwrap()), 1);
        println!("{} {} 0 0 0", t.wall, t.cpu);
        return;
    }
    if let Some((gen, policy)) = job.split_once(":one:") {
        // One policy the way `--policy` with several runs each (prepared, the scenario
        // dropped, the run built from a copy of the prepared part): what "all five" compares to.
        let make = generators::ALL.iter().find(|(name, _)| *name == gen).expect("generator").1;
        let scenario = make(cap_size()).scenario;
        let before = peak_rss();
        let start = Clock::start();
        let ready = prepare(scenario, &[policy.parse::<Policy>().unwrap()], &Params::default()).expect("admitted");
        assert_eq!(ready.runs().count(), 1);
        let t = start.elapsed();
        println!("{} {} {} 0 {before}", t.wall, t.cpu, peak_rss());
        return;
    }
    if let Some(gen) = job.strip_suffix(":five") {
        // Every policy in one call, as `blast run --policy global,exact,...` and `blast check`
        // run them: prepared once (the scenario dropped), one run alive at a time.
        let make = generators::ALL.iter().find(|(name, _)| *name == gen).expect("generator").1;
        let scenario = make(cap_size()).scenario;
        let before = peak_rss();
        let start = Clock::start();
        let ready = prepare(scenario, &Policy::ALL, &Params::default()).expect("admitted under every policy");
        assert_eq!(ready.runs().count(), Policy::ALL.len());
        let t = start.elapsed();
        println!("{} {} {} 0 {before}", t.wall, t.cpu, peak_rss());
        return;
    }
    let (scenario, policy) = match job.split_once(':') {
        Some(("new" | "owned", n)) => (world(n.parse::<usize>().unwrap() / 10, n.parse().unwrap(), 1, Event::Unattributed), None),
        Some((gen, policy)) => {
            let make = generators::ALL.iter().find(|(name, _)| *name == gen).expect("generator").1;
            (make(cap_size()).scenario, Some(policy.parse::<Policy>().unwrap()))
        }
        None => panic!("bad job {job}"),
    };
    let before = peak_rss();
    let start = Clock::start();
    let mut sim = if job.starts_with("owned:") {
        Simulation::new_owned(scenario, Policy::Exact, &Params::default()).unwrap()
    } else {
        Simulation::new(&scenario, policy.unwrap_or(Policy::Exact), &Params::default()).unwrap()
    };
    if policy.is_some() {
        while !sim.is_finished() {
            sim.step();
        }
    }
    let t = start.elapsed();
    println!("{} {} {} {} {before}", t.wall, t.cpu, peak_rss(), sim.work_done());
}

/// The parse + validate a child job counts (`instructions`): its own symbol, which callgrind's
/// `--toggle-collect` names.
#[inline(never)]
fn parse_counted(text: &str) {
    drop(dsl::parse(text).unwrap());
}

/// Instructions `parse_counted` executes in child `job`, counted by callgrind: a deterministic
/// figure where a time ratio is not (a 10^5-deep chain's tables leave the caches, so its time
/// grows faster than its work on a busy host). `None` without valgrind.
fn instructions(job: &str) -> Option<u64> {
    let out = std::process::Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=*parse_counted*"])
        .arg(std::env::current_exe().ok()?)
        .env("BLAST_BENCH_CHILD", job)
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':').next()?.trim().replace(',', "").parse().ok()
}

fn in_child(job: &str) -> (Secs, u64, u64, u64) {
    let out = std::process::Command::new(std::env::current_exe().unwrap()).env("BLAST_BENCH_CHILD", job).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<&str> = text.split_whitespace().collect();
    assert!(v.len() == 5, "child {job}: {text} {}", String::from_utf8_lossy(&out.stderr));
    (Secs { wall: v[0].parse().unwrap(), cpu: v[1].parse().unwrap() }, v[2].parse().unwrap(), v[3].parse().unwrap(), v[4].parse().unwrap())
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
    let part = std::env::var("BLAST_BENCH_PART").unwrap_or_default();
    if part != "generators" {
        targets();
    }
    if part != "table" {
        generator_table();
    }
}

fn targets() {
    let row = |what: &str, got: String, target: &str| println!("{what:<58} {got:>22}   {target}");
    println!("{:<58} {:>22}   target", "measure", "value (wall / cpu)");

    // An exact write on K0, which holds sites_per_class sites: cost follows the blast radius.
    let small = per_event(&world(10, 1_000, 30, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Exact);
    let large = per_event(&world(10_000, 1_000_000, 30, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Exact);
    row("exact write retiring 100 sites, 10^3 sites (ms/event)", small.show(1e3, 4), "");
    row("exact write retiring 100 sites, 10^6 sites (ms/event)", large.show(1e3, 4), "< 1 ms");
    row("  ratio 10^6 / 10^3", format!("{:.2} / {:.2}", large.wall / small.wall, large.cpu / small.cpu), "<= 2");
    let bulk = per_event(&world(100_000, 1_000_000, 10, Event::Unattributed), Policy::Exact);
    row("bulk event retiring all 10^6 sites, exact (ms/event)", bulk.show(1e3, 1), "< 50 ms");
    let global = per_event(&world(100_000, 1_000_000, 10, Event::Write { class: "K0".into(), method: "x".into() }), Policy::Global);
    row("global write retiring all 10^6 sites (ms/event)", global.show(1e3, 1), "< 50 ms");

    let (t_new, rss_new, _, rss_scenario) = in_child("new:1000000");
    row("Simulation::new at 10^6 sites (s)", t_new.show(1.0, 3), "< 1 s");
    row("  peak memory per site at 10^6 sites, scenario kept (B, VmHWM)", format!("{}", rss_new / 1_000_000), "<= 300");
    row("    of which the scenario model, before new (bytes/site)", format!("{}", rss_scenario / 1_000_000), "");
    row("    of which the engine, growth over it (bytes/site)", format!("{}", rss_new.saturating_sub(rss_scenario) / 1_000_000), "");
    let (_, rss_owned, _, _) = in_child("owned:1000000");
    row("  the same, scenario dropped before the tables (new_owned)", format!("{}", rss_owned / 1_000_000), "<= 300");

    let text = big_text(1_300_000.min(blast_engine::validate::MAX_SITES));
    let mb = text.len() as f64 / 1e6;
    let t_parse = time(|| drop(dsl::parse(&text).unwrap()), 1);
    row(&format!("parse + validate {mb:.0} MB of DSL (MB/s)"), format!("{:.1} / {:.1}", mb / t_parse.wall, mb / t_parse.cpu), ">= 20 MB/s");
    let (c1, c2) = (chain_text(10_000), chain_text(100_000));
    let t1 = time(|| drop(dsl::parse(&c1).unwrap()), 3);
    let t2 = time(|| drop(dsl::parse(&c2).unwrap()), 1);
    row("parse + validate chain: 10^5 deep / 10^4 deep", format!("{:.1} / {:.1}", t2.wall / t1.wall, t2.cpu / t1.cpu), "~10 (linear)");
    let counted = match (instructions("chain:10000"), instructions("chain:100000")) {
        (Some(i1), Some(i2)) => format!("{:.1} M / {:.1} M = {:.2}", i2 as f64 / 1e6, i1 as f64 / 1e6, i2 as f64 / i1 as f64),
        _ => "n/a (no valgrind)".into(),
    };
    row("  instructions (callgrind), 10^5 deep / 10^4 deep", counted, "~10 (linear)");

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
    row(&format!("{} Groovy presets x 3 policies in-process (ms)", groovy.len()), t.show(1e3, 1), "< 25 ms");

    println!();
    println!();
    for (name, bytes) in blast_engine::sim::per_site_layout() {
        println!("size_of {name:<30} {bytes:>5} bytes");
    }
}

fn generator_table() {
    println!();
    println!("{:<42} {:<22} {:>15} {:>10} {:>15} {:>15}", "generator (at the caps)", "policy", "time s wall/cpu", "peak MB", "estimate", "counted");
    let (mut worst_t, mut worst_c, mut worst_m) = (0.0f64, 0.0f64, 0u64);
    for (key, make) in generators::ALL {
        let g = make(cap_size());
        let est = estimate(&g.scenario).total;
        let largest = estimate_largest(&g.scenario, &Policy::ALL).map_or(0, |e| e.total);
        let policies = g.policies.clone();
        drop(g.scenario);
        for p in &policies {
            let (t, rss, work, _) = in_child(&format!("{key}:{p}"));
            worst_t = worst_t.max(t.wall);
            worst_c = worst_c.max(t.cpu);
            worst_m = worst_m.max(rss);
            println!("{:<42} {:<22} {:>15} {:>10.0} {:>15} {:>15}", g.name, p.name(), t.show(1.0, 2), rss as f64 / 1e6, est, work);
        }
        // The five policies in one process, one run alive at a time: its peak is the largest
        // run's, not five (the estimate is the largest of the five). The rows above keep the
        // scenario beside one simulation and build no report; "alone, prepared" is the heaviest
        // of the five policies run alone the way `--policy` runs each (the scenario dropped,
        // the run built from a copy of the prepared part, its report built).
        if largest <= MAX_WORK {
            let (rss_one, one, t) = Policy::ALL
                .iter()
                .map(|p| {
                    let (t, rss, _, _) = in_child(&format!("{key}:one:{p}"));
                    (rss, *p, t)
                })
                .max_by_key(|&(rss, _, _)| rss)
                .expect("five policies");
            println!(
                "{:<42} {:<22} {:>15} {:>10.0} {:>15} {:>15}",
                g.name,
                format!("{} alone, prepared", one.name()),
                t.show(1.0, 2),
                rss_one as f64 / 1e6,
                est,
                "-"
            );
            let (t, rss, _, _) = in_child(&format!("{key}:five"));
            worst_m = worst_m.max(rss);
            println!(
                "{:<42} {:<22} {:>15} {:>10.0} {:>15} {:>15}   {:.3}x the heaviest alone",
                g.name,
                "all five",
                t.show(1.0, 2),
                rss as f64 / 1e6,
                largest,
                "-",
                rss as f64 / rss_one as f64
            );
        } else {
            println!("{:<42} {:<22} {:>15} {:>10} {:>15} {:>15}", g.name, "all five", "refused", "-", largest, "-");
        }
    }
    println!("worst over the generators: {worst_t:.2} s wall, {worst_c:.2} s cpu, {:.0} MB (goal < 10 s, < 1 GB)", worst_m as f64 / 1e6);
}
