//! Function components: props down, callbacks up; none of them holds simulation logic.
//!
//! A view with no hooks whose props change with the lanes anyway (the top bar, the comparison,
//! the model views, a lane's compiled units), or that is a few nodes over components that keep
//! their own props check (the scenario editor over its class tree, site list and workload form; the
//! name picker over its searching form; banners, tour, knobs, expectations, import/export), is a
//! plain `fn(&Props) -> Html` called in the parent's `html!`: each component type costs ~0.8 KiB
//! gzipped of Yew lifecycle code in the bundle (`bash scripts/size-report.sh`). The gallery and the why panel
//! stay components: their props hold still while a run plays, so their props check skips them.
//!
//! Read-only parts of a view (tables, captions, legends, counts; no listener, no focus to keep)
//! are markup written as text ([`raw`], `blast_playground::markup`, every value that is not our
//! literal escaped): one string costs far less bundle code than a virtual node per element.

pub mod arena_threads;
pub mod banners;
pub mod blast_aggregate;
pub mod blast_parts;
pub mod blast_trace;
pub mod blast_view;
pub mod charts;
pub mod class_tree;
pub mod comparison;
pub mod compiled_units;
pub mod descriptor_slot;
pub mod dsl_editor;
pub mod expectations;
pub mod files;
pub mod flash;
pub mod gallery;
pub mod help;
pub mod knobs;
pub mod later;
pub mod measured;
pub mod model_comparison;
pub mod model_expectations;
pub mod model_view;
pub mod mutations;
pub mod name_picker;
pub mod scenario_editor;
pub mod shape_slots;
pub mod site_list;
pub mod topbar;
pub mod tour;
pub mod trace_lab;
pub mod virtual_rows;
pub mod why;
pub mod workload_form;

use yew::{AttrValue, Html};

/// Read-only markup written as text (`blast_playground::markup`): a part of a view that the
/// page only shows costs far less bundle code as one string than as `html!` nodes. Whoever
/// writes the string escapes every value in it that is not one of our literals.
pub fn raw(markup: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(markup))
}

/// Markup that is one of our literals.
pub fn raw_static(markup: &'static str) -> Html {
    Html::from_html_unchecked(AttrValue::Static(markup))
}
