//! Policy comparison: throughput and relinks side by side (with the published numbers when
//! the scenario is a benchmark preset), and which sites relinked under one policy only.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::presets::Published;
use blast_engine::report::RelinkTotals;
use blast_engine::Policy;
use yew::prelude::*;

use crate::browser;
use crate::components::raw;

use blast_playground::format;
use blast_playground::runner::{self, LaneView};

pub struct ComparisonProps {
    pub lanes: Vec<Rc<LaneView>>,
    pub published: Option<Published>,
    pub on_export_csv: Callback<()>,
}

fn published_for(p: Option<Published>, policy: Policy) -> Option<(f64, f64)> {
    p?.for_policy(policy)
}

/// The comparison panel both modes share: title, CSV export, `#comparison-table` with the
/// given heading cells and rows, and what goes below the table.
/// The panel around a comparison table: `head` (the header row's cells) and `rows` are
/// markup (`blast_playground::markup`, every name escaped): the table is read-only and
/// changes every frame while the lanes run, so one string is far less code than its nodes.
pub fn comparison_panel(title: &str, on_export_csv: &Callback<()>, head: &str, rows: &str, below: Html) -> Html {
    let export = {
        let cb = on_export_csv.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let table = format!(r#"<table id="comparison-table" class="comparison"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"#);
    html! {
        <section id="comparison" class="panel" aria-labelledby="comparison-title">
            <header class="panel-head">
                <h2 id="comparison-title">{ title }</h2>
                <button id="export-csv" class="small" onclick={export}>{ "Export results CSV" }</button>
            </header>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Comparison table">
                { raw(table) }
            </div>
            { below }
        </section>
    }
}

pub const VERDICT_HEADINGS: &str = r#"<th scope="col" class="num v-necessary">necessary</th><th scope="col" class="num v-collateral">collateral</th><th scope="col" class="num v-missed">missed</th>"#;

/// The three verdict cells of a row, appended to `s`.
pub fn verdict_cells(s: &mut String, t: RelinkTotals) {
    for (n, label) in [(t.necessary, "necessary"), (t.collateral, "collateral"), (t.missed, "missed")] {
        let _ = write!(s, r#"<td class="num" data-label="{label}">{}</td>"#, format::count(n));
    }
}

pub fn comparison(p: &ComparisonProps) -> Html {
    let first = p.lanes.first().and_then(|l| l.result).map(|r| r.ops_per_ms);
    let mut head = String::from(
        r#"<th scope="col">Policy</th><th scope="col" class="num">ops/ms</th><th scope="col" class="num" title="Throughput relative to the first policy">vs first</th>"#,
    );
    head.push_str(VERDICT_HEADINGS);
    if p.published.is_some() {
        head.push_str(r#"<th scope="col" class="num" title="Published JMH result in ops/ms (before = global, after = exact)">published</th>"#);
    }
    let mut rows = String::new();
    for lane in &p.lanes {
        row(&mut rows, lane, first, p.published);
    }
    let below = html! {
        <>
            { published_note(&p.lanes, p.published) }
            <SiteDiff lanes={p.lanes.clone()} />
        </>
    };
    comparison_panel("Policy comparison", &p.on_export_csv, &head, &rows, below)
}

/// A policy's row (policy names are ours: no escaping needed, and none done).
fn row(s: &mut String, lane: &LaneView, first: Option<f64>, published: Option<Published>) {
    let ops = lane.result.map(|r| r.ops_per_ms).filter(|v| v.is_finite());
    let name = lane.policy.name();
    let _ = write!(
        s,
        r#"<tr data-policy="{name}" data-finished="{}"><th scope="row"><span class="swatch policy-{name}" aria-hidden="true"></span>{name}</th>"#,
        lane.finished()
    );
    let _ = match ops {
        Some(v) => write!(s, r#"<td class="ops num" data-label="ops/ms" data-value="{v}">{}</td>"#, format::sig3(v)),
        None if lane.iterations == 0 => write!(s, r#"<td class="ops num muted" data-label="ops/ms" title="Not started">–</td>"#),
        None => write!(
            s,
            r#"<td class="ops num muted" data-label="ops/ms" title="ops/ms is known once the measured ops finish">{:.0}% run</td>"#,
            100.0 * lane.iterations as f64 / lane.total_iterations.max(1) as f64
        ),
    };
    let vs_first = match (ops, first) {
        (Some(a), Some(b)) if b > 0.0 => format::ratio(a / b),
        _ => "–".into(),
    };
    let _ = match lane.result {
        Some(r) => write!(s, r#"<td class="num" data-label="vs first" title="{} ms per op">{vs_first}</td>"#, format::sig3(r.ms_per_op)),
        None => write!(s, r#"<td class="num" data-label="vs first">{vs_first}</td>"#),
    };
    verdict_cells(s, lane.totals);
    if published.is_some() {
        let value = match published_for(published, lane.policy) {
            Some((v, e)) => format!("{} ± {}", format::sig3(v), format::sig3(e)),
            None => "–".into(),
        };
        let _ = write!(s, r#"<td class="num published" data-label="published">{value}</td>"#);
    }
    s.push_str("</tr>");
}

fn published_note(lanes: &[Rc<LaneView>], published: Option<Published>) -> Html {
    let Some(pb) = published else {
        return html! { <p class="hint">{ "Published numbers appear here for the GROOVY-12191 benchmark presets." }</p> };
    };
    let ours = |p: Policy| lanes.iter().find(|l| l.policy == p).and_then(|l| l.result).map(|r| r.ops_per_ms);
    let simulated = match (ours(Policy::Exact), ours(Policy::Global)) {
        (Some(a), Some(b)) if b > 0.0 => format!("; simulated exact/global {}", format::ratio(a / b)),
        _ => String::new(),
    };
    html! {
        <p class="hint">{ format!("Published exact/global (after/before): {}{simulated}.", format::ratio(pb.after / pb.before)) }</p>
    }
}

#[derive(Properties, PartialEq)]
struct SiteDiffProps {
    lanes: Vec<Rc<LaneView>>,
}

/// Chips shown per "only under" list (the rest are counted).
const DIFF_CHIPS: usize = 40;

/// Sites that relinked under policy A but not under policy B (and the reverse).
#[function_component(SiteDiff)]
fn site_diff(p: &SiteDiffProps) -> Html {
    let a = use_state(|| 0usize);
    let b = use_state(|| 1usize);
    if p.lanes.len() < 2 {
        return html! { <p id="site-diff" class="hint">{ "Select two or more policies to see which sites relink under one but not the other." }</p> };
    }
    let (ia, ib) = ((*a).min(p.lanes.len() - 1), (*b).min(p.lanes.len() - 1));
    let pick = |state: UseStateHandle<usize>| Callback::from(move |e: Event| state.set(browser::value(&e).parse().unwrap_or(0)));
    let select = |id: &'static str, label: &'static str, chosen: usize, state: UseStateHandle<usize>| {
        html! {
            <select {id} aria-label={label} onchange={pick(state)}>
                { for p.lanes.iter().enumerate().map(|(i, l)| html! { <option value={i.to_string()} selected={i == chosen}>{ l.policy.name() }</option> }) }
            </select>
        }
    };
    let (la, lb) = (&p.lanes[ia], &p.lanes[ib]);
    let list = |here: &LaneView, there: &LaneView| {
        let (first, total) = runner::relinked_only_in(here, there, DIFF_CHIPS);
        if total == 0 {
            return html! { <span class="muted">{ "none" }</span> };
        }
        let more = (total > first.len()).then(|| html! { <span class="muted">{ format!(" and {} more", format::count((total - first.len()) as u64)) }</span> });
        html! { <>{ for first.into_iter().map(|(s, n)| html! { <span class="chip">{ s }<span class="muted">{ format!(" ×{n}") }</span></span> }) }{ more }</> }
    };
    html! {
        <div id="site-diff" class="site-diff">
            <h3>{ "Which sites relinked under " }{ select("diff-a", "Relinked under policy", ia, a.clone()) }{ " but not under " }{ select("diff-b", "But not under policy", ib, b.clone()) }{ "?" }</h3>
            <p class="diff-row"><strong>{ format!("{} only: ", la.policy.name()) }</strong>{ list(la, lb) }</p>
            <p class="diff-row"><strong>{ format!("{} only: ", lb.policy.name()) }</strong>{ list(lb, la) }</p>
        </div>
    }
}
