//! The run's headline: one line at the top of the blast view that says what the comparison
//! found, so a first visit reads the result without scrolling to the comparison table.
//!
//! While the lanes run it says which lane finished first (the cheap policy's lane ends long
//! before the others in virtual time); once two or more lanes have finished it gives the
//! throughput ratio of the fastest over the slowest, the figure the comparison table's
//! "vs first" column shows for the headline preset.

use crate::format;
use crate::runner::LaneView;

/// What the headline says about the lanes on screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Headline {
    /// Some lanes finished, others still run: the first to finish and where the slowest is.
    Ahead { finished: &'static str, at_ms: f64, behind: &'static str, percent: f64 },
    /// Every lane finished: the fastest's throughput over the slowest's.
    Ratio { fast: &'static str, slow: &'static str, ratio: f64, fast_ops: f64, slow_ops: f64 },
}

impl Headline {
    /// The headline for `lanes`, or `None` when there is nothing to compare yet (fewer than two
    /// lanes, none finished, or throughputs that are not positive numbers).
    pub fn of<L: AsRef<LaneView>>(lanes: &[L]) -> Option<Headline> {
        let lanes: Vec<&LaneView> = lanes.iter().map(AsRef::as_ref).collect();
        if lanes.len() < 2 {
            return None;
        }
        let ops = |l: &LaneView| l.result.map(|r| r.ops_per_ms).filter(|v| v.is_finite() && *v > 0.0);
        if lanes.iter().all(|l| ops(l).is_some()) {
            let by_ops = |a: &&&LaneView, b: &&&LaneView| ops(a).unwrap_or(0.0).total_cmp(&ops(b).unwrap_or(0.0));
            let fast = lanes.iter().max_by(by_ops)?;
            let slow = lanes.iter().min_by(by_ops)?;
            let (fast_ops, slow_ops) = (ops(fast)?, ops(slow)?);
            return Some(Headline::Ratio { fast: fast.policy.name(), slow: slow.policy.name(), ratio: fast_ops / slow_ops, fast_ops, slow_ops });
        }
        let first = lanes.iter().filter(|l| l.finished()).min_by(|a, b| a.now_ms.total_cmp(&b.now_ms))?;
        let progress = |l: &LaneView| 100.0 * l.iterations as f64 / l.total_iterations.max(1) as f64;
        let behind = lanes.iter().filter(|l| !l.finished()).min_by(|a, b| progress(a).total_cmp(&progress(b)))?;
        Some(Headline::Ahead { finished: first.policy.name(), at_ms: first.now_ms, behind: behind.policy.name(), percent: progress(behind).min(100.0) })
    }

    /// The ratio, when known (the page puts it in a data attribute for tests and tools).
    pub fn ratio(&self) -> Option<f64> {
        match self {
            Headline::Ratio { ratio, .. } => Some(*ratio),
            Headline::Ahead { .. } => None,
        }
    }

    /// The sentence shown.
    pub fn text(&self) -> String {
        match self {
            Headline::Ratio { fast, slow, ratio, fast_ops, slow_ops } => {
                format!("{fast} ran {} the throughput of {slow} ({} vs {} ops/ms).", format::ratio(*ratio), format::sig3(*fast_ops), format::sig3(*slow_ops))
            }
            Headline::Ahead { finished, at_ms, behind, percent } => {
                format!("{finished} finished after {} (virtual); {behind} is {percent:.0}% through its loop.", format::duration_ms(*at_ms))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Runner;
    use blast_engine::params::Params;
    use blast_engine::{presets, Policy};

    fn lanes(id: &str, policies: &[Policy]) -> Runner {
        Runner::new(&presets::find(id).unwrap().scenario(), policies, &Params::default()).expect("the preset runs")
    }

    #[test]
    fn the_headline_names_the_first_lane_to_finish_then_the_ratio() {
        let mut r = lanes("hotLoop_unrelatedMetaClassChurn", &[Policy::Global, Policy::Exact]);
        assert_eq!(Headline::of(r.views()), None, "nothing finished yet");
        let mut ahead = None;
        while !r.finished() {
            r.advance_clock(5.0);
            while !r.work(10_000) {}
            r.refresh();
            if ahead.is_none() {
                ahead = Headline::of(r.views()).filter(|h| h.ratio().is_none());
            }
        }
        let Some(Headline::Ahead { finished, behind, percent, .. }) = ahead.clone() else { panic!("exact finishes first: {ahead:?}") };
        assert_eq!((finished, behind), ("exact", "global"));
        assert!(percent < 100.0, "{percent}");
        let done = Headline::of(r.views()).expect("both finished");
        let Headline::Ratio { fast, slow, ratio, .. } = done.clone() else { panic!("{done:?}") };
        assert_eq!((fast, slow), ("exact", "global"));
        // The comparison table's "vs first" for the same lanes: exact over global.
        let ops: Vec<f64> = r.views().iter().map(|l| l.result.unwrap().ops_per_ms).collect();
        assert_eq!(ratio, ops[1] / ops[0]);
        assert!(ratio > 10.0, "the headline preset's gap: {ratio}");
        assert!(done.text().starts_with("exact ran ") && done.text().contains("the throughput of global"), "{}", done.text());
    }

    #[test]
    fn one_lane_has_no_headline() {
        let r = lanes("hotLoop_baseline", &[Policy::Exact]);
        assert_eq!(Headline::of(r.views()), None);
    }
}
