//! The scenario as text: edit freely; a parse or validation error is shown at its `line:col`
//! (the line is marked in the gutter and behind the text) without touching what was typed.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::components::banners::message;
use crate::state::TextError;

/// Must match `.dsl-editor` in the stylesheet (line height and padding, px).
const LINE_PX: f64 = 20.0;
const PAD_PX: f64 = 8.0;

#[derive(Properties, PartialEq)]
pub struct DslEditorProps {
    pub text: AttrValue,
    pub error: Option<TextError>,
    pub on_input: Callback<String>,
    pub on_revert: Callback<()>,
}

#[function_component(DslEditor)]
pub fn dsl_editor(p: &DslEditorProps) -> Html {
    let scroll = use_state(|| 0.0f64);
    let oninput = {
        let cb = p.on_input.clone();
        Callback::from(move |e: InputEvent| cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| scroll.set(f64::from(e.target_unchecked_into::<HtmlTextAreaElement>().scroll_top())))
    };
    let revert = {
        let cb = p.on_revert.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let lines = p.text.lines().count().max(1) + usize::from(p.text.ends_with('\n'));
    let error_line = p.error.as_ref().map(|e| e.line);
    html! {
        <div class="dsl-panel">
            <div class="dsl-head">
                <h3><label for="dsl-text">{ "Scenario text (DSL)" }</label></h3>
                if p.error.is_some() {
                    <button id="revert-text" class="small" onclick={revert} title="Discard the broken text and show the last valid model">{ "Revert text" }</button>
                }
            </div>
            <div class={classes!("dsl-editor", p.error.is_some().then_some("has-error"))}>
                <div class="gutter" aria-hidden="true">
                    <div class="gutter-lines" style={format!("transform: translateY({}px)", -*scroll)}>
                        { for (1..=lines).map(|n| html! { <div class={classes!((Some(n) == error_line).then_some("error-line"))}>{ n }</div> }) }
                    </div>
                </div>
                <div class="text-wrap">
                    if let Some(line) = error_line {
                        <div class="error-band" aria-hidden="true" style={format!("top: {}px", PAD_PX + (line.max(1) - 1) as f64 * LINE_PX - *scroll)}></div>
                    }
                    <textarea id="dsl-text" value={p.text.clone()} {oninput} {onscroll} spellcheck="false" wrap="off"
                        autocomplete="off" aria-invalid={p.error.is_some().then_some("true")}
                        aria-describedby={p.error.is_some().then_some("dsl-error")} rows="24" />
                </div>
            </div>
            {
                match &p.error {
                    Some(e) => error_detail(&p.text, e),
                    None => html! { <p class="dsl-ok hint">{ "The text parses. Edits here update the model; model edits re-print this text." }</p> },
                }
            }
        </div>
    }
}

fn error_detail(text: &str, e: &TextError) -> Html {
    let line_text = text.lines().nth(e.line.saturating_sub(1)).unwrap_or("");
    let caret = format!("{}^", " ".repeat(e.col.saturating_sub(1).min(line_text.chars().count())));
    html! {
        <div id="dsl-error" class="dsl-error" role="alert">
            <p><strong>{ format!("{}:{}", e.line, e.col) }</strong>{ ": " }{ message(&e.message) }</p>
            <pre class="excerpt">{ format!("{:>4} | {line_text}\n     | {caret}", e.line) }</pre>
            <p class="hint">{ "Your text is kept as typed; the model, blast view and runs use the last valid version until it parses." }</p>
        </div>
    }
}
