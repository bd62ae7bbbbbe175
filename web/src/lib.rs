//! The Blast Radius playground's browser shell: a Yew app around `blast-playground`, which
//! holds the page state and its reducers (tested natively).
//!
//! `app` lays out the page, `components` render the state and send actions, `store` holds the
//! state for the component tree, `hooks` feed it frames, keys and the engine worker's answers,
//! `warm` rehearses opening a big link while the page is idle, and `browser` is the only module
//! of the page that touches web APIs. `plot` draws the charts in the engine worker (`worker.rs`, on
//! `offscreen`'s canvas), and `picture` carries them to the page.

pub mod app;
pub mod browser;
pub mod components;
pub mod hooks;
pub mod offscreen;
pub mod picture;
pub mod plot;
pub mod scenario_parts;
pub mod store;
pub mod trace_feed;
pub mod trace_panel;
pub mod warm;

pub use app::App;
