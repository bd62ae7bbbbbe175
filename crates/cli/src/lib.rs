//! Argument handling and output formatting for the `blast` binary, kept as a library so it is
//! tested without spawning processes.

use std::fmt::Write as _;

use blast_engine::compare::{compare, Comparison};
use blast_engine::policy::{parse_policies, Policy};
use blast_engine::{dsl, presets, Params, Scenario};

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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
  blast show <preset|file> [--format dsl|json]
                                        print a scenario (converts between DSL and JSON)
  blast check <file>                    parse and validate a scenario

policies: global, exact, hierarchy, hierarchy-v3, ideal
";

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Format {
    Table,
    Json,
    Csv,
}

pub struct Options {
    pub policies: Vec<Policy>,
    pub format: Format,
    pub params: Params,
    pub positional: Vec<String>,
    pub show_format: String,
}

pub fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        policies: vec![Policy::Global, Policy::Exact],
        format: Format::Table,
        params: Params::default(),
        positional: vec![],
        show_format: "dsl".into(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--policy" | "--policies" => o.policies = parse_policies(&value(a)?)?,
            "--format" => {
                let v = value(a)?;
                o.show_format = v.clone();
                o.format = match v.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "csv" => Format::Csv,
                    "dsl" => Format::Table,
                    other => return Err(format!("unknown format `{other}` (table, json, csv; for show: dsl, json)")),
                };
            }
            "--param" => {
                let v = value(a)?;
                let (name, val) = v.split_once('=').ok_or_else(|| format!("--param expects name=value, got `{v}`"))?;
                let num: f64 = val.trim().parse().map_err(|_| format!("--param {name}: `{val}` is not a number"))?;
                o.params.set(name.trim(), num)?;
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
    let result = match cmd.as_str() {
        "presets" => Ok(list_presets()),
        "run" => cmd_run(&opts),
        "show" => cmd_show(&opts),
        "check" => cmd_check(&opts),
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
        let _ = writeln!(s, "{:<36} {:<8} {}", p.id, p.family, p.title);
    }
    s
}

fn cmd_check(opts: &Options) -> Result<String, String> {
    let t = one_target(opts)?;
    let loaded = load(t)?;
    Ok(format!("{t}: ok ({} scenario)\n", loaded.len()))
}

fn cmd_show(opts: &Options) -> Result<String, String> {
    let (_, s) = load(one_target(opts)?)?.remove(0);
    Ok(match opts.show_format.as_str() {
        "json" => serde_json::to_string_pretty(&s).map_err(|e| e.to_string())? + "\n",
        _ => dsl::print(&s),
    })
}

fn cmd_run(opts: &Options) -> Result<String, String> {
    let scenarios = load(one_target(opts)?)?;
    let mut results = Vec::new();
    for (name, s) in &scenarios {
        let c = compare(s, &opts.policies, &opts.params).map_err(|e| format!("{name}: {e}"))?;
        results.push((name.clone(), c));
    }
    Ok(match opts.format {
        Format::Json => {
            let v: Vec<_> = results.iter().map(|(n, c)| serde_json::json!({ "scenario": n, "runs": c.runs })).collect();
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
        Format::Csv => csv(&results, &opts.policies),
        Format::Table => table(&results, &opts.policies),
    })
}

/// Format a throughput like JMH does: a few significant digits.
pub fn fmt_ops(v: f64) -> String {
    if !v.is_finite() {
        return "inf".into();
    }
    let digits = if v >= 100.0 { 1 } else if v >= 1.0 { 3 } else { (3.0 - v.log10().floor()).clamp(3.0, 8.0) as usize };
    format!("{v:.digits$}")
}

fn csv(results: &[(String, Comparison)], policies: &[Policy]) -> String {
    let mut s = String::from("scenario,policy,ops_per_ms,ms_per_op,relinks,necessary,collateral,missed,stale_calls\n");
    for (name, c) in results {
        for p in policies {
            let Some(r) = c.get(*p) else { continue };
            let stale: u64 = r.sites.iter().map(|x| x.stats.stale_calls).sum();
            let t = r.relink_totals;
            let _ = writeln!(s, "{name},{p},{},{},{},{},{},{},{stale}", r.ops_per_ms, r.ms_per_op, t.necessary + t.collateral, t.necessary, t.collateral, t.missed);
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
        let _ = write!(s, " {:>12}", format!("{}/{}", short(*p), short(policies[0])));
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
    s.push_str("\nRelinks per measured run (necessary / collateral / missed), by receiver class:\n");
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

fn short(p: Policy) -> &'static str {
    p.name()
}
