//! Holds the one `AppState` for the component tree and funnels every change through
//! `AppState::reduce`.
//!
//! Yew's `use_reducer` wants a state it can clone per action; ours owns the running engine
//! simulations, which are neither cheap nor possible to clone. So the state lives in a
//! `RefCell`, actions are applied in place, and the App re-renders once per batch.

use std::any::{Any, TypeId};
use std::cell::{Ref, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use yew::prelude::*;

use blast_playground::action::Action;
use blast_playground::state::AppState;

#[derive(Clone)]
pub struct Store {
    state: Rc<RefCell<AppState>>,
    /// Actions that arrived while the state was borrowed; applied on the next dispatch.
    queue: Rc<RefCell<VecDeque<Action>>>,
    rerender: UseForceUpdateHandle,
    /// Run after each batch (`hooks::use_engine_worker` posts the lanes' frame requests).
    after_batch: Rc<RefCell<Option<AfterBatch>>>,
    /// The callbacks `callback`, `on` and `handler` made, one per function.
    made: Rc<RefCell<MadeCallbacks>>,
}

type AfterBatch = Rc<dyn Fn()>;

/// The callbacks the store made, one per function (its type and address). A `Callback`
/// compares by pointer, so one made afresh on every render re-renders the component it is
/// handed to on every frame of a run: at 10^5 sites the editor's forms re-read the whole
/// scenario each time (~20 ms of CPU per frame, in a CPU profile of a run). The functions are
/// plain `fn`s (an `Action` constructor, a closure without captures): one that does the same
/// gets the same callback, and the store's code is generic over the event type only, not per
/// function (keyed by the closure's type instead, it was 5 KiB more of the gzipped page). The
/// store lives as long as the page, and so do the callbacks (they hold it). Each `Rc` holds a
/// `Callback<E>`.
type MadeCallbacks = Vec<((TypeId, usize), Rc<dyn Any>)>;

#[hook]
pub fn use_store(init: impl FnOnce() -> AppState) -> Store {
    let state = use_mut_ref(init);
    let queue = use_mut_ref(VecDeque::new);
    let rerender = use_force_update();
    let after_batch = use_mut_ref(|| None);
    let made = use_mut_ref(Vec::new);
    Store { state, queue, rerender, after_batch, made }
}

impl Store {
    pub fn read(&self) -> Ref<'_, AppState> {
        self.state.borrow()
    }

    pub fn dispatch(&self, action: impl Into<Action>) {
        self.queue.borrow_mut().push_back(action.into());
        self.drain();
    }

    /// Several reductions with one re-render (the frame loop uses this).
    pub fn batch(&self, f: impl FnOnce(&mut AppState)) {
        match self.state.try_borrow_mut() {
            Ok(mut state) => f(&mut state),
            Err(_) => return,
        }
        self.drain();
        let after = self.after_batch.borrow().clone();
        if let Some(after) = after {
            after();
        }
    }

    /// What to do after each batch of the frame loop: effects do not see its renders in time
    /// (measured: a frame's request for the engine worker waited for the next user event).
    pub fn after_batch(&self, f: impl Fn() + 'static) {
        *self.after_batch.borrow_mut() = Some(Rc::new(f));
    }

    /// `dispatch`, with the render in a task of its own after this one: for an action that is
    /// a task's worth of work to reduce (a pasted 3.5 MB text: its job's bytes and site count,
    /// then the render that swaps the text box for the read-only view, were one task of 39 ms
    /// CPU, Chromium trace at load 6).
    pub fn dispatch_render_later(&self, action: impl Into<Action>) {
        self.queue.borrow_mut().push_back(action.into());
        if self.reduce_queued() {
            let rerender = self.rerender.clone();
            crate::browser::soon_detached(move || rerender.force_update());
        }
    }

    fn drain(&self) {
        if self.reduce_queued() {
            self.rerender.force_update();
        }
    }

    /// Apply the queued actions; false when the state is borrowed (the next drain applies them).
    fn reduce_queued(&self) -> bool {
        let Ok(mut state) = self.state.try_borrow_mut() else { return false };
        loop {
            let next = self.queue.borrow_mut().pop_front();
            match next {
                Some(action) => state.reduce(action),
                None => return true,
            }
        }
    }

    /// What the reducer handed out for the shell (`AppState::take_jobs`, `take_lanes`,
    /// `take_download`, ...): nothing while the state is borrowed (the next call takes it).
    pub fn take<T: Default>(&self, f: fn(&mut AppState) -> T) -> T {
        self.state.try_borrow_mut().map(|mut s| f(&mut s)).unwrap_or_default()
    }

    /// A callback that dispatches the action `f` makes of its event, the same on every render.
    pub fn callback<E: 'static, A: Into<Action> + 'static>(&self, f: fn(E) -> A) -> Callback<E> {
        let fresh = |store: Store| -> Rc<dyn Any> { Rc::new(Callback::from(move |e| store.dispatch(f(e)))) };
        self.made((TypeId::of::<fn(E) -> A>(), f as usize), &fresh)
    }

    /// A callback that dispatches the action `f` makes, whatever the event, the same on every
    /// render.
    pub fn on<E: 'static, A: Into<Action> + 'static>(&self, f: fn() -> A) -> Callback<E> {
        let fresh = |store: Store| -> Rc<dyn Any> { Rc::new(Callback::from(move |_: E| store.dispatch(f()))) };
        self.made((TypeId::of::<(fn() -> A, E)>(), f as usize), &fresh)
    }

    /// A callback that runs `f` with the store, the same on every render.
    pub fn handler<E: 'static>(&self, f: fn(&Store, E)) -> Callback<E> {
        let fresh = |store: Store| -> Rc<dyn Any> { Rc::new(Callback::from(move |e| f(&store, e))) };
        self.made((TypeId::of::<fn(&Store, E)>(), f as usize), &fresh)
    }

    /// The callback made for `key` before, or `fresh`'s, kept. Generic over the event type
    /// only where it must be (the downcast): one copy of the rest in the bundle.
    fn made<E: 'static>(&self, key: (TypeId, usize), fresh: &dyn Fn(Store) -> Rc<dyn Any>) -> Callback<E> {
        // A key names one event type, so the downcast finds it (the default is never reached).
        self.kept(key, fresh).downcast_ref::<Callback<E>>().cloned().unwrap_or_default()
    }

    fn kept(&self, key: (TypeId, usize), fresh: &dyn Fn(Store) -> Rc<dyn Any>) -> Rc<dyn Any> {
        if let Some((_, made)) = self.made.borrow().iter().find(|(k, _)| *k == key) {
            return made.clone();
        }
        let made = fresh(self.clone());
        self.made.borrow_mut().push((key, made.clone()));
        made
    }
}
