//! A real runtime's measurements beside the simulated policies: a probe result (`probes/`,
//! `blast-radius-probe/1`) imported from a file, pasted, or one of the six reference results
//! measured for docs/RUNTIMES.md, read into the engine's `ProbeResult`, with errors that name
//! their place. Reading and fit both run in the engine worker (`fit_wire`, asked by `lab::Lab`;
//! the fit is the engine's `fingerprint::Fitting`); the page uses this module to name a result
//! and to place its values on the chart's axis.

use std::rc::Rc;

use blast_engine::fingerprint::{Fingerprint, FingerprintError, Pair, ProbeResult};
use blast_engine::runtimes::{self, RuntimeProfile};

use crate::markup::escape;

/// Files larger than this are refused before reading: a probe result is about 7 KB.
pub const MAX_IMPORT_BYTES: f64 = 1_000_000.0;

/// The runtimes with a reference result in `probes/results/<id>.json`, measured on the
/// project's machine by `scripts/lab.sh`, in the gallery's order. The page ships them beside
/// the bundle (`index.html` copies the folder to `results/`) and fetches one when it is asked
/// for: compiled in, their 39 KB of JSON were 4.6 KB of the gzipped page.
const REFERENCE: [&str; 6] = ["cpython", "pypy", "node", "ruby", "jruby", "groovy"];

/// An imported probe result and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// A file name, "pasted text", or "reference result (probes/results/<id>.json)".
    pub origin: String,
    pub result: ProbeResult,
}

impl Measured {
    /// The profile of the measured runtime, when it is one of the six probed here.
    pub fn profile(&self) -> Option<&'static RuntimeProfile> {
        runtimes::profile(&self.result.runtime)
    }
}

/// Why an import was refused: the engine's error, and the offending line of the text with the
/// column to point at, when the error has a place in it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportError {
    pub error: FingerprintError,
    /// (1-based line, that line's text, 1-based column)
    pub excerpt: Option<(usize, String, usize)>,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.error, &self.excerpt) {
            // A row's place is found in the text: say where, as a JSON error does.
            (FingerprintError::BadRow { .. }, Some((line, _, column))) => write!(f, "{line}:{column}: {}", self.error),
            _ => write!(f, "{}", self.error),
        }
    }
}

/// Read a probe result from text (in the engine worker: `fit_wire::read_and_fit`).
pub fn read(text: &str) -> Result<ProbeResult, ImportError> {
    ProbeResult::parse(text).map_err(|error| {
        let place = match &error {
            FingerprintError::NotJson { line, column, .. } => Some((*line, *column)),
            FingerprintError::BadRow { index, .. } => row_place(text, *index),
            _ => None,
        };
        let excerpt = place.and_then(|(line, column)| Some((line, text.lines().nth(line.checked_sub(1)?)?.to_string(), column)));
        ImportError { error, excerpt }
    })
}

/// Where row `index` starts in a probe result's text: the line and column of its `"workload"`
/// key (each row has exactly one, and nothing else in the schema has that key).
fn row_place(text: &str, index: usize) -> Option<(usize, usize)> {
    let (offset, _) = text.match_indices("\"workload\"").nth(index)?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

/// Where the page finds a probed runtime's reference result, relative to the page
/// (`None` for a runtime without one).
pub fn reference_url(runtime_id: &str) -> Option<String> {
    REFERENCE.contains(&runtime_id).then(|| format!("results/{runtime_id}.json"))
}

/// How the panel names a probed runtime's reference result (`probes/results/<id>.json`).
pub fn reference_origin(runtime_id: &str) -> String {
    format!("reference result (probes/results/{runtime_id}.json)")
}

/// The runtimes with a reference result, in the gallery's order.
pub fn reference_ids() -> impl Iterator<Item = &'static str> {
    REFERENCE.into_iter()
}

/// The fit of the result on screen, as the engine worker answered it.
#[derive(Clone, Debug, PartialEq)]
pub enum FitState {
    Done(Rc<Fingerprint>),
    Failed(String),
}

/// A log-scaled axis of slowdowns (measured and simulated) mapped onto `width` px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    lo: f64,
    hi: f64,
}

impl Axis {
    /// Covers every value (and the spread above each measurement) and 1x, with a little room.
    pub fn covering(f: &Fingerprint) -> Axis {
        let values = f.pairs.iter().flat_map(|p| [p.measured, whisker_end(p)]).chain(f.fits.iter().flat_map(|fit| fit.simulated.iter().copied()));
        let (mut lo, mut hi) = (1.0f64, 1.0f64);
        for v in values.filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        // Ratios near 1 are the interesting ones: at least 0.95x..1.3x, so 2% reads as 2%.
        Axis { lo: (lo / 1.02).min(0.95), hi: (hi * 1.02).max(1.3) }
    }

    /// The x of a slowdown, clamped to the axis.
    pub fn x(&self, v: f64, width: f64) -> f64 {
        let v = if v.is_finite() && v > 0.0 { v.clamp(self.lo, self.hi) } else { self.lo };
        (v / self.lo).ln() / (self.hi / self.lo).ln() * width
    }

    /// Gridline values inside the axis, at least `min_gap` px apart on a `width` px axis: 1x
    /// first, then the round ratios around it that do not crowd a kept one.
    pub fn ticks(&self, width: f64, min_gap: f64) -> Vec<f64> {
        let candidates = [1.0, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0];
        let mut kept: Vec<f64> = Vec::new();
        for v in candidates.into_iter().filter(|v| (self.lo..=self.hi).contains(v)) {
            if kept.iter().all(|k| (self.x(*k, width) - self.x(v, width)).abs() >= min_gap) {
                kept.push(v);
            }
        }
        crate::order::sort_by(&mut kept, f64::total_cmp);
        kept
    }
}

/// Where a measurement's spread whisker ends: at most 1.5x the measurement, so that one very
/// noisy row (Groovy's 400%) does not squeeze every other row into a few pixels (as in
/// docs/runtimes.png).
pub fn whisker_end(p: &Pair) -> f64 {
    p.measured * (1.0 + p.spread.clamp(0.0, 0.5))
}

const CHART_W: f64 = 640.0;
const LABEL_W: f64 = 150.0;
const ROW_H: f64 = 18.0;
const AXIS_H: f64 = 22.0;

/// The strip chart as SVG markup: one line per workload on a shared log axis, the measured
/// slowdown as a dot with its spread as a whisker (hollow when too wide to read), each policy's
/// simulated slowdown as a tick in its colour (CSS classes `policy-*`), stacked so that ties
/// stay visible. The row the loaded scenario simulates (`highlight`) is marked `current`.
pub fn strip_chart_svg(f: &Fingerprint, highlight: Option<&str>) -> String {
    use std::fmt::Write;
    let axis = Axis::covering(f);
    let plot_w = CHART_W - LABEL_W - 12.0;
    let x = |v: f64| LABEL_W + axis.x(v, plot_w);
    let height = AXIS_H + ROW_H * f.pairs.len() as f64 + 4.0;
    let mut s = format!(
        r#"<svg id="measured-chart" viewBox="0 0 {CHART_W} {height}" role="img" aria-label="Measured slowdown of {} per workload beside each policy's simulated slowdown">"#,
        escape(&f.runtime)
    );
    for t in axis.ticks(plot_w, 40.0) {
        let class = if t == 1.0 { "tick one" } else { "tick" };
        let _ = write!(
            s,
            r#"<g class="{class}"><line x1="{0:.1}" x2="{0:.1}" y1="{1}" y2="{height}"/><text x="{0:.1}" y="{2}" text-anchor="middle">{t}x</text></g>"#,
            x(t),
            AXIS_H - 4.0,
            AXIS_H - 8.0
        );
    }
    let centre = (f.fits.len() as f64 - 1.0) / 2.0;
    for (k, pair) in f.pairs.iter().enumerate() {
        let y = AXIS_H + ROW_H * (k as f64 + 0.5);
        let label = escape(&pair.label());
        let current = if highlight == Some(pair.label().as_str()) { " current" } else { "" };
        let _ = write!(
            s,
            r#"<g class="strip{current}" data-workload="{label}"><text class="label" x="{}" y="{:.1}" text-anchor="end">{label}</text><line class="baseline" x1="{LABEL_W}" x2="{}" y1="{y:.1}" y2="{y:.1}"/>"#,
            LABEL_W - 8.0,
            y + 4.0,
            LABEL_W + plot_w
        );
        for (j, fit) in f.fits.iter().enumerate() {
            let dy = (j as f64 - centre) * 2.5;
            let _ = write!(
                s,
                r#"<line class="sim policy-{}" x1="{2:.1}" x2="{2:.1}" y1="{3:.1}" y2="{4:.1}"><title>{1}: {5:.2}x</title></line>"#,
                fit.policy.name(),
                fit.policy,
                x(fit.simulated[k]),
                y + dy - 5.0,
                y + dy + 5.0,
                fit.simulated[k]
            );
        }
        let (dot, note) = if pair.readable { ("measured-dot", "") } else { ("measured-dot wide", " (too wide to read)") };
        let _ = write!(
            s,
            r#"<line class="whisker" x1="{0:.1}" x2="{1:.1}" y1="{y:.1}" y2="{y:.1}"/><circle class="{dot}" cx="{0:.1}" cy="{y:.1}" r="4"><title>measured {2:.2}x, spread {3:.0}%{note}</title></circle></g>"#,
            x(pair.measured),
            x(whisker_end(pair)),
            pair.measured,
            pair.spread * 100.0
        );
    }
    s.push_str("</svg>");
    s
}

/// A reference result read as the worker reads it (tests only).
#[cfg(test)]
pub(crate) fn reference_file(id: &str) -> Option<Measured> {
    Some(Measured { origin: reference_origin(id), result: read(&reference_text(id)?).ok()? })
}

/// A reference result's text, as the page fetches it (tests only).
#[cfg(test)]
pub(crate) fn reference_text(id: &str) -> Option<String> {
    std::fs::read_to_string(format!("{}/../../probes/results/{id}.json", env!("CARGO_MANIFEST_DIR"))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_result_imports_and_names_a_probed_runtime() {
        for id in reference_ids() {
            let m = reference_file(id).unwrap_or_else(|| panic!("probes/results/{id}.json does not import"));
            assert_eq!(reference_url(id), Some(format!("results/{id}.json")));
            assert_eq!(m.result.runtime, id);
            assert_eq!(m.profile().map(|p| p.id), Some(id));
        }
        for p in &runtimes::PROFILES {
            assert!(reference_file(p.id).is_some(), "the gallery's {} row has no reference result", p.id);
        }
        assert_eq!(reference_url("cobol"), None);
    }

    #[test]
    fn a_syntax_error_points_at_its_line_and_column() {
        let text = "{\n  \"schema\": \"blast-radius-probe/1\",\n  \"rows\": [,]\n}";
        let e = read(text).unwrap_err();
        let (line, excerpt, column) = e.excerpt.clone().unwrap();
        assert_eq!((line, column), (3, 12));
        assert_eq!(excerpt, "  \"rows\": [,]");
        assert!(e.to_string().starts_with("3:12: not a probe result"), "{e}");
    }

    #[test]
    fn a_bad_row_is_placed_at_its_workload_key() {
        let text = std::fs::read_to_string(format!("{}/../../probes/results/cpython.json", env!("CARGO_MANIFEST_DIR"))).unwrap().replacen(
            "\"iterations\": 20000",
            "\"iterations\": 0",
            2,
        );
        let e = read(&text).unwrap_err();
        assert!(matches!(e.error, FingerprintError::BadRow { index: 0, .. }), "{e:?}");
        let (line, excerpt, column) = e.excerpt.clone().unwrap();
        assert!(excerpt.contains("\"workload\": \"baseline\""), "{excerpt}");
        assert_eq!(&excerpt[column - 1..column + 9], "\"workload\"");
        assert!(e.to_string().starts_with(&format!("{line}:{column}: rows[0] (baseline): iterations is 0")), "{e}");
    }

    #[test]
    fn errors_without_a_place_have_no_excerpt() {
        let e = read(r#"{"schema":"x/9","runtime":"r","version":"1","command":"","mode":"full","rows":[]}"#).unwrap_err();
        assert_eq!(e.excerpt, None);
        assert!(e.to_string().contains("schema `x/9`"));
    }

    #[test]
    fn the_axis_covers_every_value_and_keeps_one_inside() {
        let m = reference_file("cpython").unwrap();
        let f = blast_engine::fingerprint::fingerprint(&m.result).unwrap();
        let axis = Axis::covering(&f);
        for p in &f.pairs {
            let x = axis.x(p.measured, 100.0);
            assert!((0.0..=100.0).contains(&x), "{} at {x}", p.measured);
        }
        assert!(axis.x(0.5, 100.0) < axis.x(1.0, 100.0) && axis.x(1.0, 100.0) < axis.x(1.2, 100.0));
        assert_eq!(axis.x(f64::NAN, 100.0), 0.0);
        let ticks = axis.ticks(100.0, 10.0);
        assert!(ticks.contains(&1.0) && ticks.len() <= 10, "{ticks:?}");
        assert!(ticks.windows(2).all(|w| axis.x(w[1], 100.0) - axis.x(w[0], 100.0) >= 10.0), "{ticks:?} crowd each other");
        // Groovy's 400% spreads are cut at 1.5x: the axis stays readable.
        let groovy = blast_engine::fingerprint::fingerprint(&reference_file("groovy").unwrap().result).unwrap();
        let wide = Axis::covering(&groovy);
        assert!(wide.hi < 20.0, "{wide:?}");
    }

    #[test]
    fn the_strip_chart_has_a_line_per_workload_and_escapes_imported_names() {
        let mut m = reference_file("jruby").unwrap();
        let f = blast_engine::fingerprint::fingerprint(&m.result).unwrap();
        let svg = strip_chart_svg(&f, Some("fanout_root@8"));
        assert_eq!(svg.matches("<g class=\"strip").count(), f.pairs.len());
        assert_eq!(svg.matches("<g class=\"strip current\" data-workload=\"fanout_root@8\"").count(), 1);
        assert_eq!(svg.matches("<line class=\"sim policy-").count(), f.pairs.len() * f.fits.len());
        let wide = f.pairs.iter().filter(|p| !p.readable).count();
        assert!(wide > 0, "JRuby's result has rows too wide to read (docs/RUNTIMES.md)");
        assert_eq!(svg.matches("measured-dot wide").count(), wide);
        // A hostile runtime name in a stranger's file stays text.
        m.result.runtime = "<script>alert(1)</script>".into();
        let hostile = blast_engine::fingerprint::fingerprint(&m.result).unwrap();
        let svg = strip_chart_svg(&hostile, None);
        assert!(!svg.contains("<script>") && svg.contains("&lt;script&gt;"));
    }
}
