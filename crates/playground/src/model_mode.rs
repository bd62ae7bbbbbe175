//! Model mode: the page showing one of the engine's other models (shape cache, shared arena,
//! descriptor cache) instead of a call-site scenario.
//!
//! A `ModelSession` is the part of the page state that model mode adds: the preset, the knob
//! settings, the selected variants and their replay, which the engine worker runs (the page
//! keeps a `model_mirror::ModelMirror` of it). `AppState::reduce` hands it the run
//! controls while it is open (it is a `playback::Replay`, so they take the same path as the
//! call-site lanes'); links and the autosave carry it as a `ModelLink`, which is
//! checked here like any other user input.

use std::fmt;
use std::rc::Rc;

use blast_engine::models::{self, ModelConfig, ModelPreset};
use serde::{Deserialize, Serialize};

use crate::effects::Effects;
use crate::model_knobs::{self, KnobRefusal};
use crate::model_runner::VariantView;
use crate::playback::{self, Control, Playback, Replay, RunRefusal, Speed};
use crate::worker::model_mirror::ModelMirror;
use crate::worker::model_wire::{Checked, Request};

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
    /// The engine worker's update of the replay (`model_wire`), as it came.
    Replayed(Vec<u8>),
    /// The engine worker stopped (or never started) while the replay was out: why.
    Lost(String),
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
    /// The replay the engine worker runs, as the page mirrors it.
    pub runner: ModelMirror,
    pub playback: Playback,
    /// Views for the costly panels (charts, comparison), refreshed like the call-site session's
    /// `slow_lanes`.
    pub slow_views: Vec<Rc<VariantView>>,
    /// The preset's expectations as the worker checked them against `slow_views`.
    pub slow_expectations: Rc<Checked>,
}

impl ModelSession {
    /// A paused session; at `Speed::Max` it stays there, otherwise a speed is fitted to the runs.
    /// `opening`: which model session of the page this is (its replays are numbered under it,
    /// so an update of an earlier session's replay is never taken for one of this one's).
    pub fn open(resolved: Resolved, knobs: Vec<(String, String)>, speed: Speed, opening: u64) -> ModelSession {
        let runner = ModelMirror::open(opening << 32, resolved.config, &resolved.variants, resolved.preset.expectations);
        ModelSession {
            preset: resolved.preset,
            knobs,
            knob_error: None,
            slow_views: runner.views().to_vec(),
            slow_expectations: runner.expectations().clone(),
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
            ModelAction::Replayed(bytes) => match self.runner.apply(&bytes) {
                Ok(None) => {
                    // Paused, or a Step's answer: the costly panels show it at once.
                    if !self.playback.playing {
                        self.refresh_slow_views();
                    }
                    playback::fit_speed(self);
                }
                Ok(Some(why)) => self.lost(&why, fx),
                Err(e) => self.lost(&format!("its update is unreadable ({e})"), fx),
            },
            ModelAction::Lost(why) => self.lost(&why, fx),
        }
    }

    /// The replay is gone with the worker (or it refused): paused, and said.
    fn lost(&mut self, why: &str, fx: &mut Effects) {
        self.playback.stop();
        fx.error(format!("The model's replay stopped: {why}"));
    }

    /// The replay's commands to post to the engine worker now.
    pub fn take_request(&mut self) -> Option<Request> {
        self.runner.take_request()
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
        self.runner = ModelMirror::open(self.runner.run() + 1, config, &self.variants, self.preset.expectations);
        self.refresh_slow_views();
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

    /// The engine works in the worker: nothing to wait for here.
    fn work(&mut self, _max_steps: usize) -> bool {
        true
    }

    fn end_frame(&mut self) -> bool {
        self.runner.settle();
        self.runner.finished()
    }

    fn refresh_slow_views(&mut self) {
        self.slow_views = self.runner.views().to_vec();
        self.slow_expectations = self.runner.expectations().clone();
    }

    fn after_commands(&mut self) {
        self.refresh_slow_views();
    }

    fn length_ms(&self) -> Option<f64> {
        self.runner.length_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::in_process;

    fn link(preset: &str) -> ModelLink {
        ModelLink { preset: preset.into(), knobs: Vec::new(), variants: Vec::new() }
    }

    fn session(preset: &str) -> ModelSession {
        let mut s = ModelSession::open(resolve(&link(preset)).expect("resolves"), Vec::new(), Speed::Factor(0.1), 1);
        answer(&mut s);
        s
    }

    /// What the session asked of the engine worker, answered as the page's shell does.
    fn answer(s: &mut ModelSession) {
        in_process::pump_model(s, &mut Effects::default());
    }

    fn control(s: &mut ModelSession, control: Control) {
        playback::control(s, control).expect("a control");
        answer(s);
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
        assert_eq!(s.playback.speed, Speed::Factor(0.1), "not fitted before the worker says how long the runs are");
        answer(&mut s);
        assert_eq!(s.playback.speed, Speed::Factor(0.0001), "1.2 ms of virtual time replays in about 12 s");
        let mut s = session("descriptor_treeMap");
        control(&mut s, Control::SetSpeed(Speed::Factor(1.0)));
        control(&mut s, Control::Step);
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
        playback::play_to_end(&mut s, answer);
        assert!(s.runner.finished());
        assert!(s.slow_views.iter().all(|v| v.result().is_some()));
        control(&mut s, Control::Reset);
        assert!(!s.runner.finished() && s.runner.clock_ms() == 0.0);
        assert!(s.runner.views().iter().all(|v| v.revealed == 0 && v.report.is_some()), "the runs are kept");
    }

    #[test]
    fn a_step_shows_the_first_point_of_every_variant_once_the_worker_answers() {
        let mut s = session("descriptor_treeMap");
        assert!(s.runner.views().iter().all(|v| v.report.is_none() && v.revealed == 0), "nothing run before a command");
        playback::control(&mut s, Control::Step).unwrap();
        assert!(s.runner.views().iter().all(|v| v.revealed == 0), "the page runs nothing itself");
        answer(&mut s);
        assert!(s.runner.views().iter().all(|v| v.revealed == 1 && v.report.is_some()));
        assert_eq!(s.slow_views, s.runner.views(), "paused: the costly panels show the step");
    }

    /// Another replay took the worker's place (one replay at a time): this one stops, with why.
    #[test]
    fn a_replay_the_worker_no_longer_runs_pauses_with_a_banner() {
        let mut s = session("arena_closeGroup");
        let mut other = ModelSession::open(resolve(&link("descriptor_treeMap")).unwrap(), Vec::new(), Speed::Factor(0.1), 2);
        answer(&mut other);
        playback::control(&mut s, Control::Play).unwrap();
        s.runner.step();
        let mut fx = Effects::default();
        in_process::pump_model(&mut s, &mut fx);
        assert!(!s.playback.playing);
        assert!(fx.banners.iter().any(|(_, text)| text.contains("no longer runs this replay")), "{:?}", fx.banners);
    }

    /// A session run to its end: every preset's expectations pass in the page's own state, as
    /// the worker checked them; before any run has finished, every one is pending.
    #[test]
    fn every_model_preset_passes_its_expectations_once_its_variants_have_run() {
        use blast_engine::expect::Status;
        for preset in blast_engine::models::MODEL_PRESETS {
            let link = ModelLink { preset: preset.id.into(), knobs: Vec::new(), variants: Vec::new() };
            let mut m = ModelSession::open(resolve(&link).unwrap(), Vec::new(), Speed::Factor(0.1), 1);
            let lines = blast_engine::expect::model::of_preset(preset).unwrap().len();
            in_process::pump_model(&mut m, &mut Effects::default());
            m.refresh_slow_views();
            let first = &m.slow_expectations;
            assert!(first.rows.len() == lines && first.rows.iter().all(|r| r.status == Status::Pending), "{}: {first:?}", preset.id);
            playback::play_to_end(&mut m, answer);
            let last = &m.slow_expectations;
            assert!(last.unparsed.is_none() && last.rows.len() == lines, "{}: {last:?}", preset.id);
            for row in &last.rows {
                assert_eq!((row.status, &row.detail), (Status::Pass, &None), "{}: {}", preset.id, row.claim);
            }
        }
    }
}
