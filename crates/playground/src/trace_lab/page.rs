//! What the page receives of a read trace: its parts already written (`markup`) and its files
//! already made (`export`), in the engine worker, from the [`TraceView`]. The page only shows
//! and hands out strings, so its wasm carries neither the readers nor the view's builders and
//! decoders (measured: decoding the whole view on the page was +33 KiB gzipped of page wasm,
//! this is a few).

use serde::{Deserialize, Serialize};

use super::sites::TraceSites;
use super::view::{Timeline, TraceView};
use super::{export, markup};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracePage {
    /// The file, sample or "the pasted log".
    pub name: String,
    /// `v8`, `hotspot`, `groovy`; `None` when no line said.
    pub format: Option<String>,
    pub summary: String,
    pub fan_out: String,
    pub timeline: TimelinePart,
    /// The replay's comparison, or why there is none. Both are text on purpose: the worker
    /// writes every part of the page (`view::NoReplay` is the typed reason), so the page
    /// ships no error types of the readers.
    pub replay: Result<String, String>,
    /// The replay's scenario as DSL text (`None` for a unit replay, which runs none).
    pub scenario: Option<String>,
    pub fan_out_csv: String,
    pub fan_out_markdown: String,
    pub replay_csv: Option<String>,
    pub replay_markdown: Option<String>,
    /// Its sites as it left them: the blast view and the why panel draw them.
    pub sites: TraceSites,
}

impl TracePage {
    pub fn of(v: &TraceView) -> TracePage {
        TracePage {
            name: v.name.clone(),
            format: v.format.clone(),
            summary: markup::summary(v),
            fan_out: markup::fan_out(v),
            timeline: TimelinePart::of(&v.timeline),
            replay: v.replay.as_ref().map(markup::replay).map_err(ToString::to_string),
            scenario: v.replay.as_ref().ok().filter(|r| !r.scenario.is_empty()).map(|r| r.scenario.clone()),
            fan_out_csv: export::fan_out_csv(v),
            fan_out_markdown: export::fan_out_markdown(v),
            replay_csv: export::replay_csv(v),
            replay_markdown: export::replay_markdown(v),
            sites: v.places.clone(),
        }
    }
}

/// The timeline as the page shows it, and the window it shows: the page zooms by asking the
/// worker for another window (`protocol::Request::Timeline`), answered with another of these.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelinePart {
    pub markup: String,
    /// The window shown and the trace's extent, in its units (µs of its clock, or lines).
    pub window: (u64, u64),
    pub whole: (u64, u64),
    /// The middle of the window's densest bin.
    pub peak: u64,
}

impl TimelinePart {
    pub fn of(tl: &Timeline) -> TimelinePart {
        TimelinePart { markup: markup::timeline(tl), window: (tl.start, tl.end), whole: tl.whole, peak: tl.peak }
    }

    /// Whether a window narrower than the whole trace is shown.
    pub fn zoomed(&self) -> bool {
        self.window != self.whole
    }

    /// The window to ask for next (`None`: the whole trace): half as wide around the densest
    /// bin, twice as wide around the middle, or all of it. Kept inside the trace by sliding.
    pub fn zoom(&self, z: Zoom) -> Option<(u64, u64)> {
        let (lo, hi) = self.window;
        let span = hi - lo;
        let (centre, width) = match z {
            Zoom::Whole => return None,
            Zoom::To(a, b) => {
                let w = super::view::clamp(Some((a, b)), self.whole);
                return (w != self.whole).then_some(w);
            }
            Zoom::In => (self.peak, (span / 2).max(MIN_SPAN)),
            Zoom::Out => (lo + span / 2, span.saturating_mul(2)),
        };
        if width >= self.whole.1 - self.whole.0 {
            return None;
        }
        let start = centre.saturating_sub(width / 2).clamp(self.whole.0, self.whole.1 - width);
        Some((start, start + width))
    }

    /// The window between two points of the drawn timeline, each a fraction of its width (a
    /// drag across it, either way), `None` for a drag too narrow to mean a window (under
    /// [`MIN_DRAG`] of the width).
    pub fn dragged(&self, a: f64, b: f64) -> Option<Zoom> {
        if !(a.is_finite() && b.is_finite()) || (a - b).abs() < MIN_DRAG {
            return None;
        }
        let (lo, hi) = self.window;
        let at = |f: f64| lo + (markup::axis_fraction(f) * (hi - lo) as f64).round() as u64;
        let (x, y) = (at(a.min(b)), at(a.max(b)));
        Some(Zoom::To(x, y.max(x + 1)))
    }
}

/// The narrowest window "Zoom in" asks for, in the trace's units (µs or lines).
pub const MIN_SPAN: u64 = 2;

/// The narrowest drag that zooms, as a fraction of the timeline's width (a click is not a drag).
pub const MIN_DRAG: f64 = 0.01;

/// What the timeline's zoom buttons and a drag across it ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    In,
    Out,
    Whole,
    /// The window between these points, in the trace's units (a drag).
    To(u64, u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_across_the_timeline_asks_for_the_window_under_it_either_way() {
        let t = TimelinePart { window: (1000, 2000), whole: (0, 10_000), ..TimelinePart::default() };
        let Some(Zoom::To(a, b)) = t.dragged(0.75, 0.25) else { panic!("a drag is a window") };
        // The plot runs from PAD to W - PAD of the drawing: a quarter in is a bit past 1250.
        assert!((1240..=1260).contains(&a) && (1740..=1760).contains(&b), "{a}..{b}");
        assert_eq!(t.dragged(0.75, 0.25), t.dragged(0.25, 0.75));
        assert_eq!(t.zoom(Zoom::To(a, b)), Some((a, b)));
        assert_eq!(t.dragged(0.5, 0.505), None, "a click is not a drag");
        assert_eq!(t.dragged(f64::NAN, 0.5), None);
        // Past the edges: clamped to the window shown, and never wider than the trace.
        let Some(Zoom::To(a, b)) = t.dragged(-1.0, 2.0) else { panic!() };
        assert_eq!((a, b), (1000, 2000));
        assert_eq!(t.zoom(Zoom::To(0, 10_000)), None, "the whole trace");
    }
}
