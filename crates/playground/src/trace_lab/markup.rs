//! The trace lab's read-only parts as escaped markup (`markup`): the summary with the lines not
//! understood, the fan-out table, the replay's policy comparison and the timeline (SVG). Every
//! value from the log is escaped; the page only shows these strings.

use std::fmt::Write as _;

use blast_engine::trace::Subject;
use blast_engine::Policy;

use super::sites::{TraceSite, TraceSites};
use super::view::{FanOut, ReplayView, Timeline, TraceView};
use crate::format::{count, counted};
use crate::markup::escape;

/// Rows of a table the page shows; the exports have every row kept. Measured on the sample
/// `v8-proto-write` repeated to 32 MB (224 mutations): 200 fan-out rows and 200 replay rows
/// made the render after the view arrived one task of 56 ms CPU (layout, pre-paint and style,
/// Chromium trace).
pub const SHOWN: usize = 50;

/// Sites and units of a fan-out, in words.
fn fan_out_words(sites: u32, units: u32) -> String {
    let mut parts = Vec::new();
    if sites > 0 {
        parts.push(counted(u64::from(sites), "call site"));
    }
    if units > 0 {
        parts.push(counted(u64::from(units), "compiled unit"));
    }
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(" and ")
    }
}

/// The last part of a path (a V8 group is a whole file path).
fn short(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Format, version, counts, attribution, and what was not understood.
pub fn summary(v: &TraceView) -> String {
    let mut s = String::new();
    let version = v.version.as_deref().map(escape).unwrap_or_else(|| "version not stated".into());
    let _ = write!(
        s,
        r#"<p class="trace-head"><strong id="trace-runtime">{}</strong> <span class="muted">{version}</span> · <code>{}</code></p>"#,
        escape(v.runtime()),
        escape(&v.name)
    );
    let _ = write!(
        s,
        r#"<p id="trace-counts">{} bytes, {} lines ({} ignored): {}, {} ({} attributed), {}, {}.</p>"#,
        count(v.bytes),
        count(v.lines),
        count(v.ignored),
        counted(v.mutations, "mutation"),
        counted(v.invalidations, "invalidation"),
        count(v.exact + v.by_order),
        counted(v.units, "code unit"),
        counted(v.sites, "call site"),
    );
    if v.invalidations > 0 {
        let _ = write!(
            s,
            r#"<p id="trace-attribution" class="hint">How each invalidation was tied to its mutation: <strong>{}</strong> named by the log (exact), <strong>{}</strong> by order (the nearest mutation before it), <strong>{}</strong> not attributed.</p>"#,
            count(v.exact),
            count(v.by_order),
            count(v.unattributed)
        );
    }
    if v.format.is_none() {
        s.push_str(r#"<p id="trace-unknown-format" class="run-error" role="alert">No line of this log says which runtime wrote it: the trace lab reads V8 (<code>node --log-deopt --log-ic --log-maps --log-code</code>), HotSpot (<code>-XX:+LogCompilation</code>) and Groovy 2.4 indy logs.</p>"#);
    }
    if let Some(first) = v.first_not_understood.first() {
        let why = |w: &str| if w.is_empty() { String::new() } else { format!(" ({})", escape(w)) };
        let _ = write!(
            s,
            r#"<div id="trace-not-understood" class="trace-unknown"><p><strong>{} not understood</strong>, first at {}{}: <code>{}</code></p>"#,
            counted(v.not_understood, "line"),
            count(first.line),
            why(&first.why),
            escape(&first.text)
        );
        if v.first_not_understood.len() > 1 {
            s.push_str("<ul>");
            for u in &v.first_not_understood[1..] {
                let _ = write!(s, "<li>line {}{}: <code>{}</code></li>", count(u.line), why(&u.why), escape(&u.text));
            }
            s.push_str("</ul>");
        }
        s.push_str("</div>");
    }
    if let Some(stopped) = &v.stopped {
        let _ = write!(s, r#"<p class="run-error" role="alert">{}</p>"#, escape(stopped));
    }
    s
}

fn fan_out_row(s: &mut String, m: &FanOut) {
    let at = m.at.as_deref().map(|a| format!(r#"<div class="muted">at <code>{}</code></div>"#, escape(short(a)))).unwrap_or_default();
    let witness = if m.witnesses.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = m.witnesses.iter().map(|w| format!("<code>{}</code>", escape(w))).collect();
        format!(r#"<div class="trace-witness">witness: {}</div>"#, names.join(", "))
    };
    let kinds: Vec<String> = m.kinds.iter().map(|(k, n)| format!(r#"{} <span class="trace-kind">{}</span>"#, count(u64::from(*n)), escape(k))).collect();
    let _ = write!(
        s,
        r#"<tr data-line="{line}"><td class="num" data-label="line">{line}</td><td class="wide"><span class="trace-mutation">{}</span> <code>{}</code>{at}{witness}</td><td class="trace-fan wide"><strong>{}</strong><div class="muted">{}</div></td><td class="num" data-label="exact">{}</td><td class="num" data-label="by order">{}</td><td class="wide">"#,
        escape(&m.kind),
        escape(&m.target()),
        fan_out_words(m.sites, m.units),
        kinds.join(", "),
        m.exact,
        m.by_order,
        line = m.line,
    );
    for g in &m.groups {
        let more = if g.more_functions > 0 { format!(", {} more", g.more_functions) } else { String::new() };
        let functions: Vec<String> = g.functions.iter().map(|f| format!("<code>{}</code>", escape(f))).collect();
        let _ = write!(
            s,
            r#"<div class="trace-group"><span title="{}">{}</span>: {}{}{}{more}</div>"#,
            escape(&g.name),
            escape(short(&g.name)),
            fan_out_words(g.sites, g.units),
            if functions.is_empty() { "" } else { " — " },
            functions.join(", "),
        );
    }
    s.push_str("</td></tr>");
}

/// Each mutation's fan-out: what it threw away, how that was attributed, by file or class.
pub fn fan_out(v: &TraceView) -> String {
    if v.fan_out.is_empty() {
        return format!(
            r#"<p id="trace-no-fanout" class="hint">No invalidation in this log was tied to a mutation ({} in all).</p>"#,
            counted(v.mutations, "mutation")
        );
    }
    let mut s = String::from(
        r#"<div class="table-scroll"><table id="trace-fanout" class="trace-table"><thead><tr><th scope="col" class="num">Line</th><th scope="col">Mutation</th><th scope="col">Fan-out (by the log's kind)</th><th scope="col" class="num" title="Invalidations the log ties to this mutation by name">Exact</th><th scope="col" class="num" title="Invalidations tied by order only">By order</th><th scope="col">Where (file or class: functions)</th></tr></thead><tbody>"#,
    );
    for m in v.fan_out.iter().take(SHOWN) {
        fan_out_row(&mut s, m);
    }
    s.push_str("</tbody></table></div>");
    let mut notes = Vec::new();
    let unlisted = v.more_fan_out + v.fan_out.len().saturating_sub(SHOWN) as u64;
    if unlisted > 0 {
        notes.push(format!("{} more with a fan-out, not listed here (the exports have {})", counted(unlisted, "mutation"), count(v.fan_out.len() as u64)));
    }
    if v.quiet > 0 {
        notes.push(format!("{} invalidated nothing the log shows", counted(v.quiet, "mutation")));
    }
    if !notes.is_empty() {
        let _ = write!(s, r#"<p class="hint">{}.</p>"#, notes.join("; "));
    }
    s
}

fn badge(p: Policy) -> String {
    format!(r#"<span class="policy-badge policy-{0}">{0}</span>"#, p.name())
}

fn ratio(v: f64) -> String {
    format!("{v:.2}")
}

/// Precision and recall as the CLI's table writes them.
fn p_r(sc: &blast_engine::trace::replay::Score) -> String {
    format!("p {} r {}", ratio(sc.precision()), ratio(sc.recall()))
}

/// The replay's comparison: what was replayed (call sites, or compiled code units for a log of
/// class loads), per policy predicted against observed scope over the trace (a policy not
/// replayed for this log is "n/a"), which policy the runtime behaved like, what the scoped
/// policies would have saved; then per mutation.
pub fn replay(r: &ReplayView) -> String {
    let mut s = String::new();
    let noun = r.noun();
    let like: Vec<String> = r.behaved_like.iter().map(|&p| badge(p)).collect();
    let what = match r.subject {
        Subject::Sites => format!("{} with a receiver class replayed", counted(u64::from(r.replayed), noun)),
        Subject::Units => format!("{} compiled on class assumptions replayed at each class load", counted(u64::from(r.replayed), noun)),
    };
    let _ = write!(
        s,
        r#"<p id="trace-behaved-like" data-subject="{}">The runtime behaved like {} <span class="muted">(best F1 of precision and recall over the trace; {what})</span>.</p>"#,
        match r.subject {
            Subject::Sites => "sites",
            Subject::Units => "units",
        },
        like.join(" = "),
    );
    let (observed_title, noun_plural) = match r.subject {
        Subject::Sites => ("Sites the log shows relinked", "Sites"),
        Subject::Units => ("Code units the log shows made not entrant", "Code units"),
    };
    let _ = write!(
        s,
        r#"<div class="table-scroll"><table id="trace-replay" class="trace-table"><caption class="visually-hidden">{noun_plural} retired per policy against the log</caption><thead><tr><th scope="col">Policy</th><th scope="col" class="num" title="{noun_plural} the policy retires, over every mutation">Predicted {noun}s</th><th scope="col" class="num" title="{observed_title}">Observed</th><th scope="col" class="num">Both</th><th scope="col" class="num" title="Retired by the policy, not in the log">Extra</th><th scope="col" class="num" title="In the log, not retired by the policy">Missed</th><th scope="col" class="num">Precision</th><th scope="col" class="num">Recall</th><th scope="col" class="num">F1</th></tr></thead><tbody>"#
    );
    for p in Policy::ALL {
        let current = if r.behaved_like.contains(&p) { r#" class="current""# } else { "" };
        let Some(c) = r.total(p) else {
            let _ = write!(
                s,
                r#"<tr data-policy="{}" class="na"><td class="wide">{}</td><td class="wide" colspan="8">n/a (not replayed for {noun}s)</td></tr>"#,
                p.name(),
                badge(p)
            );
            continue;
        };
        let sc = &c.score;
        let _ = write!(
            s,
            r#"<tr data-policy="{}"{current}><td class="wide">{}</td><td class="num" data-label="predicted">{}</td><td class="num" data-label="observed">{}</td><td class="num" data-label="both">{}</td><td class="num" data-label="extra">{}</td><td class="num" data-label="missed">{}</td><td class="num" data-label="precision">{}</td><td class="num" data-label="recall">{}</td><td class="num" data-label="F1">{}</td></tr>"#,
            p.name(),
            badge(p),
            c.predicted,
            sc.hits + sc.missed,
            sc.hits,
            sc.extra,
            sc.missed,
            ratio(sc.precision()),
            ratio(sc.recall()),
            ratio(sc.f1()),
        );
    }
    s.push_str("</tbody></table></div>");
    let saved: Vec<String> = [Policy::Exact, Policy::Hierarchy]
        .iter()
        .filter_map(|&p| {
            r.saved_against_global(p).map(|(kept, missed)| {
                format!(
                    "{} would have kept {} that global threw away, missing {} the runtime {}",
                    badge(p),
                    counted(u64::from(kept), noun),
                    count(u64::from(missed)),
                    if r.subject == Subject::Units { "made not entrant" } else { "relinked" }
                )
            })
        })
        .collect();
    if !saved.is_empty() {
        let _ = write!(s, r#"<p id="trace-saved">{}.</p>"#, saved.join("; "));
    }
    if r.unmodeled > 0 {
        let why = match r.subject {
            Subject::Sites => "relinked without a receiver class in the log",
            Subject::Units => "made not entrant without a recorded class assumption",
        };
        let _ = write!(s, r#"<p class="hint">{} {why}: not replayed.</p>"#, counted(u64::from(r.unmodeled), noun));
    }
    if !r.rows.is_empty() {
        let listed = if r.rows.len() > SHOWN { format!("the first {SHOWN} of {}; the exports have them all", r.rows.len()) } else { r.rows.len().to_string() };
        let _ = write!(
            s,
            r#"<details class="trace-per-mutation"><summary>Per mutation ({listed}): {noun}s retired of those {}, with precision and recall</summary><div class="table-scroll"><table class="trace-table"><thead><tr><th scope="col" class="num">Line</th><th scope="col">Mutation</th><th scope="col" class="num">{}</th><th scope="col" class="num">Observed</th>"#,
            r.linked_word(),
            capitalized(r.linked_word())
        );
        for p in Policy::ALL {
            let _ = write!(s, r#"<th scope="col" class="num">{}</th>"#, p.name());
        }
        s.push_str("</tr></thead><tbody>");
        for row in r.rows.iter().take(SHOWN) {
            let _ = write!(
                s,
                r#"<tr><td class="num" data-label="line">{}</td><td class="wide"><code>{}</code></td><td class="num" data-label="{}">{}</td><td class="num" data-label="observed">{}</td>"#,
                row.line,
                escape(&row.label),
                r.linked_word(),
                row.linked,
                row.observed
            );
            for p in Policy::ALL {
                let _ = match r.policies.iter().position(|&q| q == p) {
                    Some(i) => {
                        let c = &row.cells[i];
                        write!(s, r#"<td class="num" data-label="{}">{} <span class="muted">{}</span></td>"#, p.name(), c.predicted, p_r(&c.score))
                    }
                    None => write!(s, r#"<td class="num" data-label="{}">n/a</td>"#, p.name()),
                };
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table></div></details>");
    }
    s
}

fn capitalized(w: &str) -> String {
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// Width and height of the timeline's drawing, in its own units (the SVG scales to its box).
/// Where a point of the drawn timeline is on its axis: `f`, a fraction of the drawing's width,
/// as a fraction of the window (the axis runs from PAD to W - PAD), within 0..=1.
pub fn axis_fraction(f: f64) -> f64 {
    ((f * W - PAD) / (W - 2.0 * PAD)).clamp(0.0, 1.0)
}

const W: f64 = 1000.0;
const H: f64 = 140.0;
const AXIS: f64 = 22.0;
const PAD: f64 = 6.0;

/// `x` in the trace's units: its clock from the trace's first event (µs under a window of less
/// than a ms, else ms), or its line.
fn axis_label(tl: &Timeline, x: u64) -> String {
    let us = x - tl.whole.0;
    if tl.clock && tl.end - tl.start < 1000 {
        format!("{} µs", count(us))
    } else if tl.clock {
        format!("{} ms", crate::format::sig3(us as f64 / 1000.0))
    } else {
        format!("line {}", count(x))
    }
}

/// Mutations (markers, taller for a wider fan-out) and invalidations (stacked bars: exact, by
/// order, not attributed) on the trace's own clock, as SVG.
pub fn timeline(tl: &Timeline) -> String {
    if tl.exact.is_empty() {
        return r#"<p class="hint">Nothing to place on a timeline.</p>"#.into();
    }
    let span = (tl.end - tl.start).max(1) as f64;
    // Markers at the ends stay whole: the axis runs from PAD to W - PAD.
    let at = |x: u64| PAD + (x - tl.start) as f64 / span * (W - 2.0 * PAD);
    let bins = tl.exact.len() as f64;
    let peak = (0..tl.exact.len()).map(|i| tl.exact[i] + tl.by_order[i] + tl.unattributed[i]).max().unwrap_or(0).max(1) as f64;
    let plot = H - AXIS - 10.0;
    let mut s = format!(
        r#"<svg id="trace-timeline-svg" class="trace-timeline" viewBox="0 0 {W} {H}" preserveAspectRatio="none" role="img" aria-label="{} on the trace's {}: {} invalidations at most per column">"#,
        counted(tl.mutations.len() as u64, "mutation"),
        if tl.clock { "clock" } else { "lines" },
        peak
    );
    let bw = (W - 2.0 * PAD) / bins;
    for i in 0..tl.exact.len() {
        let mut y = H - AXIS;
        for (n, class) in [(tl.exact[i], "tl-exact"), (tl.by_order[i], "tl-order"), (tl.unattributed[i], "tl-none")] {
            if n == 0 {
                continue;
            }
            let h = f64::from(n) / peak * plot;
            y -= h;
            let _ = write!(
                s,
                r#"<rect class="{class}" data-n="{n}" x="{:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}"/>"#,
                PAD + i as f64 * bw,
                (bw - 1.0).max(1.0)
            );
        }
    }
    let widest = tl.mutations.iter().map(|&(_, n)| n).max().unwrap_or(1).max(1) as f64;
    for &(x, n) in &tl.mutations {
        let px = at(x);
        let top = H - AXIS - plot * (0.3 + 0.7 * f64::from(n) / widest);
        let _ = write!(
            s,
            r#"<line class="tl-mutation" x1="{px:.1}" x2="{px:.1}" y1="{top:.1}" y2="{:.1}"><title>{} at {}</title></line>"#,
            H - AXIS,
            fan_out_words(n, 0),
            axis_label(tl, x)
        );
    }
    let _ = write!(s, r#"<line class="tl-axis" x1="0" x2="{W}" y1="{0}" y2="{0}"/>"#, H - AXIS);
    s.push_str("</svg>");
    let _ = write!(
        s,
        r#"<div class="trace-timeline-axis" data-start="{}" data-end="{}"><span>{}</span><span>{}</span></div><p class="hint trace-legend"><span class="swatch tl-mutation"></span> mutation (taller: wider fan-out) <span class="swatch tl-exact"></span> exact <span class="swatch tl-order"></span> by order <span class="swatch tl-none"></span> not attributed</p>"#,
        tl.start,
        tl.end,
        axis_label(tl, tl.start),
        axis_label(tl, tl.end)
    );
    s
}

/// Why a site of the trace was invalidated, for the why panel: where it is, how its
/// invalidations were attributed, each policy's replay over the trace, then each mutation that
/// hit it (its log line and kind, the invalidation the log shows, how it was tied, and what each
/// policy's replay did for the site at that mutation).
pub fn site_why(v: &TraceSites, s: &TraceSite) -> String {
    let what = if s.unit { "compiled unit" } else { "call site" };
    // A site is named by the path the runtime logged, often absolute on the machine that ran it:
    // the heading shows the file's own name, the whole path in its title.
    let short = s.name.rsplit(['/', '\\']).next().unwrap_or(&s.name);
    let mut out = format!(r#"<h3>{what} <code title="{}">{}</code><span class="muted">"#, escape(&s.name), escape(short));
    // A site's name starts with its file already; a unit's group is where it is.
    if !s.name.starts_with(&s.group) {
        let _ = write!(out, " · {}", escape(&s.group));
    }
    if !s.function.is_empty() && !s.unit {
        let _ = write!(out, " · {}()", escape(&s.function));
    }
    let _ = write!(
        out,
        r#"</span></h3><p class="why-summary">{}: {} exact · {} by order · {} not attributed</p>"#,
        counted(u64::from(s.invalidations), "invalidation"),
        count(u64::from(s.exact)),
        count(u64::from(s.by_order)),
        count(u64::from(s.unattributed))
    );
    if !v.policies.is_empty() {
        out.push_str(r#"<p class="why-replay">The replay over the whole trace: "#);
        let cells: Vec<String> = v
            .policies
            .iter()
            .zip(&s.verdicts)
            .map(|(p, [n, c, m])| {
                format!(
                    r#"<span class="trace-policy" data-policy="{p}"><span class="policy-badge policy-{p}">{p}</span> <span class="v-necessary">{n} necessary</span> · <span class="v-collateral">{c} collateral</span> · <span class="v-missed">{m} missed</span></span>"#,
                    p = escape(p)
                )
            })
            .collect();
        out.push_str(&cells.join("; "));
        out.push_str("</p>");
    }
    if s.hits.is_empty() {
        out.push_str(r#"<p class="muted">No mutation the log shows invalidated it: only a policy's replay retired it.</p>"#);
        return out;
    }
    out.push_str(r#"<div class="table-scroll history-scroll" tabindex="0" role="region" aria-label="Mutations behind it"><table id="why-trace-hits" class="history"><thead><tr><th>line</th><th>mutation</th><th>invalidation</th><th>attribution</th>"#);
    for p in &v.policies {
        let _ = write!(out, "<th>{}</th>", escape(p));
    }
    out.push_str("</tr></thead><tbody>");
    for h in &s.hits {
        let _ = write!(
            out,
            r#"<tr data-line="{}"><td class="num" data-label="line">{}</td><td data-label="mutation"><code>{}</code></td><td data-label="invalidation"><code>{}</code></td><td data-label="attribution">{}</td>"#,
            h.line,
            h.line,
            escape(&h.mutation),
            escape(&h.invalidation),
            escape(&h.attribution)
        );
        for (i, p) in v.policies.iter().enumerate() {
            match h.replay.get(i) {
                Some(word) => {
                    let _ = write!(out, r#"<td data-label="{}"><span class="badge v-{1}">{1}</span></td>"#, escape(p), escape(word));
                }
                None => {
                    let _ = write!(out, r#"<td data-label="{}" class="muted">not replayed</td>"#, escape(p));
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    if s.more_hits > 0 {
        let _ = write!(out, r#"<p class="muted">and {} more</p>"#, counted(u64::from(s.more_hits), "mutation"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace_lab::view::tests::sample;

    #[test]
    fn the_v8_fan_out_names_dependency_change_deopts_and_the_point_functions() {
        let v = TraceView::of("v8-proto-write.log", &sample("v8-proto-write"));
        let m = fan_out(&v);
        assert!(m.contains("dependency-change") && m.contains("pointNorm") && !m.contains("Counter"), "{m}");
        assert_eq!(m.matches("<tr data-line=").count(), v.fan_out.len().min(SHOWN));
        let r = replay(v.replay.as_ref().unwrap());
        assert!(r.contains(r#"<tr data-policy="exact" class="current">"#), "{r}");
        assert!(!r.contains(r#"<tr data-policy="global" class="current">"#));
    }

    #[test]
    fn a_class_load_replay_speaks_of_code_units_and_marks_policies_not_replayed() {
        let t = sample("hotspot-plugin-registry");
        let r = TraceView::of("hotspot-plugin-registry.log", &t).replay.unwrap();
        let m = replay(&r);
        let e = blast_engine::trace::replay(&t).unwrap();
        assert!(m.contains(&counted(e.units.len() as u64, "code unit")) && !m.contains("call site"), "{m}");
        let na: Vec<Policy> = Policy::ALL.into_iter().filter(|p| !e.policies.contains(p)).collect();
        assert!(!na.is_empty());
        for p in na {
            assert!(m.contains(&format!(r#"<tr data-policy="{}" class="na">"#, p.name())), "{m}");
        }
        for p in e.behaved_like() {
            assert!(m.contains(&format!(r#"<tr data-policy="{}" class="current">"#, p.name())), "{m}");
        }
        assert!(m.contains("<th scope=\"col\" class=\"num\">Live</th>"), "{m}");
        let page = crate::trace_lab::page::TracePage::of(&TraceView::of("h.log", &t));
        assert_eq!(page.scenario, None);
        assert!(page.replay_csv.unwrap().lines().nth(1).unwrap().starts_with("h.log,code units,"));
    }

    #[test]
    fn lines_not_understood_are_counted_and_placed_and_log_text_is_escaped() {
        let t = blast_engine::trace::read(b"v8-version,11,3,244,8,,0\n<script>x</script>\nnoise\n", Default::default(), None);
        let s = summary(&TraceView::of("a<b>.log", &t));
        assert!(s.contains("2 lines not understood</strong>, first at 2"), "{s}");
        assert!(s.contains("&lt;script&gt;") && !s.contains("<script>") && s.contains("a&lt;b&gt;.log"), "{s}");
        let unknown = summary(&TraceView::of("x", &blast_engine::trace::read(b"hello\n", Default::default(), None)));
        assert!(unknown.contains("trace-unknown-format"), "{unknown}");
    }

    #[test]
    fn a_long_fan_out_lists_its_first_rows_and_counts_the_rest() {
        let mut v = TraceView::of("g", &sample("groovy-same-class-churn"));
        let row = v.fan_out[0].clone();
        v.fan_out = vec![row; SHOWN + 7];
        v.more_fan_out = 3;
        let m = fan_out(&v);
        assert_eq!(m.matches("<tr data-line=").count(), SHOWN);
        assert!(m.contains("10 mutations more with a fan-out, not listed here (the exports have 57)"), "{m}");
    }

    #[test]
    fn the_timeline_draws_a_marker_per_listed_mutation() {
        let v = TraceView::of("g", &sample("groovy-same-class-churn"));
        let svg = timeline(&v.timeline);
        assert_eq!(svg.matches(r#"<line class="tl-mutation""#).count(), v.timeline.mutations.len());
        assert!(v.timeline.mutations.len() == v.fan_out.len() && !v.fan_out.is_empty());
    }

    #[test]
    fn a_sites_why_names_each_mutation_line_and_every_policys_verdict_escaped() {
        let t = crate::trace_lab::view::tests::sample("v8-proto-write");
        let r = blast_engine::trace::replay(&t).unwrap();
        let v = TraceSites::of(&t, Some(&r));
        let s = v.sites.iter().find(|s| !s.hits.is_empty()).unwrap();
        let html = site_why(&v, s);
        for h in &s.hits {
            assert!(html.contains(&format!(r#"<tr data-line="{}">"#, h.line)), "{html}");
        }
        for p in &v.policies {
            assert!(html.contains(&format!(r#"data-policy="{p}""#)), "{html}");
        }
        let hostile = TraceSite { name: "<x>".into(), group: "&".into(), ..TraceSite::default() };
        let html = site_why(&TraceSites::default(), &hostile);
        assert!(html.contains("&lt;x&gt;") && !html.contains("<x>"), "{html}");
        let logged = TraceSite { name: "/home/ci/app/src/point.js:28:20".into(), ..TraceSite::default() };
        let html = site_why(&TraceSites::default(), &logged);
        assert!(html.contains(r#"<code title="/home/ci/app/src/point.js:28:20">point.js:28:20</code>"#), "{html}");
    }
}
