//! Engine speed figures (printed, not asserted: machines are noisy, so the interesting
//! numbers are ratios measured in one run). Run: `cargo bench -p blast-engine`.

use std::time::Instant;

use blast_engine::{dsl, presets, run, Params, Policy};

fn time<F: FnMut()>(mut f: F, reps: u32) -> f64 {
    f();
    let start = Instant::now();
    for _ in 0..reps {
        f();
    }
    start.elapsed().as_secs_f64() / reps as f64
}

fn steady(count: u64) -> blast_engine::Scenario {
    dsl::parse(&format!("measure warmup 0 ops 1\nclass A {{ m }}\nsite a = A.m\nop {{ loop {count} {{ call a }} }}")).unwrap()
}

fn main() {
    let small = steady(100_000);
    let huge = steady(1_000_000_000);
    let t_small = time(|| drop(run(&small, Policy::Exact, &Params::default()).unwrap()), 2000);
    let t_huge = time(|| drop(run(&huge, Policy::Exact, &Params::default()).unwrap()), 2000);
    println!("steady loop 1e5 iterations: {:>10.2} us per run", t_small * 1e6);
    println!("steady loop 1e9 iterations: {:>10.2} us per run", t_huge * 1e6);
    println!("ratio 1e9 / 1e5: {:.2} (event-driven target: far below 10^4)", t_huge / t_small);
    for id in ["hotLoop_unrelatedMetaClassChurn", "hotLoop_categoryEnterLeave"] {
        let s = presets::find(id).unwrap().scenario();
        for policy in [Policy::Global, Policy::Exact] {
            let t = time(|| drop(run(&s, policy, &Params::default()).unwrap()), 50);
            println!("{id} under {policy}: {:>8.2} ms per full run (8 ops of 100k iterations)", t * 1e3);
        }
    }
    let t = time(|| drop(blast_engine::calibrate::calibrate(&Params::default())), 5);
    println!("full calibration (all published rows, all models): {:.1} ms", t * 1e3);
}
