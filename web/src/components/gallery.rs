//! The preset gallery: every shipped scenario, the Groovy benchmark workloads first, then the
//! other models of the family (shape cache, shared arena, descriptor cache), then one scenario
//! per probed runtime (`runtimes::PROFILES`), then the committed runtime logs the trace lab
//! reads (`trace_lab::samples`), grouped.

use blast_engine::models::{ModelPreset, MODEL_PRESETS};
use blast_engine::presets::{self, Preset};
use blast_engine::runtimes::{RuntimeProfile, PRESET_WORKLOAD, PROFILES};
use yew::prelude::*;

use crate::components::raw;
use blast_playground::markup::escape;
use blast_playground::model_entities::Family;
use blast_playground::trace_lab::samples::{Sample, SAMPLES};
use blast_playground::{format, order};

#[derive(Properties, PartialEq)]
pub struct GalleryProps {
    /// Id of the preset currently loaded (unedited).
    pub current: Option<AttrValue>,
    /// (preset id, run right away)
    pub on_load: Callback<(String, bool)>,
    /// A runtime row's Measured button: the probe's runtime id, whose reference result to show.
    pub on_measured: Callback<&'static str>,
    /// A Traces row's Open button: the sample's id (`trace_lab::samples`), read in the trace lab.
    pub on_trace: Callback<&'static str>,
}

fn family_rank(family: &str) -> u8 {
    match family {
        "groovy" => 0,
        "oracle" => 2,
        _ => 1,
    }
}

/// The published before → after cell's content, as markup.
fn published_cell(p: &Preset) -> String {
    match p.published() {
        Some(pb) => format!(
            r#"<span title="before {} ± {}, after {} ± {} ops/ms">{} → {}<span class="ratio"> ({})</span></span>"#,
            pb.before,
            pb.before_err,
            pb.after,
            pb.after_err,
            format::sig3(pb.before),
            format::sig3(pb.after),
            format::ratio(pb.after / pb.before)
        ),
        None => r#"<span class="muted">—</span>"#.into(),
    }
}

/// A preset's name cell's content: title, id and family, as markup.
fn name_cell(title: &str, id: &str, family: &str) -> Html {
    raw(format!(r#"<strong>{}</strong><div><code>{}</code> <span class="family family-{2}">{2}</span></div>"#, escape(title), escape(id), escape(family)))
}

/// A gallery row's cells, whichever kind of preset it is.
struct Row {
    id: &'static str,
    title: &'static str,
    family: &'static str,
    description: &'static str,
    /// The published ops/ms cell; `None` for the other models, whose published rows are in
    /// other units and several per preset: their description spans that column instead.
    published: Option<String>,
}

impl Row {
    fn call_site(p: &Preset) -> Row {
        Row { id: p.id, title: p.title, family: p.family, description: p.description, published: Some(published_cell(p)) }
    }

    fn model(p: &ModelPreset) -> Row {
        Row { id: p.id, title: p.title, family: p.family, description: p.description, published: None }
    }
}

fn row(p: &GalleryProps, preset: Row) -> Html {
    let current = p.current.as_deref() == Some(preset.id);
    let emit = |run: bool| {
        let (cb, id) = (p.on_load.clone(), preset.id.to_string());
        Callback::from(move |_: MouseEvent| cb.emit((id.clone(), run)))
    };
    html! {
        <tr data-preset={preset.id} class={classes!(current.then_some("current"))} aria-current={current.then_some("true")}>
            <td class="preset-name">{ name_cell(preset.title, preset.id, preset.family) }</td>
            if let Some(published) = preset.published {
                <td class="preset-description">{ preset.description }</td>
                <td class="num">{ raw(published) }</td>
            } else {
                <td class="preset-description" colspan="2">{ preset.description }</td>
            }
            <td class="actions">
                <button class="load" onclick={emit(false)} title="Load without running" aria-label={format!("Load {}", preset.id)}>{ "Load" }</button>
                <button class="run primary" onclick={emit(true)} title="Load and run" aria-label={format!("Run {}", preset.id)}>{ "Run" }</button>
            </td>
        </tr>
    }
}

/// A runtime's row: its closest policy highlighted, what a write throws away and where its
/// source says so. Its id (`runtime_<probe id>`) goes to `on_load` like a preset's.
fn runtime_row(p: &GalleryProps, runtime: &RuntimeProfile) -> Html {
    let id = runtime.preset_id();
    let current = p.current.as_deref() == Some(id.as_str());
    let emit = |run: bool| {
        let (cb, id) = (p.on_load.clone(), id.clone());
        Callback::from(move |_: MouseEvent| cb.emit((id.clone(), run)))
    };
    let (workload, sites) = PRESET_WORKLOAD;
    let measured = {
        let (cb, runtime_id) = (p.on_measured.clone(), runtime.id);
        Callback::from(move |_: MouseEvent| cb.emit(runtime_id))
    };
    html! {
        <tr data-preset={id.clone()} data-runtime={runtime.id} class={classes!("runtime-row", current.then_some("current"))} aria-current={current.then_some("true")}>
            <td class="preset-name">{ name_cell(runtime.name, &id, "runtime") }</td>
            <td class="preset-description" colspan="2">{ raw(format!(
                concat!(
                    r#"Closest policy: <span class="policy-badge policy-{0}" title="The simulator’s policy whose scope is closest to what the runtime’s source invalidates">{0}</span>"#,
                    r#" ({1} lookup). A class write throws away {2}. <span class="source">Source: <code>{3}</code>.</span>"#,
                    " The scenario is the probes’ {4}@{5} loop; Measured loads it and shows this runtime’s measured slowdowns beside the policies."
                ),
                runtime.policy.name(),
                escape(&runtime.semantics.to_string()),
                escape(runtime.invalidates),
                escape(runtime.source),
                escape(workload),
                sites
            )) }</td>
            <td class="actions">
                <button class="measured-link" onclick={measured} title="Load the scenario and show the runtime’s measured result (probes/results) beside the policies"
                    aria-label={format!("Measured result of {}", runtime.id)}>{ "Measured" }</button>
                <button class="load" onclick={emit(false)} title="Load without running" aria-label={format!("Load {id}")}>{ "Load" }</button>
                <button class="run primary" onclick={emit(true)} title="Load and run" aria-label={format!("Run {id}")}>{ "Run" }</button>
            </td>
        </tr>
    }
}

/// A committed runtime log: what it shows, and Open, which reads it in the trace lab.
fn trace_row(p: &GalleryProps, sample: &'static Sample) -> Html {
    let open = p.on_trace.reform(move |_: MouseEvent| sample.id);
    html! {
        <tr data-trace={sample.id} class="trace-row">
            <td class="preset-name">{ name_cell(sample.runtime, sample.id, "trace") }</td>
            <td class="preset-description" colspan="2">{ sample.shows }</td>
            <td class="actions">
                <button class="trace-open primary" onclick={open} title="Read this log in the trace lab" aria-label={format!("Open the trace {}", sample.id)}>{ "Open" }</button>
            </td>
        </tr>
    }
}

fn group_heading(title: &str) -> Html {
    html! { <tr class="group-row"><th colspan="4" scope="rowgroup">{ title }</th></tr> }
}

#[function_component(Gallery)]
pub fn gallery(p: &GalleryProps) -> Html {
    let mut list: Vec<&'static Preset> = presets::all().iter().collect();
    order::sort_by_key(&mut list, |x| family_rank(x.family));

    html! {
        <section id="gallery" class="panel" aria-labelledby="gallery-title">
            <header class="panel-head">
                <h2 id="gallery-title">{ "Presets" }</h2>
                <p class="hint">{ "The GROOVY-12191 benchmark workloads, scenarios that show the oracle at work, then the same story in other runtimes’ caches, then the workload the probes measure on six real runtimes. Run loads one and starts it." }</p>
            </header>
            <div class="table-scroll gallery-scroll">
                <table id="preset-table" class="presets">
                    <thead>
                        <tr>
                            <th scope="col">{ "Preset" }</th>
                            <th scope="col">{ "What it shows" }</th>
                            <th scope="col" class="num" title="Published JMH ops/ms: global (before) → exact (after)">{ "Published ops/ms" }</th>
                            <th scope="col"><span class="visually-hidden">{ "Actions" }</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        { group_heading("Call sites: Groovy’s indy call-site cache (GROOVY-12191)") }
                        { for list.iter().map(|preset| row(p, Row::call_site(preset))) }
                        { for Family::ALL.iter().map(|family| html! {
                            <>
                                { group_heading(family.heading()) }
                                { for MODEL_PRESETS.iter().filter(|m| m.family == family.name()).map(|m| row(p, Row::model(m))) }
                            </>
                        }) }
                        { group_heading("Runtimes: the same workload on six real runtimes (probes/, docs/RUNTIMES.md)") }
                        { for PROFILES.iter().map(|runtime| runtime_row(p, runtime)) }
                        { group_heading("Traces: real V8, HotSpot and Groovy logs (probes/traces/), read in the trace lab") }
                        { for SAMPLES.iter().map(|sample| trace_row(p, sample)) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
