//! Replaying a log of class loads (HotSpot's `-XX:+LogCompilation`) over its compiled code
//! units: a class load's blast radius is compiled code, not call sites. From the log: the
//! units with the class assumptions each was compiled on (`<dependency type= ctxk= x=>` in its
//! `<task>`), when each was compiled and made not entrant, and the class loads in order (the
//! witnesses of `<dependency_failed>`); from the capture's class tree ([`super::classes`]): the
//! loaded classes' supertypes, kinds and methods, which the log does not say.
//!
//! Per class load, the units live at it (compiled before, not yet made not entrant, holding at
//! least one assumption) are set against the policies: a unit is retired when one of its
//! assumptions is retired ([`crate::policy::load_retires`], from where the assumption's context
//! class stands to the loaded class and whether the load breaks it, [`super::cha`]). The
//! observed scope is the units the reader attributed to the load (their `<make_not_entrant>`).
//! Only loads that broke something are in the log (a `dependency_failed` names them); a load
//! that broke nothing leaves no line, so global's extra retirements at those loads are not
//! counted.

use super::classes::Tree;
use super::replay::{score, MutationReplay, Replay, ReplayError, Score, Subject, MAX_REPLAY};
use super::{blast_radii, cha, InvalidationKind, MutationKind, Trace, UnitId};
use crate::policy::load_retires;
use crate::Policy;

pub(super) fn replay_units(t: &Trace) -> Result<Replay, ReplayError> {
    let mutations: Vec<u32> = (0..t.mutations.len() as u32).filter(|&m| t.mutations[m as usize].kind == MutationKind::ClassLoad).collect();
    let units: Vec<UnitId> = (0..t.units.len() as UnitId).filter(|&u| !t.units[u as usize].deps.is_empty()).collect();
    if units.len() > MAX_REPLAY || mutations.len() > MAX_REPLAY {
        return Err(ReplayError::TooBig { sites: units.len(), mutations: mutations.len() });
    }
    let tree = Tree::new(&t.classes);
    if let Some(m) = mutations.iter().map(|&m| &t.mutations[m as usize]).find(|m| tree.get(&m.class).is_none()) {
        return Err(ReplayError::NoClassTree { class: m.class.clone() });
    }
    let policies: Vec<Policy> = Policy::ALL.into_iter().filter(|&p| load_retires(p, crate::policy::LoadReach::Direct, false).is_some()).collect();
    // When each unit stopped being entrant (its first `make_not_entrant`), by log position.
    let mut gone = vec![None; t.units.len()];
    for inv in t.invalidations.iter().filter(|i| i.kind == InvalidationKind::NotEntrant) {
        if let Some(u) = inv.unit {
            gone[u as usize] = gone[u as usize].or(Some(inv.at));
        }
    }
    let radii = blast_radii(t);
    let mut out = Vec::new();
    let mut totals = vec![Score::default(); policies.len()];
    let mut unmodeled_observed = 0;
    for &m in &mutations {
        let load = &t.mutations[m as usize];
        let live: Vec<UnitId> = units.iter().copied().filter(|&u| t.units[u as usize].at < load.at && gone[u as usize].is_none_or(|g| g >= load.at)).collect();
        let observed: Vec<UnitId> = radii[m as usize].units.iter().copied().filter(|u| live.contains(u)).collect();
        unmodeled_observed += (radii[m as usize].units.len() - observed.len()) as u32;
        let mut predicted = Vec::new();
        let mut scores = Vec::new();
        for (p, &policy) in policies.iter().enumerate() {
            let hit: Vec<UnitId> = live
                .iter()
                .copied()
                .filter(|&u| {
                    t.units[u as usize].deps.iter().any(|d| {
                        let reach = cha::reach(&tree, &d.ctxk, &load.class);
                        load_retires(policy, reach, cha::breaks(&tree, d, &load.class)) == Some(true)
                    })
                })
                .collect();
            let s = score(&hit, &observed);
            totals[p].add(s);
            predicted.push(hit);
            scores.push(s);
        }
        out.push(MutationReplay { mutation: m, linked: live.len() as u32, observed, predicted, scores });
    }
    Ok(Replay { text: String::new(), subject: Subject::Units, policies, sites: Vec::new(), units, mutations: out, totals, unmodeled_observed })
}
