//! The timeline's state (x axis, zoom window, brushed range, marked relink) and its geometry
//! as pure functions (tested natively; the charts component and the reducer only call them).
//!
//! Ranges are in the chart's x units: virtual ms, or % of each run's loop iterations. Relinks
//! carry virtual ms, so on the normalized axis a range maps to each lane's own time range
//! through its timeline (`time_of_x`), and a relink's time maps back (`x_of_time`).

use blast_engine::report::TimelinePoint;
use blast_engine::Policy;

/// What the x axis measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum XAxis {
    /// Virtual milliseconds: shows how much sooner a cheap policy finishes.
    Time,
    /// Percent of the program's loop iterations: lines up the policies event by event.
    Progress,
}

impl XAxis {
    /// The axis as the chart's caption reads it.
    pub fn description(self) -> &'static str {
        match self {
            XAxis::Time => "virtual time (ms)",
            XAxis::Progress => "normalized: % of each run's loop iterations",
        }
    }

    /// An x value as the tooltip reads it.
    pub fn value_label(self, x: f64) -> String {
        match self {
            XAxis::Time => crate::format::duration_ms(x),
            XAxis::Progress => format!("{x:.1}%"),
        }
    }
}

/// Where each interval of a timeline of `total_iterations` loop iterations ends on the x axis.
pub fn interval_ends(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis) -> Vec<f64> {
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

/// A closed interval of x values, `lo < hi`.
pub type Range = (f64, f64);

/// What the charts ask of the timeline (`state::AppState` reduces them: a range goes on to the
/// call-site lanes, a mark selects its site).
#[derive(Clone, Debug, PartialEq)]
pub enum TimelineAction {
    /// The charts' x axis (a new axis starts unzoomed and unbrushed).
    SetAxis(XAxis),
    /// Zoom or pan the timeline: the window shown, `None` for the whole run.
    SetView(Option<Range>),
    /// Select a range of the timeline, or clear it.
    Brush(Option<Range>),
    /// Mark a relink's moment on the charts (a click in the why panel); selects its site.
    MarkRelink(Mark),
}

/// A relink's moment, marked on the charts from the why panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub policy: Policy,
    pub t_ms: f64,
    pub site: String,
}

/// The timeline's x axis, zoom window, brushed range and marked relink (this module has
/// their geometry). Ranges are on `axis`; a new run or a new axis starts unzoomed.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineState {
    pub axis: XAxis,
    /// The x window shown; `None`: the whole run.
    pub view: Option<Range>,
    /// The selected range: its relinks are listed in the why panel and outlined in the blast view.
    pub brush: Option<Range>,
    pub mark: Option<Mark>,
}

impl Default for TimelineState {
    fn default() -> Self {
        TimelineState { axis: XAxis::Time, view: None, brush: None, mark: None }
    }
}

/// A usable range: finite and wider than nothing.
pub fn valid(r: Option<Range>) -> Option<Range> {
    r.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo < hi)
}

/// The narrowest window, as a fraction of the whole run: zooming stops here (the timeline's
/// intervals are far wider; below this a window shows one flat segment).
const MIN_SPAN: f64 = 1e-4;
/// Zoom per wheel notch (100 px of `deltaY`), and per press of a zoom button.
pub const ZOOM_STEP: f64 = 1.5;

/// The range between two x values in either order, clamped to the run; `None` for a click (no
/// width) or anything not finite.
pub fn range(a: f64, b: f64, x_max: f64) -> Option<Range> {
    let (lo, hi) = (a.min(b).max(0.0), a.max(b).min(x_max));
    (lo.is_finite() && hi.is_finite() && hi - lo > x_max * MIN_SPAN).then_some((lo, hi))
}

/// The window on screen: the zoom, or the whole run.
pub fn shown(view: Option<Range>, x_max: f64) -> Range {
    view.unwrap_or((0.0, x_max.max(f64::MIN_POSITIVE)))
}

/// `view` scaled by `factor` (below 1 zooms in) around `at`, which stays where it is on screen;
/// kept inside the run. `None` (the whole run) once it would cover it.
pub fn zoom(view: Option<Range>, x_max: f64, at: f64, factor: f64) -> Option<Range> {
    if !(factor.is_finite() && factor > 0.0 && x_max > 0.0) {
        return view;
    }
    let (lo, hi) = shown(view, x_max);
    let at = at.clamp(lo, hi);
    let span = ((hi - lo) * factor).max(x_max * MIN_SPAN);
    if span >= x_max {
        return None;
    }
    let lo = at - (at - lo) * span / (hi - lo);
    Some(slide(lo, span, x_max))
}

/// `view` moved by `by` x units, kept inside the run.
pub fn pan(view: Option<Range>, x_max: f64, by: f64) -> Option<Range> {
    let (lo, hi) = view?;
    by.is_finite().then(|| slide(lo + by, hi - lo, x_max)).or(view)
}

/// The window of width `span` starting at `lo`, pushed back inside `0..=x_max`.
fn slide(lo: f64, span: f64, x_max: f64) -> Range {
    let lo = lo.clamp(0.0, (x_max - span).max(0.0));
    (lo, lo + span)
}

/// `view`, moved (same width) so `x` is in its middle when `x` is outside it: a relink marked
/// from the why panel is always on screen.
pub fn reveal(view: Option<Range>, x_max: f64, x: f64) -> Option<Range> {
    match view {
        Some((lo, hi)) if !(lo..=hi).contains(&x) => Some(slide(x - (hi - lo) / 2.0, hi - lo, x_max)),
        v => v,
    }
}

/// The plot area of both charts, in CSS px from the canvas's left and right edges (the
/// drawing's margin and y labels; `charts.rs` draws with the same numbers, the overlays in
/// `components/charts.rs` are placed with them).
pub const PLOT_LEFT_PX: f64 = 76.0;
pub const PLOT_RIGHT_PX: f64 = 12.0;

/// The x value at `css_x` on a chart `css_width` wide showing `window`, clamped to the plot
/// area when `clamp` (a drag that runs past the edge), else `None` outside it.
pub fn x_at(css_x: f64, css_width: f64, window: Range, clamp: bool) -> Option<f64> {
    let (left, right) = (PLOT_LEFT_PX, css_width - PLOT_RIGHT_PX);
    if right <= left || !(clamp || (left..=right).contains(&css_x)) {
        return None;
    }
    let f = ((css_x - left) / (right - left)).clamp(0.0, 1.0);
    Some(window.0 + f * (window.1 - window.0))
}

/// Where `r` is drawn over the plot area showing `window`: (start, width) as fractions of the
/// plot's width, cut to it; `None` when none of `r` is in the window. (Fractions, so the
/// overlay is placed by CSS at any chart width.)
pub fn plot_fractions(r: Range, window: Range) -> Option<(f64, f64)> {
    let (lo, hi) = (r.0.max(window.0), r.1.min(window.1));
    let span = window.1 - window.0;
    (hi >= lo && span > 0.0).then(|| ((lo - window.0) / span, (hi - lo) / span))
}

/// A line's points inside `window`, with the segments crossing its edges cut at the edge
/// (interpolated on the log y axis the line is drawn on).
pub fn clip_line(points: &[(f64, f64)], window: Range) -> Vec<(f64, f64)> {
    let (lo, hi) = window;
    let cut = |a: (f64, f64), b: (f64, f64), x: f64| {
        let f = if b.0 > a.0 { (x - a.0) / (b.0 - a.0) } else { 0.0 };
        // Geometric, as a straight segment on a log axis (`powf`, which the page has anyway).
        (x, a.1 * (b.1 / a.1).powf(f))
    };
    let mut out = Vec::new();
    for (i, &p) in points.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| points[j]);
        if (lo..=hi).contains(&p.0) {
            if let Some(a) = prev.filter(|a| a.0 < lo) {
                out.push(cut(a, p, lo));
            }
            out.push(p);
        } else if let Some(a) = prev {
            // The segment from `a` to `p` crosses the window (or an edge of it).
            if a.0 < lo && p.0 > hi {
                out.extend([cut(a, p, lo), cut(a, p, hi)]);
            } else if (lo..=hi).contains(&a.0) && p.0 > hi {
                out.push(cut(a, p, hi));
            }
        }
    }
    out
}

/// Stacked verdict bars (x from, x to, counts…) cut to `window`; bars outside it go.
pub fn clip_bars<T: Copy>(bars: &[(f64, f64, T, T, T)], window: Range) -> Vec<(f64, f64, T, T, T)> {
    bars.iter().filter(|b| b.1 >= window.0 && b.0 <= window.1).map(|&(x0, x1, n, c, m)| (x0.max(window.0), x1.min(window.1), n, c, m)).collect()
}

/// `(x, virtual ms)` at the start and at each interval's end of a lane's timeline.
fn knots(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis) -> Vec<(f64, f64)> {
    let ends = interval_ends(timeline, total_iterations, axis);
    std::iter::once((0.0, 0.0)).chain(ends.into_iter().zip(timeline.iter().map(|p| p.t_ms))).collect()
}

/// Piecewise-linear lookup in knots increasing in `.0`: `.1` at `x` (the first of equal ones;
/// the ends past the knots).
fn lookup(knots: &[(f64, f64)], x: f64) -> f64 {
    let i = knots.partition_point(|k| k.0 < x);
    match (i.checked_sub(1).map(|j| knots[j]), knots.get(i)) {
        (Some(a), Some(b)) if b.0 > a.0 => a.1 + (x - a.0) / (b.0 - a.0) * (b.1 - a.1),
        (_, Some(b)) => b.1,
        (Some(a), None) => a.1,
        (None, None) => x,
    }
}

/// The virtual time at chart x `x` of a lane (its timeline and loop iterations).
pub fn time_of_x(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis, x: f64) -> f64 {
    match axis {
        XAxis::Time => x,
        XAxis::Progress => lookup(&knots(timeline, total_iterations, axis), x),
    }
}

/// The chart x at virtual time `t_ms` of a lane.
pub fn x_of_time(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis, t_ms: f64) -> f64 {
    match axis {
        XAxis::Time => t_ms,
        XAxis::Progress => lookup(&knots(timeline, total_iterations, axis).into_iter().map(|(x, t)| (t, x)).collect::<Vec<_>>(), t_ms),
    }
}

/// The virtual-time range of a lane that a chart range covers.
pub fn time_range(timeline: &[TimelinePoint], total_iterations: u64, axis: XAxis, r: Range) -> Range {
    (time_of_x(timeline, total_iterations, axis, r.0), time_of_x(timeline, total_iterations, axis, r.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{LaneView, Runner};
    use blast_engine::{presets, Params};

    #[test]
    fn a_range_is_ordered_clamped_and_a_click_is_none() {
        assert_eq!(range(8.0, 2.0, 10.0), Some((2.0, 8.0)));
        assert_eq!(range(-5.0, 20.0, 10.0), Some((0.0, 10.0)));
        assert_eq!(range(3.0, 3.0, 10.0), None, "a click selects nothing");
        assert_eq!(range(f64::NAN, 3.0, 10.0), None);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_pointer_and_stays_in_the_run() {
        let v = zoom(None, 100.0, 25.0, 0.5).expect("zoomed in");
        assert_eq!(v, (12.5, 62.5), "25 stays a quarter of the way across");
        let v2 = zoom(Some(v), 100.0, 62.5, 0.5).unwrap();
        assert_eq!(v2, (37.5, 62.5));
        assert_eq!(zoom(Some(v2), 100.0, 50.0, 100.0), None, "zooming out past the run shows it all");
        // Zooming out near an end slides the window back inside the run.
        assert_eq!(zoom(Some((0.0, 40.0)), 100.0, 0.0, 2.0), Some((0.0, 80.0)));
        assert_eq!(zoom(Some((70.0, 100.0)), 100.0, 100.0, 2.0), Some((40.0, 100.0)));
        let tiny = (0..100).fold(None, |v, _| zoom(v, 100.0, 50.0, 0.5)).unwrap();
        assert!((tiny.1 - tiny.0 - 100.0 * MIN_SPAN).abs() < 1e-9, "zoom stops at the narrowest window: {tiny:?}");
        assert_eq!(zoom(Some(v), 100.0, 50.0, f64::NAN), Some(v), "a bad factor changes nothing");
    }

    #[test]
    fn pan_and_reveal_move_the_window_inside_the_run() {
        assert_eq!(pan(Some((10.0, 20.0)), 100.0, 5.0), Some((15.0, 25.0)));
        assert_eq!(pan(Some((10.0, 20.0)), 100.0, -50.0), Some((0.0, 10.0)));
        assert_eq!(pan(Some((80.0, 90.0)), 100.0, 50.0), Some((90.0, 100.0)));
        assert_eq!(pan(None, 100.0, 5.0), None, "the whole run does not pan");
        assert_eq!(reveal(Some((10.0, 20.0)), 100.0, 15.0), Some((10.0, 20.0)), "already on screen");
        assert_eq!(reveal(Some((10.0, 20.0)), 100.0, 50.0), Some((45.0, 55.0)));
        assert_eq!(reveal(Some((10.0, 20.0)), 100.0, 99.0), Some((90.0, 100.0)));
        assert_eq!(reveal(None, 100.0, 99.0), None);
    }

    #[test]
    fn the_pointer_and_overlays_map_through_the_plot_area() {
        // A 588 px chart: the plot runs from 76 to 576 px.
        assert_eq!(x_at(76.0, 588.0, (0.0, 100.0), false), Some(0.0));
        assert_eq!(x_at(576.0, 588.0, (10.0, 20.0), false), Some(20.0));
        assert_eq!(x_at(326.0, 588.0, (10.0, 20.0), false), Some(15.0));
        assert_eq!(x_at(20.0, 588.0, (0.0, 100.0), false), None, "over the axis labels");
        assert_eq!(x_at(20.0, 588.0, (0.0, 100.0), true), Some(0.0), "a drag past the edge stops there");
        assert_eq!(plot_fractions((25.0, 50.0), (0.0, 100.0)), Some((0.25, 0.25)));
        assert_eq!(plot_fractions((-10.0, 200.0), (50.0, 100.0)), Some((0.0, 1.0)), "cut to the plot");
        assert_eq!(plot_fractions((60.0, 60.0), (50.0, 100.0)), Some((0.2, 0.0)), "a moment is a line");
        assert_eq!(plot_fractions((150.0, 200.0), (0.0, 100.0)), None);
    }

    #[test]
    fn lines_and_bars_are_cut_at_the_window() {
        let points = [(0.0, 1.0), (10.0, 100.0), (20.0, 100.0), (30.0, 1.0)];
        let close = |got: Vec<(f64, f64)>, want: &[(f64, f64)]| {
            got.len() == want.len() && got.iter().zip(want).all(|(c, e)| (c.0 - e.0).abs() < 1e-9 && (c.1 - e.1).abs() < 1e-9)
        };
        assert!(close(clip_line(&points, (5.0, 25.0)), &[(5.0, 10.0), (10.0, 100.0), (20.0, 100.0), (25.0, 10.0)]), "log-linear at the edges");
        assert!(close(clip_line(&points, (12.0, 18.0)), &[(12.0, 100.0), (18.0, 100.0)]), "a window inside one segment cuts it at both edges");
        assert!(clip_line(&points, (40.0, 50.0)).is_empty());
        let bars = [(0.0, 10.0, 1u64, 0, 0), (10.0, 20.0, 2, 1, 0), (20.0, 30.0, 0, 0, 3)];
        assert_eq!(clip_bars(&bars, (15.0, 22.0)), [(15.0, 20.0, 2, 1, 0), (20.0, 22.0, 0, 0, 3)]);
    }

    #[test]
    fn lookup_interpolates_and_holds_at_the_ends() {
        let k = [(0.0, 0.0), (10.0, 100.0), (10.0, 150.0), (20.0, 200.0)];
        assert_eq!(lookup(&k, 5.0), 50.0);
        assert_eq!(lookup(&k, 10.0), 100.0, "the first of equal knots");
        assert_eq!(lookup(&k, 15.0), 175.0);
        assert_eq!(lookup(&k, 25.0), 200.0);
        assert_eq!(lookup(&k, -1.0), 0.0);
    }

    #[test]
    fn normalized_x_and_virtual_time_map_both_ways_per_lane() {
        let scenario = presets::find("hotLoop_unrelatedMetaClassChurn").unwrap().scenario();
        let mut r = Runner::new(&scenario, &[Policy::Global, Policy::Exact], &Params::default()).unwrap();
        r.advance_clock(f64::INFINITY);
        while !r.work(10_000) {}
        r.refresh();
        let (global, exact) = (&r.views()[0], &r.views()[1]);
        let at = |lane: &LaneView, x: f64| time_of_x(&lane.timeline, lane.total_iterations, XAxis::Progress, x);
        assert_eq!(time_of_x(&global.timeline, global.total_iterations, XAxis::Time, 12.5), 12.5);
        let (g_end, e_end) = (at(global, 100.0), at(exact, 100.0));
        assert!(g_end > 0.0 && g_end <= global.now_ms, "100% is where the loops ended: {g_end} of {}", global.now_ms);
        assert!(g_end > 10.0 * e_end, "the same progress took global far longer: {g_end} vs {e_end}");
        for lane in [global, exact] {
            for x in [1.0, 37.0, 50.0, 99.0] {
                let t = at(lane, x);
                assert!((x_of_time(&lane.timeline, lane.total_iterations, XAxis::Progress, t) - x).abs() < 1e-6, "{x}% -> {t} ms -> back");
            }
            let (t0, t1) = time_range(&lane.timeline, lane.total_iterations, XAxis::Progress, (25.0, 75.0));
            assert!(0.0 < t0 && t0 < t1 && t1 < lane.now_ms);
        }
    }
}
