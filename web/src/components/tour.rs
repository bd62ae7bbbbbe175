//! The guided tour of a first visit: what a relink, a policy and the verdict colours are, and
//! how to read the timeline, one step at a time beside the running comparison.
//!
//! A strip in the page's flow (not a modal over it: the page keeps working under it), so it
//! never covers what it explains. The part a step is about is outlined through the `.app`'s
//! `data-tour` attribute (`STEPS[i].target`, styled in style.css). Skipping or finishing it is
//! remembered (`browser::remember_tour_done`).

use yew::prelude::*;

use crate::components::raw;
use blast_playground::chrome::TOUR_STEPS;
use blast_playground::markup::escape;

pub struct Step {
    /// What the stylesheet outlines while the step shows (`.app[data-tour=…]`).
    pub target: &'static str,
    pub title: &'static str,
    pub text: &'static str,
}

pub const STEPS: [Step; TOUR_STEPS] = [
    Step {
        target: "relink",
        title: "A relink",
        text: "Each box in the blast view is a call site, linked to the method it calls. A class change throws links away; each such site \
               must look its target up again: a relink. A site counts them and flashes at each one.",
    },
    Step {
        target: "policy",
        title: "A policy",
        text: "A policy decides which links a change throws away: global (Groovy today) all of them on any metaclass change, exact only \
               the changed class’s. The lanes run the same program side by side; tick more policies above.",
    },
    Step {
        target: "verdict",
        title: "The verdict colours",
        text: "An oracle judges every relink. Green, necessary: the target really changed. Amber, collateral: the same target again, \
               wasted work. Red, missed: a stale link kept dispatching, a bug.",
    },
    Step {
        target: "timeline",
        title: "The timeline",
        text: "Throughput per policy over virtual time. Wheel to zoom (Shift+wheel pans), drag to select a range: the why panel lists \
               its relinks, the blast view outlines their sites. Click a relink’s time to mark it here.",
    },
];

pub struct TourProps {
    pub step: usize,
    pub on_next: Callback<()>,
    pub on_back: Callback<()>,
    /// Skip the rest (remembered).
    pub on_close: Callback<()>,
}

pub fn tour(p: &TourProps) -> Html {
    let Some(step) = STEPS.get(p.step) else { return html! {} };
    let last = p.step + 1 == STEPS.len();
    let click = |cb: &Callback<()>| cb.reform(|_: MouseEvent| ());
    html! {
        <aside id="tour" class="tour" aria-labelledby="tour-title" data-step={p.step.to_string()}>
            { raw(format!(
                r#"<p class="tour-count">Tour {} of {}</p><div class="tour-body"><h2 id="tour-title">{}</h2><p>{}</p></div>"#,
                p.step + 1,
                STEPS.len(),
                escape(step.title),
                escape(step.text)
            )) }
            <div class="tour-buttons">
                <button id="tour-back" class="small" onclick={click(&p.on_back)} disabled={p.step == 0}>{ "Back" }</button>
                // The last step's Next ends the tour like Skip does (the reducer closes it).
                <button id="tour-next" class="small primary" onclick={if last { click(&p.on_close) } else { click(&p.on_next) }}>
                    { if last { "Done" } else { "Next" } }
                </button>
                <button id="tour-close" class="small" onclick={click(&p.on_close)}>{ "Skip the tour" }</button>
            </div>
        </aside>
    }
}

/// The `data-tour` value of the page while step `step` shows.
pub fn target(step: Option<usize>) -> Option<&'static str> {
    step.and_then(|i| STEPS.get(i)).map(|s| s.target)
}
