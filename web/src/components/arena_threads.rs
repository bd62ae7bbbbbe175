//! The arena's threads at the replay position: role, top frame, handshakes and deopts, each
//! row coloured by the oracle's verdict on it. Past `MAX_ROWS` threads (the scaling runs) the
//! rows fold into one small cell per thread, which stays readable and cheap to redraw.

use yew::prelude::*;

use crate::components::flash::flash_layer;
use crate::components::{raw, raw_static};
use blast_playground::format;
use blast_playground::markup::escape;
use blast_playground::model_entities::ThreadRow;
use blast_playground::model_runner::EntityView;

const MAX_ROWS: usize = 8;

pub fn threads(entities: &[EntityView]) -> Html {
    if entities.len() > MAX_ROWS {
        return cells(entities);
    }
    html! {
        <div class="entity-table threads" role="table" aria-label="Threads">
            { raw_static(concat!(
                r#"<div class="entity-row entity-head" role="row"><span role="columnheader">thread</span><span role="columnheader">role</span>"#,
                r#"<span role="columnheader" title="The thread's top compiled frame">top frame</span><span role="columnheader" class="num">handshakes</span>"#,
                r#"<span role="columnheader" class="num">deopts</span></div>"#
            )) }
            { for entities.iter().filter_map(|e| ThreadRow::from_entity(&e.entity).map(|t| thread_row(&t, e.flash))) }
        </div>
    }
}

fn thread_row(t: &ThreadRow, flash: u64) -> Html {
    let verdict = t.verdict().name();
    let frame = match (t.scoped_access, t.role.holds_closing_session()) {
        (_, true) => "scoped access, holds the closing session",
        (true, false) => "scoped access",
        (false, false) => "plain compiled code",
    };
    html! {
        <div class={classes!("entity-row", "thread", format!("verdict-{verdict}"))} role="row" data-thread={t.name.clone()} data-verdict={verdict}
            title={format!("{}: {} ({verdict})", t.name, counters(t))}>
            { flash_layer(flash) }
            { raw(format!(
                r#"<span role="cell" class="thread-name"><span class="verdict-dot"></span>{}</span><span role="cell">{}</span><span role="cell" class="frame">{frame}</span><span role="cell" class="num">{}</span><span role="cell" class="num deopts">{}</span>"#,
                escape(&t.name),
                t.role.name(),
                format::count(t.handshakes),
                format::count(t.deopts)
            )) }
        </div>
    }
}

/// A thread's counters for its tooltip: "12 ops, 1 handshake, 0 deopts".
fn counters(t: &ThreadRow) -> String {
    format!("{}, {}, {}", format::counted(t.ops, "op"), format::counted(t.handshakes, "handshake"), format::counted(t.deopts, "deopt"))
}

fn cells(entities: &[EntityView]) -> Html {
    let rows: Vec<ThreadRow> = entities.iter().filter_map(|e| ThreadRow::from_entity(&e.entity)).collect();
    let deopts: u64 = rows.iter().map(|t| t.deopts).sum();
    let handshakes: u64 = rows.iter().map(|t| t.handshakes).sum();
    html! {
        <>
            <p class="thread-summary muted">
                { format!("{} · {} · {} · hover a cell for its counters", format::counted(rows.len() as u64, "thread"), format::counted(handshakes, "handshake"), format::counted(deopts, "deopt")) }
            </p>
            <div class="thread-cells" role="list" aria-label="Threads">
                { for rows.iter().zip(entities).map(|(t, e)| {
                    let verdict = t.verdict().name();
                    html! {
                        <span class={classes!("thread", "thread-cell", format!("verdict-{verdict}"))} role="listitem" data-thread={t.name.clone()} data-verdict={verdict}
                            title={format!("{} ({}): {} ({verdict})", t.name, t.role.name(), counters(t))}>
                            { flash_layer(e.flash) }
                        </span>
                    }
                }) }
            </div>
        </>
    }
}
