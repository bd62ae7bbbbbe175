//! The live charts, drawn with plotters on a canvas.
//!
//! Series are built by pure functions (tested natively) into one `ChartData` for either mode:
//! call-site lanes (throughput, relinks) or model variants (time per op, verdicts per
//! checkpoint interval). Drawing reads its colours from the
//! page's CSS variables, so the charts follow the light and dark themes, and sizes the canvas
//! backing store by `devicePixelRatio` so text stays crisp. Tick counts stay small: plotters
//! measures each label through the DOM.

use std::rc::Rc;

use blast_engine::report::TimelinePoint;
use blast_engine::Policy;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use web_sys::HtmlCanvasElement;

use crate::format;
use crate::model_runner::{measured_us, VariantView};
use crate::runner::LaneView;
use crate::timeline::{self, Range, PLOT_LEFT_PX, PLOT_RIGHT_PX};

/// What the x axis measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XAxis {
    /// Virtual milliseconds: shows how much sooner a cheap policy finishes.
    Time,
    /// Percent of the program's loop iterations: lines up the policies event by event.
    Progress,
}

impl XAxis {
    fn description(self) -> &'static str {
        match self {
            XAxis::Time => "virtual time (ms)",
            XAxis::Progress => "normalized: % of each run's loop iterations",
        }
    }

    /// An x value as the tooltip reads it.
    pub fn value_label(self, x: f64) -> String {
        match self {
            XAxis::Time => format::duration_ms(x),
            XAxis::Progress => format!("{x:.1}%"),
        }
    }
}

/// Space around the plot area, in CSS px: the drawing uses these, and the pointer and the
/// brush map to data with them (`timeline::x_at`, `timeline::css_span`).
const MARGIN_PX: f64 = PLOT_RIGHT_PX;
const Y_LABELS_PX: f64 = PLOT_LEFT_PX - PLOT_RIGHT_PX;

/// Where each timeline interval ends on the x axis, per lane.
fn x_ends(lane: &LaneView, axis: XAxis) -> Vec<f64> {
    interval_ends(&lane.timeline, lane.total_iterations, axis)
}

/// Where each interval of a timeline of `total_iterations` loop iterations ends on the x axis.
pub(crate) fn interval_ends(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis) -> Vec<f64> {
    let mut done = 0u64;
    timeline
        .iter()
        .map(|p| match axis {
            XAxis::Time => p.t_ms,
            XAxis::Progress => {
                done += p.iterations;
                (100.0 * done as f64 / total_iterations.max(1) as f64).min(100.0)
            }
        })
        .collect()
}

/// (x, ops/ms) per interval that ran loop iterations (a log axis cannot show zero).
pub fn throughput_series(lane: &LaneView, axis: XAxis) -> Vec<(f64, f64)> {
    x_ends(lane, axis)
        .into_iter()
        .zip(lane.timeline.iter())
        .filter(|(_, p)| p.ops_per_ms > 0.0 && p.ops_per_ms.is_finite())
        .map(|(x, p)| (x, p.ops_per_ms))
        .collect()
}

/// One stacked bar per interval with relinks: x from, x to, necessary, collateral, missed.
pub fn relink_bars(lane: &LaneView, axis: XAxis) -> Vec<(f64, f64, u64, u64, u64)> {
    let ends = x_ends(lane, axis);
    let mut start = 0.0;
    let mut out = Vec::new();
    for (x, p) in ends.into_iter().zip(lane.timeline.iter()) {
        if p.necessary + p.collateral + p.missed > 0 {
            out.push((start, x.max(start), p.necessary, p.collateral, p.missed));
        }
        start = x;
    }
    out
}

/// x positions of intervals in which events fired (the markers under the throughput lines).
pub fn event_marks(lane: &LaneView, axis: XAxis) -> Vec<f64> {
    x_ends(lane, axis).into_iter().zip(lane.timeline.iter()).filter(|(_, p)| !p.events.is_empty()).map(|(x, _)| x).collect()
}

/// x positions of intervals in which compiled code was deoptimized (the triangles on the
/// throughput lines). Deopt records carry the loop iteration they happened at; an interval
/// holds the iterations from the previous one's end to its own.
pub fn deopt_marks(lane: &LaneView, axis: XAxis) -> Vec<f64> {
    let mut at = lane.compiled.deopts.iter().map(|d| d.at_iteration).peekable();
    let mut end = 0u64;
    let mut out = Vec::new();
    for (x, p) in x_ends(lane, axis).into_iter().zip(lane.timeline.iter()) {
        end += p.iterations;
        let mut hit = false;
        while at.next_if(|&a| a < end).is_some() {
            hit = true;
        }
        if hit {
            out.push(x);
        }
    }
    // A deopt at the very last iteration count lands in the last interval.
    if at.next().is_some() {
        if let Some(&x) = x_ends(lane, axis).last() {
            if out.last() != Some(&x) {
                out.push(x);
            }
        }
    }
    out
}

pub fn x_max(lanes: &[Rc<LaneView>], axis: XAxis) -> f64 {
    match axis {
        XAxis::Time => lanes.iter().filter_map(|l| l.timeline.last().map(|p| p.t_ms)).fold(0.0, f64::max),
        XAxis::Progress => 100.0,
    }
}

/// A log range covering `values` on whole decades.
pub fn log_bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values.filter(|v| *v > 0.0 && v.is_finite()).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return None;
    }
    let lo = 10f64.powf(lo.log10().floor());
    let mut hi = 10f64.powf(hi.log10().ceil());
    if hi <= lo {
        hi = lo * 10.0;
    }
    Some((lo, hi))
}

/// One lane's line: its label, colour (`--series-N`), points and event marks.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: String,
    pub colour: usize,
    pub points: Vec<(f64, f64)>,
    pub marks: Vec<f64>,
    /// x positions where the lane's compiled code was deoptimized (drawn on the line).
    pub deopts: Vec<f64>,
    /// The label of an earlier line with exactly these points: this one is drawn dashed over
    /// it and its legend says so (identical series would otherwise hide each other).
    pub same_as: Option<String>,
}

impl Line {
    fn new(label: impl Into<String>, colour: usize, points: Vec<(f64, f64)>, marks: Vec<f64>) -> Line {
        Line { label: label.into(), colour, points, marks, deopts: Vec::new(), same_as: None }
    }

    /// The legend text.
    pub fn legend(&self) -> String {
        match &self.same_as {
            Some(other) => format!("{} (same as {other})", self.label),
            None => self.label.clone(),
        }
    }

    /// The value of the interval that contains `x` (points end their interval), or `None`
    /// past the line's end.
    pub fn value_at(&self, x: f64) -> Option<f64> {
        self.points.iter().find(|p| p.0 >= x).map(|p| p.1)
    }
}

/// Mark every line whose points equal an earlier line's.
fn mark_duplicates(lines: &mut [Line]) {
    for i in 1..lines.len() {
        let (before, rest) = lines.split_at_mut(i);
        let line = &mut rest[0];
        line.same_as = before.iter().find(|o| !line.points.is_empty() && o.points == line.points).map(|o| o.label.clone());
    }
}

/// One lane's stacked verdict bars: x from, x to, necessary, collateral, missed.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    pub label: String,
    pub bars: Vec<(f64, f64, u64, u64, u64)>,
}

/// Everything both charts draw.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartData {
    pub x_desc: &'static str,
    pub y_desc: String,
    /// The lines' unit, for the tooltip (`ops/ms`, `µs/op`).
    pub y_unit: String,
    pub x_max: f64,
    pub lines: Vec<Line>,
    pub panels: Vec<BarPanel>,
}

/// The lanes a chart panel shows, in either mode.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartLanes {
    CallSites(Vec<Rc<LaneView>>),
    Models(Vec<Rc<VariantView>>),
}

/// The colour slot of a policy: its place among all policies.
pub fn policy_colour(p: Policy) -> usize {
    Policy::ALL.iter().position(|x| *x == p).unwrap_or(0)
}

impl ChartLanes {
    pub fn len(&self) -> usize {
        match self {
            ChartLanes::CallSites(l) => l.len(),
            ChartLanes::Models(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the x axis ends (cheap for call-site lanes, which redraw every frame).
    pub fn x_max(&self, axis: XAxis) -> f64 {
        match self {
            ChartLanes::CallSites(lanes) => x_max(lanes, axis),
            ChartLanes::Models(_) => self.data(axis).x_max,
        }
    }

    pub fn has_data(&self) -> bool {
        match self {
            ChartLanes::CallSites(lanes) => lanes.iter().any(|l| l.timeline.iter().any(|t| t.iterations > 0)),
            ChartLanes::Models(views) => views.iter().any(|v| v.revealed > 0),
        }
    }

    pub fn data(&self, axis: XAxis) -> ChartData {
        let mut data = match self {
            ChartLanes::CallSites(lanes) => ChartData {
                x_desc: axis.description(),
                y_desc: "ops/ms (log scale)".into(),
                y_unit: "ops/ms".into(),
                x_max: x_max(lanes, axis),
                lines: lanes
                    .iter()
                    .map(|l| Line {
                        deopts: deopt_marks(l, axis),
                        ..Line::new(l.policy.name(), policy_colour(l.policy), throughput_series(l, axis), event_marks(l, axis))
                    })
                    .collect(),
                panels: lanes.iter().map(|l| BarPanel { label: l.policy.name().into(), bars: relink_bars(l, axis) }).collect(),
            },
            ChartLanes::Models(views) => model_chart(views, axis),
        };
        mark_duplicates(&mut data.lines);
        data
    }
}

/// x of a model's timeline point: virtual ms, or percent of the run's points.
fn model_x(view: &VariantView, point: usize, axis: XAxis) -> f64 {
    match axis {
        XAxis::Time => view.report.as_ref().map_or(0.0, |r| measured_us(r, point) / 1000.0),
        XAxis::Progress => 100.0 * (point + 1) as f64 / view.total_points().max(1) as f64,
    }
}

fn model_chart(views: &[Rc<VariantView>], axis: XAxis) -> ChartData {
    let unit = views.iter().find_map(|v| v.report.as_ref().map(|r| format::unit(&r.unit))).unwrap_or_default();
    let lines = views
        .iter()
        .map(|v| {
            let points = v
                .revealed_points()
                .iter()
                .enumerate()
                .filter(|(_, p)| p.value > 0.0 && p.value.is_finite())
                .map(|(i, p)| (model_x(v, i, axis), p.value))
                .collect();
            Line::new(v.variant, v.index, points, Vec::new())
        })
        .collect();
    let panels = views
        .iter()
        .map(|v| {
            let x0 = |from: usize| if from == 0 { 0.0 } else { model_x(v, from - 1, axis) };
            let bars = v.steps.iter().map(|s| (x0(s.from), model_x(v, s.to - 1, axis), s.verdicts.necessary, s.verdicts.collateral, s.verdicts.missed));
            BarPanel { label: v.variant.into(), bars: bars.filter(|b| b.2 + b.3 + b.4 > 0).collect() }
        })
        .collect();
    let x_max = match axis {
        XAxis::Time => views.iter().map(|v| model_x(v, v.total_points().saturating_sub(1), axis)).fold(0.0, f64::max),
        XAxis::Progress => 100.0,
    };
    let x_desc = match axis {
        XAxis::Time => "virtual time since the measured ops began (ms)",
        XAxis::Progress => "progress through the measured ops (%)",
    };
    ChartData { x_desc, y_desc: format!("{unit} (log scale; lower is better)"), y_unit: unit, x_max, lines, panels }
}

/// `#rrggbb` (or `#rgb`) from a CSS custom property.
pub fn parse_hex(s: &str) -> Option<RGBColor> {
    let h = s.trim().strip_prefix('#')?;
    let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
    match digits.as_slice() {
        [r, g, b] => Some(RGBColor(r * 17, g * 17, b * 17)),
        [r1, r2, g1, g2, b1, b2] => Some(RGBColor(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
        _ => None,
    }
}

/// A stylesheet colour as the page shows it: `#rgb` / `#rrggbb`, or the light or dark half of
/// `light-dark(light, dark)` (how style.css writes its themed colours).
pub fn parse_color(s: &str, dark: bool) -> Option<RGBColor> {
    let s = s.trim();
    match s.strip_prefix("light-dark(").and_then(|pair| pair.strip_suffix(')')) {
        Some(pair) => {
            let (light, dark_half) = pair.split_once(',')?;
            parse_hex(if dark { dark_half } else { light })
        }
        None => parse_hex(s),
    }
}

/// Whether an element shows the dark half of its colours: its `color-scheme` is `light` or
/// `dark` when the user picked a theme, `light dark` when the system's preference decides.
fn shows_dark(window: &web_sys::Window, style: &web_sys::CssStyleDeclaration) -> bool {
    let scheme = style.get_property_value("color-scheme").unwrap_or_default();
    match (scheme.contains("light"), scheme.contains("dark")) {
        (true, true) => window.match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|mq| mq.matches()),
        (_, dark) => dark,
    }
}

/// Chart colours, read from the stylesheet's variables on the canvas element.
pub struct Palette {
    pub background: RGBColor,
    pub fg: RGBColor,
    pub muted: RGBColor,
    pub grid: RGBColor,
    pub necessary: RGBColor,
    pub collateral: RGBColor,
    pub missed: RGBColor,
    series: Vec<RGBColor>,
}

impl Palette {
    pub fn from_css(el: &HtmlCanvasElement) -> Palette {
        let window = web_sys::window();
        let style = window.as_ref().and_then(|w| w.get_computed_style(el).ok().flatten());
        let dark = window.as_ref().zip(style.as_ref()).is_some_and(|(w, s)| shows_dark(w, s));
        let var = |name: &str, fallback: RGBColor| {
            style.as_ref().and_then(|s| s.get_property_value(name).ok()).and_then(|v| parse_color(&v, dark)).unwrap_or(fallback)
        };
        Palette {
            background: var("--chart-bg", RGBColor(255, 255, 255)),
            fg: var("--fg", RGBColor(27, 31, 36)),
            muted: var("--muted", RGBColor(91, 100, 112)),
            grid: var("--border", RGBColor(213, 218, 225)),
            necessary: var("--verdict-necessary", RGBColor(21, 128, 61)),
            collateral: var("--verdict-collateral", RGBColor(217, 119, 6)),
            missed: var("--verdict-missed", RGBColor(185, 28, 28)),
            series: (0..Policy::ALL.len()).map(|i| var(&format!("--series-{i}"), RGBColor(100, 100, 100))).collect(),
        }
    }

    pub fn series(&self, slot: usize) -> RGBColor {
        self.series.get(slot).copied().unwrap_or(self.fg)
    }
}

/// Size the backing store to the element's CSS size times the pixel ratio; returns the ratio.
pub fn fit_canvas(canvas: &HtmlCanvasElement, ratio: f64) -> f64 {
    let w = (f64::from(canvas.client_width().max(1)) * ratio).round() as u32;
    let h = (f64::from(canvas.client_height().max(1)) * ratio).round() as u32;
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    ratio
}

/// A chart drawing function (lines or verdict bars) over the x window shown, as the panel
/// calls them.
pub type DrawChart = fn(HtmlCanvasElement, &ChartData, Range, &Palette, f64) -> Result<(), String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Axis ticks: the shortest decimal (`0.01`, `20`, `1500`).
fn tick(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-4 {
        format!("{v:.0e}")
    } else {
        format::plain(v)
    }
}

/// Relink counts are whole numbers: label only whole ticks.
fn whole_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

pub fn draw_throughput(canvas: HtmlCanvasElement, data: &ChartData, window: Range, pal: &Palette, scale: f64) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("the canvas has no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&pal.background).map_err(err)?;
    // Plotters does not clip to the plot area: only what is in the window is drawn, and the
    // y axis fits what is in it (zooming into a slow stretch shows its detail).
    let lines: Vec<Vec<(f64, f64)>> = data.lines.iter().map(|l| timeline::clip_line(&l.points, window)).collect();
    let Some((lo, hi)) = log_bounds(lines.iter().flatten().map(|p| p.1)) else {
        return root.present().map_err(err);
    };
    let (x_lo, x_hi) = window;
    let in_window = |x: &f64| (x_lo..=x_hi).contains(x);
    let px = |v: f64| (v * scale).round() as u32;
    let font = |size: f64| ("sans-serif", size * scale).into_font().color(&pal.fg);
    // Room past each decade, so both end decades get a labelled tick; below the lowest one,
    // a strip of its own for the event ticks (on a gridline they looked like data).
    let (strip_lo, strip_hi) = (lo * 0.55, lo * 0.85);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(MARGIN_PX))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(Y_LABELS_PX))
        .build_cartesian_2d(x_lo..x_hi, (strip_lo..hi * 1.25).log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(6)
        .y_labels(6)
        .x_desc(data.x_desc)
        .y_desc(data.y_desc.as_str())
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .axis_style(pal.muted.stroke_width(px(1.0)))
        .bold_line_style(pal.grid.mix(0.9))
        .light_line_style(pal.grid.mix(0.35))
        .draw()
        .map_err(err)?;
    // One row of event ticks per lane in the strip, in the lane's colour.
    let row = (strip_hi / strip_lo).powf(1.0 / data.lines.len().max(1) as f64);
    for (i, line) in data.lines.iter().enumerate() {
        let colour = pal.series(line.colour);
        let (y0, y1) = (strip_lo * row.powi(i as i32) * 1.02, strip_lo * row.powi(i as i32 + 1) / 1.02);
        let marks = line.marks.iter().filter(|x| in_window(x));
        chart.draw_series(marks.map(|&x| PathElement::new(vec![(x, y0), (x, y1)], colour.mix(0.8).stroke_width(px(1.0))))).map_err(err)?;
    }
    chart.draw_series(std::iter::once(PathElement::new(vec![(x_lo, strip_hi), (x_hi, strip_hi)], pal.muted.mix(0.5).stroke_width(px(1.0))))).map_err(err)?;
    for (line, points) in data.lines.iter().zip(&lines) {
        let colour = pal.series(line.colour);
        let width = px(2.0);
        let legend = line.legend();
        let series = if line.same_as.is_some() {
            // Dashed over the line it equals: both colours show.
            chart.draw_series(DashedLineSeries::new(points.iter().copied(), px(7.0), px(5.0), colour.stroke_width(width))).map_err(err)?
        } else {
            chart.draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(width))).map_err(err)?
        };
        series.label(legend).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(width)));
        // Deopts: a "v" on the line where the compiled code was thrown away (a path, like the
        // event ticks: one more marker type costs the bundle its drawing code).
        let (dx, dy) = ((x_hi - x_lo) * 0.004, 1.25);
        let on_line = line.deopts.iter().filter(|x| in_window(x)).filter_map(|&x| line.value_at(x).map(|y| (x, y)));
        chart
            .draw_series(on_line.map(|(x, y)| PathElement::new(vec![(x - dx, y * dy), (x, y), (x + dx, y * dy)], colour.stroke_width(px(1.5)))))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin(px(8.0))
        .label_font(font(12.0))
        .background_style(pal.background.mix(0.85))
        .border_style(pal.grid)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

pub fn draw_relinks(canvas: HtmlCanvasElement, data: &ChartData, window: Range, pal: &Palette, scale: f64) -> Result<(), String> {
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("the canvas has no 2d context")?;
    let root = backend.into_drawing_area();
    root.fill(&pal.background).map_err(err)?;
    if data.lines.iter().all(|l| l.points.is_empty()) || data.panels.is_empty() {
        return root.present().map_err(err);
    }
    let px = |v: f64| (v * scale).round() as u32;
    let font = |size: f64| ("sans-serif", size * scale).into_font().color(&pal.fg);
    let (x_lo, x_hi) = window;
    let areas = root.split_evenly((data.panels.len(), 1));
    for (i, (panel, area)) in data.panels.iter().zip(areas.iter()).enumerate() {
        let bars = &timeline::clip_bars(&panel.bars, window);
        let y_hi = (bars.iter().map(|b| b.2 + b.3 + b.4).max().unwrap_or(0) as f64 * 1.15).ceil().max(2.0);
        let last = i + 1 == data.panels.len();
        let mut chart = ChartBuilder::on(area)
            .margin_left(px(MARGIN_PX))
            .margin_right(px(MARGIN_PX))
            .margin_top(px(8.0))
            .margin_bottom(px(4.0))
            .x_label_area_size(if last { px(40.0) } else { 0 })
            .y_label_area_size(px(Y_LABELS_PX))
            .build_cartesian_2d(x_lo..x_hi, 0f64..y_hi)
            .map_err(err)?;
        let mut mesh = chart.configure_mesh();
        mesh.y_labels(3)
            .x_labels(if last { 6 } else { 0 })
            .y_desc(panel.label.as_str())
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| whole_tick(*v))
            .label_style(font(11.0))
            .axis_desc_style(font(12.0))
            .axis_style(pal.muted.stroke_width(px(1.0)))
            .bold_line_style(pal.grid.mix(0.8))
            .light_line_style(pal.grid.mix(0.0));
        if last {
            mesh.x_desc(data.x_desc);
        }
        mesh.draw().map_err(err)?;
        let stack = |k: usize| {
            bars.iter().map(move |&(x0, x1, n, c, m)| {
                let (from, to) = match k {
                    0 => (0, n),
                    1 => (n, n + c),
                    _ => (n + c, n + c + m),
                };
                (x0, x1, from as f64, to as f64)
            })
        };
        // The verdict colours are named in the HTML caption: no legend box over the bars.
        for (k, colour) in [pal.necessary, pal.collateral, pal.missed].into_iter().enumerate() {
            chart.draw_series(stack(k).filter(|b| b.3 > b.2).map(|(x0, x1, y0, y1)| Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))).map_err(err)?;
        }
    }
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Runner;
    use blast_engine::{presets, Params};

    fn finished(id: &str, policies: &[Policy]) -> Vec<Rc<LaneView>> {
        let mut r = Runner::new(&presets::find(id).unwrap().scenario(), policies, &Params::default()).unwrap();
        r.advance_clock(f64::INFINITY);
        while !r.work(10_000) {}
        r.refresh();
        r.views().to_vec()
    }

    #[test]
    fn deopts_are_marked_on_the_lines_where_they_happened() {
        let lanes = finished("fidelity_methodBodies", &[Policy::Global, Policy::Exact]);
        let (global, exact) = (&lanes[0], &lanes[1]);
        let deopts = global.compiled.total_deopts();
        assert!(deopts > 0, "global deoptimizes the loop's code");
        for axis in [XAxis::Time, XAxis::Progress] {
            let marks = deopt_marks(global, axis);
            assert!(!marks.is_empty() && marks.len() as u64 <= deopts, "one mark per interval with deopts: {} for {deopts}", marks.len());
            assert!(marks.windows(2).all(|w| w[0] < w[1]), "one mark per interval, in order");
            let line = &ChartLanes::CallSites(lanes.clone()).data(axis).lines[0];
            assert_eq!(line.deopts, marks);
            assert!(marks.iter().all(|&x| line.value_at(x).is_some()), "every mark sits on the line");
            assert!(deopt_marks(exact, axis).is_empty(), "exact leaves the loop's dependencies alone");
        }
        // Every mark is an interval whose events include the write that caused a deopt: the
        // writes come every 10 000 iterations, the deopts with some of them.
        let events = event_marks(global, XAxis::Progress);
        assert!(deopt_marks(global, XAxis::Progress).iter().all(|x| events.contains(x)));
    }

    #[test]
    fn series_are_monotone_in_x_and_positive() {
        let lanes = finished("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        for lane in &lanes {
            for axis in [XAxis::Time, XAxis::Progress] {
                let s = throughput_series(lane, axis);
                assert!(!s.is_empty());
                assert!(s.windows(2).all(|w| w[0].0 <= w[1].0), "{:?} x must not go back", lane.policy);
                assert!(s.iter().all(|p| p.1 > 0.0));
            }
            let end = throughput_series(lane, XAxis::Progress).last().unwrap().0;
            assert!((end - 100.0).abs() < 1e-6, "progress ends at 100%: {end}");
        }
        assert!(!relink_bars(&lanes[0], XAxis::Time).is_empty(), "global relinks under churn");
        assert!(relink_bars(&lanes[1], XAxis::Time).is_empty(), "exact does not");
        assert!(!event_marks(&lanes[1], XAxis::Progress).is_empty());
        assert!(x_max(&lanes, XAxis::Time) > 1000.0);
    }

    #[test]
    fn model_charts_follow_the_replay() {
        let config = blast_engine::models::find("descriptor_treeMap").unwrap().config();
        let mut r = crate::model_runner::ModelRunner::new(config, &["good", "broken"]);
        r.step();
        r.refresh();
        let early = ChartLanes::Models(r.views().to_vec()).data(XAxis::Time);
        assert!(early.lines.iter().all(|l| l.points.len() == 1));
        assert!(early.y_desc.starts_with("ns/op"));
        crate::model_runner::tests::replay_to_end(&mut r);
        let lanes = ChartLanes::Models(r.views().to_vec());
        assert!(lanes.has_data());
        for axis in [XAxis::Time, XAxis::Progress] {
            let data = lanes.data(axis);
            assert!(data.lines.iter().all(|l| l.points.len() == 200 && l.points.windows(2).all(|w| w[0].0 <= w[1].0)));
            assert!(data.lines.iter().all(|l| l.points.last().unwrap().0 <= data.x_max + 1e-9));
            let broken: u64 = data.panels[1].bars.iter().map(|b| b.2 + b.3 + b.4).sum();
            assert_eq!(broken, 200, "one discarded rebuild per measured write (the warm-up's are in the totals only)");
            assert!(data.panels[1].bars.iter().all(|b| b.0 <= b.1));
        }
        assert_eq!(lanes.data(XAxis::Time).lines.iter().map(|l| l.colour).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn identical_lines_say_so_and_the_pointer_reads_values() {
        let lanes = finished("hotLoop_baseline", &[Policy::Global, Policy::Exact, Policy::Ideal]);
        let data = ChartLanes::CallSites(lanes).data(XAxis::Progress);
        assert_eq!(data.lines[0].same_as, None);
        assert_eq!(data.lines[1].legend(), "exact (same as global)", "without churn the policies run alike");
        let line = &data.lines[0];
        let (x, y) = line.points[line.points.len() / 2];
        assert_eq!(line.value_at(x - 1e-9), Some(y), "a point ends its interval");
        assert_eq!(line.value_at(101.0), None);
        assert_eq!(XAxis::Time.value_label(1500.0), "1.50 s");
    }

    #[test]
    fn log_bounds_cover_whole_decades() {
        assert_eq!(log_bounds([0.0033, 0.59].into_iter()), Some((0.001, 1.0)));
        assert_eq!(log_bounds([5.0].into_iter()), Some((1.0, 10.0)));
        assert_eq!(log_bounds([0.0, f64::NAN].into_iter()), None);
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.01), "0.01");
        assert_eq!(tick(20.0), "20");
        assert_eq!(tick(0.00001), "1e-5");
        assert_eq!(whole_tick(2.0), "2");
        assert_eq!(whole_tick(0.5), "");
    }

    #[test]
    fn css_colours_parse() {
        assert_eq!(parse_hex("#c2410c"), Some(RGBColor(0xc2, 0x41, 0x0c)));
        assert_eq!(parse_hex("  #fff "), Some(RGBColor(255, 255, 255)));
        assert_eq!(parse_hex("red"), None);
        assert_eq!(parse_hex("#12345"), None);
        assert_eq!(parse_color(" light-dark(#f4f6f9, #0f1216)", false), Some(RGBColor(0xf4, 0xf6, 0xf9)));
        assert_eq!(parse_color("light-dark(#f4f6f9, #0f1216)", true), Some(RGBColor(0x0f, 0x12, 0x16)));
        assert_eq!(parse_color("#fff", true), Some(RGBColor(255, 255, 255)));
        assert_eq!(parse_color("light-dark(#fff)", false), None);
    }
}
