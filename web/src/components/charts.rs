//! The live charts panel: throughput per policy (log scale) with event marks, and relinks
//! per interval split by the oracle's verdict; in model mode time per op per variant and the
//! verdicts per checkpoint interval. Each chart is exportable as PNG. The page builds the
//! charts' data and the engine worker draws them (`chart_wire`): a canvas here only shows the
//! picture that comes back.
//!
//! Both charts are one timeline, in the manner of a profiler's: the wheel zooms around the
//! pointer (Shift+wheel pans), a drag selects a range (its relinks go to the why panel and
//! the blast view), buttons do the same from the keyboard. The range and the relink marked
//! from the why panel are HTML overlays on the canvas, so brushing never redraws a chart.

use std::fmt::Write;

use yew::prelude::*;

use crate::browser;
use crate::components::raw;
use blast_playground::charts::{ChartData, ChartLanes};
use blast_playground::markup::escape;
use blast_playground::timeline::XAxis;

use crate::browser::ChartCanvas;
use blast_playground::charts::ChartColours;
use blast_playground::chrome::Theme;
use blast_playground::export;
use blast_playground::format;
use blast_playground::timeline::{self, Range, PLOT_LEFT_PX, PLOT_RIGHT_PX, ZOOM_STEP};
use blast_playground::worker::chart_wire::{Chart, ChartJob, Destination, EXPORT_SCALE, EXPORT_TITLE_PX};

#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    pub lanes: ChartLanes,
    pub theme: Theme,
    pub on_error: Callback<String>,
    /// Draw a chart: the engine worker draws it, and its picture comes back to the canvas (or
    /// as a PNG file) by itself (`hooks::use_engine_worker`).
    pub on_draw: Callback<ChartJob>,
    pub axis: XAxis,
    /// The x window shown (`None`: the whole run) and the selected range, on `axis`.
    pub view: Option<Range>,
    pub brush: Option<Range>,
    /// The marked relink's moment: (colour slot of its lane, x).
    #[prop_or_default]
    pub mark: Option<(usize, f64)>,
    /// How many relinks the selected range holds, across the lanes (call-site mode).
    #[prop_or_default]
    pub brushed_relinks: Option<usize>,
    /// What the run is, under an exported chart's title: the scenario (or model preset) and
    /// its lanes.
    #[prop_or_default]
    pub subject: AttrValue,
    pub on_axis: Callback<XAxis>,
    pub on_view: Callback<Option<Range>>,
    pub on_brush: Callback<Option<Range>>,
}

/// Captions of the two charts and their empty states, per mode.
struct Captions {
    /// The charts' titles in an exported PNG.
    lines_title: &'static str,
    bars_title: &'static str,
    lines: &'static str,
    lines_empty: &'static str,
    bars: &'static str,
    bars_empty: &'static str,
}

fn captions(lanes: &ChartLanes) -> Captions {
    match lanes {
        ChartLanes::CallSites(_) => Captions {
            lines_title: "Throughput per policy (ops/ms, log scale)",
            bars_title: "Relinks per interval, by the oracle’s verdict",
            lines: "Throughput per policy (ops/ms, log scale); ticks in the strip under the lowest gridline mark intervals with events; a “v” on a line marks a deopt of its compiled code; point at the chart for values",
            lines_empty: "Press Run (or Step) to draw throughput as the simulations advance.",
            bars: "Relinks per interval, by the oracle’s verdict: ",
            bars_empty: "Relinks appear here per policy as the simulations run.",
        },
        ChartLanes::Models(_) => Captions {
            lines_title: "Time per measured op, per variant (log scale)",
            bars_title: "Rebuilds and deopts per interval, by the oracle’s verdict",
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

/// The crosshair and the values of every line at the pointer. The tooltip stays a node (a
/// live region is announced when its content changes, not when it is replaced); its content
/// is markup, line labels escaped.
fn tooltip(p: &ChartsProps, axis: XAxis, at: Pointer) -> Html {
    let data = p.lanes.data(axis);
    let mut s = format!("<strong>{}</strong><ul>", escape(&axis.value_label(at.x)));
    for line in &data.lines {
        let value = line.value_at(at.x).map_or_else(|| "–".to_string(), |v| format!("{} {}", format::sig3(v), data.y_unit));
        let _ =
            write!(s, r#"<li><span class="swatch series-{}" aria-hidden="true"></span>{}</li>"#, line.colour, escape(&format!("{}: {value}", line.legend())));
    }
    s.push_str("</ul>");
    let left = format!("left: {:.1}px", at.css_x);
    html! {
        <>
            <div class="crosshair" aria-hidden="true" style={left.clone()}></div>
            <div id="chart-tooltip" class={classes!("chart-tooltip", at.flip.then_some("flip"))} role="status" style={left}>{ raw(s) }</div>
        </>
    }
}

/// A range over the plot area, placed by CSS from its fractions of the plot's width.
fn plot_style((start, width): (f64, f64)) -> String {
    let (l, lr) = (PLOT_LEFT_PX, PLOT_LEFT_PX + PLOT_RIGHT_PX);
    format!("left: calc({l}px + (100% - {lr}px) * {start:.5}); width: calc((100% - {lr}px) * {width:.5})")
}

/// The selected range (or the one being dragged) and the marked moment over a chart, as markup.
fn overlays(window: Range, brush: Option<Range>, dragging: bool, mark: Option<(usize, f64)>) -> Html {
    let brush = brush.and_then(|r| timeline::plot_fractions(r, window));
    let mark = mark.and_then(|(colour, x)| timeline::plot_fractions((x, x), window).map(|f| (colour, f)));
    let mut s = String::new();
    if let Some(f) = brush {
        let dragging = if dragging { " dragging" } else { "" };
        let _ = write!(s, r#"<div class="brush{dragging}" aria-hidden="true" style="{}"></div>"#, plot_style(f));
    }
    if let Some((colour, f)) = mark {
        let _ = write!(s, r#"<div class="moment" aria-hidden="true" style="{}; border-color: var(--series-{colour})"></div>"#, plot_style(f));
    }
    raw(s)
}

#[function_component(Charts)]
pub fn charts_panel(p: &ChartsProps) -> Html {
    let axis = p.axis;
    let pointer = use_state(|| None::<Pointer>);
    // A drag on a chart: where it started and where the pointer is, in x units.
    let drag = use_state(|| None::<(f64, f64)>);
    let throughput = use_node_ref();
    let relinks = use_node_ref();
    // Bumped when the window is resized or the system colour scheme flips.
    let redraw = use_state(|| 0u32);
    {
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            let listeners = browser::on_resize_or_scheme_change(move || redraw.set(browser::now_ms() as u32));
            move || drop(listeners)
        });
    }
    {
        let (throughput, relinks, on_draw) = (throughput.clone(), relinks.clone(), p.on_draw.clone());
        use_effect_with((p.lanes.clone(), axis, p.view, p.theme, *redraw), move |(lanes, axis, view, _, _)| {
            // Asked after this render is on screen: the canvas's size is read from a page
            // already laid out (read before that paint, it laid out the whole page: 30-60 ms
            // after a link opened a big scenario). The drawing is the worker's.
            let data = lanes.data(*axis);
            let window = timeline::shown(*view, data.x_max);
            let task = browser::after_frames(1, move || {
                for (node, chart) in [(throughput, Chart::Throughput), (relinks, Chart::Relinks)] {
                    if let Some(canvas) = browser::chart_canvas(&node) {
                        on_draw.emit(chart_job(chart, Destination::Canvas, data.clone(), window, &canvas, (browser::device_pixel_ratio(), 0.0)));
                    }
                }
            });
            move || drop(task)
        });
    }
    // A chart as a PNG: drawn at twice the CSS size with a title and the run's subject.
    let export = |node: &NodeRef, chart: Chart, name: &'static str, title: &'static str| {
        let (node, on_error, on_draw, lanes, view, subject) = (node.clone(), p.on_error.clone(), p.on_draw.clone(), p.lanes.clone(), p.view, p.subject.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(canvas) = browser::chart_canvas(&node) else { return on_error.emit("PNG export failed: the chart is not on the page".into()) };
            let data = lanes.data(axis);
            let window = timeline::shown(view, data.x_max);
            let file = format!("{}-{name}", export::file_stem(subject.split(' ').next().unwrap_or_default()));
            let destination = Destination::Export { file, title: title.into(), subject: subject.to_string() };
            on_draw.emit(chart_job(chart, destination, data, window, &canvas, (EXPORT_SCALE, EXPORT_TITLE_PX)));
        })
    };
    let set_axis = |a: XAxis| {
        let cb = p.on_axis.clone();
        Callback::from(move |_: Event| cb.emit(a))
    };
    let has_data = p.lanes.has_data();
    let x_max = p.lanes.x_max(axis);
    let window = timeline::shown(p.view, x_max);
    // The pointer's x on a chart canvas (`clamp`: a drag past the plot's edge stops there).
    let x_of = move |e: &MouseEvent, clamp: bool| timeline::x_at(f64::from(e.offset_x()), browser::width_of(e), window, clamp);
    let on_down = {
        let drag = drag.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(x) = x_of(&e, false).filter(|_| e.button() == 0) {
                e.prevent_default();
                drag.set(Some((x, x)));
            }
        })
    };
    // Mouse up (or leaving the chart mid-drag) selects the dragged range; a click clears it.
    let finish = {
        let (drag, on_brush) = (drag.clone(), p.on_brush.clone());
        Callback::from(move |_: ()| {
            if let Some((a, b)) = *drag {
                on_brush.emit(timeline::range(a, b, x_max));
                drag.set(None);
            }
        })
    };
    let on_move = |tooltip: bool| {
        let (pointer, drag) = (pointer.clone(), drag.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some((start, _)) = *drag {
                if let Some(x) = x_of(&e, true) {
                    drag.set(Some((start, x)));
                }
            }
            if tooltip {
                let width = browser::width_of(&e);
                let css_x = f64::from(e.offset_x());
                pointer.set(x_of(&e, false).map(|x| Pointer { css_x, x, flip: css_x > width / 2.0 }));
            }
        })
    };
    let on_leave = {
        let (pointer, finish) = (pointer.clone(), finish.clone());
        Callback::from(move |_: MouseEvent| {
            pointer.set(None);
            finish.emit(());
        })
    };
    let on_wheel = {
        let (on_view, view) = (p.on_view.clone(), p.view);
        Callback::from(move |e: WheelEvent| {
            e.prevent_default();
            let width = browser::width_of(&e);
            // Lines (Firefox) or pages, as pixels.
            let unit = match e.delta_mode() {
                1 => 33.0,
                2 => width,
                _ => 1.0,
            };
            let (dx, dy) = (e.delta_x() * unit, e.delta_y() * unit);
            if e.shift_key() || dx.abs() > dy.abs() {
                let by = if dx.abs() > dy.abs() { dx } else { dy };
                let plot = (width - PLOT_LEFT_PX - PLOT_RIGHT_PX).max(1.0);
                on_view.emit(timeline::pan(view, x_max, by / plot * (window.1 - window.0)));
            } else {
                let at = x_of(&e, false).unwrap_or((window.0 + window.1) / 2.0);
                on_view.emit(timeline::zoom(view, x_max, at, ZOOM_STEP.powf(dy / 100.0)));
            }
        })
    };
    let zoom_button = |factor: f64| {
        let (on_view, view) = (p.on_view.clone(), p.view);
        Callback::from(move |_: MouseEvent| on_view.emit(timeline::zoom(view, x_max, (window.0 + window.1) / 2.0, factor)))
    };
    let emit = |cb: &Callback<Option<Range>>, value: Option<Range>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(value))
    };
    // The toolbar, the keyboard's way to everything the wheel and a drag do:
    // (id, label, title, enabled, action).
    let tools = [
        ("zoom-in", "Zoom in", "Zoom in around the middle (or the wheel over a chart)", has_data, zoom_button(1.0 / ZOOM_STEP)),
        ("zoom-out", "Zoom out", "Zoom out (or the wheel)", p.view.is_some(), zoom_button(ZOOM_STEP)),
        ("zoom-reset", "Whole run", "Show the whole run", p.view.is_some(), emit(&p.on_view, None)),
        ("zoom-brush", "Zoom to selection", "Show just the selected range", p.brush.is_some(), emit(&p.on_view, p.brush)),
        ("brush-window", "Select shown range", "Select the range on screen (or drag over a chart)", has_data, emit(&p.on_brush, Some(window))),
        ("brush-clear", "Clear selection", "Forget the selected range", p.brush.is_some(), emit(&p.on_brush, None)),
    ];
    let dragging = drag.map(|(a, b)| (a.min(b), a.max(b)));
    let shown_brush = dragging.or(p.brush);
    let chart_events =
        |tooltip: bool| -> ChartEvents { (on_down.clone(), on_move(tooltip), finish.reform(|_: MouseEvent| ()), on_leave.clone(), on_wheel.clone()) };
    let text = captions(&p.lanes);
    let relinks_height = format!("height: {}px", RELINK_PANEL_PX * p.lanes.len().max(1) as i32 + 40);
    html! {
        <section id="charts" class="panel" aria-labelledby="charts-title">
            <header class="panel-head">
                <h2 id="charts-title">{ "Live charts" }</h2>
                <div class="chart-tools" role="radiogroup" aria-label="x axis">
                    <label><input type="radio" name="x-axis" id="axis-time" checked={axis == XAxis::Time} onchange={set_axis(XAxis::Time)} />{ " virtual time" }</label>
                    <label title="Each run's progress through its own loop iterations: fast and slow policies side by side, event by event">
                        <input type="radio" name="x-axis" id="axis-progress" checked={axis == XAxis::Progress} onchange={set_axis(XAxis::Progress)} />{ " normalized (% of each run)" }
                    </label>
                </div>
            </header>
            <div class="timeline-tools" role="toolbar" aria-label="Timeline zoom and selection">
                { for tools.into_iter().map(|(id, label, title, enabled, onclick)| html! {
                    <button {id} class="small" {title} {onclick} disabled={!enabled}>{ label }</button>
                }) }
                <output id="timeline-status" class="timeline-status" data-lo={window.0.to_string()} data-hi={window.1.to_string()}
                    data-brush={p.brush.map(|(lo, hi)| format!("{lo} {hi}"))}>
                    { timeline_status(axis, p.view.map(|_| window), p.brush, p.brushed_relinks) }
                </output>
            </div>
            { figure(Figure {
                canvas_id: "throughput-chart",
                node: throughput.clone(),
                caption: html! { <span>{ text.lines }</span> },
                png_id: "png-throughput",
                export: export(&throughput, Chart::Throughput, "throughput.png", text.lines_title),
                label: "Line chart over virtual time, one line per policy or model variant; the wheel zooms, a drag selects a range",
                style: None,
                events: chart_events(true),
                overlays: overlays(window, shown_brush, dragging.is_some(), p.mark),
                below: if !has_data {
                    html! { <p class="chart-empty">{ text.lines_empty }</p> }
                } else if let Some(at) = (*pointer).filter(|_| dragging.is_none()) {
                    tooltip(p, axis, at)
                } else {
                    html! {}
                },
            }) }
            { figure(Figure {
                canvas_id: "relinks-chart",
                node: relinks.clone(),
                caption: raw(format!(
                    r#"<span>{}<span class="v-necessary">necessary</span>, <span class="v-collateral">collateral</span>, <span class="v-missed">missed</span></span>"#,
                    text.bars
                )),
                png_id: "png-relinks",
                export: export(&relinks, Chart::Relinks, "relinks.png", text.bars_title),
                label: "Stacked bars of verdicts per interval, one panel per policy or model variant; the wheel zooms, a drag selects a range",
                style: Some(relinks_height),
                events: chart_events(false),
                overlays: overlays(window, shown_brush, dragging.is_some(), p.mark),
                below: if has_data { html! {} } else { html! { <p class="chart-empty">{ text.bars_empty }</p> } },
            }) }
        </section>
    }
}

/// A chart's job: `data` over `window` in the canvas's colours, at `scale` pixels per CSS px,
/// `extra_css_h` CSS px taller than the canvas (an export's title band).
fn chart_job(chart: Chart, destination: Destination, data: ChartData, window: Range, canvas: &ChartCanvas, (scale, extra_css_h): (f64, f64)) -> ChartJob {
    let px = |css: f64| (css * scale).round() as u32;
    let colours = ChartColours::from_vars(|name| canvas.style.var(name), canvas.style.dark());
    ChartJob { chart, destination, data, window, colours, size_px: (px(canvas.css_size.0), px(canvas.css_size.1 + extra_css_h)), scale }
}

/// A chart canvas's mouse listeners: down, move, up, leave and the wheel.
type ChartEvents = (Callback<MouseEvent>, Callback<MouseEvent>, Callback<MouseEvent>, Callback<MouseEvent>, Callback<WheelEvent>);

/// One of the two charts: its caption and PNG button, the canvas, and what lies over it.
struct Figure {
    canvas_id: &'static str,
    node: NodeRef,
    caption: Html,
    png_id: &'static str,
    export: Callback<MouseEvent>,
    label: &'static str,
    style: Option<String>,
    events: ChartEvents,
    overlays: Html,
    /// The empty state, or the tooltip.
    below: Html,
}

/// A function, so the two charts share one copy of this markup's code.
fn figure(f: Figure) -> Html {
    let (onmousedown, onmousemove, onmouseup, onmouseleave, onwheel) = f.events;
    html! {
        <figure class="chart">
            <figcaption>
                { f.caption }
                <button id={f.png_id} class="small" onclick={f.export}>{ "PNG" }</button>
            </figcaption>
            <div class="canvas-wrap">
                <canvas id={f.canvas_id} ref={f.node} class="chart-canvas" style={f.style} role="img" aria-label={f.label}
                    {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {onwheel}></canvas>
                { f.overlays }
                { f.below }
            </div>
        </figure>
    }
}

/// What the timeline shows and what is selected, in words.
fn timeline_status(axis: XAxis, zoomed: Option<Range>, brush: Option<Range>, relinks: Option<usize>) -> String {
    let span = |(lo, hi): Range| format!("{} – {}", axis.value_label(lo), axis.value_label(hi));
    let shown = zoomed.map_or_else(|| "Whole run".to_string(), |w| format!("Showing {}", span(w)));
    let selected = match (brush, relinks) {
        (Some(r), Some(n)) => format!("; selected {} ({} in it)", span(r), format::counted(n as u64, "relink")),
        (Some(r), None) => format!("; selected {}", span(r)),
        (None, _) => "; wheel to zoom, drag to select a range".to_string(),
    };
    shown + &selected
}
