//! Expectations: what a scenario's author says its runs must show ("writing X must not relink
//! Y under exact", "exact is at least 10x global"), checked live in the playground and as a
//! regression gate by `blast check`.
//!
//! `spec` is the model (carried in `Scenario::expectations`, printed by `Display`), the
//! `expect` lines are parsed by `syntax` (a child of `dsl`), `check` validates their names and
//! numbers, `observe` is the one adapter from the engine's runs and records, and `eval` decides
//! pass / fail / pending with the observed values and the relinks that caused a failure.
//! `model` states the same kind of claims about the other models' runs, per variant.

mod check;
pub mod eval;
pub mod model;
pub mod observe;
pub mod spec;

pub use check::{check as validate, Declared, MAX_EXPECTATIONS, MAX_LISTED_SITES, MAX_LISTED_TOTAL, MAX_TOLERANCE_PCT};
pub use eval::{check, evaluate, needed_policies, waiting, CheckReport, Observed, Outcome, Status};
pub use observe::{Cause, RunView};
pub use spec::{Cmp, Decimal, DecimalError, EventPattern, Expectation, FigureRef, Metric, SiteClaim, Subject};
