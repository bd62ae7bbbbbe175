//! The trace lab as the app mounts it: its props from `AppState::trace`, and what its buttons
//! and the gallery's Traces group do (open a file, a paste or a sample, export a table, open
//! the derived scenario like a preset, one Undo away).

use blast_playground::action::Action;
use blast_playground::chrome::ChromeAction;
use blast_playground::export::file_stem;
use blast_playground::trace_lab::{samples, TraceAction, TraceLab};
use yew::prelude::*;

use crate::browser::{self, LogBlob};
use crate::components::files::{import_blob, parse_import};
use crate::components::trace_lab::{trace_lab, TraceExport, TraceLabProps};
use crate::store::Store;
use crate::trace_feed;

pub fn trace_panel(store: &Store, lab: &TraceLab) -> Html {
    trace_lab(&TraceLabProps {
        reading: lab.reading.clone(),
        shown: lab.shown.clone(),
        error: lab.error.clone(),
        on_file: store.handler(open_file),
        on_paste: store.handler(|store, text| trace_feed::open_text(store, "the pasted log".into(), text)),
        on_cancel: store.on(|| Action::Trace(TraceAction::Cancel)),
        on_close: store.on(|| Action::Trace(TraceAction::Close)),
        on_export: store.handler(export_table),
        on_open_scenario: store.handler(open_scenario),
    })
}

/// A picked or dropped file: a log to the trace lab, a scenario imported as with Import.
pub fn open_file(store: &Store, blob: LogBlob) {
    let importer = store.clone();
    trace_feed::open_file(store, blob, move |blob| {
        let (on_import, on_error) = (importer.clone(), importer);
        import_blob(
            blob,
            move |shared, origin| on_import.dispatch(Action::LoadScenario { shared, origin }),
            move |why| on_error.dispatch(Action::Chrome(ChromeAction::ShowError(why))),
        );
    });
}

/// A gallery sample (`trace_lab::samples`), fetched and read.
pub fn open_sample(store: &Store, id: &'static str) {
    let Some(sample) = samples::find(id) else { return };
    let store = store.clone();
    browser::fetch_blob(&sample.url(), format!("{id}.log"), move |blob| match blob {
        Ok(blob) => trace_feed::open_blob(&store, blob),
        Err(why) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The sample {id} could not be fetched: {why}")))),
    });
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
    match parse_import(scenario) {
        Ok(shared) => {
            store.dispatch(Action::LoadScenario { shared, origin: format!("the replay of {}", v.name) });
            browser::scroll_into_view("blast-view");
        }
        Err(why) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The derived scenario does not parse: {why}")))),
    }
}
