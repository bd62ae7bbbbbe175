//! The sticky control bar: a compact preset picker (the gallery is one click away), run
//! controls, speed, policies (or a model's variants), clock, relink counter, theme, help.

use blast_engine::models::MODEL_PRESETS;
use blast_engine::{presets, runtimes};
use yew::prelude::*;

use crate::browser;
use crate::components::raw_static;

use blast_playground::chrome::Theme;
use blast_playground::format;
use blast_playground::playback::{RunState, Speed, SPEEDS};

/// One checkbox of the lane choice: a policy, or a model's variant.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneChoice {
    /// Element id, e.g. `policy-exact` or `variant-fifo`.
    pub id: String,
    pub label: String,
    /// Colour class of its swatch, e.g. `policy-exact` or `series-1`.
    pub colour: String,
    pub checked: bool,
}

pub struct TopBarProps {
    pub run_state: RunState,
    pub can_run: bool,
    pub speed: Speed,
    pub clock_ms: f64,
    /// 0..=1 through the program (warm-up and measured ops).
    pub progress: f64,
    pub relinks: u64,
    /// What the relink counter counts (relinks, or a model's rebuilds and deopts).
    pub counter_label: AttrValue,
    /// "Policies" or "Variants".
    pub lanes_title: AttrValue,
    pub lanes: Vec<LaneChoice>,
    pub theme: Theme,
    pub on_toggle_play: Callback<()>,
    pub on_step: Callback<()>,
    pub on_reset: Callback<()>,
    pub on_speed: Callback<Speed>,
    /// The index of the toggled choice.
    pub on_toggle_lane: Callback<usize>,
    pub on_theme: Callback<()>,
    pub on_help: Callback<()>,
    pub on_share: Callback<()>,
    /// The preset on screen (unedited), selected in the picker.
    pub current: Option<AttrValue>,
    /// The user's own scenario is on screen or kept behind a load: "Your scenario" can be picked.
    pub has_own: bool,
    /// "Your scenario" picked: bring it back.
    pub on_own: Callback<()>,
    /// A preset picked: load and run it.
    pub on_preset: Callback<String>,
    /// Bring the gallery (every preset, described) into view.
    pub on_gallery: Callback<()>,
}

/// The picker's value for "Your scenario" (no preset id has a space).
const OWN: &str = "your scenario";

/// The picker's options, grouped as the gallery groups them.
fn preset_picker(p: &TopBarProps) -> Html {
    let on_change = {
        let (cb, own) = (p.on_preset.clone(), p.on_own.clone());
        Callback::from(move |e: Event| {
            let id = browser::value(&e);
            if id == OWN {
                own.emit(());
            } else if !id.is_empty() {
                cb.emit(id);
            }
        })
    };
    let current = p.current.as_deref().unwrap_or("");
    let option = |id: String, title: &str| {
        let selected = id == current;
        html! { <option value={id} {selected}>{ title }</option> }
    };
    html! {
        <div class="preset-pick">
            <select id="preset-picker" aria-label="Preset: load and run it" onchange={on_change} title="Load a preset and run it">
                <option value={OWN} selected={current.is_empty()} disabled={!p.has_own}>{ "Your scenario" }</option>
                <optgroup label="Groovy call sites">{ for presets::all().iter().map(|x| option(x.id.to_string(), x.title)) }</optgroup>
                <optgroup label="Other models">{ for MODEL_PRESETS.iter().map(|x| option(x.id.to_string(), x.title)) }</optgroup>
                <optgroup label="Runtimes">{ for runtimes::PROFILES.iter().map(|r| option(r.preset_id(), r.name)) }</optgroup>
            </select>
            <button id="gallery-jump" class="small" onclick={p.on_gallery.reform(|_: MouseEvent| ())} title="Every preset with its description and published numbers">
                { "All presets ↓" }
            </button>
        </div>
    }
}

/// A plain function, not a component: its props change with the clock every frame of a run,
/// so a props check would never skip it.
pub fn top_bar(p: &TopBarProps) -> Html {
    let playing = p.run_state == RunState::Running;
    let on_speed = {
        let cb = p.on_speed.clone();
        Callback::from(move |e: Event| {
            let i: usize = browser::value(&e).parse().unwrap_or(3);
            cb.emit(SPEEDS[i.min(SPEEDS.len() - 1)]);
        })
    };
    let click = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    // The sticky parts under the bar (the blast view beside a tall why panel) sit below it.
    browser::publish_height(".topbar", "--bar-h");
    let theme_label = match p.theme {
        Theme::Auto => "Theme: auto",
        Theme::Light => "Theme: light",
        Theme::Dark => "Theme: dark",
    };
    html! {
        <header class="topbar">
            { raw_static(r#"<div class="brand"><h1>Blast Radius</h1><span class="tagline">which call sites does a metaclass change throw away?</span></div>"#) }
            // Two rows on a phone (style.css, max-width 600px): the run controls with the
            // picker under them, then the status, lanes and tools in one line that scrolls
            // sideways; wider screens ignore the rows (`display: contents`).
            <div class="bar-row bar-run">
            { preset_picker(p) }
            <div class="controls" role="toolbar" aria-label="Run controls">
                <button id="run" class="primary" onclick={click(&p.on_toggle_play)} disabled={!p.can_run}
                    title="Run or pause (Space)" aria-pressed={playing.to_string()}>{ p.run_state.button_label() }</button>
                <button id="step" onclick={click(&p.on_step)} disabled={!p.can_run}
                    title="Advance to the next event or loop segment (n, →)">{ "Step" }</button>
                <button id="reset" onclick={click(&p.on_reset)} title="Back to virtual time zero (r)">{ "Reset" }</button>
                <label class="speed">
                    <span>{ "Speed" }</span>
                    <select id="speed" onchange={on_speed} title="Virtual milliseconds per wall millisecond (+ / -)">
                        { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                            <option value={i.to_string()} selected={*s == p.speed} title={s.label()}>{ s.short_label() }</option>
                        }) }
                    </select>
                </label>
            </div>
            </div>
            <div class="bar-row bar-more">
            <div class="status" aria-live="off">
                <output id="run-state" class={classes!("run-state", format!("run-{}", p.run_state.name()))} data-state={p.run_state.name()}>
                    { p.run_state.name() }
                </output>
                <span class="stat">
                    <span class="stat-label">{ "virtual time" }</span>
                    <output id="virtual-time" data-value={p.clock_ms.to_string()}>{ format::duration_ms(p.clock_ms) }</output>
                </span>
                <span class="stat">
                    <span class="stat-label">{ p.counter_label.clone() }</span>
                    <output id="relink-count" data-value={p.relinks.to_string()}>{ p.relinks.to_string() }</output>
                </span>
                <progress class="run-progress" max="1" value={p.progress.to_string()} aria-label="Progress through the program" />
            </div>
            <fieldset class="policies">
                <legend>{ p.lanes_title.clone() }</legend>
                { for p.lanes.iter().enumerate().map(|(i, choice)| {
                    let cb = p.on_toggle_lane.clone();
                    html! {
                        <label class={classes!("policy-toggle", choice.colour.clone())} title={format!("Toggle {} ({})", choice.label, i + 1)} key={choice.id.clone()}>
                            <input type="checkbox" id={choice.id.clone()} checked={choice.checked}
                                onchange={Callback::from(move |_: Event| cb.emit(i))} />
                            <span class="swatch" aria-hidden="true"></span>
                            { &choice.label }
                        </label>
                    }
                }) }
            </fieldset>
            <div class="tools">
                <button id="share-button" onclick={click(&p.on_share)} title="Copy a link that carries this scenario">{ "Copy share link" }</button>
                <button id="theme-toggle" onclick={click(&p.on_theme)} title="Switch theme (t)">{ theme_label }</button>
                <button id="help-button" onclick={click(&p.on_help)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">{ "?" }</button>
            </div>
            </div>
        </header>
    }
}
