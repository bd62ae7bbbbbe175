//! `blast check FILE...`: parse and validate each scenario, run it under every policy its
//! expectations read, and report each expectation as a table (failures with `line:col`, the
//! expected and the observed value, and the relinks that caused them), as JSON, or as JUnit XML
//! for CI systems. Exits 1 when any expectation fails. Model presets (`records_*`, `arena_*`,
//! `descriptor_*`) carry expectations about their variants, checked the same way.

use std::fmt::Write as _;

use serde::Serialize;

use blast_engine::dsl;
use blast_engine::expect::model::ModelObserved;
use blast_engine::expect::{self, Cause, CheckReport, Observed, Status};
use blast_engine::models::{self, ModelPreset};
use blast_engine::runtimes::{self, RuntimeProfile};
use blast_engine::{presets, Scenario};

use crate::error::CliError;
use crate::options::{Format, Options};
use crate::out::Out;
use crate::Ended;

pub const CHECK_FORMATS: &[Format] = &[Format::Table, Format::Json, Format::Junit];

/// One thing to check.
enum Source {
    /// A scenario: where it came from (file path or preset id, printed in front of every
    /// place) and the text it was read from (for places).
    Scenario { target: String, text: String },
    /// A model preset and its expectations about its variants.
    Model(&'static ModelPreset),
    /// A scenario file its parser refused as it was read: reported when its turn comes, as a
    /// refusal of its parse would be.
    Refused(CliError),
}

/// The sources `targets` name: preset ids (the Runtimes group's `runtime_*` too), `all` (every
/// preset: call sites, models and runtimes), or files (DSL or JSON).
fn sources(targets: &[String]) -> Result<Vec<Source>, CliError> {
    let scenario = |p: &presets::Preset| Source::Scenario { target: p.id.to_string(), text: p.text.to_string() };
    let runtime = |r: &RuntimeProfile| Source::Scenario { target: r.preset_id(), text: r.scenario_text() };
    let mut out = Vec::new();
    for t in targets {
        if t == "all" {
            out.extend(presets::all().iter().map(scenario));
            out.extend(models::MODEL_PRESETS.iter().map(Source::Model));
            out.extend(runtimes::PROFILES.iter().map(runtime));
        } else if let Some(p) = presets::find(t) {
            out.push(scenario(p));
        } else if let Some(r) = runtimes::by_preset_id(t) {
            out.push(runtime(r));
        } else if let Some(p) = models::find(t) {
            out.push(Source::Model(p));
        } else {
            match crate::read_scenario(t) {
                Ok(text) => out.push(Source::Scenario { target: t.clone(), text }),
                Err(e @ CliError::Scenario { .. }) => out.push(Source::Refused(e)),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(out)
}

/// What a scenario's or a model's run showed.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyObserved {
    Scenario(Observed),
    Model(ModelObserved),
}

impl std::fmt::Display for AnyObserved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyObserved::Scenario(o) => o.fmt(f),
            AnyObserved::Model(o) => o.fmt(f),
        }
    }
}

/// One expectation's result, as reported.
#[derive(Serialize)]
struct Line {
    /// `FILE:line:col`, or `FILE: expectations[i]` for JSON input.
    at: String,
    line: Option<usize>,
    col: Option<usize>,
    expectation: String,
    status: Status,
    expected: String,
    observed: Vec<AnyObserved>,
    /// `observed`, as printed.
    observed_text: Vec<String>,
    causes: Vec<Cause>,
}

#[derive(Serialize)]
struct Checked {
    target: String,
    scenario: String,
    expectations: Vec<Line>,
}

#[derive(Serialize)]
struct Summary {
    passed: usize,
    failed: usize,
    scenarios: Vec<Checked>,
}

/// Where expectation `index` is written: `FILE:line:col` when `places` has it (DSL text),
/// else its path in the model (JSON).
fn place(target: &str, places: &dsl::Spans, index: usize) -> (String, Option<(usize, usize)>) {
    let path = format!("expectations[{index}]");
    match places.get(&path) {
        Some(&(line, col)) => (format!("{target}:{line}:{col}"), Some((line, col))),
        None => (format!("{target}: {path}"), None),
    }
}

fn check_one(src: Source, opts: &Options) -> Result<Checked, CliError> {
    match src {
        Source::Scenario { target, text } => check_scenario(&target, text, opts),
        Source::Model(preset) => check_model(preset, opts),
        Source::Refused(e) => Err(e),
    }
}

fn check_model(preset: &ModelPreset, opts: &Options) -> Result<Checked, CliError> {
    let config = crate::model_config(preset, opts)?;
    let placed = expect::model::of_preset(preset).map_err(|error| CliError::ModelExpectations { preset: preset.id, error })?;
    let exps: Vec<_> = placed.iter().map(|p| p.expectation.clone()).collect();
    let outcomes = expect::model::check(&config, &exps)?;
    let expectations = outcomes
        .into_iter()
        .map(|o| {
            let p = &placed[o.index];
            Line {
                at: format!("{}:{}:{}", preset.id, p.line, p.col),
                line: Some(p.line),
                col: Some(p.col),
                expectation: p.expectation.to_string(),
                status: o.status,
                expected: p.expectation.expected(),
                observed_text: o.observed.iter().map(|x| x.to_string()).collect(),
                observed: o.observed.into_iter().map(AnyObserved::Model).collect(),
                causes: Vec::new(),
            }
        })
        .collect();
    Ok(Checked { target: preset.id.to_string(), scenario: preset.title.to_string(), expectations })
}

/// Check one scenario's text. The text is dropped before the runs: the expectations are placed
/// first, by one more parse that records only their places, and the check takes the scenario
/// (dropped once prepared), so the peak is one run's.
fn check_scenario(target: &str, text: String, opts: &Options) -> Result<Checked, CliError> {
    let s: Scenario = dsl::parse_any(&text).map_err(|error| CliError::Scenario { target: target.to_string(), error })?;
    let json = text.trim_start().starts_with('{');
    let places = if json || s.expectations.is_empty() { dsl::Spans::default() } else { dsl::expectation_places(&text).unwrap_or_default() };
    drop(text);
    let (s, params) = crate::settings(s, opts)?;
    let claims = s.expectations.clone();
    let report: CheckReport = expect::check(s, &params).map_err(|error| CliError::Run { scenario: target.to_string(), error })?;
    let expectations = report
        .outcomes
        .into_iter()
        .map(|o| {
            let e = &claims[o.index];
            let (at, pos) = place(target, &places, o.index);
            Line {
                at,
                line: pos.map(|p| p.0),
                col: pos.map(|p| p.1),
                expectation: e.to_string(),
                status: o.status,
                expected: e.expected(),
                observed_text: o.observed.iter().map(|x| x.to_string()).collect(),
                observed: o.observed.into_iter().map(AnyObserved::Scenario).collect(),
                causes: o.causes,
            }
        })
        .collect();
    Ok(Checked { target: target.to_string(), scenario: report.scenario, expectations })
}

pub fn cmd_check(opts: &Options, out: &mut Out) -> Result<Ended, CliError> {
    let format = opts.format_for("check", CHECK_FORMATS)?;
    if opts.positional.is_empty() {
        return Err(CliError::MissingTarget);
    }
    let checked = sources(&opts.positional)?.into_iter().map(|src| check_one(src, opts)).collect::<Result<Vec<_>, _>>()?;
    let count = |st: Status| checked.iter().flat_map(|c| &c.expectations).filter(|l| l.status == st).count();
    let summary = Summary { passed: count(Status::Pass), failed: count(Status::Fail), scenarios: checked };
    match format {
        Format::Json => out.json(&summary)?,
        Format::Junit => out.text(&junit(&summary))?,
        _ => out.text(&table(&summary))?,
    }
    if summary.failed == 0 {
        return Ok(Ended::OK);
    }
    let failures: Vec<&str> = summary.scenarios.iter().flat_map(|c| &c.expectations).filter(|l| l.status == Status::Fail).map(|l| l.at.as_str()).collect();
    Ok(Ended { code: 1, note: format!("check FAILED: {} expectation(s) at {}\n", summary.failed, failures.join(", ")) })
}

fn table(summary: &Summary) -> String {
    let mut s = String::new();
    for c in &summary.scenarios {
        if c.expectations.is_empty() {
            let _ = writeln!(s, "{}: ok (valid; no expectations)", c.target);
            continue;
        }
        for l in &c.expectations {
            let mark = match l.status {
                Status::Pass => "pass",
                Status::Fail => "FAIL",
                Status::Pending => "pending",
            };
            let _ = writeln!(s, "{mark:<4} {}: {}", l.at, l.expectation);
            if l.status == Status::Pass {
                continue;
            }
            let _ = writeln!(s, "       expected: {}", l.expected);
            for o in &l.observed_text {
                let _ = writeln!(s, "       observed: {o}");
            }
            for cause in &l.causes {
                let _ = writeln!(s, "       caused by: {cause}");
            }
        }
    }
    let scenarios = summary.scenarios.len();
    let _ = writeln!(s, "{} expectation(s) in {scenarios} scenario(s): {} passed, {} failed", summary.passed + summary.failed, summary.passed, summary.failed);
    s
}

fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one suite per scenario, one test case per expectation, named by its place.
fn junit(summary: &Summary) -> String {
    let total = summary.passed + summary.failed;
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(s, "<testsuites name=\"blast check\" tests=\"{total}\" failures=\"{}\">", summary.failed);
    for c in &summary.scenarios {
        let failed = c.expectations.iter().filter(|l| l.status == Status::Fail).count();
        let _ = writeln!(s, "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\">", xml(&c.target), c.expectations.len());
        for l in &c.expectations {
            let _ = write!(
                s,
                "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"",
                xml(&c.target),
                xml(&format!("{}: {}", l.at, l.expectation)),
                xml(&c.target)
            );
            if let Some(line) = l.line {
                let _ = write!(s, " line=\"{line}\"");
            }
            if l.status != Status::Fail {
                s.push_str("/>\n");
                continue;
            }
            s.push_str(">\n");
            let mut body = format!("{}: {}\nexpected: {}\n", l.at, l.expectation, l.expected);
            for o in &l.observed_text {
                let _ = writeln!(body, "observed: {o}");
            }
            for cause in &l.causes {
                let _ = writeln!(body, "caused by: {cause}");
            }
            let message = format!("expected {}; observed {}", l.expected, l.observed_text.join("; "));
            let _ = writeln!(s, "      <failure type=\"expectation\" message=\"{}\">{}</failure>", xml(&message), xml(&body));
            s.push_str("    </testcase>\n");
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}
