//! Model mode's blast view: one lane per variant, showing the model's entities at the replay
//! position (arena threads, shape-cache slots, the descriptor cache slot), coloured by the
//! oracle's verdicts and flashing when the replay passes a deopt, a miss or a rebuild.

use std::rc::Rc;

use blast_engine::models::ModelConfig;
use yew::prelude::*;

use crate::components::{arena_threads, descriptor_slot, shape_slots};
use crate::components::{raw, raw_static};
use blast_playground::format;
use blast_playground::markup::escape;
use blast_playground::model_entities::Family;
use blast_playground::model_runner::VariantView;

pub struct ModelViewProps {
    pub views: Vec<Rc<VariantView>>,
    pub config: ModelConfig,
}

fn status(v: &VariantView) -> String {
    if v.error.is_some() {
        return "failed".into();
    }
    match (&v.report, v.revealed) {
        (None, _) => "not run yet".into(),
        (Some(_), 0) => "ready at the first measured op".into(),
        (Some(_), _) if v.finished() => "finished".into(),
        (Some(_), n) => format!("op point {n} of {}", v.total_points()),
    }
}

pub fn model_view(p: &ModelViewProps) -> Html {
    let family = Family::of(&p.config);
    html! {
        <>
            <div class="lanes model-lanes" data-family={family.name()}>
                { for p.views.iter().map(|v| variant_lane(family, v)) }
            </div>
            { legend(family) }
        </>
    }
}

fn variant_lane(family: Family, v: &VariantView) -> Html {
    let body = match &v.entities {
        None if v.error.is_some() => html! {},
        None if v.report.is_some() => html! { <p class="lane-empty muted">{ "The first measured ops are under way…" }</p> },
        None => html! { <p class="lane-empty muted">{ "Press Run (or Step) to replay this variant op by op." }</p> },
        Some(entities) => match family {
            Family::Arena => arena_threads::threads(entities),
            Family::ShapeCache => shape_slots::classes(entities),
            Family::Descriptor => descriptor_slot::slot(entities),
        },
    };
    let caption = format!(
        concat!(
            r#"<span class="swatch series-{}" aria-hidden="true"></span><strong>{}</strong><span class="muted"> · {} · {}</span>"#,
            r#"<span class="lane-relinks" title="verdicts so far: necessary / collateral / missed"><span class="v-necessary">{}</span> / "#,
            r#"<span class="v-collateral">{}</span> / <span class="v-missed">{}</span></span>"#
        ),
        v.index,
        escape(v.variant),
        format::duration_ms(v.now_ms),
        status(v),
        format::count(v.verdicts.necessary),
        format::count(v.verdicts.collateral),
        format::count(v.verdicts.missed)
    );
    html! {
        <figure class="lane model-lane" data-variant={v.variant} data-finished={v.finished().to_string()} key={v.variant}>
            <figcaption>{ raw(caption) }</figcaption>
            if let Some(e) = &v.error {
                <p class="error">{ e }</p>
            }
            { body }
        </figure>
    }
}

fn legend(family: Family) -> Html {
    raw_static(match family {
        Family::Arena => concat!(
            r#"<ul class="legend" aria-label="Legend"><li><span class="legend-dot verdict-necessary"></span>necessary deopt (holds the closing session)</li>"#,
            r#"<li><span class="legend-dot verdict-collateral"></span>collateral deopt</li>"#,
            r#"<li><span class="legend-dot verdict-missed"></span>missed: left compiled while using the closed arena</li>"#,
            r#"<li><span class="legend-dot verdict-handshake-only"></span>handshake only</li>"#,
            r#"<li><span class="legend-flash"></span>flash: deoptimized just now</li>"#,
            r#"<li class="muted">counts: necessary / collateral / missed so far (the oracle’s verdicts)</li></ul>"#
        ),
        Family::ShapeCache => concat!(
            r#"<ul class="legend" aria-label="Legend"><li><span class="legend-slot filled"></span>cached shape</li>"#,
            r#"<li><span class="legend-slot"></span>free slot (leftmost is evicted next)</li>"#,
            r#"<li><span class="legend-flash"></span>flash: a miss rebuilt a handle just now</li>"#,
            r#"<li class="muted">counts: necessary / collateral / missed so far (the oracle’s verdicts)</li></ul>"#
        ),
        Family::Descriptor => concat!(
            r#"<ul class="legend" aria-label="Legend"><li><span class="legend-flash"></span>flash: rebuilt by reflection just now</li>"#,
            r#"<li class="muted">counts: necessary / collateral / missed so far (the oracle’s verdicts)</li></ul>"#
        ),
    })
}
