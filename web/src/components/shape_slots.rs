//! The shape cache per record class at the replay position: its slots (which shapes are
//! cached, in eviction order), hits, misses and hit rate.

use yew::prelude::*;

use crate::components::model_view::flash_layer;
use blast_engine::models::shape_cache::Capacity;
use blast_playground::format;

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

fn boxes(c: &ClassSlots) -> Html {
    let slots = match c.capacity {
        Capacity::NoCache => return html! { <p class="slot-note muted">{ "No cache: every record read rebuilds its constructor handle." }</p> },
        Capacity::Bounded(0) => return html! { <p class="slot-note muted">{ "Capacity 0: the cache stores nothing, every new stream misses." }</p> },
        Capacity::Bounded(n) => (n as usize).max(c.cached.len()),
        Capacity::Unbounded => c.cached.len(),
    };
    let shown = slots.min(MAX_BOXES);
    let note = match c.capacity {
        Capacity::Unbounded => "unbounded: never evicts".to_string(),
        _ => format!("capacity {slots}; the leftmost is evicted next"),
    };
    html! {
        <>
            <div class="slot-boxes" role="list" aria-label={format!("{} cache slots", c.name)}>
                { for (0..shown).map(|i| match c.cached.get(i) {
                    Some(shape) => html! { <span class="slot filled" role="listitem" title={format!("shape {shape}")}>{ shape }</span> },
                    None => html! { <span class="slot" role="listitem" title="free"></span> },
                }) }
                if slots > shown {
                    <span class="slot more" role="listitem">{ format!("+{}", slots - shown) }</span>
                }
            </div>
            <p class="slot-note muted">{ note }</p>
        </>
    }
}

fn class_card(c: &ClassSlots, flash: u64) -> Html {
    let rate = c.hit_rate().map_or("–".to_string(), |r| format!("{}%", format::sig3(r)));
    html! {
        <div class="entity-card slot-class" data-class={c.name.clone()} data-hit-rate={c.hit_rate().map(|r| r.to_string())}>
            { flash_layer(flash) }
            <div class="entity-card-head">
                <strong><code>{ &c.name }</code></strong>
                <span class="muted">{ format!("hits {} · misses {} · hit rate ", format::count(c.hits), format::count(c.misses)) }<strong>{ rate }</strong></span>
            </div>
            { boxes(c) }
        </div>
    }
}
