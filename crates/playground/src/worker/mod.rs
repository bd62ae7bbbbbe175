//! The engine worker's protocol in one place: what the page asks of the worker, what the worker
//! answers, and what each side keeps.
//!
//! - Messages as bytes: `wire` (the frame every message shares, and a job: a scenario text to
//!   read, with its reply, in `codec`'s byte form), `lane_wire` (lanes the worker runs: the page's commands and the
//!   worker's updates, as deltas), `fit_wire` (a probe result's fit), `pack_wire` (share links and
//!   autosave entries, deflated in the worker), `open_wire` (the autosave and a link, opened in
//!   the worker), `model_wire` (a model
//!   preset's replay: commands and updates). The trace lab's messages are
//!   `trace_lab::protocol`. `engine_forms`: the wire's serde form of engine types whose own
//!   serde is shaped for JSON; `expect_wire`: a read scenario's expectations as values.
//! - The page's side: `client` (what was posted and is awaited, each answer routed to what it
//!   is for, answers decoded in bounded steps), `offload` (which work leaves the page, and the
//!   typed reply), `reading` (what each text's answer is for), `lanes` (the page's mirror of the
//!   lanes the worker runs), `model_mirror` (the page's mirror of the model replay).
//! - The worker's side: `lane_host` (the worker's whole state, one message at a time),
//!   `model_host` (the model replay it runs).
//! - `in_process` (tests): the worker in the test's thread, answering at once.
//! - `rehearsal`: the same calls on a tiny text while the page is idle after load, so the first
//!   real message finds its code compiled.

pub mod chart_wire;
#[cfg(test)]
pub(crate) mod churn_world;
pub mod client;
mod codec;
mod engine_forms;
mod expect_wire;
pub mod fit_wire;
#[cfg(test)]
pub mod in_process;
pub mod lane_host;
pub mod lane_wire;
pub mod lanes;
pub mod model_host;
pub mod model_mirror;
pub mod model_wire;
pub mod offload;
pub mod open_wire;
pub mod pack_wire;
pub mod reading;
pub mod rehearsal;
pub mod wire;
