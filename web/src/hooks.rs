//! The App's long-lived effects: the animation-frame loop, keyboard shortcuts, share links
//! arriving through `hashchange`, theme, autosave and the engine worker.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use yew::prelude::*;

use crate::browser;
use crate::store::Store;
use crate::trace_feed;
use blast_engine::fingerprint::Fingerprint;
use blast_playground::action::Action;
use blast_playground::chrome::ChromeAction;
use blast_playground::chrome::Theme;
use blast_playground::keys;
use blast_playground::lab::LabAction;
use blast_playground::model_mode::ModelAction;
use blast_playground::playback::Control;
use blast_playground::session::SessionAction;
use blast_playground::state::{AppState, SaveKey};
use blast_playground::trace_lab::{self, TraceAction};
use blast_playground::worker::fit_wire::{self, FitRefusal};
use blast_playground::worker::lane_wire::{self, UpdateDecoder};
use blast_playground::worker::model_wire;
use blast_playground::worker::offload::{self, Posting};
use blast_playground::worker::wire::{self, ReplyDecoder};
use blast_playground::worker::wire::{Reply, Verdict};

/// Wall-clock budget for engine work per frame; the rest of the frame renders.
const FRAME_BUDGET_MS: f64 = 8.0;
/// Engine steps between clock checks (each step is microseconds of work).
const STEPS_PER_CHUNK: usize = 64;

type Slot<T> = Rc<RefCell<Option<T>>>;

/// While playing, advance the simulations once per animation frame within the budget.
#[hook]
pub fn use_frame_loop(store: &Store, playing: bool) {
    let frame: Slot<browser::Frame> = use_mut_ref(|| None);
    let last: Slot<f64> = use_mut_ref(|| None);
    let store = store.clone();
    use_effect_with(playing, move |playing| {
        *last.borrow_mut() = None;
        if *playing {
            schedule(store, frame.clone(), last);
        }
        move || drop(frame.borrow_mut().take())
    });
}

fn schedule(store: Store, slot: Slot<browser::Frame>, last: Slot<f64>) {
    let next_slot = slot.clone();
    let handle = browser::next_frame(move |timestamp| {
        run_frame(&store, timestamp, &last);
        if store.read().is_playing() {
            schedule(store, next_slot, last);
        }
    });
    *slot.borrow_mut() = Some(handle);
}

fn run_frame(store: &Store, timestamp: f64, last: &RefCell<Option<f64>>) {
    let wall_dt_ms = last.borrow().map(|l| timestamp - l).unwrap_or(1000.0 / 60.0);
    *last.borrow_mut() = Some(timestamp);
    let deadline = browser::now_ms() + FRAME_BUDGET_MS;
    store.batch(|s: &mut AppState| {
        s.reduce(Action::Run(Control::FrameStart { wall_dt_ms }));
        loop {
            s.reduce(Action::Run(Control::Work { max_steps: STEPS_PER_CHUNK }));
            if !s.is_behind() || browser::now_ms() >= deadline {
                break;
            }
        }
        s.reduce(Action::Run(Control::FrameEnd { wall_ms: timestamp }));
    });
}

#[hook]
pub fn use_shortcuts(store: &Store) {
    let store = store.clone();
    use_effect_with((), move |_| {
        let listener = browser::on_keydown(move |e| {
            if let Some(action) = keys::history_action(&e.key, e.ctrl_or_meta, e.shift, e.alt) {
                // The DSL box's own undo cannot survive the text being re-printed by form
                // edits: the scenario history stands in for it. Other fields keep the browser's.
                let ours = e.focus != keys::Focus::TextField || e.on_dsl_text;
                if ours {
                    store.dispatch(action);
                }
                return ours;
            }
            if keys::control_keeps(e.focus, &e.key) {
                return false;
            }
            let Some(action) = keys::action_for(&e.key, e.ctrl_or_meta || e.alt) else { return false };
            // The cheat sheet is modal: only its own keys act while it is open.
            if store.read().chrome.help_open && !matches!(action, Action::Chrome(ChromeAction::ToggleHelp) | Action::CloseOverlays) {
                return false;
            }
            store.dispatch(action);
            true
        });
        move || drop(listener)
    });
}

/// How many of the page's deferred parts are mounted: 0 at first, then one more after each
/// painted frame, up to `parts`, and it stays there.
///
/// The first render builds the top bar (and the state: the engine's lanes for the scenario);
/// each part below it (the gallery, the blast view, the analysis panels, the editor) mounts in
/// a task of its own after the previous frame is painted, so building and laying out the whole page never adds up to one
/// long task during load (the target: none over 50 ms, e2e `load:`).
#[hook]
pub fn use_mount_stages(parts: usize) -> usize {
    let mounted = use_state(|| 0usize);
    let pending: Slot<(browser::Frame, Option<browser::Task>)> = use_mut_ref(|| None);
    {
        let mounted = mounted.clone();
        use_effect_with(*mounted, move |&now| {
            if now < parts {
                let after_paint = pending.clone();
                // Animation-frame callbacks run just before the frame's layout and paint; a timer
                // set from one fires after them.
                let frame = browser::next_frame(move |_| {
                    if let Some((_, timer)) = after_paint.borrow_mut().as_mut() {
                        *timer = Some(browser::soon(move || mounted.set(now + 1)));
                    }
                });
                *pending.borrow_mut() = Some((frame, None));
            }
            move || drop(pending.borrow_mut().take())
        });
    }
    *mounted
}

/// A share link pasted into the address bar of an open page loads without a reload. Once it
/// has painted, the opening marker goes and the session is saved (see `browser::boot`).
#[hook]
pub fn use_hash_links(store: &Store) {
    let store = store.clone();
    use_effect_with((), move |_| {
        let listener = browser::on_window("hashchange", move || {
            let Some(taken) = browser::take_link() else { return };
            // Decoded and opened in a task of its own: taking the fragment out of the address
            // bar (`replaceState`) and decoding 64 KB of link were one 10-17 ms task (CPU) with
            // the reducer and the render of the loading note, 50-86 ms wall on a loaded machine.
            let store = store.clone();
            browser::soon_detached(move || {
                match taken.read() {
                    Some(Ok(link)) => store.dispatch(Action::open_link(link, "the link")),
                    Some(Err(refusal)) => store.dispatch(Action::Chrome(ChromeAction::ShowError(refusal.to_string()))),
                    None => return,
                }
                browser::after_paint(move || {
                    browser::opened();
                    save_now(&store);
                });
            });
        });
        move || drop(listener)
    });
}

fn save_now(store: &Store) {
    let saved = store.read().saved();
    if let Err(why) = browser::save(&saved) {
        store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("Autosave is off: {why}."))));
    }
}

#[hook]
pub fn use_theme(theme: Theme) {
    use_effect_with(theme, |t| browser::apply_theme(*t));
}

/// Save the session whenever what it holds changes (`key`), but only once the page has
/// painted what it opened: a link or autosave that kills the page is never written over the
/// last good session. `painted` turning true ends the start-up opening (`browser::opened`).
#[hook]
pub fn use_autosave(store: &Store, key: SaveKey, painted: bool) {
    let store = store.clone();
    // Per page instance: the start-up opening ends at this instance's first paint.
    let booted = use_mut_ref(|| false);
    // A save waiting for its task: changes until it runs are saved by it.
    let pending = use_mut_ref(|| false);
    use_effect_with((key, painted), move |(_, painted)| {
        if !*painted {
            return;
        }
        if !std::mem::replace(&mut *booted.borrow_mut(), true) {
            browser::opened();
        }
        // A long text is deflated as it is saved (`storage::PACK_ABOVE`; ~40 ms of CPU for the
        // 3.5 MB of a 10^5-site world): in a task of its own after the next paint, not inside
        // the render that applied it (e2e `scale`'s paste measured that task at 52-57 ms).
        if !browser::is_opening() && !std::mem::replace(&mut *pending.borrow_mut(), true) {
            browser::after_paint(move || {
                *pending.borrow_mut() = false;
                if !browser::is_opening() {
                    save_now(&store);
                }
            });
        }
    });
}

/// Where the engine runs: the engine worker, the page's only engine path.
enum Engine {
    /// No worker yet: one starts with the first message (the first scenario's lanes).
    Idle,
    Worker(browser::EngineWorker),
    /// The worker's host on the page, answering in a task of its own: only for the wasm tests,
    /// whose runner serves no worker module.
    #[cfg(feature = "engine-in-page")]
    InPage(Box<blast_playground::worker::lane_host::Host>),
    /// The worker could not start: nothing is read or run; the page says so and keeps the text.
    #[cfg_attr(feature = "engine-in-page", allow(dead_code))]
    Unavailable,
}

/// Hand the reducer's jobs (`AppState::take_jobs`) to the engine worker after each render,
/// so the loading note paints first; its answers come back as `SessionAction::Read`. A worker that
/// cannot start leaves the page without an engine, with a notice (the text stays on screen,
/// editable and saved); one that stops while reading a text answers that job as failed and is
/// replaced for the next one.
///
/// Commands for the lanes the worker runs (`AppState::take_lanes`) go the same way, after
/// each render and after each frame-loop batch (`Store::after_batch`); its updates come back
/// as `SessionAction::LanesDecoded`, and lanes lost with a stopped worker as `SessionAction::LanesLost`.
///
/// `warm`: the page has finished loading; the worker starts then if no job started it
/// earlier, so the first large paste does not wait for its module to load and compile.
#[hook]
pub fn use_engine_worker(store: &Store, warm: bool) {
    let engine = use_mut_ref(|| Engine::Idle);
    let in_flight = use_mut_ref(InFlight::default);
    {
        let (store, engine, in_flight) = (store.clone(), engine.clone(), in_flight.clone());
        use_effect_with((), move |_| {
            let poster = store.clone();
            store.after_batch(move || {
                // Jobs taken and not yet posted go first (`post` below takes the lanes after them).
                if in_flight.borrow().jobs_unposted > 0 {
                    return;
                }
                if let Some(request) = poster.take_lanes() {
                    command(&poster, &engine, &in_flight, &request);
                }
                if let Some(request) = poster.take_model() {
                    replay(&poster, &engine, &in_flight, &request);
                }
            });
        });
    }
    let store = store.clone();
    use_effect(move || {
        if warm {
            start(&store, &engine, &in_flight);
        }
        let jobs = store.take_jobs();
        let fit = store.take_fit();
        let traces = store.take_trace();
        let model = store.take_model();
        let later = !jobs.is_empty();
        in_flight.borrow_mut().jobs_unposted += usize::from(later);
        let post = move || {
            in_flight.borrow_mut().jobs_unposted -= usize::from(later);
            for job in jobs {
                submit(&store, &engine, &in_flight, job);
            }
            if let Some(job) = fit {
                post_fit(&store, &engine, &in_flight, job);
            }
            if let Some(request) = model {
                replay(&store, &engine, &in_flight, &request);
            }
            for message in traces {
                let (poster, engine, in_flight) = (store.clone(), engine.clone(), in_flight.clone());
                trace_feed::send(&store, message, move |bytes| post_trace(&poster, &engine, &in_flight, bytes));
            }
            // After the jobs: a lanes command may name a job's scenario (and none while jobs an
            // earlier render took still wait for their task).
            let jobs_wait = in_flight.borrow().jobs_unposted > 0;
            if let Some(request) = if jobs_wait { None } else { store.take_lanes() } {
                command(&store, &engine, &in_flight, &request);
            }
        };
        // A job's bytes are copied into its message (3.5 MB for a 10^5-site paste: ~5 ms of CPU
        // in the render that shows the loading note, CPU profile at load 7): posted in a task
        // of its own.
        if later {
            browser::soon_detached(post);
        } else {
            post();
        }
    });
}

type Shared<T> = Rc<RefCell<T>>;

/// What the worker was asked and has not answered, and answers being decoded.
#[derive(Default)]
struct InFlight {
    /// Jobs' ids, oldest first (the worker answers in order).
    jobs: VecDeque<u64>,
    /// Requests for its lanes.
    lanes: usize,
    /// Batches of jobs taken from the state to be posted in a task of their own, not yet
    /// posted: lanes' commands wait for them (a build names a job's scenario).
    jobs_unposted: usize,
    /// Requests for the model replay (`model_wire`).
    replays: usize,
    /// Fit jobs' ids (`fit_wire`), oldest first.
    fits: VecDeque<u64>,
    /// Answers to jobs, oldest first, each decoded `wire::DECODE_ITEMS` at a time in a task
    /// of its own (at 10^5 sites a whole answer was one task of ~25 ms CPU): the page stays
    /// responsive, and answers are applied in order.
    decoding: VecDeque<(u64, ReplyDecoder)>,
    /// Updates of the lanes, oldest first, likewise decoded `lane_wire::DECODE_SITES` site views
    /// per task (one whose every site changed was a task of 20-36 ms CPU at 10^5 sites), each
    /// against the views the one before it left: its decoder is made once that one is applied.
    updates: VecDeque<LanesUpdate>,
}

enum LanesUpdate {
    Arrived(Vec<u8>),
    Decoding(u64, UpdateDecoder),
}

/// Start the worker unless it runs (or could not start).
fn start(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>) {
    if !matches!(*engine.borrow(), Engine::Idle) {
        return;
    }
    let (news_store, news_engine, news_in_flight) = (store.clone(), engine.clone(), in_flight.clone());
    let spawned = browser::EngineWorker::spawn(move |news| on_news(&news_store, &news_engine, &news_in_flight, news));
    *engine.borrow_mut() = match spawned {
        Ok(worker) => Engine::Worker(worker),
        Err(why) => without_worker(store, &why.to_string()),
    };
}

/// The engine when no worker starts: none (a notice says so), or in the wasm tests its host on
/// the page.
fn without_worker(store: &Store, why: &str) -> Engine {
    #[cfg(feature = "engine-in-page")]
    {
        let _ = (store, why);
        Engine::InPage(Box::default())
    }
    #[cfg(not(feature = "engine-in-page"))]
    {
        store.dispatch(Action::Chrome(ChromeAction::ShowError(no_worker(why))));
        Engine::Unavailable
    }
}

fn submit(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, job: Posting) {
    let Posting { id, bytes } = job;
    post(store, engine, in_flight, bytes, |f| f.jobs.push_back(id), |_| unread(store, id));
}

/// Post a message to the worker (started if need be), noted in flight by `track`; without a
/// worker (it could not start), `otherwise` gets the message back.
fn post(
    store: &Store,
    engine: &Shared<Engine>,
    in_flight: &Shared<InFlight>,
    bytes: Vec<u8>,
    track: impl FnOnce(&mut InFlight),
    otherwise: impl FnOnce(Vec<u8>),
) {
    start(store, engine, in_flight);
    let mut e = engine.borrow_mut();
    match &mut *e {
        Engine::Worker(worker) => {
            track(&mut in_flight.borrow_mut());
            worker.post(bytes);
        }
        #[cfg(feature = "engine-in-page")]
        Engine::InPage(host) => {
            track(&mut in_flight.borrow_mut());
            let reply = host.answer(&bytes, &browser::now_ms);
            let (store, engine, in_flight) = (store.clone(), engine.clone(), in_flight.clone());
            browser::soon_detached(move || on_news(&store, &engine, &in_flight, browser::WorkerNews::Reply(reply)));
        }
        _ => {
            drop(e);
            otherwise(bytes);
        }
    }
}

/// A job no worker will read: answered as failed (the text stays on screen, with why).
fn unread(store: &Store, id: u64) {
    let store = store.clone();
    let verdict = Verdict::Failed("the engine worker did not start, and scenarios are read only there".into());
    browser::soon_detached(move || store.dispatch(SessionAction::Read(Reply { id, verdict })));
}

/// Commands for the lanes the worker runs (`lanes`): its update comes back as `SessionAction::LanesDecoded`.
/// Without a worker (it could not start) there are no lanes: the engine runs only there.
fn command(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, request: &lane_wire::Request) {
    post(store, engine, in_flight, lane_wire::encode_request(request), |f| f.lanes += 1, |_| lanes_lost(store, "there is no engine worker".into()));
}

/// The model replay's commands (`model_wire`): its update comes back as `ModelAction::Replayed`.
/// Without a worker there is no replay: the model runs only there.
fn replay(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, request: &model_wire::Request) {
    let lost = |_| replay_lost(store, "there is no engine worker".into());
    post(store, engine, in_flight, model_wire::encode_request(request), |f| f.replays += 1, lost);
}

fn replay_lost(store: &Store, why: String) {
    let store = store.clone();
    browser::soon_detached(move || store.dispatch(Action::Model(ModelAction::Lost(why))));
}

/// The measured panel's fit job (`fit_wire`): its answer comes back as `LabAction::Fitted`.
/// Without a worker there is no fit: the engine's fingerprint is not on the page.
fn post_fit(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, job: Posting) {
    let Posting { id, bytes } = job;
    let no_worker = |_| fitted(store, id, Err(FitRefusal::NoWorker));
    post(store, engine, in_flight, bytes, |f| f.fits.push_back(id), no_worker);
}

/// A trace lab message (`trace_lab::protocol`): its answer comes back as `TraceAction::Answer`.
/// Without a worker no log is read: the readers are not on the page.
fn post_trace(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, bytes: Vec<u8>) {
    let no_worker = |_| store.dispatch(Action::Trace(TraceAction::Lost("logs are read in the engine worker, which did not start".into())));
    post(store, engine, in_flight, bytes, |_| {}, no_worker);
}

fn fitted(store: &Store, job: u64, fitted: Result<Fingerprint, FitRefusal>) {
    let store = store.clone();
    browser::soon_detached(move || store.dispatch(Action::Lab(LabAction::Fitted { job, fitted })));
}

fn lanes_lost(store: &Store, why: String) {
    let store = store.clone();
    browser::soon_detached(move || store.dispatch(SessionAction::LanesLost(why)));
}

fn on_news(store: &Store, engine: &Shared<Engine>, in_flight: &Shared<InFlight>, news: browser::WorkerNews) {
    match news {
        browser::WorkerNews::Reply(bytes) if wire::kind(&bytes) == Some(wire::LANES) => {
            let mut f = in_flight.borrow_mut();
            f.lanes = f.lanes.saturating_sub(1);
            f.updates.push_back(LanesUpdate::Arrived(bytes));
            let first = f.updates.len() == 1;
            drop(f);
            if first {
                lanes_step(store, in_flight);
            }
        }
        browser::WorkerNews::Reply(bytes) if wire::kind(&bytes) == Some(wire::MODEL) => {
            let mut f = in_flight.borrow_mut();
            f.replays = f.replays.saturating_sub(1);
            drop(f);
            store.dispatch(Action::Model(ModelAction::Replayed(bytes)));
        }
        browser::WorkerNews::Reply(bytes) if wire::kind(&bytes) == Some(wire::FIT) => {
            let Some(job) = in_flight.borrow_mut().fits.pop_front() else { return };
            match fit_wire::decode_reply(&bytes) {
                Ok((job, fit)) => fitted(store, job, fit),
                Err(why) => fitted(store, job, Err(FitRefusal::AnswerUnreadable(why))),
            }
        }
        browser::WorkerNews::Reply(bytes) if wire::kind(&bytes) == Some(wire::TRACE) => {
            let action = match trace_lab::protocol::decode_reply(&bytes) {
                Ok(reply) => TraceAction::Answer(reply),
                Err(why) => TraceAction::Lost(format!("the engine worker's answer is unreadable ({why})")),
            };
            // Applied (the reducer, and the render of a whole trace's markup) in a task after
            // the one that decoded it.
            let store = store.clone();
            browser::soon_detached(move || store.dispatch(Action::Trace(action)));
        }
        browser::WorkerNews::Reply(bytes) => {
            let Some(job) = in_flight.borrow_mut().jobs.pop_front() else { return };
            decode(store, in_flight, job, bytes);
        }
        browser::WorkerNews::Failed { started, why } => {
            let (store, engine, in_flight) = (store.clone(), engine.clone(), in_flight.clone());
            // Not from inside the worker's own event handler: this drops the worker.
            browser::soon_detached(move || {
                // The wasm tests' runner serves no worker: what it was given is answered on the page.
                #[cfg(feature = "engine-in-page")]
                if !started {
                    let unposted = match &*engine.borrow() {
                        Engine::Worker(worker) => worker.take_unposted(),
                        _ => Vec::new(),
                    };
                    let mut host = Box::<blast_playground::worker::lane_host::Host>::default();
                    for bytes in unposted {
                        let reply = host.answer(&bytes, &browser::now_ms);
                        let (store, engine, in_flight) = (store.clone(), engine.clone(), in_flight.clone());
                        browser::soon_detached(move || on_news(&store, &engine, &in_flight, browser::WorkerNews::Reply(reply)));
                    }
                    *engine.borrow_mut() = Engine::InPage(host);
                    return;
                }
                let lost: Vec<u64> = in_flight.borrow_mut().jobs.drain(..).collect();
                let fits: Vec<u64> = in_flight.borrow_mut().fits.drain(..).collect();
                for job in fits {
                    fitted(&store, job, Err(FitRefusal::WorkerLost { started, why: why.clone() }));
                }
                if std::mem::take(&mut in_flight.borrow_mut().lanes) > 0 {
                    store.dispatch(SessionAction::LanesLost(format!("it stopped: {why}")));
                }
                if std::mem::take(&mut in_flight.borrow_mut().replays) > 0 {
                    store.dispatch(Action::Model(ModelAction::Lost(format!("the engine worker stopped ({why})"))));
                }
                let how = if started { "stopped" } else { "did not start" };
                store.dispatch(Action::Trace(TraceAction::Lost(format!("the engine worker {how} ({why})"))));
                if started {
                    *engine.borrow_mut() = Engine::Idle;
                    for id in lost {
                        let verdict = Verdict::Failed(format!("the engine stopped while reading it ({why})"));
                        store.dispatch(SessionAction::Read(Reply { id, verdict }));
                    }
                } else {
                    *engine.borrow_mut() = without_worker(&store, &why);
                    for id in lost {
                        unread(&store, id);
                    }
                }
            });
        }
    }
}

#[cfg_attr(feature = "engine-in-page", allow(dead_code))]
fn no_worker(why: &str) -> String {
    format!("The engine worker did not start ({why}): the engine runs only there, so scenarios are not read or run, and the measured panel cannot fit results. Your text is kept (and saved).")
}

/// Decode the answer to job `id` after those before it, a part per task, then apply it.
fn decode(store: &Store, in_flight: &Shared<InFlight>, id: u64, bytes: Vec<u8>) {
    let mut f = in_flight.borrow_mut();
    f.decoding.push_back((id, ReplyDecoder::new(bytes)));
    if f.decoding.len() == 1 {
        decode_step(store, in_flight);
    }
}

/// Decode the oldest lanes update a part further, in a task of its own; the last part applies
/// it, and its render follows in a task after that (at 10^5 sites the first update and the
/// aggregated view's rows it draws were one 41 ms task of CPU, Chromium trace at load 5).
fn lanes_step(store: &Store, in_flight: &Shared<InFlight>) {
    let (store, in_flight) = (store.clone(), in_flight.clone());
    browser::soon_detached(move || {
        let mut f = in_flight.borrow_mut();
        let Some(front) = f.updates.front_mut() else { return };
        if let LanesUpdate::Arrived(bytes) = front {
            match store.read().session.lanes_decoder(std::mem::take(bytes)) {
                Some((run, decoder)) => *front = LanesUpdate::Decoding(run, decoder),
                // Not for the lanes on screen (a Reset since): dropped.
                None => drop(f.updates.pop_front()),
            }
        }
        let decoded = match f.updates.front_mut() {
            Some(LanesUpdate::Decoding(run, decoder)) => decoder.step(lane_wire::DECODE_SITES).transpose().map(|d| (*run, d)),
            _ => None,
        };
        if decoded.is_some() {
            f.updates.pop_front();
        }
        let more = !f.updates.is_empty();
        drop(f);
        if let Some((run, decoded)) = decoded {
            store.dispatch_render_later(SessionAction::LanesDecoded(run, Box::new(decoded)));
        }
        if more {
            lanes_step(&store, &in_flight);
        }
    });
}

fn decode_step(store: &Store, in_flight: &Shared<InFlight>) {
    let (store, in_flight) = (store.clone(), in_flight.clone());
    browser::soon_detached(move || {
        let mut f = in_flight.borrow_mut();
        let Some((id, decoder)) = f.decoding.front_mut() else { return };
        let decoded = match decoder.step(wire::DECODE_ITEMS) {
            Ok(None) => None,
            Ok(Some(reply)) => Some(reply),
            Err(e) => Some(Reply { id: *id, verdict: Verdict::Failed(offload::unreadable(e)) }),
        };
        if decoded.is_some() {
            f.decoding.pop_front();
        }
        let more = !f.decoding.is_empty();
        drop(f);
        // Applied (the reducer and the render around the new scenario) in a task after the
        // last step: at 10^5 sites the apply is ~20 ms of CPU on its own.
        if let Some(reply) = decoded {
            let store = store.clone();
            browser::soon_detached(move || store.dispatch(SessionAction::Read(reply)));
        }
        if more {
            decode_step(&store, &in_flight);
        }
    });
}
