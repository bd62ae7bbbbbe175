//! The store hands a component the same callback on every render: a fresh
//! `Callback` compares unequal and re-renders the component it is given on every frame of a run.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use blast_playground::session::SessionAction;
use blast_playground::state::AppState;
use blast_web::store::{use_store, Store};
use common::*;
use wasm_bindgen_test::*;
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

/// One render's callbacks, in the order `Probe` makes them.
type Made = Vec<Callback<String>>;

#[derive(Properties)]
struct ProbeProps {
    renders: Rc<RefCell<Vec<Made>>>,
    store: Rc<RefCell<Option<Store>>>,
}

impl PartialEq for ProbeProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.renders, &other.renders)
    }
}

#[function_component(Probe)]
fn probe(p: &ProbeProps) -> Html {
    let store = use_store(AppState::new);
    p.renders.borrow_mut().push(vec![
        store.callback(SessionAction::EditText),
        store.callback(|x: String| SessionAction::SelectSite(Some(x))),
        store.on(|| SessionAction::Undo),
        store.handler(|_: &Store, _: String| ()),
        // Another function: another callback.
        store.callback(|x: String| SessionAction::HoverClass(Some(x))),
    ]);
    *p.store.borrow_mut() = Some(store);
    html! {}
}

#[wasm_bindgen_test]
async fn a_callback_of_a_function_is_the_same_on_every_render_and_another_functions_is_another() {
    let (renders, store) = (Rc::new(RefCell::new(Vec::new())), Rc::new(RefCell::new(None)));
    yew::Renderer::<Probe>::with_root_and_props(fresh_root(), ProbeProps { renders: renders.clone(), store: store.clone() }).render();
    yew::scheduler::flush().await;
    // A dispatch re-renders the component that holds the store.
    store.borrow().as_ref().expect("rendered").dispatch(SessionAction::Undo);
    yew::scheduler::flush().await;
    let renders = renders.borrow();
    assert!(renders.len() >= 2, "{} renders", renders.len());
    let (first, last) = (&renders[0], &renders[renders.len() - 1]);
    for (i, what) in ["an Action constructor", "a closure without captures", "a fixed action", "a handler fn", "another closure"].iter().enumerate() {
        assert!(first[i] == last[i], "{what}: a new callback on the second render");
    }
    assert!(first[0] != first[1] && first[1] != first[3] && first[1] != first[4], "different functions share a callback");
}
