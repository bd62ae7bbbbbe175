//! What each probed runtime's source says a class write invalidates, as data: the policy whose
//! scope is closest, the lookup semantics, and where in the runtime's source the claim comes
//! from. `blast fingerprint` sets these claims beside what the measurements fit, and
//! docs/RUNTIMES.md is generated from both.

use serde::Serialize;

use crate::fingerprint;
use crate::policy::Policy;
use crate::scenario::Semantics;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RuntimeProfile {
    /// The probe's runtime id (`scripts/probe.sh RUNTIME`).
    pub id: &'static str,
    pub name: &'static str,
    /// The simulator's policy whose scope is closest to what the runtime invalidates.
    pub policy: Policy,
    pub semantics: Semantics,
    /// What a class write throws away, in one sentence.
    pub invalidates: &'static str,
    /// File and function in the runtime's source that the sentence is read from.
    pub source: &'static str,
}

pub const PROFILES: [RuntimeProfile; 6] = [
    RuntimeProfile {
        id: "groovy",
        name: "Groovy 2.4 (--indy)",
        policy: Policy::Global,
        semantics: Semantics::Snapshot,
        invalidates: "one process-wide SwitchPoint: any metaclass registry change replaces it, so every linked indy call site falls back to selection; on JDK 14 and later (the JVM probed here) a write to a class's installed ExpandoMetaClass is no registry change and replaces nothing, so only a class's first write invalidates (docs/CALIBRATION.md)",
        source: "org/codehaus/groovy/vmplugin/v7/IndyInterface.java: the registry listener's updateConstantMetaClass calls invalidateSwitchPoints() (checked with javap on groovy-2.4.21.jar); reflection/ClassInfo.incVersion calls VMPluginFactory's plugin's invalidateCallSites(), a no-op in v5/Java5 when v7/Java7's static initializer fails on JDK 14+",
    },
    RuntimeProfile {
        id: "cpython",
        name: "CPython 3.11",
        policy: Policy::Hierarchy,
        semantics: Semantics::Live,
        invalidates: "the version tag of the class and, recursively, of its subclasses; specialized instructions guarded on a tag miss and re-specialize",
        source: "Objects/typeobject.c: type_setattro -> PyType_Modified",
    },
    RuntimeProfile {
        id: "pypy",
        name: "PyPy 7.3",
        policy: Policy::Hierarchy,
        semantics: Semantics::Live,
        invalidates: "a new VersionTag for the type and, recursively, its subclasses; JIT traces that promoted the old tag fail their guard",
        source: "pypy/objspace/std/typeobject.py: W_TypeObject.setdictvalue -> W_TypeObject.mutated",
    },
    RuntimeProfile {
        id: "ruby",
        name: "Ruby 3.1 (CRuby)",
        // Only the written method id's cache entries go: a site calling another method keeps
        // its entry, which on these workloads is what the ideal policy retires.
        policy: Policy::Ideal,
        semantics: Semantics::Live,
        invalidates: "the cached method entries for the written method id only, in the class and its subclasses; call sites check their cached entry",
        source: "vm_method.c: rb_clear_method_cache -> clear_method_cache_by_id_in_class",
    },
    RuntimeProfile {
        id: "jruby",
        name: "JRuby 9.3",
        policy: Policy::Hierarchy,
        semantics: Semantics::Live,
        invalidates: "the class's invalidator (a SwitchPoint under -Xcompile.invokedynamic=true) and those of all its descendants, whatever the method",
        source: "org/jruby/RubyModule.java: invalidateCacheDescendants; org/jruby/runtime/opto/GenerationAndSwitchPointInvalidator.java",
    },
    RuntimeProfile {
        id: "node",
        name: "Node 20 (V8 11.3)",
        policy: Policy::Hierarchy,
        semantics: Semantics::Live,
        invalidates: "the prototype validity cells of the maps that have the written prototype on their chain; inline caches and optimized code depending on them miss or deoptimize",
        source: "src/objects/js-objects.cc: JSObject::InvalidatePrototypeChains",
    },
];

/// The profile of a probe's runtime id.
pub fn profile(id: &str) -> Option<&'static RuntimeProfile> {
    PROFILES.iter().find(|p| p.id == id)
}

/// The probe row a runtime's gallery scenario simulates: a write to the parent of eight sites'
/// classes every ten iterations, the fanout row that tells global, exact and hierarchy apart.
pub const PRESET_WORKLOAD: (&str, u64) = ("fanout_root", 8);

impl RuntimeProfile {
    /// The id of its scenario in the gallery's Runtimes group (also the scenario's name).
    pub fn preset_id(&self) -> String {
        format!("runtime_{}", self.id)
    }

    /// Its gallery scenario: the `PRESET_WORKLOAD` loop of `probes/workloads.json`, as the
    /// fingerprint simulates it, under the runtime's lookup semantics, with expectations that
    /// state what the row tells apart: a write to the root of the sites' classes adds a method
    /// none of them calls, so global and hierarchy throw every site away and exact and ideal
    /// none.
    pub fn scenario_text(&self) -> String {
        let spec = fingerprint::fanout_spec();
        let (workload, sites) = PRESET_WORKLOAD;
        let write = spec.rows.iter().find(|r| r.workload == workload).and_then(|r| r.write);
        let site_list: Vec<String> = (0..sites).map(|k| format!("s{k}")).collect();
        let expectations = write
            .map(|class| {
                format!(
                    "expect under global, hierarchy: write {class}.* relinks [{}]\nexpect under exact, ideal: write {class}.* relinks nothing\nexpect under global, exact, hierarchy, ideal: missed == 0\n",
                    site_list.join(", ")
                )
            })
            .unwrap_or_default();
        format!(
            "scenario \"{}\"\n# {}: a class write throws away {}.\n# Source: {}.\n# Closest policy: {}. Measured by probes/ as {workload}@{sites} (docs/RUNTIMES.md).\n{}{expectations}",
            self.preset_id(),
            self.name,
            self.invalidates,
            self.source,
            self.policy,
            fingerprint::fanout_text(sites, spec.period, write, self.semantics, 5)
        )
    }

    /// The lanes its scenario opens with: its closest policy beside global, exact and hierarchy.
    pub fn lanes(&self) -> Vec<Policy> {
        Policy::ALL.iter().copied().filter(|&p| p == self.policy || matches!(p, Policy::Global | Policy::Exact | Policy::Hierarchy)).collect()
    }
}

/// The profile whose gallery scenario has this id.
pub fn by_preset_id(id: &str) -> Option<&'static RuntimeProfile> {
    PROFILES.iter().find(|p| p.preset_id() == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probed_runtime_has_one_profile_with_a_source() {
        for id in ["cpython", "pypy", "node", "ruby", "jruby", "groovy"] {
            let p = profile(id).unwrap_or_else(|| panic!("no profile for {id}"));
            assert!(p.source.contains(':'), "{id}: the source names a file and a function");
        }
        assert_eq!(PROFILES.iter().filter(|p| p.policy == Policy::Global).count(), 1, "only Groovy 2.4 is global");
        assert!(profile("cobol").is_none());
    }

    #[test]
    fn every_runtime_scenario_parses_and_its_closest_policy_has_a_lane() {
        for p in &PROFILES {
            let s = crate::dsl::parse(&p.scenario_text()).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!(s.name, p.preset_id());
            assert_eq!(s.semantics, p.semantics);
            assert!(p.lanes().contains(&p.policy));
            assert_eq!(by_preset_id(&p.preset_id()), Some(p));
        }
    }

    #[test]
    fn the_runtime_scenario_retires_what_its_policy_says() {
        // Writes to the parent of eight sites' classes: hierarchy relinks them, exact does not.
        let s = crate::dsl::parse(&profile("cpython").unwrap().scenario_text()).unwrap();
        let relinks = |policy| crate::sim::run(&s, policy, &crate::params::Params::default()).unwrap().relink_totals.relinks();
        assert!(relinks(Policy::Hierarchy) > 0);
        assert_eq!(relinks(Policy::Exact), 0);
        assert!(relinks(Policy::Global) >= relinks(Policy::Hierarchy));
    }
}
