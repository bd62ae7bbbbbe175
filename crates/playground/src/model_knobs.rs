//! The knobs a model preset exposes on the page, with the bounds a browser replay can afford.
//!
//! The engine's `models::apply` sets a knob; this module adds what the page needs around it:
//! labels, a range per knob (a replay runs the model a few dozen times, so the page accepts
//! less than the CLI), and messages for values it refuses. Nothing here panics on user text.

use std::fmt;

use blast_engine::models::{self, ModelConfig, ModelError};

pub struct Knob {
    pub name: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub min: u64,
    pub max: u64,
}

const SHAPE_CACHE: &[Knob] = &[
    Knob { name: "shapes", label: "stream shapes", help: "Distinct stream shapes, rotated one per op.", min: 1, max: 1000 },
    Knob { name: "length", label: "elements per stream", help: "Line records per stream (each holds two point records).", min: 1, max: 1_000_000 },
    Knob { name: "capacity", label: "cache capacity", help: "Shapes each record class's cache keeps (FIFO and LRU variants).", min: 0, max: 1000 },
    Knob { name: "ops", label: "measured ops", help: "Streams read after the warm-up.", min: 1, max: 2000 },
];

const ARENA: &[Knob] = &[
    Knob {
        name: "threads",
        label: "threads",
        help: "Replaces the group by this many threads that each access a shared segment and close their own arena (the scaling run).",
        min: 1,
        max: 64,
    },
    Knob { name: "ops", label: "measured ops per thread", help: "Ops each thread runs after the warm-up.", min: 1, max: 2000 },
];

const DESCRIPTOR: &[Knob] = &[
    Knob { name: "entries", label: "entries in the value", help: "Entries of the map or set being written (0 = empty).", min: 0, max: 1_000_000 },
    Knob { name: "ops", label: "measured writes", help: "Writes after the warm-up.", min: 1, max: 2000 },
];

/// Largest arena run the page replays: every close handshakes every thread, so the work grows
/// with threads² × ops (this bound keeps one run near 30 ms in a browser).
pub const MAX_ARENA_WORK: u64 = 1_000_000;

pub fn knobs(config: &ModelConfig) -> &'static [Knob] {
    match config {
        ModelConfig::ShapeCache(_) => SHAPE_CACHE,
        ModelConfig::Arena(_) => ARENA,
        ModelConfig::Descriptor(_) => DESCRIPTOR,
    }
}

/// The knob's current value in `config`.
pub fn value(config: &ModelConfig, name: &str) -> Option<u64> {
    Some(match (config, name) {
        (ModelConfig::ShapeCache(c), "shapes") => c.shapes,
        (ModelConfig::ShapeCache(c), "length") => c.length,
        (ModelConfig::ShapeCache(c), "capacity") => c.capacity,
        (ModelConfig::ShapeCache(c), "ops") => c.ops,
        (ModelConfig::Arena(c), "threads") => c.threads.len() as u64,
        (ModelConfig::Arena(c), "ops") => c.ops,
        (ModelConfig::Descriptor(c), "entries") => c.entries,
        (ModelConfig::Descriptor(c), "ops") => c.ops,
        _ => return None,
    })
}

/// Why a knob setting was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum KnobRefusal {
    /// No knob of this model has this name (shortened).
    NotAKnob(String),
    /// The text typed (shortened) is not a whole number.
    NotANumber { label: &'static str, text: String },
    /// Outside the browser's bounds (tighter than the engine's).
    OutOfRange { label: &'static str, min: u64, max: u64 },
    /// The engine refused the value.
    Engine(ModelError),
    /// An arena run too big to replay here: `threads`² handshakes × `ops`.
    TooMuchWork { threads: u64, ops: u64 },
}

impl fmt::Display for KnobRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnobRefusal::NotAKnob(name) => write!(f, "`{name}` is not a knob of this model"),
            KnobRefusal::NotANumber { label, text } => write!(f, "{label}: “{text}” is not a whole number"),
            KnobRefusal::OutOfRange { label, min, max } => write!(f, "{label} must be between {min} and {max} here (the CLI takes more)"),
            KnobRefusal::Engine(e) => e.fmt(f),
            KnobRefusal::TooMuchWork { threads: n, ops } => write!(
                f,
                "{n} threads × {n} handshakes × {ops} ops is too much to replay in the browser (at most {}): use fewer threads or ops, or the CLI",
                crate::format::count(MAX_ARENA_WORK)
            ),
        }
    }
}

/// `config` with knob `name` set from the text a user typed, or why not.
pub fn set(config: &ModelConfig, name: &str, text: &str) -> Result<ModelConfig, KnobRefusal> {
    let knob = knobs(config).iter().find(|k| k.name == name).ok_or_else(|| KnobRefusal::NotAKnob(shorten(name)))?;
    let v: u64 = text.trim().parse().map_err(|_| KnobRefusal::NotANumber { label: knob.label, text: shorten(text.trim()) })?;
    if !(knob.min..=knob.max).contains(&v) {
        return Err(KnobRefusal::OutOfRange { label: knob.label, min: knob.min, max: knob.max });
    }
    let next = models::set_knob(config, name, v).map_err(KnobRefusal::Engine)?;
    check_work(&next)?;
    Ok(next)
}

/// Apply knob settings in order (from a share link or the autosave).
pub fn set_all(config: &ModelConfig, settings: &[(String, String)]) -> Result<ModelConfig, KnobRefusal> {
    settings.iter().try_fold(config.clone(), |c, (name, text)| set(&c, name, text))
}

fn check_work(config: &ModelConfig) -> Result<(), KnobRefusal> {
    if let ModelConfig::Arena(a) = config {
        let n = a.threads.len() as u64;
        let work = n.saturating_mul(n).saturating_mul(a.warmup_ops.saturating_add(a.ops));
        if work > MAX_ARENA_WORK {
            return Err(KnobRefusal::TooMuchWork { threads: n, ops: a.warmup_ops + a.ops });
        }
    }
    Ok(())
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(24).collect();
    if s.chars().count() > 24 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(id: &str) -> ModelConfig {
        models::find(id).expect("a model preset").config()
    }

    #[test]
    fn every_preset_has_knobs_with_current_values_in_range() {
        for p in models::MODEL_PRESETS {
            let c = p.config();
            assert!(!knobs(&c).is_empty());
            for k in knobs(&c) {
                let v = value(&c, k.name).unwrap_or_else(|| panic!("{} has no {}", p.id, k.name));
                assert!((k.min..=k.max).contains(&v), "{} {} = {v}", p.id, k.name);
                assert_eq!(set(&c, k.name, &v.to_string()).map(|n| value(&n, k.name)), Ok(Some(v)), "{} {}", p.id, k.name);
            }
        }
    }

    #[test]
    fn a_valid_value_changes_the_config() {
        let c = set(&preset("records_rotating11"), "shapes", " 9 ").expect("valid");
        assert_eq!(value(&c, "shapes"), Some(9));
        let c = set(&preset("arena_closeGroup"), "threads", "8").expect("valid");
        assert_eq!(value(&c, "threads"), Some(8));
    }

    #[test]
    fn bad_values_are_messages() {
        let c = preset("records_rotating11");
        assert!(set(&c, "shapes", "abc").unwrap_err().to_string().contains("not a whole number"));
        assert!(set(&c, "shapes", "-3").unwrap_err().to_string().contains("not a whole number"));
        assert!(set(&c, "shapes", "0").unwrap_err().to_string().contains("between 1 and 1000"));
        assert!(set(&c, "shapes", &"9".repeat(40)).unwrap_err().to_string().contains('…'));
        assert!(set(&c, "threads", "4").unwrap_err().to_string().contains("not a knob"));
        let wide = set(&preset("arena_scaling16"), "threads", "64").expect("64 threads at 100 ops fit");
        assert!(set(&wide, "ops", "2000").unwrap_err().to_string().contains("too much"));
    }

    #[test]
    fn settings_apply_in_order() {
        let c = preset("arena_closeGroup");
        let settings = vec![("threads".to_string(), "4".to_string()), ("ops".to_string(), "50".to_string())];
        let c = set_all(&c, &settings).expect("valid");
        assert_eq!((value(&c, "threads"), value(&c, "ops")), (Some(4), Some(50)));
        assert!(set_all(&c, &[("ops".into(), "x".into())]).is_err());
    }
}
