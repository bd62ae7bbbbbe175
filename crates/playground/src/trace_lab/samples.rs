//! The gallery's trace samples: the committed logs of `probes/traces/logs/` (Trunk copies the
//! directory beside the page as `logs/`; they are fetched when opened, never in the wasm), one
//! line each on what it shows (from `probes/traces/README.md`).

pub struct Sample {
    /// The log's file name without `.log`.
    pub id: &'static str,
    pub runtime: &'static str,
    pub shows: &'static str,
    /// Whether the capture wrote the program's class tree beside the log (`NAME.classes`: V8
    /// and HotSpot), which the page fetches with it for the replay.
    pub classes: bool,
}

impl Sample {
    /// Where the page fetches it, relative to the page.
    pub fn url(&self) -> String {
        format!("logs/{}.log", self.id)
    }

    /// Where the page fetches its class tree, when it has one.
    pub fn classes_url(&self) -> Option<String> {
        self.classes.then(|| format!("logs/{}.classes", self.id))
    }
}

pub const SAMPLES: &[Sample] = &[
    Sample {
        id: "v8-proto-write",
        runtime: "V8 (Node 20)",
        shows: "8 writes to Point.prototype in a hot loop: each throws away the optimized code of the Point sites (dependency-change deopts, logged inside the write) and relinks their ICs; the Counter sites keep theirs.",
        classes: true,
    },
    Sample {
        id: "v8-proto-chain",
        runtime: "V8 (Node 20)",
        shows: "8 writes to Base.prototype: the kind() sites of Base, Left and Right (its subclasses) are deoptimized and relinked at each, Left's own field site and the unrelated Other's never; with the class tree the replay behaves like hierarchy.",
        classes: true,
    },
    Sample {
        id: "v8-shapes-plugins",
        runtime: "V8 (Node 20)",
        shows: "Plugins patch Shape.prototype and Rect.prototype while visitors walk a mixed scene: which optimized functions each patch threw away.",
        classes: true,
    },
    Sample {
        id: "hotspot-cha-break",
        runtime: "HotSpot (OpenJDK 17)",
        shows: "Loading Triangle breaks \"Polygon's (and Shape's) only concrete subclass is Square\", then loading Circle breaks \"Shape.weight has one implementation\": each witness is named, with the C2 compiles made not entrant; with the class tree the replay behaves like ideal.",
        classes: true,
    },
    Sample {
        id: "hotspot-plugin-registry",
        runtime: "HotSpot (OpenJDK 17)",
        shows: "A plugin registry loads a second codec and a node class overriding Expr.weight: two broken assumptions, their witnesses, and the code made not entrant.",
        classes: true,
    },
    Sample {
        id: "groovy-same-class-churn",
        runtime: "Groovy 2.4 (indy)",
        shows: "Hot's own metaclass replaced 10 times: every site the loop runs relinks after each change.",
        classes: false,
    },
    Sample {
        id: "groovy-unrelated-churn",
        runtime: "Groovy 2.4 (indy)",
        shows: "The metaclass of Unrelated, never called, replaced 10 times: the same relinks per change as the same-class churn (one global SwitchPoint).",
        classes: false,
    },
    Sample {
        id: "groovy-plugin-registry",
        runtime: "Groovy 2.4 (indy)",
        shows: "Four hot reloads (a plugin, an unused config class, the parent class): every reload re-selects every site, whichever class changed.",
        classes: false,
    },
];

pub fn find(id: &str) -> Option<&'static Sample> {
    SAMPLES.iter().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_committed_log_is_a_sample_and_every_sample_is_committed() {
        let logs = crate::trace_lab::view::tests::committed_samples();
        let mut ids: Vec<&str> = SAMPLES.iter().map(|s| s.id).collect();
        ids.sort();
        assert_eq!(logs, ids);
        let dir = format!("{}/../../probes/traces/logs", env!("CARGO_MANIFEST_DIR"));
        for s in SAMPLES {
            assert_eq!(s.classes, std::path::Path::new(&format!("{dir}/{}.classes", s.id)).is_file(), "{}", s.id);
        }
        for runtime in ["v8-", "hotspot-", "groovy-"] {
            assert!(SAMPLES.iter().any(|s| s.id.starts_with(runtime)), "{runtime}");
        }
    }
}
