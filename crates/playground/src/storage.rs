//! The autosave envelope kept in `localStorage`.
//!
//! It stores the scenario *text* exactly as typed (even when it does not parse yet, so
//! nothing the user wrote is lost) plus the page's choices, and the model session when the
//! page shows a model preset (the call-site scenario stays saved behind it). The envelope is versioned; an
//! entry that cannot be read is reported and set aside under another key by the caller,
//! never silently dropped and never a crash.
//!
//! A long text is stored deflated (`{"deflate": "<base64url>"}` in place of the string, see
//! [`packed`]), so a big scenario stays autosaved; entries with plain strings still read. The
//! engine worker makes the entry ([`encode`], `worker::pack_wire`): the page has no compressor.
//! When even the packed entry is over [`MAX_STORED`], the page keeps the older entry and
//! marks it ([`STALE_KEY`]), so the next visit says that what it restores is older.

use blast_engine::Policy;
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::chrome::Theme;
use crate::model_mode::ModelLink;
use crate::playback::{Speed, SPEEDS};

pub const KEY: &str = "blast-radius.autosave";
pub const VERSION: u32 = 1;
/// Larger entries are not written (they would crowd out the origin's storage quota, 5 M
/// characters in Chromium and Firefox): the stored form's length, a long text counted
/// deflated. A 1.5 MB 40,000-class chain is stored in 0.3 MB (`a_big_text_is_stored_packed_and_read_back`).
pub const MAX_STORED: usize = 1024 * 1024;
/// Longest text an entry unpacks to (reading stops there): the DSL's own input bound.
pub const MAX_TEXT: usize = 64_000_000;
/// Texts longer than this are stored deflated (a preset's text stays readable in the entry).
pub const PACK_ABOVE: usize = 16 * 1024;
/// Set (to the too-big text's length in bytes) when the scenario on screen could not be
/// autosaved, so the entry left under [`KEY`] is older; removed by the next good save.
pub const STALE_KEY: &str = "blast-radius.autosave-stale";

/// The session an entry holds. Its serde form is the entry's in JSON (long texts packed,
/// [`packed`]) and the texts as they are on the engine worker's wire (postcard), which carries a
/// session to be packed there (`worker::pack_wire`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub version: u32,
    #[serde(with = "packed")]
    pub scenario_text: String,
    pub policies: Vec<Policy>,
    pub speed: Speed,
    pub theme: Theme,
    /// The gallery entry the text came from, if any (`gallery::Entry::id`: a call-site preset for
    /// its published numbers, or a runtime's scenario), recognised again by its text on restore.
    #[serde(default)]
    pub preset: Option<String>,
    /// The open model preset with its knobs and variants (model mode), checked on restore.
    #[serde(default)]
    pub model: Option<ModelLink>,
    /// The user's own scenario a load replaced (the preset picker's "Your scenario").
    #[serde(default, with = "packed_opt")]
    pub own_text: Option<String>,
}

impl Saved {
    pub fn new(scenario_text: String, policies: Vec<Policy>, speed: Speed, theme: Theme, preset: Option<String>) -> Saved {
        Saved { version: VERSION, scenario_text, policies, speed, theme, preset, model: None, own_text: None }
    }
}

/// An autosave that was not opened, set aside under another key (`kept_under`; `None`: it
/// could not be kept).
#[derive(Clone, Debug, PartialEq)]
pub struct SetAside {
    pub why: AsideWhy,
    pub kept_under: Option<String>,
}

/// Why an autosave was set aside.
#[derive(Clone, Debug, PartialEq)]
pub enum AsideWhy {
    Unreadable(SaveError),
    /// Opening it stopped the page on the last visit (`browser::boot`'s marker).
    StoppedThePage,
}

impl fmt::Display for SetAside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.why {
            AsideWhy::Unreadable(why) => write!(f, "{why}")?,
            AsideWhy::StoppedThePage => f.write_str("it stopped the page on the last visit")?,
        }
        match &self.kept_under {
            Some(key) => write!(f, "; kept under localStorage key “{key}”"),
            None => f.write_str("; it could not be kept"),
        }
    }
}

/// Why a session was not saved, or a saved entry could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SaveError {
    /// The entry would be over [`MAX_STORED`] characters even with its text deflated
    /// (`bytes`: the scenario text's length, `stored`: the entry's).
    TooLarge { bytes: usize, stored: usize },
    /// A stored entry over [`MAX_STORED`] characters (not written by this page).
    EntryTooLarge { stored: usize },
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
            SaveError::TooLarge { bytes, stored } => write!(
                f,
                "the scenario text is {} KB, {} KB even packed; autosave keeps at most {} KB, so the autosave holds your last smaller scenario",
                bytes / 1024,
                stored / 1024,
                MAX_STORED / 1024
            ),
            SaveError::EntryTooLarge { stored } => write!(f, "the saved entry is {} KB; at most {} KB is read", stored / 1024, MAX_STORED / 1024),
            SaveError::NotASession(e) => write!(f, "not a saved session ({e})"),
            SaveError::OtherVersion(v) => write!(f, "saved by format version {v}; this page reads version {VERSION}"),
            SaveError::Damaged(e) => write!(f, "damaged saved session ({e})"),
        }
    }
}

impl std::error::Error for SaveError {}

pub fn encode(saved: &Saved) -> Result<String, SaveError> {
    // A Saved is strings, numbers and enums with string names: it always serializes.
    let raw = serde_json::to_string(saved).expect("a Saved serializes");
    if raw.len() > MAX_STORED {
        return Err(SaveError::TooLarge { bytes: saved.scenario_text.len(), stored: raw.len() });
    }
    Ok(raw)
}

/// What the page says at start-up when the autosave is older than what was on screen at the
/// last visit (`bytes`: the [`STALE_KEY`] value, the text that could not be kept).
pub fn stale_notice(bytes: &str) -> String {
    let size = bytes.trim().parse::<usize>().map_or_else(|_| "too big".to_string(), |b| format!("{} KB", b / 1024));
    format!(
        "The scenario restored is older than the one on screen at your last visit: that one ({size}) was too big to autosave. Download a scenario file (Export) to keep a big scenario."
    )
}

/// A text field stored as itself, or past [`PACK_ABOVE`] bytes as `{"deflate": "<base64url>"}`.
mod packed {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::{base64url, deflate};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub(super) enum Stored {
        Plain(String),
        Packed { deflate: String },
    }

    /// Packed only when that is shorter, so an entry read back and saved again is never longer
    /// than it was (what the autosave fuzz target checks).
    pub(super) fn pack(text: &str) -> Stored {
        match text.len() > super::PACK_ABOVE {
            true => stored(text, &deflate::deflate_fast(text)),
            false => Stored::Plain(text.to_string()),
        }
    }

    /// `text` as its deflated bytes `deflated` when that is shorter, else as itself.
    pub(super) fn stored(text: &str, deflated: &[u8]) -> Stored {
        let packed = base64url::encode(deflated);
        match packed.len() < text.len() {
            true => Stored::Packed { deflate: packed },
            false => Stored::Plain(text.to_string()),
        }
    }

    pub(super) fn unpack<E: serde::de::Error>(stored: Stored) -> Result<String, E> {
        match stored {
            Stored::Plain(text) if text.len() > super::MAX_TEXT => Err(E::custom(format!("its text is over {} bytes", super::MAX_TEXT))),
            Stored::Plain(text) => Ok(text),
            Stored::Packed { deflate } => {
                let bytes = base64url::decode(&deflate).map_err(|e| E::custom(format!("its packed text is not base64url ({e})")))?;
                deflate::inflate(&bytes, super::MAX_TEXT).map_err(E::custom)
            }
        }
    }

    /// Packed in the entry (JSON, human-readable); as it is on the worker's wire (postcard).
    pub fn serialize<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => pack(text).serialize(s),
            false => text.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match d.is_human_readable() {
            true => unpack(Stored::deserialize(d)?),
            false => String::deserialize(d),
        }
    }
}

/// [`packed`] for an optional text.
mod packed_opt {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::packed::{pack, unpack, Stored};

    pub fn serialize<S: Serializer>(text: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match s.is_human_readable() {
            true => text.as_deref().map(pack).serialize(s),
            false => text.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        match d.is_human_readable() {
            true => Option::<Stored>::deserialize(d)?.map(unpack).transpose(),
            false => Option::<String>::deserialize(d),
        }
    }
}

/// Read an entry. Any error means the entry is corrupt (or from an unknown version).
pub fn decode(raw: &str) -> Result<Saved, SaveError> {
    #[derive(Deserialize)]
    struct Probe {
        version: u32,
    }
    if raw.len() > MAX_STORED {
        return Err(SaveError::EntryTooLarge { stored: raw.len() });
    }
    let probe: Probe = serde_json::from_str(raw).map_err(|e| SaveError::NotASession(e.to_string()))?;
    if probe.version != VERSION {
        return Err(SaveError::OtherVersion(probe.version));
    }
    // Texts are bounded while read (`packed::unpack`: a plain one by its length, a packed one
    // stops inflating at `MAX_TEXT`).
    let saved: Saved = serde_json::from_str(raw).map_err(|e| SaveError::Damaged(e.to_string()))?;
    // The page only ever saves one of its speeds; any other factor (say 2e127, which does not
    // even survive a JSON round trip) was written by someone else.
    if !SPEEDS.contains(&saved.speed) {
        return Err(SaveError::Damaged(format!("speed {} is not one the page offers", saved.speed.short_label())));
    }
    Ok(saved)
}

/// The key of the "opening" marker: set before the page opens a link or the autosave, cleared
/// once that has painted. Found set at start-up, it means the last visit died (or was closed
/// frozen) while opening it, so this visit must not open the same thing again: no crash loop.
pub const OPENING_KEY: &str = "blast-radius.opening";
/// Set once the guided tour was skipped or finished: later visits do not show it again.
pub const TOUR_KEY: &str = "blast-radius.tour-done";
/// The theme on screen (`Theme::name`), for the next visit's first paint: the autosave that
/// also holds it is read by the engine worker, after the page has painted.
pub const THEME_KEY: &str = "blast-radius.theme";

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
    use crate::test_texts::{chain, undeflatable};

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
        // The refusal names the speed as the page writes speeds, not as Rust's `Debug` does.
        let raw = v.to_string().replace("\"max\"", "{\"factor\":0.5}");
        assert_eq!(decode(&raw), Err(SaveError::Damaged("speed 0.5× is not one the page offers".into())));
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
    fn a_big_text_is_stored_packed_and_read_back() {
        let mut s = sample();
        s.scenario_text = chain(40_000);
        s.own_text = Some(chain(30_000));
        assert!(s.scenario_text.len() > MAX_STORED, "bigger than the old cap: {}", s.scenario_text.len());
        let raw = encode(&s).unwrap();
        assert!(raw.len() <= MAX_STORED && raw.contains("\"deflate\""), "{}", raw.len());
        assert_eq!(decode(&raw).unwrap(), s);
        // A small text stays plain, readable in the entry.
        assert!(encode(&sample()).unwrap().contains("unfinished edit"));
        // An entry longer than any this page writes is not read.
        let long = format!("{{\"version\":1,\"scenario_text\":\"{}\"}}", "x".repeat(MAX_STORED));
        assert_eq!(decode(&long), Err(SaveError::EntryTooLarge { stored: long.len() }));
    }

    #[test]
    fn an_entry_too_big_even_packed_is_not_written_and_says_why() {
        let mut s = sample();
        // Text that does not deflate: every line different in a way deflate cannot predict.
        s.scenario_text = undeflatable(120_000);
        let Err(SaveError::TooLarge { bytes, stored }) = encode(&s) else { panic!("written") };
        assert!(bytes == s.scenario_text.len() && stored > MAX_STORED, "{bytes} {stored}");
        assert!(SaveError::TooLarge { bytes, stored }.to_string().contains("holds your last smaller scenario"));
        assert!(stale_notice(&bytes.to_string()).contains(&format!("({} KB)", bytes / 1024)));
        assert!(stale_notice("junk").contains("too big"));
    }

    #[test]
    fn damaged_packed_texts_are_damaged_entries() {
        let v = serde_json::to_value(sample()).unwrap();
        for bad in [serde_json::json!({"deflate": "!!"}), serde_json::json!({"deflate": "AAAA"}), serde_json::json!({"other": 1})] {
            let mut w = v.clone();
            w["scenario_text"] = bad.clone();
            assert!(matches!(decode(&w.to_string()), Err(SaveError::Damaged(_))), "{bad}");
        }
        // A packed bomb stops at MAX_TEXT.
        let bomb = crate::base64url::encode(&crate::deflate::deflate(&"a".repeat(MAX_TEXT + 1)));
        let mut w = v.clone();
        w["scenario_text"] = serde_json::json!({ "deflate": bomb });
        assert!(matches!(decode(&w.to_string()), Err(SaveError::Damaged(e)) if e.contains("more than")));
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
