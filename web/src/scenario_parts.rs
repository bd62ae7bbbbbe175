//! The scenario's parts the page's components read (names, classes, method suggestions),
//! built once per scenario change, and the props the blast view and the model editor take
//! from them: shared by the page (`app`) and the idle-time rehearsal (`warm`).

use std::rc::Rc;

use blast_engine::scenario::Scenario;
use yew::prelude::*;

use crate::components::blast_view::BlastViewProps;
use crate::components::scenario_editor::ScenarioEditorProps;
use blast_playground::editor::EditOp;
use blast_playground::runner::{self, ClassEntry};
use blast_playground::state::AppState;

/// The scenario's parts the components read, built once per scenario change: a 100,000-site
/// world is not copied (nor its props compared element by element) every frame.
#[derive(PartialEq)]
pub(crate) struct ScenarioParts {
    pub(crate) scenario: Rc<Scenario>,
    /// Declared classes and those the program loads (the runner's list at the last rebuild).
    pub(crate) classes: Rc<Vec<ClassEntry>>,
    pub(crate) site_names: Rc<Vec<String>>,
    pub(crate) class_names: Rc<Vec<String>>,
    /// The classes the scenario declares (the editor's choices).
    pub(crate) declared_names: Rc<Vec<String>>,
    pub(crate) methods: Rc<Vec<String>>,
}

impl ScenarioParts {
    pub(crate) fn of(s: &AppState) -> ScenarioParts {
        ScenarioParts {
            scenario: s.session.scenario().clone(),
            classes: Rc::new(s.session.runner().classes().to_vec()),
            // The lanes' own list when they have one (no second copy of 10^5 names).
            site_names: match s.session.runner().names() {
                Some(names) if names.len() == s.session.scenario().sites.len() => names.clone(),
                _ => runner::names_of(s.session.scenario()),
            },
            class_names: Rc::new(s.session.runner().classes().iter().map(|(name, _)| name.clone()).collect()),
            declared_names: Rc::new(s.session.scenario().classes.iter().map(|c| c.name.clone()).collect()),
            methods: Rc::new(method_suggestions(s.session.scenario())),
        }
    }

    /// The blast view's props for `s` (the page's and the rehearsal's, `warm`): `classes` is
    /// this scenario's list, or the runner's when hand-fired mutations loaded more.
    pub(crate) fn blast_props(
        &self,
        s: &AppState,
        classes: Rc<Vec<ClassEntry>>,
        on_hover: Callback<Option<String>>,
        on_select: Callback<Option<String>>,
    ) -> BlastViewProps {
        BlastViewProps {
            lanes: s.session.runner().views().to_vec(),
            classes,
            scenario: self.scenario.clone(),
            hovered: s.session.hovered_class().map(|class| AttrValue::from(class.to_string())),
            selected: s.session.selected_site().map(|site| AttrValue::from(site.to_string())),
            what_if: s.session.what_if().to_vec(),
            playing: s.session.playback().playing,
            on_hover,
            on_select,
            trace: None,
        }
    }

    /// The model editor's props for `s` (the page's and the rehearsal's).
    pub(crate) fn editor_props(&self, s: &AppState, on_edit: Callback<EditOp>, generation: u64) -> ScenarioEditorProps {
        ScenarioEditorProps {
            scenario: self.scenario.clone(),
            names: self.declared_names.clone(),
            scenario_rev: s.session.scenario_rev(),
            epoch: s.session.edit_epoch(),
            error: s.session.editor_error().map(|why| AttrValue::from(why.to_string())),
            on_edit,
            generation,
        }
    }
}

/// Method names for the write field: `dyn0` and the scenario's methods, first seen first,
/// at most `METHOD_SUGGESTIONS` (a datalist of every method of a big world helps no one).
fn method_suggestions(scenario: &Scenario) -> Vec<String> {
    const METHOD_SUGGESTIONS: usize = 200;
    let mut seen = std::collections::HashSet::new();
    std::iter::once("dyn0")
        .chain(scenario.classes.iter().flat_map(|c| c.methods.iter().map(String::as_str)))
        .filter(|m| seen.insert(*m))
        .take(METHOD_SUGGESTIONS)
        .map(String::from)
        .collect()
}
