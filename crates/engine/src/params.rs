//! The engine's parameters: Groovy's call-site thresholds and a small virtual-time cost model.
//!
//! Each cost stands for one real operation and is pinned by named rows of
//! `data/groovy_scoped_invalidation_bench.csv` (see `docs/CALIBRATION.md`). No
//! parameter exists for one benchmark row.

use serde::{Deserialize, Serialize};

/// How a bulk retirement finds the domains to retire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BulkScan {
    /// The merged GROOVY-12191 change: visit every loaded class (cost grows with `loaded_classes`).
    AllLoaded,
    /// The follow-up: visit only domains some site is linked against.
    LiveOnly,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    /// `groovy.indy.callsite.cache.size`: per-site PIC capacity (LRU by receiver class).
    pub pic_capacity: usize,
    /// `groovy.indy.optimize.threshold`: consecutive PIC hits before promotion to the fast chain.
    pub optimize_threshold: u64,
    /// `groovy.indy.fallback.threshold`: guard failures before the target is reset to default.
    pub fallback_threshold: u64,
    /// `groovy.indy.fallback.cutoff`: reset rounds after which a site stays on its default target.
    pub fallback_cutoff: u32,

    /// A call through a linked, JIT-inlined fast chain (guards pass). Pinned by the two
    /// baseline rows (six and seven sites per iteration).
    pub fast_call_ns: f64,
    /// A call through the default target: PIC lookup by receiver class + invoking the cached
    /// handle. Pinned by the global churn rows (every site sits on its PIC between writes) and
    /// by same-type churn under exact (the hot site does).
    pub pic_call_ns: f64,
    /// One full method selection (metaclass lookup, handle building, guards). Pinned by the
    /// category rows (the category method cannot be cached) and the fallback storms.
    pub selection_ns: f64,
    /// `C.metaClass.m = {..}` on an existing ExpandoMetaClass (closure, registration,
    /// callbacks). Pinned by unrelated and parent churn under exact.
    pub metaclass_write_ns: f64,
    /// Building and registering a new metaclass (first expando install or a replace). Not
    /// pinned by the published rows (one install per run); an estimate.
    pub metaclass_install_ns: f64,
    /// Setting a per-instance metaclass.
    pub per_instance_ns: f64,
    /// Category enter or leave bookkeeping (thread-local category stack, method index). An
    /// estimate: dwarfed in the category row by the uncached calls inside the block.
    pub category_switch_ns: f64,
    /// Invalidating one live domain (`SwitchPoint.invalidateAll`, deoptimizing its
    /// dependents). An estimate; it matters for bulk events over many live domains.
    pub domain_retire_ns: f64,
    /// Visiting one class while a bulk retirement looks for domains. With `loaded_classes`
    /// it sets the cost of the merged bulk path (see `blast sweep .. --param loaded_classes=..`).
    pub bulk_scan_per_class_ns: f64,
    /// Loading one class.
    pub class_load_ns: f64,
    /// How bulk retirement finds domains.
    pub bulk_scan: BulkScan,
    /// Classes loaded in the process (the JVM has thousands), scanned under `BulkScan::AllLoaded`.
    pub loaded_classes: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            pic_capacity: 8,
            optimize_threshold: 1000,
            fallback_threshold: 1000,
            fallback_cutoff: 100,
            // Fitted together by `examples/fit.rs` over all fourteen published values and
            // seven ratios; see the field docs for the rows that pin each one.
            fast_call_ns: 0.43,
            pic_call_ns: 610.0,
            selection_ns: 2200.0,
            metaclass_write_ns: 21_500.0,
            metaclass_install_ns: 20_000.0,
            per_instance_ns: 5_000.0,
            category_switch_ns: 2_000.0,
            domain_retire_ns: 300.0,
            bulk_scan_per_class_ns: 20.0,
            class_load_ns: 50_000.0,
            // The published "after" build is the merge, before the live-only follow-up.
            bulk_scan: BulkScan::AllLoaded,
            loaded_classes: 3_000,
        }
    }
}

/// Names accepted by [`Params::set`], for `blast sweep --param` and the UI.
pub const PARAM_NAMES: &[&str] = &[
    "pic_capacity",
    "optimize_threshold",
    "fallback_threshold",
    "fallback_cutoff",
    "fast_call_ns",
    "pic_call_ns",
    "selection_ns",
    "metaclass_write_ns",
    "metaclass_install_ns",
    "per_instance_ns",
    "category_switch_ns",
    "domain_retire_ns",
    "bulk_scan_per_class_ns",
    "class_load_ns",
    "loaded_classes",
];

impl Params {
    /// Set one named numeric parameter. Values must be finite, non-negative and bounded.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), String> {
        if !(0.0..=1e12).contains(&value) {
            return Err(format!("{name} = {value}: must be a finite number in 0..=1e12"));
        }
        let int = |v: f64| -> Result<u64, String> {
            if v.fract() != 0.0 {
                Err(format!("{name} must be a whole number"))
            } else {
                Ok(v as u64)
            }
        };
        match name {
            "pic_capacity" => self.pic_capacity = int(value)?.clamp(0, 1024) as usize,
            "optimize_threshold" => self.optimize_threshold = int(value)?,
            "fallback_threshold" => self.fallback_threshold = int(value)?,
            "fallback_cutoff" => self.fallback_cutoff = int(value)?.min(u32::MAX as u64) as u32,
            "fast_call_ns" => self.fast_call_ns = value,
            "pic_call_ns" => self.pic_call_ns = value,
            "selection_ns" => self.selection_ns = value,
            "metaclass_write_ns" => self.metaclass_write_ns = value,
            "metaclass_install_ns" => self.metaclass_install_ns = value,
            "per_instance_ns" => self.per_instance_ns = value,
            "category_switch_ns" => self.category_switch_ns = value,
            "domain_retire_ns" => self.domain_retire_ns = value,
            "bulk_scan_per_class_ns" => self.bulk_scan_per_class_ns = value,
            "class_load_ns" => self.class_load_ns = value,
            "loaded_classes" => self.loaded_classes = int(value)?.min(10_000_000) as u32,
            _ => return Err(format!("unknown parameter `{name}` (known: {})", PARAM_NAMES.join(", "))),
        }
        Ok(())
    }
}
