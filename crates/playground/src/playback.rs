//! Playback: the run controls (run, pause, step, reset, speed, and the frame loop's clock and
//! work), written once for both kinds of lanes the page plays.
//!
//! The call-site session (`session`) and a model session (`model_mode`) each own a
//! [`Playback`] and implement [`Replay`] for their lanes; [`control`] is the one path every
//! run control takes, so "Play after the end starts over", "Step pauses" or "the costly
//! views refresh at most every `SLOW_VIEW_INTERVAL_MS`" cannot differ between them.

use serde::{Deserialize, Serialize};

use crate::format;

/// How often the charts, comparison table and why panel update while running (wall ms):
/// they are the costly part of a frame and nobody reads them at 60 frames a second.
pub const SLOW_VIEW_INTERVAL_MS: f64 = 120.0;
/// A long pause (tab in the background) must not become one giant virtual-time jump.
const MAX_FRAME_DT_MS: f64 = 100.0;
/// Wall time a replay whose speed is fitted (a freshly loaded model) should take.
const REPLAY_WALL_MS: f64 = 10_000.0;

/// Virtual milliseconds per wall millisecond.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Speed {
    Factor(f64),
    /// As fast as the per-frame budget allows.
    Max,
}

pub const SPEEDS: [Speed; 8] = [
    Speed::Factor(0.0001),
    Speed::Factor(0.001),
    Speed::Factor(0.01),
    Speed::Factor(0.1),
    Speed::Factor(1.0),
    Speed::Factor(10.0),
    Speed::Factor(100.0),
    Speed::Max,
];

impl Speed {
    pub fn label(self) -> String {
        match self {
            Speed::Factor(f) => format!("{}× ({} virtual ms per wall second)", format::plain(f), format::plain(f * 1000.0)),
            Speed::Max => "max (as fast as the page allows)".into(),
        }
    }

    pub fn short_label(self) -> String {
        match self {
            Speed::Factor(f) => format!("{}×", format::plain(f)),
            Speed::Max => "max".into(),
        }
    }

    fn virtual_ms(self, wall_ms: f64) -> f64 {
        match self {
            Speed::Factor(f) => f * wall_ms,
            Speed::Max => f64::INFINITY,
        }
    }

    pub fn index(self) -> usize {
        SPEEDS.iter().position(|s| *s == self).unwrap_or(3)
    }

    fn shifted(self, by: isize) -> Speed {
        let i = (self.index() as isize + by).clamp(0, SPEEDS.len() as isize - 1);
        SPEEDS[i as usize]
    }

    /// The speed at which a replay of `longest_ms` virtual ms takes about `REPLAY_WALL_MS`.
    pub fn fitted(longest_ms: f64) -> Speed {
        let wanted = (longest_ms / REPLAY_WALL_MS).max(f64::MIN_POSITIVE).log10();
        let distance = |s: &Speed| match s {
            Speed::Factor(f) => (f.log10() - wanted).abs(),
            Speed::Max => f64::INFINITY,
        };
        SPEEDS.iter().copied().min_by(|a, b| distance(a).total_cmp(&distance(b))).unwrap_or(Speed::Max)
    }
}

/// Where a run is, for the Run button, the status line and each lane's caption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// At virtual time zero, nothing executed yet.
    Ready,
    Running,
    /// Started (by Run or Step) and stopped part-way.
    Paused,
    Finished,
}

impl RunState {
    pub fn of(playing: bool, started: bool, finished: bool) -> RunState {
        match (finished, playing, started) {
            (true, _, _) => RunState::Finished,
            (_, true, _) => RunState::Running,
            (_, _, true) => RunState::Paused,
            _ => RunState::Ready,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RunState::Ready => "ready",
            RunState::Running => "running",
            RunState::Paused => "paused",
            RunState::Finished => "finished",
        }
    }

    /// What the Run / pause button does from here.
    pub fn button_label(self) -> &'static str {
        match self {
            RunState::Ready => "Run",
            RunState::Running => "Pause",
            RunState::Paused => "Resume",
            RunState::Finished => "Run again",
        }
    }
}

/// Why lanes cannot run (Play is refused): the engine's refusal of the scenario in its words,
/// from the page's own run check or the engine worker's (which crosses its wire as text).
#[derive(Clone, Debug, PartialEq)]
pub struct RunRefusal(pub String);

impl std::fmt::Display for RunRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A run control (`Action::Run`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control {
    Play,
    Pause,
    TogglePlay,
    Step,
    Reset,
    SetSpeed(Speed),
    SpeedUp,
    SpeedDown,
    /// Start of an animation frame: move the virtual clock by `wall_dt_ms` at the current speed.
    FrameStart {
        wall_dt_ms: f64,
    },
    /// Up to `max_steps` engine steps (the loop repeats this until its time budget is spent).
    Work {
        max_steps: usize,
    },
    FrameEnd {
        wall_ms: f64,
    },
}

/// Lanes that play on a virtual clock: the call-site simulations, or a model's variant replays.
pub trait Replay {
    fn playback(&mut self) -> &mut Playback;
    fn finished(&self) -> bool;
    /// Back to virtual time zero, paused, with the views refreshed (call-site lanes are built
    /// anew, which may fail: see `refusal`).
    fn rewind(&mut self);
    /// Why the lanes cannot run; Play says so instead of starting.
    fn refusal(&self) -> Option<RunRefusal>;
    /// One step by hand; what it did, if the lanes say.
    fn step(&mut self) -> Option<String>;
    fn advance_clock(&mut self, virtual_ms: f64);
    /// Up to `max_steps` of engine work; `true` once the lanes reached the clock.
    fn work(&mut self, max_steps: usize) -> bool;
    /// The end of a frame's work: settle and refresh the cheap views; `true` when the run is over.
    fn end_frame(&mut self) -> bool;
    /// The costly panels' views (charts, comparison, why, expectations).
    fn refresh_slow_views(&mut self);
    /// All views, after a command that changed the lanes outside the frame loop.
    fn after_commands(&mut self);
    /// The longest lane's virtual length, once known (a speed can be fitted to it).
    fn length_ms(&self) -> Option<f64>;
}

/// The run's clock and controls: playing or not, at which speed, the frame loop's bookkeeping.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    pub speed: Speed,
    pub playing: bool,
    /// The last `Work` ran out of steps before the lanes reached the clock.
    behind: bool,
    last_slow_ms: f64,
    /// What the latest Step did, numbered from the last reset; cleared by Run and rebuilds.
    pub step_note: Option<(u32, String)>,
    /// Pick a speed that fits the replay once the lanes say how long they are.
    fit_speed: bool,
}

impl Playback {
    /// Paused at `speed`; with `fit_speed`, the speed is replaced by one fitted to the lanes'
    /// length once it is known (unless the user picks one first).
    pub fn new(speed: Speed, fit_speed: bool) -> Playback {
        Playback { speed, playing: false, behind: false, last_slow_ms: f64::NEG_INFINITY, step_note: None, fit_speed }
    }

    /// More engine work is due this frame (the frame loop keeps going while its budget lasts).
    pub fn is_behind(&self) -> bool {
        self.behind
    }

    /// Paused, without a step note: new lanes.
    pub fn stop(&mut self) {
        self.playing = false;
        self.step_note = None;
    }

    fn set_speed(&mut self, speed: Speed) {
        self.speed = speed;
        self.fit_speed = false;
    }

    /// Whether the costly panels take new views at the end of this frame: at most every
    /// `SLOW_VIEW_INTERVAL_MS` while playing, at once when stopped. Notes the time when they do.
    fn slow_views_due(&mut self, wall_ms: f64) -> bool {
        let due = !self.playing || wall_ms - self.last_slow_ms >= SLOW_VIEW_INTERVAL_MS;
        if due {
            self.last_slow_ms = wall_ms;
        }
        due
    }
}

/// Apply a run control to `lanes`. `Err` says why Play could not start (a banner).
pub fn control(lanes: &mut dyn Replay, control: Control) -> Result<(), RunRefusal> {
    match control {
        Control::Play => return play(lanes),
        Control::Pause => pause(lanes),
        Control::TogglePlay if lanes.playback().playing => pause(lanes),
        Control::TogglePlay => return play(lanes),
        Control::Step => {
            lanes.playback().playing = false;
            if lanes.finished() {
                lanes.rewind();
                lanes.playback().stop();
            }
            let n = lanes.playback().step_note.as_ref().map_or(1, |(n, _)| n + 1);
            let note = lanes.step();
            lanes.playback().step_note = note.map(|note| (n, note));
            lanes.after_commands();
            fit_speed(lanes);
        }
        Control::Reset => {
            lanes.rewind();
            lanes.playback().stop();
            fit_speed(lanes);
        }
        Control::SetSpeed(s) => lanes.playback().set_speed(s),
        Control::SpeedUp => {
            let s = lanes.playback().speed.shifted(1);
            lanes.playback().set_speed(s);
        }
        Control::SpeedDown => {
            let s = lanes.playback().speed.shifted(-1);
            lanes.playback().set_speed(s);
        }
        Control::FrameStart { wall_dt_ms } => {
            let p = lanes.playback();
            if p.playing {
                let virtual_ms = p.speed.virtual_ms(wall_dt_ms.clamp(0.0, MAX_FRAME_DT_MS));
                lanes.advance_clock(virtual_ms);
            }
        }
        Control::Work { max_steps } => {
            let behind = lanes.playback().playing && !lanes.work(max_steps);
            lanes.playback().behind = behind;
            fit_speed(lanes);
        }
        Control::FrameEnd { wall_ms } => {
            if lanes.end_frame() {
                lanes.playback().playing = false;
            }
            if lanes.playback().slow_views_due(wall_ms) {
                lanes.refresh_slow_views();
            }
        }
    }
    Ok(())
}

fn play(lanes: &mut dyn Replay) -> Result<(), RunRefusal> {
    if lanes.finished() {
        lanes.rewind();
    }
    if let Some(why) = lanes.refusal() {
        return Err(why);
    }
    let p = lanes.playback();
    p.playing = true;
    p.step_note = None;
    Ok(())
}

fn pause(lanes: &mut dyn Replay) {
    lanes.playback().playing = false;
    lanes.refresh_slow_views();
}

/// A speed to be fitted becomes one once the lanes say how long they are (after a command, or
/// when the engine worker's update of a model replay says).
pub(crate) fn fit_speed(lanes: &mut dyn Replay) {
    if lanes.playback().fit_speed {
        if let Some(ms) = lanes.length_ms() {
            let p = lanes.playback();
            p.speed = Speed::fitted(ms);
            p.fit_speed = false;
        }
    }
}

/// Play at full speed, frame by frame as the page does, until the run ends (tests); `answer`
/// answers what the lanes asked of the engine worker after each control, as the page's shell
/// does.
#[cfg(test)]
pub(crate) fn play_to_end<R: Replay>(lanes: &mut R, answer: impl Fn(&mut R)) {
    let act = |lanes: &mut R, c: Control| {
        control(lanes, c).expect("a control");
        answer(lanes);
    };
    act(lanes, Control::SetSpeed(Speed::Max));
    act(lanes, Control::Play);
    for frame in 0..10_000 {
        act(lanes, Control::FrameStart { wall_dt_ms: 16.0 });
        loop {
            act(lanes, Control::Work { max_steps: 5000 });
            if !lanes.playback().is_behind() {
                break;
            }
        }
        act(lanes, Control::FrameEnd { wall_ms: f64::from(frame) * 16.0 });
        if !lanes.playback().playing {
            return;
        }
    }
    panic!("the run did not finish");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_shift_within_bounds() {
        let mut s = Speed::Factor(0.1);
        for _ in 0..20 {
            s = s.shifted(1);
        }
        assert_eq!(s, Speed::Max);
        for _ in 0..20 {
            s = s.shifted(-1);
        }
        assert_eq!(s, SPEEDS[0]);
        assert_eq!(Speed::Factor(3.0).index(), 3, "an unknown speed sits in the middle");
    }

    #[test]
    fn the_speed_is_fitted_to_the_longest_run() {
        assert_eq!(Speed::fitted(1.2), Speed::Factor(0.0001));
        assert_eq!(Speed::fitted(32.6), Speed::Factor(0.01));
        assert_eq!(Speed::fitted(0.0), Speed::Factor(0.0001));
    }

    #[test]
    fn slow_views_come_at_most_every_interval_while_playing() {
        let mut p = Playback::new(Speed::Max, false);
        p.playing = true;
        assert!(p.slow_views_due(0.0));
        assert!(!p.slow_views_due(SLOW_VIEW_INTERVAL_MS - 1.0));
        assert!(p.slow_views_due(SLOW_VIEW_INTERVAL_MS));
        p.playing = false;
        assert!(p.slow_views_due(SLOW_VIEW_INTERVAL_MS + 1.0), "at once when stopped");
    }
}
