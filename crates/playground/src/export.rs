//! Files the page hands out: results as CSV (call-site lanes or model variants). The scenario
//! leaves as its text (`CallSiteSession::shareable_text`); JSON is the CLI's (`blast show
//! --format json`).

use std::fmt::Write as _;

use blast_engine::presets::Published;
use blast_engine::report::SiteState;

use crate::format;
use crate::model_runner::VariantView;
use crate::runner::{CallCounts, LaneView, SiteView};

/// A file for the shell to hand to the browser's download (`state::AppState::take_download`).
#[derive(Clone, Debug, PartialEq)]
pub struct Download {
    pub file: String,
    pub mime: &'static str,
    pub text: String,
}

impl Download {
    /// The results CSV of what `subject` names (a scenario or a model preset).
    pub fn results(subject: &str, text: String) -> Download {
        Download { file: format!("{}-results.csv", file_stem(subject)), mime: "text/csv", text }
    }
}

/// One site's row of the results CSV: the verdicts and state the page mirrors (`SiteView`),
/// and the call counts the engine worker sends when an export asks for them
/// (`lane_wire::Command::CallCounts`; views leave them out, since they change on every call).
#[derive(Clone, Debug, PartialEq)]
pub struct SiteRow {
    pub name: String,
    pub necessary: u64,
    pub collateral: u64,
    pub missed: u64,
    pub calls: CallCounts,
    /// `None`: no call has reached the site yet (as drawn).
    pub state: Option<SiteState>,
}

impl SiteRow {
    pub fn of_view(name: &str, v: &SiteView, calls: CallCounts) -> SiteRow {
        SiteRow { name: name.to_string(), necessary: v.necessary, collateral: v.collateral, missed: v.missed, calls, state: v.state }
    }
}

/// Every site's row per lane: the views' verdicts and state with each site's `call_counts`
/// (per lane, in site id order).
pub fn site_rows(lanes: &[impl AsRef<LaneView>], call_counts: &[Vec<CallCounts>]) -> Vec<Vec<SiteRow>> {
    let lane_rows = |(v, counts): (&LaneView, &Vec<CallCounts>)| {
        v.names.iter().zip(v.sites.iter()).zip(counts).map(|((name, site), &calls)| SiteRow::of_view(name, site, calls)).collect()
    };
    lanes.iter().map(AsRef::as_ref).zip(call_counts).map(lane_rows).collect()
}

/// One row per policy (`scope` = run) and one per site and policy (`scope` = site).
/// `sites`: each lane's site rows (`Lanes::site_rows`), in the lanes' order.
pub fn results_csv(scenario: &str, lanes: &[impl AsRef<LaneView>], sites: &[Vec<SiteRow>], published: Option<Published>) -> String {
    let mut out = String::from(
        "scenario,policy,scope,name,ops_per_ms,ratio_vs_first,published_ops_per_ms,virtual_ms,finished,necessary,collateral,missed,fast_calls,selections,stale_calls,state\n",
    );
    let first = lanes.first().and_then(|l| l.as_ref().result).map(|r| r.ops_per_ms);
    for (lane, sites) in lanes.iter().map(AsRef::as_ref).zip(sites) {
        let ops = lane.result.map(|r| r.ops_per_ms);
        let ratio = match (ops, first) {
            (Some(a), Some(b)) if b > 0.0 => num(a / b),
            _ => String::new(),
        };
        let published = published.and_then(|p| p.for_policy(lane.policy)).map(|(value, _)| num(value)).unwrap_or_default();
        let t = lane.totals;
        let _ = writeln!(
            out,
            "{},{},run,{},{},{},{},{},{},{},{},{},,,,",
            field(scenario),
            lane.policy,
            field(scenario),
            ops.map(num).unwrap_or_default(),
            ratio,
            published,
            num(lane.now_ms),
            lane.finished(),
            t.necessary,
            t.collateral,
            t.missed
        );
        for s in sites {
            let _ = writeln!(
                out,
                "{},{},site,{},,,,,,{},{},{},{},{},{},{}",
                field(scenario),
                lane.policy,
                field(&s.name),
                s.necessary,
                s.collateral,
                s.missed,
                s.calls.fast,
                s.calls.selections,
                s.calls.stale,
                s.state.map(SiteState::name).unwrap_or_default()
            );
        }
    }
    out
}

/// One row per finished variant of a model run, roles as `name=value` pairs.
pub fn model_csv(preset: &str, views: &[impl AsRef<VariantView>]) -> String {
    let mut out = String::from("preset,model,variant,unit,value,speedup_vs_first,necessary,collateral,missed,roles\n");
    let first = views.first().and_then(|v| v.as_ref().result()).map(|r| r.value);
    for r in views.iter().filter_map(|v| v.as_ref().result()) {
        let speedup = match first {
            Some(f) if r.value > 0.0 => num(f / r.value),
            _ => String::new(),
        };
        let roles: Vec<String> = r.roles.iter().map(|(n, v)| format!("{n}={}", num(*v))).collect();
        let t = r.verdicts;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            field(preset),
            field(&r.model),
            field(&r.variant),
            field(&r.unit),
            num(r.value),
            speedup,
            t.necessary,
            t.collateral,
            t.missed,
            field(&roles.join("; "))
        );
    }
    out
}

/// A file name stem from a scenario name (letters, digits, `-` and `_`).
pub fn file_stem(name: &str) -> String {
    let stem: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).take(60).collect();
    if stem.trim_matches('-').is_empty() {
        "scenario".into()
    } else {
        stem
    }
}

/// Significant digits of an exported number: the simulation's figures are not known to more,
/// and a spreadsheet reads `0.00270635` where it got `0.002706354452595834`.
const CSV_DIGITS: i32 = 6;

/// A number rounded to `CSV_DIGITS` significant digits, without trailing zeros (empty when it
/// is not finite).
pub(crate) fn num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let s = format::significant(v, CSV_DIGITS, 17);
    match s.contains('.') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    }
}

/// CSV field quoting (RFC 4180).
pub(crate) fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Runner;
    use blast_engine::{presets, Params, Policy};

    #[test]
    fn csv_has_a_run_row_per_policy_and_site_rows() {
        let p = presets::find("hotLoop_unrelatedMetaClassChurn").unwrap();
        let mut r = Runner::new(&p.scenario(), &[Policy::Global, Policy::Exact], &Params::default()).unwrap();
        r.advance_clock(f64::INFINITY);
        while !r.work(10_000) {}
        r.refresh();
        let rows = site_rows(r.views(), &r.call_counts());
        let csv = results_csv(p.id, r.views(), &rows, p.published());
        let lines: Vec<&str> = csv.lines().collect();
        let columns = lines[0].split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == columns), "{csv}");
        let exact = lines.iter().find(|l| l.contains(",exact,run,")).unwrap();
        assert!(exact.contains(",0.512,"), "published after value: {exact}");
        assert_eq!(lines.iter().filter(|l| l.contains(",site,")).count(), 2 * p.scenario().sites.len());
        // The call-count columns are the engine's own counts, site by site.
        for (lane, reports) in r.views().iter().zip(r.site_reports()) {
            for report in reports {
                let st = &report.stats;
                let row = format!("{},{},site,{},", p.id, lane.policy, report.name);
                let line = lines.iter().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row {row}"));
                let calls = format!(",{},{},{},", st.fast_calls, st.selections, st.stale_calls);
                assert!(line.contains(&calls), "{line} lacks {calls}");
            }
        }
        assert!(r.site_reports().iter().flatten().any(|s| s.stats.fast_calls > 0), "the run made calls");
        // Every number is rounded: at most CSV_DIGITS significant digits.
        let digits = |f: &str| f.trim_start_matches(['-', '0', '.']).chars().filter(char::is_ascii_digit).count();
        let long: Vec<&str> = lines[1..].iter().flat_map(|l| l.split(',')).filter(|f| f.parse::<f64>().is_ok() && digits(f) > CSV_DIGITS as usize).collect();
        assert!(long.is_empty(), "unrounded numbers: {long:?}");
    }

    #[test]
    fn numbers_are_rounded_to_six_significant_digits() {
        assert_eq!(num(0.002706354452595834), "0.00270635");
        assert_eq!(num(153.23456789), "153.235");
        assert_eq!(num(2970.0), "2970");
        assert_eq!(num(1234567.8), "1234568");
        assert_eq!(num(-0.5), "-0.5");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(f64::NAN), "");
    }

    #[test]
    fn a_site_no_call_reached_has_no_state_and_no_calls() {
        let p = presets::find("hotLoop_unrelatedMetaClassChurn").unwrap();
        let r = Runner::new(&p.scenario(), &[Policy::Exact], &Params::default()).unwrap();
        let (reports, view, counts) = (&r.site_reports()[0], &r.views()[0], &r.call_counts()[0]);
        for ((report, site), &calls) in reports.iter().zip(view.sites.iter()).zip(counts) {
            assert_eq!(crate::runner::shown_state(report.state, &report.stats), None, "{} was not called at time zero", report.name);
            assert_eq!(
                SiteRow::of_view(&report.name, site, calls),
                SiteRow { name: report.name.clone(), necessary: 0, collateral: 0, missed: 0, calls: CallCounts::default(), state: None }
            );
        }
    }

    #[test]
    fn model_csv_has_a_row_per_finished_variant() {
        let config = blast_engine::models::find("arena_closeGroup").unwrap().config();
        let mut r = crate::model_runner::ModelRunner::new(config, &["always", "no-deopt"]);
        crate::model_runner::tests::replay_to_end(&mut r);
        let csv = model_csv("arena_closeGroup", r.views());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(lines[2].starts_with("arena_closeGroup,arena,no-deopt,us/op,"), "{}", lines[2]);
        assert!(lines[1].contains(",1,"), "the first variant's speed-up over itself: {}", lines[1]);
        assert!(lines[1].contains(",0,1278,0,closing="), "verdicts, then the roles: {}", lines[1]);
    }

    #[test]
    fn fields_are_quoted_and_names_sanitised() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(file_stem("hot loop/1"), "hot-loop-1");
        assert_eq!(file_stem(""), "scenario");
    }
}
