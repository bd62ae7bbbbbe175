//! Share links: the whole scenario (or model session) travels in the URL fragment.
//!
//! Formats (version 1): `#s=1.<base64url of the DSL text>&p=global,exact` for a call-site
//! scenario, `#m=1.<base64url of a JSON ModelLink>` for a model preset with its knobs and
//! variants. The fragment never reaches a server, so a link works on any static host.
//! Decoding treats the fragment as hostile: size is capped before anything is decoded; a
//! scenario goes through the engine's parser and validator (cycles, unknown names, oversized
//! numbers) and its work estimate, a model link through the same checks as the page's knob
//! inputs, so a link that decodes is one the page can run.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use blast_engine::model::Scenario;
use blast_engine::{dsl, Params, Policy, Simulation};

use crate::model_mode::{self, ModelLink};

pub const VERSION: u32 = 1;
/// Longest fragment accepted (a preset is about 1.5 KB encoded).
pub const MAX_FRAGMENT: usize = 64 * 1024;

#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    pub text: String,
    pub scenario: Scenario,
    /// Empty when the link names no policies (the page keeps its own).
    pub policies: Vec<Policy>,
}

/// What a link carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    Scenario(Shared),
    Model(ModelLink),
}

/// The fragment (without `#`) for a scenario's text and the selected policies.
pub fn encode(text: &str, policies: &[Policy]) -> String {
    let mut out = format!("s={VERSION}.{}", URL_SAFE_NO_PAD.encode(text.as_bytes()));
    if !policies.is_empty() {
        let names: Vec<&str> = policies.iter().map(|p| p.name()).collect();
        out.push_str("&p=");
        out.push_str(&names.join(","));
    }
    out
}

/// The fragment (without `#`) for a model session.
pub fn encode_model(link: &ModelLink) -> String {
    let json = serde_json::to_string(link).unwrap_or_default();
    format!("m={VERSION}.{}", URL_SAFE_NO_PAD.encode(json.as_bytes()))
}

/// What a link was meant to open, so a refusal names the right thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    Scenario,
    Model,
}

/// Why a link was not loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkError {
    pub kind: LinkKind,
    /// Completes the sentence "The link's scenario was not loaded: …".
    pub reason: String,
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            LinkKind::Scenario => "scenario",
            LinkKind::Model => "model run",
        };
        write!(f, "The link's {what} was not loaded: {}", self.reason)
    }
}

/// Decode a location hash (with or without the leading `#`).
/// `Ok(None)` means the fragment carries no scenario at all (e.g. empty).
pub fn decode(fragment: &str) -> Result<Option<Link>, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut scenario = None;
    let mut model = None;
    let mut policies = None;
    for part in fragment.split('&') {
        if let Some(v) = part.strip_prefix("s=") {
            scenario = Some(v);
        } else if let Some(v) = part.strip_prefix("m=") {
            model = Some(v);
        } else if let Some(v) = part.strip_prefix("p=") {
            policies = Some(v);
        }
    }
    // A scenario wins when a fragment carries both; policies belong to scenarios.
    let kind = if scenario.is_none() && model.is_some() { LinkKind::Model } else { LinkKind::Scenario };
    let refuse = |reason: String| LinkError { kind, reason };
    if fragment.len() > MAX_FRAGMENT {
        return Err(refuse(format!("it is {} KB long; at most {} KB is accepted", fragment.len() / 1024, MAX_FRAGMENT / 1024)));
    }
    let policies = match policies {
        Some(names) => blast_engine::policy::parse_policies(names).map_err(|e| refuse(e.to_string()))?,
        None => Vec::new(),
    };
    match (scenario, model) {
        (Some(payload), _) => decode_scenario(payload, policies).map(|s| Some(Link::Scenario(s))).map_err(refuse),
        (None, Some(payload)) => decode_model(payload).map(|m| Some(Link::Model(m))).map_err(refuse),
        (None, None) => Ok(None),
    }
}

/// The text behind `<version>.<base64url>`.
fn payload_text(payload: &str, kind: char) -> Result<String, String> {
    let (version, data) = payload.split_once('.').ok_or_else(|| format!("it has no format version (expected {kind}=1.…)"))?;
    match version.parse::<u32>() {
        Ok(VERSION) => {}
        Ok(v) => return Err(format!("it uses format version {v}; this page reads version {VERSION}")),
        Err(_) => return Err(format!("its format version `{}` is not a number", truncate(version, 12))),
    }
    let bytes = URL_SAFE_NO_PAD.decode(data.trim_end_matches('=').as_bytes()).map_err(|e| format!("it is not valid base64url ({e})"))?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

fn decode_scenario(payload: &str, policies: Vec<Policy>) -> Result<Shared, String> {
    let text = payload_text(payload, 's')?;
    let scenario = dsl::parse(&text).map_err(|e| format!("it does not parse: {e}"))?;
    Simulation::new(&scenario, Policy::Global, &Params::default()).map_err(|e| format!("it cannot run: {e}"))?;
    Ok(Shared { text, scenario, policies })
}

fn decode_model(payload: &str) -> Result<ModelLink, String> {
    let json = payload_text(payload, 'm')?;
    let link: ModelLink = serde_json::from_str(&json).map_err(|e| format!("its model settings are not readable ({e})"))?;
    model_mode::resolve(&link)?;
    Ok(link)
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    fn encoded(text: &str) -> String {
        format!("#s=1.{}", URL_SAFE_NO_PAD.encode(text))
    }

    #[test]
    fn round_trips_every_preset_with_policies() {
        for p in presets::all() {
            let frag = encode(p.text, &[Policy::Global, Policy::Exact]);
            let Some(Link::Scenario(shared)) = decode(&format!("#{frag}")).expect("decodes") else { panic!("a scenario link") };
            assert_eq!(shared.text, p.text);
            assert_eq!(shared.scenario, p.scenario());
            assert_eq!(shared.policies, vec![Policy::Global, Policy::Exact]);
        }
    }

    #[test]
    fn fragment_is_url_safe() {
        let frag = encode(presets::all()[0].text, &[Policy::Exact]);
        assert!(frag.chars().all(|c| c.is_ascii_alphanumeric() || "-_.=&,".contains(c)), "{frag}");
    }

    #[test]
    fn empty_or_foreign_fragments_carry_nothing() {
        assert_eq!(decode(""), Ok(None));
        assert_eq!(decode("#"), Ok(None));
        assert_eq!(decode("#section-2"), Ok(None));
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode("#s=1.!!!not base64!!!").unwrap_err().reason.contains("base64"));
        assert!(decode("#s=garbage").unwrap_err().reason.contains("version"));
        assert!(decode("#s=x.AAAA").unwrap_err().reason.contains("not a number"));
        assert!(decode("#s=9.AAAA").unwrap_err().reason.contains("version 9"));
        assert!(decode(&format!("#s=1.{}", URL_SAFE_NO_PAD.encode([0xff, 0xfe, 0x00]))).unwrap_err().reason.contains("UTF-8"));
        assert!(decode(&encoded("this is not a scenario")).unwrap_err().reason.contains("does not parse"));
        assert!(decode("#s=1.AAAA&p=evil").unwrap_err().reason.contains("unknown policy"));
    }

    #[test]
    fn huge_numbers_are_errors() {
        let too_big = "class A { m }\nsite s = A.m\nop { loop 99999999999999999999999999 { call s } }\n";
        assert!(decode(&encoded(too_big)).unwrap_err().reason.contains("too large"));
        let too_much_work = "class A { m }\nsite s = A.m\nop { loop 1000000000000 { every 1 { write A.x } call s } }\n";
        assert!(decode(&encoded(too_much_work)).unwrap_err().reason.contains("cannot run"));
        let version = format!("#s={}.AAAA", "9".repeat(40));
        assert!(decode(&version).is_err());
    }

    #[test]
    fn a_cyclic_hierarchy_is_an_error() {
        let cyclic = "class A extends B { m }\nclass B extends A\nsite s = A.m\nop { loop 10 { call s } }\n";
        let err = decode(&encoded(cyclic)).unwrap_err().reason;
        assert!(err.contains("cyclic"), "{err}");
    }

    #[test]
    fn model_links_round_trip_and_hostile_ones_are_errors() {
        let link =
            ModelLink { preset: "records_rotating11".into(), knobs: vec![("shapes".into(), "12".into())], variants: vec!["fifo".into(), "unbounded".into()] };
        let frag = encode_model(&link);
        assert!(frag.starts_with("m=1.") && frag.chars().all(|c| c.is_ascii_alphanumeric() || "-_.=".contains(c)), "{frag}");
        assert_eq!(decode(&format!("#{frag}")), Ok(Some(Link::Model(link))));
        let model = |json: &str| decode(&format!("#m=1.{}", URL_SAFE_NO_PAD.encode(json)));
        assert!(model("{not json").unwrap_err().reason.contains("not readable"));
        assert!(model("[]").unwrap_err().reason.contains("not readable"));
        assert!(model(r#"{"preset":"nope"}"#).unwrap_err().reason.contains("no model preset"));
        assert!(model(r#"{"preset":"arena_scaling16","knobs":[["threads","100000"]]}"#).unwrap_err().reason.contains("between"));
        assert!(model(r#"{"preset":"arena_scaling16","knobs":[["evil","1"]]}"#).unwrap_err().reason.contains("not a knob"));
        assert!(model(r#"{"preset":"arena_scaling16","variants":["x"]}"#).unwrap_err().reason.contains("not a variant"));
        assert!(decode("#m=2.AAAA").unwrap_err().reason.contains("version 2"));
        assert!(decode("#m=1.!!!").unwrap_err().reason.contains("base64"));
    }

    #[test]
    fn refusals_name_what_the_link_carried() {
        let model = decode("#m=1.!!!").unwrap_err();
        assert_eq!(model.kind, LinkKind::Model);
        assert!(model.to_string().starts_with("The link's model run was not loaded: it is not valid base64url"), "{model}");
        let hostile_knob = decode(&format!("#m=1.{}", URL_SAFE_NO_PAD.encode(r#"{"preset":"arena_scaling16","knobs":[["threads","100000"]]}"#))).unwrap_err();
        assert!(hostile_knob.to_string().starts_with("The link's model run was not loaded: ") && hostile_knob.reason.contains("between"), "{hostile_knob}");
        let huge_model = format!("#m=1.{}", "A".repeat(MAX_FRAGMENT + 1));
        assert_eq!(decode(&huge_model).unwrap_err().kind, LinkKind::Model);
        let scenario = decode("#s=1.!!!").unwrap_err();
        assert!(scenario.to_string().starts_with("The link's scenario was not loaded: "), "{scenario}");
        assert_eq!(decode("#m=1.AAAA&s=1.!!!").unwrap_err().kind, LinkKind::Scenario, "the scenario wins, as when decoding");
    }

    #[test]
    fn oversized_fragments_are_refused_before_decoding() {
        let huge = format!("#s=1.{}", "A".repeat(MAX_FRAGMENT + 1));
        assert!(decode(&huge).unwrap_err().reason.contains("KB"));
    }
}
