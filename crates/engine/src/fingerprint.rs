//! Which invalidation policy explains a real runtime's measurements best.
//!
//! A probe (`probes/`, schema `blast-radius-probe/1`) times the same workloads on a real
//! runtime: a hot loop, and the same loop while some class is written every `period`
//! iterations. This module runs the same workloads through the simulator under every policy and
//! compares the slowdowns (each churn workload over its own no-write baseline) with the
//! measured ones.
//!
//! Two costs are unknown for a foreign runtime: what a class write costs (`W`) and what one
//! relink costs (`R`: re-selecting and re-specializing a site). The simulator's virtual time is
//! linear in both (its state machine counts calls and relinks; costs only weigh them), so each
//! workload is simulated three times, at (W, R) = (0, 0), (1 us, 0) and (0, 1 us), and its time
//! at any (W, R) follows exactly. For each policy, (W, R) is fitted on a log grid to minimise
//! the RMS of log10(simulated / measured slowdown); the policy with the smallest residual is
//! the one whose *shape* fits: which workloads a write slows down, and by how much relative to
//! each other. Calls run at the measured per-call time of each workload's baseline
//! (`fast_call_ns`), and a re-specialized site is assumed to run at full speed at once
//! (`pic_call_ns = fast_call_ns`); Groovy's thresholds stay as they are.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dsl;
use crate::params::Params;
use crate::policy::Policy;
use crate::scenario::Semantics;
use crate::sim::run;
use crate::validate::ScenarioError;

/// One probe result file (`scripts/probe.sh` output).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct ProbeResult {
    pub schema: String,
    pub runtime: String,
    pub version: String,
    pub command: String,
    pub mode: String,
    pub rows: Vec<ProbeRow>,
    /// Added by `scripts/probe.sh`; absent when a probe's own output is read.
    #[serde(default)]
    pub machine: Option<Machine>,
}

/// The machine a probe ran on, as `scripts/probe.sh` records it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Machine {
    #[serde(default)]
    pub cpus: Option<u32>,
    #[serde(default)]
    pub cpu_model: Option<String>,
    /// The 1-minute load average when the probe started and when it ended.
    #[serde(default)]
    pub load_average_1min_start: Option<f64>,
    #[serde(default)]
    pub load_average_1min: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct ProbeRow {
    pub workload: String,
    pub param: Option<u64>,
    pub iterations: u64,
    pub reps: u32,
    pub min_ns: f64,
    pub median_ns: f64,
    pub max_ns: f64,
    pub wide: bool,
    /// How far the fastest quarter of the reps spread above the fastest, over it: the spread of
    /// the statistic the fingerprint reads. Absent in results from before it was recorded.
    #[serde(default)]
    pub low_rel: Option<f64>,
    /// `low_rel` above the probe's limit (10%): the fastest rep is not readable.
    #[serde(default)]
    pub low_wide: bool,
}

pub const SCHEMA: &str = "blast-radius-probe/1";

/// Why a probe result cannot be fingerprinted.
#[derive(Clone, Debug, PartialEq)]
pub enum FingerprintError {
    /// Not JSON, or not the probe schema's shape: where (1-based line and column) and why.
    NotJson {
        line: usize,
        column: usize,
        reason: String,
    },
    WrongSchema(String),
    /// A row the fit cannot read: its index in `rows`, its workload, and why.
    BadRow {
        index: usize,
        workload: String,
        reason: String,
    },
    /// More rows than any probe writes.
    TooManyRows(usize),
    /// More bytes than any probe writes ([`MAX_PROBE_BYTES`]).
    TooLarge(usize),
    /// A churn workload has no matching baseline row, or no row has a churn workload at all.
    Missing(String),
    /// A workload's simulation was refused (a bug: the workloads are fixed).
    Scenario(ScenarioError),
}

impl std::fmt::Display for FingerprintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FingerprintError::NotJson { line, column, reason } => write!(f, "{line}:{column}: not a probe result ({reason})"),
            FingerprintError::WrongSchema(s) => write!(f, "schema `{s}`; this version reads `{SCHEMA}`"),
            FingerprintError::BadRow { index, workload, reason } => write!(f, "rows[{index}] ({workload}): {reason}"),
            FingerprintError::TooManyRows(n) => write!(f, "{n} rows; a probe result has at most {MAX_ROWS}"),
            FingerprintError::TooLarge(n) => write!(f, "{n} bytes; a probe result has at most {MAX_PROBE_BYTES}"),
            FingerprintError::Missing(what) => write!(f, "the result has no {what}"),
            FingerprintError::Scenario(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FingerprintError {}

/// Why `json` is not a probe result, in plain words. serde_json's syntax messages name its
/// parser's tokens ("expected ident" for `hello`, "trailing characters"): a person who pasted the
/// wrong file reads what the text is and what a probe result looks like instead. Messages about
/// the shape (a missing field, a wrong type) are already plain and kept.
fn json_reason(json: &str, e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let message = e.to_string();
    // serde_json's message ends with its own " at line L column C"; the location is kept as numbers.
    let message = message.split(" at line ").next().unwrap_or(&message);
    let first = json.trim_start().chars().next();
    match e.classify() {
        Category::Syntax | Category::Eof if first != Some('{') => match first {
            None => "the text is empty; a probe result is a JSON object, `{ \"schema\": ... }`".into(),
            Some(c) => format!("this is not JSON: it starts with `{c}`, and a probe result is a JSON object starting with `{{`"),
        },
        Category::Eof => "the text ends before the JSON does (a closing `}`, `]` or `\"` is missing)".into(),
        Category::Syntax => {
            let what = match message {
                "expected value" | "expected ident" => {
                    "a value was expected here (a number, a string in double quotes, true, false, null, an object or a list)"
                }
                "expected `,` or `}`" => "a comma or a closing `}` is missing here",
                "expected `,` or `]`" => "a comma or a closing `]` is missing here",
                "expected `:`" => "a colon is missing after the key",
                "key must be a string" => "a key must be a string in double quotes",
                "trailing characters" => "there is more text after the JSON object",
                "trailing comma" => "a comma is followed by no value",
                _ => return format!("the JSON is malformed here ({message})"),
            };
            format!("the JSON is malformed: {what}")
        }
        Category::Data | Category::Io => message.to_string(),
    }
}

impl ProbeResult {
    pub fn parse(json: &str) -> Result<ProbeResult, FingerprintError> {
        if json.len() > MAX_PROBE_BYTES {
            return Err(FingerprintError::TooLarge(json.len()));
        }
        let r: ProbeResult =
            serde_json::from_str(json).map_err(|e| FingerprintError::NotJson { line: e.line(), column: e.column(), reason: json_reason(json, &e) })?;
        r.check()?;
        Ok(r)
    }

    /// What `parse` checks past the JSON's shape: the schema, the row count and every row's
    /// numbers (the engine worker checks a result it is sent again, `blast_playground::worker::fit_wire`).
    pub fn check(&self) -> Result<(), FingerprintError> {
        if self.schema != SCHEMA {
            return Err(FingerprintError::WrongSchema(self.schema.clone()));
        }
        if self.rows.len() > MAX_ROWS {
            return Err(FingerprintError::TooManyRows(self.rows.len()));
        }
        for (index, row) in self.rows.iter().enumerate() {
            if let Some(reason) = row.problem() {
                return Err(FingerprintError::BadRow { index, workload: row.label(), reason });
            }
        }
        Ok(())
    }

    fn row(&self, workload: &str, param: Option<u64>) -> Option<&ProbeRow> {
        self.rows.iter().find(|r| r.workload == workload && r.param == param)
    }
}

/// A probe writes about 25 rows; a file with thousands is not one, and each row is simulated.
pub const MAX_ROWS: usize = 200;
/// A probe result's largest size in bytes: `MAX_ROWS` rows of a few hundred bytes each, with
/// room to spare (the kept results, `probes/results/`, are about 10 KB). The CLI reads no more
/// of a file than this.
pub const MAX_PROBE_BYTES: usize = 1 << 20;
/// The range of one call's time (`min_ns / iterations`) a row may claim, in ns: below a
/// picosecond is no call a CPU makes, above a second is no hot loop. The kept results lie in
/// 0.55 ..= 464 ns. Bounding it keeps every simulated time and slowdown finite: a `min_ns` of
/// 1e308 once made the fit divide infinities and print `NaN`.
pub const CALL_NS_RANGE: std::ops::RangeInclusive<f64> = 1e-3..=1e9;
/// The largest site count a many-site row may ask the simulator for.
const MAX_SITES: u64 = 4096;
/// The largest write period or burst length a row may carry.
const MAX_PARAM: u64 = 1_000_000_000;

impl ProbeRow {
    /// `workload@param`, as the tables print a row.
    pub fn label(&self) -> String {
        row_label(&self.workload, self.param)
    }

    /// Why the fit cannot use this row, if it cannot: the numbers it divides by and the sizes
    /// it simulates are checked before anything runs.
    fn problem(&self) -> Option<String> {
        let sites = self.workload.starts_with("fanout_") || self.workload.starts_with("hot_sites");
        if self.iterations == 0 {
            Some("iterations is 0; it counts the calls one op makes".into())
        } else if let Some((name, v)) =
            [("min_ns", self.min_ns), ("median_ns", self.median_ns), ("max_ns", self.max_ns)].into_iter().find(|(_, v)| !(v.is_finite() && *v > 0.0))
        {
            Some(format!("{name} is {}; it must be a positive time in ns", short(v)))
        } else if !(self.min_ns <= self.median_ns && self.median_ns <= self.max_ns) {
            Some(format!("min_ns {} <= median_ns {} <= max_ns {} does not hold", short(self.min_ns), short(self.median_ns), short(self.max_ns)))
        } else if !CALL_NS_RANGE.contains(&self.ns_per_call()) {
            let (lo, hi) = (short(*CALL_NS_RANGE.start()), short(*CALL_NS_RANGE.end()));
            Some(format!("{} ns per call (min_ns / iterations); a row may claim {lo} ..= {hi} ns", short(self.ns_per_call())))
        } else if !self.low_rel.is_none_or(|s| s.is_finite() && s >= 0.0) {
            Some("low_rel must be a fraction of at least 0".into())
        } else if let Some(p) = self.param.filter(|&p| p == 0 && sites) {
            Some(format!("{p} sites; a many-site row has at least one"))
        } else if let Some(p) = self.param.filter(|&p| sites && p > MAX_SITES) {
            Some(format!("{p} sites; the simulator takes at most {MAX_SITES} here"))
        } else {
            self.param.filter(|&p| p > MAX_PARAM).map(|p| format!("param {p} is above {MAX_PARAM}"))
        }
    }

    /// Fastest rep per call: the statistic a busy machine disturbs least. A probe's `iterations`
    /// counts calls (loop iterations x sites per iteration).
    fn ns_per_call(&self) -> f64 {
        self.min_ns / self.iterations as f64
    }
}

/// A number as a message prints it: exponent notation when plain notation would be long
/// (`1e308`, not 309 digits).
fn short(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e12).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn row_label(workload: &str, param: Option<u64>) -> String {
    match param {
        Some(v) => format!("{workload}@{v}"),
        None => workload.to_string(),
    }
}

impl Pair {
    /// `workload@param`, as the tables print a pair.
    pub fn label(&self) -> String {
        row_label(&self.workload, self.param)
    }
}

/// A churn workload, the baseline it is compared with, and the measured slowdown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub workload: String,
    pub param: Option<u64>,
    pub measured: f64,
    /// The larger `low_rel` of the two rows (0 when the result does not record it).
    pub spread: f64,
    /// Neither row is marked too wide to read.
    pub readable: bool,
}

/// How well one policy explains the measurements, at its best-fitting costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyFit {
    pub policy: Policy,
    /// Fitted cost of a class write, ns.
    pub write_ns: f64,
    /// Fitted cost of one relink, ns.
    pub relink_ns: f64,
    /// RMS of log10(simulated / measured) over the pairs.
    pub rms_log10: f64,
    /// Simulated slowdown per pair, in the order of [`Fingerprint::pairs`].
    pub simulated: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub runtime: String,
    pub version: String,
    /// The machine's load average at the probe's start and end, when recorded.
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
    pub pairs: Vec<Pair>,
    /// Best fit first.
    pub fits: Vec<PolicyFit>,
}

impl Fingerprint {
    pub fn best(&self) -> &PolicyFit {
        &self.fits[0]
    }

    /// The policies whose simulated slowdowns equal the best fit's on every workload (the
    /// workloads cannot tell them apart: hierarchy-v3 scopes a plain write like hierarchy).
    pub fn tied(&self) -> Vec<Policy> {
        self.fits[1..].iter().filter(|f| self.same_shape(f)).map(|f| f.policy).collect()
    }

    /// How many times larger the residual of the best policy with a different shape is than
    /// the best one's: how clearly the measurements pick the best shape.
    pub fn margin(&self) -> f64 {
        match self.fits[1..].iter().find(|f| !self.same_shape(f)) {
            Some(second) => second.rms_log10 / self.fits[0].rms_log10.max(1e-9),
            None => f64::INFINITY,
        }
    }

    fn same_shape(&self, fit: &PolicyFit) -> bool {
        fit.simulated.iter().zip(&self.fits[0].simulated).all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs())
    }
}

/// Calls per simulated op: the CPython probe's loop (probes/python/probe.py); slowdowns are per call, so the
/// other probes' longer loops compare with it, and the in-browser fit stays short.
const LOOP: u64 = 20_000;

/// The DSL of one workload: the probe's loop, `calls` sites per iteration, `write` every
/// `period` iterations (none for a baseline).
fn workload_text(receiver_sites: usize, write: Option<(&str, u64)>, burst: u64, child_site: bool) -> String {
    let mut s = String::from(
        "semantics live\nmeasure warmup 1 ops 1\nclass Hot { compute }\nclass Unrelated\nclass Parent { base }\nclass Child extends Parent { leaf }\n",
    );
    let calls: Vec<String> = if child_site {
        s.push_str("site s0 = Child.base\n");
        vec!["call s0".into()]
    } else if receiver_sites == 0 {
        s.push_str("site s0 = Hot.compute\n");
        vec!["call s0".into()]
    } else {
        for k in 0..receiver_sites {
            s.push_str(&format!("class C{k} {{ m }}\nsite s{k} = C{k}.m\n"));
        }
        (0..receiver_sites).map(|k| format!("call s{k}")).collect()
    };
    // Writes install an expando once in setup, so the loop's writes are plain writes.
    s.push_str("setup { write Unrelated.dyn0 write Hot.dyn0 write Parent.dyn0");
    if burst > 0 {
        s.push_str(&format!(" repeat {burst} {{ write Unrelated.dyn0 }}"));
    }
    s.push_str(" }\n");
    let iterations = LOOP / receiver_sites.max(1) as u64;
    let every = write.map(|(class, period)| format!("every {period} {{ write {class}.dyn0 }} ")).unwrap_or_default();
    s.push_str(&format!("op {{ loop {iterations} {{ {every}{} }} }}\n", calls.join(" ")));
    s
}

/// The fanout workloads as `probes/workloads.json` defines them for every probe, so the
/// simulated loops are the measured ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Fanout {
    /// Loop iterations between writes.
    pub period: u64,
    /// The site counts measured.
    pub sites: &'static [u64],
    /// Baseline first: one row per written class (`None` for the baseline).
    pub rows: &'static [FanoutRow],
}

#[derive(Clone, Debug, PartialEq)]
pub struct FanoutRow {
    pub workload: &'static str,
    pub write: Option<&'static str>,
}

/// `probes/workloads.json`'s `fanout`, which every probe reads, as Rust: the engine reads no JSON
/// to simulate a probe row, so the engine worker, which fits probe results, ships no JSON parser
/// (serde_json and the derived readers were ~30 KB of its module before wasm-opt). The test
/// `the_fanout_mirrors_probes_workloads_json` holds the two equal.
const FANOUT: Fanout = Fanout {
    period: 10,
    sites: &[8, 64],
    rows: &[
        FanoutRow { workload: "fanout_baseline", write: None },
        FanoutRow { workload: "fanout_other", write: Some("Other") },
        FanoutRow { workload: "fanout_leaf", write: Some("L0") },
        FanoutRow { workload: "fanout_root", write: Some("Root") },
    ],
};

/// The shared fanout definition (`probes/workloads.json`).
pub fn fanout_spec() -> &'static Fanout {
    &FANOUT
}

/// A fanout scenario: Root, `sites` subclasses with their own `m` and one site each, Other, and
/// `write` every `period` iterations; `ops` measured ops after one warm-up op.
pub(crate) fn fanout_text(sites: u64, period: u64, write: Option<&str>, semantics: Semantics, ops: u32) -> String {
    let mut s = format!("semantics {semantics}\nmeasure warmup 1 ops {ops}\nclass Root {{ base }}\nclass Other\n");
    for k in 0..sites {
        s.push_str(&format!("class L{k} extends Root {{ m }}\nsite s{k} = L{k}.m\n"));
    }
    // As in `workload_text`: the expando is installed once, so the loop's writes are plain writes.
    s.push_str(&format!("setup {{ write {}.dyn0 }}\n", write.unwrap_or("Other")));
    let every = write.map(|class| format!("every {period} {{ write {class}.dyn0 }} ")).unwrap_or_default();
    let calls: Vec<String> = (0..sites).map(|k| format!("call s{k}")).collect();
    s.push_str(&format!("op {{ loop {} {{ {every}{} }} }}\n", LOOP / sites.max(1), calls.join(" ")));
    s
}

/// A churn workload's scenario, its no-write baseline's scenario, and the probe row of that
/// baseline (workload, param).
struct PairTexts {
    churn: String,
    base: String,
    base_row: (String, Option<u64>),
}

/// The scenarios that simulate a probe row; `None` for a row that is itself a baseline.
fn pair_texts(workload: &str, param: Option<u64>) -> Option<PairTexts> {
    if workload.starts_with("fanout_") {
        let spec = fanout_spec();
        let sites = param.filter(|k| (1..=MAX_SITES).contains(k))?;
        let row = spec.rows.iter().find(|r| r.workload == workload)?;
        let class = row.write?;
        let base = spec.rows.iter().find(|r| r.write.is_none())?;
        return Some(PairTexts {
            churn: fanout_text(sites, spec.period, Some(class), Semantics::Live, 1),
            base: fanout_text(sites, spec.period, None, Semantics::Live, 1),
            base_row: (base.workload.to_string(), Some(sites)),
        });
    }
    let plain = |churn: String| PairTexts { churn, base: workload_text(0, None, 0, false), base_row: ("baseline".into(), None) };
    Some(match (workload, param) {
        ("unrelated_churn", Some(p)) => plain(workload_text(0, Some(("Unrelated", p)), 0, false)),
        ("same_class_churn" | "density", Some(p)) => plain(workload_text(0, Some(("Hot", p)), 0, false)),
        ("parent_churn", Some(p)) => plain(workload_text(0, Some(("Parent", p)), 0, true)),
        ("burst_then_steady", Some(b)) => plain(workload_text(0, None, b, false)),
        ("hot_sites", Some(k)) => {
            let sites = k as usize;
            PairTexts {
                churn: workload_text(sites, Some(("Unrelated", 1000)), 0, false),
                base: workload_text(sites, None, 0, false),
                base_row: ("hot_sites_baseline".into(), Some(k)),
            }
        }
        _ => return None,
    })
}

/// Simulated ms per op of a scenario as `t0 + W * a + R * b` (W and R in ns).
#[derive(Clone, Copy, Debug)]
struct Linear {
    t0: f64,
    per_write_ns: f64,
    per_relink_ns: f64,
}

impl Linear {
    fn at(self, write_ns: f64, relink_ns: f64) -> f64 {
        self.t0 + self.per_write_ns * write_ns + self.per_relink_ns * relink_ns
    }
}

/// The simulator at one runtime's fitted costs. The fitted call, write and relink costs stand
/// for whatever that runtime's code costs in whatever tier it runs (CPython has no JIT, PyPy's
/// and V8's are not HotSpot's), so HotSpot's tier costs, deoptimization and Groovy's per-method
/// write cost are off: only the policy's retirement scope tells the workloads apart.
fn params(call_ns: f64, write_ns: f64, relink_ns: f64) -> Params {
    Params {
        interpreter_call_ns: 0.0,
        c1_call_ns: 0.0,
        deopt_ns: 0.0,
        interpreter_slowdown: 1.0,
        metaclass_write_per_method_ns: 0.0,
        fast_call_ns: call_ns,
        pic_call_ns: call_ns,
        selection_ns: relink_ns,
        metaclass_write_ns: write_ns,
        metaclass_install_ns: write_ns,
        per_instance_ns: write_ns,
        category_switch_ns: write_ns,
        domain_retire_ns: 0.0,
        bulk_scan_per_class_ns: 0.0,
        class_load_ns: 0.0,
        ..Params::default()
    }
}

fn linear(text: &str, policy: Policy, call_ns: f64) -> Result<Linear, FingerprintError> {
    let s = dsl::parse(text).map_err(FingerprintError::Scenario)?;
    let ms = |w: f64, r: f64| run(&s, policy, &params(call_ns, w, r)).map(|rep| rep.ms_per_op).map_err(FingerprintError::Scenario);
    let unit = 1000.0;
    let t0 = ms(0.0, 0.0)?;
    Ok(Linear { t0, per_write_ns: (ms(unit, 0.0)? - t0) / unit, per_relink_ns: (ms(0.0, unit)? - t0) / unit })
}

/// Log-spaced grid of costs in ns, 1 ns to 1 ms.
fn grid() -> impl Iterator<Item = f64> + Clone {
    (0..=48).map(|k| 10f64.powf(k as f64 / 8.0))
}

/// A churn workload's pair, its two scenarios, and the measured time of one call.
struct Case {
    pair: Pair,
    churn: String,
    base: String,
    call_ns: f64,
}

/// A fingerprint in progress, one policy per [`Fitting::step`]: the browser fits a result a
/// policy per task, so the page never waits for the whole fit at once.
pub struct Fitting {
    runtime: String,
    version: String,
    load_start: Option<f64>,
    load_end: Option<f64>,
    cases: Vec<Case>,
    fits: Vec<PolicyFit>,
}

impl Fitting {
    /// Pairs every churn row with its baseline; fails when a baseline is missing or no row is a
    /// churn workload.
    pub fn new(result: &ProbeResult) -> Result<Fitting, FingerprintError> {
        let mut cases = Vec::new();
        for row in &result.rows {
            let Some(PairTexts { churn, base, base_row: (base_workload, base_param) }) = pair_texts(&row.workload, row.param) else { continue };
            let base_row =
                result.row(&base_workload, base_param).ok_or_else(|| FingerprintError::Missing(format!("{base_workload} row for {}", row.workload)))?;
            cases.push(Case {
                pair: Pair {
                    workload: row.workload.clone(),
                    param: row.param,
                    measured: row.ns_per_call() / base_row.ns_per_call(),
                    spread: row.low_rel.unwrap_or(0.0).max(base_row.low_rel.unwrap_or(0.0)),
                    readable: !row.low_wide && !base_row.low_wide,
                },
                churn,
                base,
                // A many-site probe row counts every call as an iteration (`iterations` = loop
                // iterations x sites), so this is already the time of one call.
                call_ns: base_row.ns_per_call(),
            });
        }
        if cases.is_empty() {
            return Err(FingerprintError::Missing("churn workload".into()));
        }
        let machine = result.machine.as_ref();
        Ok(Fitting {
            runtime: result.runtime.clone(),
            version: result.version.clone(),
            load_start: machine.and_then(|m| m.load_average_1min_start),
            load_end: machine.and_then(|m| m.load_average_1min),
            cases,
            fits: Vec::with_capacity(Policy::ALL.len()),
        })
    }

    /// How many policies are fitted so far, of `Policy::ALL.len()`.
    pub fn done(&self) -> usize {
        self.fits.len()
    }

    /// Fits the next policy; the fingerprint once every policy is fitted.
    pub fn step(&mut self) -> Result<Option<Fingerprint>, FingerprintError> {
        if let Some(&policy) = Policy::ALL.get(self.fits.len()) {
            let fit = self.fit(policy)?;
            self.fits.push(fit);
        }
        if self.fits.len() < Policy::ALL.len() {
            return Ok(None);
        }
        let mut fits = self.fits.clone();
        fits.sort_by(|a, b| a.rms_log10.total_cmp(&b.rms_log10));
        Ok(Some(Fingerprint {
            runtime: self.runtime.clone(),
            version: self.version.clone(),
            load_start: self.load_start,
            load_end: self.load_end,
            pairs: self.cases.iter().map(|c| c.pair.clone()).collect(),
            fits,
        }))
    }

    /// One policy at its best-fitting (write, relink) costs on the grid.
    fn fit(&self, policy: Policy) -> Result<PolicyFit, FingerprintError> {
        let cases = &self.cases;
        // Most churn workloads share one baseline (same scenario, same call time): simulate it once.
        let mut bases: BTreeMap<(&str, u64), Linear> = BTreeMap::new();
        let mut lines = Vec::with_capacity(cases.len());
        for c in cases {
            let base = match bases.get(&(c.base.as_str(), c.call_ns.to_bits())) {
                Some(&l) => l,
                None => {
                    let l = linear(&c.base, policy, c.call_ns)?;
                    bases.insert((c.base.as_str(), c.call_ns.to_bits()), l);
                    l
                }
            };
            lines.push((linear(&c.churn, policy, c.call_ns)?, base));
        }
        let ratios = |w: f64, r: f64| -> Vec<f64> { lines.iter().map(|(churn, base)| churn.at(w, r) / base.at(w, r)).collect() };
        let rms = |sim: &[f64]| -> f64 {
            let sum: f64 = sim.iter().zip(cases).map(|(s, c)| (s / c.pair.measured).log10().powi(2)).sum();
            (sum / cases.len() as f64).sqrt()
        };
        let mut best: Option<PolicyFit> = None;
        for w in grid() {
            for r in grid() {
                let simulated = ratios(w, r);
                let score = rms(&simulated);
                if best.as_ref().is_none_or(|b| score < b.rms_log10) {
                    best = Some(PolicyFit { policy, write_ns: w, relink_ns: r, rms_log10: score, simulated });
                }
            }
        }
        Ok(best.expect("the cost grid is not empty"))
    }
}

/// Fingerprint one probe result against every policy.
pub fn fingerprint(result: &ProbeResult) -> Result<Fingerprint, FingerprintError> {
    let mut fitting = Fitting::new(result)?;
    loop {
        if let Some(f) = fitting.step()? {
            return Ok(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fanout_mirrors_probes_workloads_json() {
        let file: serde_json::Value = serde_json::from_str(include_str!("../../../probes/workloads.json")).expect("probes/workloads.json is JSON");
        let fanout = &file["fanout"];
        let spec = fanout_spec();
        assert_eq!(fanout["period"].as_u64(), Some(spec.period));
        let sites: Vec<u64> = fanout["sites"].as_array().expect("sites").iter().filter_map(|v| v.as_u64()).collect();
        assert_eq!(sites, spec.sites);
        let rows: Vec<(&str, Option<&str>)> =
            fanout["rows"].as_array().expect("rows").iter().map(|r| (r["workload"].as_str().expect("a workload"), r["write"].as_str())).collect();
        assert_eq!(rows, spec.rows.iter().map(|r| (r.workload, r.write)).collect::<Vec<_>>());
    }

    /// A result whose slowdowns are what `policy` simulates at the given costs.
    fn synthetic(policy: Policy, write_ns: f64, relink_ns: f64) -> ProbeResult {
        let call_ns = 50.0;
        let mut rows: Vec<ProbeRow> = Vec::new();
        let mut add = |workload: &str, param: Option<u64>| {
            let PairTexts { churn, base, base_row } = pair_texts(workload, param).unwrap();
            let (c, b) = (linear(&churn, policy, call_ns).unwrap(), linear(&base, policy, call_ns).unwrap());
            let ratio = c.at(write_ns, relink_ns) / b.at(write_ns, relink_ns);
            let row = |workload: &str, param, min_ns: f64| ProbeRow {
                workload: workload.into(),
                param,
                iterations: LOOP,
                reps: 9,
                min_ns,
                median_ns: min_ns,
                max_ns: min_ns,
                wide: false,
                low_rel: None,
                low_wide: false,
            };
            if !rows.iter().any(|r| (r.workload.as_str(), r.param) == (base_row.0.as_str(), base_row.1)) {
                rows.push(row(&base_row.0, base_row.1, call_ns * LOOP as f64));
            }
            rows.push(row(workload, param, ratio * call_ns * LOOP as f64));
        };
        add("unrelated_churn", Some(1000));
        add("same_class_churn", Some(1000));
        add("parent_churn", Some(1000));
        add("hot_sites", Some(8));
        add("hot_sites", Some(64));
        for &sites in fanout_spec().sites {
            for workload in ["fanout_other", "fanout_leaf", "fanout_root"] {
                add(workload, Some(sites));
            }
        }
        ProbeResult {
            schema: SCHEMA.into(),
            runtime: "synthetic".into(),
            version: "0".into(),
            command: String::new(),
            mode: "quick".into(),
            rows,
            machine: None,
        }
    }

    #[test]
    fn a_runtime_that_behaves_like_a_policy_is_fingerprinted_as_that_policy() {
        for policy in [Policy::Global, Policy::Exact, Policy::Hierarchy] {
            let f = fingerprint(&synthetic(policy, 20_000.0, 5_000.0)).unwrap();
            assert_eq!(f.best().policy, policy, "{:#?}", f.fits);
            assert!(f.best().rms_log10 < 0.05, "{:#?}", f.best());
        }
    }

    #[test]
    fn the_simulated_time_is_linear_in_the_write_and_relink_costs() {
        let churn = pair_texts("unrelated_churn", Some(1000)).unwrap().churn;
        let l = linear(&churn, Policy::Global, 10.0).unwrap();
        let s = dsl::parse(&churn).unwrap();
        let direct = run(&s, Policy::Global, &params(10.0, 3_000.0, 7_000.0)).unwrap().ms_per_op;
        assert!((l.at(3_000.0, 7_000.0) / direct - 1.0).abs() < 1e-9, "{} vs {direct}", l.at(3_000.0, 7_000.0));
    }

    #[test]
    fn bad_results_are_typed_errors() {
        assert!(matches!(ProbeResult::parse("{"), Err(FingerprintError::NotJson { line: 1, column: 1, .. })));
        // Not JSON at all, or broken JSON: plain words, not the parser's tokens.
        let reason = |text: &str| match ProbeResult::parse(text) {
            Err(FingerprintError::NotJson { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(reason("hello"), "this is not JSON: it starts with `h`, and a probe result is a JSON object starting with `{`");
        assert!(reason("  ").starts_with("the text is empty"));
        assert_eq!(
            reason("{\"schema\": }"),
            "the JSON is malformed: a value was expected here (a number, a string in double quotes, true, false, null, an object or a list)"
        );
        assert_eq!(reason("{\"schema\": \"x\" \"rows\": []}"), "the JSON is malformed: a comma or a closing `}` is missing here");
        assert!(reason("{\"schema\": \"x\"").starts_with("the text ends before the JSON does"));
        for text in ["hello", "{\"schema\": }", "{\"schema\": \"x\" \"rows\": []}", "[1]x"] {
            assert!(!reason(text).contains("ident"), "{text}: {}", reason(text));
        }
        let Err(e) = ProbeResult::parse("{\n \"schema\": 3\n}") else { panic!("a number is not a schema") };
        assert_eq!(e.to_string(), "2:12: not a probe result (invalid type: integer `3`, expected a string)");
        let wrong = r#"{"schema":"other/2","runtime":"x","version":"1","command":"","mode":"quick","rows":[]}"#;
        assert_eq!(ProbeResult::parse(wrong), Err(FingerprintError::WrongSchema("other/2".into())));
        let empty = ProbeResult::parse(&wrong.replace("other/2", SCHEMA)).unwrap();
        assert_eq!(fingerprint(&empty), Err(FingerprintError::Missing("churn workload".into())));
    }

    #[test]
    fn rows_the_fit_cannot_read_are_refused_by_index_before_anything_runs() {
        let good = synthetic(Policy::Exact, 1_000.0, 1_000.0);
        let refused = |edit: &dyn Fn(&mut ProbeRow)| {
            let mut r = good.clone();
            edit(&mut r.rows[3]);
            let text = serde_json::to_string(&r).unwrap();
            match ProbeResult::parse(&text) {
                Err(FingerprintError::BadRow { index: 3, reason, .. }) => reason,
                other => panic!("{other:?}"),
            }
        };
        assert!(refused(&|row| row.iterations = 0).contains("iterations is 0"));
        assert!(refused(&|row| row.min_ns = 0.0).contains("min_ns is 0"));
        assert!(refused(&|row| row.min_ns = -5.0).contains("positive"));
        assert!(refused(&|row| row.low_rel = Some(-1.0)).contains("low_rel"));
        assert!(refused(&|row| row.median_ns = 0.0).contains("median_ns is 0"));
        assert!(refused(&|row| row.median_ns = -1.0).contains("median_ns is -1"));
        assert!(refused(&|row| row.max_ns = 0.0).contains("max_ns is 0"));
        assert!(refused(&|row| row.median_ns = row.max_ns * 2.0).contains("<= max_ns"));
        assert!(refused(&|row| {
            row.workload = "hot_sites".into();
            row.param = Some(1 << 40);
        })
        .contains("sites"));
        assert!(refused(&|row| row.param = Some(u64::MAX)).contains("above"));
        let mut many = good.clone();
        many.rows = vec![good.rows[0].clone(); MAX_ROWS + 1];
        assert_eq!(ProbeResult::parse(&serde_json::to_string(&many).unwrap()), Err(FingerprintError::TooManyRows(MAX_ROWS + 1)));
        assert!(ProbeResult::parse(&serde_json::to_string(&good).unwrap()).is_ok());
    }

    #[test]
    fn a_time_too_large_to_simulate_is_refused_with_its_row_and_no_nan_is_ever_fitted() {
        let good = synthetic(Policy::Exact, 1_000.0, 1_000.0);
        let mut huge = good.clone();
        (huge.rows[2].min_ns, huge.rows[2].median_ns, huge.rows[2].max_ns) = (1e308, 1e308, 1e308);
        let Err(e) = ProbeResult::parse(&serde_json::to_string(&huge).unwrap()) else { panic!("1e308 ns was accepted") };
        assert!(matches!(e, FingerprintError::BadRow { index: 2, .. }) && e.to_string().contains("ns per call"), "{e}");
        assert!(e.to_string().len() < 200 && e.to_string().contains("e303"), "{e}");
        // Every row at either end of the accepted range still fits to finite numbers.
        for per_call in [*CALL_NS_RANGE.start(), *CALL_NS_RANGE.end()] {
            let mut edge = good.clone();
            for row in &mut edge.rows {
                let t = per_call * row.iterations as f64;
                (row.min_ns, row.median_ns, row.max_ns) = (t, t, t);
            }
            edge.rows[1].min_ns *= if per_call > 1.0 { 0.5 } else { 2.0 };
            edge.rows[1].median_ns = edge.rows[1].min_ns;
            edge.rows[1].max_ns = edge.rows[1].min_ns;
            let edge = ProbeResult::parse(&serde_json::to_string(&edge).unwrap()).unwrap();
            let f = fingerprint(&edge).unwrap();
            let numbers = f
                .pairs
                .iter()
                .map(|p| p.measured)
                .chain(f.fits.iter().flat_map(|fit| [fit.write_ns, fit.relink_ns, fit.rms_log10].into_iter().chain(fit.simulated.iter().copied())));
            assert!(numbers.clone().all(f64::is_finite), "{per_call} ns per call: {:?}", numbers.collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_probe_result_larger_than_any_probe_writes_is_refused_before_it_is_parsed() {
        let big = format!("{{\"schema\": \"{SCHEMA}\", \"pad\": \"{}\"}}", "x".repeat(MAX_PROBE_BYTES));
        assert_eq!(ProbeResult::parse(&big), Err(FingerprintError::TooLarge(big.len())));
    }

    #[test]
    fn a_fit_stepped_one_policy_at_a_time_ends_in_the_whole_fingerprint() {
        let result = synthetic(Policy::Hierarchy, 10_000.0, 2_000.0);
        let mut fitting = Fitting::new(&result).unwrap();
        let mut steps = 0;
        let stepped = loop {
            steps += 1;
            if let Some(f) = fitting.step().unwrap() {
                break f;
            }
            assert_eq!(fitting.done(), steps);
        };
        assert_eq!(steps, Policy::ALL.len());
        assert_eq!(stepped, fingerprint(&result).unwrap());
    }
}
