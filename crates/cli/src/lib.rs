//! Argument handling and output formatting for the `blast` binary, kept as a library so it is
//! tested without spawning processes.

use std::fmt::Write as _;

use blast_engine::calibrate::{calibrate, CalRow, Calibration};
use blast_engine::compare::{compare, Comparison};
use blast_engine::models::{self, ModelConfig, ModelReport};
use blast_engine::policy::{parse_policies, Policy};
use blast_engine::{dsl, presets, Params, Scenario};

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Options {
    /// The call-site policies to run (default: global, exact).
    pub fn policies(&self) -> Result<Vec<Policy>, String> {
        match &self.policy_list {
            Some(list) => parse_policies(list),
            None => Ok(vec![Policy::Global, Policy::Exact]),
        }
    }
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output { code: 0, stdout, stderr: String::new() }
    }
    fn fail(code: i32, stderr: String) -> Output {
        Output { code, stdout: String::new(), stderr }
    }
}

pub const USAGE: &str = "blast: invalidation blast-radius simulator

usage:
  blast presets                         list the shipped presets
  blast run <preset|file|all> [--policy global,exact,...] [--format table|json|csv]
                                        [--param name=value ...]
  blast calibrate [--format table|markdown|json]
                                        compare with the published figures; exit 1 if
                                        any row is outside tolerance
  blast sweep <preset|file> --param name=v1,v2,... [--param other=value] [--policy ...]
                                        throughput per policy across a parameter
  blast show <preset|file> [--format dsl|json]
                                        print a scenario (converts between DSL and JSON)
  blast check <file>                    parse and validate a scenario

policies: global, exact, hierarchy, hierarchy-v3, ideal
parameters: churn_every (every `every` period in the op), ops, warmup, bulk_scan
(all-loaded|live-only), and the engine's costs and thresholds:
";

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Dsl,
}

pub struct Options {
    /// `--policy` as given: call-site policies, or a model's variants.
    pub policy_list: Option<String>,
    pub format: Format,
    /// `--param name=value`: fixed settings, applied in order.
    pub sets: Vec<(String, String)>,
    /// `--param name=v1,v2,..`: the swept parameter (at most one).
    pub sweep: Option<(String, Vec<String>)>,
    pub positional: Vec<String>,
}

pub fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options { policy_list: None, format: Format::Table, sets: vec![], sweep: None, positional: vec![] };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--policy" | "--policies" => o.policy_list = Some(value(a)?),
            "--format" => {
                o.format = match value(a)?.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    "markdown" | "md" => Format::Markdown,
                    "dsl" => Format::Dsl,
                    other => return Err(format!("unknown format `{other}` (table, json, csv, markdown, dsl)")),
                };
            }
            "--param" => {
                let v = value(a)?;
                let (name, val) = v.split_once('=').ok_or_else(|| format!("--param expects name=value, got `{v}`"))?;
                let (name, val) = (name.trim().to_string(), val.trim());
                if val.contains(',') {
                    if o.sweep.is_some() {
                        return Err("only one --param may list several values".into());
                    }
                    o.sweep = Some((name, val.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()));
                } else {
                    o.sets.push((name, val.to_string()));
                }
            }
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`")),
            _ => o.positional.push(a.clone()),
        }
    }
    Ok(o)
}

/// Resolve a preset id or a file path to scenarios (`all` = every preset).
pub fn load(target: &str) -> Result<Vec<(String, Scenario)>, String> {
    if target == "all" {
        return Ok(presets::all().iter().map(|p| (p.id.to_string(), p.scenario())).collect());
    }
    if let Some(p) = presets::find(target) {
        return Ok(vec![(p.id.to_string(), p.scenario())]);
    }
    let text = std::fs::read_to_string(target).map_err(|e| format!("{target}: not a preset, and cannot read it as a file: {e}"))?;
    let s = dsl::parse_any(&text).map_err(|e| format!("{target}:{e}"))?;
    let name = if s.name.is_empty() { target.to_string() } else { s.name.clone() };
    Ok(vec![(name, s)])
}

pub fn main_with_args(args: &[String]) -> Output {
    let Some(cmd) = args.first() else { return Output::fail(2, USAGE.into()) };
    let opts = match parse_options(&args[1..]) {
        Ok(o) => o,
        Err(e) => return Output::fail(2, format!("error: {e}\n")),
    };
    if matches!(cmd.as_str(), "run" | "sweep") {
        if let Some(preset) = opts.positional.first().and_then(|t| models::find(t)) {
            return match cmd_model(preset, &opts) {
                Ok(s) => Output::ok(s),
                Err(e) => Output::fail(1, format!("{e}\n")),
            };
        }
    }
    let result = match cmd.as_str() {
        "presets" => Ok(list_presets()),
        "run" => cmd_run(&opts),
        "show" => cmd_show(&opts),
        "check" => cmd_check(&opts),
        "calibrate" => return cmd_calibrate(&opts),
        "sweep" => cmd_sweep(&opts),
        "help" | "--help" | "-h" => Ok(USAGE.to_string()),
        other => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(s) => Output::ok(s),
        Err(e) => Output::fail(1, format!("{e}\n")),
    }
}

fn one_target(opts: &Options) -> Result<&str, String> {
    match opts.positional.as_slice() {
        [t] => Ok(t),
        [] => Err("missing <preset|file>".into()),
        _ => Err(format!("expected one target, got {}", opts.positional.len())),
    }
}

fn list_presets() -> String {
    let mut s = String::new();
    for p in presets::all() {
        let _ = writeln!(s, "{:<36} {:<12} {}", p.id, p.family, p.title);
    }
    for p in models::MODEL_PRESETS {
        let _ = writeln!(s, "{:<36} {:<12} {}", p.id, p.family, p.title);
    }
    s
}

/// `run` and `sweep` for the shape-cache, arena and descriptor models: `--policy` names
/// variants (default: all of the model's).
fn model_variants(c: &ModelConfig, opts: &Options) -> Result<Vec<String>, String> {
    let known = c.variants();
    let list: Vec<String> = match &opts.policy_list {
        Some(l) => l.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect(),
        None => known.iter().map(|v| v.to_string()).collect(),
    };
    for v in &list {
        if !known.contains(&v.as_str()) {
            return Err(format!("unknown variant `{v}` for this model (expected one of: {})", known.join(", ")));
        }
    }
    Ok(list)
}

fn model_row(label: &str, r: &ModelReport) -> String {
    let roles: Vec<String> = r.roles.iter().map(|(n, v)| format!("{n} {v:.2}")).collect();
    let t = r.verdicts;
    format!("{label:<16} {:>12.2} {:<6} {:>9} {:>10} {:>7}   {}\n", r.value, r.unit, t.necessary, t.collateral, t.missed, roles.join(", "))
}

fn cmd_model(preset: &models::ModelPreset, opts: &Options) -> Result<String, String> {
    let mut config = preset.config();
    for (name, value) in &opts.sets {
        config = models::apply(&config, name, value)?;
    }
    let variants = model_variants(&config, opts)?;
    let header = format!("{:<16} {:>12} {:<6} {:>9} {:>10} {:>7}   roles\n", "variant", "value", "unit", "necessary", "collateral", "missed");
    let mut out = format!("{} ({})\n", preset.id, preset.family);
    match &opts.sweep {
        None => {
            out.push_str(&header);
            let mut reports = Vec::new();
            for v in &variants {
                let r = config.run(v)?;
                out.push_str(&model_row(v, &r));
                reports.push(r);
            }
            if opts.format == Format::Json {
                return serde_json::to_string_pretty(&reports).map_err(|e| e.to_string()).map(|s| s + "\n");
            }
        }
        Some((name, values)) => {
            for value in values {
                let c = models::apply(&config, name, value)?;
                let _ = writeln!(out, "{name} = {value}");
                out.push_str(&header);
                for v in &variants {
                    out.push_str(&model_row(v, &c.run(v)?));
                }
            }
        }
    }
    Ok(out)
}

fn cmd_check(opts: &Options) -> Result<String, String> {
    let t = one_target(opts)?;
    let loaded = load(t)?;
    Ok(format!("{t}: ok ({} scenario)\n", loaded.len()))
}

fn cmd_show(opts: &Options) -> Result<String, String> {
    let (_, s) = load(one_target(opts)?)?.remove(0);
    Ok(match opts.format {
        Format::Json => serde_json::to_string_pretty(&s).map_err(|e| e.to_string())? + "\n",
        _ => dsl::print(&s),
    })
}

fn cmd_run(opts: &Options) -> Result<String, String> {
    if opts.sweep.is_some() {
        return Err("`run` takes single values; use `blast sweep` to vary a parameter".into());
    }
    let policies = opts.policies()?;
    let scenarios = load(one_target(opts)?)?;
    let mut results = Vec::new();
    for (name, s) in &scenarios {
        let (s, params) = settings(s, opts)?;
        let c = compare(&s, &policies, &params).map_err(|e| format!("{name}: {e}"))?;
        results.push((name.clone(), c));
    }
    Ok(match opts.format {
        Format::Json => {
            let v: Vec<_> = results.iter().map(|(n, c)| serde_json::json!({ "scenario": n, "runs": c.runs })).collect();
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
        Format::Csv => csv(&results, &policies),
        _ => table(&results, &policies),
    })
}

/// The scenario and engine params after applying every `--param name=value`.
fn settings(s: &Scenario, opts: &Options) -> Result<(Scenario, Params), String> {
    let mut cur = (s.clone(), Params::default());
    for (name, value) in &opts.sets {
        cur = blast_engine::sweep::apply(&cur.0, &cur.1, name, value)?;
    }
    Ok(cur)
}

fn cmd_sweep(opts: &Options) -> Result<String, String> {
    let Some((name, values)) = &opts.sweep else {
        return Err("sweep needs --param name=v1,v2,...".into());
    };
    let policies = opts.policies()?;
    let (label, s) = load(one_target(opts)?)?.remove(0);
    let (s, params) = settings(&s, opts)?;
    let mut out = format!("sweep of {label} over {name} (ops/ms per policy)\n{name:>14}");
    for p in &policies {
        let _ = write!(out, " {:>14}", p.name());
    }
    for p in &policies[1..] {
        let _ = write!(out, " {:>16}", format!("{}/{}", p.name(), policies[0].name()));
    }
    out.push('\n');
    for v in values {
        let (sv, pv) = blast_engine::sweep::apply(&s, &params, name, v)?;
        let c = compare(&sv, &policies, &pv).map_err(|e| format!("{name}={v}: {e}"))?;
        let _ = write!(out, "{v:>14}");
        for p in &policies {
            let _ = write!(out, " {:>14}", c.get(*p).map(|r| fmt_ops(r.ops_per_ms)).unwrap_or_default());
        }
        for p in &policies[1..] {
            let _ = write!(out, " {:>16}", c.ratio(*p, policies[0]).map(|r| format!("{r:.2}x")).unwrap_or_default());
        }
        out.push('\n');
    }
    Ok(out)
}

fn cmd_calibrate(opts: &Options) -> Output {
    let cal = calibrate(&Params::default());
    let text = match opts.format {
        Format::Json => serde_json::to_string_pretty(&cal).unwrap_or_default() + "\n",
        Format::Markdown => calibration_markdown(&cal),
        _ => calibration_table(&cal),
    };
    if cal.ok() {
        Output::ok(text)
    } else {
        let failed: Vec<&str> = cal.checks.iter().filter(|c| !c.ok).map(|c| c.name.as_str()).collect();
        Output { code: 1, stdout: text, stderr: format!("calibration FAILED: {}\n", failed.join("; ")) }
    }
}

/// The cells of one calibration row, shared by the terminal table and the Markdown doc.
fn calibration_cells(r: &CalRow) -> [String; 11] {
    [
        r.id.clone(),
        r.unit.clone(),
        fmt_ops(r.before.simulated),
        fmt_ops(r.before.published),
        format!("{:+.3}", r.before.log10_error),
        fmt_ops(r.after.simulated),
        fmt_ops(r.after.published),
        format!("{:+.3}", r.after.log10_error),
        format!("{:.3}", r.ratio_simulated),
        format!("{:.3}", r.ratio_published),
        format!("{:+.3}", r.ratio_log10_error),
    ]
}

const CALIBRATION_HEADER: [&str; 11] =
    ["row", "unit", "before: sim", "published", "log10", "after: sim", "published", "log10", "sim a/b", "published a/b", "log10"];

fn calibration_table(cal: &Calibration) -> String {
    let widths = [44, 6, 12, 12, 7, 12, 12, 7, 10, 13, 7];
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            let _ = if i == 0 { write!(l, "{c:<w$}") } else { write!(l, " {c:>w$}") };
        }
        l + "\n"
    };
    let mut s = line(&CALIBRATION_HEADER.map(String::from));
    for r in &cal.rows {
        s.push_str(&line(&calibration_cells(r)));
    }
    s.push('\n');
    for c in &cal.checks {
        let _ = writeln!(s, "{} {} ({})", if c.ok { "ok  " } else { "FAIL" }, c.name, c.detail);
    }
    let failed = cal.checks.iter().filter(|c| !c.ok).count();
    let _ = writeln!(s, "\n{} passed, {} failed", cal.checks.len() - failed, failed);
    s
}

/// The calibration as Markdown, for docs/CALIBRATION.md (generated, never edited by hand).
pub fn calibration_markdown(cal: &Calibration) -> String {
    let mut s = String::from("<!-- Generated by `cargo run -p blast-cli -- calibrate --format markdown`; do not edit. -->\n");
    s.push_str("# Calibration against published figures\n\n");
    s.push_str("Simulated with the engine's default parameters (`crates/engine/src/params.rs` and each model's params). Rows come from `crates/engine/data/` (each file cites its source): before/after are the two variants compared (for ScopedInvalidationBench, before = global policy and after = exact); log10 = log10(simulated / published); a/b = after / before. Tolerances: ratios within 2x (|log10| <= 0.30), absolute values within 3x.\n\n");
    s.push_str(&format!("| {} |\n", CALIBRATION_HEADER.join(" | ")));
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &cal.rows {
        s.push_str(&format!("| {} |\n", calibration_cells(r).join(" | ")));
    }
    s.push_str("\n## Checks\n\n");
    for c in &cal.checks {
        let _ = writeln!(s, "- {} {} ({})", if c.ok { "✅" } else { "❌" }, c.name, c.detail);
    }
    s
}

/// Format a throughput like JMH does: a few significant digits.
pub fn fmt_ops(v: f64) -> String {
    if !v.is_finite() {
        return "inf".into();
    }
    let digits = if v >= 100.0 {
        1
    } else if v >= 1.0 {
        3
    } else {
        (3.0 - v.log10().floor()).clamp(3.0, 8.0) as usize
    };
    format!("{v:.digits$}")
}

fn csv(results: &[(String, Comparison)], policies: &[Policy]) -> String {
    let mut s = String::from("scenario,policy,ops_per_ms,ms_per_op,relinks,necessary,collateral,missed,stale_calls\n");
    for (name, c) in results {
        for p in policies {
            let Some(r) = c.get(*p) else { continue };
            let stale: u64 = r.sites.iter().map(|x| x.stats.stale_calls).sum();
            let t = r.relink_totals;
            let _ =
                writeln!(s, "{name},{p},{},{},{},{},{},{},{stale}", r.ops_per_ms, r.ms_per_op, t.necessary + t.collateral, t.necessary, t.collateral, t.missed);
        }
    }
    s
}

fn table(results: &[(String, Comparison)], policies: &[Policy]) -> String {
    let mut s = String::new();
    let _ = write!(s, "{:<36}", "Benchmark (ops/ms)");
    for p in policies {
        let _ = write!(s, " {:>14}", p.name());
    }
    for p in &policies[1..] {
        let _ = write!(s, " {:>12}", format!("{}/{}", p.name(), policies[0].name()));
    }
    s.push('\n');
    for (name, c) in results {
        let _ = write!(s, "{name:<36}");
        for p in policies {
            let _ = write!(s, " {:>14}", c.get(*p).map(|r| fmt_ops(r.ops_per_ms)).unwrap_or_default());
        }
        for p in &policies[1..] {
            let _ = write!(s, " {:>12}", c.ratio(*p, policies[0]).map(|r| format!("{r:.2}x")).unwrap_or_default());
        }
        s.push('\n');
    }
    s.push_str("\nRelinks over the whole run, warm-up included (necessary / collateral / missed), by receiver class:\n");
    for (name, c) in results {
        let _ = writeln!(s, "  {name}");
        for p in policies {
            let Some(r) = c.get(*p) else { continue };
            let t = r.relink_totals;
            let classes: Vec<String> = r.relinks_by_class().into_iter().filter(|(_, n)| *n > 0).map(|(cl, n)| format!("{cl} {n}")).collect();
            let _ = writeln!(
                s,
                "    {:<13} {:>7} / {:>7} / {:>7}   {}",
                p.name(),
                t.necessary,
                t.collateral,
                t.missed,
                if classes.is_empty() { "-".to_string() } else { classes.join(", ") }
            );
        }
    }
    s
}
