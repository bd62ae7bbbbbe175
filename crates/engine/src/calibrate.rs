//! Calibration against published measurements: every row of the reference tables the engine
//! reproduces, with the tolerances the project holds itself to.

use serde::Serialize;

use crate::params::Params;
use crate::policy::Policy;
use crate::presets::{self, Preset};
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
            let published = p.published?;
            let before = Measured::new("before (global)", throughput(p, Policy::Global, params), published.before);
            let after = Measured::new("after (exact)", throughput(p, Policy::Exact, params), published.after);
            let ratio_simulated = after.simulated / before.simulated;
            let ratio_published = published.after / published.before;
            Some(CalRow {
                id: p.id.to_string(),
                unit: "ops/ms".into(),
                before,
                after,
                ratio_simulated,
                ratio_published,
                ratio_log10_error: (ratio_simulated / ratio_published).log10(),
            })
        })
        .collect()
}

fn row<'a>(rows: &'a [CalRow], id: &str) -> Option<&'a CalRow> {
    rows.iter().find(|r| r.id == id)
}

/// The shape facts of the published Groovy table (DOMAIN.md section 1).
fn groovy_shape(rows: &[CalRow]) -> Vec<Check> {
    let mut out = Vec::new();
    let get = |id: &str| row(rows, id);
    for id in ["hotLoop_baseline", "parentChild_baseline"] {
        if let Some(r) = get(id) {
            out.push(check(
                format!("{id}: after/before within 0.8..1.25"),
                (0.8..=1.25).contains(&r.ratio_simulated),
                format!("{:.3}", r.ratio_simulated),
            ));
        }
    }
    let churn = ["hotLoop_unrelatedMetaClassChurn", "hotLoop_sameTypeMetaClassChurn", "hotLoop_categoryEnterLeave", "parentChild_parentMetaClassChurn"];
    let floors: Vec<f64> = churn.iter().filter_map(|id| get(id)).map(|r| r.before.simulated).collect();
    if floors.len() == churn.len() {
        let (lo, hi) = floors.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        out.push(check("global: the four churn rows lie within 2x of each other", hi / lo <= 2.0, format!("max/min = {:.2}", hi / lo)));
    }
    if let (Some(base), Some(unrel), Some(same), Some(burst)) = (
        get("hotLoop_baseline"),
        get("hotLoop_unrelatedMetaClassChurn"),
        get("hotLoop_sameTypeMetaClassChurn"),
        get("hotLoop_afterUnrelatedBurst"),
    ) {
        let b = base.after.simulated;
        let u = b / unrel.after.simulated;
        out.push(check("exact: unrelated churn 3x..30x below baseline", (3.0..=30.0).contains(&u), format!("{u:.1}x")));
        let s = b / same.after.simulated;
        out.push(check("exact: same-type churn 100x..400x below baseline", (100.0..=400.0).contains(&s), format!("{s:.1}x")));
        out.push(check(
            "exact: after-burst at least baseline",
            burst.after.simulated >= b * (1.0 - 1e-9),
            format!("{} vs {}", burst.after.simulated, b),
        ));
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

/// Run every published row and check it.
pub fn calibrate(params: &Params) -> Calibration {
    let rows = groovy_rows(params);
    let mut checks = row_checks(&rows);
    checks.extend(groovy_shape(&rows));
    Calibration { rows, checks }
}
