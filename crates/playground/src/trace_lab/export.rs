//! The trace lab's tables as files: the fan-out table (one row per mutation and group) and the
//! replay table (one row per mutation and replayed policy, its `subject` saying whether the
//! counts are call sites or compiled code units, `linked` being the units live at a class load
//! for the latter), each as CSV (`export`'s quoting and number
//! rounding) and as Markdown (a pipe inside a cell escaped).

use super::view::{FanOut, ReplayView, TraceView};
use crate::export::{field, num};

/// Rows of cells under a header, as CSV.
fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = header.join(",");
    s.push('\n');
    for r in rows {
        s.push_str(&r.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
        s.push('\n');
    }
    s
}

fn md_cell(c: &str) -> String {
    c.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Rows of cells under a header, as a Markdown table.
fn markdown(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len()));
    for r in rows {
        s.push_str(&format!("| {} |\n", r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")));
    }
    s
}

const FAN_OUT: [&str; 12] = ["log", "line", "kind", "target", "at", "sites", "code_units", "exact", "by_order", "group", "group_sites", "functions"];

fn fan_out_rows(v: &TraceView) -> Vec<Vec<String>> {
    let row = |m: &FanOut, group: Option<&super::view::FanOutGroup>| {
        vec![
            v.name.clone(),
            m.line.to_string(),
            m.kind.clone(),
            m.target(),
            m.at.clone().unwrap_or_default(),
            m.sites.to_string(),
            m.units.to_string(),
            m.exact.to_string(),
            m.by_order.to_string(),
            group.map(|g| g.name.clone()).unwrap_or_default(),
            group.map(|g| (g.sites + g.units).to_string()).unwrap_or_default(),
            group.map(|g| g.functions.join(" ")).unwrap_or_default(),
        ]
    };
    v.fan_out.iter().flat_map(|m| if m.groups.is_empty() { vec![row(m, None)] } else { m.groups.iter().map(|g| row(m, Some(g))).collect() }).collect()
}

pub fn fan_out_csv(v: &TraceView) -> String {
    csv(&FAN_OUT, &fan_out_rows(v))
}

pub fn fan_out_markdown(v: &TraceView) -> String {
    markdown(&FAN_OUT, &fan_out_rows(v))
}

const REPLAY: [&str; 12] = ["log", "subject", "line", "mutation", "policy", "linked", "observed", "predicted", "hits", "extra", "precision", "recall"];

fn replay_rows(name: &str, r: &ReplayView) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let subject = format!("{}s", r.noun());
    for m in &r.rows {
        for (p, c) in r.policies.iter().zip(&m.cells) {
            rows.push(vec![
                name.to_string(),
                subject.clone(),
                m.line.to_string(),
                m.label.clone(),
                p.name().to_string(),
                m.linked.to_string(),
                m.observed.to_string(),
                c.predicted.to_string(),
                c.score.hits.to_string(),
                c.score.extra.to_string(),
                num(c.score.precision()),
                num(c.score.recall()),
            ]);
        }
    }
    for (p, c) in r.policies.iter().zip(&r.totals) {
        let observed = c.score.hits + c.score.missed;
        rows.push(vec![
            name.to_string(),
            subject.clone(),
            String::new(),
            "over the trace".into(),
            p.name().to_string(),
            String::new(),
            observed.to_string(),
            c.predicted.to_string(),
            c.score.hits.to_string(),
            c.score.extra.to_string(),
            num(c.score.precision()),
            num(c.score.recall()),
        ]);
    }
    rows
}

/// The replay table, or `None` when the trace has no replay.
pub fn replay_csv(v: &TraceView) -> Option<String> {
    v.replay.as_ref().ok().map(|r| csv(&REPLAY, &replay_rows(&v.name, r)))
}

pub fn replay_markdown(v: &TraceView) -> Option<String> {
    v.replay.as_ref().ok().map(|r| markdown(&REPLAY, &replay_rows(&v.name, r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace_lab::view::tests::sample;

    #[test]
    fn fan_out_has_a_row_per_mutation_and_group_in_both_formats() {
        let v = TraceView::of("v8|proto,write.log", &sample("v8-proto-write"));
        let groups: usize = v.fan_out.iter().map(|m| m.groups.len().max(1)).sum();
        let c = fan_out_csv(&v);
        assert_eq!(c.lines().count(), 1 + groups);
        assert!(c.lines().nth(1).unwrap().starts_with("\"v8|proto,write.log\","), "{c}");
        let m = fan_out_markdown(&v);
        assert_eq!(m.lines().count(), 2 + groups);
        // Every Markdown row has the header's cells: the pipe in the name is escaped.
        let cells = |l: &str| l.replace("\\|", "").matches('|').count();
        assert!(m.lines().all(|l| cells(l) == FAN_OUT.len() + 1), "{m}");
    }

    #[test]
    fn replay_rows_are_per_mutation_and_policy_then_totals() {
        let v = TraceView::of("g.log", &sample("groovy-same-class-churn"));
        let r = v.replay.as_ref().unwrap();
        let c = replay_csv(&v).unwrap();
        assert_eq!(c.lines().count(), 1 + (r.rows.len() + 1) * r.policies.len());
        let global = c.lines().find(|l| l.contains(",over the trace,global,")).unwrap();
        assert!(global.ends_with(&format!(",{},{}", num(r.totals[0].score.precision()), num(r.totals[0].score.recall()))), "{global}");
        assert!(replay_markdown(&v).unwrap().contains("| over the trace | exact |"));
        // Without its class tree a HotSpot log has no replay, so no replay table.
        let mut bare = sample("hotspot-cha-break");
        bare.add_classes(Vec::new());
        bare.parents.clear();
        assert_eq!(replay_csv(&TraceView::of("h.log", &bare)), None);
    }
}
