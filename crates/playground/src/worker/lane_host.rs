//! The engine worker's side of lanes it runs for the page (the page never
//! freezes). A big scenario's simulations are built, stepped and read here; the page keeps a
//! mirror of their views (`lanes::Mirror`).
//!
//! [`Host`] is the worker's whole state, one message at a time: a text to read (`offload`),
//! after which it keeps a big scenario and the lanes its run check built, a batch of
//! commands for those lanes (`lane_wire::Request`), answered with the views' deltas, or a
//! probe result to fit (`fit_wire`, which keeps nothing), a runtime log's next chunk
//! (`trace_lab::host`, which keeps the one log being read), or a model preset's replay's
//! commands (`model_host`, which keeps the one replay). Plain Rust: the tests call it as the
//! worker does, with a clock passed in.

use std::rc::Rc;

use blast_engine::scenario::Scenario;
use blast_engine::{Params, Policy, ScenarioError};

use crate::runner::{LaneView, Runner};
use crate::worker::lane_wire::{self, Command, Request, Update};
use crate::worker::offload;
use crate::worker::wire;
use crate::worker::wire::{Reply, Verdict};

/// Wall-clock ms of engine work per frame request: the worker renders nothing, so it may use
/// most of a 60 Hz frame (one engine step can still take longer: it is not resumable).
pub const WORK_MS: f64 = 12.0;
/// Engine steps between clock checks.
const STEPS_PER_CHUNK: usize = 64;

/// The scenario of the latest text read that the worker runs, and the lanes its run check built.
struct Held {
    job: u64,
    scenario: Rc<Scenario>,
    /// Built for (policies, loop mode); taken by the first `Build` that matches.
    built: Option<(Vec<Policy>, bool, Runner)>,
}

/// Lanes being run for the page: build `run`, and the views last sent (the page holds them).
struct Running {
    run: u64,
    runner: Runner,
    sent: Vec<Rc<LaneView>>,
    /// `Runner::classes` before any class loaded by hand.
    declared: usize,
    /// The class whose what-if each update carries.
    hover: Option<String>,
    /// The scenario as read (not looped): its expectations are evaluated against the lanes.
    scenario: Rc<Scenario>,
}

#[derive(Default)]
pub struct Host {
    held: Option<Held>,
    lanes: Option<Running>,
    trace: crate::trace_lab::host::TraceHost,
    model: crate::worker::model_host::ModelHost,
}

impl Host {
    /// One message in, its answer out. `now_ms`: a wall clock for the frame budget.
    pub fn answer(&mut self, bytes: &[u8], now_ms: &dyn Fn() -> f64) -> Vec<u8> {
        match wire::kind(bytes) {
            Some(wire::LANES) => self.command(bytes, now_ms),
            Some(wire::FIT) => crate::worker::fit_wire::answer(bytes),
            Some(wire::PACK) => crate::worker::pack_wire::answer(bytes),
            Some(wire::OPEN) => crate::worker::open_wire::answer(bytes),
            Some(wire::TRACE) => self.trace.answer(bytes),
            Some(wire::MODEL) => self.model.answer(bytes, now_ms, WORK_MS),
            _ => self.read(bytes),
        }
    }

    fn read(&mut self, bytes: &[u8]) -> Vec<u8> {
        let reply = match wire::decode_job(bytes) {
            Ok(job) => {
                let (reply, held) = offload::read(&job, true);
                if let Some((scenario, runner)) = held {
                    self.held = Some(Held { job: job.id, scenario: Rc::new(scenario), built: Some((job.policies.clone(), job.looping, runner)) });
                }
                reply
            }
            Err(e) => Reply { id: 0, verdict: Verdict::Failed(format!("the engine worker could not read the job ({e})")) },
        };
        wire::encode_reply(&reply)
    }

    fn command(&mut self, bytes: &[u8], now_ms: &dyn Fn() -> f64) -> Vec<u8> {
        let request = match lane_wire::decode_request(bytes) {
            Ok(r) => r,
            Err(e) => return refusal(0, format!("the engine worker could not read the lanes' request ({e})")),
        };
        let Request { run, commands } = request;
        let mut stepped = None;
        let mut fires = Vec::new();
        let (mut evaluate, mut count_calls) = (false, false);
        for command in commands {
            if let Command::Build { job, policies, looping } = command {
                if let Err(why) = self.build(run, job, policies, looping) {
                    self.lanes = None;
                    return refusal(run, why.to_string());
                }
                continue;
            }
            let lanes = match self.running(run) {
                Ok(lanes) => lanes,
                Err(refused) => return refused,
            };
            let r = &mut lanes.runner;
            match command {
                Command::Build { .. } => {}
                Command::Frame { advance_ms } => {
                    r.advance_clock(advance_ms);
                    let deadline = now_ms() + WORK_MS;
                    while !r.work(STEPS_PER_CHUNK) && now_ms() < deadline {}
                    r.settle();
                }
                Command::Step => stepped = Some(r.step()),
                Command::Fire(event) => fires.push(r.inject(&event)),
                Command::Category { name, enter } => fires.push(r.inject_category(&name, enter)),
                Command::Select(site) => r.select(site),
                Command::Brush(range) => r.brush(range),
                Command::WhatIf(class) => lanes.hover = class,
                Command::Expectations => evaluate = true,
                Command::CallCounts => count_calls = true,
            }
        }
        let lanes = match self.running(run) {
            Ok(lanes) => lanes,
            Err(refused) => return refused,
        };
        lanes.runner.refresh();
        let r = &lanes.runner;
        let update = Update {
            run,
            error: None,
            clock_ms: r.clock_ms(),
            finished: r.finished(),
            views: r.views().to_vec(),
            loaded: r.classes()[lanes.declared..].to_vec(),
            stepped,
            fires,
            what_if: lanes.hover.as_deref().map(|c| r.what_if(c)).unwrap_or_default(),
            expectations: evaluate.then(|| r.expectations(&lanes.scenario)),
            call_counts: count_calls.then(|| r.call_counts()),
        };
        let bytes = lane_wire::encode_update(&update, &lanes.sent);
        lanes.sent = update.views;
        bytes
    }

    /// New lanes for the scenario read for `job`, at time zero.
    fn build(&mut self, run: u64, job: u64, policies: Vec<Policy>, looping: bool) -> Result<(), BuildRefusal> {
        let held = self.held.as_mut().filter(|h| h.job == job).ok_or(BuildRefusal::NotHeld)?;
        let runner = match held.built.take() {
            Some((p, l, runner)) if p == policies && l == looping => runner,
            _ => {
                let looped = looping.then(|| crate::editor::looping(&held.scenario));
                Runner::new(looped.as_ref().unwrap_or(&held.scenario), &policies, &Params::default()).map_err(BuildRefusal::Refused)?
            }
        };
        let declared = runner.classes().len();
        let scenario = held.scenario.clone();
        self.lanes = Some(Running { run, runner, sent: Vec::new(), declared, hover: None, scenario });
        Ok(())
    }

    /// The lanes of build `run`, or the refusal to answer with when the worker runs others (or none).
    fn running(&mut self, run: u64) -> Result<&mut Running, Vec<u8>> {
        self.lanes.as_mut().filter(|l| l.run == run).ok_or_else(|| refusal(run, "the engine worker no longer runs these lanes".into()))
    }
}

/// Why the worker built no lanes.
enum BuildRefusal {
    /// It no longer holds the scenario the build names.
    NotHeld,
    Refused(ScenarioError),
}

impl std::fmt::Display for BuildRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildRefusal::NotHeld => f.write_str("the engine worker no longer holds this scenario"),
            BuildRefusal::Refused(e) => e.fmt(f),
        }
    }
}

/// An update that says the worker has no lanes for build `run`, and why.
fn refusal(run: u64, why: String) -> Vec<u8> {
    let update = Update {
        run,
        error: Some(why),
        clock_ms: 0.0,
        finished: true,
        views: Vec::new(),
        loaded: Vec::new(),
        stepped: None,
        fires: Vec::new(),
        what_if: Vec::new(),
        expectations: None,
        call_counts: None,
    };
    lane_wire::encode_update(&update, &[])
}
