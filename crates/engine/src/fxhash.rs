//! The engine's name maps: `rustc-hash`'s fixed-seed `FxHasher` (rustc's own), not SipHash:
//! names are hashed once per declaration and per reference at set-up, so SipHash's cost
//! dominated building a large world. It replaced a hand-written FxHasher that hashed the 10^5
//! site names 5.9x slower (`cargo bench -p blast-playground --bench codec`, docs/PERFORMANCE.md).
//! The maps are only looked up, never iterated, so the hash cannot leak into any result; a
//! fixed seed keeps runs identical anyway.

pub use rustc_hash::FxHasher;

pub type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub type FxSet<K> = rustc_hash::FxHashSet<K>;
