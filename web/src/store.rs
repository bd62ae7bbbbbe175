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
    /// The callbacks `callback`, `on` and `handler` made, one per function without captures.
    made: Rc<RefCell<MadeCallbacks>>,
}

type AfterBatch = Rc<dyn Fn()>;

/// The callbacks the store made, by the type of the function each dispatches for: one per
/// function without captures (an `Action` constructor, a closure that captures nothing), which
/// behaves the same whichever instance is passed. A `Callback` compares by pointer, so one
/// made afresh on every render re-renders the component it is handed to on every frame of a
/// run: at 10^5 sites the editor's forms re-read the whole scenario each time (~20 ms of CPU
/// per frame, in a CPU profile of a run). The store lives as long as the page, and so do the
/// callbacks (they hold it). Each `Rc` holds a `Callback<E>`.
type MadeCallbacks = Vec<(TypeId, Rc<dyn Any>)>;

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

    pub fn dispatch(&self, action: Action) {
        self.queue.borrow_mut().push_back(action);
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

    fn drain(&self) {
        let Ok(mut state) = self.state.try_borrow_mut() else { return };
        loop {
            let next = self.queue.borrow_mut().pop_front();
            match next {
                Some(action) => state.reduce(action),
                None => break,
            }
        }
        drop(state);
        self.rerender.force_update();
    }

    /// The jobs the reducer handed out for the engine worker (`AppState::take_jobs`).
    pub fn take_jobs(&self) -> Vec<blast_playground::offload::Job> {
        self.state.try_borrow_mut().map(|mut s| s.take_jobs()).unwrap_or_default()
    }

    /// Commands for the lanes the engine worker runs (`AppState::take_lanes`).
    pub fn take_lanes(&self) -> Option<blast_playground::lane_wire::Request> {
        self.state.try_borrow_mut().ok().and_then(|mut s| s.take_lanes())
    }

    /// A callback that dispatches the action `f` makes of its event; the same callback on
    /// every render where `f` captures nothing (`MadeCallbacks`).
    pub fn callback<E: 'static, F: Fn(E) -> Action + 'static>(&self, f: F) -> Callback<E> {
        self.handler(move |store: &Store, e| store.dispatch(f(e)))
    }

    /// A callback that dispatches the action `f` makes, whatever the event; the same callback
    /// on every render where `f` captures nothing.
    pub fn on<E: 'static, F: Fn() -> Action + 'static>(&self, f: F) -> Callback<E> {
        self.handler(move |store: &Store, _| store.dispatch(f()))
    }

    /// A callback that runs `f` with the store; the same callback on every render where `f`
    /// captures nothing (a plain `fn`).
    pub fn handler<E: 'static, F: Fn(&Store, E) + 'static>(&self, f: F) -> Callback<E> {
        let store = self.clone();
        let fresh = move || -> Rc<dyn Any> { Rc::new(Callback::from(move |e| f(&store, e))) };
        let key = (std::mem::size_of::<F>() == 0).then(TypeId::of::<F>);
        // A key names one `F`, so one `E`: the downcast finds it (a default is never reached).
        self.made(key, Box::new(fresh)).downcast_ref::<Callback<E>>().cloned().unwrap_or_default()
    }

    /// The callback made for `key` before, or `fresh`'s (kept when there is a key). Not
    /// generic: one copy in the bundle, whatever the function types.
    fn made(&self, key: Option<TypeId>, fresh: Box<dyn FnOnce() -> Rc<dyn Any>>) -> Rc<dyn Any> {
        let Some(key) = key else { return fresh() };
        if let Some((_, made)) = self.made.borrow().iter().find(|(k, _)| *k == key) {
            return made.clone();
        }
        let made = fresh();
        self.made.borrow_mut().push((key, made.clone()));
        made
    }
}
