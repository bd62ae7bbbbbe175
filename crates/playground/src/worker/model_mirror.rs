//! The page's side of a model preset's replay, which the engine worker runs (`model_host`):
//! the variants' views as its last update left them, and the commands not yet posted.
//!
//! Like the call-site lanes' `lanes::Mirror`: the clock's advance is gathered over frames and
//! asked for once the last frame request is answered, so the worker is never more than one
//! frame behind and the page never runs the engine.

use std::rc::Rc;

use blast_engine::models::ModelConfig;
use blast_engine::report::RelinkTotals;

use crate::model_entities::Family;
use crate::model_runner::VariantView;
use crate::worker::model_wire::{self, Checked, Command, Request, Update};
use crate::worker::wire::DecodeError;

pub struct ModelMirror {
    /// The page's replay number: updates of another replay are dropped.
    run: u64,
    config: ModelConfig,
    views: Vec<Rc<VariantView>>,
    clock_ms: f64,
    finished: bool,
    length_ms: Option<f64>,
    outbox: Vec<Command>,
    /// The preset's expectations against the views, as the last update checked them.
    expectations: Rc<Checked>,
    /// Requests posted and not answered (a frame is asked for only when none is).
    in_flight: usize,
    /// Virtual ms the clock moved since the last frame request.
    advance_ms: f64,
}

impl ModelMirror {
    /// Replay `run` of `variants` under `config`, at time zero, nothing computed yet: each
    /// variant's view is empty until the worker's first update.
    /// `expectations`: the preset's `expect` lines, checked by the worker at each update.
    pub fn open(run: u64, config: ModelConfig, variants: &[&'static str], expectations: &str) -> ModelMirror {
        let all = config.variants();
        let selected: Vec<usize> = (0..all.len()).filter(|&i| variants.contains(&all[i])).collect();
        let views = selected
            .iter()
            .map(|&index| {
                Rc::new(VariantView {
                    variant: all[index],
                    index,
                    now_ms: 0.0,
                    report: None,
                    revealed: 0,
                    error: None,
                    entities: None,
                    verdicts: RelinkTotals::default(),
                    steps: Vec::new(),
                })
            })
            .collect();
        let open = Command::Open { config: config.clone(), variants: selected.iter().map(|&i| i as u32).collect(), expectations: expectations.into() };
        let expectations = Rc::default();
        ModelMirror { run, config, views, clock_ms: 0.0, finished: false, length_ms: None, outbox: vec![open], expectations, in_flight: 0, advance_ms: 0.0 }
    }

    pub fn run(&self) -> u64 {
        self.run
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    pub fn family(&self) -> Family {
        Family::of(&self.config)
    }

    /// The preset's expectations as the worker checked them against `views`.
    pub fn expectations(&self) -> &Rc<Checked> {
        &self.expectations
    }

    pub fn views(&self) -> &[Rc<VariantView>] {
        &self.views
    }

    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The longest run's virtual length, once the worker has computed every run.
    pub fn length_ms(&self) -> Option<f64> {
        self.length_ms
    }

    /// Virtual time shown to the user, as the worker last said.
    pub fn clock_ms(&self) -> f64 {
        self.clock_ms
    }

    /// Necessary, collateral and missed rebuilds so far, over all lanes.
    pub fn verdict_total(&self) -> u64 {
        self.views.iter().map(|v| v.verdict_total()).sum()
    }

    pub fn advance_clock(&mut self, virtual_ms: f64) {
        if virtual_ms > 0.0 {
            self.advance_ms += virtual_ms;
        }
    }

    /// End of a frame: the worker is asked for the next frame once it answered the last.
    pub fn settle(&mut self) {
        if self.in_flight == 0 && self.advance_ms > 0.0 && !self.outbox.iter().any(|c| matches!(c, Command::Frame { .. })) {
            let advance_ms = std::mem::take(&mut self.advance_ms);
            self.outbox.push(Command::Frame { advance_ms });
        }
    }

    pub fn step(&mut self) {
        self.outbox.push(Command::Step);
    }

    /// Back to time zero (the worker keeps the runs it computed); the clock the frames gathered
    /// is dropped.
    pub fn rewind(&mut self) {
        self.advance_ms = 0.0;
        self.clock_ms = 0.0;
        self.finished = false;
        self.outbox.retain(|c| matches!(c, Command::Open { .. }));
        self.outbox.push(Command::Rewind);
    }

    /// The commands to post now, if any.
    pub fn take_request(&mut self) -> Option<Request> {
        if self.outbox.is_empty() {
            return None;
        }
        self.in_flight += 1;
        Some(Request { run: self.run, commands: std::mem::take(&mut self.outbox) })
    }

    /// Apply the worker's update; `Ok(None)` when it is for another replay, `Ok(Some(why))`
    /// when the worker has no replay for this one.
    pub fn apply(&mut self, bytes: &[u8]) -> Result<Option<String>, DecodeError> {
        let Update { run, error, clock_ms, finished, length_ms, views, expectations } = model_wire::decode_update(bytes)?;
        if run != self.run {
            return Ok(None);
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        if error.is_some() {
            return Ok(error);
        }
        let variants = self.config.variants();
        let views = views
            .into_iter()
            .map(|form| {
                let previous = self.views.iter().find(|v| v.index == form.index());
                form.into_view(variants, previous.map(|v| &**v)).map(Rc::new)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.views = views;
        self.expectations = Rc::new(expectations);
        (self.clock_ms, self.finished, self.length_ms) = (clock_ms, finished, length_ms);
        Ok(None)
    }
}
