//! `blast trace FILE...`: read runtime logs (V8, HotSpot LogCompilation, Groovy 2.4 indy) through
//! the engine's chunked reader and print the detected format, the counts, the lines not
//! understood and each mutation's blast radius.

use std::fmt::Write as _;
use std::io::Read;

use blast_engine::sim::thousands;
use blast_engine::trace::replay::Score;
use blast_engine::trace::{
    blast_radii, parse_classes, replay, BlastRadius, ClassFacts, Limits, LogFormat, Mutation, Replay, ReplayError, Subject, Trace, TraceError, TraceReader, Why,
};
use blast_engine::Policy;
use serde::Serialize;

use crate::error::CliError;
use crate::options::{Format, Options};
use crate::out::Out;
use crate::Ended;

pub(crate) const TRACE_FORMATS: &[Format] = &[Format::Table, Format::Json, Format::Csv];
/// With `--replay`, also the implied scenario as DSL text, and the observed-scope table of
/// docs/RUNTIMES.md as Markdown.
const REPLAY_FORMATS: &[Format] = &[Format::Table, Format::Json, Format::Csv, Format::Dsl, Format::Markdown];

/// Bytes read from the file per chunk fed to the reader.
const CHUNK: usize = 1 << 20;

/// Mutations listed one by one in the table; the rest are counted.
const LISTED: usize = 40;

pub(crate) fn cmd_trace(opts: &Options, out: &mut Out) -> Result<Ended, CliError> {
    let format = opts.format_for("trace", if opts.replay { REPLAY_FORMATS } else { TRACE_FORMATS })?;
    if opts.positional.is_empty() {
        return Err(CliError::MissingTarget);
    }
    let forced = opts.log_format.as_deref().map(str::parse::<LogFormat>).transpose().map_err(CliError::LogFormat)?;
    let mut traces = Vec::new();
    for path in &opts.positional {
        traces.push((path.as_str(), read_file(path, forced, Limits::default())?));
    }
    // The observed-scope table (Markdown) replays each trace itself.
    let replays: Vec<Option<Result<Replay, ReplayError>>> =
        traces.iter().map(|(_, t)| (opts.replay && format != Format::Markdown).then(|| replay(t))).collect();
    let stdout = match format {
        Format::Json => {
            let all: Vec<Summary> = traces.iter().zip(&replays).map(|((p, t), r)| Summary::of(p, t, r.as_ref())).collect();
            out.json(&all)?;
            String::new()
        }
        Format::Csv if opts.replay => replay_csv(&traces, &replays),
        Format::Markdown => trace_scope_markdown(&traces),
        Format::Csv => csv(&traces),
        Format::Dsl => traces.iter().zip(&replays).map(|((p, _), r)| dsl_text(p, r.as_ref())).collect::<Vec<_>>().join("\n"),
        _ => traces
            .iter()
            .zip(&replays)
            .map(|((p, t), r)| table(p, t) + &r.as_ref().map(|r| replay_table(t, r)).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let stopped: Vec<String> = traces.iter().filter_map(|(p, t)| t.stopped.as_ref().map(|e| format!("error: {p}: {e}\n"))).collect();
    out.text(&stdout)?;
    Ok(Ended { code: if stopped.is_empty() { 0 } else { 1 }, note: stopped.concat() })
}

/// A sample's name in the docs: its file name without the directory and `.log`.
fn sample_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.strip_suffix(".log").unwrap_or(file).to_string()
}

/// The cap on a class tree file (a line per class, [`blast_engine::trace::classes::MAX_CLASSES`]
/// of them).
const CLASS_TREE_CAP: u64 = 64 << 20;

/// The class tree the capture recorded beside `NAME.log`: `NAME.classes`, when there is one.
fn class_tree(log: &str) -> Result<Option<Vec<ClassFacts>>, CliError> {
    let Some(stem) = log.strip_suffix(".log") else { return Ok(None) };
    let file = format!("{stem}.classes");
    if !std::path::Path::new(&file).is_file() {
        return Ok(None);
    }
    let text = crate::input::read_text(&file, CLASS_TREE_CAP).map_err(|error| CliError::Input { target: file.clone(), error })?;
    parse_classes(&text).map(Some).map_err(|error| CliError::ClassTree { file, error })
}

/// Read a log through the engine's reader, a chunk at a time (a file over the cap is refused
/// before it is read), with the class tree beside it (`NAME.classes` for `NAME.log`).
pub fn read_file(path: &str, forced: Option<LogFormat>, limits: Limits) -> Result<Trace, CliError> {
    let unreadable = |error: std::io::Error| CliError::LogUnreadable { file: path.to_string(), error };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut reader = match forced {
        Some(f) => TraceReader::with_format(limits, f),
        None => TraceReader::new(limits),
    };
    if let Ok(meta) = file.metadata() {
        reader.check_size(meta.len()).map_err(|error| CliError::Trace { file: path.to_string(), error })?;
    }
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut buf).map_err(unreadable)?;
        if n == 0 || reader.feed(&buf[..n]).stopped.is_some() {
            break;
        }
    }
    let mut trace = reader.finish();
    if let Some(classes) = class_tree(path)? {
        trace.add_classes(classes);
    }
    Ok(trace)
}

fn why(w: Why) -> String {
    match w {
        Why::NotUnderstood => String::new(),
        Why::NoFormatYet => " (before the format was recognized)".to_string(),
        Why::TooLong(n) => format!(" ({} bytes, over the line limit)", thousands(n)),
        Why::NotUtf8 => " (not UTF-8)".to_string(),
    }
}

fn mutation_label(t: &Trace, m: &Mutation) -> String {
    let mut s = format!("{} {}", m.kind.name(), m.class);
    if let Some(member) = &m.member {
        let _ = write!(s, ".{member}");
    }
    if let Some(site) = m.site {
        let _ = write!(s, " at {}", t.sites[site as usize].key);
    }
    s
}

fn table(path: &str, t: &Trace) -> String {
    let mut s = String::new();
    let format = t.format.map(|f| f.name()).unwrap_or("unrecognized");
    let _ = writeln!(s, "{path}: {format}, {}", t.version.as_deref().unwrap_or("version not stated"));
    for h in &t.header {
        let _ = writeln!(s, "  # {h}");
    }
    let _ = writeln!(
        s,
        "  {} bytes, {} lines: {} ignored, {} not understood",
        thousands(t.bytes),
        thousands(t.lines),
        thousands(t.ignored),
        thousands(t.not_understood)
    );
    if let Some(first) = t.first_not_understood.first() {
        let _ = writeln!(s, "  {} lines not understood, first at {}{}: {}", thousands(t.not_understood), first.line, why(first.why), first.text);
        for u in &t.first_not_understood[1..] {
            let _ = writeln!(s, "    line {}{}: {}", u.line, why(u.why), u.text);
        }
    }
    if !t.classes.is_empty() {
        let _ = writeln!(s, "  {} classes in the capture's class tree", thousands(t.classes.len() as u64));
    }
    let attributed = t.invalidations.iter().filter(|i| i.cause.is_some()).count();
    let _ = writeln!(
        s,
        "  {} mutations, {} invalidations ({} attributed), {} code units, {} sites",
        thousands(t.mutations.len() as u64),
        thousands(t.invalidations.len() as u64),
        thousands(attributed as u64),
        thousands(t.units.len() as u64),
        thousands(t.sites.len() as u64)
    );
    let radii = blast_radii(t);
    let (hit, quiet): (Vec<&BlastRadius>, Vec<&BlastRadius>) = radii.iter().partition(|r| r.invalidations > 0);
    if !hit.is_empty() {
        s.push_str("  blast radius per mutation:\n");
    }
    for r in hit.iter().take(LISTED) {
        let m = &t.mutations[r.mutation as usize];
        let _ = writeln!(
            s,
            "    line {} {}: {} sites, {} code units ({} exact, {} by order)",
            m.at.line,
            mutation_label(t, m),
            r.sites.len(),
            r.units.len(),
            r.exact,
            r.by_order
        );
        for g in r.groups(t) {
            let _ = write!(s, "      {}: {} sites, {} code units", g.name, g.sites, g.units);
            let _ = writeln!(s, "{}{}", if g.functions.is_empty() { "" } else { ": " }, g.functions.join(", "));
        }
    }
    if hit.len() > LISTED {
        let _ = writeln!(s, "    ... {} more mutations with a blast radius", hit.len() - LISTED);
    }
    if !quiet.is_empty() {
        let _ = writeln!(s, "  {} mutations invalidated nothing the log shows", quiet.len());
    }
    if let Some(e) = &t.stopped {
        let _ = writeln!(s, "  {e}");
    }
    s
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(traces: &[(&str, Trace)]) -> String {
    let mut s = String::from("file,format,line,kind,class,member,site,sites,code_units,exact,by_order\n");
    for (path, t) in traces {
        let format = t.format.map(|f| f.name()).unwrap_or("");
        for r in blast_radii(t) {
            let m = &t.mutations[r.mutation as usize];
            let site = m.site.map(|x| t.sites[x as usize].key.to_string()).unwrap_or_default();
            let cells = [
                csv_cell(path),
                format.to_string(),
                m.at.line.to_string(),
                m.kind.name().to_string(),
                csv_cell(&m.class),
                csv_cell(m.member.as_deref().unwrap_or("")),
                csv_cell(&site),
                r.sites.len().to_string(),
                r.units.len().to_string(),
                r.exact.to_string(),
                r.by_order.to_string(),
            ];
            s.push_str(&cells.join(","));
            s.push('\n');
        }
    }
    s
}

/// `--format json`: the counts and each mutation's blast radius (not every event).
#[derive(Serialize)]
struct Summary<'a> {
    file: &'a str,
    format: Option<LogFormat>,
    version: Option<&'a str>,
    header: &'a [String],
    bytes: u64,
    lines: u64,
    ignored: u64,
    not_understood: u64,
    first_not_understood: &'a [blast_engine::trace::Unknown],
    mutations: usize,
    invalidations: usize,
    code_units: usize,
    sites: usize,
    blast_radius: Vec<Radius<'a>>,
    stopped: Option<&'a TraceError>,
    /// With `--replay`: the replay, or why there is none, as the message a reader of the JSON
    /// sees (`{"Err": "..."}`: the engine's `ReplayError` has no serde form of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    replay: Option<Result<&'a Replay, String>>,
}

#[derive(Serialize)]
struct Radius<'a> {
    mutation: &'a Mutation,
    label: String,
    radius: BlastRadius,
    groups: Vec<blast_engine::trace::Group>,
}

impl<'a> Summary<'a> {
    fn of(file: &'a str, t: &'a Trace, replay: Option<&'a Result<Replay, ReplayError>>) -> Summary<'a> {
        let blast_radius = blast_radii(t)
            .into_iter()
            .map(|r| Radius {
                mutation: &t.mutations[r.mutation as usize],
                label: mutation_label(t, &t.mutations[r.mutation as usize]),
                groups: r.groups(t),
                radius: r,
            })
            .collect();
        Summary {
            file,
            format: t.format,
            version: t.version.as_deref(),
            header: &t.header,
            bytes: t.bytes,
            lines: t.lines,
            ignored: t.ignored,
            not_understood: t.not_understood,
            first_not_understood: &t.first_not_understood,
            mutations: t.mutations.len(),
            invalidations: t.invalidations.len(),
            code_units: t.units.len(),
            sites: t.sites.len(),
            blast_radius,
            stopped: t.stopped.as_ref(),
            replay: replay.map(|r| r.as_ref().map_err(|e| e.to_string())),
        }
    }
}

fn score_cell(s: &Score) -> String {
    format!("p {:.2} r {:.2}", s.precision(), s.recall())
}

/// `--replay`: per mutation, the sites the log shows relinked beside each policy's, then the
/// totals and the policy the runtime behaved like.
fn replay_table(t: &Trace, r: &Result<Replay, ReplayError>) -> String {
    let mut s = String::from("  replay under every policy:\n");
    let r = match r {
        Ok(r) => r,
        Err(e) => return s + &format!("    no replay: {e}\n"),
    };
    let names: Vec<&str> = r.policies.iter().map(|p| p.name()).collect();
    let linked = match r.subject {
        Subject::Sites => {
            let _ = writeln!(s, "    {} sites with receivers replayed; sites retired of those linked (precision, recall against the log):", r.sites.len());
            "linked"
        }
        Subject::Units => {
            let _ = writeln!(
                s,
                "    {} code units compiled on class assumptions replayed; units retired of those live at the load (precision, recall against the log's make_not_entrant):",
                r.units.len()
            );
            "live"
        }
    };
    let _ = writeln!(s, "    {:<44} {:>6} {:>8}  {}", "mutation", linked, "observed", names.iter().map(|n| format!("{n:>20}")).collect::<String>());
    let (shown, quiet): (Vec<_>, Vec<_>) = r.mutations.iter().partition(|m| m.linked > 0 || !m.observed.is_empty());
    for m in shown.iter().take(LISTED) {
        let mu = &t.mutations[m.mutation as usize];
        let mut label = format!("line {} {}", mu.at.line, mutation_label(t, mu));
        label.truncate(44);
        let cells: String = m.predicted.iter().zip(&m.scores).map(|(p, sc)| format!("{:>20}", format!("{} ({})", p.len(), score_cell(sc)))).collect();
        let _ = writeln!(s, "    {label:<44} {:>6} {:>8}  {cells}", m.linked, m.observed.len());
    }
    if shown.len() > LISTED {
        let _ = writeln!(s, "    ... {} more mutations", shown.len() - LISTED);
    }
    if !quiet.is_empty() {
        let _ = writeln!(s, "    {} mutations came before any replayed site was linked", quiet.len());
    }
    s.push_str("    over the trace:");
    for (p, sc) in r.policies.iter().zip(&r.totals) {
        let _ = write!(s, " {} {} (hits {}, extra {}, missed {});", p.name(), score_cell(sc), sc.hits, sc.extra, sc.missed);
    }
    s.push('\n');
    let like: Vec<&str> = r.behaved_like().iter().map(|p| p.name()).collect();
    let _ = writeln!(s, "    the runtime behaved like: {}", like.join(" = "));
    if r.unmodeled_observed > 0 {
        let _ = match r.subject {
            Subject::Sites => writeln!(s, "    ({} relinked sites have no receiver class in the log and are not replayed)", r.unmodeled_observed),
            Subject::Units => writeln!(s, "    ({} units made not entrant have no recorded class assumption and are not replayed)", r.unmodeled_observed),
        };
    }
    s
}

fn replay_csv(traces: &[(&str, Trace)], replays: &[Option<Result<Replay, ReplayError>>]) -> String {
    let mut s = String::from("file,line,mutation,policy,linked,observed,predicted,hits,extra,missed,precision,recall\n");
    for ((path, t), r) in traces.iter().zip(replays) {
        let Some(Ok(r)) = r else { continue };
        for m in &r.mutations {
            let mu = &t.mutations[m.mutation as usize];
            for ((p, pred), sc) in r.policies.iter().zip(&m.predicted).zip(&m.scores) {
                let cells = [
                    csv_cell(path),
                    mu.at.line.to_string(),
                    csv_cell(&mutation_label(t, mu)),
                    p.name().to_string(),
                    m.linked.to_string(),
                    m.observed.len().to_string(),
                    pred.len().to_string(),
                    sc.hits.to_string(),
                    sc.extra.to_string(),
                    sc.missed.to_string(),
                    format!("{:.3}", sc.precision()),
                    format!("{:.3}", sc.recall()),
                ];
                s.push_str(&cells.join(","));
                s.push('\n');
            }
        }
    }
    s
}

/// `--replay --format dsl`: the implied scenario, to open in the editor or `blast run`.
fn dsl_text(path: &str, r: Option<&Result<Replay, ReplayError>>) -> String {
    match r {
        Some(Ok(r)) if r.subject == Subject::Units => format!("# {path}: no scenario: a class load's replay over code units runs none (docs/TRACES.md)\n"),
        Some(Ok(r)) => format!("# replay of {path}\n{}", r.text),
        Some(Err(e)) => format!("# {path}: no replay: {e}\n"),
        None => String::new(),
    }
}

/// What a trace's blast radii add up to: distinct sites and code units per mutation, summed, and
/// how their invalidations were attributed.
struct ObservedScope {
    sites: usize,
    units: usize,
    exact: u32,
    by_order: u32,
}

impl ObservedScope {
    fn of(t: &Trace) -> ObservedScope {
        let radii = blast_radii(t);
        ObservedScope {
            sites: radii.iter().map(|r| r.sites.len()).sum(),
            units: radii.iter().map(|r| r.units.len()).sum(),
            exact: radii.iter().map(|r| r.exact).sum(),
            by_order: radii.iter().map(|r| r.by_order).sum(),
        }
    }
}

/// The "observed scope from traces" table of docs/RUNTIMES.md: per committed sample, what the
/// log shows a mutation threw away (sites relinked, code units invalidated) and, where the log
/// names the sites' receivers, each policy's precision and recall against it on replay.
/// Generated (`bash scripts/lab.sh --docs`) and held equal to the committed doc by a test.
/// `samples` are (path, trace); a row is named after its file ([`sample_name`]).
pub fn trace_scope_markdown(samples: &[(&str, Trace)]) -> String {
    let policies = blast_engine::Policy::ALL;
    let mut s = String::from("| sample | runtime | mutations | sites relinked | code units invalidated | attributed exact / by order |");
    for p in policies {
        let _ = write!(s, " {} p / r |", p.name());
    }
    s.push_str(" behaved like |\n|---|---|---:|---:|---:|---:|");
    s.push_str(&"---|".repeat(policies.len() + 1));
    s.push('\n');
    for (path, t) in samples {
        let o = ObservedScope::of(t);
        let version = t.version.as_deref().unwrap_or("not stated");
        let _ = write!(s, "| `{}` | {version} | {} | {} | {} | {} / {} |", sample_name(path), t.mutations.len(), o.sites, o.units, o.exact, o.by_order);
        match replay(t) {
            Ok(r) => {
                for p in policies {
                    let _ = match r.policies.iter().position(|q| *q == p) {
                        Some(i) => write!(s, " {:.2} / {:.2} |", r.totals[i].precision(), r.totals[i].recall()),
                        // Not replayed for this log (hierarchy-v3 for class loads).
                        None => write!(s, " n/a |"),
                    };
                }
                let like: Vec<&str> = r.behaved_like().iter().map(|p| p.name()).collect();
                let _ = writeln!(s, " {} |", like.join(" = "));
            }
            Err(e) => {
                let _ = writeln!(s, "{} no replay: {e} |", " – |".repeat(policies.len()));
            }
        }
    }
    s
}

/// Whether `path` holds a runtime log rather than a probe result (a JSON object): its first
/// non-blank byte in the first 4 KiB is not `{`.
pub fn is_log(path: &str) -> Result<bool, CliError> {
    let mut head = [0u8; 4096];
    let mut file = std::fs::File::open(path).map_err(|error| CliError::LogUnreadable { file: path.to_string(), error })?;
    let n = file.read(&mut head).map_err(|error| CliError::LogUnreadable { file: path.to_string(), error })?;
    Ok(head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b != b'{'))
}

/// `blast fingerprint LOG`: a trace as evidence beside the timing probes. The log's observed
/// scope is replayed under every policy and the policies are ranked by how well each predicts
/// it (F1 of precision and recall), best first.
pub fn evidence_table(path: &str, t: &Trace) -> String {
    let mut s = String::new();
    let ObservedScope { sites, units, .. } = ObservedScope::of(t);
    let format = t.format.map(|f| f.name()).unwrap_or("unrecognized");
    let _ = writeln!(
        s,
        "{path}: trace evidence ({format}, {}): {} mutations, {sites} sites relinked, {units} code units invalidated",
        t.version.as_deref().unwrap_or("version not stated"),
        t.mutations.len()
    );
    match replay(t) {
        Ok(r) => {
            let mut ranked: Vec<(Policy, &Score)> = r.policies.iter().copied().zip(&r.totals).collect();
            ranked.sort_by(|a, b| b.1.f1().total_cmp(&a.1.f1()));
            s.push_str(
                "  policies by how well they predict the observed scope (F1, precision, recall):
",
            );
            for (p, sc) in ranked {
                let _ = writeln!(s, "    {:<14} {:.2}  ({})", p.name(), sc.f1(), score_cell(sc));
            }
            let like: Vec<&str> = r.behaved_like().iter().map(|p| p.name()).collect();
            let _ = writeln!(s, "  the runtime behaved like: {}", like.join(" = "));
        }
        Err(e) => {
            let _ = writeln!(s, "  no replay: {e}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, text: &str) -> String {
        let path = std::env::temp_dir().join(format!("blast-trace-{name}-{}.log", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn a_file_over_the_cap_is_refused_before_it_is_read() {
        let path = temp("cap", "v8-version,11,3,244,8,,0\ncode-creation,JS,10,1,0x10,4,f /a.js:1:1,0x2,~\n");
        let limits = Limits { max_bytes: 30, ..Limits::default() };
        let refused = read_file(&path, None, limits);
        let read = read_file(&path, None, Limits::default());
        std::fs::remove_file(&path).unwrap();
        match refused {
            Err(CliError::Trace { error: TraceError::TooBig { size, cap: 30 }, .. }) => assert!(size > 30),
            other => panic!("{:?}", other.map(|t| t.lines)),
        }
        let t = read.unwrap();
        assert_eq!((t.lines, t.units.len()), (2, 1));
    }
}
