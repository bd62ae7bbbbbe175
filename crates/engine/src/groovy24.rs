//! The Groovy 2.4 sweeps measured on this project's machine (`data/groovy24_sweeps.csv`,
//! `probes/groovy/sweeps.groovy`): for each measured row, the scenario that mirrors its loop,
//! simulated under `global` (Groovy 2.4's one SwitchPoint) with Groovy 2.4's call sites
//! ([`Params::groovy_2_4`]) and the engine's one set of costs; and the shape of each sweep
//! (which way it goes between points, where its steepest step is) that the simulation must
//! reproduce.
//!
//! The mirrored loops: every `acc += o.m(i)` in the probe is two dynamic call sites, the call
//! and `long + Object` (`Long.plus`); `i < n`, `i++` and `i % p` are primitive `int` code that
//! Groovy compiles without call sites. `poly` has no mirror yet: Groovy 2.4 promotes a site on
//! its first hit and relinks it on every receiver change, and the engine's polymorphic sites
//! (`sim::poly`) stay on their PIC and refuse parameters that would promote them, so its rows
//! are reference data only.

use serde::Serialize;

use crate::model::Scenario;
use crate::params::Params;
use crate::policy::Policy;
use crate::reference::SweepRow;
use crate::sim::run;

/// The sweeps whose checks `blast calibrate` requires; the others are reported as tracked gaps
/// (see docs/CALIBRATION.md for why each is not reproduced yet).
pub const ENFORCED: [&str; 3] = ["density", "burst", "body"];

/// Warm-up and measured ops of a mirrored scenario.
pub const MIRROR_WARMUP_OPS: u32 = 15;
pub const MIRROR_OPS: u32 = 5;

/// The sweeps the engine mirrors, in the order they are reported.
pub const SIMULATED: [&str; 5] = ["density", "sites", "burst", "body", "length"];

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
    // Fewer ops than the probe ran (the simulation is deterministic: once warm, every op is the
    // same), so the biggest burst stays inside the engine's work bound.
    let common = format!(
        "measure warmup {} ops {}\nclass Long {{ plus cost {LOOP_WORK_NS}ns }}\nclass Unrelated\nsite acc = Long.plus\n",
        row.warmup.min(MIRROR_WARMUP_OPS),
        row.reps.min(MIRROR_OPS)
    );
    let text = match row.sweep.as_str() {
        // Run length: the density loop at a write every 1000 after `param` warm-up ops.
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

/// Every mirrored row of the reference table, simulated with `params` (Groovy 2.4's call sites).
pub fn points(rows: &[SweepRow], params: &Params) -> Vec<SweepPoint> {
    let p24 = params.groovy_2_4();
    rows.iter()
        .filter_map(|row| {
            let s = scenario(row)?;
            // A mirror the engine refuses shows as NaN (and fails its check), never vanishes.
            let r = run(&s, Policy::Global, &p24).ok();
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
}
