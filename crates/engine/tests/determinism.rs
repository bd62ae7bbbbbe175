//! Same scenario, same numbers: natively and in wasm the engine must produce exactly the
//! fingerprints recorded in `golden/fingerprints.txt`. After an intended engine change,
//! regenerate natively with `BLAST_BLESS=1 cargo test -p blast-engine --test determinism`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use blast_engine::{presets, run, Params, Policy};

const GOLDEN: &str = include_str!("golden/fingerprints.txt");

fn fingerprints() -> String {
    let mut out = String::new();
    for p in presets::all() {
        let s = p.scenario();
        for policy in Policy::ALL {
            let r = run(&s, policy, &Params::default()).unwrap();
            let t = r.relink_totals;
            let stale: u64 = r.sites.iter().map(|x| x.stats.stale_calls).sum();
            let selections: u64 = r.sites.iter().map(|x| x.stats.selections).sum();
            // `{:?}` prints the shortest representation that round-trips: exact bits.
            out.push_str(&format!(
                "{} {} ops_per_ms={:?} virtual_ms={:?} relinks={}/{}/{} stale={} selections={} events={}\n",
                p.id, policy, r.ops_per_ms, r.virtual_ms, t.necessary, t.collateral, t.missed, stale, selections, r.events_total
            ));
        }
    }
    for p in blast_engine::models::MODEL_PRESETS {
        let c = p.config();
        for v in c.variants() {
            let r = c.run(v).unwrap();
            let t = r.verdicts;
            out.push_str(&format!("{} {v} value={:?} verdicts={}/{}/{} points={}\n", p.id, r.value, t.necessary, t.collateral, t.missed, r.timeline.len()));
        }
    }
    out
}

#[test]
fn numbers_match_the_recorded_fingerprints() {
    let now = fingerprints();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("BLAST_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/fingerprints.txt"), &now).unwrap();
        return;
    }
    for (line, (got, want)) in now.lines().zip(GOLDEN.lines()).enumerate() {
        assert_eq!(got, want, "fingerprint line {} differs", line + 1);
    }
    assert_eq!(now.lines().count(), GOLDEN.lines().count(), "number of fingerprints");
}

#[test]
fn repeated_runs_are_identical() {
    assert_eq!(fingerprints(), fingerprints());
}
