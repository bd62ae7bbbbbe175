//! The hand-written codecs against the ecosystem's, on the same data in one run (printed, not
//! asserted: the interesting figures are ratios). Run: `cargo bench -p blast-playground --bench codec`.
//!
//! - lanes: the update of a 10^5-site world under two policies after a step (every site's look
//!   changed, the biggest update there is), `lane_wire` against serde + `postcard` of the same
//!   site views (the bulk of such an update; postcard has no deltas against a held view, so
//!   the rest of the message is not compared).
//!
//! The same run at commit 39b81bd also measured the hand-written base64url and FxHasher against
//! the `base64` crate and `rustc-hash`, which have replaced them (docs/PERFORMANCE.md).
//!
//! Each figure is the fastest of `ROUNDS` rounds (wall time; a shared machine only adds to it).

use std::rc::Rc;
use std::time::Instant;

use blast_engine::report::SiteState;
use blast_engine::{dsl, Params, Policy};
use blast_playground::runner::{Runner, SiteView};
use blast_playground::worker::lane_wire::{encode_update, Update, UpdateDecoder, DECODE_SITES};
use serde::{Deserialize, Serialize};

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

fn world(sites: usize) -> String {
    let mut t = String::from("measure warmup 0 ops 1\n");
    for i in 0..50 {
        t += &format!("class K{i} {{ m }}\n");
    }
    for i in 0..sites {
        t += &format!("site s{i} = K{}.m\n", i % 50);
    }
    let calls: Vec<String> = (0..sites).map(|i| format!("call s{i}")).collect();
    t + &format!("op {{ loop 4 {{ every 2 {{ write K1.m }} {} }} }}\n", calls.join(" "))
}

/// A site view as serde derives it (the same fields as `runner::SiteView`).
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct SiteWire {
    state: Option<u8>,
    necessary: u64,
    collateral: u64,
    missed: u64,
    relinks: u64,
    flash: u64,
}

fn state_tag(s: SiteState) -> u8 {
    SiteState::ALL.iter().position(|x| *x == s).expect("a state") as u8
}

fn wire_of(v: &SiteView) -> SiteWire {
    SiteWire { state: v.state.map(state_tag), necessary: v.necessary, collateral: v.collateral, missed: v.missed, relinks: v.relinks, flash: v.flash }
}

fn row(what: &str, ours: (f64, usize), theirs: (f64, usize)) {
    println!("{what:<28} {:>10.2} {:>10.2} {:>8.2}x {:>12} {:>12}", ours.0, theirs.0, theirs.0 / ours.0, ours.1, theirs.1);
}

fn main() {
    println!("{:<28} {:>10} {:>10} {:>9} {:>12} {:>12}", "codec (ms, fastest of 7)", "ours", "library", "lib/ours", "our bytes", "lib bytes");

    let scenario = dsl::parse(&world(SITES)).expect("the world parses");
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
    };
    let (enc, bytes) = best(|| encode_update(&update, &[]));
    let (dec, decoded) = best(|| {
        let mut d = UpdateDecoder::new(bytes.clone(), Vec::new(), Rc::clone(&names));
        loop {
            if let Some(u) = d.step(DECODE_SITES).expect("decodes") {
                break u;
            }
        }
    });
    assert_eq!(decoded.views.len(), 2);
    let lanes: Vec<Vec<SiteWire>> = views.iter().map(|v| v.sites.iter().map(wire_of).collect()).collect();
    // Encoded from the serde form built beforehand: the codec alone, as `encode_update` is.
    let (p_enc, p_bytes) = best(|| postcard::to_allocvec(&lanes).expect("encodes"));
    let (p_dec, p_decoded) = best(|| postcard::from_bytes::<Vec<Vec<SiteWire>>>(&p_bytes).expect("decodes"));
    assert!(p_decoded == lanes);
    let changed: usize = views.iter().map(|v| v.sites.iter().filter(|s| s.state.is_some()).count()).sum();
    println!("(lanes: {SITES} sites x 2 policies, {changed} site views drawn after ten steps)");
    row("lanes update: encode", (enc, bytes.len()), (p_enc, p_bytes.len()));
    row("lanes update: decode", (dec, bytes.len()), (p_dec, p_bytes.len()));
}
