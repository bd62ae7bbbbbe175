//! The trace lab's shell: where a log's bytes come from (a picked or dropped file, a fetched
//! gallery sample, a pasted text), telling a log from a scenario by its first bytes, and
//! turning `trace_lab::Outgoing` into messages for the engine worker (a file's chunk is read
//! when it is due, so the page holds one chunk of it at a time; a text is the reducer's).

use std::cell::RefCell;

use blast_playground::action::Action;
use blast_playground::trace_lab::protocol::{self, ClassTree};
use blast_playground::trace_lab::{sniff, Outgoing, TraceAction, SNIFF_BYTES};

use crate::browser::{self, LogBlob};
use crate::store::Store;

thread_local! {
    /// The file of the latest Open (a new one replaces it; the reducer's reading ids keep a late
    /// answer about the old one from mattering). A log held as text is the reducer's.
    static SOURCE: RefCell<Option<LogBlob>> = const { RefCell::new(None) };
}

fn open(store: &Store, action: TraceAction) {
    store.dispatch(Action::Trace(action));
    browser::soon_detached(|| browser::scroll_into_view("trace-lab"));
}

/// Read a file or fetched sample in the trace lab, with its class tree when there is one.
pub fn open_blob(store: &Store, blob: LogBlob, tree: Option<ClassTree>) {
    let (name, size) = (blob.name.clone(), blob.size());
    SOURCE.set(Some(blob));
    open(store, TraceAction::Open { name, size });
    if let Some(tree) = tree {
        store.dispatch(Action::Trace(TraceAction::Classes(tree)));
    }
}

/// Read a pasted text in the trace lab.
pub fn open_text(store: &Store, name: String, text: String) {
    SOURCE.set(None);
    open(store, TraceAction::OpenText { name, text, tree: None });
}

/// The file being read or on screen, if the log came as one.
pub fn source() -> Option<LogBlob> {
    SOURCE.with_borrow(Clone::clone)
}

/// Whether a text is a runtime log (its first line says so).
pub fn is_log(text: &str) -> bool {
    sniff(text.as_bytes()).is_some()
}

/// A picked or dropped file: a log goes to the trace lab (with `tree`, its class tree, when
/// given), anything else to `otherwise` (a scenario, imported as today).
pub fn open_file(store: &Store, blob: LogBlob, tree: Option<ClassTree>, otherwise: impl FnOnce(LogBlob) + 'static) {
    let store = store.clone();
    let head = blob.clone();
    head.read(0, SNIFF_BYTES as u64, move |bytes| match bytes {
        Ok(bytes) if sniff(&bytes).is_some() => open_blob(&store, blob, tree),
        _ => otherwise(blob),
    });
}

/// Hand `o` to `post` (the engine worker), reading a chunk's bytes from the source first; a
/// source that cannot be read ends the reading with why.
pub fn send(store: &Store, o: Outgoing, post: impl FnOnce(Vec<u8>) + 'static) {
    let (id, start, end) = match o {
        Outgoing::Message(bytes) => return post(bytes),
        Outgoing::Chunk { id, start, end } => (id, start, end),
    };
    match source() {
        Some(blob) => {
            let store = store.clone();
            blob.read(start, end, move |bytes| match bytes {
                Ok(bytes) => post(protocol::chunk(id, &bytes)),
                Err(why) => store.dispatch(Action::Trace(TraceAction::Lost(format!("the file could not be read ({why})")))),
            });
        }
        None => store.dispatch(Action::Trace(TraceAction::Lost("its bytes are gone".into()))),
    }
}
