//! Calibration against published measurements: every row of the reference tables the engine
//! reproduces, with the tolerances the project holds itself to.

use serde::Serialize;

use crate::groovy24::{self, SweepPoint};
use crate::models::descriptor::Operation;
use crate::models::shape_cache::Objects;
use crate::models::{arena_scaling, rows, ModelConfig, ModelReport};
use crate::params::Params;
use crate::policy::Policy;
use crate::presets::{self, Preset};
use crate::reference::{ArenaGateRow, Reference};
use crate::sim::run;

/// Largest |log10 error| of a ratio between two variants (a factor of 2).
pub const RATIO_TOLERANCE: f64 = 0.30;
/// Largest |log10 error| of an absolute value (a factor of 3).
pub const ABSOLUTE_TOLERANCE: f64 = 0.477_121_254_719_662_4;

#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// What was measured, e.g. `before (global)`.
    pub label: String,
    pub simulated: f64,
    pub published: f64,
    /// log10(simulated / published).
    pub log10_error: f64,
}

impl Measured {
    fn new(label: impl Into<String>, simulated: f64, published: f64) -> Measured {
        Measured { label: label.into(), simulated, published, log10_error: (simulated / published).log10() }
    }
}

/// One published row: two variants (e.g. before/after) and their ratio.
#[derive(Clone, Debug, Serialize)]
pub struct CalRow {
    pub id: String,
    pub unit: String,
    pub before: Measured,
    pub after: Measured,
    /// after / before, simulated and published (higher-is-better units).
    pub ratio_simulated: f64,
    pub ratio_published: f64,
    pub ratio_log10_error: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    pub rows: Vec<CalRow>,
    /// Groovy 2.4 measured here, beside the simulation under the runtime's own invalidation (see [`crate::groovy24`]).
    pub sweeps: Vec<SweepPoint>,
    pub checks: Vec<Check>,
}

impl Calibration {
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

fn check(name: impl Into<String>, ok: bool, detail: impl Into<String>) -> Check {
    Check { name: name.into(), ok, detail: detail.into() }
}

/// Simulated ops/ms of a preset under a policy.
pub fn throughput(p: &Preset, policy: Policy, params: &Params) -> f64 {
    run(&p.scenario(), policy, params).map(|r| r.ops_per_ms).unwrap_or(f64::NAN)
}

fn groovy_rows(params: &Params) -> Vec<CalRow> {
    presets::all()
        .iter()
        .filter_map(|p| {
            let published = p.published()?;
            let measured = |label: &str, policy: Policy| {
                let (figure, _) = published.for_policy(policy).expect("the published rows measured global and exact");
                Measured::new(format!("{label} ({policy})"), throughput(p, policy, params), figure)
            };
            Some(cal_row(p.id.to_string(), "ops/ms", measured("before", Policy::Global), measured("after", Policy::Exact)))
        })
        .collect()
}

fn row<'a>(rows: &'a [CalRow], id: &str) -> Option<&'a CalRow> {
    rows.iter().find(|r| r.id == id)
}

/// The shape facts of the published Groovy table (docs/DOMAIN.md, "What each seed measured").
fn groovy_shape(rows: &[CalRow]) -> Vec<Check> {
    let mut out = Vec::new();
    let get = |id: &str| row(rows, id);
    for id in ["hotLoop_baseline", "parentChild_baseline"] {
        if let Some(r) = get(id) {
            out.push(check(format!("{id}: after/before within 0.8..1.25"), (0.8..=1.25).contains(&r.ratio_simulated), format!("{:.3}", r.ratio_simulated)));
        }
    }
    let churn = ["hotLoop_unrelatedMetaClassChurn", "hotLoop_sameTypeMetaClassChurn", "hotLoop_categoryEnterLeave", "parentChild_parentMetaClassChurn"];
    let floors: Vec<f64> = churn.iter().filter_map(|id| get(id)).map(|r| r.before.simulated).collect();
    if floors.len() == churn.len() {
        let (lo, hi) = floors.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        out.push(check("global: the four churn rows lie within 2x of each other", hi / lo <= 2.0, format!("max/min = {:.2}", hi / lo)));
    }
    if let (Some(base), Some(unrel), Some(same), Some(burst)) =
        (get("hotLoop_baseline"), get("hotLoop_unrelatedMetaClassChurn"), get("hotLoop_sameTypeMetaClassChurn"), get("hotLoop_afterUnrelatedBurst"))
    {
        let b = base.after.simulated;
        let u = b / unrel.after.simulated;
        out.push(check("exact: unrelated churn 3x..30x below baseline", (3.0..=30.0).contains(&u), format!("{u:.1}x")));
        let s = b / same.after.simulated;
        out.push(check("exact: same-type churn 100x..400x below baseline", (100.0..=400.0).contains(&s), format!("{s:.1}x")));
        out.push(check("exact: after-burst at least baseline", burst.after.simulated >= b * (1.0 - 1e-9), format!("{} vs {}", burst.after.simulated, b)));
    }
    out
}

/// Tolerance checks every row gets.
fn row_checks(rows: &[CalRow]) -> Vec<Check> {
    let mut out = Vec::new();
    for r in rows {
        out.push(check(
            format!("{}: ratio within 2x of published", r.id),
            r.ratio_log10_error.abs() <= RATIO_TOLERANCE,
            format!("log10 error {:+.3}", r.ratio_log10_error),
        ));
        for m in [&r.before, &r.after] {
            out.push(check(
                format!("{}: {} within 3x of published", r.id, m.label),
                m.log10_error.abs() <= ABSOLUTE_TOLERANCE,
                format!("log10 error {:+.3}", m.log10_error),
            ));
        }
    }
    out
}

fn model_run(c: &ModelConfig, variant: &str) -> ModelReport {
    c.run(variant).unwrap_or_else(|e| panic!("calibration config is invalid: {e}"))
}

fn cal_row(id: String, unit: &str, before: Measured, after: Measured) -> CalRow {
    let ratio_simulated = after.simulated / before.simulated;
    let ratio_published = after.published / before.published;
    CalRow { id, unit: unit.into(), before, after, ratio_simulated, ratio_published, ratio_log10_error: (ratio_simulated / ratio_published).log10() }
}

/// The model variant each published record-deserialization variant corresponds to.
fn record_variant(published: &str) -> Option<&'static str> {
    match published {
        "before_fix" => Some("before-fix"),
        "after_fix" => Some("fifo"),
        "thrash" => Some("capacity-0"),
        _ => None,
    }
}

/// `data/jdk_record_deserialization.csv`: records vs plain classes per variant.
fn shape_rows(reference: &Reference) -> Vec<CalRow> {
    reference
        .records
        .iter()
        .map(|row| {
            let variant = record_variant(&row.variant).unwrap_or_else(|| panic!("no model variant for published variant `{}`", row.variant));
            let c = model_run(&rows::records(Objects::Classes, row.length), variant).value;
            let r = model_run(&rows::records(Objects::Records, row.length), variant).value;
            cal_row(
                format!("JDK-8247532 {} length={}", row.variant, row.length),
                "us/op",
                Measured::new("classes", c, row.classes_us),
                Measured::new("records", r, row.records_us),
            )
        })
        .collect()
}

/// `data/jdk_shared_arena_close.csv` and `data/jdk_shared_arena_scaling.csv`: the two gates per
/// thread role, and the thread-count scaling relative to the smallest published thread count.
fn arena_rows(reference: &Reference) -> Vec<CalRow> {
    let mut out = Vec::new();
    let group = rows::arena_three_threads();
    let (gated, free) = (model_run(&group, "scoped-access"), model_run(&group, "no-deopt"));
    let role = |r: &ModelReport, name: &str| r.roles.iter().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or(f64::NAN);
    let gate = |name: &str| reference.arena_gates.iter().find(|g| g.gate == name).unwrap_or_else(|| panic!("no published gate `{name}`"));
    let (published_free, published_gated) = (gate("no_deopt"), gate("deopt_if_scoped_access"));
    type Column = fn(&ArenaGateRow) -> f64;
    let columns: [(&str, &str, Column); 3] = [
        ("closing", "closing_us", |g| g.closing_us),
        ("memory-segment access", "memory_segment_access_us", |g| g.memory_segment_access_us),
        ("array access", "other_access_us", |g| g.other_access_us),
    ];
    for (name, column, published) in columns {
        out.push(cal_row(
            format!("JDK-8335480 {column}"),
            "us/op",
            Measured::new("no_deopt", role(&free, name), published(published_free)),
            Measured::new("deopt_if_scoped_access", role(&gated, name), published(published_gated)),
        ));
    }
    let Some((base, rest)) = reference.arena_scaling.split_first() else { return out };
    let base_threads = base.threads as usize;
    let simulated_base = model_run(&arena_scaling(base_threads), "scoped-access").value;
    for row in rest {
        let threads = row.threads as usize;
        let v = model_run(&arena_scaling(threads), "scoped-access").value;
        out.push(cal_row(
            format!("JDK-8335480 scaling {threads} threads vs {base_threads}"),
            "us/op",
            Measured::new(format!("{base_threads} threads"), simulated_base, base.shared_access_us),
            Measured::new(format!("{threads} threads"), v, row.shared_access_us),
        ));
    }
    out
}

/// The class and entry count a published value names: `empty TreeMap` or `TreeMap 12 entries`.
fn marshalled_value(value: &str) -> Option<(&str, u64)> {
    if let Some(class) = value.strip_prefix("empty ") {
        return Some((class, 0));
    }
    let (class, rest) = value.split_once(' ')?;
    Some((class, rest.strip_suffix(" entries")?.parse().ok()?))
}

/// `data/ignite_descriptor_cache.csv`: good vs broken for toBinary and put, and the fixed
/// release (`data/ignite_descriptor_cache_fixed.csv`). The get column is not modelled: the read
/// path needs the descriptor for some classes only (TreeSet reads are unaffected) and the report
/// does not say why.
fn descriptor_rows(reference: &Reference) -> Vec<CalRow> {
    // One row per operation: the value marshalled, the variant compared with `good`, its label
    // suffix, and the published (good, other) figures for toBinary and put.
    let mut pairs = Vec::new();
    for row in &reference.descriptor {
        pairs.push((&row.value, "broken", "", [(row.good_to_binary, row.broken_to_binary), (row.good_put, row.broken_put)]));
    }
    for fixed in &reference.descriptor_fixed {
        let good = reference.descriptor.iter().find(|d| d.value == fixed.value).unwrap_or_else(|| panic!("no good/broken row for `{}`", fixed.value));
        pairs.push((&fixed.value, "fixed", " fixed", [(good.good_to_binary, fixed.fixed_to_binary), (good.good_put, fixed.fixed_put)]));
    }
    let mut out = Vec::new();
    for (value, variant, suffix, figures) in pairs {
        let (class, entries) = marshalled_value(value).unwrap_or_else(|| panic!("published value `{value}` names no class"));
        for ((op, column), (good, other)) in [(Operation::ToBinary, "to_binary"), (Operation::Put, "put")].into_iter().zip(figures) {
            let c = rows::marshal(class, entries, op);
            out.push(cal_row(
                format!("IGNITE-29109 {value} {column}{suffix}"),
                "ns/op",
                Measured::new("good", model_run(&c, "good").value, good),
                Measured::new(variant, model_run(&c, variant).value, other),
            ));
        }
    }
    out
}

/// Run every published row and check it.
pub fn calibrate(params: &Params) -> Calibration {
    let reference = Reference::get();
    let mut rows = groovy_rows(params);
    rows.extend(shape_rows(reference));
    rows.extend(arena_rows(reference));
    rows.extend(descriptor_rows(reference));
    let mut checks = row_checks(&rows);
    checks.extend(groovy_shape(&rows));
    let sweeps = groovy24::points(&reference.groovy24_sweeps, params);
    checks.extend(sweep_checks(&sweeps));
    Calibration { rows, sweeps, checks }
}

/// Each measured Groovy 2.4 point within 2x, and each sweep's shape (direction of every step,
/// the steepest step) reproduced.
fn sweep_checks(points: &[SweepPoint]) -> Vec<Check> {
    let mut out = Vec::new();
    for sweep in groovy24::SIMULATED {
        let pts: Vec<&SweepPoint> = points.iter().filter(|p| p.sweep == sweep).collect();
        if pts.is_empty() {
            continue;
        }
        let worst = pts.iter().map(|p| p.log10_error).max_by(|a, b| a.abs().total_cmp(&b.abs())).unwrap_or(0.0);
        out.push(check(
            format!("groovy 2.4 {sweep}: every point within 2x of measured"),
            worst.abs() <= RATIO_TOLERANCE,
            format!("worst log10 error {worst:+.3}"),
        ));
        let measured =
            groovy24::measured_shape(&pts.iter().map(|p| p.measured_ns).collect::<Vec<_>>(), &pts.iter().map(|p| p.measured_iqr_ns).collect::<Vec<_>>());
        let simulated = groovy24::shape(&pts.iter().map(|p| p.simulated_ns).collect::<Vec<_>>());
        let ok = groovy24::same_shape(&measured, &simulated);
        let steps = |s: &groovy24::Shape| s.steps.iter().map(|st| st.word()).collect::<Vec<_>>().join(" ");
        let knee = |s: &groovy24::Shape| s.steepest.map_or("none".to_string(), |k| format!("{}->{}", pts[k].param, pts[k + 1].param));
        out.push(check(
            format!("groovy 2.4 {sweep}: shape reproduced (steps, steepest step)"),
            ok,
            format!("measured {} knee {}; simulated {} knee {}", steps(&measured), knee(&measured), steps(&simulated), knee(&simulated)),
        ));
    }
    out
}
