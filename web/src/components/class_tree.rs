//! The class hierarchy as an editable tree: rename, re-parent, delete, methods, metaclass kind.

use std::collections::HashMap;
use std::rc::Rc;

use blast_engine::scenario::{ClassDecl, MetaKind, Scenario};
use yew::prelude::*;
use yew::props;

use crate::browser;

use super::name_picker::{name_picker, NamePickerProps};
use super::virtual_rows::use_window;
use blast_playground::editor::EditOp;

#[derive(Properties, PartialEq)]
pub struct ClassTreeProps {
    /// The classes are `scenario.classes` (shared, not copied per render).
    pub scenario: Rc<Scenario>,
    /// Every class name, in declaration order (the pickers' list).
    pub names: Rc<Vec<String>>,
    /// Changes on every edit attempt, so inputs show the model again after a refused edit.
    pub epoch: u64,
    pub on_edit: Callback<EditOp>,
}

const KINDS: [(MetaKind, &str); 4] = [(MetaKind::None, "none yet"), (MetaKind::Stock, "stock"), (MetaKind::Expando, "expando"), (MetaKind::Custom, "custom")];

fn kind_of(v: &str) -> MetaKind {
    v.parse().unwrap_or_default()
}

/// Depth-first order with depths; classes whose parent is unknown count as roots, and
/// classes only reachable through a cycle are listed after the rest. Linear and iterative: a
/// 5,000-deep chain neither recurses 5,000 frames nor scans the list per class.
fn tree_order(classes: &[ClassDecl]) -> Vec<(usize, usize)> {
    let index: HashMap<&str, usize> = classes.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); classes.len()];
    let mut roots = Vec::new();
    for (i, c) in classes.iter().enumerate() {
        match c.parent.as_deref().and_then(|p| index.get(p)) {
            Some(&p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let mut seen = vec![false; classes.len()];
    let mut out = Vec::with_capacity(classes.len());
    for start in roots.into_iter().chain(0..classes.len()) {
        let mut stack = vec![(start, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            out.push((i, depth));
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    out
}

#[function_component(ClassTree)]
pub fn class_tree(p: &ClassTreeProps) -> Html {
    let new_name = use_state(String::new);
    let new_parent = use_state(String::new);
    // Bumps per submitted class: remounts the parent list, since a list the user has picked
    // from ignores a changed `selected` attribute.
    let added = use_state(|| 0u32);
    let add = {
        let (cb, name, parent, added) = (p.on_edit.clone(), new_name.clone(), new_parent.clone(), added.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let chosen = if parent.is_empty() { None } else { Some((*parent).clone()) };
            cb.emit(EditOp::AddClass { name: name.trim().to_string(), parent: chosen });
            // A fresh row for the next class: a parent kept from the last one would be applied silently.
            name.set(String::new());
            parent.set(String::new());
            added.set(*added + 1);
        })
    };
    let classes = &p.scenario.classes;
    let order = use_memo(p.scenario.clone(), |s| tree_order(&s.classes));
    let window = use_window(order.len());
    let span = window.span;
    html! {
        <div class="class-tree">
            <h3>{ "Classes" }if window.virtualized { <span class="muted">{ format!(" ({}; scroll the list)", blast_playground::format::count(classes.len() as u64)) }</span> }</h3>
            <ul class={classes!("tree", window.virtualized.then_some("virtual"))} role="tree" style={window.style.clone()} onscroll={window.onscroll.clone()}>
                <li class="tree-head" aria-hidden="true"><span>{ "class" }</span><span>{ "extends" }</span><span>{ "metaclass" }</span><span>{ "methods" }</span><span></span></li>
                if span.before_px > 0.0 { <li class="spacer" aria-hidden="true" style={format!("height: {}px", span.before_px)}></li> }
                { for order[span.start..span.end].iter().map(|&(i, depth)| class_row(p, &classes[i], depth)) }
                if span.after_px > 0.0 { <li class="spacer" aria-hidden="true" style={format!("height: {}px", span.after_px)}></li> }
            </ul>
            <form class="add-row" onsubmit={add}>
                <input id="new-class-name" placeholder="NewClass" value={(*new_name).clone()} spellcheck="false" aria-label="New class name"
                    oninput={let s = new_name.clone(); Callback::from(move |e: InputEvent| s.set(browser::value(&e)))} />
                // Keyed by the classes added: the picker starts over after each (its label is replaced).
                <label key={*added}>{ "extends " }
                    { name_picker(props!(NamePickerProps {
                        id: "new-class-parent",
                        label: "Parent of the new class",
                        names: p.names.clone(),
                        value: AttrValue::from((*new_parent).clone()),
                        none_label: "(nothing)",
                        on_pick: { let s = new_parent.clone(); Callback::from(move |v: String| s.set(v)) },
                    })) }
                </label>
                <button id="add-class" type="submit">{ "Add class" }</button>
            </form>
        </div>
    }
}

fn class_row(p: &ClassTreeProps, c: &ClassDecl, depth: usize) -> Html {
    let name = c.name.clone();
    let emit = |f: fn(String, String) -> EditOp| {
        let (cb, name) = (p.on_edit.clone(), name.clone());
        move |value: String| cb.emit(f(name.clone(), value))
    };
    let rename = emit(|from, to| EditOp::RenameClass { from, to: to.trim().to_string() });
    let reparent = emit(|class, parent| EditOp::Reparent { class, parent: (!parent.is_empty()).then_some(parent) });
    let set_kind = emit(|class, kind| EditOp::SetMetaclass { class, kind: kind_of(&kind) });
    let add_method = emit(|class, method| EditOp::AddMethod { class, method: method.trim().to_string() });
    let delete = {
        let (cb, name) = (p.on_edit.clone(), name.clone());
        Callback::from(move |_: MouseEvent| cb.emit(EditOp::DeleteClass(name.clone())))
    };
    html! {
        <li class="tree-row" role="treeitem" aria-level={(depth + 1).to_string()} data-class={name.clone()}
            style={format!("--depth: {depth}")} key={format!("{name}#{}", p.epoch)}>
            <span class="tree-name">
                <span class="tree-branch" aria-hidden="true">{ if depth > 0 { "└" } else { "" } }</span>
                <input class="class-name-input" value={name.clone()} aria-label={format!("Name of {name}")} spellcheck="false"
                    onchange={Callback::from(move |e: Event| rename(browser::value(&e)))} />
            </span>
            { name_picker(props!(NamePickerProps {
                label: format!("Parent of {name}"),
                names: p.names.clone(),
                value: AttrValue::from(c.parent.clone().unwrap_or_default()),
                none_label: "(nothing)",
                exclude: AttrValue::from(name.clone()),
                on_pick: Callback::from(reparent),
            })) }
            <select aria-label={format!("Metaclass of {name}")} onchange={Callback::from(move |e: Event| set_kind(browser::value(&e)))}>
                { for KINDS.iter().map(|(k, label)| html! { <option value={MetaKind::name(*k)} selected={c.metaclass == *k}>{ *label }</option> }) }
            </select>
            <span class="methods">
                { for c.methods.iter().map(|m| {
                    let (cb, class, method) = (p.on_edit.clone(), name.clone(), m.clone());
                    html! {
                        <span class="chip method">{ m }
                            <button class="chip-x" aria-label={format!("Remove method {m}")} title="Remove method"
                                onclick={Callback::from(move |_: MouseEvent| cb.emit(EditOp::RemoveMethod { class: class.clone(), method: method.clone() }))}>{ "×" }</button>
                        </span>
                    }
                }) }
                <input class="add-method" placeholder="+ method" size="9" spellcheck="false" aria-label={format!("Add a method to {name}")}
                    onkeydown={Callback::from(move |e: KeyboardEvent| {
                        if e.key() == "Enter" {
                            e.prevent_default();
                            add_method(browser::value(&e));
                            browser::clear_value(&e);
                        }
                    })} />
            </span>
            <button class="small danger" title={format!("Delete {name}")} aria-label={format!("Delete class {name}")} onclick={delete}>{ "Delete" }</button>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, parent: Option<&str>) -> ClassDecl {
        ClassDecl { name: name.into(), parent: parent.map(Into::into), methods: vec![], metaclass: MetaKind::None, costs: vec![] }
    }

    #[test]
    fn children_follow_their_parent_with_depth() {
        let classes = vec![decl("C", Some("A")), decl("A", None), decl("B", None), decl("D", Some("C"))];
        assert_eq!(tree_order(&classes), vec![(1, 0), (0, 1), (3, 2), (2, 0)]);
    }

    #[test]
    fn a_cycle_still_lists_every_class_once() {
        let classes = vec![decl("A", Some("B")), decl("B", Some("A"))];
        let order = tree_order(&classes);
        assert_eq!(order.len(), 2);
    }
}
