//! The why panel: one site's relink history under each policy — which event retired which
//! domain, and whether the oracle calls the relink necessary, collateral or missed — and, where
//! a compiled unit inlined the site, the rest of the chain: that unit deoptimized, recompiled
//! after N iterations (`blast_playground::compiled`).
//!
//! With a trace open in the trace lab, the same panel explains a site of the trace: the
//! mutations that hit it and what each policy's replay did for it.
//!
//! Linked to the timeline both ways: a range selected on the charts lists its relinks here
//! (every site, per policy), and a click on a relink's time marks its moment on the charts.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::expect::Cause;
use blast_engine::report::{ReceiverReport, RelinkText, SiteId, SiteReport, Verdict};
use blast_engine::Policy;
use yew::prelude::*;
use yew::props;

use crate::components::blast_parts::{shown_look, TraceOnView};
use crate::components::expectations::cause_text;
use crate::components::name_picker::{name_picker, NamePickerProps};
use crate::components::raw;
use blast_playground::compiled::{chain_text, deopt_short, tier_label, CompiledView};
use blast_playground::format;
use blast_playground::markup::escape;
use blast_playground::runner::{phase_name, InRange, LaneView, SiteView};
use blast_playground::timeline::Mark;
use blast_playground::trace_lab::markup::site_why;

#[derive(Properties, PartialEq)]
pub struct WhyProps {
    pub lanes: Vec<Rc<LaneView>>,
    /// Every site of the scenario, in declaration order.
    pub sites: Rc<Vec<String>>,
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<String>>,
    /// The relink behind a failed expectation that the user asked to see.
    #[prop_or_default]
    pub focus: Option<Cause>,
    /// The relink marked on the charts.
    #[prop_or_default]
    pub mark: Option<Mark>,
    /// A relink's time was clicked: mark it on the charts.
    pub on_mark: Callback<Mark>,
    /// A trace open in the trace lab: the panel explains its sites instead of the scenario's.
    #[prop_or_default]
    pub trace: Option<TraceOnView>,
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Necessary => "necessary",
        Verdict::Collateral => "collateral",
        Verdict::Missed => "missed",
    }
}

#[function_component(Why)]
pub fn why(p: &WhyProps) -> Html {
    if let Some(t) = &p.trace {
        return trace_why(t);
    }
    html! {
        <section id="why" class="panel" aria-labelledby="why-title">
            { head("Why did it relink?", "Site whose relinks to explain", p.sites.clone(), p.selected.clone(), &p.on_select) }
            if let Some(c) = p.focus.as_ref().filter(|c| p.selected.as_deref() == Some(c.site.as_str())) {
                <p id="why-focus" class={classes!("why-focus", format!("verdict-{}", verdict_name(c.verdict)))} role="status">
                    <strong>{ "Behind the failed expectation: " }</strong>{ cause_text(c) }
                </p>
            }
            if p.lanes.iter().any(|l| l.in_range.is_some()) {
                <div id="why-range" class="why-range">
                    <h3>{ "Relinks in the selected range" }</h3>
                    { for p.lanes.iter().filter_map(|l| l.in_range.as_ref().map(|r| range_lane(p, l, r))) }
                </div>
            }
            {
                match p.selected.as_deref() {
                    None => html! { <p class="hint">{ "Click a call site in the blast view (or pick one above) to see each relink: the event, the domain it retired, and the oracle’s verdict. Drag over the charts to list the relinks of a time range." }</p> },
                    Some(site) => html! { <div class="why-lanes">{ for p.lanes.iter().map(|l| lane_history(p, l, site)) }</div> },
                }
            }
        </section>
    }
}

/// The panel's title and its site picker (a scenario's sites, or a trace's).
fn head(title: &'static str, label: &'static str, names: Rc<Vec<String>>, selected: Option<AttrValue>, on_select: &Callback<Option<String>>) -> Html {
    let on_change = {
        let cb = on_select.clone();
        Callback::from(move |v: String| cb.emit(if v.is_empty() { None } else { Some(v) }))
    };
    html! {
        <header class="panel-head">
            <h2 id="why-title">{ title }</h2>
            <label>{ "Site " }
                { name_picker(props!(NamePickerProps {
                    id: "why-site",
                    label,
                    names,
                    value: selected.unwrap_or_default(),
                    none_label: "— pick a site —",
                    on_pick: on_change,
                })) }
            </label>
        </header>
    }
}

/// A trace's site: the mutations that hit it, with their log lines, and each policy's replay
/// (`trace_lab::markup::site_why`).
fn trace_why(t: &TraceOnView) -> Html {
    let sites = &t.page.sites;
    let shown = t.selected.as_deref().and_then(|n| sites.find(n));
    html! {
        <section id="why" class="panel" aria-labelledby="why-title" data-trace={t.page.name.clone()}>
            { head("Why was it invalidated?", "Site of the trace to explain", Rc::new(sites.names()), t.selected.clone(), &t.on_select) }
            {
                match shown {
                    None => html! { <p class="hint">{ format!("Click a call site of the trace {} in the blast view (or pick one above) to see the mutations that invalidated it, with their log lines, and what each policy's replay did for it.", t.page.name) }</p> },
                    Some(s) => html! { <div id="why-trace" class="why-lane">{ raw(site_why(sites, s)) }</div> },
                }
            }
        </section>
    }
}

/// Sites named in a range's summary; the rest are counted.
const RANGE_SITES_SHOWN: usize = 12;

/// One lane's relinks in the selected range, every site.
fn range_lane(p: &WhyProps, lane: &LaneView, r: &InRange) -> Html {
    let mut sites = r.sites.iter().take(RANGE_SITES_SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if r.sites.len() > RANGE_SITES_SHOWN {
        sites.push_str(&format!(" and {} more", format::count((r.sites.len() - RANGE_SITES_SHOWN) as u64)));
    }
    let shown = if r.total > r.rows.len() { format!(", the first {} listed", r.rows.len()) } else { String::new() };
    let mut head = format!(
        "<h4>{}<span class=\"muted\"> · {} – {} · {}{shown}</span></h4>",
        swatch_name(lane.policy),
        format::duration_ms(r.t_ms.0),
        format::duration_ms(r.t_ms.1),
        format::counted(r.total as u64, "relink")
    );
    if !r.sites.is_empty() {
        let _ = write!(head, r#"<p class="muted range-sites">Sites: {}</p>"#, escape(&sites));
    }
    html! {
        <div class="range-lane" data-policy={lane.policy.name()} data-relinks={r.total.to_string()} key={lane.policy.name()}>
            { raw(head) }
            if !r.rows.is_empty() {
                <div class="table-scroll history-scroll" tabindex="0" role="region" aria-label={format!("Relinks in the selected range under {}", lane.policy.name())}>
                    <table class="history">
                        <thead><tr><th>{ "virtual time" }</th><th>{ "site" }</th><th>{ "event" }</th><th>{ "domain" }</th><th>{ "verdict" }</th></tr></thead>
                        <tbody>{ for r.rows.iter().map(|x| relink_row(p, lane, x, Columns::Range)) }</tbody>
                    </table>
                </div>
            }
        </div>
    }
}

fn lane_history(p: &WhyProps, lane: &LaneView, site: &str) -> Html {
    let (Some(s), Some(report)) = (lane.site(site), lane.selected.as_deref().filter(|r| r.name == site)) else { return html! {} };
    html! {
        <div class="why-lane" data-policy={lane.policy.name()} key={lane.policy.name()}>
            { raw(lane_head(lane, s, report, site)) }
            if lane.history.is_empty() {
                <p class="muted">{ "No relinks so far." }</p>
            } else {
                // Focusable, so the keyboard can scroll a long history (WCAG 2.1.1).
                <div class="table-scroll history-scroll" tabindex="0" role="region" aria-label={format!("Relinks of {site} under {}", lane.policy.name())}>
                    <table class="history">
                        <thead><tr><th>{ "virtual time" }</th><th>{ "op" }</th><th>{ "event" }</th><th>{ "domain" }</th><th>{ "verdict" }</th><th>{ "target" }</th></tr></thead>
                        <tbody>{ for lane.history.iter().rev().map(|r| relink_row(p, lane, r, Columns::History)) }</tbody>
                    </table>
                </div>
            }
        </div>
    }
}

/// A site's lane heading and the read-only lines under it, as markup (`blast_playground::markup`:
/// class, method and unit names are the scenario's, escaped): its look and target, the verdict
/// counts, the receivers of a polymorphic site and the compiled units inlining it.
fn lane_head(lane: &LaneView, s: &SiteView, report: &SiteReport, site: &str) -> String {
    let st = &report.stats;
    let shown = lane.history.len() as u64;
    let mut out = format!(
        concat!(
            r#"<h3>{}<span class="muted"> · {} · now {}</span></h3><p class="why-summary"><span class="v-necessary">{} necessary</span> · "#,
            r#"<span class="v-collateral">{} collateral</span> · <span class="v-missed">{} missed</span><span class="muted"> · {} fast calls, {} selections, {} stale calls</span>"#
        ),
        swatch_name(lane.policy),
        shown_look(s).1,
        escape(&report.target.to_string()),
        format::count(st.necessary),
        format::count(st.collateral),
        format::count(st.missed),
        format::count(st.fast_calls),
        format::count(st.selections),
        format::count(st.stale_calls)
    );
    if s.relinks > shown && shown > 0 {
        let _ = write!(out, r#"<span class="muted"> · showing the latest {shown}</span>"#);
    }
    out.push_str("</p>");
    receivers_line(&mut out, &report.receivers);
    if let Some(id) = lane.site_id(site) {
        compiled_summary(&mut out, &lane.compiled, id);
    }
    out
}

/// A policy's swatch and name, as markup.
fn swatch_name(p: Policy) -> String {
    format!(r#"<span class="swatch policy-{0}" aria-hidden="true"></span>{0}"#, p.name())
}

/// A polymorphic site's receivers: weight in the mix, whether the PIC holds an entry for it
/// now, and its entry's relinks.
fn receivers_line(out: &mut String, receivers: &[ReceiverReport]) {
    if receivers.is_empty() {
        return;
    }
    let text: Vec<String> = receivers
        .iter()
        .map(|r| format!("{} ×{}{} {}", r.class, r.weight, if r.cached { " cached" } else { "" }, format::counted(r.relinks, "relink")))
        .collect();
    let _ = write!(out, r#"<p class="why-receivers muted">Receivers (mix weight, PIC entry, relinks): {}</p>"#, escape(&text.join(" · ")));
}

/// A missed relink's domain guarded the stale link and was *not* retired: that is the miss.
fn domain_note(v: Verdict) -> &'static str {
    match v {
        Verdict::Missed => " (still live)",
        Verdict::Necessary | Verdict::Collateral => " (retired)",
    }
}

/// The units whose C2 code inlines `site`: what its relinks can cost beyond the relink.
fn compiled_summary(out: &mut String, c: &CompiledView, site: SiteId) {
    let units: Vec<_> = c.units.iter().filter(|u| u.inlines_site(site)).collect();
    if units.is_empty() {
        return;
    }
    out.push_str(r#"<p class="why-compiled">Compiled code inlining this site: "#);
    for u in units {
        let st = &u.report.stats;
        let cutoff = if u.report.past_cutoff { ", C2 gave up on it" } else { "" };
        let name = escape(&u.report.name);
        let _ = write!(
            out,
            r#"<span class="why-unit" data-unit="{name}"><strong>{name}</strong> ({} now, {}, {}{cutoff}) </span>"#,
            tier_label(u.report.tier),
            format::counted(st.deopts, "deopt"),
            format::counted(st.recompiles, "recompile")
        );
    }
    out.push_str("</p>");
}

/// The deoptimizations the row's event caused in code that inlined the row's site: the rest
/// of the chain, on a row of its own under the relink (a column would widen the table).
fn deopt_rows(r: &RelinkText, lane: &LaneView) -> Html {
    let c = &lane.compiled;
    // The site's id is looked up (a walk over the lane's names) only for an event that deoptimized something.
    let deopts = r.event.filter(|&e| c.deopts.iter().any(|d| d.event == e)).and_then(|e| Some(c.deopts_by(e, lane.site_id(&r.site)?))).unwrap_or_default();
    html! {
        <>{ for deopts.iter().map(|d| html! {
            <tr class="deopt-row">
                <td colspan="6" data-label="compiled code"><span class="deopt-chain" title={chain_text(d)}>{ format!("↳ {}", deopt_short(d)) }</span></td>
            </tr>
        }) }</>
    }
}

/// Which table a relink row is in: a site's history (op, target and the deopt chain), or a
/// range's list (the site instead).
#[derive(Clone, Copy, PartialEq)]
enum Columns {
    History,
    Range,
}

fn relink_row(p: &WhyProps, lane: &LaneView, r: &RelinkText, columns: Columns) -> Html {
    let verdict = verdict_name(r.verdict);
    let target = if r.old_target == r.new_target { r.new_target.clone() } else { format!("{} → {}", r.old_target, r.new_target) };
    // On a polymorphic site: whose PIC entry it was.
    let target = match &r.receiver {
        Some(class) => format!("{class} entry: {target}"),
        None => target,
    };
    let mark = Mark { policy: lane.policy, t_ms: r.t_ms, site: r.site.clone() };
    let marked = p.mark.as_ref() == Some(&mark);
    let in_range = columns == Columns::History && lane.in_range.as_ref().is_some_and(|x| x.contains(r.t_ms));
    let on_click = {
        let (cb, mark) = (p.on_mark.clone(), mark.clone());
        Callback::from(move |_: MouseEvent| cb.emit(mark.clone()))
    };
    html! {
        // `data-label`: the column's name, shown before each cell where the rows stack (phones).
        <>
        <tr class={classes!(format!("verdict-{verdict}"), marked.then_some("marked"), in_range.then_some("in-range"))} data-t={r.t_ms.to_string()}>
            <td class="num" data-label="virtual time">
                <button class="moment-link" onclick={on_click} aria-pressed={marked.to_string()}
                    title="Mark this moment on the charts">{ format::duration_ms(r.t_ms) }</button>
            </td>
            if columns == Columns::Range {
                <td data-label="site"><code>{ &r.site }</code></td>
            } else {
                <td data-label="op">{ format!("{} {}", phase_name(r.phase), r.op) }</td>
            }
            <td data-label="event"><code>{ r.event_label.clone().unwrap_or_else(|| "—".into()) }</code></td>
            <td data-label="domain"><code>{ &r.domain }</code>{ domain_note(r.verdict) }</td>
            <td data-label="verdict"><span class={format!("badge v-{verdict}")}>{ verdict }</span></td>
            if columns == Columns::History {
                <td data-label="target"><code>{ target }</code></td>
            }
        </tr>
        if columns == Columns::History {
            { deopt_rows(r, lane) }
        }
        </>
    }
}
