//! The trace lab: a real runtime log (V8, HotSpot, Groovy 2.4) opened in the page. The engine
//! worker reads it a chunk at a time ([`host`], through [`protocol`]) while the page shows the
//! progress, with Cancel; the worker builds one bounded [`view::TraceView`] (fan-out per
//! mutation, attribution, replay, timeline) and sends the page its parts as markup and its
//! files ([`page::TracePage`]).
//!
//! [`TraceLab`] is the page's side: which reading is on, what has been sent and acknowledged,
//! and the messages to post next ([`Outgoing`]). One message is in flight at a time: each
//! answer (the reader's progress) releases the next chunk, so the page holds one chunk of the
//! log at most and a cancel stops the feeding at once. The log's bytes are the shell's (a
//! file, a fetched sample or a pasted text): a chunk is named by its byte range. A class tree
//! (`NAME.classes`) given with the log or while it is read goes with Finish; one given once the
//! trace is on screen is sent on its own, and the worker answers the trace replayed with it.

pub mod export;
pub mod host;
pub mod markup;
pub mod page;
pub mod protocol;
pub mod samples;
pub mod sites;
pub mod view;

use std::rc::Rc;

use blast_engine::trace::{detect, LogFormat};

use page::{TracePage, Zoom};
use protocol::{Answer, ClassTree, Reply, Request};

#[derive(Clone, Debug, PartialEq)]
pub enum TraceAction {
    /// Read a log of `size` bytes (its bytes come from the shell, by range).
    Open { name: String, size: u64 },
    /// Read a log held as text (a paste, a link): the lab holds it, for chunks and for a link;
    /// with the class tree a link carries beside it.
    OpenText { name: String, text: String, tree: Option<ClassTree> },
    /// A class tree (`NAME.classes`) for the log being read or on screen.
    Classes(ClassTree),
    /// What Copy link made: the link, or why the log is too big for one.
    Linked(Option<LinkNote>),
    /// Stop reading: the worker drops the reader.
    Cancel,
    /// The worker's answer.
    Answer(Reply),
    /// The worker stopped (or never started) while a log was being read.
    Lost(String),
    /// Zoom the timeline of the trace on screen (the worker rebins it).
    Zoom(Zoom),
    /// Select a site (or unit) of the trace on screen, for the why panel (`None`: none).
    Select(Option<String>),
    /// Close the trace on screen.
    Close,
}

/// What the shell posts to the engine worker, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outgoing {
    /// A message as is.
    Message(Vec<u8>),
    /// Bytes `start..end` of reading `id`'s log, as a chunk message (`protocol::chunk`).
    Chunk { id: u64, start: u64, end: u64 },
}

/// The trace lab's share strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkNote {
    /// A link carrying the whole log, and whether the clipboard took it.
    Copied { url: String, copied: bool },
    /// No link carries this log: why, and the derived scenario's link (its fragment, without
    /// `#`) when there is one.
    NoLink { why: String, scenario_link: Option<String> },
}

/// A log being read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    pub id: u64,
    pub name: String,
    pub size: u64,
    /// Bytes handed to the worker so far.
    pub sent: u64,
    /// What the worker has read (its last progress).
    pub bytes: u64,
    pub lines: u64,
    pub events: u64,
    /// Finish was sent: the worker attributes and replays.
    pub finishing: bool,
}

#[derive(Default)]
pub struct TraceLab {
    pub reading: Option<Reading>,
    pub shown: Option<Rc<TracePage>>,
    /// Why the last log was refused or lost.
    pub error: Option<String>,
    pub link: Option<LinkNote>,
    /// The timeline's window asked for last (`None`: the whole trace), in the trace's units.
    pub window: Option<(u64, u64)>,
    /// The site (or unit) of the trace on screen the why panel explains.
    pub selected: Option<String>,
    /// The log on screen or being read, when it came as text.
    text: Option<Rc<str>>,
    /// The reading id of the trace on screen (0: none), whose replay a class tree redoes.
    shown_id: u64,
    /// The class tree given for the log being read or on screen, and whether it was sent.
    tree: Option<ClassTree>,
    tree_sent: bool,
    last_id: u64,
    outbox: Vec<Outgoing>,
}

impl TraceLab {
    pub fn reduce(&mut self, action: TraceAction) {
        match action {
            TraceAction::Open { name, size } => self.open(name, size, None),
            TraceAction::OpenText { name, text, tree } => {
                let size = text.len() as u64;
                self.open(name, size, Some(Rc::from(text)));
                self.tree = tree;
            }
            TraceAction::Classes(tree) => self.classes(tree),
            TraceAction::Linked(note) => self.link = note,
            TraceAction::Cancel => self.cancel(),
            TraceAction::Answer(reply) => self.answer(reply),
            TraceAction::Zoom(z) => {
                if let (Some(shown), None) = (&self.shown, &self.reading) {
                    self.window = shown.timeline.zoom(z);
                    self.post(&Request::Timeline { id: self.shown_id, window: self.window });
                }
            }
            TraceAction::Select(site) => self.selected = site.filter(|s| self.shown.as_ref().is_some_and(|v| v.sites.find(s).is_some())),
            TraceAction::Lost(why) => {
                if let Some(r) = self.reading.take() {
                    self.error = Some(format!("{} was not read: {why}", r.name));
                }
            }
            TraceAction::Close => {
                self.cancel();
                if self.shown_id != 0 {
                    self.post(&Request::Cancel { id: self.shown_id });
                }
                self.shown_id = 0;
                self.tree = None;
                self.shown = None;
                self.error = None;
                self.link = None;
                self.text = None;
                self.window = None;
                self.selected = None;
            }
        }
    }

    /// The log as text, when it came as text (a link carries it whole).
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The class tree given with the log on screen or being read (a link carries it too).
    pub fn tree(&self) -> Option<&ClassTree> {
        self.tree.as_ref()
    }

    fn open(&mut self, name: String, size: u64, text: Option<Rc<str>>) {
        self.cancel();
        self.text = text;
        self.link = None;
        self.window = None;
        self.selected = None;
        self.tree = None;
        self.tree_sent = false;
        self.last_id += 1;
        let id = self.last_id;
        self.error = None;
        self.post(&Request::Open { id, name: name.clone(), size });
        self.reading = Some(Reading { id, name, size, sent: 0, bytes: 0, lines: 0, events: 0, finishing: false });
    }

    /// A class tree: held for Finish while the log is read, sent at once for the trace on
    /// screen.
    fn classes(&mut self, tree: ClassTree) {
        if self.reading.is_some() {
            self.tree = Some(tree);
            self.tree_sent = false;
        } else if self.shown.is_some() {
            self.error = None;
            self.post(&Request::Classes { id: self.shown_id, tree: tree.clone() });
            (self.tree, self.tree_sent) = (Some(tree), true);
        } else {
            self.error = Some(format!("{} is a class tree: it goes with its log (open the log, then the tree, or drop both at once)", tree.name));
        }
    }

    fn post(&mut self, r: &Request) {
        self.outbox.push(Outgoing::Message(protocol::encode_request(r)));
    }

    fn cancel(&mut self) {
        if let Some(r) = self.reading.take() {
            self.post(&Request::Cancel { id: r.id });
        }
    }

    fn answer(&mut self, Reply { id, answer }: Reply) {
        // An answer about a reading cancelled or replaced since is dropped (and the reading on
        // stays); one about the trace on screen is its replay with a class tree.
        if self.reading.is_none() && id == self.shown_id && id != 0 {
            match answer {
                Answer::Done(view) => {
                    self.shown = Some(Rc::new(*view));
                    self.window = None;
                }
                Answer::Timeline(part) => {
                    if let Some(shown) = &mut self.shown {
                        Rc::make_mut(shown).timeline = part;
                    }
                }
                Answer::Refused(why) => self.error = Some(format!("The view was not redone: {why}")),
                Answer::Progress { .. } => {}
            }
            return;
        }
        if self.reading.as_ref().is_none_or(|r| r.id != id) {
            return;
        }
        let Some(mut r) = self.reading.take() else { return };
        match answer {
            Answer::Progress { bytes, lines, events, stopped } => {
                (r.bytes, r.lines, r.events) = (bytes, lines, events);
                if r.sent < r.size && stopped.is_none() {
                    let end = (r.sent + protocol::CHUNK_BYTES).min(r.size);
                    self.outbox.push(match &self.text {
                        Some(text) => Outgoing::Message(protocol::chunk(id, &text.as_bytes()[r.sent as usize..end as usize])),
                        None => Outgoing::Chunk { id, start: r.sent, end },
                    });
                    r.sent = end;
                } else if !r.finishing {
                    r.finishing = true;
                    self.tree_sent = self.tree.is_some();
                    self.post(&Request::Finish { id, tree: self.tree.clone() });
                }
                self.reading = Some(r);
            }
            Answer::Refused(why) => self.error = Some(format!("{} was not read: {why}", r.name)),
            Answer::Timeline(_) => self.reading = Some(r),
            Answer::Done(view) => {
                self.shown = Some(Rc::new(*view));
                self.shown_id = id;
                // A tree given after Finish went out: replay again with it.
                if let (Some(tree), false) = (&self.tree, self.tree_sent) {
                    self.tree_sent = true;
                    self.post(&Request::Classes { id, tree: tree.clone() });
                }
            }
        }
    }

    /// The messages to post now, in order (the shell posts them after each render).
    pub fn take_outgoing(&mut self) -> Vec<Outgoing> {
        std::mem::take(&mut self.outbox)
    }
}

/// Bytes of a text's start [`sniff`] reads.
pub const SNIFF_BYTES: usize = 4096;

/// The log format a text's start says it is in (its first line that is neither blank nor a `# `
/// header, as the engine's reader detects it), `None` for anything else (a scenario).
pub fn sniff(head: &[u8]) -> Option<LogFormat> {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    let text = String::from_utf8_lossy(head);
    let line = text.lines().map(|l| l.trim_end_matches('\r')).find(|l| !l.trim().is_empty() && !l.starts_with("# "))?;
    detect(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's turn, as `lane_host::Host` takes it.
    fn worker(host: &mut host::TraceHost, lab: &mut TraceLab, log: &[u8]) -> usize {
        let mut messages = 0;
        loop {
            let out = lab.take_outgoing();
            if out.is_empty() {
                return messages;
            }
            for o in out {
                let bytes = match o {
                    Outgoing::Message(b) => b,
                    Outgoing::Chunk { id, start, end } => protocol::chunk(id, &log[start as usize..end as usize]),
                };
                messages += 1;
                lab.reduce(TraceAction::Answer(protocol::decode_reply(&host.answer(&bytes)).unwrap()));
            }
        }
    }

    fn committed(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../../probes/traces/logs/{name}.log", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    /// A committed sample opened and read to its view: the worker that read it, the page, the
    /// log, and the messages the reading took.
    fn opened(name: &str) -> (host::TraceHost, TraceLab, Vec<u8>, usize) {
        let log = committed(name);
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::Open { name: format!("{name}.log"), size: log.len() as u64 });
        let messages = worker(&mut host, &mut lab, &log);
        (host, lab, log, messages)
    }

    fn committed_tree(name: &str) -> protocol::ClassTree {
        let text = std::fs::read_to_string(format!("{}/../../probes/traces/logs/{name}.classes", env!("CARGO_MANIFEST_DIR"))).unwrap();
        protocol::ClassTree { name: format!("{name}.classes"), text }
    }

    /// The page the worker answers for a committed sample read whole with its class tree.
    fn whole_with_tree(name: &str) -> TracePage {
        TracePage::of(&view::TraceView::of(&format!("{name}.log"), &view::tests::sample(name)))
    }

    #[test]
    fn a_class_tree_given_while_the_log_is_read_goes_with_finish() {
        let log = committed("hotspot-cha-break");
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::Open { name: "hotspot-cha-break.log".into(), size: log.len() as u64 });
        lab.reduce(TraceAction::Classes(committed_tree("hotspot-cha-break")));
        let messages = worker(&mut host, &mut lab, &log);
        // Open, the chunks, Finish (with the tree): no second replay.
        assert_eq!(messages, log.len().div_ceil(protocol::CHUNK_BYTES as usize) + 2);
        let shown = lab.shown.as_deref().unwrap();
        assert!(shown.replay.is_ok(), "{:?}", shown.replay);
        assert!(*shown == whole_with_tree("hotspot-cha-break"));
    }

    #[test]
    fn a_class_tree_given_after_finish_went_out_is_sent_when_the_trace_arrives() {
        let log = committed("hotspot-plugin-registry");
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::Open { name: "hotspot-plugin-registry.log".into(), size: log.len() as u64 });
        let mut tree = Some(committed_tree("hotspot-plugin-registry"));
        let (mut classes_sent, mut queue) = (0, std::collections::VecDeque::new());
        loop {
            queue.extend(lab.take_outgoing());
            let Some(o) = queue.pop_front() else { break };
            let bytes = match o {
                Outgoing::Message(b) => b,
                Outgoing::Chunk { id, start, end } => protocol::chunk(id, &log[start as usize..end as usize]),
            };
            match protocol::decode_request(&bytes).unwrap().0 {
                // Finish is on its way without a tree: the tree comes now.
                Request::Finish { tree: None, .. } => lab.reduce(TraceAction::Classes(tree.take().unwrap())),
                Request::Classes { .. } => classes_sent += 1,
                _ => {}
            }
            lab.reduce(TraceAction::Answer(protocol::decode_reply(&host.answer(&bytes)).unwrap()));
        }
        assert_eq!(classes_sent, 1);
        assert!(*lab.shown.as_deref().unwrap() == whole_with_tree("hotspot-plugin-registry"));
    }

    #[test]
    fn a_class_tree_given_after_the_trace_is_shown_replays_it_again() {
        let (mut host, mut lab, log, _) = opened("hotspot-cha-break");
        let without = lab.shown.clone().unwrap();
        let why = without.replay.as_ref().unwrap_err();
        assert!(why.contains("hotspot-cha-break.classes") && why.contains("docs/TRACES.md"), "{why}");
        lab.reduce(TraceAction::Classes(committed_tree("hotspot-cha-break")));
        assert_eq!(worker(&mut host, &mut lab, &log), 1);
        assert!(*lab.shown.as_deref().unwrap() == whole_with_tree("hotspot-cha-break"));
        // A tree that does not parse: the trace stays, its replay says which file and why.
        lab.reduce(TraceAction::Classes(protocol::ClassTree { name: "bad.classes".into(), text: "klass X\n".into() }));
        worker(&mut host, &mut lab, &log);
        let why = lab.shown.as_ref().unwrap().replay.clone().unwrap_err();
        assert!(why.starts_with("bad.classes is not a class tree (class tree line 1"), "{why}");
        // Closed: the worker drops the trace, and a tree has nothing to go with.
        lab.reduce(TraceAction::Close);
        worker(&mut host, &mut lab, &log);
        lab.reduce(TraceAction::Classes(committed_tree("hotspot-cha-break")));
        assert!(lab.take_outgoing().is_empty());
        assert!(lab.error.as_deref().is_some_and(|e| e.starts_with("hotspot-cha-break.classes is a class tree")), "{:?}", lab.error);
    }

    #[test]
    fn a_log_is_read_a_chunk_per_answer_and_shown_whole() {
        let (_, lab, log, messages) = opened("v8-proto-write");
        let chunks = log.len().div_ceil(protocol::CHUNK_BYTES as usize);
        // Open, the chunks, Finish.
        assert_eq!(messages, chunks + 2);
        assert!(lab.reading.is_none());
        let v = lab.shown.as_ref().expect("a view");
        let whole = view::TraceView::of("v8-proto-write.log", &blast_engine::trace::read(&log, Default::default(), None));
        assert!(**v == TracePage::of(&whole), "the trace read in chunks differs from the one read whole");
    }

    #[test]
    fn a_site_of_the_trace_on_screen_is_selected_and_a_closed_trace_selects_none() {
        let mut empty = TraceLab::default();
        empty.reduce(TraceAction::Select(Some("x.js:1:1".into())));
        assert_eq!(empty.selected, None, "no trace: nothing to select");
        let (_, mut lab, ..) = opened("v8-proto-write");
        let first = lab.shown.as_ref().unwrap().sites.sites[0].name.clone();
        lab.reduce(TraceAction::Select(Some(first.clone())));
        assert_eq!(lab.selected.as_deref(), Some(first.as_str()));
        lab.reduce(TraceAction::Select(Some("not a site of this trace".into())));
        assert_eq!(lab.selected, None);
        lab.reduce(TraceAction::Select(Some(first)));
        lab.reduce(TraceAction::Close);
        assert_eq!(lab.selected, None);
    }

    #[test]
    fn a_cancel_stops_the_feeding_and_drops_the_reader() {
        let log = committed("groovy-plugin-registry");
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::Open { name: "g.log".into(), size: log.len() as u64 });
        // Open's answer releases the first chunk; cancel before it is answered.
        let open = lab.take_outgoing();
        let Outgoing::Message(b) = &open[0] else { panic!() };
        lab.reduce(TraceAction::Answer(protocol::decode_reply(&host.answer(b)).unwrap()));
        let first = lab.take_outgoing();
        assert!(matches!(first[..], [Outgoing::Chunk { start: 0, .. }]));
        lab.reduce(TraceAction::Cancel);
        assert!(lab.reading.is_none());
        let Outgoing::Chunk { id, start, end } = first[0] else { panic!() };
        let late = host.answer(&protocol::chunk(id, &log[start as usize..end as usize]));
        lab.reduce(TraceAction::Answer(protocol::decode_reply(&late).unwrap()));
        // The cancel is posted, and nothing more: the late answer releases no chunk.
        let after = lab.take_outgoing();
        assert_eq!(after.len(), 1);
        let Outgoing::Message(cancel) = &after[0] else { panic!() };
        // Answered (one answer per message), and dropped by the page: no reading is on.
        lab.reduce(TraceAction::Answer(protocol::decode_reply(&host.answer(cancel)).unwrap()));
        assert!(lab.take_outgoing().is_empty() && lab.error.is_none());
        // The worker no longer holds the reader.
        let refused = protocol::decode_reply(&host.answer(&protocol::encode_request(&Request::Finish { id, tree: None }))).unwrap();
        assert!(matches!(refused.answer, Answer::Refused(_)), "{refused:?}");
    }

    #[test]
    fn a_late_answer_about_a_replaced_reading_leaves_the_new_one_going() {
        let log = committed("groovy-unrelated-churn");
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        let size = log.len() as u64;
        lab.reduce(TraceAction::Open { name: "first.log".into(), size });
        lab.reduce(TraceAction::Open { name: "second.log".into(), size });
        // Open 1, Cancel 1, Open 2 are posted together; the answers to the first two are stale.
        worker(&mut host, &mut lab, &log);
        assert!(lab.reading.is_none() && lab.error.is_none());
        assert_eq!(lab.shown.as_ref().map(|p| p.name.as_str()), Some("second.log"));
    }

    #[test]
    fn a_log_held_as_text_is_chunked_by_the_lab_and_kept_for_a_link() {
        let log = String::from_utf8(committed("hotspot-cha-break")).unwrap();
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::OpenText { name: "pasted".into(), text: log.clone(), tree: None });
        worker(&mut host, &mut lab, &[]);
        assert!(lab.shown.as_ref().is_some_and(|p| p.fan_out.contains("ChaBreak$Circle")));
        assert_eq!(lab.text(), Some(log.as_str()));
        lab.reduce(TraceAction::Close);
        assert_eq!(lab.text(), None);
    }

    #[test]
    fn a_log_over_the_cap_is_refused_before_a_byte_is_sent() {
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        let cap = blast_engine::trace::Limits::default().max_bytes;
        lab.reduce(TraceAction::Open { name: "huge.log".into(), size: cap + 1 });
        let messages = worker(&mut host, &mut lab, &[]);
        assert_eq!(messages, 1);
        assert!(lab.reading.is_none() && lab.shown.is_none());
        let e = lab.error.as_deref().unwrap();
        assert!(e.starts_with("huge.log was not read:") && e.contains("nothing was read"), "{e}");
    }

    #[test]
    fn a_malformed_log_says_how_many_lines_were_not_understood_and_where() {
        let log = b"v8-version,11,3,244,8,,0\nthis is not v8\ncode-creation,JS\nmore noise\n".to_vec();
        let (mut host, mut lab) = (host::TraceHost::default(), TraceLab::default());
        lab.reduce(TraceAction::Open { name: "bad.log".into(), size: log.len() as u64 });
        worker(&mut host, &mut lab, &log);
        let summary = &lab.shown.as_ref().unwrap().summary;
        assert!(summary.contains("3 lines not understood</strong>, first at 2"), "{summary}");
        assert!(summary.contains("<code>this is not v8</code>"), "{summary}");
    }

    #[test]
    fn logs_are_told_from_scenarios_by_their_first_line() {
        for (name, format) in [("v8-proto-write", LogFormat::V8), ("hotspot-cha-break", LogFormat::HotSpot), ("groovy-same-class-churn", LogFormat::Groovy)] {
            assert_eq!(sniff(&committed(name)), Some(format), "{name}");
        }
        assert_eq!(sniff(b"# captured by hand\n\nv8-version,11\n"), Some(LogFormat::V8));
        for p in blast_engine::presets::all() {
            assert_eq!(sniff(p.text.as_bytes()), None, "{}", p.id);
        }
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn zooming_the_timeline_in_then_back_to_the_whole_trace_gives_the_original_markup() {
        let (mut host, mut lab, log, _) = opened("v8-proto-write");
        let whole = lab.shown.as_deref().unwrap().timeline.clone();
        assert!(!whole.zoomed());
        lab.reduce(TraceAction::Zoom(Zoom::In));
        assert_eq!(worker(&mut host, &mut lab, &log), 1);
        let zoomed = lab.shown.as_deref().unwrap().timeline.clone();
        assert!(zoomed.zoomed() && Some(zoomed.window) == lab.window, "{zoomed:?}");
        let (lo, hi) = zoomed.window;
        assert!(lo <= whole.peak && whole.peak <= hi && (hi - lo) * 2 <= whole.whole.1 - whole.whole.0 + 1, "{zoomed:?} {whole:?}");
        assert_ne!(zoomed.markup, whole.markup);
        lab.reduce(TraceAction::Zoom(Zoom::Out));
        worker(&mut host, &mut lab, &log);
        assert_eq!(lab.shown.as_deref().unwrap().timeline, whole, "zooming out of a half-wide window shows all of it");
        lab.reduce(TraceAction::Zoom(Zoom::In));
        lab.reduce(TraceAction::Zoom(Zoom::Whole));
        worker(&mut host, &mut lab, &log);
        assert_eq!((lab.window, &lab.shown.as_deref().unwrap().timeline), (None, &whole));
    }
}
