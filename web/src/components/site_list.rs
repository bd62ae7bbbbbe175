//! Call sites: a receiver class and a method each (a polymorphic site more receivers and a
//! mix); add, retarget, delete.

use std::rc::Rc;

use blast_engine::scenario::{Scenario, SiteDecl};
use yew::prelude::*;
use yew::props;

use crate::browser;

use super::name_picker::{name_picker, NamePickerProps};
use super::virtual_rows::use_window;
use blast_playground::editor::{receivers_text, EditOp, Lineages};
use blast_playground::order;

#[derive(Properties, PartialEq)]
pub struct SiteListProps {
    pub scenario: Rc<Scenario>,
    /// Every class name (the receiver pickers' list).
    pub names: Rc<Vec<String>>,
    pub epoch: u64,
    pub on_edit: Callback<EditOp>,
}

#[function_component(SiteList)]
pub fn site_list(p: &SiteListProps) -> Html {
    let name = use_state(String::new);
    let class = use_state(String::new);
    let method = use_state(String::new);
    let class_names = &p.names;
    let chosen_class = if class_names.contains(&class) { (*class).clone() } else { class_names.first().cloned().unwrap_or_default() };
    let window = use_window(p.scenario.sites.len());
    let span = window.span;
    let shown = &p.scenario.sites[span.start..span.end];
    // Method suggestions only for the receivers on screen (one list per class, not per row).
    let mut receivers: Vec<&str> = shown.iter().map(|s| s.class.as_str()).chain([chosen_class.as_str()]).collect();
    order::sort_by(&mut receivers, |a, b| a.cmp(b));
    receivers.dedup();
    let lineages = Lineages::new(&p.scenario);
    let add = {
        let (cb, name, method, chosen) = (p.on_edit.clone(), name.clone(), method.clone(), chosen_class.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit(EditOp::AddSite(SiteDecl::mono(name.trim(), chosen.clone(), method.trim())));
            name.set(String::new());
        })
    };
    let text = |s: &UseStateHandle<String>| {
        let s = s.clone();
        Callback::from(move |e: InputEvent| s.set(browser::value(&e)))
    };
    html! {
        <div class="site-list">
            <h3>{ "Call sites" }</h3>
            <div class={classes!("sites-box", window.virtualized.then_some("virtual"))} style={window.style.clone()} onscroll={window.onscroll.clone()}>
                <table class="sites">
                    <thead><tr><th>{ "site" }</th><th>{ "receiver class" }</th><th>{ "method" }</th><th>{ "more receivers · mix" }</th><th><span class="visually-hidden">{ "delete" }</span></th></tr></thead>
                    <tbody>
                        if span.before_px > 0.0 { <tr class="spacer" aria-hidden="true"><td colspan="5" style={format!("height: {}px", span.before_px)}></td></tr> }
                        { for shown.iter().map(|s| site_row(p, s)) }
                        if span.after_px > 0.0 { <tr class="spacer" aria-hidden="true"><td colspan="5" style={format!("height: {}px", span.after_px)}></td></tr> }
                    </tbody>
                </table>
            </div>
            { for receivers.into_iter().map(|c| html! {
                <datalist id={format!("methods-of-{c}")}>
                    { for lineages.callable_methods(c).into_iter().map(|m| html! { <option value={m} /> }) }
                </datalist>
            }) }
            <form class="add-row" onsubmit={add}>
                <input id="new-site-name" placeholder="site name" size="10" value={(*name).clone()} oninput={text(&name)} spellcheck="false" aria-label="New site name" />
                { name_picker(props!(NamePickerProps {
                    label: "Receiver class of the new site",
                    names: p.names.clone(),
                    value: AttrValue::from(chosen_class.clone()),
                    on_pick: { let s = class.clone(); Callback::from(move |v: String| s.set(v)) },
                })) }
                <input placeholder="method" size="10" value={(*method).clone()} oninput={text(&method)} list={format!("methods-of-{chosen_class}")} spellcheck="false" aria-label="Method of the new site" />
                <button id="add-site" type="submit">{ "Add site" }</button>
            </form>
        </div>
    }
}

fn site_row(p: &SiteListProps, s: &SiteDecl) -> Html {
    let retarget = |field: fn(&mut SiteDecl, String)| {
        let (cb, site) = (p.on_edit.clone(), s.clone());
        move |value: String| {
            let mut next = site.clone();
            field(&mut next, value.trim().to_string());
            cb.emit(EditOp::RetargetSite(next));
        }
    };
    let set_class = retarget(|s, v| s.class = v.into());
    let set_method = retarget(|s, v| s.method = v.into());
    let set_receivers = {
        let (cb, site) = (p.on_edit.clone(), s.name.to_string());
        move |text: String| cb.emit(EditOp::SetReceivers { site: site.clone(), text })
    };
    let delete = {
        let (cb, name) = (p.on_edit.clone(), s.name.to_string());
        Callback::from(move |_: MouseEvent| cb.emit(EditOp::DeleteSite(name.clone())))
    };
    html! {
        <tr data-site={s.name.to_string()} key={format!("{}#{}", s.name, p.epoch)}>
            <td><code>{ s.name.to_string() }</code></td>
            // `data-label`: the column's name, shown above each field where the rows stack (phones).
            <td data-label="receiver class">
                { name_picker(props!(NamePickerProps {
                    label: format!("Receiver class of {}", s.name),
                    names: p.names.clone(),
                    value: AttrValue::from(s.class.to_string()),
                    on_pick: Callback::from(set_class),
                })) }
            </td>
            <td data-label="method">
                <input value={s.method.to_string()} size="12" list={format!("methods-of-{}", s.class)} spellcheck="false" aria-label={format!("Method of {}", s.name)}
                    onchange={Callback::from(move |e: Event| set_method(browser::value(&e)))} />
            </td>
            <td data-label="more receivers · mix">
                <input value={receivers_text(s)} size="16" placeholder="B, C mix 60/30/10" spellcheck="false" aria-label={format!("Other receiver classes and mix of {}", s.name)}
                    onchange={Callback::from(move |e: Event| set_receivers(browser::value(&e)))} />
            </td>
            <td><button class="small danger" aria-label={format!("Delete site {}", s.name)} onclick={delete}>{ "Delete" }</button></td>
        </tr>
    }
}
