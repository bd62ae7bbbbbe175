//! The engine's parameters: Groovy's call-site thresholds and a small virtual-time cost model.
//!
//! Each cost stands for one real operation and is pinned by named rows of
//! `data/groovy_scoped_invalidation_bench.csv` (see `docs/CALIBRATION.md`). No
//! parameter exists for one benchmark row.

use std::fmt;

use crate::spelling::{named, UnknownName};

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

impl BulkScan {
    pub const ALL: [BulkScan; 2] = [BulkScan::AllLoaded, BulkScan::LiveOnly];

    /// The name in JSON, the CLI and the UI.
    pub fn name(self) -> &'static str {
        match self {
            BulkScan::AllLoaded => "all-loaded",
            BulkScan::LiveOnly => "live-only",
        }
    }
}

named!(BulkScan, "bulk_scan");

/// What a call site keeps of its selections: the mechanism by which Groovy 2.4 and Groovy 3+
/// differ for a site that sees several receiver classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteCache {
    /// Groovy 3 and later (`vmplugin/v8/CacheableCallSite`): an inline cache of `pic_capacity`
    /// targets by receiver class in LRU order behind the site's default target; a site is linked
    /// to one receiver's chain only after `optimize_threshold` consecutive hits (`sim::poly`).
    Pic,
    /// Groovy 2.4 (`vmplugin/v7`, GROOVY_2_4_X): the site is a `MutableCallSite` whose target is
    /// the last selection's guarded handle and nothing else. `Selector.setGuards` wraps it in a
    /// receiver metaclass guard (`SAME_MC`), the SwitchPoint guard and argument class guards,
    /// each falling back to `IndyInterface.selectMethod`, which selects again
    /// (`Selector.setCallSiteTarget`) and sets the site's target (`doCallSiteTargetSet` ->
    /// `MutableCallSite.setTarget`). So a receiver change is a guard miss, a full selection and a
    /// relink, and the relink deoptimizes compiled code that inlined the old target (HotSpot's
    /// `call_site_target_value` dependency, `MethodHandles::flush_dependent_nmethods`).
    Relink,
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
    /// What a polymorphic site caches (Groovy 3+'s PIC, or Groovy 2.4's one relinked target):
    /// [`Params::groovy_2_4`] sets `Relink`.
    pub site_cache: SiteCache,
    /// Classes loaded in the process (the JVM has thousands), scanned under `BulkScan::AllLoaded`.
    pub loaded_classes: u32,

    // The JIT tier layer (`jit`): HotSpot's flags, cited in `jit`'s module header.
    /// `Tier3InvocationThreshold` (compiler_globals.hpp): invocations before C1 compiles a method.
    pub tier3_invocation_threshold: u64,
    /// `Tier3BackEdgeThreshold` (compiler_globals.hpp): interpreted loop back-edges before the C1 OSR compile.
    pub tier3_back_edge_threshold: u64,
    /// `Tier4InvocationThreshold` (compiler_globals.hpp): C1 invocations before C2 compiles a method.
    pub tier4_invocation_threshold: u64,
    /// `Tier4BackEdgeThreshold` (compiler_globals.hpp): C1 loop back-edges before the C2 OSR compile.
    pub tier4_back_edge_threshold: u64,
    /// `Tier0BackedgeNotifyFreqLog` (compiler_globals.hpp): the interpreter reports a loop every
    /// 2^this back-edges; a deoptimized hot method is compiled at C2 again at the next report.
    pub tier0_backedge_notify_freq_log: u32,
    /// `PerMethodRecompilationCutoff` (globals.hpp): C2 deoptimizations before C2 gives up on a method.
    pub per_method_recompilation_cutoff: u32,
    /// `PerBytecodeRecompilationCutoff` (globals.hpp): recompilations for one trap site before C2 gives up.
    pub per_bytecode_recompilation_cutoff: u32,
    /// `PerMethodTrapLimit` (globals.hpp): uncommon traps in a method before C2 stops speculating in it.
    pub per_method_trap_limit: u32,
    /// `PerBytecodeTrapLimit` (globals.hpp): uncommon traps at one site before C2 stops speculating there.
    pub per_bytecode_trap_limit: u32,
    /// What a dynamic call costs on top of its path (`fast_call_ns`, `pic_call_ns`, selection)
    /// when the method holding it runs in the interpreter: the `invokedynamic` bytecode
    /// interpreted, its method-handle chain entered instead of inlined. Pinned by the global
    /// churn rows (the loop method spends most of each op interpreted). The Groovy 2.4 rows
    /// measured here do not pin it: on their JVM a write deoptimizes nothing (`groovy24`), so
    /// their timed ops run C2 code.
    pub interpreter_call_ns: f64,
    /// The same for C1 code (tier 3, profiling): the linked chain is called, not inlined.
    pub c1_call_ns: f64,
    /// Compile latency (`BackgroundCompilation`, see `jit`): ns from a unit crossing its C1
    /// threshold to its C1 code installed, the unit running on interpreted meanwhile. 0 here: the
    /// published rows are measured by JMH after seconds of warm-up, longer than any compile,
    /// which the presets compress into a few ops; [`Params::groovy_2_4`] uses `c1_compile_2_4_ns`.
    pub c1_compile_ns: f64,
    /// The same from the C2 threshold to the C2 code (the unit runs on in C1 meanwhile).
    pub c2_compile_ns: f64,
    /// Compiles waiting in C2's queue when a unit's C1 code asks for C2, which scale its C2
    /// thresholds (`CompilationPolicy::threshold_scale`, see `jit`). 0 here: the published rows
    /// are measured after seconds of warm-up, when the queue has drained; [`Params::groovy_2_4`]
    /// uses `c2_queue_2_4`.
    pub c2_queue: u64,
    /// One deoptimization: making the C2 code not entrant and converting its frame to an
    /// interpreter frame. An estimate: the fit over every row drives it toward zero (the time
    /// below C2 that follows a deoptimization is what the published churn rows see, not the event).
    pub deopt_ns: f64,
    /// How much slower code runs interpreted than compiled at C2: a method body (`cost` in the
    /// DSL is the C2 figure; C1 is taken as compiled), and event code (a metaclass write, a
    /// category switch) during its first `tier3_invocation_threshold` firings, its cold path.
    /// An estimate kept from fitting the Groovy 2.4 density and body sweeps under `global`; on
    /// the runtime they were measured on, a write deoptimizes nothing (`groovy24`) and their
    /// timed ops run compiled code, so no measured row pins it now.
    pub interpreter_slowdown: f64,
    /// Groovy 2.4's method selection (`IndyInterface.selectMethod`: a `Selector` and a guarded
    /// handle, no cache to fill): different code from Groovy 5's `selection_ns`, used by
    /// [`Params::groovy_2_4`]: the selection, the guards' handles, `setTarget` and the call
    /// through the new handle. Pinned by the Groovy 2.4 `poly` sweep, where from two receivers on
    /// every call is a guard miss and a relink ([`SiteCache::Relink`]) in a loop that stays
    /// interpreted: the log-mean of its four rows (531, 639, 419 and 433 ms an op of 100 000
    /// iterations: 4.98 us an iteration) less the iteration's three calls run out of line
    /// (3 x `chain_call_2_4_ns`) and its interpreted work = 4.1 us.
    pub selection_2_4_ns: f64,
    /// Groovy 2.4's `C.metaClass.m = {..}` on an existing ExpandoMetaClass, used by
    /// [`Params::groovy_2_4`]. Read off the Groovy 2.4 density sweep, where it is the only cost
    /// that grows with the writes (a write deoptimizes and relinks nothing there: `groovy24`):
    /// (12.59 ms - 1.44 ms) / 9 999 more writes per op from a write every 100 000 iterations to
    /// one every 10 = 1.1 us a write; the burst sweep agrees (`metaclass_write_per_method_ns`).
    pub metaclass_write_2_4_ns: f64,
    /// What a metaclass write adds per method the class's metaclass already holds. Pinned by the
    /// Groovy 2.4 burst sweep, where a write's cost grows with the methods written before it
    /// (3000 writes cost 8.6x what 1000 do: about 23 us and 7 us a write, 7.5 ns per method held);
    /// the code responsible was not traced in Groovy's source. Negligible for the published rows, which write one method again and again.
    pub metaclass_write_per_method_ns: f64,
    /// What a Groovy 2.4 dynamic call adds when the method holding it runs interpreted or in
    /// C1 code, which do not inline it: the site's whole method-handle chain (the SwitchPoint,
    /// metaclass and receiver guards, argument conversions, the target) run out of line. It
    /// stands for both lower tiers ([`Params::groovy_2_4`] sets `interpreter_call_ns` and
    /// `c1_call_ns` to it): the chain, not the caller's tier, is the cost. Measured with
    /// `-XX:+LogCompilation` on the `length` probe's fresh loops (`scripts/length-compiles.sh`
    /// and an earlier copy of its loop: 112 worlds, 14 JVMs of 8 as the probe runs them; `task_queued` and `nmethod` stamps and
    /// back-edge counts): a median 557 ns an iteration of two calls interpreted (op start to the
    /// C1 request at back-edge 60 416) and 608 ns in C1 code (C1 install to the C2 request), so
    /// (557 - 42) / 2 and (608 - 14) / 2 less the iteration's own work: 258 and 297, 280 ns. The
    /// first fresh world of a JVM is slower (up to 1.1 us an iteration, the runtime still
    /// compiling its own code; the 550 ns this had before was read off such a world): the length
    /// rows pool all eight. Groovy 5's `interpreter_call_ns` and `c1_call_ns` (19 and 2.5 ns) are
    /// fitted on JMH rows whose sites sit on their cache path, which `pic_call_ns` already charges.
    pub chain_call_2_4_ns: f64,
    /// `c1_compile_ns` on the Groovy 2.4 rows' machine (OpenJDK 17, 2 cores), read off
    /// `-XX:+LogCompilation` (`task_queued` to `nmethod` stamps) for the `length` probe's fresh
    /// loop's C1 OSR compile: median 10 ms over the 112 worlds (quartiles 6 and 13 ms). The rows
    /// hardly pin it (the loop costs about the same interpreted and in C1 code): `examples/fit.rs`
    /// drifts it to 24 ms, which moves `length` op 1 by +1 % and op 2 by +1.4 %.
    pub c1_compile_2_4_ns: f64,
    /// `c2_compile_ns` likewise, the loop's C2 OSR compile: median 20.5 ms over the 112 worlds
    /// (quartiles 17 and 40 ms; the standard entry's C2 code followed a median 20 ms after the
    /// OSR code, the engine gives both one latency). With `c2_queue_2_4` it places the `length`
    /// sweep's knee (op 2 in C1 code until the OSR code is in; op 4 entering it 8192 C1
    /// back-edges in, before the standard entry's C2 code is).
    pub c2_compile_2_4_ns: f64,
    /// `c2_queue` for the Groovy 2.4 `length` probe's fresh loops. The loop asked for C2
    /// (`task_queued`'s `backedge_count`) at a median back-edge 134 335 over the 112 worlds
    /// (quartiles 104 666 and 183 411; 101 376 = 60 416 + 40 960 with C2's queue empty): 85 of
    /// them asked later than an empty queue lets them, the first world of each JVM latest
    /// (median 361 347), because the runtime's own compiles for the new world (Groovy's
    /// compiler, its call path for new classes) were waiting for C2. HotSpot checks at C1 code's
    /// back-edge reports (every 8192), which the engine does not model: it asks at exactly
    /// 60 000 + 40 000 x (1 + queue / 3), and 3 puts that (140 000) nearest the measured median
    /// (2 gives 126 667; HotSpot's 2, rounded up to its next report, is the 134 144 measured).
    pub c2_queue_2_4: u64,
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
            site_cache: SiteCache::Pic,
            loaded_classes: 3_000,
            tier3_invocation_threshold: 200,
            tier3_back_edge_threshold: 60_000,
            tier4_invocation_threshold: 5_000,
            tier4_back_edge_threshold: 40_000,
            tier0_backedge_notify_freq_log: 10,
            per_method_recompilation_cutoff: 400,
            per_bytecode_recompilation_cutoff: 200,
            per_method_trap_limit: 100,
            per_bytecode_trap_limit: 4,
            interpreter_call_ns: 19.0,
            c1_call_ns: 2.5,
            deopt_ns: 2_000.0,
            interpreter_slowdown: 3.2,
            selection_2_4_ns: 4_110.0,
            metaclass_write_2_4_ns: 1_100.0,
            metaclass_write_per_method_ns: 7.5,
            c1_compile_ns: 0.0,
            c2_compile_ns: 0.0,
            c2_queue: 0,
            chain_call_2_4_ns: 280.0,
            c1_compile_2_4_ns: 10e6,
            c2_compile_2_4_ns: 20e6,
            c2_queue_2_4: 3,
        }
    }
}

/// A numeric engine parameter that can be set by name (`blast sweep --param`, `--set`, the UI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    PicCapacity,
    OptimizeThreshold,
    FallbackThreshold,
    FallbackCutoff,
    FastCallNs,
    PicCallNs,
    SelectionNs,
    MetaclassWriteNs,
    MetaclassInstallNs,
    PerInstanceNs,
    CategorySwitchNs,
    DomainRetireNs,
    BulkScanPerClassNs,
    ClassLoadNs,
    LoadedClasses,
    Tier3InvocationThreshold,
    Tier3BackEdgeThreshold,
    Tier4InvocationThreshold,
    Tier4BackEdgeThreshold,
    Tier0BackedgeNotifyFreqLog,
    PerMethodRecompilationCutoff,
    PerBytecodeRecompilationCutoff,
    PerMethodTrapLimit,
    PerBytecodeTrapLimit,
    InterpreterCallNs,
    C1CallNs,
    DeoptNs,
    InterpreterSlowdown,
    Selection24Ns,
    MetaclassWrite24Ns,
    MetaclassWritePerMethodNs,
    C1CompileNs,
    C2CompileNs,
    C2Queue,
    ChainCall24Ns,
    C1Compile24Ns,
    C2Compile24Ns,
    C2Queue24,
}

/// Where a parameter's value lives in [`Params`], with its type.
enum Slot<'a> {
    Nanos(&'a mut f64),
    Count(&'a mut u64),
    Rounds(&'a mut u32),
    Entries(&'a mut usize),
}

impl Param {
    pub const ALL: [Param; 38] = [
        Param::PicCapacity,
        Param::OptimizeThreshold,
        Param::FallbackThreshold,
        Param::FallbackCutoff,
        Param::FastCallNs,
        Param::PicCallNs,
        Param::SelectionNs,
        Param::MetaclassWriteNs,
        Param::MetaclassInstallNs,
        Param::PerInstanceNs,
        Param::CategorySwitchNs,
        Param::DomainRetireNs,
        Param::BulkScanPerClassNs,
        Param::ClassLoadNs,
        Param::LoadedClasses,
        Param::Tier3InvocationThreshold,
        Param::Tier3BackEdgeThreshold,
        Param::Tier4InvocationThreshold,
        Param::Tier4BackEdgeThreshold,
        Param::Tier0BackedgeNotifyFreqLog,
        Param::PerMethodRecompilationCutoff,
        Param::PerBytecodeRecompilationCutoff,
        Param::PerMethodTrapLimit,
        Param::PerBytecodeTrapLimit,
        Param::InterpreterCallNs,
        Param::C1CallNs,
        Param::DeoptNs,
        Param::InterpreterSlowdown,
        Param::Selection24Ns,
        Param::MetaclassWrite24Ns,
        Param::MetaclassWritePerMethodNs,
        Param::C1CompileNs,
        Param::C2CompileNs,
        Param::C2Queue,
        Param::ChainCall24Ns,
        Param::C1Compile24Ns,
        Param::C2Compile24Ns,
        Param::C2Queue24,
    ];

    /// Whether `examples/fit.rs` fits it to the published and measured rows. The others keep
    /// their source's value: thresholds and cutoffs are Groovy's and HotSpot's defaults, and
    /// costs the rows do not pin (installs happen once per run, category bookkeeping is dwarfed
    /// by the uncached calls inside the block) keep their documented estimates.
    pub fn is_fitted(self) -> bool {
        matches!(
            self,
            Param::FastCallNs
                | Param::PicCallNs
                | Param::SelectionNs
                | Param::MetaclassWriteNs
                | Param::InterpreterCallNs
                | Param::C1CallNs
                | Param::DeoptNs
                | Param::InterpreterSlowdown
                | Param::Selection24Ns
                | Param::MetaclassWrite24Ns
                | Param::ChainCall24Ns
                | Param::C1Compile24Ns
                | Param::C2Compile24Ns
        )
    }

    /// The parameter's name: the field of [`Params`] it sets.
    pub fn name(self) -> &'static str {
        match self {
            Param::PicCapacity => "pic_capacity",
            Param::OptimizeThreshold => "optimize_threshold",
            Param::FallbackThreshold => "fallback_threshold",
            Param::FallbackCutoff => "fallback_cutoff",
            Param::FastCallNs => "fast_call_ns",
            Param::PicCallNs => "pic_call_ns",
            Param::SelectionNs => "selection_ns",
            Param::MetaclassWriteNs => "metaclass_write_ns",
            Param::MetaclassInstallNs => "metaclass_install_ns",
            Param::PerInstanceNs => "per_instance_ns",
            Param::CategorySwitchNs => "category_switch_ns",
            Param::DomainRetireNs => "domain_retire_ns",
            Param::BulkScanPerClassNs => "bulk_scan_per_class_ns",
            Param::ClassLoadNs => "class_load_ns",
            Param::LoadedClasses => "loaded_classes",
            Param::Tier3InvocationThreshold => "tier3_invocation_threshold",
            Param::Tier3BackEdgeThreshold => "tier3_back_edge_threshold",
            Param::Tier4InvocationThreshold => "tier4_invocation_threshold",
            Param::Tier4BackEdgeThreshold => "tier4_back_edge_threshold",
            Param::Tier0BackedgeNotifyFreqLog => "tier0_backedge_notify_freq_log",
            Param::PerMethodRecompilationCutoff => "per_method_recompilation_cutoff",
            Param::PerBytecodeRecompilationCutoff => "per_bytecode_recompilation_cutoff",
            Param::PerMethodTrapLimit => "per_method_trap_limit",
            Param::PerBytecodeTrapLimit => "per_bytecode_trap_limit",
            Param::InterpreterCallNs => "interpreter_call_ns",
            Param::C1CallNs => "c1_call_ns",
            Param::DeoptNs => "deopt_ns",
            Param::InterpreterSlowdown => "interpreter_slowdown",
            Param::Selection24Ns => "selection_2_4_ns",
            Param::MetaclassWrite24Ns => "metaclass_write_2_4_ns",
            Param::MetaclassWritePerMethodNs => "metaclass_write_per_method_ns",
            Param::C1CompileNs => "c1_compile_ns",
            Param::C2CompileNs => "c2_compile_ns",
            Param::C2Queue => "c2_queue",
            Param::ChainCall24Ns => "chain_call_2_4_ns",
            Param::C1Compile24Ns => "c1_compile_2_4_ns",
            Param::C2Compile24Ns => "c2_compile_2_4_ns",
            Param::C2Queue24 => "c2_queue_2_4",
        }
    }

    /// One line on what the parameter stands for (the field docs above say what pins it).
    pub fn meaning(self) -> &'static str {
        match self {
            Param::PicCapacity => "per-site inline cache entries (groovy.indy.callsite.cache.size)",
            Param::OptimizeThreshold => "PIC hits before a site is promoted to the fast chain (groovy.indy.optimize.threshold)",
            Param::FallbackThreshold => "guard failures before a site resets to its default target (groovy.indy.fallback.threshold)",
            Param::FallbackCutoff => "reset rounds before a site gives up optimizing (groovy.indy.fallback.cutoff)",
            Param::FastCallNs => "ns per call through a linked, inlined fast chain",
            Param::PicCallNs => "ns per call through the default target's inline cache",
            Param::SelectionNs => "ns per full method selection (lookup, handle, guards)",
            Param::MetaclassWriteNs => "ns per method written onto an existing ExpandoMetaClass",
            Param::MetaclassInstallNs => "ns to build and register a new metaclass",
            Param::PerInstanceNs => "ns to set a per-instance metaclass",
            Param::CategorySwitchNs => "ns per category enter or leave",
            Param::DomainRetireNs => "ns to retire one live switch point",
            Param::BulkScanPerClassNs => "ns per class visited by a bulk retirement",
            Param::ClassLoadNs => "ns to load one class",
            Param::LoadedClasses => "classes loaded in the process, scanned by an all-loaded bulk retirement",
            Param::Tier3InvocationThreshold => "invocations before C1 compiles a method (HotSpot Tier3InvocationThreshold)",
            Param::Tier3BackEdgeThreshold => "interpreted back-edges before the C1 OSR compile (HotSpot Tier3BackEdgeThreshold)",
            Param::Tier4InvocationThreshold => "C1 invocations before C2 compiles a method (HotSpot Tier4InvocationThreshold)",
            Param::Tier4BackEdgeThreshold => "C1 back-edges before the C2 OSR compile (HotSpot Tier4BackEdgeThreshold)",
            Param::Tier0BackedgeNotifyFreqLog => "log2 of the interpreter's back-edges between compile-policy reports (HotSpot Tier0BackedgeNotifyFreqLog)",
            Param::PerMethodRecompilationCutoff => "C2 deoptimizations before C2 gives up on a method (HotSpot PerMethodRecompilationCutoff)",
            Param::PerBytecodeRecompilationCutoff => "recompilations for one trap site before C2 gives up (HotSpot PerBytecodeRecompilationCutoff)",
            Param::PerMethodTrapLimit => "uncommon traps before C2 stops speculating in a method (HotSpot PerMethodTrapLimit)",
            Param::PerBytecodeTrapLimit => "uncommon traps before C2 stops speculating at one site (HotSpot PerBytecodeTrapLimit)",
            Param::InterpreterCallNs => "ns a dynamic call adds when its method runs interpreted",
            Param::C1CallNs => "ns a dynamic call adds when its method runs in C1 code",
            Param::DeoptNs => "ns per deoptimization (code made not entrant, frame converted)",
            Param::InterpreterSlowdown => "how much slower a method body runs interpreted than in C2 code",
            Param::Selection24Ns => "ns per method selection in Groovy 2.4 (IndyInterface.selectMethod)",
            Param::MetaclassWrite24Ns => "ns per method written onto an ExpandoMetaClass in Groovy 2.4",
            Param::MetaclassWritePerMethodNs => "ns a metaclass write adds per method the metaclass already holds",
            Param::C1CompileNs => "ns from a unit's C1 threshold to its C1 code installed (background compilation)",
            Param::C2CompileNs => "ns from a unit's C2 threshold to its C2 code installed (background compilation)",
            Param::C2Queue => "compiles waiting for C2 when a unit asks for it (they scale its C2 thresholds)",
            Param::ChainCall24Ns => "ns a Groovy 2.4 dynamic call adds from interpreted or C1 code (its chain run out of line)",
            Param::C1Compile24Ns => "c1_compile_ns on the machine the Groovy 2.4 rows ran on",
            Param::C2Compile24Ns => "c2_compile_ns on the machine the Groovy 2.4 rows ran on",
            Param::C2Queue24 => "c2_queue for the Groovy 2.4 rows' fresh loops",
        }
    }

    /// The largest accepted value: a count must fit its field, and no cost above 1e12 ns
    /// (17 minutes of virtual time per operation) means anything.
    fn max(self) -> f64 {
        match self {
            Param::PicCapacity => 1024.0,
            Param::FallbackCutoff => f64::from(u32::MAX),
            Param::LoadedClasses => 10_000_000.0,
            Param::PerMethodRecompilationCutoff | Param::PerBytecodeRecompilationCutoff | Param::PerMethodTrapLimit | Param::PerBytecodeTrapLimit => {
                f64::from(u32::MAX)
            }
            Param::InterpreterSlowdown => 1e4,
            Param::Tier0BackedgeNotifyFreqLog => 30.0,
            _ => 1e12,
        }
    }
}

named!(Param, "parameter");

/// Why a parameter or knob could not be set to a value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// No parameter or knob has this name, or a knob that takes one of a few words got another.
    Unknown(UnknownName),
    NotANumber {
        name: String,
        text: String,
    },
    NotWhole {
        name: String,
        value: f64,
    },
    OutOfRange {
        name: String,
        value: f64,
        min: f64,
        max: f64,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown(e) => write!(f, "{e}"),
            ParamError::NotANumber { name, text } => write!(f, "{name}: `{text}` is not a number"),
            ParamError::NotWhole { name, value } => write!(f, "{name} = {value}: must be a whole number"),
            ParamError::OutOfRange { name, value, min, max } => write!(f, "{name} = {value}: must be at least {min} and at most {max}"),
        }
    }
}

impl std::error::Error for ParamError {}

impl From<UnknownName> for ParamError {
    fn from(e: UnknownName) -> Self {
        ParamError::Unknown(e)
    }
}

/// Reads `text` as a number for the knob `name`.
pub fn number(name: &str, text: &str) -> Result<f64, ParamError> {
    text.trim().parse::<f64>().map_err(|_| ParamError::NotANumber { name: name.to_string(), text: text.to_string() })
}

/// Checks that `value` is a whole number in `min..=max` for the knob `name`.
pub fn whole(name: &str, value: f64, min: f64, max: f64) -> Result<u64, ParamError> {
    if !(min..=max).contains(&value) {
        Err(ParamError::OutOfRange { name: name.to_string(), value, min, max })
    } else if value.fract() != 0.0 {
        Err(ParamError::NotWhole { name: name.to_string(), value })
    } else {
        Ok(value as u64)
    }
}

impl Params {
    fn slot(&mut self, p: Param) -> Slot<'_> {
        match p {
            Param::PicCapacity => Slot::Entries(&mut self.pic_capacity),
            Param::OptimizeThreshold => Slot::Count(&mut self.optimize_threshold),
            Param::FallbackThreshold => Slot::Count(&mut self.fallback_threshold),
            Param::FallbackCutoff => Slot::Rounds(&mut self.fallback_cutoff),
            Param::FastCallNs => Slot::Nanos(&mut self.fast_call_ns),
            Param::PicCallNs => Slot::Nanos(&mut self.pic_call_ns),
            Param::SelectionNs => Slot::Nanos(&mut self.selection_ns),
            Param::MetaclassWriteNs => Slot::Nanos(&mut self.metaclass_write_ns),
            Param::MetaclassInstallNs => Slot::Nanos(&mut self.metaclass_install_ns),
            Param::PerInstanceNs => Slot::Nanos(&mut self.per_instance_ns),
            Param::CategorySwitchNs => Slot::Nanos(&mut self.category_switch_ns),
            Param::DomainRetireNs => Slot::Nanos(&mut self.domain_retire_ns),
            Param::BulkScanPerClassNs => Slot::Nanos(&mut self.bulk_scan_per_class_ns),
            Param::ClassLoadNs => Slot::Nanos(&mut self.class_load_ns),
            Param::LoadedClasses => Slot::Rounds(&mut self.loaded_classes),
            Param::Tier3InvocationThreshold => Slot::Count(&mut self.tier3_invocation_threshold),
            Param::Tier3BackEdgeThreshold => Slot::Count(&mut self.tier3_back_edge_threshold),
            Param::Tier4InvocationThreshold => Slot::Count(&mut self.tier4_invocation_threshold),
            Param::Tier4BackEdgeThreshold => Slot::Count(&mut self.tier4_back_edge_threshold),
            Param::Tier0BackedgeNotifyFreqLog => Slot::Rounds(&mut self.tier0_backedge_notify_freq_log),
            Param::PerMethodRecompilationCutoff => Slot::Rounds(&mut self.per_method_recompilation_cutoff),
            Param::PerBytecodeRecompilationCutoff => Slot::Rounds(&mut self.per_bytecode_recompilation_cutoff),
            Param::PerMethodTrapLimit => Slot::Rounds(&mut self.per_method_trap_limit),
            Param::PerBytecodeTrapLimit => Slot::Rounds(&mut self.per_bytecode_trap_limit),
            Param::InterpreterCallNs => Slot::Nanos(&mut self.interpreter_call_ns),
            Param::C1CallNs => Slot::Nanos(&mut self.c1_call_ns),
            Param::DeoptNs => Slot::Nanos(&mut self.deopt_ns),
            Param::InterpreterSlowdown => Slot::Nanos(&mut self.interpreter_slowdown),
            Param::Selection24Ns => Slot::Nanos(&mut self.selection_2_4_ns),
            Param::MetaclassWrite24Ns => Slot::Nanos(&mut self.metaclass_write_2_4_ns),
            Param::MetaclassWritePerMethodNs => Slot::Nanos(&mut self.metaclass_write_per_method_ns),
            Param::C1CompileNs => Slot::Nanos(&mut self.c1_compile_ns),
            Param::C2CompileNs => Slot::Nanos(&mut self.c2_compile_ns),
            Param::C2Queue => Slot::Count(&mut self.c2_queue),
            Param::ChainCall24Ns => Slot::Nanos(&mut self.chain_call_2_4_ns),
            Param::C1Compile24Ns => Slot::Nanos(&mut self.c1_compile_2_4_ns),
            Param::C2Compile24Ns => Slot::Nanos(&mut self.c2_compile_2_4_ns),
            Param::C2Queue24 => Slot::Count(&mut self.c2_queue_2_4),
        }
    }

    /// The current value of a parameter.
    pub fn get(&self, p: Param) -> f64 {
        match self.clone().slot(p) {
            Slot::Nanos(v) => *v,
            Slot::Count(v) => *v as f64,
            Slot::Rounds(v) => f64::from(*v),
            Slot::Entries(v) => *v as f64,
        }
    }

    /// Set one parameter. Values must be finite, non-negative, at most the parameter's bound,
    /// and whole for counts.
    pub fn set(&mut self, p: Param, value: f64) -> Result<(), ParamError> {
        let name = p.name();
        match self.slot(p) {
            Slot::Nanos(v) => {
                if !(0.0..=p.max()).contains(&value) {
                    return Err(ParamError::OutOfRange { name: name.to_string(), value, min: 0.0, max: p.max() });
                }
                *v = value;
            }
            Slot::Count(v) => *v = whole(name, value, 0.0, p.max())?,
            Slot::Rounds(v) => *v = whole(name, value, 0.0, p.max())? as u32,
            Slot::Entries(v) => *v = whole(name, value, 0.0, p.max())? as usize,
        }
        Ok(())
    }

    /// These costs with Groovy 2.4's call sites (`groovy --indy`, the runtime measured in
    /// `data/groovy24_sweeps.csv`): a site is a plain `MutableCallSite` with no inline cache and
    /// no thresholds; every guard failure selects again and links the result at once
    /// (`IndyInterface.selectMethod` -> `Selector.setCallSiteTarget` -> `setTarget`), forever.
    /// Here: a cache of one entry promoted on its first hit, reset on the first guard failure,
    /// never given up (a site with one receiver, `sim::site`); a polymorphic site relinks on
    /// every receiver change ([`SiteCache::Relink`], `sim::poly`). Groovy's own code differs too: 2.4's selection and metaclass write are
    /// their own parameters (`selection_2_4_ns`, `metaclass_write_2_4_ns`); the JVM's costs (the
    /// tiers, deoptimization, bodies) are shared with Groovy 5.
    pub fn groovy_2_4(&self) -> Params {
        Params {
            pic_capacity: 1,
            optimize_threshold: 0,
            site_cache: SiteCache::Relink,
            fallback_threshold: 0,
            fallback_cutoff: u32::MAX,
            selection_ns: self.selection_2_4_ns,
            metaclass_write_ns: self.metaclass_write_2_4_ns,
            // No cache path: a linked site's call is its chain, the relink's extra calls go
            // through the freshly linked handle.
            pic_call_ns: self.fast_call_ns,
            // Its chain, run out of line from lower-tier code, and this machine's compile latency.
            interpreter_call_ns: self.chain_call_2_4_ns,
            c1_call_ns: self.chain_call_2_4_ns,
            c1_compile_ns: self.c1_compile_2_4_ns,
            c2_compile_ns: self.c2_compile_2_4_ns,
            c2_queue: self.c2_queue_2_4,
            ..self.clone()
        }
    }

    /// HotSpot's tier thresholds and deoptimization limits, for [`crate::jit`].
    pub fn thresholds(&self) -> crate::jit::Thresholds {
        crate::jit::Thresholds {
            tier3_invocations: self.tier3_invocation_threshold,
            tier3_back_edges: self.tier3_back_edge_threshold,
            tier4_invocations: self.tier4_invocation_threshold,
            tier4_back_edges: self.tier4_back_edge_threshold,
            back_edge_notify: 1 << self.tier0_backedge_notify_freq_log.min(30),
            tier0_invoke_notify: 1 << 7,
            c1_back_edge_notify: 1 << 13,
            c1_latency_ns: self.c1_compile_ns as u64,
            c2_latency_ns: self.c2_compile_ns as u64,
            c2_queue: self.c2_queue,
            tier4_load_feedback: 3,
            c2_threads: 1,
            recompilation_cutoff: self.per_method_recompilation_cutoff,
            bytecode_recompilation_cutoff: self.per_bytecode_recompilation_cutoff,
            method_trap_limit: self.per_method_trap_limit,
            bytecode_trap_limit: self.per_bytecode_trap_limit,
        }
    }

    /// What a dynamic call adds in code of tier `t` over C2 code that inlined it.
    pub fn tier_call_ns(&self, t: crate::jit::Tier) -> f64 {
        match t {
            crate::jit::Tier::Interpreter => self.interpreter_call_ns,
            crate::jit::Tier::C1 => self.c1_call_ns,
            crate::jit::Tier::C2 => 0.0,
        }
    }

    /// Set a parameter given by name and text, as a user types them.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ParamError> {
        let p: Param = name.parse()?;
        self.set(p, number(name, text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_reads_back_what_was_set() {
        for p in Param::ALL {
            let mut params = Params::default();
            params.set(p, 7.0).unwrap();
            assert_eq!(params.get(p), 7.0, "{p}");
            assert_eq!(p.name().parse::<Param>().unwrap(), p);
        }
    }

    #[test]
    fn bad_values_are_typed_errors() {
        let mut p = Params::default();
        assert!(matches!(p.set_text("nope", "1"), Err(ParamError::Unknown(e)) if e.name == "nope" && e.expected.len() == Param::ALL.len()));
        assert_eq!(p.set_text("selection_ns", "fast"), Err(ParamError::NotANumber { name: "selection_ns".into(), text: "fast".into() }));
        assert!(matches!(p.set(Param::PicCapacity, 2.5), Err(ParamError::NotWhole { .. })));
        assert!(matches!(p.set(Param::PicCapacity, 5000.0), Err(ParamError::OutOfRange { max, .. }) if max == 1024.0));
        assert!(matches!(p.set(Param::SelectionNs, f64::NAN), Err(ParamError::OutOfRange { .. })));
        assert!(matches!(p.set(Param::SelectionNs, -1.0), Err(ParamError::OutOfRange { .. })));
        assert_eq!(p, Params::default(), "a refused value changes nothing");
    }
}
