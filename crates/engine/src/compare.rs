//! Running one scenario under several policies, and what differs between them.

use serde::Serialize;

use crate::params::Params;
use crate::policy::Policy;
use crate::report::RunReport;
use crate::sim::{Prepared, Simulation};
use crate::{Scenario, ScenarioError};

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub runs: Vec<RunReport>,
}

/// Sites relinked under `a` but never under `b` (collateral that `b` avoided), with counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SiteDiff {
    pub site: String,
    pub relinks_a: u64,
    pub relinks_b: u64,
}

/// Run `s` under each policy. The scenario is taken: it is validated and bounded once, then
/// dropped, and the policies run one at a time ([`Simulation::run_each`]), so a big scenario's
/// peak is one simulation's tables. The reports are all kept: a caller that prints them one
/// by one uses [`prepare`] and [`Ready::runs`] and drops each report before the next run.
pub fn compare(s: Scenario, policies: &[Policy], params: &Params) -> Result<Comparison, ScenarioError> {
    Ok(Comparison { runs: Simulation::run_each(s, policies, params)? })
}

/// A scenario validated, bounded and compiled once, ready to run under its policies; the
/// scenario itself is dropped here. Refusals (validation, admission) happen in [`prepare`],
/// before any run, so a caller can refuse before it prints anything.
pub struct Ready {
    prepared: Prepared,
    policies: Vec<Policy>,
    params: Params,
}

/// Take `s` and prepare it for [`Ready::runs`] under each of `policies` with `params`.
pub fn prepare(s: Scenario, policies: &[Policy], params: &Params) -> Result<Ready, ScenarioError> {
    let prepared = Prepared::of(&s, params, policies)?;
    drop(s);
    Ok(Ready { prepared, policies: policies.to_vec(), params: params.clone() })
}

impl Ready {
    /// One report per policy, in the order given, each run when it is asked for. Each run
    /// builds its simulation from a copy of the prepared part, so runs are independent and at
    /// most one simulation is alive; a report is the caller's to drop before asking for the
    /// next.
    pub fn runs(&self) -> impl Iterator<Item = RunReport> + '_ {
        self.policies.iter().map(|&p| Simulation::build(self.prepared.clone(), p, &self.params).run())
    }
}

impl Comparison {
    pub fn get(&self, p: Policy) -> Option<&RunReport> {
        self.runs.iter().find(|r| r.policy == p)
    }

    /// Throughput ratio `a / b`.
    pub fn ratio(&self, a: Policy, b: Policy) -> Option<f64> {
        Some(self.get(a)?.ops_per_ms / self.get(b)?.ops_per_ms)
    }

    /// Sites whose relink counts differ between two policies.
    pub fn site_diff(&self, a: Policy, b: Policy) -> Vec<SiteDiff> {
        let (Some(ra), Some(rb)) = (self.get(a), self.get(b)) else { return Vec::new() };
        ra.sites
            .iter()
            .zip(&rb.sites)
            .filter(|(x, y)| x.stats.relinks() != y.stats.relinks())
            .map(|(x, y)| SiteDiff { site: x.name.clone(), relinks_a: x.stats.relinks(), relinks_b: y.stats.relinks() })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn runs_from_one_preparation_equal_the_comparison_of_every_policy() {
        for p in presets::all() {
            let all = compare(p.scenario(), &Policy::ALL, &Params::default()).unwrap();
            let ready = prepare(p.scenario(), &Policy::ALL, &Params::default()).unwrap();
            let mut runs = 0;
            for (report, expected) in ready.runs().zip(&all.runs) {
                assert!(report == *expected, "{} under {}", p.id, expected.policy);
                runs += 1;
            }
            assert_eq!(runs, Policy::ALL.len());
        }
    }
}
