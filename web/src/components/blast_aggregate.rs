//! The blast view for big worlds (`aggregate::aggregates`): one row per class with its
//! subtree's counts and heat, opened level by level, plus a search that opens the path to a
//! class or site. Lanes sit side by side with the same rows, so policies compare row by row.
//! Site rows select the site (the why panel follows) and class rows drive the what-if preview,
//! as the card drawing does.

use std::collections::HashSet;
use std::rc::Rc;

use yew::prelude::*;

use crate::browser;

use crate::components::blast_parts::{lane_caption, shown_look, BlastViewProps};
use crate::components::compiled_units::compiled_units;
use blast_playground::aggregate::{Forest, Hit, Row, ShowAlso, Totals};
use blast_playground::format;
use blast_playground::runner::{LaneView, SiteView};
use rustc_hash::FxHashSet as FxSet;

/// One lane's relinks per site (by the forest's site index) and subtree sums, kept while the
/// forest and the lane's names and sites are the same ones: a render with no new lane view
/// (a click, a hover, a frame of another part) reuses them, and a new view of the same run
/// does not compare 10^5 names again.
#[derive(Clone)]
struct LaneSums {
    forest: Rc<Forest>,
    names: Rc<Vec<String>>,
    sites: Rc<Vec<SiteView>>,
    /// The lane's sites are in the scenario's order (as the runner reports them).
    in_order: bool,
    relinks: Rc<Vec<u64>>,
    totals: Rc<Vec<Totals>>,
}

impl LaneSums {
    fn of(kept: Option<&LaneSums>, forest: &Rc<Forest>, lane: &LaneView) -> LaneSums {
        let same_run = kept.filter(|k| Rc::ptr_eq(&k.forest, forest) && Rc::ptr_eq(&k.names, &lane.names));
        if let Some(k) = same_run.filter(|k| Rc::ptr_eq(&k.sites, &lane.sites)) {
            return k.clone();
        }
        let in_order = match same_run {
            Some(k) => k.in_order,
            None => lane.names.len() == forest.site_count() && lane.names.iter().map(String::as_str).eq(forest.site_names()),
        };
        let relinks: Vec<u64> = if in_order {
            lane.sites.iter().map(|s| s.relinks).collect()
        } else {
            // The runner reports sites in the scenario's order; fall back to names if it ever does not.
            let by_name: std::collections::HashMap<&str, u64> = lane.names.iter().map(String::as_str).zip(lane.sites.iter().map(|s| s.relinks)).collect();
            forest.site_names().map(|n| by_name.get(n).copied().unwrap_or(0)).collect()
        };
        let totals = Rc::new(forest.totals(&relinks));
        LaneSums { forest: forest.clone(), names: lane.names.clone(), sites: lane.sites.clone(), in_order, relinks: Rc::new(relinks), totals }
    }
}

pub(crate) fn heat_class(relinks: u64, hottest: u64) -> &'static str {
    if relinks == 0 || hottest == 0 {
        return "heat-0";
    }
    match relinks * 4 / hottest.max(1) {
        0 => "heat-1",
        1 => "heat-2",
        2 => "heat-3",
        _ => "heat-4",
    }
}

/// How much of the world `key` (its scenario's address) is drawn: 0 at its first render (the
/// index and the header; the drawing it replaces goes), 1 a painted frame later (the first
/// lane's rows), 2 a frame after that (every lane's rows). At 10^5 sites the first render did
/// all of it in one task of 29-48 ms CPU: the index (a hash lookup per site), ~450 DOM nodes of
/// rows per lane and the card drawing they replace.
#[hook]
fn use_stage(key: usize) -> u8 {
    let drawn = use_mut_ref(|| (0usize, 0u8));
    let update = use_force_update();
    let stage = match *drawn.borrow() {
        (k, stage) if k == key => stage,
        _ => 0,
    };
    use_effect_with((key, stage), move |&(key, stage)| {
        let wait = (stage < 2).then(|| {
            browser::after_frames(1, move || {
                *drawn.borrow_mut() = (key, stage + 1);
                update.force_update();
            })
        });
        move || drop(wait)
    });
    stage
}

#[function_component(AggregatedBlast)]
pub fn aggregated_blast(p: &BlastViewProps) -> Html {
    let stage = use_stage(Rc::as_ptr(&p.scenario) as usize);
    let all_lanes = stage >= 2;
    let forest = use_memo((p.classes.clone(), p.scenario.clone()), |(classes, scenario)| Forest::new(classes.clone(), scenario.clone()));
    let (classes, sites) = (p.classes.len(), p.scenario.sites.len());
    let open = use_state(HashSet::<usize>::new);
    let query = use_state(String::new);
    let found = use_state(|| None::<Hit>);

    // Searched once per query (every class and site name, lowercased), not per frame.
    let hits = {
        let forest = forest.clone();
        use_memo(((*query).clone(), Rc::as_ptr(&forest) as usize), move |(q, _)| forest.search(q))
    };
    // The selected site's id: a scan of the names, once per selection.
    let selected = {
        let forest = forest.clone();
        use_memo((p.selected.clone(), Rc::as_ptr(&forest) as usize), move |(name, _)| name.as_deref().and_then(|n| forest.site_id(n)))
    };
    let sums = use_mut_ref(Vec::<LaneSums>::new);
    let reveal = {
        let (forest, open, found) = (forest.clone(), open.clone(), found.clone());
        Callback::from(move |hit: Hit| {
            let class = match hit {
                Hit::Class(c) => forest.path_to(c).split_last().map(|(_, up)| up.to_vec()).unwrap_or_default(),
                Hit::Site(s) => forest.site_class(s).map(|c| forest.path_to(c)).unwrap_or_default(),
            };
            let mut next = (*open).clone();
            next.extend(class);
            open.set(next);
            found.set(Some(hit));
        })
    };
    let mut show = ShowAlso::default();
    match *found {
        Some(Hit::Class(c)) => show.classes.extend(forest.path_to(c)),
        Some(Hit::Site(s)) => {
            show.sites.insert(s);
            if let Some(c) = forest.site_class(s) {
                show.classes.extend(forest.path_to(c));
            }
        }
        None => {}
    }
    if let Some(s) = *selected {
        show.sites.insert(s);
        if let Some(c) = forest.site_class(s) {
            show.classes.extend(forest.path_to(c));
        }
    }
    // The rows come from the first lane's heat, so every lane shows the same rows in the same order.
    // Every lane's figure is there from the first render (the same nodes later: only rows
    // are added); the lanes after the first get their rows once `all_lanes`.
    let per_lane: Vec<(Rc<LaneView>, Option<LaneSums>)> = {
        let kept = sums.borrow();
        p.lanes
            .iter()
            .enumerate()
            .map(|(i, lane)| {
                let drawn = stage > 0 && (i == 0 || all_lanes);
                (lane.clone(), drawn.then(|| LaneSums::of(kept.get(i), &forest, lane)))
            })
            .collect()
    };
    *sums.borrow_mut() = per_lane.iter().filter_map(|(_, s)| s.clone()).collect();
    let rows = match per_lane.first() {
        Some((_, Some(s))) => forest.rows(&s.totals, &s.relinks, &open, &show),
        _ => Vec::new(),
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |id: usize| {
            let mut next = (*open).clone();
            if !next.remove(&id) {
                next.insert(id);
            }
            open.set(next);
        })
    };
    let on_query = {
        let (query, found) = (query.clone(), found.clone());
        Callback::from(move |e: InputEvent| {
            query.set(browser::value(&e));
            found.set(None);
        })
    };
    let on_search_key = {
        let (reveal, first) = (reveal.clone(), hits.first().cloned());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                if let Some(h) = first.clone() {
                    reveal.emit(h);
                }
            }
        })
    };
    let ctx = RowCtx { forest: &forest, p, toggle, found: (*found).clone() };
    html! {
        <div class="aggregate" data-classes={classes.to_string()} data-sites={sites.to_string()}>
            <div class="aggregate-tools">
                <p class="hint">{ format!(
                    "{} and {}: each row sums its class's whole subtree (classes · sites · sites hit · relinks); open a row to see its children and sites, hottest first.",
                    format::counted(classes as u64, "class"), format::counted(sites as u64, "site")) }</p>
                <label class="aggregate-search">{ "Find a class or site " }
                    <input id="blast-search" type="search" value={(*query).clone()} oninput={on_query} onkeydown={on_search_key}
                        placeholder="name…" spellcheck="false" autocomplete="off" aria-label="Find a class or site in the blast view" />
                </label>
                if !query.trim().is_empty() {
                    <ul class="search-hits" aria-label="Matches">
                        { for hits.iter().map(|h| {
                            let (label, kind) = match h {
                                Hit::Class(c) => (forest.name(*c).to_owned(), "class"),
                                Hit::Site(s) => (forest.site_name(*s).to_owned(), "site"),
                            };
                            let (reveal, h2) = (reveal.clone(), h.clone());
                            html! { <li><button class="link" onclick={Callback::from(move |_: MouseEvent| reveal.emit(h2.clone()))}>
                                <span class="muted">{ kind }</span>{ " " }{ label }</button></li> }
                        }) }
                        if hits.is_empty() { <li class="muted">{ "no class or site has that in its name" }</li> }
                    </ul>
                }
            </div>
            <div class="lanes">
                { for per_lane.iter().map(|(lane, sums)| match sums {
                    Some(s) => lane_rows(&ctx, lane, &rows, &s.relinks, &s.totals),
                    None => lane_rows(&ctx, lane, &[], &[], &[]),
                }) }
                if p.lanes.is_empty() {
                    <p class="empty">{ "Nothing to show: the scenario cannot run (see the message above)." }</p>
                }
            </div>
        </div>
    }
}

struct RowCtx<'a> {
    forest: &'a Forest,
    p: &'a BlastViewProps,
    toggle: Callback<usize>,
    found: Option<Hit>,
}

fn lane_rows(ctx: &RowCtx, lane: &LaneView, rows: &[Row], relinks: &[u64], totals: &[Totals]) -> Html {
    let hottest = rows.iter().filter_map(|r| if let Row::Class { id, .. } = r { Some(totals[*id].relinks) } else { None }).max().unwrap_or(0);
    // Before the program loads them, every class is unloaded (10^4 names in the e2e world): a
    // scan of them per class row was ~10^6 name comparisons per render.
    let unloaded: FxSet<&str> = lane.unloaded.iter().map(String::as_str).collect();
    html! {
        <figure class="lane aggregated" data-policy={lane.policy.name()} key={lane.policy.name()}>
            { lane_caption(lane, ctx.p.playing) }
            <ul class="agg-rows" role="tree" aria-label={format!("Class hierarchy under {}, aggregated", lane.policy.name())}>
                { for rows.iter().map(|r| agg_row(ctx, lane, r, (relinks, totals), hottest, &unloaded)) }
            </ul>
            { compiled_units(&lane.compiled, &lane.names, ctx.p.selected.as_deref().and_then(|s| lane.site_id(s))) }
        </figure>
    }
}

fn agg_row(ctx: &RowCtx, lane: &LaneView, row: &Row, (relinks, totals): (&[u64], &[Totals]), hottest: u64, unloaded: &FxSet<&str>) -> Html {
    match row {
        Row::Class { id, depth, open, has_more } => {
            let name = ctx.forest.name(*id).to_owned();
            let t = totals[*id];
            let loaded = !unloaded.contains(name.as_str());
            let found = ctx.found == Some(Hit::Class(*id));
            let toggle = {
                let (cb, id) = (ctx.toggle.clone(), *id);
                Callback::from(move |_: MouseEvent| cb.emit(id))
            };
            let hover = |v: Option<String>| {
                let cb = ctx.p.on_hover.clone();
                move |_| cb.emit(v.clone())
            };
            let share = if hottest > 0 { (t.relinks as f64 / hottest as f64 * 100.0).min(100.0) } else { 0.0 };
            html! {
                <li class={classes!("agg-class", heat_class(t.relinks, hottest), (!loaded).then_some("not-loaded"), found.then_some("found"))}
                    role="treeitem" aria-level={(depth + 1).to_string()} aria-expanded={has_more.then(|| open.to_string())}
                    data-class={name.clone()} data-relinks={t.relinks.to_string()} style={format!("--depth: {depth}")}
                    onmouseenter={Callback::from(hover(Some(name.clone())))} onmouseleave={Callback::from(hover(None))}>
                    <button class="agg-toggle" disabled={!has_more} onclick={toggle}
                        aria-label={format!("{} {name}", if *open { "Close" } else { "Open" })}>{ if !has_more { "·" } else if *open { "▾" } else { "▸" } }</button>
                    <span class="agg-name">{ &name }</span>
                    <span class="agg-counts muted">{ format!("{} · {} · {} hit", format::counted(t.classes, "class"), format::counted(t.sites, "site"), format::count(t.hit_sites)) }</span>
                    <span class="agg-heat" aria-hidden="true"><span style={format!("width: {share:.1}%")}></span></span>
                    <span class="agg-relinks">{ format::count(t.relinks) }</span>
                </li>
            }
        }
        Row::Site { site, depth } => {
            let name = ctx.forest.site_name(*site).to_owned();
            let view = lane.sites.get(*site).filter(|_| lane.names.get(*site) == Some(&name)).or_else(|| lane.site(&name));
            let (state, state_text) = view.map(shown_look).unwrap_or(("not-called", "not called"));
            let selected = ctx.p.selected.as_deref() == Some(name.as_str());
            let found = ctx.found == Some(Hit::Site(*site));
            let r = relinks.get(*site).copied().unwrap_or(0);
            let select = {
                let (cb, name) = (ctx.p.on_select.clone(), name.clone());
                Callback::from(move |_: MouseEvent| cb.emit(Some(name.clone())))
            };
            html! {
                <li class={classes!("agg-site", format!("state-{state}"), selected.then_some("selected"), found.then_some("found"))}
                    role="treeitem" aria-level={(depth + 1).to_string()} data-site={name.clone()} data-state={state} data-relinks={r.to_string()}
                    style={format!("--depth: {depth}")}>
                    <button class="agg-site-button" aria-pressed={selected.to_string()} onclick={select}
                        title={format!("{name}: {state_text}; {}. Click for its history.", format::counted(r, "relink"))}>
                        <span class="state-dot-html" aria-hidden="true"></span>
                        <span class="agg-name">{ &name }</span>
                        <span class="muted">{ state_text }</span>
                    </button>
                    <span class="agg-relinks">{ format::count(r) }</span>
                </li>
            }
        }
        Row::More { depth, hidden } => html! {
            <li class="agg-more muted" role="treeitem" aria-level={(depth + 1).to_string()} style={format!("--depth: {depth}")}>
                { format!("+{} more (cooler; find one by name above)", format::count(*hidden as u64)) }
            </li>
        },
    }
}
