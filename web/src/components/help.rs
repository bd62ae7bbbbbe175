//! The keyboard cheat sheet (press `?`).

use yew::prelude::*;

use crate::keys::SHORTCUTS;

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub on_close: Callback<()>,
}

#[function_component(Help)]
pub fn help(p: &HelpProps) -> Html {
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let stop = Callback::from(|e: MouseEvent| e.stop_propagation());
    html! {
        <div class="overlay" onclick={close.clone()}>
            <div id="cheat-sheet" class="dialog" role="dialog" aria-modal="true" aria-labelledby="cheat-title" onclick={stop}>
                <header class="dialog-head">
                    <h2 id="cheat-title">{ "Keyboard shortcuts" }</h2>
                    <button class="icon" aria-label="Close" onclick={close}>{ "×" }</button>
                </header>
                <table class="shortcuts">
                    <tbody>
                        { for SHORTCUTS.iter().map(|s| html! {
                            <tr>
                                <td>{ for s.keys.iter().map(|k| if *k == "…" { html! { <span>{ " … " }</span> } } else { html! { <kbd>{ *k }</kbd> } }) }</td>
                                <td>{ s.what }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                <p class="hint">{ "Shortcuts are ignored while typing in a text field." }</p>
            </div>
        </div>
    }
}
