//! Model mode's comparison: each variant's value (time per op, lower is better), its speed-up
//! over the first variant, the oracle's verdict counts and the per-role figures.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::comparison::{comparison_panel, verdict_cells, verdict_headings};
use blast_playground::format;
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
    let unit = p.views.iter().find_map(|v| v.report.as_ref().map(|r| format::unit(&r.unit))).unwrap_or_default();
    let first = p.views.first().cloned();
    let roles = role_names(&p.views);
    let head = html! {
        <>
            <th scope="col">{ "Variant" }</th>
            <th scope="col" class="num" title="Mean over the measured ops; lower is better">{ unit.clone() }</th>
            <th scope="col" class="num" title="The first variant's time per op divided by this one's">{ "speed-up vs first" }</th>
            { verdict_headings() }
            { for roles.iter().map(|r| html! { <th scope="col" class="num role" title={format!("{r} (per-role mean)")}>{ role_heading(r) }</th> }) }
        </>
    };
    let rows = p.views.iter().map(|v| row(v, first.as_deref(), &roles)).collect::<Html>();
    let below = html! {
        <p class="hint">{ format!("Times are {unit}, the mean over each run’s measured ops (lower is better); verdicts count rebuilds, deopts and handshakes over the whole run, warm-up included.") }</p>
    };
    comparison_panel("Variant comparison", &p.on_export_csv, head, rows, below)
}

fn row(v: &VariantView, first: Option<&VariantView>, roles: &[String]) -> Html {
    let result = v.result();
    html! {
        <tr data-policy={v.variant} data-variant={v.variant} data-finished={v.finished().to_string()} key={v.variant}>
            <th scope="row"><span class={classes!("swatch", format!("series-{}", v.index))} aria-hidden="true"></span>{ v.variant }</th>
            {
                match (result, &v.error) {
                    (_, Some(e)) => html! { <td class="ops num error" title={e.clone()}>{ "failed" }</td> },
                    (Some(r), _) => html! { <td class="ops num" data-value={r.value.to_string()}>{ format::sig3(r.value) }</td> },
                    (None, _) if v.revealed == 0 => html! { <td class="ops num muted" title="Not replayed yet">{ "–" }</td> },
                    (None, _) => html! { <td class="ops num muted" title="Known once the replay ends">{ format!("{:.0}% replayed", 100.0 * v.progress()) }</td> },
                }
            }
            {
                match first.and_then(|f| speed_up(f, v)) {
                    Some((x, true)) => html! { <td class="num speed-up" data-final="true">{ format::ratio(x) }</td> },
                    Some((x, false)) => html! {
                        <td class="num speed-up provisional" data-final="false" title="So far: the mean time per op over the ops replayed yet">{ format!("≈{}", format::ratio(x)) }</td>
                    },
                    None => html! { <td class="num speed-up muted" title="Known from the first replayed op">{ "–" }</td> },
                }
            }
            { verdict_cells(v.verdicts) }
            { for roles.iter().map(|name| {
                let value = result.and_then(|r| r.roles.iter().find(|(n, _)| n == name)).map(|(_, x)| *x);
                match value {
                    Some(x) => html! { <td class="num role" data-role={name.clone()} data-value={x.to_string()}>{ role_value(name, x) }</td> },
                    None => html! { <td class="num role muted" data-role={name.clone()}>{ "–" }</td> },
                }
            }) }
        </tr>
    }
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
    fn speed_up_reads_before_the_first_variant_ends() {
        let slow = view("slow", &[8.0, 8.0, 8.0, 8.0], 2);
        let fast = view("fast", &[2.0, 2.0, 2.0, 2.0], 4);
        assert_eq!(speed_up(&slow, &fast), Some((4.0, false)), "provisional while the first is replaying");
        assert_eq!(speed_up(&view("slow", &[8.0; 4], 4), &fast), Some((4.0, true)));
        assert_eq!(speed_up(&view("slow", &[8.0; 4], 0), &fast), None, "nothing replayed, nothing to compare");
    }
}
