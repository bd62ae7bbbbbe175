//! The lanes' codec (`lane_wire`: serde + postcard, decoded in steps) on its biggest update: a
//! 10^5-site world under two policies after ten steps (every site's look changed since time
//! zero), encoded by the worker and decoded by the page. Printed, not asserted (the figures
//! are times). Run: `cargo bench -p blast-playground --bench codec`.
//!
//! The same bench at commit e27ecf6 measured the hand-written `lane_wire` it replaced, beside
//! postcard of the site views alone (docs/PERFORMANCE.md, "Codecs").
//!
//! Each figure is the fastest of `ROUNDS` rounds (wall time; a shared machine only adds to it).

use std::rc::Rc;
use std::time::Instant;

use blast_engine::{dsl, Params, Policy};
use blast_playground::runner::Runner;
use blast_playground::worker::lane_wire::{encode_update, Update, UpdateDecoder, DECODE_SITES};

#[path = "../src/worker/churn_world.rs"]
mod churn_world;

const SITES: usize = 100_000;
const ROUNDS: usize = 7;

/// The fastest of `ROUNDS` runs of `f`, in ms, and its last result.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let out = std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(out);
    }
    (best, last.expect("at least one round"))
}

fn main() {
    let scenario = dsl::parse(&churn_world::churn_world(SITES)).expect("the world parses");
    let mut runner = Runner::new(&scenario, &[Policy::Global, Policy::Exact], &Params::default()).expect("it runs");
    // Steps until every site has been called, so every site view changed since time zero.
    for _ in 0..10 {
        runner.step();
    }
    runner.refresh();
    let views = runner.views().to_vec();
    let names = Rc::clone(&views[0].names);
    let update = Update {
        run: 1,
        error: None,
        clock_ms: runner.clock_ms(),
        finished: false,
        views: views.clone(),
        loaded: Vec::new(),
        stepped: None,
        fires: Vec::new(),
        what_if: Vec::new(),
        expectations: None,
        call_counts: None,
    };
    let (enc, bytes) = best(|| encode_update(&update, &[]));
    // Decoded as the page does (`DECODE_SITES` per step), and whole: the steps' cost.
    let decode = |budget: usize| {
        best(|| {
            let mut d = UpdateDecoder::new(bytes.clone(), Vec::new(), Rc::clone(&names));
            let mut steps = 1;
            loop {
                if let Some(u) = d.step(budget).expect("decodes") {
                    break (u, steps);
                }
                steps += 1;
            }
        })
    };
    let (dec, (decoded, steps)) = decode(DECODE_SITES);
    let (whole, _) = decode(usize::MAX);
    assert!(decoded == update, "the update reads back equal");
    let changed: usize = views.iter().map(|v| v.sites.iter().filter(|s| s.state.is_some()).count()).sum();
    println!("lanes update: {SITES} sites x 2 policies, {changed} site views drawn after ten steps, {} bytes", bytes.len());
    println!("encode (worker)                       {enc:>8.2} ms");
    println!("decode in {steps} steps of {DECODE_SITES} (page)  {dec:>8.2} ms");
    println!("decode whole                          {whole:>8.2} ms ({:.2}x the steps)", whole / dec);
}
