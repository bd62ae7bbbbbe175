//! Function components: props down, callbacks up; none of them holds simulation logic.

pub mod arena_threads;
pub mod banners;
pub mod blast_aggregate;
pub mod blast_view;
pub mod charts;
pub mod class_tree;
pub mod comparison;
pub mod descriptor_slot;
pub mod dsl_editor;
pub mod expectations;
pub mod files;
pub mod gallery;
pub mod help;
pub mod knobs;
pub mod model_comparison;
pub mod model_editor;
pub mod model_expectations;
pub mod model_view;
pub mod mutations;
pub mod name_picker;
pub mod shape_slots;
pub mod site_list;
pub mod topbar;
pub mod virtual_rows;
pub mod why;
pub mod workload_form;
