//! The live charts, drawn by the engine worker. The page sends what a chart shows (its data, the
//! x window, the theme's colours, the canvas's size in pixels) and gets back a picture it puts on
//! the canvas as it is: the drawing (plotters, ~20 KiB of the page's module gzipped) and its
//! time leave the page's main thread.
//!
//! A job is `(CHART, ChartJob)` in postcard's form (`wire::put_whole`, `wire::take_whole`). Its
//! answer is not bytes but a picture (an `ImageBitmap`, moved rather than copied), so the
//! worker's module posts it (`blast-web`'s `picture`), and the client (`client`), which routes
//! byte answers to what awaits them, never sees it: a chart is drawn whenever the page asks,
//! and the last picture for a canvas is the one left on it.
//!
//! Decoding is total: bytes that are not a chart job give an error, never a panic. A job whose
//! picture would be larger than `MAX_SIDE_PX` a side is refused before anything is drawn
//! (`ChartJob::drawable`), and the refusal goes back under the job's label like a picture.

use serde::{Deserialize, Serialize};

use crate::charts::{ChartColours, ChartData};
use crate::timeline::Range;
use crate::worker::wire::{put_whole, take_whole, DecodeError, CHART};

/// The widest or tallest picture the worker draws, in pixels: 4x a 4K screen's width, past any
/// chart a page lays out (a chart spans at most the window, an export is twice its CSS size).
pub const MAX_SIDE_PX: u32 = 16_384;

/// The band above an exported chart that holds its title and the run's name (CSS px).
pub const EXPORT_TITLE_PX: f64 = 44.0;
/// Pixels per CSS px of an exported chart, whatever the screen's ratio: sharp in a document.
pub const EXPORT_SCALE: f64 = 2.0;

/// Which of the two charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Chart {
    /// Throughput per lane over time, log scale, with event marks (`plot::draw_throughput`).
    Throughput,
    /// Relinks per interval split by the oracle's verdict, a panel per lane.
    Relinks,
}

impl Chart {
    pub const ALL: [Chart; 2] = [Chart::Throughput, Chart::Relinks];

    /// The chart whose canvas a picture's label names (`ChartJob::label`); `None` for an
    /// export's file name.
    pub fn of_canvas(label: &str) -> Option<Chart> {
        Chart::ALL.into_iter().find(|c| c.canvas_id() == label)
    }

    /// The id of the chart's canvas on the page (`components::charts`): where its picture goes.
    pub fn canvas_id(self) -> &'static str {
        match self {
            Chart::Throughput => "throughput-chart",
            Chart::Relinks => "relinks-chart",
        }
    }
}

/// Where a picture goes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Destination {
    /// The chart's canvas on the page.
    Canvas,
    /// A PNG file, with a band above the chart holding `title` and `subject` (the run).
    Export { file: String, title: String, subject: String },
}

/// A chart to draw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChartJob {
    pub chart: Chart,
    pub destination: Destination,
    pub data: ChartData,
    /// The x window shown.
    pub window: Range,
    pub colours: ChartColours,
    /// The picture's size in pixels: the canvas's CSS size times `scale`.
    pub size_px: (u32, u32),
    /// Pixels per CSS px (the screen's ratio, or the export's).
    pub scale: f64,
}

impl ChartJob {
    /// What the picture is for, as the page reads it back: the canvas's id, or the file's name.
    pub fn label(&self) -> &str {
        match &self.destination {
            Destination::Canvas => self.chart.canvas_id(),
            Destination::Export { file, .. } => file,
        }
    }

    /// Whether the worker draws this job: a picture neither empty nor over `MAX_SIDE_PX` a
    /// side, at a positive finite scale.
    pub fn drawable(&self) -> Result<(), Undrawable> {
        let (w, h) = self.size_px;
        if w == 0 || h == 0 || w > MAX_SIDE_PX || h > MAX_SIDE_PX {
            return Err(Undrawable::Size(w, h));
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(Undrawable::Scale);
        }
        Ok(())
    }
}

pub fn encode(job: &ChartJob) -> Vec<u8> {
    put_whole(CHART, job)
}

/// A chart job from its bytes.
pub fn decode(bytes: &[u8]) -> Result<ChartJob, DecodeError> {
    take_whole(bytes, CHART)
}

/// Why a chart job is not drawn, found before anything is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undrawable {
    /// Its picture would be empty, or over `MAX_SIDE_PX` a side.
    Size(u32, u32),
    /// Its scale is not a positive number.
    Scale,
}

impl std::fmt::Display for Undrawable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undrawable::Size(w, h) => write!(f, "a picture of {w} x {h} pixels is not drawn (1 to {MAX_SIDE_PX} a side)"),
            Undrawable::Scale => f.write_str("a picture's scale is not a positive number"),
        }
    }
}

/// Whether `bytes` are a chart job (the worker's module draws those itself).
pub fn is_chart(bytes: &[u8]) -> bool {
    bytes.first() == Some(&(CHART as u8))
}

/// The chart jobs the page has out: at most one per picture (its label) in the worker, and the
/// newest other one waiting in its place. Only the last picture stays on a canvas, so the ones
/// between are never drawn: a worker slower to draw than the page asks (a busy worker, a fast
/// run) is not handed a queue that grows.
#[derive(Debug, Default)]
pub struct Drawing {
    out: Vec<(String, Option<Vec<u8>>)>,
}

impl Drawing {
    /// The job to post now, or `None` when one for the same picture is out: this one waits,
    /// in place of any that waited.
    pub fn send(&mut self, label: &str, job: Vec<u8>) -> Option<Vec<u8>> {
        match self.out.iter_mut().find(|(l, _)| l == label) {
            Some((_, waiting)) => {
                *waiting = Some(job);
                None
            }
            None => {
                self.out.push((label.to_string(), None));
                Some(job)
            }
        }
    }

    /// `label`'s picture came back: the job that waited for it, to post now.
    pub fn answered(&mut self, label: &str) -> Option<Vec<u8>> {
        let at = self.out.iter().position(|(l, _)| l == label)?;
        let waiting = self.out[at].1.take();
        if waiting.is_none() {
            self.out.remove(at);
        }
        waiting
    }

    /// The worker stopped: nothing it had is coming back.
    pub fn forget(&mut self) {
        self.out.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::{BarPanel, Line};

    fn job() -> ChartJob {
        ChartJob {
            chart: Chart::Relinks,
            destination: Destination::Export { file: "hot-relinks.png".into(), title: "Relinks".into(), subject: "hot · global vs exact".into() },
            data: ChartData {
                x_desc: "virtual time (ms)".into(),
                y_desc: "ops/ms (log scale)".into(),
                y_unit: "ops/ms".into(),
                x_max: 12.5,
                lines: vec![Line {
                    label: "global".into(),
                    colour: 0,
                    points: vec![(1.0, 2.5), (12.5, 0.25)],
                    marks: vec![3.0],
                    deopts: vec![4.0],
                    same_as: None,
                }],
                panels: vec![BarPanel { label: "global".into(), bars: vec![(0.0, 1.0, 3, 2, 1)] }],
            },
            window: (0.0, 12.5),
            colours: ChartColours::from_vars(|_| None, false),
            size_px: (1200, 640),
            scale: 2.0,
        }
    }

    #[test]
    fn a_chart_job_round_trips_and_names_what_its_picture_is_for() {
        let job = job();
        let bytes = encode(&job);
        assert!(is_chart(&bytes));
        assert_eq!(decode(&bytes), Ok(job.clone()));
        assert_eq!(job.label(), "hot-relinks.png");
        let on_page = ChartJob { destination: Destination::Canvas, ..job };
        assert_eq!(on_page.label(), "relinks-chart");
        assert_eq!((Chart::of_canvas(on_page.label()), Chart::of_canvas("hot-relinks.png")), (Some(Chart::Relinks), None), "a canvas's label, and a file's");
    }

    #[test]
    fn a_chart_job_cut_anywhere_or_of_another_kind_is_an_error() {
        let bytes = encode(&job());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer).map_err(|e| e.why), Err("trailing bytes"));
        let read = crate::worker::wire::encode_job(1, "class A", &[], false, None);
        assert!(!is_chart(&read));
        assert!(decode(&read).is_err());
    }

    #[test]
    fn a_picture_too_large_empty_or_at_no_scale_is_refused_before_drawing() {
        for (size_px, scale) in
            [((0, 10), 1.0), ((10, 0), 1.0), ((MAX_SIDE_PX + 1, 10), 1.0), ((10, u32::MAX), 1.0), ((10, 10), 0.0), ((10, 10), f64::NAN), ((10, 10), -2.0)]
        {
            let job = decode(&encode(&ChartJob { size_px, scale, ..job() })).expect("it reads");
            assert!(job.drawable().is_err(), "{size_px:?} at {scale}");
        }
        assert_eq!(
            ChartJob { size_px: (0, 7), ..job() }.drawable().map_err(|e| e.to_string()),
            Err("a picture of 0 x 7 pixels is not drawn (1 to 16384 a side)".into())
        );
        assert_eq!(ChartJob { size_px: (MAX_SIDE_PX, MAX_SIDE_PX), ..job() }.drawable(), Ok(()));
    }

    #[test]
    fn one_job_per_picture_is_out_and_only_the_newest_waits() {
        let mut d = Drawing::default();
        assert_eq!(d.send("throughput-chart", vec![1]), Some(vec![1]));
        assert_eq!(d.send("relinks-chart", vec![2]), Some(vec![2]), "another picture goes at once");
        assert_eq!(d.send("throughput-chart", vec![3]), None, "waits for the one out");
        assert_eq!(d.send("throughput-chart", vec![4]), None, "and replaces the one waiting");
        assert_eq!(d.answered("throughput-chart"), Some(vec![4]), "the newest goes when the picture comes back");
        assert_eq!(d.answered("throughput-chart"), None);
        assert_eq!(d.send("throughput-chart", vec![5]), Some(vec![5]), "none out: at once");
        assert_eq!(d.answered("unknown"), None);
        d.forget();
        assert_eq!(d.send("relinks-chart", vec![6]), Some(vec![6]), "after the worker stopped, nothing is out");
    }
}
