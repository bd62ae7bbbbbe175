//! What the UI and the CLI read from a simulation: its clock, per-site outcomes, the records,
//! the what-if preview, and the final report.

use crate::policy::{self, Policy};
use crate::report::{
    DeoptRecord, EventRecord, Naming, Phase, RelinkRecord, RelinkTotals, RunReport, SiteId, SiteReport, SiteState, SiteStats, TimelinePoint, UnitReport,
    WorldNames,
};
use crate::world::ClassId;

use super::link::Key;
use super::Simulation;

impl Simulation {
    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn now_ms(&self) -> f64 {
        self.now_ns / 1e6
    }

    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Loop iterations executed so far (warm-up included).
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Events fired so far (the records keep only the first few thousand).
    pub fn events_total(&self) -> usize {
        self.events_total
    }

    /// Categories active now, innermost last.
    pub fn active_categories(&self) -> Vec<String> {
        self.world.active_categories.iter().map(|&c| self.world.category_names[c].clone()).collect()
    }

    /// Whether `class` exists and is loaded now (program-loaded classes start unloaded).
    pub fn is_loaded(&self, class: &str) -> bool {
        self.world.class_id(class).is_some_and(|c| self.world.loaded(c))
    }

    /// Per-site outcomes so far (cheap: no log copies).
    pub fn sites_now(&self) -> Vec<SiteReport> {
        (0..self.sites.len()).map(|i| self.site_report(i)).collect()
    }

    /// Event records from index `from` on (records are capped at the first few thousand).
    pub fn events_since(&self, from: usize) -> &[EventRecord] {
        &self.events[from.min(self.events.len())..]
    }

    /// Relink records from index `from` on.
    pub fn relinks_since(&self, from: usize) -> &[RelinkRecord] {
        &self.relinks[from.min(self.relinks.len())..]
    }

    pub fn relink_totals(&self) -> RelinkTotals {
        RelinkTotals { necessary: self.relinks_total[0], collateral: self.relinks_total[1], missed: self.relinks_total[2] }
    }

    pub fn timeline(&self) -> Vec<TimelinePoint> {
        self.timeline.points()
    }

    /// How many sites the simulation has (site ids are `0..site_count()`, declaration order).
    pub fn site_count(&self) -> usize {
        self.sites.len()
    }

    /// Site `i`'s counters so far, without its report's text (a UI polls these per frame).
    pub fn site_stats(&self, i: usize) -> SiteStats {
        let site = &self.sites[i];
        let c = site.counts;
        let stale = self.stale.get(&(i as u32)).copied().unwrap_or_default();
        let steady = site.steady.map_or(0, |st| u64::from(st.calls_per_iteration.get()) * (self.iterations - st.since));
        SiteStats {
            fast_calls: c.fast_calls + steady,
            pic_calls: c.pic_calls,
            selections: c.selections,
            fallback_calls: c.fallback_calls,
            stale_calls: stale.calls,
            necessary: u64::from(c.necessary),
            collateral: u64::from(c.collateral),
            missed: stale.missed,
            evictions: site.poly().map_or(0, |p| self.polys[p].evictions),
        }
    }

    /// Site `i`'s outcome so far, with its names and target as text.
    pub fn site_report(&self, i: usize) -> SiteReport {
        let st = &self.sites[i];
        SiteReport {
            name: self.site_names.get(i).to_string(),
            class: self.world.classes[st.receiver()].name.to_string(),
            method: self.methods[st.method as usize].clone(),
            state: self.site_state(i),
            target: self.target_text(&st.true_target()),
            stats: self.site_stats(i),
            receivers: st.poly().map_or_else(Vec::new, |p| self.polys[p].report(&self.world)),
        }
    }

    /// The report so far (copies the records; [`Simulation::run`] moves them instead).
    pub fn report(&self) -> RunReport {
        self.report_with(self.events.clone(), self.relinks.clone())
    }

    pub(super) fn into_report(mut self) -> RunReport {
        let events = std::mem::take(&mut self.events);
        let relinks = std::mem::take(&mut self.relinks);
        self.report_with(events, relinks)
    }

    /// Mean virtual ms per measured op so far (NaN before the first).
    fn ms_per_op(&self) -> f64 {
        let measured_ms: f64 = self.op_ms.iter().sum();
        let ops = self.op_ms.len() as f64;
        if ops > 0.0 {
            measured_ms / ops
        } else {
            f64::NAN
        }
    }

    /// Mean throughput over the measured ops so far (the report's figure once finished).
    pub fn ops_per_ms(&self) -> f64 {
        let ms_per_op = self.ms_per_op();
        if ms_per_op > 0.0 {
            1.0 / ms_per_op
        } else {
            f64::INFINITY
        }
    }

    fn report_with(&self, events: Vec<EventRecord>, relinks: Vec<RelinkRecord>) -> RunReport {
        RunReport {
            scenario: self.name.clone(),
            policy: self.policy,
            ops_per_ms: self.ops_per_ms(),
            ms_per_op: self.ms_per_op(),
            op_ms: self.op_ms.clone(),
            iterations_per_op: self.iterations_per_op,
            virtual_ms: self.now_ns / 1e6,
            sites: self.sites_now(),
            events,
            events_total: self.events_total,
            relinks,
            relink_totals: self.relink_totals(),
            timeline: self.timeline.points(),
            units: self.units.report(),
            deopts: self.units.deopts.clone(),
            names: WorldNames { classes: self.world.classes.iter().map(|c| c.name.to_string()).collect(), categories: self.world.category_names.clone() },
        }
    }

    /// The compilation units right now (loops' methods, event code that ran), for the blast view.
    pub fn units_now(&self) -> Vec<UnitReport> {
        self.units.report()
    }

    /// The sites loop `l`'s compiled code would inline (see [`UnitReport::loop_index`]), in
    /// site order without repeats: what a UI draws as the unit's dependencies. Fixed for the
    /// run; made on each call (a UI asks once per unit), so no table per loop and site is kept.
    pub fn loop_calls(&self, l: usize) -> Vec<SiteId> {
        let mut sites: Vec<SiteId> = self.program.loops[l].calls.iter().map(|&s| s as SiteId).collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }

    /// Deoptimization records from index `from` on (the UI polls with the count it has seen).
    pub fn deopts_since(&self, from: usize) -> &[DeoptRecord] {
        self.units.deopts.get(from..).unwrap_or(&[])
    }

    /// The id of the site named `name` (a scan over the names: for the UI's selection, not loops).
    pub fn site_id(&self, name: &str) -> Option<SiteId> {
        (0..self.sites.len()).find(|&s| self.site_names.get(s) == name)
    }

    /// The visible state of a site right now (for the blast view).
    pub fn site_state(&self, s: usize) -> SiteState {
        self.sites[s].state(&self.domains, &self.polys)
    }

    /// Which sites a class-attributed write on `class` would retire now (the what-if view).
    pub fn what_if_write(&self, class: &str) -> Vec<String> {
        let Some(c) = self.world.class_id(class) else { return Vec::new() };
        let Some(scope) = policy::what_if_write_scope(self.policy, &self.world, c) else { return Vec::new() };
        let mut hit: Vec<usize> = scope
            .keys
            .iter()
            .flat_map(|&k| self.domains.dependents(k).iter().map(move |&s| (k, s as usize)))
            .filter(|&(k, s)| self.sites[s].holds(Key::new(k), &self.polys))
            .map(|(_, s)| s)
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.into_iter().map(|s| self.site_names.get(s).to_string()).collect()
    }
}

/// Names for the ids in this simulation's records, as the world is now (a class loaded by hand
/// has its name from then on).
impl Naming for Simulation {
    fn site_name(&self, s: SiteId) -> &str {
        self.site_names.get(s)
    }
    fn class_name(&self, c: ClassId) -> &str {
        &self.world.classes[c].name
    }
    fn category_name(&self, c: usize) -> &str {
        &self.world.category_names[c]
    }
    fn event_label(&self, e: usize) -> Option<&str> {
        // Records are kept in id order from 0 (then capped), so an id is its index.
        self.events.get(e).map(|r| r.label.as_str())
    }
}
