//! The call-site session, in two parts: its document (`document`: the scenario being edited,
//! as text and as the typed model behind it, undo history, texts being read by the engine
//! worker) and its run (`run`: one lane per selected policy, their playback and views, the
//! selected site, the what-if preview, hand-fired mutations); the policies are both's.
//!
//! Its reducer handles every action about the scenario and its run and keeps the two in step
//! (a new scenario rebuilds the lanes); run controls go through the one playback path
//! (`playback::control`, for which the session is a [`Replay`]). What the rest of the page
//! should do (banners, a model to close) it reports in [`Effects`]; new lanes bump `run_id`.
//! The fields are private: the page shell reads them through `&self` accessors named after
//! them, and changes them only by actions and the methods named for a change.

mod document;
mod run;

use std::rc::Rc;

use blast_engine::expect::{Cause, Outcome};
use blast_engine::presets::{self, Preset};
use blast_engine::scenario::{Event, Scenario};
use blast_engine::{dsl, Policy};

use crate::editor::{self, EditOp};
use crate::effects::Effects;
use crate::export::{self, Download};
use crate::gallery::{Entry, Opened};
use crate::history::History;
use crate::playback::{self, Control, Playback, Replay, RunRefusal, RunState, Speed};
use crate::runner::{CallCounts, LaneView};
use crate::share::{LinkView, Shared};
use crate::timeline::Range;
use crate::timeline::XAxis;
use crate::worker::lane_wire::{Request, Update, UpdateDecoder};
use crate::worker::lanes::{Lanes, Mirror};
use crate::worker::offload::Posting;
use crate::worker::reading::Purpose;
use crate::worker::wire::DecodeError;
use crate::worker::wire::{Reply, TextError, Verdict};
use document::Document;
pub use run::FireOutcome;
use run::Run;

/// The preset a first visit opens with: the headline result.
pub const DEFAULT_PRESET: &str = "hotLoop_unrelatedMetaClassChurn";

/// The actions about the scenario and its lanes (`state::AppState::reduce` hands them on whole;
/// [`CallSiteSession::reduce`] matches each).
// An action is moved once into the reducer and never stored in bulk: boxing the link's scenario
// would only add an allocation per load.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum SessionAction {
    /// A gallery entry's scenario (`state` resolves the entry: `gallery::open`).
    OpenEntry {
        opened: Opened,
        run: bool,
    },
    /// The user's own scenario a load replaced back on screen (the picker's "Your scenario").
    OpenOwn,
    /// A scenario from a share link or an imported file.
    LoadScenario {
        shared: Shared,
        origin: String,
    },
    EditText(String),
    /// Throw away text that does not parse: show the model's text again.
    RevertText,
    Edit(EditOp),
    TogglePolicy(Policy),
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
    /// "Loop until stopped": re-run with the measured op repeated (see `looping`).
    ToggleLoop,
    /// Replace the scenario with `editor::BLANK` (an edit: Undo brings the old one back).
    NewScenario,
    /// Back to the scenario text before the latest form or text edit (Ctrl+Z).
    Undo,
    /// Ctrl+Shift+Z (or Ctrl+Y).
    Redo,
    /// The engine worker (or the page standing in for it) answered a job (`offload`).
    Read(Reply),
    /// The engine worker's update of the lanes it runs for build `run`, decoded by the page in
    /// steps (`lanes::Mirror::decoder`), or why its bytes were unreadable.
    LanesDecoded(u64, Box<Result<Update, DecodeError>>),
    /// The engine worker stopped while running lanes, or there is none to run them.
    LanesLost(String),
}

impl SessionAction {
    /// A mutation fired by hand (model mode has none: `state` says so instead).
    pub fn is_hand_mutation(&self) -> bool {
        matches!(self, SessionAction::Fire(_) | SessionAction::FireCategory { .. })
    }
}

pub struct CallSiteSession {
    /// The scenario on screen: text, model, history, the worker's readings (`document`).
    document: Document,
    /// The lanes of its run: playback, views, selection, what-if, hand-fired mutations (`run`).
    run: Run,
    policies: Vec<Policy>,
}

impl CallSiteSession {
    /// The headline preset under global and exact, paused at time zero: its text on screen at
    /// once, its scenario and lanes once the engine worker has read it (`Purpose::Entry`).
    pub fn new() -> CallSiteSession {
        let preset = presets::find(DEFAULT_PRESET).or_else(|| presets::all().first());
        let text = preset.map_or_else(String::new, |p| p.text.to_string());
        let mut session = CallSiteSession { document: Document::new(text), run: Run::new(), policies: vec![Policy::Global, Policy::Exact] };
        if let Some(p) = preset {
            session.request(p.text, Purpose::Entry { entry: Entry::CallSite(p), run: false });
        }
        session
    }

    /// An autosaved session: its text (read by the engine worker, in place of the default
    /// preset's; no model until it answers), policies and speed, and the user's own text a
    /// load had replaced (`own`).
    pub fn restore(&mut self, text: String, preset: Option<&str>, policies: &[Policy], speed: Speed, own: Option<String>) {
        // The default session's text, still being read, is not on screen any more.
        self.document.readings.drop_edits();
        if playback::SPEEDS.contains(&speed) {
            self.run.playback.speed = speed;
        }
        let policies: Vec<Policy> = Policy::ALL.iter().copied().filter(|p| policies.contains(p)).collect();
        if !policies.is_empty() {
            self.policies = policies;
        }
        // Kept as typed; the model and its lanes come when the text reads.
        self.request(&text, Purpose::Edit { entry: preset.and_then(|id| Entry::recognise(id, &text)) });
        self.document.text = text;
        self.document.text_rev += 1;
        // Saved without a preset: the user's own text (typed, or opened and kept).
        self.document.edited = preset.is_none();
        self.document.own = own;
    }

    /// The gallery entry on screen, unedited (a scenario edit forgets it).
    pub fn entry(&self) -> Option<Entry> {
        self.document.entry()
    }

    /// Whether the lanes on screen are another scenario's, kept until the engine worker answers:
    /// a Reset not answered yet, or a gallery entry whose text is being read (its own lanes come
    /// with the reply). Until then they must not pass for the entry's results.
    pub fn showing_previous(&self) -> bool {
        self.run.runner.awaiting_rebuild() || self.document.readings.entry().is_some()
    }

    /// The call-site preset on screen, unedited (for its published numbers).
    pub fn preset(&self) -> Option<&'static Preset> {
        self.entry().and_then(|e| e.preset())
    }

    /// The results CSV of the lanes on screen: at once when none run, else once the worker has
    /// sent the sites' call counts (`lanes_update`), as that update's views stand.
    pub fn export_results(&mut self, fx: &mut Effects) {
        match self.run.runner.ask_call_counts() {
            true => self.run.export_asked = true,
            false => fx.download = Some(self.results_csv(&[])),
        }
    }

    fn results_csv(&self, call_counts: &[Vec<CallCounts>]) -> Download {
        let (name, lanes) = (&self.document.scenario.name, &self.run.runner);
        let text = export::results_csv(name, lanes.views(), &lanes.site_rows(call_counts), self.preset().and_then(|p| p.published()));
        Download::results(name, text)
    }

    /// The text a share link or export should carry: the typed text when it is valid.
    pub fn shareable_text(&self) -> String {
        self.document.shareable_text()
    }

    /// The run's state. While a gallery entry is read, the lanes on screen are the last
    /// scenario's: the state is the entry's run (it plays once read, or waits), not theirs.
    pub fn run_state(&self) -> RunState {
        match self.document.readings.entry_plays() {
            Some(true) => RunState::Running,
            Some(false) => RunState::Ready,
            None => self.run.run_state(),
        }
    }

    pub fn total_relinks(&self) -> u64 {
        self.run.runner.total_relinks()
    }

    /// The jobs to hand to the engine worker now (the page shell posts them after each render).
    pub fn take_jobs(&mut self) -> Vec<Posting> {
        self.document.readings.take_jobs()
    }

    /// Commands for the lanes the engine worker runs, to post now: none while jobs wait to be
    /// taken (a build names a job the worker must have read first).
    pub fn take_lanes(&mut self) -> Option<Request> {
        if self.document.readings.jobs_waiting() {
            return None;
        }
        self.run.runner.mirror_mut().and_then(Mirror::take_request)
    }

    /// About how many sites the text being read declares, while the engine worker reads one.
    pub fn loading_sites(&self) -> Option<usize> {
        self.document.readings.loading_sites()
    }

    /// A run control, through the one playback path.
    pub fn control(&mut self, control: Control, fx: &mut Effects) {
        if !matches!(
            control,
            Control::FrameStart { .. } | Control::Work { .. } | Control::FrameEnd { .. } | Control::SetSpeed(_) | Control::SpeedUp | Control::SpeedDown
        ) {
            self.run.resume_after_read = false;
        }
        if control == Control::Reset {
            self.run.last_fire = None;
        }
        // An entry being read has no lanes yet: Run plays them once it is read.
        if let Some(run) = self.document.readings.entry_run() {
            match control {
                Control::Play | Control::TogglePlay => {
                    *run = control == Control::Play || !*run;
                    return;
                }
                Control::Pause => *run = false,
                _ => {}
            }
        }
        if let Err(why) = playback::control(self, control) {
            fx.error(format!("This scenario cannot run: {why}"));
        }
    }

    /// The actions about the scenario and its lanes.
    pub fn reduce(&mut self, action: SessionAction, fx: &mut Effects) {
        match action {
            SessionAction::OpenEntry { opened: Opened { entry, text, policies }, run } => {
                fx.call_sites_loaded = true;
                if !policies.is_empty() {
                    self.policies = policies;
                }
                self.document.keep_own(&text);
                self.set_text(text, Purpose::Entry { entry, run });
            }
            SessionAction::LoadScenario { shared, origin } => self.load(shared, origin),
            SessionAction::EditText(text) => {
                self.document.history.record(&self.document.text, &text, true);
                self.set_text(text, Purpose::Edit { entry: None });
                self.document.edited = true;
            }
            SessionAction::NewScenario => {
                let text = editor::BLANK.to_string();
                self.document.history.record(&self.document.text, &text, false);
                self.set_text(text, Purpose::Edit { entry: None });
                self.document.edited = true;
            }
            SessionAction::Undo => {
                if let Some(text) = self.document.history.undo(&self.document.text) {
                    self.set_text(text, Purpose::Edit { entry: None });
                    self.document.edited = true;
                }
            }
            SessionAction::Redo => {
                if let Some(text) = self.document.history.redo(&self.document.text) {
                    self.set_text(text, Purpose::Edit { entry: None });
                    self.document.edited = true;
                }
            }
            SessionAction::OpenOwn => {
                fx.call_sites_loaded = true;
                if let Some(text) = self.document.own.take().filter(|t| *t != self.document.text) {
                    // A swap: an edit of what was loaded becomes the kept one in turn.
                    if self.document.edited {
                        self.document.own = Some(self.document.text.clone());
                    }
                    self.document.history.record(&self.document.text, &text, false);
                    self.set_text(text, Purpose::Edit { entry: None });
                    self.document.edited = true;
                }
            }
            SessionAction::RevertText => self.document.revert_text(),
            SessionAction::Edit(op) => self.edit(op),
            SessionAction::TogglePolicy(p) => {
                if self.policies.contains(&p) {
                    if self.policies.len() == 1 {
                        fx.info("At least one policy must stay selected.".into());
                        return;
                    }
                    self.policies.retain(|x| *x != p);
                } else {
                    self.policies.push(p);
                    self.policies = Policy::ALL.iter().copied().filter(|x| self.policies.contains(x)).collect();
                }
                self.policies_changed(fx);
            }
            SessionAction::AddPolicies(add) => {
                let policies: Vec<Policy> = Policy::ALL.iter().copied().filter(|p| self.policies.contains(p) || add.contains(p)).collect();
                if policies != self.policies {
                    self.policies = policies;
                    self.policies_changed(fx);
                }
            }
            SessionAction::ToggleLoop => {
                self.run.loop_mode = !self.run.loop_mode;
                let was_playing = self.run.playback.playing;
                self.rebuild();
                self.run.last_fire = None;
                if was_playing {
                    self.control(Control::Play, fx);
                }
            }
            SessionAction::Fire(event) => {
                let label = dsl::event_text(&event);
                let outcome = self.run.runner.inject(&event);
                self.run.record_fire(label, outcome, &self.document.scenario);
            }
            SessionAction::FireCategory { name, enter } => {
                let label = if enter { format!("use {name} (enter)") } else { format!("leave {name}") };
                let outcome = self.run.runner.inject_category(&name, enter);
                self.run.record_fire(label, outcome, &self.document.scenario);
            }
            SessionAction::SelectSite(site) => self.select_site(site),
            SessionAction::ShowCause(cause) => {
                self.select_site(Some(cause.site.clone()));
                self.run.focused_cause = Some(cause);
            }
            SessionAction::HoverClass(class) => self.hover(class),
            SessionAction::Read(reply) => self.read(reply, fx),
            SessionAction::LanesDecoded(run, decoded) => self.lanes_update(run, *decoded, fx),
            SessionAction::LanesLost(why) => {
                if !self.run.runner.is_empty() {
                    self.lanes_lost(&why, fx);
                }
            }
        }
    }

    pub fn select_site(&mut self, site: Option<String>) {
        self.run.selected_site = site.filter(|s| self.document.scenario.sites.iter().any(|x| &x.name == s));
        self.run.runner.select(self.run.selected_site.clone());
        self.after_commands();
    }

    /// The what-if preview for a hovered class (`None`: none).
    pub fn hover(&mut self, class: Option<String>) {
        self.run.hover(class);
    }

    /// A model preset takes the screen: the lanes wait behind it paused, without a brushed
    /// range (the timeline starts over for the model).
    pub fn set_aside(&mut self) {
        self.run.set_aside();
    }

    /// Hand the timeline's brushed range to the lanes and show its relinks at once (paused or not).
    pub fn brush(&mut self, range: Option<(XAxis, Range)>) {
        self.run.runner.brush(range);
        self.after_commands();
    }

    /// A scenario from a share link or an imported file, read by the engine worker.
    fn load(&mut self, shared: Shared, origin: String) {
        let Shared { text, policies, view } = shared;
        self.pause_for_read();
        // The run check is made for the policies the scenario will run under.
        let checked = if policies.is_empty() { self.policies.clone() } else { policies.clone() };
        self.document.readings.request_open(text, checked, self.run.loop_mode, (policies, view, origin));
    }

    /// Replace the scenario with one opened from a link, a file or a gallery.
    /// A link's view (`view`): its speed, and its selected site once the scenario is on screen.
    fn open(&mut self, scenario: Scenario, text: String, policies: Vec<Policy>, view: LinkView, origin: &str, fx: &mut Effects) {
        fx.call_sites_loaded = true;
        let entry = Entry::recognise(&scenario.name, &text);
        if !policies.is_empty() {
            self.policies = policies;
        }
        if let Some(speed) = view.speed {
            self.run.playback.speed = speed;
        }
        let name = if scenario.name.is_empty() { "an unnamed scenario".to_string() } else { format!("“{}”", scenario.name) };
        self.document.keep_own(&text);
        self.set_scenario(scenario, text, entry);
        match view.site {
            Some(site) if self.document.scenario.sites.iter().any(|s| s.name == site) => {
                self.select_site(Some(site.clone()));
                fx.info(format!("Loaded {name} from {origin}, with site {site} selected."));
            }
            Some(site) => fx.info(format!("Loaded {name} from {origin}; its selected site {site} is not in it, so none is selected.")),
            None => fx.info(format!("Loaded {name} from {origin}.")),
        }
    }

    /// What a share link carries of how this scenario is watched: the speed and selected site.
    pub fn link_view(&self) -> LinkView {
        self.run.link_view()
    }

    /// New lanes for the new policies: every lane restarts from time zero (so all of them ran
    /// the same program and the same hand-fired mutations), a run that was playing plays on,
    /// and a run that had started says it restarted instead of showing zeros without a word.
    fn policies_changed(&mut self, fx: &mut Effects) {
        let (was_playing, state) = (self.run.playback.playing, self.run_state());
        self.rebuild();
        if state != RunState::Ready {
            let names: Vec<&str> = self.policies.iter().map(|p| p.name()).collect();
            let next = if was_playing { "it is running again" } else { "press Run to compare them" };
            fx.info(format!("The policies changed, so the run restarted from time zero under {}; {next}.", names.join(", ")));
        }
        if was_playing {
            self.control(Control::Play, fx);
        }
    }

    /// Whether the picker's "Your scenario" has something to bring back (or is on screen).
    pub fn has_own(&self) -> bool {
        self.document.has_own()
    }

    /// Hand `text` to the engine worker (`take_jobs`); the answer comes back as `SessionAction::Read`.
    fn request(&mut self, text: &str, purpose: Purpose) {
        self.pause_for_read();
        self.document.readings.request(text, self.policies.clone(), self.run.loop_mode, purpose);
    }

    /// The page shows the text being read next: a run of the old scenario meanwhile only
    /// competes with reading and drawing it (while the 1,900-deep link was read, the running
    /// preset's frames were the page's longest tasks, 12-17 ms of CPU each).
    fn pause_for_read(&mut self) {
        self.run.resume_after_read |= self.run.playback.playing;
        self.run.playback.stop();
    }

    /// An answer from the engine worker (one no longer awaited is dropped); a run the reading
    /// paused plays on if the lanes stayed (`resume_after_read`).
    fn read(&mut self, reply: Reply, fx: &mut Effects) {
        if self.apply_reply(reply, fx) && self.document.readings.texts() == 0 && std::mem::take(&mut self.run.resume_after_read) {
            self.control(Control::Play, fx);
        }
    }

    /// `read`'s answer applied; false for one no longer awaited.
    fn apply_reply(&mut self, reply: Reply, fx: &mut Effects) -> bool {
        let Some(reading) = self.document.readings.answered(&reply) else { return false };
        let checked_as_now = reading.policies == self.policies && reading.looping == self.run.loop_mode;
        let job = reply.id;
        match (reading.purpose, reply.verdict) {
            (Purpose::Edit { entry }, Verdict::Read { scenario, run_error, expect_lines, held, .. }) => {
                self.document.read_expect_lines = Some((self.document.text_rev, Rc::new(expect_lines)));
                self.document.text_error = None;
                if *scenario == *self.document.scenario {
                    // The worker now holds this (same) scenario under the new job.
                    self.document.held = held.then_some((job, self.document.scenario_rev)).or(self.document.held);
                } else {
                    self.adopt_read(*scenario, None, held.then_some(job), run_error.filter(|_| checked_as_now));
                }
                if let Some(entry) = entry {
                    self.document.opened = Some((entry, self.document.scenario_rev));
                }
                self.document.edit_epoch += 1;
            }
            (Purpose::Entry { entry, run }, Verdict::Read { scenario, run_error, expect_lines, held, .. }) => {
                self.document.read_expect_lines = Some((self.document.text_rev, Rc::new(expect_lines)));
                // Opened anew even when it is the scenario on screen: its lanes start over.
                self.adopt_read(*scenario, Some(entry), held.then_some(job), run_error.filter(|_| checked_as_now));
                self.document.edit_epoch += 1;
                if let Some(origin) = entry.origin() {
                    fx.info(format!("Loaded “{}” from {origin}.", self.document.scenario.name));
                }
                if run {
                    self.control(Control::Play, fx);
                }
            }
            (Purpose::Edit { .. } | Purpose::Entry { .. }, Verdict::Invalid { error, .. }) => {
                self.document.text_error = Some(error);
                self.document.edit_epoch += 1;
            }
            (Purpose::Edit { .. } | Purpose::Entry { .. }, Verdict::Failed(why) | Verdict::Refused(why)) => {
                self.document.text_error = Some(TextError { line: 1, col: 1, message: why });
                self.document.edit_epoch += 1;
            }
            (Purpose::Form { .. }, verdict) => {
                self.form_answered(job, checked_as_now, verdict);
                if let Some(op) = self.document.readings.next_form() {
                    self.edit(op);
                }
            }
            (Purpose::Open { text, policies, view, origin }, verdict) => {
                let refusal = match verdict {
                    Verdict::Read { scenario, run_error: None, expect_lines, held, .. } => {
                        // `set_scenario` makes it the next revision.
                        self.document.held = held.then_some((job, self.document.scenario_rev + 1));
                        self.open(*scenario, text, policies, view, &origin, fx);
                        self.document.read_expect_lines = Some((self.document.text_rev, Rc::new(expect_lines)));
                        return true;
                    }
                    Verdict::Read { run_error: Some(why), .. } => format!("it cannot run: {why}"),
                    Verdict::Invalid { message, .. } => format!("it does not parse: {message}"),
                    Verdict::Failed(why) | Verdict::Refused(why) => why,
                };
                fx.error(format!("The scenario from {origin} was not loaded: {refusal}"));
            }
            (Purpose::Hold { rev }, verdict) => {
                let refusal = match verdict {
                    Verdict::Read { run_error: None, held: true, expect_lines, .. } => {
                        // Its expectations' lines, for the text on screen when it is this scenario's.
                        if rev == self.document.scenario_rev && self.document.text_error.is_none() {
                            self.document.read_expect_lines = Some((self.document.text_rev, Rc::new(expect_lines)));
                        }
                        return false;
                    }
                    Verdict::Read { run_error: Some(why), .. } => why,
                    Verdict::Read { .. } => "the engine worker did not keep it".to_string(),
                    Verdict::Invalid { message, .. } => message,
                    Verdict::Failed(why) | Verdict::Refused(why) => why,
                };
                // Refused for the scenario and policies on screen: no lanes (their build in the
                // worker fails too, and its answer is dropped).
                if rev == self.document.scenario_rev && checked_as_now {
                    self.document.held = None;
                    let why = RunRefusal(refusal);
                    self.run.refused = Some((rev, self.policies.clone(), self.run.loop_mode, why.clone()));
                    self.run.install(Err(why), &self.document.scenario);
                }
                return false;
            }
        }
        true
    }

    /// Text typed, restored by undo or opened from the gallery (`purpose` says which), on screen
    /// at once and read by the engine worker: valid text updates the model, invalid text is
    /// kept with its error while the model stays on the last valid version.
    fn set_text(&mut self, text: String, purpose: Purpose) {
        self.document.replace_text(text);
        let text = std::mem::take(&mut self.document.text);
        self.request(&text, purpose);
        self.document.text = text;
    }

    /// A scenario the engine worker read for the text on screen becomes the model (opened as
    /// `entry`, if it is a gallery entry's): its lanes, held by the worker under job `held`, or
    /// the worker's `refusal` to run it (then no second check here).
    fn adopt_read(&mut self, scenario: Scenario, entry: Option<Entry>, held: Option<u64>, refusal: Option<String>) {
        self.document.adopt(scenario, entry);
        self.document.held = held.map(|job| (job, self.document.scenario_rev));
        self.run.scenario_replaced(&self.document.scenario);
        match refusal {
            Some(why) => {
                let why = RunRefusal(why);
                self.run.refused = Some((self.document.scenario_rev, self.policies.clone(), self.run.loop_mode, why.clone()));
                self.run.install(Err(why), &self.document.scenario);
            }
            None => self.rebuild(),
        }
    }

    /// A form edit: the engine worker applies it to the text on screen and reads the text it
    /// prints (`Purpose::Form`); the answer puts both on screen, as one undo step
    /// (`form_answered`). Made while another is applied, it waits for that one's text.
    fn edit(&mut self, op: EditOp) {
        self.document.edit_epoch += 1;
        let Some(op) = self.document.readings.defer_form(op) else { return };
        if let Some(e) = &self.document.text_error {
            self.document.editor_error = Some(text_has_an_error(e));
            return;
        }
        let text = std::mem::take(&mut self.document.text);
        self.request(&text, Purpose::Form { op });
        self.document.text = text;
    }

    /// The worker's answer to a form edit (job `job`, its run checked under the policies on
    /// screen when `checked_as_now`): the edited text and model, or why not in the form.
    fn form_answered(&mut self, job: u64, checked_as_now: bool, verdict: Verdict) {
        match verdict {
            Verdict::Read { scenario, run_error, expect_lines, held, edited } => {
                let text = edited.unwrap_or_else(|| dsl::print(&scenario));
                self.document.history.record(&self.document.text, &text, false);
                self.document.edited |= text != self.document.text;
                self.document.show_text(text);
                self.document.read_expect_lines = Some((self.document.text_rev, Rc::new(expect_lines)));
                self.adopt_read(*scenario, None, held.then_some(job), run_error.filter(|_| checked_as_now));
            }
            Verdict::Refused(why) | Verdict::Failed(why) => {
                self.document.editor_error = Some(why);
                self.document.edit_epoch += 1;
            }
            Verdict::Invalid { error, .. } => {
                self.document.editor_error = Some(text_has_an_error(&error));
                self.document.text_error = Some(error);
                self.document.edit_epoch += 1;
            }
        }
    }

    fn set_scenario(&mut self, scenario: Scenario, text: String, entry: Option<Entry>) {
        self.document.replace(scenario, text, entry);
        self.run.scenario_replaced(&self.document.scenario);
        self.rebuild();
    }

    /// New lanes for the current scenario and policies, at virtual time zero, paused, in the
    /// engine worker: from the text it holds, or from the scenario handed to it now (`hold`),
    /// which it reads before the lanes' first command (messages are answered in order).
    fn rebuild(&mut self) {
        // An entry being read brings its own lanes (`adopt_read`): none for the model it replaces.
        if self.document.readings.entry().is_some() {
            return;
        }
        if let Some((_, _, _, why)) = self
            .run
            .refused
            .as_ref()
            .filter(|(rev, policies, looping, _)| (*rev, policies, *looping) == (self.document.scenario_rev, &self.policies, self.run.loop_mode))
        {
            return self.run.install(Err(why.clone()), &self.document.scenario);
        }
        // Held by the worker while no later text was read there (it keeps one).
        let last = self.document.readings.last_job();
        let held = self.document.held.filter(|&(job, rev)| rev == self.document.scenario_rev && job == last).map(|(job, _)| job);
        self.run.fresh_hold = held.is_none();
        let job = match held {
            Some(job) => job,
            None => self.hold(),
        };
        self.run.worker_runs += 1;
        // The worker loops the scenario it holds (`editor::looping`, an estimate of its work per
        // try); the mirror takes only names, classes and expectations, which looping keeps.
        let scenario = &self.document.scenario;
        let (run, policies, looping) = (self.run.worker_runs, &self.policies, self.run.loop_mode);
        let mirror = match self.run.runner.take() {
            Some(old) => Mirror::rebuild(old, run, job, scenario, policies, looping),
            None => Mirror::build(run, job, scenario, policies, looping),
        };
        self.run.install(Ok(Lanes::in_worker(mirror)), &self.document.scenario);
    }

    /// Hand the scenario on screen to the engine worker to hold, when the worker no longer
    /// keeps it (it keeps the last text it read: a later one was read there since); its job's
    /// number.
    fn hold(&mut self) -> u64 {
        // The scenario's own text: the lanes' mirror names its sites, and the worker must build
        // the same ones. The text on screen is not it while it is being read (a paste, with
        // the policies changed meanwhile) or has an error.
        let d = &self.document;
        let text = if d.readings.texts() == 0 { self.shareable_text() } else { dsl::print(&d.scenario) };
        let job = self.document.readings.request(&text, self.policies.clone(), self.run.loop_mode, Purpose::Hold { rev: self.document.scenario_rev });
        self.document.held = Some((job, self.document.scenario_rev));
        job
    }

    /// A decoder for the worker's update of its lanes (`Mirror::decoder`): `None` when it is
    /// not for the lanes on screen.
    pub fn lanes_decoder(&self, bytes: Vec<u8>) -> Option<(u64, UpdateDecoder)> {
        self.run.runner.mirror()?.decoder(bytes)
    }

    /// The worker's update of its lanes for build `run`, decoded (`lanes_decoder`): the views
    /// on screen, and what a Step or mutation did.
    fn lanes_update(&mut self, run: u64, decoded: Result<Update, DecodeError>, fx: &mut Effects) {
        let Some(mirror) = self.run.runner.mirror_mut() else { return };
        let news = match mirror.decoded(run, decoded) {
            None => return,
            Some(Ok(news)) => news,
            Some(Err(why)) => return self.lanes_lost(&format!("its update is unreadable ({why})"), fx),
        };
        if let Some(why) = news.error {
            return self.lanes_lost(&why, fx);
        }
        if let Some(counts) = news.call_counts.filter(|_| self.run.export_asked) {
            self.run.export_asked = false;
            fx.download = Some(self.results_csv(&counts));
        }
        if let Some(note) = news.stepped {
            let n = self.run.playback.step_note.as_ref().map_or(1, |(n, _)| *n);
            self.run.playback.step_note = note.map(|note| (n, note));
        }
        if let (Some(why), Some(FireOutcome::Fired { label, .. })) = (news.refused, &self.run.last_fire) {
            self.run.last_fire = Some(FireOutcome::Refused(format!("{label}: {why}")));
        }
        if !self.run.playback.playing {
            // Playing, the frame loop refreshes them.
            self.refresh_slow_views();
            self.run.refresh_what_if();
        }
    }

    /// The worker no longer runs these lanes: the scenario is handed to it again and they
    /// start over from time zero, unless it was handed to the worker for them already (then
    /// none run until Run asks again).
    fn lanes_lost(&mut self, why: &str, fx: &mut Effects) {
        self.document.held = None;
        if self.run.fresh_hold {
            fx.info(format!("The engine worker stopped running the lanes ({why}): press Run to start them again."));
            self.run.install(Err(RunRefusal(format!("the engine worker stopped running it ({why})"))), &self.document.scenario);
        } else {
            fx.info(format!("The engine worker stopped running the lanes ({why}): they start again from time zero."));
            self.rebuild();
        }
    }
}

/// The read-only view the page shell reads (the fields are private: every change goes
/// through [`CallSiteSession::reduce`], [`CallSiteSession::control`] or a method named for it).
impl CallSiteSession {
    pub fn scenario(&self) -> &Rc<Scenario> {
        &self.document.scenario
    }

    pub fn text(&self) -> &str {
        &self.document.text
    }

    pub fn text_error(&self) -> Option<&TextError> {
        self.document.text_error.as_ref()
    }

    pub fn policies(&self) -> &[Policy] {
        &self.policies
    }

    pub fn playback(&self) -> &Playback {
        &self.run.playback
    }

    pub fn runner(&self) -> &Lanes {
        &self.run.runner
    }

    pub fn run_error(&self) -> Option<&RunRefusal> {
        self.run.run_error.as_ref()
    }

    pub fn slow_lanes(&self) -> &[Rc<LaneView>] {
        &self.run.slow_lanes
    }

    pub fn selected_site(&self) -> Option<&str> {
        self.run.selected_site.as_deref()
    }

    pub fn expectations(&self) -> &Rc<Vec<Outcome>> {
        &self.run.expectations
    }

    pub fn focused_cause(&self) -> Option<&Cause> {
        self.run.focused_cause.as_ref()
    }

    pub fn hovered_class(&self) -> Option<&str> {
        self.run.hovered_class.as_deref()
    }

    pub fn what_if(&self) -> &[(Policy, Vec<String>)] {
        &self.run.what_if
    }

    pub fn editor_error(&self) -> Option<&str> {
        self.document.editor_error.as_deref()
    }

    pub fn last_fire(&self) -> Option<&FireOutcome> {
        self.run.last_fire.as_ref()
    }

    pub fn history(&self) -> &History {
        &self.document.history
    }

    pub fn own(&self) -> Option<&str> {
        self.document.own.as_deref()
    }

    pub fn loop_mode(&self) -> bool {
        self.run.loop_mode
    }

    pub fn scenario_rev(&self) -> u64 {
        self.document.scenario_rev
    }

    pub fn run_id(&self) -> u64 {
        self.run.run_id
    }

    pub fn text_rev(&self) -> u64 {
        self.document.text_rev
    }

    pub fn edit_epoch(&self) -> u64 {
        self.document.edit_epoch
    }

    pub fn read_expect_lines(&self) -> Option<&(u64, Rc<Vec<Option<usize>>>)> {
        self.document.read_expect_lines.as_ref()
    }

    /// The lanes' own tests (`worker::lanes`) drive the mirror behind the session.
    #[cfg(test)]
    pub(crate) fn runner_mut(&mut self) -> &mut Lanes {
        &mut self.run.runner
    }
}

impl Replay for CallSiteSession {
    fn playback(&mut self) -> &mut Playback {
        &mut self.run.playback
    }

    fn finished(&self) -> bool {
        self.run.runner.finished()
    }

    fn rewind(&mut self) {
        self.rebuild();
    }

    fn refusal(&self) -> Option<RunRefusal> {
        self.run.run_error.clone()
    }

    fn step(&mut self) -> Option<String> {
        self.run.runner.step()
    }

    fn advance_clock(&mut self, virtual_ms: f64) {
        self.run.runner.advance_clock(virtual_ms);
    }

    /// The engine works in the worker: nothing to wait for here.
    fn work(&mut self, _max_steps: usize) -> bool {
        true
    }

    fn end_frame(&mut self) -> bool {
        self.run.runner.settle();
        self.run.refresh_what_if();
        self.run.runner.finished()
    }

    fn refresh_slow_views(&mut self) {
        self.run.refresh_slow_views(&self.document.scenario);
    }

    fn after_commands(&mut self) {
        self.run.after_commands(&self.document.scenario);
    }

    fn length_ms(&self) -> Option<f64> {
        None
    }
}

impl Default for CallSiteSession {
    fn default() -> Self {
        CallSiteSession::new()
    }
}

/// Why the form does not edit while the text has an error (`e`).
fn text_has_an_error(e: &TextError) -> String {
    format!("The text has an error at {}:{}. Fix it, or press “Revert text”, before editing the model (the model shows the last valid version).", e.line, e.col)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::action::Action;
    use crate::chrome::BannerKind;
    use crate::editor::looping;
    use crate::share::{self, Link};
    use crate::worker::in_process;
    use blast_engine::scenario::{Event, MetaKind};

    /// One action, answered by the engine worker, and what it asked of the rest of the page.
    pub(crate) fn act(s: &mut CallSiteSession, action: impl Into<Action>) -> Effects {
        let mut fx = act_only(s, action);
        in_process::pump(s, &mut fx);
        fx
    }

    /// One action, its jobs and commands left for the worker (`take_jobs`, `take_lanes`).
    pub(crate) fn act_only(s: &mut CallSiteSession, action: impl Into<Action>) -> Effects {
        let mut fx = Effects::default();
        match action.into() {
            Action::Run(control) => s.control(control, &mut fx),
            Action::Session(action) => s.reduce(action, &mut fx),
            other => panic!("not the session's: {other:?}"),
        }
        fx
    }

    /// A new session, its lanes built by the worker.
    pub(crate) fn session() -> CallSiteSession {
        let mut s = CallSiteSession::new();
        in_process::pump(&mut s, &mut Effects::default());
        s
    }

    fn run_to_end(s: &mut CallSiteSession) {
        act(s, Control::SetSpeed(Speed::Max));
        act(s, Control::Play);
        for frame in 0..10_000 {
            for control in [Control::FrameStart { wall_dt_ms: 16.0 }, Control::Work { max_steps: 5000 }, Control::FrameEnd { wall_ms: f64::from(frame) * 16.0 }]
            {
                act(s, control);
            }
            if !s.playback().playing {
                return;
            }
        }
        panic!("the run did not finish");
    }

    /// A gallery preset's scenario, as the router hands it on.
    fn open_preset(id: &str, run: bool) -> SessionAction {
        match crate::gallery::open(id) {
            Ok(crate::gallery::Opening::Scenario(opened)) => SessionAction::OpenEntry { opened, run },
            other => panic!("{id} is not a scenario entry: {other:?}"),
        }
    }

    pub(crate) fn shared(text: &str) -> Shared {
        match share::decode(&format!("#{}", share::encode(text, &[], &LinkView::default()).unwrap())) {
            Ok(Some(Link::Scenario(shared))) => shared,
            other => panic!("not a scenario link: {other:?}"),
        }
    }

    /// The engine worker answers every job handed out, in order (and the lanes' commands).
    fn answer_jobs(s: &mut CallSiteSession) -> (usize, Effects) {
        let mut fx = Effects::default();
        let jobs = s.document.readings.texts();
        in_process::pump(s, &mut fx);
        (jobs, fx)
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
        let mut s = session();
        let text = world(50, 1000);
        act_only(&mut s, SessionAction::EditText(text.clone()));
        assert_eq!((s.text(), s.loading_sites()), (text.as_str(), Some(1000)), "on screen at once, with a loading note");
        assert_eq!(s.scenario().name, DEFAULT_PRESET, "the model waits for the worker");
        assert_eq!(answer_jobs(&mut s).0, 1);
        assert_eq!((s.loading_sites(), s.scenario().sites.len(), s.runner().views().len()), (None, 1000, 2));
        assert!(s.text_error().is_none() && s.run_error().is_none());
        act(&mut s, SessionAction::Undo);
        assert_eq!(answer_jobs(&mut s).0, 0, "a small text is read here, at once");
        assert_eq!(s.scenario().name, DEFAULT_PRESET);
    }

    #[test]
    fn a_large_invalid_or_unrunnable_paste_is_reported_by_the_worker() {
        let mut s = session();
        let broken = world(50, 1000).replace("site s7 = K7.m", "site s7 = Nowhere.m");
        act_only(&mut s, SessionAction::EditText(broken));
        answer_jobs(&mut s);
        let e = s.text_error().expect("located error");
        assert!(e.line > 50 && e.message.contains("Nowhere"), "{e:?}");
        assert_eq!(s.scenario().name, DEFAULT_PRESET);
        let hostile = world(50, 1000).replace("op { loop 10 {", "op { loop 1000000000000 { every 1 { write K1.x }");
        act_only(&mut s, SessionAction::EditText(hostile));
        answer_jobs(&mut s);
        assert!(s.run_error().as_ref().is_some_and(|e| e.0.contains("work units")), "{:?}", s.run_error());
        assert!(s.runner().is_empty(), "refused by the worker's check: nothing built here");
    }

    #[test]
    fn a_newer_edit_drops_the_answer_for_an_older_one() {
        let mut s = session();
        act_only(&mut s, SessionAction::EditText(world(50, 1000)));
        let stale = s.take_jobs();
        let small = presets::find("hotLoop_baseline").unwrap().text.to_string();
        act_only(&mut s, SessionAction::EditText(small.clone()));
        assert_eq!(answer_jobs(&mut s).0, 1, "only the newer edit is awaited");
        assert_eq!((s.scenario().name.as_str(), s.loading_sites()), ("hotLoop_baseline", None));
        act(&mut s, SessionAction::Read(crate::worker::offload::decode_reply(&crate::worker::offload::answer(&stale[0].bytes)).expect("a reply")));
        assert_eq!((s.scenario().name.as_str(), s.text()), ("hotLoop_baseline", small.as_str()), "the late answer changes nothing");
    }

    #[test]
    fn a_text_still_being_read_when_a_preset_or_form_edit_replaces_it_is_dropped() {
        for (what, replace) in [
            ("a preset", open_preset("hotLoop_baseline", false)),
            ("a form edit", SessionAction::Edit(EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Expando })),
        ] {
            let mut s = session();
            act_only(&mut s, SessionAction::EditText(world(50, 1000)));
            act_only(&mut s, replace);
            let text = s.text().to_string();
            answer_jobs(&mut s);
            assert_eq!((s.text(), s.loading_sites()), (text.as_str(), None), "{what}: the paste's late answer changes nothing");
            assert_eq!(**s.scenario(), dsl::parse(&text).expect("parses"), "{what}: the model is the text on screen's");
        }
    }

    #[test]
    fn every_gallery_entry_opens_through_the_worker_as_its_text_parses_and_stays_that_entry() {
        let mut entries: Vec<Entry> = presets::all().iter().map(Entry::CallSite).collect();
        entries.extend(blast_engine::runtimes::PROFILES.iter().map(Entry::Runtime));
        let mut s = session();
        for entry in entries {
            let Ok(crate::gallery::Opening::Scenario(opened)) = crate::gallery::open(&entry.id()) else { panic!("{} opens no scenario", entry.id()) };
            let (text, rev) = (opened.text.clone(), s.scenario_rev());
            act_only(&mut s, SessionAction::OpenEntry { opened, run: false });
            assert_eq!((s.text(), s.scenario_rev(), s.entry()), (text.as_str(), rev, Some(entry)), "{}: its text at once, its model to come", entry.id());
            assert!(s.showing_previous(), "{}: the lanes on screen are not its own yet", entry.id());
            answer_jobs(&mut s);
            assert!(!s.showing_previous(), "{}: its own lanes once answered", entry.id());
            assert_eq!(**s.scenario(), dsl::parse(&text).expect("a shipped text parses"), "{}", entry.id());
            assert_eq!((s.text(), s.entry()), (text.as_str(), Some(entry)), "{}: the entry, not parsed again", entry.id());
            assert!(s.text_error().is_none() && s.run_error().is_none(), "{}", entry.id());
            assert_eq!(s.runner().views().len(), s.policies().len(), "{}: its lanes", entry.id());
        }
    }

    #[test]
    fn an_entry_opened_to_run_after_a_finished_run_is_running_before_its_lanes_are_built() {
        let mut s = session();
        run_to_end(&mut s);
        assert_eq!(s.run_state(), RunState::Finished);
        let Ok(crate::gallery::Opening::Scenario(opened)) = crate::gallery::open("parentChild_parentMetaClassChurn") else { panic!("a preset") };
        act_only(&mut s, SessionAction::OpenEntry { opened, run: true });
        assert!(s.showing_previous(), "the finished lanes on screen are the last run's");
        assert_eq!(s.run_state(), RunState::Running, "while read: the entry's run, not the last one's end");
        act_only(&mut s, Control::TogglePlay);
        assert_eq!(s.run_state(), RunState::Ready, "paused before it was read: it waits");
        act_only(&mut s, Control::TogglePlay);
        // The worker reads the text; its lanes are not built yet.
        let mut fx = Effects::default();
        for job in s.take_jobs() {
            let reply = in_process::with_host(|host| host.answer(&job.bytes, &|| 0.0));
            s.reduce(SessionAction::Read(crate::worker::offload::decode_reply(&reply).expect("a reply")), &mut fx);
        }
        assert_eq!(s.run_state(), RunState::Running, "read, its lanes not built: running");
        in_process::pump(&mut s, &mut fx);
        assert!(!s.showing_previous());
        assert_eq!(s.run_state(), RunState::Running);
    }

    #[test]
    fn the_default_session_is_read_by_the_worker_and_a_replaced_entry_s_answer_is_dropped() {
        let mut s = CallSiteSession::new();
        let default = presets::find(DEFAULT_PRESET).expect("the default preset");
        assert_eq!((s.text(), s.entry(), s.scenario().sites.len()), (default.text, Some(Entry::CallSite(default)), 0), "its text at once, no model yet");
        assert!(s.runner().is_empty(), "no lanes for a model not read yet");
        let default_job = s.take_jobs();
        act_only(&mut s, open_preset("hotLoop_baseline", false));
        let baseline = presets::find("hotLoop_baseline").expect("a preset");
        answer_jobs(&mut s);
        act(&mut s, SessionAction::Read(crate::worker::offload::decode_reply(&crate::worker::offload::answer(&default_job[0].bytes)).expect("a reply")));
        assert_eq!(
            (s.scenario().name.as_str(), s.entry()),
            (baseline.id, Some(Entry::CallSite(baseline))),
            "the replaced default's late answer changes nothing"
        );
        assert_eq!(s.runner().views().len(), 2);
    }

    #[test]
    fn run_pressed_while_an_entry_is_read_plays_it_once_read() {
        let mut s = session();
        act_only(&mut s, open_preset("hotLoop_baseline", false));
        act_only(&mut s, Control::Play);
        assert!(!s.playback().playing, "no lanes to play yet");
        answer_jobs(&mut s);
        assert!(s.playback().playing && s.scenario().name == "hotLoop_baseline", "played once read");
        for (controls, plays) in
            [(vec![Control::Play, Control::Pause], false), (vec![Control::TogglePlay], true), (vec![Control::TogglePlay, Control::TogglePlay], false)]
        {
            act_only(&mut s, open_preset("hotLoop_baseline", false));
            for control in controls.clone() {
                act_only(&mut s, control);
            }
            answer_jobs(&mut s);
            assert_eq!(s.playback().playing, plays, "{controls:?}");
        }
    }

    #[test]
    fn a_large_link_replaces_the_scenario_only_once_it_reads() {
        let mut s = session();
        let before = s.text().to_string();
        let open = |text: String| SessionAction::LoadScenario {
            shared: Shared { text, policies: vec![Policy::Exact], view: Default::default() },
            origin: "the link".into(),
        };
        act_only(&mut s, open(world(50, 1000).replace("site s7 = K7.m", "site s7 = K7.m K7")));
        assert_eq!((s.text(), s.loading_sites()), (before.as_str(), Some(1000)), "the user's text stays while the link is read");
        let (_, fx) = answer_jobs(&mut s);
        assert_eq!(s.text(), before, "a link that does not read changes nothing");
        let (kind, refusal) = fx.banners.last().expect("a banner");
        assert!(*kind == BannerKind::Error && refusal.starts_with("The scenario from the link was not loaded: it does not parse: "), "{refusal}");
        assert!(!fx.call_sites_loaded, "a model on screen stays");
        act_only(&mut s, open(world(50, 1000)));
        let (_, fx) = answer_jobs(&mut s);
        assert_eq!((s.scenario().sites.len(), s.policies().to_vec(), s.history().can_undo()), (1000, vec![Policy::Exact], true));
        assert_eq!((fx.banners.last().map(|b| b.0), fx.call_sites_loaded), (Some(BannerKind::Info), true));
    }

    #[test]
    fn a_link_the_worker_refuses_says_why_and_changes_nothing() {
        let mut s = session();
        let before = s.text().to_string();
        for (text, why) in [
            ("class A extends B { m }\nclass B extends A\nsite s = A.m\nop { loop 10 { call s } }\n", "it does not parse: "),
            ("class A { m }\nsite s = A.m\nop { loop 99999999999999999999999999 { call s } }\n", "it does not parse: "),
            ("class A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }\n", "it cannot run: "),
        ] {
            let fx = act(&mut s, SessionAction::LoadScenario { shared: shared(text), origin: "the link".into() });
            let (kind, refusal) = fx.banners.last().expect("a banner");
            assert!(*kind == BannerKind::Error && refusal.starts_with(&format!("The scenario from the link was not loaded: {why}")), "{refusal}");
            assert_eq!(s.text(), before);
        }
    }

    #[test]
    fn a_run_paused_for_a_reading_plays_on_unless_the_reading_brought_new_lanes() {
        let link =
            |text: String| SessionAction::LoadScenario { shared: Shared { text, policies: vec![], view: Default::default() }, origin: "the link".into() };
        let playing = || {
            let mut s = session();
            act(&mut s, Action::Run(Control::Play));
            assert!(s.playback().playing);
            s
        };
        // A link that does not read, and a text that does not parse: the old lanes stay, and run on.
        for (what, action) in [
            ("refused link", link(world(50, 1000).replace("site s7 = K7.m", "site s7 = Nowhere.m"))),
            ("invalid paste", SessionAction::EditText(world(50, 1000) + "nonsense")),
        ] {
            let mut s = playing();
            let run = s.run_id();
            act_only(&mut s, action);
            assert!(!s.playback().playing, "{what}: paused while it is read");
            answer_jobs(&mut s);
            assert_eq!((s.run_id(), s.playback().playing), (run, true), "{what}: the same run plays on");
        }
        // New lanes start paused at time zero, as after a small text read at once.
        let mut s = playing();
        act_only(&mut s, link(world(50, 1000)));
        answer_jobs(&mut s);
        assert_eq!((s.scenario().sites.len(), s.playback().playing, s.runner().clock_ms()), (1000, false, 0.0));
        // The user's own choice while reading wins: a Step (or Pause, Reset) keeps it paused.
        let mut s = playing();
        act_only(&mut s, SessionAction::EditText(world(50, 1000) + "nonsense"));
        act(&mut s, Action::Run(Control::Step));
        answer_jobs(&mut s);
        assert!(!s.playback().playing, "stepped by hand while reading: stays paused");
        // Only the last of several readings resumes it.
        let mut s = playing();
        act_only(&mut s, link(world(50, 1000).replace("site s7 = K7.m", "site s7 = Nowhere.m")));
        let first = s.take_jobs();
        act_only(&mut s, link(world(50, 1001).replace("site s7 = K7.m", "site s7 = Nowhere.m")));
        act_only(&mut s, SessionAction::Read(crate::worker::offload::decode_reply(&crate::worker::offload::answer(&first[0].bytes)).expect("a reply")));
        assert!(!s.playback().playing, "a second link is still being read");
        answer_jobs(&mut s);
        assert!(s.playback().playing);
    }

    #[test]
    fn starts_on_the_headline_preset_with_two_lanes() {
        let s = session();
        assert_eq!(s.preset().map(|p| p.id), Some(DEFAULT_PRESET));
        assert_eq!(s.runner().views().len(), 2);
        assert!(!s.playback().playing && s.text_error().is_none() && s.run_error().is_none());
    }

    #[test]
    fn loading_and_running_a_preset_finishes_with_results() {
        let mut s = session();
        act(&mut s, open_preset("hotLoop_sameTypeMetaClassChurn", true));
        assert!(s.playback().playing);
        assert!(s.text().contains("hotLoop_sameTypeMetaClassChurn"));
        run_to_end(&mut s);
        assert!(s.runner().finished());
        assert!(s.slow_lanes().iter().all(|l| l.result.is_some()), "charts get the final views");
        assert!(s.total_relinks() > 0);
        act(&mut s, Action::Run(Control::Play));
        assert!(s.playback().playing && s.runner().clock_ms() == 0.0, "Play after the end starts over");
    }

    #[test]
    fn paused_runs_say_so_and_steps_say_what_they_did() {
        let mut s = session();
        assert_eq!((s.run_state(), s.run_state().button_label()), (RunState::Ready, "Run"));
        act(&mut s, Action::Run(Control::Step));
        act(&mut s, Action::Run(Control::Step));
        assert_eq!((s.run_state(), s.run_state().button_label()), (RunState::Paused, "Resume"));
        let (n, note) = s.playback().step_note.clone().expect("a step note");
        assert!(n == 2 && note.contains("fired `"), "{n}: {note}");
        act(&mut s, Action::Run(Control::Play));
        assert_eq!((s.run_state(), s.playback().step_note.clone()), (RunState::Running, None));
        act(&mut s, Action::Run(Control::Pause));
        assert_eq!(s.run_state(), RunState::Paused);
        act(&mut s, Action::Run(Control::Reset));
        assert_eq!(s.run_state(), RunState::Ready);
        run_to_end(&mut s);
        assert_eq!(s.run_state().button_label(), "Run again");
    }

    #[test]
    fn loop_mode_keeps_the_loop_running_for_hand_fired_writes() {
        let mut s = session();
        act(&mut s, open_preset("hotLoop_baseline", false));
        let normal = s.runner().views()[0].total_iterations;
        act(&mut s, SessionAction::ToggleLoop);
        let looped = s.runner().views()[0].total_iterations;
        assert!(looped >= 100 * normal, "{looped} vs {normal}");
        assert!(blast_engine::sim::estimate_work(&looping(s.scenario())) <= blast_engine::sim::MAX_WORK);
        assert_eq!(s.scenario().measure.ops, presets::find("hotLoop_baseline").unwrap().scenario().measure.ops, "the scenario itself is untouched");
        act(&mut s, SessionAction::ToggleLoop);
        assert_eq!(s.runner().views()[0].total_iterations, normal);
    }

    #[test]
    fn frames_advance_by_speed_and_pause_stops_them() {
        let mut s = session();
        act(&mut s, Action::Run(Control::SetSpeed(Speed::Factor(1.0))));
        act(&mut s, Action::Run(Control::Play));
        act(&mut s, Action::Run(Control::FrameStart { wall_dt_ms: 10.0 }));
        act(&mut s, Action::Run(Control::Work { max_steps: 100_000 }));
        act(&mut s, Action::Run(Control::FrameEnd { wall_ms: 0.0 }));
        let t = s.runner().clock_ms();
        assert!((10.0..20.0).contains(&t), "10 wall ms at 1x is about 10 virtual ms, got {t}");
        act(&mut s, Action::Run(Control::Pause));
        act(&mut s, Action::Run(Control::FrameStart { wall_dt_ms: 10.0 }));
        act(&mut s, Action::Run(Control::Work { max_steps: 100_000 }));
        act(&mut s, Action::Run(Control::FrameEnd { wall_ms: 16.0 }));
        assert_eq!(s.runner().clock_ms(), t);
    }

    #[test]
    fn valid_text_updates_the_model_and_invalid_text_is_kept() {
        let mut s = session();
        let before = s.scenario().clone();
        let broken = s.text().replace("class Hot { compute }", "class Hot extends Nowhere { compute }");
        act(&mut s, SessionAction::EditText(broken.clone()));
        assert_eq!(s.text(), broken, "what the user typed is kept");
        let e = s.text_error().expect("error");
        assert!(e.line > 1 && e.message.contains("Nowhere"), "{e:?}");
        assert_eq!(s.scenario(), &before, "the model keeps the last valid version");
        act(&mut s, SessionAction::Edit(EditOp::AddClass { name: "X".into(), parent: None }));
        assert!(s.editor_error().is_some(), "model edits wait for the text to be fixed");
        act(&mut s, SessionAction::RevertText);
        assert!(s.text_error().is_none());
        let fixed = s.text().replace("class Unrelated", "class Unrelated { extra }");
        act(&mut s, SessionAction::EditText(fixed.clone()));
        assert!(s.text_error().is_none());
        assert!(s.scenario().classes.iter().any(|c| c.name == "Unrelated" && c.methods == ["extra"]));
        assert_eq!(s.text(), fixed, "valid text is not re-printed under the user");
        assert!(s.preset().is_none(), "an edited preset no longer claims its published numbers");
    }

    #[test]
    fn a_form_edit_is_applied_by_the_worker_and_a_newer_text_wins_over_it() {
        let mut s = session();
        let original = s.text().to_string();
        act_only(&mut s, SessionAction::Edit(EditOp::AddClass { name: "Added".into(), parent: Some("Hot".into()) }));
        assert_eq!((s.text(), s.document.readings.texts()), (original.as_str(), 1), "the page applies nothing: the worker does");
        answer_jobs(&mut s);
        assert!(s.text().contains("class Added extends Hot") && s.scenario().classes.iter().any(|c| c.name == "Added"), "{}", s.text());
        assert_eq!(**s.scenario(), dsl::parse(s.text()).unwrap(), "the text on screen is the model's");
        assert_eq!(s.runner().views().len(), s.policies().len(), "its lanes, from the scenario the worker holds");
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), original, "one undo step");
        // Refused: said in the form, nothing else changes.
        act(&mut s, SessionAction::Edit(EditOp::AddClass { name: "Hot".into(), parent: None }));
        assert_eq!((s.text(), s.editor_error().is_some_and(|e| e.contains("Hot"))), (original.as_str(), true), "{:?}", s.editor_error());
        // Text typed before the answer is the newer edit: the form's answer is dropped, and so
        // is a form edit waiting for it.
        act_only(&mut s, SessionAction::Edit(EditOp::AddClass { name: "Late".into(), parent: None }));
        act_only(&mut s, SessionAction::Edit(EditOp::AddClass { name: "Later".into(), parent: None }));
        let typed = original.replace("class Unrelated", "class Unrelated { typed }");
        act(&mut s, SessionAction::EditText(typed.clone()));
        assert_eq!(s.text(), typed);
        assert!(!s.scenario().classes.iter().any(|c| c.name.starts_with("Late")) && s.scenario().classes.iter().any(|c| c.methods == ["typed"]));
    }

    #[test]
    fn form_edits_made_before_the_first_is_answered_each_edit_the_text_the_one_before_printed() {
        let mut s = session();
        let original = s.text().to_string();
        for name in ["First", "Second", "Third"] {
            act_only(&mut s, SessionAction::Edit(EditOp::AddClass { name: name.into(), parent: Some("Hot".into()) }));
        }
        act_only(&mut s, SessionAction::Edit(EditOp::AddClass { name: "First".into(), parent: None }));
        assert_eq!(s.document.readings.texts(), 1, "one at a time: the others wait");
        answer_jobs(&mut s);
        for name in ["First", "Second", "Third"] {
            assert!(s.text().contains(&format!("class {name} extends Hot")), "{name} lost:\n{}", s.text());
        }
        assert!(s.editor_error().is_some_and(|e| e.contains("First")), "the fourth is refused on the third's text: {:?}", s.editor_error());
        for _ in 0..3 {
            act(&mut s, SessionAction::Undo);
        }
        assert_eq!(s.text(), original, "three undo steps");
    }

    #[test]
    fn undo_and_redo_cross_form_and_text_edits() {
        let mut s = session();
        let original = s.text().to_string();
        act(&mut s, SessionAction::Edit(EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Expando }));
        let after_form = s.text().to_string();
        act(&mut s, SessionAction::EditText(after_form.replace("class Unrelated", "class Unrelated { typed }")));
        assert!(s.scenario().classes.iter().any(|c| c.methods == ["typed"]));
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), after_form, "the typing is undone");
        assert!(!s.scenario().classes.iter().any(|c| c.methods == ["typed"]), "and the model follows");
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), original, "then the form edit");
        assert!(s.scenario().classes.iter().all(|c| c.metaclass != MetaKind::Expando));
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), original, "nothing more to undo");
        act(&mut s, SessionAction::Redo);
        assert_eq!(s.text(), after_form);
        act(&mut s, open_preset("hotLoop_baseline", false));
        assert!(s.history().can_undo() && !s.history().can_redo(), "a load is one step");
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), after_form, "undoing the load brings back what it replaced");
    }

    #[test]
    fn a_preset_loaded_over_an_edit_keeps_it_one_undo_away_and_in_the_picker() {
        let mut s = session();
        assert!(!s.has_own(), "a preset as loaded is nobody's own scenario");
        let edited = s.text().replace("class Unrelated", "class Unrelated { mine }");
        act(&mut s, SessionAction::EditText(edited.clone()));
        assert!(s.has_own());
        for run in [false, true] {
            let fx = act(&mut s, open_preset("hotLoop_baseline", run));
            assert!(fx.call_sites_loaded);
            assert_eq!((s.scenario().name.as_str(), s.own()), ("hotLoop_baseline", Some(edited.as_str())), "kept for the picker");
            act(&mut s, SessionAction::Undo);
            assert_eq!(s.text(), edited, "one undo step back to the edit");
            assert!(s.scenario().classes.iter().any(|c| c.methods == ["mine"]), "and the model follows");
            act(&mut s, SessionAction::Redo);
            assert_eq!(s.scenario().name, "hotLoop_baseline");
            act(&mut s, SessionAction::OpenOwn);
            assert_eq!(s.text(), edited, "the picker's Your scenario brings it back");
            assert!(s.preset().is_none());
        }
        // Loading one preset after another keeps the edit, not the presets.
        act(&mut s, open_preset("hotLoop_baseline", false));
        act(&mut s, open_preset(DEFAULT_PRESET, false));
        assert_eq!(s.own(), Some(edited.as_str()));
        // An edit of a loaded preset and the kept one swap places.
        let second = s.text().replace("class Unrelated", "class Unrelated { second }");
        act(&mut s, SessionAction::EditText(second.clone()));
        act(&mut s, SessionAction::OpenOwn);
        assert_eq!((s.text(), s.own()), (edited.as_str(), Some(second.as_str())));
    }

    #[test]
    fn a_link_opened_over_an_edit_keeps_it() {
        let mut s = session();
        let edited = s.text().replace("class Unrelated", "class Unrelated { mine }");
        act(&mut s, SessionAction::EditText(edited.clone()));
        let text = presets::find("hotLoop_baseline").unwrap().text.to_string();
        let shared = Shared { text, policies: vec![Policy::Exact], view: Default::default() };
        act(&mut s, SessionAction::LoadScenario { shared, origin: "the link".into() });
        assert_eq!((s.scenario().name.as_str(), s.own()), ("hotLoop_baseline", Some(edited.as_str())));
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), edited);
        // A big link, read by the worker, too.
        act(
            &mut s,
            SessionAction::LoadScenario { shared: Shared { text: world(50, 1000), policies: vec![], view: Default::default() }, origin: "the link".into() },
        );
        answer_jobs(&mut s);
        assert_eq!((s.scenario().sites.len(), s.own()), (1000, Some(edited.as_str())));
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), edited);
    }

    #[test]
    fn a_link_carries_the_speed_and_the_selected_site() {
        let mut sharer = session();
        let site = sharer.scenario().sites[1].name.to_string();
        act(&mut sharer, SessionAction::SelectSite(Some(site.clone())));
        let speed = crate::playback::SPEEDS[5];
        act(&mut sharer, Control::SetSpeed(speed));
        let fragment = share::encode(&sharer.shareable_text(), sharer.policies(), &sharer.link_view()).unwrap();
        let Ok(Some(Link::Scenario(shared))) = share::decode(&fragment) else { panic!("{fragment}") };
        let mut opener = session();
        assert_ne!((opener.playback().speed, opener.selected_site()), (speed, Some(site.as_str())));
        act(&mut opener, SessionAction::LoadScenario { shared, origin: "the link".into() });
        assert_eq!((opener.playback().speed, opener.selected_site()), (speed, Some(site.as_str())));
        // Read by the engine worker (a big text), the view waits for the scenario.
        let big = world(50, 1000);
        let fragment = share::encode(&big, &[], &share::LinkView { speed: Some(speed), site: Some("s999".into()) }).unwrap();
        let Ok(Some(Link::Scenario(shared))) = share::decode(&fragment) else { panic!("big link") };
        let mut opener = session();
        act(&mut opener, SessionAction::LoadScenario { shared, origin: "the link".into() });
        answer_jobs(&mut opener);
        assert_eq!((opener.scenario().sites.len(), opener.selected_site()), (1000, Some("s999")));
        // A site the scenario does not have selects none, and the page says so.
        let text = presets::find("hotLoop_baseline").unwrap().text;
        let fragment = share::encode(text, &[], &share::LinkView { speed: None, site: Some("nowhere".into()) }).unwrap();
        let Ok(Some(Link::Scenario(shared))) = share::decode(&fragment) else { panic!("link") };
        let fx = act(&mut opener, SessionAction::LoadScenario { shared, origin: "the link".into() });
        assert_eq!(opener.selected_site(), None);
        assert!(fx.banners.iter().any(|(_, text)| text.contains("nowhere") && text.contains("not in it")), "{:?}", fx.banners);
    }

    #[test]
    fn a_blank_scenario_runs_and_undo_brings_the_old_one_back() {
        let mut s = session();
        let before = s.text().to_string();
        act(&mut s, SessionAction::NewScenario);
        assert_eq!((s.scenario().name.as_str(), s.scenario().classes.len(), s.run_error()), ("untitled", 1, None));
        assert!(s.preset().is_none());
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.text(), before);
        act(&mut s, SessionAction::Edit(EditOp::DeleteClass("Unrelated".into())));
        let why = s.editor_error().unwrap_or_default();
        assert!(why.contains("event(s)") && why.contains("scenario text"), "the form says where to change what it cannot: {why}");
    }

    #[test]
    fn model_edits_reprint_the_text() {
        let mut s = session();
        act(&mut s, SessionAction::Edit(EditOp::SetMetaclass { class: "Hot".into(), kind: MetaKind::Expando }));
        assert!(s.text().contains("class Hot metaclass expando { compute }"), "{}", s.text());
        act(&mut s, SessionAction::Edit(EditOp::Reparent { class: "HierParent".into(), parent: Some("HierChild".into()) }));
        assert!(s.editor_error().unwrap_or("").contains("cyclic"));
        assert!(!s.text().contains("HierParent extends"));
    }

    #[test]
    fn policies_toggle_in_canonical_order_and_never_empty() {
        let mut s = session();
        act(&mut s, SessionAction::TogglePolicy(Policy::Ideal));
        act(&mut s, SessionAction::TogglePolicy(Policy::Hierarchy));
        assert_eq!(s.policies(), [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal]);
        assert_eq!(s.runner().views().len(), 4);
        let refusals: usize = [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal]
            .into_iter()
            .map(|p| act(&mut s, SessionAction::TogglePolicy(p)).banners.len())
            .sum();
        assert_eq!(s.policies(), [Policy::Ideal]);
        assert_eq!(refusals, 1);
    }

    #[test]
    fn ticking_a_policy_mid_run_restarts_the_run_and_keeps_it_running() {
        let mut s = session();
        act(&mut s, open_preset("parentChild_parentMetaClassChurn", true));
        for frame in 0..3 {
            act(&mut s, Action::Run(Control::FrameStart { wall_dt_ms: 16.0 }));
            act(&mut s, Action::Run(Control::Work { max_steps: 50 }));
            act(&mut s, Action::Run(Control::FrameEnd { wall_ms: f64::from(frame) * 16.0 }));
        }
        assert!(s.runner().clock_ms() > 0.0 && s.run_state() == RunState::Running, "{:?}", s.run_state());
        let fx = act(&mut s, SessionAction::TogglePolicy(Policy::Hierarchy));
        assert_eq!(s.runner().views().len(), 3);
        assert_eq!(s.run_state(), RunState::Running, "the run goes on");
        assert!(fx.banners.iter().any(|(_, t)| t.contains("restarted from time zero under global, exact, hierarchy; it is running again")), "{:?}", fx.banners);
        run_to_end(&mut s);
        assert!(s.runner().views().iter().all(|l| l.iterations > 0), "every lane ran, the new one too");
        // Paused part-way: restarted, paused, and said so.
        act(&mut s, open_preset("parentChild_parentMetaClassChurn", false));
        act(&mut s, Action::Run(Control::Step));
        let fx = act(&mut s, SessionAction::TogglePolicy(Policy::Ideal));
        assert_eq!(s.run_state(), RunState::Ready);
        assert!(fx.banners.iter().any(|(_, t)| t.contains("press Run")), "{:?}", fx.banners);
        // Before any run: nothing to say.
        assert!(act(&mut s, SessionAction::TogglePolicy(Policy::Ideal)).banners.is_empty());
    }

    #[test]
    fn firing_a_write_mid_run_relinks() {
        let mut s = session();
        act(&mut s, open_preset("hotLoop_baseline", false));
        for _ in 0..6 {
            act(&mut s, Action::Run(Control::Step));
        }
        assert_eq!(s.total_relinks(), 0);
        act(&mut s, SessionAction::Fire(Event::Write { class: "Hot".into(), method: "dyn0".into() }));
        assert_eq!(s.last_fire(), Some(&FireOutcome::Fired { label: "write Hot.dyn0".into(), lanes: 2 }));
        run_to_end(&mut s);
        assert!(s.total_relinks() > 0);
        act(&mut s, SessionAction::Fire(Event::InvalidateAll));
        assert!(matches!(s.last_fire(), Some(&FireOutcome::Refused(_))), "a finished run takes no events");
    }

    #[test]
    fn hover_shows_what_if_per_policy() {
        let mut s = session();
        for _ in 0..8 {
            act(&mut s, Action::Run(Control::Step));
        }
        act(&mut s, SessionAction::HoverClass(Some("Hot".into())));
        assert_eq!(s.what_if().len(), 2);
        assert!(s.what_if()[1].1.iter().all(|site| site == "hot"), "{:?}", s.what_if());
        act(&mut s, SessionAction::HoverClass(None));
        assert!(s.what_if().is_empty());
    }

    #[test]
    fn a_shared_scenario_replaces_the_current_one() {
        let mut s = session();
        let text = presets::find("oracle_liveParentRedefine").unwrap().text;
        let fx = act(&mut s, SessionAction::LoadScenario { shared: shared(text), origin: "the link".into() });
        assert_eq!(s.scenario().name, "oracle_liveParentRedefine");
        assert_eq!(s.preset().map(|p| p.id), Some("oracle_liveParentRedefine"));
        assert_eq!(fx.banners.last().map(|b| b.0), Some(BannerKind::Info));
    }

    #[test]
    fn an_unrunnable_scenario_is_reported_not_run() {
        let mut s = session();
        let text = "class A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }\n";
        act(&mut s, SessionAction::EditText(text.into()));
        assert!(s.text_error().is_none());
        assert!(s.run_error().is_some());
        let fx = act(&mut s, Action::Run(Control::Play));
        assert!(!s.playback().playing);
        assert_eq!(fx.banners.last().map(|b| b.0), Some(BannerKind::Error));
    }

    #[test]
    fn expectations_go_from_pending_to_decided_and_a_cause_selects_its_site() {
        let mut s = session();
        act(&mut s, open_preset("oracle_liveParentRedefine", false));
        assert!(s.expectations().iter().all(|o| o.status == blast_engine::expect::Status::Pending), "nothing run yet");
        // The preset reads hierarchy and ideal runs as well: adding the lanes decides them all.
        act(&mut s, SessionAction::AddPolicies(vec![Policy::Hierarchy, Policy::Ideal]));
        assert_eq!(s.policies(), vec![Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::Ideal]);
        run_to_end(&mut s);
        assert!(s.expectations().iter().all(|o| o.status == blast_engine::expect::Status::Pass), "{:?}", s.expectations());
        // A failing expectation typed into the text fails, with a cause the why panel can show.
        let text = format!("{}expect under global: write Parent.* relinks nothing\n", presets::find("oracle_liveParentRedefine").unwrap().text);
        act(&mut s, SessionAction::EditText(text));
        run_to_end(&mut s);
        let failed = s.expectations().iter().find(|o| o.status == blast_engine::expect::Status::Fail).expect("the new line fails");
        let cause = failed.causes[0].clone();
        act(&mut s, SessionAction::ShowCause(cause.clone()));
        assert_eq!(s.selected_site(), Some(cause.site.as_str()));
        assert_eq!(s.focused_cause(), Some(&cause));
        act(&mut s, Action::Run(Control::Reset));
        assert_eq!(s.focused_cause(), None, "a new run drops the old run's cause");
    }

    #[test]
    fn selecting_a_site_fills_the_why_history() {
        let mut s = session();
        act(&mut s, open_preset("hotLoop_sameTypeMetaClassChurn", false));
        act(&mut s, SessionAction::SelectSite(Some("hot".into())));
        run_to_end(&mut s);
        assert!(s.runner().views().iter().all(|l| !l.history.is_empty()));
        act(&mut s, SessionAction::SelectSite(Some("no-such-site".into())));
        assert_eq!(s.selected_site(), None);
    }
}
