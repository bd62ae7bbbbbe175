//! The compiled code under a lane's blast graph: one chip per compilation unit (each loop's
//! method, then the event code that ran), its tier, deopts and recompiles, the sites its C2 code
//! inlines; a chip flashes when a retirement deoptimizes it. A chip whose unit inlines the
//! selected site is outlined, since that site's relinks can cost the unit its code.

use yew::prelude::*;

use blast_engine::report::SiteId;
use blast_playground::compiled::{tier_label, CompiledView, UnitView};
use std::fmt::Write;

use crate::components::raw;
use blast_playground::format;
use blast_playground::markup::escape;

/// Sites named in a chip's tooltip (a loop in a big world calls thousands).
const MAX_NAMED: usize = 8;

/// A lane's chips (a plain function, not a component: its lane re-renders it); `names` name the
/// lane's sites, `selected` is the selected site's id.
pub fn compiled_units(compiled: &CompiledView, names: &[String], selected: Option<SiteId>) -> Html {
    if compiled.units.is_empty() {
        return html! {};
    }
    let deopts = compiled.total_deopts();
    html! {
        <div class="compiled-units" role="group" aria-label="Compiled code" data-deopts={deopts.to_string()}>
            <span class="compiled-title muted">{ "compiled code" }</span>
            { for compiled.units.iter().map(|u| chip(u, names, selected)) }
        </div>
    }
}

fn chip(u: &UnitView, names: &[String], selected: Option<SiteId>) -> Html {
    let r = &u.report;
    let st = &r.stats;
    let tier = tier_label(r.tier);
    let state = if r.past_cutoff { "given-up" } else { tier };
    let inlines = match u.inlines.len() {
        0 => String::new(),
        n if n <= MAX_NAMED => format!("; its C2 code inlines {}", u.inlined_names(names).collect::<Vec<_>>().join(", ")),
        n => format!("; its C2 code inlines {} and {} more", u.inlined_names(names).take(MAX_NAMED).collect::<Vec<_>>().join(", "), n - MAX_NAMED),
    };
    let cutoff = if r.past_cutoff { "; C2 gave up on it (PerMethodRecompilationCutoff), so it stays in C1" } else { "" };
    let tip = format!(
        "{}: {tier} now; {}, {}, {}{inlines}{cutoff}",
        r.name,
        format::counted(st.deopts, "deopt"),
        format::counted(st.recompiles, "recompile"),
        format::counted(st.compiles, "compile")
    );
    let inlines_selected = selected.is_some_and(|s| u.inlines_site(s));
    let mut inside =
        format!(r#"<span class="unit-name">{}</span><span class="unit-tier">{}</span>"#, escape(&r.name), if r.past_cutoff { "C1 (C2 gave up)" } else { tier });
    if u.is_loop() {
        let _ =
            write!(inside, r#"<span class="unit-deopts" title="deopts / recompiles">{} / {}</span>"#, format::count(st.deopts), format::count(st.recompiles));
    }
    html! {
        <span class={classes!("unit", format!("tier-{}", state.to_ascii_lowercase()), (!u.is_loop()).then_some("event-code"), inlines_selected.then_some("inlines-selected"))}
            data-unit={r.name.clone()} data-tier={tier} data-deopts={st.deopts.to_string()} title={tip.clone()} aria-label={tip}>
            <span class="flash-layer">
                if u.flash > 0 {
                    <span key={u.flash.to_string()} class="flash-box"></span>
                }
            </span>
            { raw(inside) }
        </span>
    }
}
