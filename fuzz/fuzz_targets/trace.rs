//! The trace readers (V8, HotSpot LogCompilation, Groovy indy) on arbitrary bytes, detected and
//! forced to each format: never panic, stay within the limits, and read the same whatever the
//! chunking (a line split across chunks is the same line). After a `#classes` line the input is
//! a class tree (`trace::classes`): read, and a log of class loads replayed over its code units
//! (ids in range, no policy retiring more than was live). Seeds: excerpts of the committed real
//! logs, cut mid-line and with bytes changed, a log with its class tree, and garbage
//! (fuzz/seeds/trace).
#![no_main]

use blast_engine::trace::{blast_radii, parse_classes, read, replay, Limits, LogFormat, MutationKind, Subject, Trace, TraceReader};
use libfuzzer_sys::fuzz_target;

const LIMITS: Limits = Limits { max_line: 512, max_events: 2_000, max_bytes: 1 << 20, keep_unknown: 4 };

fn check(t: &Trace) {
    assert!(t.lines >= t.ignored + t.not_understood);
    assert!(t.first_not_understood.len() <= LIMITS.keep_unknown);
    assert!(t.first_not_understood.iter().all(|u| u.text.len() <= 3 * 160));
    // The cap is checked after each line, and one line adds at most two events.
    assert!(t.events() <= LIMITS.max_events + 2);
    for inv in &t.invalidations {
        assert!(inv.site.is_none_or(|s| (s as usize) < t.sites.len()));
        assert!(inv.unit.is_none_or(|u| (u as usize) < t.units.len()));
        assert!(inv.cause.is_none_or(|c| (c.mutation as usize) < t.mutations.len()));
    }
    for m in &t.mutations {
        assert!(m.site.is_none_or(|s| (s as usize) < t.sites.len()));
    }
    let radii = blast_radii(t);
    assert_eq!(radii.len(), t.mutations.len());
}

/// The unit replay of `t` with the class tree `tree` (the site replay runs five simulations: the
/// scenario fuzz target covers those).
fn replay_units(mut t: Trace, tree: &[u8]) {
    let Ok(classes) = parse_classes(&String::from_utf8_lossy(tree)) else { return };
    t.add_classes(classes);
    if !t.mutations.iter().any(|m| m.kind == MutationKind::ClassLoad) {
        return;
    }
    let Ok(r) = replay(&t) else { return };
    assert_eq!(r.subject, Subject::Units);
    for m in &r.mutations {
        assert!(m.observed.iter().all(|&u| (u as usize) < t.units.len()));
        for p in &m.predicted {
            assert!(p.len() as u32 <= m.linked && p.iter().all(|&u| (u as usize) < t.units.len()));
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let split = input.windows(10).position(|w| w == b"\n#classes\n");
    let (bytes, tree) = match split {
        Some(i) => (&input[..i + 1], Some(&input[i + 10..])),
        None => (input, None),
    };
    let chunk = bytes.len() % 97 + 1;
    for format in [None, Some(LogFormat::V8), Some(LogFormat::HotSpot), Some(LogFormat::Groovy)] {
        let whole = read(bytes, LIMITS, format);
        check(&whole);
        let mut r = match format {
            Some(f) => TraceReader::with_format(LIMITS, f),
            None => TraceReader::new(LIMITS),
        };
        for c in bytes.chunks(chunk) {
            r.feed(c);
        }
        let t = r.finish();
        check(&t);
        assert_eq!((t.lines, t.events(), t.not_understood), (whole.lines, whole.events(), whole.not_understood), "chunks of {chunk}");
        assert_eq!(blast_radii(&t), blast_radii(&whole));
        if let Some(tree) = tree {
            replay_units(t, tree);
        }
    }
});
