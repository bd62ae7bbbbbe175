//! A dry run of opening a big share link, on a tiny built-in scenario, in steps the page runs
//! while it is idle after load (`web/src/warm.rs`), so the first real link finds its code
//! compiled.
//!
//! Why: V8 compiles a wasm function the first time it is called, on the main thread
//! (`wasm.CompileLazy`), and there is no shipped way for a page to ask for some functions
//! eagerly (Chromium 156: `--wasm-compilation-hints` is an experimental flag, off by default).
//! Measured (e2e `scale`, Chromium trace): a page's first 1,900-deep link compiled 157
//! functions lazily inside the open's tasks, and while V8's background threads held both cores
//! that compile waited for one (one 51 ms task was 11 ms of CPU); the same link opened a second
//! time compiled none. The rehearsal calls the same functions on a few lines of text: the
//! fragment handed to the worker to open (`open_wire`) and its answer decoded and applied, the
//! reducer's request for the engine worker and the job's encoding, and the reducer's use of the
//! worker's answers (made here: opening and reading are the worker's alone, the page has no
//! link decoder and no parser), in a throwaway state whose views the page renders and drops (a
//! state starts with no scenario until the worker has read the default one, so the answer is
//! what gives its views something to draw). Nothing it does is shown or stored.

use blast_engine::dsl;
use blast_engine::name::Name;
use blast_engine::scenario::{ClassDecl, Scenario, SiteDecl, Stmt};
use blast_engine::Policy;

use crate::action::Action;
use crate::session::SessionAction;
use crate::share::{Link, LinkView, Shared};
use crate::state::AppState;
use crate::worker::open_wire::{self, Unsealed};
use crate::worker::wire::{Reply, Verdict};

/// What the rehearsal has left to do.
enum Stage {
    /// Hand the fragment to the worker to open, and apply the answer (`open_wire`: made here,
    /// through its bytes, as the worker would answer).
    Unseal(String),
    /// Open what it carries: the reducer hands the text to the worker (`take_jobs`), and
    /// applies its answer.
    Open,
    Done,
}

pub struct Rehearsal {
    /// Made at the first step (a state is a preset's lanes: work of its own).
    state: Option<AppState>,
    text: String,
    stage: Stage,
}

impl Rehearsal {
    /// A rehearsal of a link carrying a small class chain whose text is padded with a comment
    /// to `bytes`.
    /// `arrive`: how the link's fragment reaches the page (the page passes it through the
    /// conversions of its address bar's fragment).
    pub fn new(bytes: usize, arrive: impl FnOnce(String) -> String) -> Rehearsal {
        let text = text(bytes);
        // The page never reads a fragment (the worker does): any text of the link's size
        // makes the page's own conversions.
        let fragment = arrive(format!("#{text}"));
        Rehearsal { state: None, text, stage: Stage::Unseal(fragment) }
    }

    /// One step (each a small part of the open, so no step is a long task); false once done.
    pub fn step(&mut self) -> bool {
        let Some(state) = &mut self.state else {
            self.state = Some(AppState::new());
            return true;
        };
        self.stage = match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Unseal(fragment) => {
                state.reduce(Action::OpenFragment(fragment));
                let Some(job) = state.take_openings().pop() else { return false };
                let view = LinkView::default();
                let link = Link::Scenario(Shared { text: self.text.clone(), policies: vec![Policy::Global, Policy::Exact], view });
                let unsealed = Unsealed { autosave: None, link: Some(Ok(Some(link))) };
                match open_wire::decode_reply(&open_wire::encode_reply(job.id, &unsealed)) {
                    Ok((id, unsealed)) => {
                        state.reduce(Action::Opened { id, answer: Box::new(Ok(unsealed)) });
                        Stage::Open
                    }
                    Err(_) => Stage::Done,
                }
            }
            Stage::Open => {
                if let Some(job) = state.take_jobs().pop() {
                    // Held: its lanes are built as a read link's are, and no job goes back.
                    let verdict = Verdict::Read { scenario: Box::new(chain()), run_error: None, expect_lines: Vec::new(), held: true, edited: None };
                    state.reduce(SessionAction::Read(Reply { id: job.id, verdict }));
                }
                Stage::Done
            }
            Stage::Done => Stage::Done,
        };
        !matches!(self.stage, Stage::Done)
    }

    /// The throwaway state the link opened into (for the page to render its views once);
    /// `None` before the first step.
    pub fn state(&self) -> Option<&AppState> {
        self.state.as_ref()
    }

    /// The text the rehearsal opens.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// The chain `R0 <- R1 <- ... <- R7` with one site on the deepest (the shape of a deep link).
fn chain() -> Scenario {
    const DEPTH: usize = 8;
    let class = |i: usize| ClassDecl {
        name: format!("R{i}"),
        parent: i.checked_sub(1).map(|p| format!("R{p}")),
        methods: if i == 0 { vec!["m".to_string()] } else { Vec::new() },
        metaclass: Default::default(),
        costs: Vec::new(),
    };
    let site = SiteDecl::mono(Name::new("r"), Name::new(&format!("R{}", DEPTH - 1)), Name::new("m"));
    Scenario {
        classes: (0..DEPTH).map(class).collect(),
        sites: vec![site],
        op: vec![Stmt::looped(10, vec![Stmt::Call { site: Name::new("r") }])],
        ..Scenario::default()
    }
}

/// The chain's text, then comment lines up to `bytes`.
fn text(bytes: usize) -> String {
    let mut t = dsl::print(&chain());
    let line = format!("# {}\n", "-".repeat(77));
    while t.len() < bytes {
        t += &line;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rehearsal_opens_its_link_into_a_throwaway_state_in_a_few_steps() {
        let mut r = Rehearsal::new(crate::worker::reading::LOADING_NOTE_BYTES, |link| link);
        assert!(r.state().is_none(), "nothing is built before the first step");
        let mut steps = 1;
        while r.step() {
            steps += 1;
            assert!(steps <= 3, "one step per stage");
        }
        let state = r.state().expect("a state");
        let s = &state.session;
        assert_eq!(steps, 3);
        assert_eq!((s.loading_sites(), s.scenario().classes.len(), s.scenario().sites.len()), (None, 8, 1), "the answer applied");
        assert_eq!(**s.scenario(), dsl::parse(r.text()).expect("the rehearsal's text parses"), "the text is the chain's");
        assert!(!s.runner().is_empty(), "its lanes, as a read link's (built in the worker)");
        assert!(state.chrome.banners.iter().any(|b| b.text.contains("the link")), "the link's notice");
        assert!(!r.step(), "done stays done");
    }

    #[test]
    fn a_rehearsal_is_padded_to_the_size_asked_and_opens_its_text() {
        let mut r = Rehearsal::new(40_000, |fragment| fragment);
        assert!(r.text().len() >= 40_000);
        while r.step() {}
        assert_eq!(r.state().map(|s| s.session.text()), Some(r.text()), "the link opened");
    }
}
