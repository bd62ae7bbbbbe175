//! Running one scenario under several policies, and what differs between them.

use serde::Serialize;

use crate::params::Params;
use crate::policy::Policy;
use crate::report::RunReport;
use crate::sim::Simulation;
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
/// peak is one simulation's tables.
pub fn compare(s: Scenario, policies: &[Policy], params: &Params) -> Result<Comparison, ScenarioError> {
    Ok(Comparison { runs: Simulation::run_each(s, policies, params)? })
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
