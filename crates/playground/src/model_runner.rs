//! Replays model runs (shape cache, shared arena, descriptor cache) the way `runner` drives
//! call-site simulations: one lane per variant, lockstep on a shared virtual clock, bounded
//! work per animation frame. It runs in the engine worker (`worker::model_host`); the page
//! keeps the [`VariantView`]s it sends (`worker::model_mirror`).
//!
//! The engine computes a model run in one go, so "live" here is a replay of each run's per-op
//! timeline. For the entities part-way (counters that move and flash, verdicts per interval)
//! the same configuration is run again cut short after k measured ops, at a few evenly spaced
//! checkpoints: those are the engine's own numbers at that point, not an interpolation. One
//! unit of work is one engine run; checkpoints are computed when the replay reaches them, and
//! the clock never passes a point whose state is not computed yet. The replay's clock starts
//! when the measured ops begin: the warm-up is in the totals, not on screen, and a run of the
//! warm-up alone gives the verdicts the per-interval chart starts from.

use std::rc::Rc;

use blast_engine::models::{self, Entity, ModelConfig, ModelError, ModelReport, OpPoint};
use blast_engine::report::RelinkTotals;

use crate::model_entities::Family;
use crate::model_knobs;

/// Most part-way states per lane, evenly spaced over the measured ops.
pub const CHECKPOINTS: u64 = 30;

/// The entities and verdicts once the replay has shown `points` timeline points.
#[derive(Clone, Debug, PartialEq)]
struct Checkpoint {
    points: usize,
    entities: Vec<Entity>,
    verdicts: RelinkTotals,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EntityView {
    pub entity: Entity,
    /// Frame of the latest increase of the family's flash counter; a new value restarts the flash.
    pub flash: u64,
}

/// Verdicts reached between two timeline points (for the per-interval chart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerdictStep {
    pub from: usize,
    pub to: usize,
    pub verdicts: RelinkTotals,
}

/// One variant's replay as the components see it.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantView {
    pub variant: &'static str,
    /// Position among the model's variants: its colour, whichever are selected.
    pub index: usize,
    pub now_ms: f64,
    /// The whole run, once computed; the replay has shown its first `revealed` timeline points.
    pub report: Option<Rc<ModelReport>>,
    pub revealed: usize,
    pub error: Option<String>,
    /// The entities at the replay position (`None` before the first checkpoint).
    pub entities: Option<Vec<EntityView>>,
    pub verdicts: RelinkTotals,
    pub steps: Vec<VerdictStep>,
}

impl VariantView {
    pub fn total_points(&self) -> usize {
        self.report.as_ref().map_or(0, |r| r.timeline.len())
    }

    pub fn finished(&self) -> bool {
        self.error.is_some() || (self.report.is_some() && self.revealed >= self.total_points())
    }

    /// The run's result, once the replay has shown all of it.
    pub fn result(&self) -> Option<&ModelReport> {
        self.report.as_deref().filter(|_| self.finished())
    }

    pub fn revealed_points(&self) -> &[OpPoint] {
        self.report.as_ref().map_or(&[], |r| &r.timeline[..self.revealed.min(r.timeline.len())])
    }

    /// 0..=1 through the replay.
    pub fn progress(&self) -> f64 {
        if self.finished() {
            1.0
        } else {
            self.revealed as f64 / self.total_points().max(1) as f64
        }
    }

    pub fn verdict_total(&self) -> u64 {
        self.verdicts.necessary + self.verdicts.collateral + self.verdicts.missed
    }
}

/// Microseconds per unit of a report's values (`us/op`, `ns/op`, `ms/op`).
fn unit_us(unit: &str) -> f64 {
    match unit.split('/').next() {
        Some("ns") => 1e-3,
        Some("ms") => 1e3,
        _ => 1.0,
    }
}

/// Virtual µs from the start of the measured ops to the end of timeline `point`.
pub fn measured_us(report: &ModelReport, point: usize) -> f64 {
    let Some(first) = report.timeline.first() else { return 0.0 };
    let start = first.t_us - first.value * unit_us(&report.unit);
    report.timeline.get(point).map_or(0.0, |p| (p.t_us - start).max(0.0))
}

/// The same model with its warm-up run as measured ops: its state is the real run's at the
/// end of the warm-up (`None` when there is no warm-up).
fn warm_up_only(config: &ModelConfig) -> Option<ModelConfig> {
    let mut c = config.clone();
    let (warmup, ops) = match &mut c {
        ModelConfig::ShapeCache(s) => (&mut s.warmup_ops, &mut s.ops),
        ModelConfig::Arena(a) => (&mut a.warmup_ops, &mut a.ops),
        ModelConfig::Descriptor(d) => (&mut d.warmup_ops, &mut d.ops),
    };
    if *warmup == 0 {
        return None;
    }
    (*ops, *warmup) = (*warmup, 0);
    Some(c)
}

fn minus(a: RelinkTotals, b: RelinkTotals) -> RelinkTotals {
    RelinkTotals {
        necessary: a.necessary.saturating_sub(b.necessary),
        collateral: a.collateral.saturating_sub(b.collateral),
        missed: a.missed.saturating_sub(b.missed),
    }
}

struct Lane {
    variant: &'static str,
    index: usize,
    run: Option<Result<Rc<ModelReport>, ModelError>>,
    /// Verdicts reached by the end of the warm-up.
    warmed_up: Option<RelinkTotals>,
    /// Measured-op counts of the checkpoints; `checkpoints` holds the first ones computed.
    plan: Vec<u64>,
    checkpoints: Vec<Checkpoint>,
    revealed: usize,
    /// Flash counter per entity at the last refresh, and the frame it last grew.
    seen: Vec<u64>,
    flash: Vec<u64>,
}

impl Lane {
    fn report(&self) -> Option<&Rc<ModelReport>> {
        self.run.as_ref().and_then(|r| r.as_ref().ok())
    }

    fn len(&self) -> usize {
        self.report().map_or(0, |r| r.timeline.len())
    }

    fn t_us(&self, point: usize) -> f64 {
        self.report().map_or(0.0, |r| measured_us(r, point))
    }

    fn finished(&self) -> bool {
        matches!(self.run, Some(Err(_))) || (self.run.is_some() && self.revealed >= self.len())
    }

    /// Timeline points revealed once `ops` measured ops are done.
    fn points_for(&self, ops: u64, measured: u64) -> usize {
        let len = self.len();
        ((ops as f64 * len as f64 / measured.max(1) as f64).round() as usize).clamp(1, len.max(1))
    }

    /// Points the replay may show with the checkpoints computed so far.
    fn available(&self, measured: u64) -> usize {
        match self.plan.get(self.checkpoints.len()) {
            _ if self.report().is_none() || self.warmed_up.is_none() => 0,
            Some(&next) => self.points_for(next, measured) - 1,
            None => self.len(),
        }
    }

    /// Time of the last point shown (0 before the first).
    fn shown_us(&self) -> f64 {
        self.revealed.checked_sub(1).map_or(0.0, |i| self.t_us(i))
    }

    fn reveal_to(&mut self, clock_us: f64, measured: u64) {
        let limit = self.available(measured);
        while self.revealed < limit && self.t_us(self.revealed) <= clock_us {
            self.revealed += 1;
        }
    }

    /// The clock has passed a point this lane cannot show yet.
    fn blocked(&self, clock_us: f64) -> bool {
        !self.finished() && (self.report().is_none() || self.t_us(self.revealed) <= clock_us)
    }

    fn now_us(&self, clock_us: f64) -> f64 {
        if self.finished() {
            self.t_us(self.len().saturating_sub(1))
        } else if self.blocked(clock_us) {
            self.shown_us()
        } else {
            clock_us.max(self.shown_us())
        }
    }

    /// A run is still to compute: the whole run, or the warm-up or a checkpoint of a run that worked.
    fn has_work(&self) -> bool {
        self.run.is_none() || (self.report().is_some() && (self.warmed_up.is_none() || self.checkpoints.len() < self.plan.len()))
    }

    /// One engine run: the whole run first, then the next checkpoint.
    fn compute_next(&mut self, config: &ModelConfig, measured: u64) {
        if self.run.is_none() {
            self.run = Some(config.run(self.variant).map(Rc::new));
            return;
        }
        if self.report().is_some() && self.warmed_up.is_none() {
            // Without it the chart starts from zero: the warm-up's verdicts join the first interval.
            self.warmed_up = Some(warm_up_only(config).and_then(|c| c.run(self.variant).ok()).map_or_else(RelinkTotals::default, |r| r.verdicts));
            return;
        }
        let Some(&ops) = self.plan.get(self.checkpoints.len()).filter(|_| self.report().is_some()) else { return };
        let cut_short = models::apply(config, "ops", &ops.to_string()).and_then(|c| c.run(self.variant));
        match cut_short {
            Ok(r) => self.checkpoints.push(Checkpoint { points: self.points_for(ops, measured), entities: r.entities, verdicts: r.verdicts }),
            // Without this state the replay shows the next one it has (the final state at worst).
            Err(_) => self.plan.truncate(self.checkpoints.len()),
        }
    }

    /// Entities and verdicts at the replay position.
    fn state(&self) -> Option<(&[Entity], RelinkTotals)> {
        if self.finished() {
            return self.report().map(|r| (r.entities.as_slice(), r.verdicts));
        }
        self.checkpoints.iter().rev().find(|c| c.points <= self.revealed).map(|c| (c.entities.as_slice(), c.verdicts))
    }

    fn steps(&self) -> Vec<VerdictStep> {
        let mut out = Vec::new();
        let (mut from, mut before) = (0, self.warmed_up.unwrap_or_default());
        let ends = self.checkpoints.iter().map(|c| (c.points, c.verdicts));
        let last = self.report().filter(|_| self.finished()).map(|r| (r.timeline.len(), r.verdicts));
        for (to, verdicts) in ends.chain(last).filter(|(to, _)| *to <= self.revealed) {
            if to > from {
                out.push(VerdictStep { from, to, verdicts: minus(verdicts, before) });
                (from, before) = (to, verdicts);
            }
        }
        out
    }

    fn view(&mut self, frame: u64, clock_us: f64) -> VariantView {
        let (entities, verdicts) = match self.state() {
            Some((entities, verdicts)) => (Some(entities.to_vec()), verdicts),
            None => (None, RelinkTotals::default()),
        };
        let entities = entities.map(|list| {
            self.seen.resize(list.len(), 0);
            self.flash.resize(list.len(), 0);
            list.into_iter()
                .enumerate()
                .map(|(i, entity)| {
                    let now = entity.blast_count();
                    if now > self.seen[i] {
                        self.flash[i] = frame;
                    }
                    self.seen[i] = now;
                    EntityView { entity, flash: self.flash[i] }
                })
                .collect()
        });
        VariantView {
            variant: self.variant,
            index: self.index,
            now_ms: self.now_us(clock_us) / 1000.0,
            report: self.report().cloned(),
            revealed: self.revealed,
            error: self.run.as_ref().and_then(|r| r.as_ref().err().map(ToString::to_string)),
            entities,
            verdicts,
            steps: self.steps(),
        }
    }
}

pub struct ModelRunner {
    config: ModelConfig,
    family: Family,
    /// Measured ops per run (what the checkpoints divide).
    measured: u64,
    lanes: Vec<Lane>,
    /// The shared virtual time (µs) every lane is being replayed to.
    clock_us: f64,
    frame: u64,
    views: Vec<Rc<VariantView>>,
}

/// Measured-op counts at which to take part-way states: after the first op (so the entities
/// show from the start), then evenly spaced; the last, all ops, is the run itself.
fn plan(measured: u64) -> Vec<u64> {
    let n = measured.min(CHECKPOINTS);
    let mut out: Vec<u64> = std::iter::once(1).chain((1..n).map(|j| (j * measured).div_ceil(n))).filter(|&k| k < measured).collect();
    out.dedup();
    out
}

impl ModelRunner {
    /// Lanes for `variants` (in the model's order); nothing is run until work is asked for.
    pub fn new(config: ModelConfig, variants: &[&'static str]) -> ModelRunner {
        let measured = model_knobs::value(&config, "ops").unwrap_or(1);
        let lanes = config
            .variants()
            .iter()
            .enumerate()
            .filter(|(_, v)| variants.contains(v))
            .map(|(index, &variant)| Lane {
                variant,
                index,
                run: None,
                warmed_up: None,
                plan: plan(measured),
                checkpoints: Vec::new(),
                revealed: 0,
                seen: Vec::new(),
                flash: Vec::new(),
            })
            .collect();
        let mut runner = ModelRunner { family: Family::of(&config), config, measured, lanes, clock_us: 0.0, frame: 0, views: Vec::new() };
        runner.refresh();
        runner
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn family(&self) -> Family {
        self.family
    }

    pub fn views(&self) -> &[Rc<VariantView>] {
        &self.views
    }

    pub fn finished(&self) -> bool {
        self.lanes.iter().all(Lane::finished)
    }

    /// Every lane has its whole run (the replay can say how long it lasts).
    pub fn runs_done(&self) -> bool {
        self.lanes.iter().all(|l| l.run.is_some())
    }

    /// Virtual duration of the longest run.
    pub fn longest_ms(&self) -> f64 {
        self.lanes.iter().map(|l| l.t_us(l.len().saturating_sub(1)) / 1000.0).fold(0.0, f64::max)
    }

    /// Virtual time shown to the user: the laggard's while replaying, else the latest.
    pub fn clock_ms(&self) -> f64 {
        let running = self.lanes.iter().filter(|l| !l.finished()).map(|l| l.now_us(self.clock_us)).reduce(f64::min);
        running.unwrap_or_else(|| self.lanes.iter().map(|l| l.now_us(self.clock_us)).fold(0.0, f64::max)) / 1000.0
    }

    /// Move the shared clock forward (`f64::INFINITY` = as fast as the work allows). It stays
    /// at zero until every lane has its run: a frame that computes the runs replays nothing.
    pub fn advance_clock(&mut self, virtual_ms: f64) {
        if virtual_ms > 0.0 && self.runs_done() {
            self.clock_us += virtual_ms * 1000.0;
        }
    }

    /// Run up to `max_runs` engine runs the replay needs to reach the clock. Returns `true`
    /// once every lane has reached it (or finished).
    pub fn work(&mut self, max_runs: usize) -> bool {
        let mut runs = 0;
        loop {
            let (clock, measured) = (self.clock_us, self.measured);
            self.lanes.iter_mut().for_each(|l| l.reveal_to(clock, measured));
            let laggard =
                self.lanes.iter().enumerate().filter(|(_, l)| l.blocked(clock)).min_by(|(_, a), (_, b)| a.shown_us().total_cmp(&b.shown_us())).map(|(i, _)| i);
            let Some(i) = laggard else { return true };
            if runs == max_runs {
                return false;
            }
            self.lanes[i].compute_next(&self.config, measured);
            runs += 1;
        }
    }

    /// End of a frame: the clock waits for lanes whose next state is not computed yet.
    fn settle(&mut self) {
        let clock = self.clock_us;
        let waiting = self.lanes.iter().filter(|l| l.blocked(clock)).map(Lane::shown_us).reduce(f64::min);
        if let Some(t) = waiting {
            self.clock_us = self.clock_us.min(t);
        }
        if !self.clock_us.is_finite() {
            self.clock_us = self.clock_ms() * 1000.0;
        }
    }

    /// The end of a frame: settle the clock and refresh the views. Returns whether every lane
    /// has finished.
    pub fn end_frame(&mut self) -> bool {
        self.settle();
        self.refresh();
        self.finished()
    }

    /// Show the next op point of every lane (the same op in each, whatever it cost).
    pub fn step(&mut self) {
        let measured = self.measured;
        for lane in self.lanes.iter_mut().filter(|l| !l.finished()) {
            while lane.revealed >= lane.available(measured) && lane.has_work() {
                lane.compute_next(&self.config, measured);
            }
            if lane.revealed < lane.available(measured) {
                lane.revealed += 1;
            }
        }
        self.clock_us = self.clock_us.max(self.clock_ms() * 1000.0);
    }

    /// Back to the start of the replay; computed runs are kept.
    pub fn rewind(&mut self) {
        self.clock_us = 0.0;
        for lane in &mut self.lanes {
            lane.revealed = 0;
            lane.seen.clear();
            lane.flash.clear();
        }
        self.refresh();
    }

    /// Rebuild the views (once per frame or after a command).
    pub fn refresh(&mut self) {
        self.frame += 1;
        let (frame, clock) = (self.frame, self.clock_us);
        self.views = self.lanes.iter_mut().map(|l| Rc::new(l.view(frame, clock))).collect();
    }

    /// Necessary, collateral and missed rebuilds so far, over all lanes.
    pub fn verdict_total(&self) -> u64 {
        self.views.iter().map(|v| v.verdict_total()).sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn runner(id: &str) -> ModelRunner {
        let config = models::find(id).expect("preset").config();
        let variants = config.variants().to_vec();
        ModelRunner::new(config, &variants)
    }

    pub(crate) fn plus(a: RelinkTotals, b: RelinkTotals) -> RelinkTotals {
        RelinkTotals { necessary: a.necessary + b.necessary, collateral: a.collateral + b.collateral, missed: a.missed + b.missed }
    }

    /// Replay every lane at full speed to its end (other modules' tests use it too).
    pub(crate) fn replay_to_end(r: &mut ModelRunner) {
        for _ in 0..1000 {
            r.advance_clock(f64::INFINITY);
            r.work(1000);
            if r.end_frame() {
                return;
            }
        }
        panic!("the replay did not finish");
    }

    #[test]
    fn the_replay_clock_starts_with_the_measured_ops() {
        for id in ["records_rotating11", "arena_closeGroup", "descriptor_treeMap"] {
            let config = models::find(id).unwrap().config();
            for v in config.variants() {
                let r = config.run(v).unwrap();
                let first = measured_us(&r, 0);
                let mean_us = r.value * unit_us(&r.unit);
                assert!((first - r.timeline[0].value * unit_us(&r.unit)).abs() < 1e-6, "{id} {v}: the first op starts at 0");
                let n = r.timeline.len();
                assert!((measured_us(&r, n - 1) / n as f64 - mean_us).abs() < 0.05 * mean_us, "{id} {v}: ops back to back");
            }
        }
    }

    #[test]
    fn checkpoints_are_evenly_spaced_below_the_measured_ops() {
        assert_eq!(plan(1), Vec::<u64>::new());
        assert_eq!(plan(4), vec![1, 2, 3]);
        let p = plan(300);
        assert_eq!((p.len(), p[0], p[1], p[p.len() - 1]), (30, 1, 10, 290));
    }

    #[test]
    fn a_replay_ends_on_the_engine_numbers() {
        for id in ["records_rotating11", "arena_closeGroup", "descriptor_treeMap"] {
            let mut r = runner(id);
            assert!(r.views().iter().all(|v| v.report.is_none()), "nothing runs before work is asked for");
            replay_to_end(&mut r);
            for v in r.views() {
                let direct = r.config().run(v.variant).unwrap();
                let result = v.result().expect("finished");
                assert_eq!(result.value, direct.value, "{id} {}", v.variant);
                assert_eq!(v.verdicts, direct.verdicts);
                let summed = v.steps.iter().map(|s| s.verdicts).fold(RelinkTotals::default(), plus);
                let warm = warm_up_only(r.config()).map(|c| c.run(v.variant).unwrap().verdicts).unwrap_or_default();
                assert_eq!(summed, minus(direct.verdicts, warm), "{id} {}: the intervals add up to the measured verdicts", v.variant);
            }
        }
    }

    #[test]
    fn the_clock_waits_for_runs_and_lanes_stay_in_lockstep() {
        let mut r = runner("arena_closeGroup");
        r.advance_clock(3.0);
        assert!(!r.work(0), "runs are due");
        r.settle();
        assert_eq!(r.clock_ms(), 0.0, "no run yet: the clock waits");
        r.advance_clock(3.0);
        assert!(r.work(1000), "the runs, and nothing to replay yet");
        r.refresh();
        assert!(r.runs_done() && r.views().iter().all(|v| v.revealed == 0));
        r.advance_clock(3.0);
        assert!(r.work(1000));
        r.refresh();
        for v in r.views() {
            assert!(v.revealed > 0 && !v.finished(), "{}", v.variant);
            let report = v.report.as_ref().unwrap();
            assert!((0..v.revealed).all(|i| measured_us(report, i) <= 3000.0));
            assert!(measured_us(report, v.revealed) > 3000.0);
        }
        assert!((r.clock_ms() - 3.0).abs() < 1e-9);
    }

    #[test]
    fn part_way_counters_move_and_flash() {
        let mut r = runner("arena_closeGroup");
        r.work(1000);
        r.advance_clock(10.0);
        r.work(1000);
        r.refresh();
        let scoped = r.views()[1].clone();
        let deopts = |v: &VariantView| v.entities.as_ref().expect("part-way state")[1].entity.blast_count();
        let part = deopts(&scoped);
        assert!(part > 0, "the segment thread has been deoptimized by 10 ms");
        assert!(scoped.entities.as_ref().unwrap()[1].flash > 0);
        replay_to_end(&mut r);
        assert!(deopts(&r.views()[1]) > part, "and more by the end");
    }

    #[test]
    fn step_shows_one_more_point_per_lane_and_rewind_starts_over() {
        let mut r = runner("descriptor_treeMap");
        r.step();
        r.step();
        r.refresh();
        assert!(r.views().iter().all(|v| v.revealed == 2));
        assert!(r.clock_ms() > 0.0);
        r.rewind();
        assert!(r.views().iter().all(|v| v.revealed == 0 && v.report.is_some() && !v.finished()));
        assert_eq!(r.clock_ms(), 0.0);
    }

    #[test]
    fn a_failing_run_finishes_its_lane_with_the_error() {
        let mut config = models::find("descriptor_treeMap").unwrap().config();
        if let ModelConfig::Descriptor(d) = &mut config {
            d.ops = 0;
        }
        let mut r = ModelRunner::new(config, &["good"]);
        replay_to_end(&mut r);
        assert!(r.views()[0].error.as_deref().unwrap_or("").contains("ops"));
    }
}
