//! The sticky control bar: run controls, speed, policies (or a model's variants), clock,
//! relink counter, theme, help.

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::format;
use crate::state::{RunState, Speed, Theme, SPEEDS};

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

#[derive(Properties, PartialEq)]
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
}

#[function_component(TopBar)]
pub fn top_bar(p: &TopBarProps) -> Html {
    let playing = p.run_state == RunState::Running;
    let on_speed = {
        let cb = p.on_speed.clone();
        Callback::from(move |e: Event| {
            let i: usize = e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(3);
            cb.emit(SPEEDS[i.min(SPEEDS.len() - 1)]);
        })
    };
    let click = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let theme_label = match p.theme {
        Theme::Auto => "Theme: auto",
        Theme::Light => "Theme: light",
        Theme::Dark => "Theme: dark",
    };
    html! {
        <header class="topbar">
            <div class="brand">
                <h1>{ "Blast Radius" }</h1>
                <span class="tagline">{ "which call sites does a metaclass change throw away?" }</span>
            </div>
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
        </header>
    }
}
