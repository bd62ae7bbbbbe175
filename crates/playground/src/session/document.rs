//! The call-site session's document: the scenario on screen as text and as the typed model
//! behind it, their errors, undo history, the user's own text a load replaced, the gallery
//! entry it was opened as, and the texts the engine worker is reading.
//!
//! Three counters version it, each for what reads it: `scenario_rev` the model (the page's
//! copies of its parts, an entry's identity), `text_rev` the text (autosave and share links),
//! `edit_epoch` the model editor's form (every edit attempt, accepted or refused).

use std::rc::Rc;

use blast_engine::dsl;
use blast_engine::scenario::Scenario;

use crate::gallery::Entry;
use crate::history::History;
use crate::worker::reading::Readings;
use crate::worker::wire::TextError;

pub(super) struct Document {
    /// Shared with the page's components (`Rc`): a 10^5-site world was copied per scenario change.
    pub(super) scenario: Rc<Scenario>,
    pub(super) text: String,
    pub(super) text_error: Option<TextError>,
    pub(super) editor_error: Option<String>,
    /// Undo and redo of form and text edits; a load is one step, so Undo brings back what it replaced.
    pub(super) history: History,
    /// The user's own scenario text that a load (preset, link, file) replaced, for the preset
    /// picker's "Your scenario" while something else is on screen (`OpenOwn` brings it back).
    pub(super) own: Option<String>,
    /// The text on screen is the user's: typed, edited, undone to or autosaved, not loaded as
    /// it is. A load over it keeps it in `own`.
    pub(super) edited: bool,
    /// Versions the model: bumps whenever the scenario changes.
    pub(super) scenario_rev: u64,
    /// Versions the text: bumps whenever it changes (what autosave and share links carry is
    /// derived from it: comparing a key is cheap where copying a 3 MB text per frame is not).
    pub(super) text_rev: u64,
    /// Versions the model editor's form: bumps on every model edit attempt, accepted or refused.
    pub(super) edit_epoch: u64,
    /// The expectations' text lines as the engine worker found them, for the text revision it
    /// read (`app.rs` places them; a small text is placed on the page).
    pub(super) read_expect_lines: Option<(u64, Rc<Vec<Option<usize>>>)>,
    /// Texts being read off the main thread (`offload`).
    pub(super) readings: Readings,
    /// The engine worker holds the scenario: (the job that read it, `scenario_rev` it is).
    pub(super) held: Option<(u64, u64)>,
    /// The gallery entry opened, and the `scenario_rev` it opened as: the scenario is that
    /// entry until it changes (`entry`), so no text is parsed again to tell.
    pub(super) opened: Option<(Entry, u64)>,
}

impl Document {
    /// `text` on screen over an empty scenario: the engine worker reads it (the session asks).
    pub(super) fn new(text: String) -> Document {
        Document {
            scenario: Rc::default(),
            text,
            text_error: None,
            editor_error: None,
            history: History::default(),
            own: None,
            edited: false,
            scenario_rev: 0,
            text_rev: 0,
            edit_epoch: 0,
            read_expect_lines: None,
            readings: Readings::default(),
            held: None,
            opened: None,
        }
    }

    /// The gallery entry on screen, unedited (a scenario edit forgets it): the one whose text
    /// is being read, else the one the scenario was opened as.
    pub(super) fn entry(&self) -> Option<Entry> {
        self.readings.entry().or_else(|| self.opened.filter(|&(_, rev)| rev == self.scenario_rev).map(|(entry, _)| entry))
    }

    /// The text a share link or export should carry: the typed text when it is valid.
    pub(super) fn shareable_text(&self) -> String {
        if self.text_error.is_none() {
            self.text.clone()
        } else {
            dsl::print(&self.scenario)
        }
    }

    /// Whether the picker's "Your scenario" has something to bring back (or is on screen).
    pub(super) fn has_own(&self) -> bool {
        self.own.is_some() || self.edited
    }

    /// Text typed (or restored by undo), to be read by the engine worker: it replaces any edit
    /// still being read, and the form shows the model again (and drops a refused edit's message).
    pub(super) fn replace_text(&mut self, text: String) {
        self.readings.drop_edits();
        self.show_text(text);
    }

    /// The text a form edit printed, from the worker's answer: on screen, without dropping the
    /// form edits that wait to be applied to it (`Readings::defer_form`).
    pub(super) fn show_text(&mut self, text: String) {
        self.text = text;
        self.text_rev += 1;
        self.text_error = None;
        self.editor_error = None;
        self.edit_epoch += 1;
    }

    /// Throw away text that does not parse: the model's text again, one undo step away.
    pub(super) fn revert_text(&mut self) {
        let text = dsl::print(&self.scenario);
        self.history.record(&self.text, &text, false);
        self.text = text;
        self.text_rev += 1;
        self.text_error = None;
    }

    /// A new model and its text on screen (opened as `entry`, if it is a gallery entry's).
    pub(super) fn replace(&mut self, scenario: Scenario, text: String, entry: Option<Entry>) {
        // A text still being read was replaced: its answer would put its model under this text.
        self.readings.drop_edits();
        self.adopt(scenario, entry);
        self.text = text;
        self.text_rev += 1;
        self.text_error = None;
        self.editor_error = None;
    }

    /// A new model for the text on screen (opened as `entry`, if it is a gallery entry's).
    pub(super) fn adopt(&mut self, scenario: Scenario, entry: Option<Entry>) {
        self.scenario = Rc::new(scenario);
        self.scenario_rev += 1;
        self.opened = entry.map(|e| (e, self.scenario_rev));
    }

    /// A load is about to put `text` on screen: the text it replaces is one undo step back,
    /// and the user's own (edited) text is also kept for the picker's "Your scenario".
    pub(super) fn keep_own(&mut self, text: &str) {
        if self.edited && self.text != text {
            self.own = Some(self.text.clone());
        }
        self.history.record(&self.text, text, false);
        self.edited = false;
    }
}
