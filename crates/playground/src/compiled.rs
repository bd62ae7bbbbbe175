//! Compiled code in the playground: per lane, the compilation units the engine tracks
//! (each loop's method, the event code), which flash when a retirement deoptimizes them, and the
//! deoptimizations as text for the why panel's chain (event -> domain -> site -> compiled unit
//! deoptimized -> recompiled after N iterations) and the charts' deopt marks.
//!
//! The engine does the counting (`blast_engine::sim::units`); this module only keeps what a
//! lane has seen between frames, so a new deoptimization restarts its unit's flash. No browser
//! needed: tested natively.

use std::rc::Rc;

use blast_engine::jit::Tier;
use blast_engine::report::{DeoptText, Naming, SiteId};
use blast_engine::sim::UnitReport;
use blast_engine::Simulation;

use crate::format;

/// A compilation unit as the blast view draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitView {
    pub report: UnitReport,
    /// The sites its C2 code inlines, by id (the lane's `names` name them), in id order, for
    /// the chip and the why panel; none for event code. Ids, not names: a loop may call 10^6
    /// sites, and the page decoded their names for every lane in one task (~45 ms of CPU at
    /// 240,000 sites, CPU profile of e2e `scale`'s 9 MB paste).
    pub inlines: Rc<Vec<SiteId>>,
    /// Frame number of its latest deoptimization; a new value restarts the flash (0: never).
    pub flash: u64,
}

impl UnitView {
    pub fn is_loop(&self) -> bool {
        self.report.loop_index.is_some()
    }

    pub fn inlines_site(&self, site: SiteId) -> bool {
        self.inlines.binary_search(&site).is_ok()
    }

    /// The names of the sites it inlines, in id order (`names`: the lane's).
    pub fn inlined_names<'a>(&'a self, names: &'a [String]) -> impl Iterator<Item = &'a str> {
        self.inlines.iter().filter_map(|&i| names.get(i).map(String::as_str))
    }
}

/// One lane's compiled code right now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompiledView {
    pub units: Vec<UnitView>,
    /// Every deoptimization the engine recorded (it keeps the first 2 000), oldest first.
    pub deopts: Rc<Vec<DeoptText>>,
}

impl CompiledView {
    pub fn total_deopts(&self) -> u64 {
        self.units.iter().map(|u| u.report.stats.deopts).sum()
    }

    /// The deoptimizations event `event` caused in units that inline `site` (the rest of a
    /// relink's chain, for the why panel).
    pub fn deopts_by(&self, event: usize, site: SiteId) -> Vec<&DeoptText> {
        self.deopts.iter().filter(|d| d.event == event && self.units.iter().any(|u| u.report.name == d.unit && u.inlines_site(site))).collect()
    }
}

/// What a lane remembers between frames to notice new deoptimizations.
#[derive(Clone, Debug, Default)]
pub struct CompiledTracker {
    /// Deoptimizations per unit at the last refresh.
    seen: Vec<u64>,
    flash: Vec<u64>,
    inlines: Vec<Rc<Vec<SiteId>>>,
    deopts: Rc<Vec<DeoptText>>,
    /// Indexes of the records whose unit was not back in C2 at the last refresh.
    open: Vec<usize>,
}

impl CompiledTracker {
    /// The lane's units and deoptimizations now; units deoptimized since the last call flash
    /// with `frame`.
    pub fn refresh(&mut self, sim: &Simulation, frame: u64) -> CompiledView {
        let reports = sim.units_now();
        if self.seen.len() < reports.len() {
            // Event code joins the list (after the loops, whose places never change) the first
            // time it runs; it inlines no site and is never deoptimized, so its place may shift.
            self.seen.resize(reports.len(), 0);
            self.flash.resize(reports.len(), 0);
            for r in &reports[self.inlines.len()..] {
                // Sorted and without repeats (`loop_calls`): `inlines_site` searches them.
                self.inlines.push(Rc::new(r.loop_index.map(|l| sim.loop_calls(l)).unwrap_or_default()));
            }
        }
        let units = reports
            .into_iter()
            .enumerate()
            .map(|(i, report)| {
                if report.stats.deopts > self.seen[i] {
                    self.flash[i] = frame;
                }
                self.seen[i] = report.stats.deopts;
                UnitView { report, inlines: self.inlines[i].clone(), flash: self.flash[i] }
            })
            .collect();
        // Records only ever grow, except that an open one (below C2, at most one per loop)
        // learns when its unit was recompiled: those are checked, the new ones appended.
        let all = sim.deopts_since(0);
        let closed: Vec<usize> = self.open.iter().copied().filter(|&i| all[i].recompiled_after.is_some()).collect();
        if !closed.is_empty() || all.len() > self.deopts.len() {
            let list = Rc::make_mut(&mut self.deopts);
            for &i in &closed {
                list[i].recompiled_after = all[i].recompiled_after;
            }
            self.open.retain(|i| !closed.contains(i));
            for (i, d) in all.iter().enumerate().skip(list.len()) {
                if d.recompiled_after.is_none() && !d.past_cutoff {
                    self.open.push(i);
                }
                list.push(sim.deopt_text(d));
            }
        }
        CompiledView { units, deopts: self.deopts.clone() }
    }
}

/// How a unit's tier reads on its chip.
pub fn tier_label(t: Tier) -> &'static str {
    match t {
        Tier::Interpreter => "interpreted",
        Tier::C1 => "C1",
        Tier::C2 => "C2",
    }
}

/// What became of the compiled code after a deoptimization.
pub fn recompile_note(d: &DeoptText) -> String {
    match (d.recompiled_after, d.past_cutoff) {
        (Some(n), _) => format!("recompiled at C2 after {} iterations", format::count(n)),
        (None, true) => "C2 gave up on it (PerMethodRecompilationCutoff): it stays in C1".into(),
        (None, false) => "below C2, not recompiled yet".into(),
    }
}

/// A deoptimization in a few words (the why panel's cell; its title has the whole chain).
pub fn deopt_short(d: &DeoptText) -> String {
    match (d.recompiled_after, d.past_cutoff) {
        (Some(n), _) => format!("{} deoptimized, C2 again after {} iterations", d.unit, format::count(n)),
        (None, true) => format!("{} deoptimized, C2 gave up: stays in C1", d.unit),
        (None, false) => format!("{} deoptimized, below C2 so far", d.unit),
    }
}

/// The whole chain of one deoptimization, as a sentence.
pub fn chain_text(d: &DeoptText) -> String {
    let event = d.event_label.as_deref().map_or_else(|| format!("event {}", d.event), |l| format!("`{l}`"));
    format!(
        "{event} retired {} → {}’s fast chain was inlined in {} → {} deoptimized at iteration {} → {}",
        d.domain,
        d.site,
        d.unit,
        d.unit,
        format::count(d.at_iteration),
        recompile_note(d)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::sim::StepOutcome;
    use blast_engine::{dsl, Params, Policy};

    /// Three ops of 100 000 iterations, a write to the called class at each op's start: ops 2
    /// and 3 find C2 code and deoptimize it.
    const DENSITY: &str =
        "measure warmup 0 ops 3\nclass Hot { compute }\nsite hot = Hot.compute\nop { loop 100000 { every 100000 { write Hot.dyn0 } call hot } }";

    fn sim(policy: Policy) -> Simulation {
        // Groovy 2.4's sites, each compile installed at its unscaled threshold (no latency, C2's queue empty): the
        // loop is in C2 by the end of op 1.
        let p = Params { c1_compile_ns: 0.0, c2_compile_ns: 0.0, c2_queue: 0, ..Params::default().groovy_2_4() };
        Simulation::new(&dsl::parse(DENSITY).unwrap(), policy, &p).unwrap()
    }

    #[test]
    fn a_deoptimized_unit_flashes_in_that_frame_only_and_its_chain_is_recorded() {
        let mut s = sim(Policy::Global);
        let mut t = CompiledTracker::default();
        let mut frame = 0;
        let mut flashes = Vec::new();
        loop {
            frame += 1;
            let out = s.step();
            let v = t.refresh(&s, frame);
            let lp = v.units.iter().find(|u| u.is_loop()).expect("the loop is a unit");
            assert_eq!(*lp.inlines, [s.site_id("hot").unwrap()]);
            assert_eq!(lp.inlined_names(&["hot".to_string()]).collect::<Vec<_>>(), ["hot"]);
            if lp.flash == frame {
                flashes.push(frame);
            }
            if out == StepOutcome::Finished {
                break;
            }
        }
        assert_eq!(flashes.len(), 2, "two deopts, each flashing in the frame it happened: {flashes:?}");
        let v = t.refresh(&s, frame + 1);
        assert_eq!(v.total_deopts(), 2);
        assert_eq!(v.deopts.len(), 2);
        assert!(v.deopts.iter().all(|d| d.recompiled_after == Some(1_024)), "the open record learned its recompile: {:?}", v.deopts);
        let chain = chain_text(&v.deopts[0]);
        assert_eq!(chain, "`write Hot.dyn0` retired global → hot’s fast chain was inlined in loop 1 → loop 1 deoptimized at iteration 100\u{2009}000 → recompiled at C2 after 1\u{2009}024 iterations");
        // The scenario's one site, and an id no unit inlines.
        let (hot, other) = (s.site_id("hot").unwrap(), s.site_id("hot").unwrap() + 1);
        assert_eq!(v.deopts_by(v.deopts[0].event, hot).len(), 1);
        assert!(v.deopts_by(v.deopts[0].event, other).is_empty());
        assert_eq!(v.deopts[0].event, 1);
        assert!(v.deopts_by(0, hot).is_empty(), "the first write (event 0) found interpreted code: nothing to deoptimize");
    }

    #[test]
    fn an_unchanged_lane_keeps_its_deopt_list() {
        let mut s = sim(Policy::Global);
        let mut t = CompiledTracker::default();
        while s.step() != StepOutcome::Finished {}
        let a = t.refresh(&s, 1);
        let b = t.refresh(&s, 2);
        assert!(Rc::ptr_eq(&a.deopts, &b.deopts), "nothing new: the same list, no rebuild");
        assert!(b.units.iter().all(|u| u.flash <= 1), "nothing deoptimized since frame 1");
    }

    #[test]
    fn no_dependency_broken_means_no_deopt_and_no_flash() {
        let text = DENSITY.replace("class Hot { compute }", "class Hot { compute }\nclass Other").replace("write Hot.dyn0", "write Other.dyn0");
        let mut s = Simulation::new(&dsl::parse(&text).unwrap(), Policy::Exact, &Params::default().groovy_2_4()).unwrap();
        let mut t = CompiledTracker::default();
        let mut frame = 0;
        while s.step() != StepOutcome::Finished {
            frame += 1;
            assert!(t.refresh(&s, frame).units.iter().all(|u| u.flash == 0));
        }
        let v = t.refresh(&s, frame + 1);
        assert_eq!(v.total_deopts(), 0);
        assert_eq!(v.units.iter().find(|u| u.is_loop()).map(|u| u.report.tier), Some(Tier::C2));
    }

    #[test]
    fn the_note_says_what_became_of_the_code() {
        let d = DeoptText {
            unit: "loop 1".into(),
            event: 3,
            event_label: None,
            site: "hot".into(),
            domain: "global".into(),
            at_iteration: 10,
            recompiled_after: None,
            past_cutoff: true,
        };
        assert!(recompile_note(&d).contains("stays in C1"));
        assert_eq!(deopt_short(&d), "loop 1 deoptimized, C2 gave up: stays in C1");
        assert!(chain_text(&d).starts_with("event 3 retired global"));
        assert_eq!(recompile_note(&DeoptText { past_cutoff: false, ..d }), "below C2, not recompiled yet");
    }
}
