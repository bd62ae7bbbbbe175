//! Model mode's expectations panel: the preset's `expect` lines about its variants
//! (`blast_engine::expect::model`) as pass / fail / pending against the variants' runs, so a
//! knob that breaks what the published row shows is seen at once.

use std::rc::Rc;

use blast_engine::expect::model::{self, ModelOutcome, Placed};
use blast_engine::expect::Status;
use blast_engine::models::ModelConfig;
use yew::prelude::*;

use blast_playground::model_mode::outcomes;
use blast_playground::model_runner::VariantView;

pub struct ModelExpectationsProps {
    /// The preset's expectation lines.
    pub text: &'static str,
    pub config: ModelConfig,
    pub views: Vec<Rc<VariantView>>,
}

pub fn model_expectations(p: &ModelExpectationsProps) -> Html {
    let placed = match model::parse(p.text, &p.config) {
        Ok(placed) => placed,
        Err(e) => {
            return html! { <section id="expectations" class="panel"><p class="error">{ format!("The preset's expectations do not parse: {e}") }</p></section> }
        }
    };
    let outcomes = outcomes(&placed, &p.views);
    let count = |st: Status| outcomes.iter().filter(|o| o.status == st).count();
    html! {
        <section id="expectations" class="panel" aria-labelledby="expectations-title">
            <header class="panel-head">
                <h2 id="expectations-title">{ "Expectations" }</h2>
                <p class="hint" id="expectations-summary" aria-live="polite">
                    { format!("{} pass · {} fail · {} pending", count(Status::Pass), count(Status::Fail), count(Status::Pending)) }
                </p>
            </header>
            <ul class="expectations">
                { for outcomes.iter().filter_map(|o| Some((o, placed.get(o.index)?))).map(row) }
            </ul>
        </section>
    }
}

fn row((o, p): (&ModelOutcome, &Placed)) -> Html {
    let status = o.status.name();
    let text = p.expectation.to_string();
    html! {
        <li class={classes!("expectation", format!("status-{status}"))} data-status={status} data-index={o.index.to_string()} key={o.index}>
            <div class="expect-head">
                <span class="badge expect-badge">{ status }</span>
                <code class="expect-text">{ text.strip_prefix("expect ").unwrap_or(&text).to_string() }</code>
            </div>
            if o.status != Status::Pass {
                <p class="expect-detail muted">
                    if o.status == Status::Fail {
                        { format!("expected {} · ", p.expectation.expected()) }
                    }
                    { o.observed.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ") }
                </p>
            }
        </li>
    }
}
