//! Call sites: a receiver class and a method each; add, retarget, delete.

use blast_engine::model::{Scenario, SiteDecl};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::editor::{callable_methods, EditOp};

#[derive(Properties, PartialEq)]
pub struct SiteListProps {
    pub scenario: Scenario,
    pub epoch: u64,
    pub on_edit: Callback<EditOp>,
}

#[function_component(SiteList)]
pub fn site_list(p: &SiteListProps) -> Html {
    let name = use_state(String::new);
    let class = use_state(String::new);
    let method = use_state(String::new);
    let class_names: Vec<String> = p.scenario.classes.iter().map(|c| c.name.clone()).collect();
    let chosen_class = if class_names.contains(&class) { (*class).clone() } else { class_names.first().cloned().unwrap_or_default() };
    let add = {
        let (cb, name, method, chosen) = (p.on_edit.clone(), name.clone(), method.clone(), chosen_class.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit(EditOp::AddSite(SiteDecl { name: name.trim().to_string(), class: chosen.clone(), method: method.trim().to_string() }));
            name.set(String::new());
        })
    };
    let text = |s: &UseStateHandle<String>| {
        let s = s.clone();
        Callback::from(move |e: InputEvent| s.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    html! {
        <div class="site-list">
            <h3>{ "Call sites" }</h3>
            <table class="sites">
                <thead><tr><th>{ "site" }</th><th>{ "receiver class" }</th><th>{ "method" }</th><th></th></tr></thead>
                <tbody>
                    { for p.scenario.sites.iter().map(|s| site_row(p, s, &class_names)) }
                </tbody>
            </table>
            { for p.scenario.classes.iter().map(|c| html! {
                <datalist id={format!("methods-of-{}", c.name)}>
                    { for callable_methods(&p.scenario, &c.name).into_iter().map(|m| html! { <option value={m} /> }) }
                </datalist>
            }) }
            <form class="add-row" onsubmit={add}>
                <input id="new-site-name" placeholder="site name" size="10" value={(*name).clone()} oninput={text(&name)} spellcheck="false" aria-label="New site name" />
                <select aria-label="Receiver class of the new site" onchange={let s = class.clone(); Callback::from(move |e: Event| s.set(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                    { for class_names.iter().map(|c| html! { <option value={c.clone()} selected={*c == chosen_class}>{ c }</option> }) }
                </select>
                <input placeholder="method" size="10" value={(*method).clone()} oninput={text(&method)} list={format!("methods-of-{chosen_class}")} spellcheck="false" aria-label="Method of the new site" />
                <button id="add-site" type="submit">{ "Add site" }</button>
            </form>
        </div>
    }
}

fn site_row(p: &SiteListProps, s: &SiteDecl, class_names: &[String]) -> Html {
    let retarget = |field: fn(&mut SiteDecl, String)| {
        let (cb, site) = (p.on_edit.clone(), s.clone());
        move |value: String| {
            let mut next = site.clone();
            field(&mut next, value.trim().to_string());
            cb.emit(EditOp::RetargetSite(next));
        }
    };
    let set_class = retarget(|s, v| s.class = v);
    let set_method = retarget(|s, v| s.method = v);
    let delete = {
        let (cb, name) = (p.on_edit.clone(), s.name.clone());
        Callback::from(move |_: MouseEvent| cb.emit(EditOp::DeleteSite(name.clone())))
    };
    html! {
        <tr data-site={s.name.clone()} key={format!("{}#{}", s.name, p.epoch)}>
            <td><code>{ &s.name }</code></td>
            <td>
                <select aria-label={format!("Receiver class of {}", s.name)} onchange={Callback::from(move |e: Event| set_class(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                    { for class_names.iter().map(|c| html! { <option value={c.clone()} selected={*c == s.class}>{ c }</option> }) }
                </select>
            </td>
            <td>
                <input value={s.method.clone()} size="12" list={format!("methods-of-{}", s.class)} spellcheck="false" aria-label={format!("Method of {}", s.name)}
                    onchange={Callback::from(move |e: Event| set_method(e.target_unchecked_into::<HtmlInputElement>().value()))} />
            </td>
            <td><button class="small danger" aria-label={format!("Delete site {}", s.name)} onclick={delete}>{ "Delete" }</button></td>
        </tr>
    }
}
