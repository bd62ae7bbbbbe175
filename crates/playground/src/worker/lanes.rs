//! The call-site session's lanes: run on the page ([`Runner`]) or, for a big scenario, by the
//! engine worker, of which the page keeps a [`Mirror`] (the page never
//! freezes).
//!
//! At 10^5 sites one lane's `Simulation` build takes ~100 ms and one engine step up to ~35 ms,
//! neither resumable: on the main thread no slicing keeps a task under 50 ms. So the worker,
//! which read the text and built the lanes for the run check anyway, keeps them
//! (`lane_host::Host`): the page posts commands (clock advance, Step, mutations, selection,
//! brushed range, hovered class) and the worker answers each batch with the views as deltas
//! (`lane_wire`). The mirror holds the same `LaneView`s the components read, so they do not
//! know where the lanes run; likewise the expectations' outcomes, which the worker evaluates
//! when the page asks (`Command::Expectations`, at the pace the page would evaluate them) and
//! the mirror keeps. Small scenarios stay on the page: the reducer's tests stay synchronous,
//! and a round trip per frame would only add latency.

use std::rc::Rc;

use blast_engine::expect::{self, Outcome};
use blast_engine::scenario::{Event, Scenario};
use blast_engine::Policy;

use crate::export::SiteRow;
use crate::runner::{self, ClassEntry, FireRefusal, LaneView, Runner};
use crate::timeline::{Range, XAxis};
use crate::worker::lane_wire::{self, Command, Request, Update, UpdateDecoder};
use crate::worker::wire::DecodeError;

/// Scenarios with at least this many sites run in the engine worker (when it read them).
/// Measured natively (release, e2e's world of one loop calling every site, 1 class per 10
/// sites, on the shared 2-core machine under load): two lanes' `Runner::new` 0.6 ms at 1 000
/// sites, 40 ms at 5 000, 164 ms at 20 000, 1.6 s at 10^5; the worst engine step 3 ms at 5 000,
/// 56 ms at 20 000. Below this bar a build and a step stay far under a 50 ms task on an idle
/// machine; the 2 000-site e2e world stays on the page, the 10^5 one goes to the worker.
pub const WORKER_SITES: usize = 5_000;

/// Whether a scenario's lanes run in the worker: big (its expectations are evaluated there too).
pub fn runs_in_worker(scenario: &Scenario) -> bool {
    scenario.sites.len() >= WORKER_SITES
}

pub enum Lanes {
    Here(Runner),
    Worker(Mirror),
}

/// The views of lanes the worker runs, as its last update left them, and the commands not
/// yet posted.
pub struct Mirror {
    /// The page's build number: updates for another build are dropped.
    run: u64,
    names: Rc<Vec<String>>,
    classes: Vec<ClassEntry>,
    declared: usize,
    views: Vec<Rc<LaneView>>,
    /// `views` are the previous build's of the same scenario and policies, shown until this
    /// build's first update (`Mirror::rebuild`): deltas are not read against them.
    previous: bool,
    /// The scenario the worker read (its job) and the loop mode: what a rebuild may reuse.
    job: u64,
    looping: bool,
    clock_ms: f64,
    finished: bool,
    outbox: Vec<Command>,
    /// Requests posted and not answered (a frame is asked for only when none is).
    in_flight: usize,
    /// Virtual ms the clock moved since the last frame request.
    advance_ms: f64,
    hover: Option<String>,
    what_if: Vec<(Policy, Vec<String>)>,
    /// The expectations' outcomes the worker last evaluated.
    outcomes: Vec<Outcome>,
    /// A command that moves the lanes (build, clock, step, mutation) was queued since the
    /// outcomes were last asked for.
    moved: bool,
}

/// What an update brought that the session shows beside the views.
#[derive(Debug, Default, PartialEq)]
pub struct News {
    /// The worker has no lanes for this build (it lost the scenario, or the build failed).
    pub error: Option<String>,
    /// A Step's note, when the update answers one.
    pub stepped: Option<Option<String>>,
    /// Why the last hand-fired mutation of the batch went nowhere.
    pub refused: Option<FireRefusal>,
}

impl Mirror {
    /// Lanes for build `run` of the scenario the worker read for `job` (`scenario` as the
    /// lanes run it: in loop mode, looped), at time zero once the worker answers.
    pub fn build(run: u64, job: u64, scenario: &Scenario, policies: &[Policy], looping: bool) -> Mirror {
        let classes = runner::classes_of(scenario);
        Mirror::at_zero(run, (job, looping), scenario, policies, (runner::names_of(scenario), classes.len(), classes), Vec::new())
    }

    /// `old`'s lanes built again (a Reset, a run started over) as `build` would. The same
    /// scenario's site names and classes are kept, and so are the lanes' views when the policies
    /// are the same, until the worker's first update of the new build replaces them (a round
    /// trip: the worker builds the lanes, ~0.3 s at 10^5 sites). From an empty view the page
    /// drew every row of the aggregated blast view again in one frame (at 10^5 sites a task of
    /// 90 ms CPU), and `names_of` copied 10^5 names in the click's task.
    pub fn rebuild(old: Mirror, run: u64, job: u64, scenario: &Scenario, policies: &[Policy], looping: bool) -> Mirror {
        if old.job != job || old.looping != looping {
            return Mirror::build(run, job, scenario, policies, looping);
        }
        let Mirror { names, mut classes, declared, views, .. } = old;
        classes.truncate(declared);
        let same_lanes = views.iter().map(|v| v.policy).eq(policies.iter().copied());
        Mirror::at_zero(run, (job, looping), scenario, policies, (names, declared, classes), if same_lanes { views } else { Vec::new() })
    }

    /// A new build at time zero showing `views` (the previous build's, or none) until the
    /// worker's first update.
    fn at_zero(
        run: u64,
        (job, looping): (u64, bool),
        scenario: &Scenario,
        policies: &[Policy],
        (names, declared, classes): (Rc<Vec<String>>, usize, Vec<ClassEntry>),
        views: Vec<Rc<LaneView>>,
    ) -> Mirror {
        Mirror {
            run,
            names,
            declared,
            classes,
            previous: !views.is_empty(),
            views,
            job,
            looping,
            clock_ms: 0.0,
            finished: false,
            outbox: vec![Command::Build { job, policies: policies.to_vec(), looping }],
            in_flight: 0,
            advance_ms: 0.0,
            hover: None,
            what_if: Vec::new(),
            // Every run missing until the worker's first evaluation.
            outcomes: expect::evaluate(scenario, &[]),
            moved: true,
        }
    }

    /// The commands to post now, if any.
    pub fn take_request(&mut self) -> Option<Request> {
        if self.outbox.is_empty() {
            return None;
        }
        self.in_flight += 1;
        Some(Request { run: self.run, commands: std::mem::take(&mut self.outbox) })
    }

    /// A decoder of the worker's answer against the views held now, with its build; `None` when
    /// it is for another build. Updates are decoded in order, each after the last is applied
    /// (`decoded`): its deltas are against the views that one left.
    pub fn decoder(&self, bytes: Vec<u8>) -> Option<(u64, UpdateDecoder)> {
        let run = lane_wire::update_run(&bytes).ok().filter(|&run| run == self.run)?;
        Some((run, UpdateDecoder::new(bytes, self.held().to_vec(), self.names.clone())))
    }

    /// Apply an update of build `run`, decoded (or why it could not be); `None` when it is for
    /// another build.
    pub fn decoded(&mut self, run: u64, decoded: Result<Update, DecodeError>) -> Option<Result<News, DecodeError>> {
        if run != self.run {
            return None;
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        Some(decoded.map(|u| self.apply(u)))
    }

    /// The views the worker's next update is against (none for a new build's first).
    fn held(&self) -> &[Rc<LaneView>] {
        if self.previous {
            &[]
        } else {
            &self.views
        }
    }

    fn apply(&mut self, update: Update) -> News {
        let Update { run: _, error, clock_ms, finished, views, loaded, stepped, fires, what_if, expectations } = update;
        if error.is_none() {
            if let Some(outcomes) = expectations {
                self.outcomes = outcomes;
            }
            self.views = views;
            self.previous = false;
            self.clock_ms = clock_ms;
            self.finished = finished;
            self.classes.truncate(self.declared);
            self.classes.extend(loaded);
            self.what_if = what_if;
        }
        let refused = fires.into_iter().rev().find_map(Result::err);
        News { error, stepped, refused }
    }

    fn queue(&mut self, command: Command) {
        let moves = matches!(command, Command::Build { .. } | Command::Frame { .. } | Command::Step | Command::Fire(_) | Command::Category { .. });
        self.moved |= moves;
        self.outbox.push(command);
    }

    /// Lanes running; 0 while the lanes are not known (built, not yet answered).
    fn running(&self) -> usize {
        match self.previous {
            true => 0,
            false => self.views.iter().filter(|v| !v.finished()).count(),
        }
    }

    /// A mutation goes to the running lanes; the worker says later if one refused it.
    fn fire(&mut self, command: Command) -> Result<usize, FireRefusal> {
        match self.running() {
            0 if !self.views.is_empty() && !self.previous => Err(FireRefusal::NothingRunning),
            n => {
                self.queue(command);
                Ok(n.max(1))
            }
        }
    }
}

impl Lanes {
    pub fn idle() -> Lanes {
        Lanes::Here(Runner::idle())
    }

    pub fn views(&self) -> &[Rc<LaneView>] {
        match self {
            Lanes::Here(r) => r.views(),
            Lanes::Worker(m) => &m.views,
        }
    }

    /// The views shown are the previous build's, kept until the worker answers a Reset (a
    /// round trip, ~0.3 s at 10^5 sites): the blast view marks them as stale meanwhile.
    pub fn awaiting_rebuild(&self) -> bool {
        matches!(self, Lanes::Worker(m) if m.previous)
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Lanes::Here(r) => r.is_empty(),
            Lanes::Worker(_) => false,
        }
    }

    pub fn finished(&self) -> bool {
        match self {
            Lanes::Here(r) => r.finished(),
            Lanes::Worker(m) => m.finished,
        }
    }

    pub fn clock_ms(&self) -> f64 {
        match self {
            Lanes::Here(r) => r.clock_ms(),
            Lanes::Worker(m) => m.clock_ms,
        }
    }

    pub fn total_relinks(&self) -> u64 {
        match self {
            Lanes::Here(r) => r.total_relinks(),
            Lanes::Worker(m) => m.views.iter().map(|v| v.relinks()).sum(),
        }
    }

    /// Site names by id, shared with the views (empty without lanes).
    pub fn names(&self) -> &Rc<Vec<String>> {
        match self {
            Lanes::Here(r) => r.names(),
            Lanes::Worker(m) => &m.names,
        }
    }

    pub fn classes(&self) -> &[ClassEntry] {
        match self {
            Lanes::Here(r) => r.classes(),
            Lanes::Worker(m) => &m.classes,
        }
    }

    pub fn advance_clock(&mut self, virtual_ms: f64) {
        match self {
            Lanes::Here(r) => r.advance_clock(virtual_ms),
            Lanes::Worker(m) if virtual_ms > 0.0 => m.advance_ms += virtual_ms,
            Lanes::Worker(_) => {}
        }
    }

    /// Engine work toward the clock: in the worker, nothing to wait for here.
    pub fn work(&mut self, max_steps: usize) -> bool {
        match self {
            Lanes::Here(r) => r.work(max_steps),
            Lanes::Worker(_) => true,
        }
    }

    /// End of a frame's work: the worker is asked for the next frame once it answered the last.
    pub fn settle(&mut self) {
        match self {
            Lanes::Here(r) => r.settle(),
            Lanes::Worker(m) => {
                if m.in_flight == 0 && m.advance_ms > 0.0 && !m.outbox.iter().any(|c| matches!(c, Command::Frame { .. })) {
                    let advance_ms = std::mem::take(&mut m.advance_ms);
                    m.queue(Command::Frame { advance_ms });
                }
            }
        }
    }

    pub fn refresh(&mut self) {
        if let Lanes::Here(r) = self {
            r.refresh();
        }
    }

    /// A step; in the worker its note comes with the update (`News::stepped`).
    pub fn step(&mut self) -> Option<String> {
        match self {
            Lanes::Here(r) => r.step(),
            Lanes::Worker(m) => {
                m.queue(Command::Step);
                Some("stepping…".into())
            }
        }
    }

    pub fn inject(&mut self, event: &Event) -> Result<usize, FireRefusal> {
        match self {
            Lanes::Here(r) => r.inject(event),
            Lanes::Worker(m) => m.fire(Command::Fire(event.clone())),
        }
    }

    pub fn inject_category(&mut self, name: &str, enter: bool) -> Result<usize, FireRefusal> {
        match self {
            Lanes::Here(r) => r.inject_category(name, enter),
            Lanes::Worker(m) => m.fire(Command::Category { name: name.to_string(), enter }),
        }
    }

    /// The what-if of `class` (`None`: nothing hovered). In the worker it comes with the next
    /// update, and with every update while the class stays hovered.
    pub fn what_if(&mut self, class: Option<&str>) -> Vec<(Policy, Vec<String>)> {
        match self {
            Lanes::Here(r) => class.map(|c| r.what_if(c)).unwrap_or_default(),
            Lanes::Worker(m) => {
                if m.hover.as_deref() != class {
                    m.hover = class.map(str::to_string);
                    m.what_if.clear();
                    m.queue(Command::WhatIf(m.hover.clone()));
                }
                m.what_if.clone()
            }
        }
    }

    /// The expectations against the lanes. In the worker: the outcomes it last evaluated, and
    /// (when the lanes moved since it was last asked) a request for new ones, which come with
    /// the next update; asked only after a move, so an answer does not ask again.
    pub fn expectations(&mut self, scenario: &Scenario) -> Vec<Outcome> {
        match self {
            Lanes::Here(r) => r.expectations(scenario),
            Lanes::Worker(m) => {
                if m.moved && !scenario.expectations.is_empty() {
                    m.moved = false;
                    m.queue(Command::Expectations);
                }
                m.outcomes.clone()
            }
        }
    }

    pub fn select(&mut self, site: Option<String>) {
        match self {
            Lanes::Here(r) => r.select(site),
            Lanes::Worker(m) => m.queue(Command::Select(site)),
        }
    }

    pub fn brush(&mut self, range: Option<(XAxis, Range)>) {
        match self {
            Lanes::Here(r) => r.brush(range),
            Lanes::Worker(m) => m.queue(Command::Brush(range)),
        }
    }

    /// Every site's row per lane (an export): from the engine's reports on the page, from the
    /// mirrored views (verdicts and state, no call counts) for lanes in the worker.
    pub fn site_rows(&self) -> Vec<Vec<SiteRow>> {
        match self {
            Lanes::Here(r) => r.site_reports().iter().map(|lane| lane.iter().map(SiteRow::of_report).collect()).collect(),
            Lanes::Worker(m) => m.views.iter().map(|v| v.names.iter().zip(v.sites.iter()).map(|(name, site)| SiteRow::of_view(name, site)).collect()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Action;
    use crate::effects::Effects;
    use crate::playback::{Control, Speed};
    use crate::runner::SiteView;
    use crate::session::{CallSiteSession, FireOutcome, SessionAction};
    use crate::worker::churn_world::churn_world as world;
    use crate::worker::lane_host::Host;
    use crate::worker::offload;
    use blast_engine::expect::Status;

    /// The worker's update, decoded as the page does: a few site views per step
    /// (`hooks::lanes_step`), then applied.
    fn update(s: &mut CallSiteSession, bytes: Vec<u8>, fx: &mut Effects) {
        let Some((run, mut decoder)) = s.lanes_decoder(bytes) else { return };
        let decoded = loop {
            if let Some(decoded) = decoder.step(97).transpose() {
                break decoded;
            }
        };
        s.reduce(SessionAction::LanesDecoded(run, Box::new(decoded)), fx);
    }

    /// A session, and the engine worker it talks to (`None`: there is none, the page reads).
    struct Page {
        s: CallSiteSession,
        worker: Option<Host>,
    }

    impl Page {
        fn act(&mut self, action: impl Into<Action>) {
            crate::session::tests::act(&mut self.s, action);
            self.pump();
        }

        /// Answer every job and lanes request, as the shell and the worker do, until none is left.
        fn pump(&mut self) {
            let clock = || 0.0;
            loop {
                let mut fx = Effects::default();
                let jobs = self.s.take_jobs();
                let lanes = self.s.take_lanes();
                if jobs.is_empty() && lanes.is_none() {
                    return;
                }
                for job in &jobs {
                    let reply = match &mut self.worker {
                        Some(host) => offload::decode_reply(&host.answer(&job.bytes, &clock)).expect("a reply"),
                        None => offload::decode_reply(&offload::answer(&job.bytes)).expect("a reply"),
                    };
                    self.s.reduce(SessionAction::Read(reply), &mut fx);
                }
                if let Some(request) = lanes {
                    let host = self.worker.as_mut().expect("lanes in the worker only when there is one");
                    let bytes = host.answer(&lane_wire::encode_request(&request), &clock);
                    update(&mut self.s, bytes, &mut fx);
                }
            }
        }

        fn frame(&mut self, n: u32) {
            for control in [Control::FrameStart { wall_dt_ms: 16.0 }, Control::Work { max_steps: 64 }, Control::FrameEnd { wall_ms: f64::from(n) * 16.0 }] {
                self.act(Action::Run(control));
            }
        }
    }

    fn pages(text: &str) -> (Page, Page) {
        let mut here = Page { s: CallSiteSession::new(), worker: None };
        let mut there = Page { s: CallSiteSession::new(), worker: Some(Host::default()) };
        for p in [&mut here, &mut there] {
            p.act(SessionAction::EditText(text.to_string()));
        }
        assert!(matches!(here.s.runner, Lanes::Here(_)) && matches!(there.s.runner, Lanes::Worker(_)));
        (here, there)
    }

    fn same_views(here: &Page, there: &Page, what: &str) {
        let (a, b) = (here.s.runner.views(), there.s.runner.views());
        assert_eq!(a.len(), 2, "{what}");
        assert_eq!(a, b, "{what}: the mirror shows what the page's own lanes show");
        assert_eq!(here.s.slow_lanes, there.s.slow_lanes, "{what}: slow views");
        assert_eq!((here.s.runner.clock_ms(), here.s.runner.finished()), (there.s.runner.clock_ms(), there.s.runner.finished()), "{what}");
        assert_eq!(here.s.runner.classes(), there.s.runner.classes(), "{what}");
    }

    #[test]
    fn the_mirror_fed_by_the_worker_shows_what_the_page_would() {
        let (mut here, mut there) = pages(&world(WORKER_SITES));
        same_views(&here, &there, "built");
        for p in [&mut here, &mut there] {
            p.act(SessionAction::SelectSite(Some("s1".into())));
            for _ in 0..4 {
                p.act(Action::Run(Control::Step));
            }
            p.act(SessionAction::Fire(Event::Write { class: "K1".into(), method: "m".into() }));
            p.act(Action::Run(Control::Step));
            p.act(SessionAction::HoverClass(Some("K1".into())));
        }
        same_views(&here, &there, "after steps, a selection and a mutation");
        assert_eq!(here.s.playback.step_note, there.s.playback.step_note, "the step's note comes back from the worker");
        assert_eq!(here.s.last_fire, there.s.last_fire);
        assert!(matches!(there.s.last_fire, Some(FireOutcome::Fired { lanes: 2, .. })));
        assert!(!here.s.what_if.is_empty() && here.s.what_if == there.s.what_if);
        assert!(there.s.runner.views()[0].selected.as_ref().is_some_and(|r| r.name == "s1"));
        // A brushed range, then the rest of the run frame by frame at full speed.
        for p in [&mut here, &mut there] {
            p.act(Action::Run(Control::SetSpeed(Speed::Max)));
            p.act(Action::Run(Control::Play));
            p.s.brush(Some((XAxis::Progress, (0.0, 50.0))));
            p.pump();
            for n in 0..10_000 {
                p.frame(n);
                if !p.s.playback.playing {
                    break;
                }
            }
        }
        let (a, b) = (here.s.runner.views(), there.s.runner.views());
        assert!(a.iter().chain(b).all(|l| l.finished() && l.in_range.is_some()));
        for (a, b) in a.iter().zip(b) {
            // Frames are counted per refresh, which differ (the worker works a frame in one go):
            // everything but when a site or unit flashed is the same.
            fn unflashed(l: &LaneView) -> LaneView {
                let mut l = l.clone();
                l.sites = Rc::new(l.sites.iter().map(|s| SiteView { flash: 0, ..*s }).collect());
                let mut compiled = l.compiled.as_ref().clone();
                compiled.units.iter_mut().for_each(|u| u.flash = 0);
                l.compiled = Rc::new(compiled);
                l
            }
            assert_eq!(unflashed(a), unflashed(b), "{}", a.policy);
        }
        assert!(here.s.total_relinks() > 0 && here.s.total_relinks() == there.s.total_relinks());
    }

    #[test]
    fn an_export_of_lanes_in_the_worker_has_every_site_with_its_verdicts() {
        let (mut here, mut there) = pages(&world(WORKER_SITES));
        for p in [&mut here, &mut there] {
            for _ in 0..4 {
                p.act(Action::Run(Control::Step));
            }
            p.act(SessionAction::Fire(Event::Write { class: "K1".into(), method: "m".into() }));
            p.act(Action::Run(Control::Step));
        }
        let (page, worker) = (here.s.runner.site_rows(), there.s.runner.site_rows());
        assert_eq!(worker.len(), 2);
        assert!(worker.iter().all(|lane| lane.len() == WORKER_SITES), "a row per site and lane");
        assert!(worker.iter().flatten().all(|r| r.calls.is_none()), "call counts stay in the worker: empty, not zero");
        assert!(page.iter().flatten().all(|r| r.calls.is_some()));
        let verdicts = |rows: &[Vec<SiteRow>]| -> Vec<_> { rows.iter().flatten().map(|r| (r.name.clone(), r.necessary, r.collateral, r.missed)).collect() };
        assert_eq!(verdicts(&page), verdicts(&worker));
        assert!(worker.iter().flatten().any(|r| r.necessary + r.collateral + r.missed > 0), "the mutation relinked a site");
        let (p, w): (Vec<_>, Vec<_>) = (page.iter().flatten().collect(), worker.iter().flatten().collect());
        assert!(w.iter().any(|r| r.state.is_some()), "some site was called");
        assert!(p.iter().zip(&w).all(|(p, w)| p.state == w.state), "the same state from a report and from a view, none for a site no call reached");
    }

    #[test]
    fn small_scenarios_stay_on_the_page() {
        let (_, there) = pages(&world(WORKER_SITES));
        assert!(matches!(there.s.runner, Lanes::Worker(_)));
        let mut small = Page { s: CallSiteSession::new(), worker: Some(Host::default()) };
        small.act(SessionAction::EditText(world(WORKER_SITES - 1)));
        assert!(matches!(small.s.runner, Lanes::Here(_)) && small.s.scenario.sites.len() == WORKER_SITES - 1);
    }

    #[test]
    fn expectations_of_lanes_in_the_worker_are_what_the_page_would_evaluate() {
        // Every kind of observation: relinked sites (one claim failing, with its causes), a
        // figure, two policies' figures and their ratio.
        let expectations = "expect under exact: write K1.* relinks only [s1]\n\
                            expect under global: write K1.* relinks none of [s2]\n\
                            expect under exact: missed == 0\n\
                            expect exact / global >= 1.1x ops\n\
                            expect exact <= global relinks\n";
        let (mut here, mut there) = pages(&(world(WORKER_SITES) + expectations));
        assert_eq!(there.s.scenario.expectations.len(), 5);
        let same = |here: &Page, there: &Page, what: &str| {
            assert_eq!(here.s.expectations.len(), 5, "{what}");
            assert_eq!(here.s.expectations, there.s.expectations, "{what}: the worker's outcomes are the page's");
        };
        same(&here, &there, "built, nothing run");
        assert!(there.s.expectations.iter().all(|o| o.status == Status::Pending));
        for p in [&mut here, &mut there] {
            for _ in 0..3 {
                p.act(Action::Run(Control::Step));
            }
        }
        same(&here, &there, "part-way");
        for p in [&mut here, &mut there] {
            p.act(Action::Run(Control::SetSpeed(Speed::Max)));
            p.act(Action::Run(Control::Play));
            for n in 0..10_000 {
                p.frame(n);
                if !p.s.playback.playing {
                    break;
                }
            }
            p.pump();
        }
        assert!(there.s.runner.finished());
        same(&here, &there, "finished");
        // K1's sites are s1, s51, s101, ...: exact relinks them all, global everything.
        let first = &there.s.expectations[0];
        assert!(first.status == Status::Fail && first.causes.iter().any(|c| c.site == "s51"), "{first:?}");
        assert!(there.s.expectations[1].causes.iter().any(|c| c.site == "s2"), "global relinks s2 on a write to K1.m");
        assert!(there.s.expectations.iter().any(|o| o.status == Status::Pass));
        // Asked for only after the lanes moved: an answer does not ask again.
        assert!(there.s.take_lanes().is_none(), "nothing left to ask");
        let scenario = there.s.scenario.clone();
        assert_eq!(&there.s.runner.expectations(&scenario), there.s.expectations.as_ref());
        assert!(there.s.take_lanes().is_none(), "no new request while the lanes stand still");
    }

    #[test]
    fn a_reset_rebuilds_in_the_worker_and_lost_lanes_come_back_on_the_page() {
        let (_, mut there) = pages(&world(WORKER_SITES));
        there.act(Action::Run(Control::Step));
        assert!(there.s.runner.views().iter().all(|l| l.events_recorded + l.iterations as usize > 0));
        there.act(Action::Run(Control::Reset));
        assert!(matches!(there.s.runner, Lanes::Worker(_)));
        assert!(there.s.runner.views().iter().all(|l| l.iterations == 0 && l.events_recorded == 0), "at time zero again");
        // A worker that no longer holds the scenario (a new one after a crash): built here.
        there.worker = Some(Host::default());
        there.act(Action::Run(Control::Reset));
        assert!(matches!(there.s.runner, Lanes::Here(_)) && there.s.runner.views().len() == 2);
        let mut fx = Effects::default();
        there.s.reduce(SessionAction::LanesLost("gone".into()), &mut fx);
        assert!(fx.banners.is_empty(), "lanes on the page are not lost with the worker");
    }

    #[test]
    fn a_finished_run_resets_and_plays_again_in_the_worker() {
        let (_, mut there) = pages(&world(WORKER_SITES));
        while !there.s.runner.finished() {
            there.act(Action::Run(Control::Step));
        }
        // Until the worker answers the new build, the page shows the lanes it had (the same
        // views and names: nothing is redrawn or copied), and they take mutations again.
        let (before, names) = (there.s.runner.views().to_vec(), there.s.runner.names().clone());
        let mut fx = Effects::default();
        there.s.control(Control::Reset, &mut fx);
        assert!(there.s.runner.views().iter().zip(&before).all(|(a, b)| Rc::ptr_eq(a, b)) && there.s.runner.views().len() == 2);
        assert!(Rc::ptr_eq(there.s.runner.names(), &names));
        assert!(there.s.runner.awaiting_rebuild(), "the views shown are the previous build's");
        there.s.reduce(SessionAction::Fire(Event::Write { class: "K1".into(), method: "m".into() }), &mut fx);
        assert!(matches!(there.s.last_fire, Some(FireOutcome::Fired { .. })), "refused: {:?}", there.s.last_fire);
        there.pump();
        assert!(there.s.runner.views().iter().all(|l| l.iterations == 0 && !Rc::ptr_eq(&l.sites, &before[0].sites)), "the new build's views");
        assert!(!there.s.runner.awaiting_rebuild(), "the worker answered");
        assert!(matches!(there.s.last_fire, Some(FireOutcome::Fired { .. })), "the worker took it: {:?}", there.s.last_fire);
        there.act(Action::Run(Control::Reset));
        assert_eq!(there.s.runner.clock_ms(), 0.0);
        there.act(Action::Run(Control::Play));
        for n in 0..50 {
            there.frame(n);
        }
        assert!(there.s.runner.clock_ms() > 0.0, "the clock moves");
    }

    /// Frames go on while the worker works: its answers arrive a few frames later.
    #[test]
    fn frames_ask_for_work_once_the_last_request_is_answered() {
        let (_, mut there) = pages(&world(WORKER_SITES));
        there.act(Action::Run(Control::Reset));
        let mut fx = Effects::default();
        there.s.control(Control::Play, &mut fx);
        let mut posted = std::collections::VecDeque::new();
        let mut host = there.worker.take().unwrap();
        for n in 0..200u32 {
            for control in [Control::FrameStart { wall_dt_ms: 16.0 }, Control::Work { max_steps: 64 }, Control::FrameEnd { wall_ms: f64::from(n) * 16.0 }] {
                there.s.control(control, &mut fx);
            }
            if let Some(request) = there.s.take_lanes() {
                posted.push_back(host.answer(&lane_wire::encode_request(&request), &|| 0.0));
            }
            if n % 3 == 0 {
                if let Some(bytes) = posted.pop_front() {
                    update(&mut there.s, bytes, &mut fx);
                }
            }
        }
        assert!(there.s.runner.clock_ms() > 0.0, "the clock moves");
    }

    #[test]
    fn updates_for_an_older_build_are_dropped() {
        let (_, mut there) = pages(&world(WORKER_SITES));
        let Lanes::Worker(m) = &mut there.s.runner else { panic!("in the worker") };
        m.queue(Command::Step);
        let stale = m.take_request().expect("a request");
        there.act(Action::Run(Control::Reset));
        let bytes = there.worker.as_mut().unwrap().answer(&lane_wire::encode_request(&stale), &|| 0.0);
        let before = there.s.runner.views().to_vec();
        update(&mut there.s, bytes, &mut Effects::default());
        there.pump();
        assert_eq!(there.s.runner.views(), before.as_slice());
    }
}
