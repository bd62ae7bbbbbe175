//! The whole page state: seven sub-states, each with its own reducer, and the router between.
//!
//! Every change goes through [`AppState::reduce`]: user intents, frame ticks from the
//! animation loop, and facts from the browser and the engine worker (a link pasted into the
//! address bar; the worker's answers, among them the autosave and a link it opened). It routes
//! each action to the sub-state it belongs to:
//! - run controls to the playback of the lanes on screen (`playback::control` over the
//!   call-site session or the model session: one path for both);
//! - chrome actions (theme, cheat sheet, banners, tour) to `chrome::Chrome`;
//! - the measured panel's result and its fit to `lab::Lab`;
//! - model knobs and variants to `model_mode::ModelSession`;
//! - the timeline's axis, zoom, brush and mark to `timeline::TimelineState` (the brushed
//!   range goes on to the call-site lanes);
//! - everything about the scenario to `session::CallSiteSession`;
//! - the trace lab's log and view to `trace_lab::TraceLab`;
//! - share links and autosave entries the worker makes to `packing::Packing`.
//!
//! The router itself opens the autosave and links the worker read (`Opened`).
//! Sub-reducers never reach into each other: they report banners and a loaded scenario in
//! `effects::Effects`, which this module applies. No browser API is touched here, so the
//! page's behaviour is tested natively; `blast-web` only forwards actions and renders.

use blast_engine::Policy;

use crate::action::Action;
use crate::charts;
use crate::chrome::{BannerKind, Chrome, ChromeAction, Theme};
use crate::effects::Effects;
use crate::export::{self, Download};
use crate::gallery::{self, Entry, Opening};
use crate::lab::Lab;
use crate::model_mode::{self, ModelAction, ModelLink, ModelSession};
use crate::packing::{Clip, Packing, ToStore};
use crate::playback::{self, Control, Playback, Speed};
use crate::session::{CallSiteSession, SessionAction};
use crate::share::{LinkError, LinkSource};
use crate::storage::{SaveError, Saved, SetAside};
use crate::timeline::{self, Mark, TimelineAction, TimelineState, XAxis};
use crate::trace_lab::{TraceAction, TraceLab};
use crate::worker::offload::Posting;
use crate::worker::open_wire::{self, Sealed, Unsealed};
use crate::worker::wire::Unanswered;

/// The speed of a first visit's autoplay. The headline preset's slowest lane (global) runs
/// ~3 s of virtual time, so at 1x its ratio is on screen about 3 s after the page is built (at
/// the default 0.1x it took 30 s); `a_first_visit_reaches_the_headline_ratio_within_seconds`
/// holds the run under `FIRST_PLAY_WALL_MS` at this speed.
pub const FIRST_PLAY_SPEED: Speed = Speed::Factor(1.0);
/// The wall time a first visit's run may take at `FIRST_PLAY_SPEED` (the page's build and
/// first frames come on top: the e2e prints the whole time to the ratio).
pub const FIRST_PLAY_WALL_MS: f64 = 4_500.0;

/// What the browser found at start-up.
#[derive(Clone, Debug, Default)]
pub struct Boot {
    /// The autosave's stored entry (the engine worker reads it), or why it was set aside
    /// unread.
    pub saved: Option<Result<String, SetAside>>,
    /// The URL fragment, with its `#` (the engine worker reads it), or why it was refused
    /// unread (its length).
    pub shared: Option<Result<String, LinkError>>,
    /// The theme the page last showed (`storage::THEME_KEY`): the first paint's, before the
    /// autosave is read.
    pub theme: Option<Theme>,
    /// The last visit died opening a link or the autosave (see `browser::boot`): why this
    /// visit did not open it again.
    pub notice: Option<String>,
    /// The guided tour was dismissed (or finished) on an earlier visit.
    pub tour_done: bool,
    /// The autosave is older than what was on screen at the last visit: the value of
    /// `storage::STALE_KEY` (the text's length that could not be kept).
    pub stale_autosave: Option<String>,
}

/// What the autosave and the share link depend on, without the text itself.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveKey {
    text_rev: u64,
    policies: Vec<Policy>,
    speed: Speed,
    theme: Theme,
    entry: Option<Entry>,
    model: Option<ModelLink>,
}

/// The autosave and links handed to the engine worker to open (`open_wire`), oldest first.
#[derive(Debug, Default)]
struct Openings {
    /// The last job's id (ids start at 1).
    last: u64,
    outbox: Vec<Posting>,
    /// Jobs not answered yet, with what each carried.
    pending: std::collections::VecDeque<(u64, Carried)>,
    /// `storage::STALE_KEY`'s value at start-up, said once the autosave is restored.
    stale: Option<String>,
    /// The autosave was not opened (no engine worker): this visit must not save over it.
    hold: bool,
    /// An autosave the worker could not read, for the shell to set aside.
    unreadable: Option<SaveError>,
}

/// What an opening job carried.
#[derive(Clone, Copy, Debug)]
struct Carried {
    autosave: bool,
    link: bool,
}

impl Openings {
    fn ask(&mut self, sealed: &Sealed) {
        self.last += 1;
        self.outbox.push(Posting { id: self.last, bytes: open_wire::encode_job(self.last, sealed) });
        self.pending.push_back((self.last, Carried { autosave: sealed.autosave.is_some(), link: sealed.link.is_some() }));
    }

    /// What job `id` carried, once: `None` for an answer nothing awaits.
    fn answered(&mut self, id: u64) -> Option<Carried> {
        let at = self.pending.iter().position(|(job, _)| *job == id)?;
        self.pending.remove(at).map(|(_, sent)| sent)
    }
}

#[derive(Default)]
pub struct AppState {
    /// The call-site scenario and its lanes (kept behind a model on screen).
    pub session: CallSiteSession,
    /// Model mode: a model preset replaces the call-site scenario on screen.
    pub model: Option<ModelSession>,
    pub timeline: TimelineState,
    pub chrome: Chrome,
    /// The measured panel: an imported probe result and its fit.
    pub lab: Lab,
    /// The trace lab: a runtime log read by the engine worker, and its view.
    pub trace: TraceLab,
    /// Share links and autosave entries being made by the engine worker, and the share strip.
    pub packing: Packing,
    /// The autosave and links being opened by the engine worker.
    opening: Openings,
    /// Model sessions opened so far (each numbers its replays under its own number).
    model_openings: u64,
    /// A file for the shell to download (`take_download`).
    download: Option<Download>,
}

impl AppState {
    /// The page as a first visit sees it.
    pub fn new() -> AppState {
        AppState::default()
    }

    /// Start-up: a share link wins over the autosave; anything unreadable is reported. A first
    /// visit (nothing saved, no link) runs the headline comparison once mounted, with the tour.
    /// The autosave and the link are read by the engine worker (`open_wire`); until it answers
    /// the page shows that it is opening them (`opening`), and then applies them in that order.
    pub fn boot(boot: Boot) -> AppState {
        let mut state = AppState::new();
        state.chrome.tour = (!boot.tour_done).then_some(0);
        state.chrome.theme = boot.theme.unwrap_or_default();
        state.chrome.autoplay = boot.saved.is_none() && boot.shared.is_none() && boot.notice.is_none();
        let mut sealed = Sealed::default();
        match boot.saved {
            Some(Ok(entry)) => {
                sealed.autosave = Some(entry);
                state.opening.stale = boot.stale_autosave;
            }
            Some(Err(why)) => state.set_aside(why),
            None => {}
        }
        if let Some(notice) = boot.notice {
            state.chrome.banner(BannerKind::Error, notice);
        }
        match boot.shared {
            Some(Ok(fragment)) => sealed.link = Some(fragment),
            Some(Err(refusal)) => state.chrome.banner(BannerKind::Error, refusal.to_string()),
            None => {}
        }
        if sealed != Sealed::default() {
            state.opening.ask(&sealed);
        }
        if state.chrome.autoplay {
            // The cheap policy's lane ends in ~1% of the expensive one's virtual time: on the
            // normalized axis both lines span the chart, so exact's is readable, not a sliver.
            state.timeline.axis = XAxis::Progress;
        }
        state
    }

    /// An autosave that was not opened, moved aside (by the page shell: `take_set_aside`).
    fn set_aside(&mut self, aside: SetAside) {
        self.chrome.banner(BannerKind::Error, format!("Your autosaved session could not be read ({aside}). It was set aside; the page started fresh."));
    }

    /// What the engine worker opened (`open_wire`): the autosave restored, then the link
    /// opened over it; or why not.
    fn opened(&mut self, id: u64, answer: Result<Unsealed, Unanswered>) {
        let Some(carried) = self.opening.answered(id) else { return };
        let unsealed = match answer {
            Ok(unsealed) => unsealed,
            Err(why) => {
                if carried.autosave {
                    self.opening.hold = true;
                    self.chrome.banner(
                        BannerKind::Error,
                        format!("Your autosaved session was not opened ({why}): it is kept as it was, and this visit does not save over it."),
                    );
                }
                if carried.link {
                    self.chrome.banner(BannerKind::Error, format!("The link was not opened: {why}."));
                }
                return;
            }
        };
        match unsealed.autosave {
            Some(Ok(saved)) => {
                self.restore(saved);
                if let Some(bytes) = self.opening.stale.take() {
                    self.chrome.banner(BannerKind::Error, crate::storage::stale_notice(&bytes));
                }
            }
            Some(Err(why)) => self.opening.unreadable = Some(why),
            None => {}
        }
        match unsealed.link {
            Some(Ok(Some(link))) => self.reduce(Action::open_link(link, "the link")),
            Some(Err(refusal)) => self.chrome.banner(BannerKind::Error, refusal),
            Some(Ok(None)) | None => {}
        }
    }

    fn restore(&mut self, saved: Saved) {
        self.chrome.theme = saved.theme;
        self.session.restore(saved.scenario_text, saved.preset.as_deref(), &saved.policies, saved.speed, saved.own_text);
        if let Some(link) = saved.model {
            match model_mode::resolve(&link) {
                Ok(resolved) => {
                    self.model_openings += 1;
                    self.model = Some(ModelSession::open(resolved, link.knobs, self.session.playback().speed, self.model_openings))
                }
                Err(why) => {
                    self.chrome.banner(BannerKind::Error, format!("The autosaved model could not be reopened ({why}); the call-site scenario is shown."))
                }
            }
        }
    }

    /// The autosave or a link is being opened by the engine worker: the page says what (this
    /// note), and saves nothing until it has been applied.
    pub fn opening_note(&self) -> Option<&'static str> {
        let (_, carried) = self.opening.pending.front()?;
        Some(match carried.link {
            true => "Opening the link… (read by the engine worker)",
            false => "Opening your last session… (read by the engine worker)",
        })
    }

    pub fn is_opening(&self) -> bool {
        !self.opening.pending.is_empty()
    }

    /// The autosave could not be opened (no engine worker): this visit must not save over it.
    pub fn holds_autosave(&self) -> bool {
        self.opening.hold
    }

    /// What a share link for what is on screen carries: the model session in model mode, else
    /// the scenario text and the selected policies (the engine worker makes the link, and says
    /// when none can carry the scenario: `packing`).
    pub fn share_source(&self) -> LinkSource {
        match &self.model {
            Some(m) => LinkSource::Model(m.link()),
            None => LinkSource::Scenario { text: self.session.shareable_text(), policies: self.session.policies().to_vec(), view: self.session.link_view() },
        }
    }

    /// Changes whenever `saved()` or `share_source()` would (cheap to compare per frame).
    pub fn save_key(&self) -> SaveKey {
        SaveKey {
            text_rev: self.session.text_rev(),
            policies: self.session.policies().to_vec(),
            speed: self.session.playback().speed,
            theme: self.chrome.theme,
            entry: self.session.entry(),
            model: self.model.as_ref().map(ModelSession::link),
        }
    }

    pub fn saved(&self) -> Saved {
        let s = &self.session;
        let model = self.model.as_ref().map(ModelSession::link);
        let own_text = s.own().map(str::to_string);
        Saved { model, own_text, ..Saved::new(s.text().to_string(), s.policies().to_vec(), s.playback().speed, self.chrome.theme, s.entry().map(|e| e.id())) }
    }

    /// The playback of the lanes on screen (the model's in model mode).
    pub fn playback(&self) -> &Playback {
        self.model.as_ref().map_or(self.session.playback(), |m| &m.playback)
    }

    pub fn is_playing(&self) -> bool {
        self.playback().playing
    }

    /// The speed of the mode on screen.
    pub fn current_speed(&self) -> Speed {
        self.playback().speed
    }

    /// More engine work is due this frame (the frame loop keeps going while its budget lasts).
    pub fn is_behind(&self) -> bool {
        self.playback().is_behind()
    }

    /// The jobs to hand to the engine worker now (the page shell posts them after each render).
    pub fn take_jobs(&mut self) -> Vec<Posting> {
        self.session.take_jobs()
    }

    /// The measured panel's fit job for the engine worker, to post now (`fit_wire`).
    pub fn take_fit(&mut self) -> Option<Posting> {
        self.lab.take_fit()
    }

    /// The trace lab's messages for the engine worker, to post now (`trace_lab`).
    pub fn take_trace(&mut self) -> Vec<crate::trace_lab::Outgoing> {
        self.trace.take_outgoing()
    }

    /// The model replay's commands for the engine worker, to post now (`model_wire`).
    pub fn take_model(&mut self) -> Option<crate::worker::model_wire::Request> {
        self.model.as_mut().and_then(ModelSession::take_request)
    }

    /// Commands for the lanes the engine worker runs, to post now (`lanes`).
    pub fn take_lanes(&mut self) -> Option<crate::worker::lane_wire::Request> {
        self.session.take_lanes()
    }

    /// A file to download now (the page shell hands it to the browser after each render).
    pub fn take_download(&mut self) -> Option<Download> {
        self.download.take()
    }

    /// Share links and autosave entries for the engine worker to make, to post now (`packing`).
    pub fn take_packs(&mut self) -> Vec<Posting> {
        self.packing.take_jobs()
    }

    /// The autosave and links for the engine worker to open, to post now (`open_wire`).
    pub fn take_openings(&mut self) -> Vec<Posting> {
        std::mem::take(&mut self.opening.outbox)
    }

    /// An autosave the engine worker could not read, for the page shell to move aside (it
    /// answers with `Action::SetAside`).
    pub fn take_set_aside(&mut self) -> Option<SaveError> {
        self.opening.unreadable.take()
    }

    /// A made link to copy to the clipboard now.
    pub fn take_clip(&mut self) -> Option<Clip> {
        self.packing.take_clip()
    }

    /// A made autosave entry to store now (or why the session was not saved).
    pub fn take_entry(&mut self) -> Option<ToStore> {
        self.packing.take_entry()
    }

    pub fn reduce(&mut self, action: impl Into<Action>) {
        self.reduce_action(action.into());
    }

    fn reduce_action(&mut self, action: Action) {
        let run = self.session.run_id();
        let mut fx = Effects::default();
        self.route(action, &mut fx);
        if fx.call_sites_loaded {
            self.model = None;
        }
        if self.session.run_id() != run {
            // A new run: the old one's times mean nothing on it (the new lanes have no brush).
            self.timeline = TimelineState { axis: self.timeline.axis, ..TimelineState::default() };
        }
        // Something opened, or lanes that replace others (not the default session's first
        // ones, which come when the engine worker has read it): a first visit's comparison is
        // no longer started for the user.
        if fx.call_sites_loaded || (self.session.run_id() != run && run != 0) {
            self.chrome.autoplay = false;
        }
        for (kind, text) in fx.banners {
            self.chrome.banner(kind, text);
        }
        if fx.download.is_some() {
            self.download = fx.download;
        }
    }

    fn route(&mut self, action: Action, fx: &mut Effects) {
        match action {
            Action::Run(control) => match self.model.as_mut() {
                // A model replay is never refused.
                Some(m) => {
                    let _ = playback::control(m, control);
                }
                None => self.session.control(control, fx),
            },
            Action::Chrome(chrome) => self.chrome.reduce(chrome),
            Action::Lab(lab) => self.lab.reduce(lab),
            Action::Trace(trace) => self.trace.reduce(trace),
            Action::OpenFragment(fragment) => self.opening.ask(&Sealed { autosave: None, link: Some(fragment) }),
            Action::Opened { id, answer } => self.opened(id, *answer),
            Action::SetAside(aside) => self.set_aside(aside),
            Action::Pack(pack) => {
                if let Some(note) = self.packing.reduce(pack) {
                    self.trace.reduce(TraceAction::Linked(Some(note)));
                }
            }
            Action::Model(model) => {
                if let Some(m) = self.model.as_mut() {
                    m.reduce(model, fx);
                }
            }
            Action::Timeline(timeline) => self.timeline_action(timeline),
            Action::Session(action) if action.is_hand_mutation() && self.model.is_some() => {
                fx.info("Hand-fired mutations go into call-site scenarios; a model preset is on screen.".into());
            }
            Action::Session(action) => self.session.reduce(action, fx),
            Action::LoadPreset { id, run } => match gallery::open(&id) {
                Ok(Opening::Scenario(opened)) => self.session.reduce(SessionAction::OpenEntry { opened, run }, fx),
                Ok(Opening::Model(link)) => {
                    if let Some(m) = self.open_model(&link, "The model preset could not be opened:", fx) {
                        if run {
                            let _ = playback::control(m, Control::Play);
                        }
                    }
                }
                Err(why) => fx.error(why.to_string()),
            },
            Action::ExportResults => match &self.model {
                Some(m) => fx.download = Some(Download::results(m.preset.id, export::model_csv(m.preset.id, m.runner.views()))),
                None => self.session.export_results(fx),
            },
            Action::LoadModelLink { link, origin } => {
                if self.open_model(&link, &format!("The model from {origin} was not loaded:"), fx).is_some() {
                    fx.info(format!("Loaded model preset “{}” from {origin}.", link.preset));
                }
            }
            Action::ToggleLane(index) => match self.model.as_mut() {
                Some(m) => {
                    if let Some(variant) = m.variant_at(index) {
                        m.reduce(ModelAction::ToggleVariant(variant.to_string()), fx);
                    }
                }
                None => {
                    if let Some(&policy) = Policy::ALL.get(index) {
                        self.session.reduce(SessionAction::TogglePolicy(policy), fx);
                    }
                }
            },
            Action::CloseOverlays => {
                self.chrome.reduce(ChromeAction::CloseHelp);
                self.session.hover(None);
            }
            Action::Autoplay => {
                if std::mem::take(&mut self.chrome.autoplay) {
                    self.session.control(Control::SetSpeed(FIRST_PLAY_SPEED), fx);
                    self.session.control(Control::Play, fx);
                }
            }
        }
    }

    /// The timeline's axis, zoom, brush and mark.
    fn timeline_action(&mut self, action: TimelineAction) {
        match action {
            TimelineAction::SetAxis(axis) => {
                if axis != self.timeline.axis {
                    self.timeline = TimelineState { axis, mark: self.timeline.mark.take(), ..TimelineState::default() };
                    self.apply_brush();
                }
            }
            TimelineAction::SetView(view) => self.timeline.view = timeline::valid(view),
            TimelineAction::Brush(range) => {
                self.timeline.brush = timeline::valid(range);
                self.apply_brush();
            }
            TimelineAction::MarkRelink(mark) => self.mark_relink(mark),
        }
    }

    /// Hand the brushed range to the call-site lanes.
    fn apply_brush(&mut self) {
        self.session.brush(self.timeline.brush.map(|r| (self.timeline.axis, r)));
    }

    /// Mark a relink's moment on the charts, bring it into the zoom window, select its site.
    fn mark_relink(&mut self, mark: Mark) {
        let axis = self.timeline.axis;
        let lanes = self.session.slow_lanes();
        if let Some(lane) = lanes.iter().find(|l| l.policy == mark.policy) {
            let x = timeline::x_of_time(&lane.timeline, lane.total_iterations, axis, mark.t_ms);
            self.timeline.view = timeline::reveal(self.timeline.view, charts::x_max(lanes, axis), x);
        }
        self.session.select_site(Some(mark.site.clone()));
        self.timeline.mark = Some(mark);
    }

    /// Switch to model mode for `link`; on failure a banner starting with `refusal` says why.
    fn open_model(&mut self, link: &ModelLink, refusal: &str, fx: &mut Effects) -> Option<&mut ModelSession> {
        match model_mode::resolve(link) {
            Ok(resolved) => {
                self.session.set_aside();
                self.timeline = TimelineState { axis: self.timeline.axis, ..TimelineState::default() };
                let speed = self.current_speed();
                self.model_openings += 1;
                Some(self.model.insert(ModelSession::open(resolved, link.knobs.clone(), speed, self.model_openings)))
            }
            Err(why) => {
                fx.error(format!("{refusal} {why}"));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome::BannerKind;
    use crate::headline::Headline;
    use crate::session::tests::shared;
    use crate::session::{FireOutcome, DEFAULT_PRESET};
    use crate::share::{Link, LinkKind, LinkProblem};
    use crate::worker::in_process;
    use blast_engine::presets;
    use blast_engine::scenario::Event;

    /// A page booted, its texts read by the engine worker.
    /// The autosave's entry for `saved`, as the page stores it.
    fn entry(saved: &Saved) -> String {
        crate::storage::encode(saved).expect("an entry")
    }

    /// A URL fragment (with its `#`) carrying `link`.
    fn fragment(link: &Link) -> String {
        let made = match link {
            Link::Scenario(s) => crate::share::encode(&s.text, &s.policies, &s.view).expect("a link"),
            Link::Model(m) => crate::share::encode_model(m),
            Link::Trace(t) => crate::share::encode_trace(&t.name, &t.log, t.tree.as_ref()).expect("a link"),
        };
        format!("#{made}")
    }

    fn booted(boot: Boot) -> AppState {
        let mut s = AppState::boot(boot);
        in_process::pump(&mut s, &mut Effects::default());
        s
    }

    /// One action, answered by the engine worker.
    fn act(s: &mut AppState, action: impl Into<Action>) {
        s.reduce(action);
        in_process::pump(s, &mut Effects::default());
    }

    fn run_to_end(s: &mut AppState) {
        act(s, Action::Run(Control::SetSpeed(Speed::Max)));
        act(s, Action::Run(Control::Play));
        run_frames(s);
    }

    /// Frames as the page runs them (work until caught up) until the lanes on screen stop.
    fn run_frames(s: &mut AppState) {
        for frame in 0..10_000 {
            act(s, Action::Run(Control::FrameStart { wall_dt_ms: 16.0 }));
            loop {
                act(s, Action::Run(Control::Work { max_steps: 5000 }));
                if !s.is_behind() {
                    break;
                }
            }
            act(s, Action::Run(Control::FrameEnd { wall_ms: frame as f64 * 16.0 }));
            if !s.is_playing() {
                return;
            }
        }
        panic!("the run did not finish");
    }

    #[test]
    fn a_model_preset_opens_model_mode_and_replays_to_the_engine_numbers() {
        let mut s = AppState::new();
        act(&mut s, Action::Run(Control::SetSpeed(Speed::Max)));
        act(&mut s, Action::LoadPreset { id: "arena_closeGroup".into(), run: true });
        let m = s.model.as_ref().expect("model mode");
        assert!(s.is_playing() && m.playback.speed == Speed::Max, "max stays max");
        assert_eq!(m.variants, ["always", "scoped-access", "session-live", "no-deopt"], "all variants by default");
        run_frames(&mut s);
        let m = s.model.as_ref().unwrap();
        let value = |variant: &str| m.slow_views.iter().find(|v| v.variant == variant).and_then(|v| v.result()).map(|r| r.value).expect(variant);
        assert!(value("scoped-access") >= 4.0 * value("no-deopt"));
        assert_eq!(s.session.scenario().name, DEFAULT_PRESET, "the call-site scenario waits behind");
        act(&mut s, Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        assert!(s.model.is_none() && s.session.scenario().name == "hotLoop_baseline");
    }

    #[test]
    fn the_results_csv_is_handed_out_once_for_the_run_or_the_model_on_screen() {
        let mut s = booted(Boot::default());
        act(&mut s, Action::Run(Control::Step));
        s.reduce(Action::ExportResults);
        assert_eq!(s.take_download(), None, "a run's CSV waits for the worker's call counts");
        in_process::pump(&mut s, &mut Effects::default());
        let csv = s.take_download().expect("the run's CSV");
        assert_eq!((csv.file.as_str(), csv.mime), (format!("{DEFAULT_PRESET}-results.csv").as_str(), "text/csv"));
        let sites = s.session.scenario().sites.len() * s.session.policies().len();
        assert_eq!(csv.text.lines().filter(|l| l.contains(",site,")).count(), sites, "{}", csv.text);
        assert_eq!(s.take_download(), None, "handed out once");
        act(&mut s, Action::LoadPreset { id: "arena_closeGroup".into(), run: false });
        s.reduce(Action::ExportResults);
        let csv = s.take_download().expect("a model's CSV at once");
        assert!(csv.text.starts_with("preset,model,variant,") && csv.file == "arena_closeGroup-results.csv", "{csv:?}");
    }

    #[test]
    fn model_mode_fits_its_speed_and_keeps_the_call_site_speed() {
        let mut s = AppState::new();
        act(&mut s, Action::LoadPreset { id: "descriptor_treeMap".into(), run: false });
        act(&mut s, Action::Run(Control::Step));
        assert_eq!(s.current_speed(), Speed::Factor(0.0001));
        act(&mut s, Action::Run(Control::SpeedUp));
        assert_eq!(s.current_speed(), Speed::Factor(0.001));
        act(&mut s, Action::LoadPreset { id: DEFAULT_PRESET.into(), run: false });
        assert_eq!(s.current_speed(), Speed::Factor(0.1), "call-site mode keeps its own speed");
    }

    #[test]
    fn lane_keys_toggle_variants_in_model_mode_and_policies_otherwise() {
        let mut s = AppState::new();
        act(&mut s, Action::ToggleLane(2));
        assert!(s.session.policies().contains(&Policy::Hierarchy));
        act(&mut s, Action::LoadPreset { id: "records_rotating11".into(), run: false });
        act(&mut s, Action::ToggleLane(2));
        assert_eq!(s.model.as_ref().unwrap().variants, ["before-fix", "fifo", "unbounded", "capacity-0"]);
        act(&mut s, Action::ToggleLane(9));
        act(&mut s, ModelAction::ToggleVariant("nope".into()));
        assert!(s.chrome.banners.last().is_some_and(|b| b.text.contains("not a variant")));
        assert!(s.session.policies().contains(&Policy::Hierarchy), "policies untouched in model mode");
    }

    #[test]
    fn knobs_rerun_and_bad_ones_leave_a_message() {
        let mut s = AppState::new();
        act(&mut s, Action::LoadPreset { id: "records_rotating11".into(), run: false });
        act(&mut s, ModelAction::SetKnob { knob: "shapes".into(), value: "10".into() });
        assert!(s.is_playing(), "a knob change re-runs");
        act(&mut s, Action::Run(Control::SetSpeed(Speed::Max)));
        run_frames(&mut s);
        let m = s.model.as_ref().unwrap();
        let fifo = m.slow_views.iter().find(|v| v.variant == "fifo").and_then(|v| v.result()).expect("fifo ran");
        assert_eq!(fifo.roles[0].1, 100.0, "ten shapes fit a cache of ten");
        act(&mut s, ModelAction::SetKnob { knob: "capacity".into(), value: "1e9".into() });
        assert!(s.model.as_ref().unwrap().knob_error.is_some());
        assert!(s.chrome.banners.is_empty(), "knob errors stay beside the knob");
    }

    #[test]
    fn the_autosave_and_links_carry_the_model() {
        let mut s = AppState::new();
        act(&mut s, Action::LoadPreset { id: "arena_closeGroup".into(), run: false });
        act(&mut s, ModelAction::SetKnob { knob: "ops".into(), value: "40".into() });
        act(&mut s, ModelAction::ToggleVariant("always".into()));
        let saved = s.saved();
        let link = saved.model.clone().expect("saved with the model");
        assert_eq!(link.knobs, [("ops".to_string(), "40".to_string())]);
        let restored = booted(Boot { saved: Some(Ok(entry(&saved.clone()))), shared: None, notice: None, tour_done: true, stale_autosave: None, theme: None });
        let m = restored.model.as_ref().expect("model mode restored");
        assert_eq!((m.link(), restored.is_playing()), (link.clone(), false));

        let mut bad = saved.clone();
        bad.model = Some(ModelLink { preset: "gone".into(), knobs: Vec::new(), variants: Vec::new() });
        let s = booted(Boot { saved: Some(Ok(entry(&bad))), shared: None, notice: None, tour_done: true, stale_autosave: None, theme: None });
        assert!(s.model.is_none() && s.chrome.banners[0].text.contains("could not be reopened"));

        let s = booted(Boot {
            saved: Some(Ok(entry(&saved))),
            shared: Some(Ok(fragment(&Link::Model(ModelLink { preset: "descriptor_hashMap".into(), knobs: Vec::new(), variants: Vec::new() })))),
            notice: None,
            tour_done: true,
            stale_autosave: None,
            theme: None,
        });
        assert_eq!(s.model.as_ref().map(|m| m.preset.id), Some("descriptor_hashMap"), "the link wins");
        let mut s = s;
        act(&mut s, Action::LoadModelLink { link: ModelLink { preset: "x".into(), knobs: Vec::new(), variants: Vec::new() }, origin: "the link".into() });
        assert_eq!(s.model.as_ref().map(|m| m.preset.id), Some("descriptor_hashMap"), "a bad link changes nothing");
        assert!(s.chrome.banners.last().is_some_and(|b| b.kind == BannerKind::Error));
    }

    #[test]
    fn hand_mutations_wait_for_call_site_mode() {
        let mut s = AppState::new();
        act(&mut s, Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        act(&mut s, Action::Run(Control::Step));
        act(&mut s, SessionAction::FireCategory { name: "HotCategory".into(), enter: true });
        assert_eq!(s.session.last_fire(), Some(&FireOutcome::Fired { label: "use HotCategory (enter)".into(), lanes: 2 }));
        assert!(s.session.runner().views().iter().all(|l| l.active_categories == ["HotCategory"]));
        act(&mut s, SessionAction::FireCategory { name: "Nope".into(), enter: false });
        assert!(matches!(s.session.last_fire(), Some(FireOutcome::Refused(why)) if why.contains("unknown category")));
        act(&mut s, Action::LoadPreset { id: "descriptor_treeMap".into(), run: false });
        act(&mut s, SessionAction::Fire(Event::InvalidateAll));
        assert!(s.chrome.banners.last().is_some_and(|b| b.text.contains("call-site scenarios")));
    }

    #[test]
    fn boot_prefers_the_link_and_reports_bad_inputs() {
        let saved =
            Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, Some("hotLoop_baseline".into()));
        let s = booted(Boot { saved: Some(Ok(entry(&saved.clone()))), shared: None, notice: None, tour_done: true, stale_autosave: None, theme: None });
        assert_eq!(s.session.scenario().name, "hotLoop_baseline");
        assert_eq!((s.session.policies().to_vec(), s.session.playback().speed, s.chrome.theme), (vec![Policy::Exact], Speed::Max, Theme::Dark));
        assert_eq!(s.session.preset().map(|p| p.id), Some("hotLoop_baseline"));

        let bad_link = LinkError { kind: LinkKind::Scenario, problem: LinkProblem::NotUtf8 };
        let s = booted(Boot {
            saved: Some(Ok(entry(&saved.clone()))),
            shared: Some(Err(bad_link)),
            notice: None,
            tour_done: true,
            stale_autosave: None,
            theme: None,
        });
        assert_eq!(s.session.scenario().name, "hotLoop_baseline", "a bad link keeps the previous scenario");
        assert_eq!(s.chrome.banners[0].kind, BannerKind::Error);

        let link = Link::Scenario(shared(presets::find("parentChild_baseline").unwrap().text));
        let s = booted(Boot {
            saved: Some(Ok(entry(&saved))),
            shared: Some(Ok(fragment(&link))),
            notice: None,
            tour_done: true,
            stale_autosave: None,
            theme: None,
        });
        assert_eq!(s.session.scenario().name, "parentChild_baseline");

        let s = booted(Boot {
            saved: Some(Err(SetAside { why: crate::storage::AsideWhy::StoppedThePage, kept_under: None })),
            shared: None,
            notice: None,
            tour_done: true,
            stale_autosave: None,
            theme: None,
        });
        assert_eq!(s.session.scenario().name, DEFAULT_PRESET);
        assert!(s.chrome.banners[0].text.contains("set aside"));
    }

    #[test]
    fn a_link_opened_over_an_edited_autosave_keeps_it_across_a_reload() {
        let mine = presets::find("hotLoop_baseline").unwrap().text.replace("class Hot", "class Hot2 { x }\nclass Hot");
        let saved = Saved::new(mine.clone(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        let link = Link::Scenario(shared(presets::find("parentChild_baseline").unwrap().text));
        let mut s = booted(Boot { saved: Some(Ok(entry(&saved))), shared: Some(Ok(fragment(&link))), tour_done: true, ..Boot::default() });
        assert_eq!((s.session.scenario().name.as_str(), s.session.own()), ("parentChild_baseline", Some(mine.as_str())));
        // The autosave carries it, so the next visit still offers it.
        let again = booted(Boot { saved: Some(Ok(entry(&s.saved()))), tour_done: true, ..Boot::default() });
        assert_eq!((again.session.scenario().name.as_str(), again.session.own()), ("parentChild_baseline", Some(mine.as_str())));
        act(&mut s, SessionAction::Undo);
        assert_eq!(s.session.text(), mine, "one undo step back");
    }

    #[test]
    fn an_autosave_older_than_the_last_screen_says_so() {
        let saved = Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        let s = booted(Boot { saved: Some(Ok(entry(&saved.clone()))), stale_autosave: Some("3000000".into()), tour_done: true, ..Boot::default() });
        assert_eq!(s.session.scenario().name, "hotLoop_baseline");
        assert!(s.chrome.banners.iter().any(|b| b.text.contains("older than the one on screen") && b.text.contains("2929 KB")), "{:?}", s.chrome.banners);
        let s = booted(Boot { saved: Some(Ok(entry(&saved))), tour_done: true, ..Boot::default() });
        assert!(s.chrome.banners.is_empty());
    }

    #[test]
    fn the_autosave_and_links_are_opened_by_the_worker_and_what_it_cannot_open_is_kept() {
        let saved = Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        // Until the worker answers, the page is opening them and saves nothing over them.
        let mut s = AppState::boot(Boot { saved: Some(Ok(entry(&saved))), theme: Some(Theme::Light), tour_done: true, ..Boot::default() });
        assert!(s.is_opening() && !s.chrome.autoplay);
        assert_eq!(s.chrome.theme, Theme::Light, "the last theme, for the first paint");
        in_process::pump(&mut s, &mut Effects::default());
        assert!(!s.is_opening());
        assert_eq!((s.session.scenario().name.as_str(), s.chrome.theme), ("hotLoop_baseline", Theme::Dark));
        // An entry the worker cannot read: the shell is asked to set it aside, then says so.
        let mut s = booted(Boot { saved: Some(Ok("{\"version\": 1, \"scenario_text\": ".into())), tour_done: true, ..Boot::default() });
        let why = s.take_set_aside().expect("to set aside");
        assert!(matches!(why, SaveError::NotASession(_)) && s.take_set_aside().is_none());
        act(&mut s, Action::SetAside(SetAside { why: crate::storage::AsideWhy::Unreadable(why), kept_under: Some("k".into()) }));
        assert!(s.chrome.banners[0].text.contains("could not be read") && s.chrome.banners[0].text.contains("“k”"), "{:?}", s.chrome.banners);
        assert_eq!(s.session.scenario().name, DEFAULT_PRESET);
        // No worker: the autosave is kept as it was, and this visit does not save over it.
        let mut s = AppState::boot(Boot { saved: Some(Ok(entry(&saved))), shared: Some(Ok("#s=1.AAAA".into())), tour_done: true, ..Boot::default() });
        let id = s.take_openings()[0].id;
        s.reduce(Action::Opened { id, answer: Box::new(Err(Unanswered::NoWorker)) });
        assert!(s.holds_autosave() && !s.is_opening());
        let texts: Vec<&str> = s.chrome.banners.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Your autosaved session was not opened (the engine worker did not start): it is kept as it was, and this visit does not save over it.",
                "The link was not opened: the engine worker did not start."
            ]
        );
        // A link pasted into the address bar of the open page opens the same way; a late answer
        // for nothing awaited is dropped.
        let mut s = booted(Boot { tour_done: true, ..Boot::default() });
        act(&mut s, Action::OpenFragment(fragment(&Link::Scenario(shared(presets::find("parentChild_baseline").unwrap().text)))));
        assert_eq!(s.session.scenario().name, "parentChild_baseline");
        let banners = s.chrome.banners.clone();
        s.reduce(Action::Opened { id: 99, answer: Box::new(Err(Unanswered::NoWorker)) });
        assert!(s.chrome.banners == banners && !s.holds_autosave());
    }

    #[test]
    fn a_refused_model_link_says_it_was_a_model_run() {
        let hostile = crate::share::decode("#m=1.eyJwcmVzZXQiOiJub3BlIn0").expect_err("no such model preset");
        let s = booted(Boot { saved: None, shared: Some(Err(hostile)), notice: None, tour_done: true, stale_autosave: None, theme: None });
        let banner = &s.chrome.banners[0].text;
        assert!(banner.starts_with("The link's model run was not loaded: ") && banner.contains("no model preset"), "{banner}");
        assert!(!banner.contains("scenario"), "{banner}");
    }

    #[test]
    fn the_share_link_follows_what_is_on_screen() {
        let mut s = AppState::new();
        let mut seen = vec![s.share_source().encode().unwrap()];
        let mut changed = |s: &AppState, what: &str| {
            let now = s.share_source().encode().unwrap();
            assert!(!seen.contains(&now), "{what} should change the share link");
            seen.push(now);
        };
        act(&mut s, Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        changed(&s, "another preset");
        act(&mut s, SessionAction::TogglePolicy(Policy::Ideal));
        changed(&s, "a policy");
        let edited = s.session.text().replace("class Hot { compute }", "class Hot { compute extra }");
        act(&mut s, SessionAction::EditText(edited));
        changed(&s, "an edit");
        act(&mut s, Action::LoadPreset { id: "records_rotating11".into(), run: false });
        assert!(s.share_source().encode().unwrap().starts_with("m=1."));
        changed(&s, "model mode");
        act(&mut s, ModelAction::SetKnob { knob: "shapes".into(), value: "10".into() });
        changed(&s, "a knob");
        act(&mut s, ModelAction::ToggleVariant("fifo".into()));
        changed(&s, "a variant");
        let before = s.share_source().encode().unwrap();
        act(&mut s, Action::Run(Control::Pause));
        act(&mut s, Action::Run(Control::SetSpeed(Speed::Max)));
        assert_eq!(s.share_source().encode().unwrap(), before, "running and speed are not part of a link");
    }

    #[test]
    fn restoring_invalid_text_keeps_it_with_its_error() {
        let saved = Saved::new("class A {\n  oops".into(), vec![Policy::Global], Speed::Factor(1.0), Theme::Auto, None);
        let s = booted(Boot { saved: Some(Ok(entry(&saved))), shared: None, notice: None, tour_done: true, stale_autosave: None, theme: None });
        assert_eq!(s.session.text(), "class A {\n  oops");
        assert!(s.session.text_error().is_some());
        assert_eq!(**s.session.scenario(), blast_engine::scenario::Scenario::default(), "no model: the default preset's text was not read in its place");
        assert!(!s.session.shareable_text().contains("oops"), "links carry the valid model, not broken text");
    }

    #[test]
    fn a_notice_replaces_the_last_notice_and_errors_stay() {
        let mut s = AppState::new();
        act(&mut s, Action::Chrome(ChromeAction::ShowError("broken file".into())));
        for id in ["hotLoop_baseline", "parentChild_baseline", "oracle_liveParentRedefine"] {
            let text = presets::find(id).unwrap().text;
            act(&mut s, SessionAction::LoadScenario { shared: shared(text), origin: format!("{id}.blast") });
        }
        let kinds: Vec<BannerKind> = s.chrome.banners.iter().map(|b| b.kind).collect();
        assert_eq!(kinds, [BannerKind::Error, BannerKind::Info]);
        assert!(s.chrome.banners[1].text.contains("oracle_liveParentRedefine"), "the latest notice is shown");
    }

    #[test]
    fn a_first_visit_runs_the_headline_comparison_and_opens_the_tour() {
        let mut s = booted(Boot::default());
        assert_eq!((s.session.scenario().name.as_str(), s.session.policies().to_vec()), (DEFAULT_PRESET, vec![Policy::Global, Policy::Exact]));
        assert_eq!(s.chrome.tour, Some(0));
        assert!(!s.is_playing() && s.chrome.autoplay, "it runs once the page is mounted");
        act(&mut s, Action::Autoplay);
        assert!(s.is_playing(), "the first screen is a running comparison");
        act(&mut s, Action::Run(Control::Pause));
        act(&mut s, Action::Autoplay);
        assert!(!s.is_playing(), "only once");
        let mut early = booted(Boot::default());
        early.reduce(Action::LoadPreset { id: "hotLoop_baseline".into(), run: false });
        early.reduce(Action::Autoplay);
        assert!(!early.is_playing(), "a preset loaded before the page was mounted is not started for the user");
        let saved = Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        let mut back = booted(Boot { saved: Some(Ok(entry(&saved))), tour_done: true, ..Boot::default() });
        back.reduce(Action::Autoplay);
        assert!(!back.is_playing() && back.chrome.tour.is_none(), "a returning visit opens its session paused, without the tour");
    }

    #[test]
    fn a_first_visit_reaches_the_headline_ratio_within_seconds() {
        let mut s = booted(Boot::default());
        assert_eq!(s.timeline.axis, XAxis::Progress, "a first visit's chart lines up the lanes by progress");
        act(&mut s, Action::Autoplay);
        assert_eq!(s.session.playback().speed, FIRST_PLAY_SPEED);
        // Frames of 16 wall ms at the first-play speed, as the page runs them.
        let mut wall_ms = 0.0;
        while s.is_playing() && wall_ms < 60_000.0 {
            act(&mut s, Action::Run(Control::FrameStart { wall_dt_ms: 16.0 }));
            while {
                act(&mut s, Action::Run(Control::Work { max_steps: 5000 }));
                s.is_behind()
            } {}
            wall_ms += 16.0;
            act(&mut s, Action::Run(Control::FrameEnd { wall_ms }));
        }
        let ratio = Headline::of(s.session.slow_lanes()).and_then(|h| h.ratio());
        assert!(ratio.is_some_and(|r| r > 10.0), "the headline ratio after {wall_ms} ms: {ratio:?}");
        assert!(wall_ms <= FIRST_PLAY_WALL_MS, "the first play took {wall_ms} wall ms (at most {FIRST_PLAY_WALL_MS})");
        let saved = Saved::new(presets::find("hotLoop_baseline").unwrap().text.into(), vec![Policy::Exact], Speed::Max, Theme::Dark, None);
        let back = booted(Boot { saved: Some(Ok(entry(&saved))), tour_done: true, ..Boot::default() });
        assert_eq!(back.timeline.axis, XAxis::Time, "a returning visit keeps the time axis");
    }

    #[test]
    fn a_brushed_range_reaches_the_lanes_and_a_new_run_or_axis_drops_it() {
        let mut s = AppState::new();
        run_to_end(&mut s);
        let end = s.session.slow_lanes()[0].now_ms;
        act(&mut s, TimelineAction::SetView(Some((end * 0.2, end * 0.6))));
        act(&mut s, TimelineAction::Brush(Some((end * 0.3, end * 0.4))));
        let global = s.session.slow_lanes()[0].in_range.clone().expect("the why panel's lanes carry the range, paused");
        assert!(global.total > 0 && global.rows.iter().all(|r| global.contains(r.t_ms)));
        assert!(s.session.runner().views()[0].in_range.is_some(), "the blast view's lanes too");
        act(&mut s, TimelineAction::Brush(Some((f64::NAN, 3.0))));
        assert_eq!(s.timeline.brush, None, "a bad range clears");
        assert!(s.session.slow_lanes().iter().all(|l| l.in_range.is_none()));
        act(&mut s, TimelineAction::SetView(Some((5.0, 5.0))));
        assert_eq!(s.timeline.view, None, "an empty window shows the whole run");
        act(&mut s, TimelineAction::Brush(Some((1.0, 2.0))));
        act(&mut s, TimelineAction::SetAxis(XAxis::Progress));
        assert_eq!((s.timeline.axis, s.timeline.brush, s.timeline.view), (XAxis::Progress, None, None), "a range on another axis means nothing");
        act(&mut s, TimelineAction::Brush(Some((40.0, 60.0))));
        assert!(s.session.slow_lanes().iter().all(|l| l.in_range.is_some()));
        act(&mut s, Action::Run(Control::Reset));
        assert_eq!((s.timeline.axis, s.timeline.brush), (XAxis::Progress, None), "a new run keeps the axis, not the range");
        assert!(s.session.slow_lanes().iter().all(|l| l.in_range.is_none()));
    }

    #[test]
    fn marking_a_relink_selects_its_site_and_brings_its_moment_into_the_window() {
        let mut s = AppState::new();
        run_to_end(&mut s);
        let end = s.session.slow_lanes()[0].now_ms;
        act(&mut s, TimelineAction::SetView(Some((0.0, end * 0.1))));
        let mark = Mark { policy: Policy::Global, t_ms: end * 0.8, site: "hot".into() };
        act(&mut s, TimelineAction::MarkRelink(mark.clone()));
        assert_eq!(s.session.selected_site(), Some("hot"));
        assert_eq!(s.timeline.mark, Some(mark));
        let (lo, hi) = s.timeline.view.expect("still zoomed");
        assert!(lo <= end * 0.8 && end * 0.8 <= hi && ((hi - lo) - end * 0.1).abs() < 1e-6, "the window moved to the moment: {lo}..{hi}");
        act(&mut s, TimelineAction::SetAxis(XAxis::Progress));
        assert!(s.timeline.mark.is_some(), "a moment stays marked on either axis");
    }
}
