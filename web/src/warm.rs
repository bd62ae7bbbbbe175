//! After load, while the page is idle, it rehearses opening a big share link
//! (`blast_playground::worker::rehearsal`: the link's decode, the worker's job and answer, the reducer)
//! and renders what that opens (its notice, the drawn and the aggregated blast view, the model
//! editor, a searching name picker, the read-only text view, parts following a read scenario)
//! into an element in no document, then drops it. So
//! the first real link calls wasm functions V8 has compiled already: compiled at the first call,
//! on the main thread, they made the first open of a 1,900-deep link wait for a core (a 51 ms
//! task of 11 ms CPU; measured figures in `rehearsal`). Each step is an idle callback of its
//! own; nothing is shown or stored, and the throwaway state is dropped at the end.

use std::rc::Rc;

use yew::prelude::*;
use yew::props;
use yew::AppHandle;

use crate::browser;
use crate::components::banners::{banners, BannersProps};
use crate::components::blast_aggregate::AggregatedBlast;
use crate::components::blast_view::{BlastView, BlastViewProps};
use crate::components::dsl_editor::{DslEditor, SharedText, LIVE_TEXT_BYTES};
use crate::components::later::Later;
use crate::components::name_picker::{name_picker, NamePickerProps, SELECT_MAX};
use crate::components::scenario_editor::{scenario_editor, ScenarioEditorProps};
use crate::scenario_parts::ScenarioParts;
use blast_playground::chrome::Banner;
use blast_playground::state::AppState;
use blast_playground::worker::rehearsal::Rehearsal;

/// The performance mark set when the rehearsal is done (e2e `scale` waits for it).
pub const REHEARSED: &str = "blast:rehearsed";

/// Start the rehearsal; it runs in idle callbacks, one step each.
pub fn rehearse() {
    // Padded to the size the text view shows read-only, as it does a deep link's text.
    let rehearsal = Rehearsal::new(LIVE_TEXT_BYTES, browser::as_fragment);
    browser::when_idle(move || step(rehearsal));
}

fn step(mut rehearsal: Rehearsal) {
    if rehearsal.step() {
        browser::when_idle(move || step(rehearsal));
    } else {
        browser::when_idle(move || render(rehearsal));
    }
}

/// The parts of the rehearsal's view, mounted one idle callback apart (`RehearsalView`): each
/// compiles its own code, and together they were one 12-85 ms task (CPU, load 12, traced).
const PARTS: usize = 4;

/// Render the opened state detached, one more part per idle callback; then, in the next, as a
/// read scenario's next generation (the `Later` parts follow a painted frame later); two
/// paints on, drop it all.
fn render(rehearsal: Rehearsal) {
    let (Some(root), Some(state)) = (browser::detached_element(), rehearsal.state()) else { return };
    let view = yew::Renderer::<RehearsalView>::with_root_and_props(root, props(state, rehearsal.text(), 1, 0)).render();
    browser::when_idle(move || grow(view, rehearsal, 2));
}

fn grow(mut view: AppHandle<RehearsalView>, rehearsal: Rehearsal, parts: usize) {
    let Some(state) = rehearsal.state() else { return };
    if parts <= PARTS {
        view.update(props(state, rehearsal.text(), parts, 0));
        browser::when_idle(move || grow(view, rehearsal, parts + 1));
        return;
    }
    view.update(props(state, rehearsal.text(), PARTS, 1));
    browser::after_paint(move || {
        browser::after_paint(move || {
            browser::when_idle(move || {
                view.destroy();
                drop(rehearsal);
                browser::mark(REHEARSED);
            })
        })
    });
}

#[derive(Properties, PartialEq)]
struct RehearsalProps {
    blast: BlastViewProps,
    editor: ScenarioEditorProps,
    text: SharedText,
    /// More names than a `<select>` offers: a deep link's class pickers search.
    names: Rc<Vec<String>>,
    /// The opened link's notice, under a new key in each generation: a banner replacing
    /// another (the middle of a keyed list changes), as a link's notice replaces the last one.
    banners: Vec<Banner>,
    /// How many of the parts are mounted (1 to `PARTS`).
    parts: usize,
    generation: u64,
}

fn props(s: &AppState, text: &str, parts: usize, generation: u64) -> RehearsalProps {
    let shared = ScenarioParts::of(s);
    let blast = shared.blast_props(s, shared.classes.clone(), Callback::noop(), Callback::noop());
    let editor = shared.editor_props(s, Callback::noop(), generation);
    let names = Rc::new((0..=SELECT_MAX).map(|i| format!("R{i}")).collect());
    let banners = s.chrome.banners.iter().map(|b| Banner { id: b.id + generation, ..b.clone() }).collect();
    RehearsalProps { blast, editor, text: SharedText(AttrValue::from(text.to_string())), names, banners, parts, generation }
}

#[function_component(RehearsalView)]
fn rehearsal_view(p: &RehearsalProps) -> Html {
    html! {
        <>
            { banners(&BannersProps { banners: p.banners.clone(), on_dismiss: Callback::noop() }) }
            <BlastView ..p.blast.clone() />
            if p.parts >= 2 {
                <Later generation={p.generation} frames={1}>
                    <AggregatedBlast ..p.blast.clone() />
                </Later>
            }
            if p.parts >= 3 {
                { scenario_editor(&p.editor) }
            }
            if p.parts >= 4 {
                { name_picker(props!(NamePickerProps { names: p.names.clone(), value: "", label: "rehearsal", on_pick: Callback::noop() })) }
                <DslEditor text={p.text.clone()} error={None} on_input={Callback::noop()} on_revert={Callback::noop()} />
            }
        </>
    }
}
