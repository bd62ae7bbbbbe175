//! The preset gallery: every shipped scenario, the Groovy benchmark workloads first.

use blast_engine::presets::{self, Preset};
use yew::prelude::*;

use crate::format;

#[derive(Properties, PartialEq)]
pub struct GalleryProps {
    /// Id of the preset currently loaded (unedited).
    pub current: Option<AttrValue>,
    /// (preset id, run right away)
    pub on_load: Callback<(String, bool)>,
}

fn family_rank(family: &str) -> u8 {
    match family {
        "groovy" => 0,
        "oracle" => 2,
        _ => 1,
    }
}

fn published_cell(p: &Preset) -> Html {
    match p.published {
        Some(pb) => html! {
            <span title={format!("before {} ± {}, after {} ± {} ops/ms", pb.before, pb.before_err, pb.after, pb.after_err)}>
                { format::sig3(pb.before) }{ " → " }{ format::sig3(pb.after) }
                <span class="ratio">{ format!(" ({})", format::ratio(pb.after / pb.before)) }</span>
            </span>
        },
        None => html! { <span class="muted">{ "—" }</span> },
    }
}

#[function_component(Gallery)]
pub fn gallery(p: &GalleryProps) -> Html {
    let mut list: Vec<&'static Preset> = presets::all().iter().collect();
    list.sort_by_key(|x| family_rank(x.family));
    html! {
        <section id="gallery" class="panel" aria-labelledby="gallery-title">
            <header class="panel-head">
                <h2 id="gallery-title">{ "Presets" }</h2>
                <p class="hint">{ "The GROOVY-12191 benchmark workloads, then scenarios that show the oracle at work. Run loads one and starts it." }</p>
            </header>
            <div class="table-scroll gallery-scroll">
                <table id="preset-table" class="presets">
                    <thead>
                        <tr>
                            <th scope="col">{ "Preset" }</th>
                            <th scope="col">{ "What it shows" }</th>
                            <th scope="col" class="num" title="Published JMH ops/ms: global (before) → exact (after)">{ "Published ops/ms" }</th>
                            <th scope="col"><span class="visually-hidden">{ "Actions" }</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        { for list.iter().map(|preset| {
                            let current = p.current.as_deref() == Some(preset.id);
                            let load = { let cb = p.on_load.clone(); let id = preset.id.to_string(); Callback::from(move |_: MouseEvent| cb.emit((id.clone(), false))) };
                            let run = { let cb = p.on_load.clone(); let id = preset.id.to_string(); Callback::from(move |_: MouseEvent| cb.emit((id.clone(), true))) };
                            html! {
                                <tr data-preset={preset.id} class={classes!(current.then_some("current"))} aria-current={current.then_some("true")}>
                                    <td class="preset-name">
                                        <strong>{ preset.title }</strong>
                                        <div><code>{ preset.id }</code>{ " " }<span class={classes!("family", format!("family-{}", preset.family))}>{ preset.family }</span></div>
                                    </td>
                                    <td class="preset-description">{ preset.description }</td>
                                    <td class="num">{ published_cell(preset) }</td>
                                    <td class="actions">
                                        <button class="load" onclick={load} title="Load into the editor without running">{ "Load" }</button>
                                        <button class="run primary" onclick={run} title="Load and run">{ "Run" }</button>
                                    </td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
