//! `blast run` and `blast sweep` over call-site scenarios, printed as the runs complete.
//!
//! Each scenario is prepared once (`compare::prepare`: validated, bounded and compiled, the
//! scenario dropped), so every refusal comes before anything is printed for it. Then it runs
//! under one policy at a time: each report is turned into what the format prints (its JSON,
//! a CSV row, the few numbers a table row needs) and dropped before the next policy runs, so
//! the peak is one simulation and one report however many policies are asked for. JSON is
//! encoded straight into the output; CSV rows and sweep rows are flushed as each is complete.

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use blast_engine::compare::{prepare, Ready};
use blast_engine::policy::Policy;
use blast_engine::{RunReport, Scenario};

use crate::error::CliError;
use crate::options::{Format, Options};
use crate::out::Out;
use crate::{fmt_ops, load, set, settings, RUN_FORMATS, SWEEP_FORMATS};

/// What the table keeps of one run once its report is dropped.
struct Summary {
    ops_per_ms: f64,
    /// The run's line of the relinks section.
    relinks: String,
    /// The run's line of the compiled-code section.
    compiled: String,
}

/// Prepare `s` for `policies` after the command line's settings; a refusal names `name`.
fn ready(name: &str, s: Scenario, policies: &[Policy], opts: &Options) -> Result<Ready, CliError> {
    let (s, params) = settings(s, opts)?;
    prepare(s, policies, &params).map_err(|error| CliError::Run { scenario: name.to_string(), error })
}

pub fn cmd_run(opts: &Options, out: &mut Out) -> Result<(), CliError> {
    if opts.sweep.is_some() {
        return Err(CliError::SweepInRun);
    }
    let format = opts.format_for("run", RUN_FORMATS)?;
    let policies = opts.policies()?;
    let targets = load(opts.one_target()?)?.into_iter().map(|(name, s)| ready(&name, s, &policies, opts).map(|r| (name, r))).collect::<Result<Vec<_>, _>>()?;
    match format {
        Format::Json => Ok(out.json(&AllRuns { targets: &targets, policies: policies.len() })?),
        Format::Csv => csv(&targets, out),
        _ => table(&targets, &policies, out),
    }
}

/// `[{"scenario": name, "runs": [report, ...]}, ...]`, each report made while it is encoded.
struct AllRuns<'a> {
    targets: &'a [(String, Ready)],
    /// How many reports each scenario has.
    policies: usize,
}

impl Serialize for AllRuns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.targets.len()))?;
        for (name, ready) in self.targets {
            seq.serialize_element(&ScenarioRuns { name, ready, policies: self.policies })?;
        }
        seq.end()
    }
}

struct ScenarioRuns<'a> {
    name: &'a str,
    ready: &'a Ready,
    policies: usize,
}

impl Serialize for ScenarioRuns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut st = serializer.serialize_struct("ScenarioRuns", 2)?;
        st.serialize_field("scenario", self.name)?;
        st.serialize_field("runs", &Reports { ready: self.ready, policies: self.policies })?;
        st.end()
    }
}

/// One report per policy, run when it is its turn to be encoded and dropped right after.
struct Reports<'a> {
    ready: &'a Ready,
    policies: usize,
}

impl Serialize for Reports<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.policies))?;
        for report in self.ready.runs() {
            seq.serialize_element(&report)?;
        }
        seq.end()
    }
}

fn csv(targets: &[(String, Ready)], out: &mut Out) -> Result<(), CliError> {
    out.text("scenario,policy,ops_per_ms,ms_per_op,relinks,necessary,collateral,missed,stale_calls\n")?;
    for (name, ready) in targets {
        for r in ready.runs() {
            let p = r.policy;
            let stale: u64 = r.sites.iter().map(|x| x.stats.stale_calls).sum();
            let t = r.relink_totals;
            drop(r.sites);
            out.text(&format!(
                "{name},{p},{},{},{},{},{},{},{stale}\n",
                r.ops_per_ms,
                r.ms_per_op,
                t.necessary + t.collateral,
                t.necessary,
                t.collateral,
                t.missed
            ))?;
            out.flush()?;
        }
    }
    Ok(())
}

/// `other / first` of two throughputs, as the tables print it.
fn ratio_cell(other: f64, first: f64) -> String {
    format!("{:.2}x", other / first)
}

fn table(targets: &[(String, Ready)], policies: &[Policy], out: &mut Out) -> Result<(), CliError> {
    let mut head = format!("{:<36}", "Benchmark (ops/ms)");
    for p in policies {
        head += &format!(" {:>14}", p.name());
    }
    for p in &policies[1..] {
        head += &format!(" {:>12}", format!("{}/{}", p.name(), policies[0].name()));
    }
    out.text(&(head + "\n"))?;
    let mut done: Vec<(&str, Vec<Summary>)> = Vec::new();
    for (name, ready) in targets {
        let runs: Vec<Summary> = ready.runs().map(summary).collect();
        let mut row = format!("{name:<36}");
        for r in &runs {
            row += &format!(" {:>14}", fmt_ops(r.ops_per_ms));
        }
        for r in &runs[1..] {
            row += &format!(" {:>12}", ratio_cell(r.ops_per_ms, runs[0].ops_per_ms));
        }
        out.text(&(row + "\n"))?;
        out.flush()?;
        done.push((name, runs));
    }
    out.text("\nRelinks over the whole run, warm-up included (necessary / collateral / missed), by receiver class:\n")?;
    for (name, runs) in &done {
        out.text(&format!("  {name}\n"))?;
        for r in runs {
            out.text(&r.relinks)?;
        }
    }
    out.text("\nCompiled code over the whole run (deopts / recompiles, final tier; median iterations below C2 after a deopt):\n")?;
    for (name, runs) in &done {
        out.text(&format!("  {name}\n"))?;
        for r in runs {
            out.text(&r.compiled)?;
        }
    }
    Ok(())
}

/// The table's cells of one run: throughput, relinks by receiver class, and the loops'
/// compiled code (deopts, recompiles, the tier it ended in, and how long a deoptimized loop
/// ran below C2 before it was recompiled).
fn summary(r: RunReport) -> Summary {
    let t = r.relink_totals;
    let classes: Vec<String> = r.relinks_by_class().into_iter().filter(|(_, n)| *n > 0).map(|(cl, n)| format!("{cl} {n}")).collect();
    let relinks = format!(
        "    {:<13} {:>7} / {:>7} / {:>7}   {}\n",
        r.policy.name(),
        t.necessary,
        t.collateral,
        t.missed,
        if classes.is_empty() { "-".to_string() } else { classes.join(", ") }
    );
    let (deopts, recompiles) = r.units.iter().fold((0, 0), |(d, n), u| (d + u.stats.deopts, n + u.stats.recompiles));
    let loops: Vec<String> = r
        .units
        .iter()
        .filter(|u| u.name.starts_with("loop"))
        .map(|u| format!("{} {}{}", u.name, u.tier.name(), if u.past_cutoff { " (C2 gave up)" } else { "" }))
        .collect();
    let mut below: Vec<u64> = r.deopts.iter().filter_map(|d| d.recompiled_after).collect();
    below.sort_unstable();
    let median = below.get(below.len() / 2).map_or("-".to_string(), |m| m.to_string());
    let compiled = format!("    {:<13} {:>7} / {:>7}   {}   {median}\n", r.policy.name(), deopts, recompiles, loops.join(", "));
    Summary { ops_per_ms: r.ops_per_ms, relinks, compiled }
}

pub fn cmd_sweep(opts: &Options, out: &mut Out) -> Result<(), CliError> {
    let format = opts.format_for("sweep", SWEEP_FORMATS)?;
    let (name, values) = opts.sweep.as_ref().ok_or(CliError::SweepNeedsParam)?;
    let policies = opts.policies()?;
    let (label, s) = load(opts.one_target()?)?.remove(0);
    let (s, params) = settings(s, opts)?;
    if format == Format::Csv {
        out.text(&format!("{name},policy,ops_per_ms\n"))?;
    } else {
        let mut head = format!("sweep of {label} over {name} (ops/ms per policy)\n{name:>14}");
        for p in &policies {
            head += &format!(" {:>14}", p.name());
        }
        for p in &policies[1..] {
            head += &format!(" {:>16}", format!("{}/{}", p.name(), policies[0].name()));
        }
        out.text(&(head + "\n"))?;
    }
    out.flush()?;
    for v in values {
        // One value's scenario at a time: a copy per value would hold them all at once.
        let (sv, pv) = set(&s, &params, name, v)?;
        let ready = prepare(sv, &policies, &pv).map_err(|error| CliError::Run { scenario: format!("{label} with {name}={v}"), error })?;
        let ops: Vec<(Policy, f64)> = ready.runs().map(|r| (r.policy, r.ops_per_ms)).collect();
        drop(ready);
        let row = if format == Format::Csv {
            ops.iter().map(|(p, o)| format!("{v},{p},{o}\n")).collect()
        } else {
            let mut row = format!("{v:>14}");
            for (_, o) in &ops {
                row += &format!(" {:>14}", fmt_ops(*o));
            }
            for (_, o) in &ops[1..] {
                row += &format!(" {:>16}", ratio_cell(*o, ops[0].1));
            }
            row + "\n"
        };
        out.text(&row)?;
        out.flush()?;
    }
    Ok(())
}
