//! Model mode: the page showing one of the engine's other models (shape cache, shared arena,
//! descriptor cache) instead of a call-site scenario.
//!
//! A `ModelSession` is the part of the page state that model mode adds: the preset, the knob
//! settings, the selected variants and their replay. `AppState::reduce` hands it the run
//! controls while it is open (it is a `playback::Replay`, so they take the same path as the
//! call-site lanes'); links and the autosave carry it as a `ModelLink`, which is
//! checked here like any other user input.

use std::fmt;
use std::rc::Rc;

use blast_engine::expect::model::{self as model_expect, ModelOutcome, Placed};
use blast_engine::models::{self, ModelConfig, ModelPreset, ModelReport};
use serde::{Deserialize, Serialize};

use crate::effects::Effects;
use crate::model_knobs::{self, KnobRefusal};
use crate::model_runner::{ModelRunner, VariantView};
use crate::playback::{self, Control, Playback, Replay, RunRefusal, Speed};

/// Most knob settings a link may carry (a model has at most four knobs).
pub const MAX_KNOB_SETTINGS: usize = 16;

/// How a model session travels in share links and the autosave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelLink {
    pub preset: String,
    /// Knob settings in the order they were applied (a later one may reset an earlier one).
    #[serde(default)]
    pub knobs: Vec<(String, String)>,
    /// The selected variants; empty = all.
    #[serde(default)]
    pub variants: Vec<String>,
}

/// A link's preset, configuration and variants, all checked.
#[derive(Debug)]
pub struct Resolved {
    pub preset: &'static ModelPreset,
    pub config: ModelConfig,
    pub variants: Vec<&'static str>,
}

fn shorten(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Why a model link (or autosave) does not open; its words complete "the model was not loaded: …".
#[derive(Clone, Debug, PartialEq)]
pub enum LinkRefusal {
    /// No model preset has this id (shortened).
    NoPreset(String),
    /// More knob settings than [`MAX_KNOB_SETTINGS`].
    TooManyKnobs(usize),
    Knob(KnobRefusal),
    /// A variant (shortened) the preset does not have.
    NotAVariant {
        variant: String,
        preset: &'static str,
        variants: Vec<&'static str>,
    },
}

impl fmt::Display for LinkRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkRefusal::NoPreset(id) => write!(f, "there is no model preset `{id}`"),
            LinkRefusal::TooManyKnobs(n) => write!(f, "it sets {n} knobs; at most {MAX_KNOB_SETTINGS} are accepted"),
            LinkRefusal::Knob(why) => why.fmt(f),
            LinkRefusal::NotAVariant { variant, preset, variants } => write!(f, "`{variant}` is not a variant of {preset} (it has {})", variants.join(", ")),
        }
    }
}

/// Why a variant was not toggled.
#[derive(Clone, Debug, PartialEq)]
pub enum VariantRefusal {
    /// Not a variant of this model (shortened).
    Unknown(String),
    /// The last selected variant stays.
    LastOne,
}

impl fmt::Display for VariantRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantRefusal::Unknown(name) => write!(f, "`{name}` is not a variant of this model."),
            VariantRefusal::LastOne => f.write_str("At least one variant must stay selected."),
        }
    }
}

/// Check a link the way the page would load it.
pub fn resolve(link: &ModelLink) -> Result<Resolved, LinkRefusal> {
    let preset = models::find(&link.preset).ok_or_else(|| LinkRefusal::NoPreset(shorten(&link.preset)))?;
    if link.knobs.len() > MAX_KNOB_SETTINGS {
        return Err(LinkRefusal::TooManyKnobs(link.knobs.len()));
    }
    let config = model_knobs::set_all(&preset.config(), &link.knobs).map_err(LinkRefusal::Knob)?;
    if let Some(unknown) = link.variants.iter().find(|v| !config.variants().contains(&v.as_str())) {
        return Err(LinkRefusal::NotAVariant { variant: shorten(unknown), preset: preset.id, variants: config.variants().to_vec() });
    }
    let variants = config.variants().iter().copied().filter(|v| link.variants.is_empty() || link.variants.iter().any(|x| x == v)).collect();
    Ok(Resolved { preset, config, variants })
}

/// The outcomes against the finished runs; a variant not selected or not finished is pending.
pub fn outcomes(placed: &[Placed], views: &[Rc<VariantView>]) -> Vec<ModelOutcome> {
    let runs: Vec<(&str, &ModelReport)> = views.iter().filter_map(|v| Some((v.variant, v.result()?))).collect();
    let exps: Vec<_> = placed.iter().map(|p| p.expectation.clone()).collect();
    model_expect::evaluate(&exps, &runs)
}

/// What model mode's knobs and variants are asked (`ModelSession::reduce`; without a model on
/// screen they do nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum ModelAction {
    /// A model knob as typed.
    SetKnob {
        knob: String,
        value: String,
    },
    ToggleVariant(String),
}

/// A knob value that was refused: what was typed and why.
#[derive(Clone, Debug, PartialEq)]
pub struct KnobError {
    pub knob: String,
    pub text: String,
    pub message: String,
}

pub struct ModelSession {
    pub preset: &'static ModelPreset,
    /// Knob settings in the order they were applied.
    pub knobs: Vec<(String, String)>,
    pub knob_error: Option<KnobError>,
    pub variants: Vec<&'static str>,
    pub runner: ModelRunner,
    pub playback: Playback,
    /// Views for the costly panels (charts, comparison), refreshed like the call-site session's
    /// `slow_lanes`.
    pub slow_views: Vec<Rc<VariantView>>,
}

impl ModelSession {
    /// A paused session; at `Speed::Max` it stays there, otherwise a speed is fitted to the runs.
    pub fn open(resolved: Resolved, knobs: Vec<(String, String)>, speed: Speed) -> ModelSession {
        let runner = ModelRunner::new(resolved.config, &resolved.variants);
        ModelSession {
            preset: resolved.preset,
            knobs,
            knob_error: None,
            slow_views: runner.views().to_vec(),
            variants: resolved.variants,
            runner,
            playback: Playback::new(speed, speed != Speed::Max),
        }
    }

    pub fn link(&self) -> ModelLink {
        ModelLink { preset: self.preset.id.to_string(), knobs: self.knobs.clone(), variants: self.variants.iter().map(|v| v.to_string()).collect() }
    }

    pub fn config(&self) -> &ModelConfig {
        self.runner.config()
    }

    pub fn reduce(&mut self, action: ModelAction, fx: &mut Effects) {
        match action {
            ModelAction::SetKnob { knob, value } => self.set_knob(knob, value),
            ModelAction::ToggleVariant(name) => {
                if let Err(why) = self.toggle_variant(&name) {
                    fx.info(why.to_string());
                }
            }
        }
    }

    /// A knob typed by the user: a valid value re-runs the model and replays it.
    pub fn set_knob(&mut self, knob: String, text: String) {
        match model_knobs::set(self.config(), &knob, &text) {
            Ok(config) => {
                self.knob_error = None;
                self.knobs.retain(|(name, _)| *name != knob);
                self.knobs.push((knob, text.trim().to_string()));
                self.replace_runner(config);
                // A fresh replay is never finished and never refused.
                let _ = playback::control(self, Control::Play);
            }
            Err(why) => self.knob_error = Some(KnobError { knob, text, message: why.to_string() }),
        }
    }

    /// Returns why not, when the last selected variant would be dropped.
    pub fn toggle_variant(&mut self, name: &str) -> Result<(), VariantRefusal> {
        let Some(&variant) = self.config().variants().iter().find(|v| **v == name) else {
            return Err(VariantRefusal::Unknown(shorten(name)));
        };
        if self.variants.contains(&variant) {
            if self.variants.len() == 1 {
                return Err(VariantRefusal::LastOne);
            }
            self.variants.retain(|v| *v != variant);
        } else {
            self.variants.push(variant);
        }
        let all = self.config().variants();
        crate::order::sort_by_key(&mut self.variants, |v| all.iter().position(|x| x == v));
        self.replace_runner(self.config().clone());
        Ok(())
    }

    /// The variant at `index` among the model's variants (the `1`…`5` keys).
    pub fn variant_at(&self, index: usize) -> Option<&'static str> {
        self.config().variants().get(index).copied()
    }

    fn replace_runner(&mut self, config: ModelConfig) {
        self.playback.stop();
        self.runner = ModelRunner::new(config, &self.variants);
        self.slow_views = self.runner.views().to_vec();
    }
}

impl Replay for ModelSession {
    fn playback(&mut self) -> &mut Playback {
        &mut self.playback
    }

    fn finished(&self) -> bool {
        self.runner.finished()
    }

    fn rewind(&mut self) {
        self.runner.rewind();
        self.after_commands();
    }

    fn refusal(&self) -> Option<RunRefusal> {
        None
    }

    fn step(&mut self) -> Option<String> {
        self.runner.step();
        None
    }

    fn advance_clock(&mut self, virtual_ms: f64) {
        self.runner.advance_clock(virtual_ms);
    }

    /// One engine run per chunk: a model run is worth many call-site steps.
    fn work(&mut self, _max_steps: usize) -> bool {
        self.runner.work(1)
    }

    fn end_frame(&mut self) -> bool {
        self.runner.end_frame()
    }

    fn refresh_slow_views(&mut self) {
        self.slow_views = self.runner.views().to_vec();
    }

    fn after_commands(&mut self) {
        self.runner.refresh();
        self.refresh_slow_views();
    }

    fn length_ms(&self) -> Option<f64> {
        self.runner.runs_done().then(|| self.runner.longest_ms())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(preset: &str) -> ModelLink {
        ModelLink { preset: preset.into(), knobs: Vec::new(), variants: Vec::new() }
    }

    fn session(preset: &str) -> ModelSession {
        ModelSession::open(resolve(&link(preset)).expect("resolves"), Vec::new(), Speed::Factor(0.1))
    }

    #[test]
    fn every_model_preset_resolves_with_all_variants() {
        for p in models::MODEL_PRESETS {
            let r = resolve(&link(p.id)).expect(p.id);
            assert_eq!(r.variants, r.config.variants());
        }
    }

    #[test]
    fn bad_links_are_messages() {
        assert!(resolve(&link("nope")).unwrap_err().to_string().contains("no model preset"));
        let mut l = link("records_rotating11");
        l.variants = vec!["fifo".into(), "evil".into()];
        assert!(resolve(&l).unwrap_err().to_string().contains("not a variant"));
        l.variants = vec!["unbounded".into(), "fifo".into()];
        assert_eq!(resolve(&l).unwrap().variants, ["fifo", "unbounded"], "the model's order");
        l.knobs = vec![("shapes".into(), "0".into())];
        assert!(resolve(&l).unwrap_err().to_string().contains("between"));
        l.knobs = vec![("ops".into(), "1".into()); MAX_KNOB_SETTINGS + 1];
        assert!(resolve(&l).unwrap_err().to_string().contains("at most"));
    }

    #[test]
    fn the_speed_is_fitted_to_the_longest_run() {
        let mut s = session("descriptor_treeMap");
        playback::control(&mut s, Control::Step).unwrap();
        assert_eq!(s.playback.speed, Speed::Factor(0.0001), "1.2 ms of virtual time replays in about 12 s");
        let mut s = session("descriptor_treeMap");
        playback::control(&mut s, Control::SetSpeed(Speed::Factor(1.0))).unwrap();
        playback::control(&mut s, Control::Step).unwrap();
        assert_eq!(s.playback.speed, Speed::Factor(1.0), "a speed the user picked stays");
    }

    #[test]
    fn a_knob_change_reruns_and_a_bad_one_is_kept_with_its_message() {
        let mut s = session("records_rotating11");
        s.set_knob("shapes".into(), "10".into());
        assert!(s.playback.playing && s.knob_error.is_none());
        assert_eq!(model_knobs::value(s.config(), "shapes"), Some(10));
        s.set_knob("shapes".into(), "lots".into());
        let e = s.knob_error.clone().expect("refused");
        assert_eq!((e.knob.as_str(), e.text.as_str()), ("shapes", "lots"));
        assert_eq!(model_knobs::value(s.config(), "shapes"), Some(10), "the last valid value stays");
        s.set_knob("capacity".into(), "12".into());
        s.set_knob("shapes".into(), "11".into());
        assert_eq!(s.link().knobs, [("capacity".to_string(), "12".to_string()), ("shapes".to_string(), "11".to_string())]);
    }

    #[test]
    fn variants_toggle_in_model_order_and_never_empty() {
        let mut s = session("descriptor_treeMap");
        assert!(s.toggle_variant("good").is_ok());
        assert!(s.toggle_variant("good").is_ok());
        assert_eq!(s.variants, ["good", "broken", "fixed"]);
        assert!(s.toggle_variant("broken").is_ok() && s.toggle_variant("fixed").is_ok());
        assert!(s.toggle_variant("good").is_err());
        assert!(s.toggle_variant("nope").is_err());
        assert_eq!(s.runner.views().len(), 1);
        assert_eq!(s.variant_at(1), Some("broken"));
    }

    #[test]
    fn play_runs_the_frames_to_the_end_and_reset_rewinds() {
        let mut s = session("arena_closeGroup");
        playback::play_to_end(&mut s);
        assert!(s.runner.finished());
        assert!(s.slow_views.iter().all(|v| v.result().is_some()));
        playback::control(&mut s, Control::Reset).unwrap();
        assert!(!s.runner.finished() && s.runner.clock_ms() == 0.0);
    }

    /// A session run to its end: every preset's expectations pass in the page's own state.
    #[test]
    fn every_model_preset_passes_its_expectations_once_its_variants_have_run() {
        for preset in blast_engine::models::MODEL_PRESETS {
            let link = ModelLink { preset: preset.id.into(), knobs: Vec::new(), variants: Vec::new() };
            let mut m = ModelSession::open(resolve(&link).unwrap(), Vec::new(), Speed::Factor(0.1));
            playback::play_to_end(&mut m);
            let placed = model_expect::of_preset(preset).unwrap();
            for o in outcomes(&placed, &m.slow_views) {
                assert_eq!(o.status, blast_engine::expect::Status::Pass, "{}: {} {:?}", preset.id, placed[o.index].expectation, o.observed);
            }
        }
    }
}
