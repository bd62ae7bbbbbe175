//! The blast view: the class hierarchy per policy, call sites on their receiver class,
//! coloured by state, heated by relinks, flashing when they relink; classes not loaded (yet)
//! in a lane are drawn dashed; hovering a class shows which sites a write there would retire
//! under each policy. Under each lane, its compiled code (`compiled_units`). Sites that
//! relinked in the range selected on the timeline are outlined (`LaneView::in_range`).

use std::fmt::Write;

use blast_engine::report::SiteState;
use blast_engine::scenario::SiteDecl;
use blast_engine::Policy;
use yew::prelude::*;

use crate::components::blast_aggregate::AggregatedBlast;
pub use crate::components::blast_parts::BlastViewProps;
use crate::components::blast_parts::{lane_caption, shown_look, state_label, NOT_CALLED};
use crate::components::blast_trace::TraceBlast;
use crate::components::compiled_units::compiled_units;
use crate::components::raw;
use blast_playground::aggregate;
use blast_playground::format;
use blast_playground::layout::{self, Graph, CHAR_W};
use blast_playground::runner::{LaneView, SiteView};

fn heat(relinks: u64) -> &'static str {
    match relinks {
        0 => "heat-0",
        1..=9 => "heat-1",
        10..=99 => "heat-2",
        100..=999 => "heat-3",
        _ => "heat-4",
    }
}

#[function_component(BlastView)]
pub fn blast_view(p: &BlastViewProps) -> Html {
    // Side-by-side lanes share the panel's width; narrower layouts wrap into more rows. Two
    // lanes (the headline comparison) stack beside the charts at 1280 px: wide enough for its
    // five root classes in one band, so both lanes fit the first screen (scaled to the panel).
    let max_width = match p.lanes.len() {
        0 | 1 => 1300.0,
        2 => 700.0,
        _ => 440.0,
    };
    let aggregated = aggregate::aggregates(p.classes.len(), p.scenario.sites.len());
    // Big worlds skip the card layout altogether (its cost and size grow with the world).
    let graph = use_memo((p.classes.clone(), p.scenario.clone(), max_width as u32, aggregated), |(classes, scenario, w, aggregated)| {
        if *aggregated {
            Graph::default()
        } else {
            let sites: Vec<(String, String)> = scenario.sites.iter().map(|s| (s.name.as_str().to_owned(), s.class.as_str().to_owned())).collect();
            layout::layout(classes, &sites, f64::from(*w))
        }
    });
    if let Some(trace) = &p.trace {
        return html! { <TraceBlast trace={trace.clone()} /> };
    }
    if aggregated {
        return html! {
            <>
                <AggregatedBlast ..p.clone() />
                { what_if_panel(p) }
                { legend() }
            </>
        };
    }
    html! {
        <>
            <div class="lanes">
                { for p.lanes.iter().map(|lane| lane_graph(p, lane, &graph)) }
                if p.lanes.is_empty() {
                    <p class="empty">{ "Nothing to show: the scenario cannot run (see the message above)." }</p>
                }
            </div>
            { what_if_panel(p) }
            { legend() }
        </>
    }
}

/// A site's receivers and method: `Hot.m`, or `(Circle | Square).area` when polymorphic.
fn call_text(d: &SiteDecl) -> String {
    if d.is_polymorphic() {
        format!("({}).{}", d.receivers().collect::<Vec<_>>().join(" | "), d.method)
    } else {
        format!("{}.{}", d.class, d.method)
    }
}

fn lane_graph(p: &BlastViewProps, lane: &LaneView, g: &Graph) -> Html {
    let retire: &[String] = p.what_if.iter().find(|(pol, _)| *pol == lane.policy).map(|(_, s)| s.as_slice()).unwrap_or(&[]);
    html! {
        <figure class="lane" data-policy={lane.policy.name()} key={lane.policy.name()}>
            { lane_caption(lane, p.playing) }
            <svg class="blast-graph" viewBox={format!("0 0 {:.0} {:.0}", g.width, g.height)} width={format!("{:.0}", g.width)}
                height={format!("{:.0}", g.height)} role="group" aria-label={format!("Class hierarchy under {}", lane.policy.name())}>
                { for g.edges.iter().map(|e| html! {
                    <path class="edge" d={format!("M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}", e.x1, e.y1, e.x1, (e.y1 + e.y2) / 2.0, e.x2, (e.y1 + e.y2) / 2.0, e.x2, e.y2)} />
                }) }
                { for g.classes.iter().map(|c| class_node(p, c, lane.is_loaded(&c.name))) }
                { for g.sites.iter().filter_map(|b| lane.site_id(&b.name).map(|id| {
                    let in_range = lane.in_range.as_ref().is_some_and(|r| r.has_site(&b.name));
                    // Site ids are the scenario's declaration order; a lane's sites are as many
                    // as its names (`Mirror::decoded` refuses other views).
                    let call = p.scenario.sites.get(id).map(call_text).unwrap_or_default();
                    site_node(p, b, &lane.sites[id], &call, retire.contains(&b.name), in_range)
                })) }
            </svg>
            { compiled_units(&lane.compiled, &lane.names, p.selected.as_deref().and_then(|s| lane.site_id(s))) }
        </figure>
    }
}

fn class_node(p: &BlastViewProps, c: &layout::ClassBox, loaded: bool) -> Html {
    let hovered = p.hovered.as_deref() == Some(c.name.as_str());
    let enter = {
        let cb = p.on_hover.clone();
        let name = c.name.clone();
        Callback::from(move |_: ()| cb.emit(Some(name.clone())))
    };
    let leave = {
        let cb = p.on_hover.clone();
        Callback::from(move |_: ()| cb.emit(None))
    };
    html! {
        <g class={classes!("class-node", hovered.then_some("hovered"), (!loaded).then_some("not-loaded"))} data-class={c.name.clone()} data-loaded={loaded.to_string()}
            transform={format!("translate({:.1},{:.1})", c.x, c.y)} tabindex="0"
            onmouseenter={enter.reform(|_: MouseEvent| ())} onmouseleave={leave.reform(|_: MouseEvent| ())}
            onfocus={enter.reform(|_: FocusEvent| ())} onblur={leave.reform(|_: FocusEvent| ())}>
            <title>{ if loaded { format!("{}: hover to see what a write on it would retire", c.name) } else { format!("{}: not loaded yet in this lane", c.name) } }</title>
            <rect class="class-card" width={format!("{:.1}", c.w)} height={format!("{:.1}", c.h)} rx="6" />
            <text class="class-name" x="8" y="18">{ &c.name }</text>
        </g>
    }
}

fn site_node(p: &BlastViewProps, b: &layout::SiteBox, s: &SiteView, call: &str, would_retire: bool, in_range: bool) -> Html {
    let (state, state_text) = shown_look(s);
    let selected = p.selected.as_deref() == Some(b.name.as_str());
    let count = format::count(s.relinks);
    // The accessible name starts with what the node shows ("hot 3": WCAG 2.5.3, so voice
    // control finds it) and says the rest. No SVG `<title>` tooltip: axe counts it as visible
    // text that the name would then have to repeat. (Its target, text the engine makes, is in
    // the why panel: the view carries numbers per site.)
    let name = format!(
        "{} {}: {call}, {state_text}; {} necessary, {} collateral, {} missed. Enter shows its history.",
        b.name,
        format::counted(s.relinks, "relink"),
        s.necessary,
        s.collateral,
        s.missed
    );
    let select = {
        let cb = p.on_select.clone();
        let name = b.name.clone();
        Callback::from(move |_: ()| cb.emit(Some(name.clone())))
    };
    let on_key = {
        let select = select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if matches!(e.key().as_str(), "Enter" | " ") {
                e.prevent_default();
                select.emit(());
            }
        })
    };
    let max_chars = ((b.w - 44.0) / CHAR_W).max(3.0) as usize;
    let label: String =
        if b.name.chars().count() > max_chars { format!("{}…", b.name.chars().take(max_chars - 1).collect::<String>()) } else { b.name.clone() };
    html! {
        <g class={classes!("site", format!("state-{state}"), heat(s.relinks), selected.then_some("selected"), would_retire.then_some("would-retire"), in_range.then_some("in-range"))}
            data-site={b.name.clone()} data-state={state} data-relinks={s.relinks.to_string()}
            transform={format!("translate({:.1},{:.1})", b.x, b.y)} onclick={select.reform(|_: MouseEvent| ())}
            tabindex="0" role="button" aria-label={name} aria-pressed={selected.to_string()} onkeydown={on_key}>
            <rect class="site-bg" width={format!("{:.1}", b.w)} height={format!("{:.1}", b.h)} rx="4" />
            <g class="flash-layer">
                if s.flash > 0 {
                    <rect key={s.flash.to_string()} class="flash" width={format!("{:.1}", b.w)} height={format!("{:.1}", b.h)} rx="4" />
                }
            </g>
            <circle class="state-dot" cx="9" cy={format!("{:.1}", b.h / 2.0)} r="4" />
            // One text, so the name and the count read as two words ("hot 3"), not "hot3".
            <text class="site-name" x="18" y="15">{ label }{ " " }<tspan class="site-count" x={format!("{:.1}", b.w - 6.0)} text-anchor="end">{ count }</tspan></text>
        </g>
    }
}

fn what_if_panel(p: &BlastViewProps) -> Html {
    let Some(class) = p.hovered.as_deref() else {
        return html! { <p id="what-if" class="what-if hint">{ "Hover (or focus) a class to see which sites a write on it would retire right now under each policy." }</p> };
    };
    html! {
        <div id="what-if" class="what-if" aria-live="polite">
            <strong>{ format!("What if a method is added to {class}’s metaclass now?") }</strong>
            <ul>
                { for p.what_if.iter().map(|(policy, sites)| html! {
                    <li data-policy={policy.name()}>
                        <span class={classes!("swatch", format!("policy-{}", policy.name()))} aria-hidden="true"></span>
                        <strong>{ policy.name() }</strong>{ ": " }
                        {
                            if *policy == Policy::Ideal {
                                "retires only sites whose target changes (a new method changes none)".to_string()
                            } else if sites.is_empty() {
                                "no linked site would be retired".to_string()
                            } else {
                                format!("{}: {}", format::counted(sites.len() as u64, "site"), listed(sites))
                            }
                        }
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// Site names for the what-if line: a big world's bulk retirement lists the first few.
fn listed(sites: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut out = sites.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if sites.len() > SHOWN {
        out.push_str(&format!(" and {} more", format::count((sites.len() - SHOWN) as u64)));
    }
    out
}

fn legend() -> Html {
    // Markup, not `html!`: read-only, and far less code in the bundle (`components::raw`).
    let mut s = String::from(r#"<ul class="legend" aria-label="Legend">"#);
    for (name, label) in SiteState::ALL.iter().map(|s| (s.name(), state_label(*s))).chain([NOT_CALLED]) {
        let _ = write!(s, r#"<li><span class="legend-dot state-{name}"></span>{label}</li>"#);
    }
    s.push_str(concat!(
        r#"<li><span class="legend-flash"></span>flash: relinked just now</li>"#,
        r#"<li><span class="legend-retire"></span>dashed: the hovered class’s write would retire it</li>"#,
        r#"<li><span class="legend-unloaded"></span>dashed, faded class: not loaded yet</li>"#,
        r#"<li class="muted">number: relinks so far; the hotter the border, the more</li>"#,
        r#"<li><span class="legend-in-range"></span>outlined: relinked in the range selected on the charts</li>"#,
        r#"<li><span class="legend-unit">loop 1</span>compiled code (tier; deopts / recompiles), flashing when deoptimized</li></ul>"#
    ));
    raw(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;
    use blast_engine::{Params, Policy};
    use blast_playground::runner::Runner;

    #[test]
    fn sites_no_call_reached_are_not_drawn_as_cached() {
        let scenario = presets::find("hotLoop_baseline").expect("preset").scenario();
        let mut r = Runner::new(&scenario, &[Policy::Exact], &Params::default()).expect("runs");
        assert!(r.views()[0].sites.iter().all(|s| shown_look(s) == NOT_CALLED), "nothing has been called at virtual time zero");
        r.advance_clock(f64::INFINITY);
        while !r.work(10_000) {}
        r.refresh();
        let reports = &r.site_reports()[0];
        let drawn = &r.views()[0].sites;
        assert!(drawn.iter().zip(reports).any(|(s, r)| s.state == Some(r.state)), "called sites show their engine state");
        assert!(drawn.iter().zip(reports).all(|(s, r)| s.state.is_none() || s.state == Some(r.state)));
    }
}
