//! The live charts panel: throughput per policy (log scale) with event marks, and relinks
//! per interval split by the oracle's verdict; in model mode time per op per variant and the
//! verdicts per checkpoint interval. Each chart is exportable as PNG.

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::browser;
use crate::charts::{self, ChartLanes, DrawChart, Palette, XAxis};
use crate::format;
use crate::state::Theme;

#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    pub lanes: ChartLanes,
    pub theme: Theme,
    pub on_error: Callback<String>,
}

/// Captions of the two charts and their empty states, per mode.
struct Captions {
    lines: &'static str,
    lines_empty: &'static str,
    bars: &'static str,
    bars_empty: &'static str,
}

fn captions(lanes: &ChartLanes) -> Captions {
    match lanes {
        ChartLanes::CallSites(_) => Captions {
            lines: "Throughput per policy (ops/ms, log scale); ticks in the strip under the lowest gridline mark intervals with events; a “v” on a line marks a deopt of its compiled code; point at the chart for values",
            lines_empty: "Press Run (or Step) to draw throughput as the simulations advance.",
            bars: "Relinks per interval, by the oracle’s verdict: ",
            bars_empty: "Relinks appear here per policy as the simulations run.",
        },
        ChartLanes::Models(_) => Captions {
            lines: "Time per measured op, per variant (log scale; lower is better); point at the chart for values",
            lines_empty: "Press Run (or Step) to replay the runs op by op.",
            bars: "Rebuilds and deopts per interval of the measured ops (the warm-up’s are in the totals), by the oracle’s verdict: ",
            bars_empty: "Verdicts appear here per variant as the replay passes them.",
        },
    }
}

const RELINK_PANEL_PX: i32 = 96;

/// The pointer over the throughput chart: its CSS x and the x value under it.
#[derive(Clone, Copy, PartialEq)]
struct Pointer {
    css_x: f64,
    x: f64,
    /// Over the right half: the tooltip goes left of the crosshair, to stay on the chart.
    flip: bool,
}

/// The crosshair and the values of every line at the pointer.
fn tooltip(p: &ChartsProps, axis: XAxis, at: Pointer) -> Html {
    let data = p.lanes.data(axis);
    let rows: Vec<Html> = data
        .lines
        .iter()
        .map(|line| {
            let value = line.value_at(at.x).map_or_else(|| "–".to_string(), |v| format!("{} {}", format::sig3(v), data.y_unit));
            html! {
                <li><span class={classes!("swatch", format!("series-{}", line.colour))} aria-hidden="true"></span>{ format!("{}: {value}", line.legend()) }</li>
            }
        })
        .collect();
    html! {
        <>
            <div class="crosshair" aria-hidden="true" style={format!("left: {:.1}px", at.css_x)}></div>
            <div id="chart-tooltip" class={classes!("chart-tooltip", at.flip.then_some("flip"))} role="status" style={format!("left: {:.1}px", at.css_x)}>
                <strong>{ axis.value_label(at.x) }</strong>
                <ul>{ for rows }</ul>
            </div>
        </>
    }
}

#[function_component(Charts)]
pub fn charts_panel(p: &ChartsProps) -> Html {
    let axis = use_state(|| XAxis::Time);
    let pointer = use_state(|| None::<Pointer>);
    let throughput = use_node_ref();
    let relinks = use_node_ref();
    // Bumped when the window is resized or the system colour scheme flips.
    let redraw = use_state(|| 0u32);
    {
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            let window = web_sys::window();
            let bump = move || redraw.set(browser::now_ms() as u32);
            let resize = window.as_ref().map(|w| {
                let bump = bump.clone();
                EventListener::new(w, "resize", move |_| bump())
            });
            let scheme =
                window.and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()).map(|mq| EventListener::new(&mq, "change", move |_| bump()));
            move || drop((resize, scheme))
        });
    }
    {
        let (throughput, relinks, on_error) = (throughput.clone(), relinks.clone(), p.on_error.clone());
        use_effect_with((p.lanes.clone(), *axis, p.theme, *redraw), move |(lanes, axis, _, _)| {
            // Draw in a task of its own, after this render is on screen: a frame's engine
            // work, render and chart drawing never add up to one long task.
            let (lanes, axis) = (lanes.clone(), *axis);
            let task = Timeout::new(0, move || {
                let ratio = browser::device_pixel_ratio();
                let data = lanes.data(axis);
                let draw = |node: &NodeRef, f: DrawChart| {
                    if let Some(canvas) = node.cast::<HtmlCanvasElement>() {
                        let scale = charts::fit_canvas(&canvas, ratio);
                        let palette = Palette::from_css(&canvas);
                        if let Err(e) = f(canvas, &data, &palette, scale) {
                            on_error.emit(format!("A chart could not be drawn: {e}"));
                        }
                    }
                };
                draw(&throughput, charts::draw_throughput);
                draw(&relinks, charts::draw_relinks);
            });
            move || drop(task)
        });
    }
    let export = |node: &NodeRef, name: &'static str| {
        let (node, on_error) = (node.clone(), p.on_error.clone());
        Callback::from(move |_: MouseEvent| {
            let result = node
                .cast::<HtmlCanvasElement>()
                .ok_or_else(|| "the chart is not on the page".to_string())
                .and_then(|c| c.to_data_url_with_type("image/png").map_err(|_| "the browser refused to export the canvas".to_string()))
                .and_then(|url| browser::download_url(name, &url));
            if let Err(e) = result {
                on_error.emit(format!("PNG export failed: {e}"));
            }
        })
    };
    let set_axis = |a: XAxis| {
        let axis = axis.clone();
        Callback::from(move |_: Event| axis.set(a))
    };
    let on_move = {
        let (pointer, lanes, axis) = (pointer.clone(), p.lanes.clone(), *axis);
        Callback::from(move |e: MouseEvent| {
            let canvas = e.target_unchecked_into::<HtmlCanvasElement>();
            let x_max = lanes.data(axis).x_max;
            let (css_x, width) = (f64::from(e.offset_x()), f64::from(canvas.client_width()));
            pointer.set(charts::pointer_x(css_x, width, x_max).map(|x| Pointer { css_x, x, flip: css_x > width / 2.0 }));
        })
    };
    let on_leave = {
        let pointer = pointer.clone();
        Callback::from(move |_: MouseEvent| pointer.set(None))
    };
    let has_data = p.lanes.has_data();
    let text = captions(&p.lanes);
    let relinks_height = format!("height: {}px", RELINK_PANEL_PX * p.lanes.len().max(1) as i32 + 40);
    html! {
        <section id="charts" class="panel" aria-labelledby="charts-title">
            <header class="panel-head">
                <h2 id="charts-title">{ "Live charts" }</h2>
                <div class="chart-tools" role="radiogroup" aria-label="x axis">
                    <label><input type="radio" name="x-axis" id="axis-time" checked={*axis == XAxis::Time} onchange={set_axis(XAxis::Time)} />{ " virtual time" }</label>
                    <label title="Each run's progress through its own loop iterations: fast and slow policies side by side, event by event">
                        <input type="radio" name="x-axis" id="axis-progress" checked={*axis == XAxis::Progress} onchange={set_axis(XAxis::Progress)} />{ " normalized (% of each run)" }
                    </label>
                </div>
            </header>
            <figure class="chart">
                <figcaption>
                    <span>{ text.lines }</span>
                    <button id="png-throughput" class="small" onclick={export(&throughput, "throughput.png")}>{ "PNG" }</button>
                </figcaption>
                <div class="canvas-wrap">
                    <canvas id="throughput-chart" ref={throughput} class="chart-canvas" role="img"
                        aria-label="Line chart over virtual time, one line per policy or model variant" onmousemove={on_move} onmouseleave={on_leave}></canvas>
                    if !has_data {
                        <p class="chart-empty">{ text.lines_empty }</p>
                    } else if let Some(at) = *pointer {
                        { tooltip(p, *axis, at) }
                    }
                </div>
            </figure>
            <figure class="chart">
                <figcaption>
                    <span>{ text.bars }
                        <span class="v-necessary">{ "necessary" }</span>{ ", " }
                        <span class="v-collateral">{ "collateral" }</span>{ ", " }
                        <span class="v-missed">{ "missed" }</span>
                    </span>
                    <button id="png-relinks" class="small" onclick={export(&relinks, "relinks.png")}>{ "PNG" }</button>
                </figcaption>
                <div class="canvas-wrap">
                    <canvas id="relinks-chart" ref={relinks} class="chart-canvas" style={relinks_height} role="img"
                        aria-label="Stacked bars of verdicts per interval, one panel per policy or model variant"></canvas>
                    if !has_data {
                        <p class="chart-empty">{ text.bars_empty }</p>
                    }
                </div>
            </figure>
        </section>
    }
}
