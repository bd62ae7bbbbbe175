//! What a model run's entities mean on screen: arena threads, shape-cache slots, the
//! descriptor cache slot.
//!
//! The engine reports each entity as a name and a typed state (`EntityState`); this module
//! reads those records into shapes the components draw. It decides nothing the engine did not
//! report: a thread's verdict colour restates the arena oracle's rule (a deopt of a
//! frame holding the closing session is necessary, any other collateral, a holder left
//! compiled is missed), and a test checks the per-thread verdicts add up to the run's totals.

use blast_engine::models::arena::Role;
use blast_engine::models::descriptor::SlotState;
use blast_engine::models::shape_cache::Capacity;
use blast_engine::models::{Entity, EntityState, ModelConfig};
use blast_engine::report::RelinkTotals;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    ShapeCache,
    Arena,
    Descriptor,
}

impl Family {
    pub fn of(config: &ModelConfig) -> Family {
        match config {
            ModelConfig::ShapeCache(_) => Family::ShapeCache,
            ModelConfig::Arena(_) => Family::Arena,
            ModelConfig::Descriptor(_) => Family::Descriptor,
        }
    }

    /// In gallery order.
    pub const ALL: [Family; 3] = [Family::ShapeCache, Family::Arena, Family::Descriptor];

    /// As `ModelPreset::family` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Family::ShapeCache => "shape-cache",
            Family::Arena => "arena",
            Family::Descriptor => "descriptor",
        }
    }

    /// The gallery's heading for the family's presets.
    pub fn heading(self) -> &'static str {
        match self {
            Family::ShapeCache => "Shape cache: record deserialization (JDK-8247532)",
            Family::Arena => "Shared-arena close: handshakes and deopts (JDK-8335480)",
            Family::Descriptor => "Descriptor cache that never fills (IGNITE-29109)",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Family::ShapeCache => "shape cache",
            Family::Arena => "shared-arena close",
            Family::Descriptor => "descriptor cache",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadVerdict {
    /// Never handshaken (the closing thread itself).
    Untouched,
    /// Paused for handshakes, never deoptimized.
    HandshakeOnly,
    Necessary,
    Collateral,
    Missed,
}

impl ThreadVerdict {
    pub fn name(self) -> &'static str {
        match self {
            ThreadVerdict::Untouched => "untouched",
            ThreadVerdict::HandshakeOnly => "handshake-only",
            ThreadVerdict::Necessary => "necessary",
            ThreadVerdict::Collateral => "collateral",
            ThreadVerdict::Missed => "missed",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ThreadRow {
    pub name: String,
    pub role: Role,
    pub scoped_access: bool,
    pub ops: u64,
    pub handshakes: u64,
    pub deopts: u64,
}

impl ThreadRow {
    /// The row of an arena thread; `None` for an entity of another model.
    pub fn from_entity(e: &Entity) -> Option<ThreadRow> {
        let EntityState::Thread { role, scoped_access, ops, handshakes, deopts } = e.state else { return None };
        Some(ThreadRow { name: e.name.clone(), role, scoped_access, ops, handshakes, deopts })
    }

    /// The oracle's verdicts on this thread's handshakes.
    pub fn verdicts(&self) -> RelinkTotals {
        if self.role.holds_closing_session() {
            RelinkTotals { necessary: self.deopts, collateral: 0, missed: self.handshakes.saturating_sub(self.deopts) }
        } else {
            RelinkTotals { necessary: 0, collateral: self.deopts, missed: 0 }
        }
    }

    /// The colour the row takes: the worst verdict it has earned so far.
    pub fn verdict(&self) -> ThreadVerdict {
        let v = self.verdicts();
        if v.missed > 0 {
            ThreadVerdict::Missed
        } else if v.collateral > 0 {
            ThreadVerdict::Collateral
        } else if v.necessary > 0 {
            ThreadVerdict::Necessary
        } else if self.handshakes > 0 {
            ThreadVerdict::HandshakeOnly
        } else {
            ThreadVerdict::Untouched
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassSlots {
    pub name: String,
    pub capacity: Capacity,
    /// Cached shape ids, oldest (FIFO) or least recently used (LRU) first.
    pub cached: Vec<u64>,
    pub hits: u64,
    pub misses: u64,
}

impl ClassSlots {
    /// The slots of a record class; `None` for an entity of another model.
    pub fn from_entity(e: &Entity) -> Option<ClassSlots> {
        let EntityState::RecordClass { capacity, cached, hits, misses } = &e.state else { return None };
        Some(ClassSlots { name: e.name.clone(), capacity: *capacity, cached: cached.clone(), hits: *hits, misses: *misses })
    }

    /// Percent of measured lookups that hit, once there were any.
    pub fn hit_rate(&self) -> Option<f64> {
        let total = self.hits + self.misses;
        (total > 0).then(|| 100.0 * self.hits as f64 / total as f64)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DescriptorSlot {
    pub class: String,
    pub state: SlotState,
    pub rebuilds: u64,
    pub discarded: u64,
}

impl DescriptorSlot {
    /// The cache slot of a class; `None` for an entity of another model.
    pub fn from_entity(e: &Entity) -> Option<DescriptorSlot> {
        let EntityState::DescriptorSlot { slot, rebuilds, discarded } = e.state else { return None };
        Some(DescriptorSlot { class: e.name.clone(), state: slot, rebuilds, discarded })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blast_engine::models;

    fn report(id: &str, variant: &str) -> models::ModelReport {
        models::find(id).expect("preset").config().run(variant).expect("runs")
    }

    #[test]
    fn every_model_preset_belongs_to_a_family() {
        for p in models::MODEL_PRESETS {
            let family = Family::of(&p.config());
            assert_eq!(family.name(), p.family, "{}", p.id);
            assert!(Family::ALL.contains(&family));
        }
    }

    #[test]
    fn thread_verdicts_add_up_to_the_run_totals() {
        for id in ["arena_closeGroup", "arena_useAfterClose", "arena_scaling16"] {
            let config = models::find(id).unwrap().config();
            for v in config.variants() {
                let r = config.run(v).unwrap();
                let sum =
                    r.entities.iter().filter_map(ThreadRow::from_entity).map(|t| t.verdicts()).fold(RelinkTotals::default(), crate::model_runner::tests::plus);
                assert_eq!(sum, r.verdicts, "{id} {v}");
            }
        }
    }

    #[test]
    fn arena_threads_read_their_role_frame_and_verdict() {
        let r = report("arena_closeGroup", "scoped-access");
        let rows: Vec<ThreadRow> = r.entities.iter().filter_map(ThreadRow::from_entity).collect();
        assert_eq!(rows[0].verdict(), ThreadVerdict::Untouched, "the closer is not handshaken");
        assert!(rows[1].scoped_access && rows[1].deopts > 0);
        assert_eq!(rows[1].verdict(), ThreadVerdict::Collateral);
        assert_eq!(rows[2].verdict(), ThreadVerdict::HandshakeOnly, "byte[] code has no scoped access");
        let r = report("arena_useAfterClose", "no-deopt");
        let holder = ThreadRow::from_entity(&r.entities[1]).unwrap();
        assert!(holder.role.holds_closing_session());
        assert_eq!(holder.verdict(), ThreadVerdict::Missed);
    }

    #[test]
    fn shape_slots_list_the_cached_shapes() {
        let r = report("records_rotating11", "fifo");
        let line = ClassSlots::from_entity(&r.entities[0]).unwrap();
        assert_eq!(line.cached.len(), 10);
        assert_eq!(line.hit_rate(), Some(0.0));
        let r = report("records_rotating11", "unbounded");
        assert_eq!(ClassSlots::from_entity(&r.entities[0]).unwrap().hit_rate(), Some(100.0));
        assert_eq!(ThreadRow::from_entity(&r.entities[0]), None, "a record class is not a thread");
        let capacity = |variant| ClassSlots::from_entity(&report("records_rotating11", variant).entities[0]).unwrap().capacity;
        assert_eq!((capacity("lru"), capacity("capacity-0")), (Capacity::Bounded(10), Capacity::Bounded(0)));
        assert_eq!((capacity("before-fix"), capacity("unbounded")), (Capacity::NoCache, Capacity::Unbounded));
    }

    #[test]
    fn descriptor_slot_states() {
        let broken = DescriptorSlot::from_entity(&report("descriptor_treeMap", "broken").entities[0]).unwrap();
        assert_eq!(broken.state, SlotState::Unregistered);
        assert!(broken.rebuilds > 100 && broken.discarded == broken.rebuilds);
        let good = DescriptorSlot::from_entity(&report("descriptor_treeMap", "good").entities[0]).unwrap();
        assert_eq!((good.state, good.rebuilds), (SlotState::Registered, 1));
    }
}
