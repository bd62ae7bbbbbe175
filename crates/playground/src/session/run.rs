//! The call-site session's run: the lanes the engine worker runs for the document's scenario,
//! their playback, the views the costly panels read, the selected site, the hovered class and
//! its what-if preview, and the latest hand-fired mutation.
//!
//! Two counters version it: `run_id` the lanes on screen (new lanes are at virtual time zero:
//! the timeline drops its ranges), `worker_runs` the builds handed to the worker (an update
//! for an older build is dropped).

use std::rc::Rc;

use blast_engine::expect::{Cause, Outcome};
use blast_engine::scenario::Scenario;
use blast_engine::Policy;

use crate::playback::{Playback, RunRefusal, RunState, Speed};
use crate::runner::{FireRefusal, LaneView};
use crate::share::LinkView;
use crate::worker::lanes::Lanes;

/// The outcome of the latest hand-fired mutation, shown beside the controls.
#[derive(Clone, Debug, PartialEq)]
pub enum FireOutcome {
    Fired { label: String, lanes: usize },
    Refused(String),
}

pub(super) struct Run {
    pub(super) playback: Playback,
    /// The lanes the engine worker runs, as the page mirrors them (`lanes`).
    pub(super) runner: Lanes,
    /// Why the scenario cannot run (it parses but the engine refuses it).
    pub(super) run_error: Option<RunRefusal>,
    /// Lane views for the costly panels (charts, comparison, why); refreshed at most every
    /// `playback::SLOW_VIEW_INTERVAL_MS` while running, at once when paused or finished.
    pub(super) slow_lanes: Vec<Rc<LaneView>>,
    pub(super) selected_site: Option<String>,
    /// Each expectation's outcome against the lanes, refreshed with `slow_lanes`.
    pub(super) expectations: Rc<Vec<Outcome>>,
    /// The relink a click on a failed expectation asked the why panel to show.
    pub(super) focused_cause: Option<Cause>,
    pub(super) hovered_class: Option<String>,
    pub(super) what_if: Vec<(Policy, Vec<String>)>,
    pub(super) last_fire: Option<FireOutcome>,
    /// Runs repeat the measured op until paused (see `editor::looping`), for firing mutations by hand.
    pub(super) loop_mode: bool,
    /// Versions the lanes on screen: bumps whenever new lanes are built (at virtual time zero:
    /// the timeline's ranges mean nothing on them).
    pub(super) run_id: u64,
    /// Versions the builds of lanes in the worker: their updates carry it.
    pub(super) worker_runs: u64,
    /// A run the reading of a text paused (`request`): it plays on when the last reading ends
    /// without new lanes (an invalid or unchanged text, a refused link), as it would have after
    /// a small text, read at once. New lanes start paused at time zero, like a small text's;
    /// the user's own run control while reading decides instead.
    pub(super) resume_after_read: bool,
    /// The worker refused to run this scenario revision under these policies and loop mode:
    /// a rebuild (Run, Reset) says so again instead of handing it over again.
    pub(super) refused: Option<(u64, Vec<Policy>, bool, RunRefusal)>,
    /// The lanes on screen were built from a scenario handed to the worker for them (`hold`):
    /// if the worker loses them, handing it again would not help.
    pub(super) fresh_hold: bool,
    /// The results CSV waits for the call counts the worker was asked for
    /// (`CallSiteSession::export_results`); new lanes are asked again.
    pub(super) export_asked: bool,
}

impl Run {
    /// No lanes yet, paused at the default speed.
    pub(super) fn new() -> Run {
        Run {
            playback: Playback::new(Speed::Factor(0.1), false),
            runner: Lanes::idle(),
            run_error: None,
            slow_lanes: Vec::new(),
            selected_site: None,
            expectations: Rc::default(),
            focused_cause: None,
            hovered_class: None,
            what_if: Vec::new(),
            last_fire: None,
            loop_mode: false,
            run_id: 0,
            worker_runs: 0,
            resume_after_read: false,
            refused: None,
            fresh_hold: false,
            export_asked: false,
        }
    }

    pub(super) fn run_state(&self) -> RunState {
        let started = self.runner.views().iter().any(|l| l.events_recorded > 0 || l.iterations > 0);
        RunState::of(self.playback.playing, started, self.runner.finished() && !self.runner.is_empty())
    }

    /// What a share link carries of how this scenario is watched: the speed and selected site.
    pub(super) fn link_view(&self) -> LinkView {
        LinkView { speed: Some(self.playback.speed), site: self.selected_site.clone() }
    }

    /// The what-if preview for a hovered class (`None`: none).
    pub(super) fn hover(&mut self, class: Option<String>) {
        self.hovered_class = class;
        self.refresh_what_if();
    }

    /// A model preset takes the screen: the lanes wait behind it paused, without a brushed
    /// range (the timeline starts over for the model).
    pub(super) fn set_aside(&mut self) {
        self.playback.playing = false;
        self.runner.brush(None);
    }

    pub(super) fn record_fire(&mut self, label: String, outcome: Result<usize, FireRefusal>, scenario: &Scenario) {
        self.last_fire = Some(match outcome {
            Ok(lanes) => FireOutcome::Fired { label, lanes },
            Err(why) => FireOutcome::Refused(format!("{label}: {why}")),
        });
        self.after_commands(scenario);
    }

    /// The document's scenario was replaced: the last mutation's note goes, and so do a
    /// selected site and a hovered class it no longer has.
    pub(super) fn scenario_replaced(&mut self, scenario: &Scenario) {
        self.last_fire = None;
        if self.selected_site.as_ref().is_some_and(|s| !scenario.sites.iter().any(|x| &x.name == s)) {
            self.selected_site = None;
        }
        if self.hovered_class.as_ref().is_some_and(|c| !scenario.classes.iter().any(|x| &x.name == c)) {
            self.hovered_class = None;
        }
    }

    /// Put new simulations (or why there are none) on screen, paused at time zero.
    pub(super) fn install(&mut self, runner: Result<Lanes, RunRefusal>, scenario: &Scenario) {
        self.run_id += 1;
        self.playback.stop();
        self.resume_after_read = false;
        self.focused_cause = None;
        match runner {
            Ok(r) => {
                self.runner = r;
                self.run_error = None;
            }
            Err(e) => {
                self.runner = Lanes::idle();
                self.run_error = Some(e);
            }
        }
        self.runner.select(self.selected_site.clone());
        if self.export_asked {
            self.export_asked = self.runner.ask_call_counts();
        }
        self.after_commands(scenario);
    }

    pub(super) fn refresh_what_if(&mut self) {
        self.what_if = self.runner.what_if(self.hovered_class.as_deref());
    }

    /// The costly panels' views: lanes for charts, comparison and why; the expectations.
    pub(super) fn refresh_slow_views(&mut self, scenario: &Scenario) {
        self.slow_lanes = self.runner.views().to_vec();
        self.expectations = Rc::new(self.runner.expectations(scenario));
    }

    pub(super) fn after_commands(&mut self, scenario: &Scenario) {
        self.refresh_slow_views(scenario);
        self.refresh_what_if();
    }
}
