//! The autosave envelope kept in `localStorage`.
//!
//! It stores the scenario *text* exactly as typed (even when it does not parse yet, so
//! nothing the user wrote is lost) plus the page's choices, and the model session when the
//! page shows a model preset (the call-site scenario stays saved behind it). The envelope is versioned; an
//! entry that cannot be read is reported and set aside under another key by the caller,
//! never silently dropped and never a crash.

use blast_engine::Policy;
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::chrome::Theme;
use crate::model_mode::ModelLink;
use crate::playback::{Speed, SPEEDS};

pub const KEY: &str = "blast-radius.autosave";
pub const VERSION: u32 = 1;
/// Larger entries are not written (they would crowd out the origin's storage quota).
pub const MAX_TEXT: usize = 512 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub version: u32,
    pub scenario_text: String,
    pub policies: Vec<Policy>,
    pub speed: Speed,
    pub theme: Theme,
    /// The preset the text came from, if any (for its published numbers).
    #[serde(default)]
    pub preset: Option<String>,
    /// The open model preset with its knobs and variants (model mode), checked on restore.
    #[serde(default)]
    pub model: Option<ModelLink>,
}

impl Saved {
    pub fn new(scenario_text: String, policies: Vec<Policy>, speed: Speed, theme: Theme, preset: Option<String>) -> Saved {
        Saved { version: VERSION, scenario_text, policies, speed, theme, preset, model: None }
    }
}

/// Why a session was not saved, or a saved entry could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum SaveError {
    /// The scenario text is over [`MAX_TEXT`] bytes.
    TooLarge { bytes: usize },
    /// Not the JSON of a saved session (serde's account of where).
    NotASession(String),
    /// Saved by another format version.
    OtherVersion(u32),
    /// The right version, but a field is missing or of the wrong type.
    Damaged(String),
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveError::TooLarge { bytes } => write!(f, "the scenario text is {} KB; autosave keeps at most {} KB", bytes / 1024, MAX_TEXT / 1024),
            SaveError::NotASession(e) => write!(f, "not a saved session ({e})"),
            SaveError::OtherVersion(v) => write!(f, "saved by format version {v}; this page reads version {VERSION}"),
            SaveError::Damaged(e) => write!(f, "damaged saved session ({e})"),
        }
    }
}

impl std::error::Error for SaveError {}

pub fn encode(saved: &Saved) -> Result<String, SaveError> {
    if saved.scenario_text.len() > MAX_TEXT {
        return Err(SaveError::TooLarge { bytes: saved.scenario_text.len() });
    }
    // A Saved is strings, numbers and enums with string names: it always serializes.
    Ok(serde_json::to_string(saved).expect("a Saved serializes"))
}

/// Read an entry. Any error means the entry is corrupt (or from an unknown version).
pub fn decode(raw: &str) -> Result<Saved, SaveError> {
    #[derive(Deserialize)]
    struct Probe {
        version: u32,
    }
    let probe: Probe = serde_json::from_str(raw).map_err(|e| SaveError::NotASession(e.to_string()))?;
    if probe.version != VERSION {
        return Err(SaveError::OtherVersion(probe.version));
    }
    let saved: Saved = serde_json::from_str(raw).map_err(|e| SaveError::Damaged(e.to_string()))?;
    if saved.scenario_text.len() > MAX_TEXT {
        return Err(SaveError::TooLarge { bytes: saved.scenario_text.len() });
    }
    // The page only ever saves one of its speeds; any other factor (say 2e127, which does not
    // even survive a JSON round trip) was written by someone else.
    if !SPEEDS.contains(&saved.speed) {
        return Err(SaveError::Damaged(format!("speed {:?} is not one the page offers", saved.speed)));
    }
    Ok(saved)
}

/// The key of the "opening" marker: set before the page opens a link or the autosave, cleared
/// once that has painted. Found set at start-up, it means the last visit died (or was closed
/// frozen) while opening it, so this visit must not open the same thing again: no crash loop.
pub const OPENING_KEY: &str = "blast-radius.opening";
/// Set once the guided tour was skipped or finished: later visits do not show it again.
pub const TOUR_KEY: &str = "blast-radius.tour-done";

/// What the page was opening when the marker was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    Link,
    Autosave,
}

impl Opening {
    pub fn name(self) -> &'static str {
        match self {
            Opening::Link => "link",
            Opening::Autosave => "autosave",
        }
    }

    /// A marker's stored value; anything unknown counts as an interrupted autosave (the safe side).
    pub fn parse(raw: &str) -> Opening {
        if raw == "link" {
            Opening::Link
        } else {
            Opening::Autosave
        }
    }

    /// What the page says on the visit after an interrupted opening.
    pub fn notice(self) -> &'static str {
        match self {
            Opening::Link => {
                "The link opened on your last visit stopped the page before it finished loading, so it was not opened again; your previous scenario is back."
            }
            Opening::Autosave => {
                "Your autosaved session stopped the page before it finished loading on your last visit; it was set aside and the page started fresh."
            }
        }
    }
}

/// Where a corrupt entry is moved so the user can still recover it by hand.
pub fn quarantine_key(now_ms: f64) -> String {
    format!("{KEY}.corrupt-{}", now_ms.max(0.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Saved {
        Saved::new("class A { m }\n# unfinished edit {".into(), vec![Policy::Global, Policy::Exact], Speed::Max, Theme::Dark, Some("hotLoop_baseline".into()))
    }

    #[test]
    fn round_trip_keeps_everything_including_invalid_text() {
        let s = sample();
        assert_eq!(decode(&encode(&s).unwrap()).unwrap(), s);
    }

    #[test]
    fn corrupted_entries_are_errors_not_panics() {
        for raw in ["", "{", "null", "[]", "42", "{\"version\":1}", "{\"version\":1,\"scenario_text\":7}", "\u{0}\u{1}garbage"] {
            assert!(decode(raw).is_err(), "{raw:?} should not decode");
        }
        let mut v = serde_json::to_value(sample()).unwrap();
        v["policies"] = serde_json::json!(["global", "not-a-policy"]);
        assert!(decode(&v.to_string()).is_err());
    }

    /// Found by `fuzz/` (autosave target): a speed the page never offers, here one that
    /// serde_json does not read back bit for bit, is a damaged entry.
    #[test]
    fn a_speed_the_page_does_not_offer_is_damaged() {
        for speed in SPEEDS {
            let s = Saved { speed, ..sample() };
            assert_eq!(decode(&encode(&s).unwrap()).unwrap(), s);
        }
        let mut v = serde_json::to_value(sample()).unwrap();
        for factor in
            ["21111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111.0", "0.5", "-1"]
        {
            let raw = v.to_string().replace("\"max\"", &format!("{{\"factor\":{factor}}}"));
            assert!(matches!(decode(&raw), Err(SaveError::Damaged(_))), "{raw}");
        }
        v["speed"] = serde_json::json!("max");
        assert!(decode(&v.to_string()).is_ok());
    }

    #[test]
    fn a_model_session_round_trips_and_older_entries_have_none() {
        let mut s = sample();
        s.model = Some(ModelLink { preset: "arena_closeGroup".into(), knobs: vec![("ops".into(), "50".into())], variants: vec!["always".into()] });
        assert_eq!(decode(&encode(&s).unwrap()).unwrap(), s);
        let mut v = serde_json::to_value(sample()).unwrap();
        v.as_object_mut().unwrap().remove("model");
        assert_eq!(decode(&v.to_string()).unwrap().model, None);
        v["model"] = serde_json::json!({"knobs": 7});
        assert!(decode(&v.to_string()).is_err());
    }

    #[test]
    fn other_versions_are_reported() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["version"] = serde_json::json!(2);
        assert_eq!(decode(&v.to_string()), Err(SaveError::OtherVersion(2)));
    }

    #[test]
    fn oversized_text_is_not_written() {
        let mut s = sample();
        s.scenario_text = "x".repeat(MAX_TEXT + 1);
        assert_eq!(encode(&s), Err(SaveError::TooLarge { bytes: MAX_TEXT + 1 }));
    }

    #[test]
    fn opening_markers_round_trip_and_unknown_ones_are_treated_as_the_autosave() {
        for o in [Opening::Link, Opening::Autosave] {
            assert_eq!(Opening::parse(o.name()), o);
        }
        assert_eq!(Opening::parse("garbage"), Opening::Autosave);
        assert_ne!(OPENING_KEY, KEY);
    }

    #[test]
    fn quarantine_keys_are_distinct_from_the_live_key() {
        assert_ne!(quarantine_key(1.0), KEY);
        assert!(quarantine_key(1234.4).ends_with("1234"));
    }
}
