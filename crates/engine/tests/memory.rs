//! Peak memory per site, counted (at most 300 bytes a site): an allocator that wraps
//! the system's keeps the live and the peak heap bytes, and the peak while a scenario is built
//! and a simulation made from it, divided by the sites, is what a site costs. A count, not a
//! timing: the same on any machine, loaded or not. The bench prints the same figure at 10^6
//! sites as peak RSS (`BLAST_BENCH_PART=table cargo bench -p blast-engine`).

// Its own test binary (the allocator is the process's), one test (nothing else allocates
// meanwhile); native only (wasm32 runs the engine's other tests).
#![cfg(not(target_arch = "wasm32"))]

mod counting;
mod generators;

use blast_engine::{Params, Policy, Simulation};
use counting::peak_during;
use generators::Size;

#[global_allocator]
static ALLOCATOR: counting::Counting = counting::Counting;

/// The memory target, in bytes per site at the peak.
const BYTES_PER_SITE: usize = 300;

#[test]
fn a_site_costs_at_most_300_bytes_at_the_peak_with_the_scenario_kept_or_handed_over() {
    let _alone = counting::alone();
    // Ten sites a class, one loop calling every site, as the bench's 10^6-site world.
    let size = Size { classes: 10_000, sites: 100_000, events: 1 };
    let kept = peak_during(|| {
        let g = generators::bulk_events(size);
        let sim = Simulation::new(&g.scenario, Policy::Exact, &Params::default()).unwrap();
        assert_eq!(sim.site_count(), size.sites);
    }) / size.sites;
    let owned = peak_during(|| {
        let g = generators::bulk_events(size);
        let sim = Simulation::new_owned(g.scenario, Policy::Exact, &Params::default()).unwrap();
        assert_eq!(sim.site_count(), size.sites);
    }) / size.sites;
    assert!(kept <= BYTES_PER_SITE, "scenario kept: {kept} bytes a site at the peak");
    assert!(owned <= BYTES_PER_SITE, "scenario handed over: {owned} bytes a site at the peak");
    println!("peak heap per site at 10^5 sites: scenario kept {kept} B, handed over {owned} B");
}
