//! The estimate that refuses a scenario before it runs bounds the work the run then counts,
//! on generators built to hit each of its terms.

mod generators;

use blast_engine::sim::{estimate, estimate_for, MAX_WORK};
use blast_engine::{Params, Simulation};
use generators::Size;

fn check(size: Size) {
    for g in generators::all(size) {
        let bound = estimate(&g.scenario).total;
        assert!(bound <= MAX_WORK, "{}: estimate {bound} refused", g.name);
        for &p in &g.policies {
            let mut sim = Simulation::new(&g.scenario, p, &Params::default()).unwrap();
            while !sim.is_finished() {
                sim.step();
            }
            let done = sim.work_done();
            assert!(done <= bound, "{} under {p}: counted {done} > estimated {bound}", g.name);
            // The policy's own estimate (events charged what they reach under it) bounds it too.
            let own = estimate_for(&g.scenario, p).total;
            assert!(done <= own && own <= bound, "{} under {p}: counted {done}, its estimate {own}, the largest {bound}", g.name);
            assert!(done > 0);
        }
    }
}

#[test]
fn the_estimate_bounds_the_count_on_wide_worlds() {
    check(Size { classes: 200, sites: 2_000, events: 40 });
}

#[test]
fn the_estimate_bounds_the_count_on_deep_worlds() {
    check(Size { classes: 3_000, sites: 3_000, events: 6 });
}

#[test]
fn the_estimate_bounds_the_count_with_short_segments_and_few_sites() {
    check(Size { classes: 8, sites: 8, events: 500 });
}

#[test]
fn parameters_that_disable_the_cache_do_not_escape_the_bound() {
    let g = generators::bulk_events(Size { classes: 10, sites: 50, events: 20 });
    let bound = estimate(&g.scenario).total;
    for pic_capacity in [0, 1] {
        let params = Params { pic_capacity, optimize_threshold: 0, fallback_threshold: 0, fallback_cutoff: 0, ..Params::default() };
        let mut sim = Simulation::new(&g.scenario, blast_engine::Policy::Exact, &params).unwrap();
        while !sim.is_finished() {
            sim.step();
        }
        assert!(sim.work_done() <= bound, "pic_capacity {pic_capacity}: {} > {bound}", sim.work_done());
    }
}

#[test]
fn a_refusal_names_every_term_and_they_add_up_to_its_total() {
    let g = generators::bulk_events(Size { classes: 100, sites: 1_000_000, events: 4_762 });
    let e = Simulation::new(&g.scenario, blast_engine::Policy::Exact, &Params::default()).err().expect("refused").to_string();
    let est = estimate_for(&g.scenario, blast_engine::Policy::Exact);
    assert_eq!(est.terms.iter().map(|t| t.units).sum::<u64>(), est.total);
    assert!(e.contains(&format!("needs about {} work units under exact", blast_engine::sim::thousands(est.total))), "{e}");
    for t in &est.terms {
        assert!(e.contains(&format!("{} for {}", blast_engine::sim::thousands(t.units), t.what)), "{e}");
    }
    assert!(e.contains("for 4,763 events in `op` over 1 op, each charged what it can reach under exact; the largest, `unattributed`"), "{e}");
}
