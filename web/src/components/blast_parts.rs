//! What the drawn blast view (`blast_view`), the aggregated one for big worlds
//! (`blast_aggregate`) and a trace's (`blast_trace`) share: their props, a site's look and a
//! lane's caption.

use std::rc::Rc;

use blast_engine::report::SiteState;
use blast_engine::scenario::Scenario;
use blast_engine::Policy;
use yew::prelude::*;

use blast_playground::format;
use blast_playground::playback::RunState;
use blast_playground::runner::{ClassEntry, LaneView, SiteView};
use blast_playground::trace_lab::page::TracePage;

#[derive(Properties, PartialEq, Clone)]
pub struct BlastViewProps {
    pub lanes: Vec<Rc<LaneView>>,
    /// Every class the scenario declares or loads (by the program or by hand).
    pub classes: Rc<Vec<ClassEntry>>,
    /// The scenario drawn (a site node names its receivers and method from its declaration).
    pub scenario: Rc<Scenario>,
    pub hovered: Option<AttrValue>,
    pub selected: Option<AttrValue>,
    pub what_if: Vec<(Policy, Vec<String>)>,
    /// Whether the run is playing (a started lane that is not is paused).
    pub playing: bool,
    pub on_hover: Callback<Option<String>>,
    pub on_select: Callback<Option<String>>,
    /// A trace open in the trace lab: the view draws its sites instead of the scenario's.
    #[prop_or_default]
    pub trace: Option<TraceOnView>,
}

/// A trace open in the trace lab, as the blast view and the why panel draw it: its page (whose
/// `sites` both read), the site selected and where a selection goes.
#[derive(Clone, PartialEq)]
pub struct TraceOnView {
    pub page: Rc<TracePage>,
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<String>>,
    /// Zoom its timeline (the worker redraws it for the window).
    pub on_zoom: Callback<blast_playground::trace_lab::page::Zoom>,
}

pub fn state_label(s: SiteState) -> &'static str {
    match s {
        SiteState::Linked => "linked (fast chain)",
        SiteState::Pic => "inline cache (PIC)",
        SiteState::FallingBack => "falling back (guard failed)",
        SiteState::GivenUp => "given up optimizing",
        SiteState::Uncached => "uncacheable",
        SiteState::Stale => "stale target (missed)",
        SiteState::Megamorphic => "megamorphic (PIC evicting)",
    }
}

/// The look of a site that no call has reached yet (the engine reports it on its default
/// target, which would draw it like a cached "inline cache (PIC)" site).
pub const NOT_CALLED: (&str, &str) = ("not-called", "not called (yet)");

/// (class suffix, legend label) of a site as drawn (`SiteView::state`: `None` while no call
/// has reached it).
pub fn shown_look(s: &SiteView) -> (&'static str, &'static str) {
    s.state.map_or(NOT_CALLED, |s| (s.name(), state_label(s)))
}

/// A lane's caption, the same drawn or aggregated: policy, clock, run state, verdict counts,
/// and how many relinks the range selected on the timeline holds.
pub fn lane_caption(lane: &LaneView, playing: bool) -> Html {
    let status = RunState::of(playing, lane.events_recorded > 0 || lane.iterations > 0, lane.finished()).name();
    html! {
        <figcaption>
            <span class={classes!("swatch", format!("policy-{}", lane.policy.name()))} aria-hidden="true"></span>
            <strong>{ lane.policy.name() }</strong>
            <span class="muted">{ format!(" · {} · ", format::duration_ms(lane.now_ms)) }<span class="lane-state" data-state={status}>{ status }</span></span>
            <span class="lane-relinks" title="relinks: necessary / collateral / missed">
                <span class="v-necessary">{ lane.totals.necessary }</span>{ " / " }
                <span class="v-collateral">{ lane.totals.collateral }</span>{ " / " }
                <span class="v-missed">{ lane.totals.missed }</span>
            </span>
            if let Some(r) = &lane.in_range {
                <span class="lane-in-range" data-relinks={r.total.to_string()}>
                    { format!(" · {} in the selected range", format::count(r.total as u64)) }
                </span>
            }
        </figcaption>
    }
}
