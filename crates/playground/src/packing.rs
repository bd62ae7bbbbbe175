//! Share links and autosave entries asked of the engine worker (`worker::pack_wire`), and what
//! each answer is for: the share strip under the top bar, the trace lab's Copy link, the
//! autosave. The worker deflates; the page only asks, waits and shows (`blast-web` copies a
//! made link to the clipboard, `take_clip`, and stores a made entry, `take_entry`).
//!
//! One of each is awaited at a time: a newer ask replaces an older one, whose late answer is
//! dropped, so an older session is never written over a newer one and a closed strip does not
//! reopen with a stale link.

use std::fmt;

use crate::share::LinkSource;
use crate::storage::{SaveError, Saved};
use crate::trace_lab::LinkNote;
use crate::worker::offload::Posting;
use crate::worker::pack_wire::{self, PackJob, Packed};
use crate::worker::wire::Unanswered;

#[derive(Clone, Debug, PartialEq)]
pub enum PackAction {
    /// The top bar's Copy share link: the link of what is on screen (`AppState::share_source`).
    Share(LinkSource),
    /// The trace lab's Copy link: the log's link (or why the page cannot give its text), else
    /// the derived scenario's (its text), said beside why.
    TraceLink { log: Result<LinkSource, NoLogText>, scenario: Option<String> },
    /// Save this session (`AppState::saved`).
    Save(Box<Saved>),
    /// The engine worker's answer to job `id`.
    Answered { id: u64, answer: Box<Result<Packed, Unanswered>> },
    /// The clipboard's answer for the strip's link `fragment`.
    Copied { fragment: String, copied: bool },
    /// Close the share strip (what it would show is not what is on screen any more).
    CloseStrip,
}

/// Why the page cannot give a log's text for its link.
#[derive(Clone, Debug, PartialEq)]
pub enum NoLogText {
    /// The log's text could not be read back from its file (the browser's words).
    Unreadable(String),
    /// Longer than any link carries (`share::MAX_LINK_TEXT`), in bytes.
    TooLong(u64),
    /// The log's bytes are no longer on the page.
    Gone,
}

impl fmt::Display for NoLogText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoLogText::Unreadable(why) => f.write_str(why),
            NoLogText::TooLong(bytes) => write!(f, "it is {} MB, and a link carries at most {} MB", bytes / 1_000_000, crate::share::MAX_LINK_TEXT / 1_000_000),
            NoLogText::Gone => f.write_str("its bytes are no longer on the page"),
        }
    }
}

/// What the share strip under the top bar shows.
#[derive(Clone, Debug, PartialEq)]
pub enum ShareStrip {
    /// The engine worker is making the link.
    Making,
    /// The link's fragment (without `#`), and whether the clipboard took it (`None`: copying).
    Link { fragment: String, copied: Option<bool> },
    /// No link was made: why (the strip offers the scenario file instead).
    Refused(String),
}

/// A made link for the shell to copy to the clipboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub fragment: String,
    /// The share strip's (`PackAction::Copied` answers) or the trace lab's
    /// (`TraceAction::Linked` answers).
    pub for_strip: bool,
}

/// A made entry for the shell to store, or why there is none (the stored entry is then older
/// than the screen: `text_bytes` is the text that could not be kept).
#[derive(Clone, Debug, PartialEq)]
pub struct ToStore {
    pub entry: Result<String, NotSaved>,
    pub text_bytes: usize,
}

/// Why a session was not saved.
#[derive(Clone, Debug, PartialEq)]
pub enum NotSaved {
    Refused(SaveError),
    Unanswered(Unanswered),
}

impl fmt::Display for NotSaved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotSaved::Refused(e) => e.fmt(f),
            NotSaved::Unanswered(e) => e.fmt(f),
        }
    }
}

/// A trace link being made: its job, and why the log has no link of its own (`None`: the
/// log's link is the job's first).
#[derive(Debug, Default)]
struct TraceAsk {
    job: u64,
    log_refused: Option<String>,
    with_scenario: bool,
}

#[derive(Debug, Default)]
pub struct Packing {
    /// The last job's id (ids start at 1; the worker answers a job it cannot read under 0).
    last: u64,
    outbox: Vec<Posting>,
    /// The share strip's link being made.
    share: Option<u64>,
    trace: Option<TraceAsk>,
    /// The session being saved: its job and its text's length.
    save: Option<(u64, usize)>,
    pub strip: Option<ShareStrip>,
    clip: Option<Clip>,
    to_store: Option<ToStore>,
}

impl Packing {
    /// Applies `action`; what the trace lab's link strip should now say, if anything.
    pub fn reduce(&mut self, action: PackAction) -> Option<LinkNote> {
        match action {
            PackAction::Share(source) => {
                self.share = Some(self.ask(PackJob::Links(vec![source])));
                self.strip = Some(ShareStrip::Making);
                None
            }
            PackAction::TraceLink { log, scenario } => {
                let log_refused = log.as_ref().err().map(NoLogText::to_string);
                let with_scenario = scenario.is_some();
                let scenario = scenario.map(|text| LinkSource::Scenario { text, policies: Vec::new(), view: Default::default() });
                let sources: Vec<LinkSource> = log.ok().into_iter().chain(scenario).collect();
                if sources.is_empty() {
                    self.trace = None;
                    return log_refused.map(|why| no_link(&why, None));
                }
                let job = self.ask(PackJob::Links(sources));
                self.trace = Some(TraceAsk { job, log_refused, with_scenario });
                None
            }
            PackAction::Save(saved) => {
                let text_bytes = saved.scenario_text.len();
                self.save = Some((self.ask(PackJob::Autosave(saved)), text_bytes));
                None
            }
            PackAction::Answered { id, answer } => self.answered(id, *answer),
            PackAction::Copied { fragment, copied } => {
                if let Some(ShareStrip::Link { fragment: shown, copied: note }) = &mut self.strip {
                    if *shown == fragment {
                        *note = Some(copied);
                    }
                }
                None
            }
            PackAction::CloseStrip => {
                (self.strip, self.share) = (None, None);
                None
            }
        }
    }

    fn ask(&mut self, job: PackJob) -> u64 {
        self.last += 1;
        self.outbox.push(Posting { id: self.last, bytes: pack_wire::encode_job(self.last, &job) });
        self.last
    }

    fn answered(&mut self, id: u64, answer: Result<Packed, Unanswered>) -> Option<LinkNote> {
        if self.share == Some(id) {
            self.share = None;
            self.strip = Some(match answer {
                Ok(Packed::Links(links)) => match links.into_iter().last() {
                    Some(Ok(fragment)) => {
                        self.clip = Some(Clip { fragment: fragment.clone(), for_strip: true });
                        ShareStrip::Link { fragment, copied: None }
                    }
                    Some(Err(too_big)) => ShareStrip::Refused(too_big.to_string()),
                    None => ShareStrip::Refused("No share link was made: the engine worker could not read the request.".into()),
                },
                Ok(Packed::Autosave(_)) => ShareStrip::Refused("No share link was made: the engine worker answered with something else.".into()),
                Err(why) => ShareStrip::Refused(format!("No share link was made: {why}.")),
            });
            return None;
        }
        if self.trace.as_ref().is_some_and(|t| t.job == id) {
            let ask = self.trace.take().unwrap_or_default();
            let links = match answer {
                Ok(Packed::Links(links)) => links,
                Ok(Packed::Autosave(_)) => {
                    return Some(LinkNote::NoLink { why: "No link was made: the engine worker answered with something else.".into(), scenario_link: None })
                }
                Err(why) => return Some(LinkNote::NoLink { why: format!("No link was made: {why}."), scenario_link: None }),
            };
            let mut links = links.into_iter();
            let why = match ask.log_refused {
                Some(why) => why,
                None => match links.next() {
                    Some(Ok(fragment)) => {
                        self.clip = Some(Clip { fragment, for_strip: false });
                        return None;
                    }
                    Some(Err(too_big)) => log_too_big(&too_big),
                    None => "the engine worker could not read the request".into(),
                },
            };
            let scenario_link = links.next().filter(|_| ask.with_scenario).and_then(Result::ok);
            return Some(no_link(&why, scenario_link));
        }
        if let Some((job, text_bytes)) = self.save {
            if job == id {
                self.save = None;
                let entry = match answer {
                    Ok(Packed::Autosave(entry)) => entry.map_err(NotSaved::Refused),
                    Ok(Packed::Links(_)) => {
                        Err(NotSaved::Unanswered(Unanswered::Unreadable(crate::worker::wire::DecodeError { at: 0, why: "links, not an entry" })))
                    }
                    Err(why) => Err(NotSaved::Unanswered(why)),
                };
                self.to_store = Some(ToStore { entry, text_bytes });
            }
        }
        None
    }

    /// The jobs for the engine worker, to post now.
    pub fn take_jobs(&mut self) -> Vec<Posting> {
        std::mem::take(&mut self.outbox)
    }

    /// A made link to copy to the clipboard.
    pub fn take_clip(&mut self) -> Option<Clip> {
        self.clip.take()
    }

    /// A made autosave entry to store (or why there is none).
    pub fn take_entry(&mut self) -> Option<ToStore> {
        self.to_store.take()
    }
}

/// What the trace lab says when the log has no link: why, and the derived scenario's link.
fn no_link(why: &str, scenario_link: Option<String>) -> LinkNote {
    LinkNote::NoLink { why: format!("This log is too big for a share link: {why}."), scenario_link }
}

/// Why a log's link cannot be made, in the trace lab's words (a scenario's are
/// `TooBigForLink`'s own).
fn log_too_big(e: &crate::share::TooBigForLink) -> String {
    use crate::share::{MAX_FRAGMENT, MAX_LINK_TEXT};
    match e.fragment {
        Some(n) => format!("its link would be {} KB, and a link opens only up to {} KB", n.div_ceil(1024), MAX_FRAGMENT / 1024),
        None => format!("it is {} MB, and a link carries at most {} MB", e.text / 1_000_000, MAX_LINK_TEXT / 1_000_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chrome::Theme;
    use crate::playback::Speed;
    use crate::share::{self, LinkView, MAX_LINK_TEXT};
    use crate::storage;
    use blast_engine::Policy;

    /// Every job taken answered by the worker's own code, in order.
    fn answer_all(p: &mut Packing) -> Vec<Option<LinkNote>> {
        let jobs = p.take_jobs();
        jobs.into_iter()
            .map(|job| {
                let (id, packed) = pack_wire::decode_reply(&pack_wire::answer(&job.bytes)).expect("a reply");
                assert_eq!(id, job.id);
                p.reduce(PackAction::Answered { id, answer: Box::new(Ok(packed)) })
            })
            .collect()
    }

    fn scenario(text: &str) -> LinkSource {
        LinkSource::Scenario { text: text.into(), policies: vec![Policy::Global], view: LinkView::default() }
    }

    #[test]
    fn a_share_link_is_made_shown_and_copied_and_a_closed_strip_stays_closed() {
        let mut p = Packing::default();
        p.reduce(PackAction::Share(scenario("class A { m }")));
        assert_eq!(p.strip, Some(ShareStrip::Making));
        answer_all(&mut p);
        let made = share::encode("class A { m }", &[Policy::Global], &LinkView::default()).unwrap();
        assert_eq!(p.strip, Some(ShareStrip::Link { fragment: made.clone(), copied: None }));
        assert_eq!(p.take_clip(), Some(Clip { fragment: made.clone(), for_strip: true }));
        assert_eq!(p.take_clip(), None, "copied once");
        p.reduce(PackAction::Copied { fragment: "s=2.other".into(), copied: true });
        assert_eq!(p.strip, Some(ShareStrip::Link { fragment: made.clone(), copied: None }), "another link's copy says nothing of this one");
        p.reduce(PackAction::Copied { fragment: made.clone(), copied: false });
        assert_eq!(p.strip, Some(ShareStrip::Link { fragment: made, copied: Some(false) }));
        // Closed while its link is being made: the late answer does not reopen it.
        p.reduce(PackAction::Share(scenario("class B { m }")));
        p.reduce(PackAction::CloseStrip);
        answer_all(&mut p);
        assert_eq!((p.strip.clone(), p.take_clip()), (None, None));
        // Too big, or no worker: why, in the strip.
        p.reduce(PackAction::Share(scenario(&"#".repeat(MAX_LINK_TEXT + 1))));
        answer_all(&mut p);
        assert!(matches!(&p.strip, Some(ShareStrip::Refused(why)) if why.contains("too big for a share link")), "{:?}", p.strip);
        p.reduce(PackAction::Share(scenario("class A { m }")));
        let id = p.take_jobs()[0].id;
        p.reduce(PackAction::Answered { id, answer: Box::new(Err(Unanswered::NoWorker)) });
        assert!(matches!(&p.strip, Some(ShareStrip::Refused(why)) if why == "No share link was made: the engine worker did not start."), "{:?}", p.strip);
    }

    #[test]
    fn a_trace_link_is_the_log_s_else_why_not_and_the_derived_scenario_s() {
        let mut p = Packing::default();
        let log = |text: String| LinkSource::Trace { name: "x.log".into(), log: text, tree: None };
        p.reduce(PackAction::TraceLink { log: Ok(log("code-creation,1".into())), scenario: Some("class A { m }".into()) });
        assert_eq!(answer_all(&mut p), vec![None]);
        let clip = p.take_clip().expect("the log's link to copy");
        assert!(!clip.for_strip && clip.fragment.starts_with("t=1."), "{clip:?}");
        // Too big: why, and the scenario's link.
        p.reduce(PackAction::TraceLink { log: Ok(log("x".repeat(MAX_LINK_TEXT + 1))), scenario: Some("class A { m }".into()) });
        let notes = answer_all(&mut p);
        let Some(LinkNote::NoLink { why, scenario_link }) = &notes[0] else { panic!("{notes:?}") };
        assert_eq!(why, &format!("This log is too big for a share link: it is 8 MB, and a link carries at most {} MB.", MAX_LINK_TEXT / 1_000_000));
        assert!(scenario_link.as_ref().is_some_and(|f| f.starts_with("s=2.")) && p.take_clip().is_none());
        // The page could not give the log's text: its why, and the scenario's link.
        p.reduce(PackAction::TraceLink { log: Err(NoLogText::Gone), scenario: Some("class A { m }".into()) });
        let notes = answer_all(&mut p);
        assert!(matches!(&notes[0], Some(LinkNote::NoLink { why, scenario_link: Some(_) }) if why.contains("no longer on the page")), "{notes:?}");
        // Nothing to ask: said at once.
        let note = p.reduce(PackAction::TraceLink { log: Err(NoLogText::TooLong(9_000_000)), scenario: None });
        assert_eq!(
            note,
            Some(LinkNote::NoLink { why: "This log is too big for a share link: it is 9 MB, and a link carries at most 8 MB.".into(), scenario_link: None })
        );
        assert!(p.take_jobs().is_empty());
    }

    #[test]
    fn only_the_newest_save_is_stored_and_a_refused_one_says_why() {
        let mut p = Packing::default();
        let saved = |text: &str| Box::new(Saved::new(text.into(), vec![Policy::Exact], Speed::Max, Theme::Light, None));
        p.reduce(PackAction::Save(saved("class Old { m }")));
        p.reduce(PackAction::Save(saved("class New { m }")));
        answer_all(&mut p);
        let stored = p.take_entry().expect("an entry");
        assert_eq!(stored.entry.map(|e| storage::decode(&e).map(|s| s.scenario_text)), Ok(Ok("class New { m }".to_string())));
        assert_eq!(p.take_entry(), None, "the older save's answer is dropped");
        p.reduce(PackAction::Save(saved("class A { m }")));
        let id = p.take_jobs()[0].id;
        p.reduce(PackAction::Answered { id, answer: Box::new(Err(Unanswered::WorkerLost { started: true, why: "gone".into() })) });
        let stored = p.take_entry().expect("why");
        assert_eq!((stored.entry.unwrap_err().to_string(), stored.text_bytes), ("the engine worker stopped (gone)".into(), 13));
    }
}
