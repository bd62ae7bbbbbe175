//! The live charts' data: series built by pure functions into one `ChartData` for either
//! mode: call-site lanes (throughput, relinks) or model variants (time per op, verdicts per
//! checkpoint interval). `blast-web`'s `plot` draws it.

use std::rc::Rc;

use blast_engine::Policy;

use crate::format;
use crate::model_runner::{measured_us, VariantView};
use crate::runner::LaneView;
use crate::timeline::{interval_ends, XAxis};

/// Where each timeline interval ends on the x axis, per lane.
fn x_ends(lane: &LaneView, axis: XAxis) -> Vec<f64> {
    interval_ends(&lane.timeline, lane.total_iterations, axis)
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BarPanel {
    pub label: String,
    pub bars: Vec<(f64, f64, u64, u64, u64)>,
}

/// Everything both charts draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChartData {
    pub x_desc: String,
    pub y_desc: String,
    /// The lines' unit, for the tooltip (`ops/ms`, `µs/op`).
    pub y_unit: String,
    pub x_max: f64,
    pub lines: Vec<Line>,
    pub panels: Vec<BarPanel>,
}

/// A colour as the charts draw it: red, green, blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// `#rrggbb` (or `#rgb`) from a CSS custom property.
fn parse_hex(s: &str) -> Option<Rgb> {
    let h = s.trim().strip_prefix('#')?;
    let digits: Vec<u8> = h.chars().map(|c| c.to_digit(16).map(|d| d as u8)).collect::<Option<_>>()?;
    match digits.as_slice() {
        [r, g, b] => Some(Rgb(r * 17, g * 17, b * 17)),
        [r1, r2, g1, g2, b1, b2] => Some(Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
        _ => None,
    }
}

/// A stylesheet colour as the page shows it: `#rgb` / `#rrggbb`, or the light or dark half of
/// `light-dark(light, dark)` (how style.css writes its themed colours).
fn parse_colour(s: &str, dark: bool) -> Option<Rgb> {
    let s = s.trim();
    match s.strip_prefix("light-dark(").and_then(|pair| pair.strip_suffix(')')) {
        Some(pair) => {
            let (light, dark_half) = pair.split_once(',')?;
            parse_hex(if dark { dark_half } else { light })
        }
        None => parse_hex(s),
    }
}

/// The charts' colours, read from the stylesheet's variables (so the charts follow the light
/// and dark themes); a variable missing or unreadable keeps the light theme's value.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChartColours {
    pub background: Rgb,
    pub fg: Rgb,
    pub muted: Rgb,
    pub grid: Rgb,
    pub necessary: Rgb,
    pub collateral: Rgb,
    pub missed: Rgb,
    /// `--series-N`, one per policy (`policy_colour`).
    pub series: Vec<Rgb>,
}

impl ChartColours {
    /// The colours from `var` (a custom property's computed value) in the `dark` or light theme.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>, dark: bool) -> ChartColours {
        let colour = |name: &str, fallback: Rgb| var(name).and_then(|v| parse_colour(&v, dark)).unwrap_or(fallback);
        ChartColours {
            background: colour("--chart-bg", Rgb(255, 255, 255)),
            fg: colour("--fg", Rgb(27, 31, 36)),
            muted: colour("--muted", Rgb(91, 100, 112)),
            grid: colour("--border", Rgb(213, 218, 225)),
            necessary: colour("--verdict-necessary", Rgb(21, 128, 61)),
            collateral: colour("--verdict-collateral", Rgb(217, 119, 6)),
            missed: colour("--verdict-missed", Rgb(185, 28, 28)),
            series: (0..Policy::ALL.len()).map(|i| colour(&format!("--series-{i}"), Rgb(100, 100, 100))).collect(),
        }
    }

    /// A line's colour: its slot's, or the text colour for a slot past the palette.
    pub fn series(&self, slot: usize) -> Rgb {
        self.series.get(slot).copied().unwrap_or(self.fg)
    }
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
                x_desc: axis.description().into(),
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
    }
    .into();
    ChartData { x_desc, y_desc: format!("{unit} (log scale; lower is better)"), y_unit: unit, x_max, lines, panels }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Runner;
    use blast_engine::{presets, Params};

    #[test]
    fn stylesheet_colours_parse_in_either_theme() {
        assert_eq!(parse_hex("#c2410c"), Some(Rgb(0xc2, 0x41, 0x0c)));
        assert_eq!(parse_hex("  #fff "), Some(Rgb(255, 255, 255)));
        assert_eq!(parse_hex("red"), None);
        assert_eq!(parse_hex("#12345"), None);
        assert_eq!(parse_colour(" light-dark(#f4f6f9, #0f1216)", false), Some(Rgb(0xf4, 0xf6, 0xf9)));
        assert_eq!(parse_colour("light-dark(#f4f6f9, #0f1216)", true), Some(Rgb(0x0f, 0x12, 0x16)));
        assert_eq!(parse_colour("#fff", true), Some(Rgb(255, 255, 255)));
        assert_eq!(parse_colour("light-dark(#fff)", false), None);
    }

    #[test]
    fn chart_colours_come_from_the_stylesheet_and_missing_ones_keep_the_light_theme() {
        let vars = |name: &str| match name {
            "--fg" => Some("light-dark(#111111, #eeeeee)".to_string()),
            "--series-1" => Some("#0a0b0c".to_string()),
            "--muted" => Some("not a colour".to_string()),
            _ => None,
        };
        let dark = ChartColours::from_vars(vars, true);
        assert_eq!(dark.fg, Rgb(0xee, 0xee, 0xee));
        assert_eq!(dark.series(1), Rgb(10, 11, 12));
        assert_eq!(dark.muted, Rgb(91, 100, 112), "an unreadable value keeps the fallback");
        assert_eq!(dark.series.len(), Policy::ALL.len());
        assert_eq!(dark.series(Policy::ALL.len()), dark.fg, "a slot past the palette is drawn in the text colour");
        assert_eq!(ChartColours::from_vars(vars, false).fg, Rgb(0x11, 0x11, 0x11));
    }

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
}
