//! The trace lab as the app mounts it: its props from `AppState::trace`, and what its buttons
//! and the gallery's Traces group do (open a file, a paste or a sample, export a table, open
//! the derived scenario like a preset, one Undo away).

use blast_playground::action::Action;
use blast_playground::chrome::ChromeAction;
use blast_playground::export::file_stem;
use blast_playground::packing::{NoLogText, PackAction};
use blast_playground::session::SessionAction;
use blast_playground::share::{self, LinkSource};
use blast_playground::trace_lab::protocol::{ClassTree, MAX_CLASS_TREE_BYTES};
use blast_playground::trace_lab::{samples, TraceAction, TraceLab};
use yew::prelude::*;

use crate::browser::{self, LogBlob};
use crate::components::blast_parts::TraceOnView;
use crate::components::files::{import_blob, scenario_import};
use crate::components::trace_lab::{trace_lab, TraceExport, TraceLabProps};
use crate::store::Store;
use crate::trace_feed;

pub fn trace_panel(store: &Store, lab: &TraceLab) -> Html {
    trace_lab(&TraceLabProps {
        reading: lab.reading.clone(),
        shown: lab.shown.clone(),
        error: lab.error.clone(),
        on_file: store.handler(open_files),
        on_paste: store.handler(|store, text| trace_feed::open_text(store, "the pasted log".into(), text)),
        on_cancel: store.on(|| Action::Trace(TraceAction::Cancel)),
        on_close: store.on(|| Action::Trace(TraceAction::Close)),
        on_export: store.handler(export_table),
        on_open_scenario: store.handler(open_scenario),
        link: lab.link.clone(),
        on_share: store.handler(share_trace),
    })
}

/// The trace on screen as the blast view and the why panel draw it, `None` when none is.
pub fn on_view(store: &Store, lab: &TraceLab) -> Option<TraceOnView> {
    let page = lab.shown.clone()?;
    Some(TraceOnView {
        page,
        selected: lab.selected.clone().map(AttrValue::from),
        on_select: store.callback(|site| Action::Trace(TraceAction::Select(site))),
        on_zoom: store.callback(|z| Action::Trace(TraceAction::Zoom(z))),
    })
}

/// Picked or dropped files, in any order: a class tree (`NAME.classes`) goes with the log among
/// them, or onto the trace on screen when it comes alone; a log to the trace lab; a scenario
/// imported as with Import.
pub fn open_files(store: &Store, blobs: Vec<LogBlob>) {
    let (mut trees, mut others): (Vec<LogBlob>, Vec<LogBlob>) = blobs.into_iter().partition(|b| b.name.ends_with(".classes"));
    let (tree, log) = (trees.drain(..).next(), others.drain(..).next());
    let Some(tree) = tree else {
        if let Some(log) = log {
            open_file(store, log, None);
        }
        return;
    };
    let name = tree.name.clone();
    let refuse = {
        let store = store.clone();
        move |why: String| store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The class tree {name} could not be read: {why}"))))
    };
    if tree.size() > MAX_CLASS_TREE_BYTES {
        return refuse(format!("it is over {} MB", MAX_CLASS_TREE_BYTES >> 20));
    }
    let store = store.clone();
    let name = tree.name.clone();
    tree.read_text(move |text| match text {
        Ok(text) => {
            let tree = ClassTree { name, text };
            match log {
                Some(log) => open_file(&store, log, Some(tree)),
                None => store.dispatch(Action::Trace(TraceAction::Classes(tree))),
            }
        }
        Err(why) => refuse(why.to_string()),
    });
}

/// A picked or dropped file: a log to the trace lab (with its class tree), a scenario imported
/// as with Import.
fn open_file(store: &Store, blob: LogBlob, tree: Option<ClassTree>) {
    let importer = store.clone();
    trace_feed::open_file(store, blob, tree, move |blob| {
        let (on_import, on_error) = (importer.clone(), importer);
        import_blob(
            blob,
            move |shared, origin| on_import.dispatch(SessionAction::LoadScenario { shared, origin }),
            move |why| on_error.dispatch(Action::Chrome(ChromeAction::ShowError(why))),
        );
    });
}

/// A gallery sample (`trace_lab::samples`), fetched and read; its class tree, when it has one,
/// is fetched first and goes with it (the replay needs it for HotSpot, V8's uses it).
pub fn open_sample(store: &Store, id: &'static str) {
    let Some(sample) = samples::find(id) else { return };
    let fetch_log = move |store: Store, tree: Option<ClassTree>| {
        browser::fetch_blob(&sample.url(), format!("{id}.log"), move |blob| match blob {
            Ok(blob) => trace_feed::open_blob(&store, blob, tree),
            Err(why) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The sample {id} could not be fetched: {why}")))),
        });
    };
    let store = store.clone();
    match sample.classes_url() {
        None => fetch_log(store, None),
        Some(url) => browser::fetch_text(&url, move |text| match text {
            Ok(text) => fetch_log(store, Some(ClassTree { name: format!("{id}.classes"), text })),
            Err(why) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The class tree of the sample {id} could not be fetched: {why}")))),
        }),
    }
}

fn export_table(store: &Store, kind: TraceExport) {
    let Some(v) = store.read().trace.shown.clone() else { return };
    let stem = file_stem(v.name.strip_suffix(".log").unwrap_or(&v.name));
    let (name, mime, text) = match kind {
        TraceExport::FanOutCsv => (format!("{stem}-fanout.csv"), "text/csv", Some(&v.fan_out_csv)),
        TraceExport::FanOutMarkdown => (format!("{stem}-fanout.md"), "text/markdown", Some(&v.fan_out_markdown)),
        TraceExport::ReplayCsv => (format!("{stem}-replay.csv"), "text/csv", v.replay_csv.as_ref()),
        TraceExport::ReplayMarkdown => (format!("{stem}-replay.md"), "text/markdown", v.replay_markdown.as_ref()),
    };
    let Some(text) = text else { return };
    if let Err(e) = browser::download(&name, mime, text) {
        store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("Export failed: {e}"))));
    }
}

/// The replay's scenario, loaded as an imported scenario is (the edit it replaces stays one Undo away).
fn open_scenario(store: &Store, (): ()) {
    let Some(v) = store.read().trace.shown.clone() else { return };
    let Some(scenario) = &v.scenario else { return };
    match scenario_import(scenario.clone()) {
        Ok(shared) => {
            store.dispatch(SessionAction::LoadScenario { shared, origin: format!("the replay of {}", v.name) });
            browser::scroll_into_view("blast-view");
        }
        Err(why) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The derived scenario does not parse: {why}")))),
    }
}

/// Copy link: the whole log when a link can carry it, else why not and the derived scenario's
/// link instead (the engine worker makes them: `packing`).
fn share_trace(store: &Store, (): ()) {
    let (name, text, scenario, tree) = {
        let s = store.read();
        let Some(v) = s.trace.shown.clone() else { return };
        (v.name.clone(), s.trace.text().map(str::to_string), v.scenario.clone(), s.trace.tree().cloned())
    };
    let done = {
        let store = store.clone();
        move |log: Result<String, NoLogText>| {
            let log = log.map(|log| LinkSource::Trace { name, log, tree });
            store.dispatch(PackAction::TraceLink { log, scenario });
        }
    };
    match (text, trace_feed::source()) {
        (Some(text), _) => done(Ok(text)),
        (None, Some(blob)) if blob.size() <= share::MAX_LINK_TEXT as u64 => {
            blob.read_text(move |text| done(text.map_err(|e| NoLogText::Unreadable(e.to_string()))))
        }
        (None, Some(blob)) => done(Err(NoLogText::TooLong(blob.size()))),
        (None, None) => done(Err(NoLogText::Gone)),
    }
}
