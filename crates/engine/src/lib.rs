//! `blast-engine`: a deterministic simulator of call-site linking and invalidation.
//!
//! A [`Scenario`] (classes, call sites, a program of loops and metaclass events) runs under an
//! invalidation [`Policy`] in virtual time. The result says what each event retired, what each
//! relink cost, and whether it was necessary, collateral or missed. No I/O, no clocks, no
//! randomness: the same scenario gives the same numbers natively and in wasm.

mod answers;
pub mod calibrate;
pub mod compare;
pub mod digits;
pub mod dsl;
pub mod expect;
pub mod fingerprint;
pub mod fxhash;
pub mod groovy24;
pub mod jit;
pub mod json;
pub mod model;
pub mod models;
pub mod name;
mod name_table;
pub mod names;
pub mod params;
pub mod policy;
mod prefetch;
pub mod presets;
pub mod reference;
pub mod report;
pub mod runtimes;
pub mod sim;
pub mod sweep;
pub mod trace;
pub mod validate;
pub mod world;

pub use model::{Event, Scenario, Semantics};
pub use params::Params;
pub use policy::Policy;
pub use report::RunReport;
pub use sim::{run, Simulation};
pub use validate::ScenarioError;
