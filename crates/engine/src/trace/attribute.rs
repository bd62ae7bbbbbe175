//! Each mutation's blast radius: the sites and code units whose invalidations were attributed
//! to it, and how (exactly, or by order), grouped by source file or class for the report.

use serde::Serialize;

use super::{Attribution, SiteId, Trace, UnitId};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BlastRadius {
    /// Index into [`Trace::mutations`].
    pub mutation: u32,
    /// Distinct sites invalidated, ascending.
    pub sites: Vec<SiteId>,
    /// Distinct code units invalidated, ascending.
    pub units: Vec<UnitId>,
    pub invalidations: u32,
    pub exact: u32,
    pub by_order: u32,
}

/// Sites and units of one blast radius under one source file (V8), sender class (Groovy) or
/// holder class (HotSpot).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub name: String,
    pub sites: u32,
    pub units: u32,
    /// The functions or methods invalidated in this group, in first-seen order.
    pub functions: Vec<String>,
}

/// One blast radius per mutation, in log order.
pub fn blast_radii(t: &Trace) -> Vec<BlastRadius> {
    let mut out: Vec<BlastRadius> = (0..t.mutations.len() as u32).map(|mutation| BlastRadius { mutation, ..BlastRadius::default() }).collect();
    for inv in &t.invalidations {
        let Some(c) = inv.cause else { continue };
        let Some(r) = out.get_mut(c.mutation as usize) else { continue };
        r.invalidations += 1;
        match c.attribution {
            Attribution::Exact => r.exact += 1,
            Attribution::ByOrder => r.by_order += 1,
        }
        r.sites.extend(inv.site);
        r.units.extend(inv.unit);
    }
    for r in &mut out {
        r.sites.sort_unstable();
        r.sites.dedup();
        r.units.sort_unstable();
        r.units.dedup();
    }
    out
}

impl BlastRadius {
    /// The radius grouped by source file / class, groups in first-seen order.
    pub fn groups(&self, t: &Trace) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        let mut at = |name: &str| -> usize {
            match groups.iter().position(|g| g.name == name) {
                Some(i) => i,
                None => {
                    groups.push(Group { name: name.to_string(), sites: 0, units: 0, functions: Vec::new() });
                    groups.len() - 1
                }
            }
        };
        let note = |g: &mut Group, f: &str| {
            if !g.functions.iter().any(|x| x == f) {
                g.functions.push(f.to_string());
            }
        };
        let mut places: Vec<(usize, Option<String>, bool)> = Vec::new();
        for &s in &self.sites {
            let site = &t.sites[s as usize];
            let name = match &site.key {
                super::SiteKey::Sender { method, .. } => Some(method.clone()),
                super::SiteKey::Source { .. } => site.function.clone(),
            };
            places.push((at(site.group()), name, true));
        }
        for &u in &self.units {
            let unit = &t.units[u as usize];
            let file = super::fields::position(&unit.source).map(|(f, _, _)| f).unwrap_or(&unit.source);
            places.push((at(file), Some(unit.name.clone()), false));
        }
        for (g, f, is_site) in places {
            let group = &mut groups[g];
            if is_site {
                group.sites += 1;
            } else {
                group.units += 1;
            }
            // Groovy's own casts select a method with no name.
            if let Some(f) = f.filter(|f| !f.is_empty()) {
                note(group, &f);
            }
        }
        groups
    }
}
