//! Three more members of the invalidation family, on the same footing as the call-site
//! simulator: cached decisions, the events that throw them away, virtual-time costs, and an
//! oracle verdict (necessary / collateral / missed) for every rebuild.
//!
//! - [`shape_cache`]: a bounded per-class cache of stream shapes (JDK-8247532).
//! - [`arena`]: closing a shared memory arena handshakes every thread (JDK-8335480).
//! - [`descriptor`]: a descriptor cache that never fills (IGNITE-29109).

pub mod arena;
pub mod cache;
pub mod descriptor;
pub mod shape_cache;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::params::{number, whole, ParamError};
use crate::report::RelinkTotals;

/// The configuration of one model run, tagged by model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ModelConfig {
    ShapeCache(shape_cache::ShapeConfig),
    Arena(arena::ArenaConfig),
    Descriptor(descriptor::DescriptorConfig),
}

impl ModelConfig {
    /// The policies (variants) this model can be run under; the first is the "before".
    pub fn variants(&self) -> &'static [&'static str] {
        match self {
            ModelConfig::ShapeCache(_) => shape_cache::VARIANTS,
            ModelConfig::Arena(_) => arena::VARIANTS,
            ModelConfig::Descriptor(_) => descriptor::VARIANTS,
        }
    }

    /// The model's name in errors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            ModelConfig::ShapeCache(_) => "shape-cache",
            ModelConfig::Arena(_) => "arena",
            ModelConfig::Descriptor(_) => "descriptor",
        }
    }

    /// The knobs [`apply`] accepts for this model.
    pub fn knobs(&self) -> &'static [&'static str] {
        match self {
            ModelConfig::ShapeCache(_) => &["shapes", "length", "capacity", "ops"],
            ModelConfig::Arena(_) => &["threads", "ops"],
            ModelConfig::Descriptor(_) => &["entries", "ops"],
        }
    }

    pub fn run(&self, variant: &str) -> Result<ModelReport, ModelError> {
        match self {
            ModelConfig::ShapeCache(c) => shape_cache::run(c, variant, &shape_cache::ShapeParams::default()),
            ModelConfig::Arena(c) => arena::run(c, variant, &arena::ArenaParams::default()),
            ModelConfig::Descriptor(c) => descriptor::run(c, variant, &descriptor::DescriptorParams::default()),
        }
    }
}

/// One thing in a model's blast view: a thread, a record class's shape cache, a class's
/// descriptor slot, with what it holds at the end of the run and what happened to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entity {
    pub name: String,
    pub state: EntityState,
}

/// What an entity is and holds, by model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EntityState {
    /// A thread of the arena group: its role, whether its compiled frame does scoped memory
    /// access (what the JDK-8335480 gate looks at), and its ops, handshakes and deopts.
    Thread { role: arena::Role, scoped_access: bool, ops: u64, handshakes: u64, deopts: u64 },
    /// A record class's shape cache: how many shapes it may hold, the cached shape ids, oldest
    /// (FIFO) or least recently used (LRU) first, and the lookups that hit or missed.
    RecordClass { capacity: shape_cache::Capacity, cached: Vec<u64>, hits: u64, misses: u64 },
    /// A class's slot in the descriptor cache, and the descriptors built and thrown away.
    DescriptorSlot { slot: descriptor::SlotState, rebuilds: u64, discarded: u64 },
}

impl Entity {
    /// The count whose increase is the entity's blast: a deopt, a cache miss, a rebuild.
    pub fn blast_count(&self) -> u64 {
        match self.state {
            EntityState::Thread { deopts, .. } => deopts,
            EntityState::RecordClass { misses, .. } => misses,
            EntityState::DescriptorSlot { rebuilds, .. } => rebuilds,
        }
    }
}

/// One measured op of a model run, for the timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpPoint {
    pub t_us: f64,
    pub value: f64,
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelReport {
    pub model: String,
    pub variant: String,
    /// Unit of `value` (lower is better for time units).
    pub unit: String,
    /// Mean over the measured ops (or the role named in the config).
    pub value: f64,
    /// Per-role means where a model measures several (e.g. each thread of the arena group).
    pub roles: Vec<(String, f64)>,
    pub verdicts: RelinkTotals,
    pub entities: Vec<Entity>,
    pub timeline: Vec<OpPoint>,
}

/// Largest number of simulated ops any model run may take (keeps every input bounded).
pub const MAX_MODEL_OPS: u64 = 2_000_000;

/// Why a model could not run, or a knob could not be set.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    UnknownVariant {
        model: &'static str,
        variant: String,
        expected: &'static [&'static str],
    },
    /// The configuration exceeds a bound that keeps every run short; `bounds` says which.
    TooLarge {
        model: &'static str,
        bounds: String,
    },
    /// The arena group has no thread with the role its figure is measured on.
    NoMeasuredThread {
        role: &'static str,
    },
    /// The model has no knob of this name.
    UnknownKnob {
        name: String,
        known: &'static [&'static str],
    },
    Knob(ParamError),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::UnknownVariant { model, variant, expected } => {
                write!(f, "{model}: unknown variant `{variant}` (expected one of: {})", expected.join(", "))
            }
            ModelError::TooLarge { model, bounds } => write!(f, "{model}: {bounds}"),
            ModelError::NoMeasuredThread { role } => write!(f, "arena: no thread has the measured role `{role}`"),
            ModelError::UnknownKnob { name, known } => write!(f, "`{name}` is not a knob of this model (knobs: {})", known.join(", ")),
            ModelError::Knob(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<ParamError> for ModelError {
    fn from(e: ParamError) -> Self {
        ModelError::Knob(e)
    }
}

/// `Err(UnknownVariant)` unless `variant` is one of the model's.
fn check_variant(model: &'static str, variant: &str, expected: &'static [&'static str]) -> Result<(), ModelError> {
    if expected.contains(&variant) {
        Ok(())
    } else {
        Err(ModelError::UnknownVariant { model, variant: variant.to_string(), expected })
    }
}

/// Keep at most this many timeline points, evenly spaced.
fn thin(points: Vec<OpPoint>, max: usize) -> Vec<OpPoint> {
    if points.len() <= max {
        return points;
    }
    let step = points.len().div_ceil(max);
    points.into_iter().step_by(step).collect()
}

/// A shipped scenario of one of these models.
#[derive(Clone, Copy, Debug)]
pub struct ModelPreset {
    pub id: &'static str,
    pub title: &'static str,
    /// `shape-cache`, `arena` or `descriptor`.
    pub family: &'static str,
    pub description: &'static str,
    /// What the published row shows, as `expect` lines about the variants (read by
    /// `expect::model::of_preset`): the gallery doubles as a test suite.
    pub expectations: &'static str,
    build: fn() -> ModelConfig,
}

impl ModelPreset {
    pub fn config(&self) -> ModelConfig {
        (self.build)()
    }
}

fn shape(objects: shape_cache::Objects, length: u64, shapes: u64) -> ModelConfig {
    ModelConfig::ShapeCache(shape_cache::ShapeConfig { objects, length, shapes, capacity: 10, warmup_ops: 12, ops: 24 })
}

fn arena_group(threads: Vec<arena::Role>, measure: arena::Role) -> ModelConfig {
    ModelConfig::Arena(arena::ArenaConfig { threads, warmup_ops: 20, ops: 300, measure })
}

fn descriptor(class: &str, entries: u64, operation: descriptor::Operation) -> ModelConfig {
    ModelConfig::Descriptor(descriptor::DescriptorConfig {
        class: class.into(),
        entries,
        operation,
        preseeded: vec!["TreeMap".into(), "TreeSet".into()],
        warmup_ops: 5,
        ops: 200,
    })
}

/// Scaling run: `n` threads, each accessing a shared segment and closing its own arena.
pub fn arena_scaling(n: usize) -> ModelConfig {
    ModelConfig::Arena(arena::ArenaConfig { threads: vec![arena::Role::AccessAndClose; n], warmup_ops: 10, ops: 100, measure: arena::Role::AccessAndClose })
}

use arena::Role;
use descriptor::Operation;
use shape_cache::Objects;

pub const MODEL_PRESETS: &[ModelPreset] = &[
    ModelPreset {
        id: "records_length100",
        title: "Record deserialization: 100 lines per stream",
        family: "shape-cache",
        description: "Each op reads 100 line records (each holding two point records) from a new stream. Before JDK-8247532 the constructor handle was rebuilt for every record: about 16x the cost of plain classes. The per-class shape cache brings records back to parity; with its capacity forced to 0 every new stream misses once per class and runs a handle the JIT never inlines.",
        expectations: "expect before-fix / fifo >= 10x time\nexpect under fifo, lru, unbounded: collateral == 0\nexpect capacity-0 / fifo >= 2x time",
        build: || shape(Objects::Records, 100, 1),
    },
    ModelPreset {
        id: "records_rotating11",
        title: "Eleven stream shapes through a cache of ten",
        family: "shape-cache",
        description: "Streams rotate through 11 shapes of the same record classes. A FIFO (as shipped) or LRU cache of 10 sees each shape evicted just before it comes back: the hit rate falls from 100% to 0% at capacity + 1, and every op rebuilds. Only an unbounded cache keeps hitting. The blast radius is the record classes; plain classes never notice.",
        expectations: "expect under fifo, lru: collateral > 0\nexpect under unbounded: collateral == 0\nexpect fifo / unbounded >= 3x time",
        build: || shape(Objects::Records, 100, 11),
    },
    ModelPreset {
        id: "arena_closeGroup",
        title: "Closing shared arenas next to two busy threads",
        family: "arena",
        description: "One thread creates and closes shared arenas in a loop; one sums a segment of a never-closed arena in compiled code; one sums a byte[]. Every close handshakes all three. Under JDK-8335480's gate the segment thread's frame is deoptimized at every close (about 6x slower) although it never touched the closing arena; the byte[] thread only pays the handshake. Gating on the live session removes the collateral deopts.",
        expectations: "expect under always, scoped-access: collateral > 0\nexpect under session-live: collateral == 0\nexpect scoped-access / session-live >= 5x time\nexpect under always, scoped-access, session-live: missed == 0",
        build: || arena_group(vec![Role::Closing, Role::SegmentAccess, Role::ArrayAccess], Role::SegmentAccess),
    },
    ModelPreset {
        id: "arena_useAfterClose",
        title: "A thread that really uses the arena being closed",
        family: "arena",
        description: "The same group, but the access thread reads the very arena being closed. Its deopt (and async exception) is necessary; the `no-deopt` experiment misses it: the oracle reports a use after close.",
        expectations: "expect under scoped-access, session-live: necessary > 0\nexpect under session-live: collateral == 0\nexpect under no-deopt: missed > 0",
        build: || arena_group(vec![Role::Closing, Role::UsesClosingArena, Role::ArrayAccess], Role::UsesClosingArena),
    },
    ModelPreset {
        id: "arena_scaling16",
        title: "Sixteen threads each accessing and closing",
        family: "arena",
        description: "Every thread accesses a shared segment and closes its own arena. Each close handshakes every thread and, under the scoped-access gate, deoptimizes each of them: the cost per op grows with the square of the thread count once threads outnumber cores.",
        expectations: "expect scoped-access / session-live >= 3x time\nexpect under session-live: collateral == 0",
        build: || arena_scaling(16),
    },
    ModelPreset {
        id: "descriptor_treeMap",
        title: "A descriptor cache that never fills: TreeMap",
        family: "descriptor",
        description: "Ignite 2.18 pre-seeded the descriptor cache with an unregistered TreeMap entry. Every write builds a registered descriptor by reflection, offers it with put-if-absent, loses, and throws it away: ~24x slower per write. The fix caches the registered descriptor once.",
        expectations: "expect broken / fixed >= 10x time\nexpect under broken: collateral > 0\nexpect under good, fixed: collateral == 0",
        build: || descriptor("TreeMap", 0, Operation::ToBinary),
    },
    ModelPreset {
        id: "descriptor_hashMap",
        title: "The same cache for HashMap: unaffected",
        family: "descriptor",
        description: "HashMap was never pre-seeded, so its descriptor is built once and cached in every version: the blast radius of the bug is exactly the pre-seeded classes.",
        expectations: "expect broken / good <= 1x time\nexpect under good, broken, fixed: collateral == 0",
        build: || descriptor("HashMap", 0, Operation::ToBinary),
    },
];

pub fn find(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS.iter().find(|p| p.id == id)
}

/// Builders the calibration uses for the published rows.
pub mod rows {
    use super::*;

    pub fn records(objects: Objects, length: u64) -> ModelConfig {
        shape(objects, length, 1)
    }

    pub fn arena_three_threads() -> ModelConfig {
        arena_group(vec![Role::Closing, Role::SegmentAccess, Role::ArrayAccess], Role::SegmentAccess)
    }

    pub fn marshal(class: &str, entries: u64, operation: Operation) -> ModelConfig {
        descriptor(class, entries, operation)
    }
}

/// Set one knob of a model configuration from its text (sweeps and the CLI: `"64"`, `"1e3"`);
/// the knobs are [`set_knob`]'s.
pub fn apply(c: &ModelConfig, name: &str, value: &str) -> Result<ModelConfig, ModelError> {
    set_knob(c, name, whole(name, number(name, value)?, 0.0, u64::MAX as f64)?)
}

/// Set one knob of a model configuration to the whole number `v`: `shapes`, `length`,
/// `capacity`, `threads` (arena: that many access-and-close threads), `entries`, `ops`. A caller
/// holding a number already (the playground's knob fields) passes it as one, so no float parser
/// comes with it (on the page, `str::parse::<f64>` is ~10 KiB of tables).
pub fn set_knob(c: &ModelConfig, name: &str, v: u64) -> Result<ModelConfig, ModelError> {
    let mut c = c.clone();
    match (&mut c, name) {
        (ModelConfig::ShapeCache(s), "shapes") => s.shapes = v,
        (ModelConfig::ShapeCache(s), "length") => s.length = v,
        (ModelConfig::ShapeCache(s), "capacity") => s.capacity = v,
        (ModelConfig::ShapeCache(s), "ops") => s.ops = v,
        (ModelConfig::Arena(_), "threads") => {
            if !(1..=256).contains(&v) {
                return Err(ParamError::OutOfRange { name: name.into(), value: v as f64, min: 1.0, max: 256.0 }.into());
            }
            c = arena_scaling(v as usize);
        }
        (ModelConfig::Arena(a), "ops") => a.ops = v,
        (ModelConfig::Descriptor(d), "entries") => d.entries = v,
        (ModelConfig::Descriptor(d), "ops") => d.ops = v,
        _ => return Err(ModelError::UnknownKnob { name: name.to_string(), known: c.knobs() }),
    }
    Ok(c)
}
