//! Every browser API the page uses goes through here: storage, location, clipboard,
//! downloads, theme, timers, idle callbacks and animation frames, detached elements, window events and keys, the controls an
//! event came from, focus, chart canvases, picked files, the panic hook and the engine
//! worker. Each fails soft: storage may be disabled, the clipboard may be refused, and none of
//! that may take the page down. (The engine worker's own module, `worker.rs`, has its entry
//! point's glue to itself.)

use std::cell::Cell;
use std::rc::Rc;

use blast_playground::chrome::Theme;
use blast_playground::keys;
use blast_playground::packing::{NotSaved, ToStore};
use blast_playground::share;
use blast_playground::state::Boot;
use blast_playground::storage::{self, AsideWhy, SetAside};
use blast_playground::worker::chart_wire::Chart;
use gloo::events::{EventListener, EventListenerOptions};
use gloo::file::callbacks::FileReader;
use gloo::render::{request_animation_frame, AnimationFrame};
use gloo::timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, Storage, Url};
use yew::NodeRef;

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn local_storage() -> Option<Storage> {
    window()?.local_storage().ok().flatten()
}

/// Milliseconds from the page's time origin (monotonic).
pub fn now_ms() -> f64 {
    window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

pub fn device_pixel_ratio() -> f64 {
    window().map(|w| w.device_pixel_ratio()).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(1.0).min(4.0)
}

/// The element that has the keyboard focus (not the page itself).
pub fn focused_element() -> Option<web_sys::HtmlElement> {
    let document = window()?.document()?;
    let active = document.active_element()?.dyn_into::<web_sys::HtmlElement>().ok()?;
    (document.body().as_ref() != Some(&active)).then_some(active)
}

/// The elements inside `container` that Tab can reach, in document order.
fn tab_stops(container: &web_sys::Element) -> Vec<web_sys::HtmlElement> {
    const FOCUSABLE: &str =
        "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";
    let Ok(list) = container.query_selector_all(FOCUSABLE) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<web_sys::HtmlElement>().ok()).collect()
}

/// Why the browser could not do what the page asked; its words end a banner's sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowserError {
    /// A part of the browser the page needs is not there (a window, a document, local storage,
    /// a canvas's 2d context).
    Missing(&'static str),
    /// The browser refused an operation: what it refused to do.
    Refused(&'static str),
    /// The server answered a fetch with this HTTP status.
    Status(u16),
    /// The browser threw, with its own message.
    Threw(String),
    /// The engine worker made no autosave entry of the session (`packing::NotSaved`).
    NotSaved(NotSaved),
}

impl std::fmt::Display for BrowserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrowserError::Missing(what) => write!(f, "{what} is not available in this browser session"),
            BrowserError::Refused(what) => write!(f, "the browser refused to {what}"),
            BrowserError::Status(status) => write!(f, "the server answered {status}"),
            BrowserError::Threw(why) => f.write_str(why),
            BrowserError::NotSaved(why) => why.fmt(f),
        }
    }
}

/// Why a file could not be read as text.
#[derive(Clone, Debug, PartialEq)]
pub enum TextReadError {
    Browser(BrowserError),
    /// Its bytes are not UTF-8.
    NotText,
}

impl std::fmt::Display for TextReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextReadError::Browser(e) => e.fmt(f),
            TextReadError::NotText => f.write_str("it is not UTF-8 text"),
        }
    }
}

/// The response to a GET of `url` (relative to the page), when the server answered it with
/// success.
async fn fetch_ok(url: &str) -> Result<web_sys::Response, BrowserError> {
    use wasm_bindgen_futures::JsFuture;
    let request = window().map(|w| w.fetch_with_str(url)).ok_or(BrowserError::Missing("a window"))?;
    let response: web_sys::Response =
        JsFuture::from(request).await.ok().and_then(|r| r.dyn_into().ok()).ok_or(BrowserError::Refused("fetch it (the network refused it)"))?;
    if !response.ok() {
        return Err(BrowserError::Status(response.status()));
    }
    Ok(response)
}

/// The text at `url` (relative to the page), fetched; `done` gets it, or why not.
pub fn fetch_text(url: &str, done: impl FnOnce(Result<String, BrowserError>) + 'static) {
    async fn read(url: String) -> Result<String, BrowserError> {
        let body = fetch_ok(&url).await?.text().map_err(|_| BrowserError::Missing("its body"))?;
        wasm_bindgen_futures::JsFuture::from(body).await.ok().and_then(|t| t.as_string()).ok_or(BrowserError::Refused("read its body"))
    }
    let url = url.to_string();
    wasm_bindgen_futures::spawn_local(async move { done(read(url).await) });
}

/// Keep the CSS variable `var` on the page's root equal to the height (px) of the element that
/// `selector` finds, as that changes (wrapping at another width, a longer label); the
/// stylesheet places sticky parts below the sticky top bar with it. Called at each render of
/// that element's view, which is a plain function (no component, no hooks: a smaller bundle):
/// the first call after the element is on the page starts following it for the page's life
/// (the top bar is never unmounted); the other calls do nothing.
pub fn publish_height(selector: &'static str, var: &'static str) {
    thread_local! { static FOLLOWING: Cell<bool> = const { Cell::new(false) }; }
    if FOLLOWING.get() {
        return;
    }
    FOLLOWING.set(true);
    // After this render is on the page.
    soon_detached(move || {
        let Some(el) = window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten()) else {
            return FOLLOWING.set(false);
        };
        let publish = wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let Some(entry) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>().ok() else { return };
            let root = window().and_then(|w| w.document()).and_then(|d| d.document_element()).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(root) = root {
                let _ = root.style().set_property(var, &format!("{}px", entry.target().get_bounding_client_rect().height().ceil()));
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(publish.as_ref().unchecked_ref()) {
            observer.observe(&el);
            // Both live as long as the page.
            std::mem::forget(observer);
            publish.forget();
        }
    });
}

/// Scroll the element with `id` to the top of the viewport, below the top bar while that is
/// sticky (it is not on narrow screens).
pub fn scroll_into_view(id: &str) {
    let Some(w) = window() else { return };
    let Some(document) = w.document() else { return };
    let Some(el) = document.get_element_by_id(id) else { return };
    let bar = document.query_selector(".topbar").ok().flatten().and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
    let sticky =
        bar.as_ref().and_then(|b| w.get_computed_style(b).ok().flatten()).and_then(|s| s.get_property_value("position").ok()).as_deref() == Some("sticky");
    let bar_height = bar.filter(|_| sticky).map_or(0.0, |b| f64::from(b.offset_height()));
    let top = el.get_bounding_client_rect().top() + w.scroll_y().unwrap_or(0.0) - bar_height - 8.0;
    w.scroll_to_with_x_and_y(0.0, top.max(0.0));
}

/// Give the keyboard focus to the element with `id` (it needs a `tabindex` unless it is a control).
pub fn focus_by_id(id: &str) {
    if let Some(el) = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

/// What the page starts from: the autosave (a corrupt one is moved aside) and the fragment.
///
/// Crash-loop proof: the fragment leaves the address bar *before* it is decoded, and an
/// "opening" marker (`storage::OPENING_KEY`) spans decoding, loading and the first paint
/// (`opened` clears it). A marker left by the last visit means that visit died opening a link
/// (then the autosave, which was not overwritten, comes back) or the autosave (then it is set
/// aside); either way this visit does not open the same thing again.
pub fn boot() -> Boot {
    let interrupted = take_marker();
    let fragment = take_fragment();
    let saved = match interrupted {
        Some(storage::Opening::Autosave) => set_aside_autosave(AsideWhy::StoppedThePage).map(Err),
        _ => stored(storage::KEY).map(Ok),
    };
    let opening = if fragment.is_some() { Some(storage::Opening::Link) } else { saved.as_ref().filter(|s| s.is_ok()).map(|_| storage::Opening::Autosave) };
    if let Some(o) = opening {
        set_marker(o);
    }
    Boot {
        saved,
        shared: fragment.map(Fragment::into_text),
        theme: stored(storage::THEME_KEY).and_then(|name| Theme::ALL.into_iter().find(|t| t.name() == name)),
        notice: interrupted.map(|o| o.notice().to_string()),
        tour_done: stored(storage::TOUR_KEY).is_some(),
        stale_autosave: stored(storage::STALE_KEY),
    }
}

/// The value under local storage's `key`, if any.
fn stored(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok().flatten()
}

/// The tour was skipped or finished: it stays closed on later visits.
pub fn remember_tour_done() {
    if let Some(store) = local_storage() {
        let _ = store.set_item(storage::TOUR_KEY, "1");
    }
}

/// The URL fragment (with its `#`), if it may carry a scenario or model session (a link pasted
/// into the address bar of an open page), taken out of the address bar, or why it is refused
/// unread; the opening marker covers the load until `opened` after the page has painted what it
/// opened. The engine worker reads it (`Action::OpenFragment`).
pub fn take_link() -> Option<Result<String, share::LinkError>> {
    let fragment = take_fragment()?;
    set_marker(storage::Opening::Link);
    Some(fragment.into_text())
}

/// A fragment that may carry a link, as taken from the address bar.
enum Fragment {
    Text(String),
    /// Over `share::MAX_FRAGMENT`: refused from its length, never copied into wasm (a 5,000-deep
    /// chain is 170 KB, and the copy alone was a 40 ms task on a loaded machine).
    Oversize(share::LinkError),
}

impl Fragment {
    fn into_text(self) -> Result<String, share::LinkError> {
        match self {
            Fragment::Text(text) => Ok(text),
            Fragment::Oversize(refusal) => Err(refusal),
        }
    }
}

/// The fragment if it may carry a link (anything but empty), removed from the address bar.
/// Its length and part prefixes are read on the JS side first.
fn take_fragment() -> Option<Fragment> {
    let location = window()?.location();
    let hash: js_sys::JsString = js_sys::Reflect::get(&location, &JsValue::from_str("hash")).ok()?.dyn_into().ok()?;
    let has = |needle: &str| hash.index_of(needle, 0) >= 0;
    if !(has("s=") || has("m=") || has("t=")) {
        return None;
    }
    replace_url("");
    // Without the `#`; a URL's fragment is ASCII (percent-encoded), so UTF-16 units are bytes.
    let bytes = (hash.length() as usize).saturating_sub(1);
    if bytes > share::MAX_FRAGMENT {
        let part_starts = |prefix: &str| hash.starts_with(&format!("#{prefix}"), 0) || has(&format!("&{prefix}"));
        return Some(Fragment::Oversize(share::refuse_oversize(bytes, part_starts("s="), part_starts("m="))));
    }
    Some(Fragment::Text(String::from(hash)))
}

fn take_marker() -> Option<storage::Opening> {
    let store = local_storage()?;
    let raw = store.get_item(storage::OPENING_KEY).ok().flatten()?;
    let _ = store.remove_item(storage::OPENING_KEY);
    Some(storage::Opening::parse(&raw))
}

fn set_marker(o: storage::Opening) {
    if let Some(store) = local_storage() {
        let _ = store.set_item(storage::OPENING_KEY, o.name());
    }
}

/// What was being opened has painted: the marker goes (see `boot`).
pub fn opened() {
    if let Some(store) = local_storage() {
        let _ = store.remove_item(storage::OPENING_KEY);
    }
}

/// Whether a link or the autosave is being opened (autosave waits: it writes only what loaded).
pub fn is_opening() -> bool {
    stored(storage::OPENING_KEY).is_some()
}

/// Rewrite the address bar's fragment without a history entry or a `hashchange`.
fn replace_url(fragment: &str) -> Option<String> {
    let w = window()?;
    let loc = w.location();
    let hash = if fragment.is_empty() { String::new() } else { format!("#{fragment}") };
    let url = format!("{}{}{}{hash}", loc.origin().ok()?, loc.pathname().ok()?, loc.search().ok()?);
    w.history().ok()?.replace_state_with_url(&JsValue::NULL, "", Some(&url)).ok()?;
    Some(url)
}

/// Move the autosave under a quarantine key (the user can still recover it by hand): what
/// says where it went, `None` when there was none.
pub fn set_aside_autosave(why: AsideWhy) -> Option<SetAside> {
    let store = local_storage()?;
    let raw = store.get_item(storage::KEY).ok().flatten()?;
    let aside = storage::quarantine_key(js_sys::Date::now());
    let moved = store.set_item(&aside, &raw).is_ok();
    let _ = store.remove_item(storage::KEY);
    Some(SetAside { why, kept_under: moved.then_some(aside) })
}

/// Store the entry the engine worker made (`packing::ToStore`); when there is none, or it cannot
/// be stored, the entry left is older than the screen, and `storage::STALE_KEY` says so to the
/// next visit (a good save removes it).
pub fn save(made: ToStore) -> Result<(), BrowserError> {
    let store = local_storage().ok_or(BrowserError::Missing("local storage"))?;
    let text_bytes = made.text_bytes;
    let stale = |why: BrowserError| {
        let _ = store.set_item(storage::STALE_KEY, &text_bytes.to_string());
        why
    };
    let raw = made.entry.map_err(|e| stale(BrowserError::NotSaved(e)))?;
    store.set_item(storage::KEY, &raw).map_err(|_| stale(BrowserError::Refused("store the session (storage full or disabled)")))?;
    let _ = store.remove_item(storage::STALE_KEY);
    Ok(())
}

/// The page's own URL with `fragment` (without `#`). The address bar keeps its plain URL: a
/// link left there would win over the autosave at the next reload and lose later edits.
pub fn share_url(fragment: &str) -> Option<String> {
    let loc = window()?.location();
    Some(format!("{}{}{}#{fragment}", loc.origin().ok()?, loc.pathname().ok()?, loc.search().ok()?))
}

/// Put text on the clipboard; `on_done(false)` when the browser refuses.
pub fn copy_to_clipboard(text: &str, on_done: impl FnOnce(bool) + 'static) {
    let Some(w) = window() else { return on_done(false) };
    let promise = w.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::spawn_local(async move {
        on_done(wasm_bindgen_futures::JsFuture::from(promise).await.is_ok());
    });
}

/// Offer `contents` as a file download.
pub fn download(file_name: &str, mime: &str, contents: &str) -> Result<(), BrowserError> {
    let parts = js_sys::Array::of1(&JsValue::from_str(contents));
    let props = BlobPropertyBag::new();
    props.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &props).map_err(|_| BrowserError::Refused("build the file"))?;
    let url = Url::create_object_url_with_blob(&blob).map_err(|_| BrowserError::Refused("create a download URL"))?;
    let result = click_link(file_name, &url);
    let _ = Url::revoke_object_url(&url);
    result
}

/// Offer a `data:` URL (e.g. a canvas PNG) as a download.
pub fn download_url(file_name: &str, url: &str) -> Result<(), BrowserError> {
    click_link(file_name, url)
}

fn click_link(file_name: &str, href: &str) -> Result<(), BrowserError> {
    let document = window().and_then(|w| w.document()).ok_or(BrowserError::Missing("a document"))?;
    let a: HtmlAnchorElement = document.create_element("a").ok().and_then(|a| a.dyn_into().ok()).ok_or(BrowserError::Refused("create a link"))?;
    a.set_href(href);
    a.set_download(file_name);
    a.set_attribute("hidden", "").ok();
    let body = document.body().ok_or(BrowserError::Missing("the page's body"))?;
    body.append_child(&a).map_err(|_| BrowserError::Refused("attach the link"))?;
    a.click();
    a.remove();
    Ok(())
}

/// The system prefers dark colours (`prefers-color-scheme`).
fn prefers_dark() -> bool {
    window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()).is_some_and(|mq| mq.matches())
}

/// An element's computed style: its CSS custom properties, and whether it shows the dark half
/// of `light-dark()` colours (its `color-scheme` is `light` or `dark` when the user picked a
/// theme, `light dark` when the system's preference decides).
pub struct ComputedStyle {
    style: Option<web_sys::CssStyleDeclaration>,
    dark: bool,
}

impl ComputedStyle {
    pub fn of(el: &web_sys::Element) -> ComputedStyle {
        let style = window().and_then(|w| w.get_computed_style(el).ok().flatten());
        let scheme = style.as_ref().and_then(|s| s.get_property_value("color-scheme").ok()).unwrap_or_default();
        let dark = match (scheme.contains("light"), scheme.contains("dark")) {
            (true, true) => prefers_dark(),
            (_, dark) => dark,
        };
        ComputedStyle { style, dark }
    }

    pub fn dark(&self) -> bool {
        self.dark
    }

    /// A property's value as computed (`--fg`, `color-scheme`).
    pub fn var(&self, name: &str) -> Option<String> {
        self.style.as_ref()?.get_property_value(name).ok()
    }
}

/// A chart's canvas as its picture needs it: its CSS size and its computed style (the colours).
pub struct ChartCanvas {
    pub css_size: (f64, f64),
    pub style: ComputedStyle,
}

/// The canvas `node` renders (`None` when it is not on the page).
pub fn chart_canvas(node: &NodeRef) -> Option<ChartCanvas> {
    let canvas = node.cast::<HtmlCanvasElement>()?;
    let css_size = (f64::from(canvas.client_width().max(1)), f64::from(canvas.client_height().max(1)));
    Some(ChartCanvas { css_size, style: ComputedStyle::of(&canvas) })
}

/// A chart's picture from the engine worker where it goes: on the canvas whose id is its label,
/// or (any other label) downloaded as a PNG file of that name. A canvas no longer on the page
/// (the panel closed while it was drawn) takes nothing.
pub fn show_picture(label: &str, bitmap: &web_sys::ImageBitmap) -> Result<(), BrowserError> {
    let document = window().and_then(|w| w.document()).ok_or(BrowserError::Missing("a document"))?;
    let on_page = Chart::of_canvas(label).is_some();
    let canvas: HtmlCanvasElement = if on_page {
        match document.get_element_by_id(label).and_then(|c| c.dyn_into().ok()) {
            Some(canvas) => canvas,
            None => return Ok(()),
        }
    } else {
        document.create_element("canvas").ok().and_then(|c| c.dyn_into().ok()).ok_or(BrowserError::Refused("create a canvas"))?
    };
    // The canvas's pixels are the picture's (a picture replaces them, it is not scaled into
    // the canvas's old size).
    if canvas.width() != bitmap.width() {
        canvas.set_width(bitmap.width());
    }
    if canvas.height() != bitmap.height() {
        canvas.set_height(bitmap.height());
    }
    let context = canvas.get_context("bitmaprenderer").ok().flatten().and_then(|c| c.dyn_into::<web_sys::ImageBitmapRenderingContext>().ok());
    context.ok_or(BrowserError::Missing("a canvas's bitmap context"))?.transfer_from_image_bitmap(bitmap);
    if on_page {
        return Ok(());
    }
    let url = canvas.to_data_url_with_type("image/png").map_err(|_| BrowserError::Refused("export the canvas"))?;
    download_url(label, &url)
}

/// Call `f` when the window is resized or the system colour scheme flips, until the returned
/// listeners are dropped.
pub fn on_resize_or_scheme_change(f: impl Fn() + Clone + 'static) -> Vec<Listener> {
    let w = window();
    let resize = w.as_ref().map(|w| {
        let f = f.clone();
        EventListener::new(w, "resize", move |_| f())
    });
    let scheme = w.and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()).map(|mq| EventListener::new(&mq, "change", move |_| f()));
    [resize, scheme].into_iter().flatten().map(Listener).collect()
}

/// An event listener; dropping it stops listening.
pub struct Listener(#[allow(dead_code)] EventListener);

/// Call `f` on every `event` (`hashchange`) of the window.
pub fn on_window(event: &'static str, f: impl FnMut() + 'static) -> Option<Listener> {
    let mut f = f;
    window().map(|w| Listener(EventListener::new(&w, event, move |_| f())))
}

/// A key pressed anywhere on the page, as the shortcut table reads it.
pub struct KeyPress {
    pub key: String,
    pub ctrl_or_meta: bool,
    pub shift: bool,
    pub alt: bool,
    /// What kind of control it was pressed in (see `keys::control_keeps`).
    pub focus: keys::Focus,
    /// It was pressed in the DSL text box.
    pub on_dsl_text: bool,
}

/// Call `f` on every key pressed on the page; when it returns `true`, the browser's own
/// handling of the key is prevented.
pub fn on_keydown(f: impl Fn(&KeyPress) -> bool + 'static) -> Option<Listener> {
    let w = window()?;
    Some(Listener(EventListener::new_with_options(&w, "keydown", EventListenerOptions::enable_prevent_default(), move |event| {
        let Some(e) = event.dyn_ref::<web_sys::KeyboardEvent>() else { return };
        let target = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let press = KeyPress {
            key: e.key(),
            ctrl_or_meta: e.ctrl_key() || e.meta_key(),
            shift: e.shift_key(),
            alt: e.alt_key(),
            focus: target.as_ref().map_or(keys::Focus::Other, focus_of),
            on_dsl_text: target.is_some_and(|el| el.id() == "dsl-text"),
        };
        if f(&press) {
            e.prevent_default();
        }
    })))
}

/// What kind of control an element is, for the shortcut table.
fn focus_of(el: &web_sys::Element) -> keys::Focus {
    let editable = el.closest("[contenteditable]").ok().flatten().is_some();
    // An element acting as a button (the blast view's site nodes) keeps Space and Enter too.
    let tag = if el.get_attribute("role").as_deref() == Some("button") { "BUTTON".to_string() } else { el.tag_name() };
    keys::focus_kind(&tag, &el.get_attribute("type").unwrap_or_default(), editable)
}

// The timer and frame helpers box their callback before it reaches gloo or wasm-bindgen: the
// glue that hands a closure to JavaScript is generic over the closure's type, and boxed there
// is one copy for all of the page's callbacks instead of one per call site (twiggy: 14 copies
// of `into_fn_mut`, ~0.7 KB each).

/// A callback in a task of its own (after the current one, and after a paint when set from an
/// animation frame); dropping it cancels the call.
pub struct Task(#[allow(dead_code)] Timeout);

pub fn soon(f: impl FnOnce() + 'static) -> Task {
    Task(timeout(Box::new(f)))
}

/// `soon`, never cancelled (a task that must outlive whoever set it).
pub fn soon_detached(f: impl FnOnce() + 'static) {
    timeout(Box::new(f)).forget();
}

fn timeout(f: Box<dyn FnOnce()>) -> Timeout {
    Timeout::new(0, f)
}

/// A callback at the next animation frame (just before its layout and paint), with the frame's
/// timestamp; dropping it cancels the call.
pub struct Frame(#[allow(dead_code)] AnimationFrame);

pub fn next_frame(f: impl FnOnce(f64) + 'static) -> Frame {
    fn boxed(f: Box<dyn FnOnce(f64)>) -> Frame {
        Frame(request_animation_frame(f))
    }
    boxed(Box::new(f))
}

/// Run `f` once the next frame has painted (a timer set from an animation frame fires after it).
pub fn after_paint(f: impl FnOnce() + 'static) {
    after_paint_boxed(Box::new(f));
}

fn after_paint_boxed(f: Box<dyn FnOnce()>) {
    // Callbacks handed to JavaScript once: each is freed when it has run.
    use wasm_bindgen::closure::Closure;
    let Some(w) = window() else { return };
    let timer = Closure::once_into_js(f);
    let frame = Closure::once_into_js(move || {
        if let Some(w) = window() {
            let _ = w.set_timeout_with_callback(timer.unchecked_ref());
        }
    });
    let _ = w.request_animation_frame(frame.unchecked_ref());
}

/// How long `when_idle` waits for idle time at most: a page busy in every frame (a run playing
/// on a loaded machine) has none.
const IDLE_WAIT_MS: f64 = 1000.0;

/// Run `f` when the browser is idle (`requestIdleCallback`: after a frame's work, not
/// competing with input or an animation frame), or in a task of its own after `IDLE_WAIT_MS`;
/// never cancelled. Where there is no idle callback, `f` does not run (it is only for work the
/// page can do without).
pub fn when_idle(f: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    let Some(w) = window() else { return };
    // Called by name with its options object (web-sys would need one more feature for it).
    let Some(request) = js_sys::Reflect::get(&w, &JsValue::from_str("requestIdleCallback")).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok()) else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &JsValue::from_str("timeout"), &JsValue::from_f64(IDLE_WAIT_MS));
    let _ = request.call2(&w, &Closure::once_into_js(f), &options);
}

/// `text` through the conversions `take_link` makes of the address bar's fragment (a JS string
/// into wasm), for the rehearsal of a link (`warm`), which has no address bar.
pub fn as_fragment(text: String) -> String {
    String::from(js_sys::JsString::from(text))
}

/// A named moment on the page's performance timeline (User Timing), for tests and profiles to
/// wait for or find; nothing is shown.
pub fn mark(name: &str) {
    if let Some(p) = window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// An element in no document: what is rendered into it is never laid out or shown.
pub fn detached_element() -> Option<web_sys::Element> {
    window()?.document()?.create_element("div").ok()
}

/// A call `frames` painted frames from now (at least one), in a task of its own after the last
/// paint, when that frame's layout is done: work there reads sizes without laying the page out
/// again. Dropping it cancels the call.
pub struct AfterFrames(Rc<Cell<bool>>);

impl Drop for AfterFrames {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

pub fn after_frames(frames: usize, f: impl FnOnce() + 'static) -> AfterFrames {
    fn wait(frames: usize, cancelled: Rc<Cell<bool>>, f: Box<dyn FnOnce()>) {
        after_paint(move || match (cancelled.get(), frames) {
            (true, _) => {}
            (false, 0 | 1) => f(),
            (false, n) => wait(n - 1, cancelled, f),
        });
    }
    let cancelled = Rc::new(Cell::new(false));
    wait(frames, cancelled.clone(), Box::new(f));
    AfterFrames(cancelled)
}

/// The value of the input, select or text area an event came from (`""` from anything else).
pub fn value(e: &web_sys::Event) -> String {
    let Some(target) = e.target() else { return String::new() };
    if let Some(input) = target.dyn_ref::<web_sys::HtmlInputElement>() {
        input.value()
    } else if let Some(select) = target.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.value()
    } else if let Some(area) = target.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.value()
    } else {
        String::new()
    }
}

/// Empty the input or select an event came from (a select shows its prompt again).
pub fn clear_value(e: &web_sys::Event) {
    let Some(target) = e.target() else { return };
    if let Some(input) = target.dyn_ref::<web_sys::HtmlInputElement>() {
        input.set_value("");
    } else if let Some(select) = target.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.set_value("");
    }
}

/// Whether the checkbox an event came from is checked.
pub fn checked(e: &web_sys::Event) -> bool {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).is_some_and(|i| i.checked())
}

/// Select the whole text of the input an event came from.
pub fn select_text(e: &web_sys::Event) {
    if let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
        input.select();
    }
}

/// Where the element an event came from is scrolled to and how tall its box is, in CSS px:
/// (top, left, client height).
/// A paste of `min_units` UTF-16 units or more into a text box, taken from it: its default
/// (the text into the box) is prevented, and `then` hears the box's text with the paste in it,
/// in a task after the paste's. A smaller paste is left to the box (false).
///
/// The paste's task only joins the strings (JS strings, which join without copying); the text
/// comes into wasm in the next tasks, a part per task (`into_wasm_in_steps`); the edit and its
/// render run after. Measured on a 3.5 MB paste (e2e `scale`, Chromium trace, load 6): all of it
/// in the paste's task was 45 ms of CPU; the whole text through `TextEncoder` in that task was
/// 13-49 ms.
pub fn take_paste(e: &web_sys::Event, min_units: u32, then: impl FnOnce(String) + 'static) -> bool {
    let clipboard = e.unchecked_ref::<web_sys::ClipboardEvent>().clipboard_data();
    // `getData` called by name: web-sys's binding would bring the text into wasm at once.
    let get = |data: &web_sys::DataTransfer| js_sys::Reflect::get(data, &JsValue::from_str("getData")).ok()?.dyn_into::<js_sys::Function>().ok();
    let text = clipboard.as_ref().and_then(|data| get(data)?.call1(data, &JsValue::from_str("text/plain")).ok()?.dyn_into::<js_sys::JsString>().ok());
    let (Some(text), Some(area)) = (text, e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())) else { return false };
    if text.length() < min_units {
        return false;
    }
    e.prevent_default();
    // The box gives way to a read-only view: let go of its focus now (removing the focused box
    // in the edit's render was ~10 ms of that task's CPU).
    let _ = area.blur();
    let value = js_sys::Reflect::get(&area, &JsValue::from_str("value")).ok().and_then(|v| v.dyn_into::<js_sys::JsString>().ok()).unwrap_or_default();
    let at = |p: Result<Option<u32>, JsValue>| p.ok().flatten().unwrap_or(0);
    let joined = pasted_into(&value, at(area.selection_start()), at(area.selection_end()), &text);
    let whole = String::with_capacity(joined.length() as usize);
    into_wasm_in_steps(joined, whole, 0, Box::new(then));
    true
}

/// UTF-16 units of a paste brought into wasm per task: ~0.5 MB of an ASCII text.
const PASTE_UNITS_PER_TASK: u32 = 1 << 19;

/// `text` from unit `from` on appended to `done`, `PASTE_UNITS_PER_TASK` units per task (never
/// between the halves of a surrogate pair), then `then` gets it whole in a task of its own.
fn into_wasm_in_steps(text: js_sys::JsString, mut done: String, from: u32, then: Box<dyn FnOnce(String)>) {
    soon_detached(move || {
        let len = text.length();
        let mut to = from.saturating_add(PASTE_UNITS_PER_TASK).min(len);
        if to < len && (0xD800..0xDC00).contains(&(text.char_code_at(to - 1) as u32)) {
            to -= 1;
        }
        done.push_str(&into_wasm(&text.slice(from, to)));
        if to < len {
            into_wasm_in_steps(text, done, to, then);
        } else {
            soon_detached(move || then(done));
        }
    });
}

/// A JS string brought into wasm through the browser's own UTF-8 encoder (`TextEncoder`, then
/// one copy of the bytes): `String::from(JsString)` copies an ASCII text a character at a time
/// in JS (`passStringToWasm0`: 13-22 ms of CPU for a 3.5 MB paste).
fn into_wasm(text: &js_sys::JsString) -> String {
    let encoded = || {
        let class = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("TextEncoder")).ok()?.dyn_into::<js_sys::Function>().ok()?;
        let encoder = js_sys::Reflect::construct(&class, &js_sys::Array::new()).ok()?;
        let encode = js_sys::Reflect::get(&encoder, &JsValue::from_str("encode")).ok()?.dyn_into::<js_sys::Function>().ok()?;
        String::from_utf8(encode.call1(&encoder, text).ok()?.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec()).ok()
    };
    encoded().unwrap_or_else(|| String::from(text))
}

/// `value` with the UTF-16 selection `start..end` (a text box's) replaced by `pasted`; a
/// selection past the end is clamped.
pub fn pasted_into(value: &js_sys::JsString, start: u32, end: u32, pasted: &js_sys::JsString) -> js_sys::JsString {
    let len = value.length();
    let from = start.min(len);
    let to = end.clamp(from, len);
    value.slice(0, from).concat(pasted).concat(&value.slice(to, len))
}

pub fn scroll_of(e: &web_sys::Event) -> (f64, f64, f64) {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map_or((0.0, 0.0, 0.0), |el| (f64::from(el.scroll_top()), f64::from(el.scroll_left()), f64::from(el.client_height())))
}

/// The CSS width of the element an event came from (a chart canvas).
pub fn width_of(e: &web_sys::Event) -> f64 {
    e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map_or(0.0, |el| f64::from(el.client_width()))
}

/// The value of the text area or input `node` renders.
pub fn node_value(node: &NodeRef) -> Option<String> {
    node.cast::<web_sys::HtmlTextAreaElement>().map(|a| a.value()).or_else(|| node.cast::<web_sys::HtmlInputElement>().map(|i| i.value()))
}

/// Give the keyboard focus to the element `node` renders.
pub fn focus_node(node: &NodeRef) {
    if let Some(el) = node.cast::<web_sys::HtmlElement>() {
        let _ = el.focus();
    }
}

/// Give the keyboard focus back to an element (`focused_element`).
pub fn refocus(el: &web_sys::HtmlElement) {
    let _ = el.focus();
}

/// Move the focus among the tab stops inside `container` to the one `pick(count, current)`
/// chooses; whether it moved.
pub fn move_focus_within(container: &NodeRef, pick: impl FnOnce(usize, Option<usize>) -> Option<usize>) -> bool {
    let Some(container) = container.cast::<web_sys::Element>() else { return false };
    let stops = tab_stops(&container);
    let active = focused_element();
    let current = stops.iter().position(|s| active.as_ref() == Some(s));
    match pick(stops.len(), current).and_then(|next| stops.get(next)) {
        Some(next) => {
            let _ = next.focus();
            true
        }
        None => false,
    }
}

/// Why a picked file was not read.
pub enum FileRefusal {
    /// Over the size given; not read at all.
    TooLarge,
    Unreadable(String),
}

/// A file being read; dropping it cancels the read.
pub struct FileRead(#[allow(dead_code)] FileReader);

/// Read the file picked in the file input an event came from, as text; `on_done` hears its
/// name and the text or why not. A file over `max_bytes` is refused before any reading. The
/// input is emptied, so picking the same file again reads it again. `None` when nothing was
/// picked or the refusal was immediate.
pub fn read_picked_file(e: &web_sys::Event, max_bytes: f64, on_done: impl FnOnce(String, Result<String, FileRefusal>) + 'static) -> Option<FileRead> {
    let input = e.target()?.dyn_into::<web_sys::HtmlInputElement>().ok()?;
    let file = input.files().and_then(|f| f.get(0))?;
    input.set_value("");
    let name = file.name();
    if file.size() > max_bytes {
        on_done(name, Err(FileRefusal::TooLarge));
        return None;
    }
    let reader = gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |text| {
        on_done(name, text.map_err(|e| FileRefusal::Unreadable(e.to_string())));
    });
    Some(FileRead(reader))
}

/// `data-theme` on `<html>`: absent = follow the system (the stylesheet's media query). Kept for the
/// next visit's first paint (`storage::THEME_KEY`).
pub fn apply_theme(theme: Theme) {
    if let Some(store) = local_storage() {
        let _ = store.set_item(storage::THEME_KEY, theme.name());
    }
    let Some(root) = window().and_then(|w| w.document()).and_then(|d| d.document_element()) else { return };
    match theme {
        Theme::Auto => {
            let _ = root.remove_attribute("data-theme");
        }
        Theme::Light | Theme::Dark => {
            let _ = root.set_attribute("data-theme", theme.name());
        }
    }
}

/// A panic would otherwise kill the page silently: say so on the page itself, with the panic's
/// message and place. Debug builds only: a release build aborts at a panic before any hook runs
/// (scripts/env.sh, `blast_release_flags`), and `index.html`'s script shows the banner.
pub fn install_panic_hook() {
    #[cfg(debug_assertions)]
    install_debug_panic_hook();
}

#[cfg(debug_assertions)]
fn install_debug_panic_hook() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        yew::set_custom_panic_hook(Box::new(|info| {
            let message = format!("Blast Radius hit an internal error and stopped: {info}");
            web_sys::console::error_1(&JsValue::from_str(&message));
            let Some(document) = window().and_then(|w| w.document()) else { return };
            let Ok(el) = document.create_element("div") else { return };
            el.set_id("fatal-error");
            el.set_attribute("role", "alert").ok();
            el.set_text_content(Some(&format!("{message}. Reload the page: your scenario is autosaved.")));
            if let Some(body) = document.body() {
                let _ = body.prepend_with_node_1(&el);
            }
        }));
    });
}

/// The engine worker's script (`web/worker-loader.js`), beside the page; it loads the
/// `blast-worker` module, which Trunk names without a content hash (a worker's files are named
/// at run time).
const WORKER_SCRIPT: &str = "worker-loader.js";
/// A worker that has not said it is ready by then is taken as failed to start.
const WORKER_START_MS: u32 = 15_000;

/// What the engine worker tells the page.
pub enum WorkerNews {
    /// Its answer to the oldest job not yet answered (`offload::decode_reply` reads it).
    Reply(Vec<u8>),
    /// A chart's picture (`chart_wire`), which no job awaits.
    Picture(crate::picture::Picture),
    /// It did not start (`started == false`), or it stopped (a job it was reading is lost).
    Failed { started: bool, why: String },
}

/// The engine worker (`src/worker.rs`): a dedicated Web Worker running the engine's wasm.
/// Jobs posted before it is ready wait here (it has no message handler until its module
/// runs). Dropping it ends the worker.
pub struct EngineWorker {
    worker: web_sys::Worker,
    started: std::rc::Rc<std::cell::Cell<bool>>,
    waiting: std::rc::Rc<std::cell::RefCell<Vec<Vec<u8>>>>,
    _on_message: wasm_bindgen::closure::Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: wasm_bindgen::closure::Closure<dyn FnMut(web_sys::Event)>,
    _start_timeout: gloo::timers::callback::Timeout,
}

impl EngineWorker {
    /// Start the worker; `on_news` hears its answers and failures, always from an event of
    /// its own (never during `spawn` or `post`).
    pub fn spawn(on_news: impl Fn(WorkerNews) + 'static) -> Result<EngineWorker, BrowserError> {
        use std::cell::{Cell, RefCell};
        use std::rc::Rc;
        use wasm_bindgen::closure::Closure;
        let worker = web_sys::Worker::new(WORKER_SCRIPT).map_err(|e| BrowserError::Threw(js_error(&e)))?;
        let on_news = Rc::new(on_news);
        let started = Rc::new(Cell::new(false));
        let waiting: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
        let on_message = {
            let (worker, started, waiting, on_news) = (worker.clone(), started.clone(), waiting.clone(), on_news.clone());
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                if data.as_string().as_deref() == Some(blast_playground::worker::offload::READY) {
                    started.set(true);
                    for job in waiting.borrow_mut().drain(..) {
                        post_bytes(&worker, &job);
                    }
                } else if let Some(picture) = crate::picture::read(&data) {
                    on_news(WorkerNews::Picture(picture));
                } else {
                    on_news(WorkerNews::Reply(js_sys::Uint8Array::new(&data).to_vec()));
                }
            })
        };
        let on_error = {
            let (started, on_news) = (started.clone(), on_news.clone());
            Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                let why = e.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).filter(|m| !m.is_empty()).unwrap_or_else(|| "its script did not load".into());
                on_news(WorkerNews::Failed { started: started.get(), why });
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let start_timeout = {
            let started = started.clone();
            gloo::timers::callback::Timeout::new(WORKER_START_MS, move || {
                if !started.get() {
                    on_news(WorkerNews::Failed { started: false, why: format!("it did not start within {} s", WORKER_START_MS / 1000) });
                }
            })
        };
        Ok(EngineWorker { worker, started, waiting, _on_message: on_message, _on_error: on_error, _start_timeout: start_timeout })
    }

    /// Hand a job (`offload::Posting`) or lanes' commands to the worker; its buffer moves, it is not copied.
    pub fn post(&self, job: Vec<u8>) {
        if self.started.get() {
            post_bytes(&self.worker, &job);
        } else {
            self.waiting.borrow_mut().push(job);
        }
    }

    /// What was posted before the worker was ready, in order (it never will be: it did not start).
    pub fn take_unposted(&self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.waiting.borrow_mut())
    }
}

impl Drop for EngineWorker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

fn post_bytes(worker: &web_sys::Worker, bytes: &[u8]) {
    let array = js_sys::Uint8Array::from(bytes);
    let _ = worker.post_message_with_transfer(&array, &js_sys::Array::of1(&array.buffer()));
}

fn js_error(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| "the browser refused to start it".into())
}

/// A runtime log's bytes as the trace lab reads them, a slice at a time: a picked or dropped
/// file, or a fetched sample. The page never holds more of it than the slice being read.
#[derive(Clone)]
pub struct LogBlob {
    blob: web_sys::Blob,
    pub name: String,
}

impl LogBlob {
    pub fn size(&self) -> u64 {
        self.blob.size() as u64
    }

    /// Bytes `start..end`, read off the main thread by the browser; `done` hears them or why not.
    pub fn read(&self, start: u64, end: u64, done: impl FnOnce(Result<Vec<u8>, BrowserError>) + 'static) {
        read_slice(&self.blob, start, end, move |read| done(read.map(|array| array.to_vec())));
    }

    /// The whole file as text; `done` hears it, or why not (unreadable, or not UTF-8). Read
    /// `READ_BYTES_PER_TASK` bytes a task, each part copied into wasm as it comes.
    pub fn read_text(&self, done: impl FnOnce(Result<String, TextReadError>) + 'static) {
        let size = self.size();
        let whole = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        read_parts(
            self.blob.clone(),
            size,
            whole,
            Box::new(move |bytes| done(bytes.map_err(TextReadError::Browser).and_then(|b| String::from_utf8(b).map_err(|_| TextReadError::NotText)))),
        );
    }
}

/// Bytes of a file copied into wasm per task by [`LogBlob::read_text`]: the 38.6 MB of a
/// 10^6-site scenario read whole were one task of ~50 ms of CPU (its copy into wasm alone).
const READ_BYTES_PER_TASK: u64 = 4 << 20;

/// `blob`'s bytes `start..end` as the browser reads them (off the main thread), or why not.
fn read_slice(blob: &web_sys::Blob, start: u64, end: u64, done: impl FnOnce(Result<js_sys::Uint8Array, BrowserError>) + 'static) {
    use wasm_bindgen_futures::JsFuture;
    let Ok(slice) = blob.slice_with_f64_and_f64(start as f64, end as f64) else { return done(Err(BrowserError::Refused("slice the file"))) };
    let promise = slice.array_buffer();
    wasm_bindgen_futures::spawn_local(async move {
        done(JsFuture::from(promise).await.map(|b| js_sys::Uint8Array::new(&b)).map_err(|e| BrowserError::Threw(js_error(&e))))
    });
}

/// `blob`'s bytes from `read.len()` to `size` appended to `read`, a part of
/// `READ_BYTES_PER_TASK` per task; `then` hears them all. A part that comes back empty (the
/// file shrank) ends the reading.
fn read_parts(blob: web_sys::Blob, size: u64, mut read: Vec<u8>, then: Box<dyn FnOnce(Result<Vec<u8>, BrowserError>)>) {
    let from = read.len() as u64;
    if from >= size {
        return then(Ok(read));
    }
    let to = from.saturating_add(READ_BYTES_PER_TASK).min(size);
    read_slice(&blob.clone(), from, to, move |part| match part {
        Ok(part) if part.length() > 0 => {
            let at = read.len();
            read.resize(at + part.length() as usize, 0);
            part.copy_to(&mut read[at..]);
            read_parts(blob, size, read, then);
        }
        Ok(_) => then(Ok(read)),
        Err(why) => then(Err(why)),
    });
}

/// The files of a file list, in its order.
fn blobs(files: Option<web_sys::FileList>) -> Vec<LogBlob> {
    let Some(files) = files else { return Vec::new() };
    (0..files.length()).filter_map(|i| files.get(i)).map(|file| LogBlob { name: file.name(), blob: file.into() }).collect()
}

/// The files picked in the file input an event came from (the input is emptied, so picking the
/// same file again reads it again).
pub fn picked_files(e: &web_sys::Event) -> Vec<LogBlob> {
    let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return Vec::new() };
    let files = blobs(input.files());
    input.set_value("");
    files
}

/// The files of a drop, in its order (its default, opening the file in the tab, is prevented).
pub fn dropped_files(e: &web_sys::DragEvent) -> Vec<LogBlob> {
    e.prevent_default();
    blobs(e.data_transfer().and_then(|d| d.files()))
}

/// Let a drag over an element end in a drop there (the browser's default refuses it).
pub fn allow_drop(e: &web_sys::DragEvent) {
    e.prevent_default();
}

/// The file at `url` (relative to the page), fetched as a blob named `name`.
pub fn fetch_blob(url: &str, name: String, done: impl FnOnce(Result<LogBlob, BrowserError>) + 'static) {
    async fn read(url: String) -> Result<web_sys::Blob, BrowserError> {
        let body = fetch_ok(&url).await?.blob().map_err(|_| BrowserError::Missing("its body"))?;
        wasm_bindgen_futures::JsFuture::from(body).await.ok().and_then(|b| b.dyn_into().ok()).ok_or(BrowserError::Refused("read its body"))
    }
    let url = url.to_string();
    wasm_bindgen_futures::spawn_local(async move { done(read(url).await.map(|blob| LogBlob { blob, name })) });
}
