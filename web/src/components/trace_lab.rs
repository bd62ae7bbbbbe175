//! The trace lab panel: open a runtime log (a file, a drop, a paste, or a gallery sample), watch
//! the engine worker read it with Cancel at hand, then its views (written by the worker,
//! `trace_lab::page`): the
//! summary and the lines not understood, each mutation's fan-out, the replay's policy
//! comparison, with their exports and the derived scenario; and the timeline on the trace's
//! clock, which the page shows beside the blast view (`timeline_panel`).

use std::rc::Rc;

use blast_playground::format::count;
use blast_playground::trace_lab::page::{TimelinePart, TracePage, Zoom};
use blast_playground::trace_lab::{LinkNote, Reading};
use yew::prelude::*;

use crate::browser::{self, LogBlob};
use crate::components::files::on_pick;
use crate::components::raw;

/// The files the panel hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceExport {
    FanOutCsv,
    FanOutMarkdown,
    ReplayCsv,
    ReplayMarkdown,
}

pub struct TraceLabProps {
    pub reading: Option<Reading>,
    pub shown: Option<Rc<TracePage>>,
    pub error: Option<String>,
    /// Picked files (a log and its class tree, or a scenario: the app tells them apart).
    pub on_file: Callback<Vec<LogBlob>>,
    /// A pasted text.
    pub on_paste: Callback<String>,
    pub on_cancel: Callback<()>,
    pub on_close: Callback<()>,
    pub on_export: Callback<TraceExport>,
    /// Open the replay's scenario in the editor.
    pub on_open_scenario: Callback<()>,
    /// What Copy link made.
    pub link: Option<LinkNote>,
    pub on_share: Callback<()>,
}

fn link_strip(note: &LinkNote) -> Html {
    let select_all = Callback::from(|e: FocusEvent| browser::select_text(&e));
    match note {
        LinkNote::Copied { url, copied } => html! {
            <div id="trace-link" class="share-strip" role="status">
                <label for="trace-link-url">{ "Link to this log" }</label>
                <input id="trace-link-url" readonly=true value={url.clone()} onfocus={select_all} />
                <span class="muted">{ if *copied { "Copied to the clipboard." } else { "Copy it from the box (the browser refused clipboard access)." } }</span>
            </div>
        },
        LinkNote::NoLink { why, scenario_link } => html! {
            <div id="trace-link" class="share-strip" role="status">
                <span id="trace-link-refused">{ why.clone() }</span>
                if let Some(url) = scenario_link.as_deref().and_then(browser::share_url) {
                    <label for="trace-scenario-link">{ "The derived scenario's link instead" }</label>
                    <input id="trace-scenario-link" readonly=true value={url.clone()} onfocus={select_all} />
                }
            </div>
        },
    }
}

fn progress(r: &Reading, on_cancel: &Callback<()>) -> Html {
    let cancel = on_cancel.reform(|_: MouseEvent| ());
    let mb = |b: u64| format!("{:.1}", b as f64 / 1e6);
    let what = if r.finishing {
        format!("Reading {}: attributing and replaying {} events…", r.name, count(r.events))
    } else {
        format!("Reading {}: {} of {} MB, {} events so far…", r.name, mb(r.bytes), mb(r.size), count(r.events))
    };
    html! {
        <div id="trace-progress" class="trace-progress" role="status">
            <progress max={r.size.max(1).to_string()} value={r.bytes.to_string()} aria-label="Bytes of the log read"></progress>
            <span>{ what }</span>
            <button id="trace-cancel" class="small" onclick={cancel}>{ "Cancel" }</button>
        </div>
    }
}

fn export_button(id: &'static str, label: &'static str, kind: TraceExport, cb: &Callback<TraceExport>) -> Html {
    let onclick = cb.reform(move |_: MouseEvent| kind);
    html! { <button {id} class="small" {onclick}>{ label }</button> }
}

/// The timeline's zoom buttons: the worker rebins the window asked for at full resolution.
fn zoom_tools(t: &TimelinePart, on_zoom: &Callback<Zoom>) -> Html {
    let button = |id: &'static str, label: &'static str, z: Zoom, title: &'static str, disabled: bool| {
        let onclick = on_zoom.reform(move |_: MouseEvent| z);
        html! { <button {id} class="small" {onclick} {disabled} {title}>{ label }</button> }
    };
    let narrowest = t.window.1 - t.window.0 <= blast_playground::trace_lab::page::MIN_SPAN;
    html! {
        <div class="trace-actions" role="toolbar" aria-label="Timeline zoom">
            { button("trace-zoom-in", "Zoom in", Zoom::In, "Half as wide, around the densest column", narrowest) }
            { button("trace-zoom-out", "Zoom out", Zoom::Out, "Twice as wide", !t.zoomed()) }
            { button("trace-zoom-whole", "Whole trace", Zoom::Whole, "Show the whole trace again", !t.zoomed()) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct TraceTimelineProps {
    part: TimelinePart,
    on_zoom: Callback<Zoom>,
}

/// The timeline, and a drag across it zooms to the window dragged over (shown as it is
/// dragged); the buttons above do the same by keyboard. The drag is caught by a layer over the
/// drawing, so its x is the pointer's within the layer's width.
#[function_component(TraceTimeline)]
fn trace_timeline(p: &TraceTimelineProps) -> Html {
    let drag = use_state(|| None::<(f64, f64)>);
    let at = |e: &MouseEvent| f64::from(e.offset_x()) / browser::width_of(e).max(1.0);
    let down = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            if e.button() == 0 {
                e.prevent_default();
                drag.set(Some((at(&e), at(&e))));
            }
        })
    };
    let moved = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((a, _)) = *drag {
                drag.set(Some((a, at(&e).clamp(0.0, 1.0))));
            }
        })
    };
    let up = {
        let (drag, part, on_zoom) = (drag.clone(), p.part.clone(), p.on_zoom.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(z) = drag.and_then(|(a, b)| part.dragged(a, b)) {
                on_zoom.emit(z);
            }
            drag.set(None);
        })
    };
    let selection = drag.map(|(a, b)| format!("left: {:.2}%; width: {:.2}%", a.min(b) * 100.0, (a - b).abs() * 100.0));
    html! {
        <div id="trace-timeline" class="trace-timeline-box" aria-live="polite">
            { raw(p.part.markup.clone()) }
            <div class="trace-drag" onmousedown={down} onmousemove={moved} onmouseup={up.clone()} onmouseleave={up}
                title="Drag across the timeline to zoom to that window">
                if let Some(style) = selection {
                    <div id="trace-drag-selection" class="trace-drag-selection" {style}></div>
                }
            </div>
        </div>
    }
}

/// The trace's timeline over its own clock, in the place of the live charts while a trace is on
/// view (it is what the runtime did, as the charts are what a scenario's run did).
pub fn timeline_panel(v: &TracePage, on_zoom: &Callback<Zoom>) -> Html {
    html! {
        <section id="trace-timeline-panel" class="panel" aria-labelledby="trace-timeline-title">
            <header class="panel-head">
                <h2 id="trace-timeline-title">{ "Timeline" }</h2>
                <p class="hint">{ format!("{}: invalidations over the trace's own clock, by how each was tied to its mutation. Drag across it, or use the buttons, to zoom.", v.name) }</p>
            </header>
            { zoom_tools(&v.timeline, on_zoom) }
            <TraceTimeline part={v.timeline.clone()} on_zoom={on_zoom.clone()} />
        </section>
    }
}

fn views(v: &TracePage, p: &TraceLabProps) -> Html {
    let open = p.on_open_scenario.reform(|_: MouseEvent| ());
    let close = p.on_close.reform(|_: MouseEvent| ());
    let share = p.on_share.reform(|_: MouseEvent| ());
    html! {
        <div id="trace-view" data-format={v.format.clone().unwrap_or_default()}>
            <div class="trace-summary">{ raw(v.summary.clone()) }</div>
            <div class="trace-actions">
                <button id="trace-share" class="small" onclick={share} title="A link carrying the whole log when it fits, else the derived scenario's">{ "Copy link" }</button>
                <button id="trace-close" class="small" onclick={close}>{ "Close" }</button>
            </div>
            if let Some(note) = &p.link {
                { link_strip(note) }
            }
            <h3 id="trace-fanout-title">{ "Fan-out per mutation" }</h3>
            <div class="trace-actions">
                { export_button("trace-fanout-csv", "CSV", TraceExport::FanOutCsv, &p.on_export) }
                { export_button("trace-fanout-md", "Markdown", TraceExport::FanOutMarkdown, &p.on_export) }
            </div>
            { raw(v.fan_out.clone()) }
            <p class="hint">{ "The trace's timeline is beside its blast view, where the live charts of a scenario are." }</p>
            <h3 id="trace-replay-title">{ "Replay under every policy" }</h3>
            {
                match &v.replay {
                    Ok(r) => html! {
                        <>
                            <div class="trace-actions">
                                { export_button("trace-replay-csv", "CSV", TraceExport::ReplayCsv, &p.on_export) }
                                { export_button("trace-replay-md", "Markdown", TraceExport::ReplayMarkdown, &p.on_export) }
                                if v.scenario.is_some() {
                                    <button id="trace-open-scenario" class="small primary" onclick={open}
                                        title="Load the scenario the replay ran into the editor (Undo brings yours back)">{ "Open the derived scenario in the editor" }</button>
                                }
                            </div>
                            { raw(r.clone()) }
                        </>
                    },
                    Err(why) => html! { <p id="trace-no-replay" class="hint">{ format!("No replay: {why}.") }</p> },
                }
            }
        </div>
    }
}

pub fn trace_lab(p: &TraceLabProps) -> Html {
    let on_pick = on_pick(&p.on_file);
    let on_paste = {
        let cb = p.on_paste.clone();
        Callback::from(move |e: Event| {
            let cb = cb.clone();
            browser::take_paste(&e, 1, move |text| cb.emit(text));
        })
    };
    html! {
        // A drop anywhere on the page is the app's (`trace_panel::open_file`).
        <section id="trace-lab" class="panel trace-lab" aria-labelledby="trace-lab-title" tabindex="-1">
            <header class="panel-head">
                <h2 id="trace-lab-title">{ "Trace lab" }</h2>
                <p class="hint">{ "A real runtime's log of what a class change threw away — V8 (node --log-deopt --log-ic --log-maps --log-code), HotSpot (-XX:+LogCompilation) or Groovy 2.4 (indy logging) — read in the engine worker: each mutation's fan-out, how it was attributed, and the policy the runtime behaved like. Samples are in the gallery's Traces group." }</p>
            </header>
            <div class="trace-open">
                <label class="button-like" for="trace-file">{ "Open a log…" }</label>
                <input id="trace-file" class="visually-hidden" type="file" multiple=true accept=".log,.txt,.xml,.classes,text/plain" onchange={on_pick} />
                <label class="visually-hidden" for="trace-paste">{ "Paste a log" }</label>
                <textarea id="trace-paste" class="trace-paste" rows="2" placeholder="…or paste a log here, or drop a file on this panel (a log with its NAME.classes, or the .classes onto an open trace)" onpaste={on_paste} />
            </div>
            if let Some(r) = &p.reading {
                { progress(r, &p.on_cancel) }
            }
            if let Some(e) = &p.error {
                <p id="trace-error" class="run-error" role="alert">{ e.clone() }</p>
            }
            if let Some(v) = &p.shown {
                { views(v, p) }
            }
        </section>
    }
}
