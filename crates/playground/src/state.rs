//! The whole page state and its one reducer.
//!
//! Every change goes through [`AppState::reduce`]: user intents (edit, load, play, fire a
//! mutation), frame ticks from the animation loop, and facts from the browser (a share link
//! or autosave that was read). No browser API is touched here, so the page's behaviour is
//! tested natively; `App` only forwards actions and renders the result.

use std::collections::VecDeque;
use std::rc::Rc;

use blast_engine::expect::{Cause, Outcome};
use blast_engine::model::{Event, Scenario};
use blast_engine::models;
use blast_engine::presets::{self, Preset};
use blast_engine::validate::Location;
use blast_engine::{dsl, Params, Policy, ScenarioError};
use serde::{Deserialize, Serialize};

use crate::charts::{self, XAxis};
use crate::editor::{self, EditOp};
use crate::history::History;
use crate::model_mode::{self, ModelLink, ModelSession};
use crate::offload::{self, Job, Reply, Verdict};
use crate::runner::{LaneView, Runner};
use crate::share::{self, Link, LinkError, Shared};
use crate::storage::Saved;
use crate::timeline::{self, Range};

/// The preset a first visit opens with: the headline result.
pub const DEFAULT_PRESET: &str = "hotLoop_unrelatedMetaClassChurn";
/// How often the charts, comparison table and why panel update while running (wall ms):
/// they are the costly part of a frame and nobody reads them at 60 frames a second.
pub const SLOW_VIEW_INTERVAL_MS: f64 = 120.0;
const MAX_BANNERS: usize = 4;
/// A long pause (tab in the background) must not become one giant virtual-time jump.
pub(crate) const MAX_FRAME_DT_MS: f64 = 100.0;
/// Steps of the guided tour (`components::tour` holds their text).
pub const TOUR_STEPS: usize = 4;

/// A relink's moment, marked on the charts from the why panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub policy: Policy,
    pub t_ms: f64,
    pub site: String,
}

/// The timeline's x axis, zoom window, brushed range and marked relink (`crate::timeline`
/// has their geometry). Ranges are on `axis`; a new run or a new axis starts unzoomed.
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
fn valid(r: Option<Range>) -> Option<Range> {
    r.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo < hi)
}

/// Virtual milliseconds per wall millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Speed {
    Factor(f64),
    /// As fast as the per-frame budget allows.
    Max,
}

pub const SPEEDS: [Speed; 8] = [
    Speed::Factor(0.0001),
    Speed::Factor(0.001),
    Speed::Factor(0.01),
    Speed::Factor(0.1),
    Speed::Factor(1.0),
    Speed::Factor(10.0),
    Speed::Factor(100.0),
    Speed::Max,
];

impl Speed {
    pub fn label(self) -> String {
        match self {
            Speed::Factor(f) => format!("{}× ({} virtual ms per wall second)", crate::format::plain(f), crate::format::plain(f * 1000.0)),
            Speed::Max => "max (as fast as the page allows)".into(),
        }
    }

    pub fn short_label(self) -> String {
        match self {
            Speed::Factor(f) => format!("{}×", crate::format::plain(f)),
            Speed::Max => "max".into(),
        }
    }

    pub(crate) fn virtual_ms(self, wall_ms: f64) -> f64 {
        match self {
            Speed::Factor(f) => f * wall_ms,
            Speed::Max => f64::INFINITY,
        }
    }

    pub fn index(self) -> usize {
        SPEEDS.iter().position(|s| *s == self).unwrap_or(3)
    }

    pub(crate) fn shifted(self, by: isize) -> Speed {
        let i = (self.index() as isize + by).clamp(0, SPEEDS.len() as isize - 1);
        SPEEDS[i as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn next(self) -> Theme {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// Where a run is, for the Run button, the status line and each lane's caption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// At virtual time zero, nothing executed yet.
    Ready,
    Running,
    /// Started (by Run or Step) and stopped part-way.
    Paused,
    Finished,
}

impl RunState {
    pub fn of(playing: bool, started: bool, finished: bool) -> RunState {
        match (finished, playing, started) {
            (true, _, _) => RunState::Finished,
            (_, true, _) => RunState::Running,
            (_, _, true) => RunState::Paused,
            _ => RunState::Ready,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RunState::Ready => "ready",
            RunState::Running => "running",
            RunState::Paused => "paused",
            RunState::Finished => "finished",
        }
    }

    /// What the Run / pause button does from here.
    pub fn button_label(self) -> &'static str {
        match self {
            RunState::Ready => "Run",
            RunState::Running => "Pause",
            RunState::Paused => "Resume",
            RunState::Finished => "Run again",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BannerKind {
    Error,
    Info,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Banner {
    pub id: u64,
    pub kind: BannerKind,
    pub text: String,
}

/// A DSL error placed in the text.
#[derive(Clone, Debug, PartialEq)]
pub struct TextError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl From<ScenarioError> for TextError {
    fn from(e: ScenarioError) -> Self {
        match e.location {
            Some(Location::Text { line, col }) => TextError { line, col, message: e.message },
            Some(Location::Path(p)) => TextError { line: 1, col: 1, message: format!("{p}: {}", e.message) },
            None => TextError { line: 1, col: 1, message: e.message },
        }
    }
}

/// The outcome of the latest hand-fired mutation, shown beside the controls.
#[derive(Clone, Debug, PartialEq)]
pub enum FireOutcome {
    Fired { label: String, lanes: usize },
    Refused(String),
}

/// What the browser found at start-up.
#[derive(Clone, Debug, Default)]
pub struct Boot {
    /// The autosaved session, or why it could not be read (it has been set aside).
    pub saved: Option<Result<Saved, String>>,
    /// The URL fragment's scenario or model, or why it could not be used.
    pub shared: Option<Result<Link, LinkError>>,
    /// The last visit died opening a link or the autosave (see `browser::boot`): why this
    /// visit did not open it again.
    pub notice: Option<String>,
    /// The guided tour was dismissed (or finished) on an earlier visit.
    pub tour_done: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    LoadPreset {
        id: String,
        run: bool,
    },
    /// A scenario from a share link or an imported file.
    LoadScenario {
        shared: Shared,
        origin: String,
    },
    /// A model preset with knobs and variants, from a share link.
    LoadModelLink {
        link: ModelLink,
        origin: String,
    },
    /// A model knob as typed (model mode).
    SetKnob {
        knob: String,
        value: String,
    },
    ToggleVariant(String),
    /// The `index`-th policy, or the model's variant in model mode (the `1`…`5` keys).
    ToggleLane(usize),
    EditText(String),
    /// Throw away text that does not parse: show the model's text again.
    RevertText,
    Edit(EditOp),
    TogglePolicy(Policy),
    SetSpeed(Speed),
    SpeedUp,
    SpeedDown,
    Play,
    Pause,
    TogglePlay,
    Step,
    Reset,
    /// Start of an animation frame: move the virtual clock by `wall_dt_ms` at the current speed.
    FrameStart {
        wall_dt_ms: f64,
    },
    /// Up to `max_steps` engine steps (the loop repeats this until its time budget is spent).
    Work {
        max_steps: usize,
    },
    FrameEnd {
        wall_ms: f64,
    },
    Fire(Event),
    /// Enter (`use`) or leave a category by hand in every running lane.
    FireCategory {
        name: String,
        enter: bool,
    },
    SelectSite(Option<String>),
    /// Add these policies' lanes (the expectations panel: runs an expectation reads).
    AddPolicies(Vec<Policy>),
    /// Show the relink behind a failed expectation in the why panel.
    ShowCause(Cause),
    HoverClass(Option<String>),
    CycleTheme,
    ToggleHelp,
    /// "Loop until stopped": re-run with the measured op repeated (see `looping`).
    ToggleLoop,
    /// Replace the scenario with `editor::BLANK` (an edit: Undo brings the old one back).
    NewScenario,
    /// Back to the scenario text before the latest form or text edit (Ctrl+Z).
    Undo,
    /// Ctrl+Shift+Z (or Ctrl+Y).
    Redo,
    /// Escape: close the cheat sheet and drop the what-if hover.
    CloseOverlays,
    ShowError(String),
    ShowInfo(String),
    DismissBanner(u64),
    /// The engine worker (or the page standing in for it) answered a job (`offload`).
    Read(Reply),
    /// The charts' x axis (a new axis starts unzoomed and unbrushed).
    SetAxis(XAxis),
    /// Zoom or pan the timeline: the window shown, `None` for the whole run.
    SetView(Option<Range>),
    /// Select a range of the timeline, or clear it.
    Brush(Option<Range>),
    /// Mark a relink's moment on the charts (a click in the why panel); selects its site.
    MarkRelink(Mark),
    /// The page is mounted: a first visit's run starts (`AppState::autoplay`).
    Autoplay,
    TourNext,
    TourBack,
    /// Skip or finish the tour (the page remembers it: `browser::remember_tour_done`).
    TourClose,
}

/// The scenario as "loop until stopped" runs it: the measured op repeated as often as the
/// engine's bounds allow (`validate::MAX_OPS`, `sim::MAX_WORK`), so a run lasts long enough
/// to fire mutations into by hand. Unchanged when it cannot be stretched.
pub fn looping(scenario: &Scenario) -> Scenario {
    let mut s = scenario.clone();
    let mut ops = blast_engine::validate::MAX_OPS.saturating_sub(s.measure.warmup_ops);
    while ops > scenario.measure.ops {
        s.measure.ops = ops;
        if blast_engine::sim::estimate_work(&s) <= blast_engine::sim::MAX_WORK {
            return s;
        }
        ops /= 2;
    }
    scenario.clone()
}

/// Whether the costly panels take new views at the end of this frame: at most every
/// `SLOW_VIEW_INTERVAL_MS` while playing, at once when stopped. Notes the time when they do.
pub(crate) fn slow_views_due(playing: bool, wall_ms: f64, last_ms: &mut f64) -> bool {
    let due = !playing || wall_ms - *last_ms >= SLOW_VIEW_INTERVAL_MS;
    if due {
        *last_ms = wall_ms;
    }
    due
}

impl Action {
    /// The action that opens what a link carries.
    pub fn open_link(link: Link, origin: &str) -> Action {
        match link {
            Link::Scenario(shared) => Action::LoadScenario { shared, origin: origin.into() },
            Link::Model(link) => Action::LoadModelLink { link, origin: origin.into() },
        }
    }
}

/// What the autosave and the share link depend on, without the text itself.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveKey {
    text_rev: u64,
    policies: Vec<Policy>,
    speed: Speed,
    theme: Theme,
    preset: Option<&'static str>,
    model: Option<ModelLink>,
}

pub struct AppState {
    pub scenario: Scenario,
    pub text: String,
    pub text_error: Option<TextError>,
    /// The preset the scenario is (for its published numbers); `None` once edited.
    pub preset: Option<&'static Preset>,
    pub policies: Vec<Policy>,
    pub params: Params,
    pub speed: Speed,
    pub playing: bool,
    pub runner: Runner,
    /// Why the scenario cannot run (it parses but the engine refuses it).
    pub run_error: Option<String>,
    /// Lane views for the costly panels (charts, comparison, why); refreshed at most every
    /// `SLOW_VIEW_INTERVAL_MS` while running, at once when paused or finished.
    pub slow_lanes: Vec<Rc<LaneView>>,
    last_slow_ms: f64,
    pub selected_site: Option<String>,
    /// Each expectation's outcome against the lanes, refreshed with `slow_lanes`.
    pub expectations: Rc<Vec<Outcome>>,
    /// The relink a click on a failed expectation asked the why panel to show.
    pub focused_cause: Option<Cause>,
    pub hovered_class: Option<String>,
    pub what_if: Vec<(Policy, Vec<String>)>,
    pub editor_error: Option<String>,
    pub last_fire: Option<FireOutcome>,
    /// Undo and redo of form and text edits; a load starts afresh.
    pub history: History,
    /// Runs repeat the measured op until paused (see `looping`), for firing mutations by hand.
    pub loop_mode: bool,
    /// What the latest Step did, numbered from the last reset; cleared by Run and rebuilds.
    pub step_note: Option<(u32, String)>,
    pub theme: Theme,
    pub help_open: bool,
    pub banners: Vec<Banner>,
    next_banner: u64,
    /// Bumps whenever the scenario changes.
    pub scenario_rev: u64,
    /// Bumps whenever the text changes (what autosave and share links carry is derived from
    /// it: comparing a key is cheap where copying a 3 MB text per frame is not).
    pub text_rev: u64,
    /// Bumps on every model edit attempt, accepted or refused.
    pub edit_epoch: u64,
    /// The last `Work` ran out of steps before the lanes reached the clock.
    behind: bool,
    /// Model mode: a model preset replaces the call-site scenario on screen (which is kept).
    pub model: Option<ModelSession>,
    /// The expectations' text lines as the engine worker found them, for the text revision it
    /// read (`app.rs` places them; a small text is placed on the page).
    pub read_expect_lines: Option<(u64, Rc<Vec<Option<usize>>>)>,
    /// Texts being read off the main thread, oldest first (`offload`).
    reading: VecDeque<Reading>,
    /// Jobs for the engine worker, not yet handed to it (`take_jobs`).
    outbox: Vec<Job>,
    next_job: u64,
    pub timeline: TimelineState,
    /// The guided tour's step on screen, if it is showing.
    pub tour: Option<usize>,
    /// A first visit: `Action::Autoplay` runs the headline comparison once the page is mounted
    /// (engine frames during the staged mount would make its tasks long). Anything that starts
    /// a new run first cancels it.
    pub autoplay: bool,
}

/// A text handed to the engine worker, and what its answer is for.
struct Reading {
    job: u64,
    /// About how many sites it declares (`offload::site_count_hint`), for the loading note.
    sites: usize,
    /// The policies and loop mode its run check was made for.
    policies: Vec<Policy>,
    looping: bool,
    purpose: Purpose,
}

enum Purpose {
    /// Typed, pasted, undone or restored: the text is already on screen; the model follows it
    /// if it reads.
    Edit,
    /// A share link or a file: it replaces the scenario only if it reads and runs.
    Open { text: String, policies: Vec<Policy>, origin: String },
}

impl AppState {
    /// The page as a first visit sees it.
    pub fn new() -> AppState {
        let preset = presets::find(DEFAULT_PRESET).or_else(|| presets::all().first());
        let (scenario, text) = match preset.map(|p| (dsl::parse(p.text), p.text)) {
            Some((Ok(s), text)) => (s, text.to_string()),
            _ => (Scenario::default(), String::new()),
        };
        let mut state = AppState {
            scenario,
            text,
            text_error: None,
            preset,
            policies: vec![Policy::Global, Policy::Exact],
            params: Params::default(),
            speed: Speed::Factor(0.1),
            playing: false,
            runner: Runner::idle(),
            run_error: None,
            slow_lanes: Vec::new(),
            last_slow_ms: f64::NEG_INFINITY,
            selected_site: None,
            expectations: Rc::default(),
            focused_cause: None,
            hovered_class: None,
            what_if: Vec::new(),
            editor_error: None,
            last_fire: None,
            history: History::default(),
            loop_mode: false,
            step_note: None,
            theme: Theme::Auto,
            help_open: false,
            banners: Vec::new(),
            next_banner: 1,
            scenario_rev: 0,
            text_rev: 0,
            edit_epoch: 0,
            behind: false,
            model: None,
            read_expect_lines: None,
            reading: VecDeque::new(),
            outbox: Vec::new(),
            next_job: 1,
            timeline: TimelineState::default(),
            tour: None,
            autoplay: false,
        };
        state.rebuild();
        state
    }

    /// Start-up: a share link wins over the autosave; anything unreadable is reported. A first
    /// visit (nothing saved, no link) runs the headline comparison once mounted, with the tour.
    pub fn boot(boot: Boot) -> AppState {
        let mut state = AppState::new();
        state.tour = (!boot.tour_done).then_some(0);
        state.autoplay = boot.saved.is_none() && boot.shared.is_none() && boot.notice.is_none();
        match boot.saved {
            Some(Ok(saved)) => state.restore(saved),
            Some(Err(why)) => {
                state.banner(BannerKind::Error, format!("Your autosaved session could not be read ({why}). It was set aside; the page started fresh."))
            }
            None => {}
        }
        if let Some(notice) = boot.notice {
            state.banner(BannerKind::Error, notice);
        }
        match boot.shared {
            Some(Ok(link)) => state.reduce(Action::open_link(link, "the link")),
            Some(Err(refusal)) => state.banner(BannerKind::Error, refusal.to_string()),
            None => {}
        }
        state
    }

    fn restore(&mut self, saved: Saved) {
        self.speed = if SPEEDS.contains(&saved.speed) { saved.speed } else { self.speed };
        self.theme = saved.theme;
        let policies: Vec<Policy> = Policy::ALL.iter().copied().filter(|p| saved.policies.contains(p)).collect();
        if !policies.is_empty() {
            self.policies = policies;
        }
        match read_here(&saved.scenario_text) {
            // A large autosave is read by the engine worker: the default model until it answers.
            None => self.request(&saved.scenario_text, Purpose::Edit),
            Some(Ok(s)) => {
                self.preset = saved.preset.as_deref().and_then(presets::find).filter(|p| dsl::parse(p.text).ok().as_ref() == Some(&s));
                self.scenario = s;
                self.scenario_rev += 1;
                self.text_error = None;
            }
            // Keep what the user typed; the model stays on the default until the text parses.
            Some(Err(e)) => self.text_error = Some(e.into()),
        }
        self.text = saved.scenario_text;
        self.text_rev += 1;
        self.rebuild();
        if let Some(link) = saved.model {
            match model_mode::resolve(&link) {
                Ok(resolved) => self.model = Some(ModelSession::open(resolved, link.knobs, self.speed)),
                Err(why) => self.banner(BannerKind::Error, format!("The autosaved model could not be reopened ({why}); the call-site scenario is shown.")),
            }
        }
    }

    /// The text a share link or export should carry: the typed text when it is valid.
    pub fn shareable_text(&self) -> String {
        if self.text_error.is_none() {
            self.text.clone()
        } else {
            dsl::print(&self.scenario)
        }
    }

    /// The URL fragment (without `#`) a share link for what is on screen carries: the model
    /// session in model mode, else the scenario text and the selected policies.
    pub fn share_fragment(&self) -> String {
        match &self.model {
            Some(m) => share::encode_model(&m.link()),
            None => share::encode(&self.shareable_text(), &self.policies),
        }
    }

    /// Changes whenever `saved()` or `share_fragment()` would (cheap to compare per frame).
    pub fn save_key(&self) -> SaveKey {
        SaveKey {
            text_rev: self.text_rev,
            policies: self.policies.clone(),
            speed: self.speed,
            theme: self.theme,
            preset: self.preset.map(|p| p.id),
            model: self.model.as_ref().map(ModelSession::link),
        }
    }

    pub fn saved(&self) -> Saved {
        let model = self.model.as_ref().map(ModelSession::link);
        Saved { model, ..Saved::new(self.text.clone(), self.policies.clone(), self.speed, self.theme, self.preset.map(|p| p.id.to_string())) }
    }

    pub fn is_playing(&self) -> bool {
        self.model.as_ref().map_or(self.playing, |m| m.playing)
    }

    /// The speed of the mode on screen.
    pub fn current_speed(&self) -> Speed {
        self.model.as_ref().map_or(self.speed, |m| m.speed)
    }

    /// The call-site run's state (model mode has its own, `ModelSession::run_state`).
    pub fn run_state(&self) -> RunState {
        let started = self.runner.views().iter().any(|l| l.events_recorded > 0 || l.iterations > 0);
        RunState::of(self.playing, started, self.runner.finished() && !self.runner.is_empty())
    }

    pub fn total_relinks(&self) -> u64 {
        self.runner.total_relinks()
    }

    /// More engine work is due this frame (the frame loop keeps going while its budget lasts).
    pub fn is_behind(&self) -> bool {
        self.model.as_ref().map_or(self.behind, ModelSession::is_behind)
    }

    pub fn reduce(&mut self, action: Action) {
        if let Some(m) = self.model.as_mut() {
            if m.control(&action) {
                return;
            }
        }
        match action {
            Action::LoadPreset { id, run } => match presets::find(&id).map(|p| (p, dsl::parse(p.text))) {
                Some((p, Ok(s))) => {
                    self.model = None;
                    self.history.clear();
                    self.set_scenario(s, p.text.to_string(), Some(p));
                    if run {
                        self.play();
                    }
                }
                Some((_, Err(e))) => self.banner(BannerKind::Error, format!("Preset {id} does not parse: {e}")),
                None if models::find(&id).is_none() => self.banner(BannerKind::Error, format!("There is no preset `{id}`.")),
                None => {
                    let link = ModelLink { preset: id, knobs: Vec::new(), variants: Vec::new() };
                    if let Some(m) = self.open_model(&link, "The model preset could not be opened:") {
                        if run {
                            m.control(&Action::Play);
                        }
                    }
                }
            },
            Action::LoadModelLink { link, origin } => {
                if self.open_model(&link, &format!("The model from {origin} was not loaded:")).is_some() {
                    self.banner(BannerKind::Info, format!("Loaded model preset “{}” from {origin}.", link.preset));
                }
            }
            Action::SetKnob { knob, value } => {
                if let Some(m) = self.model.as_mut() {
                    m.set_knob(knob, value);
                }
            }
            Action::ToggleVariant(name) => {
                if let Some(Err(why)) = self.model.as_mut().map(|m| m.toggle_variant(&name)) {
                    self.banner(BannerKind::Info, why);
                }
            }
            Action::ToggleLane(index) => match self.model.as_ref().map(|m| m.variant_at(index)) {
                Some(Some(variant)) => self.reduce(Action::ToggleVariant(variant.to_string())),
                Some(None) => {}
                None => {
                    if let Some(&policy) = Policy::ALL.get(index) {
                        self.reduce(Action::TogglePolicy(policy));
                    }
                }
            },
            Action::LoadScenario { shared, origin } => match shared.scenario {
                Some(scenario) => self.open(scenario, shared.text, shared.policies, &origin),
                None => {
                    let text = shared.text.clone();
                    self.request(&text, Purpose::Open { text: shared.text, policies: shared.policies, origin });
                }
            },
            Action::EditText(text) => {
                self.history.record(&self.text, &text, true);
                self.set_text(text);
            }
            Action::NewScenario => {
                let text = editor::BLANK.to_string();
                self.history.record(&self.text, &text, false);
                self.set_text(text);
            }
            Action::Undo => {
                if let Some(text) = self.history.undo(&self.text) {
                    self.set_text(text);
                }
            }
            Action::Redo => {
                if let Some(text) = self.history.redo(&self.text) {
                    self.set_text(text);
                }
            }
            Action::RevertText => {
                let text = dsl::print(&self.scenario);
                self.history.record(&self.text, &text, false);
                self.text = text;
                self.text_rev += 1;
                self.text_error = None;
            }
            Action::Edit(op) => {
                let before = self.text.clone();
                self.edit(&op);
                self.history.record(&before, &self.text, false);
            }
            Action::TogglePolicy(p) => {
                if self.policies.contains(&p) {
                    if self.policies.len() == 1 {
                        self.banner(BannerKind::Info, "At least one policy must stay selected.".into());
                        return;
                    }
                    self.policies.retain(|x| *x != p);
                } else {
                    self.policies.push(p);
                    self.policies = Policy::ALL.iter().copied().filter(|x| self.policies.contains(x)).collect();
                }
                self.rebuild();
            }
            Action::SetSpeed(s) => self.speed = s,
            Action::SpeedUp => self.speed = self.speed.shifted(1),
            Action::SpeedDown => self.speed = self.speed.shifted(-1),
            Action::Play => self.play(),
            Action::Pause => self.pause(),
            Action::TogglePlay => {
                if self.playing {
                    self.pause()
                } else {
                    self.play()
                }
            }
            Action::Step => {
                self.playing = false;
                if self.runner.finished() {
                    self.rebuild();
                }
                let n = self.step_note.as_ref().map_or(1, |(n, _)| n + 1);
                self.step_note = self.runner.step().map(|note| (n, note));
                self.after_commands();
            }
            Action::Reset => {
                self.rebuild();
                self.last_fire = None;
            }
            Action::FrameStart { wall_dt_ms } => {
                if self.playing {
                    self.runner.advance_clock(self.speed.virtual_ms(wall_dt_ms.clamp(0.0, MAX_FRAME_DT_MS)));
                }
            }
            Action::Work { max_steps } => self.behind = self.playing && !self.runner.work(max_steps),
            Action::FrameEnd { wall_ms } => {
                self.runner.settle();
                self.runner.refresh();
                if self.runner.finished() {
                    self.playing = false;
                }
                if slow_views_due(self.playing, wall_ms, &mut self.last_slow_ms) {
                    self.refresh_slow_views();
                }
                self.refresh_what_if();
            }
            Action::Fire(_) | Action::FireCategory { .. } if self.model.is_some() => {
                self.banner(BannerKind::Info, "Hand-fired mutations go into call-site scenarios; a model preset is on screen.".into());
            }
            Action::Fire(event) => {
                let label = dsl::event_text(&event);
                let outcome = self.runner.inject(&event);
                self.record_fire(label, outcome);
            }
            Action::FireCategory { name, enter } => {
                let label = if enter { format!("use {name} (enter)") } else { format!("leave {name}") };
                let outcome = self.runner.inject_category(&name, enter);
                self.record_fire(label, outcome);
            }
            Action::SelectSite(site) => {
                self.selected_site = site.filter(|s| self.scenario.sites.iter().any(|x| &x.name == s));
                self.runner.select(self.selected_site.clone());
                self.after_commands();
            }
            Action::AddPolicies(add) => {
                let policies: Vec<Policy> = Policy::ALL.iter().copied().filter(|p| self.policies.contains(p) || add.contains(p)).collect();
                if policies != self.policies {
                    self.policies = policies;
                    self.rebuild();
                }
            }
            Action::ShowCause(cause) => {
                self.reduce(Action::SelectSite(Some(cause.site.clone())));
                self.focused_cause = Some(cause);
            }
            Action::HoverClass(class) => {
                self.hovered_class = class;
                self.refresh_what_if();
            }
            Action::CycleTheme => self.theme = self.theme.next(),
            Action::ToggleHelp => self.help_open = !self.help_open,
            Action::ToggleLoop => {
                self.loop_mode = !self.loop_mode;
                let was_playing = self.playing;
                self.rebuild();
                self.last_fire = None;
                if was_playing {
                    self.play();
                }
            }
            Action::CloseOverlays => {
                self.help_open = false;
                self.hovered_class = None;
                self.what_if.clear();
            }
            Action::ShowError(text) => self.banner(BannerKind::Error, text),
            Action::ShowInfo(text) => self.banner(BannerKind::Info, text),
            Action::DismissBanner(id) => self.banners.retain(|b| b.id != id),
            Action::Read(reply) => self.read(reply),
            Action::SetAxis(axis) => {
                if axis != self.timeline.axis {
                    self.timeline = TimelineState { axis, mark: self.timeline.mark.take(), ..TimelineState::default() };
                    self.apply_brush();
                }
            }
            Action::SetView(view) => self.timeline.view = valid(view),
            Action::Brush(range) => {
                self.timeline.brush = valid(range);
                self.apply_brush();
            }
            Action::MarkRelink(mark) => {
                let axis = self.timeline.axis;
                if let Some(lane) = self.slow_lanes.iter().find(|l| l.policy == mark.policy) {
                    let x = timeline::x_of_time(lane, axis, mark.t_ms);
                    self.timeline.view = timeline::reveal(self.timeline.view, charts::x_max(&self.slow_lanes, axis), x);
                }
                self.reduce(Action::SelectSite(Some(mark.site.clone())));
                self.timeline.mark = Some(mark);
            }
            Action::Autoplay => {
                if std::mem::take(&mut self.autoplay) {
                    self.play();
                }
            }
            Action::TourNext => self.tour = self.tour.map(|s| s + 1).filter(|&s| s < TOUR_STEPS),
            Action::TourBack => self.tour = self.tour.map(|s| s.saturating_sub(1)),
            Action::TourClose => self.tour = None,
        }
    }

    /// Replace the scenario with one opened from a link, a file or a gallery.
    fn open(&mut self, scenario: Scenario, text: String, policies: Vec<Policy>, origin: &str) {
        self.model = None;
        let preset = presets::find(&scenario.name).filter(|p| dsl::parse(p.text).ok().as_ref() == Some(&scenario));
        if !policies.is_empty() {
            self.policies = policies;
        }
        let name = if scenario.name.is_empty() { "an unnamed scenario".to_string() } else { format!("“{}”", scenario.name) };
        self.history.clear();
        self.set_scenario(scenario, text, preset);
        self.banner(BannerKind::Info, format!("Loaded {name} from {origin}."));
    }

    /// Hand `text` to the engine worker (`take_jobs`); the answer comes back as `Action::Read`.
    fn request(&mut self, text: &str, purpose: Purpose) {
        let id = self.next_job;
        self.next_job += 1;
        // The run check is made for the policies the scenario will run under.
        let policies = match &purpose {
            Purpose::Open { policies, .. } if !policies.is_empty() => policies.clone(),
            _ => self.policies.clone(),
        };
        self.outbox.push(Job { id, text: text.to_string(), policies: policies.clone(), looping: self.loop_mode });
        self.reading.push_back(Reading { job: id, sites: offload::site_count_hint(text), policies, looping: self.loop_mode, purpose });
    }

    /// The jobs to hand to the engine worker now (the page shell posts them after each render).
    pub fn take_jobs(&mut self) -> Vec<Job> {
        std::mem::take(&mut self.outbox)
    }

    /// About how many sites the text being read declares, while the engine worker reads one.
    pub fn loading_sites(&self) -> Option<usize> {
        self.reading.back().map(|r| r.sites)
    }

    /// An answer from the engine worker. Answers come in the order the jobs were posted; one
    /// whose job is no longer awaited (a later edit replaced its text) is dropped.
    fn read(&mut self, reply: Reply) {
        let Some(at) = self.reading.iter().position(|r| r.job == reply.id) else { return };
        let reading = self.reading.remove(at).expect("present");
        // Jobs posted before this one have been answered (or were lost with a stopped worker).
        self.reading.drain(..at);
        let checked_as_now = reading.policies == self.policies && reading.looping == self.loop_mode;
        match (reading.purpose, reply.verdict) {
            (Purpose::Edit, Verdict::Read { scenario, run_error, expect_lines }) => {
                self.read_expect_lines = Some((self.text_rev, Rc::new(expect_lines)));
                self.text_error = None;
                if *scenario != self.scenario {
                    self.preset = self.preset.filter(|p| dsl::parse(p.text).ok().as_ref() == Some(&*scenario));
                    self.scenario = *scenario;
                    self.scenario_rev += 1;
                    match run_error.filter(|_| checked_as_now) {
                        // Refused by the worker's run check: no second check here.
                        Some(why) => self.install(Err(why)),
                        None => self.rebuild(),
                    }
                }
                self.edit_epoch += 1;
            }
            (Purpose::Edit, Verdict::Invalid { error, .. }) => {
                self.text_error = Some(error);
                self.edit_epoch += 1;
            }
            (Purpose::Edit, Verdict::Failed(why)) => {
                self.text_error = Some(TextError { line: 1, col: 1, message: why });
                self.edit_epoch += 1;
            }
            (Purpose::Open { text, policies, origin }, verdict) => {
                let refusal = match verdict {
                    Verdict::Read { scenario, run_error: None, expect_lines } => {
                        self.open(*scenario, text, policies, &origin);
                        self.read_expect_lines = Some((self.text_rev, Rc::new(expect_lines)));
                        return;
                    }
                    Verdict::Read { run_error: Some(why), .. } => format!("it cannot run: {why}"),
                    Verdict::Invalid { message, .. } => format!("it does not parse: {message}"),
                    Verdict::Failed(why) => why,
                };
                self.banner(BannerKind::Error, format!("The scenario from {origin} was not loaded: {refusal}"));
            }
        }
    }

    /// Hand the brushed range to the runner and show its relinks at once (paused or not).
    fn apply_brush(&mut self) {
        self.runner.brush(self.timeline.brush.map(|r| (self.timeline.axis, r)));
        self.after_commands();
    }

    /// Text typed (or restored by undo): valid text updates the model, invalid text is kept
    /// with its error while the model stays on the last valid version.
    fn set_text(&mut self, text: String) {
        // This text replaces any edit still being read.
        self.reading.retain(|r| !matches!(r.purpose, Purpose::Edit));
        match read_here(&text) {
            None => {
                self.text_error = None;
                self.request(&text, Purpose::Edit);
            }
            Some(Ok(s)) => {
                self.text_error = None;
                if s != self.scenario {
                    self.preset = self.preset.filter(|p| dsl::parse(p.text).ok().as_ref() == Some(&s));
                    self.scenario = s;
                    self.scenario_rev += 1;
                    self.rebuild();
                }
            }
            Some(Err(e)) => self.text_error = Some(e.into()),
        }
        self.text = text;
        self.text_rev += 1;
        // The form shows the model again (and drops a refused edit's message).
        self.editor_error = None;
        self.edit_epoch += 1;
    }

    fn record_fire(&mut self, label: String, outcome: Result<usize, String>) {
        self.last_fire = Some(match outcome {
            Ok(lanes) => FireOutcome::Fired { label, lanes },
            Err(why) => FireOutcome::Refused(format!("{label}: {why}")),
        });
        self.after_commands();
    }

    /// Switch to model mode for `link`; on failure a banner starting with `refusal` says why.
    fn open_model(&mut self, link: &ModelLink, refusal: &str) -> Option<&mut ModelSession> {
        match model_mode::resolve(link) {
            Ok(resolved) => {
                self.playing = false;
                self.timeline = TimelineState { axis: self.timeline.axis, ..TimelineState::default() };
                self.runner.brush(None);
                let speed = self.current_speed();
                Some(self.model.insert(ModelSession::open(resolved, link.knobs.clone(), speed)))
            }
            Err(why) => {
                self.banner(BannerKind::Error, format!("{refusal} {why}"));
                None
            }
        }
    }

    fn edit(&mut self, op: &EditOp) {
        self.edit_epoch += 1;
        if let Some(e) = &self.text_error {
            self.editor_error = Some(format!(
                "The text has an error at {}:{}. Fix it, or press “Revert text”, before editing the model (the model shows the last valid version).",
                e.line, e.col
            ));
            return;
        }
        match editor::apply(&self.scenario, op) {
            Ok(s) => {
                let text = dsl::print(&s);
                self.editor_error = None;
                self.set_scenario(s, text, None);
            }
            Err(why) => self.editor_error = Some(why.to_string()),
        }
    }

    fn set_scenario(&mut self, scenario: Scenario, text: String, preset: Option<&'static Preset>) {
        self.scenario = scenario;
        self.scenario_rev += 1;
        self.text = text;
        self.text_rev += 1;
        self.text_error = None;
        self.editor_error = None;
        self.preset = preset;
        self.last_fire = None;
        if self.selected_site.as_ref().is_some_and(|s| !self.scenario.sites.iter().any(|x| &x.name == s)) {
            self.selected_site = None;
        }
        if self.hovered_class.as_ref().is_some_and(|c| !self.scenario.classes.iter().any(|x| &x.name == c)) {
            self.hovered_class = None;
        }
        self.rebuild();
    }

    /// New simulations for the current scenario and policies, at virtual time zero, paused.
    fn rebuild(&mut self) {
        let looped = self.loop_mode.then(|| looping(&self.scenario));
        let runner = Runner::new(looped.as_ref().unwrap_or(&self.scenario), &self.policies, &self.params);
        self.install(runner.map_err(|e| e.to_string()));
    }

    /// Put the new simulations (or why there are none) on screen, paused at time zero.
    fn install(&mut self, runner: Result<Runner, String>) {
        self.playing = false;
        self.step_note = None;
        self.focused_cause = None;
        self.autoplay = false;
        // A new run: the old one's times mean nothing on it (the new runner has no brush).
        self.timeline = TimelineState { axis: self.timeline.axis, ..TimelineState::default() };
        match runner {
            Ok(r) => {
                self.runner = r;
                self.run_error = None;
            }
            Err(e) => {
                self.runner = Runner::idle();
                self.run_error = Some(e);
            }
        }
        self.runner.select(self.selected_site.clone());
        self.after_commands();
    }

    fn play(&mut self) {
        if self.runner.finished() {
            self.rebuild();
        }
        if let Some(e) = &self.run_error {
            let text = format!("This scenario cannot run: {e}");
            self.banner(BannerKind::Error, text);
            return;
        }
        self.playing = true;
        self.step_note = None;
    }

    fn pause(&mut self) {
        self.playing = false;
        self.refresh_slow_views();
    }

    /// After anything that changed the simulations outside the frame loop.
    fn after_commands(&mut self) {
        self.runner.refresh();
        self.refresh_slow_views();
        self.refresh_what_if();
    }

    /// The costly panels' views: lanes for charts, comparison and why; the expectations.
    fn refresh_slow_views(&mut self) {
        self.slow_lanes = self.runner.views().to_vec();
        self.expectations = Rc::new(self.runner.expectations(&self.scenario));
    }

    fn refresh_what_if(&mut self) {
        self.what_if = match &self.hovered_class {
            Some(c) => self.runner.what_if(c),
            None => Vec::new(),
        };
    }

    /// Errors stay until dismissed (up to `MAX_BANNERS`); a notice replaces the previous
    /// notice, so three imports leave one "Loaded …" line, not three.
    fn banner(&mut self, kind: BannerKind, text: String) {
        if self.banners.iter().any(|b| b.text == text) {
            return;
        }
        if kind == BannerKind::Info {
            self.banners.retain(|b| b.kind != BannerKind::Info);
        }
        self.banners.push(Banner { id: self.next_banner, kind, text });
        self.next_banner += 1;
        if self.banners.len() > MAX_BANNERS {
            self.banners.remove(0);
        }
    }
}

/// The text read here, at once, if it is small enough (`offload::OFFLOAD_BYTES`); `None`
/// when the engine worker should read it.
fn read_here(text: &str) -> Option<Result<Scenario, ScenarioError>> {
    (text.len() < offload::OFFLOAD_BYTES).then(|| dsl::parse(text))
}

impl Default for AppState {
    fn default() -> Self {
        AppState::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::EditOp;
    use crate::share::{LinkKind, LinkProblem};
    use blast_engine::model::MetaKind;

    fn run_to_end(s: &mut AppState) {
        s.reduce(Action::SetSpeed(Speed::Max));
        s.reduce(Action::Play);
        for frame in 0..10_000 {
            s.reduce(Action::FrameStart { wall_dt_ms: 16.0 });
            s.reduce(Action::Work { max_steps: 5000 });
            s.reduce(Action::FrameEnd { wall_ms: frame as f64 * 16.0 });
            if !s.playing {
                return;
            }
        }
        panic!("did not finish");
    }

    fn shared(text: &str) -> Shared {
        match share::decode(&format!("#{}", share::encode(text, &[]))) {
            Ok(Some(Link::Scenario(shared))) => shared,
            other => panic!("not a scenario link: {other:?}"),
        }
    }

    fn run_model_to_end(s: &mut AppState) {
        for frame in 0..10_000 {
            s.reduce(Action::FrameStart { wall_dt_ms: 16.0 });
            loop {
                s.reduce(Action::Work { max_steps: 64 });
                if !s.is_behind() {
                    break;
                }
            }
            s.reduce(Action::FrameEnd { wall_ms: frame as f64 * 16.0 });
            if !s.is_playing() {
                return;
            }
        }
        panic!("the replay did not finish");
    }

    /// Stand in for the engine worker: answer every job handed out, in order.
    fn answer_jobs(s: &mut AppState) -> usize {
        let jobs = s.take_jobs();
        for job in &jobs {
            s.reduce(Action::Read(offload::decode_reply(&offload::answer(&offload::encode_job(job))).expect("a reply")));
        }
        jobs.len()
    }

    /// `sites` sites over `classes` classes, all called in one loop: a text the page hands to
    /// the engine worker.
    fn world(classes: usize, sites: usize) -> String {
        let mut t = String::from("measure warmup 0 ops 1\n");
        for i in 0..classes {
            t += &format!("class K{i} {{ m }}\n");
        }
        for i in 0..sites {
            t += &format!("site s{i} = K{}.m\n", i % classes);
        }
        let calls: Vec<String> = (0..sites).map(|i| format!("call s{i}")).collect();
        t + &format!("op {{ loop 10 {{ {} }} }}\n", calls.join(" "))
    }

    #[test]
    fn a_large_paste_is_read_off_the_main_thread_and_then_runs() {
        let mut s = AppState::new();
        let text = world(50, 1000);
        assert!(text.len() >= offload::OFFLOAD_BYTES);
        s.reduce(Action::EditText(text.clone()));
        assert_eq!((s.text.as_str(), s.loading_sites()), (text.as_str(), Some(1000)), "on screen at once, with a loading note");
        assert_eq!(s.scenario.name, DEFAULT_PRESET, "the model waits for the worker");
        assert_eq!(answer_jobs(&mut s), 1);
        assert_eq!((s.loading_sites(), s.scenario.sites.len(), s.runner.views().len()), (None, 1000, 2));
        assert!(s.text_error.is_none() && s.run_error.is_none());
        s.reduce(Action::Undo);
        assert_eq!(answer_jobs(&mut s), 0, "a small text is read here, at once");
        assert_eq!(s.scenario.name, DEFAULT_PRESET);
    }

    #[test]
    fn a_large_invalid_or_unrunnable_paste_is_reported_by_the_worker() {
        let mut s = AppState::new();
        let broken = world(50, 1000).replace("site s7 = K7.m", "site s7 = Nowhere.m");
        s.reduce(Action::EditText(broken));
        answer_jobs(&mut s);
        let e = s.text_error.clone().expect("located error");
        assert!(e.line > 50 && e.message.contains("Nowhere"), "{e:?}");
        assert_eq!(s.scenario.name, DEFAULT_PRESET);
        let hostile = world(50, 1000).replace("op { loop 10 {", "op { loop 1000000000000 { every 1 { write K1.x }");
        s.reduce(Action::EditText(hostile));
        answer_jobs(&mut s);
        assert!(s.run_error.as_deref().is_some_and(|e| e.contains("work units")), "{:?}", s.run_error);
        assert!(s.runner.is_empty(), "refused by the worker's check: nothing built here");
    }

    #[test]
    fn a_newer_edit_drops_the_answer_for_an_older_one() {
        let mut s = AppState::new();
        s.reduce(Action::EditText(world(50, 1000)));
        let stale = s.take_jobs();
        let small = presets::find("hotLoop_baseline").unwrap().text.to_string();
        s.reduce(Action::EditText(small.clone()));
        assert_eq!((s.scenario.name.as_str(), s.loading_sites()), ("hotLoop_baseline", None));
        s.reduce(Action::Read(offload::run(&stale[0])));
        assert_eq!((s.scenario.name.as_str(), s.text.as_str()), ("hotLoop_baseline", small.as_str()), "the late answer changes nothing");
    }

    #[test]
    fn a_large_link_replaces_the_scenario_only_once_it_reads() {
        let mut s = AppState::new();
        let before = s.text.clone();
        let open = |text: String| Action::LoadScenario { shared: Shared { text, scenario: None, policies: vec![Policy::Exact] }, origin: "the link".into() };
        s.reduce(open(world(50, 1000).replace("site s7 = K7.m", "site s7 = K7.m K7")));
        assert_eq!((s.text.as_str(), s.loading_sites()), (before.as_str(), Some(1000)), "the user's text stays while the link is read");
        answer_jobs(&mut s);
        assert_eq!(s.text, before, "a link that does not read changes nothing");
        let refusal = &s.banners.last().expect("a banner").text;
        assert!(refusal.starts_with("The scenario from the link was not loaded: it does not parse: "), "{refusal}");
        s.reduce(open(world(50, 1000)));
        answer_jobs(&mut s);
        assert_eq!((s.scenario.sites.len(), s.policies.clone(), s.history.can_undo()), (1000, vec![Policy::Exact], false));
        assert_eq!(s.banners.last().map(|b| b.kind), Some(BannerKind::Info));
    }

    #[test]
    fn a_model_preset_opens_model_mode_and_replays_to_the_engine_numbers() {
        let mut s = AppState::new();
        s.reduce(Action::SetSpeed(Speed::Max));
        s.reduce(Action::LoadPreset { id: "arena_closeGroup".into(), run: true });
        let m = s.model.as_ref().expect("model mode");
        assert!(s.is_playing() && m.speed == Speed::Max, "max stays max");
        assert_eq!(m.variants, ["always", "scoped-access", "session-live", "no-deopt"], "all variants by default");
        run_model_to_end(&mut s);
        let m = s.model.as_ref().unwrap();
        let value = |variant: &str| m.slow_views.iter().find(|v| v.variant == variant).and_then(|v| v.result()).map(|r| r.value).expect(variant);
        assert!(value("scoped-access") >= 4.0 * value("no-deopt"));
        assert_eq!(s.scenario.name, DEFAULT_PRESET, "the call-site scenario waits behind");
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        assert!(s.model.is_none() && s.scenario.name == "hotLoop_baseline");
    }

    #[test]
    fn model_mode_fits_its_speed_and_keeps_the_call_site_speed() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "descriptor_treeMap".into(), run: false });
        s.reduce(Action::Step);
        assert_eq!(s.current_speed(), Speed::Factor(0.0001));
        s.reduce(Action::SpeedUp);
        assert_eq!(s.current_speed(), Speed::Factor(0.001));
        s.reduce(Action::LoadPreset { id: DEFAULT_PRESET.into(), run: false });
        assert_eq!(s.current_speed(), Speed::Factor(0.1), "call-site mode keeps its own speed");
    }

    #[test]
    fn lane_keys_toggle_variants_in_model_mode_and_policies_otherwise() {
        let mut s = AppState::new();
        s.reduce(Action::ToggleLane(2));
        assert!(s.policies.contains(&Policy::Hierarchy));
        s.reduce(Action::LoadPreset { id: "records_rotating11".into(), run: false });
        s.reduce(Action::ToggleLane(2));
        assert_eq!(s.model.as_ref().unwrap().variants, ["before-fix", "fifo", "unbounded", "capacity-0"]);
        s.reduce(Action::ToggleLane(9));
        s.reduce(Action::ToggleVariant("nope".into()));
        assert!(s.banners.last().is_some_and(|b| b.text.contains("not a variant")));
        assert!(s.policies.contains(&Policy::Hierarchy), "policies untouched in model mode");
    }

    #[test]
    fn knobs_rerun_and_bad_ones_leave_a_message() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "records_rotating11".into(), run: false });
        s.reduce(Action::SetKnob { knob: "shapes".into(), value: "10".into() });
        assert!(s.is_playing(), "a knob change re-runs");
        s.reduce(Action::SetSpeed(Speed::Max));
        run_model_to_end(&mut s);
        let m = s.model.as_ref().unwrap();
        let fifo = m.slow_views.iter().find(|v| v.variant == "fifo").and_then(|v| v.result()).expect("fifo ran");
        assert_eq!(fifo.roles[0].1, 100.0, "ten shapes fit a cache of ten");
        s.reduce(Action::SetKnob { knob: "capacity".into(), value: "1e9".into() });
        assert!(s.model.as_ref().unwrap().knob_error.is_some());
        assert!(s.banners.is_empty(), "knob errors stay beside the knob");
    }

    #[test]
    fn the_autosave_and_links_carry_the_model() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "arena_closeGroup".into(), run: false });
        s.reduce(Action::SetKnob { knob: "ops".into(), value: "40".into() });
        s.reduce(Action::ToggleVariant("always".into()));
        let saved = s.saved();
        let link = saved.model.clone().expect("saved with the model");
        assert_eq!(link.knobs, [("ops".to_string(), "40".to_string())]);
        let restored = AppState::boot(Boot { saved: Some(Ok(saved.clone())), shared: None, notice: None, tour_done: true });
        let m = restored.model.as_ref().expect("model mode restored");
        assert_eq!((m.link(), restored.is_playing()), (link.clone(), false));

        let mut bad = saved.clone();
        bad.model = Some(ModelLink { preset: "gone".into(), knobs: Vec::new(), variants: Vec::new() });
        let s = AppState::boot(Boot { saved: Some(Ok(bad)), shared: None, notice: None, tour_done: true });
        assert!(s.model.is_none() && s.banners[0].text.contains("could not be reopened"));

        let s = AppState::boot(Boot {
            saved: Some(Ok(saved)),
            shared: Some(Ok(Link::Model(ModelLink { preset: "descriptor_hashMap".into(), knobs: Vec::new(), variants: Vec::new() }))),
            notice: None,
            tour_done: true,
        });
        assert_eq!(s.model.as_ref().map(|m| m.preset.id), Some("descriptor_hashMap"), "the link wins");
        let mut s = s;
        s.reduce(Action::LoadModelLink { link: ModelLink { preset: "x".into(), knobs: Vec::new(), variants: Vec::new() }, origin: "the link".into() });
        assert_eq!(s.model.as_ref().map(|m| m.preset.id), Some("descriptor_hashMap"), "a bad link changes nothing");
        assert!(s.banners.last().is_some_and(|b| b.kind == BannerKind::Error));
    }

    #[test]
    fn hand_mutations_wait_for_call_site_mode() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        s.reduce(Action::Step);
        s.reduce(Action::FireCategory { name: "HotCategory".into(), enter: true });
        assert_eq!(s.last_fire, Some(FireOutcome::Fired { label: "use HotCategory (enter)".into(), lanes: 2 }));
        assert!(s.runner.views().iter().all(|l| l.active_categories == ["HotCategory"]));
        s.reduce(Action::FireCategory { name: "Nope".into(), enter: false });
        assert!(matches!(&s.last_fire, Some(FireOutcome::Refused(why)) if why.contains("unknown category")));
        s.reduce(Action::LoadPreset { id: "descriptor_treeMap".into(), run: false });
        s.reduce(Action::Fire(Event::InvalidateAll));
        assert!(s.banners.last().is_some_and(|b| b.text.contains("call-site scenarios")));
    }

    #[test]
    fn starts_on_the_headline_preset_with_two_lanes() {
        let s = AppState::new();
        assert_eq!(s.preset.map(|p| p.id), Some(DEFAULT_PRESET));
        assert_eq!(s.runner.views().len(), 2);
        assert!(!s.playing && s.text_error.is_none() && s.run_error.is_none());
    }

    #[test]
    fn loading_and_running_a_preset_finishes_with_results() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "hotLoop_sameTypeMetaClassChurn".into(), run: true });
        assert!(s.playing);
        assert!(s.text.contains("hotLoop_sameTypeMetaClassChurn"));
        run_to_end(&mut s);
        assert!(s.runner.finished());
        assert!(s.slow_lanes.iter().all(|l| l.result.is_some()), "charts get the final views");
        assert!(s.total_relinks() > 0);
        s.reduce(Action::Play);
        assert!(s.playing && s.runner.clock_ms() == 0.0, "Play after the end starts over");
    }

    #[test]
    fn paused_runs_say_so_and_steps_say_what_they_did() {
        let mut s = AppState::new();
        assert_eq!((s.run_state(), s.run_state().button_label()), (RunState::Ready, "Run"));
        s.reduce(Action::Step);
        s.reduce(Action::Step);
        assert_eq!((s.run_state(), s.run_state().button_label()), (RunState::Paused, "Resume"));
        let (n, note) = s.step_note.clone().expect("a step note");
        assert!(n == 2 && note.contains("fired `"), "{n}: {note}");
        s.reduce(Action::Play);
        assert_eq!((s.run_state(), s.step_note.clone()), (RunState::Running, None));
        s.reduce(Action::Pause);
        assert_eq!(s.run_state(), RunState::Paused);
        s.reduce(Action::Reset);
        assert_eq!(s.run_state(), RunState::Ready);
        run_to_end(&mut s);
        assert_eq!(s.run_state().button_label(), "Run again");
    }

    #[test]
    fn loop_mode_keeps_the_loop_running_for_hand_fired_writes() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        let normal = s.runner.views()[0].total_iterations;
        s.reduce(Action::ToggleLoop);
        let looped = s.runner.views()[0].total_iterations;
        assert!(looped >= 100 * normal, "{looped} vs {normal}");
        assert!(blast_engine::sim::estimate_work(&looping(&s.scenario)) <= blast_engine::sim::MAX_WORK);
        assert_eq!(s.scenario.measure.ops, presets::find("hotLoop_baseline").unwrap().scenario().measure.ops, "the scenario itself is untouched");
        s.reduce(Action::ToggleLoop);
        assert_eq!(s.runner.views()[0].total_iterations, normal);
    }

    #[test]
    fn frames_advance_by_speed_and_pause_stops_them() {
        let mut s = AppState::new();
        s.reduce(Action::SetSpeed(Speed::Factor(1.0)));
        s.reduce(Action::Play);
        s.reduce(Action::FrameStart { wall_dt_ms: 10.0 });
        s.reduce(Action::Work { max_steps: 100_000 });
        s.reduce(Action::FrameEnd { wall_ms: 0.0 });
        let t = s.runner.clock_ms();
        assert!((10.0..20.0).contains(&t), "10 wall ms at 1x is about 10 virtual ms, got {t}");
        s.reduce(Action::Pause);
        s.reduce(Action::FrameStart { wall_dt_ms: 10.0 });
        s.reduce(Action::Work { max_steps: 100_000 });
        s.reduce(Action::FrameEnd { wall_ms: 16.0 });
        assert_eq!(s.runner.clock_ms(), t);
    }

    #[test]
    fn valid_text_updates_the_model_and_invalid_text_is_kept() {
        let mut s = AppState::new();
        let before = s.scenario.clone();
        let broken = s.text.replace("class Hot { compute }", "class Hot extends Nowhere { compute }");
        s.reduce(Action::EditText(broken.clone()));
        assert_eq!(s.text, broken, "what the user typed is kept");
        let e = s.text_error.clone().expect("error");
        assert!(e.line > 1 && e.message.contains("Nowhere"), "{e:?}");
        assert_eq!(s.scenario, before, "the model keeps the last valid version");
        s.reduce(Action::Edit(EditOp::AddClass { name: "X".into(), parent: None }));
        assert!(s.editor_error.is_some(), "model edits wait for the text to be fixed");
        s.reduce(Action::RevertText);
        assert!(s.text_error.is_none());
        let fixed = s.text.replace("class Unrelated", "class Unrelated { extra }");
        s.reduce(Action::EditText(fixed.clone()));
        assert!(s.text_error.is_none());
        assert!(s.scenario.classes.iter().any(|c| c.name == "Unrelated" && c.methods == ["extra"]));
        assert_eq!(s.text, fixed, "valid text is not re-printed under the user");
        assert!(s.preset.is_none(), "an edited preset no longer claims its published numbers");
    }

    #[test]
    fn undo_and_redo_cross_form_and_text_edits() {
        let mut s = AppState::new();
        let original = s.text.clone();
        s.reduce(Action::Edit(EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Expando }));
        let after_form = s.text.clone();
        s.reduce(Action::EditText(after_form.replace("class Unrelated", "class Unrelated { typed }")));
        assert!(s.scenario.classes.iter().any(|c| c.methods == ["typed"]));
        s.reduce(Action::Undo);
        assert_eq!(s.text, after_form, "the typing is undone");
        assert!(!s.scenario.classes.iter().any(|c| c.methods == ["typed"]), "and the model follows");
        s.reduce(Action::Undo);
        assert_eq!(s.text, original, "then the form edit");
        assert!(s.scenario.classes.iter().all(|c| c.metaclass != MetaKind::Expando));
        s.reduce(Action::Undo);
        assert_eq!(s.text, original, "nothing more to undo");
        s.reduce(Action::Redo);
        assert_eq!(s.text, after_form);
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        assert!(!s.history.can_undo() && !s.history.can_redo(), "a load starts a new history");
    }

    #[test]
    fn a_blank_scenario_runs_and_undo_brings_the_old_one_back() {
        let mut s = AppState::new();
        let before = s.text.clone();
        s.reduce(Action::NewScenario);
        assert_eq!((s.scenario.name.as_str(), s.scenario.classes.len(), s.run_error.clone()), ("untitled", 1, None));
        assert!(s.preset.is_none());
        s.reduce(Action::Undo);
        assert_eq!(s.text, before);
        s.reduce(Action::Edit(EditOp::DeleteClass("Unrelated".into())));
        let why = s.editor_error.clone().unwrap_or_default();
        assert!(why.contains("event(s)") && why.contains("scenario text"), "the form says where to change what it cannot: {why}");
    }

    #[test]
    fn model_edits_reprint_the_text() {
        let mut s = AppState::new();
        s.reduce(Action::Edit(EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Expando }));
        assert!(s.text.contains("class Hot metaclass expando { compute }"), "{}", s.text);
        s.reduce(Action::Edit(EditOp::Reparent { class: "HierParent".into(), parent: Some("HierChild".into()) }));
        assert!(s.editor_error.as_deref().unwrap_or("").contains("cyclic"));
        assert!(!s.text.contains("HierParent extends"));
    }

    #[test]
    fn policies_toggle_in_canonical_order_and_never_empty() {
        let mut s = AppState::new();
        s.reduce(Action::TogglePolicy(Policy::Ideal));
        s.reduce(Action::TogglePolicy(Policy::Hierarchy));
        assert_eq!(s.policies, [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal]);
        assert_eq!(s.runner.views().len(), 4);
        for p in [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal] {
            s.reduce(Action::TogglePolicy(p));
        }
        assert_eq!(s.policies, [Policy::Ideal]);
        assert_eq!(s.banners.len(), 1);
    }

    #[test]
    fn firing_a_write_mid_run_relinks() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        for _ in 0..6 {
            s.reduce(Action::Step);
        }
        assert_eq!(s.total_relinks(), 0);
        s.reduce(Action::Fire(Event::Write { class: "Hot".into(), method: "dyn0".into() }));
        assert_eq!(s.last_fire, Some(FireOutcome::Fired { label: "write Hot.dyn0".into(), lanes: 2 }));
        run_to_end(&mut s);
        assert!(s.total_relinks() > 0);
        s.reduce(Action::Fire(Event::InvalidateAll));
        assert!(matches!(s.last_fire, Some(FireOutcome::Refused(_))), "a finished run takes no events");
    }

    #[test]
    fn hover_shows_what_if_per_policy() {
        let mut s = AppState::new();
        for _ in 0..8 {
            s.reduce(Action::Step);
        }
        s.reduce(Action::HoverClass(Some("Hot".into())));
        assert_eq!(s.what_if.len(), 2);
        assert!(s.what_if[1].1.iter().all(|site| site == "hot"), "{:?}", s.what_if);
        s.reduce(Action::CloseOverlays);
        assert!(s.what_if.is_empty());
    }

    #[test]
    fn a_shared_scenario_replaces_the_current_one() {
        let mut s = AppState::new();
        let text = presets::find("oracle_liveParentRedefine").unwrap().text;
        s.reduce(Action::LoadScenario { shared: shared(text), origin: "the link".into() });
        assert_eq!(s.scenario.name, "oracle_liveParentRedefine");
        assert_eq!(s.preset.map(|p| p.id), Some("oracle_liveParentRedefine"));
        assert_eq!(s.banners.last().map(|b| b.kind), Some(BannerKind::Info));
    }

    #[test]
    fn boot_prefers_the_link_and_reports_bad_inputs() {
        let saved =
            Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, Some("hotLoop_baseline".into()));
        let s = AppState::boot(Boot { saved: Some(Ok(saved.clone())), shared: None, notice: None, tour_done: true });
        assert_eq!(s.scenario.name, "hotLoop_baseline");
        assert_eq!((s.policies.clone(), s.speed, s.theme), (vec![Policy::Exact], Speed::Max, Theme::Dark));
        assert_eq!(s.preset.map(|p| p.id), Some("hotLoop_baseline"));

        let bad_link = LinkError { kind: LinkKind::Scenario, problem: LinkProblem::NotUtf8 };
        let s = AppState::boot(Boot { saved: Some(Ok(saved.clone())), shared: Some(Err(bad_link)), notice: None, tour_done: true });
        assert_eq!(s.scenario.name, "hotLoop_baseline", "a bad link keeps the previous scenario");
        assert_eq!(s.banners[0].kind, BannerKind::Error);

        let link = Link::Scenario(shared(presets::find("parentChild_baseline").unwrap().text));
        let s = AppState::boot(Boot { saved: Some(Ok(saved)), shared: Some(Ok(link)), notice: None, tour_done: true });
        assert_eq!(s.scenario.name, "parentChild_baseline");

        let s = AppState::boot(Boot { saved: Some(Err("damaged".into())), shared: None, notice: None, tour_done: true });
        assert_eq!(s.scenario.name, DEFAULT_PRESET);
        assert!(s.banners[0].text.contains("set aside"));
    }

    #[test]
    fn a_refused_model_link_says_it_was_a_model_run() {
        let hostile = share::decode("#m=1.eyJwcmVzZXQiOiJub3BlIn0").expect_err("no such model preset");
        let s = AppState::boot(Boot { saved: None, shared: Some(Err(hostile)), notice: None, tour_done: true });
        let banner = &s.banners[0].text;
        assert!(banner.starts_with("The link's model run was not loaded: ") && banner.contains("no model preset"), "{banner}");
        assert!(!banner.contains("scenario"), "{banner}");
    }

    #[test]
    fn the_share_fragment_follows_what_is_on_screen() {
        let mut s = AppState::new();
        let mut seen = vec![s.share_fragment()];
        let mut changed = |s: &AppState, what: &str| {
            let now = s.share_fragment();
            assert!(!seen.contains(&now), "{what} should change the share link");
            seen.push(now);
        };
        s.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        changed(&s, "another preset");
        s.reduce(Action::TogglePolicy(Policy::Ideal));
        changed(&s, "a policy");
        s.reduce(Action::EditText(s.text.replace("class Hot { compute }", "class Hot { compute extra }")));
        changed(&s, "an edit");
        s.reduce(Action::LoadPreset { id: "records_rotating11".into(), run: false });
        assert!(s.share_fragment().starts_with("m=1."));
        changed(&s, "model mode");
        s.reduce(Action::SetKnob { knob: "shapes".into(), value: "10".into() });
        changed(&s, "a knob");
        s.reduce(Action::ToggleVariant("fifo".into()));
        changed(&s, "a variant");
        let before = s.share_fragment();
        s.reduce(Action::Pause);
        s.reduce(Action::SetSpeed(Speed::Max));
        assert_eq!(s.share_fragment(), before, "running and speed are not part of a link");
    }

    #[test]
    fn restoring_invalid_text_keeps_it_with_its_error() {
        let saved = Saved::new("class A {\n  oops".into(), vec![Policy::Global], Speed::Factor(1.0), Theme::Auto, None);
        let s = AppState::boot(Boot { saved: Some(Ok(saved)), shared: None, notice: None, tour_done: true });
        assert_eq!(s.text, "class A {\n  oops");
        assert!(s.text_error.is_some());
        assert_eq!(s.scenario.name, DEFAULT_PRESET, "the model falls back to the default");
        assert!(s.shareable_text().contains(DEFAULT_PRESET), "links carry the valid model, not broken text");
    }

    #[test]
    fn an_unrunnable_scenario_is_reported_not_run() {
        let mut s = AppState::new();
        let text = "class A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }\n";
        s.reduce(Action::EditText(text.into()));
        assert!(s.text_error.is_none());
        assert!(s.run_error.is_some());
        s.reduce(Action::Play);
        assert!(!s.playing);
        assert_eq!(s.banners.last().map(|b| b.kind), Some(BannerKind::Error));
    }

    #[test]
    fn banners_are_capped_deduplicated_and_dismissable() {
        let mut s = AppState::new();
        for i in 0..6 {
            s.reduce(Action::ShowError(format!("e{i}")));
        }
        s.reduce(Action::ShowError("e5".into()));
        assert_eq!(s.banners.len(), MAX_BANNERS);
        let id = s.banners[0].id;
        s.reduce(Action::DismissBanner(id));
        assert_eq!(s.banners.len(), MAX_BANNERS - 1);
    }

    #[test]
    fn a_notice_replaces_the_last_notice_and_errors_stay() {
        let mut s = AppState::new();
        s.reduce(Action::ShowError("broken file".into()));
        for id in ["hotLoop_baseline", "parentChild_baseline", "oracle_liveParentRedefine"] {
            let text = presets::find(id).unwrap().text;
            s.reduce(Action::LoadScenario { shared: shared(text), origin: format!("{id}.blast") });
        }
        let kinds: Vec<BannerKind> = s.banners.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BannerKind::Error, BannerKind::Info]);
        assert!(s.banners[1].text.contains("oracle_liveParentRedefine"), "the latest notice is shown");
    }

    #[test]
    fn speed_and_theme_cycle_within_bounds() {
        let mut s = AppState::new();
        for _ in 0..20 {
            s.reduce(Action::SpeedUp);
        }
        assert_eq!(s.speed, Speed::Max);
        for _ in 0..20 {
            s.reduce(Action::SpeedDown);
        }
        assert_eq!(s.speed, SPEEDS[0]);
        s.reduce(Action::CycleTheme);
        s.reduce(Action::CycleTheme);
        assert_eq!(s.theme, Theme::Dark);
    }

    #[test]
    fn expectations_go_from_pending_to_decided_and_a_cause_selects_its_site() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "oracle_liveParentRedefine".into(), run: false });
        assert!(s.expectations.iter().all(|o| o.status == blast_engine::expect::Status::Pending), "nothing run yet");
        // The preset reads hierarchy and ideal runs as well: adding the lanes decides them all.
        s.reduce(Action::AddPolicies(vec![Policy::Hierarchy, Policy::Ideal]));
        assert_eq!(s.policies, vec![Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal]);
        run_to_end(&mut s);
        assert!(s.expectations.iter().all(|o| o.status == blast_engine::expect::Status::Pass), "{:?}", s.expectations);
        // A failing expectation typed into the text fails, with a cause the why panel can show.
        let text = format!("{}expect under global: write Parent.* relinks nothing\n", presets::find("oracle_liveParentRedefine").unwrap().text);
        s.reduce(Action::EditText(text));
        run_to_end(&mut s);
        let failed = s.expectations.iter().find(|o| o.status == blast_engine::expect::Status::Fail).expect("the new line fails");
        let cause = failed.causes[0].clone();
        s.reduce(Action::ShowCause(cause.clone()));
        assert_eq!(s.selected_site.as_deref(), Some(cause.site.as_str()));
        assert_eq!(s.focused_cause, Some(cause));
        s.reduce(Action::Reset);
        assert_eq!(s.focused_cause, None, "a new run drops the old run's cause");
    }

    #[test]
    fn a_first_visit_runs_the_headline_comparison_and_opens_the_tour() {
        let mut s = AppState::boot(Boot::default());
        assert_eq!((s.scenario.name.as_str(), s.policies.clone()), (DEFAULT_PRESET, vec![Policy::Global, Policy::Exact]));
        assert_eq!(s.tour, Some(0));
        assert!(!s.is_playing() && s.autoplay, "it runs once the page is mounted");
        s.reduce(Action::Autoplay);
        assert!(s.is_playing(), "the first screen is a running comparison");
        s.reduce(Action::Pause);
        s.reduce(Action::Autoplay);
        assert!(!s.is_playing(), "only once");
        let mut early = AppState::boot(Boot::default());
        early.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        early.reduce(Action::Autoplay);
        assert!(!early.is_playing(), "a preset loaded before the page was mounted is not started for the user");
        let saved = Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        let mut back = AppState::boot(Boot { saved: Some(Ok(saved)), tour_done: true, ..Boot::default() });
        back.reduce(Action::Autoplay);
        assert!(!back.is_playing() && back.tour.is_none(), "a returning visit opens its session paused, without the tour");
    }

    #[test]
    fn the_tour_steps_forward_and_back_and_closes() {
        let mut s = AppState::boot(Boot::default());
        s.reduce(Action::TourBack);
        assert_eq!(s.tour, Some(0), "no step before the first");
        s.reduce(Action::TourNext);
        s.reduce(Action::TourNext);
        s.reduce(Action::TourBack);
        assert_eq!(s.tour, Some(1));
        for _ in 1..TOUR_STEPS {
            s.reduce(Action::TourNext);
        }
        assert_eq!(s.tour, None, "Next on the last step ends the tour");
        s.reduce(Action::TourNext);
        assert_eq!(s.tour, None, "and it stays closed");
        let mut s = AppState::boot(Boot::default());
        s.reduce(Action::TourClose);
        assert_eq!(s.tour, None);
    }

    #[test]
    fn a_brushed_range_reaches_the_lanes_and_a_new_run_or_axis_drops_it() {
        let mut s = AppState::new();
        run_to_end(&mut s);
        let end = s.slow_lanes[0].now_ms;
        s.reduce(Action::SetView(Some((end * 0.2, end * 0.6))));
        s.reduce(Action::Brush(Some((end * 0.3, end * 0.4))));
        let global = s.slow_lanes[0].in_range.clone().expect("the why panel's lanes carry the range, paused");
        assert!(global.total > 0 && global.rows.iter().all(|r| global.contains(r.t_ms)));
        assert!(s.runner.views()[0].in_range.is_some(), "the blast view's lanes too");
        s.reduce(Action::Brush(Some((f64::NAN, 3.0))));
        assert_eq!(s.timeline.brush, None, "a bad range clears");
        assert!(s.slow_lanes.iter().all(|l| l.in_range.is_none()));
        s.reduce(Action::SetView(Some((5.0, 5.0))));
        assert_eq!(s.timeline.view, None, "an empty window shows the whole run");
        s.reduce(Action::Brush(Some((1.0, 2.0))));
        s.reduce(Action::SetAxis(XAxis::Progress));
        assert_eq!((s.timeline.axis, s.timeline.brush, s.timeline.view), (XAxis::Progress, None, None), "a range on another axis means nothing");
        s.reduce(Action::Brush(Some((40.0, 60.0))));
        assert!(s.slow_lanes.iter().all(|l| l.in_range.is_some()));
        s.reduce(Action::Reset);
        assert_eq!((s.timeline.axis, s.timeline.brush), (XAxis::Progress, None), "a new run keeps the axis, not the range");
        assert!(s.slow_lanes.iter().all(|l| l.in_range.is_none()));
    }

    #[test]
    fn marking_a_relink_selects_its_site_and_brings_its_moment_into_the_window() {
        let mut s = AppState::new();
        run_to_end(&mut s);
        let end = s.slow_lanes[0].now_ms;
        s.reduce(Action::SetView(Some((0.0, end * 0.1))));
        let mark = Mark { policy: Policy::Global, t_ms: end * 0.8, site: "hot".into() };
        s.reduce(Action::MarkRelink(mark.clone()));
        assert_eq!(s.selected_site.as_deref(), Some("hot"));
        assert_eq!(s.timeline.mark, Some(mark));
        let (lo, hi) = s.timeline.view.expect("still zoomed");
        assert!(lo <= end * 0.8 && end * 0.8 <= hi && ((hi - lo) - end * 0.1).abs() < 1e-6, "the window moved to the moment: {lo}..{hi}");
        s.reduce(Action::SetAxis(XAxis::Progress));
        assert!(s.timeline.mark.is_some(), "a moment stays marked on either axis");
    }

    #[test]
    fn selecting_a_site_fills_the_why_history() {
        let mut s = AppState::new();
        s.reduce(Action::LoadPreset { id: "hotLoop_sameTypeMetaClassChurn".into(), run: false });
        s.reduce(Action::SelectSite(Some("hot".into())));
        run_to_end(&mut s);
        assert!(s.runner.views().iter().all(|l| !l.history.is_empty()));
        s.reduce(Action::SelectSite(Some("no-such-site".into())));
        assert_eq!(s.selected_site, None);
    }
}
