//! The page's side of the engine worker's protocol, as a pure state machine: what was asked
//! and not answered, what each answer means, and answers decoded a bounded part per step.
//!
//! The shell (`web/src/hooks.rs`) only creates the worker, posts bytes, hands each answer's
//! bytes to [`Client::on_reply`], asks for the next [`Client::step`] in a task of its own while
//! [`Client::decoding`], and dispatches the [`Action`]s these return. Everything here is plain
//! Rust, so its routing and its steps are tested natively against the worker's real answers
//! (`in_process`).
//!
//! Answers are decoded and applied in the order they arrive (the worker answers in the order it
//! was asked): a lanes update whose build a reading's answer replaces is then always dropped,
//! and each update is decoded against the views the one before it left.

use std::collections::VecDeque;

use crate::action::Action;
use crate::lab::LabAction;
use crate::model_mode::ModelAction;
use crate::packing::PackAction;
use crate::session::SessionAction;
use crate::trace_lab::{self, TraceAction};
use crate::worker::fit_wire::{self, ReadRefusal};
use crate::worker::lane_wire::{self, UpdateDecoder};
use crate::worker::offload;
use crate::worker::wire::{self, Reply, ReplyDecoder, Unanswered, Verdict};
use crate::worker::{open_wire, pack_wire};

/// A message posted to the worker, by what its answer is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sent {
    /// A text to read (`wire::Job`), by id: answered as `SessionAction::Read`.
    Job(u64),
    /// Commands for the lanes (`lane_wire::Request`): answered as `SessionAction::LanesDecoded`.
    Lanes,
    /// A probe result to fit (`fit_wire`), by id: answered as `LabAction::Answered`.
    Fit(u64),
    /// A trace lab message (`trace_lab::protocol`): answered as `TraceAction::Answer`.
    Trace,
    /// Commands for the model replay (`model_wire`): answered as `ModelAction::Replayed`.
    Model,
    /// Links or an autosave entry to make (`pack_wire`), by id: answered as `PackAction::Answered`.
    Pack(u64),
    /// The autosave or a link to open (`open_wire`), by id: answered as `Action::Opened`.
    Open(u64),
}

/// How much one [`Client::step`] decodes at most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Classes, sites or statements of a reading's answer (`wire::DECODE_ITEMS`).
    pub items: usize,
    /// Site views of a lanes update (`lane_wire::DECODE_SITES`).
    pub sites: usize,
}

impl Budget {
    /// The page's: each bounded by what a task may take (the constants say what was measured).
    pub const PAGE: Budget = Budget { items: wire::DECODE_ITEMS, sites: lane_wire::DECODE_SITES };
}

/// What the worker was asked and has not answered, and answers being decoded.
#[derive(Default)]
pub struct Client {
    /// Jobs' ids, oldest first (the worker answers in order).
    jobs: VecDeque<u64>,
    /// Requests for its lanes not answered.
    lanes: usize,
    /// Fit jobs' ids, oldest first.
    fits: VecDeque<u64>,
    /// Requests for the model replay not answered.
    replays: usize,
    /// Pack jobs' ids, oldest first.
    packs: VecDeque<u64>,
    /// Open jobs' ids, oldest first.
    opens: VecDeque<u64>,
    /// Answers being decoded, oldest first.
    decoding: VecDeque<Decoding>,
}

enum Decoding {
    /// The answer to job `id`, a part per step (at 10^5 sites a whole one was one task of ~25 ms
    /// CPU).
    Read(u64, ReplyDecoder),
    /// A lanes update not yet begun: its decoder is made once the answers before it are applied
    /// (its deltas are against the views they left).
    LanesArrived(Vec<u8>),
    /// A lanes update of build `run`, a part per step.
    Lanes(u64, UpdateDecoder),
}

impl Client {
    /// `what` was posted: its answer is awaited.
    pub fn sent(&mut self, what: Sent) {
        match what {
            Sent::Job(id) => self.jobs.push_back(id),
            Sent::Lanes => self.lanes += 1,
            Sent::Fit(id) => self.fits.push_back(id),
            Sent::Model => self.replays += 1,
            Sent::Pack(id) => self.packs.push_back(id),
            Sent::Open(id) => self.opens.push_back(id),
            Sent::Trace => {}
        }
    }

    /// The worker's answer: what to apply now (a fit, a trace page, lanes lost), the rest left
    /// to [`step`](Client::step). An answer nothing awaits is dropped; damaged bytes are
    /// answered as failed, never a panic.
    pub fn on_reply(&mut self, bytes: Vec<u8>) -> Vec<Action> {
        match wire::kind(&bytes) {
            Some(wire::LANES) => {
                self.lanes = self.lanes.saturating_sub(1);
                if let Err(why) = lane_wire::update_run(&bytes) {
                    return vec![SessionAction::LanesLost(format!("its update is unreadable ({why})")).into()];
                }
                self.decoding.push_back(Decoding::LanesArrived(bytes));
                Vec::new()
            }
            Some(wire::FIT) => {
                let Some(job) = self.fits.pop_front() else { return Vec::new() };
                let (job, answer) = match fit_wire::decode_reply(&bytes) {
                    Ok(answered) => answered,
                    Err(why) => (job, Err(ReadRefusal::AnswerUnreadable(why))),
                };
                vec![Action::Lab(LabAction::Answered { job, answer: Box::new(answer) })]
            }
            Some(wire::PACK) => match oldest(&mut self.packs, pack_wire::decode_reply(&bytes)) {
                Some((id, answer)) => vec![PackAction::Answered { id, answer: Box::new(answer) }.into()],
                None => Vec::new(),
            },
            Some(wire::OPEN) => match oldest(&mut self.opens, open_wire::decode_reply(&bytes)) {
                Some((id, answer)) => vec![Action::Opened { id, answer: Box::new(answer) }],
                None => Vec::new(),
            },
            // Applied as it comes: the model's mirror reads it (`model_mirror`).
            Some(wire::MODEL) => {
                self.replays = self.replays.saturating_sub(1);
                vec![Action::Model(ModelAction::Replayed(bytes))]
            }
            Some(wire::TRACE) => {
                let action = match trace_lab::protocol::decode_reply(&bytes) {
                    Ok(reply) => TraceAction::Answer(reply),
                    Err(why) => TraceAction::Lost(format!("the engine worker's answer is unreadable ({why})")),
                };
                vec![Action::Trace(action)]
            }
            // A reading's answer, or bytes of no kind: the oldest job's answer either way (its
            // decoder says what is wrong with them).
            _ => {
                if let Some(id) = self.jobs.pop_front() {
                    self.decoding.push_back(Decoding::Read(id, ReplyDecoder::new(bytes)));
                }
                Vec::new()
            }
        }
    }

    /// Answers wait to be decoded: the shell asks for another [`step`](Client::step).
    pub fn decoding(&self) -> bool {
        !self.decoding.is_empty()
    }

    /// Decode the oldest answer at most `budget` further: the action that applies it once it
    /// is whole. `lanes_decoder` makes a lanes update's decoder against the views on screen
    /// (`CallSiteSession::lanes_decoder`; `None`: it is for another build, and is dropped).
    pub fn step(&mut self, budget: Budget, lanes_decoder: impl FnOnce(Vec<u8>) -> Option<(u64, UpdateDecoder)>) -> Option<Action> {
        let front = self.decoding.front_mut()?;
        if let Decoding::LanesArrived(bytes) = front {
            match lanes_decoder(std::mem::take(bytes)) {
                Some((run, decoder)) => *front = Decoding::Lanes(run, decoder),
                None => {
                    self.decoding.pop_front();
                    return None;
                }
            }
        }
        let done = match front {
            Decoding::Read(id, decoder) => match decoder.step(budget.items) {
                Ok(None) => None,
                Ok(Some(reply)) => Some(SessionAction::Read(reply)),
                Err(e) => Some(SessionAction::Read(Reply { id: *id, verdict: Verdict::Failed(offload::unreadable(e)) })),
            },
            Decoding::Lanes(run, decoder) => decoder.step(budget.sites).transpose().map(|decoded| SessionAction::LanesDecoded(*run, Box::new(decoded))),
            Decoding::LanesArrived(_) => None,
        };
        if done.is_some() {
            self.decoding.pop_front();
        }
        done.map(Action::from)
    }

    /// The worker stopped (`started`), or never started: every answer it owed, given up, with
    /// why. Answers that arrived before are still decoded.
    pub fn on_failed(&mut self, started: bool, why: &str) -> Vec<Action> {
        let how = if started { "stopped" } else { "did not start" };
        let mut actions: Vec<Action> = self
            .fits
            .drain(..)
            .map(|job| Action::Lab(LabAction::Answered { job, answer: Box::new(Err(ReadRefusal::WorkerLost { started, why: why.to_string() })) }))
            .collect();
        let lost = |id| PackAction::Answered { id, answer: Box::new(Err(Unanswered::WorkerLost { started, why: why.to_string() })) }.into();
        actions.extend(self.packs.drain(..).map(lost));
        let lost = |id| Action::Opened { id, answer: Box::new(Err(Unanswered::WorkerLost { started, why: why.to_string() })) };
        actions.extend(self.opens.drain(..).map(lost));
        if std::mem::take(&mut self.lanes) > 0 {
            actions.push(SessionAction::LanesLost(format!("it stopped: {why}")).into());
        }
        if std::mem::take(&mut self.replays) > 0 {
            actions.push(Action::Model(ModelAction::Lost(format!("the engine worker stopped ({why})"))));
        }
        actions.push(Action::Trace(TraceAction::Lost(format!("the engine worker {how} ({why})"))));
        for id in self.jobs.drain(..) {
            actions.push(match started {
                true => SessionAction::Read(Reply { id, verdict: Verdict::Failed(format!("the engine stopped while reading it ({why})")) }).into(),
                false => unread(id),
            });
        }
        actions
    }
}

/// The oldest job `awaited` (the worker answers in order) and its answer `decoded`: unreadable
/// when it names another job; `None` when no job awaits one.
fn oldest<T>(awaited: &mut VecDeque<u64>, decoded: Result<(u64, T), wire::DecodeError>) -> Option<(u64, Result<T, Unanswered>)> {
    let job = awaited.pop_front()?;
    let answer = match decoded {
        Ok((id, value)) if id == job => Ok(value),
        Ok(_) => Err(Unanswered::Unreadable(wire::DecodeError { at: 0, why: "the answer to another job" })),
        Err(why) => Err(Unanswered::Unreadable(why)),
    };
    Some((job, answer))
}

/// The answer to a message no worker will read (none started): the page has no engine.
pub fn no_worker(what: Sent) -> Action {
    match what {
        Sent::Job(id) => unread(id),
        Sent::Lanes => SessionAction::LanesLost("there is no engine worker".into()).into(),
        Sent::Fit(job) => Action::Lab(LabAction::Answered { job, answer: Box::new(Err(ReadRefusal::NoWorker)) }),
        Sent::Model => Action::Model(ModelAction::Lost("there is no engine worker".into())),
        Sent::Pack(id) => PackAction::Answered { id, answer: Box::new(Err(Unanswered::NoWorker)) }.into(),
        Sent::Open(id) => Action::Opened { id, answer: Box::new(Err(Unanswered::NoWorker)) },
        Sent::Trace => Action::Trace(TraceAction::Lost("logs are read in the engine worker, which did not start".into())),
    }
}

/// A job no worker will read: answered as failed (the text stays on screen, with why).
fn unread(id: u64) -> Action {
    let verdict = Verdict::Failed("the engine worker did not start, and scenarios are read only there".into());
    SessionAction::Read(Reply { id, verdict }).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;
    use crate::playback::Control;
    use crate::session::tests::{act, act_only, session};
    use crate::session::CallSiteSession;
    use crate::worker::churn_world::churn_world;
    use crate::worker::in_process::with_host;
    use crate::worker::wire::DecodeError;

    /// The worker's answer to `bytes`, as the real one gives it.
    fn answer(bytes: &[u8]) -> Vec<u8> {
        with_host(|host| host.answer(bytes, &|| 0.0))
    }

    /// Post what the session has for the worker, as the shell does (jobs, then the lanes'
    /// commands): the worker's answers, in order.
    fn post(s: &mut CallSiteSession, c: &mut Client) -> Vec<Vec<u8>> {
        let mut answers = Vec::new();
        for job in s.take_jobs() {
            c.sent(Sent::Job(job.id));
            answers.push(answer(&job.bytes));
        }
        if let Some(request) = s.take_lanes() {
            c.sent(Sent::Lanes);
            answers.push(answer(&lane_wire::encode_request(&request)));
        }
        answers
    }

    /// Step until the client has nothing left, each action applied before the next step as
    /// the shell does: the actions and how many steps it took.
    fn drain(s: &mut CallSiteSession, c: &mut Client, budget: Budget) -> (Vec<Action>, usize) {
        let (mut actions, mut steps) = (Vec::new(), 0);
        while c.decoding() {
            steps += 1;
            if let Some(action) = c.step(budget, |bytes| s.lanes_decoder(bytes)) {
                if let Action::Session(a) = action.clone() {
                    s.reduce(a, &mut Effects::default());
                }
                actions.push(action);
            }
        }
        (actions, steps)
    }

    /// Every answer heard, then decoded whole.
    fn hear(s: &mut CallSiteSession, c: &mut Client, answers: Vec<Vec<u8>>) -> Vec<Action> {
        let mut actions: Vec<Action> = answers.into_iter().flat_map(|bytes| c.on_reply(bytes)).collect();
        actions.extend(drain(s, c, Budget::PAGE).0);
        actions
    }

    fn read_ids(actions: &[Action]) -> Vec<u64> {
        actions.iter().filter_map(|a| if let Action::Session(SessionAction::Read(r)) = a { Some(r.id) } else { None }).collect()
    }

    fn lanes_runs(actions: &[Action]) -> Vec<u64> {
        actions.iter().filter_map(|a| if let Action::Session(SessionAction::LanesDecoded(run, _)) = a { Some(*run) } else { None }).collect()
    }

    #[test]
    fn answers_go_to_what_asked_for_them_in_the_order_they_came() {
        let (mut s, mut c) = (session(), Client::default());
        act_only(&mut s, SessionAction::EditText(churn_world(30)));
        c.sent(Sent::Fit(7));
        let mut answers = post(&mut s, &mut c);
        let job = c.jobs.back().copied();
        assert_eq!(answers.len(), 1, "a text to read; its lanes wait for its answer");
        let unreadable = fit_wire::Unreadable { message: "not JSON".into(), excerpt: None };
        answers.insert(0, fit_wire::encode_reply(7, &Err(unreadable.clone())));
        let actions = hear(&mut s, &mut c, answers);
        assert_eq!(actions[0], Action::Lab(LabAction::Answered { job: 7, answer: Box::new(Err(ReadRefusal::NotAResult(unreadable))) }), "the fit's, at once");
        assert_eq!(read_ids(&actions), Vec::from_iter(job), "the reading's, decoded");
        assert_eq!(s.scenario().sites.len(), 30, "applied");
        // Its lanes: the update of the build on screen, applied to its mirror.
        let answers = post(&mut s, &mut c);
        let actions = hear(&mut s, &mut c, answers);
        assert_eq!(lanes_runs(&actions).len(), 1);
        assert!(s.runner().views().len() == 2 && s.runner().views().iter().all(|v| v.sites.len() == 30 && !s.runner().awaiting_rebuild()));
        assert!(!c.decoding() && c.jobs.is_empty() && c.lanes == 0 && c.fits.is_empty(), "nothing left awaited");
        // A model replay's update goes to the model, as it came.
        c.sent(Sent::Model);
        let replayed = vec![wire::MODEL as u8, 1, 2];
        assert_eq!(c.on_reply(replayed.clone()), vec![Action::Model(ModelAction::Replayed(replayed))]);
        assert_eq!(c.replays, 0);
    }

    #[test]
    fn an_answer_nothing_awaits_or_for_an_older_build_is_dropped() {
        let (mut s, mut c) = (session(), Client::default());
        act(&mut s, Control::Step);
        act_only(&mut s, Control::Step);
        let stale = post(&mut s, &mut c);
        act(&mut s, Control::Reset);
        let before = s.runner().views().to_vec();
        assert!(hear(&mut s, &mut c, stale).is_empty(), "the update of the build before the Reset");
        assert_eq!(s.runner().views(), before.as_slice());
        // A reading's answer with no job awaited (its worker failed meanwhile): dropped.
        act_only(&mut s, SessionAction::EditText(churn_world(3)));
        let late = post(&mut s, &mut c);
        c.on_failed(true, "gone");
        assert!(hear(&mut s, &mut c, late).is_empty() && !c.decoding());
    }

    #[test]
    fn a_step_decodes_at_most_its_budget_and_the_last_applies_the_whole_answer() {
        const SITES: usize = 5_000;
        let (mut s, mut c) = (session(), Client::default());
        let budget = Budget { items: 1_000, sites: 1_000 };
        act_only(&mut s, SessionAction::EditText(churn_world(SITES)));
        for bytes in post(&mut s, &mut c) {
            c.on_reply(bytes);
        }
        // 50 classes, 5,000 sites and about 5,000 statements: ten steps of 1,000 items at least.
        let (actions, steps) = drain(&mut s, &mut c, budget);
        assert_eq!(read_ids(&actions).len(), 1);
        assert!((10..=12).contains(&steps), "{steps} steps");
        assert_eq!(s.scenario().sites.len(), SITES);
        let build = post(&mut s, &mut c);
        hear(&mut s, &mut c, build);
        // The second Step calls every site: most of the 2 x 5,000 site views change.
        act(&mut s, Control::Step);
        act_only(&mut s, Control::Step);
        let mut answers = post(&mut s, &mut c);
        let bytes = answers.pop().expect("the lanes' update");
        let (_, mut whole) = s.lanes_decoder(bytes.clone()).expect("for the build on screen");
        let whole = whole.step(usize::MAX).expect("decodes").expect("at once");
        let held = s.runner().views().to_vec();
        let changed: usize = held.iter().zip(&whole.views).map(|(a, b)| a.sites.iter().zip(b.sites.iter()).filter(|(a, b)| a != b).count()).sum();
        assert!(changed > SITES, "{changed} site views changed");
        c.on_reply(bytes);
        let (actions, steps) = drain(&mut s, &mut c, budget);
        // One step per 1,000 changed views, and one for what follows the last lane's.
        assert!((changed.div_ceil(1_000)..=changed.div_ceil(1_000) + 1).contains(&steps), "{steps} steps for {changed} changed views");
        assert_eq!(lanes_runs(&actions).len(), 1, "applied once, by the last step");
        assert!(whole.views.iter().all(|v| v.sites.len() == SITES));
        assert_eq!(s.runner().views(), whole.views.as_slice(), "the whole update applied");
    }

    #[test]
    fn a_worker_that_fails_has_what_it_owed_answered_and_its_late_answers_dropped() {
        let (mut s, mut c) = (session(), Client::default());
        act_only(&mut s, SessionAction::EditText(churn_world(3)));
        let late = post(&mut s, &mut c);
        let job = c.jobs.back().copied().expect("a job");
        c.sent(Sent::Lanes);
        c.sent(Sent::Fit(4));
        c.sent(Sent::Model);
        let owed = c.on_failed(true, "gone");
        assert!(owed.contains(&Action::Model(ModelAction::Lost("the engine worker stopped (gone)".into()))));
        let lost = ReadRefusal::WorkerLost { started: true, why: "gone".into() };
        assert!(owed.contains(&Action::Lab(LabAction::Answered { job: 4, answer: Box::new(Err(lost)) })), "{owed:?}");
        assert!(owed.contains(&SessionAction::LanesLost("it stopped: gone".into()).into()));
        assert!(owed.contains(&Action::Trace(TraceAction::Lost("the engine worker stopped (gone)".into()))));
        let failed = owed.iter().find_map(|a| if let Action::Session(SessionAction::Read(r)) = a { Some(r.clone()) } else { None });
        assert!(failed.is_some_and(|r| r.id == job && matches!(&r.verdict, Verdict::Failed(why) if why.contains("stopped while reading"))));
        assert!(hear(&mut s, &mut c, late).is_empty(), "its answers after it failed");
        // A worker that never started: the job is answered as unread, nothing is awaited after.
        c.sent(Sent::Job(9));
        assert!(c.on_failed(false, "no script").contains(&no_worker(Sent::Job(9))));
        assert!(c.on_failed(false, "again").iter().all(|a| matches!(a, Action::Trace(_))), "nothing owed twice");
    }

    #[test]
    fn a_pack_answer_goes_to_its_job_and_a_lost_or_damaged_one_says_why() {
        use crate::share::{LinkSource, LinkView};
        use crate::worker::pack_wire::{PackJob, Packed};
        let mut c = Client::default();
        let job = PackJob::Links(vec![LinkSource::Scenario { text: "class A { m }".into(), policies: Vec::new(), view: LinkView::default() }]);
        c.sent(Sent::Pack(3));
        let reply = answer(&pack_wire::encode_job(3, &job));
        let Some(Action::Pack(PackAction::Answered { id: 3, answer })) = c.on_reply(reply.clone()).pop() else { panic!("routed") };
        assert!(matches!(*answer, Ok(Packed::Links(ref links)) if links[0].as_ref().is_ok_and(|f| f.starts_with("s=2."))), "{answer:?}");
        assert!(c.on_reply(reply.clone()).is_empty(), "nothing awaits a second answer");
        // The answer to another job, or damaged bytes: unreadable, for the job awaited.
        c.sent(Sent::Pack(4));
        let unreadable = |actions: Vec<Action>, id| matches!(&actions[..], [Action::Pack(PackAction::Answered { id: i, answer })] if *i == id && matches!(**answer, Err(Unanswered::Unreadable(_))));
        assert!(unreadable(c.on_reply(reply), 4));
        c.sent(Sent::Pack(5));
        assert!(unreadable(c.on_reply(vec![wire::PACK as u8, 0xff]), 5));
        // A worker that stops owes it; no worker answers at once.
        c.sent(Sent::Pack(6));
        let lost = PackAction::Answered { id: 6, answer: Box::new(Err(Unanswered::WorkerLost { started: true, why: "gone".into() })) };
        assert!(c.on_failed(true, "gone").contains(&lost.into()));
        assert_eq!(no_worker(Sent::Pack(7)), PackAction::Answered { id: 7, answer: Box::new(Err(Unanswered::NoWorker)) }.into());
    }

    #[test]
    fn an_open_answer_goes_to_its_job_and_a_lost_one_says_why() {
        use crate::worker::open_wire::{Sealed, Unsealed};
        let mut c = Client::default();
        c.sent(Sent::Open(2));
        let reply = answer(&open_wire::encode_job(2, &Sealed { autosave: None, link: Some("#s=1.Y2xhc3MgQSB7IG0gfQ".into()) }));
        let Some(Action::Opened { id: 2, answer }) = c.on_reply(reply.clone()).pop() else { panic!("routed") };
        assert!(matches!(*answer, Ok(Unsealed { autosave: None, link: Some(Ok(Some(_))) })), "{answer:?}");
        assert!(c.on_reply(reply).is_empty(), "nothing awaits a second answer");
        c.sent(Sent::Open(3));
        assert!(
            matches!(&c.on_reply(vec![wire::OPEN as u8, 0xff])[..], [Action::Opened { id: 3, answer }] if matches!(**answer, Err(Unanswered::Unreadable(_))))
        );
        c.sent(Sent::Open(4));
        let lost = Action::Opened { id: 4, answer: Box::new(Err(Unanswered::WorkerLost { started: false, why: "no script".into() })) };
        assert!(c.on_failed(false, "no script").contains(&lost));
        assert_eq!(no_worker(Sent::Open(5)), Action::Opened { id: 5, answer: Box::new(Err(Unanswered::NoWorker)) });
    }

    #[test]
    fn damaged_answers_are_typed_errors_not_panics() {
        let (mut s, mut c) = (session(), Client::default());
        act_only(&mut s, Control::Step);
        let update = post(&mut s, &mut c).pop().expect("the lanes' update");
        c.lanes = 0;
        // Every cut of a lanes update: lost (its head unreadable) or decoded to a typed error.
        for cut in 1..update.len() {
            c.sent(Sent::Lanes);
            let mut actions = c.on_reply(update[..cut].to_vec());
            actions.extend(drain(&mut s, &mut c, Budget { items: 1, sites: 1 }).0);
            let typed = actions.iter().all(|a| match a {
                Action::Session(SessionAction::LanesDecoded(_, decoded)) => matches!(**decoded, Err(DecodeError { at, .. }) if at <= cut),
                Action::Session(SessionAction::LanesLost(why)) => why.contains("unreadable"),
                _ => false,
            });
            assert!(typed && actions.len() <= 1, "cut at {cut}: {actions:?}");
            // The session rebuilt its lanes after an unreadable update: take its new request.
            let _ = s.take_jobs();
            let _ = s.take_lanes();
        }
        let job = churn_world(3);
        let reading = answer(&wire::encode_job(5, &job, s.policies(), false, None));
        for bytes in [reading[..reading.len() / 2].to_vec(), vec![0xff; 8]] {
            c.sent(Sent::Job(5));
            c.on_reply(bytes);
            let (actions, _) = drain(&mut CallSiteSession::new(), &mut c, Budget::PAGE);
            assert!(
                matches!(&actions[..], [Action::Session(SessionAction::Read(Reply { id: 5, verdict: Verdict::Failed(why) }))] if why.contains("unreadable"))
            );
        }
        c.sent(Sent::Fit(2));
        assert!(matches!(
            &c.on_reply(vec![wire::FIT as u8, 0xff])[..],
            [Action::Lab(LabAction::Answered { job: 2, answer })] if matches!(**answer, Err(ReadRefusal::AnswerUnreadable(_)))
        ));
        assert!(matches!(&c.on_reply(vec![wire::TRACE as u8, 0xff])[..], [Action::Trace(TraceAction::Lost(_))]));
    }
}
