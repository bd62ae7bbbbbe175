//! Model mode's expectations panel: the preset's `expect` lines about its variants
//! (`blast_engine::expect::model`) as pass / fail / pending against the variants' runs, so a
//! knob that breaks what the published row shows is seen at once. The engine worker parses and
//! checks them (`model_wire::Checked`); this only shows what it said.

use std::fmt::Write;

use blast_engine::expect::Status;
use blast_playground::worker::model_wire::{Checked, CheckedRow};
use yew::prelude::*;

use crate::components::raw;
use blast_playground::markup::escape;

pub fn model_expectations(checked: &Checked) -> Html {
    if let Some(why) = &checked.unparsed {
        return html! { <section id="expectations" class="panel"><p class="error">{ format!("The preset's expectations do not parse: {why}") }</p></section> };
    }
    let count = |st: Status| checked.rows.iter().filter(|r| r.status == st).count();
    let mut list = String::from(r#"<ul class="expectations">"#);
    for r in &checked.rows {
        row(&mut list, r);
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
fn row(s: &mut String, r: &CheckedRow) {
    let status = r.status.name();
    let _ = write!(
        s,
        r#"<li class="expectation status-{status}" data-status="{status}" data-index="{}"><div class="expect-head"><span class="badge expect-badge">{status}</span><code class="expect-text">{}</code></div>"#,
        r.index,
        escape(&r.claim)
    );
    if let Some(detail) = &r.detail {
        let _ = write!(s, r#"<p class="expect-detail muted">{}</p>"#, escape(detail));
    }
    s.push_str("</li>");
}
