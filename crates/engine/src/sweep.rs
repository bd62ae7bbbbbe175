//! Sensitivity sweeps: vary one knob of a scenario or of the engine and watch each policy.

use std::fmt;
use std::str::FromStr;

use crate::params::{number, whole, Param, ParamError, Params};
use crate::scenario::{walk_mut, Scenario, Stmt};
use crate::validate::{validate, ScenarioError, MAX_OPS};

/// What a sweep can vary: a knob of the scenario, or one of the engine's [`Params`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    /// The period of the op's `every` clauses (`every` is accepted as another name).
    ChurnEvery,
    /// Measured ops.
    Ops,
    /// Warm-up ops.
    Warmup,
    /// How bulk retirement finds domains (`all-loaded` or `live-only`).
    BulkScan,
    Param(Param),
}

impl Knob {
    /// The scenario knobs (the engine's parameters are [`Param::ALL`]).
    pub const SCENARIO: [Knob; 4] = [Knob::ChurnEvery, Knob::Ops, Knob::Warmup, Knob::BulkScan];

    pub fn name(self) -> &'static str {
        match self {
            Knob::ChurnEvery => "churn_every",
            Knob::Ops => "ops",
            Knob::Warmup => "warmup",
            Knob::BulkScan => "bulk_scan",
            Knob::Param(p) => p.name(),
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Knob::ChurnEvery => "iterations between the op's `every` events (alias: every)",
            Knob::Ops => "measured ops (1 to 10000)",
            Knob::Warmup => "warm-up ops (0 to 10000)",
            Knob::BulkScan => "how a bulk retirement finds domains: all-loaded or live-only",
            Knob::Param(p) => p.meaning(),
        }
    }
}

impl FromStr for Knob {
    type Err = ParamError;

    fn from_str(name: &str) -> Result<Knob, ParamError> {
        if name == "every" {
            return Ok(Knob::ChurnEvery);
        }
        match Knob::SCENARIO.into_iter().find(|k| k.name() == name) {
            Some(k) => Ok(k),
            None => Ok(Knob::Param(name.parse()?)),
        }
    }
}

/// Why a sweep step could not be set up.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepError {
    Param(ParamError),
    /// `churn_every` on a scenario whose op has no `every` clause.
    NoEveryClause,
    /// The changed scenario is not valid.
    Invalid(ScenarioError),
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Param(e) => write!(f, "{e}"),
            SweepError::NoEveryClause => write!(f, "churn_every: the scenario's op has no `every` clause to change"),
            SweepError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SweepError {}

impl From<ParamError> for SweepError {
    fn from(e: ParamError) -> Self {
        SweepError::Param(e)
    }
}

/// Set the knob `name` to `value` on a copy of the scenario or params.
pub fn apply(s: &Scenario, params: &Params, name: &str, value: &str) -> Result<(Scenario, Params), SweepError> {
    let knob: Knob = name.parse()?;
    let mut s = s.clone();
    let mut params = params.clone();
    match knob {
        Knob::ChurnEvery => {
            let period = whole(name, number(name, value)?, 1.0, 1e12)?;
            if !set_periods(&mut s.op, period) {
                return Err(SweepError::NoEveryClause);
            }
        }
        Knob::Ops => s.measure.ops = whole(name, number(name, value)?, 1.0, f64::from(MAX_OPS))? as u32,
        Knob::Warmup => s.measure.warmup_ops = whole(name, number(name, value)?, 0.0, f64::from(MAX_OPS))? as u32,
        Knob::BulkScan => params.bulk_scan = value.trim().parse().map_err(ParamError::Unknown)?,
        Knob::Param(p) => params.set(p, number(name, value)?)?,
    }
    validate(&s).map_err(SweepError::Invalid)?;
    Ok((s, params))
}

fn set_periods(block: &mut [Stmt], period: u64) -> bool {
    let mut any = false;
    walk_mut(block, &mut |st| {
        if let Stmt::Every(e) = st {
            e.period = period;
            e.offset = e.offset.min(period - 1);
            any = true;
        }
    });
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn churn() -> Scenario {
        presets::find("hotLoop_unrelatedMetaClassChurn").unwrap().scenario()
    }

    #[test]
    fn knobs_set_the_scenario_or_the_params() {
        let (s, _) = apply(&churn(), &Params::default(), "every", "10").unwrap();
        let mut periods = Vec::new();
        crate::scenario::walk(&s.op, &mut |st| {
            if let Stmt::Every(e) = st {
                periods.push(e.period)
            }
        });
        assert_eq!(periods, vec![10]);
        let (_, p) = apply(&churn(), &Params::default(), "selection_ns", "1500").unwrap();
        assert_eq!(p.selection_ns, 1500.0);
        let (_, p) = apply(&churn(), &Params::default(), "bulk_scan", "live-only").unwrap();
        assert_eq!(p.bulk_scan, crate::params::BulkScan::LiveOnly);
    }

    #[test]
    fn refusals_say_which_knob_and_why() {
        let base = presets::find("hotLoop_baseline").unwrap().scenario();
        assert_eq!(apply(&base, &Params::default(), "churn_every", "10"), Err(SweepError::NoEveryClause));
        assert!(matches!(apply(&churn(), &Params::default(), "ops", "0"), Err(SweepError::Param(ParamError::OutOfRange { .. }))));
        assert!(matches!(apply(&churn(), &Params::default(), "bulk_scan", "some"), Err(SweepError::Param(ParamError::Unknown(_)))));
        assert!(matches!(apply(&churn(), &Params::default(), "colour", "1"), Err(SweepError::Param(ParamError::Unknown(_)))));
    }
}
