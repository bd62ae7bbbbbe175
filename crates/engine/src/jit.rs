//! The JIT tier layer: compilation units climbing HotSpot's tiers (interpreter -> C1 -> C2) by
//! counting invocations and loop back-edges, losing their compiled code when a dependency is
//! invalidated, and giving up on C2 after too many recompilations. Shared by the call-site
//! simulation (`sim`: the method holding the benchmark loop, the event code) and the arena model
//! (`models::arena`: a thread's compiled top frame).
//!
//! Everything here is counting, never timing: a unit's state after a given sequence of
//! invocations, back-edges and deoptimizations is exact, so the transitions are tested by
//! counting. Costs are the caller's business ([`Tier`] says which cost applies).
//!
//! The HotSpot facts this follows (OpenJDK 17, the JVM the Groovy 2.4 rows were measured on):
//! - `compiler/compiler_globals.hpp`: `Tier3InvocationThreshold` 200 and
//!   `Tier3BackEdgeThreshold` 60000 (interpreter -> C1 with profiling), `Tier4InvocationThreshold`
//!   5000 and `Tier4BackEdgeThreshold` 40000 (C1 -> C2, OSR for loops).
//! - `runtime/globals.hpp`: `PerMethodRecompilationCutoff` 400 ("after recompiling N times, stay
//!   in the interpreter"), `PerBytecodeRecompilationCutoff` 200, `PerMethodTrapLimit` 100,
//!   `PerBytecodeTrapLimit` 4.
//! - `code/nmethod.cpp`, `nmethod::make_not_entrant`: invalidating a dependency (a `CallSite`
//!   target, which is what `SwitchPoint.invalidateAll` changes) marks the nmethod for
//!   deoptimization with recompile counts updated, so `inc_decompile_count` runs (C2 code only);
//!   `oops/methodData.hpp`, `MethodData::inc_decompile_count`: past
//!   `PerMethodRecompilationCutoff` the method is `set_not_compilable(.., CompLevel_full_optimization)`,
//!   i.e. C2 gives up on it and it stays in C1, whose code does not inline through call sites and
//!   so holds no dependency that a later invalidation could break.
//!
//! - `compiler/compiler_globals.hpp`: `Tier0BackedgeNotifyFreqLog` 10: the interpreter reports a
//!   loop to the compilation policy every 2^10 back-edges. A deoptimized method keeps its counters
//!   and profile, so at that report `CompilationPolicy::common` (`compiler/compilationPolicy.cpp`)
//!   finds it already past the C2 thresholds and compiles it at C2 directly: a unit that has been
//!   in C2 before comes back after `2^Tier0BackedgeNotifyFreqLog` interpreted back-edges.
//!
//! - `runtime/globals.hpp`: `BackgroundCompilation` true: a thread that requests a compile is not
//!   blocked; its code keeps running in the tier it is in until the compile is installed. So a
//!   loop crossing a threshold runs on in the lower tier for the compile's latency
//!   ([`Thresholds::c1_latency_ns`], [`Thresholds::c2_latency_ns`]: time, which the caller turns
//!   into back-edges with what an iteration costs in each tier).
//! - `compiler/compilationPolicy.cpp`, `CompilationPolicy::method_back_branch_event`: a loop's
//!   threshold queues an OSR compile (the code the running loop jumps into); `call_event` then
//!   raises the method's standard entry to the OSR code's level ("the levels should be equalized
//!   ... to avoid OSRs during each invocation"), a second compile queued once the first is in.
//!   Until it is installed, every new invocation starts in the old entry code and moves into the
//!   OSR code at that code's next back-edge report: 2^`Tier0BackedgeNotifyFreqLog` interpreted
//!   back-edges, 2^`Tier3BackedgeNotifyFreqLog` (13, `compiler_globals.hpp`) in C1 code.
//!
//! - `compiler/compilationPolicy.cpp`, `CompilationPolicy::common` (case `CompLevel_full_profile`):
//!   C1 code (tier 3) asks for C2 by its `MethodData`'s counts (`backedge_count_delta`), and the
//!   tier-3 compile creates that `MethodData` before it builds anything (`c1/c1_Compilation.cpp`,
//!   `Compilation::compile_java_method`: `ensure_method_data`); the interpreter counts into it
//!   from then on, so the count toward `Tier4BackEdgeThreshold` starts at the C1 request, not at
//!   the C1 code's install. (Measured here: a fresh loop whose C2 queue was empty asked for C2
//!   at back-edge 101 376 = 60 416 + 40 960, its C1 code installed a median 19 000 back-edges
//!   after the request.)
//! - `compiler/compilationPolicy.cpp`, `CompilationPolicy::threshold_scale` and
//!   `LoopPredicate::apply`: the C2 thresholds are multiplied by
//!   `queue / (Tier4LoadFeedback x C2 compiler threads) + 1`, the C2 queue being the compiles
//!   waiting for C2 when the unit reports (`Tier4LoadFeedback` 3, `compiler_globals.hpp`; one C2
//!   thread on 2 CPUs, `CompilationPolicy::initialize`'s `CICompilerCount` ergonomics):
//!   [`Thresholds::c2_queue`].
//!
//! - `prims/methodHandles.cpp`, `MethodHandles::flush_dependent_nmethods`: setting a
//!   `MutableCallSite`'s target marks every nmethod that inlined the old one for deoptimization,
//!   as an invalidated SwitchPoint does. A site whose target is set again every few iterations
//!   (a Groovy 2.4 site relinked at each receiver change, `sim::poly`) deoptimizes the loop's C2
//!   code that many iterations after it is installed ([`Unit::relinked_every`]), counted toward
//!   `PerMethodRecompilationCutoff` like any dependency; past it the loop stays in C1.
//! - `ci/ciEnv.cpp`, `ciEnv::register_method`: a compile whose dependencies changed while it ran
//!   is not installed (`-XX:+PrintCompilation`: "COMPILE SKIPPED: call site target change"), and
//!   the method is neither deoptimized nor marked not compilable, so the policy asks again at its
//!   next report and the next compile fails the same way. A unit calling a site relinked more
//!   often than a compile takes never gets compiled code: it stays in its tier. (Seen here for
//!   the Groovy 2.4 `poly` probe, two receivers: in 20 ops the loop's OSR compiles were skipped
//!   283 times, at tier 3 and tier 4, and 26 installed ones were made not entrant.)
//!
//! Simplification (said in docs/CALIBRATION.md): a recompilation after a deoptimization is
//! installed at the notification, without latency (`CompilationPolicy::compare_methods` puts a
//! "recompilation after deopt" at the head of the queue; its compile time is not modelled).

use serde::{Deserialize, Serialize};

/// Where a compilation unit's code runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    Interpreter,
    /// C1 with full profiling (tier 3): compiled, calls through call sites not inlined.
    C1,
    /// C2 (tier 4): inlines through linked call sites, holding a dependency on each.
    C2,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Interpreter, Tier::C1, Tier::C2];

    pub fn name(self) -> &'static str {
        match self {
            Tier::Interpreter => "interpreter",
            Tier::C1 => "C1",
            Tier::C2 => "C2",
        }
    }
}

/// HotSpot's tiered-compilation and deoptimization limits (see the module header for the source
/// of each default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    pub tier3_invocations: u64,
    pub tier3_back_edges: u64,
    pub tier4_invocations: u64,
    pub tier4_back_edges: u64,
    /// Back-edges between the interpreter's reports to the policy (2^`Tier0BackedgeNotifyFreqLog`).
    pub back_edge_notify: u64,
    /// Invocations between the interpreter's reports (2^`Tier0InvokeNotifyFreqLog`, 7).
    pub tier0_invoke_notify: u64,
    /// Back-edges between C1 (tier 3) code's reports (2^`Tier3BackedgeNotifyFreqLog`, 13).
    pub c1_back_edge_notify: u64,
    /// Compile latency, ns from the request to the installed code, of a unit's first compile at
    /// C1 and at C2 (0: installed at the request).
    pub c1_latency_ns: u64,
    pub c2_latency_ns: u64,
    /// Compiles waiting in C2's queue when the unit's C1 code reports (0: the queue is empty);
    /// they scale its C2 thresholds (see the module header).
    pub c2_queue: u64,
    /// `Tier4LoadFeedback` (`compiler_globals.hpp`, 3): queued compiles per C2 compiler thread
    /// that double the C2 thresholds.
    pub tier4_load_feedback: u64,
    /// C2 compiler threads (1 on 2 CPUs: `CompilationPolicy::initialize`).
    pub c2_threads: u64,
    pub recompilation_cutoff: u32,
    pub bytecode_recompilation_cutoff: u32,
    pub method_trap_limit: u32,
    pub bytecode_trap_limit: u32,
}

impl Thresholds {
    /// HotSpot's defaults (JDK 17, `compiler_globals.hpp` / `globals.hpp`; `java
    /// -XX:+PrintFlagsFinal -version` prints them, and a test compares every flag here with it).
    pub const HOTSPOT: Thresholds = Thresholds {
        tier3_invocations: 200,
        tier3_back_edges: 60_000,
        tier4_invocations: 5_000,
        tier4_back_edges: 40_000,
        back_edge_notify: 1 << 10,
        tier0_invoke_notify: 1 << 7,
        c1_back_edge_notify: 1 << 13,
        c1_latency_ns: 0,
        c2_latency_ns: 0,
        c2_queue: 0,
        tier4_load_feedback: 3,
        c2_threads: 1,
        recompilation_cutoff: 400,
        bytecode_recompilation_cutoff: 200,
        method_trap_limit: 100,
        bytecode_trap_limit: 4,
    };
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds::HOTSPOT
    }
}

/// How many loop iterations (back-edges) of a run went by in each tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierSpans {
    pub interpreter: u64,
    pub c1: u64,
    pub c2: u64,
}

impl TierSpans {
    pub fn get(&self, t: Tier) -> u64 {
        match t {
            Tier::Interpreter => self.interpreter,
            Tier::C1 => self.c1,
            Tier::C2 => self.c2,
        }
    }
    fn add(&mut self, t: Tier, n: u64) {
        match t {
            Tier::Interpreter => self.interpreter += n,
            Tier::C1 => self.c1 += n,
            Tier::C2 => self.c2 += n,
        }
    }
}

/// What a deoptimization request did to a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deopt {
    /// The unit held no compiled code depending on what was invalidated (interpreted, or C1).
    Nothing,
    /// Its C2 code was made not entrant; it runs interpreted and climbs again.
    Deoptimized,
    /// As `Deoptimized`, and this one passed `PerMethodRecompilationCutoff`: C2 gave up, the
    /// unit stays in C1 from now on.
    DeoptimizedPastCutoff,
}

/// Counts a unit reports (`blast run`, the why panel, the blast view).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitStats {
    /// C2 code made not entrant because a dependency was invalidated, or by an uncommon trap.
    pub deopts: u64,
    /// Compilations after the first at each tier (C1 or C2 again after a deoptimization).
    pub recompiles: u64,
    /// Compilations in all.
    pub compiles: u64,
    /// Uncommon traps taken (a guard failed in C2 code whose failure path was left out).
    pub traps: u64,
}

/// A compile requested and not installed yet (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    to: Tier,
    /// The OSR compile (the running loop's code); else the standard entry's.
    osr: bool,
    /// When it is installed, in the caller's virtual time (ns).
    ready_ns: u64,
}

/// One compilation unit (a method, with its OSR entries): its tier and HotSpot's counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The tier of the loop's code (its OSR code, once compiled).
    tier: Tier,
    /// The tier of the standard entry, where a new invocation starts (below `tier` while the
    /// equalizing compile is pending).
    entry: Tier,
    /// Back-edges the current invocation still runs in the entry code it started in (`lag_in`)
    /// before it moves into `tier`'s.
    lag: u64,
    lag_in: Tier,
    pending: Option<Pending>,
    /// Invocations and back-edges counted toward the next tier since the unit last changed tier.
    invocations: u64,
    back_edges: u64,
    /// `MethodData::decompile_count`: C2 deoptimizations so far.
    decompiles: u32,
    /// C2 gave up on the unit (`set_not_compilable` at full optimization).
    c2_disabled: bool,
    /// Uncommon traps per trap site (a call site's index in the unit), and in the whole unit.
    traps_at: Vec<(u32, u32)>,
    method_traps: u32,
    /// Tiers reached at least once (a later compile there is a recompile).
    reached_c1: bool,
    reached_c2: bool,
    /// A call site the unit's C2 code inlines has its target set again every this many loop
    /// iterations (`None`: no such site): that code is made not entrant this many iterations
    /// after it was installed.
    relinked_every: Option<u64>,
    /// Loop iterations since the current C2 code was installed (toward `relinked_every`).
    c2_age: u64,
    /// Its compiles are skipped (a site it inlines is relinked before one is installed): it
    /// stays in its tier.
    compiles_skipped: bool,
    pub stats: UnitStats,
}

impl Default for Unit {
    fn default() -> Self {
        Unit::new()
    }
}

impl Unit {
    /// A unit never run: interpreted, counters at zero.
    pub fn new() -> Unit {
        Unit {
            tier: Tier::Interpreter,
            entry: Tier::Interpreter,
            lag: 0,
            lag_in: Tier::Interpreter,
            pending: None,
            invocations: 0,
            back_edges: 0,
            decompiles: 0,
            c2_disabled: false,
            traps_at: Vec::new(),
            method_traps: 0,
            reached_c1: false,
            reached_c2: false,
            relinked_every: None,
            c2_age: 0,
            compiles_skipped: false,
            stats: UnitStats::default(),
        }
    }

    /// A unit that is already compiled at C2 (code warmed up before the simulation starts).
    pub fn compiled() -> Unit {
        let mut u = Unit::new();
        u.tier = Tier::C2;
        u.entry = Tier::C2;
        u.reached_c1 = true;
        u.reached_c2 = true;
        u
    }

    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// C2 gave up on the unit after `PerMethodRecompilationCutoff` deoptimizations.
    pub fn past_cutoff(&self) -> bool {
        self.c2_disabled
    }

    /// A call site this unit calls is relinked (its `MutableCallSite` target set) every `every`
    /// loop iterations, so C2 code inlining it lives that long (the shortest such period counts).
    pub fn relinked_every(&mut self, every: u64) {
        let every = every.max(1);
        self.relinked_every = Some(self.relinked_every.map_or(every, |e| e.min(every)));
    }

    /// C2 deoptimizations so far (`MethodData::decompile_count`).
    pub fn decompiles(&self) -> u32 {
        self.decompiles
    }

    fn promote(&mut self, to: Tier) {
        self.install_osr(to);
        self.entry = to;
        // A compile still queued for this tier or a lower one would install nothing new.
        if self.pending.is_some_and(|p| p.to <= to) {
            self.pending = None;
        }
    }

    /// Code for `to` runs the loop from now on; the standard entry is the caller's business.
    fn install_osr(&mut self, to: Tier) {
        self.tier = to;
        self.invocations = 0;
        self.back_edges = 0;
        self.stats.compiles += 1;
        let again = match to {
            Tier::C1 => std::mem::replace(&mut self.reached_c1, true),
            Tier::C2 => std::mem::replace(&mut self.reached_c2, true),
            Tier::Interpreter => false,
        };
        if again {
            self.stats.recompiles += 1;
        }
    }

    /// The next tier and how many back-edges until it (`None`: the unit stays where it is).
    fn next(&self, t: &Thresholds) -> Option<(Tier, u64)> {
        if self.compiles_skipped {
            return None;
        }
        match self.tier {
            // A hot method back in the interpreter: C2 at the next report, with its old profile.
            Tier::Interpreter if self.reached_c2 && !self.c2_disabled => Some((Tier::C2, t.back_edge_notify.saturating_sub(self.back_edges))),
            Tier::Interpreter => Some((Tier::C1, t.tier3_back_edges.saturating_sub(self.back_edges))),
            Tier::C1 if !self.c2_disabled => Some((Tier::C2, t.c2_scaled(t.tier4_back_edges).saturating_sub(self.back_edges))),
            _ => None,
        }
    }

    /// One invocation (a call of the method, or one firing of event code): counted, and the
    /// unit compiled at the next tier if the invocation threshold is crossed. Returns the tier
    /// the invocation ran in (the tier before any compile it triggers).
    pub fn invoke(&mut self, t: &Thresholds) -> Tier {
        let ran = self.entry;
        // Below the loop's code, a new invocation reaches it at the entry code's next report.
        self.lag_in = self.entry;
        self.lag = match self.entry {
            e if e == self.tier => 0,
            Tier::Interpreter => t.back_edge_notify,
            _ => t.c1_back_edge_notify,
        };
        self.invocations += 1;
        if self.compiles_skipped {
            return ran;
        }
        match self.tier {
            Tier::Interpreter if self.reached_c2 && !self.c2_disabled && self.invocations >= t.tier0_invoke_notify => self.promote(Tier::C2),
            Tier::Interpreter if self.invocations >= t.tier3_invocations => self.promote(Tier::C1),
            Tier::C1 if !self.c2_disabled && self.invocations >= t.c2_scaled(t.tier4_invocations) => self.promote(Tier::C2),
            _ => {}
        }
        ran
    }

    /// `n` loop iterations (back-edges) inside one invocation, in closed form: OSR compiles
    /// the loop at C1 after `Tier3BackEdgeThreshold` interpreted back-edges and at C2 after
    /// `Tier4BackEdgeThreshold` more, each installed its latency later. The loop starts at
    /// virtual time `now_ns`, and `ns_per_iteration` (by tier) says how many iterations a
    /// latency is. Returns the iterations run in each tier.
    pub fn run_loop(&mut self, n: u64, t: &Thresholds, now_ns: f64, ns_per_iteration: &[f64; 3]) -> TierSpans {
        let mut spans = TierSpans::default();
        let mut left = n;
        let mut clock = now_ns;
        while left > 0 {
            let running = if self.lag > 0 { self.lag_in } else { self.tier };
            let mut k = left;
            if self.lag > 0 {
                k = k.min(self.lag);
            }
            // C2 code inlining a site that is relinked every `r` iterations: made not entrant
            // at the relink, whichever entry code the loop runs meanwhile.
            let relink = self.relinked_every.filter(|_| self.tier == Tier::C2);
            if let Some(r) = relink {
                k = k.min(r - self.c2_age);
            }
            let installs = self.pending.map(|p| iterations_for(p.ready_ns as f64 - clock, ns_per_iteration[running as usize]));
            let crossing = match installs {
                Some(i) => {
                    k = k.min(i);
                    None
                }
                None if self.lag == 0 => self.next(t).filter(|&(_, need)| need <= k),
                None => None,
            };
            if let Some((_, need)) = crossing {
                k = need;
            }
            spans.add(running, k);
            left -= k;
            self.lag -= k.min(self.lag);
            if running == self.tier {
                self.back_edges += k;
            }
            clock += k as f64 * ns_per_iteration[running as usize];
            if let Some(p) = self.pending.filter(|_| installs == Some(k)) {
                self.pending = None;
                self.install(p, t, clock);
            }
            if let Some((to, _)) = crossing {
                self.request(to, t, clock, ns_per_iteration[running as usize]);
            }
            if let Some(r) = relink {
                self.c2_age += k;
                if self.c2_age >= r {
                    self.make_not_entrant(t);
                }
            }
        }
        spans
    }

    /// A threshold was crossed: the compile at `to` is queued (or installed at once: a
    /// recompilation, or no latency), unless a site the code inlines is relinked before it
    /// would be installed (`ns_per_iteration`: the loop's pace meanwhile), which skips it.
    fn request(&mut self, to: Tier, t: &Thresholds, now_ns: f64, ns_per_iteration: f64) {
        let again = match to {
            Tier::C1 => self.reached_c1,
            Tier::C2 => self.reached_c2,
            Tier::Interpreter => true,
        };
        let latency = if again { 0 } else { t.latency_ns(to) };
        if self.relinked_every.is_some_and(|r| latency > 0 && iterations_for(latency as f64, ns_per_iteration) >= r) {
            self.compiles_skipped = true;
            return;
        }
        if latency == 0 {
            self.promote(to);
        } else {
            self.pending = Some(Pending { to, osr: true, ready_ns: (now_ns + latency as f64) as u64 });
            // The compile's MethodData counts from here: the back-edges toward the next tier
            // start now, while the loop runs on below (see the module header).
            self.back_edges = 0;
        }
    }

    /// A pending compile is installed: the OSR code takes over the running loop and queues the
    /// standard entry's compile at the same tier (`CompilationPolicy::call_event`).
    fn install(&mut self, p: Pending, t: &Thresholds, now_ns: f64) {
        if !p.osr {
            self.entry = p.to;
            return;
        }
        // The back-edges counted since the request stay counted toward the next tier.
        let counted = self.back_edges;
        self.install_osr(p.to);
        self.back_edges = counted;
        match t.latency_ns(p.to) {
            0 => self.entry = p.to,
            latency => self.pending = Some(Pending { to: p.to, osr: false, ready_ns: (now_ns + latency as f64) as u64 }),
        }
    }

    /// A dependency of the unit's compiled code was invalidated (`CodeCache` marked it for
    /// deoptimization with recompile counts updated). Only C2 code inlines through call sites,
    /// so only C2 code has such dependencies.
    pub fn invalidate(&mut self, t: &Thresholds) -> Deopt {
        if self.tier != Tier::C2 {
            return Deopt::Nothing;
        }
        self.make_not_entrant(t)
    }

    /// One activation of the unit's compiled code is deoptimized in place
    /// (`Deoptimization::deoptimize(thread, frame)`, as the shared-arena close handshake does in
    /// `prims/scopedMemoryAccess.cpp`): the frame finishes in the interpreter, but the code stays
    /// valid, so the tier, the decompile count and the cutoffs are untouched. Returns whether
    /// there was a compiled frame to deoptimize.
    pub fn deoptimize_frame(&mut self) -> bool {
        if self.tier == Tier::Interpreter {
            return false;
        }
        self.stats.deopts += 1;
        true
    }

    fn make_not_entrant(&mut self, t: &Thresholds) -> Deopt {
        self.stats.deopts += 1;
        self.decompiles += 1;
        // Both entries' C2 code inlined the same links; a compile in flight would install code
        // whose dependencies are already broken (`ciEnv::register_method` refuses it).
        self.tier = Tier::Interpreter;
        self.entry = Tier::Interpreter;
        self.lag = 0;
        self.pending = None;
        self.invocations = 0;
        self.back_edges = 0;
        self.c2_age = 0;
        if self.decompiles > t.recompilation_cutoff && !self.c2_disabled {
            self.c2_disabled = true;
            return Deopt::DeoptimizedPastCutoff;
        }
        Deopt::Deoptimized
    }

    /// A guard at trap site `site` failed in C2 code that left the failure path out (an
    /// uncommon trap). The trap deoptimizes the unit unless C2 already stopped speculating
    /// there: after `PerBytecodeTrapLimit` traps at one site, or `PerMethodTrapLimit` in the
    /// unit, C2 compiles the failure path in and the guard failure costs no deoptimization.
    /// Returns whether the trap deoptimized the unit.
    pub fn trap(&mut self, site: u32, t: &Thresholds) -> Deopt {
        if self.tier != Tier::C2 || !self.speculates_at(site, t) {
            return Deopt::Nothing;
        }
        self.stats.traps += 1;
        self.method_traps += 1;
        match self.traps_at.iter_mut().find(|(s, _)| *s == site) {
            Some((_, n)) => *n += 1,
            None => self.traps_at.push((site, 1)),
        }
        let at = self.traps_at.iter().find(|(s, _)| *s == site).map_or(0, |&(_, n)| n);
        let deopt = self.make_not_entrant(t);
        // `PerBytecodeRecompilationCutoff`: recompiling for one trap site this often disables C2
        // for the method, whatever the method-wide count says.
        if at > t.bytecode_recompilation_cutoff && !self.c2_disabled {
            self.c2_disabled = true;
            return Deopt::DeoptimizedPastCutoff;
        }
        deopt
    }

    /// Whether C2 still compiles the guard at `site` with its failure path left out.
    pub fn speculates_at(&self, site: u32, t: &Thresholds) -> bool {
        let at = self.traps_at.iter().find(|(s, _)| *s == site).map_or(0, |&(_, n)| n);
        at < t.bytecode_trap_limit && self.method_traps < t.method_trap_limit
    }
}

impl Thresholds {
    /// A C2 threshold scaled by the C2 queue (`CompilationPolicy::threshold_scale`:
    /// `queue / (Tier4LoadFeedback x threads) + 1`), in whole counts.
    fn c2_scaled(&self, threshold: u64) -> u64 {
        let per = (self.tier4_load_feedback * self.c2_threads).max(1);
        threshold.saturating_mul(per.saturating_add(self.c2_queue)) / per
    }

    /// The latency of a unit's first compile at `to`.
    fn latency_ns(&self, to: Tier) -> u64 {
        match to {
            Tier::Interpreter => 0,
            Tier::C1 => self.c1_latency_ns,
            Tier::C2 => self.c2_latency_ns,
        }
    }
}

/// Iterations at `ns` each until `left_ns` have gone by (at least one while any are left).
fn iterations_for(left_ns: f64, ns: f64) -> u64 {
    if left_ns <= 0.0 || ns <= 0.0 {
        0
    } else {
        (left_ns / ns).ceil().max(1.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Thresholds = Thresholds::HOTSPOT;

    /// Costs per iteration when no latency is set (they only convert latency into iterations).
    const FREE: [f64; 3] = [0.0; 3];

    #[test]
    fn the_defaults_are_the_flags_of_the_java_on_this_machine() {
        // The JVM prints its own defaults; a machine without `java` has nothing to compare with.
        let out = match std::process::Command::new("java").args(["-XX:+PrintFlagsFinal", "-version"]).output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return eprintln!("no `java` on PATH: defaults not compared"),
            Err(e) => panic!("java -XX:+PrintFlagsFinal: {e}"),
        };
        let flags = String::from_utf8_lossy(&out.stdout);
        // `     intx Tier3InvocationThreshold = 200 {product} {default}`
        let flag = |name: &str| -> u64 {
            let line = flags.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap_or_else(|| panic!("java prints no flag {name}"));
            line.split_whitespace().nth(3).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("flag {name}: {line}"))
        };
        let d = Thresholds::default();
        let expected = [
            ("Tier3InvocationThreshold", d.tier3_invocations, flag("Tier3InvocationThreshold")),
            ("Tier3BackEdgeThreshold", d.tier3_back_edges, flag("Tier3BackEdgeThreshold")),
            ("Tier4InvocationThreshold", d.tier4_invocations, flag("Tier4InvocationThreshold")),
            ("Tier4BackEdgeThreshold", d.tier4_back_edges, flag("Tier4BackEdgeThreshold")),
            ("Tier0BackedgeNotifyFreqLog", d.back_edge_notify, 1 << flag("Tier0BackedgeNotifyFreqLog")),
            ("Tier0InvokeNotifyFreqLog", d.tier0_invoke_notify, 1 << flag("Tier0InvokeNotifyFreqLog")),
            ("Tier3BackedgeNotifyFreqLog", d.c1_back_edge_notify, 1 << flag("Tier3BackedgeNotifyFreqLog")),
            ("Tier4LoadFeedback", d.tier4_load_feedback, flag("Tier4LoadFeedback")),
            ("PerMethodRecompilationCutoff", u64::from(d.recompilation_cutoff), flag("PerMethodRecompilationCutoff")),
            ("PerBytecodeRecompilationCutoff", u64::from(d.bytecode_recompilation_cutoff), flag("PerBytecodeRecompilationCutoff")),
            ("PerMethodTrapLimit", u64::from(d.method_trap_limit), flag("PerMethodTrapLimit")),
            ("PerBytecodeTrapLimit", u64::from(d.bytecode_trap_limit), flag("PerBytecodeTrapLimit")),
        ];
        for (name, ours, java) in expected {
            assert_eq!(ours, java, "{name}: ours differ from the JVM's");
        }
    }

    #[test]
    fn a_loop_climbs_interpreter_c1_c2_by_back_edges() {
        let mut u = Unit::new();
        assert_eq!(u.run_loop(59_999, &T, 0.0, &FREE), TierSpans { interpreter: 59_999, c1: 0, c2: 0 });
        assert_eq!(u.tier(), Tier::Interpreter);
        assert_eq!(u.run_loop(1, &T, 0.0, &FREE), TierSpans { interpreter: 1, c1: 0, c2: 0 });
        assert_eq!(u.tier(), Tier::C1, "the 60000th back-edge triggers the C1 OSR compile");
        assert_eq!(u.run_loop(100_000, &T, 0.0, &FREE), TierSpans { interpreter: 0, c1: 40_000, c2: 60_000 });
        assert_eq!(u.tier(), Tier::C2);
        assert_eq!(u.stats, UnitStats { deopts: 0, recompiles: 0, compiles: 2, traps: 0 });
    }

    #[test]
    fn a_c2_queue_scales_the_c2_thresholds() {
        // threshold x (queue / (Tier4LoadFeedback x threads) + 1): 3 queued compiles double it,
        // and the C1 threshold is not the C2 queue's business.
        let t = Thresholds { c2_queue: 3, ..T };
        let mut u = Unit::new();
        assert_eq!(u.run_loop(200_000, &t, 0.0, &FREE), TierSpans { interpreter: 60_000, c1: 80_000, c2: 60_000 });
        let two_threads = Thresholds { c2_queue: 3, c2_threads: 2, ..T };
        assert_eq!(Unit::new().run_loop(200_000, &two_threads, 0.0, &FREE).c1, 60_000, "3 / 6 + 1 = 1.5x");
        let mut v = Unit::new();
        let tiers: Vec<Tier> = (0..10_201).map(|_| v.invoke(&t)).collect();
        assert_eq!(tiers.iter().filter(|&&x| x == Tier::C1).count(), 10_000, "Tier4InvocationThreshold doubled too");
        assert_eq!(tiers.last(), Some(&Tier::C2));
    }

    #[test]
    fn event_code_climbs_by_invocations() {
        let mut u = Unit::new();
        let tiers: Vec<Tier> = (0..5_201).map(|_| u.invoke(&T)).collect();
        assert_eq!(tiers.iter().filter(|&&t| t == Tier::Interpreter).count(), 200);
        assert_eq!(tiers.iter().filter(|&&t| t == Tier::C1).count(), 5_000);
        assert_eq!(tiers.last(), Some(&Tier::C2));
    }

    #[test]
    fn interpreted_c1_c2_deopt_recompile_cutoff() {
        let mut u = Unit::new();
        assert_eq!(u.invalidate(&T), Deopt::Nothing, "interpreted code depends on nothing");
        u.run_loop(100_000, &T, 0.0, &FREE);
        assert_eq!(u.tier(), Tier::C2);
        assert_eq!(u.invalidate(&T), Deopt::Deoptimized);
        assert_eq!((u.tier(), u.decompiles()), (Tier::Interpreter, 1));
        let spans = u.run_loop(100_000, &T, 0.0, &FREE);
        assert_eq!(spans, TierSpans { interpreter: 1_024, c1: 0, c2: 98_976 }, "hot already: C2 again at the next back-edge report");
        assert_eq!(u.tier(), Tier::C2);
        assert_eq!(u.stats.recompiles, 1);
        // 399 more storms: still recompiled each time.
        for _ in 0..399 {
            assert_eq!(u.invalidate(&T), Deopt::Deoptimized);
            u.run_loop(100_000, &T, 0.0, &FREE);
        }
        assert_eq!((u.tier(), u.decompiles()), (Tier::C2, 400));
        assert_eq!(u.invalidate(&T), Deopt::DeoptimizedPastCutoff, "the 401st decompile passes PerMethodRecompilationCutoff");
        assert!(u.past_cutoff());
        let spans = u.run_loop(1_000_000, &T, 0.0, &FREE);
        assert_eq!(spans, TierSpans { interpreter: 60_000, c1: 940_000, c2: 0 }, "C2 gave up: the unit climbs to C1 and stays there");
        assert_eq!(u.invalidate(&T), Deopt::Nothing, "C1 code holds no call-site dependency: no more deopt storms");
        assert_eq!(u.stats.deopts, 401);
    }

    /// Runs `n` iterations from `*clock` and moves the clock on by what they cost.
    fn timed(u: &mut Unit, n: u64, t: &Thresholds, clock: &mut f64, cost: &[f64; 3]) -> TierSpans {
        let s = u.run_loop(n, t, *clock, cost);
        *clock += Tier::ALL.iter().map(|&x| s.get(x) as f64 * cost[x as usize]).sum::<f64>();
        s
    }

    #[test]
    fn compiles_install_their_latency_later_and_invocations_reach_the_osr_code_at_a_report() {
        let t = Thresholds { c1_latency_ns: 10_000, c2_latency_ns: 50_000, ..T };
        let cost = [100.0, 10.0, 1.0]; // ns an iteration, interpreted / C1 / C2
        let mut clock = 0.0;
        let mut u = Unit::new();
        u.invoke(&t);
        // The C1 threshold at 60 000 back-edges; the interpreter runs on for 10 us (100 iterations).
        assert_eq!(timed(&mut u, 60_099, &t, &mut clock, &cost), TierSpans { interpreter: 60_099, c1: 0, c2: 0 });
        assert_eq!(u.tier(), Tier::Interpreter);
        assert_eq!(timed(&mut u, 1, &t, &mut clock, &cost).interpreter, 1);
        assert_eq!(u.tier(), Tier::C1, "the C1 OSR code is in");
        // The standard entry's C1 compile (1 000 C1 iterations); the C2 threshold 40 000
        // back-edges after the C1 request (the MethodData counts from there), 39 900 after the
        // install; then 50 us (5 000 C1 iterations) of C2 compile.
        assert_eq!(timed(&mut u, 44_899, &t, &mut clock, &cost), TierSpans { interpreter: 0, c1: 44_899, c2: 0 });
        assert_eq!(u.tier(), Tier::C1);
        assert_eq!(timed(&mut u, 1, &t, &mut clock, &cost).c1, 1);
        assert_eq!(u.tier(), Tier::C2, "C2 OSR code in at back-edge 105 000, 45 000 after the C1 request");
        // The standard entry's C2 compile: 50 us, 10 of them in this invocation's C2 code.
        assert_eq!(timed(&mut u, 10_000, &t, &mut clock, &cost).c2, 10_000);
        u.invoke(&t);
        // A new invocation starts in the C1 entry and reaches the C2 OSR code at C1's report,
        // 8 192 back-edges in (the entry's C2 code is installed 4 000 in, too late for this one).
        assert_eq!(timed(&mut u, 20_000, &t, &mut clock, &cost), TierSpans { interpreter: 0, c1: 8_192, c2: 11_808 });
        u.invoke(&t);
        assert_eq!(timed(&mut u, 1_000, &t, &mut clock, &cost).c2, 1_000, "the entry is C2 now");
        assert_eq!(u.stats, UnitStats { deopts: 0, recompiles: 0, compiles: 2, traps: 0 });
    }

    #[test]
    fn a_compile_goes_on_while_the_thread_is_outside_the_loop() {
        let t = Thresholds { c1_latency_ns: 10_000, ..T };
        let cost = [100.0, 10.0, 1.0];
        let mut u = Unit::new();
        u.run_loop(60_000, &t, 0.0, &cost);
        assert_eq!(u.tier(), Tier::Interpreter, "requested at 6 ms, ready at 6.01 ms");
        // 20 us elsewhere (events between two loop segments): the C1 code is in at the next back-edge.
        assert_eq!(u.run_loop(10, &t, 6_020_000.0, &cost), TierSpans { interpreter: 0, c1: 10, c2: 0 });
    }

    #[test]
    fn an_invocation_threshold_overtakes_a_queued_compile() {
        let t = Thresholds { c1_latency_ns: 1_000_000, ..T };
        let cost = [100.0, 10.0, 1.0];
        let mut u = Unit::new();
        u.run_loop(60_000, &t, 0.0, &cost);
        assert_eq!(u.tier(), Tier::Interpreter, "the C1 OSR compile is queued");
        for _ in 0..200 {
            u.invoke(&t);
        }
        assert_eq!(u.tier(), Tier::C1, "Tier3InvocationThreshold compiled it first");
        u.run_loop(20_000, &t, 1e9, &cost);
        assert_eq!(u.stats, UnitStats { deopts: 0, recompiles: 0, compiles: 1, traps: 0 }, "the queued compile installs nothing more");
    }

    #[test]
    fn a_deopt_drops_a_pending_compile_and_the_recompile_has_no_latency() {
        let t = Thresholds { c1_latency_ns: 10_000, c2_latency_ns: 50_000, ..T };
        let cost = [100.0, 10.0, 1.0];
        let mut clock = 0.0;
        let mut u = Unit::new();
        timed(&mut u, 105_100, &t, &mut clock, &cost);
        assert_eq!(u.tier(), Tier::C2, "its standard entry's C2 compile still pending");
        assert_eq!(u.invalidate(&t), Deopt::Deoptimized);
        assert_eq!(timed(&mut u, 2_000, &t, &mut clock, &cost), TierSpans { interpreter: 1_024, c1: 0, c2: 976 });
        u.invoke(&t);
        assert_eq!(timed(&mut u, 1_000, &t, &mut clock, &cost).c2, 1_000, "recompiled at both entries");
    }

    #[test]
    fn a_frame_deopt_leaves_the_code_and_its_counts_alone() {
        let mut u = Unit::compiled();
        for _ in 0..1_000 {
            assert!(u.deoptimize_frame());
        }
        assert_eq!((u.tier(), u.decompiles(), u.past_cutoff(), u.stats.deopts), (Tier::C2, 0, false, 1_000));
        assert!(!Unit::new().deoptimize_frame(), "an interpreted frame has nothing to deoptimize");
    }

    #[test]
    fn traps_stop_deoptimizing_past_the_bytecode_and_method_limits() {
        let mut u = Unit::compiled();
        for _ in 0..4 {
            assert_eq!(u.trap(7, &T), Deopt::Deoptimized);
            u.run_loop(100_000, &T, 0.0, &FREE);
        }
        assert!(!u.speculates_at(7, &T));
        assert_eq!(u.trap(7, &T), Deopt::Nothing, "PerBytecodeTrapLimit: the failure path is compiled in");
        // Other sites trap until the unit's limit.
        let mut site = 100;
        while u.trap(site, &T) == Deopt::Deoptimized {
            u.run_loop(100_000, &T, 0.0, &FREE);
            site += 1;
        }
        assert_eq!(u.stats.traps, 100, "PerMethodTrapLimit");
        assert_eq!(u.stats.deopts, 100);
    }

    #[test]
    fn a_relinked_site_throws_installed_c2_code_out_until_the_cutoff() {
        // Compiles installed at once: C2 code inlining a site relinked every 3 iterations lives
        // 3 iterations, the loop is back in C2 after 1024 interpreted ones, and so on until the
        // 401st decompile leaves it in C1.
        let mut u = Unit::new();
        u.relinked_every(5);
        u.relinked_every(3);
        assert_eq!(u.run_loop(100_003, &T, 0.0, &FREE), TierSpans { interpreter: 60_000, c1: 40_000, c2: 3 });
        assert_eq!((u.tier(), u.stats.deopts), (Tier::Interpreter, 1), "the shorter period counts");
        let spans = u.run_loop(1_000_000, &T, 0.0, &FREE);
        assert_eq!((u.stats.deopts, u.past_cutoff()), (401, true));
        assert_eq!(spans.c2, 400 * 3, "each recompile ran 3 iterations");
        assert_eq!(u.tier(), Tier::C1, "C1 code holds no dependency here: it stays");
    }

    #[test]
    fn a_compile_slower_than_the_relinks_is_skipped_and_the_unit_stays_interpreted() {
        // A 10 ms compile at 5 us an iteration spans 2000 iterations: a site relinked every
        // iteration changes its target before it is installed (`ciEnv::register_method`).
        let t = Thresholds { c1_latency_ns: 10_000_000, c2_latency_ns: 40_000_000, ..T };
        let cost = [5_000.0, 5_000.0, 10.0];
        let mut u = Unit::new();
        u.relinked_every(1);
        assert_eq!(u.run_loop(1_000_000, &t, 0.0, &cost), TierSpans { interpreter: 1_000_000, c1: 0, c2: 0 });
        for _ in 0..10_000 {
            assert_eq!(u.invoke(&t), Tier::Interpreter, "no invocation count compiles it either");
        }
        assert_eq!((u.stats.compiles, u.stats.deopts), (0, 0));
        // Relinked every 4000 iterations, the same compiles fit between two relinks.
        let mut v = Unit::new();
        v.relinked_every(4_000);
        v.run_loop(200_000, &t, 0.0, &cost);
        assert!(v.stats.compiles > 0, "{v:?}");
    }
}
