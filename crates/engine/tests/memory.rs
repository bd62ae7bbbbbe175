//! Peak memory per site, counted (issue 8: at most 300 bytes a site): an allocator that wraps
//! the system's keeps the live and the peak heap bytes, and the peak while a scenario is built
//! and a simulation made from it, divided by the sites, is what a site costs. A count, not a
//! timing: the same on any machine, loaded or not. The bench prints the same figure at 10^6
//! sites as peak RSS (`BLAST_BENCH_PART=table cargo bench -p blast-engine`).

// Its own test binary (the allocator is the process's), one test (nothing else allocates
// meanwhile); native only (wasm32 runs the engine's other tests).
#![cfg(not(target_arch = "wasm32"))]

mod generators;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use blast_engine::{Params, Policy, Simulation};
use generators::Size;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

impl Counting {
    fn grew(by: usize) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: every call goes to `System` with the caller's arguments; the counters only add up
// the sizes that `System` handed out and took back.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and `new_size` is the caller's.
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            // Counted as the new block added before the old one goes: a copying realloc holds both.
            Counting::grew(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak of live heap bytes above what is live now, while `f` runs.
fn peak_during(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

/// Issue 8's memory target, in bytes per site at the peak.
const BYTES_PER_SITE: usize = 300;

#[test]
fn a_site_costs_at_most_300_bytes_at_the_peak_with_the_scenario_kept_or_handed_over() {
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
