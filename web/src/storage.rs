//! The autosave envelope kept in `localStorage`.
//!
//! It stores the scenario *text* exactly as typed (even when it does not parse yet, so
//! nothing the user wrote is lost) plus the page's choices, and the model session when the
//! page shows a model preset (the call-site scenario stays saved behind it). The envelope is versioned; an
//! entry that cannot be read is reported and set aside under another key by the caller,
//! never silently dropped and never a crash.

use blast_engine::Policy;
use serde::{Deserialize, Serialize};

use crate::model_mode::ModelLink;
use crate::state::{Speed, Theme};

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

pub fn encode(saved: &Saved) -> Result<String, String> {
    if saved.scenario_text.len() > MAX_TEXT {
        return Err(format!("the scenario text is {} KB; autosave keeps at most {} KB", saved.scenario_text.len() / 1024, MAX_TEXT / 1024));
    }
    serde_json::to_string(saved).map_err(|e| e.to_string())
}

/// Read an entry. Any error means the entry is corrupt (or from an unknown version).
pub fn decode(raw: &str) -> Result<Saved, String> {
    #[derive(Deserialize)]
    struct Probe {
        version: u32,
    }
    let probe: Probe = serde_json::from_str(raw).map_err(|e| format!("not a saved session ({e})"))?;
    if probe.version != VERSION {
        return Err(format!("saved by format version {}; this page reads version {VERSION}", probe.version));
    }
    let saved: Saved = serde_json::from_str(raw).map_err(|e| format!("damaged saved session ({e})"))?;
    if saved.scenario_text.len() > MAX_TEXT {
        return Err("the saved scenario text is too large".into());
    }
    Ok(saved)
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
        assert!(decode(&v.to_string()).unwrap_err().contains("version 2"));
    }

    #[test]
    fn oversized_text_is_not_written() {
        let mut s = sample();
        s.scenario_text = "x".repeat(MAX_TEXT + 1);
        assert!(encode(&s).is_err());
    }

    #[test]
    fn quarantine_keys_are_distinct_from_the_live_key() {
        assert_ne!(quarantine_key(1.0), KEY);
        assert!(quarantine_key(1234.4).ends_with("1234"));
    }
}
