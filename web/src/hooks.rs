//! The App's long-lived effects: the animation-frame loop, keyboard shortcuts, share links
//! arriving through `hashchange`, theme, autosave and the engine worker.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use yew::prelude::*;

use crate::browser;
use crate::store::Store;
use crate::trace_feed;
use blast_playground::action::Action;
use blast_playground::chrome::ChromeAction;
use blast_playground::chrome::Theme;
use blast_playground::keys;
use blast_playground::model_mode::ModelAction;
use blast_playground::packing::{Clip, PackAction};
use blast_playground::playback::Control;
use blast_playground::session::SessionAction;
use blast_playground::state::{AppState, SaveKey};
use blast_playground::storage::{AsideWhy, SetAside};
use blast_playground::trace_lab::{LinkNote, TraceAction};
use blast_playground::worker::chart_wire::{self, ChartJob, Drawing};
use blast_playground::worker::client::{self, Budget, Client, Sent};
use blast_playground::worker::offload::Posting;
use blast_playground::worker::{lane_wire, model_wire};

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

/// A share link pasted into the address bar of an open page loads without a reload: the engine
/// worker opens it (`Action::OpenFragment`). Once it has painted, the opening marker goes and
/// the session is saved (`use_autosave`; see `browser::boot`).
#[hook]
pub fn use_hash_links(store: &Store) {
    let store = store.clone();
    use_effect_with((), move |_| {
        let listener = browser::on_window("hashchange", move || match browser::take_link() {
            Some(Ok(fragment)) => store.dispatch(Action::OpenFragment(fragment)),
            Some(Err(refusal)) => {
                store.dispatch(Action::Chrome(ChromeAction::ShowError(refusal.to_string())));
                browser::after_paint(browser::opened);
            }
            None => {}
        });
        move || drop(listener)
    });
}

/// Save the session: the engine worker makes the entry (its long texts deflated there,
/// `packing`), and `use_made` stores it. A save asked later wins: an older one's entry is then
/// dropped, so an older session is never written over a newer one.
fn save_now(store: &Store) {
    if store.read().holds_autosave() {
        return;
    }
    let saved = store.read().saved();
    store.dispatch(PackAction::Save(Box::new(saved)));
}

/// Hand what the engine worker made to the browser after each render: a share link to the
/// clipboard (`AppState::take_clip`; the clipboard's answer goes to the share strip or the trace
/// lab's link strip), an autosave entry to local storage (`AppState::take_entry`), and an
/// autosave it could not read moved aside (`AppState::take_set_aside`).
#[hook]
pub fn use_made(store: &Store) {
    let store = store.clone();
    use_effect(move || {
        let (clip, entry) = (store.take(AppState::take_clip), store.take(AppState::take_entry));
        if let Some(Clip { fragment, for_strip }) = clip {
            let Some(url) = browser::share_url(&fragment) else {
                return store.dispatch(Action::Chrome(ChromeAction::ShowError("Could not build a share link in this browser.".into())));
            };
            let store = store.clone();
            browser::copy_to_clipboard(&url.clone(), move |copied| match for_strip {
                true => store.dispatch(PackAction::Copied { fragment, copied }),
                false => store.dispatch(Action::Trace(TraceAction::Linked(Some(LinkNote::Copied { url, copied })))),
            });
        }
        if let Some(entry) = entry {
            if let Err(why) = browser::save(entry) {
                store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("Autosave is off: {why}."))));
            }
        }
        if let Some(why) = store.take(AppState::take_set_aside) {
            let why = AsideWhy::Unreadable(why);
            let aside = browser::set_aside_autosave(why.clone()).unwrap_or(SetAside { why, kept_under: None });
            store.dispatch(Action::SetAside(aside));
        }
    });
}

/// Hand a file the reducer made (`AppState::take_download`: the results CSV, which may wait
/// for the engine worker's call counts) to the browser after each render.
#[hook]
pub fn use_downloads(store: &Store) {
    let store = store.clone();
    use_effect(move || {
        if let Some(d) = store.take(AppState::take_download) {
            if let Err(e) = browser::download(&d.file, d.mime, &d.text) {
                store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The download of {} failed: {e}", d.file))));
            }
        }
    });
}

#[hook]
pub fn use_theme(theme: Theme) {
    use_effect_with(theme, |t| browser::apply_theme(*t));
}

/// Save the session whenever what it holds changes (`key`), but only once the page has
/// painted what it opened: a link or autosave that kills the page is never written over the
/// last good session. `painted` (the page built, nothing being opened or read) ends an opening
/// (`browser::opened`): the start-up's, or a link's from the address bar.
#[hook]
pub fn use_autosave(store: &Store, key: SaveKey, painted: bool) {
    let store = store.clone();
    // A save waiting for its task: changes until it runs are saved by it.
    let pending = use_mut_ref(|| false);
    use_effect_with((key, painted), move |(_, painted)| {
        if !*painted {
            return;
        }
        browser::opened();
        // From after the next paint: not inside the render that applied what is saved (e2e
        // `scale`'s paste measured that task at 52-57 ms when the page deflated it there).
        if !std::mem::replace(&mut *pending.borrow_mut(), true) {
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

/// The engine as the page holds it: where it runs, and the protocol's client (what is awaited,
/// and answers being decoded).
struct EngineLink {
    engine: RefCell<Engine>,
    client: RefCell<Client>,
    /// Batches of jobs taken from the state to be posted in a task of their own, not yet
    /// posted: lanes' commands wait for them (a build names a job's scenario).
    jobs_unposted: Cell<usize>,
    /// A task to decode answers a step further is set.
    stepping: Cell<bool>,
    /// Answers decoded and waiting for their task to be applied, in the order the worker sent
    /// them (`apply`).
    applying: RefCell<VecDeque<Action>>,
    /// The chart jobs out, one per picture (`chart_wire::Drawing`).
    drawing: RefCell<Drawing>,
}

type Link = Rc<EngineLink>;

/// Hand the reducer's jobs (`AppState::take_jobs`) to the engine worker after each render,
/// so the loading note paints first; its answers come back as `SessionAction::Read`. A worker that
/// cannot start leaves the page without an engine, with a notice (the text stays on screen,
/// editable; the last autosave is kept as it was); one that stops while reading a text answers
/// that job as failed and is replaced for the next one. Share links and autosave entries
/// (`AppState::take_packs`) are posted the same way.
///
/// Commands for the lanes the worker runs (`AppState::take_lanes`) go the same way, after
/// each render and after each frame-loop batch (`Store::after_batch`); its updates come back
/// as `SessionAction::LanesDecoded`, and lanes lost with a stopped worker as `SessionAction::LanesLost`.
/// What each answer means is `worker::client`'s; this only moves bytes and schedules steps.
///
/// `warm`: the page has finished loading; the worker starts then if no job started it
/// earlier, so the first large paste does not wait for its module to load and compile.
///
/// Returns what draws a chart: its job goes to the worker, and its picture comes back to the
/// canvas (or as a PNG file) by itself (`browser::show_picture`).
#[hook]
pub fn use_engine_worker(store: &Store, warm: bool) -> Callback<ChartJob> {
    let link: Link = use_memo((), |_| EngineLink {
        engine: RefCell::new(Engine::Idle),
        client: RefCell::default(),
        jobs_unposted: Cell::new(0),
        stepping: Cell::new(false),
        applying: RefCell::default(),
        drawing: RefCell::default(),
    });
    {
        let (store, link) = (store.clone(), link.clone());
        use_effect_with((), move |_| {
            let poster = store.clone();
            store.after_batch(move || {
                // Jobs taken and not yet posted go first (`post` below takes the lanes after them).
                if link.jobs_unposted.get() > 0 {
                    return;
                }
                if let Some(request) = poster.take(AppState::take_lanes) {
                    post(&poster, &link, Sent::Lanes, lane_wire::encode_request(&request));
                }
                if let Some(request) = poster.take(AppState::take_model) {
                    post(&poster, &link, Sent::Model, model_wire::encode_request(&request));
                }
            });
        });
    }
    let draw = {
        let (store, link) = (store.clone(), link.clone());
        use_callback((), move |job: ChartJob, _| {
            let ready = link.drawing.borrow_mut().send(job.label(), chart_wire::encode(&job));
            if let Some(bytes) = ready {
                post_drawing(&store, &link, bytes);
            }
        })
    };
    let store = store.clone();
    use_effect(move || {
        if warm {
            start(&store, &link);
        }
        let openings = store.take(AppState::take_openings);
        let jobs = store.take(AppState::take_jobs);
        let packs = store.take(AppState::take_packs);
        let fit = store.take(AppState::take_fit);
        let traces = store.take(AppState::take_trace);
        let model = store.take(AppState::take_model);
        let later = !jobs.is_empty();
        link.jobs_unposted.set(link.jobs_unposted.get() + usize::from(later));
        // First: what they open replaces the default scenario a job may be reading.
        for Posting { id, bytes } in openings {
            post(&store, &link, Sent::Open(id), bytes);
        }
        let send = move || {
            link.jobs_unposted.set(link.jobs_unposted.get() - usize::from(later));
            for Posting { id, bytes } in jobs {
                post(&store, &link, Sent::Job(id), bytes);
            }
            if let Some(Posting { id, bytes }) = fit {
                post(&store, &link, Sent::Fit(id), bytes);
            }
            for Posting { id, bytes } in packs {
                post(&store, &link, Sent::Pack(id), bytes);
            }
            if let Some(request) = model {
                post(&store, &link, Sent::Model, model_wire::encode_request(&request));
            }
            for message in traces {
                let (poster, link) = (store.clone(), link.clone());
                trace_feed::send(&store, message, move |bytes| post(&poster, &link, Sent::Trace, bytes));
            }
            // After the jobs: a lanes command may name a job's scenario (and none while jobs an
            // earlier render took still wait for their task).
            let jobs_wait = link.jobs_unposted.get() > 0;
            if let Some(request) = if jobs_wait { None } else { store.take(AppState::take_lanes) } {
                post(&store, &link, Sent::Lanes, lane_wire::encode_request(&request));
            }
        };
        // A job's bytes are copied into its message (3.5 MB for a 10^5-site paste: ~5 ms of CPU
        // in the render that shows the loading note, CPU profile at load 7): posted in a task
        // of its own.
        if later {
            browser::soon_detached(send);
        } else {
            send();
        }
    });
    draw
}

/// Start the worker unless it runs (or could not start).
fn start(store: &Store, link: &Link) {
    if !matches!(*link.engine.borrow(), Engine::Idle) {
        return;
    }
    let (news_store, news_link) = (store.clone(), link.clone());
    let spawned = browser::EngineWorker::spawn(move |news| on_news(&news_store, &news_link, news));
    *link.engine.borrow_mut() = match spawned {
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

/// Post a message to the worker (started if need be), its answer awaited by the client;
/// without a worker (it could not start), answered at once by what has no engine
/// (`client::no_worker`).
fn post(store: &Store, link: &Link, what: Sent, bytes: Vec<u8>) {
    start(store, link);
    let mut engine = link.engine.borrow_mut();
    match &mut *engine {
        Engine::Worker(worker) => {
            link.client.borrow_mut().sent(what);
            worker.post(bytes);
        }
        #[cfg(feature = "engine-in-page")]
        Engine::InPage(host) => {
            link.client.borrow_mut().sent(what);
            answer_in_page(store, link, host, &bytes);
        }
        _ => {
            drop(engine);
            apply(store, link, client::no_worker(what));
        }
    }
}

/// A chart's job to the worker (started if need be). No answer of the client's awaits it: its
/// picture comes as `WorkerNews::Picture`. Without a worker (and in the wasm tests' engine on
/// the page) nothing draws it: the worker's absence is said once, by the notice.
fn post_drawing(store: &Store, link: &Link, bytes: Vec<u8>) {
    start(store, link);
    if let Engine::Worker(worker) = &*link.engine.borrow() {
        worker.post(bytes);
    }
}

/// The wasm tests' engine: `host` answers on the page, its answer heard in a task of its own.
#[cfg(feature = "engine-in-page")]
fn answer_in_page(store: &Store, link: &Link, host: &mut blast_playground::worker::lane_host::Host, bytes: &[u8]) {
    let reply = host.answer(bytes, &browser::now_ms);
    let (store, link) = (store.clone(), link.clone());
    browser::soon_detached(move || on_news(&store, &link, browser::WorkerNews::Reply(reply)));
}

/// Hand an action of the client's to the store: a decoded lanes update at once (unless answers
/// before it wait), its render in a task after (at 10^5 sites the first update and the
/// aggregated view's rows it draws were one 41 ms task of CPU, Chromium trace at load 5); a
/// model replay's update at once; anything else, the reducer and its render (at 10^5 sites a
/// reading's apply is ~20 ms of CPU on its own), in a task after this one.
///
/// The views a lanes update replaces are let go when the browser is idle after its render: the
/// render's effects (the charts' inputs) held them last, and freeing a 10^5-site lane's views
/// was ~11 ms of that render's task (CPU profile of a run's last update, load 1).
///
/// Answers are applied in the order the worker sent them: each deferred one waits in
/// `EngineLink::applying`, and each task applies the oldest. A task per answer alone did not
/// keep that order: a timer set from deep in the decoding chain waits at least 4 ms (the
/// browser's clamp for nested timers) and one set from a fresh message does not, so a Hold's
/// answer was applied before the share link's read just ahead of it, and the link's reading,
/// older than an answered one, was given up: the link was dropped without a word (e2e
/// `keeps work: a share link opened over an edit`, about one run in three).
fn apply(store: &Store, link: &Link, action: Action) {
    let waiting = !link.applying.borrow().is_empty();
    let now = match &action {
        Action::Model(ModelAction::Replayed(_)) => true,
        Action::Session(SessionAction::LanesDecoded(..)) => !waiting,
        _ => false,
    };
    if now {
        return reduce(store, action);
    }
    link.applying.borrow_mut().push_back(action);
    let (store, link) = (store.clone(), link.clone());
    browser::soon_detached(move || {
        let oldest = link.applying.borrow_mut().pop_front();
        if let Some(action) = oldest {
            reduce(&store, action);
        }
    });
}

fn reduce(store: &Store, action: Action) {
    if matches!(action, Action::Session(SessionAction::LanesDecoded(..))) {
        let replaced = store.read().session.runner().views().to_vec();
        store.dispatch_render_later(action);
        browser::soon_detached(move || browser::when_idle(move || drop(replaced)));
    } else {
        store.dispatch(action);
    }
}

fn on_news(store: &Store, link: &Link, news: browser::WorkerNews) {
    match news {
        browser::WorkerNews::Reply(bytes) => {
            let actions = link.client.borrow_mut().on_reply(bytes);
            for action in actions {
                apply(store, link, action);
            }
            decode_soon(store, link);
        }
        browser::WorkerNews::Picture(picture) => {
            let next = link.drawing.borrow_mut().answered(&picture.label);
            if let Some(bytes) = next {
                post_drawing(store, link, bytes);
            }
            let shown = picture.drawn.map_err(|e| e.to_string()).and_then(|bitmap| browser::show_picture(&picture.label, &bitmap).map_err(|e| e.to_string()));
            if let Err(why) = shown {
                store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("A chart could not be drawn ({}): {why}", picture.label))));
            }
        }
        browser::WorkerNews::Failed { started, why } => {
            let (store, link) = (store.clone(), link.clone());
            // Not from inside the worker's own event handler: this drops the worker.
            browser::soon_detached(move || {
                // The wasm tests' runner serves no worker: what it was given is answered on the page.
                #[cfg(feature = "engine-in-page")]
                if !started {
                    let unposted = match &*link.engine.borrow() {
                        Engine::Worker(worker) => worker.take_unposted(),
                        _ => Vec::new(),
                    };
                    let mut host = Box::<blast_playground::worker::lane_host::Host>::default();
                    // Charts are drawn only by a worker.
                    for bytes in unposted.iter().filter(|b| !chart_wire::is_chart(b)) {
                        answer_in_page(&store, &link, &mut host, bytes);
                    }
                    *link.engine.borrow_mut() = Engine::InPage(host);
                    return;
                }
                link.drawing.borrow_mut().forget();
                *link.engine.borrow_mut() = if started { Engine::Idle } else { without_worker(&store, &why) };
                let actions = link.client.borrow_mut().on_failed(started, &why);
                for action in actions {
                    store.dispatch(action);
                }
            });
        }
    }
}

#[cfg_attr(feature = "engine-in-page", allow(dead_code))]
fn no_worker(why: &str) -> String {
    format!("The engine worker did not start ({why}): the engine runs only there, so scenarios are not read or run, the measured panel cannot read probe results, and no share link or autosave is made. Your text stays on the page, and the last autosave is kept as it was.")
}

/// Decode the answers a step further in a task of its own (`Client::step`), one step per task
/// until none is left; each step's action is applied before the next step begins (a lanes
/// update is decoded against the views the answers before it left).
fn decode_soon(store: &Store, link: &Link) {
    if link.stepping.get() || !link.client.borrow().decoding() {
        return;
    }
    link.stepping.set(true);
    let (store, link) = (store.clone(), link.clone());
    browser::soon_detached(move || {
        link.stepping.set(false);
        let decoded = link.client.borrow_mut().step(Budget::PAGE, |bytes| store.read().session.lanes_decoder(bytes));
        if let Some(action) = decoded {
            apply(&store, &link, action);
        }
        decode_soon(&store, &link);
    });
}
