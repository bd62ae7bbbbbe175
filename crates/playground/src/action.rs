//! Everything that can happen to the page: user intents (edit, load, play, fire a mutation),
//! frame ticks from the animation loop, facts from the browser (a share link or autosave that
//! was read, the engine worker's answer). `state::AppState::reduce` routes each to the
//! sub-state it belongs to; run controls ([`Control`]) and chrome actions ([`ChromeAction`])
//! are enums of their own, so the router hands them on whole.

use blast_engine::expect::Cause;
use blast_engine::model::Event;
use blast_engine::Policy;

use crate::chrome::ChromeAction;
use crate::editor::EditOp;
use crate::lab::LabAction;
use crate::lane_wire::Update;
use crate::model_mode::ModelLink;
use crate::offload::Reply;
use crate::playback::Control;
use crate::share::{Link, Shared};
use crate::timeline::{Mark, Range, XAxis};
use crate::trace_lab::TraceAction;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    LoadPreset {
        id: String,
        run: bool,
    },
    /// The user's own scenario a load replaced back on screen (the picker's "Your scenario").
    OpenOwn,
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
    /// Run, pause, step, reset, speed, and the frame loop: to the lanes on screen.
    Run(Control),
    /// Theme, cheat sheet, banners, tour.
    Chrome(ChromeAction),
    /// The measured panel's probe result and its fit.
    Lab(LabAction),
    /// The trace lab: a runtime log being read by the engine worker, or on screen.
    Trace(TraceAction),
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
    /// The engine worker (or the page standing in for it) answered a job (`offload`).
    Read(Reply),
    /// The engine worker's update of the lanes it runs for build `run`, decoded by the page in
    /// steps (`lanes::Mirror::decoder`), or why its bytes were unreadable.
    LanesDecoded(u64, Box<Result<Update, String>>),
    /// The engine worker stopped while running lanes, or there is none to run them.
    LanesLost(String),
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
}

impl Action {
    /// The action that opens what a link carries.
    pub fn open_link(link: Link, origin: &str) -> Action {
        match link {
            Link::Scenario(shared) => Action::LoadScenario { shared, origin: origin.into() },
            Link::Model(link) => Action::LoadModelLink { link, origin: origin.into() },
            Link::Trace(t) => Action::Trace(TraceAction::OpenText { name: t.name, text: t.log }),
        }
    }
}
