//! Everything that can happen to the page: user intents (edit, load, play, fire a mutation),
//! frame ticks from the animation loop, facts from the browser (a share link or autosave that
//! was read, the engine worker's answer). `state::AppState::reduce` routes each to the
//! sub-state it belongs to; run controls and chrome actions have typed subsets
//! ([`Control`], [`ChromeAction`]).

use blast_engine::expect::Cause;
use blast_engine::model::Event;
use blast_engine::Policy;

use crate::chrome::ChromeAction;
use crate::editor::EditOp;
use crate::model_mode::ModelLink;
use crate::offload::Reply;
use crate::playback::{Control, Speed};
use crate::share::{Link, Shared};
use crate::timeline::XAxis;
use crate::timeline::{Mark, Range};

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    LoadPreset {
        id: String,
        run: bool,
    },
    /// A scenario from a share link or an imported file.
    LoadScenario {
        shared: Shared,
        origin: String,
    },
    /// A model preset with knobs and variants, from a share link.
    LoadModelLink {
        link: ModelLink,
        origin: String,
    },
    /// A model knob as typed (model mode).
    SetKnob {
        knob: String,
        value: String,
    },
    ToggleVariant(String),
    /// The `index`-th policy, or the model's variant in model mode (the `1`…`5` keys).
    ToggleLane(usize),
    EditText(String),
    /// Throw away text that does not parse: show the model's text again.
    RevertText,
    Edit(EditOp),
    TogglePolicy(Policy),
    SetSpeed(Speed),
    SpeedUp,
    SpeedDown,
    Play,
    Pause,
    TogglePlay,
    Step,
    Reset,
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
    Fire(Event),
    /// Enter (`use`) or leave a category by hand in every running lane.
    FireCategory {
        name: String,
        enter: bool,
    },
    SelectSite(Option<String>),
    /// Add these policies' lanes (the expectations panel: runs an expectation reads).
    AddPolicies(Vec<Policy>),
    /// Show the relink behind a failed expectation in the why panel.
    ShowCause(Cause),
    HoverClass(Option<String>),
    CycleTheme,
    ToggleHelp,
    /// "Loop until stopped": re-run with the measured op repeated (see `looping`).
    ToggleLoop,
    /// Replace the scenario with `editor::BLANK` (an edit: Undo brings the old one back).
    NewScenario,
    /// Back to the scenario text before the latest form or text edit (Ctrl+Z).
    Undo,
    /// Ctrl+Shift+Z (or Ctrl+Y).
    Redo,
    /// Escape: close the cheat sheet and drop the what-if hover.
    CloseOverlays,
    ShowError(String),
    ShowInfo(String),
    DismissBanner(u64),
    /// The engine worker (or the page standing in for it) answered a job (`offload`).
    Read(Reply),
    /// The charts' x axis (a new axis starts unzoomed and unbrushed).
    SetAxis(XAxis),
    /// Zoom or pan the timeline: the window shown, `None` for the whole run.
    SetView(Option<Range>),
    /// Select a range of the timeline, or clear it.
    Brush(Option<Range>),
    /// Mark a relink's moment on the charts (a click in the why panel); selects its site.
    MarkRelink(Mark),
    /// The page is mounted: a first visit's run starts (`chrome::Chrome::autoplay`).
    Autoplay,
    TourNext,
    TourBack,
    /// Skip or finish the tour (the page remembers it: `browser::remember_tour_done`).
    TourClose,
}

impl Action {
    /// The action that opens what a link carries.
    pub fn open_link(link: Link, origin: &str) -> Action {
        match link {
            Link::Scenario(shared) => Action::LoadScenario { shared, origin: origin.into() },
            Link::Model(link) => Action::LoadModelLink { link, origin: origin.into() },
        }
    }

    /// The run control this action is, if it is one.
    pub fn control(&self) -> Option<Control> {
        Some(match *self {
            Action::Play => Control::Play,
            Action::Pause => Control::Pause,
            Action::TogglePlay => Control::TogglePlay,
            Action::Step => Control::Step,
            Action::Reset => Control::Reset,
            Action::SetSpeed(s) => Control::SetSpeed(s),
            Action::SpeedUp => Control::SpeedUp,
            Action::SpeedDown => Control::SpeedDown,
            Action::FrameStart { wall_dt_ms } => Control::FrameStart { wall_dt_ms },
            Action::Work { max_steps } => Control::Work { max_steps },
            Action::FrameEnd { wall_ms } => Control::FrameEnd { wall_ms },
            _ => return None,
        })
    }

    /// The chrome action this action is, if it is one.
    pub fn chrome(&self) -> Option<ChromeAction> {
        Some(match self {
            Action::CycleTheme => ChromeAction::CycleTheme,
            Action::ToggleHelp => ChromeAction::ToggleHelp,
            Action::ShowError(text) => ChromeAction::ShowError(text.clone()),
            Action::ShowInfo(text) => ChromeAction::ShowInfo(text.clone()),
            Action::DismissBanner(id) => ChromeAction::DismissBanner(*id),
            Action::TourNext => ChromeAction::TourNext,
            Action::TourBack => ChromeAction::TourBack,
            Action::TourClose => ChromeAction::TourClose,
            _ => return None,
        })
    }
}
