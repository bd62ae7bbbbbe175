//! JDK-8247532: record deserialization caches, per record class, the constructor handle adapted
//! to a stream's shape (ordered field names and types).
//!
//! Each op reads `length` elements from a new stream; an element is a line record holding two
//! point records (or the same shape built from plain classes). Variants:
//! - `before-fix`: no cache, the handle is rebuilt for every record read;
//! - `fifo` (as shipped, capacity 10), `lru`, `unbounded`: a per-class shape cache;
//! - `capacity-0`: the cache stores nothing, so every new stream misses: the handle is built
//!   once per stream and, being new each time, is never inlined by the JIT.
//!
//! The blast radius of a miss is one record class; plain classes never touch the cache.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::cache::{BoundedCache, Eviction};
use super::{check_variant, thin, Entity, EntityState, ModelError, ModelReport, OpPoint, MAX_MODEL_OPS};
use crate::report::RelinkTotals;

pub const VARIANTS: &[&str] = &["before-fix", "fifo", "lru", "unbounded", "capacity-0"];

/// How many shapes a record class's cache holds under a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capacity {
    /// `before-fix`: there is no cache; every record rebuilds its handle.
    NoCache,
    /// `fifo`, `lru` (the configured capacity) and `capacity-0`.
    Bounded(u64),
    Unbounded,
}

impl Capacity {
    /// The capacity `variant` gives a cache configured with `configured` entries.
    fn of(variant: &str, configured: u64) -> Capacity {
        match variant {
            "before-fix" => Capacity::NoCache,
            "capacity-0" => Capacity::Bounded(0),
            "unbounded" => Capacity::Unbounded,
            _ => Capacity::Bounded(configured),
        }
    }
}

/// Upper bound on cache entries visited by one run (keeps every input fast).
pub const MAX_CACHE_SCANS: u64 = 50_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objects {
    Records,
    Classes,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeConfig {
    pub objects: Objects,
    /// Elements per op (each = 3 objects: a line and its two points).
    pub length: u64,
    /// Distinct stream shapes, rotated one per op.
    pub shapes: u64,
    /// Cache capacity per record class (FIFO/LRU).
    pub capacity: u64,
    pub warmup_ops: u64,
    pub ops: u64,
}

/// Costs, fitted to `data/jdk_record_deserialization.csv` (all rows together).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeParams {
    /// Creating an ObjectInputStream and reading its header and class descriptors.
    pub stream_setup_ns: f64,
    /// Reading one plain object (allocation + field reads): the `classes_us` slope.
    pub object_read_ns: f64,
    /// Reading one record through a cached, inlined constructor handle: the `after_fix` slope.
    pub record_read_ns: f64,
    /// Building the shape-adapted constructor handle: the `before_fix` slope minus the read.
    pub handle_build_ns: f64,
    /// Extra cost per record of invoking a handle the JIT could not inline (a new one per stream).
    pub uninlined_invoke_ns: f64,
}

impl Default for ShapeParams {
    fn default() -> Self {
        ShapeParams { stream_setup_ns: 5_700.0, object_read_ns: 88.0, record_read_ns: 82.0, handle_build_ns: 1_670.0, uninlined_invoke_ns: 250.0 }
    }
}

/// The record classes in a stream and how many of each an element holds.
const RECORD_CLASSES: [(&str, u64); 2] = [("Line", 1), ("Point", 2)];

pub fn run(c: &ShapeConfig, variant: &str, p: &ShapeParams) -> Result<ModelReport, ModelError> {
    check_variant("shape-cache", variant, VARIANTS)?;
    let total_ops = c.warmup_ops.saturating_add(c.ops);
    if c.ops == 0 || c.length == 0 || c.shapes == 0 || total_ops > MAX_MODEL_OPS || c.length > 1_000_000_000 || c.capacity > 1_000_000 || c.shapes > 1_000_000 {
        return Err(ModelError::TooLarge {
            model: "shape-cache",
            bounds: "ops, length and shapes must be at least 1 and bounded (ops <= 2e6, length <= 1e9)".into(),
        });
    }
    // A lookup scans the cache, so bound the scans too.
    if c.capacity.min(c.shapes).saturating_mul(total_ops) > MAX_CACHE_SCANS {
        return Err(ModelError::TooLarge {
            model: "shape-cache",
            bounds: format!("capacity x ops is too large (at most {MAX_CACHE_SCANS} cache-entry visits)"),
        });
    }
    let eviction = match variant {
        "lru" => Eviction::Lru,
        "unbounded" => Eviction::Unbounded,
        _ => Eviction::Fifo,
    };
    let capacity = Capacity::of(variant, c.capacity);
    let slots = match capacity {
        Capacity::Bounded(n) => n as usize,
        Capacity::NoCache | Capacity::Unbounded => c.capacity as usize,
    };
    let mut caches: Vec<BoundedCache<u64>> = RECORD_CLASSES.iter().map(|_| BoundedCache::new(slots, eviction)).collect();
    let mut built: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); RECORD_CLASSES.len()];
    let (mut hits, mut misses) = (vec![0u64; 2], vec![0u64; 2]);
    let mut verdicts = RelinkTotals::default();
    let mut timeline = Vec::new();
    let (mut t, mut measured) = (0.0, 0.0);
    for op in 0..total_ops {
        let shape = op % c.shapes;
        // Hit rates count measured ops only (warm-up fills the cache).
        let counted = u64::from(op >= c.warmup_ops);
        let mut cost = p.stream_setup_ns;
        let before = verdicts;
        match (c.objects, variant) {
            (Objects::Classes, _) => cost += 3.0 * c.length as f64 * p.object_read_ns,
            (Objects::Records, "before-fix") => {
                let records = 3 * c.length;
                cost += records as f64 * (p.record_read_ns + p.handle_build_ns);
                // The first build of each class's handle was needed; every rebuild after it is waste.
                for (k, _) in RECORD_CLASSES.iter().enumerate() {
                    misses[k] += counted * (records / 3 * RECORD_CLASSES[k].1);
                }
                let fresh = if op == 0 { 2 } else { 0 };
                verdicts.necessary += fresh;
                verdicts.collateral += records - fresh;
            }
            (Objects::Records, _) => {
                for (k, (_, per_element)) in RECORD_CLASSES.iter().enumerate() {
                    let records = c.length * per_element;
                    if caches[k].hit(&shape) {
                        hits[k] += counted;
                        cost += records as f64 * p.record_read_ns;
                    } else {
                        misses[k] += counted;
                        cost += p.handle_build_ns + records as f64 * (p.record_read_ns + p.uninlined_invoke_ns);
                        // A shape built before and evicted since is rebuilt for nothing.
                        if built[k].insert(shape) {
                            verdicts.necessary += 1;
                        } else {
                            verdicts.collateral += 1;
                        }
                        caches[k].insert(shape);
                    }
                }
            }
        }
        t += cost / 1e3;
        if op >= c.warmup_ops {
            measured += cost / 1e3;
            timeline.push(OpPoint {
                t_us: t,
                value: cost / 1e3,
                necessary: verdicts.necessary - before.necessary,
                collateral: verdicts.collateral - before.collateral,
                missed: 0,
            });
        }
    }
    let entities = RECORD_CLASSES
        .iter()
        .enumerate()
        .map(|(k, (name, _))| Entity {
            name: name.to_string(),
            state: EntityState::RecordClass { capacity, cached: caches[k].entries().to_vec(), hits: hits[k], misses: misses[k] },
        })
        .collect();
    Ok(ModelReport {
        model: "shape-cache".into(),
        variant: variant.into(),
        unit: "us/op".into(),
        value: measured / c.ops as f64,
        roles: vec![("hit rate %".into(), hit_rate(&hits, &misses))],
        verdicts,
        entities,
        timeline: thin(timeline, 400),
    })
}

fn hit_rate(hits: &[u64], misses: &[u64]) -> f64 {
    let (h, m): (u64, u64) = (hits.iter().sum(), misses.iter().sum());
    if h + m == 0 {
        0.0
    } else {
        100.0 * h as f64 / (h + m) as f64
    }
}

/// Hit rate (percent) of the cache with `shapes` rotating shapes.
pub fn hit_rate_for(c: &ShapeConfig, variant: &str) -> Result<f64, ModelError> {
    Ok(run(c, variant, &ShapeParams::default())?.roles[0].1)
}
