//! The workload program in form: one loop calling chosen sites, optionally writing to a
//! metaclass every N iterations. Richer programs are edited in the text view.

use std::rc::Rc;

use blast_engine::scenario::Scenario;
use yew::prelude::*;
use yew::props;

use crate::browser;

use super::name_picker::{name_picker, NamePickerProps};
use super::virtual_rows::VIRTUAL_ABOVE;
use blast_playground::editor::{has_workload_shape, workload_of, Churn, EditOp, Workload};

#[derive(Properties, PartialEq)]
pub struct WorkloadFormProps {
    pub scenario: Rc<Scenario>,
    /// Every class name (the written class's picker).
    pub names: Rc<Vec<String>>,
    pub on_edit: Callback<EditOp>,
}

fn default_workload(s: &Scenario) -> Workload {
    workload_of(s).unwrap_or_else(|| Workload { iterations: 100_000, calls: s.sites.iter().map(|x| x.name.to_string()).collect(), churn: None })
}

#[function_component(WorkloadForm)]
pub fn workload_form(p: &WorkloadFormProps) -> Html {
    let form = use_state(|| default_workload(&p.scenario));
    let matches = has_workload_shape(&p.scenario);
    let update = |f: fn(&mut Workload, String)| {
        let form = form.clone();
        move |v: String| {
            let mut next = (*form).clone();
            f(&mut next, v);
            form.set(next);
        }
    };
    let on_iterations = update(|w, v| w.iterations = v.trim().replace('_', "").parse().unwrap_or(w.iterations));
    let on_churn = update(|w, v| {
        w.churn = if v == "on" { Some(Churn { period: 1000, class: String::new(), method: "dyn0".into() }) } else { None };
    });
    let on_period = update(|w, v| {
        if let (Some(c), Ok(n)) = (w.churn.as_mut(), v.trim().parse()) {
            c.period = n;
        }
    });
    let on_class = update(|w, v| {
        if let Some(c) = w.churn.as_mut() {
            c.class = v;
        }
    });
    let on_method = update(|w, v| {
        if let Some(c) = w.churn.as_mut() {
            c.method = v.trim().to_string();
        }
    });
    let first_class = p.scenario.classes.first().map(|c| c.name.clone()).unwrap_or_default();
    let apply = {
        let (cb, form) = (p.on_edit.clone(), form.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let mut w = (*form).clone();
            if let Some(c) = w.churn.as_mut().filter(|c| c.class.is_empty()) {
                c.class = first_class.clone();
            }
            cb.emit(EditOp::SetWorkload(w));
        })
    };
    let churn_class = form.churn.as_ref().map(|c| c.class.clone()).filter(|c| !c.is_empty()).or_else(|| p.scenario.classes.first().map(|c| c.name.clone()));
    html! {
        <form class="workload" onsubmit={apply}>
            <h3>{ "Workload (the measured op)" }</h3>
            if !matches {
                <p class="hint">{ "The current op is richer than this form (repeats, use blocks, several events). Applying replaces it; edit the text to keep it." }</p>
            }
            <div class="form-row">
                <label>{ "loop " }
                    <input id="workload-iterations" type="number" min="1" value={form.iterations.to_string()} size="9"
                        onchange={Callback::from(move |e: Event| on_iterations(browser::value(&e)))} />
                    { " iterations, calling:" }
                </label>
            </div>
            if p.scenario.sites.len() > VIRTUAL_ABOVE {
                // One checkbox per site stops being a form at this size (and the membership
                // test per chip was quadratic): say what the loop calls instead.
                <p class="form-row calls hint" id="workload-calls-summary">{ format!(
                    "calls {} of the {} (too many to tick one by one here: edit the op in the scenario text to call others)",
                    blast_playground::format::count(form.calls.len() as u64), blast_playground::format::counted(p.scenario.sites.len() as u64, "site")) }</p>
            } else {
            <div class="form-row calls">
                { for p.scenario.sites.iter().map(|s| {
                    let (form, name) = (form.clone(), s.name.to_string());
                    let checked = form.calls.contains(&name);
                    html! {
                        <label class="chip">
                            <input type="checkbox" checked={checked} onchange={Callback::from(move |_: Event| {
                                let mut next = (*form).clone();
                                if next.calls.contains(&name) { next.calls.retain(|c| c != &name) } else { next.calls.push(name.clone()) }
                                form.set(next);
                            })} />
                            { &s.name }
                        </label>
                    }
                }) }
            </div>
            }
            <div class="form-row">
                <label>
                    <input type="checkbox" id="workload-churn" checked={form.churn.is_some()}
                        onchange={Callback::from(move |e: Event| on_churn(if browser::checked(&e) { "on".into() } else { String::new() }))} />
                    { " every " }
                </label>
                <input type="number" min="1" aria-label="Write period" disabled={form.churn.is_none()} size="6"
                    value={form.churn.as_ref().map(|c| c.period.to_string()).unwrap_or_else(|| "1000".into())}
                    onchange={Callback::from(move |e: Event| on_period(browser::value(&e)))} />
                { " iterations write " }
                { name_picker(props!(NamePickerProps {
                    label: "Class written",
                    disabled: form.churn.is_none(),
                    names: p.names.clone(),
                    value: AttrValue::from(churn_class.clone().unwrap_or_default()),
                    on_pick: Callback::from(on_class),
                })) }
                { "." }
                <input aria-label="Method written" disabled={form.churn.is_none()} size="8" spellcheck="false"
                    value={form.churn.as_ref().map(|c| c.method.clone()).unwrap_or_else(|| "dyn0".into())}
                    onchange={Callback::from(move |e: Event| on_method(browser::value(&e)))} />
            </div>
            <button id="apply-workload" type="submit">{ "Apply workload" }</button>
        </form>
    }
}
