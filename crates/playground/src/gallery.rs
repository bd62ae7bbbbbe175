//! What a gallery entry opens: one resolver from an id (a gallery row, the preset picker, the
//! measured panel's runtime, an autosave) to what goes on screen. A call-site preset and a
//! runtime's generated scenario open as their text, which the engine worker reads like any
//! other (the page ships no parser); a model preset opens model mode. `state::AppState` is the
//! only caller that opens one (`Action::LoadPreset`).
//!
//! An entry's identity is kept without parsing its text again: the session remembers the entry
//! with the scenario revision it opened (`session::CallSiteSession::entry`), and a saved or
//! shared text is that entry when it is the entry's text, byte for byte (`Entry::is_text`).
//! A new kind of entry (the traces are next) is a variant of [`Entry`]: `find` and `open`
//! then fail to compile until they say what it is and what it opens.

use std::fmt;

use blast_engine::models::{self, ModelPreset};
use blast_engine::presets::{self, Preset};
use blast_engine::runtimes::{self, RuntimeProfile};
use blast_engine::Policy;

use crate::model_mode::ModelLink;

/// One row of the gallery.
#[derive(Clone, Copy, Debug)]
pub enum Entry {
    /// A call-site scenario shipped with the engine (`presets`), with its published numbers.
    CallSite(&'static Preset),
    /// One of the other systems (`models`): opens model mode.
    Model(&'static ModelPreset),
    /// A probed runtime's scenario, generated from its profile (`runtimes`).
    Runtime(&'static RuntimeProfile),
}

/// The same row: ids are unique within a kind.
impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        match (self, other) {
            (Entry::CallSite(a), Entry::CallSite(b)) => a.id == b.id,
            (Entry::Model(a), Entry::Model(b)) => a.id == b.id,
            (Entry::Runtime(a), Entry::Runtime(b)) => a.id == b.id,
            _ => false,
        }
    }
}

/// What an entry opens.
#[derive(Debug)]
pub enum Opening {
    /// A call-site scenario (`session::SessionAction::OpenEntry`).
    Scenario(Opened),
    /// Model mode, with the preset's default knobs and all its variants.
    Model(ModelLink),
}

/// A scenario entry as it opens: its text (for the engine worker to read) and the policies it
/// opens with (empty: the ones on screen).
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    pub entry: Entry,
    pub text: String,
    pub policies: Vec<Policy>,
}

/// Why an id opens nothing.
#[derive(Debug, PartialEq)]
pub enum GalleryError {
    NoSuchEntry(String),
}

impl fmt::Display for GalleryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GalleryError::NoSuchEntry(id) => write!(f, "There is no preset `{}`.", id.chars().take(40).collect::<String>()),
        }
    }
}

impl Entry {
    /// The entry with this id: call-site presets first, then model presets, then runtimes.
    pub fn find(id: &str) -> Option<Entry> {
        presets::find(id).map(Entry::CallSite).or_else(|| models::find(id).map(Entry::Model)).or_else(|| runtimes::by_preset_id(id).map(Entry::Runtime))
    }

    pub fn id(&self) -> String {
        match self {
            Entry::CallSite(p) => p.id.to_string(),
            Entry::Model(m) => m.id.to_string(),
            Entry::Runtime(r) => r.preset_id(),
        }
    }

    /// The call-site preset, for its published numbers.
    pub fn preset(&self) -> Option<&'static Preset> {
        match self {
            Entry::CallSite(p) => Some(p),
            Entry::Model(_) | Entry::Runtime(_) => None,
        }
    }

    /// Where the page says a scenario came from when it opens (a preset opens without a word).
    pub fn origin(&self) -> Option<String> {
        match self {
            Entry::CallSite(_) | Entry::Model(_) => None,
            Entry::Runtime(r) => Some(format!("the Runtimes gallery ({})", r.name)),
        }
    }

    /// `text` is this entry's scenario text as shipped (a model preset has none).
    pub fn is_text(&self, text: &str) -> bool {
        match self {
            Entry::CallSite(p) => p.text == text,
            Entry::Model(_) => false,
            Entry::Runtime(r) => r.scenario_text() == text,
        }
    }

    /// The entry a scenario opened from a link, a file or an autosave is: the one named
    /// `id` when `text` is its text.
    pub fn recognise(id: &str, text: &str) -> Option<Entry> {
        Entry::find(id).filter(|e| e.is_text(text))
    }

    /// What this entry puts on screen.
    pub fn open(self) -> Opening {
        let (text, policies) = match self {
            Entry::Model(m) => return Opening::Model(ModelLink { preset: m.id.to_string(), knobs: Vec::new(), variants: Vec::new() }),
            Entry::CallSite(p) => (p.text.to_string(), Vec::new()),
            Entry::Runtime(r) => (r.scenario_text(), r.lanes()),
        };
        Opening::Scenario(Opened { entry: self, text, policies })
    }
}

/// What the gallery entry `id` opens.
pub fn open(id: &str) -> Result<Opening, GalleryError> {
    Entry::find(id).map(Entry::open).ok_or_else(|| GalleryError::NoSuchEntry(id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_opens_what_its_kind_says() {
        let ids = presets::all()
            .iter()
            .map(|p| p.id.to_string())
            .chain(models::MODEL_PRESETS.iter().map(|m| m.id.to_string()))
            .chain(runtimes::PROFILES.iter().map(|r| r.preset_id()));
        for id in ids {
            let entry = Entry::find(&id).expect("an entry");
            assert_eq!(entry.id(), id);
            match (entry, open(&id)) {
                (Entry::Model(m), Ok(Opening::Model(link))) => assert_eq!(link.preset, m.id),
                (Entry::CallSite(p), Ok(Opening::Scenario(Opened { entry: e, text, policies }))) => {
                    assert_eq!((e, text.as_str(), policies.len()), (entry, p.text, 0));
                    assert!(entry.is_text(&text) && entry.preset().map(|x| x.id) == Some(p.id) && entry.origin().is_none());
                }
                (Entry::Runtime(r), Ok(Opening::Scenario(Opened { entry: e, text, policies }))) => {
                    assert_eq!((e, text.as_str(), policies), (entry, r.scenario_text().as_str(), r.lanes()));
                    assert!(entry.is_text(&text) && entry.preset().is_none());
                    assert!(entry.origin().is_some_and(|o| o.contains(r.name)));
                }
                (entry, opening) => panic!("{id}: {entry:?} opened {opening:?}"),
            }
        }
    }

    #[test]
    fn an_unknown_id_or_an_edited_text_is_no_entry() {
        let err = open("nope").expect_err("no entry");
        assert_eq!(err.to_string(), "There is no preset `nope`.");
        let p = presets::find("hotLoop_baseline").expect("a preset");
        assert_eq!(Entry::recognise(p.id, p.text), Some(Entry::CallSite(p)));
        assert_eq!(Entry::recognise(p.id, &format!("{} ", p.text)), None, "identity is the shipped text");
        assert_eq!(Entry::recognise("descriptor_treeMap", ""), None, "a model preset has no text");
        let r = &runtimes::PROFILES[0];
        assert_eq!(Entry::recognise(&r.preset_id(), &r.scenario_text()), Some(Entry::Runtime(r)));
    }
}
