//! The keyboard cheat sheet (press `?`): a modal dialog that takes the focus when it opens,
//! keeps Tab inside itself, and gives the focus back to where it was when it closes.

use yew::prelude::*;

use std::fmt::Write;

use crate::browser;
use crate::components::raw;
use blast_playground::keys::SHORTCUTS;
use blast_playground::markup::escape;

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub on_close: Callback<()>,
}

/// The tab stop Tab (or Shift+Tab, `back`) moves to among `len` stops from `current`,
/// wrapping at either end; from outside the stops it enters at the first (or last).
pub fn next_tab_stop(len: usize, current: Option<usize>, back: bool) -> Option<usize> {
    if len == 0 {
        return None;
    }
    Some(match (current, back) {
        (None, false) => 0,
        (None, true) => len - 1,
        (Some(i), false) => (i + 1) % len,
        (Some(i), true) => (i + len - 1) % len,
    })
}

/// The shortcuts and the note under them: read-only, so markup (`blast_playground::markup`).
fn shortcuts_table() -> String {
    let mut s = String::from(r#"<table class="shortcuts"><tbody>"#);
    for shortcut in SHORTCUTS.iter() {
        s.push_str("<tr><td>");
        for k in shortcut.keys {
            let _ = if *k == "…" { write!(s, "<span> … </span>") } else { write!(s, "<kbd>{}</kbd>", escape(k)) };
        }
        let _ = write!(s, "</td><td>{}</td></tr>", escape(shortcut.what));
    }
    s.push_str(concat!(
        r#"</tbody></table><p class="hint">Shortcuts are ignored while typing in a text field. On a focused button, checkbox or list, "#,
        "Space, Enter and the arrow keys keep operating it.</p>"
    ));
    s
}

#[function_component(Help)]
pub fn help(p: &HelpProps) -> Html {
    let dialog = use_node_ref();
    let close_button = use_node_ref();
    {
        let close_button = close_button.clone();
        use_effect_with((), move |_| {
            let before = browser::focused_element();
            browser::focus_node(&close_button);
            // Back to the control that opened it (the `?` button, or wherever the key was pressed).
            move || {
                if let Some(el) = before {
                    browser::refocus(&el);
                }
            }
        });
    }
    let trap_tab = {
        let dialog = dialog.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" && browser::move_focus_within(&dialog, |count, current| next_tab_stop(count, current, e.shift_key())) {
                e.prevent_default();
            }
        })
    };
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    html! {
        <div class="overlay" onclick={close.clone()}>
            <div id="cheat-sheet" class="dialog" role="dialog" aria-modal="true" aria-labelledby="cheat-title" ref={dialog}
                onclick={stop} onkeydown={trap_tab}>
                <header class="dialog-head">
                    <h2 id="cheat-title">{ "Keyboard shortcuts" }</h2>
                    <button class="icon" aria-label="Close" onclick={close} ref={close_button}>{ "×" }</button>
                </header>
                { raw(shortcuts_table()) }
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_wraps_inside_the_dialog() {
        assert_eq!(next_tab_stop(3, Some(2), false), Some(0));
        assert_eq!(next_tab_stop(3, Some(0), true), Some(2));
        assert_eq!(next_tab_stop(3, Some(1), false), Some(2));
        assert_eq!(next_tab_stop(1, Some(0), false), Some(0), "one stop keeps the focus");
        assert_eq!(next_tab_stop(3, None, false), Some(0), "from outside, Tab enters at the top");
        assert_eq!(next_tab_stop(3, None, true), Some(2));
        assert_eq!(next_tab_stop(0, None, false), None);
    }
}
