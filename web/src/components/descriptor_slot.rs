//! The descriptor cache's slot for the written class: registered, or the unregistered entry it
//! was pre-seeded with, and how often a descriptor was rebuilt and thrown away.

use yew::prelude::*;

use crate::components::flash::flash_layer;
use crate::components::raw;
use blast_engine::models::descriptor::SlotState;
use blast_playground::format;
use blast_playground::markup::escape;

use blast_playground::model_entities::DescriptorSlot;
use blast_playground::model_runner::EntityView;

pub fn slot(entities: &[EntityView]) -> Html {
    html! { <div class="slot-classes">{ for entities.iter().filter_map(|e| DescriptorSlot::from_entity(&e.entity).map(|d| card(&d, e.flash))) }</div> }
}

fn card(d: &DescriptorSlot, flash: u64) -> Html {
    let (state, badge, explain) = match d.state {
        SlotState::Registered => ("registered", "registered descriptor", "Built once by reflection, then every write reuses it."),
        SlotState::Unregistered => (
            "unregistered",
            "unregistered (pre-seeded)",
            "Put-if-absent loses to the pre-seeded entry: every write builds a registered copy by reflection and throws it away.",
        ),
        SlotState::Empty => ("empty", "empty", "Nothing cached yet."),
    };
    html! {
        <div class={classes!("entity-card", "descriptor-slot", format!("slot-{state}"))} data-class={d.class.clone()} data-state={state}>
            { flash_layer(flash) }
            { raw(format!(
                concat!(
                    r#"<div class="entity-card-head"><span><code>cache[{}.class]</code> → <span class="badge slot-badge">{badge}</span></span></div>"#,
                    r#"<p class="slot-counters"><span>rebuilds <strong class="rebuilds">{}</strong></span><span>discarded copies <strong class="discarded">{}</strong></span></p>"#,
                    r#"<p class="slot-note muted">{explain}</p>"#
                ),
                escape(&d.class),
                format::count(d.rebuilds),
                format::count(d.discarded),
                badge = badge,
                explain = explain
            )) }
        </div>
    }
}
