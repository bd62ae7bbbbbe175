//! Share links and autosave through the real `location` and `localStorage`.

mod common;

use blast_engine::{presets, Policy};
use blast_playground::chrome::Theme;
use blast_playground::model_mode::ModelLink;
use blast_playground::packing::{NotSaved, ToStore};
use blast_playground::playback::Speed;
use blast_playground::share;
use blast_playground::storage::{self, Saved};
use blast_web::browser;
use common::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Store `saved` as the page stores the entry the engine worker made of it.
fn save_entry(saved: Saved) -> Result<(), browser::BrowserError> {
    browser::save(ToStore { entry: storage::encode(&saved).map_err(NotSaved::Refused), text_bytes: saved.scenario_text.len() })
}

#[wasm_bindgen_test]
fn share_link_round_trips_through_the_location() {
    let text = presets::find("oracle_liveParentRedefine").unwrap().text;
    let fragment = share::encode(text, &[Policy::Exact, Policy::Hierarchy], &share::LinkView::default()).unwrap();
    let url = browser::share_url(&fragment).expect("a url");
    assert!(url.ends_with(&format!("#{fragment}")));
    assert!(!location_hash().contains("s="), "making a link leaves the address bar alone");
    set_hash(&format!("#{fragment}"));
    let taken = browser::take_link().expect("a fragment").expect("not refused unread");
    // Taken out of the address bar whole; the engine worker decodes it.
    assert_eq!(location_hash(), "");
    let Ok(Some(share::Link::Scenario(shared))) = share::decode(&taken) else { panic!("a scenario link") };
    assert_eq!(shared.text, text);
    assert_eq!(shared.policies, [Policy::Exact, Policy::Hierarchy]);
    // Reading consumes the link, so a reload restores the autosave instead.
    assert_eq!(location_hash(), "");
    assert!(browser::take_link().is_none());
}

#[wasm_bindgen_test]
fn autosave_round_trips_through_local_storage() {
    local_storage().clear().unwrap();
    let saved = Saved::new("class A {\n  still typing".into(), vec![Policy::Global], Speed::Max, Theme::Dark, None);
    save_entry(saved.clone()).expect("saved");
    let entry = browser::boot().saved.expect("an entry").expect("not set aside");
    assert_eq!(storage::decode(&entry), Ok(saved));
    browser::opened();
}

#[wasm_bindgen_test]
async fn a_corrupted_autosave_is_reported_and_set_aside() {
    let store = local_storage();
    store.clear().unwrap();
    set_hash("");
    store.set_item(storage::KEY, "{\"version\": 1, \"scenario_text\": ").unwrap();
    // The engine reads it and cannot: the page moves it aside and says where.
    let root = render_app().await;
    let live = store.get_item(storage::KEY).unwrap();
    assert!(live.is_none_or(|entry| storage::decode(&entry).is_ok()), "the live key is freed (or holds the fresh page's session)");
    let keys: Vec<String> = (0..store.length().unwrap()).filter_map(|i| store.key(i).ok().flatten()).collect();
    let aside = keys.iter().find(|k| k.starts_with("blast-radius.autosave.corrupt-")).expect("moved aside");
    assert!(store.get_item(aside).unwrap().unwrap().contains("scenario_text"), "the raw entry is kept");
    let banner = find(&root, ".banner-error").text_content().unwrap_or_default();
    assert!(banner.contains("could not be read") && banner.contains(aside.as_str()), "the refusal names where it went: {banner}");
}

#[wasm_bindgen_test]
async fn the_app_restores_its_autosave() {
    local_storage().clear().unwrap();
    set_hash("");
    let text = presets::find("parentChild_baseline").unwrap().text;
    save_entry(Saved::new(text.into(), vec![Policy::Exact], Speed::Factor(1.0), Theme::Light, None)).unwrap();
    let root = render_app().await;
    assert_eq!(textarea_value(&root, "#dsl-text"), text);
    assert_eq!(count(&root, "#comparison-table tbody tr[data-policy]"), 1);
    let html = document().document_element().unwrap();
    assert_eq!(html.get_attribute("data-theme").as_deref(), Some("light"));
}

#[wasm_bindgen_test]
async fn a_hostile_fragment_shows_an_error_and_keeps_the_saved_scenario() {
    local_storage().clear().unwrap();
    let text = presets::find("hotLoop_baseline").unwrap().text;
    save_entry(Saved::new(text.into(), vec![Policy::Global, Policy::Exact], Speed::Factor(0.1), Theme::Auto, None)).unwrap();
    let cyclic = "class A extends B { m }\nclass B extends A\nsite s = A.m\nop { loop 10 { call s } }\n";
    set_hash(&format!("#{}", share::encode(cyclic, &[], &share::LinkView::default()).unwrap()));
    let root = render_app().await;
    set_hash("");
    let banner = find(&root, ".banner-error").text_content().unwrap_or_default();
    assert!(banner.contains("cyclic"), "{banner}");
    assert_eq!(textarea_value(&root, "#dsl-text"), text);
    step(&root, 1).await;
    assert!(exists(&root, "#blast-view figure.lane"), "the page still works");
}

#[wasm_bindgen_test]
async fn a_model_session_is_autosaved_and_restored() {
    let root = fresh_app().await;
    load_preset(&root, "descriptor_treeMap").await;
    change_input(&root, "#knob-entries", "10");
    yew::scheduler::flush().await;
    // Autosave runs in a task of its own after the next paint, and the engine makes the entry.
    after_first_paint().await;
    engine_answers().await;
    let entry = browser::boot().saved.expect("saved").expect("not set aside");
    let saved = storage::decode(&entry).expect("readable");
    // `boot` marks the autosave as being opened; a page clears that once it has painted.
    browser::opened();
    let model = saved.model.expect("the model session is saved");
    assert_eq!((model.preset.as_str(), model.knobs.as_slice()), ("descriptor_treeMap", &[("entries".to_string(), "10".to_string())][..]));
    let again = render_app().await;
    assert_eq!(attr(&again, "#blast-view", "data-model"), "descriptor");
    assert_eq!(input_value(&again, "#knob-entries"), "10");
}

#[wasm_bindgen_test]
async fn a_model_link_opens_and_a_hostile_one_is_an_error() {
    local_storage().clear().unwrap();
    let link =
        ModelLink { preset: "records_rotating11".into(), knobs: vec![("capacity".into(), "12".into())], variants: vec!["fifo".into(), "unbounded".into()] };
    set_hash(&format!("#{}", share::encode_model(&link)));
    let root = render_app().await;
    assert_eq!(count(&root, "#comparison-table tbody tr[data-policy]"), 2);
    assert_eq!(input_value(&root, "#knob-capacity"), "12");
    set_hash("#m=1.eyJwcmVzZXQiOiJub3BlIn0");
    let hostile = render_app().await;
    set_hash("");
    assert!(find(&hostile, ".banner-error").text_content().unwrap_or_default().contains("no model preset"));
    step(&hostile, 1).await;
    assert!(exists(&hostile, "#blast-view"), "the page still works");
}

#[wasm_bindgen_test]
async fn a_visit_that_died_opening_a_link_or_the_autosave_does_not_open_it_again() {
    local_storage().clear().unwrap();
    set_hash("");
    let text = presets::find("hotLoop_baseline").unwrap().text;
    save_entry(Saved::new(text.into(), vec![Policy::Global, Policy::Exact], Speed::Factor(0.1), Theme::Auto, None)).unwrap();
    // Died opening a link: the autosave (never overwritten by the link) comes back.
    local_storage().set_item(storage::OPENING_KEY, "link").unwrap();
    let root = render_app().await;
    assert!(find(&root, ".banner-error").text_content().unwrap_or_default().contains("was not opened again"));
    assert_eq!(textarea_value(&root, "#dsl-text"), text);
    assert!(local_storage().get_item(storage::OPENING_KEY).unwrap().is_none(), "the marker goes once the page painted");
    // Died opening the autosave: it is set aside, the page starts fresh.
    local_storage().set_item(storage::OPENING_KEY, "autosave").unwrap();
    let root = render_app().await;
    assert!(find(&root, ".banner-error").text_content().unwrap_or_default().contains("set aside"));
    assert_ne!(textarea_value(&root, "#dsl-text"), text);
    step(&root, 1).await;
    assert!(exists(&root, "#blast-view figure.lane"), "the page still works");
}
