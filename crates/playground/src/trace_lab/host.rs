//! The engine worker's side of the trace lab: one [`TraceReader`] at a time, fed the chunks the
//! page posts, answered with its progress after each; a finished log is answered with its
//! [`TraceView`] (attribution and replay run here, never on the page). The finished trace is
//! kept until the next log, so a class tree given afterwards replays it again (in place of the
//! one given before: the parents the log itself names are kept, those of a tree dropped).

use blast_engine::trace::{parse_classes, Limits, Trace, TraceReader};

use super::page::{TimelinePart, TracePage};
use super::protocol::{self, Answer, ClassTree, Reply, Request};
use super::view::{self, NoReplay, TraceView};

#[derive(Default)]
pub struct TraceHost {
    /// The reading held: its id, name and reader.
    reading: Option<(u64, String, TraceReader)>,
    /// The last finished trace.
    finished: Option<Finished>,
}

struct Finished {
    id: u64,
    name: String,
    trace: Trace,
    /// How many of `trace.parents` the log itself named (a class tree's come after them).
    log_parents: usize,
}

impl Finished {
    /// The page of the trace replayed with `tree` (replacing any tree given before) when one is
    /// given; a tree that does not parse leaves the trace without one, and the replay says why.
    fn page(&mut self, tree: Option<&ClassTree>) -> TracePage {
        let Some(tree) = tree else { return TracePage::of(&TraceView::of(&self.name, &self.trace)) };
        self.trace.parents.truncate(self.log_parents);
        let parsed = parse_classes(&tree.text);
        self.trace.add_classes(parsed.clone().unwrap_or_default());
        let mut v = TraceView::of(&self.name, &self.trace);
        if let Err(e) = parsed {
            v.replay = Err(NoReplay::BadClassTree { file: tree.name.clone(), why: e.to_string() });
        }
        TracePage::of(&v)
    }
}

impl TraceHost {
    /// One message in, its answer out (a cancel's too, which the page drops: every message
    /// is answered, so the page's routing of answers by kind stays one answer per message).
    pub fn answer(&mut self, bytes: &[u8]) -> Vec<u8> {
        let (request, tail) = match protocol::decode_request(bytes) {
            Ok(r) => r,
            Err(e) => return protocol::encode_reply(&Reply { id: 0, answer: Answer::Refused(format!("the engine worker could not read the message ({e})")) }),
        };
        let (id, answer) = match request {
            Request::Open { id, name, size } => {
                self.finished = None;
                let reader = TraceReader::new(Limits::default());
                // Refused before a byte is sent: the page waits for this answer.
                if let Err(e) = reader.check_size(size) {
                    self.reading = None;
                    (id, Answer::Refused(e.to_string()))
                } else {
                    let p = reader.progress();
                    self.reading = Some((id, name, reader));
                    (id, Answer::Progress { bytes: p.bytes, lines: p.lines, events: p.events, stopped: None })
                }
            }
            Request::Chunk { id } => match self.held(id) {
                Some(reader) => {
                    let p = reader.feed(tail);
                    (id, Answer::Progress { bytes: p.bytes, lines: p.lines, events: p.events, stopped: p.stopped.map(|e| e.to_string()) })
                }
                None => (id, not_held()),
            },
            Request::Finish { id, tree } => match self.reading.take() {
                Some((held, name, reader)) if held == id => {
                    let trace = reader.finish();
                    let mut done = Finished { id, name, log_parents: trace.parents.len(), trace };
                    let page = done.page(tree.as_ref());
                    self.finished = Some(done);
                    (id, Answer::Done(Box::new(page)))
                }
                other => {
                    self.reading = other;
                    (id, not_held())
                }
            },
            Request::Classes { id, tree } => match self.finished.as_mut().filter(|f| f.id == id) {
                Some(done) => (id, Answer::Done(Box::new(done.page(Some(&tree))))),
                None => (id, not_held()),
            },
            Request::Timeline { id, window } => match self.finished.as_ref().filter(|f| f.id == id) {
                Some(done) => (id, Answer::Timeline(TimelinePart::of(&view::zoomed(&done.trace, window)))),
                None => (id, not_held()),
            },
            Request::Cancel { id } => {
                if self.reading.as_ref().is_some_and(|(held, ..)| *held == id) {
                    self.reading = None;
                }
                if self.finished.as_ref().is_some_and(|f| f.id == id) {
                    self.finished = None;
                }
                (id, Answer::Refused("cancelled".into()))
            }
        };
        protocol::encode_reply(&Reply { id, answer })
    }

    fn held(&mut self, id: u64) -> Option<&mut TraceReader> {
        self.reading.as_mut().filter(|(held, ..)| *held == id).map(|(_, _, r)| r)
    }
}

fn not_held() -> Answer {
    Answer::Refused("the engine worker no longer holds this log".into())
}
