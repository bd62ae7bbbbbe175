//! Everything that can happen to the page: user intents (edit, load, play, fire a mutation),
//! frame ticks from the animation loop, facts from the browser and the engine worker (a link
//! pasted into the address bar, the worker's answers: among them the autosave and a link it
//! opened). `state::AppState::reduce` routes each to the
//! sub-state it belongs to. Each sub-state's actions are an enum of its own, matched by its
//! reducer without a catch-all arm, so a new action that no reducer handles does not compile:
//! run controls ([`Control`]), chrome ([`ChromeAction`]), the measured panel ([`LabAction`]),
//! model mode ([`ModelAction`]), the timeline ([`TimelineAction`]), the call-site session
//! ([`SessionAction`]), the trace lab ([`TraceAction`]) and links and autosave entries made
//! ([`PackAction`]). The few actions left here are the router's own: they pick a sub-state.

use crate::chrome::ChromeAction;
use crate::lab::LabAction;
use crate::model_mode::{ModelAction, ModelLink};
use crate::packing::PackAction;
use crate::playback::Control;
use crate::session::SessionAction;
use crate::share::Link;
use crate::storage::SetAside;
use crate::timeline::TimelineAction;
use crate::trace_lab::TraceAction;
use crate::worker::open_wire::Unsealed;
use crate::worker::wire::Unanswered;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A gallery entry: a call-site preset, or a model preset (model mode).
    LoadPreset { id: String, run: bool },
    /// A model preset with knobs and variants, from a share link.
    LoadModelLink { link: ModelLink, origin: String },
    /// The `index`-th policy, or the model's variant in model mode (the `1`…`5` keys).
    ToggleLane(usize),
    /// Escape: close the cheat sheet and drop the what-if hover.
    CloseOverlays,
    /// The results of what is on screen as CSV (`state::AppState::take_download`): a model's at
    /// once, a call-site run's once the engine worker has sent its sites' call counts.
    ExportResults,
    /// The page is mounted: a first visit's run starts (`chrome::Chrome::autoplay`).
    Autoplay,
    /// Run, pause, step, reset, speed, and the frame loop: to the lanes on screen.
    Run(Control),
    /// Theme, cheat sheet, banners, tour.
    Chrome(ChromeAction),
    /// The measured panel's probe result and its fit.
    Lab(LabAction),
    /// A model preset's knobs and variants (model mode).
    Model(ModelAction),
    /// The charts' x axis, zoom window, brushed range and marked relink.
    Timeline(TimelineAction),
    /// The call-site scenario, its text and its lanes.
    Session(SessionAction),
    /// The trace lab: a runtime log being read by the engine worker, or on screen.
    Trace(TraceAction),
    /// Share links and autosave entries the engine worker makes.
    Pack(PackAction),
    /// A URL fragment (with its `#`) pasted into the address bar of the open page: the engine
    /// worker opens it.
    OpenFragment(String),
    /// The engine worker opened the autosave or a link (`worker::open_wire`), or could not.
    Opened { id: u64, answer: Box<Result<Unsealed, Unanswered>> },
    /// An autosave the worker could not read was moved aside by the page shell.
    SetAside(SetAside),
}

impl Action {
    /// The action that opens what a link carries.
    pub fn open_link(link: Link, origin: &str) -> Action {
        match link {
            Link::Scenario(shared) => Action::Session(SessionAction::LoadScenario { shared, origin: origin.into() }),
            Link::Model(link) => Action::LoadModelLink { link, origin: origin.into() },
            Link::Trace(t) => Action::Trace(TraceAction::OpenText { name: t.name, text: t.log, tree: t.tree }),
        }
    }
}

/// `From` each sub-state's action, so the page dispatches `SessionAction::Undo` as it is.
macro_rules! wraps {
    ($($sub:ty => $variant:ident),* $(,)?) => {$(
        impl From<$sub> for Action {
            fn from(action: $sub) -> Action {
                Action::$variant(action)
            }
        }
    )*};
}

wraps!(Control => Run, ChromeAction => Chrome, LabAction => Lab, ModelAction => Model, TimelineAction => Timeline, SessionAction => Session, PackAction => Pack);
