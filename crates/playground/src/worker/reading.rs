//! Texts the call-site session hands to the engine worker (`offload`), and what each answer
//! is for: the page side of the job protocol.
//!
//! Jobs wait in an outbox until the shell posts them (`take_jobs`); answers come back in the
//! order the jobs were posted, and an answer whose job is no longer awaited (a later edit
//! replaced its text) is dropped.

use std::collections::VecDeque;

use blast_engine::Policy;

use crate::editor::EditOp;
use crate::share::LinkView;
use crate::worker::offload::{self, Posting};
use crate::worker::wire::Reply;

/// A text handed to the engine worker, and what its answer is for.
pub struct Reading {
    job: u64,
    /// About how many sites it declares (`offload::site_count_hint`), for the loading note;
    /// `None` for a text shorter than [`LOADING_NOTE_BYTES`].
    sites: Option<usize>,
    /// The policies and loop mode its run check was made for.
    pub policies: Vec<Policy>,
    pub looping: bool,
    pub purpose: Purpose,
}

pub enum Purpose {
    /// Typed, pasted, undone or restored: the text is already on screen; the model follows it
    /// if it reads (as gallery entry `entry`: an autosave of an unedited preset).
    Edit { entry: Option<crate::gallery::Entry> },
    /// A gallery entry's text (a preset, a runtime's scenario, the default session's): on screen
    /// already; its scenario and lanes come with the answer, which plays them with `run`.
    Entry { entry: crate::gallery::Entry, run: bool },
    /// A share link or a file: it replaces the scenario only if it reads and runs.
    Open { text: String, policies: Vec<Policy>, view: LinkView, origin: String },
    /// The scenario on screen (revision `rev`), made on the page: the worker keeps it to run
    /// its lanes (`session::rebuild`); only a refusal matters.
    Hold { rev: u64 },
    /// A form edit of the text on screen, applied by the worker: the answer is the edited text
    /// and its scenario, or why the edit was refused. A newer text drops it ([`Readings::drop_edits`]).
    Form { op: EditOp },
}

/// A text at least this long shows the loading note while the worker reads it (and the page
/// defers the editor's parts, `app.rs`): a shorter one, a keystroke's, is read within a frame.
pub const LOADING_NOTE_BYTES: usize = 8 * 1024;

#[derive(Default)]
pub struct Readings {
    /// Texts being read off the main thread, oldest first.
    reading: VecDeque<Reading>,
    /// Jobs for the engine worker, not yet handed to it.
    outbox: Vec<Posting>,
    next_job: u64,
    /// Form edits made while one was being applied, oldest first: each goes to the worker with
    /// the text the one before it printed (sent at once, it would edit the older text, and its
    /// answer would undo the one before).
    waiting_forms: VecDeque<EditOp>,
}

impl Readings {
    /// Hand `text` to the engine worker, its run checked under `policies` (and loop mode).
    /// Its job's number.
    pub fn request(&mut self, text: &str, policies: Vec<Policy>, looping: bool, purpose: Purpose) -> u64 {
        let edit = match &purpose {
            Purpose::Form { op } => Some(op),
            _ => None,
        };
        let (id, sites) = self.post(text, &policies, looping, edit);
        self.reading.push_back(Reading { job: id, sites, policies, looping, purpose });
        id
    }

    /// A share link's or a file's text to read (`Purpose::Open`, with `open`'s policies, view
    /// and origin): the reading keeps the text itself, and the job is encoded from it rather
    /// than from a copy (38.6 MB for a 10^6-site file: a copy was ~60 ms of the import's task,
    /// `bash scripts/profile-open.sh`).
    pub fn request_open(&mut self, text: String, policies: Vec<Policy>, looping: bool, (open_policies, view, origin): (Vec<Policy>, LinkView, String)) -> u64 {
        let (id, sites) = self.post(&text, &policies, looping, None);
        let purpose = Purpose::Open { text, policies: open_policies, view, origin };
        self.reading.push_back(Reading { job: id, sites, policies, looping, purpose });
        id
    }

    /// A job for `text` in the outbox: its number, and the site count for the loading note.
    fn post(&mut self, text: &str, policies: &[Policy], looping: bool, edit: Option<&EditOp>) -> (u64, Option<usize>) {
        self.next_job += 1;
        let id = self.next_job;
        self.outbox.push(Posting { id, bytes: crate::worker::wire::encode_job(id, text, policies, looping, edit) });
        (id, (text.len() >= LOADING_NOTE_BYTES).then(|| offload::site_count_hint(text)))
    }

    /// The last job handed out: the worker keeps the scenario of the last text it read, so a
    /// scenario read by an earlier job is no longer there once a later one read.
    pub fn last_job(&self) -> u64 {
        self.next_job
    }

    /// Jobs wait to be handed to the worker (a lanes' command may name one: it goes after them).
    pub fn jobs_waiting(&self) -> bool {
        !self.outbox.is_empty()
    }

    /// The jobs to hand to the engine worker now.
    pub fn take_jobs(&mut self) -> Vec<Posting> {
        std::mem::take(&mut self.outbox)
    }

    /// About how many sites the latest text being read declares (a scenario handed over to be
    /// held is on screen already: not a loading).
    pub fn loading_sites(&self) -> Option<usize> {
        self.reading.iter().rev().find(|r| !matches!(r.purpose, Purpose::Hold { .. })).and_then(|r| r.sites)
    }

    /// Texts being read (not scenarios handed over to be held).
    pub fn texts(&self) -> usize {
        self.reading.iter().filter(|r| !matches!(r.purpose, Purpose::Hold { .. })).count()
    }

    /// A form edit made while another is being applied waits for its answer ([`next_form`]
    /// hands it out then); it comes back when none is: it may go at once.
    ///
    /// [`next_form`]: Readings::next_form
    pub fn defer_form(&mut self, op: EditOp) -> Option<EditOp> {
        if !self.reading.iter().any(|r| matches!(r.purpose, Purpose::Form { .. })) {
            return Some(op);
        }
        self.waiting_forms.push_back(op);
        None
    }

    /// The form edit that waited longest, once the one before it was answered.
    pub fn next_form(&mut self) -> Option<EditOp> {
        self.waiting_forms.pop_front()
    }

    /// A newer text replaces every edit (typed or from the form, sent or waiting) and entry
    /// still being read.
    pub fn drop_edits(&mut self) {
        self.waiting_forms.clear();
        self.reading.retain(|r| !matches!(r.purpose, Purpose::Edit { .. } | Purpose::Entry { .. } | Purpose::Form { .. }));
    }

    /// The gallery entry whose text is being read (on screen, its scenario not yet).
    pub fn entry(&self) -> Option<crate::gallery::Entry> {
        self.reading.iter().find_map(|r| match r.purpose {
            Purpose::Entry { entry, .. } => Some(entry),
            _ => None,
        })
    }

    /// Whether the entry being read plays once it is read, `None` when no entry is being read.
    pub fn entry_plays(&self) -> Option<bool> {
        self.reading.iter().find_map(|r| match r.purpose {
            Purpose::Entry { run, .. } => Some(run),
            _ => None,
        })
    }

    /// Whether the entry being read plays once it is read (a Run pressed meanwhile sets it).
    pub fn entry_run(&mut self) -> Option<&mut bool> {
        self.reading.iter_mut().find_map(|r| match &mut r.purpose {
            Purpose::Entry { run, .. } => Some(run),
            _ => None,
        })
    }

    /// The reading `reply` answers, if it is still awaited; jobs posted before it are given
    /// up (they were answered, or lost with a stopped worker).
    pub fn answered(&mut self, reply: &Reply) -> Option<Reading> {
        let at = self.reading.iter().position(|r| r.job == reply.id)?;
        let reading = self.reading.remove(at);
        self.reading.drain(..at);
        reading
    }
}
