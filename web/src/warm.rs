//! After load, while the page is idle, it rehearses opening a big share link
//! (`blast_playground::rehearsal`: the link's decode, the worker's job and answer, the reducer)
//! and renders what that opens (the drawn and the aggregated blast view, the model editor, a
//! searching name picker, the read-only text view, parts following a read scenario) into an
//! element in no document, then drops it. So
//! the first real link calls wasm functions V8 has compiled already: compiled at the first call,
//! on the main thread, they made the first open of a 1,900-deep link wait for a core (a 51 ms
//! task of 11 ms CPU; measured figures in `rehearsal`). Each step is an idle callback of its
//! own; nothing is shown or stored, and the throwaway state is dropped at the end.

use std::rc::Rc;

use yew::prelude::*;

use crate::app::ScenarioParts;
use crate::browser;
use crate::components::blast_aggregate::AggregatedBlast;
use crate::components::blast_view::{BlastView, BlastViewProps};
use crate::components::dsl_editor::{DslEditor, SharedText, LIVE_TEXT_BYTES};
use crate::components::later::Later;
use crate::components::model_editor::{ModelEditor, ModelEditorProps};
use crate::components::name_picker::{NamePicker, SELECT_MAX};
use blast_playground::rehearsal::Rehearsal;
use blast_playground::state::AppState;

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

/// Render the opened state detached; in the next idle callback, as a read scenario's next
/// generation (the `Later` part follows a painted frame later); two paints on, drop it all.
fn render(rehearsal: Rehearsal) {
    let Some(root) = browser::detached_element() else { return };
    let mut view = yew::Renderer::<RehearsalView>::with_root_and_props(root, props(rehearsal.state(), rehearsal.text(), 0)).render();
    browser::when_idle(move || {
        view.update(props(rehearsal.state(), rehearsal.text(), 1));
        browser::after_paint(move || {
            browser::after_paint(move || {
                browser::when_idle(move || {
                    view.destroy();
                    drop(rehearsal);
                    browser::mark(REHEARSED);
                })
            })
        });
    });
}

#[derive(Properties, PartialEq)]
struct RehearsalProps {
    blast: BlastViewProps,
    editor: ModelEditorProps,
    text: SharedText,
    /// More names than a `<select>` offers: a deep link's class pickers search.
    names: Rc<Vec<String>>,
    generation: u64,
}

fn props(s: &AppState, text: &str, generation: u64) -> RehearsalProps {
    let parts = ScenarioParts::of(s);
    let blast = BlastViewProps {
        lanes: s.session.runner.views().to_vec(),
        classes: parts.classes.clone(),
        sites: parts.sites.clone(),
        scenario: parts.scenario.clone(),
        hovered: None,
        selected: None,
        what_if: s.session.what_if.clone(),
        playing: false,
        on_hover: Callback::noop(),
        on_select: Callback::noop(),
    };
    let editor = ModelEditorProps {
        scenario: parts.scenario.clone(),
        scenario_rev: s.session.scenario_rev,
        epoch: s.session.edit_epoch,
        error: None,
        on_edit: Callback::noop(),
        generation,
    };
    let names = Rc::new((0..=SELECT_MAX).map(|i| format!("R{i}")).collect());
    RehearsalProps { blast, editor, text: SharedText(AttrValue::from(text.to_string())), names, generation }
}

#[function_component(RehearsalView)]
fn rehearsal_view(p: &RehearsalProps) -> Html {
    html! {
        <>
            <BlastView ..p.blast.clone() />
            <Later generation={p.generation} frames={1}>
                <AggregatedBlast ..p.blast.clone() />
            </Later>
            <ModelEditor ..p.editor.clone() />
            <NamePicker names={p.names.clone()} value="" label="rehearsal" on_pick={Callback::noop()} />
            <DslEditor text={p.text.clone()} error={None} on_input={Callback::noop()} on_revert={Callback::noop()} />
        </>
    }
}
