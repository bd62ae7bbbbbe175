//! The page: wires the store to the components and the browser services.

use std::cell::RefCell;
use std::rc::Rc;

use blast_engine::{runtimes, Policy};
use yew::prelude::*;

use crate::browser;
use crate::components::banners::{banners, message, BannersProps};
use crate::components::blast_view::BlastView;
use crate::components::charts::Charts;
use crate::components::comparison::{comparison, ComparisonProps};
use crate::components::dsl_editor::{DslEditor, SharedText};
use crate::components::expectations::{expectations, failed_lines, ExpectationsProps};
use crate::components::files::{files, FilesProps};
use crate::components::gallery::Gallery;
use crate::components::help::Help;
use crate::components::knobs::{knobs, KnobsProps};
use crate::components::later::{use_lanes_generation, use_read_generation, Later};
use crate::components::measured::{fetch_reference, MeasuredPanel};
use crate::components::model_comparison::{model_comparison, ModelComparisonProps};
use crate::components::model_expectations::model_expectations;
use crate::components::model_view::{model_view, ModelViewProps};
use crate::components::mutations::Mutations;
use crate::components::scenario_editor::scenario_editor;
use crate::components::topbar::{top_bar, LaneChoice, TopBarProps};
use crate::components::tour::{self, TourProps};
use crate::components::why::Why;
use crate::hooks::{use_autosave, use_downloads, use_engine_worker, use_frame_loop, use_hash_links, use_made, use_mount_stages, use_shortcuts, use_theme};
use crate::scenario_parts::ScenarioParts;
use crate::store::{use_store, Store};
use crate::trace_feed;
use crate::trace_panel::{self, trace_panel};
use crate::warm;
use blast_playground::action::Action;
use blast_playground::aggregate;
use blast_playground::charts::{self, ChartLanes};
use blast_playground::chrome::ChromeAction;
use blast_playground::export;
use blast_playground::gallery::Entry;
use blast_playground::headline::Headline;
use blast_playground::lab::{Lab, LabAction};
use blast_playground::model_entities::Family;
use blast_playground::model_mode::{ModelAction, ModelSession};
use blast_playground::packing::{PackAction, ShareStrip};
use blast_playground::playback::Control;
use blast_playground::playback::RunState;
use blast_playground::session::SessionAction;
use blast_playground::state::AppState;
use blast_playground::timeline;
use blast_playground::timeline::{TimelineAction, TimelineState};
use blast_playground::worker::chart_wire::ChartJob;

/// The parts of the page that mount one painted frame after another (blast view, charts,
/// the why, comparison and expectations panels, the gallery and measured panel, editor); see
/// `use_mount_stages`.
pub const PAGE_PARTS: usize = 5;

/// The page state booted before the first render (`main.rs`), or nothing: then the first
/// render boots it.
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    #[prop_or_default]
    pub booted: Booted,
}

/// A state booted in a task of its own, taken by the first render. Compared by pointer.
#[derive(Clone, Default)]
pub struct Booted(Rc<RefCell<Option<AppState>>>);

impl Booted {
    /// Boots the page state now (the autosave, the link, the default preset's lanes).
    pub fn now() -> Booted {
        browser::install_panic_hook();
        Booted(Rc::new(RefCell::new(Some(boot()))))
    }
}

/// The page state from what the browser holds (autosave, link, tour).
fn boot() -> AppState {
    AppState::boot(browser::boot())
}

impl PartialEq for Booted {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    browser::install_panic_hook();
    let store = use_store(|| props.booted.0.borrow_mut().take().unwrap_or_else(boot));
    let (playing, theme, save_key, scenario_rev, text_rev, loading, opening, touring) = {
        let s = store.read();
        let session = &s.session;
        let loading = session.loading_sites().is_some();
        (s.is_playing(), s.chrome.theme, s.save_key(), session.scenario_rev(), session.text_rev(), loading, s.is_opening(), s.chrome.tour.is_some())
    };
    let (shown_build, big) = {
        let s = store.read();
        let lanes = s.session.runner();
        (lanes.shown_build(), aggregate::aggregates(lanes.classes().len(), s.session.scenario().sites.len()))
    };
    // Shared with the components, copied once per scenario change rather than per frame.
    let shared = {
        let store = store.clone();
        use_memo(scenario_rev, move |_| ScenarioParts::of(&store.read()))
    };
    // The text, copied once per change (not per render: it may be megabytes).
    let text = {
        let store = store.clone();
        use_memo(text_rev, move |_| SharedText(AttrValue::from(Rc::<str>::from(store.read().session.text()))))
    };
    // The strip closes, rather than following along, when what it encodes changes: its note
    // says the link was copied, and the clipboard (and address bar) still hold the old link.
    // Showing a new link there would claim a copy that never happened; one click makes a
    // fresh one.
    {
        let store = store.clone();
        use_effect_with(save_key.clone(), move |_| {
            if store.read().packing.strip.is_some() {
                store.dispatch(PackAction::CloseStrip);
            }
        });
    }
    let mounted = use_mount_stages(PAGE_PARTS);
    // A scenario read off the main thread is shown in steps (components/later.rs).
    let (read, loads) = use_read_generation(loading);
    // So is the first update of new lanes over a world drawn aggregated.
    let steps = read + use_lanes_generation(shown_build, big);
    use_frame_loop(&store, playing);
    use_shortcuts(&store);
    use_hash_links(&store);
    use_theme(theme);
    let draw_chart = use_engine_worker(&store, mounted == PAGE_PARTS);
    use_downloads(&store);
    use_made(&store);
    // The whole page has been built around what was opened (a link that kills the page does so
    // by then), so it may be saved; a large autosave or link is opened once the engine worker
    // has read it and the page has drawn it.
    use_autosave(&store, save_key, mounted == PAGE_PARTS && !loading && !opening);
    // Skipped or finished, the tour stays closed on later visits.
    use_effect_with(touring, |touring| {
        if !*touring {
            browser::remember_tour_done();
        }
    });
    // A first visit's comparison starts once the page is built (`AppState::autoplay`), and the
    // page rehearses opening a big link while idle (`warm`).
    {
        let store = store.clone();
        use_effect_with(mounted == PAGE_PARTS, move |&done| {
            if done {
                store.dispatch(Action::Autoplay);
                warm::rehearse();
            }
        });
    }
    // Where each `expect` line is in the text: re-read only when the text or model changed.
    let expect_lines = {
        let deps = {
            let s = store.read();
            (s.session.scenario_rev(), s.session.edit_epoch(), s.session.text_rev())
        };
        let store = store.clone();
        use_memo(deps, move |&(_, _, text_rev)| {
            let s = store.read();
            // Placed by the engine worker's reading of this text (a second parse, recording
            // places: half a second at 10^5 sites).
            match s.session.read_expect_lines() {
                _ if s.session.scenario().expectations.is_empty() => Vec::new(),
                Some((rev, lines)) if *rev == text_rev => lines.to_vec(),
                _ => Vec::new(),
            }
        })
    };

    // Made once: a fresh callback per render would re-render the gallery on every frame of a run.
    let on_measured = {
        let store = store.clone();
        use_memo((), move |()| show_measured(&store))
    };

    let s = store.read();
    let current = match &s.model {
        Some(m) => Some(AttrValue::from(m.preset.id)),
        None => s.session.entry().map(|e| AttrValue::from(e.id())),
    };
    // The gallery comes after the running comparison; the top bar's picker and its "All
    // presets" button are one click away from it.
    let gallery = html! {
        if mounted >= 4 {
            <Gallery current={current.clone()} on_load={store.handler(load_preset)} on_measured={(*on_measured).clone()} on_trace={store.handler(trace_panel::open_sample)} />
        }
    };
    let html = html! {
        // A file dropped anywhere: a log opens in the trace lab, a scenario is imported.
        <div class="app" data-tour={tour::target(s.chrome.tour)} ondragover={Callback::from(|e: DragEvent| browser::allow_drop(&e))}
            ondrop={store.handler(|store, e: DragEvent| trace_panel::open_files(store, browser::dropped_files(&e)))}>
            <a class="skip-link" href="#blast-view" onclick={skip_to_blast_view()}>{ "Skip the controls: go to the blast view" }</a>
            { top_bar(&top_bar_props(&store, &s, current.clone())) }
            { share_strip(s.packing.strip.as_ref(), &store) }
            { banners(&BannersProps { banners: s.chrome.banners.clone(), on_dismiss: store.callback(|x| Action::Chrome(ChromeAction::DismissBanner(x))) }) }
            if let Some(note) = s.opening_note() {
                <p id="opening" class="loading" role="status">{ note }</p>
            }
            if let Some(sites) = s.session.loading_sites() {
                <p id="loading" class="loading" role="status">
                    { format!("Loading {}… (read off the main thread; the page stays usable)", blast_playground::format::counted(sites as u64, "site")) }
                </p>
            }
            if let (Some(e), None) = (s.session.run_error(), &s.model) {
                <p class="run-error" role="alert">{ "This scenario cannot run: " }{ message(&e.0) }</p>
            }
            if let Some(step) = s.chrome.tour {
                { tour::tour(&TourProps {
                    step,
                    on_next: store.on(|| Action::Chrome(ChromeAction::TourNext)),
                    on_back: store.on(|| Action::Chrome(ChromeAction::TourBack)),
                    on_close: store.on(|| Action::Chrome(ChromeAction::TourClose)),
                }) }
            }
            <main class="layout">
                {
                    match &s.model {
                        Some(m) => model_sections(&store, &s, m, mounted, gallery, &draw_chart),
                        None => call_site_sections(&store, &s, (&shared, &text), (mounted, read, loads, steps), &expect_lines, (gallery, measured_panel(&store, &s.lab, s.session.entry())), &draw_chart),
                    }
                }
                if mounted >= 4 {
                    { trace_panel(&store, &s.trace) }
                }
            </main>
            if s.chrome.help_open {
                <Help on_close={store.on(|| Action::Chrome(ChromeAction::ToggleHelp))} />
            }
            <footer class="footer">
                <p>{ "A deterministic simulation of call-site invalidation (GROOVY-12191 and friends). Press " }<kbd>{ "?" }</kbd>{ " for shortcuts." }</p>
            </footer>
        </div>
    };
    drop(s);
    html
}

/// What the top bar shows of the lanes on screen, whichever mode.
struct LaneStatus {
    run_state: RunState,
    can_run: bool,
    clock_ms: f64,
    progress: f64,
    count: u64,
    count_label: &'static str,
    choices_title: &'static str,
    choices: Vec<LaneChoice>,
}

fn call_site_status(s: &AppState) -> LaneStatus {
    let progress = s
        .session
        .runner()
        .views()
        .iter()
        .map(|l| if l.finished() { 1.0 } else { l.iterations as f64 / l.total_iterations.max(1) as f64 })
        .fold(1.0, f64::min)
        .min(1.0);
    let choices = Policy::ALL
        .iter()
        .map(|p| LaneChoice {
            id: format!("policy-{}", p.name()),
            label: p.name().into(),
            colour: format!("policy-{}", p.name()),
            checked: s.session.policies().contains(p),
        })
        .collect();
    LaneStatus {
        run_state: s.session.run_state(),
        can_run: s.session.run_error().is_none(),
        clock_ms: s.session.runner().clock_ms(),
        progress,
        count: s.session.total_relinks(),
        count_label: "relinks",
        choices_title: "Policies",
        choices,
    }
}

fn model_status(m: &ModelSession) -> LaneStatus {
    let choices = m
        .config()
        .variants()
        .iter()
        .enumerate()
        .map(|(i, v)| LaneChoice { id: format!("variant-{v}"), label: v.to_string(), colour: format!("series-{i}"), checked: m.variants.contains(v) })
        .collect();
    LaneStatus {
        run_state: RunState::of(m.playback.playing, m.runner.views().iter().any(|v| v.revealed > 0), m.runner.finished()),
        can_run: true,
        clock_ms: m.runner.clock_ms(),
        progress: m.runner.views().iter().map(|v| v.progress()).fold(1.0, f64::min),
        count: m.runner.verdict_total(),
        count_label: "invalidations",
        choices_title: "Variants",
        choices,
    }
}

fn top_bar_props(store: &Store, s: &AppState, current: Option<AttrValue>) -> TopBarProps {
    let status = s.model.as_ref().map_or_else(|| call_site_status(s), model_status);
    TopBarProps {
        run_state: status.run_state,
        can_run: status.can_run,
        speed: s.current_speed(),
        clock_ms: status.clock_ms,
        progress: status.progress,
        relinks: status.count,
        counter_label: status.count_label.into(),
        lanes_title: status.choices_title.into(),
        lanes: status.choices,
        theme: s.chrome.theme,
        on_toggle_play: store.on(|| Action::Run(Control::TogglePlay)),
        on_step: store.on(|| Action::Run(Control::Step)),
        on_reset: store.on(|| Action::Run(Control::Reset)),
        on_speed: store.callback(|x| Action::Run(Control::SetSpeed(x))),
        on_toggle_lane: store.callback(Action::ToggleLane),
        on_theme: store.on(|| Action::Chrome(ChromeAction::CycleTheme)),
        on_help: store.on(|| Action::Chrome(ChromeAction::ToggleHelp)),
        on_share: store.handler(share),
        current,
        has_own: s.session.has_own(),
        on_own: store.on(|| SessionAction::OpenOwn),
        on_preset: store.handler(load_preset).reform(|id| (id, true)),
        on_gallery: Callback::from(|()| {
            browser::scroll_into_view("gallery");
            browser::focus_by_id("gallery-title");
        }),
    }
}

/// The charts' timeline props from the state: the window, the range and the marked relink's
/// moment on the current axis (`lanes`: the lanes the charts draw, to place the mark).
fn timeline_props(t: &TimelineState, lanes: &[Rc<blast_playground::runner::LaneView>]) -> (Option<(usize, f64)>, Option<usize>) {
    let mark = t.mark.as_ref().and_then(|m| {
        let lane = lanes.iter().find(|l| l.policy == m.policy)?;
        Some((charts::policy_colour(m.policy), timeline::x_of_time(&lane.timeline, lane.total_iterations, t.axis, m.t_ms)))
    });
    let relinks = t.brush.map(|_| lanes.iter().filter_map(|l| l.in_range.as_ref()).map(|r| r.total).sum());
    (mark, relinks)
}

/// `mounted`: how many parts of the page under the top bar are mounted yet (1: the blast view;
/// 2: also the charts beside it: the running comparison, the first screen; 3: also the why
/// panel under the charts, comparison and expectations; 4: also the gallery and the
/// measured-runtime panel; 5: also the editor); see `use_mount_stages`. `read`: the read
/// generation (`Later`): after a scenario was read off the main thread, the parts after the
/// blast view follow it one painted frame after another. `loads`: also bumped when a read
/// starts (the text view follows the loading note). `steps`: `read`, also bumped when new lanes
/// over a world drawn aggregated bring their first update (`use_lanes_generation`).
#[allow(clippy::too_many_arguments)]
fn call_site_sections(
    store: &Store,
    s: &AppState,
    (shared, text): (&ScenarioParts, &SharedText),
    (mounted, read, loads, steps): (usize, u64, u64, u64),
    expect_lines: &Rc<Vec<Option<usize>>>,
    (gallery, measured): (Html, Html),
    draw_chart: &Callback<ChartJob>,
) -> Html {
    // Hand-fired mutations may load classes the scenario does not declare: only then copy again.
    let (classes, class_names) = if s.session.runner().classes().len() == shared.classes.len() {
        (shared.classes.clone(), shared.class_names.clone())
    } else {
        (Rc::new(s.session.runner().classes().to_vec()), Rc::new(s.session.runner().classes().iter().map(|(name, _)| name.clone()).collect()))
    };
    let active: Vec<(Policy, Vec<String>)> = s.session.runner().views().iter().map(|l| (l.policy, l.active_categories.clone())).collect();
    let error_cb = store.callback(|x| Action::Chrome(ChromeAction::ShowError(x)));
    let (mark, brushed_relinks) = timeline_props(&s.timeline, s.session.slow_lanes());
    let t = &s.timeline;
    // Another scenario's views until the engine worker answers (a Reset, or an entry's read).
    let stale = s.session.showing_previous();
    let trace_on_view = trace_panel::on_view(store, &s.trace);
    html! {
        <>
            <div class="payoff">
                if mounted >= 1 {
                    <section id="blast-view" class={classes!("panel", stale.then_some("stale"))} aria-busy={stale.then_some("true")}
                        aria-labelledby="blast-title" tabindex="-1">
                        <header class="panel-head">
                            <h2 id="blast-title">{ "Blast view" }</h2>
                            // A trace's blast view says what it shows itself.
                            if trace_on_view.is_none() {
                                <p class="hint">{ scenario_caption(s) }</p>
                            }
                        </header>
                        // A trace on view is what the runtime did: the scenario's run figures
                        // and its hand-fired mutations are not about it.
                        if trace_on_view.is_none() {
                            { headline(s.session.slow_lanes()) }
                            if let Some((n, note)) = &s.session.playback().step_note {
                                <p id="step-note" class="step-note" aria-live="polite"><strong>{ format!("Step {n}: ") }</strong>{ message(note) }</p>
                            }
                        }
                        <Later generation={steps} frames={1}>
                        <BlastView trace={trace_on_view.clone()} ..shared.blast_props(s, classes, store.callback(SessionAction::HoverClass), store.callback(SessionAction::SelectSite)) />
                        </Later>
                        if trace_on_view.is_none() {
                        <Later generation={steps} frames={2}>
                        <Mutations classes={class_names} methods={shared.methods.clone()} running={!s.session.runner().finished()}
                            last={s.session.last_fire().cloned()} on_fire={store.callback(SessionAction::Fire)}
                            categories={s.session.scenario().categories.iter().map(|c| c.name.clone()).collect::<Vec<_>>()} {active}
                            on_fire_category={store.callback(|(name, enter)| SessionAction::FireCategory { name, enter })}
                            lanes={s.session.runner().views().iter().map(|l| (l.policy, l.finished(), if l.finished() { l.now_ms } else { 0.0 })).collect::<Vec<_>>()}
                            loop_mode={s.session.loop_mode()} on_toggle_loop={store.on(|| SessionAction::ToggleLoop)} />
                        </Later>
                        }
                    </section>
                }
                // The timeline and the why panel under it: a range brushed on one lists its
                // relinks in the other, a relink clicked there is marked on the charts.
                <div class="side">
                    if let (true, Some(t)) = (mounted >= 2, &trace_on_view) {
                        { crate::components::trace_lab::timeline_panel(&t.page, &t.on_zoom) }
                    } else if mounted >= 2 {
                        <Later generation={steps} frames={1}>
                        <Charts lanes={ChartLanes::CallSites(s.session.slow_lanes().to_vec())} theme={s.chrome.theme} on_error={error_cb.clone()} on_draw={draw_chart.clone()}
                            subject={format!("{} · {}", s.session.scenario().name, s.session.policies().iter().map(|p| p.name()).collect::<Vec<_>>().join(" vs "))}
                            axis={t.axis} view={t.view} brush={t.brush} {mark} {brushed_relinks}
                            on_axis={store.callback(TimelineAction::SetAxis)} on_view={store.callback(TimelineAction::SetView)} on_brush={store.callback(TimelineAction::Brush)} />
                        </Later>
                    }
                    if mounted >= 3 {
                        <Later generation={steps} frames={2}>
                        <Why lanes={s.session.slow_lanes().to_vec()} sites={shared.site_names.clone()}
                            selected={s.session.selected_site().map(|site| AttrValue::from(site.to_string()))} on_select={store.callback(SessionAction::SelectSite)}
                            focus={s.session.focused_cause().cloned()} mark={t.mark.clone()} on_mark={store.callback(TimelineAction::MarkRelink)} trace={trace_on_view} />
                        </Later>
                    }
                </div>
            </div>
            if mounted >= 3 {
                <div class="analysis">
                    <Later generation={steps} frames={2}>
                    { comparison(&ComparisonProps { lanes: s.session.slow_lanes().to_vec(), published: s.session.preset().and_then(|p| p.published()), on_export_csv: store.handler(export_csv) }) }
                    { expectations(&ExpectationsProps {
                        expectations: Rc::new(s.session.scenario().expectations.clone()),
                        outcomes: s.session.expectations().clone(),
                        lines: expect_lines.clone(),
                        lanes: s.session.policies().to_vec(),
                        on_add_lanes: store.callback(SessionAction::AddPolicies),
                        on_cause: store.callback(SessionAction::ShowCause),
                    }) }
                    </Later>
                </div>
            }
            { gallery }
            if mounted >= 4 {
                { measured }
            }
            if mounted >= 5 {
                <section id="editor" class="panel" aria-labelledby="editor-title">
                    <header class="panel-head">
                        <h2 id="editor-title">{ "Scenario editor" }</h2>
                        <div class="history-tools">
                            <button id="new-scenario" class="small" onclick={store.on(|| SessionAction::NewScenario)}
                                title="Start from one class, one site and one loop (Undo brings this scenario back)">{ "New blank scenario" }</button>
                            <button id="undo" class="small" onclick={store.on(|| SessionAction::Undo)} disabled={!s.session.history().can_undo()}
                                title="Undo the last form or text edit (Ctrl+Z)">{ "Undo" }</button>
                            <button id="redo" class="small" onclick={store.on(|| SessionAction::Redo)} disabled={!s.session.history().can_redo()}
                                title="Redo (Ctrl+Shift+Z)">{ "Redo" }</button>
                        </div>
                        { files(&FilesProps { on_file: store.handler(trace_panel::open_files), on_export: store.handler(export_scenario) }) }
                    </header>
                    <div class="editor-grid">
                        // Held while a text is read: a text edit re-keys the form's rows (`edit_epoch`),
                        // and re-drawing the old model's form was ~500 DOM nodes in the render after a
                        // 10^5-site paste (a 51-75 ms task, with the text view's lines).
                        <Later generation={steps} frames={3} hold={s.session.loading_sites().is_some()}>
                        { scenario_editor(&shared.editor_props(s, store.callback(SessionAction::Edit), read)) }
                        </Later>
                        // Also a few frames after a read starts (`loads`): a big paste's text follows
                        // the loading note, in a task of its own.
                        <Later generation={loads} frames={5}>
                        <DslEditor text={text.clone()} error={s.session.text_error().cloned()}
                            on_input={store.handler(edit_text)} on_revert={store.on(|| SessionAction::RevertText)}
                            failed_lines={if s.session.text_error().is_none() { failed_lines(s.session.expectations(), expect_lines) } else { Vec::new() }} />
                        </Later>
                    </div>
                </section>
            }
        </>
    }
}

/// What the comparison found, at the top of the blast view (`blast_playground::headline`): a
/// first visit reads the ratio on the first screen, without scrolling to the table.
fn headline(lanes: &[Rc<blast_playground::runner::LaneView>]) -> Html {
    let Some(h) = Headline::of(lanes) else { return Html::default() };
    html! {
        <p id="headline" class="headline" data-ratio={h.ratio().map(|r| r.to_string())}>{ h.text() }</p>
    }
}

/// An edit of the scenario text: a big one (a paste) is rendered in a task after the one that
/// reduces it (`Store::dispatch_render_later`), a keystroke at once.
fn edit_text(store: &Store, text: String) {
    // A runtime log pasted into the editor is read in the trace lab; the scenario stays.
    if trace_feed::is_log(&text) {
        return trace_feed::open_text(store, "the pasted log".into(), text);
    }
    // A paste: its reading shows the loading note.
    let big = text.len() >= blast_playground::worker::reading::LOADING_NOTE_BYTES;
    match SessionAction::EditText(text) {
        action if big => store.dispatch_render_later(action),
        action => store.dispatch(action),
    }
}

fn model_sections(store: &Store, s: &AppState, m: &ModelSession, mounted: usize, gallery: Html, draw_chart: &Callback<ChartJob>) -> Html {
    let family = Family::of(m.config());
    let caption = format!("{} ({}) under {}.", m.preset.id, family.title(), m.variants.join(", "));
    html! {
        <>
            if mounted >= 1 {
                <section id="blast-view" class="panel model-mode" data-model={family.name()} aria-labelledby="blast-title" tabindex="-1">
                    <header class="panel-head">
                        <h2 id="blast-title">{ "Blast view" }</h2>
                        <p class="hint">{ caption }</p>
                    </header>
                    <p class="model-description">{ m.preset.description }</p>
                    { knobs(&KnobsProps { config: m.config().clone(), error: m.knob_error.clone(), on_set: store.callback(|(knob, value)| ModelAction::SetKnob { knob, value }) }) }
                    { model_view(&ModelViewProps { views: m.runner.views().to_vec(), config: m.config().clone() }) }
                </section>
            }
            if mounted >= 2 {
                { model_comparison(&ModelComparisonProps { views: m.slow_views.clone(), on_export_csv: store.handler(export_csv) }) }
                { model_expectations(&m.slow_expectations) }
                <div class="model-charts">
                    <Charts lanes={ChartLanes::Models(m.slow_views.clone())} theme={s.chrome.theme} on_error={store.callback(|x| Action::Chrome(ChromeAction::ShowError(x)))} on_draw={draw_chart.clone()}
                        subject={format!("{} · {}", m.preset.id, m.variants.join(" vs "))}
                        axis={s.timeline.axis} view={s.timeline.view} brush={s.timeline.brush}
                        on_axis={store.callback(TimelineAction::SetAxis)} on_view={store.callback(TimelineAction::SetView)} on_brush={store.callback(TimelineAction::Brush)} />
                </div>
            }
            { gallery }
        </>
    }
}

/// The measured-runtime panel; while a runtime's gallery scenario is loaded unedited, its row
/// (the workload the scenario simulates) is marked.
fn measured_panel(store: &Store, lab: &Lab, on_screen: Option<Entry>) -> Html {
    let (workload, sites) = runtimes::PRESET_WORKLOAD;
    let highlight = matches!(on_screen, Some(Entry::Runtime(_))).then(|| AttrValue::from(format!("{workload}@{sites}")));
    html! {
        <MeasuredPanel shown={lab.shown.clone()} reading={lab.reading.clone().map(AttrValue::from)} refusal={lab.refusal.clone()} {highlight}
            on_read={store.callback(|(text, origin)| Action::Lab(LabAction::Read { text, origin }))}
            on_refuse={store.callback(|(origin, why)| Action::Lab(LabAction::Refuse { origin, why }))}
            on_clear={store.callback(|()| Action::Lab(LabAction::Clear))} />
    }
}

/// A Runtimes gallery row's Measured button: its scenario is loaded (not run) and its reference
/// result read into the measured panel, which is brought into sight once it is on the page.
fn show_measured(store: &Store) -> Callback<&'static str> {
    let store = store.clone();
    Callback::from(move |runtime_id: &'static str| {
        let Some(runtime) = runtimes::profile(runtime_id) else { return };
        load_preset(&store, (runtime.preset_id(), false));
        let store = store.clone();
        fetch_reference(runtime_id, move |fetched| match fetched {
            Ok((text, origin)) => {
                store.dispatch(Action::Lab(LabAction::Read { text, origin }));
                browser::soon_detached(|| browser::scroll_into_view("measured"));
            }
            Err(e) => store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("The reference result of {runtime_id} could not be read: {e}")))),
        });
    })
}

/// Load a preset; Run also brings the blast view into sight, since the run happens there
/// and not in the gallery row that was clicked.
fn load_preset(store: &Store, (id, run): (String, bool)) {
    store.dispatch(Action::LoadPreset { id, run });
    if run {
        browser::scroll_into_view("blast-view");
    }
}

/// The skip link moves the focus past the top bar's controls and the tour (without leaving
/// `#blast-view` in the address bar, where the share-link reader would look at it).
fn skip_to_blast_view() -> Callback<MouseEvent> {
    Callback::from(|e: MouseEvent| {
        e.prevent_default();
        browser::scroll_into_view("blast-view");
        browser::focus_by_id("blast-view");
    })
}

fn scenario_caption(s: &AppState) -> String {
    let name = if s.session.scenario().name.is_empty() { "Unnamed scenario" } else { s.session.scenario().name.as_str() };
    let policies: Vec<&str> = s.session.policies().iter().map(|p| p.name()).collect();
    format!("{name} under {}. Click a site for its history.", policies.join(", "))
}

/// The share strip under the top bar (`packing::ShareStrip`): the link being made, made (with
/// the clipboard's answer) or refused.
fn share_strip(strip: Option<&ShareStrip>, store: &Store) -> Html {
    let Some(strip) = strip else { return html! {} };
    let body = match strip {
        ShareStrip::Making => html! { <span class="muted">{ "Making the link…" }</span> },
        ShareStrip::Link { fragment, copied } => {
            let select_all = Callback::from(|e: FocusEvent| browser::select_text(&e));
            let note = match copied {
                None => "Copying…",
                Some(true) => "Copied to the clipboard.",
                Some(false) => "Copy it from the box (the browser refused clipboard access).",
            };
            html! {
                <>
                    <label for="share-link">{ "Share link" }</label>
                    <input id="share-link" readonly=true value={browser::share_url(fragment)} onfocus={select_all} />
                    <span class="muted">{ note }</span>
                </>
            }
        }
        ShareStrip::Refused(why) => {
            let download = store.handler(export_scenario).reform(|_: MouseEvent| ());
            html! {
                <>
                    <span id="share-refused">{ why }</span>
                    <button id="share-download" class="small" onclick={download}>{ "Download the scenario file" }</button>
                </>
            }
        }
    };
    html! {
        <div class="share-strip" role="status">
            { body }
            <button class="icon" aria-label="Close" onclick={store.on(|| PackAction::CloseStrip)}>{ "×" }</button>
        </div>
    }
}

/// Copy share link: the engine worker makes the link of what is on screen (`packing`).
fn share(store: &Store, (): ()) {
    let source = store.read().share_source();
    store.dispatch(PackAction::Share(source));
}

fn export_csv(store: &Store, (): ()) {
    store.dispatch(Action::ExportResults);
}

fn export_scenario(store: &Store, (): ()) {
    let (name, text) = {
        let s = store.read();
        (format!("{}.blast", export::file_stem(&s.session.scenario().name)), s.session.shareable_text())
    };
    if let Err(e) = browser::download(&name, "text/plain", &text) {
        store.dispatch(Action::Chrome(ChromeAction::ShowError(format!("Export failed: {e}"))));
    }
}
