//! The Blast Radius playground: a Yew app around the `blast-engine` simulator.
//!
//! Pure logic (state and reducer, lockstep runner, model replay and knobs, editor operations,
//! share and autosave codecs, layout, exports) lives in modules that need no browser and are
//! tested natively;
//! `components` renders it and `browser` wraps the few web APIs used.

pub mod aggregate;
pub mod app;
pub mod browser;
pub mod charts;
pub mod compiled;
pub mod components;
pub mod editor;
pub mod export;
pub mod format;
pub mod history;
pub mod hooks;
pub mod keys;
pub mod layout;
pub mod measured;
pub mod model_entities;
pub mod model_knobs;
pub mod model_mode;
pub mod model_runner;
pub mod offload;
pub mod runner;
pub mod share;
pub mod state;
pub mod storage;
pub mod store;
pub mod timeline;
pub mod wire;

pub use app::App;
