//! Model mode's inputs: one field per knob of the model. A value is applied when the field
//! changes (Enter or leaving it); a refused one stays in its field with the reason beside it.

use blast_engine::models::ModelConfig;
use yew::prelude::*;

use crate::browser;

use crate::components::banners::message;
use blast_playground::model_knobs;
use blast_playground::model_mode::KnobError;

pub struct KnobsProps {
    pub config: ModelConfig,
    pub error: Option<KnobError>,
    /// (knob, typed value)
    pub on_set: Callback<(String, String)>,
}

pub fn knobs(p: &KnobsProps) -> Html {
    html! {
        <div id="knobs" class="mutations knobs" role="group" aria-labelledby="knobs-title">
            <h3 id="knobs-title">{ "Model knobs" }</h3>
            <div class="mutation-row">
                { for model_knobs::knobs(&p.config).iter().map(|k| {
                    let refused = p.error.as_ref().filter(|e| e.knob == k.name);
                    let value = match refused {
                        Some(e) => e.text.clone(),
                        None => model_knobs::value(&p.config, k.name).map(|v| v.to_string()).unwrap_or_default(),
                    };
                    let (cb, name) = (p.on_set.clone(), k.name.to_string());
                    let onchange = Callback::from(move |e: Event| cb.emit((name.clone(), browser::value(&e))));
                    html! {
                        <label title={format!("{} ({}–{})", k.help, k.min, k.max)}>{ format!("{} ", k.label) }
                            <input id={format!("knob-{}", k.name)} class="knob" inputmode="numeric" size="8" spellcheck="false" {value} {onchange}
                                aria-invalid={refused.is_some().then_some("true")} aria-describedby="knob-message" />
                        </label>
                    }
                }) }
            </div>
            <p id="knob-message" class="fire-outcome" aria-live="polite">
                {
                    match &p.error {
                        Some(e) => html! { <span class="error" id="knob-error">{ message(&e.message) }</span> },
                        None => html! { <span class="muted">{ "Change a knob and press Enter (or leave the field): the model runs again and the replay starts over." }</span> },
                    }
                }
            </p>
        </div>
    }
}
