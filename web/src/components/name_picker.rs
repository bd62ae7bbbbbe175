//! Picks one name (a class, a site) from a list of any length.
//!
//! A short list is a plain `<select>`. A long one is a text field that searches: typing shows
//! the first matches in a list box, Enter or a click takes one, and only a name that exists
//! is ever emitted. A `<select>` per editor row of a 2,000-class world rendered 2.7 million
//! `<option>` elements; this renders at most [`MAX_SHOWN`] however long the list.

use std::rc::Rc;

use yew::prelude::*;

use crate::browser;

/// Lists up to this long stay a `<select>` (scanning them by eye is quicker than typing).
pub const SELECT_MAX: usize = 60;
/// Matches shown under the search field.
pub const MAX_SHOWN: usize = 8;

#[derive(Properties, PartialEq, Clone)]
pub struct NamePickerProps {
    pub names: Rc<Vec<String>>,
    /// The current name ("" = none).
    pub value: AttrValue,
    /// Offer "none" under this label (emitted as "").
    #[prop_or_default]
    pub none_label: Option<AttrValue>,
    /// A name never offered (a class cannot be its own parent).
    #[prop_or_default]
    pub exclude: Option<AttrValue>,
    #[prop_or_default]
    pub id: Option<AttrValue>,
    pub label: AttrValue,
    #[prop_or_default]
    pub disabled: bool,
    pub on_pick: Callback<String>,
}

/// The first `limit` names containing `query` (case-insensitive), names starting with it first.
pub fn matches<'a>(names: &'a [String], query: &str, exclude: Option<&str>, limit: usize) -> Vec<&'a str> {
    let q = query.trim().to_ascii_lowercase();
    let candidates = names.iter().map(String::as_str).filter(|n| Some(*n) != exclude);
    let mut prefix: Vec<&str> = Vec::new();
    let mut inner: Vec<&str> = Vec::new();
    for n in candidates {
        if prefix.len() >= limit {
            break;
        }
        let lower = n.to_ascii_lowercase();
        if lower.starts_with(&q) {
            prefix.push(n);
        } else if inner.len() < limit && lower.contains(&q) {
            inner.push(n);
        }
    }
    prefix.extend(inner);
    prefix.truncate(limit);
    prefix
}

/// The picker: a plain function, not a component (its callers' `on_pick` is new at each of
/// their renders, so a component's props check never skipped it); the searching one is a
/// component, for its state.
pub fn name_picker(p: NamePickerProps) -> Html {
    if p.names.len() <= SELECT_MAX {
        return select(&p);
    }
    html! { <SearchPicker ..p /> }
}

fn select(p: &NamePickerProps) -> Html {
    let on_pick = p.on_pick.clone();
    html! {
        <select id={p.id.clone()} aria-label={p.label.clone()} disabled={p.disabled}
            onchange={Callback::from(move |e: Event| on_pick.emit(browser::value(&e)))}>
            if let Some(none) = &p.none_label {
                <option value="" selected={p.value.is_empty()}>{ none }</option>
            }
            { for p.names.iter().filter(|n| p.exclude.as_deref() != Some(n.as_str())).map(|n| html! {
                <option value={n.clone()} selected={p.value == n.as_str()}>{ n }</option>
            }) }
        </select>
    }
}

#[function_component(SearchPicker)]
fn search_picker(p: &NamePickerProps) -> Html {
    let text = use_state(|| p.value.to_string());
    let open = use_state(|| false);
    {
        // A new value from outside (an edit elsewhere, undo) replaces what the field shows.
        let text = text.clone();
        use_effect_with(p.value.clone(), move |v| text.set(v.to_string()));
    }
    let shown: Vec<String> = if *open { matches(&p.names, &text, p.exclude.as_deref(), MAX_SHOWN).into_iter().map(String::from).collect() } else { Vec::new() };
    let none = p.none_label.is_some();
    // Emit `name` if it is a real choice (or "" when none is allowed); otherwise show the value again.
    let commit = {
        let (p, text, open) = (p.clone(), text.clone(), open.clone());
        Callback::from(move |name: String| {
            let name = name.trim().to_string();
            let valid = (name.is_empty() && none) || (p.exclude.as_deref() != Some(name.as_str()) && p.names.contains(&name));
            open.set(false);
            if valid {
                text.set(name.clone());
                if name != p.value.as_str() {
                    p.on_pick.emit(name);
                }
            } else {
                text.set(p.value.to_string());
            }
        })
    };
    let on_input = {
        let (text, open) = (text.clone(), open.clone());
        Callback::from(move |e: InputEvent| {
            text.set(browser::value(&e));
            open.set(true);
        })
    };
    let on_key = {
        let (commit, first, open, text, value, names) =
            (commit.clone(), shown.first().cloned(), open.clone(), text.clone(), p.value.to_string(), p.names.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                let typed = browser::value(&e).trim().to_string();
                // An exact name wins over the first match; an empty field means "none".
                let exact = typed.is_empty() || names.contains(&typed);
                commit.emit(if exact { typed } else { first.clone().unwrap_or(typed) });
            }
            "Escape" => {
                open.set(false);
                text.set(value.clone());
            }
            "ArrowDown" => open.set(true),
            _ => {}
        })
    };
    let on_blur = {
        let commit = commit.clone();
        Callback::from(move |e: FocusEvent| commit.emit(browser::value(&e)))
    };
    let list_id = p.id.as_ref().map(|id| format!("{id}-matches"));
    html! {
        <span class="name-picker">
            <input id={p.id.clone()} type="text" value={(*text).clone()} aria-label={p.label.clone()} disabled={p.disabled}
                role="combobox" aria-autocomplete="list" aria-expanded={(!shown.is_empty()).to_string()} aria-controls={list_id.clone()}
                placeholder={p.none_label.clone().unwrap_or_else(|| AttrValue::from("type to search…"))} spellcheck="false" autocomplete="off"
                onfocus={let open = open.clone(); Callback::from(move |_: FocusEvent| open.set(true))}
                oninput={on_input} onkeydown={on_key} onblur={on_blur} />
            if !shown.is_empty() {
                <ul class="picker-matches" role="listbox" id={list_id}>
                    { for shown.into_iter().map(|n| {
                        let commit = commit.clone();
                        let name = n.clone();
                        // mousedown, not click: it lands before the field's blur commits what was typed.
                        html! { <li role="option" aria-selected={(p.value == n.as_str()).to_string()}
                            onmousedown={Callback::from(move |e: MouseEvent| { e.prevent_default(); commit.emit(name.clone()) })}>{ n }</li> }
                    }) }
                </ul>
            }
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_matches_come_first_and_the_list_is_capped() {
        let names: Vec<String> = ["Hot", "Other", "HotChild", "xhot"].iter().map(|s| s.to_string()).collect();
        assert_eq!(matches(&names, "hot", None, 8), vec!["Hot", "HotChild", "xhot"]);
        assert_eq!(matches(&names, "hot", Some("Hot"), 2), vec!["HotChild", "xhot"]);
        let many: Vec<String> = (0..100_000).map(|i| format!("K{i}")).collect();
        assert_eq!(matches(&many, "k9999", None, MAX_SHOWN).len(), MAX_SHOWN);
        assert!(matches(&many, "nothing", None, MAX_SHOWN).is_empty());
    }
}
