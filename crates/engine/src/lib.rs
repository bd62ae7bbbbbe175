//! `blast-engine`: a deterministic simulator of call-site linking and invalidation.
//!
//! A [`Scenario`] (classes, call sites, a program of loops and metaclass events) runs under an
//! invalidation [`Policy`] in virtual time. The result says what each event retired, what each
//! relink cost, and whether it was necessary, collateral or missed. No I/O, no clocks, no
//! randomness: the same scenario gives the same numbers natively and in wasm.
//!
//! # The public surface
//!
//! The re-exports below are the entry points: [`parse`] and [`print`] (the scenario text),
//! [`Simulation`] and [`run`], their inputs ([`Scenario`], [`Event`], [`Semantics`],
//! [`Params`], [`Policy`]) and results ([`RunReport`], [`ScenarioError`]). The public
//! modules are the rest of what the CLI, the playground, the page, the fuzz targets and the
//! benches read: the scenario's parts (`scenario`, `report`, `spelling`, `name`, `jit`), the text format
//! (`dsl`, `expect`), what runs scenarios (`sim`, `compare`, `sweep`, `validate`, `policy`,
//! `params`), the shipped workloads and figures (`presets`, `models`, `runtimes`,
//! `reference`, `calibrate`, `groovy24`, `fingerprint`) and the trace readers (`trace`). The
//! engine's machinery is private: the world's classes (`world`), the JSON reader (`json`,
//! through `dsl::from_json`), the hashed maps (`fxhash`), the name table, cache hints and digit
//! grouping.

mod answers;
pub mod calibrate;
pub mod compare;
mod digits;
pub mod dsl;
pub mod expect;
pub mod fingerprint;
mod fxhash;
pub mod groovy24;
pub mod jit;
mod json;
pub mod models;
pub mod name;
mod name_table;
pub mod params;
pub mod policy;
mod prefetch;
pub mod presets;
pub mod reference;
pub mod report;
pub mod runtimes;
pub mod scenario;
pub mod sim;
pub mod spelling;
pub mod sweep;
pub mod trace;
pub mod validate;
mod world;

pub use dsl::{parse, print};
pub use params::Params;
pub use policy::Policy;
pub use report::RunReport;
pub use scenario::{Event, Scenario, Semantics};
pub use sim::{run, Simulation};
pub use validate::ScenarioError;
