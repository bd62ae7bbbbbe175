//! Components rendered in a real browser: click, then check what changed.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use blast_engine::models::MODEL_PRESETS;
use blast_engine::runtimes::PROFILES;
use blast_engine::{presets, Policy};
use blast_playground::chrome::Theme;
use blast_playground::lab::{Lab, LabAction};
use blast_playground::measured;
use blast_playground::playback::{RunState, Speed};
use blast_playground::trace_lab::samples::SAMPLES;
use blast_playground::worker::fit_wire;
use blast_web::components::gallery::{Gallery, GalleryProps};
use blast_web::components::measured::{MeasuredPanel, MeasuredProps};
use blast_web::components::topbar::{top_bar, LaneChoice, TopBarProps};
use common::*;
use wasm_bindgen_test::*;
use yew::{function_component, Callback, Html, Properties};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn gallery_lists_every_preset_and_run_reports_it() {
    let root = fresh_root();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let on_load = {
        let seen = seen.clone();
        Callback::from(move |e: (String, bool)| seen.borrow_mut().push(e))
    };
    let measured = Rc::new(RefCell::new(Vec::new()));
    let on_measured = {
        let measured = measured.clone();
        Callback::from(move |id: &'static str| measured.borrow_mut().push(id))
    };
    let traces = Rc::new(RefCell::new(Vec::new()));
    let on_trace = {
        let traces = traces.clone();
        Callback::from(move |id: &'static str| traces.borrow_mut().push(id))
    };
    yew::Renderer::<Gallery>::with_root_and_props(root.clone(), GalleryProps { current: None, on_load, on_measured, on_trace }).render();
    yew::scheduler::flush().await;
    assert_eq!(count(&root, "table#preset-table tbody tr[data-preset]"), (presets::all().len() + MODEL_PRESETS.len() + PROFILES.len()) as u32);
    assert_eq!(count(&root, "table#preset-table tbody tr[data-runtime]"), PROFILES.len() as u32);
    assert_eq!(attr(&root, "table#preset-table tbody tr[data-preset]", "data-preset").split('_').next(), Some("hotLoop"), "Groovy workloads come first");
    assert_eq!(count(&root, "table#preset-table tbody tr.group-row"), 6, "call sites, one heading per model family, the runtimes, then the traces");
    click(&root, r#"tr[data-preset="hotLoop_sameTypeMetaClassChurn"] button.run"#);
    click(&root, r#"tr[data-preset="oracle_liveParentRedefine"] button.load"#);
    click(&root, r#"tr[data-preset="runtime_cpython"] button.run"#);
    assert_eq!(
        *seen.borrow(),
        vec![("hotLoop_sameTypeMetaClassChurn".to_string(), true), ("oracle_liveParentRedefine".to_string(), false), ("runtime_cpython".to_string(), true)]
    );
    assert_eq!(count(&root, "tr.runtime-row button.measured-link"), PROFILES.len() as u32, "every runtime row links to its measured result");
    click(&root, r#"tr[data-runtime="jruby"] button.measured-link"#);
    assert_eq!(*measured.borrow(), vec!["jruby"]);
    assert_eq!(count(&root, "tr.trace-row button.trace-open"), SAMPLES.len() as u32, "every committed log has a row");
    click(&root, r#"tr[data-trace="hotspot-cha-break"] button.trace-open"#);
    assert_eq!(*traces.borrow(), vec!["hotspot-cha-break"]);
}

/// The measured panel as the app holds it: its state in a `Lab`, and a worker that answers
/// each job at once through its bytes (`fit_wire::answer`, what the engine worker runs).
#[derive(Properties, PartialEq)]
struct MeasuredHostProps {
    highlight: Option<yew::AttrValue>,
}

#[function_component(MeasuredHost)]
fn measured_host(p: &MeasuredHostProps) -> Html {
    let lab = yew::use_mut_ref(Lab::default);
    let redraw = yew::use_force_update();
    let act = {
        let lab = lab.clone();
        Callback::from(move |action: LabAction| {
            let mut lab = lab.borrow_mut();
            lab.reduce(action);
            if let Some(job) = lab.take_fit() {
                let (job, answer) = fit_wire::decode_reply(&fit_wire::answer(&job.bytes)).expect("a readable reply");
                lab.reduce(LabAction::Answered { job, answer: Box::new(answer) });
            }
            redraw.force_update();
        })
    };
    let lab = lab.borrow();
    yew::html! {
        <MeasuredPanel shown={lab.shown.clone()} reading={lab.reading.clone().map(yew::AttrValue::from)} refusal={lab.refusal.clone()}
            highlight={p.highlight.clone()}
            on_read={act.reform(|(text, origin)| LabAction::Read { text, origin })}
            on_refuse={act.reform(|(origin, why)| LabAction::Refuse { origin, why })}
            on_clear={act.reform(|()| LabAction::Clear)} />
    }
}

#[wasm_bindgen_test]
async fn measured_panel_reads_and_fits_a_result_in_the_worker_and_places_a_bad_paste() {
    // Asked of the engine worker (`lab::Lab`): the panel says so until the answer.
    let asked = fresh_root();
    let props = MeasuredProps {
        shown: None,
        reading: Some("pasted text".into()),
        refusal: None,
        highlight: None,
        on_read: Callback::noop(),
        on_refuse: Callback::noop(),
        on_clear: Callback::noop(),
    };
    yew::Renderer::<MeasuredPanel>::with_root_and_props(asked.clone(), props).render();
    yew::scheduler::flush().await;
    assert!(exists(&asked, "#measured-fitting") && !exists(&asked, "#measured-verdict"), "the answer is awaited, with a note");
    assert!(find(&asked, "#measured-fitting").text_content().unwrap_or_default().contains("pasted text"));

    // A result pasted and read: its fit as it comes back through the worker's bytes.
    let root = fresh_root();
    yew::Renderer::<MeasuredHost>::with_root_and_props(root.clone(), MeasuredHostProps { highlight: Some("fanout_root@8".into()) }).render();
    yew::scheduler::flush().await;
    let cpython = include_str!("../../probes/results/cpython.json");
    click(&root, "#measured-paste-toggle");
    yew::scheduler::flush().await;
    type_into(&root, "#measured-paste-text", cpython);
    click(&root, "#measured-read");
    yew::scheduler::flush().await;
    assert!(!exists(&root, "#measured-fitting") && !exists(&root, "#measured-error"));
    let expected = blast_engine::fingerprint::fingerprint(&measured::read(cpython).unwrap()).unwrap();
    assert_eq!(attr(&root, "#measured-verdict", "data-best"), expected.best().policy.name());
    assert_eq!(count(&root, "#measured-table tbody tr"), expected.pairs.len() as u32);
    assert_eq!(count(&root, "#measured-table thead th"), 3 + Policy::ALL.len() as u32, "workload, measured, spread, then every policy");
    assert!(exists(&root, r#"#measured-table tr.current[data-workload="fanout_root@8"]"#));
    assert_eq!(count(&root, "#measured-chart g.strip"), expected.pairs.len() as u32);
    let summary = || find(&root, "#measured-summary").text_content().unwrap_or_default();
    assert!(summary().contains("CPython 3.11") && summary().contains("pasted text"), "{}", summary());

    type_into(&root, "#measured-paste-text", "{\n  \"schema\": \"blast-radius-probe/1\",\n  \"rows\": [,]\n}");
    click(&root, "#measured-read");
    yew::scheduler::flush().await;
    let error = find(&root, "#measured-error").text_content().unwrap_or_default();
    assert!(error.contains("pasted text is not a probe result we can read") && error.contains("3:12"), "{error}");
    assert!(exists(&root, "#measured-error pre.excerpt .caret"));
    assert!(summary().contains("CPython 3.11"), "a refused paste replaces nothing");
    // A paste over the file's cap is refused on the page, not copied to the worker.
    type_into(&root, "#measured-paste-text", &" ".repeat(1_000_001));
    click(&root, "#measured-read");
    yew::scheduler::flush().await;
    let error = find(&root, "#measured-error").text_content().unwrap_or_default();
    assert!(error.contains("pasted text was not read: it is over 1 MB"), "{error}");

    // A reference result is fetched (`results/node.json` beside the page; e2e `runtimes` picks
    // one from the built site). The test runner's page has none there: the failed fetch is a
    // refusal that names what was asked for, not a panic, and it replaces nothing.
    select(&root, "#measured-reference", "node");
    for _ in 0..200 {
        if find(&root, "#measured-error").text_content().unwrap_or_default().contains("node") {
            break;
        }
        gloo::timers::future::TimeoutFuture::new(5).await;
        yew::scheduler::flush().await;
    }
    let error = find(&root, "#measured-error").text_content().unwrap_or_default();
    assert!(error.contains("the reference result of node was not read"), "{error}");
    assert!(summary().contains("CPython 3.11"), "a failed fetch replaces nothing");

    click(&root, "#measured-clear");
    yew::scheduler::flush().await;
    assert!(!exists(&root, "#measured-summary") && !exists(&root, "#measured-error"), "Clear empties the panel");
}

/// The top bar is a plain function, not a component: the test's own component hosts it.
#[derive(Properties)]
struct TopBarHostProps {
    props: Rc<TopBarProps>,
}

impl PartialEq for TopBarHostProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.props, &other.props)
    }
}

#[function_component(TopBarHost)]
fn top_bar_host(p: &TopBarHostProps) -> Html {
    top_bar(&p.props)
}

#[wasm_bindgen_test]
async fn top_bar_buttons_call_back() {
    let root = fresh_root();
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let note = |what: &'static str| {
        let log = log.clone();
        Callback::from(move |_: ()| log.borrow_mut().push(what.to_string()))
    };
    let on_lane = {
        let log = log.clone();
        Callback::from(move |i: usize| log.borrow_mut().push(format!("lane {i}")))
    };
    let on_speed = {
        let log = log.clone();
        Callback::from(move |s: Speed| log.borrow_mut().push(format!("speed {}", s.short_label())))
    };
    let props = TopBarProps {
        run_state: RunState::Paused,
        can_run: true,
        speed: Speed::Factor(0.1),
        clock_ms: 0.0,
        progress: 0.0,
        relinks: 7,
        counter_label: "relinks".into(),
        lanes_title: "Policies".into(),
        lanes: blast_engine::Policy::ALL
            .iter()
            .map(|p| LaneChoice {
                id: format!("policy-{}", p.name()),
                label: p.name().into(),
                colour: format!("policy-{}", p.name()),
                checked: *p != Policy::Hierarchy,
            })
            .collect(),
        theme: Theme::Auto,
        on_toggle_play: note("play"),
        on_step: note("step"),
        on_reset: note("reset"),
        on_speed,
        on_toggle_lane: on_lane,
        on_theme: note("theme"),
        on_help: note("help"),
        on_share: note("share"),
        current: Some("hotLoop_baseline".into()),
        has_own: true,
        on_own: note("own"),
        on_preset: {
            let log = log.clone();
            Callback::from(move |id: String| log.borrow_mut().push(format!("preset {id}")))
        },
        on_gallery: note("gallery"),
    };
    yew::Renderer::<TopBarHost>::with_root_and_props(root.clone(), TopBarHostProps { props: Rc::new(props) }).render();
    yew::scheduler::flush().await;
    assert_eq!(find(&root, "#relink-count").text_content().as_deref(), Some("7"));
    assert_eq!(find(&root, "#run").text_content().as_deref(), Some("Resume"), "a paused run resumes");
    click(&root, "#run");
    click(&root, "#step");
    click(&root, "#policy-hierarchy");
    select(&root, "#speed", "7");
    select(&root, "#preset-picker", "parentChild_baseline");
    click(&root, "#gallery-jump");
    assert_eq!(*log.borrow(), ["play", "step", "lane 2", "speed max", "preset parentChild_baseline", "gallery"]);
}

#[wasm_bindgen_test]
async fn app_loads_a_preset_and_adds_a_policy_lane() {
    let root = fresh_app().await;
    assert!(exists(&root, "table#preset-table"));
    for id in ["gallery", "editor", "blast-view", "charts", "comparison", "why"] {
        assert!(exists(&root, &format!("#{id}")), "section #{id}");
    }
    load_preset(&root, "parentChild_baseline").await;
    assert!(textarea_value(&root, "#dsl-text").contains("parentChild_baseline"));
    assert_eq!(count(&root, "#comparison-table tbody tr[data-policy]"), 2);
    click(&root, "#policy-hierarchy");
    engine_answers().await;
    assert!(exists(&root, r#"#comparison-table tr[data-policy="hierarchy"]"#));
    assert!(exists(&root, r#"#blast-view figure.lane[data-policy="hierarchy"]"#));
}

#[wasm_bindgen_test]
async fn app_fires_a_write_and_the_relink_counter_moves() {
    let root = fresh_app().await;
    load_preset(&root, "hotLoop_baseline").await;
    step(&root, 7).await;
    assert_eq!(attr(&root, "#relink-count", "data-value"), "0");
    select(&root, "#fire-class", "Hot");
    click(&root, "#fire-write");
    engine_answers().await;
    assert!(find(&root, ".fire-outcome").text_content().unwrap_or_default().contains("Fired"));
    click(&root, "#step");
    click(&root, "#step");
    engine_answers().await;
    let relinks: u64 = attr(&root, "#relink-count", "data-value").parse().expect("a number");
    assert!(relinks > 0, "relinks after the write: {relinks}");
    assert!(exists(&root, "#blast-view .site .flash"), "relinked sites flash");
}

#[wasm_bindgen_test]
async fn app_keeps_invalid_text_and_marks_the_line() {
    let root = fresh_app().await;
    let text = textarea_value(&root, "#dsl-text");
    let broken = text.replace("class Unrelated", "class Unrelated extends Ghost");
    type_into(&root, "#dsl-text", &broken);
    engine_answers().await;
    assert_eq!(textarea_value(&root, "#dsl-text"), broken);
    let error = find(&root, "#dsl-error").text_content().unwrap_or_default();
    assert!(error.contains("Ghost"), "{error}");
    assert!(exists(&root, ".gutter .error-line"));
    click(&root, "#revert-text");
    engine_answers().await;
    assert!(!exists(&root, "#dsl-error"));
}

#[wasm_bindgen_test]
async fn model_edits_reprint_the_text_and_cycles_are_refused() {
    let root = fresh_app().await;
    type_into(&root, "#new-class-name", "Extra");
    click(&root, "#add-class");
    engine_answers().await;
    assert!(textarea_value(&root, "#dsl-text").contains("class Extra"));
    select(&root, r#".tree-row[data-class="HierParent"] select[aria-label="Parent of HierParent"]"#, "HierChild");
    engine_answers().await;
    assert!(find(&root, "#editor-error").text_content().unwrap_or_default().contains("cyclic"));
    assert!(!textarea_value(&root, "#dsl-text").contains("HierParent extends"));
}

#[wasm_bindgen_test]
async fn question_mark_opens_the_cheat_sheet() {
    let root = fresh_app().await;
    click(&root, "#help-button");
    engine_answers().await;
    assert!(exists(&root, "#cheat-sheet"));
    assert!(find(&root, "#cheat-sheet").text_content().unwrap_or_default().contains("Run / pause"));
}

#[wasm_bindgen_test]
async fn app_switches_to_a_model_and_toggles_a_variant() {
    let root = fresh_app().await;
    load_preset(&root, "records_rotating11").await;
    assert_eq!(attr(&root, "#blast-view", "data-model"), "shape-cache");
    assert!(!exists(&root, "#editor") && !exists(&root, "#why"), "call-site panels leave in model mode");
    assert!(!exists(&root, "#policy-global"), "the checkboxes are the model's variants");
    assert_eq!(count(&root, "#comparison-table tbody tr[data-policy]"), 5);
    assert_eq!(count(&root, ".model-lane"), 5);
    click(&root, "#variant-lru");
    engine_answers().await;
    assert_eq!(count(&root, ".model-lane"), 4);
    assert!(!exists(&root, r#"#comparison-table tr[data-policy="lru"]"#));
    step(&root, 3).await;
    assert!(exists(&root, r#".model-lane[data-variant="fifo"] .slot-class[data-class="Line"] .slot.filled"#), "the cache slots fill");
    assert!(exists(&root, ".model-lane .flash-box"), "misses flash");
    load_preset(&root, "hotLoop_baseline").await;
    assert!(exists(&root, "#editor") && exists(&root, "#policy-global"), "a call-site preset brings call-site mode back");
}

#[wasm_bindgen_test]
async fn a_bad_knob_value_shows_a_message_and_a_good_one_reruns() {
    let root = fresh_app().await;
    load_preset(&root, "arena_closeGroup").await;
    change_input(&root, "#knob-threads", "lots");
    engine_answers().await;
    assert!(find(&root, "#knob-error").text_content().unwrap_or_default().contains("not a whole number"));
    assert_eq!(attr(&root, "#knob-threads", "aria-invalid"), "true");
    change_input(&root, "#knob-threads", "4");
    engine_answers().await;
    assert!(!exists(&root, "#knob-error"));
    assert_eq!(attr(&root, "#run", "aria-pressed"), "true", "a valid knob re-runs the model");
    step(&root, 4).await;
    assert_eq!(count(&root, r#".model-lane[data-variant="always"] .thread"#), 4, "once each thread has finished an op");
}

#[wasm_bindgen_test]
async fn mutations_enter_and_leave_a_category() {
    let root = fresh_app().await;
    load_preset(&root, "hotLoop_baseline").await;
    step(&root, 1).await;
    click(&root, "#fire-category-enter");
    engine_answers().await;
    assert_eq!(find(&root, "#active-categories").text_content().as_deref(), Some("HotCategory"));
    assert!(find(&root, ".fire-outcome").text_content().unwrap_or_default().contains("use HotCategory (enter)"));
    click(&root, "#fire-category-leave");
    engine_answers().await;
    assert_eq!(find(&root, "#active-categories").text_content().as_deref(), Some("none"));
}

#[wasm_bindgen_test]
async fn the_page_mounts_its_parts_one_painted_frame_after_another() {
    local_storage().clear().unwrap();
    set_hash("");
    let root = fresh_root();
    yew::Renderer::<blast_web::App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    assert!(exists(&root, ".topbar") && !exists(&root, "#blast-view"), "the first render is the top bar alone");
    // Each painted frame adds the next part: blast view (its lanes follow the engine's answer),
    // charts, why and comparison, gallery, editor.
    let parts = ["#blast-view", "#charts", "#comparison", "table#preset-table", "#editor"];
    for (mounted, part) in parts.iter().enumerate() {
        after_first_paint().await;
        assert!(exists(&root, part), "{part} after frame {}", mounted + 1);
        if let Some(next) = parts.get(mounted + 1) {
            assert!(!exists(&root, next), "{next} waits for frame {}", mounted + 2);
        }
    }
}

#[wasm_bindgen_test]
async fn the_share_strip_closes_when_what_it_encodes_changes() {
    let root = fresh_app().await;
    click(&root, "#share-button");
    yew::scheduler::flush().await;
    assert!(find(&root, ".share-strip").text_content().unwrap_or_default().contains("Making the link"), "the engine makes it");
    engine_answers().await;
    assert!(input_value(&root, "#share-link").contains("#s=2."));
    load_preset(&root, "parentChild_baseline").await;
    assert!(!exists(&root, ".share-strip"), "another preset closes the strip");
    click(&root, "#share-button");
    engine_answers().await;
    let text = textarea_value(&root, "#dsl-text").replace("class Unrelated", "class Unrelated { extra }");
    type_into(&root, "#dsl-text", &text);
    yew::scheduler::flush().await;
    assert!(!exists(&root, "#share-link"), "an edit closes the strip");
    // Closed while its link is being made: the engine's late answer does not reopen it.
    click(&root, "#share-button");
    load_preset(&root, "records_rotating11").await;
    engine_answers().await;
    assert!(!exists(&root, ".share-strip"), "model mode closes the strip");
    set_hash("");
}

/// A paste event as a user's, carrying `text`, dispatched on `target`; whether its default ran.
fn paste_event(target: &web_sys::Element, text: &str) -> bool {
    let make = js_sys::Function::new_with_args(
        "text",
        "const d = new DataTransfer(); d.setData('text/plain', text); return new ClipboardEvent('paste', { clipboardData: d, bubbles: true, cancelable: true });",
    );
    let event: web_sys::Event = make.call1(&wasm_bindgen::JsValue::NULL, &text.into()).expect("a paste event").into();
    target.dispatch_event(&event).expect("dispatched")
}

#[wasm_bindgen_test]
async fn a_large_paste_is_taken_from_the_box_and_handed_over_in_a_later_task() {
    use wasm_bindgen::JsCast;
    let root = fresh_root();
    root.set_inner_html("<textarea id='box'></textarea>");
    let area: web_sys::HtmlTextAreaElement = find(&root, "#box").dyn_into().unwrap();
    let got = Rc::new(RefCell::new(Vec::new()));
    let taken = Rc::new(RefCell::new(Vec::new()));
    let _listener = {
        let (got, taken) = (got.clone(), taken.clone());
        // Not passive (`EventListener::new`'s default): the paste's default must be preventable.
        let options = gloo::events::EventListenerOptions::enable_prevent_default();
        gloo::events::EventListener::new_with_options(&area, "paste", options, move |e| {
            let got = got.clone();
            taken.borrow_mut().push(blast_web::browser::take_paste(e, 3, move |text| got.borrow_mut().push(text)));
        })
    };
    // The selection is in UTF-16 units: the emoji is two.
    area.set_value("é😀z");
    area.set_selection_range(3, 3).unwrap();
    assert!(!paste_event(&area, "-->"), "the box's default is prevented");
    assert!(got.borrow().is_empty(), "handed over in a task after the paste's");
    let handed = |n: usize| {
        let got = got.clone();
        async move {
            for _ in 0..200 {
                if got.borrow().len() >= n {
                    return;
                }
                gloo::timers::future::TimeoutFuture::new(5).await;
            }
        }
    };
    handed(1).await;
    assert_eq!(*got.borrow(), ["é😀-->z"]);
    area.set_value("abcd");
    area.set_selection_range(1, 3).unwrap();
    assert!(paste_event(&area, "XY"), "a small paste is left to the box");
    assert!(!paste_event(&area, "XYZ"));
    handed(2).await;
    assert_eq!(*got.borrow(), ["é😀-->z", "aXYZd"]);
    assert_eq!(*taken.borrow(), [true, false, true]);
    // A big paste comes into wasm a part per task; a part never ends inside a surrogate pair
    // (after "a", every pair starts at an odd unit: the first part's end would split one).
    let big = format!("a{}", "😀".repeat(400_000));
    area.set_value("");
    assert!(!paste_event(&area, &big));
    handed(3).await;
    assert_eq!(got.borrow().len(), 3, "handed over once, whole");
    assert!(got.borrow()[2] == big, "the text came through unchanged");
}

#[wasm_bindgen_test]
fn a_selection_past_the_end_is_clamped() {
    let join = |v: &str, s, e, p: &str| String::from(blast_web::browser::pasted_into(&v.into(), s, e, &p.into()));
    assert_eq!(join("abcd", 4, 4, "!"), "abcd!");
    assert_eq!(join("", 0, 0, "x"), "x");
    assert_eq!(join("ab", 9, 1, "-"), "ab-", "past the end, reversed: at the end");
    assert_eq!(join("ab", 1, 9, "-"), "a-");
}
