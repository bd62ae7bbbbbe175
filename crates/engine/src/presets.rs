//! Presets shipped with the engine: the ScopedInvalidationBench workloads (GROOVY-12191) and
//! scenarios that show the oracle at work.

use crate::dsl;
use crate::scenario::Scenario;

use crate::reference;
pub use crate::reference::Published;

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Preset {
    pub id: &'static str,
    pub title: &'static str,
    pub family: &'static str,
    pub description: &'static str,
    pub text: &'static str,
}

impl Preset {
    /// The preset's row of `data/groovy_scoped_invalidation_bench.csv`, if it is a benchmark.
    pub fn published(&self) -> Option<Published> {
        reference::groovy_row(self.id)
    }

    pub fn scenario(&self) -> Scenario {
        // Presets are tested to parse; a failure here is a bug in this file.
        dsl::parse(self.text).unwrap_or_else(|e| panic!("preset {} does not parse: {e}", self.id))
    }
}

/// The benchmark's classes and sites, shared by the seven workloads. JMH runs the metaclass
/// removal once per measurement iteration (thousands of ops), so it is `setup`, not `before-op`.
///
/// The loop harness is dynamic Groovy, so besides `hot.compute()` each iteration runs a few
/// call sites of its own on `Integer` (`i < n`, `i++`, `i % 1000`, `== 0`) and hands the result
/// to JMH's `Blackhole`. Under the global policy a write retires those too; under exact they
/// stay linked.
macro_rules! groovy_world {
    () => {
        "semantics snapshot
measure warmup 3 ops 5
class Hot { compute }
class Unrelated
class HierParent { base }
class HierChild extends HierParent { leaf }
class Integer { compareLessThan next mod compareEqual }
class Blackhole { consume }
category HotCategory { Hot.compute }
site hot = Hot.compute
site leaf = HierChild.leaf
site base = HierChild.base
site loopTest = Integer.compareLessThan
site loopNext = Integer.next
site loopMod = Integer.mod
site loopEq = Integer.compareEqual
site sink = Blackhole.consume
setup { remove Hot remove Unrelated remove HierParent remove HierChild }
"
    };
}

macro_rules! harness {
    () => {
        "call loopTest call loopNext call loopMod call loopEq call sink"
    };
}

/// A parent redefines a method its child's site dispatches; an unrelated site runs beside.
macro_rules! parent_redefine {
    () => {
        "measure warmup 1 ops 3
class Parent { base }
class Child extends Parent { leaf }
class Other { work }
site childBase = Child.base
site childLeaf = Child.leaf
site other = Other.work
op { loop 100000 { every 1000 { write Parent.base } call childBase call childLeaf call other } }
"
    };
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "hotLoop_baseline",
        title: "Hot loop, no churn",
        family: "groovy",
        description: "100 000 calls of hot.compute() per op and nothing else. Every policy links the site once and stays on the fast chain: this is the ceiling the churn rows fall from.",
        text: concat!(groovy_world!(), "scenario \"hotLoop_baseline\"\nop { loop 100000 { call hot ", harness!(), " } }\n",
            "expect under global, exact: relinks == 0\n",
            "expect exact / global ops within 10% of published hotLoop_baseline\n"),
    },
    Preset {
        id: "hotLoop_afterUnrelatedBurst",
        title: "Hot loop after a burst of unrelated writes",
        family: "groovy",
        description: "Setup writes 50 methods onto Unrelated's metaclass, then the loop runs clean. The burst happens before measurement, so every policy recovers; under exact it never touched Hot at all.",
        text: concat!(groovy_world!(), "scenario \"hotLoop_afterUnrelatedBurst\"\nsetup { remove Hot remove Unrelated remove HierParent remove HierChild repeat 50 { write Unrelated.dyn0 } }\nop { loop 100000 { call hot ", harness!(), " } }\n",
            "expect under global, exact: write Unrelated.* relinks nothing\n",
            "expect under global, exact: ops within 20% of published hotLoop_afterUnrelatedBurst\n"),
    },
    Preset {
        id: "hotLoop_unrelatedMetaClassChurn",
        title: "Hot loop with unrelated metaclass churn",
        family: "groovy",
        description: "Every 1000 iterations the loop adds a method to Unrelated's metaclass. Under the global policy each write throws away every linked site, so the loop lives in re-selection; under exact only Unrelated's (unused) domain is retired and the loop pays just the writes: the headline ~200x.",
        text: concat!(groovy_world!(), "scenario \"hotLoop_unrelatedMetaClassChurn\"\nop { loop 100000 { every 1000 { write Unrelated.dyn0 } call hot ", harness!(), " } }\n",
            "expect under exact: write Unrelated.* relinks nothing\n",
            "expect under global: write Unrelated.* relinks [hot, loopTest, sink]\n",
            "expect exact / global >= 100x ops\n",
            "expect exact / global ops within 50% of published hotLoop_unrelatedMetaClassChurn\n"),
    },
    Preset {
        id: "hotLoop_sameTypeMetaClassChurn",
        title: "Hot loop with same-type metaclass churn",
        family: "groovy",
        description: "The writes go to Hot's own metaclass. Every policy must retire the hot site, so exact cannot save it; what exact saves is the harness's own sites, which global retires too.",
        text: concat!(groovy_world!(), "scenario \"hotLoop_sameTypeMetaClassChurn\"\nop { loop 100000 { every 1000 { write Hot.dyn0 } call hot ", harness!(), " } }\n",
            "expect under exact: write Hot.* relinks only [hot]\n",
            "expect under global: write Hot.* relinks [hot, loopTest, sink]\n",
            "expect exact / global >= 3x ops\n",
            "expect exact / global ops within 50% of published hotLoop_sameTypeMetaClassChurn\n"),
    },
    Preset {
        id: "hotLoop_categoryEnterLeave",
        title: "Category enter and leave",
        family: "groovy",
        description: "Ten use(HotCategory) blocks of 10 000 calls per op. Entering and leaving a category retires every domain under both policies, and inside the block the category method cannot be cached: both policies sit on the same floor, by design.",
        text: concat!(groovy_world!(), "scenario \"hotLoop_categoryEnterLeave\"\nop { repeat 10 { use HotCategory { loop 10000 { call hot ", harness!(), " } } } }\n",
            "expect under global, exact: use HotCategory relinks [loopTest, sink]\n",
            "expect exact / global ops within 10% of published hotLoop_categoryEnterLeave\n"),
    },
    Preset {
        id: "parentChild_baseline",
        title: "Parent and child, no churn",
        family: "groovy",
        description: "Two sites per iteration on a HierChild receiver: child.leaf() (own method) and child.base() (inherited from HierParent).",
        text: concat!(groovy_world!(), "scenario \"parentChild_baseline\"\nop { loop 100000 { call leaf call base ", harness!(), " } }\n",
            "expect under global, exact: relinks == 0\n",
            "expect exact / global ops within 15% of published parentChild_baseline\n"),
    },
    Preset {
        id: "parentChild_parentMetaClassChurn",
        title: "Parent metaclass churn under a child receiver",
        family: "groovy",
        description: "Every 1000 iterations a method is added to HierParent's metaclass. Exact retires HierParent only; the child's sites stay linked, which is correct because HierChild's metaclass snapshotted its inherited methods. Hierarchy fan-out would retire them too (collateral).",
        text: concat!(groovy_world!(), "scenario \"parentChild_parentMetaClassChurn\"\nop { loop 100000 { every 1000 { write HierParent.dyn0 } call leaf call base ", harness!(), " } }\n",
            "expect under exact: write HierParent.* relinks nothing\n",
            "expect under hierarchy: write HierParent.* relinks only [leaf, base]\n",
            "expect under hierarchy: necessary == 0\n",
            "expect exact / global >= 100x ops\n",
            "expect exact / global ops within 50% of published parentChild_parentMetaClassChurn\n"),
    },
    Preset {
        id: "oracle_liveParentRedefine",
        title: "Oracle: parent redefines an inherited method (live lookup)",
        family: "oracle",
        description: "A Ruby/Python-like runtime: lookup walks the live hierarchy. Every 1000 iterations the parent redefines base(), which the child's site dispatches. Exact (no fan-out) keeps the child's site linked to the old method: the oracle reports stale dispatches. Hierarchy retires the child and is correct; ideal retires exactly that site.",
        text: concat!(
            "scenario \"oracle_liveParentRedefine\"\nsemantics live\n",
            parent_redefine!(),
            "expect under exact: missed > 0\n",
            "expect under hierarchy, ideal: missed == 0\n",
            "expect under ideal: write Parent.base relinks only [childBase]\n",
            "expect ideal < hierarchy relinks\n"
        ),
    },
    Preset {
        id: "oracle_snapshotParentRedefine",
        title: "Oracle: the same redefinition under Groovy's snapshot lookup",
        family: "oracle",
        description: "The same program with Groovy's semantics: the child's metaclass snapshotted base() when it was built, so the parent's redefinition is not visible through it. Exact is correct here; hierarchy's retirements of the child are collateral.",
        text: concat!(
            "scenario \"oracle_snapshotParentRedefine\"\nsemantics snapshot\n",
            parent_redefine!(),
            "expect under exact, hierarchy, ideal: missed == 0\n",
            "expect under exact, ideal: write Parent.* relinks nothing\n",
            "expect under hierarchy: write Parent.* relinks [childBase, childLeaf]\n",
            "expect under hierarchy: necessary == 0\n"
        ),
    },
    Preset {
        id: "fidelity_methodBodies",
        title: "Methods with real bodies: cost in the bodies, not the dispatch",
        family: "fidelity",
        description: "Five calls per iteration, one of which builds a string (Report.format, 180 ns in C2 code) and one sums a small list (40 ns): 22 ms of bodies per op. Under exact an unrelated write every 10 000 iterations costs almost nothing and the bodies are nearly the whole op. Under global each write sends all five sites through Groovy's fallback storm and deoptimizes the loop's C2 code, whose bodies then run interpreted until it is recompiled: dispatch and the lost compiled code dominate again.",
        text: "scenario \"fidelity_methodBodies\"
measure warmup 3 ops 5
class Report { header total cost 40ns format cost 180ns footer flush }
class Unrelated
site header = Report.header
site total = Report.total
site format = Report.format
site footer = Report.footer
site flush = Report.flush
op { loop 100000 { every 10000 { write Unrelated.dyn0 } call header call total call format call footer call flush } }

expect under exact: write Unrelated.* relinks nothing
expect under global: write Unrelated.* relinks [header, total, format, footer, flush]
expect exact / global >= 5x ops
expect under exact: deopts == 0
expect under global: deopts >= 50
expect under global: deopts <= 1 per event
",
    },
    Preset {
        id: "fidelity_megamorphicShapes",
        title: "A megamorphic site: what one write throws away per policy",
        family: "fidelity",
        description: "One call site sees nine shape classes (shape.area(), mix 30/15/5/15/10/10/5/5/5): one more than Groovy's inline cache of 8 holds, so it is megamorphic and keeps evicting its least recently used entry and re-selecting. Every 1000 iterations a method is added to Round, the parent of Circle and Ellipse. Exact invalidates the PIC entry of Round alone, hierarchy those of Round, Circle and Ellipse, global every entry the cache holds and the unrelated sink besides; all of it collateral, since area() does not change.",
        text: "scenario \"fidelity_megamorphicShapes\"
measure warmup 3 ops 5
class Shape { area }
class Round extends Shape { area }
class Circle extends Round { area }
class Ellipse extends Round { area }
class Square extends Shape { area }
class Rect extends Shape { area }
class Tri extends Shape { area }
class Pent extends Shape { area }
class Hex extends Shape { area }
class Star extends Shape { area }
class Blackhole { consume }
site shapes = Circle.area, Ellipse.area, Round.area, Square.area, Rect.area, Tri.area, Pent.area, Hex.area, Star.area mix 30/15/5/15/10/10/5/5/5
site sink = Blackhole.consume
op { loop 100000 { every 1000 { write Round.dyn0 } call shapes call sink } }

expect under exact, hierarchy: write Round.* relinks only [shapes]
expect under global: write Round.* relinks [shapes, sink]
expect under exact: relinks at shapes <= 1 per event
expect under hierarchy: relinks at shapes <= 3 per event
expect under hierarchy: relinks at shapes >= 2.5 per event
expect under global: relinks at shapes >= 6 per event
expect exact < hierarchy relinks
expect hierarchy < global relinks
expect under exact, hierarchy, global: necessary == 0
expect under exact, hierarchy, global: missed == 0
expect exact / global >= 1.5x ops
",
    },
];

pub fn all() -> &'static [Preset] {
    PRESETS
}

pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}
