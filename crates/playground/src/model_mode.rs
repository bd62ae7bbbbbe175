//! Model mode: the page showing one of the engine's other models (shape cache, shared arena,
//! descriptor cache) instead of a call-site scenario.
//!
//! A `ModelSession` is the part of the page state that model mode adds: the preset, the knob
//! settings, the selected variants and their replay. `AppState::reduce` hands it the run
//! controls while it is open; links and the autosave carry it as a `ModelLink`, which is
//! checked here like any other user input.

use std::rc::Rc;

use blast_engine::expect::model::{self as model_expect, ModelOutcome, Placed};
use blast_engine::models::{self, ModelConfig, ModelPreset, ModelReport};
use serde::{Deserialize, Serialize};

use crate::model_knobs;
use crate::model_runner::{ModelRunner, VariantView};
use crate::state::{slow_views_due, Action, Speed, MAX_FRAME_DT_MS, SPEEDS};

/// Most knob settings a link may carry (a model has at most four knobs).
pub const MAX_KNOB_SETTINGS: usize = 16;
/// Wall time a freshly loaded model's longest replay should take at the speed picked for it.
const REPLAY_WALL_MS: f64 = 10_000.0;

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

/// Check a link the way the page would load it; errors complete "the model was not loaded: …".
pub fn resolve(link: &ModelLink) -> Result<Resolved, String> {
    let preset = models::find(&link.preset).ok_or_else(|| format!("there is no model preset `{}`", shorten(&link.preset)))?;
    if link.knobs.len() > MAX_KNOB_SETTINGS {
        return Err(format!("it sets {} knobs; at most {MAX_KNOB_SETTINGS} are accepted", link.knobs.len()));
    }
    let config = model_knobs::set_all(&preset.config(), &link.knobs)?;
    if let Some(unknown) = link.variants.iter().find(|v| !config.variants().contains(&v.as_str())) {
        return Err(format!("`{}` is not a variant of {} (it has {})", shorten(unknown), preset.id, config.variants().join(", ")));
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
    pub speed: Speed,
    /// Pick a speed that fits the replay once the runs say how long they are.
    fit_speed: bool,
    pub playing: bool,
    behind: bool,
    /// Views for the costly panels (charts, comparison), refreshed like `AppState::slow_lanes`.
    pub slow_views: Vec<Rc<VariantView>>,
    last_slow_ms: f64,
}

/// The speed at which a replay of `longest_ms` virtual ms takes about `REPLAY_WALL_MS`.
pub fn fitted_speed(longest_ms: f64) -> Speed {
    let wanted = (longest_ms / REPLAY_WALL_MS).max(f64::MIN_POSITIVE).log10();
    let distance = |s: &Speed| match s {
        Speed::Factor(f) => (f.log10() - wanted).abs(),
        Speed::Max => f64::INFINITY,
    };
    SPEEDS.iter().copied().min_by(|a, b| distance(a).total_cmp(&distance(b))).unwrap_or(Speed::Max)
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
            speed,
            fit_speed: speed != Speed::Max,
            playing: false,
            behind: false,
            last_slow_ms: f64::NEG_INFINITY,
        }
    }

    pub fn link(&self) -> ModelLink {
        ModelLink { preset: self.preset.id.to_string(), knobs: self.knobs.clone(), variants: self.variants.iter().map(|v| v.to_string()).collect() }
    }

    pub fn config(&self) -> &ModelConfig {
        self.runner.config()
    }

    pub fn is_behind(&self) -> bool {
        self.behind
    }

    /// A knob typed by the user: a valid value re-runs the model and replays it.
    pub fn set_knob(&mut self, knob: String, text: String) {
        match model_knobs::set(self.config(), &knob, &text) {
            Ok(config) => {
                self.knob_error = None;
                self.knobs.retain(|(name, _)| *name != knob);
                self.knobs.push((knob, text.trim().to_string()));
                self.replace_runner(config);
                self.playing = true;
            }
            Err(message) => self.knob_error = Some(KnobError { knob, text, message }),
        }
    }

    /// Returns why not, when the last selected variant would be dropped.
    pub fn toggle_variant(&mut self, name: &str) -> Result<(), String> {
        let Some(&variant) = self.config().variants().iter().find(|v| **v == name) else {
            return Err(format!("`{}` is not a variant of this model.", shorten(name)));
        };
        if self.variants.contains(&variant) {
            if self.variants.len() == 1 {
                return Err("At least one variant must stay selected.".into());
            }
            self.variants.retain(|v| *v != variant);
        } else {
            self.variants.push(variant);
        }
        let all = self.config().variants();
        self.variants.sort_by_key(|v| all.iter().position(|x| x == v));
        self.replace_runner(self.config().clone());
        Ok(())
    }

    /// The variant at `index` among the model's variants (the `1`…`5` keys).
    pub fn variant_at(&self, index: usize) -> Option<&'static str> {
        self.config().variants().get(index).copied()
    }

    fn replace_runner(&mut self, config: ModelConfig) {
        self.playing = false;
        self.runner = ModelRunner::new(config, &self.variants);
        self.slow_views = self.runner.views().to_vec();
    }

    /// The run controls in model mode. Returns `false` for actions that are not run controls.
    /// Play at full speed, frame by frame as the page does, until the replays end (tests).
    #[cfg(test)]
    pub fn play_to_end(&mut self) {
        self.control(&Action::SetSpeed(Speed::Max));
        self.control(&Action::Play);
        for frame in 0..1000 {
            self.control(&Action::FrameStart { wall_dt_ms: 16.0 });
            while self.control(&Action::Work { max_steps: 64 }) && self.is_behind() {}
            self.control(&Action::FrameEnd { wall_ms: f64::from(frame) * 16.0 });
            if !self.playing {
                break;
            }
        }
    }

    pub fn control(&mut self, action: &Action) -> bool {
        match action {
            Action::Play => self.play(),
            Action::Pause => self.pause(),
            Action::TogglePlay if self.playing => self.pause(),
            Action::TogglePlay => self.play(),
            Action::Step => {
                self.playing = false;
                if self.runner.finished() {
                    self.runner.rewind();
                }
                self.runner.step();
                self.after_commands();
            }
            Action::Reset => {
                self.playing = false;
                self.runner.rewind();
                self.after_commands();
            }
            Action::SetSpeed(s) => self.set_speed(*s),
            Action::SpeedUp => self.set_speed(self.speed.shifted(1)),
            Action::SpeedDown => self.set_speed(self.speed.shifted(-1)),
            Action::FrameStart { wall_dt_ms } if self.playing => self.runner.advance_clock(self.speed.virtual_ms(wall_dt_ms.clamp(0.0, MAX_FRAME_DT_MS))),
            Action::FrameStart { .. } => {}
            // One engine run per chunk: a model run is worth many call-site steps.
            Action::Work { .. } => {
                self.behind = self.playing && !self.runner.work(1);
                self.fit_speed_to_runs();
            }
            Action::FrameEnd { wall_ms } => {
                self.playing &= !self.runner.end_frame();
                if slow_views_due(self.playing, *wall_ms, &mut self.last_slow_ms) {
                    self.slow_views = self.runner.views().to_vec();
                }
            }
            _ => return false,
        }
        true
    }

    fn set_speed(&mut self, speed: Speed) {
        self.speed = speed;
        self.fit_speed = false;
    }

    fn fit_speed_to_runs(&mut self) {
        if self.fit_speed && self.runner.runs_done() {
            self.speed = fitted_speed(self.runner.longest_ms());
            self.fit_speed = false;
        }
    }

    fn play(&mut self) {
        if self.runner.finished() {
            self.runner.rewind();
        }
        self.playing = true;
    }

    fn pause(&mut self) {
        self.playing = false;
        self.slow_views = self.runner.views().to_vec();
    }

    fn after_commands(&mut self) {
        self.fit_speed_to_runs();
        self.runner.refresh();
        self.slow_views = self.runner.views().to_vec();
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
        assert!(resolve(&link("nope")).unwrap_err().contains("no model preset"));
        let mut l = link("records_rotating11");
        l.variants = vec!["fifo".into(), "evil".into()];
        assert!(resolve(&l).unwrap_err().contains("not a variant"));
        l.variants = vec!["unbounded".into(), "fifo".into()];
        assert_eq!(resolve(&l).unwrap().variants, ["fifo", "unbounded"], "the model's order");
        l.knobs = vec![("shapes".into(), "0".into())];
        assert!(resolve(&l).unwrap_err().contains("between"));
        l.knobs = vec![("ops".into(), "1".into()); MAX_KNOB_SETTINGS + 1];
        assert!(resolve(&l).unwrap_err().contains("at most"));
    }

    #[test]
    fn the_speed_is_fitted_to_the_longest_run() {
        assert_eq!(fitted_speed(1.2), Speed::Factor(0.0001));
        assert_eq!(fitted_speed(32.6), Speed::Factor(0.01));
        assert_eq!(fitted_speed(0.0), Speed::Factor(0.0001));
        let mut s = session("descriptor_treeMap");
        s.control(&Action::Step);
        assert_eq!(s.speed, Speed::Factor(0.0001), "1.2 ms of virtual time replays in about 12 s");
        let mut s = session("descriptor_treeMap");
        s.control(&Action::SetSpeed(Speed::Factor(1.0)));
        s.control(&Action::Step);
        assert_eq!(s.speed, Speed::Factor(1.0), "a speed the user picked stays");
    }

    #[test]
    fn a_knob_change_reruns_and_a_bad_one_is_kept_with_its_message() {
        let mut s = session("records_rotating11");
        s.set_knob("shapes".into(), "10".into());
        assert!(s.playing && s.knob_error.is_none());
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
        s.play_to_end();
        assert!(s.runner.finished());
        assert!(s.slow_views.iter().all(|v| v.result().is_some()));
        s.control(&Action::Reset);
        assert!(!s.runner.finished() && s.runner.clock_ms() == 0.0);
        assert!(!s.control(&Action::CycleTheme), "not a run control");
    }

    /// A session run to its end: every preset's expectations pass in the page's own state.
    #[test]
    fn every_model_preset_passes_its_expectations_once_its_variants_have_run() {
        for preset in blast_engine::models::MODEL_PRESETS {
            let link = ModelLink { preset: preset.id.into(), knobs: Vec::new(), variants: Vec::new() };
            let mut m = ModelSession::open(resolve(&link).unwrap(), Vec::new(), Speed::Factor(0.1));
            m.play_to_end();
            let placed = preset.expectations().unwrap();
            for o in outcomes(&placed, &m.slow_views) {
                assert_eq!(o.status, blast_engine::expect::Status::Pass, "{}: {} {:?}", preset.id, placed[o.index].expectation, o.observed);
            }
        }
    }
}
