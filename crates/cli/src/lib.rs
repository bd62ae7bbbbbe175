//! Argument handling and output formatting for the `blast` binary, kept as a library so it is
//! tested without spawning processes: [`run`] writes to any `io::Write` pair and returns the
//! exit code, [`main_with_args`] captures both streams.

mod check;
mod error;
mod format;
mod input;
mod options;
mod out;
pub mod plot;
mod runs;
mod trace;

use std::fmt::Write as _;
use std::io;

use blast_engine::calibrate::{calibrate, CalRow, Calibration};
use blast_engine::fingerprint::{fingerprint, Fingerprint, ProbeResult, MAX_PROBE_BYTES};
use blast_engine::groovy24;
use blast_engine::models::{self, ModelConfig, ModelError, ModelReport};
use blast_engine::params::Param;
use blast_engine::policy::Policy;
use blast_engine::reference::Reference;
use blast_engine::runtimes::{self, PROFILES};
use blast_engine::sweep::Knob;
use blast_engine::{dsl, presets, sim, Params, Scenario};

pub use error::{CliError, EXIT_OUTPUT};
pub use options::{parse_options, Format, Options, MAX_SWEEP_VALUES};
pub use trace::{read_file as read_trace, trace_scope_markdown};

use out::Out;

/// A command's two streams and exit code, captured ([`main_with_args`]).
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// How a command that did not fail ended: 0, or 1 with a note for stderr when it found what
/// it checks for (a calibration row out of tolerance, a failed expectation).
pub(crate) struct Ended {
    pub code: i32,
    pub note: String,
}

impl Ended {
    pub(crate) const OK: Ended = Ended { code: 0, note: String::new() };
}

/// Run `blast` with `args`, writing to `stdout` and `stderr`; returns the exit code. A
/// failure to write stdout ends the command: quietly with 0 when the reader went away (a
/// broken pipe), otherwise with one line on stderr and [`EXIT_OUTPUT`]. A failure to write
/// stderr is ignored (there is nowhere left to say it); the exit code still tells.
pub fn run(args: &[String], stdout: &mut dyn io::Write, stderr: &mut dyn io::Write) -> i32 {
    let mut out = Out::new(stdout);
    let result = dispatch(args, &mut out);
    // What was printed before a refusal is delivered before the refusal's message.
    let flushed = out.flush();
    drop(out);
    let (code, note) = match result.and_then(|ended| Ok(flushed.map(|()| ended)?)) {
        Ok(Ended { code, note }) => (code, note),
        Err(e) if e.is_quiet() => return 0,
        Err(e) => (e.exit_code(), format!("error: {e}\n")),
    };
    if !note.is_empty() {
        let _ = stderr.write_all(note.as_bytes()).and_then(|()| stderr.flush());
    }
    code
}

/// [`run`] with both streams captured, for tests.
pub fn main_with_args(args: &[String]) -> Output {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let code = run(args, &mut stdout, &mut stderr);
    Output { code, stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned() }
}

/// What `run` and `sweep` can print, for scenarios and models alike.
pub(crate) const RUN_FORMATS: &[Format] = &[Format::Table, Format::Json, Format::Csv];
pub(crate) const SWEEP_FORMATS: &[Format] = &[Format::Table, Format::Csv];
const SHOW_FORMATS: &[Format] = &[Format::Dsl, Format::Json];
const CALIBRATE_FORMATS: &[Format] = &[Format::Table, Format::Markdown, Format::Json];
const TEXT_ONLY: &[Format] = &[Format::Table];
const FINGERPRINT_FORMATS: &[Format] = &[Format::Table, Format::Markdown, Format::Json];

fn format_names(formats: &[Format]) -> String {
    formats.iter().map(|f| f.name()).collect::<Vec<_>>().join("|")
}

/// The help text: commands with the formats each prints, then every parameter a `--param` can
/// set, with its default and what it means.
pub fn usage() -> String {
    let mut s = String::from("blast: invalidation blast-radius simulator\n\nusage:\n");
    let commands = [
        ("blast presets", TEXT_ONLY, "list the shipped presets"),
        (
            "blast run <preset|file|all> [--policy global,exact,...] [--param name=value ...]",
            RUN_FORMATS,
            "run under each policy (a model preset: under each variant)",
        ),
        ("blast sweep <preset|file> --param name=v1,v2,... [--param other=value] [--policy ...]", SWEEP_FORMATS, "throughput per policy across a parameter"),
        (
            "blast calibrate [--plot sweeps.png]",
            CALIBRATE_FORMATS,
            "compare with the published figures; exit 1 if any row is outside tolerance; --plot draws the Groovy 2.4 sweeps beside their simulation",
        ),
        (
            "blast show <preset|file> [--policy ...] [--param name=value ...]",
            SHOW_FORMATS,
            "print a scenario (converts between DSL and JSON); refused when `run` with the same options would refuse it",
        ),
        (
            "blast check <file|preset|all>... [--param name=value ...]",
            check::CHECK_FORMATS,
            "validate scenarios and evaluate their `expect` lines; exit 1 if any expectation fails",
        ),
        (
            "blast fingerprint <probe-result.json|log>... [--plot chart.png]",
            FINGERPRINT_FORMATS,
            "name the policy that explains a real runtime's probe results best (probes/README.md); a runtime log (docs/TRACES.md) is evidence too: its observed scope replayed under every policy, the policies ranked by how well they predict it; --plot draws the probes' fanout rows beside every policy",
        ),
        (
            "blast trace <log>... [--log-format v8|hotspot|groovy] [--replay]",
            trace::TRACE_FORMATS,
            "read V8, HotSpot LogCompilation or Groovy 2.4 indy logs (format detected unless given): counts, lines not understood, each mutation's blast radius; --replay runs the scenario the log implies under every policy (observed vs predicted sites, precision, recall; --format dsl prints that scenario) (docs/TRACES.md)",
        ),
    ];
    for (synopsis, formats, what) in commands {
        let _ = writeln!(s, "  {synopsis}");
        if formats.len() > 1 {
            let _ = writeln!(s, "      [--format {}] (default {})", format_names(formats), formats[0].name());
        }
        let _ = writeln!(s, "      {what}");
    }
    let policies: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
    let _ = writeln!(s, "\npolicies: {}", policies.join(", "));
    s.push_str("\nscenario parameters (--param name=value):\n");
    for k in Knob::SCENARIO {
        let _ = writeln!(s, "  {:<24} {}", k.name(), k.meaning());
    }
    s.push_str("\nthe engine's costs and thresholds (--param name=value; default in brackets):\n");
    let defaults = Params::default();
    for p in Param::ALL {
        let _ = writeln!(s, "  {:<24} [{}] {}", p.name(), defaults.get(p), p.meaning());
    }
    s.push_str("\nmodel presets (records_*, arena_*, descriptor_*): --policy names their variants, --param sets their knobs:\n");
    for p in models::MODEL_PRESETS {
        let c = p.config();
        let _ = writeln!(s, "  {:<24} variants {}; knobs {}", p.id, c.variants().join(", "), c.knobs().join(", "));
    }
    let _ = write!(
        s,
        "\nlimits: a scenario file is read up to {} bytes, a probe result up to {} (refused at the cap, naming it); sweep runs at most {MAX_SWEEP_VALUES} values\n\
         \nexit codes:\n  0   done (also when the reader of the output goes away: `blast ... | head` ends quietly)\n  1   a bad input, a refused run, a failed calibration row or expectation\n  2   a wrong command line\n  {EXIT_OUTPUT}  the output could not be written (a full disk, a device error); one line on stderr\n",
        dsl::MAX_INPUT,
        MAX_PROBE_BYTES
    );
    s
}

fn dispatch(args: &[String], out: &mut Out) -> Result<Ended, CliError> {
    let cmd = args.first().ok_or(CliError::NoCommand)?;
    let opts = parse_options(&args[1..])?;
    if opts.plot.is_some() && !matches!(cmd.as_str(), "fingerprint" | "calibrate") {
        return Err(CliError::PlotNotSupported(cmd.clone()));
    }
    if (opts.log_format.is_some() || opts.replay) && cmd != "trace" {
        return Err(CliError::LogFormatNotSupported(cmd.clone()));
    }
    if matches!(cmd.as_str(), "run" | "sweep") {
        if let Some(preset) = opts.positional.first().and_then(|t| models::find(t)) {
            return cmd_model(cmd, preset, &opts, out).map(|()| Ended::OK);
        }
    }
    match cmd.as_str() {
        "presets" => {
            opts.format_for("presets", TEXT_ONLY)?;
            out.text(&list_presets())?
        }
        "run" => runs::cmd_run(&opts, out)?,
        "show" => cmd_show(&opts, out)?,
        "check" => return check::cmd_check(&opts, out),
        "calibrate" => return cmd_calibrate(&opts, out),
        "sweep" => runs::cmd_sweep(&opts, out)?,
        "fingerprint" => cmd_fingerprint(&opts, out)?,
        "trace" => return trace::cmd_trace(&opts, out),
        "help" | "--help" | "-h" => out.text(&usage())?,
        other => return Err(CliError::UnknownCommand(other.to_string())),
    }
    Ok(Ended::OK)
}

/// Resolve a preset id or a file path to scenarios (`all` = every preset).
pub fn load(target: &str) -> Result<Vec<(String, Scenario)>, CliError> {
    if target == "all" {
        return Ok(presets::all().iter().map(|p| (p.id.to_string(), p.scenario())).collect());
    }
    if let Some(p) = presets::find(target) {
        return Ok(vec![(p.id.to_string(), p.scenario())]);
    }
    let text = read_scenario(target)?;
    let s = dsl::parse_any(&text).map_err(|error| CliError::Scenario { target: target.to_string(), error })?;
    let name = if s.name.is_empty() { target.to_string() } else { s.name.clone() };
    Ok(vec![(name, s)])
}

/// The text of the file `path`, at most `cap` bytes of UTF-8 (`input::read_text`).
pub(crate) fn read_input(path: &str, cap: u64) -> Result<String, CliError> {
    input::read_text(path, cap).map_err(|error| CliError::Input { target: path.to_string(), error })
}

/// The text of the scenario file `path`, at most [`dsl::MAX_INPUT`] bytes of UTF-8, checked by
/// the parser as it is read (`dsl::Reading`): a text the parser refuses is refused with the
/// error `dsl::parse_any` gives it, holding what was read since its last top-level declaration;
/// a JSON text settles that check at its first piece, and then JSON is walked, counting its lists, and refused at the first element past a cap
/// (`dsl::refuse_json_past_caps`), before it is read whole and built.
pub(crate) fn read_scenario(path: &str) -> Result<String, CliError> {
    // The reading is the check's: what it holds goes when the check ends.
    let mut reading = dsl::Reading::new();
    input::read_checked(
        path,
        dsl::MAX_INPUT as u64,
        move |piece| {
            match piece {
                Some(piece) => reading.feed(piece)?,
                None => reading.finish()?,
            }
            Ok(if reading.settled() { input::Checking::Settled } else { input::Checking::More })
        },
        |text| dsl::refuse_json_past_caps(text),
    )
    .map_err(|stop| match stop {
        input::Stopped::Input(error) => CliError::Input { target: path.to_string(), error },
        input::Stopped::Refused(error) => CliError::Scenario { target: path.to_string(), error },
    })
}

fn list_presets() -> String {
    let mut s = String::new();
    for p in presets::all() {
        let _ = writeln!(s, "{:<36} {:<12} {}", p.id, p.family, p.title);
    }
    for p in models::MODEL_PRESETS {
        let _ = writeln!(s, "{:<36} {:<12} {}", p.id, p.family, p.title);
    }
    s
}

/// `run` and `sweep` for the shape-cache, arena and descriptor models: `--policy` names
/// variants (default: all of the model's).
fn model_variants(c: &ModelConfig, opts: &Options) -> Result<Vec<String>, CliError> {
    let known = c.variants();
    let list: Vec<String> = match &opts.policy_list {
        Some(l) => l.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect(),
        None => known.iter().map(|v| v.to_string()).collect(),
    };
    if let Some(v) = list.iter().find(|v| !known.contains(&v.as_str())) {
        return Err(ModelError::UnknownVariant { model: c.name(), variant: v.clone(), expected: known }.into());
    }
    Ok(list)
}

const MODEL_COLUMNS: [&str; 7] = ["variant", "value", "unit", "necessary", "collateral", "missed", "roles"];

fn model_row(label: &str, r: &ModelReport) -> String {
    let roles: Vec<String> = r.roles.iter().map(|(n, v)| format!("{n} {v:.2}")).collect();
    let t = r.verdicts;
    format!("{label:<16} {:>12.2} {:<6} {:>9} {:>10} {:>7}   {}\n", r.value, r.unit, t.necessary, t.collateral, t.missed, roles.join(", "))
}

/// One CSV line of a model run; `lead` holds the cells before the variant (a swept value).
fn model_csv_row(lead: &[&str], variant: &str, r: &ModelReport) -> String {
    let roles: Vec<String> = r.roles.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let t = r.verdicts;
    let mut cells: Vec<String> = lead.iter().map(|c| c.to_string()).collect();
    cells.extend([variant.to_string(), r.value.to_string(), r.unit.clone(), t.necessary.to_string(), t.collateral.to_string(), t.missed.to_string()]);
    cells.push(roles.join(";"));
    cells.join(",") + "\n"
}

/// A model preset's configuration with the command line's `--param` knobs applied.
fn model_config(preset: &models::ModelPreset, opts: &Options) -> Result<ModelConfig, CliError> {
    let mut config = preset.config();
    for (name, value) in &opts.sets {
        config = models::apply(&config, name, value)?;
    }
    Ok(config)
}

fn cmd_model(cmd: &str, preset: &models::ModelPreset, opts: &Options, out: &mut Out) -> Result<(), CliError> {
    let config = model_config(preset, opts)?;
    let variants = model_variants(&config, opts)?;
    let header = format!("{:<16} {:>12} {:<6} {:>9} {:>10} {:>7}   roles\n", "variant", "value", "unit", "necessary", "collateral", "missed");
    match (cmd, &opts.sweep) {
        ("run", Some(_)) => Err(CliError::SweepInRun),
        ("sweep", None) => Err(CliError::SweepNeedsParam),
        (_, None) => {
            let format = opts.format_for("run", RUN_FORMATS)?;
            let reports = variants.iter().map(|v| config.run(v).map(|r| (v, r))).collect::<Result<Vec<_>, _>>()?;
            match format {
                Format::Json => {
                    let runs: Vec<&ModelReport> = reports.iter().map(|(_, r)| r).collect();
                    Ok(out.json(&runs)?)
                }
                Format::Csv => Ok(out.text(&(MODEL_COLUMNS.join(",") + "\n" + &reports.iter().map(|(v, r)| model_csv_row(&[], v, r)).collect::<String>()))?),
                _ => {
                    Ok(out
                        .text(&(format!("{} ({})\n{header}", preset.id, preset.family) + &reports.iter().map(|(v, r)| model_row(v, r)).collect::<String>()))?)
                }
            }
        }
        (_, Some((name, values))) => {
            let format = opts.format_for("sweep", SWEEP_FORMATS)?;
            out.text(&match format {
                Format::Csv => format!("{name},{}\n", MODEL_COLUMNS.join(",")),
                _ => format!("{} ({})\n", preset.id, preset.family),
            })?;
            for value in values {
                let c = models::apply(&config, name, value)?;
                if format == Format::Table {
                    out.text(&format!("{name} = {value}\n{header}"))?;
                }
                for v in &variants {
                    let r = c.run(v)?;
                    out.text(&if format == Format::Csv { model_csv_row(&[value], v, &r) } else { model_row(v, &r) })?;
                }
                out.flush()?;
            }
            Ok(())
        }
    }
}

fn cmd_fingerprint(opts: &Options, out: &mut Out) -> Result<(), CliError> {
    let format = opts.format_for("fingerprint", FINGERPRINT_FORMATS)?;
    if opts.positional.is_empty() {
        return Err(CliError::MissingTarget);
    }
    let (mut prints, mut traces) = (Vec::new(), Vec::new());
    for path in &opts.positional {
        // A runtime log is evidence too: its observed scope, replayed under every policy. A file
        // that is neither JSON nor a log format the reader knows is read as a probe result, whose
        // refusal says what the text is.
        if trace::is_log(path)? {
            let t = trace::read_file(path, None, blast_engine::trace::Limits::default())?;
            if t.format.is_some() {
                if format == Format::Json {
                    return Err(CliError::LogAsJson(path.clone()));
                }
                traces.push((path.as_str(), t));
                continue;
            }
        }
        let text = read_input(path, MAX_PROBE_BYTES as u64)?;
        let result = ProbeResult::parse(&text).map_err(|error| CliError::Fingerprint { file: path.clone(), error })?;
        prints.push(fingerprint(&result).map_err(|error| CliError::Fingerprint { file: path.clone(), error })?);
    }
    if let Some(png) = opts.plot.as_ref().filter(|_| !prints.is_empty()) {
        let bytes = plot::fingerprint_png(&prints)?;
        std::fs::write(png, bytes).map_err(|e| CliError::Plot(format!("{png}: {e}")))?;
    }
    match format {
        Format::Json => out.json(&prints)?,
        Format::Markdown => {
            out.text(&fingerprint_markdown(&prints))?;
            if !traces.is_empty() {
                out.text(&format!("\n### Observed scope from traces\n\n{}", trace_scope_markdown(&traces)))?;
            }
        }
        _ => {
            let tables = prints.iter().map(fingerprint_table).chain(traces.iter().map(|(p, t)| trace::evidence_table(p, t)));
            out.text(&tables.collect::<Vec<_>>().join("\n"))?
        }
    }
    Ok(())
}

/// The generated part of docs/RUNTIMES.md: what each runtime's source says a write invalidates
/// (`runtimes::PROFILES`), then how the measured fingerprints compare with that, then each
/// runtime's measured and simulated slowdowns.
pub fn fingerprint_markdown(prints: &[Fingerprint]) -> String {
    let mut s = String::from("### What each runtime invalidates, from its source\n\n| runtime | closest policy | semantics | a class write throws away | where |\n|---|---|---|---|---|\n");
    for p in &PROFILES {
        let _ = writeln!(s, "| {} | `{}` | {} | {} | {} |", p.name, p.policy, p.semantics, p.invalidates, p.source);
    }
    s.push_str("\n### What the measurements fit\n\n| runtime | version | load (start-end) | policy from source | its rms log10 (rank) | best fit | its rms log10 | next shape's / best's | write ns | relink ns | rows too wide to read |\n|---|---|---|---|---:|---|---:|---:|---:|---:|---:|\n");
    for f in prints {
        let best = f.best();
        let claimed = runtimes::profile(&f.runtime).map(|p| p.policy);
        let claim = match claimed.and_then(|c| f.fits.iter().position(|fit| fit.policy == c).map(|rank| (c, rank))) {
            Some((c, rank)) => (format!("`{c}`"), format!("{:.3} ({})", f.fits[rank].rms_log10, rank + 1)),
            None => ("–".to_string(), "–".to_string()),
        };
        let unreadable = f.pairs.iter().filter(|p| !p.readable).count();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | **{}** | {:.3} | {:.1}x | {:.0} | {:.0} | {unreadable} of {} |",
            f.runtime,
            f.version,
            load_label(f),
            claim.0,
            claim.1,
            best_label(f),
            best.rms_log10,
            f.margin(),
            best.write_ns,
            best.relink_ns,
            f.pairs.len()
        );
    }
    for f in prints {
        let _ = writeln!(
            s,
            "\n**{}**: measured slowdown over the no-write baseline (spread: how far the fastest quarter of reps spread, the larger of the two rows; * too wide to read), and what each policy simulates at its fitted costs\n",
            f.runtime
        );
        let _ = writeln!(s, "| workload | measured | spread | {} |", f.fits.iter().map(|fit| fit.policy.name()).collect::<Vec<_>>().join(" | "));
        let _ = writeln!(s, "|---|---:|---:|{}", "---:|".repeat(f.fits.len()));
        for (k, p) in f.pairs.iter().enumerate() {
            let sims = f.fits.iter().map(|fit| format!("{:.2}", fit.simulated[k])).collect::<Vec<_>>().join(" | ");
            let _ = writeln!(s, "| {} | {:.2} | {:.0}%{} | {sims} |", p.label(), p.measured, p.spread * 100.0, if p.readable { "" } else { "*" });
        }
    }
    s
}

/// The best policy and the ones the workloads cannot tell from it.
fn best_label(f: &Fingerprint) -> String {
    std::iter::once(f.best().policy).chain(f.tied()).map(|p| p.name()).collect::<Vec<_>>().join(" = ")
}

/// The machine's load average at the start and the end of the probe run, when recorded.
fn load_label(f: &Fingerprint) -> String {
    match (f.load_start, f.load_end) {
        (Some(a), Some(b)) => format!("{a:.1}-{b:.1}"),
        (None, Some(b)) => format!("{b:.1} (end)"),
        _ => "–".into(),
    }
}

fn fingerprint_table(f: &Fingerprint) -> String {
    let mut s = format!("{} ({}), load {}\n", f.runtime, f.version, load_label(f));
    let _ = write!(s, "{:<24} {:>9} {:>7}", "workload", "measured", "spread");
    for fit in &f.fits {
        let _ = write!(s, " {:>12}", fit.policy.name());
    }
    for (k, p) in f.pairs.iter().enumerate() {
        let _ = write!(s, "\n{:<24} {:>8.2}x {:>6.0}%{}", p.label(), p.measured, p.spread * 100.0, if p.readable { " " } else { "*" });
        for fit in &f.fits {
            let _ = write!(s, " {:>11.2}x", fit.simulated[k]);
        }
    }
    let _ = write!(s, "\n{:<24} {:>9} {:>7}", "write ns", "", "");
    for fit in &f.fits {
        let _ = write!(s, " {:>12.0}", fit.write_ns);
    }
    let _ = write!(s, "\n{:<24} {:>9} {:>7}", "relink ns", "", "");
    for fit in &f.fits {
        let _ = write!(s, " {:>12.0}", fit.relink_ns);
    }
    let _ = write!(s, "\n{:<24} {:>9} {:>7}", "rms log10", "", "");
    for fit in &f.fits {
        let _ = write!(s, " {:>12.3}", fit.rms_log10);
    }
    let unreadable = f.pairs.iter().filter(|p| !p.readable).count();
    let _ = writeln!(
        s,
        "\nbest: {} (the next different shape's residual is {:.1}x larger); {unreadable} of {} rows too wide to read (*)",
        best_label(f),
        f.margin(),
        f.pairs.len()
    );
    s
}

/// `show`: the scenario in the other format (after `--param`'s settings). What `show` prints,
/// `run` must take back: it is refused when `run` would refuse it, by the same check with the
/// same message (`sim::admit`: validation and the work bound under `--policy`, the policies
/// `run` defaults to when none is given), and when the printed text would be larger than
/// `run` reads ([`dsl::MAX_INPUT`]). The JSON is measured by encoding it into a counter before
/// it is encoded into the output.
fn cmd_show(opts: &Options, out: &mut Out) -> Result<(), CliError> {
    let format = opts.format_for("show", SHOW_FORMATS)?;
    let (name, s) = load(opts.one_target()?)?.remove(0);
    let (s, params) = settings(s, opts)?;
    sim::admit(&s, &params, &opts.policies()?).map_err(|error| CliError::Run { scenario: name.clone(), error })?;
    let cap = dsl::MAX_INPUT as u64;
    let refuse = |bytes: u64| CliError::ShowTooLarge { scenario: name.clone(), format, bytes, cap };
    match format {
        Format::Json => {
            let bytes = out::json_len(&s)?;
            if bytes > cap {
                return Err(refuse(bytes));
            }
            Ok(out.json(&s)?)
        }
        _ => {
            let text = dsl::print(&s);
            if text.len() as u64 > cap {
                return Err(refuse(text.len() as u64));
            }
            Ok(out.text(&text)?)
        }
    }
}

/// The scenario and engine params after applying every `--param name=value`.
pub(crate) fn settings(s: Scenario, opts: &Options) -> Result<(Scenario, Params), CliError> {
    let mut cur = (s, Params::default());
    for (name, value) in &opts.sets {
        cur = set(&cur.0, &cur.1, name, value)?;
    }
    Ok(cur)
}

pub(crate) fn set(s: &Scenario, params: &Params, name: &str, value: &str) -> Result<(Scenario, Params), CliError> {
    blast_engine::sweep::apply(s, params, name, value).map_err(|error| CliError::Setting { name: name.to_string(), value: value.to_string(), error })
}

/// docs/groovy24_sweeps.png: the Groovy 2.4 sweeps of `cal` beside the same mirrors under `global`.
pub fn sweeps_chart(cal: &Calibration) -> Result<Vec<u8>, CliError> {
    let global = groovy24::points_under(&Reference::get().groovy24_sweeps, &Params::default(), Policy::Global);
    plot::sweeps_png(&cal.sweeps, &global)
}

fn cmd_calibrate(opts: &Options, out: &mut Out) -> Result<Ended, CliError> {
    let format = opts.format_for("calibrate", CALIBRATE_FORMATS)?;
    let cal = calibrate(&Params::default());
    if let Some(png) = &opts.plot {
        std::fs::write(png, sweeps_chart(&cal)?).map_err(|e| CliError::Plot(format!("{png}: {e}")))?;
    }
    match format {
        Format::Json => out.json(&cal)?,
        Format::Markdown => out.text(&calibration_markdown(&cal))?,
        _ => out.text(&calibration_table(&cal))?,
    }
    if cal.ok() {
        Ok(Ended::OK)
    } else {
        let failed: Vec<&str> = cal.checks.iter().filter(|c| !c.ok).map(|c| c.name.as_str()).collect();
        Ok(Ended { code: 1, note: format!("calibration FAILED: {}\n", failed.join("; ")) })
    }
}

/// The cells of one calibration row, shared by the terminal table and the Markdown doc.
fn calibration_cells(r: &CalRow) -> [String; 11] {
    [
        r.id.clone(),
        r.unit.clone(),
        fmt_ops(r.before.simulated),
        fmt_ops(r.before.published),
        format!("{:+.3}", r.before.log10_error),
        fmt_ops(r.after.simulated),
        fmt_ops(r.after.published),
        format!("{:+.3}", r.after.log10_error),
        format!("{:.3}", r.ratio_simulated),
        format!("{:.3}", r.ratio_published),
        format!("{:+.3}", r.ratio_log10_error),
    ]
}

const CALIBRATION_HEADER: [&str; 11] =
    ["row", "unit", "before: sim", "published", "log10", "after: sim", "published", "log10", "sim a/b", "published a/b", "log10"];

fn calibration_table(cal: &Calibration) -> String {
    let widths = [44, 6, 12, 12, 7, 12, 12, 7, 10, 13, 7];
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            let _ = if i == 0 { write!(l, "{c:<w$}") } else { write!(l, " {c:>w$}") };
        }
        l + "\n"
    };
    let mut s = line(&CALIBRATION_HEADER.map(String::from));
    for r in &cal.rows {
        s.push_str(&line(&calibration_cells(r)));
    }
    s.push('\n');
    let _ = writeln!(s, "{:<10} {:>8} {:>14} {:>14} {:>14} {:>7} {:>7}", "groovy2.4", "param", "measured ns", "min..max", "simulated ns", "log10", "deopts");
    for p in &cal.sweeps {
        let range = format!("{}..{}", fmt_ns(p.measured_min_ns), fmt_ns(p.measured_max_ns));
        let _ = writeln!(
            s,
            "{:<10} {:>8} {:>14} {:>14} {:>14} {:>+7.3} {:>7}",
            p.sweep,
            p.param,
            fmt_ns(p.measured_ns),
            range,
            fmt_ns(p.simulated_ns),
            p.log10_error,
            p.deopts
        );
    }
    s.push('\n');
    for c in &cal.checks {
        let _ = writeln!(s, "{} {} ({})", if c.ok { "ok  " } else { "FAIL" }, c.name, c.detail);
    }
    let failed = cal.checks.iter().filter(|c| !c.ok).count();
    let _ = writeln!(s, "\n{} passed, {} failed", cal.checks.len() - failed, failed);
    s
}

/// The calibration as Markdown, for docs/CALIBRATION.md (generated, never edited by hand).
pub fn calibration_markdown(cal: &Calibration) -> String {
    let mut s = String::from("<!-- Generated by `cargo run -p blast-cli -- calibrate --format markdown`; do not edit. -->\n");
    s.push_str("# Calibration against published figures\n\n");
    s.push_str("Simulated with the engine's default parameters (`crates/engine/src/params.rs` and each model's params). Rows come from `crates/engine/data/` (each file cites its source): before/after are the two variants compared (for ScopedInvalidationBench, before = global policy and after = exact); log10 = log10(simulated / published); a/b = after / before. Tolerances: ratios within 2x (|log10| <= 0.30), absolute values within 3x.\n\n");
    s.push_str(&format!("| {} |\n", CALIBRATION_HEADER.join(" | ")));
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &cal.rows {
        s.push_str(&format!("| {} |\n", calibration_cells(r).join(" | ")));
    }
    s.push_str(GROOVY24_DOC);
    s.push_str("| sweep | param | measured median ns | measured min..max | simulated ns | log10 | simulated deopts |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for p in &cal.sweeps {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}..{} | {} | {:+.3} | {} |",
            p.sweep,
            p.param,
            fmt_ns(p.measured_ns),
            fmt_ns(p.measured_min_ns),
            fmt_ns(p.measured_max_ns),
            fmt_ns(p.simulated_ns),
            p.log10_error,
            p.deopts
        );
    }
    s.push_str(GROOVY24_MECHANISMS);
    s.push_str("\n## Checks\n\n");
    for c in &cal.checks {
        let _ = writeln!(s, "- {} {} ({})", if c.ok { "✅" } else { "❌" }, c.name, c.detail);
    }
    s
}

/// Nanoseconds with three significant digits.
fn fmt_ns(v: f64) -> String {
    if !v.is_finite() || v <= 0.0 {
        return format!("{v}");
    }
    let digits = (2.0 - v.log10().floor()).max(0.0) as usize;
    format!("{v:.digits$}")
}

/// The Groovy 2.4 section's introduction (CALIBRATION.md).
const GROOVY24_DOC: &str = include_str!("calibration_groovy24.md");
/// Where Groovy 2.4 and the published Groovy 5 figures differ in mechanism (CALIBRATION.md).
const GROOVY24_MECHANISMS: &str = include_str!("calibration_mechanisms.md");

/// Format a throughput like JMH does: a few significant digits.
pub fn fmt_ops(v: f64) -> String {
    if !v.is_finite() {
        return "inf".into();
    }
    let digits = if v >= 100.0 {
        1
    } else if v >= 1.0 {
        3
    } else {
        (3.0 - v.log10().floor()).clamp(3.0, 8.0) as usize
    };
    format!("{v:.digits$}")
}
