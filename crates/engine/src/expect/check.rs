//! Validation of the `expect` lines: every name resolves and every number means something.
//! Errors carry model paths (`expectations[2].sites[1]`) that the DSL maps to `line:col`.

use crate::fxhash::FxSet as HashSet;
use crate::policy::Policy;
use crate::reference;
use crate::scenario::Scenario;
use crate::validate::{is_ident, ScenarioError, SiteIndex};

use super::spec::{EventPattern, Expectation, FigureRef, Metric, SiteClaim, Subject, ANY_NAME};

/// At most this many `expect` lines (each may run the scenario under up to every policy).
pub const MAX_EXPECTATIONS: usize = 10_000;
/// Sites one expectation lists (`relinks [a, b, ..]`), and all expectations together: a list is
/// checked for repeats pairwise, and every name is held by the model.
pub const MAX_LISTED_SITES: usize = 1_000;
pub const MAX_LISTED_TOTAL: usize = 100_000;
/// A `within` tolerance above this says nothing.
pub const MAX_TOLERANCE_PCT: u64 = 1_000;

/// The names a scenario declares (classes include the ones its program loads).
pub struct Declared<'a> {
    pub classes: &'a HashSet<&'a str>,
    pub sites: &'a SiteIndex<'a>,
    pub categories: &'a HashSet<&'a str>,
}

fn err<T>(path: String, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::at_path(path, msg))
}

pub fn check(s: &Scenario, names: &Declared) -> Result<(), ScenarioError> {
    if s.expectations.len() > MAX_EXPECTATIONS {
        return err("expectations".into(), format!("{} expectations; at most {MAX_EXPECTATIONS} are supported", s.expectations.len()));
    }
    let mut listed = 0usize;
    for (i, e) in s.expectations.iter().enumerate() {
        if let Expectation::Relinks { sites, .. } = e {
            let n = sites.sites().len();
            listed += n;
            if n > MAX_LISTED_SITES {
                return err(format!("expectations[{i}].sites[{MAX_LISTED_SITES}]"), format!("an expectation lists {n} sites; at most {MAX_LISTED_SITES}"));
            }
            if listed > MAX_LISTED_TOTAL {
                return err(format!("expectations[{i}].sites"), format!("the expectations list more than {MAX_LISTED_TOTAL} sites in all"));
            }
        }
        check_one(e, &format!("expectations[{i}]"), names)?;
    }
    Ok(())
}

fn check_one(e: &Expectation, path: &str, names: &Declared) -> Result<(), ScenarioError> {
    match e {
        Expectation::Relinks { policies, event, sites } => {
            check_policies(policies, path)?;
            check_pattern(event, path, names)?;
            if matches!(sites, SiteClaim::All(l) | SiteClaim::NoneOf(l) | SiteClaim::Only(l) if l.is_empty()) {
                return err(format!("{path}.sites"), "an empty site list; to say no site is relinked, write `relinks nothing`");
            }
            for (j, site) in sites.sites().iter().enumerate() {
                if !names.sites.contains(site.as_str()) {
                    return err(format!("{path}.sites[{j}]"), format!("unknown site `{site}`"));
                }
                if sites.sites()[..j].contains(site) {
                    return err(format!("{path}.sites[{j}]"), format!("site `{site}` is listed twice"));
                }
            }
        }
        Expectation::Value { policies, metric, site, value, per_event, .. } => {
            check_policies(policies, path)?;
            if *metric == Metric::Ops && (site.is_some() || *per_event) {
                let (what, field) = if site.is_some() { ("`at SITE`", "site") } else { ("`per event`", "value") };
                return err(
                    format!("{path}.{field}"),
                    format!("`ops` is one figure per run; {what} goes with a count (relinks, necessary, collateral, missed, deopts)"),
                );
            }
            if *metric == Metric::Deopts && site.is_some() {
                return err(
                    format!("{path}.site"),
                    "`deopts` counts compiled code of the whole run (a loop's method deoptimized), not a site's; drop `at SITE`",
                );
            }
            if let Some(site) = site {
                if !names.sites.contains(site.as_str()) {
                    return err(format!("{path}.site"), format!("unknown site `{site}`"));
                }
            }
            if metric.is_count() && !per_event && !value.is_whole() {
                return err(format!("{path}.value"), format!("`{metric}` is a count; {value} is not a whole number (a fraction goes with `per event`)"));
            }
        }
        Expectation::Ratio { a, b, factor, .. } => {
            check_pair(*a, *b, path)?;
            if factor.units == 0 {
                return err(format!("{path}.factor"), "a ratio bound must be greater than 0");
            }
        }
        Expectation::Order { a, b, .. } => check_pair(*a, *b, path)?,
        Expectation::Figure { subject, metric, tolerance_pct, reference } => {
            let policies = match subject {
                Subject::Run { policies } => {
                    check_policies(policies, path)?;
                    policies.clone()
                }
                Subject::Ratio { a, b } => {
                    check_pair(*a, *b, path)?;
                    vec![*a, *b]
                }
            };
            if tolerance_pct.units == 0 || tolerance_pct.value() > MAX_TOLERANCE_PCT as f64 {
                return err(format!("{path}.tolerance_pct"), format!("a tolerance must be more than 0% and at most {MAX_TOLERANCE_PCT}%"));
            }
            match reference {
                FigureRef::Given(d) if d.units == 0 => return err(format!("{path}.reference"), "a reference figure must be greater than 0"),
                FigureRef::Given(_) => {}
                FigureRef::Published(row) => check_published(row, *metric, &policies, path)?,
            }
        }
    }
    Ok(())
}

fn check_policies(policies: &[Policy], path: &str) -> Result<(), ScenarioError> {
    if policies.is_empty() {
        return err(path.to_string(), "an expectation names at least one policy (`under exact:`)");
    }
    for (j, p) in policies.iter().enumerate() {
        if policies[..j].contains(p) {
            return err(format!("{path}.policies[{j}]"), format!("policy `{p}` is named twice"));
        }
    }
    Ok(())
}

fn check_pair(a: Policy, b: Policy, path: &str) -> Result<(), ScenarioError> {
    if a == b {
        return err(format!("{path}.b"), format!("comparing `{a}` with itself says nothing"));
    }
    Ok(())
}

fn check_pattern(p: &EventPattern, path: &str, names: &Declared) -> Result<(), ScenarioError> {
    let name_path = || format!("{path}.event.name");
    let known = |set: &HashSet<&str>, name: &str| name == ANY_NAME || set.contains(name);
    match p {
        EventPattern::Write { class, .. }
        | EventPattern::Replace { class }
        | EventPattern::Remove { class }
        | EventPattern::Instance { class }
        | EventPattern::Load { class } => {
            if !known(names.classes, class) {
                return err(name_path(), format!("unknown class `{class}`"));
            }
        }
        EventPattern::Use { category } | EventPattern::Enter { category } | EventPattern::Leave { category } => {
            if !known(names.categories, category) {
                return err(name_path(), format!("unknown category `{category}`"));
            }
        }
        EventPattern::InvalidateAll | EventPattern::Unattributed | EventPattern::Any => {}
    }
    if let EventPattern::Write { method, .. } = p {
        // Any name the DSL reads back: a JSON pattern like `ba{e` printed as text would not parse.
        if method != ANY_NAME && !is_ident(method) {
            return err(format!("{path}.event.method"), format!("method `{method}` is not a valid name"));
        }
    }
    Ok(())
}

/// `of published ROW` needs a published row of that name, a policy that was measured, and the
/// throughput (the rows give nothing else).
fn check_published(row_name: &str, metric: Metric, policies: &[Policy], path: &str) -> Result<(), ScenarioError> {
    let reference = format!("{path}.reference");
    if metric != Metric::Ops {
        return err(reference, format!("the published rows give throughput only; compare `ops`, not `{metric}`"));
    }
    let Some(row) = reference::groovy_row(row_name) else {
        let rows: Vec<&str> = reference::groovy_rows().iter().map(|r| r.benchmark.as_str()).collect();
        return err(format!("{reference}.row"), format!("no published row `{row_name}` (rows: {})", rows.join(", ")));
    };
    if let Some(p) = policies.iter().find(|p| row.for_policy(**p).is_none()) {
        return err(reference, format!("no published figure for `{p}`: only global (before GROOVY-12191) and exact (after) were measured"));
    }
    Ok(())
}
