//! Peak memory per site, counted (at most 300 bytes a site): an allocator that wraps
//! the system's keeps the live and the peak heap bytes, and the peak while a scenario is built
//! and a simulation made from it, divided by the sites, is what a site costs. A count, not a
//! timing: the same on any machine, loaded or not. The bench prints the same figure at 10^6
//! sites as peak RSS (`BLAST_BENCH_PART=table cargo bench -p blast-engine`). Checking
//! expectations under every policy peaks as one run does: one report is alive at a time.

// Its own test binary (the allocator is the process's), its tests one at a time (nothing else
// allocates meanwhile); native only (wasm32 runs the engine's other tests).
#![cfg(not(target_arch = "wasm32"))]

mod counting;
mod generators;

use blast_engine::compare::prepare;
use blast_engine::{dsl, expect, Params, Policy, Simulation};
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

#[test]
fn checking_an_expectation_under_every_policy_peaks_as_the_largest_single_run() {
    let _alone = counting::alone();
    // Writes and custom replaces over 10^5 sites: global retires every site at each event.
    let size = Size { classes: 10_000, sites: 100_000, events: 2 };
    let one_run = Policy::ALL
        .iter()
        .map(|&p| {
            peak_during(|| {
                let g = generators::all_policies(size);
                let report = prepare(g.scenario, &[p], &Params::default()).unwrap().runs().next().unwrap();
                assert_eq!(report.sites.len(), size.sites);
            })
        })
        .max()
        .unwrap();
    let claim =
        dsl::parse("class K0 { m }\nsite s0 = K0.m\nop { loop 1 { call s0 } }\nexpect under global, exact, hierarchy, hierarchy-v3, ideal: relinks >= 0")
            .unwrap();
    let check = peak_during(|| {
        let mut g = generators::all_policies(size);
        g.scenario.expectations = claim.expectations.clone();
        let report = expect::check(g.scenario, &Params::default()).unwrap();
        assert_eq!(report.outcomes[0].observed.len(), Policy::ALL.len());
    });
    // Five reports alive at once (or five simulations) would be about five times one run.
    assert!(check * 4 <= one_run * 5, "check under five policies peaked at {check} bytes, one run at {one_run}");
    println!("peak heap at 10^5 sites: check under five policies {check} B, the largest single run {one_run} B");
}
