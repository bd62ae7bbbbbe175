//! The structured editor: scenario settings, class tree, call sites, workload.

use std::rc::Rc;

use blast_engine::scenario::{Scenario, Semantics};
use yew::prelude::*;

use crate::browser;

use super::banners::message;
use super::class_tree::ClassTree;
use super::later::Later;
use super::site_list::SiteList;
use super::workload_form::WorkloadForm;
use blast_playground::editor::EditOp;

#[derive(PartialEq, Clone)]
pub struct ScenarioEditorProps {
    /// Shared with the page: a big world is not copied per render.
    pub scenario: Rc<Scenario>,
    /// The names of the classes it declares (built once per scenario: `ScenarioParts`).
    pub names: Rc<Vec<String>>,
    /// Bumps when the scenario changes (remounts forms that copy it).
    pub scenario_rev: u64,
    /// Bumps on every edit attempt (resets inputs after a refused edit).
    pub epoch: u64,
    pub error: Option<AttrValue>,
    pub on_edit: Callback<EditOp>,
    /// The read generation (`later::use_read_generation`): after a scenario read off the main
    /// thread, the site list and workload follow the class tree a painted frame later.
    pub generation: u64,
}

/// The editor: a plain function, not a component (its `on_edit` is new at each of the page's
/// renders, so a component's props check never skipped it); its parts are components.
pub fn scenario_editor(p: &ScenarioEditorProps) -> Html {
    let s = &p.scenario;
    let names = &p.names;
    let on_name = {
        let cb = p.on_edit.clone();
        Callback::from(move |e: Event| cb.emit(EditOp::SetName(browser::value(&e))))
    };
    let on_semantics = {
        let cb = p.on_edit.clone();
        Callback::from(move |e: Event| {
            let value = browser::value(&e);
            cb.emit(EditOp::SetSemantics(value.parse().unwrap_or_default()))
        })
    };
    let measure = |warmup: bool| {
        let (cb, m) = (p.on_edit.clone(), s.measure);
        Callback::from(move |e: Event| {
            let v: u32 = browser::value(&e).trim().parse().unwrap_or(0);
            let (warmup_ops, ops) = if warmup { (v, m.ops) } else { (m.warmup_ops, v) };
            cb.emit(EditOp::SetMeasure { warmup_ops, ops })
        })
    };
    html! {
        <div class="model-editor">
            if let Some(e) = &p.error {
                <p id="editor-error" class="editor-error" role="alert">{ message(e) }</p>
            }
            <div class="settings" key={format!("settings#{}", p.epoch)}>
                <label>{ "Name " }<input id="scenario-name" value={s.name.clone()} onchange={on_name} size="28" spellcheck="false" /></label>
                <label title="How method lookup sees ancestors">{ "Lookup " }
                    <select id="scenario-semantics" onchange={on_semantics}>
                        <option value={Semantics::Snapshot.name()} selected={s.semantics == Semantics::Snapshot}>{ "snapshot (Groovy)" }</option>
                        <option value={Semantics::Live.name()} selected={s.semantics == Semantics::Live}>{ "live (Ruby, Python)" }</option>
                    </select>
                </label>
                <label>{ "Warm-up ops " }<input type="number" min="0" value={s.measure.warmup_ops.to_string()} onchange={measure(true)} size="4" /></label>
                <label>{ "Measured ops " }<input type="number" min="1" value={s.measure.ops.to_string()} onchange={measure(false)} size="4" /></label>
            </div>
            <ClassTree scenario={s.clone()} names={(*names).clone()} epoch={p.epoch} on_edit={p.on_edit.clone()} />
            <Later generation={p.generation} frames={1}>
            <SiteList scenario={s.clone()} names={(*names).clone()} epoch={p.epoch} on_edit={p.on_edit.clone()} />
            <p class="hint form-scope">{ "The form edits the settings, classes, call sites and a one-loop workload. Categories, setup events and richer programs (before-op, repeat, every … offset) are edited in the scenario text; both stay in step." }</p>
            <WorkloadForm key={format!("workload#{}", p.scenario_rev)} scenario={s.clone()} names={(*names).clone()} on_edit={p.on_edit.clone()} />
            </Later>
        </div>
    }
}
