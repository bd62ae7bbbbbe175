//! The trace lab's shell: where a log's bytes come from (a picked or dropped file, a fetched
//! gallery sample, a pasted text), telling a log from a scenario by its first bytes, and
//! turning `trace_lab::Outgoing` into messages for the engine worker (a chunk is read from its
//! source when it is due, so the page holds one chunk of the log at a time).

use std::cell::RefCell;
use std::rc::Rc;

use blast_playground::action::Action;
use blast_playground::trace_lab::{protocol, sniff, Outgoing, TraceAction, SNIFF_BYTES};

use crate::browser::{self, LogBlob};
use crate::store::Store;

/// Where the log being read is.
enum Source {
    Blob(LogBlob),
    Text(Rc<[u8]>),
}

thread_local! {
    /// The log of the latest Open (a new one replaces it; the reducer's reading ids keep a late
    /// answer about the old one from mattering).
    static SOURCE: RefCell<Option<Source>> = const { RefCell::new(None) };
}

fn open(store: &Store, name: String, source: Source) {
    let size = match &source {
        Source::Blob(b) => b.size(),
        Source::Text(t) => t.len() as u64,
    };
    SOURCE.set(Some(source));
    store.dispatch(Action::Trace(TraceAction::Open { name, size }));
    browser::soon_detached(|| browser::scroll_into_view("trace-lab"));
}

/// Read a file or fetched sample in the trace lab.
pub fn open_blob(store: &Store, blob: LogBlob) {
    open(store, blob.name.clone(), Source::Blob(blob));
}

/// Read a pasted text in the trace lab.
pub fn open_text(store: &Store, name: String, text: String) {
    open(store, name, Source::Text(Rc::from(text.into_bytes())));
}

/// Whether a text is a runtime log (its first line says so).
pub fn is_log(text: &str) -> bool {
    sniff(text.as_bytes()).is_some()
}

/// A picked or dropped file: a log goes to the trace lab, anything else to `otherwise` (a
/// scenario, imported as today).
pub fn open_file(store: &Store, blob: LogBlob, otherwise: impl FnOnce(LogBlob) + 'static) {
    let store = store.clone();
    let head = blob.clone();
    head.read(0, SNIFF_BYTES as u64, move |bytes| match bytes {
        Ok(bytes) if sniff(&bytes).is_some() => open_blob(&store, blob),
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
    SOURCE.with_borrow(|source| match source {
        Some(Source::Text(text)) => post(protocol::chunk(id, &text[start as usize..end as usize])),
        Some(Source::Blob(blob)) => {
            let store = store.clone();
            blob.read(start, end, move |bytes| match bytes {
                Ok(bytes) => post(protocol::chunk(id, &bytes)),
                Err(why) => store.dispatch(Action::Trace(TraceAction::Lost(format!("the file could not be read ({why})")))),
            });
        }
        None => store.dispatch(Action::Trace(TraceAction::Lost("its bytes are gone".into()))),
    });
}
