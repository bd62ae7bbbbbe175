//! The expectations panel: each `expect` line of the scenario as pass / fail / pending against
//! the lanes while they run (`blast_engine::expect`); a failure lists the relinks that caused
//! it, and a click on one shows it in the why panel.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::expect::{Cause, Expectation, Outcome, Status};
use blast_engine::Policy;
use yew::prelude::*;

use crate::components::{raw, raw_static};
use blast_playground::format;
use blast_playground::markup::escape;
use blast_playground::runner::phase_name;

/// Text lines of the failed expectations, for the DSL view's gutter.
pub fn failed_lines(outcomes: &[Outcome], lines: &[Option<usize>]) -> Vec<usize> {
    outcomes.iter().filter(|o| o.status == Status::Fail).filter_map(|o| lines.get(o.index).copied().flatten()).collect()
}

/// Policies the expectations read that have no lane.
pub fn missing_policies(expectations: &[Expectation], lanes: &[Policy]) -> Vec<Policy> {
    Policy::ALL.iter().copied().filter(|p| !lanes.contains(p) && expectations.iter().any(|e| e.policies().contains(p))).collect()
}

/// How a cause reads in the panel and the why panel.
pub fn cause_text(c: &Cause) -> String {
    let event = c.event_label.clone().unwrap_or_else(|| "an unrecorded event".into());
    format!("`{event}` relinked {} ({}) under {}, {} op {}, at {}", c.site, c.verdict, c.policy, phase_name(c.phase), c.op, format::duration_ms(c.t_ms))
}

pub struct ExpectationsProps {
    pub expectations: Rc<Vec<Expectation>>,
    pub outcomes: Rc<Vec<Outcome>>,
    pub lines: Rc<Vec<Option<usize>>>,
    /// The policies with a lane now.
    pub lanes: Vec<Policy>,
    pub on_add_lanes: Callback<Vec<Policy>>,
    pub on_cause: Callback<Cause>,
}

pub fn expectations(p: &ExpectationsProps) -> Html {
    let count = |st: Status| p.outcomes.iter().filter(|o| o.status == st).count();
    let missing = missing_policies(&p.expectations, &p.lanes);
    let add = {
        let (cb, missing) = (p.on_add_lanes.clone(), missing.clone());
        Callback::from(move |_: MouseEvent| cb.emit(missing.clone()))
    };
    html! {
        <section id="expectations" class="panel" aria-labelledby="expectations-title">
            <header class="panel-head">
                <h2 id="expectations-title">{ "Expectations" }</h2>
                if !p.expectations.is_empty() {
                    <p class="hint" id="expectations-summary" aria-live="polite">
                        { format!("{} pass · {} fail · {} pending", count(Status::Pass), count(Status::Fail), count(Status::Pending)) }
                    </p>
                }
            </header>
            if p.expectations.is_empty() {
                { raw_static(concat!(
                    r#"<p class="hint">This scenario states no expectations. Add `expect` lines to its text, e.g. "#,
                    "<code>expect under exact: write Unrelated.* relinks nothing</code> (docs/EXPECTATIONS.md).</p>"
                )) }
            } else {
                if !missing.is_empty() {
                    <p class="expect-missing">
                        { format!("Some expectations read the {} run{}, which {} no lane. ", names(&missing), if missing.len() == 1 { "" } else { "s" }, if missing.len() == 1 { "has" } else { "have" }) }
                        <button id="expect-add-lanes" class="small" onclick={add}>{ "Add the lanes" }</button>
                    </p>
                }
                <ul class="expectations">
                    { for p.outcomes.iter().filter_map(|o| Some((o, p.expectations.get(o.index)?))).map(|(o, e)| row(o, e, p.lines.get(o.index).copied().flatten(), &p.on_cause)) }
                </ul>
            }
        </section>
    }
}

fn names(policies: &[Policy]) -> String {
    policies.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

fn row(o: &Outcome, e: &Expectation, line: Option<usize>, on_cause: &Callback<Cause>) -> Html {
    let status = o.status.name();
    let text = e.to_string();
    // The head and the detail are read-only: markup (`blast_playground::markup`), the text escaped.
    let line = line.map(|line| format!(r#"<span class="expect-line muted">line {line}</span>"#)).unwrap_or_default();
    let mut head = format!(
        r#"<div class="expect-head"><span class="badge expect-badge">{status}</span>{line}<code class="expect-text">{}</code></div>"#,
        escape(text.strip_prefix("expect ").unwrap_or(&text))
    );
    if o.status != Status::Pass {
        let expected = if o.status == Status::Fail { format!("expected {} · ", e.expected()) } else { String::new() };
        let observed = o.observed.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("; ");
        let _ = write!(head, r#"<p class="expect-detail muted">{}{}</p>"#, escape(&expected), escape(&observed));
    }
    html! {
        <li class={classes!("expectation", format!("status-{status}"))} data-status={status} data-index={o.index.to_string()} key={o.index}>
            { raw(head) }
            if !o.causes.is_empty() {
                <ul class="expect-causes">
                    { for o.causes.iter().map(|c| {
                        let (cb, cause) = (on_cause.clone(), c.clone());
                        let onclick = Callback::from(move |_: MouseEvent| {
                            cb.emit(cause.clone());
                            crate::browser::scroll_into_view("why");
                        });
                        html! {
                            <li><button class="link expect-cause" data-site={c.site.clone()} data-policy={c.policy.name()} {onclick}
                                title="Show this relink in the why panel">{ cause_text(c) }</button></li>
                        }
                    }) }
                </ul>
            }
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    #[test]
    fn lines_of_expectations_follow_the_text() {
        let text = presets::find("oracle_liveParentRedefine").unwrap().text;
        let lines = blast_playground::worker::offload::expectation_lines(text);
        let expect_lines: Vec<Option<usize>> = text.lines().enumerate().filter(|(_, l)| l.starts_with("expect")).map(|(i, _)| Some(i + 1)).collect();
        assert_eq!(lines, expect_lines);
        assert!(blast_playground::worker::offload::expectation_lines("class {").is_empty(), "broken text marks nothing");
    }

    #[test]
    fn share_links_and_autosave_carry_the_expectations() {
        use blast_playground::action::Action;
        use blast_playground::share::{self, Link};
        use blast_playground::state::AppState;
        let preset = presets::find("oracle_liveParentRedefine").unwrap();
        let Ok(Some(Link::Scenario(shared))) = share::decode(&format!("#{}", share::encode(preset.text, &[], &share::LinkView::default()).unwrap())) else {
            panic!("not a scenario link")
        };
        assert_eq!(blast_engine::parse(&shared.text).map(|s| s.expectations), Ok(preset.scenario().expectations));
        // The autosave keeps the text as typed, `expect` lines and all.
        let mut state = AppState::new();
        state.reduce(Action::LoadPreset { id: preset.id.into(), run: false });
        assert_eq!(blast_playground::storage::decode(&blast_playground::storage::encode(&state.saved()).unwrap()).unwrap().scenario_text, preset.text);
    }

    #[test]
    fn the_missing_lanes_are_the_policies_read_but_not_running() {
        let s = presets::find("oracle_liveParentRedefine").unwrap().scenario();
        assert_eq!(missing_policies(&s.expectations, &[Policy::Global, Policy::Exact]), vec![Policy::Hierarchy, Policy::Ideal]);
        assert!(missing_policies(&s.expectations, &Policy::ALL).is_empty());
    }
}
