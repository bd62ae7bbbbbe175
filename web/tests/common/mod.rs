//! Helpers shared by the browser tests: a fresh root per test, DOM queries, user events.

#![allow(dead_code)] // each test file uses its own subset

use wasm_bindgen::JsCast;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

pub fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

/// A new, empty element to render one test's component into.
pub fn fresh_root() -> Element {
    let root = document().create_element("div").expect("div");
    document().body().expect("body").append_child(&root).expect("attach");
    root
}

pub fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).ok().flatten().unwrap_or_else(|| panic!("no element matches {selector}"))
}

pub fn exists(root: &Element, selector: &str) -> bool {
    root.query_selector(selector).ok().flatten().is_some()
}

pub fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).map(|l| l.length()).unwrap_or(0)
}

pub fn click(root: &Element, selector: &str) {
    find(root, selector).dyn_into::<HtmlElement>().expect("an HTML element").click();
}

fn fire(el: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    let event = Event::new_with_event_init_dict(kind, &init).expect("event");
    el.dispatch_event(&event).expect("dispatch");
}

pub fn select(root: &Element, selector: &str, value: &str) {
    let el = find(root, selector);
    el.clone().dyn_into::<HtmlSelectElement>().expect("a select").set_value(value);
    fire(&el, "change");
}

pub fn type_into(root: &Element, selector: &str, value: &str) {
    let el = find(root, selector);
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        input.set_value(value);
    } else {
        el.clone().dyn_into::<HtmlTextAreaElement>().expect("an input or textarea").set_value(value);
    }
    fire(&el, "input");
}

/// Type into an input and commit it (what Enter or leaving the field does).
pub fn change_input(root: &Element, selector: &str, value: &str) {
    let el = find(root, selector);
    el.clone().dyn_into::<HtmlInputElement>().expect("an input").set_value(value);
    fire(&el, "change");
}

pub fn input_value(root: &Element, selector: &str) -> String {
    find(root, selector).dyn_into::<HtmlInputElement>().expect("an input").value()
}

pub fn textarea_value(root: &Element, selector: &str) -> String {
    find(root, selector).dyn_into::<HtmlTextAreaElement>().expect("a textarea").value()
}

pub fn attr(root: &Element, selector: &str, name: &str) -> String {
    find(root, selector).get_attribute(name).unwrap_or_default()
}

pub fn local_storage() -> web_sys::Storage {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten()).expect("localStorage")
}

/// Replace the URL fragment without firing `hashchange`.
pub fn set_hash(hash: &str) {
    let w = web_sys::window().expect("window");
    let loc = w.location();
    let url = format!("{}{}{}", loc.pathname().unwrap_or_default(), loc.search().unwrap_or_default(), hash);
    w.history().expect("history").replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url)).expect("replaceState");
}

/// The App rendered into a new root, booting from whatever storage and the fragment hold.
pub async fn render_app() -> Element {
    let root = fresh_root();
    yew::Renderer::<blast_web::App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    until_mounted().await;
    engine_answers().await;
    root
}

/// The engine answers in tasks of its own (here its host on the page, `engine-in-page`; the
/// worker on a real page), and the page renders them in more: wait for those tasks.
pub async fn engine_answers() {
    for _ in 0..20 {
        gloo::timers::future::TimeoutFuture::new(10).await;
        yew::scheduler::flush().await;
    }
}

/// The page mounts its parts one painted frame after another (`use_mount_stages`): wait
/// for all of them.
pub async fn until_mounted() {
    for _ in 0..blast_web::app::PAGE_PARTS {
        after_first_paint().await;
    }
}

/// The next part of the page mounts once a frame is painted: wait for a frame, then for a timer
/// set after it, then for the render it causes.
pub async fn after_first_paint() {
    let frame = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().expect("a window").request_animation_frame(&resolve);
    });
    wasm_bindgen_futures::JsFuture::from(frame).await.expect("an animation frame");
    gloo::timers::future::TimeoutFuture::new(0).await;
    yew::scheduler::flush().await;
}

/// The App as a first visit sees it: no autosave, no fragment.
pub async fn fresh_app() -> Element {
    local_storage().clear().expect("clear storage");
    set_hash("");
    render_app().await
}

/// Press a gallery row's Load button.
pub async fn load_preset(root: &Element, id: &str) {
    click(root, &format!(r#"tr[data-preset="{id}"] button.load"#));
    engine_answers().await;
}

/// Press Step `times` times.
pub async fn step(root: &Element, times: usize) {
    for _ in 0..times {
        click(root, "#step");
        engine_answers().await;
    }
}

/// The address bar's fragment, `#` included (empty when there is none).
pub fn location_hash() -> String {
    web_sys::window().expect("window").location().hash().unwrap_or_default()
}
