//! What the page receives of a read trace: its parts already written (`markup`) and its files
//! already made (`export`), in the engine worker, from the [`TraceView`]. The page only shows
//! and hands out strings, so its wasm carries neither the readers nor the view's builders and
//! decoders (measured: decoding the whole view on the page was +33 KiB gzipped of page wasm,
//! this is a few).

use serde::{Deserialize, Serialize};

use super::view::TraceView;
use super::{export, markup};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracePage {
    /// The file, sample or "the pasted log".
    pub name: String,
    /// `v8`, `hotspot`, `groovy`; `None` when no line said.
    pub format: Option<String>,
    pub summary: String,
    pub fan_out: String,
    pub timeline: String,
    /// The replay's comparison, or why there is none. Both are text on purpose: the worker
    /// writes every part of the page (`view::NoReplay` is the typed reason), so the page
    /// ships no error types of the readers.
    pub replay: Result<String, String>,
    /// The replay's scenario as DSL text (`None` for a unit replay, which runs none).
    pub scenario: Option<String>,
    pub fan_out_csv: String,
    pub fan_out_markdown: String,
    pub replay_csv: Option<String>,
    pub replay_markdown: Option<String>,
}

impl TracePage {
    pub fn of(v: &TraceView) -> TracePage {
        TracePage {
            name: v.name.clone(),
            format: v.format.clone(),
            summary: markup::summary(v),
            fan_out: markup::fan_out(v),
            timeline: markup::timeline(&v.timeline),
            replay: v.replay.as_ref().map(markup::replay).map_err(ToString::to_string),
            scenario: v.replay.as_ref().ok().filter(|r| !r.scenario.is_empty()).map(|r| r.scenario.clone()),
            fan_out_csv: export::fan_out_csv(v),
            fan_out_markdown: export::fan_out_markdown(v),
            replay_csv: export::replay_csv(v),
            replay_markdown: export::replay_markdown(v),
        }
    }
}
