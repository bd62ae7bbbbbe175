//! Function components: props down, callbacks up; none of them holds simulation logic.
//!
//! A view with no hooks whose parent re-renders it anyway (its callbacks are new at each of the
//! parent's renders, so a component's props check would never skip it) is a plain
//! `fn(&Props) -> Html` called in the parent's `html!`: each component type costs ~0.8 KiB
//! gzipped of Yew lifecycle code in the bundle (issue 11 item 4). Behind `Later`, such a view
//! is built with the page's render and shown after the painted frame, as a component was.

pub mod arena_threads;
pub mod banners;
pub mod blast_aggregate;
pub mod blast_view;
pub mod charts;
pub mod class_tree;
pub mod comparison;
pub mod compiled_units;
pub mod descriptor_slot;
pub mod dsl_editor;
pub mod expectations;
pub mod files;
pub mod gallery;
pub mod help;
pub mod knobs;
pub mod later;
pub mod measured;
pub mod model_comparison;
pub mod model_editor;
pub mod model_expectations;
pub mod model_view;
pub mod mutations;
pub mod name_picker;
pub mod shape_slots;
pub mod site_list;
pub mod topbar;
pub mod tour;
pub mod virtual_rows;
pub mod why;
pub mod workload_form;
