//! Model mode's expectations panel: the preset's `expect` lines about its variants
//! (`blast_engine::expect::model`) as pass / fail / pending against the variants' runs, so a
//! knob that breaks what the published row shows is seen at once.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::expect::model::{self, ModelOutcome, Placed};
use blast_engine::expect::Status;
use blast_engine::models::ModelConfig;
use yew::prelude::*;

use crate::components::raw;
use blast_playground::markup::escape;
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
    let mut list = String::from(r#"<ul class="expectations">"#);
    for (o, placed) in outcomes.iter().filter_map(|o| Some((o, placed.get(o.index)?))) {
        row(&mut list, o, placed);
    }
    list.push_str("</ul>");
    html! {
        <section id="expectations" class="panel" aria-labelledby="expectations-title">
            <header class="panel-head">
                <h2 id="expectations-title">{ "Expectations" }</h2>
                <p class="hint" id="expectations-summary" aria-live="polite">
                    { format!("{} pass · {} fail · {} pending", count(Status::Pass), count(Status::Fail), count(Status::Pending)) }
                </p>
            </header>
            // Read-only: one markup string (`blast_playground::markup`), the text escaped.
            { raw(list) }
        </section>
    }
}

/// An expectation and its status: the list is read-only, so it is markup, not nodes.
fn row(s: &mut String, o: &ModelOutcome, p: &Placed) {
    let status = o.status.name();
    let text = p.expectation.to_string();
    let _ = write!(
        s,
        r#"<li class="expectation status-{status}" data-status="{status}" data-index="{}"><div class="expect-head"><span class="badge expect-badge">{status}</span><code class="expect-text">{}</code></div>"#,
        o.index,
        escape(text.strip_prefix("expect ").unwrap_or(&text))
    );
    if o.status != Status::Pass {
        let expected = if o.status == Status::Fail { format!("expected {} · ", p.expectation.expected()) } else { String::new() };
        let observed = o.observed.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ");
        let _ = write!(s, r#"<p class="expect-detail muted">{}{}</p>"#, escape(&expected), escape(&observed));
    }
    s.push_str("</li>");
}
