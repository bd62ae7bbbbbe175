//! The blast view of a trace (`trace_lab::sites::TraceSites`, built in the engine worker): the
//! trace's call sites and compiled units as it left them, grouped by source file (or class)
//! and function, in the aggregated view's rows (`blast_aggregate`): a group row sums its sites'
//! invalidations with a heat bar; a site row shows how they were attributed (its dot) and how
//! many, and selects the site for the why panel. Long traces render only the rows in view
//! (`virtual_rows`).

use blast_playground::format;
use blast_playground::trace_lab::sites::{TraceSite, TraceSites};
use yew::prelude::*;

use crate::components::blast_aggregate::heat_class;
use crate::components::blast_parts::TraceOnView;
use crate::components::raw_static;
use crate::components::virtual_rows::use_window;

/// One drawn row: a group (file or class), a function in it, or a site.
enum Row<'a> {
    Group { name: &'a str, sites: u32, units: u32, invalidations: u64 },
    Function(&'a str),
    Site(&'a TraceSite),
}

fn rows(v: &TraceSites) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < v.sites.len() {
        let group = &v.sites[at].group;
        let len = v.sites[at..].iter().take_while(|s| &s.group == group).count();
        let members = &v.sites[at..at + len];
        out.push(Row::Group {
            name: group,
            sites: members.iter().filter(|s| !s.unit).count() as u32,
            units: members.iter().filter(|s| s.unit).count() as u32,
            invalidations: members.iter().map(|s| u64::from(s.invalidations)).sum(),
        });
        let mut function: Option<&str> = None;
        for s in members {
            // A unit is its own function: its name says it.
            if !s.unit && !s.function.is_empty() && function != Some(s.function.as_str()) {
                function = Some(&s.function);
                out.push(Row::Function(&s.function));
            }
            out.push(Row::Site(s));
        }
        at += len;
    }
    out
}

/// A site's name under its group: `28:20` for `/path/file.js:28:20` (the group names the file).
fn shown_name(s: &TraceSite) -> &str {
    s.name.strip_prefix(s.group.as_str()).map(|rest| rest.trim_start_matches(':')).filter(|rest| !rest.is_empty()).unwrap_or(&s.name)
}

fn look_text(s: &TraceSite) -> String {
    let mut parts = Vec::new();
    for (n, word) in [(s.exact, "exact"), (s.by_order, "by order"), (s.unattributed, "not attributed")] {
        if n > 0 {
            parts.push(format!("{} {word}", format::count(u64::from(n))));
        }
    }
    if parts.is_empty() {
        "kept; a replay retired it".into()
    } else {
        parts.join(" · ")
    }
}

#[derive(Properties, PartialEq)]
pub struct TraceBlastProps {
    pub trace: TraceOnView,
}

#[function_component(TraceBlast)]
pub fn trace_blast(p: &TraceBlastProps) -> Html {
    let page = &p.trace.page;
    let v = &page.sites;
    let all = rows(v);
    let window = use_window(all.len());
    let hottest = all.iter().filter_map(|r| if let Row::Group { invalidations, .. } = r { Some(*invalidations) } else { None }).max().unwrap_or(0);
    let (sites, units) = (v.sites.iter().filter(|s| !s.unit).count() as u64, v.sites.iter().filter(|s| s.unit).count() as u64);
    let span = window.span;
    let row = |r: &Row| -> Html {
        match r {
            Row::Group { name, sites, units, invalidations } => {
                let share = if hottest > 0 { (*invalidations as f64 / hottest as f64 * 100.0).min(100.0) } else { 0.0 };
                html! {
                    <li class={classes!("agg-class", "trace-group", heat_class(*invalidations, hottest))} role="treeitem" aria-level="1" aria-expanded="true"
                        data-group={name.to_string()} data-invalidations={invalidations.to_string()} style="--depth: 0">
                        <span class="agg-name" title={name.to_string()}>{ name.rsplit(['/', '\\']).next().unwrap_or(name) }</span>
                        <span class="agg-counts muted">{ format!("{} · {}", format::counted(u64::from(*sites), "site"), format::counted(u64::from(*units), "unit")) }</span>
                        <span class="agg-heat" aria-hidden="true"><span style={format!("width: {share:.1}%")}></span></span>
                        <span class="agg-relinks">{ format::count(*invalidations) }</span>
                    </li>
                }
            }
            Row::Function(name) => html! {
                <li class="trace-function muted" role="treeitem" aria-level="2" style="--depth: 1"><span class="agg-name">{ format!("{name}()") }</span></li>
            },
            Row::Site(s) => {
                let selected = p.trace.selected.as_deref() == Some(s.name.as_str());
                let select = {
                    let (cb, name) = (p.trace.on_select.clone(), s.name.clone());
                    Callback::from(move |_: MouseEvent| cb.emit(Some(name.clone())))
                };
                let what = if s.unit { "compiled unit" } else { "call site" };
                html! {
                    <li class={classes!("agg-site", format!("state-{}", s.look()), selected.then_some("selected"))} role="treeitem" aria-level="3"
                        data-site={s.name.clone()} data-state={s.look()} data-relinks={s.invalidations.to_string()} style="--depth: 2"
                        data-lines={s.hits.iter().map(|h| h.line.to_string()).collect::<Vec<_>>().join(" ")}>
                        <button class="agg-site-button" aria-pressed={selected.to_string()} onclick={select}
                            title={format!("{what} {}: {}. Click for the mutations behind it.", s.name, look_text(s))}>
                            <span class="state-dot-html" aria-hidden="true"></span>
                            <span class="agg-name">{ shown_name(s) }</span>
                            <span class="muted">{ look_text(s) }</span>
                        </button>
                        <span class="agg-relinks">{ format::count(u64::from(s.invalidations)) }</span>
                    </li>
                }
            }
        }
    };
    html! {
        <div id="trace-blast" class="aggregate trace-blast" data-sites={sites.to_string()} data-units={units.to_string()}>
            <p class="hint">
                { format!("The trace {} as it left them: {} and {}, grouped by source file (or class) and function; each row counts the invalidations the log shows there. ",
                    page.name, format::counted(sites, "call site"), format::counted(units, "compiled unit")) }
                if v.more > 0 {
                    { format!("The {} least invalidated are left out (the fan-out export lists every mutation). ", format::count(v.more)) }
                }
                { "Select one for the mutations behind it in the why panel. Close the trace (trace lab) to see the scenario again." }
            </p>
            <figure class="lane aggregated">
                <figcaption><strong>{ &page.name }</strong><span class="muted">{ format!(" · {}", page.format.as_deref().unwrap_or("format not recognized")) }</span></figcaption>
                <ul class={classes!("agg-rows", window.virtualized.then_some("virtual"))} style={window.style.clone()} onscroll={window.onscroll.clone()}
                    role="tree" aria-label={format!("Call sites of the trace {}, by file and function", page.name)}>
                    if span.before_px > 0.0 { <li class="spacer" aria-hidden="true" style={format!("height: {}px", span.before_px)}></li> }
                    { for all[span.start..span.end].iter().map(row) }
                    if span.after_px > 0.0 { <li class="spacer" aria-hidden="true" style={format!("height: {}px", span.after_px)}></li> }
                </ul>
            </figure>
            { raw_static(concat!(
                r#"<ul class="legend" aria-label="Legend"><li><span class="legend-dot state-exact"></span>invalidated, tied to its mutation by the log (exact)</li>"#,
                r#"<li><span class="legend-dot state-by-order"></span>tied by log order (the mutation just before)</li>"#,
                r#"<li><span class="legend-dot state-unattributed"></span>not attributed to any mutation</li>"#,
                r#"<li><span class="legend-dot state-kept"></span>kept by the runtime, retired only in a policy's replay</li></ul>"#
            )) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_playground::trace_lab::sites::TraceSite;

    fn site(group: &str, function: &str, name: &str) -> TraceSite {
        TraceSite { name: name.into(), group: group.into(), function: function.into(), invalidations: 2, exact: 2, ..TraceSite::default() }
    }

    #[test]
    fn sites_are_drawn_under_their_group_and_function_once_each() {
        let v = TraceSites {
            sites: vec![site("a.js", "f", "a.js:1:1"), site("a.js", "f", "a.js:2:1"), site("a.js", "g", "a.js:9:1"), site("b.js", "", "b.js:1:1")],
            ..TraceSites::default()
        };
        let drawn: Vec<String> = rows(&v)
            .iter()
            .map(|r| match r {
                Row::Group { name, invalidations, .. } => format!("{name} {invalidations}"),
                Row::Function(f) => format!("{f}()"),
                Row::Site(s) => s.name.clone(),
            })
            .collect();
        assert_eq!(drawn, ["a.js 6", "f()", "a.js:1:1", "a.js:2:1", "g()", "a.js:9:1", "b.js 2", "b.js:1:1"]);
        assert_eq!(shown_name(&v.sites[0]), "1:1", "the group names the file");
        let unit = TraceSite { name: "pointNorm".into(), group: "a.js".into(), unit: true, ..TraceSite::default() };
        assert_eq!(shown_name(&unit), "pointNorm");
    }
}
