//! Keep and share: import a scenario (DSL) or open a runtime log in the trace lab, export the
//! scenario as DSL.

use yew::prelude::*;

use crate::browser::{self, LogBlob, TextReadError};

use blast_playground::share::Shared;

/// Files larger than the scenario reader's cap are refused before reading: the engine worker
/// would refuse the text anyway (`dsl::MAX_INPUT`, as the CLI).
const MAX_IMPORT_BYTES: f64 = blast_engine::dsl::MAX_INPUT as f64;

pub struct FilesProps {
    /// Picked files: a scenario, or a runtime log and its class tree (the app tells them
    /// apart, `trace_panel::open_files`).
    pub on_file: Callback<Vec<LogBlob>>,
    /// Export the scenario text. There is no JSON export on the page (as there is no JSON
    /// import): the model's derived serializers cost 4.2 KB of the gzipped page, and
    /// `blast show --format json FILE` converts.
    pub on_export: Callback<()>,
}

/// An imported file as a scenario to open: its text (DSL), the page's one document format.
///
/// A JSON scenario is refused with the command that converts it: reading JSON here would ship
/// serde's derived deserializers for the whole model in the bundle (~45 KB gzipped of ~440),
/// for what `blast show` does on the command line. Export JSON stays (serializing
/// costs ~7 KB raw).
pub fn scenario_import(text: String) -> Result<Shared, ImportRefusal> {
    if text.trim_start().starts_with('{') {
        return Err(ImportRefusal::Json);
    }
    // Read by the engine worker, off the main thread (`offload`), which refuses it if it does not read.
    Ok(Shared { text, policies: Vec::new(), view: Default::default() })
}

/// Why an imported file is not a scenario.
#[derive(Debug)]
pub enum ImportRefusal {
    /// A JSON scenario: `blast show` converts it.
    Json,
}

impl std::fmt::Display for ImportRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportRefusal::Json => {
                f.write_str("it is JSON; the playground reads the scenario text (DSL): convert it with `blast show FILE.json` and import that")
            }
        }
    }
}

/// Import a scenario file (a picked or dropped file that is not a log): read whole, within
/// the import cap; `on_import` hears the scenario and the file's name, `on_error` why not.
pub fn import_blob(blob: LogBlob, on_import: impl FnOnce(Shared, String) + 'static, on_error: impl FnOnce(String) + 'static) {
    let name = blob.name.clone();
    if blob.size() as f64 > MAX_IMPORT_BYTES {
        return on_error(format!("{name} is too large to import (at most {} MB).", blast_engine::dsl::MAX_INPUT / 1_000_000));
    }
    blob.read_text(move |text| match text {
        Ok(text) => match scenario_import(text) {
            Ok(shared) => on_import(shared, name),
            Err(e) => on_error(format!("{name} is not a valid scenario: {e}")),
        },
        Err(e @ TextReadError::NotText) => on_error(format!("{name} is not a valid scenario: {e}")),
        Err(e) => on_error(format!("{name} could not be read: {e}")),
    });
}

/// A file input's `onchange`: the picked files to `on_file` (the import button, the trace lab's).
pub fn on_pick(on_file: &Callback<Vec<LogBlob>>) -> Callback<Event> {
    let on_file = on_file.clone();
    Callback::from(move |e: Event| {
        let blobs = browser::picked_files(&e);
        if !blobs.is_empty() {
            on_file.emit(blobs);
        }
    })
}

pub fn files(p: &FilesProps) -> Html {
    let on_file = on_pick(&p.on_file);
    let export = {
        let cb = p.on_export.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <div class="files" role="group" aria-label="Import and export">
            <label class="button-like" for="import-file">{ "Import…" }</label>
            <input id="import-file" class="visually-hidden" type="file" accept=".blast,.txt,.dsl,.log,text/plain" onchange={on_file} />
            <button id="export-dsl" onclick={export}
                title="Download the scenario text (for JSON: blast show --format json FILE.blast)">{ "Export DSL" }</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    #[test]
    fn imports_dsl_as_typed_and_refuses_json_with_the_converting_command() {
        let p = presets::all()[0];
        assert_eq!(scenario_import(p.text.to_string()).unwrap().text, p.text);
        let json = format!("{{\n  \"name\": \"{}\",\n  \"classes\": []\n}}", p.id);
        let refused = scenario_import(json).unwrap_err();
        assert!(matches!(refused, ImportRefusal::Json) && refused.to_string().contains("blast show"), "{refused}");
        assert!(matches!(scenario_import("{ not json".to_string()), Err(ImportRefusal::Json)));
    }
}
