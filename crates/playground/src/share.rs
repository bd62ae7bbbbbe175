//! Share links: the whole scenario (or model session) travels in the URL fragment.
//!
//! Formats: `#s=2.<base64url of the DSL text, deflated>&p=global,exact` for a call-site
//! scenario (`s=1.`, the text not deflated, is still read), `#m=1.<base64url of a JSON
//! ModelLink>` for a model preset with its knobs and variants. The fragment never reaches a
//! server, so a link works on any static host. Writing and reading share one limit,
//! [`MAX_FRAGMENT`]: a link [`encode`] writes is one [`decode`] accepts, and a scenario too big
//! for it is refused when the link is made ([`TooBigForLink`]), not when it is opened.
//! Decoding treats the fragment as hostile: size is capped before anything is decoded; a
//! scenario goes through the engine's parser and validator (cycles, unknown names, oversized
//! numbers) and its work estimate, a model link through the same checks as the page's knob
//! inputs, so a link that decodes is one the page can run.

use blast_engine::policy::{parse_policies, PolicyError};
use blast_engine::Policy;
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::base64url::{self, Base64Error};
use crate::deflate::{self, InflateError};
use crate::model_mode::{self, LinkRefusal, ModelLink};
use crate::playback::{Speed, SPEEDS};
use crate::trace_lab::protocol::ClassTree;

/// The scenario link's format written: 2 (deflated); 1 (plain) is still read.
pub const VERSION: u32 = 2;
/// The model link's format (a few hundred bytes of JSON: not deflated).
pub const MODEL_VERSION: u32 = 1;
/// Longest fragment written or accepted (a 5,000-class chain is 29 KB encoded, a preset 0.6 KB:
/// `a_five_thousand_class_chain_fits_a_link`).
pub const MAX_FRAGMENT: usize = 64 * 1024;
/// Longest text a link unpacks to (inflating stops there): a few KB of deflate can stand for
/// megabytes of text.
pub const MAX_LINK_TEXT: usize = 8_000_000;

/// A scenario too big for any link: refused when the link is made, with a way out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooBigForLink {
    /// The scenario text's length.
    pub text: usize,
    /// The link's fragment length, when the text was short enough to pack.
    pub fragment: Option<usize>,
}

impl fmt::Display for TooBigForLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.fragment {
            Some(n) => format!("its link would be {} KB, and a link opens only up to {} KB", n.div_ceil(1024), MAX_FRAGMENT / 1024),
            None => format!("its text is {} KB, and a link carries at most {} KB of text", self.text / 1024, MAX_LINK_TEXT / 1024),
        };
        write!(f, "This scenario is too big for a share link: {why}. Download the scenario file and send that instead.")
    }
}

impl std::error::Error for TooBigForLink {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    /// Read by the engine worker (which refuses it if it does not parse or run) before it
    /// replaces anything.
    pub text: String,
    /// Empty when the link names no policies (the page keeps its own).
    pub policies: Vec<Policy>,
    /// How the sharer was watching it.
    pub view: LinkView,
}

/// What a link says about how its scenario is watched: the run's speed and the selected site
/// (each absent when the sharer had none, or the link is older than these fields).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkView {
    pub speed: Option<Speed>,
    pub site: Option<String>,
}

/// The longest site name a link carries (a DSL name is a word; this bounds a stranger's link).
pub const MAX_LINK_SITE: usize = 200;

impl LinkView {
    /// `&v=SPEED&site=NAME`, each part only when there is something to say.
    fn encode(&self) -> String {
        let mut out = String::new();
        if let Some(speed) = self.speed {
            out.push_str("&v=");
            out.push_str(&speed_word(speed));
        }
        if let Some(site) = self.site.as_deref().filter(|s| site_word(s)) {
            out.push_str("&site=");
            out.push_str(site);
        }
        out
    }
}

/// A speed as a link writes it: its factor (`0.1`, `10`) or `max`.
fn speed_word(speed: Speed) -> String {
    match speed {
        Speed::Factor(f) => crate::format::plain(f),
        Speed::Max => "max".into(),
    }
}

/// Only the speeds the page offers: a stranger's link cannot set another.
fn read_speed(word: &str) -> Option<Speed> {
    SPEEDS.iter().copied().find(|s| speed_word(*s) == word)
}

/// Whether `name` can stand in a link as it is: a DSL name (letters, digits, `_`, `$`, `.`).
fn site_word(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_LINK_SITE && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
}

/// What a link carries. One lives for the moment a link is opened, so its variants' sizes
/// do not matter (clippy's `large_enum_variant` would box the scenario's side for nothing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[allow(clippy::large_enum_variant)]
pub enum Link {
    Scenario(Shared),
    Model(ModelLink),
    /// A runtime log, whole, for the trace lab.
    Trace(TraceLink),
}

/// A small runtime log carried by a link (`t=1.<base64url of "name\nlog", deflated>`), and the
/// class tree given with it (`&c=1.<base64url of "name\ntree", deflated>`), which its replay
/// needs (a HotSpot log's) or uses (a V8 log's prototype chains).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceLink {
    pub name: String,
    pub log: String,
    pub tree: Option<ClassTree>,
}

/// The longest log name a link carries.
pub const MAX_LINK_NAME: usize = 200;

/// The fragment (without `#`) for a runtime log, or why no link can carry it (the trace lab
/// then offers the derived scenario's link).
pub fn encode_trace(name: &str, log: &str, tree: Option<&ClassTree>) -> Result<String, TooBigForLink> {
    let text = log.len() + tree.map_or(0, |t| t.text.len());
    if text > MAX_LINK_TEXT {
        return Err(TooBigForLink { text, fragment: None });
    }
    let packed = |name: &str, body: &str| {
        let name: String = name.chars().filter(|c| *c != '\n').take(MAX_LINK_NAME).collect();
        base64url::encode(&deflate::deflate(&format!("{name}\n{body}")))
    };
    let mut out = format!("t=1.{}", packed(name, log));
    if let Some(tree) = tree {
        out.push_str(&format!("&c=1.{}", packed(&tree.name, &tree.text)));
    }
    if out.len() > MAX_FRAGMENT {
        return Err(TooBigForLink { text, fragment: Some(out.len()) });
    }
    Ok(out)
}

/// A name and the text after it (`name\ntext`); `unnamed` when there is no newline.
fn named(payload: &str, kind: char, unnamed: &str) -> Result<(String, String), LinkProblem> {
    let text = payload_text(payload, kind)?;
    let (name, body) = text.split_once('\n').unwrap_or((unnamed, &text));
    Ok((truncate(name, MAX_LINK_NAME), body.to_string()))
}

fn decode_trace(payload: &str, tree: Option<&str>) -> Result<TraceLink, LinkProblem> {
    let (name, log) = named(payload, 't', "the linked log")?;
    let tree = tree.map(|c| named(c, 'c', "the linked class tree").map(|(name, text)| ClassTree { name, text })).transpose()?;
    Ok(TraceLink { name, log, tree })
}

/// The fragment (without `#`) for a scenario's text and the selected policies, or why no
/// link can carry it (the same limits `decode` applies).
pub fn encode(text: &str, policies: &[Policy], view: &LinkView) -> Result<String, TooBigForLink> {
    if text.len() > MAX_LINK_TEXT {
        return Err(TooBigForLink { text: text.len(), fragment: None });
    }
    let mut out = format!("s={VERSION}.{}", base64url::encode(&deflate::deflate(text)));
    if !policies.is_empty() {
        let names: Vec<&str> = policies.iter().map(|p| p.name()).collect();
        out.push_str("&p=");
        out.push_str(&names.join(","));
    }
    out.push_str(&view.encode());
    if out.len() > MAX_FRAGMENT {
        return Err(TooBigForLink { text: text.len(), fragment: Some(out.len()) });
    }
    Ok(out)
}

/// What a link is made of. The page hands it to the engine worker, which makes the link
/// (`worker::pack_wire`): deflating is the worker's, so the page carries no compressor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LinkSource {
    Scenario { text: String, policies: Vec<Policy>, view: LinkView },
    Model(ModelLink),
    Trace { name: String, log: String, tree: Option<ClassTree> },
}

impl LinkSource {
    /// The fragment (without `#`), or why no link can carry it.
    pub fn encode(&self) -> Result<String, TooBigForLink> {
        match self {
            LinkSource::Scenario { text, policies, view } => encode(text, policies, view),
            LinkSource::Model(link) => Ok(encode_model(link)),
            LinkSource::Trace { name, log, tree } => encode_trace(name, log, tree.as_ref()),
        }
    }
}

/// The fragment (without `#`) for a model session.
pub fn encode_model(link: &ModelLink) -> String {
    let json = serde_json::to_string(link).unwrap_or_default();
    format!("m={MODEL_VERSION}.{}", base64url::encode(json.as_bytes()))
}

/// What a link was meant to open, so a refusal names the right thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    Scenario,
    Model,
    Trace,
}

/// Why a link was not loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkError {
    pub kind: LinkKind,
    pub problem: LinkProblem,
}

/// What is wrong with a link; its text completes "The link's scenario was not loaded: …".
#[derive(Clone, Debug, PartialEq)]
pub enum LinkProblem {
    TooLong {
        bytes: usize,
    },
    Policies(PolicyError),
    /// The payload has no `<version>.` prefix.
    NoVersion {
        kind: char,
    },
    UnknownVersion(u32),
    /// The version is not a number (its first characters).
    BadVersion(String),
    NotBase64(Base64Error),
    NotUtf8,
    /// A deflated text that does not unpack (damaged, or over [`MAX_LINK_TEXT`]).
    Packed(InflateError),
    /// The model settings are not the JSON of a model link.
    UnreadableModel(String),
    /// The model settings are refused by the page's knob checks.
    BadModel(LinkRefusal),
    /// `v=` names a speed the page does not offer (its first characters).
    Speed(String),
    /// `site=` is not a site name (its first characters).
    SiteName(String),
}

impl fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkProblem::TooLong { bytes } => write!(f, "it is {} KB long; at most {} KB is accepted", bytes / 1024, MAX_FRAGMENT / 1024),
            LinkProblem::Policies(e) => write!(f, "{e}"),
            LinkProblem::NoVersion { kind } => write!(f, "it has no format version (expected {kind}=1.…)"),
            LinkProblem::UnknownVersion(v) => write!(f, "it uses format version {v}, which this page does not read"),
            LinkProblem::BadVersion(v) => write!(f, "its format version `{v}` is not a number"),
            LinkProblem::NotBase64(e) => write!(f, "{e}"),
            LinkProblem::NotUtf8 => write!(f, "it is not UTF-8 text"),
            LinkProblem::Packed(e) => write!(f, "{e}"),
            LinkProblem::UnreadableModel(e) => write!(f, "its model settings are not readable ({e})"),
            LinkProblem::BadModel(why) => write!(f, "{why}"),
            LinkProblem::Speed(word) => {
                let offered: Vec<String> = SPEEDS.iter().map(|s| speed_word(*s)).collect();
                write!(f, "its speed `{word}` is not one the page offers ({})", offered.join(", "))
            }
            LinkProblem::SiteName(word) => write!(f, "its selected site `{word}` is not a site name"),
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            LinkKind::Scenario => "scenario",
            LinkKind::Model => "model run",
            LinkKind::Trace => "log",
        };
        write!(f, "The link's {what} was not loaded: {}", self.problem)
    }
}

/// A scenario wins when a fragment carries both; policies belong to scenarios.
fn link_kind(has_scenario: bool, has_model: bool) -> LinkKind {
    if !has_scenario && has_model {
        LinkKind::Model
    } else {
        LinkKind::Scenario
    }
}

/// What `decode` says of a fragment (without `#`) longer than `MAX_FRAGMENT`, from what the
/// page learns without copying it into wasm: its length and whether one of its `&` parts
/// starts with `s=` or `m=`.
pub fn refuse_oversize(bytes: usize, has_scenario: bool, has_model: bool) -> LinkError {
    LinkError { kind: link_kind(has_scenario, has_model), problem: LinkProblem::TooLong { bytes } }
}

/// Decode a location hash (with or without the leading `#`).
/// `Ok(None)` means the fragment carries no scenario at all (e.g. empty).
pub fn decode(fragment: &str) -> Result<Option<Link>, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut scenario = None;
    let mut model = None;
    let mut trace = None;
    let mut tree = None;
    let mut policies = None;
    let (mut speed, mut site) = (None, None);
    for part in fragment.split('&') {
        if let Some(v) = part.strip_prefix("s=") {
            scenario = Some(v);
        } else if let Some(v) = part.strip_prefix("m=") {
            model = Some(v);
        } else if let Some(v) = part.strip_prefix("t=") {
            trace = Some(v);
        } else if let Some(v) = part.strip_prefix("c=") {
            tree = Some(v);
        } else if let Some(v) = part.strip_prefix("p=") {
            policies = Some(v);
        } else if let Some(v) = part.strip_prefix("v=") {
            speed = Some(v);
        } else if let Some(v) = part.strip_prefix("site=") {
            site = Some(v);
        }
    }
    let kind = if trace.is_some() && scenario.is_none() && model.is_none() { LinkKind::Trace } else { link_kind(scenario.is_some(), model.is_some()) };
    let refuse = |problem: LinkProblem| LinkError { kind, problem };
    if fragment.len() > MAX_FRAGMENT {
        return Err(refuse(LinkProblem::TooLong { bytes: fragment.len() }));
    }
    let policies = match policies {
        Some(names) => parse_policies(names).map_err(|e| refuse(LinkProblem::Policies(e)))?,
        None => Vec::new(),
    };
    let view = LinkView {
        speed: speed.map(|w| read_speed(w).ok_or_else(|| refuse(LinkProblem::Speed(truncate(w, 12))))).transpose()?,
        site: site.map(|w| if site_word(w) { Ok(w.to_string()) } else { Err(refuse(LinkProblem::SiteName(truncate(w, 40)))) }).transpose()?,
    };
    match (scenario, model) {
        (Some(payload), _) => decode_scenario(payload, policies, view).map(|s| Some(Link::Scenario(s))).map_err(refuse),
        (None, Some(payload)) => decode_model(payload).map(|m| Some(Link::Model(m))).map_err(refuse),
        (None, None) => trace.map(|payload| decode_trace(payload, tree).map(Link::Trace).map_err(refuse)).transpose(),
    }
}

/// The text behind `<version>.<base64url>`: version 1 plain, 2 deflated (scenarios only); a
/// log (`t`) and its class tree (`c`) are deflated from their first version.
fn payload_text(payload: &str, kind: char) -> Result<String, LinkProblem> {
    let (version, data) = payload.split_once('.').ok_or(LinkProblem::NoVersion { kind })?;
    let packed = match (version.parse::<u32>(), kind) {
        (Ok(1), 't' | 'c') => true,
        (Ok(1), _) => false,
        (Ok(2), 's') => true,
        (Ok(v), _) => return Err(LinkProblem::UnknownVersion(v)),
        (Err(_), _) => return Err(LinkProblem::BadVersion(truncate(version, 12))),
    };
    let bytes = base64url::decode(data.trim_end_matches('=')).map_err(LinkProblem::NotBase64)?;
    if packed {
        return deflate::inflate(&bytes, MAX_LINK_TEXT).map_err(|e| match e {
            InflateError::NotUtf8 { .. } => LinkProblem::NotUtf8,
            e => LinkProblem::Packed(e),
        });
    }
    String::from_utf8(bytes).map_err(|_| LinkProblem::NotUtf8)
}

fn decode_scenario(payload: &str, policies: Vec<Policy>, view: LinkView) -> Result<Shared, LinkProblem> {
    Ok(Shared { text: payload_text(payload, 's')?, policies, view })
}

fn decode_model(payload: &str) -> Result<ModelLink, LinkProblem> {
    let json = payload_text(payload, 'm')?;
    let link: ModelLink = serde_json::from_str(&json).map_err(|e| LinkProblem::UnreadableModel(e.to_string()))?;
    model_mode::resolve(&link).map_err(LinkProblem::BadModel)?;
    Ok(link)
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::presets;

    #[test]
    fn a_small_log_travels_whole_and_a_big_one_is_refused_at_copy() {
        let dir = format!("{}/../../probes/traces/logs", env!("CARGO_MANIFEST_DIR"));
        let small = std::fs::read_to_string(format!("{dir}/hotspot-cha-break.log")).unwrap();
        let fragment = encode_trace("cha\nbreak.log", &small, None).unwrap();
        assert!(fragment.len() <= MAX_FRAGMENT);
        assert_eq!(decode(&format!("#{fragment}")).unwrap(), Some(Link::Trace(TraceLink { name: "chabreak.log".into(), log: small.clone(), tree: None })));
        // With its class tree, which its replay needs.
        let tree = ClassTree { name: "hotspot-cha-break.classes".into(), text: std::fs::read_to_string(format!("{dir}/hotspot-cha-break.classes")).unwrap() };
        let fragment = encode_trace("hotspot-cha-break.log", &small, Some(&tree)).unwrap();
        assert!(fragment.len() <= MAX_FRAGMENT && fragment.contains("&c=1."));
        assert_eq!(
            decode(&format!("#{fragment}")).unwrap(),
            Some(Link::Trace(TraceLink { name: "hotspot-cha-break.log".into(), log: small, tree: Some(tree) }))
        );
        assert!(decode(&format!("#{}&c=1.AAAA", encode_trace("x.log", "v8-version,1\n", None).unwrap())).is_err(), "a damaged tree is refused, not dropped");
        let big = std::fs::read_to_string(format!("{dir}/v8-proto-write.log")).unwrap();
        let refused = encode_trace("v8.log", &big, None).unwrap_err();
        assert!(refused.fragment.is_some_and(|n| n > MAX_FRAGMENT), "{refused:?}");
        let damaged = decode("#t=1.AAAA").unwrap_err();
        assert_eq!(damaged.kind, LinkKind::Trace);
        assert!(damaged.to_string().starts_with("The link's log was not loaded:"), "{damaged}");
    }

    fn encoded(text: &str) -> String {
        format!("#s=1.{}", base64url::encode(text.as_bytes()))
    }

    #[test]
    fn round_trips_every_preset_with_policies() {
        for p in presets::all() {
            let frag = encode(p.text, &[Policy::Global, Policy::Exact], &LinkView::default()).unwrap();
            let Some(Link::Scenario(shared)) = decode(&format!("#{frag}")).expect("decodes") else { panic!("a scenario link") };
            assert_eq!(shared.text, p.text);
            assert_eq!(shared.policies, vec![Policy::Global, Policy::Exact]);
        }
    }

    #[test]
    fn fragment_is_url_safe() {
        let frag = encode(presets::all()[0].text, &[Policy::Exact], &LinkView::default()).unwrap();
        assert!(frag.chars().all(|c| c.is_ascii_alphanumeric() || "-_.=&,".contains(c)), "{frag}");
    }

    #[test]
    fn empty_or_foreign_fragments_carry_nothing() {
        assert_eq!(decode(""), Ok(None));
        assert_eq!(decode("#"), Ok(None));
        assert_eq!(decode("#section-2"), Ok(None));
    }

    fn problem(fragment: &str) -> LinkProblem {
        decode(fragment).unwrap_err().problem
    }

    #[test]
    fn garbage_is_an_error() {
        assert_eq!(problem("#s=1.!!!not base64!!!"), LinkProblem::NotBase64(Base64Error::BadCharacter { at: 0, byte: b'!' }));
        assert_eq!(problem("#s=garbage"), LinkProblem::NoVersion { kind: 's' });
        assert_eq!(problem("#s=x.AAAA"), LinkProblem::BadVersion("x".into()));
        assert_eq!(problem("#s=9.AAAA"), LinkProblem::UnknownVersion(9));
        assert_eq!(problem(&format!("#s=1.{}", base64url::encode(&[0xff, 0xfe, 0x00]))), LinkProblem::NotUtf8);
        assert!(matches!(problem("#s=1.AAAA&p=evil"), LinkProblem::Policies(_)));
    }

    #[test]
    fn a_huge_version_is_an_error() {
        let version = format!("#s={}.AAAA", "9".repeat(40));
        assert!(decode(&version).is_err());
    }

    #[test]
    fn model_links_round_trip_and_hostile_ones_are_errors() {
        let link =
            ModelLink { preset: "records_rotating11".into(), knobs: vec![("shapes".into(), "12".into())], variants: vec!["fifo".into(), "unbounded".into()] };
        let frag = encode_model(&link);
        assert!(frag.starts_with("m=1.") && frag.chars().all(|c| c.is_ascii_alphanumeric() || "-_.=".contains(c)), "{frag}");
        assert_eq!(decode(&format!("#{frag}")), Ok(Some(Link::Model(link))));
        let model = |json: &str| problem(&format!("#m=1.{}", base64url::encode(json.as_bytes())));
        let refused = |json: &str| match model(json) {
            LinkProblem::BadModel(why) => why.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(matches!(model("{not json"), LinkProblem::UnreadableModel(_)));
        assert!(matches!(model("[]"), LinkProblem::UnreadableModel(_)));
        assert!(refused(r#"{"preset":"nope"}"#).contains("no model preset"));
        assert!(refused(r#"{"preset":"arena_scaling16","knobs":[["threads","100000"]]}"#).contains("between"));
        assert!(refused(r#"{"preset":"arena_scaling16","knobs":[["evil","1"]]}"#).contains("not a knob"));
        assert!(refused(r#"{"preset":"arena_scaling16","variants":["x"]}"#).contains("not a variant"));
        assert_eq!(problem("#m=2.AAAA"), LinkProblem::UnknownVersion(2));
        assert!(matches!(problem("#m=1.!!!"), LinkProblem::NotBase64(_)));
    }

    #[test]
    fn refusals_name_what_the_link_carried() {
        let model = decode("#m=1.!!!").unwrap_err();
        assert_eq!(model.kind, LinkKind::Model);
        assert!(model.to_string().starts_with("The link's model run was not loaded: `!` at offset 0 is not a character a link's data holds"), "{model}");
        let hostile_knob =
            decode(&format!("#m=1.{}", base64url::encode(r#"{"preset":"arena_scaling16","knobs":[["threads","100000"]]}"#.as_bytes()))).unwrap_err();
        assert!(
            hostile_knob.to_string().starts_with("The link's model run was not loaded: ") && matches!(hostile_knob.problem, LinkProblem::BadModel(_)),
            "{hostile_knob}"
        );
        let huge_model = format!("#m=1.{}", "A".repeat(MAX_FRAGMENT + 1));
        assert_eq!(decode(&huge_model).unwrap_err().kind, LinkKind::Model);
        let scenario = decode("#s=1.!!!").unwrap_err();
        assert!(scenario.to_string().starts_with("The link's scenario was not loaded: "), "{scenario}");
        assert_eq!(decode("#m=1.AAAA&s=1.!!!").unwrap_err().kind, LinkKind::Scenario, "the scenario wins, as when decoding");
    }

    /// The issue's chain: `class C0 { m }` then `class Ci extends C(i-1)`, one site on the deepest.
    fn chain(n: usize) -> String {
        let mut t = String::from("class C0 { m }\n");
        for i in 1..n {
            t.push_str(&format!("class C{i} extends C{}\n", i - 1));
        }
        t + &format!("site s = C{}.m\nop {{ loop 10 {{ every 5 {{ write C0.m }} call s }} }}\n", n - 1)
    }

    #[test]
    fn a_five_thousand_class_chain_fits_a_link() {
        let text = chain(5000);
        let frag = encode(&text, &[Policy::Global, Policy::Exact], &LinkView::default()).expect("fits");
        // Measured: 5,000 classes are 127,838 bytes of text; version 1 (base64url of the text)
        // was 170 KB, over the limit; deflated the fragment is 28,963 characters.
        assert!(text.len() > 120_000 && frag.len() < 32 * 1024, "{} -> {}", text.len(), frag.len());
        let Some(Link::Scenario(shared)) = decode(&format!("#{frag}")).unwrap() else { panic!("a scenario link") };
        assert_eq!(shared.text, text);
        // A preset shrinks too (the smallest gain is on the shortest text).
        let p = presets::find("hotLoop_unrelatedMetaClassChurn").unwrap();
        let plain = format!("s=1.{}", base64url::encode(p.text.as_bytes()));
        assert!(
            encode(p.text, &[], &LinkView::default()).unwrap().len() < plain.len(),
            "{} vs {}",
            encode(p.text, &[], &LinkView::default()).unwrap().len(),
            plain.len()
        );
    }

    /// Class names that deflate cannot predict, so the fragment grows with every class.
    fn noisy(n: usize) -> String {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut t = String::new();
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t.push_str(&format!("class K{x:x} {{ m }}\n"));
        }
        t + "class A { m }\nsite s = A.m\nop { loop 10 { call s } }\n"
    }

    #[test]
    fn the_writer_and_the_reader_share_one_limit() {
        // The most classes whose link is written: found by bisection over the writer alone.
        let (mut lo, mut hi) = (1, 20_000);
        assert!(encode(&noisy(lo), &[], &LinkView::default()).is_ok() && encode(&noisy(hi), &[], &LinkView::default()).is_err());
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if encode(&noisy(mid), &[], &LinkView::default()).is_ok() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // The longest link written is read (not refused for its length) ...
        let longest = encode(&noisy(lo), &[], &LinkView::default()).unwrap();
        assert!(longest.len() <= MAX_FRAGMENT && longest.len() > MAX_FRAGMENT - 1024, "{}", longest.len());
        assert!(matches!(decode(&format!("#{longest}")), Ok(Some(Link::Scenario(_)))));
        // ... and the one the writer refused is refused by the reader for the same reason.
        let refused = encode(&noisy(hi), &[], &LinkView::default()).unwrap_err();
        let fragment = format!("s={VERSION}.{}", base64url::encode(&deflate::deflate(&noisy(hi))));
        assert_eq!(refused, TooBigForLink { text: noisy(hi).len(), fragment: Some(fragment.len()) });
        assert_eq!(problem(&format!("#{fragment}")), LinkProblem::TooLong { bytes: fragment.len() });
        assert!(refused.to_string().contains("Download the scenario file"), "{refused}");
        // A text over what a link unpacks to is refused by both, before any packing.
        let huge = "#".repeat(MAX_LINK_TEXT + 1);
        assert_eq!(encode(&huge, &[], &LinkView::default()), Err(TooBigForLink { text: MAX_LINK_TEXT + 1, fragment: None }));
        let bomb = format!("#s=2.{}", base64url::encode(&deflate::deflate(&huge)));
        assert!(bomb.len() < MAX_FRAGMENT, "{}", bomb.len());
        assert_eq!(problem(&bomb), LinkProblem::Packed(InflateError::TooLong { limit: MAX_LINK_TEXT }));
    }

    #[test]
    fn old_plain_links_still_open_and_damaged_packed_ones_are_errors() {
        let p = presets::all()[0];
        let Some(Link::Scenario(shared)) = decode(&encoded(p.text)).unwrap() else { panic!("a scenario link") };
        assert_eq!(shared.text, p.text);
        assert_eq!(problem("#s=2.AAAA"), LinkProblem::Packed(InflateError::Corrupt));
        let frag = encode(p.text, &[], &LinkView::default()).unwrap();
        // Cut at a whole base64 quantum, so only the deflate stream is cut short.
        assert_eq!(problem(&format!("#{}", &frag[..(frag.len() / 2) & !3])), LinkProblem::Packed(InflateError::Corrupt));
        assert_eq!(problem(&format!("#s=2.{}", base64url::encode(&deflate::deflate("ok")[..0]))), LinkProblem::Packed(InflateError::Corrupt));
    }

    #[test]
    fn oversized_fragments_are_refused_before_decoding() {
        let huge = format!("#s=1.{}", "A".repeat(MAX_FRAGMENT + 1));
        assert_eq!(problem(&huge), LinkProblem::TooLong { bytes: huge.len() - 1 });
        // The page refuses these from their length and part prefixes alone: the same error.
        let body = "A".repeat(MAX_FRAGMENT + 1);
        for (fragment, has_s, has_m) in [
            (format!("s=1.{body}"), true, false),
            (format!("m=1.{body}"), false, true),
            (format!("m=1.{body}&s=1.AA"), true, true),
            (format!("p=global&m=1.{body}"), false, true),
        ] {
            assert_eq!(decode(&format!("#{fragment}")).unwrap_err(), refuse_oversize(fragment.len(), has_s, has_m), "{}", &fragment[..8]);
        }
    }

    #[test]
    fn a_links_speed_and_site_round_trip_and_strangers_values_are_refused() {
        let text = presets::all()[0].text;
        for speed in SPEEDS {
            let view = LinkView { speed: Some(speed), site: Some("hot_1".into()) };
            let frag = encode(text, &[Policy::Exact], &view).unwrap();
            let Ok(Some(Link::Scenario(shared))) = decode(&frag) else { panic!("{frag}") };
            assert_eq!(shared.view, view, "{frag}");
        }
        // A link written before these fields opens with none.
        let Ok(Some(Link::Scenario(shared))) = decode(&encode(text, &[], &LinkView::default()).unwrap()) else { panic!("plain") };
        assert_eq!(shared.view, LinkView::default());
        let with = |extra: &str| decode(&format!("{}{extra}", encode(text, &[], &LinkView::default()).unwrap()));
        let refused = |extra: &str| with(extra).expect_err(extra).to_string();
        assert!(refused("&v=2e127").contains("its speed `2e127` is not one the page offers (0.0001,"), "{}", refused("&v=2e127"));
        assert!(refused("&v=").contains("speed ``"));
        assert!(refused("&site=<script>").contains("its selected site `<script>` is not a site name"));
        assert!(refused(&format!("&site={}", "a".repeat(MAX_LINK_SITE + 1))).contains("is not a site name"));
        // A name that cannot stand in a link is left out when writing, never written broken.
        let odd = LinkView { speed: None, site: Some("a&b=c".into()) };
        assert!(!encode(text, &[], &odd).unwrap().contains("site="));
    }
}
