//! The shape cache per record class at the replay position: its slots (which shapes are
//! cached, in eviction order), hits, misses and hit rate.

use yew::prelude::*;

use crate::components::flash::flash_layer;
use blast_engine::models::shape_cache::Capacity;
use std::fmt::Write;

use crate::components::raw;
use blast_playground::format;
use blast_playground::markup::escape;

use blast_playground::model_entities::ClassSlots;
use blast_playground::model_runner::EntityView;

/// Slots drawn per class at most; a wider cache ends in a "+N" box.
const MAX_BOXES: usize = 24;

pub fn classes(entities: &[EntityView]) -> Html {
    html! {
        <div class="slot-classes">
            { for entities.iter().filter_map(|e| ClassSlots::from_entity(&e.entity).map(|c| class_card(&c, e.flash))) }
        </div>
    }
}

/// The cache's slots and a note on its capacity, as markup (shape names escaped).
fn boxes(c: &ClassSlots) -> String {
    let slots = match c.capacity {
        Capacity::NoCache => return r#"<p class="slot-note muted">No cache: every record read rebuilds its constructor handle.</p>"#.into(),
        Capacity::Bounded(0) => return r#"<p class="slot-note muted">Capacity 0: the cache stores nothing, every new stream misses.</p>"#.into(),
        Capacity::Bounded(n) => (n as usize).max(c.cached.len()),
        Capacity::Unbounded => c.cached.len(),
    };
    let shown = slots.min(MAX_BOXES);
    let mut s = format!(r#"<div class="slot-boxes" role="list" aria-label="{} cache slots">"#, escape(&c.name));
    for i in 0..shown {
        let _ = match c.cached.get(i) {
            Some(shape) => write!(s, r#"<span class="slot filled" role="listitem" title="shape {shape}">{shape}</span>"#),
            None => write!(s, r#"<span class="slot" role="listitem" title="free"></span>"#),
        };
    }
    if slots > shown {
        let _ = write!(s, r#"<span class="slot more" role="listitem">+{}</span>"#, slots - shown);
    }
    let _ = match c.capacity {
        Capacity::Unbounded => write!(s, r#"</div><p class="slot-note muted">unbounded: never evicts</p>"#),
        _ => write!(s, r#"</div><p class="slot-note muted">capacity {slots}; the leftmost is evicted next</p>"#),
    };
    s
}

fn class_card(c: &ClassSlots, flash: u64) -> Html {
    let rate = c.hit_rate().map_or("–".to_string(), |r| format!("{}%", format::sig3(r)));
    html! {
        <div class="entity-card slot-class" data-class={c.name.clone()} data-hit-rate={c.hit_rate().map(|r| r.to_string())}>
            { flash_layer(flash) }
            { raw(format!(
                r#"<div class="entity-card-head"><strong><code>{}</code></strong><span class="muted">hits {} · misses {} · hit rate <strong>{rate}</strong></span></div>{}"#,
                escape(&c.name),
                format::count(c.hits),
                format::count(c.misses),
                boxes(c)
            )) }
        </div>
    }
}
