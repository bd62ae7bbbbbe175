//! Model mode's comparison: each variant's value (time per op, lower is better), its speed-up
//! over the first variant, the oracle's verdict counts and the per-role figures.

use std::fmt::Write;
use std::rc::Rc;

use yew::prelude::*;

use crate::components::comparison::{comparison_panel, verdict_cells, VERDICT_HEADINGS};
use blast_playground::format;
use blast_playground::markup::escape;
use blast_playground::model_runner::VariantView;

pub struct ModelComparisonProps {
    pub views: Vec<Rc<VariantView>>,
    pub on_export_csv: Callback<()>,
}

/// Role names in order of first appearance over the finished runs.
pub fn role_names(views: &[Rc<VariantView>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (name, _) in views.iter().filter_map(|v| v.result()).flat_map(|r| r.roles.iter()) {
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    out
}

/// `hit rate %` reads `hit rate` with values in percent.
fn role_heading(name: &str) -> &str {
    name.strip_suffix(" %").unwrap_or(name)
}

fn role_value(name: &str, v: f64) -> String {
    if name.ends_with('%') {
        format!("{}%", format::sig3(v))
    } else {
        format::sig3(v)
    }
}

/// The first variant's time per op divided by `v`'s, and whether it is final. Before both
/// replays end it is the ratio of the mean time per op over the ops replayed so far (so the
/// column reads from the first ops on, not only once the first, often slowest, variant ends).
pub fn speed_up(first: &VariantView, v: &VariantView) -> Option<(f64, bool)> {
    if let (Some(f), Some(r)) = (first.result(), v.result()) {
        return (r.value > 0.0).then(|| (f.value / r.value, true));
    }
    let mean = |x: &VariantView| {
        let points = x.revealed_points();
        (!points.is_empty()).then(|| points.iter().map(|p| p.value).sum::<f64>() / points.len() as f64)
    };
    match (mean(first), mean(v)) {
        (Some(f), Some(x)) if x > 0.0 => Some((f / x, false)),
        _ => None,
    }
}

pub fn model_comparison(p: &ModelComparisonProps) -> Html {
    let unit = time_unit(&p.views);
    let first = p.views.first().cloned();
    let roles = role_names(&p.views);
    let mut head = format!(
        r#"<th scope="col">Variant</th><th scope="col" class="num" title="Mean over the measured ops; lower is better">{}</th><th scope="col" class="num" title="The first variant's time per op divided by this one's">speed-up vs first</th>{VERDICT_HEADINGS}"#,
        escape(unit.as_deref().unwrap_or("time per op"))
    );
    for r in &roles {
        let _ = write!(head, r#"<th scope="col" class="num role" title="{0} (per-role mean)">{1}</th>"#, escape(r), escape(role_heading(r)));
    }
    let mut rows = String::new();
    for v in &p.views {
        row(&mut rows, v, first.as_deref(), &roles);
    }
    let below = html! {
        <p class="hint">{ "Times are the mean over each run’s measured ops (lower is better); verdicts count rebuilds, deopts and handshakes over the whole run, warm-up included." }</p>
    };
    comparison_panel("Variant comparison", &p.on_export_csv, &head, &rows, below)
}

/// The time column's unit, from the first variant with a report. None before any has one: the
/// column is then headed "time per op" (an empty heading is a nameless column to a screen
/// reader, axe's `empty-table-header`).
fn time_unit(views: &[Rc<VariantView>]) -> Option<String> {
    views.iter().find_map(|v| v.report.as_ref().map(|r| format::unit(&r.unit)))
}

/// A variant's row, as markup: role names and a failed run's error are escaped.
fn row(s: &mut String, v: &VariantView, first: Option<&VariantView>, roles: &[String]) {
    let result = v.result();
    let name = escape(v.variant);
    let _ = write!(
        s,
        r#"<tr data-policy="{name}" data-variant="{name}" data-finished="{}"><th scope="row"><span class="swatch series-{}" aria-hidden="true"></span>{name}</th>"#,
        v.finished(),
        v.index
    );
    let _ = match (result, &v.error) {
        (_, Some(e)) => write!(s, r#"<td class="ops num error" data-label="time per op" title="{}">failed</td>"#, escape(e)),
        (Some(r), _) => write!(s, r#"<td class="ops num" data-label="time per op" data-value="{}">{}</td>"#, r.value, format::sig3(r.value)),
        (None, _) if v.revealed == 0 => write!(s, r#"<td class="ops num muted" data-label="time per op" title="Not replayed yet">–</td>"#),
        (None, _) => {
            write!(s, r#"<td class="ops num muted" data-label="time per op" title="Known once the replay ends">{:.0}% replayed</td>"#, 100.0 * v.progress())
        }
    };
    let _ = match first.and_then(|f| speed_up(f, v)) {
        Some((x, true)) => write!(s, r#"<td class="num speed-up" data-label="speed-up" data-final="true">{}</td>"#, format::ratio(x)),
        Some((x, false)) => write!(
            s,
            r#"<td class="num speed-up provisional" data-label="speed-up" data-final="false" title="So far: the mean time per op over the ops replayed yet">≈{}</td>"#,
            format::ratio(x)
        ),
        None => write!(s, r#"<td class="num speed-up muted" data-label="speed-up" title="Known from the first replayed op">–</td>"#),
    };
    verdict_cells(s, v.verdicts);
    for name in roles {
        let value = result.and_then(|r| r.roles.iter().find(|(n, _)| n == name)).map(|(_, x)| *x);
        let _ = match value {
            Some(x) => write!(
                s,
                r#"<td class="num role" data-role="{0}" data-label="{1}" data-value="{x}">{2}</td>"#,
                escape(name),
                escape(role_heading(name)),
                escape(&role_value(name, x))
            ),
            None => write!(s, r#"<td class="num role muted" data-role="{0}" data-label="{1}">–</td>"#, escape(name), escape(role_heading(name))),
        };
    }
    s.push_str("</tr>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::models::{ModelReport, OpPoint};
    use blast_engine::report::RelinkTotals;

    fn view(variant: &'static str, values: &[f64], revealed: usize) -> VariantView {
        let timeline = values.iter().enumerate().map(|(i, &value)| OpPoint { t_us: i as f64, value, necessary: 0, collateral: 0, missed: 0 }).collect();
        let value = values.iter().sum::<f64>() / values.len() as f64;
        let report = ModelReport {
            model: "m".into(),
            variant: variant.into(),
            unit: "us/op".into(),
            value,
            roles: Vec::new(),
            verdicts: RelinkTotals::default(),
            entities: Vec::new(),
            timeline,
        };
        VariantView {
            variant,
            index: 0,
            now_ms: 0.0,
            report: Some(Rc::new(report)),
            revealed,
            error: None,
            entities: None,
            verdicts: RelinkTotals::default(),
            steps: Vec::new(),
        }
    }

    #[test]
    fn the_time_column_has_a_unit_once_a_variant_has_a_report() {
        let without = VariantView { report: None, ..view("a", &[1.0], 0) };
        assert_eq!(time_unit(&[Rc::new(without.clone())]), None, "headed 'time per op' until then");
        assert_eq!(time_unit(&[Rc::new(without), Rc::new(view("b", &[1.0], 1))]).as_deref(), Some("µs/op"));
    }

    #[test]
    fn speed_up_reads_before_the_first_variant_ends() {
        let slow = view("slow", &[8.0, 8.0, 8.0, 8.0], 2);
        let fast = view("fast", &[2.0, 2.0, 2.0, 2.0], 4);
        assert_eq!(speed_up(&slow, &fast), Some((4.0, false)), "provisional while the first is replaying");
        assert_eq!(speed_up(&view("slow", &[8.0; 4], 4), &fast), Some((4.0, true)));
        assert_eq!(speed_up(&view("slow", &[8.0; 4], 0), &fast), None, "nothing replayed, nothing to compare");
    }
}
