//! The Blast Radius playground without a browser: the page state as sub-states with their
//! reducers, and the pure logic the page draws from.
//!
//! `blast-web` is the Yew shell around it: components render `state::AppState` and send
//! `state::Action`s, and its `browser` module is the only code that touches web APIs. Nothing
//! here depends on yew, web-sys or js-sys, so all of it is tested natively.

pub mod action;
pub mod aggregate;
pub mod base64url;
pub mod charts;
pub mod chrome;
pub mod compiled;
pub mod deflate;
pub mod editor;
pub mod effects;
pub mod export;
pub mod format;
pub mod gallery;
pub mod headline;
pub mod history;
pub mod keys;
pub mod lab;
pub mod layout;
pub mod markup;
pub mod measured;
pub mod measured_markup;
pub mod model_entities;
pub mod model_knobs;
pub mod model_mode;
pub mod model_runner;
pub mod order;
pub mod packing;
pub mod playback;
pub mod runner;
pub mod session;
pub mod share;
pub mod state;
pub mod storage;
#[cfg(test)]
mod test_texts;
pub mod timeline;
pub mod trace_lab;
pub mod worker;
