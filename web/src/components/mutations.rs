//! Hand-fired mutations: each button fires one event into every running simulation at once.

use std::rc::Rc;

use blast_engine::scenario::{Event as Mutation, MetaKind};
use blast_engine::Policy;
use yew::prelude::*;
use yew::props;

use crate::browser;

use crate::components::banners::message;
use crate::components::name_picker::{name_picker, NamePickerProps};
use blast_playground::editor::is_name;
use blast_playground::session::FireOutcome;

#[derive(Properties, PartialEq)]
pub struct MutationsProps {
    /// Classes an event may target (declared, loaded by the program, or loaded by hand).
    pub classes: Rc<Vec<String>>,
    /// Method names worth suggesting for writes.
    pub methods: Rc<Vec<String>>,
    pub running: bool,
    pub last: Option<FireOutcome>,
    pub on_fire: Callback<Mutation>,
    /// Categories the scenario declares.
    pub categories: Vec<String>,
    /// Per lane, the categories active now (innermost last).
    pub active: Vec<(Policy, Vec<String>)>,
    /// (category, enter)
    pub on_fire_category: Callback<(String, bool)>,
    /// Every lane: its policy, whether it has finished, and when it did (virtual ms; 0 while it
    /// runs, so a frame's clock does not re-render the panel), for `fired_text`.
    #[prop_or_default]
    pub lanes: Vec<(Policy, bool, f64)>,
    /// "Loop until stopped" is on.
    pub loop_mode: bool,
    pub on_toggle_loop: Callback<()>,
}

/// "HotCategory" when every lane agrees, else each lane's list.
pub fn active_summary(active: &[(Policy, Vec<String>)]) -> String {
    let names = |list: &[String]| if list.is_empty() { "none".to_string() } else { list.join(" › ") };
    match active.first() {
        None => "none".into(),
        Some((_, first)) if active.iter().all(|(_, l)| l == first) => names(first),
        Some(_) => active.iter().map(|(p, l)| format!("{}: {}", p.name(), names(l))).collect::<Vec<_>>().join("; "),
    }
}

/// What a hand-fired mutation did: which lanes took `label` and which had already finished.
/// `fired` lanes took it (`FireOutcome::Fired`); the others were those that had finished by
/// then. The lanes run in lockstep of virtual time, so the lanes that had finished before the
/// fire are the finished ones that ended first (a lane finishing after it ends later).
pub fn fired_text(label: &str, fired: usize, lanes: &[(Policy, bool, f64)]) -> String {
    let skipped = lanes.len().saturating_sub(fired);
    let mut done: Vec<&(Policy, bool, f64)> = lanes.iter().filter(|l| l.1).collect();
    done.sort_by(|a, b| a.2.total_cmp(&b.2));
    let missed: Vec<Policy> = done.iter().take(skipped).map(|l| l.0).collect();
    let names = |ps: &[Policy]| match ps {
        [] => String::new(),
        [one] => one.name().to_string(),
        [init @ .., last] => format!("{} and {}", init.iter().map(|p| p.name()).collect::<Vec<_>>().join(", "), last.name()),
    };
    let took: Vec<Policy> = lanes.iter().map(|l| l.0).filter(|p| !missed.contains(p)).collect();
    match (missed.len(), took.len()) {
        (0, 1) => format!("Fired “{label}” into {}.", names(&took)),
        (0, 2) => format!("Fired “{label}” into both simulations ({}).", names(&took)),
        (0, n) if n == fired => format!("Fired “{label}” into all {n} simulations."),
        (0, _) => format!("Fired “{label}” into {fired} simulation{}.", if fired == 1 { "" } else { "s" }),
        (m, _) => format!(
            "Fired “{label}” into {} only: {} had already finished (press Run to start {} again).",
            names(&took),
            names(&missed),
            if m == 1 { "it" } else { "them" }
        ),
    }
}

/// The kind a `<select>` value names; the options are written from `MetaKind::name`.
fn kind_from(v: &str) -> MetaKind {
    v.parse().unwrap_or(MetaKind::Expando)
}

#[function_component(Mutations)]
pub fn mutations(p: &MutationsProps) -> Html {
    let class = use_state(|| p.classes.first().cloned().unwrap_or_default());
    let method = use_state(|| "dyn0".to_string());
    let kind = use_state(|| MetaKind::Stock);
    let new_class = use_state(|| "LoadedLater".to_string());
    let category = use_state(|| p.categories.first().cloned().unwrap_or_default());
    let current_category = chosen_or_first(&category, &p.categories);
    let current = chosen_or_first(&class, &p.classes);

    let on_class = {
        let class = class.clone();
        Callback::from(move |v: String| class.set(v))
    };
    let on_method = {
        let method = method.clone();
        Callback::from(move |e: InputEvent| method.set(browser::value(&e)))
    };
    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| kind.set(kind_from(&browser::value(&e))))
    };
    let on_new_class = {
        let new_class = new_class.clone();
        Callback::from(move |e: InputEvent| new_class.set(browser::value(&e)))
    };
    let on_category = {
        let category = category.clone();
        Callback::from(move |e: Event| category.set(browser::value(&e)))
    };
    let fire_category = |enter: bool| {
        let (cb, name) = (p.on_fire_category.clone(), current_category.clone());
        Callback::from(move |_: MouseEvent| cb.emit((name.clone(), enter)))
    };
    let fire = |event: Mutation| {
        let cb = p.on_fire.clone();
        Callback::from(move |_: MouseEvent| cb.emit(event.clone()))
    };
    let has_class = !current.is_empty();
    let method_ok = is_name(method.trim());
    let new_ok = is_name(new_class.trim()) && !p.classes.contains(&new_class.trim().to_string());
    let write = Mutation::Write { class: current.clone(), method: method.trim().to_string() };
    let load = Mutation::Load { class: new_class.trim().to_string(), parent: Some(current.clone()), methods: Vec::new() };
    html! {
        <div id="mutations" class="mutations" role="group" aria-labelledby="mutations-title">
            <h3 id="mutations-title">{ "Fire a mutation" }</h3>
            <div class="mutation-row">
                <label>{ "on class " }
                    { name_picker(props!(NamePickerProps {
                        id: "fire-class",
                        label: "Class the mutation targets",
                        names: p.classes.clone(),
                        value: AttrValue::from(current.clone()),
                        on_pick: on_class,
                    })) }
                </label>
                <label>{ "method " }
                    <input id="fire-method" list="fire-method-names" value={(*method).clone()} oninput={on_method} size="10"
                        aria-invalid={(!method_ok).then_some("true")} spellcheck="false" />
                </label>
                <datalist id="fire-method-names">
                    { for p.methods.iter().map(|m| html! { <option value={m.clone()} /> }) }
                </datalist>
                <button id="fire-write" class="primary" disabled={!has_class || !method_ok} onclick={fire(write.clone())}
                    title="C.metaClass.m = { … }: an in-place add on the ExpandoMetaClass">{ "Add method (write)" }</button>
            </div>
            <div class="mutation-row">
                <select id="fire-kind" onchange={on_kind} aria-label="New metaclass kind">
                    <option value={MetaKind::Stock.name()} selected={*kind == MetaKind::Stock}>{ "stock MetaClassImpl" }</option>
                    <option value={MetaKind::Expando.name()} selected={*kind == MetaKind::Expando}>{ "ExpandoMetaClass" }</option>
                    <option value={MetaKind::Custom.name()} selected={*kind == MetaKind::Custom}>{ "custom metaclass" }</option>
                </select>
                { button("fire-replace", "Replace metaclass", "C.metaClass = new …: class-scoped within the stock family, bulk if custom is involved", has_class,
                    fire(Mutation::Replace { class: current.clone(), kind: *kind })) }
                { button("fire-remove", "Remove metaclass", "metaClassRegistry.removeMetaClass(C)", has_class, fire(Mutation::Remove { class: current.clone() })) }
                { button("fire-instance", "Per-instance metaclass", "obj.metaClass = …: its class's sites stop caching", has_class,
                    fire(Mutation::PerInstance { class: current.clone() })) }
            </div>
            <div class="mutation-row">
                <label>{ "new subclass " }
                    <input id="fire-load-name" value={(*new_class).clone()} oninput={on_new_class} size="12" spellcheck="false"
                        aria-invalid={(!new_ok).then_some("true")} />
                </label>
                { button("fire-load", "Load subclass", "Load a new class extending the chosen one", has_class && new_ok, fire(load)) }
                { button("fire-invalidate", "Invalidate all", "VMPlugin.invalidateCallSites(): bulk (i)", true, fire(Mutation::InvalidateAll)) }
                { button("fire-unattributed", "Unattributed event", "A registry change with no class attributed: bulk", true, fire(Mutation::Unattributed)) }
            </div>
            <div class="mutation-row">
                <label>{ "category " }
                    <select id="fire-category" onchange={on_category} disabled={p.categories.is_empty()}>
                        { for p.categories.iter().map(|c| html! { <option value={c.clone()} selected={*c == current_category}>{ c }</option> }) }
                    </select>
                </label>
                { button("fire-category-enter", "Enter category", "use(Category) { …: entering a category is bulk (every domain)", !p.categories.is_empty(), fire_category(true)) }
                { button("fire-category-leave", "Leave category", "… }: leaving it is bulk too", !p.categories.is_empty(), fire_category(false)) }
                <span class="active-categories">{ "active now: " }<output id="active-categories">{ active_summary(&p.active) }</output></span>
            </div>
            <label class="loop-mode" title="Repeat the measured op (up to the engine's bounds) until you press Pause, so there is a running loop to fire into">
                <input type="checkbox" id="loop-mode" checked={p.loop_mode} onchange={p.on_toggle_loop.reform(|_: Event| ())} />
                { " loop until stopped" }
            </label>
            <p class="fire-outcome" aria-live="polite">
                {
                    match &p.last {
                        Some(FireOutcome::Fired { label, lanes }) => html! { <span class="ok">{ fired_text(label, *lanes, &p.lanes) }</span> },
                        Some(FireOutcome::Refused(why)) => html! { <span class="error">{ message(why) }</span> },
                        None if !p.running => html! { <span class="muted">{ "The run has finished: press Run again (with “loop until stopped” on, the loop keeps going until you pause it)." }</span> },
                        None => html! { <span class="muted">{ "Pick a class and fire: every running policy gets the event at the same virtual time." }</span> },
                    }
                }
            </p>
        </div>
    }
}

/// One of the panel's buttons: a function, so they share one copy of its markup's code.
fn button(id: &'static str, label: &'static str, title: &'static str, enabled: bool, onclick: Callback<MouseEvent>) -> Html {
    html! { <button {id} {title} disabled={!enabled} {onclick}>{ label }</button> }
}

/// The user's choice if the list still offers it, else the list's first entry: a chosen class
/// or category may vanish when the scenario changes.
fn chosen_or_first(chosen: &str, offered: &[String]) -> String {
    if offered.iter().any(|o| o == chosen) {
        chosen.to_string()
    } else {
        offered.first().cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_categories_read_once_when_the_lanes_agree() {
        let hot = vec!["HotCategory".to_string()];
        assert_eq!(active_summary(&[]), "none");
        assert_eq!(active_summary(&[(Policy::Global, hot.clone()), (Policy::Exact, hot.clone())]), "HotCategory");
        assert_eq!(active_summary(&[(Policy::Global, hot), (Policy::Exact, vec![])]), "global: HotCategory; exact: none");
    }

    #[test]
    fn a_fire_names_the_lane_that_had_finished() {
        let both = [(Policy::Global, false, 900.0), (Policy::Exact, true, 40.0)];
        assert_eq!(
            fired_text("write Hot.dyn0", 1, &both),
            "Fired “write Hot.dyn0” into global only: exact had already finished (press Run to start it again)."
        );
        let running = [(Policy::Global, false, 30.0), (Policy::Exact, false, 30.0)];
        assert_eq!(fired_text("write Hot.dyn0", 2, &running), "Fired “write Hot.dyn0” into both simulations (global and exact).");
        // exact finished after the fire (it ends later than hierarchy, which had finished before).
        let three = [(Policy::Global, false, 900.0), (Policy::Exact, true, 60.0), (Policy::Hierarchy, true, 40.0)];
        assert_eq!(fired_text("x", 2, &three), "Fired “x” into global and exact only: hierarchy had already finished (press Run to start it again).");
    }
}
