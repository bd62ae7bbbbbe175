//! Sensitivity sweeps: vary one knob of a scenario or of the engine and watch each policy.

use crate::model::{walk_mut, Scenario, Stmt};
use crate::params::{BulkScan, Params};

/// Scenario knobs a sweep may set besides the engine's [`Params`].
pub const SCENARIO_KNOBS: &[&str] = &["churn_every", "every", "ops", "warmup"];

/// Set `name` to `value` on a copy of the scenario or params.
pub fn apply(s: &Scenario, params: &Params, name: &str, value: &str) -> Result<(Scenario, Params), String> {
    let mut s = s.clone();
    let mut params = params.clone();
    let number = || -> Result<f64, String> { value.trim().parse::<f64>().map_err(|_| format!("{name}: `{value}` is not a number")) };
    let whole = |v: f64, min: f64, max: f64| -> Result<u64, String> {
        if v.fract() != 0.0 || v < min || v > max {
            Err(format!("{name} must be a whole number in {min}..={max}"))
        } else {
            Ok(v as u64)
        }
    };
    match name {
        "churn_every" | "every" => {
            let period = whole(number()?, 1.0, 1e12)?;
            if !set_periods(&mut s.op, period) {
                return Err(format!("{name}: the scenario's op has no `every` clause to change"));
            }
        }
        "ops" => s.measure.ops = whole(number()?, 1.0, 10_000.0)? as u32,
        "warmup" => s.measure.warmup_ops = whole(number()?, 0.0, 10_000.0)? as u32,
        "bulk_scan" => {
            params.bulk_scan = match value.trim() {
                "all-loaded" => BulkScan::AllLoaded,
                "live-only" => BulkScan::LiveOnly,
                other => return Err(format!("bulk_scan: `{other}` (expected all-loaded or live-only)")),
            }
        }
        _ => params.set(name, number()?)?,
    }
    crate::validate::validate(&s).map_err(|e| e.to_string())?;
    Ok((s, params))
}

fn set_periods(block: &mut [Stmt], period: u64) -> bool {
    let mut any = false;
    walk_mut(block, &mut |st| {
        if let Stmt::Every { period: p, offset, .. } = st {
            *p = period;
            *offset = (*offset).min(period - 1);
            any = true;
        }
    });
    any
}
