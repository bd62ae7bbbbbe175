//! The engine worker's side of the trace lab: one [`TraceReader`] at a time, fed the chunks the
//! page posts, answered with its progress after each; a finished log is answered with its
//! [`TraceView`] (attribution and replay run here, never on the page).

use blast_engine::trace::{Limits, TraceReader};

use super::page::TracePage;
use super::protocol::{self, Answer, Reply, Request};
use super::view::TraceView;

#[derive(Default)]
pub struct TraceHost {
    /// The reading held: its id, name and reader.
    reading: Option<(u64, String, TraceReader)>,
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
            Request::Finish { id } => match self.reading.take() {
                Some((held, name, reader)) if held == id => (id, Answer::Done(Box::new(TracePage::of(&TraceView::of(&name, &reader.finish()))))),
                other => {
                    self.reading = other;
                    (id, not_held())
                }
            },
            Request::Cancel { id } => {
                if self.reading.as_ref().is_some_and(|(held, ..)| *held == id) {
                    self.reading = None;
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
