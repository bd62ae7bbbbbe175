//! An engine worker in the test's own thread: it answers the page's jobs, its lanes' and its
//! model replay's commands at once, through the bytes the real worker exchanges
//! (`lane_host::Host`), so the sessions' and the router's tests run the page's one engine path
//! synchronously.

use std::cell::RefCell;

use crate::action::Action;
use crate::effects::Effects;
use crate::model_mode::{ModelAction, ModelSession};
use crate::session::{CallSiteSession, SessionAction};
use crate::state::AppState;
use crate::worker::client::{Budget, Client, Sent};
use crate::worker::lane_host::Host;
use crate::worker::{lane_wire, model_wire, offload, open_wire};

thread_local! {
    /// Each test runs on a thread of its own: one worker per test, like one per page.
    static WORKER: RefCell<Host> = RefCell::new(Host::default());
}

/// What posts to the worker and takes its answers: the session, or the whole page state.
pub trait Page {
    fn session(&mut self) -> &mut CallSiteSession;
    /// Apply an answer as the page does.
    fn apply(&mut self, action: SessionAction, fx: &mut Effects);
    /// The model session on screen, if any.
    fn model(&mut self) -> Option<&mut ModelSession> {
        None
    }
    /// Have the autosave and links it hands out opened, and apply the answers.
    fn open(&mut self) {}
}

impl Page for CallSiteSession {
    fn session(&mut self) -> &mut CallSiteSession {
        self
    }

    fn apply(&mut self, action: SessionAction, fx: &mut Effects) {
        self.reduce(action, fx);
    }
}

impl Page for AppState {
    fn session(&mut self) -> &mut CallSiteSession {
        &mut self.session
    }

    fn apply(&mut self, action: SessionAction, _: &mut Effects) {
        self.reduce(Action::Session(action));
    }

    fn model(&mut self) -> Option<&mut ModelSession> {
        self.model.as_mut()
    }

    fn open(&mut self) {
        for job in self.take_openings() {
            let (id, unsealed) = open_wire::decode_reply(&with_host(|host| host.answer(&job.bytes, &|| 0.0))).expect("a reply");
            self.reduce(Action::Opened { id, answer: Box::new(Ok(unsealed)) });
        }
    }
}

/// The worker's own state, for a test that posts to it by hand.
pub fn with_host<R>(f: impl FnOnce(&mut Host) -> R) -> R {
    WORKER.with_borrow_mut(f)
}

/// Answer every job and lanes request, as the shell and the worker do, until none is left;
/// the jobs of a batch before its lanes' commands (a build names a job's scenario).
pub fn pump(page: &mut impl Page, fx: &mut Effects) {
    page.open();
    if let Some(model) = page.model() {
        pump_model(model, fx);
    }
    loop {
        let jobs = page.session().take_jobs();
        let lanes = page.session().take_lanes();
        if jobs.is_empty() && lanes.is_none() {
            return;
        }
        for job in &jobs {
            let reply = with_host(|host| host.answer(&job.bytes, &|| 0.0));
            page.apply(SessionAction::Read(offload::decode_reply(&reply).expect("a reply")), fx);
        }
        if let Some(request) = lanes {
            let bytes = with_host(|host| host.answer(&lane_wire::encode_request(&request), &|| 0.0));
            update(page, bytes, fx);
        }
    }
}

/// Answer the model replay's requests until none is left.
pub fn pump_model(model: &mut ModelSession, fx: &mut Effects) {
    while let Some(request) = model.take_request() {
        let bytes = with_host(|host| host.answer(&model_wire::encode_request(&request), &|| 0.0));
        model.reduce(ModelAction::Replayed(bytes), fx);
    }
}

/// The worker's update, decoded as the page does (`client::Client`, a few site views per
/// step), then applied.
pub fn update(page: &mut impl Page, bytes: Vec<u8>, fx: &mut Effects) {
    let mut client = Client::default();
    client.sent(Sent::Lanes);
    let mut actions = client.on_reply(bytes);
    while client.decoding() {
        actions.extend(client.step(Budget { items: 97, sites: 97 }, |bytes| page.session().lanes_decoder(bytes)));
    }
    for action in actions {
        if let Action::Session(action) = action {
            page.apply(action, fx);
        }
    }
}
