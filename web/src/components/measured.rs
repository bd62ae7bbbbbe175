//! The measured-runtime panel: a probe result (file, paste, or a reference result) is read and
//! fitted against every policy by the engine worker (`lab::Lab`, `fit_wire`), and the measured
//! slowdowns are set beside what each policy simulates at its fitted costs: the fingerprint
//! (closest shape, margin, spread flags), a "measured" column next to the policies' columns,
//! and a strip chart of the same values.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::runtimes;
use yew::prelude::*;

use crate::browser::{self, FileRefusal};
use crate::components::{raw, raw_static};
use blast_playground::markup::escape;

use blast_playground::lab::Refusal;
use blast_playground::measured::{self, FitState, Measured};
use blast_playground::measured_markup;
use blast_playground::worker::fit_wire::ReadRefusal;

#[derive(Properties, PartialEq)]
pub struct MeasuredProps {
    /// The result on screen and its fit (`lab::Lab`).
    pub shown: Option<(Rc<Measured>, FitState)>,
    /// The origin of a text the worker is reading.
    pub reading: Option<AttrValue>,
    /// Why the last text is not on screen.
    pub refusal: Option<Refusal>,
    /// The row (`workload@param`) the loaded scenario simulates, when it is a runtime's.
    pub highlight: Option<AttrValue>,
    /// A text to read, and its origin.
    pub on_read: Callback<(String, String)>,
    /// A text that could not be had, its origin and why.
    pub on_refuse: Callback<(String, String)>,
    pub on_clear: Callback<()>,
}

/// A probed runtime's reference result (`measured::reference_url`), fetched when asked for:
/// its text and its origin.
pub fn fetch_reference(runtime_id: &str, done: impl FnOnce(Result<(String, String), ReferenceRefusal>) + 'static) {
    let Some(url) = measured::reference_url(runtime_id) else { return done(Err(ReferenceRefusal::NoneShipped)) };
    let origin = measured::reference_origin(runtime_id);
    browser::fetch_text(&url, move |text| done(text.map(|text| (text, origin)).map_err(ReferenceRefusal::NotFetched)));
}

/// Why a runtime's reference result is not read.
#[derive(Debug)]
pub enum ReferenceRefusal {
    /// The page ships none for this runtime.
    NoneShipped,
    NotFetched(browser::BrowserError),
}

impl std::fmt::Display for ReferenceRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReferenceRefusal::NoneShipped => f.write_str("there is no reference result for it"),
            ReferenceRefusal::NotFetched(why) => why.fmt(f),
        }
    }
}

/// Why a file or a paste over `measured::MAX_IMPORT_BYTES` is not read.
const TOO_LARGE: &str = "it is over 1 MB; a probe result is about 7 KB";

#[function_component(MeasuredPanel)]
pub fn measured_panel(p: &MeasuredProps) -> Html {
    let paste_open = use_state(|| false);
    let reader = use_mut_ref(|| None::<browser::FileRead>);
    let paste_ref = use_node_ref();

    let on_file = {
        let (on_read, on_refuse, reader) = (p.on_read.clone(), p.on_refuse.clone(), reader.clone());
        Callback::from(move |e: Event| {
            let (on_read, on_refuse) = (on_read.clone(), on_refuse.clone());
            *reader.borrow_mut() = browser::read_picked_file(&e, measured::MAX_IMPORT_BYTES, move |name, text| match text {
                Ok(text) => on_read.emit((text, name)),
                Err(FileRefusal::TooLarge) => on_refuse.emit((name, TOO_LARGE.into())),
                Err(FileRefusal::Unreadable(e)) => on_refuse.emit((name, format!("it could not be read: {e}"))),
            });
        })
    };
    let on_read_paste = {
        let (on_read, on_refuse, paste_ref) = (p.on_read.clone(), p.on_refuse.clone(), paste_ref.clone());
        Callback::from(move |_: MouseEvent| match browser::node_value(&paste_ref) {
            // The file's cap, before the text is copied into a message for the worker.
            Some(text) if text.len() as f64 > measured::MAX_IMPORT_BYTES => on_refuse.emit(("pasted text".into(), TOO_LARGE.into())),
            Some(text) => on_read.emit((text, "pasted text".into())),
            None => {}
        })
    };
    let on_reference = {
        let (on_read, on_refuse) = (p.on_read.clone(), p.on_refuse.clone());
        Callback::from(move |e: Event| {
            let id = browser::value(&e);
            let (on_read, on_refuse) = (on_read.clone(), on_refuse.clone());
            fetch_reference(&id.clone(), move |fetched| match fetched {
                Ok(read) => on_read.emit(read),
                Err(why) => on_refuse.emit((format!("the reference result of {id}"), why.to_string())),
            });
            browser::clear_value(&e);
        })
    };
    let toggle_paste = {
        let paste_open = paste_open.clone();
        Callback::from(move |_: MouseEvent| paste_open.set(!*paste_open))
    };
    let clear = p.on_clear.reform(|_: MouseEvent| ());

    html! {
        <section id="measured" class="panel" aria-labelledby="measured-title">
            <header class="panel-head">
                <h2 id="measured-title">{ "Measured runtime" }</h2>
                <div class="measured-tools" role="group" aria-label="Probe results">
                    <label class="button-like small" for="measured-file">{ "Import probe result…" }</label>
                    <input id="measured-file" class="visually-hidden" type="file" accept=".json,application/json" onchange={on_file} />
                    <button id="measured-paste-toggle" class="small" aria-expanded={paste_open.to_string()} onclick={toggle_paste}>{ "Paste…" }</button>
                    <select id="measured-reference" class="small" aria-label="Show a reference result measured for docs/RUNTIMES.md" onchange={on_reference}>
                        <option value="" selected=true>{ "Reference results…" }</option>
                        { for measured::reference_ids().map(|id| html! {
                            <option value={id}>{ runtimes::profile(id).map_or(id, |p| p.name) }</option>
                        }) }
                    </select>
                    if p.shown.is_some() {
                        <button id="measured-clear" class="small" onclick={clear}>{ "Clear" }</button>
                    }
                </div>
            </header>
            if *paste_open {
                <div class="measured-paste">
                    { raw_static(r#"<label for="measured-paste-text">The JSON that <code>bash scripts/probe.sh RUNTIME</code> writes:</label>"#) }
                    <textarea id="measured-paste-text" ref={paste_ref} rows="6" spellcheck="false" placeholder="{ \"schema\": \"blast-radius-probe/1\", … }" />
                    <button id="measured-read" class="small primary" onclick={on_read_paste}>{ "Read" }</button>
                </div>
            }
            if let Some(r) = &p.refusal {
                { raw(refusal_view(r)) }
            }
            if let Some(origin) = &p.reading {
                { raw(reading_view(origin)) }
            }
            {
                match &p.shown {
                    None => raw_static(concat!(
                        r#"<p class="hint">Measure a runtime with <code>bash scripts/probe.sh cpython|pypy|node|ruby|jruby|groovy</code> and import the JSON it writes, "#,
                        "or pick one of the six reference results: its slowdowns appear beside what each policy simulates, and the closest policy is named.</p>"
                    )),
                    Some((m, fit)) => html! {
                        <>
                            { raw(measured_markup::summary(m)) }
                            { fit_view(fit, p.highlight.as_deref()) }
                        </>
                    },
                }
            }
        </section>
    }
}

/// A refused text, as markup: its origin, message and excerpt come from the file, escaped.
fn refusal_view(r: &Refusal) -> String {
    let lead = match r.why {
        ReadRefusal::NotAResult(_) => "is not a probe result we can read",
        _ => "was not read",
    };
    let mut s = format!(
        r#"<div id="measured-error" class="measured-error" role="alert"><p><strong>{} {lead}: </strong>{}</p>"#,
        escape(&r.origin),
        escape(&r.why.to_string())
    );
    if let ReadRefusal::NotAResult(why) = &r.why {
        if let Some((line, text, column)) = &why.excerpt {
            let _ = write!(
                s,
                r#"<pre class="excerpt"><span class="line-no">{line:>4} | </span>{}{}<span class="line-no">     | </span><span class="caret">{}^</span></pre>"#,
                escape(text),
                "\n",
                " ".repeat(column.saturating_sub(1))
            );
        }
    }
    s.push_str("</div>");
    s
}

/// The note while the engine worker reads and fits a text.
fn reading_view(origin: &str) -> String {
    format!(
        r#"<p id="measured-fitting" class="hint" aria-live="polite">Reading {} and fitting every policy to it in the engine worker… <progress aria-label="Fitting"></progress></p>"#,
        escape(origin)
    )
}

fn fit_view(fit: &FitState, highlight: Option<&str>) -> Html {
    match fit {
        FitState::Failed(e) => html! { <p id="measured-fit-error" class="measured-error" role="alert">{ format!("The fit failed: {e}") }</p> },
        FitState::Done(f) => raw(measured_markup::fit(f, highlight)),
    }
}
