//! The measured-runtime panel: import a probe result (file, paste, or a reference result),
//! which the engine worker fits against every policy (`lab::Lab`, `fit_wire`), and set the
//! measured slowdowns beside what each policy simulates at its fitted costs: the fingerprint
//! (closest shape, margin, spread flags), a "measured" column next to the policies' columns,
//! and a strip chart of the same values.

use std::fmt::Write;
use std::rc::Rc;

use blast_engine::runtimes;
use yew::prelude::*;

use crate::browser::{self, FileRefusal};
use crate::components::{raw, raw_static};
use blast_playground::markup::escape;

use blast_playground::measured::{self, FitState, ImportError, Measured};
use blast_playground::measured_markup;

#[derive(Properties, PartialEq)]
pub struct MeasuredProps {
    /// The result on screen and where its fit is (`lab::Lab`).
    pub shown: Option<(Rc<Measured>, FitState)>,
    /// The row (`workload@param`) the loaded scenario simulates, when it is a runtime's.
    pub highlight: Option<AttrValue>,
    pub on_import: Callback<Rc<Measured>>,
    pub on_clear: Callback<()>,
}

/// A probed runtime's reference result (`measured::reference_url`), fetched when asked for.
pub fn fetch_reference(runtime_id: &str, done: impl FnOnce(Result<Measured, ReferenceRefusal>) + 'static) {
    let Some(url) = measured::reference_url(runtime_id) else { return done(Err(ReferenceRefusal::NoneShipped)) };
    let id = runtime_id.to_string();
    browser::fetch_text(&url, move |text| {
        done(text.map_err(ReferenceRefusal::NotFetched).and_then(|text| measured::reference(&id, &text).map_err(ReferenceRefusal::Unreadable)))
    });
}

/// Why a runtime's reference result is not shown.
#[derive(Debug)]
pub enum ReferenceRefusal {
    /// The page ships none for this runtime.
    NoneShipped,
    NotFetched(browser::BrowserError),
    Unreadable(measured::ImportError),
}

impl std::fmt::Display for ReferenceRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReferenceRefusal::NoneShipped => f.write_str("there is no reference result for it"),
            ReferenceRefusal::NotFetched(why) => why.fmt(f),
            ReferenceRefusal::Unreadable(why) => why.fmt(f),
        }
    }
}

/// A refused import: what was being read and why, with the offending line when there is one.
#[derive(Clone, PartialEq)]
struct Refusal {
    origin: String,
    message: String,
    excerpt: Option<(usize, String, usize)>,
}

impl Refusal {
    fn of(origin: String, e: ImportError) -> Refusal {
        Refusal { origin, message: e.to_string(), excerpt: e.excerpt }
    }
}

#[function_component(MeasuredPanel)]
pub fn measured_panel(p: &MeasuredProps) -> Html {
    let refusal = use_state(|| None::<Refusal>);
    let paste_open = use_state(|| false);
    let reader = use_mut_ref(|| None::<browser::FileRead>);
    let paste_ref = use_node_ref();

    // Every way in ends here: a result replaces the last one, a refusal is shown and the last
    // good result stays.
    let accept = {
        let (on_import, refusal) = (p.on_import.clone(), refusal.clone());
        Callback::from(move |(text, origin): (String, String)| match measured::import(&text, &origin) {
            Ok(m) => {
                refusal.set(None);
                on_import.emit(Rc::new(m));
            }
            Err(error) => refusal.set(Some(Refusal::of(origin, error))),
        })
    };
    let on_file = {
        let (accept, refusal, reader) = (accept.clone(), refusal.clone(), reader.clone());
        Callback::from(move |e: Event| {
            let (accept, refusal) = (accept.clone(), refusal.clone());
            *reader.borrow_mut() = browser::read_picked_file(&e, measured::MAX_IMPORT_BYTES, move |name, text| match text {
                Ok(text) => accept.emit((text, name)),
                Err(FileRefusal::TooLarge) => {
                    refusal.set(Some(Refusal { origin: name, message: "it is over 1 MB; a probe result is about 7 KB".into(), excerpt: None }))
                }
                Err(FileRefusal::Unreadable(e)) => refusal.set(Some(Refusal { origin: name, message: format!("it could not be read: {e}"), excerpt: None })),
            });
        })
    };
    let on_read_paste = {
        let (accept, paste_ref) = (accept.clone(), paste_ref.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(text) = browser::node_value(&paste_ref) {
                accept.emit((text, "pasted text".into()));
            }
        })
    };
    let on_reference = {
        let (on_import, refusal) = (p.on_import.clone(), refusal.clone());
        Callback::from(move |e: Event| {
            let id = browser::value(&e);
            let (on_import, refusal) = (on_import.clone(), refusal.clone());
            fetch_reference(&id.clone(), move |m| match m {
                Ok(m) => {
                    refusal.set(None);
                    on_import.emit(Rc::new(m));
                }
                Err(message) => refusal.set(Some(Refusal { origin: format!("the reference result of {id}"), message: message.to_string(), excerpt: None })),
            });
            browser::clear_value(&e);
        })
    };
    let toggle_paste = {
        let paste_open = paste_open.clone();
        Callback::from(move |_: MouseEvent| paste_open.set(!*paste_open))
    };
    let clear = {
        let (cb, refusal) = (p.on_clear.clone(), refusal.clone());
        Callback::from(move |_: MouseEvent| {
            refusal.set(None);
            cb.emit(());
        })
    };

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
            if let Some(r) = &*refusal {
                { raw(refusal_view(r)) }
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

/// A refused import, as markup: its origin, message and excerpt come from the file, escaped.
fn refusal_view(r: &Refusal) -> String {
    let mut s = format!(
        r#"<div id="measured-error" class="measured-error" role="alert"><p><strong>{} is not a probe result we can read: </strong>{}</p>"#,
        escape(&r.origin),
        escape(&r.message)
    );
    if let Some((line, text, column)) = &r.excerpt {
        let _ = write!(
            s,
            r#"<pre class="excerpt"><span class="line-no">{line:>4} | </span>{}{}<span class="line-no">     | </span><span class="caret">{}^</span></pre>"#,
            escape(text),
            "\n",
            " ".repeat(column.saturating_sub(1))
        );
    }
    s.push_str("</div>");
    s
}

fn fit_view(fit: &FitState, highlight: Option<&str>) -> Html {
    match fit {
        FitState::Fitting => raw_static(concat!(
            r#"<p id="measured-fitting" class="hint" aria-live="polite">Fitting every policy to the measurements in the engine worker… "#,
            r#"<progress aria-label="Fitting"></progress></p>"#
        )),
        FitState::Failed(e) => html! { <p id="measured-fit-error" class="measured-error" role="alert">{ format!("The fit failed: {e}") }</p> },
        FitState::Done(f) => raw(measured_markup::fit(f, highlight)),
    }
}
