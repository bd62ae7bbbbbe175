//! What the page shows of a trace, built in the engine worker from the whole [`Trace`] and sent
//! as one message: the summary (format, version, counts, the first lines not understood), each
//! mutation's fan-out grouped by source file or class, how its invalidations were attributed,
//! the replay's policy comparison and the trace's clock as a timeline.
//!
//! Bounded whatever the log's size: at most [`MAX_ROWS`] fan-out and replay rows (the rest
//! counted), [`MAX_FUNCTIONS`] functions per group and [`BINS`] timeline bins, so the message
//! and the page's memory stay small for a 100 MB log. Only the worker builds it (it reads the
//! engine's trace types) and writes it out for the page (`page::TracePage`).

use blast_engine::trace::replay::Score;
use blast_engine::trace::{blast_radii, replay, Attribution, LogFormat, ReplayError, Subject, Trace, Why};
use blast_engine::Policy;

use super::sites::TraceSites;

/// Fan-out rows and replay rows kept at most (the exports carry them; the page shows
/// `markup::SHOWN`); the rest are counted.
pub const MAX_ROWS: usize = 1000;
/// Functions named per group at most; the rest are counted.
pub const MAX_FUNCTIONS: usize = 12;
/// Columns of the timeline's invalidation histogram.
pub const BINS: usize = 120;

#[derive(Clone, Debug, PartialEq)]
pub struct TraceView {
    /// The file, sample or "the pasted log".
    pub name: String,
    /// `v8`, `hotspot`, `groovy`; `None` when no line said.
    pub format: Option<String>,
    pub version: Option<String>,
    pub bytes: u64,
    pub lines: u64,
    pub ignored: u64,
    pub not_understood: u64,
    pub first_not_understood: Vec<UnknownLine>,
    pub mutations: u64,
    pub invalidations: u64,
    pub units: u64,
    pub sites: u64,
    pub exact: u64,
    pub by_order: u64,
    pub unattributed: u64,
    /// Mutations with a blast radius, in log order (at most [`MAX_ROWS`]).
    pub fan_out: Vec<FanOut>,
    /// Mutations with a radius past [`MAX_ROWS`].
    pub more_fan_out: u64,
    /// Mutations that invalidated nothing the log shows.
    pub quiet: u64,
    /// The replay under every policy, or why there is none.
    pub replay: Result<ReplayView, NoReplay>,
    pub timeline: Timeline,
    /// Its sites and units as it left them, for the blast view and the why panel.
    pub places: TraceSites,
    /// Why reading stopped early (a cap), when it did.
    pub stopped: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLine {
    pub line: u64,
    /// Empty for a line simply not understood; else why (too long, not UTF-8, before the format).
    pub why: String,
    pub text: String,
}

/// One mutation's blast radius.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanOut {
    pub line: u64,
    pub clock_us: Option<u64>,
    /// `prototype-write`, `class-load`, `metaclass-change`, `call-site-target`.
    pub kind: String,
    pub class: String,
    pub member: Option<String>,
    /// Where the write happened, where the log says.
    pub at: Option<String>,
    pub sites: u32,
    pub units: u32,
    pub exact: u32,
    pub by_order: u32,
    /// By source file (V8), sender class (Groovy) or holder class (HotSpot).
    pub groups: Vec<FanOutGroup>,
    /// The classes whose load the log names as breaking an assumption (HotSpot's witness).
    pub witnesses: Vec<String>,
    /// The invalidations attributed to it by the log's kind (`dependency-change`, `LoadIC`,
    /// `relink`, `not-entrant`, ...), in first-seen order.
    pub kinds: Vec<(String, u32)>,
}

impl FanOut {
    /// `Point.extra3`, `ChaBreak$Circle`.
    pub fn target(&self) -> String {
        match &self.member {
            Some(m) => format!("{}.{m}", self.class),
            None => self.class.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanOutGroup {
    pub name: String,
    pub sites: u32,
    pub units: u32,
    pub functions: Vec<String>,
    pub more_functions: u32,
}

/// One policy's counts against the log: the engine's score (its ratios are its methods) and
/// the sites the policy retires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreCell {
    pub predicted: u32,
    pub score: Score,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReplayRow {
    pub line: u64,
    pub label: String,
    /// Replayed sites linked before the mutation (units: live at the load).
    pub linked: u32,
    /// Sites (units) the log shows relinked (made not entrant).
    pub observed: u32,
    /// One per policy of [`ReplayView::policies`].
    pub cells: Vec<ScoreCell>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReplayView {
    /// What was replayed: call sites, or compiled code units (a log of class loads).
    pub subject: Subject,
    /// The policies replayed (a unit replay has no `hierarchy-v3`: the others are "n/a").
    pub policies: Vec<Policy>,
    /// Sites with receivers (units compiled on class assumptions) replayed.
    pub replayed: u32,
    pub rows: Vec<ReplayRow>,
    pub more_rows: u64,
    /// Mutations before any replayed site was linked (no unit live).
    pub quiet: u64,
    /// Per policy, over the trace.
    pub totals: Vec<ScoreCell>,
    pub behaved_like: Vec<Policy>,
    /// Relinked sites without a receiver class in the log (units made not entrant without a
    /// recorded assumption): not replayed.
    pub unmodeled: u32,
    /// The implied scenario as DSL text (opens in the editor); empty for a unit replay, which
    /// runs none.
    pub scenario: String,
}

impl ReplayView {
    /// What one replayed thing is called: "call site" or "code unit".
    pub fn noun(&self) -> &'static str {
        match self.subject {
            Subject::Sites => "call site",
            Subject::Units => "code unit",
        }
    }

    /// The column of those a mutation could touch: sites linked before it, units live at it.
    pub fn linked_word(&self) -> &'static str {
        match self.subject {
            Subject::Sites => "linked",
            Subject::Units => "live",
        }
    }

    /// The cell of `policy` over the trace, `None` for a policy not replayed ("n/a").
    pub fn total(&self, policy: Policy) -> Option<&ScoreCell> {
        self.policies.iter().position(|&p| p == policy).map(|i| &self.totals[i])
    }

    /// Sites (units) `policy` keeps over the trace that `global` throws away (what it would
    /// have saved), and those it misses; `None` for a policy not replayed.
    pub fn saved_against_global(&self, policy: Policy) -> Option<(u32, u32)> {
        let (g, p) = (self.total(Policy::Global)?, self.total(policy)?);
        Some((g.predicted.saturating_sub(p.predicted), p.score.missed))
    }
}

/// The trace on its own clock (µs) where it has one, else on its line numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// `true`: `start`/`end` and every `x` are the log's clock in µs; `false`: line numbers.
    pub clock: bool,
    /// The window shown (the whole trace unless zoomed), within `whole`.
    pub start: u64,
    pub end: u64,
    /// The trace's first and last event on this axis.
    pub whole: (u64, u64),
    /// The middle of the window's densest bin (where "Zoom in" centres).
    pub peak: u64,
    /// Each mutation with a radius inside the window (at most [`MAX_ROWS`]): x, and its fan-out (sites + units).
    pub mutations: Vec<(u64, u32)>,
    /// Invalidations per bin of `(end - start) / BINS`, attributed exactly, by order, and not.
    pub exact: Vec<u32>,
    pub by_order: Vec<u32>,
    pub unattributed: Vec<u32>,
}

fn why(w: Why) -> String {
    match w {
        Why::NotUnderstood => String::new(),
        Why::NoFormatYet => "before the format was recognized".into(),
        Why::TooLong(n) => format!("{} bytes, over the line limit", crate::format::count(n)),
        Why::NotUtf8 => "not UTF-8".into(),
    }
}

fn cell(s: &Score, predicted: usize) -> ScoreCell {
    ScoreCell { predicted: predicted as u32, score: *s }
}

impl TraceView {
    /// The view of a whole trace (the engine worker, after `TraceReader::finish`).
    pub fn of(name: &str, t: &Trace) -> TraceView {
        let radii = blast_radii(t);
        let replayed = replay(t);
        let hit: Vec<_> = radii.iter().filter(|r| r.invalidations > 0).collect();
        let fan_out = hit
            .iter()
            .take(MAX_ROWS)
            .map(|r| {
                let m = &t.mutations[r.mutation as usize];
                let mut witnesses: Vec<String> = Vec::new();
                let mut kinds: Vec<(String, u32)> = Vec::new();
                for i in t.invalidations.iter().filter(|i| i.cause.is_some_and(|c| c.mutation == r.mutation)) {
                    if let blast_engine::trace::InvalidationKind::DependencyFailed { witness, .. } = &i.kind {
                        if !witnesses.contains(witness) {
                            witnesses.push(witness.clone());
                        }
                    }
                    match kinds.iter_mut().find(|(k, _)| k == i.kind.name()) {
                        Some((_, n)) => *n += 1,
                        None => kinds.push((i.kind.name().to_string(), 1)),
                    }
                }
                FanOut {
                    line: m.at.line,
                    clock_us: m.at.clock_us,
                    kind: m.kind.name().to_string(),
                    class: m.class.clone(),
                    member: m.member.clone(),
                    at: m.site.map(|s| t.sites[s as usize].key.to_string()),
                    sites: r.sites.len() as u32,
                    units: r.units.len() as u32,
                    exact: r.exact,
                    by_order: r.by_order,
                    groups: r
                        .groups(t)
                        .into_iter()
                        .map(|g| FanOutGroup {
                            name: g.name,
                            sites: g.sites,
                            units: g.units,
                            more_functions: g.functions.len().saturating_sub(MAX_FUNCTIONS) as u32,
                            functions: g.functions.into_iter().take(MAX_FUNCTIONS).collect(),
                        })
                        .collect(),
                    witnesses,
                    kinds,
                }
            })
            .collect();
        let attributed = |a: Attribution| t.invalidations.iter().filter(|i| i.cause.is_some_and(|c| c.attribution == a)).count() as u64;
        let (exact, by_order) = (attributed(Attribution::Exact), attributed(Attribution::ByOrder));
        TraceView {
            name: name.to_string(),
            format: t.format.map(|f: LogFormat| f.name().to_string()),
            version: t.version.clone(),
            bytes: t.bytes,
            lines: t.lines,
            ignored: t.ignored,
            not_understood: t.not_understood,
            first_not_understood: t.first_not_understood.iter().map(|u| UnknownLine { line: u.line, why: why(u.why), text: u.text.clone() }).collect(),
            mutations: t.mutations.len() as u64,
            invalidations: t.invalidations.len() as u64,
            units: t.units.len() as u64,
            sites: t.sites.len() as u64,
            exact,
            by_order,
            unattributed: t.invalidations.len() as u64 - exact - by_order,
            more_fan_out: hit.len().saturating_sub(MAX_ROWS) as u64,
            quiet: (radii.len() - hit.len()) as u64,
            fan_out,
            places: TraceSites::of(t, replayed.as_ref().ok()),
            replay: replay_view(name, t, replayed),
            timeline: timeline(t, &radii, None),
            stopped: t.stopped.as_ref().map(|e| e.to_string()),
        }
    }

    /// The format's runtime as people name it.
    pub fn runtime(&self) -> &str {
        match self.format.as_deref() {
            Some("v8") => "V8 (Node.js)",
            Some("hotspot") => "HotSpot (OpenJDK)",
            Some("groovy") => "Groovy 2.4 (indy)",
            _ => "not recognized",
        }
    }
}

/// A mutation's label in the replay table (the fan-out table has it in columns).
fn label(t: &Trace, m: u32) -> String {
    let m = &t.mutations[m as usize];
    let member = m.member.as_deref().map(|x| format!(".{x}")).unwrap_or_default();
    format!("{} {}{member}", m.kind.name(), m.class)
}

/// Why a trace shown on the page has no replay.
#[derive(Clone, Debug, PartialEq)]
pub enum NoReplay {
    /// A log of class loads given without the class tree its replay needs; `stem` names the
    /// file that holds it (`STEM.classes`, written by the capture script beside the log).
    MissingClassTree { stem: String },
    /// The class tree given does not parse: its file, and the reader's words.
    BadClassTree { file: String, why: String },
    /// The engine's reason (`trace::ReplayError`), in its words.
    Engine(String),
}

impl std::fmt::Display for NoReplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoReplay::MissingClassTree { stem } => write!(
                f,
                "this log loads classes but names none of their supertypes, and no class tree was given. The capture script writes it beside the log as {stem}.classes (docs/TRACES.md, \"The class tree\"): open or drop it with the log, or drop it onto this trace"
            ),
            NoReplay::BadClassTree { file, why } => write!(f, "{file} is not a class tree ({why}), so the log was replayed without one"),
            NoReplay::Engine(why) => f.write_str(why),
        }
    }
}

/// The replay, or why there is none.
fn replay_view(name: &str, t: &Trace, replayed: Result<blast_engine::trace::Replay, ReplayError>) -> Result<ReplayView, NoReplay> {
    let r = replayed.map_err(|e| match e {
        ReplayError::NoClassTree { .. } if t.classes.is_empty() => NoReplay::MissingClassTree { stem: name.strip_suffix(".log").unwrap_or(name).to_string() },
        e => NoReplay::Engine(e.to_string()),
    })?;
    let (shown, quiet): (Vec<_>, Vec<_>) = r.mutations.iter().partition(|m| m.linked > 0 || !m.observed.is_empty());
    let rows = shown
        .iter()
        .take(MAX_ROWS)
        .map(|m| ReplayRow {
            line: t.mutations[m.mutation as usize].at.line,
            label: label(t, m.mutation),
            linked: m.linked,
            observed: m.observed.len() as u32,
            cells: m.predicted.iter().zip(&m.scores).map(|(p, s)| cell(s, p.len())).collect(),
        })
        .collect();
    let predicted_total = |p: usize| r.mutations.iter().map(|m| m.predicted[p].len()).sum::<usize>();
    Ok(ReplayView {
        subject: r.subject,
        replayed: (r.sites.len() + r.units.len()) as u32,
        more_rows: shown.len().saturating_sub(MAX_ROWS) as u64,
        quiet: quiet.len() as u64,
        totals: r.totals.iter().enumerate().map(|(p, s)| cell(s, predicted_total(p))).collect(),
        behaved_like: r.behaved_like(),
        unmodeled: r.unmodeled_observed,
        rows,
        policies: r.policies,
        scenario: r.text,
    })
}

/// The timeline of `t` over `window` (clamped to the trace; `None`: the whole trace), binned at
/// full resolution: the worker answers a zoom with it (`protocol::Request::Timeline`).
pub fn zoomed(t: &Trace, window: Option<(u64, u64)>) -> Timeline {
    timeline(t, &blast_radii(t), window)
}

/// Where an event sits on the timeline's axis: the log's clock if the trace has one for every
/// event placed, else its line. Only the events inside the window are placed.
fn timeline(t: &Trace, radii: &[blast_engine::trace::BlastRadius], window: Option<(u64, u64)>) -> Timeline {
    let clock = !t.invalidations.is_empty() && t.invalidations.iter().all(|i| i.at.clock_us.is_some()) && t.mutations.iter().all(|m| m.at.clock_us.is_some());
    let x = |at: &blast_engine::trace::At| if clock { at.clock_us.unwrap_or(0) } else { at.line };
    let xs = t.invalidations.iter().map(|i| x(&i.at)).chain(t.mutations.iter().map(|m| x(&m.at)));
    let whole = xs.fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if whole.0 > whole.1 {
        return Timeline::default();
    }
    let (start, end) = clamp(window, whole);
    let inside = |v: u64| (start..=end).contains(&v);
    let span = (end - start).max(1);
    let bin = |v: u64| (((v - start) as u128 * BINS as u128 / (span as u128 + 1)) as usize).min(BINS - 1);
    let mut tl = Timeline {
        clock,
        start,
        end,
        whole,
        peak: start,
        mutations: radii
            .iter()
            .filter(|r| r.invalidations > 0)
            .map(|r| (x(&t.mutations[r.mutation as usize].at), (r.sites.len() + r.units.len()) as u32))
            .filter(|&(v, _)| inside(v))
            .take(MAX_ROWS)
            .collect(),
        exact: vec![0; BINS],
        by_order: vec![0; BINS],
        unattributed: vec![0; BINS],
    };
    for i in t.invalidations.iter().filter(|i| inside(x(&i.at))) {
        let b = bin(x(&i.at));
        match i.cause.map(|c| c.attribution) {
            Some(Attribution::Exact) => tl.exact[b] += 1,
            Some(Attribution::ByOrder) => tl.by_order[b] += 1,
            None => tl.unattributed[b] += 1,
        }
    }
    let total = |b: usize| tl.exact[b] + tl.by_order[b] + tl.unattributed[b];
    // The first of the fullest bins; its middle, in the trace's units.
    let densest = (0..BINS).rev().max_by_key(|&b| total(b)).unwrap_or(0) as u128;
    tl.peak = start + ((2 * densest + 1) * (span as u128 + 1) / (2 * BINS as u128)) as u64;
    tl
}

/// A window within the trace's extent `whole`, never empty nor reversed (`None`: all of it).
pub fn clamp(window: Option<(u64, u64)>, whole: (u64, u64)) -> (u64, u64) {
    let Some((a, b)) = window else { return whole };
    let (lo, hi) = (a.min(b).clamp(whole.0, whole.1), a.max(b).clamp(whole.0, whole.1));
    if lo == hi {
        (whole.0.max(lo.saturating_sub(1)), whole.1.min(hi + 1))
    } else {
        (lo, hi)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use blast_engine::trace::{read, Limits};

    /// A committed sample, read whole, with the class tree beside it when there is one (as
    /// `blast trace` reads it).
    pub(crate) fn sample(name: &str) -> Trace {
        let path = |ext: &str| format!("{}/../../probes/traces/logs/{name}.{ext}", env!("CARGO_MANIFEST_DIR"));
        let mut t = read(&std::fs::read(path("log")).expect("a committed sample"), Limits::default(), None);
        if let Ok(text) = std::fs::read_to_string(path("classes")) {
            t.add_classes(blast_engine::trace::parse_classes(&text).expect("a committed class tree"));
        }
        t
    }

    #[test]
    fn the_v8_sample_fans_each_prototype_write_out_to_the_point_sites_only() {
        let t = sample("v8-proto-write");
        let v = TraceView::of("v8-proto-write.log", &t);
        assert_eq!(v.format.as_deref(), Some("v8"));
        let radii = blast_radii(&t);
        assert_eq!(v.fan_out.len(), radii.iter().filter(|r| r.invalidations > 0).count());
        assert!(!v.fan_out.is_empty());
        for row in &v.fan_out {
            assert_eq!((row.kind.as_str(), row.class.as_str()), ("prototype-write", "Point"), "{row:?}");
            assert!(row.groups.iter().flat_map(|g| &g.functions).all(|f| !f.contains("Counter")), "{row:?}");
        }
        assert_eq!(v.exact + v.by_order + v.unattributed, v.invalidations);
        let r = v.replay.as_ref().expect("a replay");
        assert!(r.behaved_like.contains(&Policy::Exact), "{:?}", r.behaved_like);
        assert!(r.scenario.starts_with("scenario "));
        // The timeline counts every invalidation once.
        let tl = &v.timeline;
        let binned: u32 = tl.exact.iter().chain(&tl.by_order).chain(&tl.unattributed).sum();
        assert_eq!(u64::from(binned), v.invalidations);
        assert!(tl.clock && tl.start <= tl.end);
    }

    #[test]
    fn the_hotspot_sample_names_each_witness_and_is_replayed_over_code_units() {
        let t = sample("hotspot-cha-break");
        let v = TraceView::of("hotspot-cha-break.log", &t);
        let loads: Vec<&FanOut> = v.fan_out.iter().filter(|r| r.kind == "class-load").collect();
        let witnesses: Vec<&str> = loads.iter().flat_map(|r| r.witnesses.iter().map(String::as_str)).collect();
        assert_eq!(witnesses, ["ChaBreak$Triangle", "ChaBreak$Circle"]);
        assert_eq!(loads.iter().map(|r| r.class.as_str()).collect::<Vec<_>>(), witnesses);
        let r = v.replay.as_ref().expect("a replay with the class tree");
        assert_eq!(r.behaved_like, replay(&t).unwrap().behaved_like());
    }

    /// The committed samples (every `.log` of `probes/traces/logs/`).
    pub(crate) fn committed_samples() -> Vec<String> {
        let dir = format!("{}/../../probes/traces/logs", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".log").map(str::to_string)).collect();
        names.sort();
        names
    }

    #[test]
    fn every_sample_replays_on_the_page_as_the_engine_replays_it() {
        for name in committed_samples() {
            let t = sample(&name);
            let v = TraceView::of(&name, &t);
            let (r, e) = (v.replay.as_ref().expect(&name), replay(&t).expect(&name));
            assert_eq!(r.subject, e.subject, "{name}");
            assert_eq!(r.behaved_like, e.behaved_like(), "{name}");
            assert_eq!(r.policies, e.policies, "{name}");
            for (p, s) in e.policies.iter().zip(&e.totals) {
                let c = r.total(*p).unwrap();
                assert_eq!((c.score.precision(), c.score.recall()), (s.precision(), s.recall()), "{name} {p:?}");
            }
            for p in Policy::ALL.into_iter().filter(|p| !e.policies.contains(p)) {
                assert!(r.total(p).is_none(), "{name} {p:?}");
            }
            assert_eq!(r.replayed as usize, e.sites.len() + e.units.len(), "{name}");
            assert_eq!(r.scenario, e.text, "{name}");
        }
    }

    #[test]
    fn rows_are_bounded_and_the_rest_counted() {
        let t = sample("groovy-same-class-churn");
        let v = TraceView::of("x", &t);
        assert!(v.fan_out.len() <= MAX_ROWS);
        assert_eq!(v.fan_out.len() as u64 + v.more_fan_out + v.quiet, v.mutations);
        let r = v.replay.as_ref().unwrap();
        // Global retires at least what exact does; exact saves the difference.
        let (saved, _) = r.saved_against_global(Policy::Exact).unwrap();
        let at = |p| r.policies.iter().position(|&q| q == p).unwrap();
        assert_eq!(saved, r.totals[at(Policy::Global)].predicted - r.totals[at(Policy::Exact)].predicted);
    }

    #[test]
    fn a_window_bins_each_invalidation_inside_it_once_and_none_outside() {
        for name in committed_samples() {
            let t = sample(&name);
            let whole = zoomed(&t, None);
            let (lo, hi) = whole.whole;
            let x = |at: &blast_engine::trace::At| if whole.clock { at.clock_us.unwrap() } else { at.line };
            for window in [(lo, hi), (lo + (hi - lo) / 3, lo + (hi - lo) / 2), (lo + (hi - lo) / 2, hi + 1000), (hi - 1, hi)] {
                let tl = zoomed(&t, Some(window));
                let binned: u32 = tl.exact.iter().chain(&tl.by_order).chain(&tl.unattributed).sum();
                let inside = t.invalidations.iter().filter(|i| (tl.start..=tl.end).contains(&x(&i.at))).count();
                assert_eq!(binned as usize, inside, "{name} {window:?}");
                assert!(tl.start >= lo && tl.end <= hi && tl.start < tl.end, "{name}: {window:?} clamped to {:?}", (tl.start, tl.end));
                assert!(tl.mutations.iter().all(|&(m, _)| (tl.start..=tl.end).contains(&m)), "{name}");
                assert!((tl.start..=tl.end).contains(&tl.peak), "{name}");
            }
            assert_eq!(zoomed(&t, Some((lo, hi))), whole, "{name}: the whole extent as a window is the whole trace");
        }
    }

    #[test]
    fn a_window_is_clamped_to_the_trace_and_never_empty() {
        assert_eq!(clamp(None, (10, 50)), (10, 50));
        assert_eq!(clamp(Some((0, 900)), (10, 50)), (10, 50));
        assert_eq!(clamp(Some((40, 20)), (10, 50)), (20, 40));
        assert_eq!(clamp(Some((60, 70)), (10, 50)), (49, 50));
        assert_eq!(clamp(Some((30, 30)), (10, 50)), (29, 31));
    }
}
