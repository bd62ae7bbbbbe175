//! Trace reading speed per log format, in MB/s (printed, not asserted: machines are noisy).
//! Run: `cargo bench -p blast-engine --bench trace`.
//!
//! Input per format: `BLAST_TRACE_V8` / `BLAST_TRACE_HOTSPOT` / `BLAST_TRACE_GROOVY` (a log's
//! path) if set, else the big logs `scripts/capture-traces.sh --big` writes to
//! probes/traces/logs-big/ when present, else the committed samples (probes/traces/logs/)
//! repeated in memory to at least 64 MB. The log is read from memory in 1 MiB chunks through
//! `TraceReader::feed`, as the CLI and the browser worker feed it, so the figure is the
//! reader's, not the disk's. Best of three runs.

use std::time::Instant;

use blast_engine::trace::{Limits, LogFormat, TraceReader};

const CHUNK: usize = 1 << 20;
const MIN_BYTES: usize = 64 << 20;

fn root() -> String {
    format!("{}/../../probes/traces", env!("CARGO_MANIFEST_DIR"))
}

/// The log to read for `format`, and where it came from.
fn input(format: LogFormat) -> (Vec<u8>, String) {
    let (var, big, samples): (&str, &str, &[&str]) = match format {
        LogFormat::V8 => ("BLAST_TRACE_V8", "v8-proto-write-big", &["v8-proto-write", "v8-shapes-plugins"]),
        LogFormat::HotSpot => ("BLAST_TRACE_HOTSPOT", "hotspot-big", &["hotspot-cha-break", "hotspot-plugin-registry"]),
        LogFormat::Groovy => ("BLAST_TRACE_GROOVY", "groovy-three-receivers-big", &["groovy-plugin-registry", "groovy-unrelated-churn"]),
    };
    if let Ok(path) = std::env::var(var) {
        return (std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")), path);
    }
    let big = format!("{}/logs-big/{big}.log", root());
    if let Ok(bytes) = std::fs::read(&big) {
        return (bytes, big);
    }
    let mut one = Vec::new();
    for s in samples {
        let path = format!("{}/logs/{s}.log", root());
        one.extend(std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")));
    }
    let copies = MIN_BYTES.div_ceil(one.len());
    (one.repeat(copies), format!("{} samples x {copies}", samples.join(" + ")))
}

fn main() {
    println!("{:<8} {:>9} {:>10} {:>9} {:>8}  input", "format", "MB", "lines", "events", "MB/s");
    for format in LogFormat::ALL {
        let (bytes, from) = input(format);
        let mut best = f64::INFINITY;
        let mut counts = (0, 0);
        for _ in 0..3 {
            let start = Instant::now();
            let mut r = TraceReader::with_format(Limits::default(), format);
            for c in bytes.chunks(CHUNK) {
                r.feed(c);
            }
            let t = r.finish();
            best = best.min(start.elapsed().as_secs_f64());
            counts = (t.lines, t.events());
            assert!(t.stopped.is_none(), "{from}: {:?}", t.stopped);
        }
        let mb = bytes.len() as f64 / 1e6;
        println!("{:<8} {mb:>9.1} {:>10} {:>9} {:>8.0}  {from}", format.name(), counts.0, counts.1, mb / best);
    }
}
