//! Invalidation policies: which domain guards a link, and which domains an event retires.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::names::{named, UnknownName};

use crate::world::ClassId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    /// One process-wide domain (Groovy before GROOVY-12191): every event retires every site.
    Global,
    /// Per-class domains; class-attributed events retire the class only (the merged design).
    Exact,
    /// Per-class domains; class-attributed events retire the class and all its subclasses.
    Hierarchy,
    /// The intermediate design: hierarchy fan-out for expando changes, exact for stock replaces.
    HierarchyV3,
    /// Retires exactly the sites whose resolved target changed: the lower bound.
    Ideal,
}

impl Policy {
    pub const ALL: [Policy; 5] = [Policy::Global, Policy::Exact, Policy::Hierarchy, Policy::HierarchyV3, Policy::Ideal];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Global => "global",
            Policy::Exact => "exact",
            Policy::Hierarchy => "hierarchy",
            Policy::HierarchyV3 => "hierarchy-v3",
            Policy::Ideal => "ideal",
        }
    }

    /// Does a class-attributed change of this kind fan out to subclasses?
    pub fn fans_out(self, change: ChangeKind) -> bool {
        match self {
            Policy::Hierarchy => true,
            Policy::HierarchyV3 => change == ChangeKind::Expando,
            Policy::Global | Policy::Exact | Policy::Ideal => false,
        }
    }
}

/// What kind of class-attributed change an event makes (for `hierarchy-v3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// In-place expando add, or installing an expando.
    Expando,
    /// Replacing or removing a stock metaclass, or a per-instance metaclass.
    Stock,
}

/// A policy list that names no policy, or a name that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyError {
    Unknown(UnknownName),
    NoneGiven,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Unknown(e) => write!(f, "{e}"),
            PolicyError::NoneGiven => write!(f, "no policy given"),
        }
    }
}

impl std::error::Error for PolicyError {}

named!(Policy, "policy");

/// Parse `global,exact` into policies (duplicates dropped, order kept).
pub fn parse_policies(list: &str) -> Result<Vec<Policy>, PolicyError> {
    let mut out = Vec::new();
    for p in list.split(',').filter(|s| !s.trim().is_empty()) {
        let p: Policy = p.trim().parse().map_err(PolicyError::Unknown)?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(PolicyError::NoneGiven);
    }
    Ok(out)
}

/// A switch point. Links record the key and the epoch they saw; retiring bumps the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum DomainKey {
    Global,
    /// A class's domain before it has a class-level metaclass.
    Pending(ClassId),
    Class(ClassId),
    /// The ideal policy's per-site domain.
    Site(usize),
}
