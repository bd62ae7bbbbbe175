//! The call-site session's lanes, which the engine worker runs: the page keeps a [`Mirror`] of
//! their views (the page never runs the engine, so it never freezes).
//!
//! At 10^5 sites one lane's `Simulation` build takes ~100 ms and one engine step up to ~35 ms,
//! neither resumable: on the main thread no slicing keeps a task under 50 ms. So the worker,
//! which read the text and built the lanes for the run check anyway, keeps them
//! (`lane_host::Host`): the page posts commands (clock advance, Step, mutations, selection,
//! brushed range, hovered class) and the worker answers each batch with the views as deltas
//! (`lane_wire`). The mirror holds the same `LaneView`s the components read; likewise the
//! expectations' outcomes, which the worker evaluates when the page asks
//! (`Command::Expectations`, at the pace the page would evaluate them) and the mirror keeps,
//! and the sites' call counts, which change on every call, so only an export asks for them
//! (`Command::CallCounts`).
//! A small scenario's batch is answered within a frame, so it still feels instant.

use std::rc::Rc;

use blast_engine::expect::{self, Outcome};
use blast_engine::scenario::{Event, Scenario};
use blast_engine::Policy;

use crate::export::{self, SiteRow};
use crate::runner::{self, CallCounts, ClassEntry, FireRefusal, LaneView};
use crate::timeline::{Range, XAxis};
use crate::worker::lane_wire::{self, Command, Request, Update, UpdateDecoder};
use crate::worker::wire::DecodeError;

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
    /// Each lane's sites' call counts, when the batch asked (`Lanes::ask_call_counts`): as the
    /// views of this update stand.
    pub call_counts: Option<Vec<Vec<CallCounts>>>,
}

impl Mirror {
    /// Lanes for build `run` of the scenario the worker read for `job` (`scenario`, whose
    /// names, classes and expectations it takes; in loop mode the worker loops it), at time
    /// zero once the worker answers.
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
            outcomes: expect::waiting(scenario),
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
        // Names never travel: a view whose sites are not as many as the names the page took for
        // this build is another scenario's, and is not shown under them.
        let foreign = DecodeError { at: 0, why: "its lanes run another scenario than the page's" };
        let decoded = decoded.and_then(|u| if u.views.iter().all(|v| v.sites.len() == self.names.len()) { Ok(u) } else { Err(foreign) });
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
        let Update { run: _, error, clock_ms, finished, views, loaded, stepped, fires, what_if, expectations, call_counts } = update;
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
        News { error, stepped, refused, call_counts }
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

/// The lanes of a run: the page's mirror of the lanes the engine worker runs, or none (no
/// scenario, or one that cannot run).
#[derive(Default)]
pub struct Lanes(Option<Mirror>);

impl Lanes {
    pub fn idle() -> Lanes {
        Lanes(None)
    }

    pub fn in_worker(mirror: Mirror) -> Lanes {
        Lanes(Some(mirror))
    }

    /// The mirror, for a rebuild of the same scenario.
    pub fn take(&mut self) -> Option<Mirror> {
        self.0.take()
    }

    pub fn mirror(&self) -> Option<&Mirror> {
        self.0.as_ref()
    }

    pub fn mirror_mut(&mut self) -> Option<&mut Mirror> {
        self.0.as_mut()
    }

    pub fn views(&self) -> &[Rc<LaneView>] {
        self.0.as_ref().map_or(&[], |m| &m.views)
    }

    /// The views shown are the previous build's, kept until the worker answers a Reset (a
    /// round trip, ~0.3 s at 10^5 sites): the blast view marks them as stale meanwhile.
    pub fn awaiting_rebuild(&self) -> bool {
        self.0.as_ref().is_some_and(|m| m.previous)
    }

    /// The build whose own views are on screen: `None` until a build's first update is applied
    /// (no lanes, a new build not answered yet, or a rebuild still showing the previous views).
    pub fn shown_build(&self) -> Option<u64> {
        self.0.as_ref().filter(|m| !m.previous && !m.views.is_empty()).map(|m| m.run)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    pub fn finished(&self) -> bool {
        self.0.as_ref().is_none_or(|m| m.finished)
    }

    pub fn clock_ms(&self) -> f64 {
        self.0.as_ref().map_or(0.0, |m| m.clock_ms)
    }

    pub fn total_relinks(&self) -> u64 {
        self.views().iter().map(|v| v.relinks()).sum()
    }

    /// Site names by id, shared with the views (`None` without lanes).
    pub fn names(&self) -> Option<&Rc<Vec<String>>> {
        self.0.as_ref().map(|m| &m.names)
    }

    pub fn classes(&self) -> &[ClassEntry] {
        self.0.as_ref().map_or(&[], |m| &m.classes)
    }

    pub fn advance_clock(&mut self, virtual_ms: f64) {
        if let Some(m) = self.0.as_mut().filter(|_| virtual_ms > 0.0) {
            m.advance_ms += virtual_ms;
        }
    }

    /// End of a frame's work: the worker is asked for the next frame once it answered the last.
    pub fn settle(&mut self) {
        if let Some(m) = &mut self.0 {
            if m.in_flight == 0 && m.advance_ms > 0.0 && !m.outbox.iter().any(|c| matches!(c, Command::Frame { .. })) {
                let advance_ms = std::mem::take(&mut m.advance_ms);
                m.queue(Command::Frame { advance_ms });
            }
        }
    }

    /// A step; its note comes with the update (`News::stepped`).
    pub fn step(&mut self) -> Option<String> {
        let m = self.0.as_mut()?;
        m.queue(Command::Step);
        Some("stepping…".into())
    }

    pub fn inject(&mut self, event: &Event) -> Result<usize, FireRefusal> {
        self.0.as_mut().ok_or(FireRefusal::NothingRunning)?.fire(Command::Fire(event.clone()))
    }

    pub fn inject_category(&mut self, name: &str, enter: bool) -> Result<usize, FireRefusal> {
        self.0.as_mut().ok_or(FireRefusal::NothingRunning)?.fire(Command::Category { name: name.to_string(), enter })
    }

    /// The what-if of `class` (`None`: nothing hovered). It comes with the next update, and
    /// with every update while the class stays hovered.
    pub fn what_if(&mut self, class: Option<&str>) -> Vec<(Policy, Vec<String>)> {
        let Some(m) = &mut self.0 else { return Vec::new() };
        if m.hover.as_deref() != class {
            m.hover = class.map(str::to_string);
            m.what_if.clear();
            m.queue(Command::WhatIf(m.hover.clone()));
        }
        m.what_if.clone()
    }

    /// The expectations against the lanes: the outcomes the worker last evaluated, and (when
    /// the lanes moved since it was last asked) a request for new ones, which come with the
    /// next update; asked only after a move, so an answer does not ask again.
    pub fn expectations(&mut self, scenario: &Scenario) -> Vec<Outcome> {
        let Some(m) = &mut self.0 else { return expect::waiting(scenario) };
        if m.moved && !scenario.expectations.is_empty() {
            m.moved = false;
            m.queue(Command::Expectations);
        }
        m.outcomes.clone()
    }

    pub fn select(&mut self, site: Option<String>) {
        if let Some(m) = &mut self.0 {
            m.queue(Command::Select(site));
        }
    }

    pub fn brush(&mut self, range: Option<(XAxis, Range)>) {
        if let Some(m) = &mut self.0 {
            m.queue(Command::Brush(range));
        }
    }

    /// Ask the worker for every site's call counts (they come with the next update, in
    /// `News::call_counts`); false when no lanes run.
    pub fn ask_call_counts(&mut self) -> bool {
        let Some(m) = &mut self.0 else { return false };
        m.queue(Command::CallCounts);
        true
    }

    /// Every site's row per lane (the results CSV): the mirrored views' verdicts and state with
    /// `call_counts` (`News::call_counts` of the update that brought these views).
    pub fn site_rows(&self, call_counts: &[Vec<CallCounts>]) -> Vec<Vec<SiteRow>> {
        export::site_rows(self.views(), call_counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;
    use crate::playback::{Control, Speed};
    use crate::runner::{Runner, SiteView};
    use crate::session::tests::{act, session};
    use crate::session::{CallSiteSession, FireOutcome, SessionAction};
    use crate::worker::churn_world::churn_world as world;
    use crate::worker::in_process::{self, with_host};
    use crate::worker::lane_host::Host;
    use blast_engine::expect::Status;
    use blast_engine::Params;

    /// A world big enough that a build and a step are real work (5,000 sites).
    const SITES: usize = 5_000;

    /// A session on `text`, its lanes built in the worker, and the same lanes run directly (what
    /// the worker's views must show).
    fn page(text: &str) -> (CallSiteSession, Runner) {
        let mut s = session();
        act(&mut s, SessionAction::EditText(text.to_string()));
        assert!(!s.runner().is_empty() && s.runner().views().len() == 2, "built in the worker");
        let direct = Runner::new(s.scenario(), s.policies(), &Params::default()).expect("it runs");
        (s, direct)
    }

    fn frame(s: &mut CallSiteSession, n: u32) {
        for control in [Control::FrameStart { wall_dt_ms: 16.0 }, Control::Work { max_steps: 64 }, Control::FrameEnd { wall_ms: f64::from(n) * 16.0 }] {
            act(s, control);
        }
    }

    fn play_to_end(s: &mut CallSiteSession) {
        act(s, Control::SetSpeed(Speed::Max));
        act(s, Control::Play);
        for n in 0..10_000 {
            frame(s, n);
            if !s.playback().playing {
                return;
            }
        }
        panic!("the run did not finish");
    }

    fn run_directly(r: &mut Runner) {
        while !r.finished() {
            r.advance_clock(1e9);
            r.work(5000);
            r.settle();
        }
        r.refresh();
    }

    /// Frames are counted per refresh, which differ with the pace of the commands: everything
    /// but when a site or unit flashed is the same.
    fn unflashed(l: &LaneView) -> LaneView {
        let mut l = l.clone();
        l.sites = Rc::new(l.sites.iter().map(|s| SiteView { flash: 0, ..*s }).collect());
        let mut compiled = l.compiled.as_ref().clone();
        compiled.units.iter_mut().for_each(|u| u.flash = 0);
        l.compiled = Rc::new(compiled);
        l
    }

    fn same_views(s: &CallSiteSession, direct: &Runner, what: &str) {
        let (a, b) = (s.runner().views(), direct.views());
        assert_eq!(a.len(), 2, "{what}");
        for (a, b) in a.iter().zip(b) {
            assert_eq!(unflashed(a), unflashed(b), "{what}: {}", a.policy);
        }
        assert_eq!((s.runner().clock_ms(), s.runner().finished()), (direct.clock_ms(), direct.finished()), "{what}");
        assert_eq!(s.runner().classes(), direct.classes(), "{what}");
    }

    #[test]
    fn the_mirror_fed_by_the_worker_shows_what_the_lanes_run_directly_show() {
        let (mut s, mut direct) = page(&world(SITES));
        direct.refresh();
        same_views(&s, &direct, "built");
        let write = Event::Write { class: "K1".into(), method: "m".into() };
        act(&mut s, SessionAction::SelectSite(Some("s1".into())));
        direct.select(Some("s1".into()));
        let mut note = None;
        for _ in 0..4 {
            act(&mut s, Control::Step);
            note = direct.step();
        }
        assert_eq!(s.playback().step_note.as_ref().map(|(_, n)| n.clone()), note, "the step's note comes back from the worker");
        act(&mut s, SessionAction::Fire(write.clone()));
        assert_eq!(direct.inject(&write), Ok(2));
        act(&mut s, Control::Step);
        direct.step();
        act(&mut s, SessionAction::HoverClass(Some("K1".into())));
        direct.refresh();
        same_views(&s, &direct, "after steps, a selection and a mutation");
        assert!(matches!(s.last_fire(), Some(&FireOutcome::Fired { lanes: 2, .. })));
        assert!(!s.what_if().is_empty() && s.what_if() == direct.what_if("K1"));
        assert!(s.runner().views()[0].selected.as_ref().is_some_and(|r| r.name == "s1"));
        // A brushed range, then the rest of the run frame by frame at full speed.
        let range = Some((XAxis::Progress, (0.0, 50.0)));
        act(&mut s, Control::SetSpeed(Speed::Max));
        act(&mut s, Control::Play);
        s.brush(range);
        direct.brush(range);
        play_to_end(&mut s);
        run_directly(&mut direct);
        assert!(s.runner().views().iter().all(|l| l.finished() && l.in_range.is_some()));
        // Run at another pace (frames of a virtual clock, or all at once): the same verdicts.
        for (a, b) in s.runner().views().iter().zip(direct.views()) {
            assert_eq!((a.iterations, a.phase, &a.totals), (b.iterations, b.phase, &b.totals), "{}", a.policy);
            assert_eq!(unflashed(a).sites, unflashed(b).sites, "{}", a.policy);
        }
        assert!(s.total_relinks() > 0 && s.total_relinks() == direct.total_relinks());
    }

    #[test]
    fn the_results_csv_of_lanes_in_the_worker_is_the_lanes_run_directly_with_every_call_count() {
        let (mut s, mut direct) = page(&world(SITES));
        let write = Event::Write { class: "K1".into(), method: "m".into() };
        for _ in 0..4 {
            act(&mut s, Control::Step);
            direct.step();
        }
        act(&mut s, SessionAction::Fire(write.clone()));
        direct.inject(&write).expect("it runs");
        act(&mut s, Control::Step);
        direct.step();
        direct.refresh();
        let mut fx = Effects::default();
        s.export_results(&mut fx);
        assert_eq!(fx.download, None, "the CSV waits for the worker's call counts");
        in_process::pump(&mut s, &mut fx);
        let csv = fx.download.expect("the CSV once the worker answered");
        let rows = crate::export::site_rows(direct.views(), &direct.call_counts());
        let expected = crate::export::results_csv(&s.scenario().name, direct.views(), &rows, None);
        assert_eq!(csv.text, expected);
        assert_eq!(csv.text.lines().filter(|l| l.contains(",site,")).count(), 2 * SITES, "a row per site and lane");
        assert!(rows.iter().flatten().all(|r| r.calls.fast + r.calls.selections + r.calls.stale > 0), "every site was called, and counted");
        assert!(rows.iter().flatten().any(|r| r.necessary + r.collateral + r.missed > 0), "the mutation relinked a site");
        // Asked again after more work: the counts of the lanes as they stand then.
        act(&mut s, Control::Step);
        let mut fx = Effects::default();
        s.export_results(&mut fx);
        in_process::pump(&mut s, &mut fx);
        assert_ne!(fx.download.expect("a second CSV").text, csv.text, "a Step made more calls");
    }

    #[test]
    fn every_scenario_runs_in_the_worker_whatever_its_size() {
        for sites in [1, SITES] {
            let (s, _) = page(&world(sites));
            assert!(s.runner().mirror().is_some() && s.scenario().sites.len() == sites);
        }
        // The default preset, made on the page: handed to the worker for its lanes.
        let s = session();
        assert_eq!(s.runner().views().len(), 2);
        assert!(s.run_error().is_none());
    }

    #[test]
    fn expectations_of_lanes_in_the_worker_are_what_the_lanes_run_directly_evaluate() {
        // Every kind of observation: relinked sites (one claim failing, with its causes), a
        // figure, two policies' figures and their ratio.
        let expectations = "expect under exact: write K1.* relinks only [s1]\n\
                            expect under global: write K1.* relinks none of [s2]\n\
                            expect under exact: missed == 0\n\
                            expect exact / global >= 1.1x ops\n\
                            expect exact <= global relinks\n";
        let (mut s, mut direct) = page(&(world(SITES) + expectations));
        assert_eq!(s.scenario().expectations.len(), 5);
        let scenario = s.scenario().clone();
        let same = |s: &CallSiteSession, direct: &Runner, what: &str| {
            assert_eq!(s.expectations().len(), 5, "{what}");
            assert_eq!(**s.expectations(), direct.expectations(&scenario), "{what}: the worker's outcomes are the lanes'");
        };
        same(&s, &direct, "built, nothing run");
        assert!(s.expectations().iter().all(|o| o.status == Status::Pending));
        for _ in 0..3 {
            act(&mut s, Control::Step);
            direct.step();
        }
        same(&s, &direct, "part-way");
        play_to_end(&mut s);
        run_directly(&mut direct);
        assert!(s.runner().finished());
        same(&s, &direct, "finished");
        // K1's sites are s1, s51, s101, ...: exact relinks them all, global everything.
        let first = &s.expectations()[0];
        assert!(first.status == Status::Fail && first.causes.iter().any(|c| c.site == "s51"), "{first:?}");
        assert!(s.expectations()[1].causes.iter().any(|c| c.site == "s2"), "global relinks s2 on a write to K1.m");
        assert!(s.expectations().iter().any(|o| o.status == Status::Pass));
        // Asked for only after the lanes moved: an answer does not ask again.
        assert!(s.take_lanes().is_none(), "nothing left to ask");
        assert_eq!(&s.runner_mut().expectations(&scenario), s.expectations().as_ref());
        assert!(s.take_lanes().is_none(), "no new request while the lanes stand still");
    }

    #[test]
    fn a_reset_rebuilds_in_the_worker_and_lost_lanes_are_handed_to_it_again() {
        let (mut s, _) = page(&world(SITES));
        act(&mut s, Control::Step);
        assert!(s.runner().views().iter().all(|l| l.events_recorded + l.iterations as usize > 0));
        act(&mut s, Control::Reset);
        assert!(s.runner().views().iter().all(|l| l.iterations == 0 && l.events_recorded == 0), "at time zero again");
        // A worker that no longer holds the scenario (a new one after a crash): handed to it
        // again, the lanes come back.
        with_host(|host| *host = Host::default());
        let fx = act(&mut s, Control::Reset);
        assert!(fx.banners.iter().any(|(_, b)| b.contains("start again from time zero")), "{:?}", fx.banners);
        assert!(s.runner().views().len() == 2 && s.run_error().is_none());
        act(&mut s, Control::Step);
        assert!(s.runner().views().iter().all(|l| l.events_recorded + l.iterations as usize > 0));
    }

    #[test]
    fn a_finished_run_resets_and_plays_again_in_the_worker() {
        let (mut s, _) = page(&world(SITES));
        while !s.runner().finished() {
            act(&mut s, Control::Step);
        }
        // Until the worker answers the new build, the page shows the lanes it had (the same
        // views and names: nothing is redrawn or copied), and they take mutations again.
        let (before, names) = (s.runner().views().to_vec(), s.runner().names().cloned());
        let mut fx = Effects::default();
        s.control(Control::Reset, &mut fx);
        assert!(s.runner().views().iter().zip(&before).all(|(a, b)| Rc::ptr_eq(a, b)) && s.runner().views().len() == 2);
        assert!(Rc::ptr_eq(s.runner().names().unwrap(), names.as_ref().unwrap()));
        assert!(s.runner().awaiting_rebuild(), "the views shown are the previous build's");
        s.reduce(SessionAction::Fire(Event::Write { class: "K1".into(), method: "m".into() }), &mut fx);
        assert!(matches!(s.last_fire(), Some(&FireOutcome::Fired { .. })), "refused: {:?}", s.last_fire());
        in_process::pump(&mut s, &mut fx);
        assert!(s.runner().views().iter().all(|l| l.iterations == 0 && !Rc::ptr_eq(&l.sites, &before[0].sites)), "the new build's views");
        assert!(!s.runner().awaiting_rebuild(), "the worker answered");
        assert!(matches!(s.last_fire(), Some(&FireOutcome::Fired { .. })), "the worker took it: {:?}", s.last_fire());
        act(&mut s, Control::Reset);
        assert_eq!(s.runner().clock_ms(), 0.0);
        act(&mut s, Control::Play);
        for n in 0..50 {
            frame(&mut s, n);
        }
        assert!(s.runner().clock_ms() > 0.0, "the clock moves");
    }

    /// Frames go on while the worker works: its answers arrive a few frames later.
    #[test]
    fn frames_ask_for_work_once_the_last_request_is_answered() {
        let (mut s, _) = page(&world(SITES));
        act(&mut s, Control::Reset);
        let mut fx = Effects::default();
        s.control(Control::Play, &mut fx);
        let mut posted = std::collections::VecDeque::new();
        for n in 0..200u32 {
            for control in [Control::FrameStart { wall_dt_ms: 16.0 }, Control::Work { max_steps: 64 }, Control::FrameEnd { wall_ms: f64::from(n) * 16.0 }] {
                s.control(control, &mut fx);
            }
            if let Some(request) = s.take_lanes() {
                posted.push_back(with_host(|host| host.answer(&lane_wire::encode_request(&request), &|| 0.0)));
            }
            if n % 3 == 0 {
                if let Some(bytes) = posted.pop_front() {
                    in_process::update(&mut s, bytes, &mut fx);
                }
            }
        }
        assert!(s.runner().clock_ms() > 0.0, "the clock moves");
    }

    /// Every lane view names its own sites, with the mirror's names, and they are the sites of
    /// the scenario on screen (what the blast view draws from).
    fn names_match_views(s: &CallSiteSession, what: &str) {
        let names = s.runner().names().expect("lanes");
        let on_screen: Vec<&str> = s.scenario().sites.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), on_screen, "{what}: the mirror's names are the scenario's");
        for v in s.runner().views() {
            assert!(Rc::ptr_eq(&v.names, names) && v.sites.len() == names.len(), "{what}: {} has {} sites for {} names", v.policy, v.sites.len(), names.len());
        }
    }

    /// A reload over an autosave of the user's own text: the lanes built at start-up (for the
    /// default scenario, while the text is read) answer before the reading is applied.
    #[test]
    fn lanes_built_while_a_text_is_read_are_the_scenario_their_names_are() {
        let mut s = session();
        names_match_views(&s, "the default scenario");
        let mut fx = Effects::default();
        s.reduce(SessionAction::EditText(world(3)), &mut fx);
        s.reduce(SessionAction::AddPolicies(vec![Policy::Ideal]), &mut fx);
        let (jobs, lanes) = (s.take_jobs(), s.take_lanes().expect("the new policies' lanes"));
        let readings: Vec<Vec<u8>> = jobs.iter().map(|job| with_host(|host| host.answer(&job.bytes, &|| 0.0))).collect();
        let update = with_host(|host| host.answer(&lane_wire::encode_request(&lanes), &|| 0.0));
        in_process::update(&mut s, update, &mut fx);
        names_match_views(&s, "the lanes' update before the text's reading");
        for bytes in readings {
            s.reduce(SessionAction::Read(crate::worker::offload::decode_reply(&bytes).expect("a reply")), &mut fx);
        }
        in_process::pump(&mut s, &mut fx);
        assert_eq!(s.scenario().sites.len(), 3, "the text on screen");
        names_match_views(&s, "the text's lanes");
    }

    #[test]
    fn views_of_another_scenario_than_the_names_are_refused() {
        let small = blast_engine::dsl::parse(&world(3)).expect("parses");
        let big = blast_engine::dsl::parse(&world(8)).expect("parses");
        let mut mirror = Mirror::build(1, 1, &big, &[Policy::Exact], false);
        let views = Runner::new(&small, &[Policy::Exact], &Params::default()).expect("runs").views().to_vec();
        let update = Update {
            run: 1,
            error: None,
            clock_ms: 0.0,
            finished: false,
            views,
            loaded: Vec::new(),
            stepped: None,
            fires: Vec::new(),
            what_if: Vec::new(),
            expectations: None,
            call_counts: None,
        };
        let refused = mirror.decoded(1, Ok(update.clone()));
        assert!(matches!(refused, Some(Err(DecodeError { why, .. })) if why.contains("another scenario")), "{refused:?}");
        assert!(Lanes::in_worker(mirror).views().is_empty(), "nothing shown under the 8 names");
        let mut mirror = Mirror::build(1, 1, &small, &[Policy::Exact], false);
        assert!(matches!(mirror.decoded(1, Ok(update)), Some(Ok(_))), "the same scenario's views are taken");
    }

    #[test]
    fn updates_for_an_older_build_are_dropped() {
        let (mut s, _) = page(&world(SITES));
        let m = s.runner_mut().mirror_mut().expect("lanes");
        m.queue(Command::Step);
        let stale = m.take_request().expect("a request");
        act(&mut s, Control::Reset);
        let bytes = with_host(|host| host.answer(&lane_wire::encode_request(&stale), &|| 0.0));
        let before = s.runner().views().to_vec();
        in_process::update(&mut s, bytes, &mut Effects::default());
        in_process::pump(&mut s, &mut Effects::default());
        assert_eq!(s.runner().views(), before.as_slice());
    }
}
