//! IGNITE-29109: a descriptor cache keyed by class was pre-seeded with an *unregistered* entry
//! for some classes. Every write builds a registered copy by reflection and offers it with
//! put-if-absent, which loses to the pre-seeded entry: the copy is discarded and rebuilt on the
//! next write. In call-site terms, a domain that never becomes valid.
//!
//! Variants: `good` (the cache fills), `broken` (pre-seeded, never replaced), `fixed` (the
//! registered descriptor replaces the pre-seeded one once).

use serde::{Deserialize, Serialize};

use super::{check_variant, thin, Entity, EntityState, ModelError, ModelReport, OpPoint, MAX_MODEL_OPS};
use crate::report::RelinkTotals;

pub const VARIANTS: &[&str] = &["good", "broken", "fixed"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    /// Marshal the value to binary.
    ToBinary,
    /// A cache put: marshal plus the put itself.
    Put,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DescriptorConfig {
    /// The value's class, e.g. `TreeMap`.
    pub class: String,
    /// Entries in the value (0 = empty).
    pub entries: u64,
    pub operation: Operation,
    /// Classes the broken build pre-seeds with an unregistered descriptor.
    pub preseeded: Vec<String>,
    pub warmup_ops: u64,
    pub ops: u64,
}

/// Costs, fitted to `data/ignite_descriptor_cache.csv` (to_binary and put columns).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DescriptorParams {
    /// Marshalling an empty value with a cached descriptor.
    pub marshal_base_ns: f64,
    /// Marshalling one entry.
    pub per_entry_ns: f64,
    /// Building a descriptor by reflection (fields, serializer, registration lookup).
    pub reflection_build_ns: f64,
    /// The cache put around the marshalling.
    pub put_overhead_ns: f64,
}

impl Default for DescriptorParams {
    fn default() -> Self {
        DescriptorParams { marshal_base_ns: 310.0, per_entry_ns: 66.0, reflection_build_ns: 5_600.0, put_overhead_ns: 700.0 }
    }
}

/// What a class's slot in the descriptor cache holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotState {
    Empty,
    /// Pre-seeded with an unregistered descriptor that put-if-absent never replaces.
    Unregistered,
    Registered,
}

pub fn run(c: &DescriptorConfig, variant: &str, p: &DescriptorParams) -> Result<ModelReport, ModelError> {
    check_variant("descriptor", variant, VARIANTS)?;
    let total = c.warmup_ops.saturating_add(c.ops);
    if c.ops == 0 || total > MAX_MODEL_OPS || c.entries > 1_000_000_000 {
        return Err(ModelError::TooLarge { model: "descriptor", bounds: "ops must be at least 1 and at most 2e6, entries at most 1e9".into() });
    }
    let mut slot = if variant != "good" && c.preseeded.contains(&c.class) { SlotState::Unregistered } else { SlotState::Empty };
    let mut verdicts = RelinkTotals::default();
    let (mut rebuilds, mut discarded) = (0u64, 0u64);
    let (mut t, mut measured) = (0.0, 0.0);
    let mut timeline = Vec::new();
    let mut built_once = false;
    for op in 0..total {
        let before = verdicts;
        let mut cost = p.marshal_base_ns + c.entries as f64 * p.per_entry_ns;
        if c.operation == Operation::Put {
            cost += p.put_overhead_ns;
        }
        if slot != SlotState::Registered {
            // Build the registered descriptor by reflection and offer it.
            cost += p.reflection_build_ns;
            rebuilds += 1;
            if built_once {
                verdicts.collateral += 1;
            } else {
                verdicts.necessary += 1;
                built_once = true;
            }
            slot = match (slot, variant) {
                // put-if-absent loses to the pre-seeded entry: the copy is thrown away.
                (SlotState::Unregistered, "broken") => {
                    discarded += 1;
                    SlotState::Unregistered
                }
                _ => SlotState::Registered,
            };
        }
        t += cost / 1e3;
        if op >= c.warmup_ops {
            measured += cost;
            timeline.push(OpPoint {
                t_us: t,
                value: cost,
                necessary: verdicts.necessary - before.necessary,
                collateral: verdicts.collateral - before.collateral,
                missed: 0,
            });
        }
    }
    Ok(ModelReport {
        model: "descriptor".into(),
        variant: variant.into(),
        unit: "ns/op".into(),
        value: measured / c.ops as f64,
        roles: Vec::new(),
        verdicts,
        entities: vec![Entity { name: c.class.clone(), state: EntityState::DescriptorSlot { slot, rebuilds, discarded } }],
        timeline: thin(timeline, 400),
    })
}
