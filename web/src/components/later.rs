//! A part of the page that follows a scenario read off the main thread (a link, a big paste, a
//! file) a few painted frames late, so that no one task renders the whole page around it.
//!
//! Measured on the 1,900-deep chain's link (e2e `scale`, Chromium trace): the task applying the
//! worker's answer rendered every part at once (blast view, mutations, charts, why panel,
//! comparison, editor), 45-90 ms of Yew work plus the layout of all of it. With the parts
//! behind `Later`, that task renders the top bar and the blast view; each later part renders
//! in a task of its own after a paint, and keeps its last look until then (its callbacks
//! already act on the new scenario: the store is read when they fire).

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::browser;

#[derive(Properties, PartialEq)]
pub struct LaterProps {
    /// Bumped when a read scenario replaced the page's (`use_read_generation`).
    pub generation: u64,
    /// Painted frames to wait after a bump before showing the children again (at least one).
    pub frames: usize,
    /// While true, the part keeps its last look (a part that shows the model, while a text is
    /// read off the main thread: the model does not change until the read is applied).
    #[prop_or_default]
    pub hold: bool,
    #[prop_or_default]
    pub children: Html,
}

#[function_component(Later)]
pub fn later(p: &LaterProps) -> Html {
    // The generation shown, and the children last rendered for it.
    let shown: Rc<RefCell<(u64, Html)>> = use_mut_ref(|| (p.generation, Html::default()));
    let update = use_force_update();
    {
        let (shown, frames) = (shown.clone(), p.frames);
        use_effect_with(p.generation, move |&generation| {
            let stale = shown.borrow().0 != generation;
            let wait = stale.then(|| {
                browser::after_frames(frames, move || {
                    shown.borrow_mut().0 = generation;
                    update.force_update();
                })
            });
            move || drop(wait)
        });
    }
    let mut shown = shown.borrow_mut();
    if shown.0 == p.generation && !p.hold {
        shown.1 = p.children.clone();
    }
    shown.1.clone()
}

/// Counts the scenarios read off the main thread: `.0` is bumped by the render in which the
/// page stopped waiting for a read (`loading` went from true to false), `.1` also by the one in
/// which it started: a part keyed on `.1` also follows the render that shows the loading note a
/// few painted frames late (the text view of a big paste: its swap for the read-only view, with
/// the layout around it, was most of a 25-34 ms task beside the note's render).
#[hook]
pub fn use_read_generation(loading: bool) -> (u64, u64) {
    let state = use_mut_ref(|| (loading, 0u64, 0u64));
    let mut s = state.borrow_mut();
    if s.0 != loading {
        s.1 += u64::from(!loading);
        s.2 += 1;
    }
    s.0 = loading;
    (s.1, s.2)
}

/// Counts the builds of lanes over a world drawn aggregated (`big`) whose first update was
/// applied (`shown`: `Lanes::shown_build`). Added to the read generation, it shows such an
/// update in steps too: the parts re-render with the new views one painted frame after another
/// instead of in the task that applied it (at 10^5 sites the first update after a paste, or
/// after a Reset, drew the aggregated view, the class tree and the comparison at once: 32-46 ms
/// of CPU, Chromium trace at load 1).
#[hook]
pub fn use_lanes_generation(shown: Option<u64>, big: bool) -> u64 {
    let state = use_mut_ref(|| (shown, 0u64));
    let mut s = state.borrow_mut();
    if shown.is_some() && s.0 != shown {
        s.1 += u64::from(big);
    }
    s.0 = shown;
    s.1
}
