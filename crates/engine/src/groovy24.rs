//! The Groovy 2.4 sweeps measured on this project's machine (`data/groovy24_sweeps.csv`,
//! `probes/groovy/sweeps.groovy`): for each measured row, the scenario that mirrors its loop,
//! simulated with Groovy 2.4's call sites ([`Params::groovy_2_4`]) and the engine's one set of
//! costs under the invalidation the measured runtime performs ([`MEASURED_POLICY`]); and the
//! shape of each sweep (which way it goes between points, where its steepest step is) that the
//! simulation must reproduce.
//!
//! The mirrored loops: every `acc += o.m(i)` in the probe is two dynamic call sites, the call
//! and `long + Object` (`Long.plus`); `i < n`, `i++` and `i % p` are primitive `int` code that
//! Groovy compiles without call sites. The `poly` loop's `rs[i % k].m(i)` adds a third (`getAt`
//! on the array). Its site holds one target in Groovy 2.4 ([`crate::params::SiteCache::Relink`]):
//! from two receivers on the receiver changes at every call, so every call is a guard miss, a
//! selection (`selection_2_4_ns`) and a relink, and the relinks make every compile of the loop
//! fail (`jit`: "call site target change"): the loop stays interpreted and runs its calls' chains
//! out of line, the same whatever the number of receivers. One receiver is linked once and
//! inlined in C2. Hence the jump from 1 to 2 receivers and the flat tail.
//!
//! The `sites` and `length` rows are warm-up: each is a fresh loop method climbing HotSpot's
//! tiers. `length` times op `param` + 1 of a fresh loop (in a JVM whose runtime is warm), which
//! the engine reproduces with the compile latency of [`crate::jit`] (`c1_compile_2_4_ns`,
//! `c2_compile_2_4_ns`: the loop runs on interpreted, then in C1 code, while its compiles are in
//! the queue), the compiles already waiting for C2 that double its C2 threshold
//! (`c2_queue_2_4`: the runtime's own, in a JVM that has just compiled a new world), and the
//! cost of a call whose chain lower-tier code runs out of line (`chain_call_2_4_ns`); `sites` is
//! measured after 60 warm-up ops, past every climb.
//!
//! Why not `global`: Groovy 2.4's global SwitchPoint is replaced on every metaclass write only
//! when its Java 7 VM plugin is loaded. On JDK 14 and later (the rows ran on 17) it cannot be:
//! `org.codehaus.groovy.vmplugin.v7.Java7`'s static initializer looks up the constructor
//! `MethodHandles.Lookup(Class, int)`, which JDK 14 removed, and throws `GroovyBugError`, so
//! `VMPluginFactory`'s static initializer falls back to `v6.Java6`, whose `invalidateCallSites()`
//! is `v5.Java5`'s empty method. A write to an `ExpandoMetaClass`
//! (`ExpandoMetaClass.registerInstanceMethod` -> `performRegistryCallbacks` ->
//! `MetaClassImpl.incVersion` -> `ClassInfo.incVersion` -> `invalidateCallSites()`) therefore
//! invalidates nothing; only a registry change (the first write to a class, which installs its
//! `ExpandoMetaClass`: `MetaClassRegistryImpl.setMetaClass` -> `fireConstantMetaClassUpdate` ->
//! the listener in `IndyInterface`'s static initializer -> `invalidateSwitchPoints`) still
//! replaces the SwitchPoint, once per class. (GROOVY_2_4_X sources; checked on this machine:
//! `VMPluginFactory.getPlugin()` is `Java6`, the SwitchPoint is replaced by a class's first
//! write and not by the next ones, and `-XX:+PrintCompilation` shows the loop method's C2 code
//! never made not entrant under a write every 1000 iterations; docs/CALIBRATION.md.)

use serde::Serialize;

use crate::params::Params;
use crate::policy::Policy;
use crate::reference::SweepRow;
use crate::scenario::Scenario;
use crate::sim::run;

/// Measured ops of a mirrored scenario (the warm-up is the probe's own).
pub const MIRROR_OPS: u32 = 5;

/// The policy whose retirements are those of the measured runtime (Groovy 2.4.21 on JDK 17,
/// see the module header): after a class's first write, a write retires nothing, and `ideal`
/// retires nothing for these probes either, since adding `dyn0` changes the resolution of no
/// call they make. The one global invalidation per class at its first write (the first
/// iteration of the first op, while the loop is still interpreted, or the burst's setup) costs
/// one relink per site per run, which is not simulated.
pub const MEASURED_POLICY: Policy = Policy::Ideal;

/// The sweeps the engine mirrors, in the order they are reported.
pub const SIMULATED: [&str; 6] = ["density", "sites", "burst", "body", "length", "poly"];

/// The probe loop's own work per iteration in C2 code (`acc += ..`: unbox, add, box the `Long`),
/// declared as the body of `Long.plus`: read off the rows without writes (`burst` 0, `density`
/// 100 000: 14 ns per iteration), as a user would measure their own loop. A property of the
/// probe's code, not an engine parameter.
pub const LOOP_WORK_NS: u64 = 13;

/// `Hot.describe`'s body in C2 code (string concatenation and a hash): read off the `body`
/// sweep's no-write row (229 ns per iteration, less the loop's own work), as a user would
/// measure their own method; the write row then tests the blast radius around it.
pub const DESCRIBE_BODY_NS: u64 = 215;

/// The scenario mirroring one measured row (`None` for a sweep without a mirror).
pub fn scenario(row: &SweepRow) -> Option<Scenario> {
    let n = row.iterations;
    let p = row.param;
    // The probe's warm-up, then fewer measured ops than it timed (the simulation is
    // deterministic: once warm, every op is the same), so the biggest burst stays inside the
    // engine's work bound. A `length` row is one op: the one after `param` warm-up ops.
    let ops = if row.sweep == "length" { 1 } else { row.reps.min(MIRROR_OPS) };
    let common = format!("measure warmup {} ops {ops}\nclass Long {{ plus cost {LOOP_WORK_NS}ns }}\nclass Unrelated\nsite acc = Long.plus\n", row.warmup);
    let text = match row.sweep.as_str() {
        // Run length: a fresh density loop at a write every 1000, op `param` + 1.
        "length" => {
            format!("{common}class Hot {{ compute }}\nsite hot = Hot.compute\nop {{ loop {n} {{ every 1000 {{ write Hot.dyn0 }} call hot call acc }} }}")
        }
        "density" => {
            format!("{common}class Hot {{ compute }}\nsite hot = Hot.compute\nop {{ loop {n} {{ every {p} {{ write Hot.dyn0 }} call hot call acc }} }}")
        }
        "sites" => {
            let k = p.max(1);
            let classes: String = (0..k).map(|j| format!("class C{j} {{ m }}\nsite s{j} = C{j}.m\nsite acc{j} = Long.plus\n")).collect();
            let calls: String = (0..k).map(|j| format!(" call s{j} call acc{j}")).collect();
            let period = (1000 / k).max(1);
            format!("{common}{classes}op {{ loop {} {{ every {period} {{ write Unrelated.dyn0 }}{calls} }} }}", n / k)
        }
        "burst" => {
            // The probe writes dyn0..dyn{p-1} before every op: from the second op on, the
            // metaclass holds all p methods while each is written again.
            let burst = if p > 0 { format!("repeat {p} {{ write Unrelated.dyn0 }} ") } else { String::new() };
            let first: String = (0..p).map(|k| format!(" write Unrelated.dyn{k}")).collect();
            format!("{common}class Hot {{ compute }}\nsite hot = Hot.compute\nsetup {{{first} }}\nop {{ {burst}loop {n} {{ call hot call acc }} }}")
        }
        // One site whose receiver cycles over `param` classes: `rs[i % k]` is a third dynamic
        // call (`getAt` on the array), `.m(i)` the polymorphic one.
        "poly" => {
            let k = p.max(1);
            let classes: String = (0..k).map(|j| format!("class R{j} {{ m }}\n")).collect();
            let receivers: Vec<String> = (0..k).map(|j| format!("R{j}.m")).collect();
            format!(
                "{common}class Objects {{ getAt }}\nsite get = Objects.getAt\n{classes}site s = {}\nop {{ loop {n} {{ every 1000 {{ write Unrelated.dyn0 }} call get call s call acc }} }}",
                receivers.join(", ")
            )
        }
        "body" => {
            let writes = if p > 0 { format!("every {p} {{ write Unrelated.dyn0 }} ") } else { String::new() };
            format!("{common}class Hot {{ describe cost {DESCRIBE_BODY_NS}ns }}\nsite hot = Hot.describe\nop {{ loop {n} {{ {writes}call hot call acc }} }}")
        }
        _ => return None,
    };
    Some(crate::dsl::parse(&text).unwrap_or_else(|e| panic!("the mirror of {} {} does not parse: {e}", row.sweep, row.param)))
}

/// One measured point beside its simulation.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    pub sweep: String,
    pub param: u64,
    /// Median ns per op, measured.
    pub measured_ns: f64,
    /// Interquartile range of the measured ops, ns.
    pub measured_iqr_ns: f64,
    pub measured_min_ns: f64,
    pub measured_max_ns: f64,
    /// Mean ns per measured op, simulated.
    pub simulated_ns: f64,
    pub log10_error: f64,
    /// The simulated run's deoptimizations of loop code.
    pub deopts: u64,
}

/// Every mirrored row of the reference table, simulated with `params` (Groovy 2.4's call sites)
/// under [`MEASURED_POLICY`].
pub fn points(rows: &[SweepRow], params: &Params) -> Vec<SweepPoint> {
    points_under(rows, params, MEASURED_POLICY)
}

/// The same under another policy (`global` is Groovy 2.4 on JDK 8 to 13, where every write
/// replaces the SwitchPoint).
pub fn points_under(rows: &[SweepRow], params: &Params, policy: Policy) -> Vec<SweepPoint> {
    let p24 = params.groovy_2_4();
    rows.iter()
        .filter_map(|row| {
            let s = scenario(row)?;
            // A mirror the engine refuses shows as NaN (and fails its check), never vanishes.
            let r = run(&s, policy, &p24).ok();
            let simulated_ns = r.as_ref().map_or(f64::NAN, |r| r.ms_per_op * 1e6);
            Some(SweepPoint {
                sweep: row.sweep.clone(),
                param: row.param,
                measured_ns: row.median_ns,
                measured_iqr_ns: row.iqr_rel * row.median_ns,
                measured_min_ns: row.min_ns,
                measured_max_ns: row.max_ns,
                simulated_ns,
                log10_error: (simulated_ns / row.median_ns).log10(),
                deopts: r.map_or(0, |r| r.units.iter().map(|u| u.stats.deopts).sum()),
            })
        })
        .collect()
}

/// Which way a sweep goes between two neighbouring points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Step {
    Up,
    Flat,
    Down,
}

impl Step {
    /// The step as reports print it.
    pub fn word(self) -> &'static str {
        match self {
            Step::Up => "up",
            Step::Flat => "flat",
            Step::Down => "down",
        }
    }
}

/// A step counts as a rise or fall when the value moves by more than this factor (the
/// measured spread on a shared machine is a few tens of percent).
pub const FLAT: f64 = 1.3;

fn step(a: f64, b: f64) -> Step {
    if b > a * FLAT {
        Step::Up
    } else if a > b * FLAT {
        Step::Down
    } else {
        Step::Flat
    }
}

/// A sweep's shape: the direction of each step, and the steepest step that is not flat (its
/// knee; `None` when every step is flat).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    pub steps: Vec<Step>,
    pub steepest: Option<usize>,
}

/// The shape of simulated values (exact: no spread).
pub fn shape(values: &[f64]) -> Shape {
    measured_shape(values, &vec![0.0; values.len()])
}

/// The shape of measured medians, each with its interquartile range: a step whose points'
/// middle halves (median +- half the IQR) overlap is flat, whatever its ratio (noise on a
/// shared machine).
pub fn measured_shape(values: &[f64], iqr: &[f64]) -> Shape {
    let steps: Vec<Step> = (1..values.len())
        .map(|i| {
            let (a, b) = (values[i - 1], values[i]);
            if (b - a).abs() <= (iqr[i - 1] + iqr[i]) / 2.0 {
                Step::Flat
            } else {
                step(a, b)
            }
        })
        .collect();
    let steepest = (1..values.len())
        .filter(|&i| steps[i - 1] != Step::Flat)
        .max_by(|&i, &j| (values[i] / values[i - 1]).log10().abs().total_cmp(&(values[j] / values[j - 1]).log10().abs()))
        .map(|i| i - 1);
    Shape { steps, steepest }
}

/// Whether a simulated shape reproduces a measured one: no step goes the other way (a flat
/// step may be matched by a small move, never by a reversal), and the steepest step is the same.
pub fn same_shape(measured: &Shape, simulated: &Shape) -> bool {
    let no_reversal = measured.steps.iter().zip(&simulated.steps).all(|(m, s)| !matches!((m, s), (Step::Up, Step::Down) | (Step::Down, Step::Up)));
    let rises_kept = measured.steps.iter().zip(&simulated.steps).all(|(m, s)| *m == Step::Flat || m == s);
    no_reversal && rises_kept && measured.steepest == simulated.steepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_read_direction_and_the_steepest_step() {
        let s = shape(&[1.0, 10.0, 11.0, 5.0]);
        assert_eq!(s.steps, vec![Step::Up, Step::Flat, Step::Down]);
        assert_eq!(s.steepest, Some(0));
        let noisy = measured_shape(&[1.0, 0.7, 10.0], &[0.4, 0.4, 1.0]);
        assert_eq!(noisy.steps, vec![Step::Flat, Step::Up], "a 1.4x fall inside the spread is flat");
        assert_eq!(shape(&[1.0, 1.1]).steepest, None);
        assert!(same_shape(&s, &shape(&[2.0, 30.0, 31.0, 9.0])));
        assert!(!same_shape(&s, &shape(&[2.0, 3.0, 31.0, 9.0])), "the knee moved");
        assert!(!same_shape(&s, &shape(&[2.0, 30.0, 31.0, 40.0])), "the fall became a rise");
    }
    fn rows(sweep: &str) -> Vec<SweepRow> {
        crate::reference::Reference::get().groovy24_sweeps.iter().filter(|r| r.sweep == sweep).cloned().collect()
    }

    fn simulated(points: &[SweepPoint]) -> Vec<f64> {
        points.iter().map(|p| p.simulated_ns).collect()
    }

    #[test]
    fn under_the_measured_runtime_no_write_deoptimizes_the_loop_and_sites_stay_flat() {
        // (tests/calibration.rs locks the density and burst knees.)
        let p = Params::default();
        for sweep in ["density", "sites", "burst", "body", "length"] {
            assert!(points(&rows(sweep), &p).iter().all(|q| q.deopts == 0), "{sweep}");
        }
        let sites = shape(&simulated(&points(&rows("sites"), &p)));
        assert!(sites.steepest.is_none() && sites.steps.iter().all(|&st| st == Step::Flat), "{sites:?}");
    }

    #[test]
    fn run_length_is_the_loops_climb_with_compile_latency() {
        // A fresh loop (the `length` rows, op `param` + 1): op 1 runs interpreted to the C1
        // threshold and on while C1 compiles, then C1 code; op 2 runs C1 code to the C2 threshold,
        // doubled by the compiles in C2's queue and counted from the C1 request (back-edge
        // 60 000 + 2 x 40 000: 40 000 into op 2), and on through the C2 compile; op 4 has the C2
        // OSR code but its invocation enters the C1 standard entry and moves into it at C1's
        // back-edge report (2^13); op 11 and op 31 run C2 code throughout.
        let p = Params::default();
        let pts = points(&rows("length"), &p);
        assert_eq!(pts.iter().map(|q| q.param).collect::<Vec<_>>(), [0, 1, 3, 10, 30]);
        let below_c2 = 2.0 * p.chain_call_2_4_ns; // what an iteration's two calls add below C2
        let c2_at = p.tier3_back_edge_threshold + p.tier4_back_edge_threshold * (3 + p.c2_queue_2_4) / 3;
        let op2_in_c1 = (c2_at - 100_000) as f64 * below_c2 + p.c2_compile_2_4_ns;
        assert!(pts[1].simulated_ns > op2_in_c1, "{:?}: C1 code until back-edge {c2_at}, then through the C2 compile", pts[1]);
        let lag = pts[2].simulated_ns - pts[4].simulated_ns;
        assert!((lag / (8192.0 * below_c2) - 1.0).abs() < 0.01, "op 4 pays 8192 C1 iterations: {lag}");
        assert!((pts[3].simulated_ns / pts[4].simulated_ns - 1.0).abs() < 1e-9, "ops 11 and 31 in C2 throughout: {pts:?}");
        // The queue places the knee: with C2's queue empty the loop asks for C2 as op 2 starts,
        // op 2 shrinks by about those 40 000 C1 iterations and the steepest fall moves to op 4 -> op 11.
        let empty = points(&rows("length"), &Params { c2_queue_2_4: 0, ..p.clone() });
        assert!(empty[1].simulated_ns < pts[1].simulated_ns - 0.9 * (c2_at - 100_000) as f64 * below_c2, "{empty:?}");
        assert_eq!((shape(&simulated(&pts)).steepest, shape(&simulated(&empty)).steepest), (Some(1), Some(2)));
        // Without latency or queue the loop is in C2 from op 2 on (its event code still warming).
        let at_once = Params { c1_compile_2_4_ns: 0.0, c2_compile_2_4_ns: 0.0, c2_queue_2_4: 0, ..p };
        let flat = points(&rows("length"), &at_once);
        assert!(flat[1].simulated_ns < 1.2 * flat[4].simulated_ns && flat[2].simulated_ns == flat[4].simulated_ns, "{flat:?}");
    }

    #[test]
    fn run_length_is_within_2x_of_the_measured_rows_with_their_knee_at_op_2_to_op_4() {
        // The measured medians (fresh worlds on an idle machine) fall fastest from op 2 to op 4:
        // op 2 is in C1 code until the late C2 code, op 4 only for its entry's 8192 back-edges.
        let pts = points(&rows("length"), &Params::default());
        assert!(pts.iter().all(|q| q.log10_error.abs() <= 2f64.log10()), "{pts:?}");
        let measured = measured_shape(&pts.iter().map(|q| q.measured_ns).collect::<Vec<_>>(), &pts.iter().map(|q| q.measured_iqr_ns).collect::<Vec<_>>());
        let simulated = shape(&simulated(&pts));
        assert_eq!((measured.steepest, simulated.steepest), (Some(1), Some(1)), "op 2 -> op 4: {measured:?} {simulated:?}");
        assert!(same_shape(&measured, &simulated));
    }

    #[test]
    fn under_global_every_write_deoptimizes_the_loop_until_the_cutoff_leaves_it_in_c1() {
        // Groovy 2.4 on JDK 8 to 13: every write deoptimizes the loop's C2 code until the 401st
        // decompile passes PerMethodRecompilationCutoff and it stays in C1, calling each site's
        // chain out of line. A deopt every ceil(1024 k / 1000) writes (C2 again after 1024
        // interpreted back-edges, a write every 1000 / k iterations, 100 writes an op): 1 to 8
        // sites pass the cutoff inside the 60 warm-up ops, 16 do not.
        let p = Params::default();
        let cutoff = u64::from(p.per_method_recompilation_cutoff) + 1;
        let sites = points_under(&rows("sites"), &p, Policy::Global);
        assert_eq!(sites.iter().map(|q| q.deopts == cutoff).collect::<Vec<_>>(), [true, true, true, true, false], "{sites:?}");
        let c1 = 100_000.0 * 2.0 * p.chain_call_2_4_ns;
        for q in &sites[..4] {
            assert!(q.simulated_ns > c1, "{q:?}: in C1, every call out of line");
        }
    }

    #[test]
    fn a_polymorphic_site_relinks_at_every_receiver_change_and_its_loop_keeps_no_compiled_code() {
        // Groovy 2.4's site holds one target. One receiver: linked once, the loop climbs to C2
        // and inlines it. From two on (`rs[i % k]`: the receiver changes at every call) every
        // call is a guard miss, a selection and a relink, which skips every compile of the loop:
        // it stays interpreted, its three calls out of line, whatever the number of receivers.
        let p = Params::default();
        let rows = rows("poly");
        let pts = points(&rows, &p);
        assert_eq!(pts.iter().map(|q| q.param).collect::<Vec<_>>(), [1, 2, 4, 8, 12]);
        let v = simulated(&pts);
        assert!(v[1] > 30.0 * v[0], "the jump at two receivers: {v:?}");
        assert!(v[2..].iter().all(|&x| (x / v[1] - 1.0).abs() < 1e-9), "flat from two receivers on: {v:?}");
        let per_iteration = p.selection_2_4_ns + 3.0 * (p.chain_call_2_4_ns + p.fast_call_ns) + LOOP_WORK_NS as f64 * p.interpreter_slowdown;
        assert!((v[1] / (100_000.0 * per_iteration) - 1.0).abs() < 0.01, "{} vs {per_iteration} an iteration", v[1] / 1e5);
        assert!(pts.iter().all(|q| q.log10_error.abs() <= 2f64.log10()), "{pts:?}");
        let measured = measured_shape(&pts.iter().map(|q| q.measured_ns).collect::<Vec<_>>(), &pts.iter().map(|q| q.measured_iqr_ns).collect::<Vec<_>>());
        assert_eq!((measured.steepest, shape(&v).steepest), (Some(0), Some(0)));
        assert!(same_shape(&measured, &shape(&v)));

        // The mechanism, at two receivers: a selection per call, no compiled loop code.
        let two = scenario(&rows[1]).unwrap();
        let r = run(&two, MEASURED_POLICY, &p.groovy_2_4()).unwrap();
        let site = r.sites.iter().find(|s| s.name == "s").unwrap();
        let calls = 100_000 * u64::from(two.measure.warmup_ops + two.measure.ops);
        assert_eq!((site.stats.selections, site.stats.pic_calls), (calls, calls));
        let unit = &r.units[0];
        assert_eq!((unit.tier, unit.stats.compiles, unit.stats.deopts), (crate::jit::Tier::Interpreter, 0, 0), "{unit:?}");
        // Groovy 5's PIC (the default profile) holds both receivers: two selections, C2.
        let r5 = run(&two, MEASURED_POLICY, &p).unwrap();
        let site5 = r5.sites.iter().find(|s| s.name == "s").unwrap();
        assert_eq!((site5.stats.selections, r5.units[0].tier), (2, crate::jit::Tier::C2));
    }
}
