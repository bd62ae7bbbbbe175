//! The measured panel's read-only parts as markup (`markup`: one string is far less code in
//! the bundle than `html!`'s virtual nodes): the imported result's summary, and the fit's
//! verdict, table and strip chart. Runtime names, versions, commands, file names and workload
//! labels come from an imported file, so every one is escaped.

use std::fmt::Write;

use blast_engine::fingerprint::{Fingerprint, PolicyFit};
use blast_engine::{runtimes, Policy};

use crate::format;
use crate::markup::escape;
use crate::measured::{strip_chart_svg, Measured};

/// What was imported: runtime, version, origin, mode, reps, machine and command.
pub fn summary(m: &Measured) -> String {
    let r = &m.result;
    let reps = r.rows.iter().map(|row| row.reps).max().unwrap_or(0);
    let machine = r.machine.as_ref().map(|mc| {
        let load = match (mc.load_average_1min_start, mc.load_average_1min) {
            (Some(a), Some(b)) => format!(", load {a:.1} → {b:.1}"),
            (None, Some(b)) => format!(", load {b:.1}"),
            _ => String::new(),
        };
        format!("; machine: {} CPUs, {}{load}", mc.cpus.map_or("?".into(), |c| c.to_string()), mc.cpu_model.as_deref().unwrap_or("?"))
    });
    format!(
        r#"<div id="measured-summary" class="measured-summary" data-runtime="{runtime}"><p><strong>{}</strong> ({runtime}), {}</p><p class="hint">{} mode, up to {reps} reps per row, {}{}. Command: <code>{}</code></p></div>"#,
        escape(&r.version),
        escape(&m.origin),
        escape(&r.mode),
        format::counted(r.rows.len() as u64, "row"),
        escape(&machine.unwrap_or_default()),
        escape(&r.command),
        runtime = escape(&r.runtime),
    )
}

/// A finished fit: the verdict, the table (the row `highlight` names marked `current`) and
/// the strip chart with its legend.
pub fn fit(f: &Fingerprint, highlight: Option<&str>) -> String {
    let mut s = verdict(f);
    table(&mut s, f, highlight);
    s.push_str(r#"<figure class="measured-chart">"#);
    s.push_str(&strip_chart_svg(f, highlight));
    s.push_str(
        r#"<figcaption class="hint"><span class="legend-dot" aria-hidden="true"></span> measured (whisker: spread, cut at 50%; hollow: too wide to read); "#,
    );
    for fit in &f.fits {
        let _ = write!(s, r#"<span class="legend-item">{} </span>"#, swatch_name(fit.policy));
    }
    s.push_str(" simulated at fitted costs. Slowdown = a churn workload's time per call over its no-write baseline's, log scale.</figcaption></figure>");
    s
}

fn badge(p: Policy) -> String {
    format!(r#"<span class="policy-badge policy-{0}">{0}</span>"#, p.name())
}

fn swatch_name(p: Policy) -> String {
    format!(r#"<span class="swatch policy-{0}" aria-hidden="true"></span>{0}"#, p.name())
}

/// `" best"` on the best policy's column, for a class list.
fn best_class(fit: &PolicyFit, best: Policy) -> &'static str {
    if fit.policy == best {
        " best"
    } else {
        ""
    }
}

/// The fingerprint in words: the closest shape and its ties, how clearly it wins, what the
/// runtime's source says, and how many rows were too noisy to read.
fn verdict(f: &Fingerprint) -> String {
    let best = f.best();
    let margin = f.margin();
    let next = f.fits.iter().find(|fit| !fit.simulated.iter().zip(&best.simulated).all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs()));
    let unreadable = f.pairs.iter().filter(|p| !p.readable).count();
    let mut s = format!(r#"<div id="measured-verdict" class="measured-verdict" data-best="{}"><p>Closest shape: {}"#, best.policy.name(), badge(best.policy));
    for p in f.tied() {
        let _ = write!(s, " = {}", badge(p));
    }
    let _ =
        write!(s, " (rms log10 {:.3} at a write of {} ns and a relink of {} ns). ", best.rms_log10, format::sig3(best.write_ns), format::sig3(best.relink_ns));
    let _ = match next {
        Some(n) if margin < 1.15 => {
            write!(s, r#"<span class="weak">Not discriminated: the next different shape, {}, fits only {margin:.2}x worse.</span>"#, n.policy)
        }
        Some(n) => write!(s, "The next different shape, {}, fits {margin:.1}x worse.", n.policy),
        None => write!(s, "Every policy simulates the same slowdowns here."),
    };
    s.push_str("</p>");
    if let Some(profile) = runtimes::profile(&f.runtime) {
        let rank = f.fits.iter().position(|fit| fit.policy == profile.policy).map_or(0, |k| k + 1);
        let _ = write!(
            s,
            r#"<p class="hint">Its source says {}, ranked {rank} of {} by fit (<code>{}</code>).</p>"#,
            badge(profile.policy),
            f.fits.len(),
            escape(profile.source)
        );
    }
    if unreadable > 0 {
        let _ = write!(
            s,
            r#"<p class="hint wide-note">{unreadable} of {} are marked * : the fastest quarter of their reps spread more than 10%, too wide to read on their own.</p>"#,
            format::counted(f.pairs.len() as u64, "row")
        );
    }
    s.push_str("</div>");
    s
}

/// A footer row's cell for one policy's fit.
type FootCell = fn(&PolicyFit) -> String;

fn table(s: &mut String, f: &Fingerprint, highlight: Option<&str>) {
    let best = f.best().policy;
    s.push_str(concat!(
        r#"<div class="table-scroll"><table id="measured-table" class="comparison measured-table"><thead><tr><th scope="col">Workload</th>"#,
        r#"<th scope="col" class="num measured" title="Measured: the fastest rep per call over the no-write baseline's">measured</th>"#,
        r#"<th scope="col" class="num" title="How far the fastest quarter of reps spread above the fastest (the larger of the two rows); * too wide to read">spread</th>"#
    ));
    for fit in &f.fits {
        let _ = write!(
            s,
            r#"<th scope="col" class="num{}" title="{}: slowdown simulated at its fitted costs">{}</th>"#,
            best_class(fit, best),
            fit.policy,
            swatch_name(fit.policy)
        );
    }
    s.push_str("</tr></thead><tbody>");
    for (k, pair) in f.pairs.iter().enumerate() {
        let label = pair.label();
        let current = if highlight == Some(label.as_str()) { " current" } else { "" };
        let (wide, star) = if pair.readable { ("", "") } else { (" wide", "*") };
        let label = escape(&label);
        let _ = write!(
            s,
            r#"<tr data-workload="{label}" class="{current}{wide}"><th scope="row">{label}</th><td class="num measured" data-value="{0}">{0:.2}x</td><td class="num spread">{1:.0}%{star}</td>"#,
            pair.measured,
            pair.spread * 100.0
        );
        for fit in &f.fits {
            let _ = write!(s, r#"<td class="num{}">{:.2}x</td>"#, best_class(fit, best), fit.simulated[k]);
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody><tfoot>");
    let rows: [(&str, FootCell); 3] = [
        ("fitted write ns", |fit| format::sig3(fit.write_ns)),
        ("fitted relink ns", |fit| format::sig3(fit.relink_ns)),
        ("rms log10 (lower fits better)", |fit| format!("{:.3}", fit.rms_log10)),
    ];
    for (label, cell) in rows {
        let _ = write!(s, r#"<tr class="fit-row"><th scope="row" colspan="3">{label}</th>"#);
        for fit in &f.fits {
            let _ = write!(s, r#"<td class="num">{}</td>"#, cell(fit));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tfoot></table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measured::reference_file;
    use blast_engine::fingerprint::fingerprint;

    #[test]
    fn the_table_has_a_row_per_workload_a_column_per_policy_and_marks_the_current_row() {
        let m = reference_file("jruby").unwrap();
        let f = fingerprint(&m.result).unwrap();
        let html = fit(&f, Some("fanout_root@8"));
        assert_eq!(html.matches("<tr data-workload=").count(), f.pairs.len());
        assert_eq!(html.matches(r#"<tr data-workload="fanout_root@8" class=" current"#).count(), 1);
        assert_eq!(html.matches(r#"<td class="num measured" data-value="#).count(), f.pairs.len());
        assert_eq!(html.matches("<tr class=\"fit-row\">").count(), 3);
        assert_eq!(html.matches(r#"<th scope="col" class="num"#).count(), 2 + f.fits.len());
        assert_eq!(html.matches(" wide\">").count(), f.pairs.iter().filter(|p| !p.readable).count());
        assert!(html.starts_with(&format!(r#"<div id="measured-verdict" class="measured-verdict" data-best="{}">"#, f.best().policy.name())));
        // Every element opened is closed (none of ours is void in this markup but the SVG's).
        for tag in ["div", "table", "tr", "td", "th", "p", "span", "figure", "figcaption", "code"] {
            assert_eq!(
                html.matches(&format!("<{tag}>")).count() + html.matches(&format!("<{tag} ")).count(),
                html.matches(&format!("</{tag}>")).count(),
                "<{tag}>"
            );
        }
    }

    #[test]
    fn names_from_an_imported_file_stay_text() {
        let mut m = reference_file("node").unwrap();
        let hostile = r#"<script>alert("x")</script>&'"#;
        m.origin = hostile.into();
        m.result.version = hostile.into();
        m.result.command = hostile.into();
        m.result.mode = hostile.into();
        m.result.runtime = hostile.into();
        if let Some(mc) = m.result.machine.as_mut() {
            mc.cpu_model = Some(hostile.into());
        }
        let escaped = escape(hostile);
        let s = summary(&m);
        assert!(!s.contains("<script>") && s.matches(&escaped).count() == 7, "{s}");
        // A workload label is the imported row's name: a hostile one is shown as text too.
        let mut f = fingerprint(&m.result).unwrap();
        f.pairs[0].workload = hostile.into();
        let label = f.pairs[0].label();
        let html = fit(&f, Some(&label));
        assert!(!html.contains("<script>") && !html.contains("alert(\"x\")"), "{html}");
        assert!(html.contains(&format!(r#"<tr data-workload="{}" class=" current"#, escape(&label))), "{html}");
    }
}
