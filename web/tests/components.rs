//! Components rendered in a real browser: click, then check what changed.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use blast_web::components::gallery::{Gallery, GalleryProps};
use blast_web::components::topbar::{TopBar, TopBarProps};
use blast_web::state::{Speed, Theme};
use blast_web::App;
use blast_engine::{presets, Policy};
use common::*;
use wasm_bindgen_test::*;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

fn reset_browser_state() {
    local_storage().clear().expect("clear storage");
    set_hash("");
}

#[wasm_bindgen_test]
async fn gallery_lists_every_preset_and_run_reports_it() {
    let root = fresh_root();
    let seen = Rc::new(RefCell::new(Vec::new()));
    let on_load = {
        let seen = seen.clone();
        Callback::from(move |e: (String, bool)| seen.borrow_mut().push(e))
    };
    yew::Renderer::<Gallery>::with_root_and_props(root.clone(), GalleryProps { current: None, on_load }).render();
    yew::scheduler::flush().await;
    assert_eq!(count(&root, "table#preset-table tbody tr[data-preset]"), presets::all().len() as u32);
    assert_eq!(attr(&root, "table#preset-table tbody tr", "data-preset").split('_').next(), Some("hotLoop"), "Groovy workloads come first");
    click(&root, r#"tr[data-preset="hotLoop_sameTypeMetaClassChurn"] button.run"#);
    click(&root, r#"tr[data-preset="oracle_liveParentRedefine"] button.load"#);
    assert_eq!(*seen.borrow(), vec![("hotLoop_sameTypeMetaClassChurn".to_string(), true), ("oracle_liveParentRedefine".to_string(), false)]);
}

#[wasm_bindgen_test]
async fn top_bar_buttons_call_back() {
    let root = fresh_root();
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let note = |what: &'static str| {
        let log = log.clone();
        Callback::from(move |_: ()| log.borrow_mut().push(what.to_string()))
    };
    let on_policy = {
        let log = log.clone();
        Callback::from(move |p: Policy| log.borrow_mut().push(format!("policy {p}")))
    };
    let on_speed = {
        let log = log.clone();
        Callback::from(move |s: Speed| log.borrow_mut().push(format!("speed {}", s.short_label())))
    };
    let props = TopBarProps {
        playing: false,
        finished: false,
        can_run: true,
        speed: Speed::Factor(0.1),
        clock_ms: 0.0,
        progress: 0.0,
        relinks: 7,
        policies: vec![Policy::Global, Policy::Exact],
        theme: Theme::Auto,
        on_toggle_play: note("play"),
        on_step: note("step"),
        on_reset: note("reset"),
        on_speed,
        on_toggle_policy: on_policy,
        on_theme: note("theme"),
        on_help: note("help"),
        on_share: note("share"),
    };
    yew::Renderer::<TopBar>::with_root_and_props(root.clone(), props).render();
    yew::scheduler::flush().await;
    assert_eq!(find(&root, "#relink-count").text_content().as_deref(), Some("7"));
    click(&root, "#run");
    click(&root, "#step");
    click(&root, "#policy-hierarchy");
    select(&root, "#speed", "7");
    assert_eq!(*log.borrow(), ["play", "step", "policy hierarchy", "speed max"]);
}

#[wasm_bindgen_test]
async fn app_loads_a_preset_and_adds_a_policy_lane() {
    reset_browser_state();
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    assert!(exists(&root, "table#preset-table"));
    for id in ["gallery", "editor", "blast-view", "charts", "comparison", "why"] {
        assert!(exists(&root, &format!("#{id}")), "section #{id}");
    }
    click(&root, r#"tr[data-preset="parentChild_baseline"] button.load"#);
    yew::scheduler::flush().await;
    assert!(textarea_value(&root, "#dsl-text").contains("parentChild_baseline"));
    assert_eq!(count(&root, "#comparison-table tbody tr[data-policy]"), 2);
    click(&root, "#policy-hierarchy");
    yew::scheduler::flush().await;
    assert!(exists(&root, r#"#comparison-table tr[data-policy="hierarchy"]"#));
    assert!(exists(&root, r#"#blast-view figure.lane[data-policy="hierarchy"]"#));
}

#[wasm_bindgen_test]
async fn app_fires_a_write_and_the_relink_counter_moves() {
    reset_browser_state();
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    click(&root, r#"tr[data-preset="hotLoop_baseline"] button.load"#);
    yew::scheduler::flush().await;
    for _ in 0..7 {
        click(&root, "#step");
        yew::scheduler::flush().await;
    }
    assert_eq!(attr(&root, "#relink-count", "data-value"), "0");
    select(&root, "#fire-class", "Hot");
    click(&root, "#fire-write");
    yew::scheduler::flush().await;
    assert!(find(&root, ".fire-outcome").text_content().unwrap_or_default().contains("Fired"));
    click(&root, "#step");
    click(&root, "#step");
    yew::scheduler::flush().await;
    let relinks: u64 = attr(&root, "#relink-count", "data-value").parse().expect("a number");
    assert!(relinks > 0, "relinks after the write: {relinks}");
    assert!(exists(&root, "#blast-view .site .flash"), "relinked sites flash");
}

#[wasm_bindgen_test]
async fn app_keeps_invalid_text_and_marks_the_line() {
    reset_browser_state();
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    let text = textarea_value(&root, "#dsl-text");
    let broken = text.replace("class Unrelated", "class Unrelated extends Ghost");
    type_into(&root, "#dsl-text", &broken);
    yew::scheduler::flush().await;
    assert_eq!(textarea_value(&root, "#dsl-text"), broken);
    let error = find(&root, "#dsl-error").text_content().unwrap_or_default();
    assert!(error.contains("Ghost"), "{error}");
    assert!(exists(&root, ".gutter .error-line"));
    click(&root, "#revert-text");
    yew::scheduler::flush().await;
    assert!(!exists(&root, "#dsl-error"));
}

#[wasm_bindgen_test]
async fn model_edits_reprint_the_text_and_cycles_are_refused() {
    reset_browser_state();
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    type_into(&root, "#new-class-name", "Extra");
    click(&root, "#add-class");
    yew::scheduler::flush().await;
    assert!(textarea_value(&root, "#dsl-text").contains("class Extra"));
    select(&root, r#".tree-row[data-class="HierParent"] select[aria-label="Parent of HierParent"]"#, "HierChild");
    yew::scheduler::flush().await;
    assert!(find(&root, "#editor-error").text_content().unwrap_or_default().contains("cyclic"));
    assert!(!textarea_value(&root, "#dsl-text").contains("HierParent extends"));
}

#[wasm_bindgen_test]
async fn question_mark_opens_the_cheat_sheet() {
    reset_browser_state();
    let root = fresh_root();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    click(&root, "#help-button");
    yew::scheduler::flush().await;
    assert!(exists(&root, "#cheat-sheet"));
    assert!(find(&root, "#cheat-sheet").text_content().unwrap_or_default().contains("Run / pause"));
}
