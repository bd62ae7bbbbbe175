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
    /// The callbacks `callback` and `on` made, one per function or fixed action (`Made`).
    made: Rc<RefCell<MadeCallbacks>>,
}

type AfterBatch = Rc<dyn Fn()>;

/// Each callback the store made, by what it stands for; the box holds a `Callback<E>`.
type MadeCallbacks = Vec<(Made, Box<dyn Any>)>;

/// What a callback the store made stands for. A `Callback` compares by pointer, so one made
/// afresh on every render re-renders the component it is handed to on every frame of a run:
/// at 10^5 sites the editor's forms re-read the whole scenario each time (~10 ms of CPU per
/// frame, in a CPU profile of a run). A function without captures (an `Action` constructor, a
/// closure that captures nothing) behaves the same whichever instance is passed, and so does
/// a fixed action: the store makes each callback once and hands out the same one. The store
/// lives as long as the page, and so do the callbacks (they hold it).
#[derive(PartialEq)]
enum Made {
    Function(TypeId),
    Fixed(TypeId, Action),
}

impl PartialEq for Store {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.state, &other.state)
    }
}

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
    /// every render where `f` captures nothing (`Made`).
    pub fn callback<E: 'static, F: Fn(E) -> Action + 'static>(&self, f: F) -> Callback<E> {
        if std::mem::size_of::<F>() != 0 {
            return self.dispatcher(f);
        }
        self.made(Made::Function(TypeId::of::<F>()), || self.dispatcher(f))
    }

    /// A callback that dispatches a fixed action; the same callback on every render.
    pub fn on<E: 'static>(&self, action: Action) -> Callback<E> {
        self.made(Made::Fixed(TypeId::of::<E>(), action.clone()), || self.dispatcher(move |_| action.clone()))
    }

    /// A callback that runs `f` with the store; the same callback on every render where `f`
    /// captures nothing (a plain `fn`).
    pub fn handler<E: 'static, F: Fn(&Store, E) + 'static>(&self, f: F) -> Callback<E> {
        let fresh = || {
            let store = self.clone();
            Callback::from(move |e| f(&store, e))
        };
        if std::mem::size_of::<F>() != 0 {
            return fresh();
        }
        self.made(Made::Function(TypeId::of::<F>()), fresh)
    }

    fn dispatcher<E: 'static>(&self, f: impl Fn(E) -> Action + 'static) -> Callback<E> {
        let store = self.clone();
        Callback::from(move |e| store.dispatch(f(e)))
    }

    fn made<E: 'static>(&self, key: Made, make: impl FnOnce() -> Callback<E>) -> Callback<E> {
        let found = self.made.borrow().iter().find(|(k, _)| *k == key).and_then(|(_, cb)| cb.downcast_ref::<Callback<E>>().cloned());
        found.unwrap_or_else(|| {
            let cb = make();
            self.made.borrow_mut().push((key, Box::new(cb.clone())));
            cb
        })
    }
}
